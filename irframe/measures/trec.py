"""trec_eval 9.0.8 standard measures, vectorised over all (system, topic) groups.

Conventions (trec_eval's ``form_res_rels``): grades are truncated toward zero as
trec_eval's ``atol`` does; a retrieved document is *relevant* when its grade is
``>= rel`` (the measure's ``rel=`` parameter, else the evaluation's ``rel_level``);
a document absent from the qrels is "not in pool" and a document judged with a
negative grade is "in pool but unjudged" (bpref and infAP treat the two
differently, every other measure treats both as non-relevant).  The recall base
(``num_rel``) counts judged documents with grade >= max(rel, 0) in the qrels.
A topic without relevant documents scores 0 on every measure (trec_eval's
convention), never NaN; an empty ranking (``complete=True``) scores 0, gm_map
log(1e-5).
"""

from __future__ import annotations

import numpy as np

from ..align import range_sum, segment_cumsum, segment_suffix_max, segment_sum
from .registry import (REQUIRED, EvalContext, Measure, MeasureDef, MeasureParamError, Param, register,
                       register_alias_pattern)

NONPOOL = -1.0     # retrieved, not in the qrels
UNJUDGED = -2.0    # retrieved, in the qrels with a negative grade
INFAP_EPSILON = 0.00001
GM_FLOOR = 0.00001


# ------------------------------------------------------------------ shared arrays
def _level(ctx: EvalContext, m: Measure) -> float:
    rel = m.param("rel")
    return ctx.options["rel_level"] if rel is None else rel


def _trec_rel(ctx: EvalContext) -> np.ndarray:
    """Per-row trec_eval relevance value: truncated grade, NONPOOL or UNJUDGED."""
    def build():
        r = ctx.aligned.row_rel
        t = np.trunc(r)
        t = np.where(np.isnan(r), NONPOOL, np.where(t < 0, UNJUDGED, t))
        return t + 0.0  # -0.0 -> 0.0
    return ctx.memo("trec_rel", build)


def _is_rel(ctx: EvalContext, level: float) -> np.ndarray:
    """Per row: relevant in trec_eval's sense, trunc(grade) >= level and >= 0 (unjudged: no).

    One comparison on the grades: for level > 0 that is grade >= ceil(level); otherwise it is
    trunc(grade) >= 0, i.e. grade > -1.
    """
    r = ctx.aligned.row_rel
    return ctx.memo(("is_rel", level), lambda: r >= np.ceil(level) if level > 0 else r > -1)


class _Rows:
    """Selected rows (e.g. the relevant ones) as a compact CSR over the groups."""

    def __init__(self, ctx: EvalContext, mask: np.ndarray):
        a = ctx.aligned
        self.pos = np.flatnonzero(mask)                      # row positions, in group order
        self.offsets = np.searchsorted(self.pos, a.offsets)  # per group, into pos
        self.count = np.diff(self.offsets)
        self.rank = self.pos - np.repeat(a.offsets[:-1], self.count) + 1
        self.index = np.arange(len(self.pos)) - np.repeat(self.offsets[:-1], self.count)  # 0-based
        self._starts = a.offsets[:-1]
        self._len = a.group_len

    def within(self, k) -> np.ndarray:
        """Selected rows among the top k of each group (k scalar, per-group array or None)."""
        if k is None:
            return self.count
        return np.searchsorted(self.pos, self._starts + np.minimum(self._len, k)) - self.offsets[:-1]

    def top_sum(self, values: np.ndarray, k) -> np.ndarray:
        """Per group, the sum of ``values`` (one per selected row) over the top k."""
        start = self.offsets[:-1]
        return range_sum(values, start, start + self.within(k))


def _rel_rows(ctx: EvalContext, level: float) -> _Rows:
    return ctx.memo(("rel_rows", level), lambda: _Rows(ctx, _is_rel(ctx, level)))


def num_rel_topic(ctx: EvalContext, level: float) -> np.ndarray:
    """trec_eval's recall base per topic: judged docs with truncated grade >= level (and >= 0)."""
    return _num_rel_topic(ctx, level)


def _num_rel_topic(ctx: EvalContext, level: float) -> np.ndarray:
    def build():
        a = ctx.aligned
        t = np.trunc(a.qrels_rel)
        ok = (t >= level) & (t >= 0)
        return np.bincount(a.qrels_topic, weights=ok, minlength=len(a.topics)).astype(np.int64)
    return ctx.memo(("num_rel_topic", level), build)


