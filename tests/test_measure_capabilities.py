"""What a measure supports is declared on its definition (``MeasureDef``), nowhere else.

* a measure registered from outside the package, with ``expected=``, ``order_safe=``,
  ``bounds=`` and ``topic_local=``, gets ``order="expected"/"best"/"worst"``,
  ``bounds=True``, a ``qrels={name: frame}`` mapping and Dask frames (through the same
  ``irframe.evaluate``, each capability as in memory) with no other change;
  its numbers are checked against brute force written here (every order of the tied
  documents; every unjudged document labelled relevant by hand) and against trec_eval's
  ``P@k`` (relevant documents in the top k = k · P@k);
* every spelling a definition records parses to that definition;
* ``irf.list_measures()`` shows the declared fields as columns.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import irframe as irf
from irframe.align import segment_sum
from irframe.errors import MeasureParamError
from irframe.measures import MeasureDef, Param, parse_measure, register, registry_scope, ties
from irframe.measures.registry import TOOLS


def _level(ctx, m):
    return ctx.options["rel_level"] if m.param("rel") is None else m.param("rel")


def _rel_in(ctx, m):
    """Relevant documents among the first k (the whole ranking without @k)."""
    a = ctx.aligned
    relevant = np.nan_to_num(a.row_rel, nan=-np.inf) >= _level(ctx, m)
    if m.cutoff is not None:
        relevant &= a.row_rank <= m.cutoff
    return segment_sum(relevant.astype(np.float64), a.offsets)


def _rel_in_expected(ctx, m):
    """Its mean over the orders of tied documents: each position of a tie group holds the
    group's share of relevant documents."""
    a = ctx.aligned
    pos = np.flatnonzero(np.nan_to_num(a.row_rel, nan=-np.inf) >= _level(ctx, m))
    return ties.expected_weighted_sum(
        ctx, pos, np.ones(len(pos)), m.cutoff, ties.count_weight, ties.count_cum_weight
    )


RELIN = MeasureDef(
    "RelIn",
    _rel_in,
    params={"rel": Param("float", None, description="threshold")},
    family="example",
    description="relevant documents among the first k",
    expected=_rel_in_expected,
    order_safe=True,
    bounds="exact",
    topic_local=True,
    spellings={"ranx": "hits@{k}"},
    reference="k * trec_eval P@k; brute force in tests/test_measure_capabilities.py",
    citation="none (a test measure)",
)

QRELS = pd.DataFrame(
    {
        "topic": ["1"] * 5 + ["2"] * 3,
        "doc": ["a", "b", "c", "d", "z", "a", "e", "f"],
        "rel": [1, 2, 0, 1, 1, 1, 0, 2],
    }
)
RUNS = pd.DataFrame(
    {
        "system": ["s"] * 9 + ["t"] * 5,
        "topic": ["1"] * 6 + ["2"] * 3 + ["1"] * 3 + ["2"] * 2,
        "doc": ["a", "b", "c", "u", "d", "v", "e", "a", "w", "c", "d", "x", "f", "y"],
        # ties: s/1 has {b, c, u} tied and {d, v} tied; t/1 has {c, d, x} tied
        "score": [9.0, 5, 5, 5, 2, 2, 3, 3, 1, 4, 4, 4, 2, 1],
    }
)


