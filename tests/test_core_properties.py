"""Property tests of the evaluation core (hypothesis).

The reference for each property is an invariance the definition implies, or a closed
form (a perfect ranking scores 1), not the code's own earlier output.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf

MEASURES = [
    "AP",
    "nDCG",
    "nDCG@5",
    "P@5",
    "RR",
    "R@10",
    "Rprec",
    "Bpref",
    "infAP",
    "gm_map",
    "iprec_at_recall_0.50",
    "11pt_avg",
    "Success@3",
    "Judged@5",
    "num_rel_ret",
    "P(rel=2)@5",
]


@st.composite
def collections(draw, max_systems=4, max_topics=4, max_docs=12):
    """Random small runs (with score ties) and graded qrels as frames of strings."""
    n_sys = draw(st.integers(1, max_systems))
    n_top = draw(st.integers(1, max_topics))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    runs, qrels = [], []
    for t in range(n_top):
        topic = f"{t:03d}"
        docs = [f"d{t}-{i}" for i in range(max_docs)]
        judged = rng.random(max_docs) < 0.7
        grades = rng.integers(0, 3, max_docs)
        qrels.append(
            pd.DataFrame({"topic": topic, "doc": np.array(docs)[judged], "rel": grades[judged]})
        )
        for s in range(n_sys):
            if rng.random() < 0.15 and t > 0:
                continue  # system skipped this topic
            k = int(rng.integers(1, max_docs + 1))
            pick = rng.choice(max_docs, k, replace=False)
            score = rng.integers(0, 4, k).astype(float)  # many ties
            runs.append(
                pd.DataFrame(
                    {
                        "system": f"sys{s}",
                        "topic": topic,
                        "doc": np.array(docs)[pick],
                        "score": score,
                    }
                )
            )
    return pd.concat(runs, ignore_index=True), pd.concat(qrels, ignore_index=True)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _same(a, b):
    np.testing.assert_array_equal(a.values, b.values)
    assert a.system.values.tolist() == b.system.values.tolist()
    assert a.topic.values.tolist() == b.topic.values.tolist()


@SETTINGS
@given(collections(), st.randoms(use_true_random=False))
def test_permuting_rows_changes_nothing(coll, rnd):
    runs, qrels = coll
    base = irf.evaluate(runs, qrels, MEASURES)
    perm = list(range(len(runs)))
    rnd.shuffle(perm)
    qperm = list(range(len(qrels)))
    rnd.shuffle(qperm)
    shuffled = irf.evaluate(runs.iloc[perm], qrels.iloc[qperm], MEASURES)
    _same(base, shuffled)


@SETTINGS
@given(collections())
def test_renaming_a_system_changes_nothing_else(coll):
    runs, qrels = coll
    base = irf.evaluate(runs, qrels, MEASURES)
    old = runs.system.iloc[0]
    renamed = runs.assign(system=runs.system.replace({old: "zz_renamed"}))
    cube = irf.evaluate(renamed, qrels, MEASURES)
    np.testing.assert_array_equal(cube.sel(system="zz_renamed").values, base.sel(system=old).values)
    for s in base.system.values:
        if s != old:
            np.testing.assert_array_equal(cube.sel(system=s).values, base.sel(system=s).values)


@SETTINGS
@given(collections())
def test_filtering_joined_rows_keeps_each_systems_numbers(coll):
    runs, qrels = coll
    joined = runs.ir.join(qrels)
    full = joined.ir.metric(MEASURES)
    for s in full.system.values:
        alone = joined[joined.system == s].ir.metric(MEASURES)
        got = alone.sel(system=s)
        want = full.sel(system=s, topic=got.topic.values)
        np.testing.assert_array_equal(got.values, want.values)
        # topics the system did not retrieve are exactly the NaN cells of the full cube
        missing = set(full.topic.values) - set(got.topic.values)
        assert all(np.isnan(full.sel(system=s, topic=t).values).all() for t in missing)


@SETTINGS
@given(collections(max_systems=1))
def test_perfect_ranking_scores_one(coll):
    _, qrels = coll
    rel = qrels[qrels.rel >= 1]
    if rel.empty:  # no relevant document: no perfect run to build (an empty run frame is an error)
        return
    # a perfect run: every relevant doc, best grade first
    perfect = rel.sort_values(["topic", "rel"], ascending=[True, False]).assign(
        system="perfect", score=lambda d: -np.arange(len(d), dtype=float)
    )
    cube = irf.evaluate(
        perfect[["system", "topic", "doc", "score"]], qrels, ["AP", "nDCG", "Rprec", "RR"]
    )
    np.testing.assert_allclose(cube.values, 1.0, rtol=0, atol=1e-12)


@SETTINGS
@given(collections())
def test_id_dtypes_object_str_category_agree(coll):
    runs, qrels = coll
    base = irf.evaluate(
        runs.astype({"system": object, "topic": object, "doc": object}), qrels, MEASURES
    )
    for dtype in ("str", "category"):
        cube = irf.evaluate(
            runs.astype(dict.fromkeys(("system", "topic", "doc"), dtype)),
            qrels.astype(dict.fromkeys(("topic", "doc"), dtype)),
            MEASURES,
        )
        _same(base, cube)


@SETTINGS
@given(collections(max_systems=2))
def test_values_in_unit_interval_and_topic_set(coll):
    runs, qrels = coll
    cube = irf.evaluate(runs, qrels, [m for m in MEASURES if m not in ("gm_map", "num_rel_ret")])
    v = cube.values[~np.isnan(cube.values)]
    assert ((v >= 0) & (v <= 1 + 1e-12)).all()
    # default topic set: qrels topics retrieved by at least one system
    assert set(cube.topic.values) == set(runs.topic) & set(qrels.topic)


def test_trec_eval_ties_docno_descending():
    run = pd.DataFrame(
        {"system": "s", "topic": "1", "doc": ["a", "c", "b"], "score": [1.0, 1.0, 1.0]}
    )
    qrels = pd.DataFrame({"topic": "1", "doc": ["c"], "rel": [1]})
    # trec_eval ranks tied a, b, c as c, b, a: c is first
    assert irf.evaluate(run, qrels, "RR").item() == 1.0
    qrels_a = pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})
    assert irf.evaluate(run, qrels_a, "RR").item() == pytest.approx(1 / 3)
    # input order keeps the frame's order: a first
    assert irf.evaluate(run, qrels_a, "RR", order="input").item() == 1.0


def test_float32_ties_versus_float64():
    # differ below float32 resolution: tie for trec_eval 9 (docno desc: b first), not for trec_eval 10
    run = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a", "b"], "score": [1.00000001, 1.0]})
    qrels = pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})
    assert irf.evaluate(run, qrels, "RR").item() == 0.5
    assert irf.evaluate(run, qrels, "RR", order="trec_eval10").item() == 1.0


def test_rank_order_uses_rank_column():
    run = pd.DataFrame(
        {"system": "s", "topic": "1", "doc": ["a", "b"], "score": [1.0, 2.0], "rank": [1, 2]}
    )
    qrels = pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})
    assert irf.evaluate(run, qrels, "RR").item() == 0.5
    assert irf.evaluate(run, qrels, "RR", order="rank").item() == 1.0


def test_depth_truncates_after_sorting():
    run = pd.DataFrame(
        {"system": "s", "topic": "1", "doc": ["a", "b", "c"], "score": [1.0, 3.0, 2.0]}
    )
    qrels = pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})
    assert irf.evaluate(run, qrels, "num_rel_ret", depth=2).item() == 0
    assert irf.evaluate(run, qrels, "num_rel_ret", depth=3).item() == 1


def test_gains_for_ndcg_closed_form():
    run = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b"], "rel": [1, 2]})
    # gains 1->3, 2->9: DCG = 3/log2(2) + 9/log2(3); ideal = 9 + 3/log2(3)
    want = (3 + 9 / np.log2(3)) / (9 + 3 / np.log2(3))
    assert irf.evaluate(run, qrels, "nDCG", gains={1: 3, 2: 9}).item() == pytest.approx(
        want, abs=1e-15
    )
    default = (1 + 2 / np.log2(3)) / (2 + 1 / np.log2(3))
    assert irf.evaluate(run, qrels, "nDCG").item() == pytest.approx(default, abs=1e-15)


def test_judged_only_drops_unjudged_before_evaluating():
    run = pd.DataFrame({"system": "s", "topic": "1", "doc": ["x", "a"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})
    assert irf.evaluate(run, qrels, "RR").item() == 0.5
    assert irf.evaluate(run, qrels, "RR", judged_only=True).item() == 1.0


def test_cube_attrs_and_measure_labels_as_passed():
    qrels, runs = irf.datasets.trec_eval_sample()
    cube = runs.ir.metric(["map", "P(rel=1)@10", "nDCG@10"], qrels=qrels, depth=500, complete=True)
    assert cube.measure.values.tolist() == ["map", "P(rel=1)@10", "nDCG@10"]
    assert (
        cube.attrs["order"] == "trec_eval"
        and cube.attrs["depth"] == 500
        and cube.attrs["complete"] == 1
    )
    assert cube.attrs["irframe_version"] == irf.__version__
    single = runs.ir.metric("AP", qrels=qrels)
    assert single.dims == ("system", "topic", "measure") and single.measure.values.tolist() == [
        "AP"
    ]
    # the cube can be written to netCDF-style attrs: all attrs are plain scalars / strings
    assert all(isinstance(v, (str, int, float)) for v in cube.attrs.values())


def test_summarize_missing_policies():
    runs = pd.DataFrame(
        {
            "system": ["a", "a", "b"],
            "topic": ["1", "2", "1"],
            "doc": ["x", "y", "x"],
            "score": [1.0, 1.0, 1.0],
        }
    )
    qrels = pd.DataFrame({"topic": ["1", "2"], "doc": ["x", "y"], "rel": [1, 1]})
    cube = irf.evaluate(runs, qrels, ["AP", "num_rel"])
    assert np.isnan(cube.sel(system="b", topic="2", measure="AP").item())
    skip = irf.summarize(cube)
    assert skip.loc["b", "AP"] == 1.0 and skip.loc["b", "num_rel"] == 1
    zero = irf.summarize(cube, missing="zero")
    assert zero.loc["b", "AP"] == 0.5
    common = irf.summarize(cube, missing="common")
    assert common.loc["a", "AP"] == 1.0 and common.loc["b", "AP"] == 1.0
    with pytest.raises(ValueError, match="missing="):
        irf.summarize(cube, missing="drop")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=8), min_size=1, max_size=6)
)
def test_rows_at_or_above_counts_like_a_loop(groups):
    """``Rows.at_or_above`` (the bpref/infAP counts of non-relevant/unjudged rows above each
    relevant row, from positions only) against a brute-force count written here.  Property test."""
    import types

    from irframe.measures.trec_arrays import Rows

    lens = np.array([len(g) for g in groups])
    offsets = np.concatenate([[0], np.cumsum(lens)])
    sel = np.array([s for g in groups for s, _ in g], bool)
    mask = np.array([m for g in groups for _, m in g], bool)
    a = types.SimpleNamespace(offsets=offsets, group_len=lens)
    got = Rows(types.SimpleNamespace(aligned=a), sel).at_or_above(mask).tolist()
    want = [sum(m for _, m in g[: i + 1]) for g in groups for i, (s, _) in enumerate(g) if s]
    assert got == want


def test_err_of_a_ranking_does_not_depend_on_the_rankings_beside_it():
    """ERR summed its terms with numpy's sum over a matrix as wide as the longest ranking
    in the frame, whose grouping of the terms depends on that width: a ranking's ERR
    changed in the last bit with the other runs in the frame (and so between Dask
    partitions). Now left to right, as gdeval: the same bits alone and beside a long run,
    and the sum written out here."""
    rng = np.random.default_rng(4)
    grades = [0, 2, 1, 2, 0, 4, 4, *rng.integers(0, 5, 23)]  # (the review's case first)
    qrels = pd.DataFrame({"topic": "t1", "doc": [f"d{i}" for i in range(30)], "rel": grades})
    for n in (7, 3, 9, 17, 25):
        docs = [f"d{i}" for i in (range(7) if n == 7 else rng.permutation(30)[:n])]
        a = pd.DataFrame(
            {"system": "A", "topic": "t1", "doc": docs, "score": np.arange(n, 0, -1.0)}
        )
        long = pd.DataFrame(
            {
                "system": "B",
                "topic": "t1",
                "doc": [f"x{i}" for i in range(40)],
                "score": np.arange(40.0),
            }
        )
        alone = irf.evaluate(a, qrels, "ERR@20").item()
        beside = irf.evaluate(pd.concat([a, long]), qrels, "ERR@20").sel(system="A").item()
        assert alone == beside
        grade = dict(zip(qrels.doc, qrels.rel, strict=True))
        total, still = 0.0, 1.0
        for i, d in enumerate(docs[:20], start=1):
            r = (2.0 ** grade[d] - 1) / 2.0**4
            total += r * still / i
            still *= 1 - r
        assert alone == pytest.approx(total, rel=1e-14)