def _num_rel(ctx: EvalContext, level: float) -> np.ndarray:
    """num_rel per group."""
    return _num_rel_topic(ctx, level)[ctx.aligned.group_topic]


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _hits(ctx: EvalContext, level: float, k) -> np.ndarray:
    """Relevant documents in the top ``k`` of each group."""
    return _rel_rows(ctx, level).within(k).astype(np.float64)


def _num_ret(ctx, m):
    n = ctx.aligned.group_len.astype(np.float64)
    return n if m.cutoff is None else np.minimum(n, m.cutoff)


def _num_rel_k(ctx, m):
    return _num_rel(ctx, _level(ctx, m)).astype(np.float64)


def _num_rel_ret(ctx, m):
    return _hits(ctx, _level(ctx, m), m.cutoff)


def _prec_at_rel(ctx: EvalContext, level: float) -> np.ndarray:
    """Precision at each relevant row (one value per relevant row): AP's summands."""
    def build():
        rows = _rel_rows(ctx, level)
        return (rows.index + 1) / rows.rank
    return ctx.memo(("prec_at_rel", level), build)


def _ap(ctx, m):
    level = _level(ctx, m)
    total = _rel_rows(ctx, level).top_sum(_prec_at_rel(ctx, level), m.cutoff)
    return _safe_div(total, _num_rel(ctx, level))


def _gm_ap(ctx, m):
    return np.log(np.maximum(_ap(ctx, m), GM_FLOOR))


def _rprec(ctx, m):
    level = _level(ctx, m)
    nrel = _num_rel(ctx, level)
    mult = float(m.param("mult"))
    # Rprec_mult: precision at (long)(mult * R + 0.9) documents (trec_eval 9 and 10 alike)
    k = nrel if mult == 1.0 else np.floor(np.minimum(mult * nrel + 0.9, 2.0 ** 53)).astype(np.int64)
    return _safe_div(_hits(ctx, level, k), k)


def _rr(ctx, m):
    rows = _rel_rows(ctx, _level(ctx, m))
    first = np.where(rows.count > 0, rows.rank[np.minimum(rows.offsets[:-1], max(len(rows.rank) - 1, 0))]
                     if len(rows.rank) else 0, 0)
    ok = (first > 0) if m.cutoff is None else (first > 0) & (first <= m.cutoff)
    return _safe_div(ok, np.where(ok, first, 1))


def _precision(ctx, m):
    hits = _hits(ctx, _level(ctx, m), m.cutoff)
    if m.cutoff is None:  # set_P
        return _safe_div(hits, ctx.aligned.group_len)
    return hits / m.cutoff


def _recall(ctx, m):
    level = _level(ctx, m)
    return _safe_div(_hits(ctx, level, m.cutoff), _num_rel(ctx, level))


def _success(ctx, m):
    return (_hits(ctx, _level(ctx, m), m.cutoff) > 0).astype(np.float64)


def _judged(ctx, m):
    a = ctx.aligned
    rows = ctx.memo("judged_rows", lambda: _Rows(ctx, ~np.isnan(a.row_rel)))
    n = a.group_len if m.cutoff is None else np.minimum(a.group_len, m.cutoff)
    return _safe_div(rows.within(m.cutoff), n)


def _nonrel_so_far(ctx: EvalContext, level: float) -> np.ndarray:
    """Per row: judged non-relevant documents (0 <= grade < level) at or above it."""
    def build():
        tr = _trec_rel(ctx)
        return segment_cumsum(((tr >= 0) & (tr < level)).astype(np.int64), ctx.aligned.offsets)
    return ctx.memo(("nonrel_so_far", level), build)


def _bpref(ctx, m):
    level = _level(ctx, m)
    a = ctx.aligned
    rel = _is_rel(ctx, level)
    nonrel_so_far = _nonrel_so_far(ctx, level)
    nrel_t = _num_rel_topic(ctx, level)
    t = np.trunc(a.qrels_rel)
    n_nonrel_t = np.bincount(a.qrels_topic, weights=(t >= 0) & (t < level), minlength=len(a.topics))
    R = nrel_t[a.row_topic]
    N = n_nonrel_t[a.row_topic]
    denom = np.minimum(N, R)
    frac = np.where(nonrel_so_far > 0,
                    1.0 - _safe_div(np.minimum(nonrel_so_far, R), denom), 1.0)
    total = segment_sum(np.where(rel, frac, 0.0), a.offsets)
    return _safe_div(total, _num_rel(ctx, level))


