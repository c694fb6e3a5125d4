"""Row ordering (irframe._order) against an independent brute force: Python's ``sorted`` with
trec_eval's key (group, score descending, docno bytes descending; stable for equal keys), on
every input layout its fast paths look for (rows already in order, groups as blocks in another
order, ties in any order, short and long tie runs, doc codes in and out of docno order)."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe._order as O
import irframe.align as A

NAMES = [
    "a",
    "b",
    "B",
    "é",
    "ab",
    "z9",
    "Ω",
    "a\u00e9",
    "10",
    "9",
    "d\U0001f600",
    "",
    "a\x00",
    "zz",
    "x\ud800",
]


def _trec_key(group: int, value: float, doc: str):
    # strcmp descending (a prefix last); a lone surrogate, which only a Python frame can hold,
    # takes its code point's place (surrogatepass keeps UTF-8's code point order)
    return (group, -value, [-b for b in doc.encode("utf-8", "surrogatepass")] + [1])


@st.composite
def _rows(draw):
    """(group, value, doc code) rows, the value dtype (float32: trec_eval; float64:
    trec_eval10 and rank), the docs, and a layout."""
    n_groups = draw(st.integers(1, 4))
    docs = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES), unique=True))
    if draw(st.booleans()):  # codes in docno order, as sorted categories give
        docs = sorted(docs, key=lambda d: d.encode("utf-8", "surrogatepass"))
    long_runs = draw(st.booleans())  # tie runs longer than the pairwise limit
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    values = [1.0, 0.5, 0.5 + 1e-12, -0.0, 0.0, 2.0] if not long_runs else [1.0]
    values = [float(dtype(v)) for v in values]  # 0.5 + 1e-12 ties with 0.5 in float32 only
    rows = []
    for g in range(n_groups):
        size = draw(st.integers(0, 3 * O._SHORT_RUN if long_runs else 10))
        for _ in range(size):  # a doc may repeat within a group (duplicates are ordered too)
            rows.append((g, draw(st.sampled_from(values)), draw(st.integers(0, len(docs) - 1))))
    layout = draw(st.sampled_from(["in order", "ties shuffled", "groups as blocks", "shuffled"]))
    if layout == "in order":
        rows.sort(key=lambda r: _trec_key(r[0], r[1], docs[r[2]]))
    elif layout == "ties shuffled":  # rank order, ties in arbitrary order
        rows = draw(st.permutations(rows))
        rows.sort(key=lambda r: (r[0], -r[1]))
    elif layout == "groups as blocks":  # each group in rank order, groups in another order
        order = draw(st.permutations(range(n_groups)))
        rows.sort(key=lambda r: (order[r[0]], -r[1]))
    else:
        rows = draw(st.permutations(rows))
    return rows, dtype, np.array(docs, dtype=object)


def _check(rows, dtype, docs):
    group = np.array([r[0] for r in rows], np.int32)
    value = np.array([r[1] for r in rows], dtype)
    doc = np.array([r[2] for r in rows], np.int64)
    expected = sorted(
        range(len(rows)), key=lambda i: _trec_key(rows[i][0], rows[i][1], docs[rows[i][2]])
    )
    o = O.order_rows(group, value, doc, docs)
    idx = o.source(len(rows))
    assert idx.tolist() == expected
    if o.idx is None:  # the identity but at the listed positions
        assert o.group_sorted is None and len(o.moved) == len(o.moved_from)
        ident = np.arange(len(rows))
        ident[o.moved] = o.moved_from
        assert ident.tolist() == expected
    else:
        assert o.moved is None and o.idx.tolist() == expected
    if o.group_sorted is not None:
        assert o.group_sorted.tolist() == group[idx].tolist()
    for x in (doc, value):  # permute: the order applied, copied or (inplace) in place
        assert O.permute(x, o).tolist() == x[expected].tolist()
        y = x.copy()
        assert O.permute(y, o, inplace=True).tolist() == x[expected].tolist()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_rows())
def test_order_rows_against_sorted(data):
    _check(*data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_rows())
def test_order_rows_without_pyarrow(data):
    """The docno comparison without pyarrow (Python string comparison) orders the same."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "pyarrow", None)
        mp.setitem(sys.modules, "pyarrow.compute", None)
        _check(*data)


@pytest.mark.parametrize("one_system", [True, False])
@pytest.mark.parametrize("wide_qrels", [False, True])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_duplicate_check_against_pandas(one_system, wide_qrels, data):
    """The run duplicate check (one system at a time, or chunks of systems; flags, or positions
    written and read back when the table is large beside the rows, as with ``wide_qrels``)
    against pandas' ``duplicated`` on (system, topic, doc)."""
    n_sys, n_top = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 3))
    rows = data.draw(
        st.lists(
            st.tuples(st.integers(0, n_sys - 1), st.integers(0, n_top - 1), st.integers(0, 5)),
            min_size=1,
            max_size=40,
        )
    )
    frame = pd.DataFrame(rows, columns=["system", "topic", "doc"]).astype(str).assign(score=1.0)
    docs = [str(d) for d in range(200)] if wide_qrels else ["0"]
    qrels = pd.DataFrame(
        [(str(t), d, 1) for t in range(n_top) for d in docs], columns=["topic", "doc", "rel"]
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(A, "_DUP_ONE_SYSTEM_ROWS", 0 if one_system else 10**9)
        mp.setattr(A, "_DUP_TABLE_MAX", data.draw(st.sampled_from([1, 7, 10**6])))
        if frame.duplicated(["system", "topic", "doc"]).any():
            with pytest.raises(A.InputError):
                A.align(frame, qrels)
        else:
            assert A.align(frame, qrels).n_rows == len(frame)


def test_long_tie_run_of_many_non_utf8_docnos():
    """A tie run too long for pairwise comparison, over more docnos than the pure-Python sort
    handles (pyarrow's sort takes over, and cannot encode lone surrogates): still strcmp order."""
    docs = np.array([f"x\ud800{i}" for i in range(1500)] + ["a", "é"], dtype=object)
    doc = np.random.default_rng(0).permutation(len(docs))
    rows = [(0, 1.0, int(d)) for d in doc]
    _check(rows, np.float32, docs)
