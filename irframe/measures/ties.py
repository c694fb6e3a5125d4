"""Tie-aware evaluation: expected values over the orders of tied documents, and their range.

trec_eval sorts a ranking by score (as float32) and breaks ties by docno, descending — an
arbitrary order that can move a score a lot when a run has many equal scores.  Here a
*tie group* is a maximal run of consecutive documents of one ranking with equal float32
scores (trec_eval's notion of a tie).  With ``order=`` of :func:`irframe.evaluate`:

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

Measures without such a computation raise an error naming the measure.

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

from dataclasses import dataclass, replace

import numpy as np

from ..align import Aligned, range_sum, segment_cumsum, segment_sum
from ..errors import MeasureParamError
from . import cwl as _cwl_measures
from . import trec as _trec

__all__ = ["TIE_ORDERS", "Ties", "tie_groups", "order_ties", "expected_values", "check_tie_order"]

TIE_ORDERS = ("expected", "best", "worst")

# measures whose best/worst order is "grade descending/ascending inside every tie group"
_RANGE_OK = {"P", "R", "RR", "AP", "gm_map", "nDCG", "Success", "Rprec", "NumRelRet", "NumRet", "NumRel",
             "Bpref", "IPrec", "IPrecAvg", "RBP", "ERR"}


@dataclass(eq=False)
class Ties:
    """Tie groups of an aligned run (CSR over rows, in evaluation order).

    ``offsets`` (T + 1): rows of tie group j are ``offsets[j]:offsets[j+1]``; ``size`` (T);
    ``first_rank`` (T): rank of its first row; per row ``tie`` (group id) and ``pos``
    (1-based position inside its group).
    """

    offsets: np.ndarray
    size: np.ndarray
    first_rank: np.ndarray
    tie: np.ndarray
    pos: np.ndarray

    def mean(self, x: np.ndarray) -> np.ndarray:
        """Per row, the mean of ``x`` over the row's tie group."""
        return (segment_sum(x, self.offsets) / np.maximum(self.size, 1))[self.tie]

    def total(self, x: np.ndarray) -> np.ndarray:
        """Per row, the sum of ``x`` over the row's tie group."""
        return segment_sum(x, self.offsets)[self.tie]


def tie_groups(aligned: Aligned) -> Ties:
    """The tie groups of ``aligned``: consecutive rows of one ranking with equal ``row_score``.

    With trec_eval's order ``row_score`` holds the float32 scores, so equal float32 scores
    tie.  Without scores (NaN) every row is its own group.

    >>> import pandas as pd
    >>> from irframe.align import align
    >>> run = pd.DataFrame({"system": "s", "topic": "1", "doc": list("abcd"), "score": [2., 1, 1, 1]})
    >>> t = tie_groups(align(run, pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})))
    >>> t.size.tolist(), t.pos.tolist()
    ([1, 3], [1, 1, 2, 3])
    """
    a = aligned
    n = a.n_rows
    s = a.row_score
    new = np.ones(n, bool)
    if n > 1:
        new[1:] = s[1:] != s[:-1]          # NaN != NaN: unscored rows never tie
    new[a.offsets[:-1][a.group_len > 0]] = True
    starts = np.flatnonzero(new)
    offsets = np.append(starts, n).astype(np.int64)
    size = np.diff(offsets)
    tie = np.repeat(np.arange(len(size), dtype=np.int64), size)
    pos = np.arange(1, n + 1, dtype=np.int64) - np.repeat(starts, size)
    return Ties(offsets, size, a.row_rank[starts] if n else np.zeros(0, np.int64), tie, pos)


def check_tie_order(specs, order: str, aligned: Aligned, gains=None) -> None:
    """Raise for measures that have no exact computation for ``order`` ("expected", "best", "worst")."""
    for m in specs:
        builtin = m.definition.family in ("trec_eval", "cwl")
        if order == "expected":
            ok = builtin and m.name in _EXPECTED
        else:
            ok = builtin and m.name in _RANGE_OK
        if not ok:
            what = ("the expected value over tie orders has no exact efficient computation"
                    if order == "expected" else
                    "sorting tied documents by grade is not guaranteed to give its extreme values")
            supported = sorted(_EXPECTED if order == "expected" else _RANGE_OK)
            raise MeasureParamError(f"order={order!r} is not available for measure {m.label!r}: {what}. "
                                    f"Supported: {', '.join(supported)}; use order='trec_eval' for the others")
    if order != "expected" and gains:
        g = sorted((float(k), float(v)) for k, v in gains.items())
        vals = [v for _, v in g]
        if any(b < a for a, b in zip(vals, vals[1:])) or (vals and vals[0] < 0):
            raise MeasureParamError(f"order={order!r} sorts tied documents by grade, which is exact only when "
                                    f"gains= is non-negative and non-decreasing in the grade; got {dict(gains)}")