def _infap(ctx, m):
    level = _level(ctx, m)
    a = ctx.aligned
    rel = _is_rel(ctx, level)
    unj = _trec_rel(ctx) == UNJUDGED
    rel_so_far = segment_cumsum(rel.astype(np.int64), a.offsets)
    nonrel_so_far = _nonrel_so_far(ctx, level)
    unj_so_far = segment_cumsum(unj.astype(np.int64), a.offsets)
    j = (a.row_rank - 1).astype(np.float64)
    r1 = rel_so_far - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (j + 1.0)
                + (j / (j + 1.0)) * ((r1 + nonrel_so_far + unj_so_far) / j)
                * ((r1 + INFAP_EPSILON) / (r1 + nonrel_so_far + 2 * INFAP_EPSILON)))
    term = np.where(j == 0, 1.0, term)
    total = segment_sum(np.where(rel, term, 0.0), a.offsets)
    return _safe_div(total, _num_rel(ctx, level))


def _gain_map(ctx: EvalContext) -> dict:
    gains = ctx.options.get("gains") or {}
    out = {}
    for k, v in gains.items():
        kf = float(k)
        if not kf.is_integer():
            raise MeasureParamError(f"gains= keys must be integer grades (trec_eval levels), got {k!r}")
        out[int(kf)] = float(v)
    return out


def _gain_rows(ctx: EvalContext) -> tuple[_Rows, np.ndarray]:
    """Rows with a non-zero nDCG gain (compact CSR) and their gains.

    Gain = truncated grade for judged documents (trec_eval), or ``gains[grade]`` when given;
    unjudged and negatively judged documents gain 0 unless ``gains`` maps their level.
    """
    def build():
        mapping = _gain_map(ctx)
        if not mapping:
            r = ctx.aligned.row_rel
            rows = _Rows(ctx, r >= 1)
            return rows, np.trunc(r[rows.pos])
        tr = _trec_rel(ctx)
        g = np.where(tr >= 0, tr, 0.0)
        for level, gain in mapping.items():
            g = np.where(tr == level, gain, g)
        rows = _Rows(ctx, g != 0)
        return rows, g[rows.pos]
    return ctx.memo("ndcg_gain_rows", build)


def _ideal_cum(ctx: EvalContext):
    """Per topic: cumulative ideal DCG over the positive gains, in CSR layout."""
    def build():
        a = ctx.aligned
        t = np.trunc(a.qrels_rel)
        judged = t >= 0
        g = np.where(judged, t, 0.0)
        for level, gain in _gain_map(ctx).items():
            g = np.where(judged & (t == level), gain, g)
        pos = g > 0
        topic = a.qrels_topic[pos]
        gains = g[pos]
        order = np.lexsort((-gains, topic))
        topic, gains = topic[order], gains[order]
        offs = np.searchsorted(topic, np.arange(len(a.topics) + 1))
        rank = np.arange(1, len(gains) + 1) - np.repeat(offs[:-1], np.diff(offs))
        disc = gains / np.log2(rank + 1.0)
        return offs, disc
    return ctx.memo("ndcg_ideal", build)


def _ndcg(ctx, m):
    a = ctx.aligned
    rows, gains = _gain_rows(ctx)
    contrib = ctx.memo("dcg_contrib", lambda: gains / np.log2(rows.rank + 1.0))
    dcg = rows.top_sum(contrib, m.cutoff)
    offs, disc = _ideal_cum(ctx)
    ends = offs[1:] if m.cutoff is None else offs[:-1] + np.minimum(np.diff(offs), m.cutoff)
    ideal = range_sum(disc, offs[:-1], ends)[a.group_topic]
    return np.where(ideal > 0, _safe_div(dcg, ideal), 0.0)


def _recall_cutoffs(ctx: EvalContext, fractions: np.ndarray, nrel: np.ndarray) -> np.ndarray:
    """Number of relevant docs for each recall fraction (G × F).

    trec_eval 9 uses (long)(x * R + 0.9); trec_eval 10 uses lround(x * R).
    """
    x = fractions[None, :] * nrel[:, None].astype(np.float64)
    if ctx.aligned.order == "trec_eval10":
        return np.floor(x + 0.5).astype(np.int64)  # lround for non-negative x
    return np.floor(x + 0.9).astype(np.int64)


def _iprec_matrix(ctx: EvalContext, level: float, fractions: tuple) -> np.ndarray:
    """Interpolated precision (G × F) at the given recall fractions, trec_eval style."""
    rows = _rel_rows(ctx, level)
    rel_offsets = rows.offsets
    best = segment_suffix_max(_prec_at_rel(ctx, level), rel_offsets)  # max precision at or below
    nrel = _num_rel(ctx, level)
    nrr = rows.count
    cut = _recall_cutoffs(ctx, np.asarray(fractions, dtype=np.float64), nrel)
    # cutoff c >= 1 -> value at the c-th relevant doc; c == 0 -> value at the first one
    c = np.maximum(cut, 1)
    ok = (cut <= nrr[:, None]) & (nrr[:, None] > 0)
    pos = rel_offsets[:-1, None] + c - 1
    pos = np.where(ok, pos, 0)
    vals = best[pos] if len(best) else np.zeros(pos.shape)
    return np.where(ok, vals, 0.0)


