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

``depth=`` cuts every ranking *after* the tie-aware order ([cut_after_order][irframe.measures.ties.cut_after_order]), as it
does after trec_eval's order: a tie group the depth cuts shows its whole spread (best: its
highest grades above the cut; expected: the mean over which of its documents fall above).
With ``judged_only=True`` as well, trec_eval's -M-then--J cut stays in the alignment.

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
from dataclasses import dataclass, replace

import numpy as np

from ..align import Aligned
from ..errors import MeasureParamError
from . import cwl as _cwl_measures
from . import trec_arrays as _arrays

__all__ = [
    "TIE_ORDERS",
    "Ties",
    "check_tie_order",
    "cut_after_order",
    "expand_ranges",
    "expected_values",
    "order_ties",
    "tie_groups",
]

TIE_ORDERS = ("expected", "best", "worst")

# measures whose best/worst order is "grade descending/ascending inside every tie group"
_RANGE_OK = {
    "P",
    "R",
    "RR",
    "AP",
    "gm_map",
    "nDCG",
    "Success",
    "Rprec",
    "NumRelRet",
    "NumRet",
    "NumRel",
    "Bpref",
    "IPrec",
    "IPrecAvg",
    "RBP",
    "ERR",
}


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


def check_tie_order(specs, order: str, gains=None) -> None:
    """Raise for measures that have no exact computation for ``order`` ("expected", "best", "worst")."""
    for m in specs:
        builtin = m.definition.family in ("trec_eval", "cwl")
        if order == "expected":
            ok = builtin and m.name in _EXPECTED
        else:
            ok = builtin and m.name in _RANGE_OK
        if not ok:
            what = (
                "the expected value over tie orders has no exact efficient computation"
                if order == "expected"
                else "sorting tied documents by grade is not guaranteed to give its extreme values"
            )
            supported = sorted(_EXPECTED if order == "expected" else _RANGE_OK)
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
    return replace(
        aligned,
        row_doc=aligned.row_doc[perm],
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
    out = replace(
        aligned,
        offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        row_doc=aligned.row_doc[keep],
        row_rel=aligned.row_rel[keep],
        row_score=aligned.row_score[keep],
        source=src,
        depth=depth,
        extras={**aligned.extras, "tie_depth": depth} if order == "expected" else aligned.extras,
    )
    return out


def _cut(ctx, k):
    """The cutoff ``k`` (None, scalar or per group) within the depth of [cut_after_order][irframe.measures.ties.cut_after_order]."""
    d = ctx.aligned.extras.get("tie_depth")
    if d is None:
        return k
    return d if k is None else np.minimum(k, d)


def _retrieved(ctx) -> np.ndarray:
    """Documents retrieved per group after the depth cut."""
    a = ctx.aligned
    d = a.extras.get("tie_depth")
    return a.group_len if d is None else np.minimum(a.group_len, d)


def expand_ranges(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges ``starts[i] : starts[i] + counts[i]``: (range index, value) of every element."""
    which = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    first = np.concatenate([[0], np.cumsum(counts)])[:-1]
    return which, np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(first - starts, counts)


# ------------------------------------------------------------------------- expected values
# Every expected value is a sum over the tie groups that hold a selected row (a relevant
# one, one with a gain, a judged one): their count is at most the number of selected rows,
# so the cost follows the relevant rows, not the ranking length.
def _ties(ctx) -> Ties:
    return ctx.memo("tie_groups", lambda: tie_groups(ctx.aligned))


class _Selected:
    """The tie groups holding selected rows ``pos`` (sorted row positions) and the sum of
    ``vals`` over each: ``tie``, ``total``, ``n`` (size), ``first`` (rank), ``group``, and
    ``index`` — the position in ``pos`` of the group's first selected row."""

    @classmethod
    def relevant(cls, ctx, level: float) -> _Selected:
        """The tie groups holding relevant rows (memoised per level)."""

        def build():
            rows = _arrays.rel_rows(ctx, level)
            return cls(ctx, rows.pos, np.ones(len(rows.pos)))

        return ctx.memo(("tie_selected_rel", level), build)

    def __init__(self, ctx, pos: np.ndarray, vals: np.ndarray):
        ties = _ties(ctx)
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


def _kk(first: np.ndarray, n: np.ndarray, group: np.ndarray, k) -> np.ndarray:
    """Last rank of each tie group that lies within the cutoff ``k`` (scalar, per-group or None)."""
    last = first + n - 1
    if k is None:
        return last
    kk = np.asarray(k)
    return np.minimum(last, kk[group] if kk.ndim else kk)


def _tie_weighted(
    ctx, pos: np.ndarray | None, vals: np.ndarray | _Selected, k, weight, cum_weight
) -> np.ndarray:
    """Per group, E[sum over ranks <= k of weight(rank) · value(doc at rank)] over tie orders.

    Every position of a tie group of n documents whose values sum to X holds X/n on average:
    the group contributes X/n · (cum_weight(last) − cum_weight(first − 1)), last = its last
    rank within k (a one-document group: X · weight(first), exactly as the plain kernels).
    """
    a = ctx.aligned
    if isinstance(vals, _Selected):
        sel = vals
    else:
        assert pos is not None  # raw values come with their row positions
        sel = _Selected(ctx, pos, vals)
    kk = _kk(sel.first, sel.n, sel.group, _cut(ctx, k))
    inside = kk >= sel.first
    single = sel.n == 1
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(
            single, weight(sel.first), (cum_weight(kk) - cum_weight(sel.first - 1)) / sel.n
        )
    contrib = np.where(inside, sel.total * w, 0.0)
    return np.bincount(sel.group, weights=contrib, minlength=a.n_groups)


def _count_w(i):
    return np.ones(np.shape(i))


def _count_cum(i):
    return np.asarray(i, dtype=np.float64)


def _prefix(ctx, key, w):
    """Prefix sums of a rank weight over ranks 0..longest ranking (index 0 = 0)."""

    def build():
        n = int(ctx.aligned.group_len.max(initial=0))
        return np.concatenate([[0.0], np.cumsum(w(np.arange(1, n + 1, dtype=np.float64)))])

    return ctx.memo(("tie_prefix", key), build)


def _exp_hits(ctx, m, k=None):
    sel = _Selected.relevant(ctx, _arrays.measure_rel_level(ctx, m))
    return _tie_weighted(ctx, None, sel, m.cutoff if k is None else k, _count_w, _count_cum)


def _whole(ctx, m) -> bool:
    """A measure of the whole ranking (no cutoff, no depth cut inside a tie group)."""
    return m.cutoff is None and ctx.aligned.extras.get("tie_depth") is None


def _exp_p(ctx, m):
    if _whole(ctx, m):
        return m.definition.compute(ctx, m)
    if m.cutoff is None:  # precision of the ranking cut at depth
        return _arrays.safe_div(_exp_hits(ctx, m), _retrieved(ctx))
    return _exp_hits(ctx, m) / m.cutoff


def _exp_r(ctx, m):
    T = _arrays
    if _whole(ctx, m):
        return m.definition.compute(ctx, m)
    return T.safe_div(_exp_hits(ctx, m), T.num_rel(ctx, T.measure_rel_level(ctx, m)))


def _exp_num_rel_ret(ctx, m):
    return m.definition.compute(ctx, m) if _whole(ctx, m) else _exp_hits(ctx, m)


def _exp_num_ret(ctx, m):
    if _whole(ctx, m):
        return m.definition.compute(ctx, m)
    r = _retrieved(ctx)
    return r if m.cutoff is None else np.minimum(r, m.cutoff)


def _exp_rprec(ctx, m):
    T = _arrays
    nrel = T.num_rel(ctx, T.measure_rel_level(ctx, m))
    mult = m.param("mult")
    k = nrel if mult == 1.0 else np.floor(mult * nrel + 0.9).astype(np.int64)
    return T.safe_div(_exp_hits(ctx, m, k=k), k)


def _exp_judged(ctx, m):
    if _whole(ctx, m):
        return m.definition.compute(ctx, m)
    a = ctx.aligned
    pos = np.flatnonzero(~np.isnan(a.row_rel))
    e = _tie_weighted(ctx, pos, np.ones(len(pos)), m.cutoff, _count_w, _count_cum)
    r = _retrieved(ctx)
    return _arrays.safe_div(e, r if m.cutoff is None else np.minimum(r, m.cutoff))


def _same(ctx, m):
    return m.definition.compute(ctx, m)


def _log_comb(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n, k), -inf where k < 0 or k > n."""
    from scipy.special import gammaln

    ok = (k >= 0) & (k <= n)
    n_, k_ = np.where(ok, n, 0.0), np.where(ok, k, 0.0)
    return np.where(ok, gammaln(n_ + 1) - gammaln(k_ + 1) - gammaln(n_ - k_ + 1), -np.inf)


def _first_relevant_tie(ctx, m):
    """Per ranking with a relevant document: the tie group of its first relevant document —
    (group, first rank f, size n, relevant count r)."""
    T = _arrays
    rows = T.rel_rows(ctx, T.measure_rel_level(ctx, m))
    has = rows.count > 0
    g = np.flatnonzero(has)
    first_pos = rows.pos[rows.offsets[:-1][has]]
    ties = _ties(ctx)
    tie = ties.of_rows(first_pos)
    start, end = ties.starts[tie], ties.ends[tie]
    r = np.searchsorted(rows.pos, end) - np.searchsorted(rows.pos, start)
    return (
        g,
        ties.first_rank[tie].astype(np.float64),
        (end - start).astype(np.float64),
        r.astype(np.float64),
    )


def _exp_success(ctx, m):
    if _whole(ctx, m):
        return m.definition.compute(ctx, m)
    k = _cut(ctx, m.cutoff)
    g, f, n, r = _first_relevant_tie(ctx, m)
    # the group wholly inside the top k: success for sure; cut by k: c = k - f + 1 of its
    # n positions are inside and P(no relevant among them) = C(n - r, c) / C(n, c)
    c = np.clip(k - f + 1, 0, n)
    with np.errstate(invalid="ignore"):
        p_none = np.exp(_log_comb(n - r, c) - _log_comb(n, c))
    val = np.where(f + n - 1 <= k, 1.0, np.where(f <= k, 1.0 - p_none, 0.0))
    out = np.zeros(ctx.aligned.n_groups)
    out[g] = val
    return out


def _exp_rr(ctx, m):
    g, f, n, r = _first_relevant_tie(ctx, m)
    # the first relevant document is at position x of that group with probability
    # C(n - x, r - 1) / C(n, r), x = 1 .. n - r + 1
    span = (n - r + 1).astype(np.int64)
    cut = _cut(ctx, m.cutoff)
    if cut is not None:
        span = np.clip(np.minimum(span, cut - f.astype(np.int64) + 1), 0, None)
    which, x0 = expand_ranges(np.zeros(len(span), np.int64), span)
    x = x0 + 1.0
    nn, rr, ff = n[which], r[which], f[which]
    single = nn == 1
    px = np.where(single, 1.0, np.exp(_log_comb(nn - x, rr - 1) - _log_comb(nn, rr)))
    out = np.zeros(ctx.aligned.n_groups)
    out[g] = np.bincount(which, weights=px / (ff - 1 + x), minlength=len(g))
    return out


def _exp_ap(ctx, m):
    T = _arrays
    level = T.measure_rel_level(ctx, m)
    rows = T.rel_rows(ctx, level)
    sel = _Selected.relevant(ctx, level)
    f, n, r = sel.first.astype(np.float64), sel.n.astype(np.float64), sel.total
    before = (sel.index - rows.offsets[:-1][sel.group]).astype(
        np.float64
    )  # relevant docs in earlier groups
    # E[rel_i · #rel_{<=i}] at position p of the group: m(1 + B) + (p - 1) r(r-1)/(n(n-1)), m = r/n;
    # summed over p with weight 1/rank through harmonic numbers H
    kk = _kk(sel.first, sel.n, sel.group, _cut(ctx, m.cutoff)).astype(np.float64)
    inside = kk >= f
    H = _prefix(ctx, "harmonic", lambda i: 1.0 / i)
    kk_i = np.maximum(kk, f - 1).astype(np.int64)
    h = H[kk_i] - H[sel.first - 1]
    npos = np.maximum(kk - f + 1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        pair = np.where(n > 1, r * (r - 1) / (n * (n - 1)), 0.0)
        multi = (r / n) * (1.0 + before) * h + pair * (npos - f * h)
    term = np.where(n == 1, (1.0 + before) / f, multi)
    total = np.bincount(
        sel.group, weights=np.where(inside, term, 0.0), minlength=ctx.aligned.n_groups
    )
    return T.safe_div(total, T.num_rel(ctx, level))


def _exp_ndcg(ctx, m):
    T = _arrays
    rows, gains = T.gain_rows(ctx, m)
    disc = _prefix(ctx, "log2", lambda i: 1.0 / np.log2(i + 1.0))
    dcg = _tie_weighted(
        ctx, rows.pos, gains, m.cutoff, lambda i: 1.0 / np.log2(i + 1.0), lambda i: disc[i]
    )
    ideal = T.dcg_parts(ctx, m)[1]
    return np.where(ideal > 0, T.safe_div(dcg, ideal), 0.0)


def _exp_rbp(ctx, m):
    C = _cwl_measures
    a = ctx.aligned
    p = m.param("p")
    r = C.rbp_gains(a.row_rel, m.param("rel"))
    pos = np.flatnonzero(r)
    val = _tie_weighted(
        ctx,
        pos,
        r[pos],
        m.cutoff,
        lambda i: (1.0 - p) * np.power(p, i - 1.0),
        lambda i: 1.0 - np.power(p, i * 1.0),
    )
    return val + C.rbp_tail(ctx, m)


_EXPECTED = {
    "P": _exp_p,
    "R": _exp_r,
    "NumRelRet": _exp_num_rel_ret,
    "Rprec": _exp_rprec,
    "Judged": _exp_judged,
    "NumRet": _exp_num_ret,
    "NumRel": _same,
    "Success": _exp_success,
    "RR": _exp_rr,
    "AP": _exp_ap,
    "nDCG": _exp_ndcg,
    "RBP": _exp_rbp,
}


def expected_values(ctx, m) -> np.ndarray:
    """The expected value of measure ``m`` over tie orders, one per group of ``ctx.aligned``."""
    return _EXPECTED[m.name](ctx, m)