def _orders(runs):
    """Every order of every tie group, each as one system with distinct scores."""
    frames = []
    for (system, topic), g in runs.groupby(["system", "topic"]):
        g = g.sort_values(["score", "doc"], ascending=False)
        groups = [list(x.doc) for _, x in g.groupby("score", sort=False)]
        for i, perm in enumerate(itertools.product(*(itertools.permutations(x) for x in groups))):
            docs = [d for block in perm for d in block]
            frames.append(
                pd.DataFrame(
                    {
                        "system": f"{system}|{i}",
                        "topic": topic,
                        "doc": docs,
                        "score": np.arange(len(docs), 0, -1.0),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def test_a_measure_registered_from_outside_gets_every_capability_it_declares():
    with registry_scope():
        register(RELIN)
        measures = ["RelIn@2", "RelIn@3", "RelIn", "RelIn(rel=2)@4"]
        # against trec_eval's P@k (k · P@k relevant in the top k)
        cube = irf.evaluate(RUNS, QRELS, [*measures, "P@2", "P@3"])
        np.testing.assert_allclose(cube.sel(measure="RelIn@3"), 3 * cube.sel(measure="P@3"))
        np.testing.assert_allclose(cube.sel(measure="RelIn@2"), 2 * cube.sel(measure="P@2"))

        # tie orders against brute force over every order of the tied documents
        every = irf.evaluate(_orders(RUNS), QRELS, measures)
        run_of = every.system.to_index().str.split("|").str[0]
        brute = every.groupby(xr.DataArray(np.asarray(run_of), dims="system", name="group"))
        for order, reduce in (("expected", "mean"), ("best", "max"), ("worst", "min")):
            got = irf.evaluate(RUNS, QRELS, measures, order=order)
            want = getattr(brute, reduce)().rename(group="system")
            for s in ("s", "t"):
                for t in ("1", "2"):
                    np.testing.assert_allclose(
                        got.sel(system=s, topic=t).values,
                        want.sel(system=s, topic=t).values,
                        err_msg=f"{order} {s} {t}",
                    )

        # bounds: high = every unjudged retrieved document labelled relevant (by hand here)
        b = irf.evaluate(RUNS, QRELS, measures, bounds=True, unjudged_grade=2)
        judged = set(zip(QRELS.topic, QRELS.doc, strict=True))
        for s, g in RUNS.groupby("system"):
            extra = pd.DataFrame(
                [(t, d, 2) for t, d in zip(g.topic, g.doc, strict=True) if (t, d) not in judged],
                columns=["topic", "doc", "rel"],
            )
            high = irf.evaluate(g, pd.concat([QRELS, extra]), measures)
            np.testing.assert_allclose(
                b.sel(system=s, bound="high").values, high.sel(system=s).values
            )
        assert b.bound_exact.values.all()

        # several judgment sets: one qrels dim, each slice as evaluated alone
        shallow = QRELS[QRELS.doc != "b"]
        sets = irf.evaluate(RUNS, {"full": QRELS, "shallow": shallow}, measures)
        np.testing.assert_array_equal(
            sets.sel(qrels="shallow").values, irf.evaluate(RUNS, shallow, measures).values
        )

        # a Dask frame through the same function, partition by partition: every capability
        # above gives the in-memory result
        dd = pytest.importorskip("dask.dataframe")
        dask = pytest.importorskip("dask")
        ddf = dd.from_pandas(RUNS, npartitions=2)
        for options in (
            {},
            {"order": "expected"},
            {"order": "worst"},
            {"bounds": True, "unjudged_grade": 2},
            {"complete": True, "depth": 2},
        ):
            with dask.config.set(scheduler="synchronous"):
                got = irf.evaluate(ddf, QRELS, measures, **options)
            xr.testing.assert_identical(got, irf.evaluate(RUNS, QRELS, measures, **options))
        two = {"full": QRELS, "shallow": shallow}
        with dask.config.set(scheduler="synchronous"):
            got = irf.evaluate(ddf, two, measures, order="expected")
        xr.testing.assert_identical(got, irf.evaluate(RUNS, two, measures, order="expected"))

        # the catalogue shows the declarations
        row = irf.list_measures().loc["RelIn"]
        assert (row.expected, row.order_safe, row.bounds, row.topic_local, row.ranx) == (
            True,
            True,
            "exact",
            True,
            "hits@{k}",
        )


def test_what_a_measure_does_not_declare_it_does_not_get():
    plain = MeasureDef("Plain", _rel_in, family="trec_eval")  # the family grants nothing
    with registry_scope():
        register(plain)
        for order in ("expected", "best"):
            with pytest.raises(MeasureParamError, match="Plain"):
                irf.evaluate(RUNS, QRELS, "Plain@3", order=order)
        with pytest.raises(MeasureParamError, match=r"bounds=True is not defined.*Plain"):
            irf.evaluate(RUNS, QRELS, "Plain@3", bounds=True)
        dd = pytest.importorskip("dask.dataframe")
        import irframe.dask as idk

        with pytest.raises(idk.UnsupportedMeasureError, match="topic_local=True"):
            irf.evaluate(dd.from_pandas(RUNS, npartitions=2), QRELS, "Plain@3")


def test_declarations_are_checked():
    with pytest.raises(ValueError, match="bounds="):
        MeasureDef("X", _rel_in, bounds="maybe")
    with pytest.raises(ValueError, match="system-local"):
        MeasureDef("X", _rel_in, bounds="exact", system_local=False)
    with pytest.raises(ValueError, match="unknown tools"):
        MeasureDef("X", _rel_in, spellings={"trec-eval": "map"})


def test_every_recorded_spelling_parses_to_its_measure():
    table = irf.list_measures()
    checked = 0
    for name, row in table.iterrows():
        for tool in TOOLS:
            spelling = row[tool]
            if spelling:
                parsed = parse_measure(spelling.replace("{k}", "10"))
                assert parsed.name == name, (name, tool, spelling)
                checked += 1
    assert checked > 50


def test_catalogue_columns():
    table = irf.list_measures()
    for col in ("params", "allowed", "cutoff", "family", "aggregate", "description"):
        assert col in table.columns  # the columns that were there stay
    for col in ("expected", "order_safe", "bounds", "topic_local", "system_local", *TOOLS):
        assert col in table.columns
    assert table.loc["AP", "trec_eval"] == "map" and table.loc["RR", "ranx"] == "mrr"
    assert not table.loc["P_rare", "system_local"] and table.loc["P_rare", "bounds"] == "none"
    assert table.loc["R", "bounds"] == "exact_uncut"
    assert table.topic_local.all()  # every built-in measure can run on Dask


def test_every_builtin_measure_says_where_it_comes_from():
    """A built-in measure names what its numbers are checked against or where it was defined
    (a citation: author(s), a four-digit year and a venue after a comma)."""
    import re

    table = irf.list_measures()
    bare = table.index[(table.reference == "") & (table.citation == "")].tolist()
    assert not bare, f"measures with neither reference nor citation: {bare}"
    for name, cite in table.citation.items():
        if cite:
            assert re.search(r"\b(19|20)\d\d\b", cite) and "," in cite, (name, cite)
