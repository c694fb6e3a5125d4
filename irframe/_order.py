"""Row order inside each ranking, as trec_eval defines it (docs/conventions.md).

Rows are sorted by (group, value descending, docno descending), where the value is the
score as float32 (trec_eval 9) or float64 (trec_eval 10), or minus the rank.  Rankings
that arrive already in order (files written ranking by ranking) are not sorted: one
linear pass finds the groups and checks that each is in value order; the groups then
move as blocks, and only runs of tied rows are reordered by docno, comparing the docnos
of each short run directly.  Input out of order within a group, or whose group is split
into pieces that are not adjacent, is sorted.

>>> import numpy as np
>>> group = np.array([0, 0, 0]); docs = np.array(["a", "b", "c"], dtype=object)
>>> o = order_rows(group, np.array([1.0, 2.0, 2.0], np.float32), np.arange(3), docs)
>>> o.source(3).tolist()   # sorted: score descending, the tie docno descending
[2, 1, 0]
>>> o = order_rows(group, np.array([2.0, 2.0, 1.0], np.float32), np.arange(3), docs)
>>> o.idx is None, o.moved.tolist(), o.moved_from.tolist()  # in order but for the tie
(True, [0, 1], [1, 0])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ._ids import str_sort_order

__all__ = ["RowOrder", "float32_desc_key", "float64_desc_key", "order_rows", "permute"]


class RowOrder(NamedTuple):
    """A permutation of rows, as `order_rows` finds it.

    Either ``idx`` is the permutation (every sorted row's position in the input, intp) and
    ``group_sorted`` the groups in that order; or, for input already in order but for its
    tied rows (files written ranking by ranking), ``idx`` is None: the identity, except that
    sorted position ``moved[i]`` takes input row ``moved_from[i]``.  Nothing of the size of
    the input is then built (the identity would be 8 bytes per row of fresh memory).
    """

    idx: np.ndarray | None
    moved: np.ndarray | None = None
    moved_from: np.ndarray | None = None
    group_sorted: np.ndarray | None = None

    def source(self, n: int) -> np.ndarray:
        """The permutation as int64 positions into the input (length ``n``)."""
        if self.idx is not None:
            return self.idx.astype(np.int64, copy=False)
        assert self.moved is not None and self.moved_from is not None  # set when idx is None
        src = np.arange(n, dtype=np.int64)
        src[self.moved] = self.moved_from
        return src


def _identity(moved: np.ndarray | None = None, moved_from: np.ndarray | None = None) -> RowOrder:
    empty = np.zeros(0, np.int64)
    return RowOrder(
        None, empty if moved is None else moved, empty if moved_from is None else moved_from
    )


_SHORT_RUN = 8  # tie runs up to this length are ordered by comparing their docnos pairwise


def float32_desc_key(score: np.ndarray) -> np.ndarray:
    """int32 key whose ascending order is float32 score descending (-0.0 == 0.0)."""
    f = np.negative(score, dtype=np.float32)  # negate: ascending key = descending score
    f += np.float32(0.0)  # -0.0 + 0.0 = +0.0
    i = f.view(np.int32)
    sign = i >> 31
    sign &= np.int32(0x7FFFFFFF)
    i ^= sign
    return i


def float64_desc_key(score: np.ndarray) -> np.ndarray:
    """int64 key whose ascending order is float64 score descending (-0.0 == 0.0)."""
    f = np.negative(score, dtype=np.float64)
    f += 0.0
    i = f.view(np.int64)
    sign = i >> 63
    sign &= np.int64(0x7FFFFFFFFFFFFFFF)
    i ^= sign
    return i


def _doc_desc_rank(doc_codes: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """For each code in ``doc_codes``, a rank such that ascending rank = docno descending.

    Python's (and pyarrow's) string order is by code point, which is the byte order of
    UTF-8, i.e. trec_eval's ``strcmp``.  Only the distinct docs involved are compared; when
    their codes already follow docno order (sorted categories), a linear check replaces
    the sort.
    """
    used = np.zeros(len(docs), bool)
    used[doc_codes] = True
    codes = np.flatnonzero(used)
    names = docs[codes]
    if pd.Index(names, dtype=object).is_monotonic_increasing:
        return -doc_codes.astype(np.int64)
    try:
        order = str_sort_order(names)[::-1]
    except ValueError:  # ids that are not UTF-8 (lone surrogates): Python's code point order
        order = np.argsort(names, kind="stable")[::-1]
    rank = np.empty(len(docs), np.int64)
    rank[codes[order]] = np.arange(len(codes))
    return rank[doc_codes]


def _docno_less(dc: np.ndarray, docs: np.ndarray):
    """``less(a, b)``: whether the docno of ``docs[dc[a]]`` is below that of ``docs[dc[b]]``
    (byte order, trec_eval's ``strcmp``), elementwise over position arrays ``a``, ``b``.

    When the codes of the docs involved follow docno order (sorted categories) the codes
    are compared; otherwise the docnos themselves, by pyarrow when it is installed (no
    Python object per comparison).
    """
    used = np.zeros(len(docs), bool)
    used[dc] = True
    codes = np.flatnonzero(used)
    names = docs[codes]  # in code order
    if pd.Index(names, dtype=object).is_monotonic_increasing:
        return lambda a, b: dc[a] < dc[b]
    local = np.empty(len(docs), np.int64)
    local[codes] = np.arange(len(codes))
    lc = local[dc]  # position of each row's docno in ``names``
    try:
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = pa.array(names, pa.large_string())
    except (ImportError, ValueError):  # no pyarrow, or ids that are not UTF-8 (lone surrogates)
        return lambda a, b: names[lc[a]] < names[lc[b]]

    def less(a, b):
        return pc.less(arr.take(lc[a]), arr.take(lc[b])).to_numpy(zero_copy_only=False)

    return less


def _names_less(names):
    """``less(a, b)`` of `_docno_less` for a pyarrow string array of the docnos
    themselves (one per position): byte order, trec_eval's ``strcmp``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def less(a, b):
        return pc.less(names.take(pa.array(a)), names.take(pa.array(b))).to_numpy(
            zero_copy_only=False
        )

    return less


def _names_desc_rank(names) -> np.ndarray:
    """For a pyarrow string array, an int64 rank per element such that ascending rank =
    docno descending (byte order), equal docnos equal."""
    import pyarrow.compute as pc

    return pc.rank(names, sort_keys="descending", tiebreaker="dense").to_numpy().astype(np.int64)


def _short_run_order(
    less, first_lt: np.ndarray, run_id: np.ndarray, run_start: np.ndarray, longest: int
) -> np.ndarray:
    """Positions putting every run of ``run_id`` in docno-descending order, stable for equal
    docnos; runs are contiguous and at most ``longest`` long; ``less`` compares two
    positions' docnos (`_docno_less`), ``first_lt`` is ``less(k, k + 1)`` for all k.

    Each element's place in its run is the number of run members that must precede it,
    counted over the pairs at distance 1 .. longest - 1 (vectorised over all runs)."""
    m = len(run_id)
    place = np.zeros(m, np.int64)
    for j in range(1, longest):
        a = np.flatnonzero(run_id[j:] == run_id[:-j])  # pairs (a, a + j) in one run
        if len(a) == 0:
            break
        b = a + j
        later_first = first_lt[a] if j == 1 else less(a, b)  # b has the larger docno: it goes first
        place[a] += later_first
        place[b] += ~later_first  # equal docnos keep their order
    out = np.empty(m, np.int64)
    out[run_start + place] = np.arange(m)
    return out


def _break_ties(
    idx: np.ndarray | None, pairs: np.ndarray, doc: np.ndarray, docs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every run of tied rows of ``idx`` (None: the identity) in docno-descending order.

    ``pairs`` are the positions i where rows ``idx[i]`` and ``idx[i + 1]`` tie (same group
    and value), the pairs of each run of ties consecutive and increasing (runs may come in
    any order); only those rows are looked at.  Returns ``(pos, rows)``: position ``pos[i]``
    of ``idx`` takes row ``rows[i]`` (both empty when every run is in docno-descending order
    already); ``idx`` itself is not changed.
    """
    first = np.ones(len(pairs), bool)  # a pair starting a new run of ties
    first[1:] = pairs[1:] != pairs[:-1] + 1
    # the tied positions: each run's first position, then i + 1 for every pair
    n_runs = int(np.count_nonzero(first))
    pos = np.empty(len(pairs) + n_runs, np.int64)
    run_of_pair = np.cumsum(first) - 1
    at = np.arange(len(pairs)) + run_of_pair + 1  # where pair i's second row lands in pos
    pos[at] = pairs + 1
    head_at = at[first] - 1
    pos[head_at] = pairs[first]
    run_id = np.zeros(len(pos), np.int64)
    run_id[head_at[1:]] = 1
    np.cumsum(run_id, out=run_id)
    sub = pos if idx is None else idx[pos]
    if docs is None:  # doc: the run's doc column (irframe._ids.RunDocs), read at the tied rows
        names = doc.strings(sub)
        less = _names_less(names)
    else:
        dc = doc[sub]
        less = _docno_less(dc, docs)
    in_run = np.ones(len(pos) - 1, bool)
    in_run[head_at[1:] - 1] = False  # (k, k + 1) across two runs: no constraint
    k = np.arange(len(pos) - 1)
    first_lt = less(k, k + 1) & in_run
    if not first_lt.any():
        return np.zeros(0, np.int64), np.zeros(0, np.int64)  # every run already docno descending
    lens = np.diff(np.append(head_at, len(pos)))
    longest = int(lens.max())
    if longest <= _SHORT_RUN:
        return pos, sub[_short_run_order(less, first_lt, run_id, np.repeat(head_at, lens), longest)]
    dr = _names_desc_rank(names) if docs is None else _doc_desc_rank(dc, docs)
    dr -= dr.min()
    width = int(dr.max()) + 1
    if n_runs * width < 2**62:  # one composite key: (tie run, docno desc)
        return pos, sub[np.argsort(run_id * width + dr, kind="stable")]
    return pos, sub[np.lexsort((dr, run_id))]  # pragma: no cover - astronomically many ties


def _sort_key(value: np.ndarray) -> np.ndarray:
    """Signed integer key, ascending = ``value`` descending."""
    return float32_desc_key(value) if value.dtype == np.float32 else float64_desc_key(value)


def _sorted(group: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stable argsort by (group, value descending); also the sorted groups and whether each
    sorted row ties with the next (same group and value)."""
    key = _sort_key(value)
    if key.dtype == np.int32 and group.min() >= 0 and group.max() < 2**31:
        k = group.astype(np.int64, copy=True)  # one int64 key: (group, value)
        k <<= 32
        k += key
        k += 2**31
        idx = np.argsort(k, kind="stable")
        k = k[idx]
        same = k[1:] == k[:-1]
        k >>= 32
        return idx, k.astype(group.dtype), same
    idx = np.lexsort((key, group))
    gs, ks = group[idx], key[idx]
    same = gs[1:] == gs[:-1]
    same &= ks[1:] == ks[:-1]
    return idx, gs, same


def order_rows(
    group: np.ndarray, value: np.ndarray | None, doc: np.ndarray, docs: np.ndarray
) -> RowOrder:
    """The `RowOrder` sorting rows by (group, ``value`` descending, docno descending).

    The docnos are ``docs[doc]`` (codes and the distinct docs) or, with ``docs`` None, read
    from ``doc``, the run's doc column (`irframe._ids.RunDocs`), at tied rows only.

    ``value`` is a float array without NaN (the float32 or float64 score, or minus the
    rank), or None for input order (kept stable).  Input already in order (the usual case
    for files written in rank order, where only tied rows move) gives the identity with the
    moved rows; otherwise ``idx`` is the permutation and ``group_sorted`` is ``group[idx]``
    (built without a gather when groups move as blocks) or None (input order).  Input whose
    groups are each contiguous and in order inside only has its groups moved as blocks;
    anything else (a group out of order, or split into pieces that are not adjacent) is sorted.
    """
    n = len(group)
    if value is None:
        if np.all(group[1:] >= group[:-1]):
            return _identity()
        return RowOrder(np.argsort(group, kind="stable"))
    if n == 0:
        return _identity()
    # one linear pass: group boundaries, and whether every group is in value order
    within = group[1:] == group[:-1]
    up = value[1:] > value[:-1]
    up &= within
    if not up.any():
        starts = np.flatnonzero(~within)
        starts += 1
        starts = np.concatenate([[0], starts])
        first = group[starts]
        tie = value[1:] == value[:-1]
        tie &= within
        pairs = np.flatnonzero(tie)
        if len(first) < 2 or bool(np.all(first[1:] > first[:-1])):  # groups in order already
            return _identity(*_break_ties(None, pairs, doc, docs)) if len(pairs) else _identity()
        by_group = np.argsort(first, kind="stable")
        sorted_first = first[by_group]
        if not (sorted_first[1:] == sorted_first[:-1]).any():  # no group in several pieces
            lens = np.diff(np.append(starts, n))
            old_s, lens_s = starts[by_group], lens[by_group]  # blocks in their new order
            new_starts = np.empty(len(starts), np.int64)  # each block's start once moved
            new_starts[by_group] = np.cumsum(lens_s) - lens_s
            shift = starts - new_starts
            # idx counts up by one inside a block and jumps to the next block's old start: one
            # array, built by a cumulative sum of its steps
            idx = np.ones(n, np.int64)
            idx[0] = old_s[0]
            idx[new_starts[by_group[1:]]] = old_s[1:] - (old_s[:-1] + lens_s[:-1] - 1)
            np.cumsum(idx, out=idx)
            group_sorted = np.repeat(sorted_first, lens_s)
            if len(pairs):  # tie pairs stay adjacent: move them with their block (each
                # run's pairs stay consecutive and increasing, which is all _break_ties needs)
                pairs = pairs - shift[np.searchsorted(starts, pairs, side="right") - 1]
                pos, rows = _break_ties(idx, pairs, doc, docs)
                idx[pos] = rows
            return RowOrder(idx, group_sorted=group_sorted)
    idx, gs, same = _sorted(group, value)
    pairs = np.flatnonzero(same)
    if len(pairs):
        pos, rows = _break_ties(idx, pairs, doc, docs)
        idx[pos] = rows
    return RowOrder(idx, group_sorted=gs)


def permute(x: np.ndarray, order: RowOrder, inplace: bool = False) -> np.ndarray:
    """``x`` in ``order``: ``x[order.idx]``, or only the moved positions rewritten (in ``x``
    itself when ``inplace``: only for arrays this module's caller owns)."""
    if order.idx is not None:
        return x[order.idx]
    assert order.moved is not None and order.moved_from is not None  # set when idx is None
    if len(order.moved) == 0:
        return x
    y = x if inplace else x.copy()
    y[order.moved] = x[order.moved_from]  # the right side is gathered first: safe in place
    return y
