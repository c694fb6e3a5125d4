"""Every public function returning an xarray object builds it with ``irframe.cube.result``.

The public functions are enumerated (every public module's ``__all__`` whose return annotation
names a DataArray or Dataset); each must have a call below, and its result must carry the
recorded attrs of its kind:

* evaluation cubes: the evaluation options (``irframe.options.Options.attrs``), ``measures``
  and ``irframe_version``;
* analysis results (statistics, meta-evaluation): ``computed`` (the function's own public
  name), ``parameters`` (names of the call's keyword arguments, each recorded under its own
  name) and ``irframe_version``.

Consistency: every attr value is a netCDF-safe scalar (str, int, float), a parameter name
recorded by several functions is recorded with the same type everywhere, and a value passed
explicitly is the value recorded.  Property tests (the attrs describe the call; no numbers).
"""

from __future__ import annotations

import importlib
import inspect
import typing
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from public_api import public_functions

import irframe as irf
from irframe import lexi, meta, stats
from irframe.align import align
from irframe.cwl import cwl, cwla, cwla_grid
from irframe.evaluate import Whole, evaluate_part
from irframe.options import OPTIONS, make_options

#: public functions that return xarray objects but are not results of their own
NOT_RESULTS = {
    "irframe.cube.result": "the constructor itself",
    "irframe.cube.make_cube": "the constructor of evaluation cubes (calls result)",
}

OPTION_ATTRS = {"order", "rel_level", "depth", "complete", "judged_only"}


def _returns_xarray(f) -> bool:
    ann = f.__annotations__.get("return")
    text = (
        ann
        if isinstance(ann, str)
        else typing.get_type_hints(f).get("return", "").__str__()
        if ann
        else ""
    )
    return "DataArray" in text or "Dataset" in text


def _xarray_functions() -> set[str]:
    return {q for q, f in public_functions(accessor=False).items() if _returns_xarray(f)}


@pytest.fixture(scope="module")
def data():
    qrels, runs = irf.datasets.synthetic(4, 6, 30, rng=3)
    cube = irf.evaluate(runs, qrels, ["AP", "P@10", "nDCG@10"])
    return {
        "runs": runs,
        "qrels": qrels,
        "aligned": align(runs, qrels),
        "cube": cube,
        "ap": cube.sel(measure="AP"),
        "pref": lexi.lexirecall(runs, qrels),
    }


def _cases(d):
    """qualified name -> (kind, call, keyword arguments passed explicitly)."""
    r, q, _a, cube, ap, pref = d["runs"], d["qrels"], d["aligned"], d["cube"], d["ap"], d["pref"]
    ev = "evaluation"
    cases = {
        "irframe.evaluate.evaluate": (
            ev,
            lambda kw: irf.evaluate(r, q, ["AP"], **kw),
            {"depth": 20},
        ),
        "irframe.evaluate.evaluate_part": (
            ev,
            lambda kw: evaluate_part(
                r[r.system == "sys1"],
                q,
                ["AP"],
                Whole(systems=np.array(["sys0", "sys1"])),
                make_options(**kw),
            ),
            {"complete": True},
        ),
        "irframe.cwl.cwl": (ev, lambda kw: cwl(r, q, "RBP@0.8", gains="auto", **kw), {"depth": 50}),
        "irframe.cwl.cwla_grid": (
            ev,
            lambda kw: cwla_grid(r, q, ["RBP(p=0.8)"], ["ERG"], gains="auto", **kw),
            {"depth": 50},
        ),
        "irframe.cwl.cwla": (ev, lambda kw: cwla(r, q, "INST(T=2)", gains="auto", **kw), {}),
        "irframe.lexi.lexi_classes": (
            ev,
            lambda kw: lexi.lexi_classes(r, q, **kw),
            {"rel_level": 2},
        ),
        "irframe.lexi.lexirecall": (ev, lambda kw: lexi.lexirecall(r, q, **kw), {"depth": 20}),
        "irframe.lexi.lexiprecision": (
            ev,
            lambda kw: lexi.lexiprecision(r, q, **kw),
            {"rel_level": 2},
        ),
        "irframe.lexi.rrlp": (ev, lambda kw: lexi.rrlp(r, q, **kw), {}),
        "irframe.lexi.tse": (ev, lambda kw: lexi.tse(r, q, n=200, **kw), {}),
        "irframe.lexi.metric_lexirecall": (
            ev,
            lambda kw: lexi.metric_lexirecall(r, q, n=200, **kw),
            {"epsilon": Fraction(1, 4)},
        ),
        "irframe.stats.compare": (
            "analysis",
            lambda kw: stats.compare(cube, **kw),
            {"alpha": 0.1, "correction": None, "missing": "zero", "test": "wilcoxon"},
        ),
        "irframe.stats.tukey_hsd": (
            "analysis",
            lambda kw: stats.tukey_hsd(ap, **kw),
            {"alpha": 0.1, "two_way": False},
        ),
        "irframe.stats.sign_test": (
            "analysis",
            lambda kw: stats.sign_test(pref, **kw),
            {"correction": "bh"},
        ),
        "irframe.stats.mean_ci": (
            "analysis",
            lambda kw: stats.mean_ci(cube, **kw),
            {"alpha": 0.2, "method": "t"},
        ),
        "irframe.meta.stability": (
            "analysis",
            lambda kw: meta.stability(cube, per_pair=True, rng=0, **kw)[1],
            {"n_trials": 50, "fuzziness": 0.01},
        ),
        "irframe.reproducibility.reproducibility": (
            "analysis",
            lambda kw: meta.reproducibility(r, r, q, measures=["AP"], **kw),
            {"baseline": "sys0", "depth": 20, "missing": "zero"},
        ),
        "irframe.rag.nugget_scores": (
            "analysis",
            lambda kw: irf.rag.nugget_scores(
                pd.DataFrame(
                    {
                        "system": "s",
                        "topic": "t",
                        "nugget": [0, 1],
                        "importance": ["vital", "okay"],
                        "assignment": ["support", "not_support"],
                    }
                ),
                **kw,
            ),
            {},
        ),
        "irframe.rag.support_scores": (
            "analysis",
            lambda kw: irf.rag.support_scores(
                pd.DataFrame(
                    {
                        "system": "s",
                        "topic": "t",
                        "sentence": [0],
                        "citation": ["d"],
                        "support": ["full_support"],
                    }
                ),
                **kw,
            ),
            {},
        ),
        "irframe.meta.correlation_matrix": (
            "analysis",
            lambda kw: meta.correlation_matrix(cube, **kw),
            {"method": "spearman"},
        ),
        "irframe.meta.metric_unanimity": (
            "analysis",
            lambda kw: meta.metric_unanimity(cube, **kw),
            {"base": 10.0},
        ),
        "irframe.lexi.preference_counts": (
            "analysis",
            lambda kw: lexi.preference_counts(pref, **kw),
            {},
        ),
        "irframe.lexi.mean_preference": (
            "analysis",
            lambda kw: lexi.mean_preference(pref, **kw),
            {},
        ),
        "irframe.lexi.metric_agreement": (
            "analysis",
            lambda kw: lexi.metric_agreement(pref, cube, **kw),
            {},
        ),
        "irframe.lexi.tie_fraction": ("analysis", lambda kw: lexi.tie_fraction(cube, **kw), {}),
    }
    return cases


