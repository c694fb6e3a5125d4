"""One call, one pass: each measure string is parsed once, the qrels are validated once, and
the options are checked once, whichever entry point the call comes through (instrumented:
the functions that do each job are wrapped with counters)."""

from __future__ import annotations

import importlib

import pytest

import irframe as irf
from irframe import options as options_mod
from irframe import params, schema
from irframe.measures import registry

ev = importlib.import_module("irframe.evaluate")  # (irframe.evaluate is also the function)
MEASURES = ["AP", "P@10", "nDCG@10", "RR"]


@pytest.fixture
def counts(monkeypatch):
    seen = {"parse": [], "qrels": 0, "ties": 0, "options": 0}
    split, qrels_columns = registry.split_measure, schema.qrels_columns
    check_tie_order, check_options = ev.check_tie_order, options_mod.check_options

    def spy_split(text):
        seen["parse"].append(text)
        return split(text)

    def spy_qrels(*args, **kwargs):
        seen["qrels"] += 1
        return qrels_columns(*args, **kwargs)

    def spy_ties(*args, **kwargs):
        seen["ties"] += 1
        return check_tie_order(*args, **kwargs)

    def spy_options(*args, **kwargs):
        seen["options"] += 1
        return check_options(*args, **kwargs)

    monkeypatch.setattr(registry, "split_measure", spy_split)
    monkeypatch.setattr(schema, "qrels_columns", spy_qrels)
    monkeypatch.setattr(ev, "check_tie_order", spy_ties)
    monkeypatch.setattr(options_mod, "check_options", spy_options)
    return seen


@pytest.mark.parametrize("via", ["evaluate", "accessor"])
def test_each_measure_parsed_once_and_the_qrels_validated_once(counts, via):
    qrels, runs = irf.datasets.trec_eval_sample()
    if via == "evaluate":
        cube = irf.evaluate(runs, qrels, MEASURES, order="expected")
    else:
        cube = runs.ir.metric(MEASURES, qrels, order="expected")
    assert cube.sizes["measure"] == len(MEASURES)
    assert sorted(counts["parse"]) == sorted(MEASURES)  # each string split exactly once
    assert counts["qrels"] == 1
    assert counts["ties"] == 1
    assert counts["options"] == 1


def test_a_joined_frame_is_not_validated_again_before_evaluate(counts):
    qrels, runs = irf.datasets.trec_eval_sample()
    joined = runs.ir.join(qrels)
    counts["qrels"] = 0
    joined.ir.metric(MEASURES)
    assert counts["qrels"] == 1
    assert sorted(counts["parse"]) == sorted(MEASURES)


@pytest.fixture
def checks(monkeypatch):
    """Every option's check in the table (irframe.options.OPTIONS), counted per option."""
    seen: dict[str, int] = {}
    for name, o in list(options_mod.OPTIONS.items()):

        def spy(n, value, _check=o.check):
            seen[n] = seen.get(n, 0) + 1
            return _check(n, value)

        monkeypatch.setitem(options_mod.OPTIONS, name, o.but(check=spy))
    check = params.Param.check

    def spy_param(self, name, value, **kwargs):  # any depth check, through the table or not
        if name == "depth":
            seen["Param depth"] = seen.get("Param depth", 0) + 1
        return check(self, name, value, **kwargs)

    monkeypatch.setattr(params.Param, "check", spy_param)
    return seen


GIVEN = {"depth": 50, "judged_only": False, "complete": True, "duplicates": "error"}


@pytest.mark.parametrize(
    "via",
    ["evaluate", "accessor", "summary", "cwl", "rarity", "lexirecall", "pair_counts", "align"],
)
def test_each_option_is_checked_once_per_call(checks, via):
    """The options a caller gives are checked once, at the public boundary: not again by
    align() nor by the family function the accessor calls."""
    from irframe.align import align
    from irframe.cwl import cwl
    from irframe.lexi import lexirecall
    from irframe.ndpm import pair_counts
    from irframe.rarity import rarity

    qrels, runs = irf.datasets.trec_eval_sample()
    given = {**GIVEN, "rel_level": 1}
    calls = {
        "evaluate": lambda: irf.evaluate(runs, qrels, MEASURES, **given),
        "accessor": lambda: runs.ir.metric(MEASURES, qrels, **given),
        "summary": lambda: runs.ir.summary(MEASURES, qrels, **given),
        "cwl": lambda: cwl(runs, qrels, "RBP@0.8", **GIVEN),
        "rarity": lambda: rarity(runs, qrels, k=10, **given),
        "lexirecall": lambda: lexirecall(runs, qrels, **given),
        "pair_counts": lambda: pair_counts(runs, qrels, **GIVEN),
        "align": lambda: align(runs, qrels, **GIVEN),
    }
    calls[via]()
    want = {k: 1 for k in GIVEN if via != "cwl" or k != "depth"}  # cwl: its own depth spec
    want["Param depth"] = 1
    if via not in ("cwl", "pair_counts", "align"):
        want["rel_level"] = 1
    assert checks == want


def test_dask_parses_each_measure_once_for_every_partition(counts):
    """Through irframe.dask: the measures are parsed once on the client, for the probe and
    every partition (with 3 partitions each string was parsed 5 times)."""
    dd = pytest.importorskip("dask.dataframe")
    qrels, runs = irf.datasets.synthetic(systems=3, topics=6, depth=10, rng=0)
    cube = irf.evaluate(dd.from_pandas(runs, npartitions=3), qrels, MEASURES)
    assert cube.sizes["measure"] == len(MEASURES)
    assert sorted(counts["parse"]) == sorted(MEASURES)
