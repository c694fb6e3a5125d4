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
