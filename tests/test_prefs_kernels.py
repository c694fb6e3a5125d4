"""The array helpers of irframe.prefs against brute force written here.

``_inversions`` (a bottom-up merge sort over many segments at once) and
``_inversions_by_class`` (one search per class offset) against counting every pair; ``_sums`` against adding one value at a time in a Python loop (trec_eval's per-topic
sums add in order, and the last printed digit can depend on that order); ``_class_pairs``
against listing every pair of lines of different levels.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irframe import prefs as P

segments = st.lists(st.lists(st.integers(0, 20), max_size=40), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(segments)
def test_inversions_equal_pair_count(segs):
    vals = np.array([v for s in segs for v in s], np.int64)
    seg = np.repeat(np.arange(len(segs)), [len(s) for s in segs])
    want = [sum(s[i] > s[j] for i in range(len(s)) for j in range(i + 1, len(s))) for s in segs]
    assert P._inversions(vals, seg, len(segs)).tolist() == want


# groups of lines (class within the group, distinct rank): classes numbered group by group
grouped_lines = st.lists(
    st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 10**6)), max_size=30, unique_by=lambda x: x[1]
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(grouped_lines)
def test_inversions_by_class_equal_pair_count(groups):
    r, c, g, cfirst = [], [], [], []
    first = 0
    for gi, lines in enumerate(groups):
        levels = sorted({k for k, _ in lines})
        for k in levels:  # class numbers: the group's classes in order, after the earlier groups'
            cfirst.append(first)
            for rank in sorted(x for kk, x in lines if kk == k):
                r.append(rank), c.append(first + levels.index(k)), g.append(gi)
        first += len(levels)
    want = [sum(k1 < k2 and x1 > x2 for k1, x1 in lines for k2, x2 in lines) for lines in groups]
    got = P._inversions_by_class(
        np.array(r, np.int64), np.array(c, np.int64), np.array(g, np.int64),
        np.array(cfirst, np.int64), len(groups),
    )  # fmt: skip
    assert got.tolist() == want
    # the merge sort over the same lines agrees
    assert P._inversions(np.array(r, np.int64), np.array(g, np.int64), len(groups)).tolist() == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.floats(-1e17, 1e17) | st.sampled_from([0.1, 1 / 3, 1.0]),
                         max_size=30), min_size=1, max_size=5))  # fmt: skip
def test_sums_add_in_order(segs):
    x = np.array([v for s in segs for v in s], np.float64)
    seg = np.repeat(np.arange(len(segs)), [len(s) for s in segs])
    want = []
    for s in segs:
        total = 0.0
        for v in s:
            total += v
        want.append(total)
    assert P._sums(seg, x, len(segs)).tolist() == want


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 9), st.integers(0, 3)), max_size=25))
def test_class_pairs_are_the_pairs_of_different_levels(lines):
    g = np.array([x[0] for x in lines], np.int64)
    jid = np.array([x[1] for x in lines], np.int64)
    lev = np.array([x[2] for x in lines], np.float64)
    a, b = P._class_pairs(P._Classes(g, jid, lev, 3))
    want = sorted((d1, d2) for g1, d1, l1 in lines for g2, d2, l2 in lines if g1 == g2 and l1 > l2)
    assert sorted(zip(a.tolist(), b.tolist(), strict=True)) == want


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3), st.sampled_from([0.5, 1.0, -2.0, float("nan")]), st.integers(0, 3)
        ),
        max_size=12,
    ),
    st.booleans(),
)
def test_in_order_is_lexsort_leaving_rows_in_place(rows, presort):
    """``_in_order`` against np.lexsort itself: exact without NaN, never wrongly "in order"."""
    if presort:  # half the examples already sorted (NaN-free rows sort as lexsort does)
        rows = sorted(rows, key=lambda r: (r[0], r[1], r[2]))
    t = np.array([r[0] for r in rows], np.int64)
    s = np.array([r[1] for r in rows], np.float64)
    d = np.array([r[2] for r in rows], np.int64)
    identity = bool((np.lexsort((d, s, t)) == np.arange(len(rows))).all())
    got = P._in_order(d, s, t)
    if np.isnan(s).any():
        assert not got or identity
    else:
        assert got == identity


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=60), st.integers(0, 40))
def test_unique_inverse_is_np_unique(keys, extra):
    """``_unique_inverse`` (counting when the key range is small) against np.unique."""
    k = np.array(keys, np.int64)
    size = (max(keys) + 1 if keys else 0) + extra
    want_keys, want_inv = np.unique(k, return_inverse=True)
    got_keys, got_inv = P._unique_inverse(k, size)
    assert got_keys.tolist() == want_keys.tolist()
    assert got_inv.tolist() == want_inv.tolist()
