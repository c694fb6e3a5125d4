"""Row order inside each ranking, as trec_eval defines it (docs/conventions.md).

Rows are sorted by (group, primary key ascending, docno descending), where the primary key
is an integer image of the score (float32 for trec_eval 9, float64 for trec_eval 10) or of
the rank.  Rankings that arrive already in order (files written ranking by ranking) are not
sorted: their groups move as blocks and only runs of tied rows are reordered by docno.

>>> import numpy as np
>>> group = np.array([0, 0, 0]); score = np.array([1.0, 2.0, 2.0])
>>> docs = np.array(["a", "b", "c"], dtype=object)
>>> idx, _ = order_rows(group, float32_desc_key(score), np.arange(3), docs)
>>> idx.tolist()
[2, 1, 0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._ids import code_dtype, str_sort_order

__all__ = ["order_rows", "permute", "float32_desc_key", "float64_desc_key"]


def float32_desc_key(score: np.ndarray) -> np.ndarray:
    """int32 key whose ascending order is float32 score descending (-0.0 == 0.0)."""
    f = np.negative(score, dtype=np.float32)  # negate: ascending key = descending score
    f += np.float32(0.0)                      # -0.0 + 0.0 = +0.0
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
    their codes already follow docno order (sorted categories, as irframe's readers
    produce), a linear check replaces the sort.
    """
    used = np.zeros(len(docs), bool)
    used[doc_codes] = True
    codes = np.flatnonzero(used)
    if pd.Index(docs[codes]).is_monotonic_increasing:
        return -doc_codes
    order = str_sort_order(docs[codes])[::-1]
    rank = np.empty(len(docs), np.int64)
    rank[codes[order]] = np.arange(len(codes))
    return rank[doc_codes]


def _break_ties(idx: np.ndarray, same: np.ndarray, doc: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Reorder, in place, every run of tied rows of ``idx`` by docno descending.

    ``same[i]`` says that sorted rows i and i + 1 tie (same group and primary key); only
    the tied rows are looked at.  Returns the positions that may have moved.
    """
    n = len(idx)
    tied = np.zeros(n, bool)
    tied[1:] |= same
    tied[:-1] |= same
    pos = np.flatnonzero(tied)
    sub = idx[pos]
    dr = _doc_desc_rank(doc[sub], docs)
    run_id = np.cumsum(np.concatenate([[True], ~same[pos[:-1]]]))  # a tie run: consecutive `same`
    dr = dr - dr.min()
    width = int(dr.max()) + 1
    if (int(run_id[-1]) + 1) * width < 2**62:   # one composite key: (tie run, docno desc)
        idx[pos] = sub[np.argsort(run_id * width + dr, kind="stable")]
    else:  # pragma: no cover - astronomically many ties
        idx[pos] = sub[np.lexsort((dr, run_id))]
    return pos


def _block_order(group: np.ndarray, primary: np.ndarray) -> tuple[np.ndarray | None, bool]:
    """Permutation putting rows in (group, primary) order when the input is ordered by
    ``primary`` inside contiguous groups (files written ranking by ranking), else None; and
    whether that permutation is the identity (the rows are in order already).

    Only whole groups move (O(rows), no sort of the rows).
    """
    n = len(group)
    change = group[1:] != group[:-1]
    down = primary[1:] < primary[:-1]
    down &= ~change
    if down.any():
        return None, False
    starts = np.flatnonzero(np.concatenate([[True], change]))
    first = group[starts]
    by_group = np.argsort(first, kind="stable")
    sorted_first = first[by_group]
    if (sorted_first[1:] == sorted_first[:-1]).any():  # a group in several pieces
        return None, False
    lens = np.diff(np.append(starts, n))
    dt = code_dtype(n)  # row positions: int32 halves the traffic
    if np.array_equal(by_group, np.arange(len(by_group))):
        return np.arange(n, dtype=dt), True
    new_starts = np.cumsum(lens[by_group]) - lens[by_group]
    idx = np.repeat((starts[by_group] - new_starts).astype(dt), lens[by_group])
    idx += np.arange(n, dtype=dt)
    return idx, False


def order_rows(group: np.ndarray, primary: np.ndarray | None, doc: np.ndarray,
                docs: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Permutation sorting rows by (group, primary ascending, docno descending).

    ``primary`` is a signed integer key (or None for input order, kept stable).
    Returns ``(idx, moved)``: ``moved`` lists the only positions where ``idx`` differs from
    the identity (input already in order, the usual case for files written in rank order,
    so only tied rows move), or is None when ``idx`` is a general permutation.  Input
    ordered inside each contiguous group only has its groups moved as blocks; anything
    else is sorted.
    """
    n = len(group)
    if primary is None:
        if np.all(group[1:] >= group[:-1]):
            return np.arange(n), np.zeros(0, np.int64)
        return np.argsort(group, kind="stable"), None
    idx, identity = _block_order(group, primary) if n else (np.arange(0), True)
    if idx is None and primary.dtype == np.int32 and group.max() < 2**31:
        key = group.astype(np.int64, copy=True)  # one int64 key: (group, primary)
        key <<= 32
        key += primary
        key += 2**31
        idx = np.argsort(key, kind="stable")
    elif idx is None:
        idx = np.lexsort((primary, group))
    identity = identity or bool(idx[0] == 0 and idx[-1] == n - 1 and np.all(idx[1:] > idx[:-1]))
    gs, ps = (group, primary) if identity else (group[idx], primary[idx])
    same = gs[1:] == gs[:-1]
    same &= ps[1:] == ps[:-1]
    if not same.any():
        return idx, (np.zeros(0, np.int64) if identity else None)
    moved = _break_ties(idx, same, doc, docs)
    return idx, (moved if identity else None)


def permute(x: np.ndarray, idx: np.ndarray, moved: np.ndarray | None, inplace: bool = False) -> np.ndarray:
    """``x[idx]``, touching only the ``moved`` positions when there are few (in ``x`` itself
    when ``inplace``: only for arrays this module's caller owns)."""
    if moved is None:
        return x[idx]
    if len(moved) == 0:
        return x
    y = x if inplace else x.copy()
    y[moved] = x[idx[moved]]  # the right side is gathered first: safe in place
    return y
