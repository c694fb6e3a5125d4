"""One call, one pass: each measure string is parsed once, the qrels are validated once, and
the options are checked once, whichever entry point the call comes through (instrumented:
the functions that do each job are wrapped with counters)."""

from __future__ import annotations

import importlib

import pytest

import irframe as irf
from irframe import schema
from irframe.measures import registry

ev = importlib.import_module("irframe.evaluate")  # (irframe.evaluate is also the function)
MEASURES = ["AP", "P@10", "nDCG@10", "RR"]


@pytest.fixture
def counts(monkeypatch):
    seen = {"parse": [], "qrels": 0, "ties": 0, "options": 0}
    split, qrels_columns = registry.split_measure, schema.qrels_columns
    check_tie_order, make_options = ev.check_tie_order, ev.make_options

    def spy_split(text):
        seen["parse"].append(text)
        return split(text)

    def spy_qrels(*args, **kwargs):
        seen["qrels"] += 1
        return qrels_columns(*args, **kwargs)

    def spy_ties(*args, **kwargs):
        seen["ties"] += 1
        return check_tie_order(*args, **kwargs)

    def spy_options(**kwargs):
        seen["options"] += 1
        return make_options(**kwargs)

    monkeypatch.setattr(registry, "split_measure", spy_split)
    monkeypatch.setattr(schema, "qrels_columns", spy_qrels)
    monkeypatch.setattr(ev, "check_tie_order", spy_ties)
    monkeypatch.setattr(ev, "make_options", spy_options)
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
