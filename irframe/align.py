"""Align a run frame with its qrels into compact arrays that every kernel reads.

This is the one place where ids are factorized, documents are ordered
(docs/conventions.md), rankings are truncated, and relevance is looked up.  The result,
[`Aligned`][irframe.align.Aligned], is a set of flat numpy arrays in CSR layout:

* a *group* is one evaluated (system, topic) pair; groups are sorted by
  (system, topic) and group ``g`` owns rows ``offsets[g]:offsets[g+1]``;
* *rows* are the retrieved documents of every group in evaluation order
  (rank 1 first), already truncated at ``depth``;
* *qrels* rows are the judged documents of every evaluated topic,
  ``qrels_offsets[t]:qrels_offsets[t+1]`` for topic ``t``, sorted by grade
  descending (then doc code), with the grade per (topic, doc) = max over subtopics;
* the optional *subtopic* table keeps diversity judgments as they were given.

Kernels are pure numpy over these arrays: no Python loop per group.

Examples
--------
>>> import pandas as pd
>>> from irframe.align import align
>>> run = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a", "b", "c"], "score": [1.0, 3.0, 2.0]})
>>> qrels = pd.DataFrame({"topic": "1", "doc": ["b", "z"], "rel": [1, 2]})
>>> a = align(run, qrels)
>>> [a.docs[d] for d in a.row_doc]
['b', 'c', 'a']
>>> a.row_rel.tolist()
[1.0, nan, nan]
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ._ids import (
    RunDocs,
    arrow_strings,
    code_dtype,
    docs_mostly_distinct,
    encode,
    run_docs,
    sorted_codes,
)
from ._order import RowOrder, order_rows, permute
from .errors import ConventionWarning, InputError, warn
from .options import ORDERS, Options, takes_options
from .schema import check_duplicates, no_overlap_error, numeric_column, qrels_frame, run_frame

__all__ = [
    "ORDERS",
    "Aligned",
    "align",
    "range_sum",
    "replace_aligned",
    "segment_cumsum",
    "segment_max",
    "segment_suffix_max",
    "segment_sum",
]

_DENSE_LOOKUP_MAX = (
    50_000_000  # (topic, doc) cells for an array lookup table (<= 400 MB of flags+ids)
)
# the marking array over the (topic, doc) space numbers cells when it has at most this many
# cells per row away from its doc's home topic (measured: marking ~2 ns a cell, hashing an
# away row's key ~60 ns; Robust03: 22 M cells, 0.46 M away rows, marking 0.05 s, the second
# home and hashing 0.025 s for the whole of `_cells`)
_DENSE_PER_AWAY_ROW = 32
_LOOKUP: bool | None = None  # tests force one doc encoding (True: lookup, False: codes)
_DUP_TABLE_MAX = 1_000_000  # (system, cell) flags per duplicate-check chunk (1 MB: cache-sized)
_DUP_ONE_SYSTEM_ROWS = (
    4096  # rows per system from which the duplicate check goes one system at a time
)


@dataclass(eq=False)
class Aligned:
    """Runs and qrels as aligned flat arrays (see the module docstring).

    Attributes
    ----------
    systems, topics : pandas.Index
        System names and evaluated topic ids (sorted strings); the cube's coordinates.
    docs : numpy.ndarray
        Doc ids (object array of str); ``row_doc``/``qrels_doc`` index into it.  When the
        run's docs were looked up rather than encoded (docs mostly distinct), ``docs`` and
        ``row_doc`` are built on first access, the judged docs first.
    group_system, group_topic : numpy.ndarray
        int64 codes of each group's system and topic (length G).
    offsets : numpy.ndarray
        int64, length G + 1; rows of group ``g`` are ``offsets[g]:offsets[g+1]``.
    row_doc, row_rel, row_score, row_source : numpy.ndarray
        Per row: doc code, grade (float64, NaN = unjudged; max over subtopics),
        score used for ordering (under ``order="trec_eval"`` the float32 scores that
        trec_eval compares, else float64; NaN when ordering by rank/input without
        scores), and the position of the row in the caller's run frame (int64; built from
        ``source`` when first asked).
    source : numpy.ndarray or irframe._order.RowOrder
        ``row_source`` itself or, for input already in order but for its tied rows, the
        `RowOrder` that moved them (no array of the input's length
        is built for it).
    qrels_offsets, qrels_doc, qrels_rel : numpy.ndarray
        Judged documents per evaluated topic (CSR over topics), grade descending.
    subtopics : pandas.Index or None
        Subtopic labels when the qrels have a subtopic column.
    sub_topic, sub_subtopic, sub_doc, sub_rel : numpy.ndarray or None
        The diversity judgments restricted to evaluated topics, sorted by
        (topic, subtopic, doc).
    options : irframe.options.Options
        The options the arrays were built with (``order`` the alignment's own: a tie order
        is applied later, on trec_eval's order); ``order``, ``depth``, ``complete`` and
        ``judged_only`` read them.
    n_dropped_rows : int
        Run rows whose topic is not in the qrels (ignored, as trec_eval does).
    group_retrieved : numpy.ndarray or None
        With ``complete`` and ``judged_only``: per group, whether the system retrieved for
        the topic (before ``depth`` and ``judged_only``); None: every group was retrieved.
    qrels_grades_all : numpy.ndarray
        Every grade of the qrels frame, all topics: collection-wide gain scales must not
        depend on which topics a run happens to cover.
    """

    systems: pd.Index
    topics: pd.Index
    docs: np.ndarray
    group_system: np.ndarray
    group_topic: np.ndarray
    offsets: np.ndarray
    row_doc: np.ndarray
    row_rel: np.ndarray
    row_score: np.ndarray
    source: np.ndarray | RowOrder
    qrels_offsets: np.ndarray
    qrels_doc: np.ndarray
    qrels_rel: np.ndarray
    subtopics: pd.Index | None = None
    sub_topic: np.ndarray | None = None
    sub_subtopic: np.ndarray | None = None
    sub_doc: np.ndarray | None = None
    sub_rel: np.ndarray | None = None
    options: Options = field(default_factory=Options)
    n_dropped_rows: int = 0
    group_retrieved: np.ndarray | None = None
    qrels_grades_all: np.ndarray | None = None
    extras: dict = field(default_factory=dict)

    # ---- the alignment options -----------------------------------------------------
    @property
    def order(self) -> str:
        """Document order of the rankings (``options.order``)."""
        return self.options.order

    @property
    def depth(self) -> int | None:
        """Truncation of the rankings (``options.depth``)."""
        return self.options.depth

    @property
    def complete(self) -> bool:
        """Whether every qrels topic is evaluated for every system (``options.complete``)."""
        return self.options.complete

    @property
    def judged_only(self) -> bool:
        """Whether unjudged documents were removed (``options.judged_only``)."""
        return self.options.judged_only

    # ---- sizes -------------------------------------------------------------------
    @property
    def n_groups(self) -> int:
        """Number of evaluated (system, topic) pairs G."""
        return len(self.group_system)

    @property
    def n_rows(self) -> int:
        """Number of aligned run rows N."""
        return len(self.row_rel)

    # ---- doc codes of the judged docs only ------------------------------------------
    @property
    def judged_docs(self) -> np.ndarray:
        """The doc names that ``qrels_doc`` and ``sub_doc`` index (object array of str):
        every doc when the doc codes are built, else (alignment by lookup, docs mostly
        distinct) the judged docs only, which come first in the full table.  For kernels
        that read judged documents only: no table of every run doc is built for them."""
        loader = self.__dict__.get("_doc_loader")
        if self.__dict__.get("_docs") is None and loader is not None:
            return loader.judged_names()
        return self.docs

    @property
    def row_judged_doc(self) -> np.ndarray:
        """Per row, its doc's code in [`judged_docs`][irframe.align.Aligned.judged_docs]
        (int64); meaningful for judged rows only (an unjudged row's code is -1 or another
        doc's place beyond the judged ones)."""
        d = self.__dict__
        loader = d.get("_doc_loader")
        if d.get("_row_doc") is None and loader is not None:
            if d.get("_row_judged") is None:
                d["_row_judged"] = loader.judged_codes(self)
            return d["_row_judged"]
        return self.row_doc

    # ---- derived per-row / per-group arrays (cached on this object only) ----------
    @cached_property
    def group_len(self) -> np.ndarray:
        """Number of ranked documents of each group (int64, length G)."""
        return np.diff(self.offsets)

    @cached_property
    def row_group(self) -> np.ndarray:
        """Group code of every row (int64, length N)."""
        return np.repeat(np.arange(self.n_groups, dtype=np.int64), self.group_len)

    @cached_property
    def row_rank(self) -> np.ndarray:
        """1-based rank of every row within its group (int64, length N)."""
        step = np.ones(self.n_rows, np.int64)  # +1 per row, back to 1 at each group start
        nonempty = np.flatnonzero(self.group_len)
        step[self.offsets[nonempty[1:]]] -= self.group_len[nonempty[:-1]]
        return np.cumsum(step, out=step)

    @cached_property
    def row_source(self) -> np.ndarray:
        """Position of every row in the caller's run frame (int64, length N): ``source`` as
        it is, or the permutation its `RowOrder` stands for."""
        if isinstance(self.source, RowOrder):
            return self.source.source(self.n_rows)
        return self.source

    @cached_property
    def row_topic(self) -> np.ndarray:
        """Topic code of every row."""
        return self.group_topic[self.row_group]

    @cached_property
    def qrels_topic(self) -> np.ndarray:
        """Topic code of every qrels row."""
        return np.repeat(np.arange(len(self.topics), dtype=np.int64), np.diff(self.qrels_offsets))

    @property
    def has_subtopics(self) -> bool:
        """Whether diversity (subtopic) judgments are available."""
        return self.subtopics is not None

    def n_judged(self) -> np.ndarray:
        """Judged documents per topic (int64, length T).

        Returns
        -------
        numpy.ndarray
            int64, one count per topic.
        """
        return np.diff(self.qrels_offsets)

    def n_relevant(self, threshold: float = 1, *, trunc: bool = False) -> np.ndarray:
        """Judged documents with grade >= ``threshold`` per topic (int64, length T).

        ``trunc=True`` truncates grades toward zero first (trec_eval reads grades with atol).

        Parameters
        ----------
        threshold : float
            Relevant ⇔ grade >= threshold.
        trunc : bool
            Truncate grades toward zero first.

        Returns
        -------
        numpy.ndarray
            int64, one count per topic.
        """
        rel = np.trunc(self.qrels_rel) if trunc else self.qrels_rel
        return np.bincount(
            self.qrels_topic, weights=(rel >= threshold), minlength=len(self.topics)
        ).astype(np.int64)


#: grades beyond this are not whole numbers in float64 (gains and counts lose their units)
GRADE_LIMIT = 2.0**53


def _check_grade_range(qrels: pd.DataFrame, col: str, rel: np.ndarray) -> None:
    """Refuse grades whose magnitude exceeds `GRADE_LIMIT` (G's 2 + cost - gain cancels to
    0 there, and trec_eval, which reads grades as a C long, crashes above 2**31)."""
    big = np.abs(rel) > GRADE_LIMIT
    if big.any():
        from .schema import _rows, user_column

        name = user_column(qrels, col)
        values = qrels[col]
        top = int(rel[~big].max(initial=0)) if (~big).any() else 0
        huge = sorted(set(values[big]))  # as the frame holds them (ints stay exact)
        above = [v for v in huge if v > 0]
        below = [v for v in huge if v < 0]
        mapping = {v: top + 1 + i for i, v in enumerate(above)}
        mapping.update(dict.fromkeys(below, -1))  # below every judged grade
        fix = (
            f"qrels[{name!r}] = qrels[{name!r}].replace({mapping!r})"
            if len(huge) <= 5
            else f"a dict from each of them to a small level, qrels[{name!r}] = "
            f"qrels[{name!r}].replace({{...}})"
        )
        raise InputError(
            f"qrels frame: column {name!r} has {int(big.sum())} grade(s) beyond 2**53, which "
            f"float64 cannot hold as whole numbers: {_rows(qrels, big, [col])}. Grades are "
            f"relevance levels: map them to small ones above the others, e.g. {fix}."
        )


def segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Cumulative sum of ``values`` restarting at every segment start of ``offsets``.

    Integer and boolean input uses one global cumsum (exact).  Float input is summed
    left to right within each segment only, by a loop over rank positions vectorised
    across segments, so a segment's result never depends on the other segments
    (a global float cumsum would leak rounding from one group into the next).

    Parameters
    ----------
    values : numpy.ndarray
        One value per row, rows grouped in segments (one segment per (system, topic) ranking).
    offsets : numpy.ndarray
        Segment boundaries, length segments + 1: segment g is ``values[offsets[g]:offsets[g+1]]``
        (``Aligned.offsets``).

    Returns
    -------
    numpy.ndarray
        Same length as ``values``.

    See Also
    --------
    - [`irframe.register`][irframe.register]: a measure kernel written with these helpers.
    - [Internals](../internals.md): the aligned arrays.

    Examples
    --------
    >>> segment_cumsum(np.array([1., 1, 1, 1]), np.array([0, 2, 4])).tolist()
    [1.0, 2.0, 1.0, 2.0]
    """
    values = np.asarray(values)
    if values.dtype.kind in "biu":
        total = np.cumsum(values, dtype=np.int64)
        if len(total) == 0:
            return total
        lens = np.diff(offsets)
        before = np.concatenate([[0], total])[offsets[:-1]]
        return total - np.repeat(before, lens)
    out = values.astype(np.float64, copy=True)
    lens = np.diff(offsets)
    if len(out) == 0 or lens.max(initial=0) <= 1:
        return out
    by_len = np.argsort(-lens, kind="stable")
    starts, lens_sorted = offsets[:-1][by_len], lens[by_len]
    active = np.searchsorted(-lens_sorted, -np.arange(1, lens_sorted[0]), side="left")
    for r in range(1, int(lens_sorted[0])):
        if active[r - 1] <= 16:  # a few long segments left: each summed on (one giant topic
            for g in range(int(active[r - 1])):  # would be a loop over its rows)
                s0, e0 = int(starts[g]) + r - 1, int(starts[g] + lens_sorted[g])
                np.cumsum(out[s0:e0], out=out[s0:e0])  # left to right, as the loop adds
            break
        rows = starts[: active[r - 1]] + r
        out[rows] += out[rows - 1]
    return out


def range_sum(values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``values[starts[i]:ends[i]].sum()`` for every i (0 for empty ranges); ranges must not overlap
    and must be sorted.  Each range is reduced on its own (independent of the others).

    Parameters
    ----------
    values : numpy.ndarray
        The values.
    starts, ends : numpy.ndarray
        Start (inclusive) and end (exclusive) of every range.

    Returns
    -------
    numpy.ndarray
        One sum per range.

    See Also
    --------
    - [`irframe.register`][irframe.register]: a measure kernel written with these helpers.
    - [Internals](../internals.md): the aligned arrays.

    Examples
    --------
    >>> range_sum(np.array([1., 2, 3, 4]), np.array([0, 2, 3]), np.array([2, 2, 4])).tolist()
    [3.0, 0.0, 4.0]
    """
    v = np.append(np.asarray(values, dtype=np.float64), 0.0)
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    out = np.zeros(len(starts))
    ok = ends > starts
    if ok.any():
        idx = np.empty(2 * int(ok.sum()), np.int64)
        idx[0::2], idx[1::2] = starts[ok], ends[ok]
        out[ok] = np.add.reduceat(v, idx)[0::2]
    return out


def segment_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over each segment (0 for empty segments).

    Each segment is reduced on its own (``np.add.reduceat``; within a segment numpy may
    unroll the sum, so the last bit can differ from a strict left-to-right loop), so the
    result never depends on the other segments.

    Parameters
    ----------
    values : numpy.ndarray
        One value per row, rows grouped in segments (one segment per (system, topic) ranking).
    offsets : numpy.ndarray
        Segment boundaries, length segments + 1: segment g is ``values[offsets[g]:offsets[g+1]]``
        (``Aligned.offsets``).

    Returns
    -------
    numpy.ndarray
        One sum per segment.

    See Also
    --------
    - [`irframe.register`][irframe.register]: a measure kernel written with these helpers.
    - [Internals](../internals.md): the aligned arrays.

    Examples
    --------
    >>> segment_sum(np.array([1., 2, 3]), np.array([0, 2, 2, 3])).tolist()
    [3.0, 0.0, 3.0]
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros(len(offsets) - 1)
    nonempty = offsets[1:] > offsets[:-1]
    if nonempty.any():
        out[nonempty] = np.add.reduceat(values, offsets[:-1][nonempty])
    return out


def segment_max(values: np.ndarray, offsets: np.ndarray, empty: float = 0.0) -> np.ndarray:
    """Maximum of ``values`` over each segment (``empty`` for empty segments).

    Parameters
    ----------
    values : numpy.ndarray
        One value per row, rows grouped in segments (one segment per (system, topic) ranking).
    offsets : numpy.ndarray
        Segment boundaries, length segments + 1: segment g is ``values[offsets[g]:offsets[g+1]]``
        (``Aligned.offsets``).
    empty : float
        Value of an empty segment.

    Returns
    -------
    numpy.ndarray
        One maximum per segment.

    See Also
    --------
    - [`irframe.register`][irframe.register]: a measure kernel written with these helpers.
    - [Internals](../internals.md): the aligned arrays.
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.full(len(offsets) - 1, empty, dtype=np.float64)
    nonempty = offsets[1:] > offsets[:-1]
    if nonempty.any():
        out[nonempty] = np.maximum.reduceat(values, offsets[:-1][nonempty])
    return out


def segment_suffix_max(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For every element, the max of its segment's elements from it to the segment end.

    Exact (no floating-point offset tricks): values are replaced by order-preserving
    integer codes, offset per segment, scanned with ``np.maximum.accumulate``.

    Parameters
    ----------
    values : numpy.ndarray
        One value per row, rows grouped in segments (one segment per (system, topic) ranking).
    offsets : numpy.ndarray
        Segment boundaries, length segments + 1: segment g is ``values[offsets[g]:offsets[g+1]]``
        (``Aligned.offsets``).

    Returns
    -------
    numpy.ndarray
        Same length as ``values``.

    See Also
    --------
    - [`irframe.register`][irframe.register]: a measure kernel written with these helpers.
    - [Internals](../internals.md): the aligned arrays.

    Examples
    --------
    >>> segment_suffix_max(np.array([.1, .5, .2, .9, .3]), np.array([0, 3, 5])).tolist()
    [0.5, 0.5, 0.2, 0.9, 0.3]
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return values.copy()
    uniq, code = np.unique(values, return_inverse=True)
    lens = np.diff(offsets)
    seg = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
    width = len(uniq) + 1
    # reversed order: segments appear last-to-first, so a growing offset per earlier segment
    key = (len(lens) - 1 - seg) * width + code
    rev = np.maximum.accumulate(key[::-1])[::-1]
    return uniq[rev - (len(lens) - 1 - seg) * width]


# ---------------------------------------------------------------------------------
# (topic, doc) cells and run duplicates; ids are encoded in ._ids, rows ordered in ._order
# ---------------------------------------------------------------------------------
def _cells(
    topic: np.ndarray, doc: np.ndarray, n_docs: int, n_space: int, q_cell_keys: np.ndarray
) -> tuple[np.ndarray, int, np.ndarray]:
    """Compact ids of the (topic, doc) cells of the run rows, and the ids of the qrels cells.

    Returns (cell id per run row, number of cells, cell id per qrels key ``topic * n_docs +
    doc``, or -1).  Each doc has a home topic (one it is retrieved for); its cell there is
    numbered by the doc code itself.  When every doc occurs under its home topic only
    (per-topic pools) that is all.  Otherwise the other ("away") cells are numbered after
    the docs: by a marking array over the (topic × doc) space when that space is small beside
    the away rows, else as home cells again (a second home topic per doc, numbered by the doc)
    and by hashing the keys of the rows away from both (TREC ad hoc runs: a third of
    Robust03's rows are away from home, in a space 17× the rows, and 40 % of those are away
    from the second home too; hashing fewer keys keeps the table in cache).
    """
    topic_of = np.full(n_docs, -1, topic.dtype)
    topic_of[doc] = topic
    away = np.flatnonzero(topic_of[doc] != topic)
    if not len(away):
        q_topic, q_doc = np.divmod(q_cell_keys, n_docs)
        return doc, n_docs, np.where(topic_of[q_doc] == q_topic, q_doc, -1)
    if n_space <= min(
        _DENSE_LOOKUP_MAX, 16 * (len(doc) + len(q_cell_keys)), _DENSE_PER_AWAY_ROW * len(away)
    ):  # memory ∝ input, and marking the space costs less than hashing the away rows
        cell = topic.astype(code_dtype(n_space))  # n_space < 2**31 here: no overflow
        cell *= n_docs
        cell += doc
        used = np.zeros(n_space, bool)
        used[cell] = True
        used_cells = np.flatnonzero(used)
        compact = np.empty(n_space, code_dtype(len(used_cells)))
        compact[used_cells] = np.arange(len(used_cells))
        q = (
            np.where(used[q_cell_keys], compact[q_cell_keys], -1)
            if len(q_cell_keys)
            else q_cell_keys
        )
        return compact[cell], len(used_cells), q.astype(np.int64)
    # a second home topic per doc (one it is retrieved for away from home): its cells are
    # numbered by the doc too, after the home cells; only the rows away from both are hashed
    away_topic, away_doc = topic[away], doc[away]
    second_of = np.full(n_docs, -1, topic.dtype)
    second_of[away_doc] = away_topic
    second = np.cumsum(second_of >= 0) - 1  # per doc: its second cell after the home cells
    n_second = int(second[-1]) + 1
    far = np.flatnonzero(second_of[away_doc] != away_topic)
    keys = away_topic[far].astype(np.int64)
    keys *= n_docs
    keys += away_doc[far]
    codes, uniques = pd.factorize(keys)
    n_cells = n_docs + n_second + len(uniques)
    cell = doc.astype(code_dtype(n_cells))  # a copy: home cells are the doc codes
    cell[away] = second[away_doc] + n_docs
    cell[away[far]] = codes + (n_docs + n_second)
    q_topic, q_doc = np.divmod(q_cell_keys, n_docs)
    q = np.where(
        topic_of[q_doc] == q_topic,
        q_doc,
        np.where(second_of[q_doc] == q_topic, second[q_doc] + n_docs, -1),
    )
    other = np.flatnonzero(q < 0)
    if len(other):
        at = pd.Index(uniques).get_indexer(q_cell_keys[other])
        q[other] = np.where(at >= 0, at + (n_docs + n_second), -1)
    return cell, n_cells, q


def _sorted_has_duplicates(
    group_key: np.ndarray, n_t: int, n_systems: int, cell: np.ndarray, n_cells: int
) -> bool:
    """Whether a (system, cell) pair repeats; rows must be sorted by ``group_key`` = system
    * ``n_t`` + topic.

    Works in chunks of systems whose (system × cell) table stays under a fixed size.  When the
    table is small beside the chunk's rows, each row marks its pair in a table of flags and a
    chunk has a duplicate when it marks fewer pairs than rows; otherwise (many systems with
    many cells, few rows each) each row writes its position and reads it back, so the cost
    stays proportional to the rows, not to the table.
    """
    if len(cell) == 0 or n_cells == 0:
        return False
    bounds = np.searchsorted(group_key, (np.arange(n_systems + 1) * n_t).astype(group_key.dtype))
    # one system at a time (the cells themselves are the key, no arithmetic) when systems have
    # many rows each and scanning n_cells flags per system costs at most a few passes over the rows
    n = len(cell)
    one = n_systems * n_cells <= 8 * n and n_systems * _DUP_ONE_SYSTEM_ROWS <= n
    per_chunk = 1 if one else max(1, _DUP_TABLE_MAX // n_cells)
    used = np.zeros(min(n_systems, per_chunk) * n_cells, bool)
    slot = None
    for s0 in range(0, n_systems, per_chunk):
        s1 = min(n_systems, s0 + per_chunk)
        a, b = bounds[s0], bounds[s1]
        if a == b:
            continue
        if s1 - s0 == 1:
            key = cell[a:b]
        else:
            key = group_key[a:b] // n_t
            key -= s0
            key *= n_cells
            key = key + cell[a:b]
        if len(used) <= 4 * (b - a):
            used[key] = True
            if np.count_nonzero(used) != b - a:  # fewer distinct (system, cell) pairs than rows
                return True
            used.fill(False)
        else:
            if slot is None:
                slot = np.empty(len(used), np.int32)  # stale entries are never read back
            pos = np.arange(b - a, dtype=np.int32)
            slot[key] = pos
            if (slot[key] != pos).any():  # a later row wrote over this row's pair
                return True
    return False


def _lookup_grades(
    group_key: np.ndarray, n_t: int, qcode: np.ndarray, qk_u: np.ndarray, qr_u: np.ndarray, n_docs
) -> np.ndarray:
    """Grade of every row (NaN: unjudged) from its doc's code among the judged docs
    (``qcode``, -1: judged for no topic) and its group's topic: only the rows whose doc is
    judged somewhere are keyed ``topic * n_docs + doc`` and found in ``qk_u`` (unique keys)."""
    rel = np.full(len(qcode), np.nan)
    j = np.flatnonzero(qcode >= 0)
    if len(j) and len(qk_u):
        key = (group_key[j] % n_t).astype(np.int64)
        key *= n_docs
        key += qcode[j]
        pos = pd.Index(qk_u).get_indexer(key)  # a hash table of the judgments: no search per row
        hit = pos >= 0
        rel[j[hit]] = qr_u[pos[hit]]
    return rel


_HASH_TABLE_MAX = 1 << 22  # slots per chunk of rankings in the duplicate check (16 MB of int32)


def _hash_duplicates(group_key: np.ndarray, h: np.ndarray) -> bool:
    """Whether two rows of one group (``group_key`` sorted) have equal hashes ``h`` (whose
    high bits are mixed, `irframe._ids._chunk_hashes`).

    Each group owns a region of a table, a power of two of at least 16 slots per row; a row
    writes its position at the slot given by the high bits of its hash and reads it back.
    Only the rows that lost their slot and the rows that won it are compared exactly on
    (group, hash).  Work is linear in the rows; the table covers chunks of groups so it stays
    a few MB whatever the input (a hash table of every distinct doc would not)."""
    n = len(h)
    if n < 2:
        return False
    starts = np.flatnonzero(np.concatenate([[True], group_key[1:] != group_key[:-1]]))
    lens = np.diff(np.append(starts, n))
    bits = np.ceil(np.log2(np.maximum(16 * lens, 16))).astype(np.int64)
    size = np.left_shift(1, bits)
    ends = np.cumsum(size)
    g, n_groups = 0, len(starts)
    table = None
    while g < n_groups:
        base = ends[g] - size[g]
        g1 = max(g + 1, int(np.searchsorted(ends, base + _HASH_TABLE_MAX, side="right")))
        a, b = starts[g], (starts[g1] if g1 < n_groups else n)
        span = int(ends[g1 - 1] - base)
        if table is None or len(table) < span:
            table = np.empty(max(span, min(_HASH_TABLE_MAX, 16 * n)), np.int32)
        reps = lens[g:g1]
        slot = h[a:b] >> np.repeat((64 - bits[g:g1]).astype(np.uint64), reps)
        slot = slot.astype(np.int64)
        slot += np.repeat(ends[g:g1] - size[g:g1] - base, reps)
        pos = np.arange(b - a, dtype=np.int32)
        table[slot] = pos
        back = table[slot]
        lost = back != pos
        if lost.any():
            flag = np.zeros(b - a, bool)
            flag[pos[lost]] = True
            flag[back[lost]] = True
            cand = a + np.flatnonzero(flag)
            gk, hk = group_key[cand], h[cand]
            o = np.lexsort((hk, gk))
            gk, hk = gk[o], hk[o]
            if ((gk[1:] == gk[:-1]) & (hk[1:] == hk[:-1])).any():
                return True
        g = g1
    return False


class _DocLoader:
    """Builds an [`Aligned`][irframe.align.Aligned]'s ``row_doc`` and ``docs`` when a kernel first reads
    them (alignment by lookup): every run doc gets a code (`irframe._ids.RunDocs.codes`),
    the judged docs first, so ``qrels_doc`` codes stay valid."""

    def __init__(self, rd: RunDocs, q_arrow, r_doc=None, docs=None):
        self.rd, self.q_arrow = rd, q_arrow
        self.r_doc, self.docs = r_doc, docs  # already built (the duplicate check needed them)
        self._judged: np.ndarray | None = None
        self._judged_names: np.ndarray | None = None

    def __call__(self, aligned: Aligned) -> tuple[np.ndarray, np.ndarray]:
        if self.r_doc is None:
            self.r_doc, self.docs = self.rd.codes(self.q_arrow)
        return self.r_doc[aligned.row_source].astype(np.int64), self.docs

    def judged_codes(self, aligned: Aligned) -> np.ndarray:
        """Per row of ``aligned``, its doc's place among the judged docs (-1: not judged);
        the same codes as the full table's (the judged docs come first there)."""
        if self.r_doc is not None:
            return self.r_doc[aligned.row_source].astype(np.int64)
        if self._judged is None:  # over the whole column, as the full table's codes are
            self._judged = self.rd.judged_codes(self.q_arrow)
        return self._judged[aligned.row_source]

    def judged_names(self) -> np.ndarray:
        """The judged docs' names, in their codes' order."""
        if self._judged_names is None:
            self._judged_names = np.asarray(
                self.q_arrow.to_numpy(zero_copy_only=False), dtype=object
            )
        return self._judged_names


class _LazyDocs:
    """``Aligned.row_doc`` / ``Aligned.docs``: stored on the instance as given; when given as
    None with a doc loader (alignment by lookup), built on first access."""

    def __init__(self, key: str):
        self.key = key

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        d = obj.__dict__
        if d.get(self.key) is None and d.get("_doc_loader") is not None:
            d["_row_doc"], d["_docs"] = d.pop("_doc_loader")(obj)
        return d.get(self.key)

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.key] = value


Aligned.row_doc = _LazyDocs("_row_doc")  # (assignment errors are off in this module: pyproject)
Aligned.docs = _LazyDocs("_docs")


def replace_aligned(aligned: Aligned, rows: np.ndarray | None = None, **changes) -> Aligned:
    """`dataclasses.replace` of an [`Aligned`][irframe.align.Aligned] that keeps its doc codes
    pending: when ``row_doc``/``docs`` are not built yet (alignment by lookup) and ``changes``
    give neither, the copy gets the same loader instead of building them (``replace`` reads
    every field).  The loader takes each row's doc from its position in the caller's frame
    (``row_source``), so the copy's rows may differ as long as their ``source`` says where
    they come from.  ``rows``: the copy's rows are these rows of ``aligned`` (positions or a
    mask), so built doc codes are taken from them and pending ones stay pending."""
    d = aligned.__dict__
    loader = d.get("_doc_loader")
    if loader is None or "row_doc" in changes or "docs" in changes:
        if rows is not None and "row_doc" not in changes:
            changes["row_doc"] = aligned.row_doc[rows]
        return replace(aligned, **changes)
    lazy = {"row_doc": d.get("_row_doc"), "docs": d.get("_docs")}  # as stored: not built here
    kw = {
        f.name: lazy[f.name] if f.name in lazy else getattr(aligned, f.name)
        for f in fields(aligned)
        if f.init
    }
    out = Aligned(**{**kw, **changes})
    out._doc_loader = loader
    return out


@dataclass
class _Ids:
    """Integer codes of the id columns of a run frame and its qrels (see `_encode_ids`)."""

    r_sys: np.ndarray  # run rows → system code (systems sorted)
    systems: np.ndarray
    r_topic: np.ndarray  # run rows → code in topics_all, -1 when the topic has no qrels
    r_topic_any: np.ndarray  # run rows → code among every topic of run and qrels
    n_topic_any: int
    q_topic: np.ndarray  # qrels rows → code in topics_all
    topics_all: np.ndarray  # qrels topics, sorted
    r_doc: np.ndarray | None  # None: the run docs are read by lookup (run_docs)
    q_doc: np.ndarray
    # run docs first (in first appearance, or topic group, order), then qrels-only docs; by
    # lookup: the qrels docs
    docs: np.ndarray
    run_docs: RunDocs | None = None
    q_arrow: object = None  # by lookup: the qrels docs (``docs``) as a pyarrow string array


def _encode_ids(
    runs: pd.DataFrame, qrels: pd.DataFrame, rc, qc, lookup: bool | None = None
) -> _Ids:
    """Factorize systems and topics once, run and qrels jointly (one code per id); the docs
    too, unless ``lookup`` and pyarrow can read them (`irframe._ids.run_docs`): then
    only the qrels docs are encoded and the run docs are looked up in them.  ``lookup`` None:
    when the run's docs are mostly distinct (`irframe._ids.docs_mostly_distinct`)."""
    (r_sys,), systems = encode([(runs, rc.system, "run frame")], runs=True)
    (r_sys,), systems = sorted_codes([r_sys], systems)
    (r_topic_any, q_topic), topics = encode(
        [(runs, rc.topic, "run frame"), (qrels, qc.topic, "qrels frame")], runs=True
    )
    in_qrels = np.zeros(len(topics), bool)
    in_qrels[q_topic] = True
    (r_topic, q_topic), topics_all = sorted_codes([r_topic_any, q_topic], topics, keep=in_qrels)
    if lookup is None:
        lookup = _LOOKUP if _LOOKUP is not None else docs_mostly_distinct(runs[rc.doc])
    rd = run_docs(runs, rc.doc, "run frame") if lookup else None
    q_arrow = None
    if rd is not None:
        (q_doc,), docs = encode([(qrels, qc.doc, "qrels frame")])
        q_arrow = arrow_strings(docs)
        r_doc = None
    if q_arrow is None:
        rd = None
        (r_doc, q_doc), docs = encode(
            [(runs, rc.doc, "run frame"), (qrels, qc.doc, "qrels frame")],
            topic=(r_topic_any, len(topics)),
        )
    # run rows keep their codes as encoded (int32, a category column's own int8..int32 codes,
    # read-only, or int8/int16 for system and topic columns in runs): nothing here does arithmetic
    # on them in their own type; qrels codes, small, go to int64 because qrels keys multiply them
    return _Ids(
        r_sys,
        systems,
        r_topic,
        r_topic_any,
        len(topics),
        q_topic.astype(np.int64),
        topics_all,
        r_doc,
        q_doc.astype(np.int64),
        docs,
        rd,
        q_arrow,
    )


def _qrels_rows(qrels: pd.DataFrame, qc, ids: _Ids, duplicates: str):
    """Topic code, doc code and grade of every qrels row (duplicates checked), and the
    subtopic (codes, labels) of diversity qrels (else None)."""
    sub = None
    if qc.subtopic:  # ids first: their errors come before the grades'
        (s_code,), subtopics = encode([(qrels, qc.subtopic, "qrels frame")])
        (s_code,), subtopics = sorted_codes([s_code], subtopics)
        sub = (s_code.astype(np.int64), subtopics)  # the kernels multiply subtopic codes
    q_rel = numeric_column(qrels, qc.rel, "qrels frame")
    _check_grade_range(qrels, qc.rel, q_rel)
    n_docs = max(len(ids.docs), 1)
    q_topic, q_doc = ids.q_topic, ids.q_doc
    if sub is not None:
        q_key = (q_topic * len(sub[1]) + sub[0]) * n_docs + q_doc
        qkeep = check_duplicates(
            qrels, q_key, [qc.topic, qc.subtopic, qc.doc], "qrels frame", duplicates, qc.rel
        )
    else:
        qkeep = check_duplicates(
            qrels, q_topic * n_docs + q_doc, [qc.topic, qc.doc], "qrels frame", duplicates, qc.rel
        )
    if qkeep is not None:
        q_topic, q_doc, q_rel = q_topic[qkeep], q_doc[qkeep], q_rel[qkeep]
        if sub is not None:
            sub = (sub[0][qkeep], sub[1])
    return q_topic, q_doc, q_rel, sub


def _ordering_keys(
    runs: pd.DataFrame, rc, order: str
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The run's score (float64, read-only; None without a score column) and rank columns."""
    score: np.ndarray | None
    if order in ("trec_eval", "trec_eval10"):
        if rc.score is None:
            raise InputError(
                f"order={order!r} sorts by score but the run frame has no "
                f"'score' column; pass order='rank' or order='input'"
            )
        score = numeric_column(runs, rc.score, "run frame")
    else:
        score = numeric_column(runs, rc.score, "run frame") if rc.score else None
    rank = None
    if order == "rank":
        if rc.rank is None:
            raise InputError("order='rank' needs a 'rank' column in the run frame")
        rank = numeric_column(runs, rc.rank, "run frame")
    return score, rank


def _primary_key(order: str, score: np.ndarray | None, rank: np.ndarray | None):
    """(value whose descending order is the ranking, score as stored in the aligned arrays)
    for an ``order``; the value is None for input order."""
    if order == "trec_eval":
        assert score is not None  # the score orders need a score column (_ordering_keys)
        try:  # kept as the aligned row_score; the cast itself reports an overflow, so the
            # common case makes no second pass over the scores
            with np.errstate(over="raise"):
                f32 = score.astype(np.float32)
        except FloatingPointError:  # trec_eval 9.0.8's C float: beyond it, +-inf
            with np.errstate(over="ignore"):
                f32 = score.astype(np.float32)
            warn(
                f"{int((~np.isfinite(f32)).sum())} score(s) lie beyond the range of a C float "
                "(|score| > 3.4e38): in trec_eval 9.0.8's order (order='trec_eval', which "
                "compares scores as C floats) they become infinite and tie with each other. "
                "order='trec_eval10' compares the scores as they are.",
                ConventionWarning,
            )
        return f32, f32
    if order == "trec_eval10":
        return score, score
    if order == "rank":
        assert rank is not None  # order="rank" needs a rank column (_ordering_keys)
        return np.negative(rank), score
    return None, score


def _qrels_table(q_topic, q_doc, q_rel, has_sub: bool, n_docs: int):
    """Judged (topic, doc) keys ``topic * n_docs + doc``, sorted and unique, with the grade
    (max over subtopics); the qrels rows must be restricted to evaluated topics."""
    qk = q_topic * n_docs + q_doc
    if has_sub:  # collapse subtopics: max grade per (topic, doc)
        o = np.lexsort((q_rel, qk))
        qk_s, qr_s = qk[o], q_rel[o]
        last = np.ones(len(qk_s), bool)
        last[:-1] = qk_s[1:] != qk_s[:-1]
        return qk_s[last], qr_s[last]
    o = np.argsort(qk, kind="stable")
    return qk[o], q_rel[o]


def _evaluated_topics(runs: pd.DataFrame, rc, ids: _Ids, complete: bool):
    """Run rows whose topic has qrels (positions; None when all have), the evaluated topics
    (codes into ``ids.topics_all``) and the recoding topics_all → evaluated topic (-1: not)."""
    src = None
    if ids.r_topic.min() < 0:  # some rows' topics have no qrels (one pass when none)
        row_ok = ids.r_topic >= 0
        if not row_ok.any():
            raise no_overlap_error(pd.unique(runs[rc.topic]), ids.topics_all)
        src = np.flatnonzero(row_ok)
    n_topics_all = len(ids.topics_all)
    if complete:
        eval_topic = np.arange(n_topics_all)
    else:
        seen = np.zeros(n_topics_all + 1, bool)  # the last flag: topics without qrels (code -1)
        seen[_run_heads(ids.r_topic)] = True
        eval_topic = np.flatnonzero(seen[:-1])
    topic_recode = np.full(n_topics_all, -1, code_dtype(n_topics_all))
    topic_recode[eval_topic] = np.arange(len(eval_topic))
    return src, eval_topic, topic_recode


def _run_heads(codes: np.ndarray) -> np.ndarray:
    """``codes`` or, when it has few runs of equal adjacent values (sorted frames), the first
    value of each run: the same distinct values, fewer to scatter."""
    heads = np.flatnonzero(codes[1:] != codes[:-1])
    if len(heads) > len(codes) // 8:
        return codes
    heads += 1
    return codes[np.concatenate([[0], heads])]


def _groups(
    group_key: np.ndarray,
    n_complete: int | None,
    rel: np.ndarray,
    depth: int | None,
    judged_only: bool,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The evaluated groups (every one of ``n_complete`` under -c, else those of the sorted
    ``group_key``) and the rows kept by ``depth`` (-M) and ``judged_only`` (-J, after -M as
    trec_eval does; None: every row)."""
    if n_complete is not None:
        groups = np.arange(n_complete, dtype=np.int64)
    else:  # group_key is sorted: its distinct values are where it changes
        change = np.ones(len(group_key), bool)
        change[1:] = group_key[1:] != group_key[:-1]
        groups = group_key[change]
    keep_rows = None
    if depth is not None:
        starts = np.searchsorted(group_key, groups, side="left")
        ends = np.searchsorted(group_key, groups, side="right")
        rank0 = np.arange(len(group_key)) - np.repeat(starts, ends - starts)
        keep_rows = rank0 < depth
    if judged_only:
        judged = ~np.isnan(rel) & ~(rel < 0)
        keep_rows = judged if keep_rows is None else keep_rows & judged
    return groups, keep_rows


@takes_options("align")
def align(runs: pd.DataFrame, qrels: pd.DataFrame, *, opts: Options) -> Aligned:
    """Validate ``runs`` and ``qrels`` and build the [`Aligned`][irframe.align.Aligned] arrays.

    Parameters
    ----------
    runs : pandas.DataFrame
        Long run frame ``system, topic, doc, score[, rank]``; other tools' column names,
        iterables of namedtuples and ``{topic: {doc: score}}`` dicts are recognised
        (see [`irframe.schema`][irframe.schema]).
    qrels : pandas.DataFrame
        ``topic, doc, rel[, subtopic]`` (or as ``runs``, see [`irframe.schema.qrels_frame`][irframe.schema.qrels_frame]).

    Returns
    -------
    Aligned
    """
    if opts.tie_order:  # the tie order is applied to trec_eval's order, after alignment
        opts = opts.replace(order="trec_eval")
    order, depth, complete = opts.order, opts.depth, opts.complete
    runs, qrels, rc, qc = _check_inputs(runs, qrels, opts.columns, opts.qrels_columns, opts.system)
    ids = _encode_ids(runs, qrels, rc, qc)
    q_topic, q_doc, q_rel, sub = _qrels_rows(qrels, qc, ids, opts.duplicates)
    n_docs = max(len(ids.docs), 1)
    score, rank = _ordering_keys(runs, rc, order)

    kept, eval_topic, topic_recode = _evaluated_topics(runs, rc, ids, complete)
    n_dropped = 0 if kept is None else len(runs) - len(kept)

    def take(x: np.ndarray | None) -> Any:  # an array for an array, None for None
        return x if kept is None or x is None else x[kept]

    n_t = len(eval_topic)
    rd = ids.run_docs  # None: every doc has a code; else the run docs are read by lookup
    # the aligned doc codes are int64 (kernels multiply them; numpy indexes with int64 directly)
    r_doc_s = take(ids.r_doc).astype(np.int64) if rd is None else None
    r_topic_s = take(ids.r_topic)
    if n_t < len(topic_recode):  # else every topic is evaluated (eval_topic: a sorted subset)
        r_topic_s = topic_recode[r_topic_s]
    group_key = take(ids.r_sys).astype(code_dtype(len(ids.systems) * n_t))  # a copy
    group_key *= n_t
    group_key += r_topic_s

    # ---- relevance lookup through (topic, doc) cells; ordering -----------------------------
    q_t = topic_recode[q_topic].astype(np.int64)  # qrels keys multiply it
    q_in = q_t >= 0
    qk_u, qr_u = _qrels_table(q_t[q_in], q_doc[q_in], q_rel[q_in], sub is not None, n_docs)
    if rd is None:
        cell, n_cells, q_cell = _cells(r_topic_s, r_doc_s, n_docs, n_t * n_docs, qk_u)
    value, sc = _primary_key(order, take(score), take(rank))
    if rd is None:
        o = order_rows(group_key, value, r_doc_s, ids.docs)
    else:  # the docnos of tied rows are read from the column
        o = order_rows(group_key, value, rd.subset(kept), None)
    del value  # (the score orders' value is sc: its unpermuted copy is freed once sc is permuted)
    if rd is None:
        cell_is_doc = cell is r_doc_s  # per-topic pools: permute the doc codes once for both
        r_doc_s = permute(r_doc_s, o, inplace=True)  # our own copy: permuted in place
        cell = r_doc_s if cell_is_doc else permute(cell, o)
    # each row's position in the caller's frame: (0..n-1 or kept) permuted; for input in order
    # but for its ties, the order itself stands for it until a caller asks (Aligned.row_source)
    src: np.ndarray | RowOrder
    if kept is not None:
        src = permute(kept, o)
    elif o.idx is not None:
        src = o.idx.astype(np.int64, copy=False)
    else:
        src = o
    if o.idx is not None:  # a general permutation (otherwise only tied rows moved, each within
        # its tie, where the group is constant)
        group_key = o.group_sorted if o.group_sorted is not None else group_key[o.idx]
    if sc is None:  # no score column (order="rank"/"input"): one NaN a row
        sc = np.full(len(group_key), np.nan)
    elif o.idx is not None or order == "rank":  # in score orders the tie key is the score itself
        sc = permute(sc, o)
    if rd is None:
        rel_by_cell = np.full(n_cells + 1, np.nan)  # the last: qrels (topic, doc) not retrieved
        rel_by_cell[q_cell] = qr_u
        rel = rel_by_cell[cell]
        has_dup = _sorted_has_duplicates(group_key, n_t, len(ids.systems), cell, n_cells)
    else:  # grades: each row's doc looked up among the judged docs, then (topic, doc) keys
        qcode = permute(take(rd.qrels_codes(ids.q_arrow)), o, inplace=True)
        rel = _lookup_grades(group_key, n_t, qcode, qk_u, qr_u, n_docs)
        del qcode
        has_dup = _hash_duplicates(group_key, permute(take(rd.hashes()), o, inplace=True))

    # ---- run duplicates: (system, topic, doc) twice; "first" keeps each one's first row ------
    if has_dup:  # (by lookup: two rows of a ranking hash alike; the doc codes decide)
        if rd is not None:
            r_doc_all, docs_all = rd.codes(ids.q_arrow)
        else:
            r_doc_all, docs_all = ids.r_doc, ids.docs
        r_key = (ids.r_sys.astype(np.int64) * ids.n_topic_any + ids.r_topic_any) * max(
            len(docs_all), 1
        ) + r_doc_all
        keep = check_duplicates(
            runs, r_key, [rc.system, rc.topic, rc.doc], "run frame", opts.duplicates
        )
        if rd is not None:
            ids.r_doc, ids.docs = r_doc_all, docs_all  # now known: the doc codes come from them
        if keep is not None:  # removing rows changes neither the others' order nor their grades
            src = o.source(len(group_key)) if isinstance(src, RowOrder) else src
            if r_doc_s is not None:
                r_doc_s = r_doc_s[keep[src]]
            group_key, rel, src, sc = (x[keep[src]] for x in (group_key, rel, src, sc))
            n_dropped = int(np.count_nonzero(keep[ids.r_topic < 0]))

    groups, keep_rows = _groups(
        group_key, len(ids.systems) * n_t if complete else None, rel, depth, opts.judged_only
    )
    retrieved = None
    if complete and opts.judged_only:  # groups are 0..n-1 = group keys: which ones hold rows
        retrieved = np.zeros(len(groups), bool)
        retrieved[group_key] = True
    if keep_rows is not None:
        src = o.source(len(group_key)) if isinstance(src, RowOrder) else src
        if r_doc_s is not None:
            r_doc_s = r_doc_s[keep_rows]
        group_key, rel, src, sc = (x[keep_rows] for x in (group_key, rel, src, sc))
    offsets = np.concatenate(
        [np.searchsorted(group_key, groups, side="left"), [len(group_key)]]
    ).astype(np.int64)
    aligned = Aligned(
        systems=pd.Index(ids.systems, name="system", dtype=object),
        topics=pd.Index(ids.topics_all[eval_topic], name="topic", dtype=object),
        docs=ids.docs if rd is None else None,
        group_system=(groups // n_t).astype(np.int64) if n_t else groups,
        group_topic=(groups % n_t).astype(np.int64) if n_t else groups,
        offsets=offsets,
        row_doc=r_doc_s,
        row_rel=rel.astype(np.float64, copy=False),
        row_score=sc if sc.dtype == np.float32 else sc.astype(np.float64, copy=False),
        source=src if isinstance(src, RowOrder) else src.astype(np.int64, copy=False),
        qrels_offsets=np.zeros(1, np.int64),
        qrels_doc=np.zeros(0, np.int64),
        qrels_rel=np.zeros(0),
        options=opts,
        n_dropped_rows=n_dropped,
        group_retrieved=retrieved,
        qrels_grades_all=q_rel,
    )
    if rd is not None:  # doc codes: built when a kernel first asks for them
        aligned._doc_loader = _DocLoader(rd, ids.q_arrow, ids.r_doc, ids.docs)
    _attach_qrels(aligned, q_t, q_doc, q_rel, qk_u, qr_u, sub, n_docs)
    return aligned


def _check_inputs(runs, qrels, columns, qrels_columns, system):
    """The run and qrels frames and their resolved columns (the options were checked by
    [`takes_options`][irframe.options.takes_options]; the id columns are checked while they
    are encoded, `irframe._ids.encode`)."""
    runs, rc = run_frame(runs, columns, system=system)
    qrels, qc = qrels_frame(qrels, qrels_columns)
    if len(runs) == 0:
        raise InputError("run frame is empty (0 rows); nothing to evaluate")
    if len(qrels) == 0:
        raise InputError("qrels frame is empty (0 rows); relevance judgments are needed")
    return runs, qrels, rc, qc


def _attach_qrels(aligned: Aligned, q_t, q_doc, q_rel, qk_u, qr_u, sub, n_docs: int) -> None:
    """The qrels CSR per evaluated topic (grade descending, then doc code) and the subtopic
    table; ``q_t`` is each qrels row's evaluated-topic code (-1: topic not evaluated)."""
    q_in = q_t >= 0
    if sub is not None:  # one row per (topic, doc): max grade, from the collapsed table
        qt_u, qd_u = qk_u // n_docs, qk_u % n_docs
        qorder = np.lexsort((qd_u, -qr_u, qt_u))
        qrels_topic, qrels_doc, qrels_rel = qt_u[qorder], qd_u[qorder], qr_u[qorder]
    else:
        qt_in, qd_in, qr = q_t[q_in], q_doc[q_in], q_rel[q_in]
        qorder = np.lexsort((qd_in, -qr, qt_in))
        qrels_topic, qrels_doc, qrels_rel = qt_in[qorder], qd_in[qorder], qr[qorder]
    aligned.qrels_offsets = np.searchsorted(qrels_topic, np.arange(len(aligned.topics) + 1)).astype(
        np.int64
    )
    aligned.qrels_doc = qrels_doc.astype(np.int64, copy=False)
    aligned.qrels_rel = qrels_rel.astype(np.float64, copy=False)
    if sub is not None:
        s_code, subtopics = sub
        so = np.lexsort((q_doc[q_in], s_code[q_in], q_t[q_in]))
        aligned.subtopics = pd.Index(np.asarray(subtopics, dtype=object), name="subtopic")
        aligned.sub_topic = q_t[q_in][so]
        aligned.sub_subtopic = s_code[q_in][so]
        aligned.sub_doc = q_doc[q_in][so]
        aligned.sub_rel = q_rel[q_in][so]
