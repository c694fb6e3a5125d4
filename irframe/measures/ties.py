"""Tie-aware evaluation: expected values over the orders of tied documents, and their range.

trec_eval sorts a ranking by score (as float32) and breaks ties by docno, descending — an
arbitrary order that can move a score a lot when a run has many equal scores.  Here a
*tie group* is a maximal run of consecutive documents of one ranking with equal float32
scores (trec_eval's notion of a tie).  With ``order=`` of [`irframe.evaluate`][irframe.evaluate]:

``"expected"``
    the mean of the measure over all orders of every tie group (each permutation equally
    likely, independently per group), in closed form (McSherry & Najork, "Computing
    Information Retrieval Performance Measures Efficiently in the Presence of Tied Scores",
    ECIR 2008).  Inside a tie group of n documents holding r relevant ones, every position
    holds a relevant document with probability r/n, so measures that are sums of
    per-position gains (P@k, R@k, NumRelRet@k, Judged@k, DCG@k, RBP) use the group's mean
    gain at every position.  The others:

    * Success@k: 1 − P(no relevant in the c positions of the group cut by k)
      = 1 − Π_{i<c} (n − r − i) / (n − i) (hypergeometric);
    * RR: the first relevant document of the first group holding one is at position x
      with probability C(n − x, r − 1) / C(n, r);
    * AP: E[rel_i · #rel_{≤i}] = m_T (1 + B_T) + (p − 1) r(r − 1) / (n(n − 1)) for position
      p of group T with mean m_T = r/n and B_T relevant documents before the group
      (positions of different groups are independent; two positions of one group are
      both relevant with probability r(r−1)/(n(n−1))).
``"best"`` / ``"worst"``
    each tie group sorted by grade descending / ascending (unjudged = below every judged
    grade), which is the best / worst order for the measures that accept it (moving a
    document of a higher grade above one of a lower grade never lowers them).

A measure declares what it supports on its [`MeasureDef`][irframe.MeasureDef]:
``expected=`` its expected-value kernel (built from [`tie_groups`][irframe.measures.ties.tie_groups],
[`expected_weighted_sum`][irframe.measures.ties.expected_weighted_sum] and [`Selected`][irframe.measures.ties.Selected] of this module), ``order_safe=True``
when sorting ties by grade gives its extremes.  Measures without the declaration raise an
error naming the measure.

``depth=`` cuts every ranking *after* the tie-aware order ([cut_after_order][irframe.measures.ties.cut_after_order]), as it
does after trec_eval's order: a tie group the depth cuts shows its whole spread (best: its
highest grades above the cut; expected: the mean over which of its documents fall above).
With ``judged_only=True`` as well the request is refused (an `OptionError`): trec_eval cuts
at the depth before dropping unjudged documents, and a cut tie group has no single judged set.
Expected-value kernels see that depth through [cut_within_depth][irframe.measures.ties.cut_within_depth],
[retrieved_within_depth][irframe.measures.ties.retrieved_within_depth] and
[whole_ranking][irframe.measures.ties.whole_ranking] ([`expected_weighted_sum`][irframe.measures.ties.expected_weighted_sum] applies it itself).

Examples
--------
>>> import pandas as pd
>>> import irframe as irf
>>> run = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a", "b"], "score": [1.0, 1.0]})
>>> qrels = pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})
>>> [float(irf.evaluate(run, qrels, "RR", order=o).item()) for o in ("trec_eval", "expected", "worst", "best")]
[0.5, 0.75, 0.5, 1.0]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..align import Aligned, replace_aligned
from ..errors import MeasureParamError
from ..options import TIE_ORDERS
from . import trec_arrays as _arrays
from .registry import registered_measures

__all__ = [
    "TIE_ORDERS",
    "Selected",
    "Ties",
    "check_tie_order",
    "cut_after_order",
    "cut_within_depth",
    "expand_ranges",
    "expected_values",
    "expected_weighted_sum",
    "first_relevant_tie",
    "last_rank_within",
    "log_comb",
    "order_ties",
    "rank_prefix",
    "retrieved_within_depth",
    "tie_groups",
    "ties_of",
    "whole_ranking",
]


@dataclass(eq=False)
class Ties:
    """Tie groups of an aligned run, in evaluation order.

    Tie group j holds rows ``starts[j]:ends[j]`` (all of one ranking); ``group`` is its
    (system, topic) group and ``first_rank`` the rank of its first row; ``row_tie`` the tie
    group of every row.
    """

    starts: np.ndarray
    ends: np.ndarray
    group: np.ndarray
    first_rank: np.ndarray
    row_tie: np.ndarray

    @property
    def size(self) -> np.ndarray:
        """Rows per tie group."""
        return self.ends - self.starts

    def of_rows(self, rows: np.ndarray) -> np.ndarray:
        """Tie group of each row position in ``rows``."""
        return self.row_tie[rows]


def tie_groups(aligned: Aligned) -> Ties:
    """The tie groups of ``aligned``: consecutive rows of one ranking with equal ``row_score``.

    With trec_eval's order ``row_score`` holds the float32 scores, so equal float32 scores
    tie.  Without scores (NaN) every row is its own group.

    Examples
    --------
    >>> import pandas as pd
    >>> from irframe.align import align
    >>> run = pd.DataFrame({"system": "s", "topic": "1", "doc": list("abcd"), "score": [2., 1, 1, 1]})
    >>> t = tie_groups(align(run, pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})))
    >>> t.size.tolist(), t.first_rank.tolist()
    ([1, 3], [1, 2])
    """
    a = aligned
    n = a.n_rows
    s = a.row_score
    new = np.ones(n, bool)
    if n > 1:
        np.not_equal(s[1:], s[:-1], out=new[1:])  # NaN != NaN: unscored rows never tie
    new[a.offsets[:-1][a.group_len > 0]] = True
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], n).astype(np.int64)
    row_tie = np.cumsum(new, dtype=np.int64)
    row_tie -= 1
    return Ties(starts, ends, a.row_group[starts], a.row_rank[starts], row_tie)


def _supports(d, order: str) -> bool:
    return d.expected is not None if order == "expected" else d.order_safe


def check_tie_order(specs, order: str, gains=None) -> None:
    """Raise for measures that declare no exact computation for ``order`` ("expected",
    "best", "worst"): ``expected=`` / ``order_safe=`` of their definition."""
    for m in specs:
        if not _supports(m.definition, order):
            what = (
                "the expected value over tie orders has no exact efficient computation"
                if order == "expected"
                else "sorting tied documents by grade is not guaranteed to give its extreme values"
            )
            supported = sorted(n for n, d in registered_measures().items() if _supports(d, order))
            raise MeasureParamError(
                f"order={order!r} is not available for measure {m.label!r}: {what}. "
                f"Supported: {', '.join(supported)}; use order='trec_eval' for the others"
            )
        if order != "expected":
            own = m.param("gains")
            mapping = _arrays.parse_gain_pairs(own) if isinstance(own, str) else (own or gains)
            if mapping:
                vals = [float(v) for _, v in sorted((float(k), v) for k, v in mapping.items())]
                if any(b < a for a, b in itertools.pairwise(vals)) or vals[0] < 0:
                    raise MeasureParamError(
                        f"order={order!r} sorts tied documents by grade, which is exact for {m.label!r} only when "
                        f"its gains are non-negative and non-decreasing in the grade; got {dict(mapping)}"
                    )


def order_ties(aligned: Aligned, order: str) -> Aligned:
    """A copy of ``aligned`` with every tie group sorted by grade: descending for ``"best"``,
    ascending for ``"worst"``; unjudged documents count as the lowest grade.

    Stable: documents of equal grade keep trec_eval's order.  Only rows of tie groups with
    more than one document are sorted.
    """
    ties = tie_groups(aligned)
    multi = ties.size > 1
    if not multi.any():
        return aligned
    cnt = ties.size[multi]
    tie_id, rows = expand_ranges(ties.starts[multi], cnt)
    rel = aligned.row_rel[rows]
    key = np.where(np.isnan(rel), -np.inf, rel)
    sub = rows[np.lexsort((-key if order == "best" else key, tie_id))]
    if np.array_equal(sub, rows):
        return aligned
    perm = np.arange(aligned.n_rows)
    perm[rows] = sub
    return replace_aligned(
        aligned,
        perm,
        row_rel=aligned.row_rel[perm],
        source=aligned.row_source[perm],
    )


def cut_after_order(aligned: Aligned, order: str, depth: int | None) -> Aligned:
    """``depth`` applied *after* the tie-aware ``order``, to an alignment made without depth.

    ``"best"``/``"worst"``: every tie group is sorted by grade, then each ranking is cut to
    its first ``depth`` rows, so a tie group that straddles the depth contributes its best
    (worst) documents.  ``"expected"``: rows are kept up to the end of the tie group that
    straddles the depth and the expected values count positions up to ``depth`` only (the
    documents at those positions are a uniformly random subset of the whole group).
    ``"trec_eval"``: the plain cut.  The caller's alignment is not modified.
    """
    if depth is None:
        return aligned
    if order in ("best", "worst"):
        aligned = order_ties(aligned, order)
    rank = aligned.row_rank
    if order == "expected":
        ties = tie_groups(aligned)
        keep = ties.first_rank[ties.row_tie] <= depth
    else:
        keep = rank <= depth
    counts = np.bincount(aligned.row_group[keep], minlength=aligned.n_groups)
    src = aligned.row_source[keep]
    out = replace_aligned(
        aligned,
        keep,
        offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        row_rel=aligned.row_rel[keep],
        row_score=aligned.row_score[keep],
        source=src,
        options=aligned.options.replace(depth=depth),
        extras={**aligned.extras, "tie_depth": depth} if order == "expected" else aligned.extras,
    )
    return out


def cut_within_depth(ctx, k):
    """The cutoff ``k`` (None, scalar or per group) within the depth of [cut_after_order][irframe.measures.ties.cut_after_order]."""
    d = ctx.aligned.extras.get("tie_depth")
    if d is None:
        return k
    return d if k is None else np.minimum(k, d)


def retrieved_within_depth(ctx) -> np.ndarray:
    """Documents retrieved per group after the depth cut."""
    a = ctx.aligned
    d = a.extras.get("tie_depth")
    return a.group_len if d is None else np.minimum(a.group_len, d)


def whole_ranking(ctx, m) -> bool:
    """A measure of the whole ranking (no cutoff, no depth cut inside a tie group): its
    expected value is its plain value."""
    return m.cutoff is None and ctx.aligned.extras.get("tie_depth") is None


def expand_ranges(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges ``starts[i] : starts[i] + counts[i]``: (range index, value) of every element."""
    which = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    first = np.concatenate([[0], np.cumsum(counts)])[:-1]
    return which, np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(first - starts, counts)