def _iprec(ctx, m):
    return _iprec_matrix(ctx, _level(ctx, m), (float(m.param("recall")),))[:, 0]


_ELEVEN = tuple(round(0.1 * i, 1) for i in range(11))


def _iprec_avg(ctx, m):
    return _iprec_matrix(ctx, _level(ctx, m), _ELEVEN).mean(axis=1)


# ------------------------------------------------------------------ registration
REL = Param("float", None, description="relevance threshold: relevant iff grade >= rel "
                                       "(default: the evaluation's rel_level)")
RECALL = Param("float", REQUIRED, low=0, high=1, description="recall level of the interpolated precision")
MULT = Param("float", 1.0, low=0, low_open=True, high=1000,
             description="precision at mult*R documents (trec_eval Rprec_mult)")


def _def(name, fn, desc, *, cutoff="optional", aggregate="mean", params=None, aliases=()):
    register(MeasureDef(name=name, compute=fn, params={"rel": REL, **(params or {})}, cutoff=cutoff,
                        aggregate=aggregate, description=desc, family="trec_eval"),
             aliases=aliases)


_def("AP", _ap, "average precision (trec_eval map; AP@k = map_cut_k)", aliases=("map", "MAP"))
_def("gm_map", _gm_ap, "AP stored per topic as log(max(AP, 1e-5)); summarised by the geometric mean",
     aggregate="gmean", cutoff="none", aliases=("GMAP", "gm_ap"))
_def("Rprec", _rprec, "precision at R = number of relevant documents (Rprec_mult: at mult*R)",
     cutoff="none", params={"mult": MULT}, aliases=("R-prec", "RPrec"))
_def("Bpref", _bpref, "binary preference (Buckley & Voorhees 2004), trec_eval bpref", cutoff="none",
     aliases=("bpref", "BPref"))
_def("infAP", _infap, "inferred AP (Yilmaz & Aslam), trec_eval infAP", cutoff="none")
_def("RR", _rr, "reciprocal rank of the first relevant document (trec_eval recip_rank)",
     aliases=("recip_rank", "MRR"))
_def("P", _precision, "precision at k (without @k: set_P = num_rel_ret / num_ret)", aliases=("set_P",))
_def("R", _recall, "recall at k (without @k: set_recall)", aliases=("set_recall", "Recall"))
_def("Success", _success, "1 if a relevant document is in the top k")
_def("nDCG", _ndcg, "normalised DCG, linear gains = grade (or gains=), log2 discount, trec_eval ndcg",
     params={}, aliases=("ndcg", "NDCG"))
_def("Judged", _judged, "fraction of the top k (or of the ranking) that is judged (ir_measures Judged)",
     params={})
_def("NumRet", _num_ret, "number of retrieved documents (summed over topics)", aggregate="sum",
     params={}, aliases=("num_ret",))
_def("NumRel", _num_rel_k, "number of relevant documents in the qrels (summed over topics)",
     aggregate="sum", cutoff="none", aliases=("num_rel",))
_def("NumRelRet", _num_rel_ret, "number of relevant documents retrieved (summed over topics)",
     aggregate="sum", aliases=("num_rel_ret",))
_def("IPrec", _iprec, "interpolated precision at a recall level (trec_eval iprec_at_recall)",
     cutoff="none", params={"recall": RECALL})
_def("IPrecAvg", _iprec_avg, "interpolated precision averaged over 11 recall points (11pt_avg)",
     cutoff="none", aliases=("11pt_avg", "11-pt_avg"))

register_alias_pattern(r"P_(\d+)", lambda m: f"P@{m.group(1)}")
register_alias_pattern(r"recall_(\d+)", lambda m: f"R@{m.group(1)}")
register_alias_pattern(r"ndcg_cut_(\d+)", lambda m: f"nDCG@{m.group(1)}")
register_alias_pattern(r"success_(\d+)", lambda m: f"Success@{m.group(1)}")
register_alias_pattern(r"map_cut_(\d+)", lambda m: f"AP@{m.group(1)}")
register_alias_pattern(r"iprec_at_recall_([0-9.]+)", lambda m: f"IPrec(recall={m.group(1)})")
register_alias_pattern(r"Rprec_mult_([0-9.]+)", lambda m: f"Rprec(mult={m.group(1)})")