def order_ties(aligned: Aligned, order: str) -> Aligned:
    """A copy of ``aligned`` with every tie group sorted by grade: descending for ``"best"``,
    ascending for ``"worst"``; unjudged documents count as the lowest grade.

    Stable: documents of equal grade keep trec_eval's order.
    """
    ties = tie_groups(aligned)
    key = np.where(np.isnan(aligned.row_rel), -np.inf, aligned.row_rel)
    perm = np.lexsort((-key if order == "best" else key, ties.tie))
    if np.array_equal(perm, np.arange(len(perm))):
        return aligned
    return replace(aligned, row_doc=aligned.row_doc[perm], row_rel=aligned.row_rel[perm],
                   row_source=aligned.row_source[perm])


# ------------------------------------------------------------------------- expected values
def _ties(ctx) -> Ties:
    return ctx.memo("tie_groups", lambda: tie_groups(ctx.aligned))


def _cut_rows(ctx, k) -> np.ndarray | None:
    """Per row: whether its rank is within the cutoff ``k`` (scalar, per-group array or None)."""
    a = ctx.aligned
    if k is None:
        return None
    kk = np.asarray(k)
    return a.row_rank <= (kk[a.row_group] if kk.ndim else kk)


def _expected_sum(ctx, x: np.ndarray, k, weight: np.ndarray | None = None) -> np.ndarray:
    """Per group, E[sum over ranks <= k of weight(rank) * x(doc at rank)] over tie orders."""
    v = _ties(ctx).mean(x.astype(np.float64))
    if weight is not None:
        v = v * weight
    cut = _cut_rows(ctx, k)
    if cut is not None:
        v = np.where(cut, v, 0.0)
    return segment_sum(v, ctx.aligned.offsets)


def _t():
    return _trec


def _exp_hits(ctx, m, k=None):
    T = _t()
    level = T._level(ctx, m)
    return _expected_sum(ctx, T._is_rel(ctx, level), m.cutoff if k is None else k)


def _exp_p(ctx, m):
    if m.cutoff is None:
        return m.definition.compute(ctx, m)
    return _exp_hits(ctx, m) / m.cutoff


def _exp_r(ctx, m):
    T = _t()
    if m.cutoff is None:
        return m.definition.compute(ctx, m)
    return T._safe_div(_exp_hits(ctx, m), T._num_rel(ctx, T._level(ctx, m)))


def _exp_num_rel_ret(ctx, m):
    return m.definition.compute(ctx, m) if m.cutoff is None else _exp_hits(ctx, m)


def _exp_rprec(ctx, m):
    T = _t()
    nrel = T._num_rel(ctx, T._level(ctx, m))
    mult = m.param("mult")
    k = nrel if mult == 1.0 else np.floor(mult * nrel + 0.9).astype(np.int64)
    return T._safe_div(_exp_hits(ctx, m, k=k), k)


def _exp_judged(ctx, m):
    if m.cutoff is None:
        return m.definition.compute(ctx, m)
    a = ctx.aligned
    return _t()._safe_div(_expected_sum(ctx, ~np.isnan(a.row_rel), m.cutoff), np.minimum(a.group_len, m.cutoff))


def _same(ctx, m):
    return m.definition.compute(ctx, m)