# ------------------------------------------------------------------------- expected values
# Every expected value is a sum over the tie groups that hold a selected row (a relevant
# one, one with a gain, a judged one): their count is at most the number of selected rows,
# so the cost follows the relevant rows, not the ranking length.
def ties_of(ctx) -> Ties:
    """The tie groups of ``ctx.aligned``, computed once per evaluation."""
    return ctx.memo("tie_groups", lambda: tie_groups(ctx.aligned))


class Selected:
    """The tie groups holding selected rows ``pos`` (sorted row positions) and the sum of
    ``vals`` over each: ``tie``, ``total``, ``n`` (size), ``first`` (rank), ``group``, and
    ``index`` — the position in ``pos`` of the group's first selected row."""

    @classmethod
    def relevant(cls, ctx, level: float) -> Selected:
        """The tie groups holding relevant rows (memoised per level)."""

        def build():
            rows = _arrays.rel_rows(ctx, level)
            return cls(ctx, rows.pos, np.ones(len(rows.pos)))

        return ctx.memo(("tie_selected_rel", level), build)

    def __init__(self, ctx, pos: np.ndarray, vals: np.ndarray):
        ties = ties_of(ctx)
        t = ties.of_rows(pos)
        chg = np.ones(len(t), bool)
        if len(t) > 1:
            np.not_equal(t[1:], t[:-1], out=chg[1:])
        self.index = np.flatnonzero(chg)
        self.tie = t[self.index]
        self.total = (
            np.add.reduceat(np.asarray(vals, dtype=np.float64), self.index)
            if len(t)
            else np.zeros(0)
        )
        self.n = ties.size[self.tie]
        self.first = ties.first_rank[self.tie]
        self.group = ties.group[self.tie]


