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

import itertools
import math
import re

import numpy as np

from ..align import segment_cumsum, segment_suffix_max, segment_sum
from ..params import REL
from . import ties
from . import trec_arrays as ta
from .registry import (
    REQUIRED,
    EvalContext,
    Measure,
    MeasureDef,
    MeasureParamError,
    Param,
    parse_measure,
    register,
    register_alias_pattern,
)
from .trec_arrays import UNJUDGED, num_rel_topic  # noqa: F401  (num_rel_topic: public here too)

INFAP_EPSILON = 0.00001
GM_FLOOR = 0.00001


# ------------------------------------------------------------------ standard measures
# (the shared arrays -- relevance per row, relevant-row CSR, recall base, gains -- are in trec_arrays)
def _num_ret(ctx, m):
    n = ctx.aligned.group_len.astype(np.float64)
    return n if m.cutoff is None else np.minimum(n, m.cutoff)


def _num_rel_k(ctx, m):
    return ta.num_rel(ctx, ta.measure_rel_level(ctx, m)).astype(np.float64)


def _num_rel_ret(ctx, m):
    return ta.hits(ctx, ta.measure_rel_level(ctx, m), m.cutoff)


def _ap(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    rows = ta.rel_rows(ctx, level)
    total = ta.cum_at(ta.ap_cum(ctx, level), rows.offsets[:-1], rows.within(m.cutoff))
    return ta.safe_div(total, ta.num_rel(ctx, level))


def _gm_ap(ctx, m):
    return np.log(np.maximum(_ap(ctx, m), GM_FLOOR))


def _rprec(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    nrel = ta.num_rel(ctx, level)
    mult = float(m.param("mult"))
    # Rprec_mult: precision at (long)(mult * R + 0.9) documents (trec_eval 9 and 10 alike)
    k = nrel if mult == 1.0 else np.floor(np.minimum(mult * nrel + 0.9, 2.0**53)).astype(np.int64)
    return ta.safe_div(ta.hits(ctx, level, k), k)


def _rr(ctx, m):
    rows = ta.rel_rows(ctx, ta.measure_rel_level(ctx, m))
    first = np.where(
        rows.count > 0,
        rows.rank[np.minimum(rows.offsets[:-1], max(len(rows.rank) - 1, 0))]
        if len(rows.rank)
        else 0,
        0,
    )
    ok = (first > 0) if m.cutoff is None else (first > 0) & (first <= m.cutoff)
    return ta.safe_div(ok, np.where(ok, first, 1))


def _precision(ctx, m):
    hits = ta.hits(ctx, ta.measure_rel_level(ctx, m), m.cutoff)
    if m.cutoff is None:  # set_P
        return ta.safe_div(hits, ctx.aligned.group_len)
    return hits / m.cutoff


def _recall(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    return ta.safe_div(ta.hits(ctx, level, m.cutoff), ta.num_rel(ctx, level))


def _success(ctx, m):
    return (ta.hits(ctx, ta.measure_rel_level(ctx, m), m.cutoff) > 0).astype(np.float64)


def _judged(ctx, m):
    a = ctx.aligned
    rows = ctx.memo("judged_rows", lambda: ta.Rows(ctx, ~np.isnan(a.row_rel)))
    n = a.group_len if m.cutoff is None else np.minimum(a.group_len, m.cutoff)
    return ta.safe_div(rows.within(m.cutoff), n)


def _nonrel_so_far(ctx: EvalContext, level: float) -> np.ndarray:
    """Per relevant row (``rel_rows``): judged non-relevant documents (0 <= grade < level) at
    or above it."""

    def build():
        tr = ta.trec_rel(ctx)
        return ta.rel_rows(ctx, level).at_or_above((tr >= 0) & (tr < level))

    return ctx.memo(("nonrel_so_far", level), build)


def _bpref(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    a = ctx.aligned
    rows = ta.rel_rows(ctx, level)  # only relevant rows add to the sum: computed on them alone
    nonrel_so_far = _nonrel_so_far(ctx, level)
    topic = np.repeat(a.group_topic, rows.count)
    t = np.trunc(a.qrels_rel)
    n_nonrel_t = np.bincount(a.qrels_topic, weights=(t >= 0) & (t < level), minlength=len(a.topics))
    R = ta.num_rel_topic(ctx, level)[topic]
    denom = np.minimum(n_nonrel_t[topic], R)
    frac = np.where(nonrel_so_far > 0, 1.0 - ta.safe_div(np.minimum(nonrel_so_far, R), denom), 1.0)
    total = ta.seq_group_sum(frac, rows.offsets)  # left to right, as trec_eval
    return ta.safe_div(total, ta.num_rel(ctx, level))


def _infap(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    rows = ta.rel_rows(ctx, level)  # only relevant rows add to the sum: computed on them alone
    unj = ta.trec_rel(ctx) == UNJUDGED
    nonrel_so_far = _nonrel_so_far(ctx, level)
    unj_so_far = rows.at_or_above(unj)
    j = (rows.rank - 1).astype(np.float64)
    r1 = rows.index  # relevant rows above this one
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r1 + nonrel_so_far + unj_so_far) / j) * (
            (r1 + INFAP_EPSILON) / (r1 + nonrel_so_far + 2 * INFAP_EPSILON)
        )
    term = np.where(j == 0, 1.0, term)
    total = ta.seq_group_sum(term, rows.offsets)  # left to right, as trec_eval
    return ta.safe_div(total, ta.num_rel(ctx, level))


def _ndcg(ctx, m):
    dcg, ideal = ta.dcg_parts(ctx, m)
    return np.where(ideal > 0, ta.safe_div(dcg, ideal), 0.0)


def _dcg(ctx, m):
    return ta.dcg_parts(ctx, m)[0]


def _ideal_dcg(ctx, m):
    return ta.dcg_parts(ctx, m)[1]


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
    rows = ta.rel_rows(ctx, level)
    rel_offsets = rows.offsets
    best = ctx.memo(
        ("iprec_best", level),  # max precision at or below; shared by every recall
        lambda: segment_suffix_max(ta.prec_at_rel(ctx, level), rel_offsets),
    )
    nrel = ta.num_rel(ctx, level)
    nrr = rows.count
    cut = _recall_cutoffs(ctx, np.asarray(fractions, dtype=np.float64), nrel)
    # cutoff c >= 1 -> value at the c-th relevant doc; c == 0 -> value at the first one
    c = np.maximum(cut, 1)
    ok = (cut <= nrr[:, None]) & (nrr[:, None] > 0)
    pos = rel_offsets[:-1, None] + c - 1
    pos = np.where(ok, pos, 0)
    vals = best[pos] if len(best) else np.zeros(pos.shape)
    return np.where(ok, vals, 0.0)


def iprec_zero_by_zero(aligned, measure: str, rel_level: float) -> np.ndarray | None:
    """Groups where trec_eval's ``iprec_at_recall``/``11pt_avg`` value is C's 0.0/0.0
    (printed ``-nan``), as a bool per group; None when there is none.

    trec_eval starts the interpolation from the precision at the last rank, num_rel_ret /
    num_ret, which is 0/0 when -J (``judged_only``) leaves a retrieved topic without a
    document, or 10.0's -c stand-in ranking (one unjudged document) without it; the recall
    levels whose cutoff (in relevant documents) is 0 keep that value, and ``11pt_avg`` sums
    them.  irframe's cube keeps 0.0 there (NaN in a cube means *not evaluated*); the
    trec_eval printer writes ``-nan``.  ``measure`` is an ``IPrec``/``IPrecAvg`` string.

    >>> import irframe as irf
    >>> from irframe.align import align
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> unjudged = runs.assign(doc="not-judged-" + runs.doc.astype(str))
    >>> iprec_zero_by_zero(align(unjudged, qrels, judged_only=True), "IPrec(recall=0.0)", 1)
    array([ True,  True,  True])
    """
    a = aligned
    if not a.judged_only:
        return None
    empty = a.group_len == 0
    computed = _computed_by_trec_eval(a)
    if computed is not None:
        empty &= computed
    if not empty.any():
        return None
    m = parse_measure(measure)
    if m.name == "IPrec":
        fractions: tuple = (float(m.param("recall")),)
    elif m.name == "IPrecAvg":
        fractions = _ELEVEN if m.param("recalls") is None else m.param("recalls")
    else:
        return None
    ctx = EvalContext(a, {"rel_level": rel_level})
    level = ta.measure_rel_level(ctx, m)
    cut = _recall_cutoffs(ctx, np.asarray(fractions, dtype=np.float64), ta.num_rel(ctx, level))
    out = empty & (cut == 0).any(axis=1)
    return out if out.any() else None


def rndcg_zero_by_zero(aligned, measure: str, rel_level: float) -> np.ndarray | None:
    """Groups where trec_eval's ``Rndcg`` is C's 0.0/0.0 (printed ``-nan``), as a bool per
    group; None when there is none.

    trec_eval averages nDCG over the points where the ideal gain changes after a positive
    ideal DCG; a topic with relevant documents (``num_rel`` > 0 at ``-l``) whose ideal ranking
    is empty has no such point and divides 0 by 0: with ``-l 0`` a topic judged only 0, or
    custom gains without a positive gain for the topic's grades.  The cube keeps 0.0 there.

    >>> import pandas as pd
    >>> from irframe.align import align
    >>> qrels = pd.DataFrame({"topic": ["1", "1"], "doc": ["a", "b"], "rel": [0, 0]})
    >>> run = pd.DataFrame({"topic": ["1"], "doc": ["a"], "score": [1.0]})
    >>> rndcg_zero_by_zero(align(run, qrels), "Rndcg", 0)
    array([ True])
    """
    m = parse_measure(measure)
    if m.name != "Rndcg":
        return None
    a = aligned
    ctx = EvalContext(a, {"rel_level": rel_level})
    offs, _ = ta.ideal_gains(ctx, m)
    out = (ta.num_rel(ctx, ta.measure_rel_level(ctx, m)) > 0) & (np.diff(offs)[a.group_topic] == 0)
    computed = _computed_by_trec_eval(a)
    if computed is not None:
        out &= computed
    return out if out.any() else None


def _computed_by_trec_eval(a) -> np.ndarray | None:
    """Groups trec_eval computes a value for (None: every group): under 9.0.8's -c a topic
    the run lacks is not evaluated (it adds 0 to the averages); 10.0 evaluates it with its
    stand-in ranking.  Without -J an empty group is one the run lacks; with -J,
    ``group_retrieved`` tells them apart from rankings -J emptied."""
    if not a.complete or a.order == "trec_eval10":
        return None
    return a.group_retrieved if a.group_retrieved is not None else a.group_len > 0


def _iprec(ctx, m):
    return _iprec_matrix(ctx, ta.measure_rel_level(ctx, m), (float(m.param("recall")),))[:, 0]


_ELEVEN = tuple(round(0.1 * i, 1) for i in range(11))


def _iprec_avg(ctx, m):
    recalls = _ELEVEN if m.param("recalls") is None else m.param("recalls")
    mat = _iprec_matrix(ctx, ta.measure_rel_level(ctx, m), recalls)
    total = np.zeros(len(mat))
    for j in range(mat.shape[1] - 1, -1, -1):  # trec_eval adds from the highest recall down
        total = total + mat[:, j]
    return total / mat.shape[1]


# ------------------------------------------------------------------ expected values over tie orders
# order="expected" (irframe.measures.ties): the mean over every order of the tied documents,
# in closed form (McSherry & Najork, ECIR 2008); declared by each definition's expected=.
def _exp_hits(ctx, m, k=None):
    sel = ties.Selected.relevant(ctx, ta.measure_rel_level(ctx, m))
    return ties.expected_weighted_sum(
        ctx, None, sel, m.cutoff if k is None else k, ties.count_weight, ties.count_cum_weight
    )


def _exp_p(ctx, m):
    if ties.whole_ranking(ctx, m):
        return m.definition.compute(ctx, m)
    if m.cutoff is None:  # precision of the ranking cut at depth
        return ta.safe_div(_exp_hits(ctx, m), ties.retrieved_within_depth(ctx))
    return _exp_hits(ctx, m) / m.cutoff


def _exp_r(ctx, m):
    if ties.whole_ranking(ctx, m):
        return m.definition.compute(ctx, m)
    return ta.safe_div(_exp_hits(ctx, m), ta.num_rel(ctx, ta.measure_rel_level(ctx, m)))


def _exp_num_rel_ret(ctx, m):
    return m.definition.compute(ctx, m) if ties.whole_ranking(ctx, m) else _exp_hits(ctx, m)


def _exp_num_ret(ctx, m):
    if ties.whole_ranking(ctx, m):
        return m.definition.compute(ctx, m)
    r = ties.retrieved_within_depth(ctx)
    return r if m.cutoff is None else np.minimum(r, m.cutoff)


def _exp_rprec(ctx, m):
    nrel = ta.num_rel(ctx, ta.measure_rel_level(ctx, m))
    mult = m.param("mult")
    k = nrel if mult == 1.0 else np.floor(mult * nrel + 0.9).astype(np.int64)
    return ta.safe_div(_exp_hits(ctx, m, k=k), k)


def _exp_judged(ctx, m):
    if ties.whole_ranking(ctx, m):
        return m.definition.compute(ctx, m)
    a = ctx.aligned
    pos = np.flatnonzero(~np.isnan(a.row_rel))
    e = ties.expected_weighted_sum(
        ctx, pos, np.ones(len(pos)), m.cutoff, ties.count_weight, ties.count_cum_weight
    )
    r = ties.retrieved_within_depth(ctx)
    return ta.safe_div(e, r if m.cutoff is None else np.minimum(r, m.cutoff))


def _order_free(ctx, m):
    """A value that no order of the ranking changes (NumRel)."""
    return m.definition.compute(ctx, m)


def _exp_success(ctx, m):
    if ties.whole_ranking(ctx, m):
        return m.definition.compute(ctx, m)
    k = ties.cut_within_depth(ctx, m.cutoff)
    g, f, n, r = ties.first_relevant_tie(ctx, m)
    # the group wholly inside the top k: success for sure; cut by k: c = k - f + 1 of its
    # n positions are inside and P(no relevant among them) = C(n - r, c) / C(n, c)
    c = np.clip(k - f + 1, 0, n)
    with np.errstate(invalid="ignore"):
        p_none = np.exp(ties.log_comb(n - r, c) - ties.log_comb(n, c))
    val = np.where(f + n - 1 <= k, 1.0, np.where(f <= k, 1.0 - p_none, 0.0))
    out = np.zeros(ctx.aligned.n_groups)
    out[g] = val
    return out


def _exp_rr(ctx, m):
    g, f, n, r = ties.first_relevant_tie(ctx, m)
    # the first relevant document is at position x of that group with probability
    # C(n - x, r - 1) / C(n, r), x = 1 .. n - r + 1
    span = (n - r + 1).astype(np.int64)
    cut = ties.cut_within_depth(ctx, m.cutoff)
    if cut is not None:
        span = np.clip(np.minimum(span, cut - f.astype(np.int64) + 1), 0, None)
    which, x0 = ties.expand_ranges(np.zeros(len(span), np.int64), span)
    x = x0 + 1.0
    nn, rr, ff = n[which], r[which], f[which]
    single = nn == 1
    px = np.where(single, 1.0, np.exp(ties.log_comb(nn - x, rr - 1) - ties.log_comb(nn, rr)))
    out = np.zeros(ctx.aligned.n_groups)
    out[g] = np.bincount(which, weights=px / (ff - 1 + x), minlength=len(g))
    return out


def _exp_ap(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    rows = ta.rel_rows(ctx, level)
    sel = ties.Selected.relevant(ctx, level)
    f, n, r = sel.first.astype(np.float64), sel.n.astype(np.float64), sel.total
    before = (sel.index - rows.offsets[:-1][sel.group]).astype(
        np.float64
    )  # relevant docs in earlier groups
    # E[rel_i · #rel_{<=i}] at position p of the group: m(1 + B) + (p - 1) r(r-1)/(n(n-1)), m = r/n;
    # summed over p with weight 1/rank through harmonic numbers H
    kk = ties.last_rank_within(
        sel.first, sel.n, sel.group, ties.cut_within_depth(ctx, m.cutoff)
    ).astype(np.float64)
    inside = kk >= f
    H = ties.rank_prefix(ctx, "harmonic", lambda i: 1.0 / i)
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
    return ta.safe_div(total, ta.num_rel(ctx, level))


def _exp_ndcg(ctx, m):
    rows, gains = ta.gain_rows(ctx, m)
    disc = ties.rank_prefix(ctx, "log2", lambda i: 1.0 / np.log2(i + 1.0))
    dcg = ties.expected_weighted_sum(
        ctx, rows.pos, gains, m.cutoff, lambda i: 1.0 / np.log2(i + 1.0), lambda i: disc[i]
    )
    ideal = ta.dcg_parts(ctx, m)[1]
    return np.where(ideal > 0, ta.safe_div(dcg, ideal), 0.0)


# ------------------------------------------------------------------ registration
RECALL = Param(
    "float", REQUIRED, low=0, high=1, description="recall level of the interpolated precision"
)
MULT = Param(
    "float",
    1.0,
    low=0,
    low_open=True,
    high=1000,
    description="precision at mult*R documents (trec_eval Rprec_mult)",
)


def _floats(value, what: str) -> tuple:
    """A tuple of floats from a number, a sequence or a text such as ``"0.25 0.5"``."""
    if isinstance(value, (int, float)):
        return (float(value),)
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    try:
        out = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be numbers, got {value!r}") from None
    if not out:
        raise ValueError(f"{what} must not be empty")
    return out


def _check_gain_text(text: str) -> str:
    """``level=gain,...`` (trec_eval's custom gains / rbp parameters); returned unchanged."""
    if not text:
        return text
    from .trec_eval_syntax import c_atof

    for item in text.split(","):
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise ValueError(f"expected level=gain pairs such as '1=3,2=9', got {text!r}")
        if re.fullmatch(r"[+-]?\d+", name) and not math.isfinite(c_atof(value)):
            raise ValueError(
                f"the gain of level {name} is {value!r}, not a finite number (trec_eval "
                "prints inf or nan for the topics holding that level); give a finite gain"
            )
    return text


DCG_FORM = Param(
    "str",
    "log2",
    choices=("log2", "exp-log2"),
    description="gain = grade (log2) or 2^grade - 1 (exp-log2, ir_measures/gdeval/ranx burges)",
)
RECALLS = Param(
    "str",
    None,
    check_fn=lambda v: _floats(v, "recalls"),
    description="recall levels to average (trec_eval 11pt_avg.0.25,0.5); default the 11 points",
)
GAINS = Param(
    "str",
    None,
    check_fn=_check_gain_text,
    description="trec_eval custom gains 'level=gain,...' (e.g. '1=3,2=9'); default gain = grade",
)
JUDGED_ONLY = Param(
    "bool",
    False,
    description="evaluate on the judged documents only, unjudged ones removed "
    "first (ir_measures judged_only=, trec_eval -J); needs evaluate()",
)


TREC_EVAL = "trec_eval 9.0.8 (data/trec_eval_test, TREC 2003 Robust runs); pytrec_eval"
TREC_BOOK = (
    "Voorhees & Harman 2005, TREC: Experiment and Evaluation in Information Retrieval, MIT Press"
)


def _def(
    name,
    fn,
    desc,
    *,
    cutoff="optional",
    aggregate="mean",
    params=None,
    aliases=(),
    rel=True,
    bounds="approximate",
    reference=TREC_EVAL,
    **capabilities,
):
    """Register a trec_eval-family measure; ``rel=False``: one that no relevance threshold
    changes (its ``rel=`` would be accepted and ignored).  Every trec_eval measure reads its
    own ranking and its topic's qrels only (topic- and system-local); ``capabilities`` are
    the other [`MeasureDef`][irframe.MeasureDef] fields it declares."""
    shared = {"rel": REL, "judged_only": JUDGED_ONLY} if rel else {"judged_only": JUDGED_ONLY}
    register(
        MeasureDef(
            name=name,
            compute=fn,
            params={**shared, **(params or {})},
            cutoff=cutoff,
            aggregate=aggregate,
            description=desc,
            family="trec_eval",
            bounds=bounds,
            topic_local=True,
            reference=reference,
            **capabilities,
        ),
        aliases=aliases,
    )


_def(
    "AP",
    _ap,
    "average precision (trec_eval map; AP@k = map_cut_k)",
    aliases=("map", "MAP"),
    expected=_exp_ap,
    order_safe=True,
    spellings={"trec_eval": "map", "ir_measures": "AP", "ranx": "map"},
    citation=TREC_BOOK,
)
_def(
    "gm_map",
    _gm_ap,
    "AP stored per topic as log(max(AP, 1e-5)); summarised by the geometric mean",
    aggregate="gmean",
    cutoff="none",
    aliases=("GMAP", "gm_ap"),
    order_safe=True,
    spellings={"trec_eval": "gm_map"},
    citation="Robertson 2006, On GMAP, CIKM",
)
_def(
    "Rprec",
    _rprec,
    "precision at R = number of relevant documents (Rprec_mult: at mult*R)",
    cutoff="none",
    params={"mult": MULT},
    aliases=("R-prec", "RPrec"),
    expected=_exp_rprec,
    order_safe=True,
    spellings={"trec_eval": "Rprec", "ir_measures": "Rprec", "ranx": "r-precision"},
    citation=TREC_BOOK,
)
_def(
    "Bpref",
    _bpref,
    "binary preference (Buckley & Voorhees 2004), trec_eval bpref",
    cutoff="none",
    aliases=("bpref", "BPref"),
    order_safe=True,
    spellings={"trec_eval": "bpref", "ir_measures": "Bpref"},
    citation="Buckley & Voorhees 2004, SIGIR",
)
_def(
    "infAP",
    _infap,
    "inferred AP (Yilmaz & Aslam), trec_eval infAP",
    cutoff="none",
    spellings={"trec_eval": "infAP", "ir_measures": "infAP"},
    citation="Yilmaz & Aslam 2006, CIKM",
)
_def(
    "RR",
    _rr,
    "reciprocal rank of the first relevant document (trec_eval recip_rank)",
    aliases=("recip_rank", "MRR"),
    expected=_exp_rr,
    order_safe=True,
    bounds="exact",
    spellings={"trec_eval": "recip_rank", "ir_measures": "RR", "ranx": "mrr"},
    citation="Voorhees 1999, The TREC-8 Question Answering Track Report, TREC-8",
)
_def(
    "P",
    _precision,
    "precision at k (without @k: set_P = num_rel_ret / num_ret)",
    aliases=("set_P",),
    expected=_exp_p,
    order_safe=True,
    bounds="exact",
    spellings={"trec_eval": "P_{k}", "ir_measures": "P@{k}", "ranx": "precision@{k}"},
    citation=TREC_BOOK,
)
_def(
    "R",
    _recall,
    "recall at k (without @k: set_recall)",
    aliases=("set_recall", "Recall"),
    expected=_exp_r,
    order_safe=True,
    bounds="exact_uncut",
    spellings={"trec_eval": "recall_{k}", "ir_measures": "R@{k}", "ranx": "recall@{k}"},
    citation=TREC_BOOK,
)
_def(
    "Success",
    _success,
    "1 if a relevant document is in the top k",
    expected=_exp_success,
    order_safe=True,
    bounds="exact",
    spellings={"trec_eval": "success_{k}", "ir_measures": "Success@{k}", "ranx": "hit_rate@{k}"},
    citation="Voorhees & Harman (eds.) 2005, TREC: Experiment and Evaluation in Information Retrieval, MIT Press",
)
_def(
    "nDCG",
    _ndcg,
    "normalised DCG, linear gains = grade (or gains=), log2 discount, trec_eval ndcg",
    params={"gains": GAINS, "dcg": DCG_FORM},
    aliases=("ndcg", "NDCG"),
    expected=_exp_ndcg,
    order_safe=True,
    spellings={"trec_eval": "ndcg", "ir_measures": "nDCG", "ranx": "ndcg"},
    citation="Järvelin & Kekäläinen 2002, ACM TOIS",
)
_def(
    "dcg",
    _dcg,
    "DCG with trec_eval's gains (grade, or gains='1=3,2=9') and log2(rank+1) discount "
    "(trec_eval 10 dcg, ranx dcg; dcg='exp-log2': ranx dcg_burges)",
    params={"gains": GAINS, "dcg": DCG_FORM},
    spellings={"ranx": "dcg"},
    reference="trec_eval 10.0",
    citation="Järvelin & Kekäläinen 2002, ACM TOIS",
)
_def(
    "ideal_dcg",
    _ideal_dcg,
    "DCG of the ideal ranking of the topic's judged documents (trec_eval 10)",
    params={"gains": GAINS},
    reference="trec_eval 10.0",
)
_def(
    "Judged",
    _judged,
    "fraction of the top k (or of the ranking) that is judged (ir_measures Judged)",
    params={},
    rel=False,
    expected=_exp_judged,
    bounds="label_free",
    spellings={"ir_measures": "Judged@{k}"},
    reference="ir_measures (pytrec_eval)",
)
_def(
    "NumRet",
    _num_ret,
    "number of retrieved documents (summed over topics)",
    aggregate="sum",
    params={},
    aliases=("num_ret",),
    rel=False,
    expected=_exp_num_ret,
    order_safe=True,
    bounds="label_free",
    spellings={"trec_eval": "num_ret", "ir_measures": "NumRet"},
)
_def(
    "NumRel",
    _num_rel_k,
    "number of relevant documents in the qrels (summed over topics)",
    aggregate="sum",
    cutoff="none",
    aliases=("num_rel",),
    expected=_order_free,
    order_safe=True,
    bounds="exact",
    spellings={"trec_eval": "num_rel", "ir_measures": "NumRel"},
)
_def(
    "NumRelRet",
    _num_rel_ret,
    "number of relevant documents retrieved (summed over topics)",
    aggregate="sum",
    aliases=("num_rel_ret",),
    expected=_exp_num_rel_ret,
    order_safe=True,
    bounds="exact",
    spellings={"trec_eval": "num_rel_ret", "ir_measures": "NumRelRet"},
)
_def(
    "IPrec",
    _iprec,
    "interpolated precision at a recall level (trec_eval iprec_at_recall)",
    cutoff="none",
    params={"recall": RECALL},
    order_safe=True,
    spellings={"trec_eval": "iprec_at_recall_0.10", "ir_measures": "IPrec@0.1"},
    citation="Voorhees & Harman (eds.) 2005, TREC: Experiment and Evaluation in Information Retrieval, MIT Press",
)
_def(
    "IPrecAvg",
    _iprec_avg,
    "interpolated precision averaged over 11 recall points (11pt_avg) or the "
    "given recalls (trec_eval 11pt_avg.0.25,0.5)",
    cutoff="none",
    params={"recalls": RECALLS},
    aliases=("11pt_avg", "11-pt_avg"),
    order_safe=True,
    spellings={"trec_eval": "11pt_avg"},
    citation="Voorhees & Harman (eds.) 2005, TREC: Experiment and Evaluation in Information Retrieval, MIT Press",
)

register_alias_pattern(r"P_(\d+)", lambda m: f"P@{m.group(1)}")
register_alias_pattern(r"recall_(\d+)", lambda m: f"R@{m.group(1)}")
register_alias_pattern(r"ndcg_cut_(\d+)", lambda m: f"nDCG@{m.group(1)}")
register_alias_pattern(r"success_(\d+)", lambda m: f"Success@{m.group(1)}")
register_alias_pattern(r"map_cut_(\d+)", lambda m: f"AP@{m.group(1)}")
register_alias_pattern(r"iprec_at_recall_([0-9.]+)", lambda m: f"IPrec(recall={m.group(1)})")
register_alias_pattern(r"Rprec_mult_([0-9.]+)", lambda m: f"Rprec(mult={m.group(1)})")


# ------------------------------------------------------------------ more trec_eval measures


def _set_counts(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    a = ctx.aligned
    return (
        a.group_len.astype(np.float64),
        ta.num_rel(ctx, level).astype(np.float64),
        ta.hits(ctx, level, None),
    )


def _set_relative_p(ctx, m):
    ret, rel, rr = _set_counts(ctx, m)
    return ta.safe_div(rr, np.where((ret > 0) & (rel > 0), np.minimum(ret, rel), 0))


def _set_map(ctx, m):
    ret, rel, rr = _set_counts(ctx, m)
    return ta.safe_div(rr * rr, ret * rel)


def _set_f(ctx, m):
    ret, rel, rr = _set_counts(ctx, m)
    x = m.param("beta")
    p, r = ta.safe_div(rr, ret), ta.safe_div(rr, rel)
    return np.where(rr > 0, ta.safe_div((x + 1.0) * p * r, x * p + r), 0.0)


def _num_nonrel_judged_ret(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    tr = ta.trec_rel(ctx)
    nonrel = (tr >= 0) & ~ta.is_rel(ctx, level)
    if m.cutoff is not None:
        nonrel = nonrel & (ctx.aligned.row_rank <= m.cutoff)
    return segment_sum(nonrel.astype(np.float64), ctx.aligned.offsets)


def _gm_bpref(ctx, m):
    return np.log(np.maximum(_bpref(ctx, m), GM_FLOOR))


def _ap_sum(ctx, level):
    """Per group: the sum of precision at each relevant document, left to right."""
    rows = ta.rel_rows(ctx, level)
    return ta.cum_at(ta.ap_cum(ctx, level), rows.offsets[:-1], rows.count)


def _yaap(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    s = _ap_sum(ctx, level)
    return np.log((1.0 + s) / (1.0 + ta.num_rel(ctx, level) - s))


def _bin_g(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    rows = ta.rel_rows(ctx, level)
    nonrel_before = rows.rank - rows.index - 1
    s = ta.seq_group_sum(1.0 / np.log2(2.0 + nonrel_before), rows.offsets)
    return ta.safe_div(s, ta.num_rel(ctx, level))


def _relative_p(ctx, m):
    level = ta.measure_rel_level(ctx, m)
    nrel = ta.num_rel(ctx, level)
    return ta.safe_div(
        ta.hits(ctx, level, m.cutoff), np.where(nrel > 0, np.minimum(nrel, m.cutoff), 0)
    )


def _unj(ctx, m):
    rows = ctx.memo("unjudged_rows", lambda: ta.Rows(ctx, ta.trec_rel(ctx) < 0))
    return rows.within(m.cutoff) / float(m.cutoff)


def _utility(ctx, m):
    coef = _floats(m.param("coef"), "coef")
    if len(coef) != 4:
        raise MeasureParamError(
            "trec_eval.calc_utility: improper number of coefficients "
            f"(utility needs 4, got {len(coef)})"
        )
    ret, rel, rr = _set_counts(ctx, m)
    n = float(ctx.options.get("num_docs_in_coll", 0) or 0)
    return (
        coef[0] * rr + coef[1] * (ret - rr) + coef[2] * (rel - rr) + coef[3] * (n + rr - ret - rel)
    )


def relstrings(aligned, measure: str = "relstring@10") -> list[str]:
    """trec_eval's ``relstring``: per group, the first k relevance values as characters.

    ``0``–``9`` for a grade, ``>`` above 9, ``-`` not in the pool, ``.`` in the pool but
    unjudged (a negative grade), ``<`` for any other value.  ``measure`` is
    ``"relstring@k"`` (``"relstring"``: an empty string, trec_eval's ``relstring.0``).

    >>> import irframe as irf
    >>> from irframe.align import align
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> relstrings(align(runs, qrels), "relstring@10")
    ['0000011000', '1101110110', '0000000000']
    """
    k = int(measure.partition("@")[2] or 0)
    top = aligned.row_rank <= k  # only the first k rows of each ranking
    r = aligned.row_rel[top]
    t = np.nan_to_num(np.trunc(r), nan=-1.0)
    digits = np.array(list("0123456789"))[np.clip(t, 0, 9).astype(np.int64)]
    chars = np.where(np.isnan(r), "-", np.where(t > 9, ">", np.where(t >= 0, digits, ".")))
    offs = np.searchsorted(np.flatnonzero(top), aligned.offsets)
    return ["".join(chars[s:e].tolist()) for s, e in itertools.pairwise(offs)]


_def(
    "set_relative_P",
    _set_relative_p,
    "num_rel_ret / min(num_ret, num_rel) (trec_eval set_relative_P)",
    cutoff="none",
    spellings={"trec_eval": "set_relative_P", "ir_measures": "SetRelP"},
)
_def(
    "set_map",
    _set_map,
    "num_rel_ret^2 / (num_ret * num_rel) (trec_eval set_map)",
    cutoff="none",
    spellings={"trec_eval": "set_map", "ir_measures": "SetAP"},
)
_def(
    "set_F",
    _set_f,
    "set F: (beta+1) P R / (beta P + R) over the retrieved set (trec_eval set_F)",
    cutoff="none",
    params={
        "beta": Param(
            "float",
            1.0,
            low=0,
            description="weight of recall relative to precision (>= 0: below, (beta+1) P R / (beta P + R) "
            "is no F measure and trec_eval prints nan where P = R)",
        )
    },
    spellings={"trec_eval": "set_F", "ir_measures": "SetF"},
    citation="van Rijsbergen 1979, Information Retrieval (2nd ed.), Butterworths, ch. 7",
)
_def(
    "num_nonrel_judged_ret",
    _num_nonrel_judged_ret,
    "judged non-relevant documents retrieved (summed)",
    aggregate="sum",
    spellings={"trec_eval": "num_nonrel_judged_ret"},
)
_def(
    "gm_bpref",
    _gm_bpref,
    "bpref stored per topic as log(max(bpref, 1e-5)); geometric mean",
    aggregate="gmean",
    cutoff="none",
    spellings={"trec_eval": "gm_bpref"},
)
_def(
    "yaap",
    _yaap,
    "yet another AP, log((1 + S) / (1 + R - S)), S = AP's sum (Robertson 2012, ECIR)",
    cutoff="none",
    reference="trec_eval 10.0",
    citation="Robertson 2012, ECIR",
)
_def(
    "binG",
    _bin_g,
    "binary G: mean over relevant docs of 1 / log2(2 + non-relevant before it)",
    cutoff="none",
    spellings={"trec_eval": "binG"},
)
_def(
    "relative_P",
    _relative_p,
    "precision at k relative to the best possible, hits / min(k, R)",
    cutoff="required",
    spellings={"trec_eval": "relative_P_{k}"},
)
_def(
    "unj",
    _unj,
    "fraction of the top k not judged (not in the qrels or negative grade; trec_eval 10 unj)",
    cutoff="required",
    params={},
    bounds="label_free",
    spellings={"trec_eval": "unj_{k}"},
    reference="trec_eval 10.0",
)
register(
    MeasureDef(
        name="utility",
        compute=_utility,
        params={
            "rel": REL,
            "coef": Param(
                "str",
                "1 -1 0 0",
                check_fn=lambda v: _floats(v, "coef"),
                description="the 4 coefficients a b c d (trec_eval utility.a,b,c,d)",
            ),
        },
        cutoff="none",
        description="set utility a*rel_ret + b*nonrel_ret + c*rel_not_ret + "
        "d*nonrel_not_ret (trec_eval utility; d needs num_docs_in_coll=)",
        family="trec_eval",
        options=frozenset({"num_docs_in_coll"}),
        bounds="approximate",
        topic_local=True,
        spellings={"trec_eval": "utility"},
        reference=TREC_EVAL,
    )
)
register_alias_pattern(r"relative_P_(\d+)", lambda m: f"relative_P@{m.group(1)}")
register_alias_pattern(r"unj_(\d+)", lambda m: f"unj@{m.group(1)}")


# ------------------------------------------------------------------ gain-based experimental measures


def _ndcg_rel(ctx, m):
    a = ctx.aligned
    rows, gains = ta.gain_rows(ctx, m)
    ta.dcg_parts(ctx, Measure(m.label, m.name, m.params, None, m.definition))  # fills the memo
    cum = ctx.memo(("dcg_cum", ta.gain_key(ctx, m)), lambda: None)
    row_group = np.repeat(np.arange(a.n_groups), rows.count)
    positive = gains > 0
    ideal_here = ta.ideal_at(ctx, m, a.group_topic[row_group], rows.rank)
    term = np.where(positive, ta.safe_div(cum, ideal_here), 0.0)
    total = ta.seq_group_sum(term, rows.offsets)
    offs, _, _icum = ta.ideal_cum(ctx, m)
    n_pos = np.diff(offs)[a.group_topic]
    nrr = segment_sum(positive.astype(np.float64), rows.offsets)
    dcg_all = ta.cum_at(cum, rows.offsets[:-1], rows.count)
    total = total + (n_pos - nrr) * ta.safe_div(dcg_all, ta.ideal_at(ctx, m, a.group_topic, n_pos))
    return np.where(total > 0, ta.safe_div(total, n_pos), 0.0)


def _rndcg(ctx, m):
    a = ctx.aligned
    rows, _gains = ta.gain_rows(ctx, m)
    ta.dcg_parts(ctx, Measure(m.label, m.name, m.params, None, m.definition))
    cum = ctx.memo(("dcg_cum", ta.gain_key(ctx, m)), lambda: None)
    offs, ideal = ta.ideal_gains(ctx, m)
    # boundaries: where the ideal gain changes value (end of each run of equal positive gains)
    last_of_run = np.ones(len(ideal), bool)
    last_of_run[:-1] = (ideal[1:] != ideal[:-1]) | (
        np.diff(np.searchsorted(offs, np.arange(len(ideal)), side="right")) != 0
    )
    b_pos = np.flatnonzero(last_of_run)
    b_topic = np.searchsorted(offs, b_pos, side="right") - 1
    b_count = b_pos - offs[:-1][b_topic] + 1  # boundary B = number of ideal positions
    per_topic = np.bincount(b_topic, minlength=len(a.topics))
    b_offs = np.concatenate([[0], np.cumsum(per_topic)])
    n_ret = a.group_len
    g_topic = a.group_topic
    total = np.zeros(a.n_groups)
    count = np.zeros(a.n_groups)

    def dcg_first(x):
        return ta.cum_at(cum, rows.offsets[:-1], rows.within(x))

    for j in range(int(per_topic.max(initial=0))):
        has = per_topic[g_topic] > j
        idx = np.where(has, b_offs[:-1][g_topic] + j, 0)
        bj = np.where(has, b_count[idx] if len(b_count) else 0, 0)
        term = ta.safe_div(dcg_first(np.minimum(bj, n_ret)), ta.ideal_at(ctx, m, g_topic, bj))
        total = np.where(has, total + term, total)
        count = count + has
    n_pos = np.diff(offs)[g_topic]
    final = (n_pos > 0) & (n_pos + 1 < n_ret)
    term = ta.safe_div(dcg_first(n_ret), ta.ideal_at(ctx, m, g_topic, n_pos))
    total = np.where(final, total + term, total)
    count = count + final
    out = ta.safe_div(total, count)
    return np.where(ta.num_rel(ctx, ta.measure_rel_level(ctx, m)) > 0, out, 0.0)


def _g(ctx, m):
    a = ctx.aligned
    rows, gains = ta.gain_rows(ctx, m)
    key = ta.gain_key(ctx, m)
    sum_results = ctx.memo(("gain_cum", key), lambda: segment_cumsum(gains, rows.offsets))
    offs, ideal = ta.ideal_gains(ctx, m)
    cost1 = ctx.memo(("ideal_cost_cum", key), lambda: segment_cumsum(np.maximum(ideal, 1.0), offs))
    row_group = np.repeat(np.arange(a.n_groups), rows.count)
    t = a.group_topic[row_group]
    n_pos = np.diff(offs)[t]
    r = rows.rank
    cost = ta.cum_at(cost1, offs[:-1][t], np.minimum(r, n_pos)) + np.maximum(r - n_pos, 0)
    term = gains / np.log2(2.0 + cost - sum_results)
    total = ta.seq_group_sum(term, rows.offsets)
    sum_ideal = ta.seq_group_sum(ideal, offs)[a.group_topic]
    return np.where(sum_ideal > 0, ta.safe_div(total, sum_ideal), 0.0)


def _rbp_params(m: Measure) -> tuple[float, dict]:
    from .trec_eval_syntax import c_atof

    text = m.param("params") or ""
    p = 0.9
    for item in text.split(","):
        name, eq, value = item.partition("=")
        if eq and name == "p":
            p = c_atof(value)
    return p, ta.parse_gain_pairs(text)


def _powers(p: float, n: int) -> np.ndarray:
    """p^0 .. p^n by repeated multiplication (trec_eval's ``cur_p = cur_p * p``)."""
    f = np.full(n + 1, p)
    f[0] = 1.0
    return np.cumprod(f)


def _rbp10(ctx, m):
    a = ctx.aligned
    p, pairs = _rbp_params(m)
    tr = ta.trec_rel(ctx)
    t_all = np.trunc(a.qrels_rel)
    maxlev = np.full(len(a.topics), -1.0)
    judged = t_all >= 0
    np.maximum.at(maxlev, a.qrels_topic[judged], t_all[judged])
    # per topic gain list: levels 0..maxlev (gain = level), overridden and extended by the pairs;
    # trec_eval rescales it to [0, 1] when a gain lies outside (its min/max start at 0)
    top = maxlev.copy()
    for _ in pairs:  # highest default level not overridden by a pair
        top = np.where(np.isin(top, list(pairs)), top - 1, top)
    hi = np.maximum(np.maximum(top, 0.0), max(pairs.values(), default=0.0))
    lo = np.full(len(a.topics), min(0.0, min(pairs.values(), default=0.0)))
    row_t = a.row_topic
    g = np.where((tr >= 0) & (tr <= maxlev[row_t]), tr, 0.0)
    for lev, gain in pairs.items():
        g = np.where(tr == lev, gain, g)
    known = ((tr >= 0) & (tr <= maxlev[row_t])) | np.isin(tr, list(pairs))
    rescale = ((lo < 0) | (hi > 1))[row_t]
    span = (hi - lo)[row_t]
    g = np.where(known & rescale, ta.safe_div(g - lo[row_t], span), np.where(known, g, 0.0))
    pw = _powers(p, int(a.group_len.max(initial=0)))
    term = np.where(g != 0, g * pw[a.row_rank - 1], 0.0)
    return (1.0 - p) * ta.seq_group_sum(term, a.offsets)


def _rbp_resid(ctx, m):
    a = ctx.aligned
    p, _ = _rbp_params(m)
    unj = ta.trec_rel(ctx) < 0
    pw = _powers(p, int(a.group_len.max(initial=0)))
    s = ta.seq_group_sum(np.where(unj, pw[a.row_rank - 1], 0.0), a.offsets)
    any_unj = segment_sum(unj.astype(np.float64), a.offsets) > 0
    return np.where(any_unj, pw[a.group_len] + (1 - p) * s, 0.0)


RBP_PARAMS = Param(
    "str",
    None,
    check_fn=_check_gain_text,
    description="trec_eval rbp parameters 'p=0.95' and custom gains '1=0.5,...'",
)

_def(
    "ndcg_rel",
    _ndcg_rel,
    "nDCG averaged over the relevant documents (trec_eval ndcg_rel)",
    cutoff="none",
    params={"gains": GAINS},
    spellings={"trec_eval": "ndcg_rel"},
)
_def(
    "Rndcg",
    _rndcg,
    "nDCG averaged at the R-level boundaries of the ideal ranking (trec_eval Rndcg)",
    cutoff="none",
    params={"gains": GAINS},
    spellings={"trec_eval": "Rndcg"},
)
_def(
    "G",
    _g,
    "normalised gain G (trec_eval G, experimental)",
    cutoff="none",
    params={"gains": GAINS},
    spellings={"trec_eval": "G"},
)
_def(
    "rbp",
    _rbp10,
    "trec_eval 10's rbp: RBP with gains = grade, rescaled to [0, 1] per topic when a "
    "gain lies outside, params='p=0.9,1=0.5'",
    cutoff="none",
    params={"params": RBP_PARAMS},
    spellings={"trec_eval": "rbp"},
    reference="trec_eval 10.0",
    citation="Moffat & Zobel 2008, ACM TOIS",
)
_def(
    "rbp_resid",
    _rbp_resid,
    "trec_eval 10's rbp_resid: p^n + (1-p) sum of p^(i-1) over unjudged ranks",
    cutoff="none",
    params={"params": RBP_PARAMS},
    bounds="label_free",
    spellings={"trec_eval": "rbp_resid"},
    reference="trec_eval 10.0",
    citation="Moffat & Zobel 2008, ACM TOIS",
)