def _log_comb(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n, k), -inf where k < 0 or k > n."""
    from scipy.special import gammaln
    ok = (k >= 0) & (k <= n)
    n_, k_ = np.where(ok, n, 0.0), np.where(ok, k, 0.0)
    return np.where(ok, gammaln(n_ + 1) - gammaln(k_ + 1) - gammaln(n_ - k_ + 1), -np.inf)


def _exp_success(ctx, m):
    T = _t()
    if m.cutoff is None:
        return m.definition.compute(ctx, m)
    a, ties = ctx.aligned, _ties(ctx)
    rel = T._is_rel(ctx, T._level(ctx, m)).astype(np.float64)
    k = m.cutoff
    last = ties.first_rank + ties.size - 1
    r = segment_sum(rel, ties.offsets)
    tie_group = a.row_group[ties.offsets[:-1]] if a.n_rows else np.zeros(0, np.int64)
    # relevant documents in tie groups wholly inside the top k: success for sure
    sure = np.bincount(tie_group, weights=np.where(last <= k, r, 0.0), minlength=a.n_groups) > 0
    # the tie group cut by k: c = k - first + 1 of its n positions are inside;
    # P(no relevant among them) = C(n - r, c) / C(n, c)
    cut = (ties.first_rank <= k) & (last > k)
    n, c = ties.size[cut].astype(np.float64), (k - ties.first_rank[cut] + 1).astype(np.float64)
    p_none_cut = np.exp(_log_comb(n - r[cut], c) - _log_comb(n, c))
    p_some = np.zeros(a.n_groups)
    p_some[tie_group[cut]] = 1.0 - p_none_cut
    return np.where(sure, 1.0, p_some)


def _exp_rr(ctx, m):
    T = _t()
    a, ties = ctx.aligned, _ties(ctx)
    rel = T._is_rel(ctx, T._level(ctx, m)).astype(np.float64)
    r = ties.total(rel)
    has = r > 0
    # a row is in the first tie group holding a relevant document when that group is the
    # first one counted in its ranking
    counted = segment_cumsum((has & (ties.pos == 1)).astype(np.int64), a.offsets)
    first = has & (counted == 1)
    n = ties.size[ties.tie][first].astype(np.float64)
    x = ties.pos[first].astype(np.float64)
    # P(first relevant at position x of the group) = C(n - x, r - 1) / C(n, r)
    px = np.exp(_log_comb(n - x, r[first] - 1) - _log_comb(n, r[first]))
    rank = a.row_rank[first]
    contrib = px / rank
    if m.cutoff is not None:
        contrib = np.where(rank <= m.cutoff, contrib, 0.0)
    return np.bincount(a.row_group[first], weights=contrib, minlength=a.n_groups)


def _exp_ap(ctx, m):
    T = _t()
    a, ties = ctx.aligned, _ties(ctx)
    level = T._level(ctx, m)
    rel = T._is_rel(ctx, level).astype(np.float64)
    n = ties.size[ties.tie].astype(np.float64)
    r = ties.total(rel)
    mt = r / n
    # relevant documents in the earlier tie groups of the ranking (exact counts)
    cum = segment_cumsum(rel.astype(np.int64), a.offsets)            # inclusive running count
    before = (cum - rel)[ties.offsets[:-1]][ties.tie]
    p = ties.pos.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        pair = np.where(n > 1, r * (r - 1) / (n * (n - 1)), 0.0)
    term = (mt * (1.0 + before) + (p - 1.0) * pair) / a.row_rank
    if m.cutoff is not None:
        term = np.where(a.row_rank <= m.cutoff, term, 0.0)
    return T._safe_div(segment_sum(term, a.offsets), T._num_rel(ctx, level))


def _exp_ndcg(ctx, m):
    T = _t()
    a = ctx.aligned
    rows, gains = T._gain_rows(ctx)
    g = np.zeros(a.n_rows)
    g[rows.pos] = gains
    dcg = _expected_sum(ctx, g, m.cutoff, weight=1.0 / np.log2(a.row_rank + 1.0))
    offs, disc = T._ideal_cum(ctx)
    ends = offs[1:] if m.cutoff is None else offs[:-1] + np.minimum(np.diff(offs), m.cutoff)
    ideal = range_sum(disc, offs[:-1], ends)[a.group_topic]
    return np.where(ideal > 0, T._safe_div(dcg, ideal), 0.0)


def _exp_rbp(ctx, m):
    C = _cwl_measures
    a = ctx.aligned
    p = m.param("p")
    r = C.rbp_gains(a.row_rel, m.param("rel"))
    w = (1.0 - p) * np.power(p, (a.row_rank - 1).astype(np.float64))
    return _expected_sum(ctx, r, m.cutoff, weight=w) + C.rbp_tail(ctx, m)


_EXPECTED = {"P": _exp_p, "R": _exp_r, "NumRelRet": _exp_num_rel_ret, "Rprec": _exp_rprec, "Judged": _exp_judged,
             "NumRet": _same, "NumRel": _same, "Success": _exp_success, "RR": _exp_rr, "AP": _exp_ap,
             "nDCG": _exp_ndcg, "RBP": _exp_rbp}


def expected_values(ctx, m) -> np.ndarray:
    """The expected value of measure ``m`` over tie orders, one per group of ``ctx.aligned``."""
    return _EXPECTED[m.name](ctx, m)