def last_rank_within(first: np.ndarray, n: np.ndarray, group: np.ndarray, k) -> np.ndarray:
    """Last rank of each tie group that lies within the cutoff ``k`` (scalar, per-group or None)."""
    last = first + n - 1
    if k is None:
        return last
    kk = np.asarray(k)
    return np.minimum(last, kk[group] if kk.ndim else kk)


def expected_weighted_sum(
    ctx, pos: np.ndarray | None, vals: np.ndarray | Selected, k, weight, cum_weight
) -> np.ndarray:
    """Per group, E[sum over ranks <= k of weight(rank) · value(doc at rank)] over tie orders.

    Every position of a tie group of n documents whose values sum to X holds X/n on average:
    the group contributes X/n · (cum_weight(last) − cum_weight(first − 1)), last = its last
    rank within k (a one-document group: X · weight(first), exactly as the plain kernels).
    """
    a = ctx.aligned
    if isinstance(vals, Selected):
        sel = vals
    else:
        assert pos is not None  # raw values come with their row positions
        sel = Selected(ctx, pos, vals)
    kk = last_rank_within(sel.first, sel.n, sel.group, cut_within_depth(ctx, k))
    inside = kk >= sel.first
    single = sel.n == 1
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(
            single, weight(sel.first), (cum_weight(kk) - cum_weight(sel.first - 1)) / sel.n
        )
    contrib = np.where(inside, sel.total * w, 0.0)
    return np.bincount(sel.group, weights=contrib, minlength=a.n_groups)