def test_every_xarray_function_has_a_case(data):
    found = _xarray_functions()
    assert len(found) > 20
    covered = set(_cases(data)) | set(NOT_RESULTS)
    assert found - covered == set(), "add a case for these new functions"
    assert covered - found == set(), (
        "these cases name no public xarray function (renamed? annotation?)"
    )


def _fn(qualname):
    mod, name = qualname.rsplit(".", 1)
    return getattr(importlib.import_module(mod), name)


def _results(data):
    return {q: (kind, kw, call(kw)) for q, (kind, call, kw) in _cases(data).items()}


@pytest.fixture(scope="module")
def results(data):
    return _results(data)


def test_attrs_of_every_result(results):
    for q, (kind, kw, res) in results.items():
        assert isinstance(res, (xr.DataArray, xr.Dataset)), q
        at = res.attrs
        assert at.get("irframe_version") == irf.__version__, q
        bad = {k: v for k, v in at.items() if type(v) not in (str, int, float)}
        assert not bad, f"{q}: attrs that are not netCDF-safe scalars: {bad}"
        params = inspect.signature(_fn(q)).parameters
        if kind == "evaluation":
            assert OPTION_ATTRS <= set(at), f"{q}: missing options {OPTION_ATTRS - set(at)}"
            assert at.get("measures"), q
            assert "computed" not in at, q
            for k, v in kw.items():  # an explicit evaluation option is the recorded one
                if k in OPTIONS:
                    assert at[k] == v, (q, k, at[k], v)
        else:
            assert at.get("computed") == q, (q, at.get("computed"))
            names = [p for p in at["parameters"].split(", ") if p]
            assert set(names) <= set(at), q
            assert set(names) <= set(params), (
                f"{q}: recorded parameters {set(names) - set(params)} are not keywords"
            )
            for k, v in kw.items():  # every explicit keyword is recorded, as passed
                assert k in names, (q, k)
                assert at[k] == ("none" if v is None else v), (q, k, at[k], v)


def test_one_type_per_recorded_parameter(results):
    seen: dict[str, dict[type, str]] = {}
    for q, (_, _, res) in results.items():
        for k in [p for p in res.attrs.get("parameters", "").split(", ") if p] + sorted(
            OPTION_ATTRS & set(res.attrs)
        ):
            seen.setdefault(k, {}).setdefault(type(res.attrs[k]), q)
    mixed = {k: v for k, v in seen.items() if len(v) > 1}
    assert not mixed, f"parameters recorded with different types: {mixed}"


def test_attrs_survive_a_netcdf_round_trip(results, tmp_path):
    res = results["irframe.stats.compare"][2]
    path = tmp_path / "r.nc"
    res.to_netcdf(path)
    with xr.open_dataset(path) as back:
        assert back.attrs == res.attrs


def test_evaluation_variants_keep_the_attrs(data):
    """The cubes stacked from several evaluations (judgment sets, bounds, replicates) keep the
    evaluation attrs of one evaluation."""
    r, q = data["runs"], data["qrels"]
    one = irf.evaluate(r, q, ["AP"], depth=20).attrs
    sets = irf.evaluate(r, {"a": q, "b": q.iloc[::2]}, ["AP"], depth=20)
    bounds = irf.evaluate(r, q.iloc[::2], ["AP"], depth=20, bounds=True)
    reps = irf.evaluate(r.assign(replicate=0), q, ["AP"], depth=20)
    for cube in (sets, bounds, reps):
        for k in (*OPTION_ATTRS, "measures", "irframe_version"):
            assert cube.attrs[k] == one[k], (cube.dims, k)
    assert sets.attrs["judgments"] == "each" and "unjudged_grade" in bounds.attrs
