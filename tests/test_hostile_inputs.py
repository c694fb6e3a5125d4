"""Hostile inputs, round 2 (issue 33): records, judgment sets, qrels checks, boolean options,
report cells, small-sample statistics, bounded memory, tie groups cut by a depth, thread-safe
registry scopes and error messages in the user's spelling.

Each test states its reference: an error type and the names its message must carry, a
brute-force enumeration, or scipy.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import irframe as irf
from irframe.errors import EmptyOverlapError, InputError

Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance"])
TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
DocFirst = namedtuple("DocFirst", ["doc_id", "query_id", "score"])


@pytest.fixture
def run():
    return pd.DataFrame(
        {"system": "s", "topic": ["1", "1", "2"], "doc": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}
    )


@pytest.fixture
def qrels():
    return pd.DataFrame({"topic": ["1", "1", "2"], "doc": ["a", "b", "c"], "rel": [1, 0, 1]})


# ---------------------------------------------------------------- records


def test_records_of_two_namedtuple_classes_are_an_error_naming_both(run):
    recs = [ScoredDoc("1", "a", 2.0), DocFirst("b", "1", 1.0)]  # same fields, other order
    with pytest.raises(InputError, match=r"ScoredDoc\(query_id, doc_id, score\).*DocFirst"):
        irf.evaluate(recs, [Qrel("1", "a", 1)], "P@1")
    with pytest.raises(InputError, match=r"Qrel\(.*\(record 0\).*TrecQrel\(.*\(record 1\)"):
        irf.evaluate(run, [Qrel("1", "a", 1), TrecQrel("1", "b", 1, "0")], "P@1")


def test_records_are_read_by_field_name(run, qrels):
    """A record class whose fields come in another order gives the frame's own result."""
    want = irf.evaluate(run, qrels, ["P@1", "AP"])
    recs = [DocFirst(d, t, s) for t, d, s in zip(run.topic, run.doc, run.score, strict=True)]
    got = irf.evaluate(recs, qrels, ["P@1", "AP"], system="s")
    np.testing.assert_array_equal(got.values, want.values)

    @dataclass
    class Judgment:
        relevance: int
        doc_id: str
        query_id: str

    js = [Judgment(r, d, t) for t, d, r in zip(qrels.topic, qrels.doc, qrels.rel, strict=True)]
    np.testing.assert_array_equal(irf.evaluate(run, js, ["P@1", "AP"]).values, want.values)


def test_records_mixed_with_plain_tuples_name_both(run):
    with pytest.raises(InputError, match=r"Qrel.*tuple"):
        irf.evaluate(run, [Qrel("1", "a", 1), ("1", "b", 0)], "P@1")


# ---------------------------------------------------------------- judgment sets


def test_judgment_set_errors_name_the_set(run, qrels):
    with pytest.raises(InputError, match=r"judgment set 'shallow' is empty"):
        irf.evaluate(run, {"full": qrels, "shallow": qrels.iloc[:0]}, "P@1")
    other = qrels.assign(topic=["8", "8", "9"])
    with pytest.raises(EmptyOverlapError, match=r"judgment set 'other': No queries"):
        irf.evaluate(run, {"full": qrels, "other": other}, "P@1")
    disjoint = qrels.assign(doc=["x", "y", "z"])
    with pytest.raises(InputError, match=r"'full', 'disjoint' share none"):
        irf.evaluate(run, {"full": qrels, "disjoint": disjoint}, "P@1", judgments="common")
    with pytest.raises(InputError, match=r"'1' maps to a dict.*'full' maps to DataFrame"):
        irf.evaluate(run, {"full": qrels, "1": {"a": 1}}, "P@1")


def test_judgment_set_given_as_records(run, qrels):
    recs = [Qrel(t, d, r) for t, d, r in zip(qrels.topic, qrels.doc, qrels.rel, strict=True)]
    got = irf.evaluate(run, {"frame": qrels, "records": recs}, "AP")
    np.testing.assert_array_equal(got.sel(qrels="frame").values, got.sel(qrels="records").values)
    bad = [Qrel("1", "a", 1), TrecQrel("1", "b", 1, "0")]
    with pytest.raises(InputError, match=r"judgment set 'records' mixes records"):
        irf.evaluate(run, {"frame": qrels, "records": bad}, "AP")


# ---------------------------------------------------------------- one check for every qrels


def _evaluate_error(run, q):
    with pytest.raises(InputError) as e:
        irf.evaluate(run, q, "P@1")
    return e.value


@pytest.mark.parametrize(
    "bad",
    [
        lambda q: q.assign(rel=[1.0, np.nan, 1.0]),  # NaN grade
        lambda q: q.assign(topic=[1, 1, 2]),  # integer topic ids that never match
        lambda q: q.assign(doc=[None, "b", "c"]),  # a missing doc id
        lambda q: q.assign(rel=["1", "x", "0"]),  # a grade that is not a number
    ],
    ids=["nan-grade", "int-topics", "missing-doc", "text-grade"],
)
def test_functions_taking_qrels_check_them_as_evaluate_does(run, qrels, bad):
    """label_agreement, label_confusion, degrade_qrels and join raise evaluate's own error."""
    from irframe import meta

    q = bad(qrels)
    want = _evaluate_error(run, q)
    core = str(want).split(": column", 1)[1]  # the message after the frame's name
    calls = {
        "label_agreement": lambda: meta.label_agreement({"nist": qrels, "llm": q}),
        "label_confusion": lambda: meta.label_confusion(qrels, q),
        "degrade_qrels": lambda: meta.degrade_qrels(q, 0.5, rng=0),
        "join": lambda: irf.join(run, q),
    }
    for name, call in calls.items():
        with pytest.raises(type(want)) as got:
            call()
        assert core in str(got.value), name
    with pytest.raises(InputError, match=r"judgment set 'llm'"):
        meta.label_agreement({"nist": qrels, "llm": q})


def test_join_and_tie_sensitivity_given_judgment_sets(run, qrels):
    with pytest.raises(InputError, match=r"join attaches one qrels frame.*'a', 'b'"):
        irf.join(run, {"a": qrels, "b": qrels})
    both = irf.tie_sensitivity(run, {"a": qrels, "b": qrels.assign(rel=[0, 1, 1])}, ["RR"])
    one = irf.tie_sensitivity(run, qrels, ["RR"])
    got = both[both.qrels == "a"].drop(columns="qrels").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, one)
    assert set(both.qrels) == {"a", "b"}