def count_weight(i):
    """Rank weight 1 (counts): with [`count_cum_weight`][irframe.measures.ties.count_cum_weight] for [`expected_weighted_sum`][irframe.measures.ties.expected_weighted_sum]."""
    return np.ones(np.shape(i))


def count_cum_weight(i):
    """Sum of the weight 1 over ranks 1..i."""
    return np.asarray(i, dtype=np.float64)


def rank_prefix(ctx, key, w):
    """Prefix sums of a rank weight over ranks 0..longest ranking (index 0 = 0)."""

    def build():
        n = int(ctx.aligned.group_len.max(initial=0))
        return np.concatenate([[0.0], np.cumsum(w(np.arange(1, n + 1, dtype=np.float64)))])

    return ctx.memo(("tie_prefix", key), build)


def log_comb(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n, k), -inf where k < 0 or k > n."""
    from scipy.special import gammaln

    ok = (k >= 0) & (k <= n)
    n_, k_ = np.where(ok, n, 0.0), np.where(ok, k, 0.0)
    return np.where(ok, gammaln(n_ + 1) - gammaln(k_ + 1) - gammaln(n_ - k_ + 1), -np.inf)


def first_relevant_tie(ctx, m):
    """Per ranking with a relevant document: the tie group of its first relevant document —
    (group, first rank f, size n, relevant count r)."""
    T = _arrays
    rows = T.rel_rows(ctx, T.measure_rel_level(ctx, m))
    has = rows.count > 0
    g = np.flatnonzero(has)
    first_pos = rows.pos[rows.offsets[:-1][has]]
    ties = ties_of(ctx)
    tie = ties.of_rows(first_pos)
    start, end = ties.starts[tie], ties.ends[tie]
    r = np.searchsorted(rows.pos, end) - np.searchsorted(rows.pos, start)
    return (
        g,
        ties.first_rank[tie].astype(np.float64),
        (end - start).astype(np.float64),
        r.astype(np.float64),
    )


def expected_values(ctx, m) -> np.ndarray:
    """The expected value of measure ``m`` over tie orders, one per group of ``ctx.aligned``
    (the ``expected=`` kernel its definition declares)."""
    return m.definition.expected(ctx, m)
