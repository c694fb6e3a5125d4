"""Diversity (subtopic-aware) evaluation: gain tables and vectorised kernels.

Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018 (doi:10.1145/3209978.3210024), is the specification of the
measures and of Rank-Biased Utility (RBU); ndeval 4.5 is the reference for the
measures it prints.  The measure strings are registered by
[`irframe.measures.diversity`][irframe.measures.diversity]; this module holds the arithmetic.

Data layout
-----------
Nothing here is dense in (group × depth × subtopic).  The aligned run rows are joined
with the positive subtopic judgments by (topic, doc) code keys, giving a sparse
*pair table*: one entry per (ranked row, aspect it is relevant to).  Pairs are sorted
by (group, aspect, rank), so per-aspect redundancy counts (α-nDCG's ``c(i, t)``) and
cascade products (ERR-IA / RBU's ``Π_{j<i} (1 − r(d_j, t))``) are segment scans, and
per-group scores are ``bincount`` sums.  An *aspect* is one (topic, subtopic) pair.

Conventions (see docs/diversity.md)
-----------------------------------
* ndeval measures (α-DCG, α-nDCG, ERR-IA, nERR-IA, NRBP, nNRBP, AP-IA, P-IA, S-recall)
  binarise: relevant to ``t`` ⇔ grade ≥ ``rel_level`` (default 1) and grade > 0;
  negative grades are non-relevant (ndeval rejects them).
* Aspect weights ``w(t)``: uniform over the topic's aspects with a relevant
  judgment, unless ``weights=`` (a frame ``topic, subtopic, weight``) is given.
* Graded gains: ``r = (2^g − 1) / 2^gmax_t`` (ERR convention) for RBU, RBP-IA and
  ``ERR_IA(graded=true)``; ``r = g / gmax_t`` for the graded α-family, EU and CT;
  the raw grade for nDCG-IA and D#.  ``gmax_t`` is the highest grade of aspect ``t``.
* A topic without any relevant aspect scores 0 on every measure (ndeval's and
  trec_eval's convention), never NaN.

Examples
--------
>>> import pandas as pd, irframe as irf
>>> qrels = pd.DataFrame({"topic": "1", "subtopic": ["a", "a", "b"],
...                       "doc": ["d1", "d2", "d2"], "rel": [1, 1, 1]})
>>> run = pd.DataFrame({"system": "s", "topic": "1", "doc": ["d1", "d2", "d3"],
...                     "score": [3.0, 2.0, 1.0]})
>>> cube = irf.evaluate(run, qrels, ["StRecall@1", "StRecall@2", "RBU(p=0.8,e=0)@2"])
>>> cube.sel(system="s", topic="1").values.round(4).tolist()
[0.5, 1.0, 0.11]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..align import Aligned, segment_cumsum
from ..errors import InputError
from .ties import expand_ranges
from .trec_arrays import seq_group_sum

__all__ = [
    "AspectTable",
    "PairTable",
    "aspect_weights",
    "aspects",
    "err_ia_graded",
    "ideal_alpha_gains",
    "pairs",
    "rbp_ia",
    "rbu",
]


# ----------------------------------------------------------------------------- tables
@dataclass
class AspectTable:
    """Per (topic, subtopic) facts, aspects sorted by (topic, subtopic natural order).

    Attributes
    ----------
    topic, subtopic : ndarray
        Topic code (evaluated topics) and subtopic code (``aligned.subtopics``) per aspect.
    gmax : ndarray
        Highest grade judged for the aspect (may be <= 0).
    nrel : ndarray
        Documents with a binary-relevant judgment (grade >= rel_level and > 0).
    offsets : ndarray
        CSR over topics: aspects of topic ``t`` are ``offsets[t]:offsets[t+1]``.
    """

    topic: np.ndarray
    subtopic: np.ndarray
    gmax: np.ndarray
    nrel: np.ndarray
    offsets: np.ndarray

    @property
    def n(self) -> int:
        return len(self.topic)


@dataclass
class PairTable:
    """(ranked row, aspect) entries with a positive grade, sorted by (group, aspect, rank).

    Attributes
    ----------
    row, group, rank, aspect : ndarray
        Row index into the aligned rows, its group, 1-based rank, aspect id.
    grade : ndarray
        The subtopic grade (> 0).
    seg : ndarray
        CSR offsets of the (group, aspect) segments over the pair arrays.
    """

    row: np.ndarray
    group: np.ndarray
    rank: np.ndarray
    aspect: np.ndarray
    grade: np.ndarray
    seg: np.ndarray


def _require_subtopics(a: Aligned) -> None:
    if not a.has_subtopics:
        raise InputError(
            "diversity measures need qrels with a 'subtopic' column "
            "(read them with irframe.read_qrels(path, kind='diversity'))"
        )


def _natural_order(labels: pd.Index) -> np.ndarray:
    """Rank of each subtopic label: numeric order when every label is an integer."""
    s = pd.Series(np.asarray(labels, dtype=object)).astype(str)
    num = pd.to_numeric(s, errors="coerce")
    if num.notna().all() and (num == np.floor(num)).all():
        key = np.lexsort((s.to_numpy(), num.to_numpy()))
    else:
        key = np.argsort(s.to_numpy(), kind="stable")
    rank = np.empty(len(s), np.int64)
    rank[key] = np.arange(len(s))
    return rank


def aspects(ctx) -> AspectTable:
    """The aspect table of an evaluation (memoised on ``ctx``)."""
    level = float(ctx.options.get("rel_level", 1))

    def build():
        a = ctx.aligned
        _require_subtopics(a)
        srank = _natural_order(a.subtopics)
        nat = srank[a.sub_subtopic]
        key = a.sub_topic * (len(a.subtopics) + 1) + nat
        uk, inv = np.unique(key, return_inverse=True)
        n = len(uk)
        topic = uk // (len(a.subtopics) + 1)
        # subtopic code of each aspect
        sub = np.empty(n, np.int64)
        sub[inv] = a.sub_subtopic
        gmax = np.full(n, -np.inf)
        np.maximum.at(gmax, inv, a.sub_rel)
        relb = (a.sub_rel >= level) & (a.sub_rel > 0)
        nrel = np.bincount(inv, weights=relb, minlength=n).astype(np.int64)
        offsets = np.searchsorted(topic, np.arange(len(a.topics) + 1)).astype(np.int64)
        return AspectTable(
            topic=topic.astype(np.int64), subtopic=sub, gmax=gmax, nrel=nrel, offsets=offsets
        ), inv

    return ctx.memo(("div_aspects", level), build)[0]


def _sub_aspect(ctx) -> np.ndarray:
    aspects(ctx)
    level = float(ctx.options.get("rel_level", 1))
    return ctx.memo(("div_aspects", level), lambda: None)[1]


def pairs(ctx) -> PairTable:
    """Join the ranked rows with the positive subtopic judgments (memoised)."""

    def build():
        a = ctx.aligned
        asp = aspects(ctx)
        inv = _sub_aspect(ctx)
        pos = a.sub_rel > 0
        n_docs = max(len(a.judged_docs), 1)  # judged docs only: no table of every run doc
        skey = a.sub_topic[pos] * n_docs + a.sub_doc[pos]
        s_asp, s_grade = inv[pos], a.sub_rel[pos]
        o = np.argsort(skey, kind="stable")
        skey, s_asp, s_grade = skey[o], s_asp[o], s_grade[o]
        # only rows relevant to some aspect can pair (row_rel = max grade over subtopics)
        cand = np.flatnonzero(a.row_rel > 0)
        rkey = a.row_topic[cand] * n_docs + a.row_judged_doc[cand]  # (relevant rows: judged)
        lo = np.searchsorted(skey, rkey, side="left")
        hi = np.searchsorted(skey, rkey, side="right")
        cnt = hi - lo
        row = np.repeat(cand, cnt)
        starts = np.repeat(lo, cnt)
        within = np.arange(len(row), dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        idx = starts + within
        aspect = s_asp[idx]
        grade = s_grade[idx]
        group = a.row_group[row]
        # sort by (group, aspect, rank); rows already ascend within a group
        k = group * (asp.n + 1) + aspect
        order = np.argsort(k, kind="stable")
        row, group, aspect, grade, k = (
            row[order],
            group[order],
            aspect[order],
            grade[order],
            k[order],
        )
        brk = np.flatnonzero(k[1:] != k[:-1]) + 1
        seg = (
            np.concatenate([[0], brk, [len(k)]]).astype(np.int64)
            if len(k)
            else np.zeros(1, np.int64)
        )
        return PairTable(
            row=row, group=group, rank=a.row_rank[row], aspect=aspect, grade=grade, seg=seg
        )

    return ctx.memo("div_pairs", build)


def _exclusive_count(mask: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Number of earlier True entries of ``mask`` in the same segment."""
    m = mask.astype(np.int64)
    return segment_cumsum(m, seg) - m


def _exclusive_cumprod(factor: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Π of ``factor`` over the earlier entries of the same segment (exact zeros kept)."""
    zero = factor <= 0
    lg = np.log(np.where(zero, 1.0, factor))
    before = segment_cumsum(lg, seg) - lg
    zeros_before = _exclusive_count(zero, seg)
    return np.where(zeros_before > 0, 0.0, np.exp(before))


def _exclusive_cumsum(values: np.ndarray, seg: np.ndarray) -> np.ndarray:
    return segment_cumsum(values, seg) - values


# ----------------------------------------------------------------------------- weights
def _weights_frame(ctx) -> pd.DataFrame | None:
    w = ctx.options.get("weights")
    if w is None:
        return None
    if not isinstance(w, pd.DataFrame):
        raise TypeError(
            "weights= must be a DataFrame with columns topic, subtopic, weight, "
            f"got {type(w).__name__}"
        )
    missing = [c for c in ("topic", "subtopic", "weight") if c not in w.columns]
    if missing:
        raise InputError(
            f"weights frame is missing column(s) {missing}; found {list(w.columns)}; "
            "expected topic, subtopic, weight"
        )
    return w


def aspect_weights(ctx, *, graded: bool) -> np.ndarray:
    """w(t) per aspect: uniform over the topic's relevant aspects, or user-given.

    ``graded=False`` counts an aspect when it has a binary-relevant judgment
    (grade >= rel_level, ndeval); ``graded=True`` when its highest grade is > 0.
    User weights (``weights=`` option) are renormalised to sum to 1 over the relevant
    aspects of each topic; topics absent from the frame keep uniform weights.
    """

    def build():
        asp = aspects(ctx)
        a = ctx.aligned
        ok = asp.gmax > 0 if graded else asp.nrel > 0
        n_t = np.bincount(asp.topic, weights=ok, minlength=len(a.topics))
        w = np.where(ok, 1.0 / np.maximum(n_t[asp.topic], 1), 0.0)
        wf = _weights_frame(ctx)
        if wf is None:
            return w
        wt = wf["topic"].astype(str).to_numpy()
        ws = wf["subtopic"].astype(str).to_numpy()
        wv = pd.to_numeric(wf["weight"], errors="coerce").to_numpy(dtype=np.float64)
        if not np.all(np.isfinite(wv)) or (wv < 0).any():
            raise InputError("weights frame: 'weight' must be finite non-negative numbers")
        if pd.MultiIndex.from_arrays([wt, ws]).duplicated().any():
            raise InputError("weights frame has duplicate (topic, subtopic) rows")
        lookup = dict(zip(zip(wt, ws, strict=True), wv, strict=True))
        topics = np.asarray(a.topics, dtype=object).astype(str)
        subs = np.asarray(a.subtopics, dtype=object).astype(str)
        given_topics = set(wt)
        user = np.full(asp.n, np.nan)
        for i in np.flatnonzero(ok):  # loop over aspects (~ a few hundred), not rows
            key = (str(topics[asp.topic[i]]), str(subs[asp.subtopic[i]]))
            if key in lookup:
                user[i] = lookup[key]
            elif key[0] in given_topics:
                raise InputError(
                    f"weights frame gives topic {key[0]!r} but not its relevant "
                    f"subtopic {key[1]!r}; give a weight for every relevant subtopic"
                )
        has = ~np.isnan(user)
        tot = np.bincount(asp.topic, weights=np.where(has, user, 0.0), minlength=len(a.topics))
        t_has = np.bincount(asp.topic, weights=has, minlength=len(a.topics)) > 0
        bad = t_has & (tot <= 0)
        if bad.any():
            raise InputError(f"weights of topic(s) {list(topics[bad][:5])} sum to 0")
        return np.where(
            has, user / np.where(tot > 0, tot, 1.0)[asp.topic], np.where(t_has[asp.topic], 0.0, w)
        )

    return ctx.memo(("div_weights", graded, float(ctx.options.get("rel_level", 1))), build)


def _n_aspects(ctx, *, graded: bool) -> np.ndarray:
    """Number of relevant aspects per group (ndeval's actualSubtopics)."""
    asp = aspects(ctx)
    a = ctx.aligned
    ok = asp.gmax > 0 if graded else asp.nrel > 0
    return np.bincount(asp.topic, weights=ok, minlength=len(a.topics))[a.group_topic]


# ----------------------------------------------------------------------------- gains
def _binary(ctx, p: PairTable) -> np.ndarray:
    level = float(ctx.options.get("rel_level", 1))
    return p.grade >= level


def _gmax(ctx, p: PairTable) -> np.ndarray:
    return aspects(ctx).gmax[p.aspect]


def err_gain(ctx, p: PairTable) -> np.ndarray:
    """r = (2^g − 1) / 2^gmax_t (clipped to [0, 1])."""
    g = p.grade
    gm = _gmax(ctx, p)
    with np.errstate(over="ignore", invalid="ignore"):
        r = (np.exp2(g) - 1.0) / np.exp2(gm)
    return np.clip(np.nan_to_num(r, nan=0.0), 0.0, 1.0)


def alpha_gain(ctx, p: PairTable, graded: bool) -> tuple[np.ndarray, np.ndarray]:
    """(gain, counts-as-seen) per pair for the α family: binary, or g / gmax_t."""
    if graded:
        r = np.clip(p.grade / _gmax(ctx, p), 0.0, 1.0)
        return r, r > 0
    b = _binary(ctx, p)
    return b.astype(np.float64), b


def _alpha_pair_gain(ctx, alpha: float, graded: bool) -> np.ndarray:
    """r(d_i,t) (1 − α)^{c(i,t)} per pair."""

    def build():
        p = pairs(ctx)
        r, seen = alpha_gain(ctx, p, graded)
        c = _exclusive_count(seen, p.seg)
        return r * np.power(1.0 - alpha, c)

    return ctx.memo(("div_alpha_gain", alpha, graded), build)


def _by_group(ctx, p: PairTable, values: np.ndarray, k: int | None) -> np.ndarray:
    if k is not None:
        values = np.where(p.rank <= k, values, 0.0)
    return np.bincount(p.group, weights=values, minlength=ctx.aligned.n_groups)


def _log2_disc(rank: np.ndarray) -> np.ndarray:
    # ndeval: log(2)/log(rank + 1)
    return np.log(2.0) / np.log(rank + 1.0)


# ----------------------------------------------------------------------------- ideal rankings
def ideal_alpha_gains(
    ctx, alpha: float, graded: bool, weighted: bool, depth: int | None, beta: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Greedy ideal ranking per topic (ndeval ``idealResult``): per-rank gains.

    Returns ``(offsets, gains)`` in CSR layout over topics: ``gains[offsets[t] + i]`` is
    the total (over aspects) novelty gain at rank ``i + 1`` of topic ``t``'s greedy ideal
    ranking, built over the judged documents relevant to some aspect.  At each rank the
    document with the largest marginal gain is taken, ties to the larger docno (bytes),
    exactly as ndeval.  ``depth`` limits the number of ranks built (``None``: all, or
    until ``beta**rank`` makes further gains invisible in float64 when ``beta`` is given).
    Vectorised over topics; loops over ranks.
    """
    key = ("div_ideal", alpha, graded, weighted, depth, beta)

    def build():
        a = ctx.aligned
        asp = aspects(ctx)
        inv = _sub_aspect(ctx)
        level = float(ctx.options.get("rel_level", 1))
        if graded:
            gm = asp.gmax[inv]
            g = np.zeros(len(a.sub_rel))
            np.divide(a.sub_rel, gm, out=g, where=(a.sub_rel > 0) & (gm > 0))
            g = np.clip(g, 0.0, 1.0)
        else:
            g = ((a.sub_rel >= level) & (a.sub_rel > 0)).astype(np.float64)
        keep = g > 0
        T = len(a.topics)
        if not keep.any():
            return np.zeros(T + 1, np.int64), np.zeros(0)
        t, d, s, gv = a.sub_topic[keep], a.sub_doc[keep], inv[keep], g[keep]
        # documents per topic, ordered docno descending (bytes) so argmax picks the largest
        nj = len(a.judged_docs) + 1
        dk = t * nj + d
        ud, dinv = np.unique(dk, return_inverse=True)
        ut, udoc = ud // nj, ud % nj
        o = np.lexsort((_doc_desc_rank(ctx)[udoc], ut))
        pos = np.empty(len(ud), np.int64)
        pos[o] = np.arange(len(ud))
        ut_s = ut[o]
        t_off = np.searchsorted(ut_s, np.arange(T + 1))
        n_doc_t = np.diff(t_off)
        D = int(n_doc_t.max())
        col = pos - t_off[ut_s[pos]]
        w = aspect_weights(ctx, graded=graded) if weighted else np.ones(asp.n)
        valid = np.arange(D)[None, :] < n_doc_t[:, None]
        A = int(np.diff(asp.offsets).max())
        n_steps = D if depth is None else min(depth, D)
        if depth is None and beta is not None and beta < 1:
            # further ranks add < beta**s * A / (1 - beta) <= 2**-60 of the first gain
            lim = (
                int(np.ceil((60 * np.log(2) + np.log(max(A, 1) / (1 - beta))) / -np.log(beta))) + 1
            )
            n_steps = min(D, max(lim, 1))
        greedy = _greedy_dense if T * D * A <= _DENSE_MAX_CELLS else _greedy_sparse
        out = greedy(t, col[dinv], s, gv, w, asp, valid, alpha, n_steps)
        lens = np.minimum(n_doc_t, out.shape[1])
        offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        flat = out[np.arange(out.shape[1])[None, :] < lens[:, None]]
        return offs, flat

    return ctx.memo(key, build)


#: the greedy ideal scores a dense topics x documents x subtopics block up to this many cells
#: (few subtopics per topic: one multiply-add per subtopic and rank is fastest); beyond it, the
#: sparse form, which recomputes only the documents sharing a subtopic with each pick.  Both sum
#: over subtopics in index order, so their values and tie-breaks are bit for bit the same.
_DENSE_MAX_CELLS = 1 << 22


def _greedy_dense(t, col, s, gv, w, asp, valid, alpha: float, n_steps: int) -> np.ndarray:
    """Greedy ideal gains (T × n_steps) over a dense (T, D, A) gain block; see ideal_alpha_gains."""
    T, D = valid.shape
    A = int(np.diff(asp.offsets).max())
    G = np.zeros((T, D, A))
    G[t, col, s - asp.offsets[asp.topic[s]]] = gv
    w_mult = np.zeros((T, A))
    ai = np.arange(asp.n)
    w_mult[asp.topic, ai - asp.offsets[asp.topic]] = w
    sub_gain = np.ones((T, A))
    placed = ~valid
    out = np.zeros((T, n_steps))
    rows = np.arange(T)
    for step in range(n_steps):
        score = np.zeros((T, D))
        for j in range(A):  # ndeval sums over subtopics in index order
            score += G[:, :, j] * (sub_gain[:, j] * w_mult[:, j])[:, None]
        best = np.argmax(np.where(placed, -np.inf, score), axis=1)
        active = ~placed[rows, best]
        gain_rel = G[rows, best, :] > 0
        # gain at this rank: ndeval adds g · sub_gain · w for every relevant subtopic, in order
        contrib = np.zeros(T)
        for j in range(A):
            contrib += np.where(
                gain_rel[:, j], G[rows, best, j] * sub_gain[:, j] * w_mult[:, j], 0.0
            )
        out[:, step] = np.where(active, contrib, 0.0)
        sub_gain = np.where(gain_rel & active[:, None], sub_gain * (1.0 - alpha), sub_gain)
        placed[rows[active], best[active]] = True
        if placed.all():
            return out[:, : step + 1]
    return out


def _greedy_sparse(t, col, s, gv, w, asp, valid, alpha: float, n_steps: int) -> np.ndarray:
    """Greedy ideal gains (T × n_steps), recomputing per rank only the documents that share a
    subtopic with the pick: O(pairs of the affected documents) per rank; see ideal_alpha_gains."""
    T, D = valid.shape
    # one cell per (topic, column) document: u = t * D + col; its (doc, aspect) pairs, aspects
    # ascending within a document (ndeval sums over subtopics in index order)
    u = t * D + col
    po = np.lexsort((s, u))
    p_u, p_s, p_g = u[po], s[po], gv[po]
    u_start = np.searchsorted(p_u, np.arange(T * D + 1))
    ao = np.argsort(p_s, kind="stable")  # pairs by aspect: who shares an aspect
    a_start = np.searchsorted(p_s[ao], np.arange(asp.n + 1))
    sub_gain = np.ones(asp.n)

    def doc_scores(cells: np.ndarray) -> np.ndarray:
        """Marginal gain of each cell: Σ_aspects g · (sub_gain · w), summed in aspect order."""
        lo, n = u_start[cells], u_start[cells + 1] - u_start[cells]
        return seq_group_sum((p_g * (sub_gain[p_s] * w[p_s]))[expand_ranges(lo, n)[1]], _offsets(n))

    score = np.full(T * D, -np.inf)
    cells = np.flatnonzero(valid.ravel())
    score[cells] = doc_scores(cells)
    score = score.reshape(T, D)
    placed = ~valid
    out = np.zeros((T, n_steps))
    rows = np.arange(T)
    for step in range(n_steps):  # all topics at once
        best = np.argmax(np.where(placed, -np.inf, score), axis=1)
        active = ~placed[rows, best]
        chosen = (rows * D + best)[active]
        # gain at this rank: ndeval adds g · sub_gain · w for every relevant subtopic, in order
        lo, n = u_start[chosen], u_start[chosen + 1] - u_start[chosen]
        ps = expand_ranges(lo, n)[1]
        out[active, step] = seq_group_sum((p_g[ps] * sub_gain[p_s[ps]]) * w[p_s[ps]], _offsets(n))
        hit = np.unique(p_s[ps])
        sub_gain[hit] *= 1.0 - alpha
        placed[rows[active], best[active]] = True
        if placed.all():
            return out[:, : step + 1]
        touched = np.unique(
            p_u[ao[expand_ranges(a_start[hit], a_start[hit + 1] - a_start[hit])[1]]]
        )
        touched = touched[~placed.ravel()[touched]]
        score.ravel()[touched] = doc_scores(touched)
    return out


def _offsets(n: np.ndarray) -> np.ndarray:
    """CSR offsets of consecutive segments of lengths ``n``."""
    return np.concatenate([[0], np.cumsum(n)]).astype(np.int64)


def _doc_desc_rank(ctx) -> np.ndarray:
    """Per doc code (judged positively for some aspect): ascending = docno bytes descending."""

    def build():
        a = ctx.aligned
        used = np.unique(a.sub_doc[a.sub_rel > 0])
        judged = a.judged_docs
        names = np.array([judged[x].encode("utf-8") for x in used], dtype=object)
        order = np.argsort(names, kind="stable")[::-1]
        r = np.full(len(judged) + 1, -1, np.int64)
        r[used[order]] = np.arange(len(used))
        return r

    return ctx.memo("div_doc_desc_rank", build)


def _ideal_topic_sum(offs: np.ndarray, gains: np.ndarray, disc, k: int | None) -> np.ndarray:
    """Σ_{i<=k} gains_i · disc(i) per topic of a CSR ideal."""
    T = len(offs) - 1
    lens = np.diff(offs)
    rank = np.arange(len(gains)) - np.repeat(offs[:-1], lens) + 1
    v = gains * disc(rank)
    if k is not None:
        v = np.where(rank <= k, v, 0.0)
    topic = np.repeat(np.arange(T), lens)
    return np.bincount(topic, weights=v, minlength=T)


# ----------------------------------------------------------------------------- kernels
def _safe_div(num, den):
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


_IDEAL_IDEAL_MAX_TERMS = 10**8


def _ideal_ideal(alpha: float, k: int, disc, *, chunk: int = 1 << 20) -> float:
    """ndeval's "ideal ideal" Σ_{i<=k} (1−α)^{i−1} disc(i), summed left to right in blocks.

    Memory is one block whatever k is.  The sum stops once a term no longer changes it
    (the terms decrease, so no later term can): bit-for-bit the full left-to-right sum.
    A k needing more than 10**8 terms (α = 0 and a huge k) is refused.
    """
    total = 0.0
    start = 1
    while start <= k:
        if start > _IDEAL_IDEAL_MAX_TERMS:
            from ..errors import MeasureParamError

            raise MeasureParamError(
                f"@{k}: the normalising sum over {k} ranks does not converge in float64 with alpha={alpha} "
                f"within {_IDEAL_IDEAL_MAX_TERMS} terms; use a cutoff up to {_IDEAL_IDEAL_MAX_TERMS} or alpha > 0"
            )
        i = np.arange(start, min(k, start + chunk - 1) + 1)
        terms = np.power(1.0 - alpha, i - 1) * disc(i)
        run = np.cumsum(np.concatenate(([total], terms)))
        total = float(run[-1])
        if total + float(terms[-1]) == total:  # every later (smaller) term vanishes too
            break
        start = int(i[-1]) + 1
    return total


def alpha_dcg_raw(
    ctx, alpha: float, graded: bool, k: int | None, *, weighted: bool = False, disc=_log2_disc
) -> np.ndarray:
    """Σ_{i<=k} disc(i) Σ_t [w(t)] r(d_i,t) (1 − α)^{c(i,t)} per group."""
    p = pairs(ctx)
    v = _alpha_pair_gain(ctx, alpha, graded)
    if weighted:
        v = v * aspect_weights(ctx, graded=graded)[p.aspect]
    return _by_group(ctx, p, v * disc(p.rank), k)


def alpha_dcg(ctx, alpha, graded, k):
    """ndeval alpha-DCG@k: raw α-DCG divided by the 'ideal ideal' N Σ (1−α)^{i−1}/log2(i+1)."""
    raw = alpha_dcg_raw(ctx, alpha, graded, k)
    n = _n_aspects(ctx, graded=graded)
    return _safe_div(raw, n * _ideal_ideal(alpha, k, _log2_disc))


def alpha_ndcg(ctx, alpha, graded, k):
    raw = alpha_dcg_raw(ctx, alpha, graded, k)
    offs, gains = ideal_alpha_gains(ctx, alpha, graded, False, k)
    ideal = _ideal_topic_sum(offs, gains, _log2_disc, k)[ctx.aligned.group_topic]
    return np.where(raw > 0, _safe_div(raw, ideal), 0.0)


def _rr_disc(rank):
    return 1.0 / rank


def err_ia(ctx, alpha, k, *, normalize: str):
    """ndeval ERR-IA@k (normalize='ideal_ideal') or nERR-IA@k (normalize='ideal')."""
    weighted = ctx.options.get("weights") is not None
    raw = alpha_dcg_raw(ctx, alpha, False, k, weighted=True, disc=_rr_disc)
    if normalize == "ideal_ideal":
        return _safe_div(raw, _ideal_ideal(alpha, k, _rr_disc))
    offs, gains = ideal_alpha_gains(ctx, alpha, False, weighted, k)
    ideal = _ideal_topic_sum(offs, gains, _rr_disc, k)[ctx.aligned.group_topic]
    if not weighted:  # the greedy ideal is unweighted: scale by the uniform 1/N
        ideal = _safe_div(ideal, _n_aspects(ctx, graded=False))
    return np.where(raw > 0, _safe_div(raw, ideal), 0.0)


def nrbp(ctx, alpha, beta, graded, *, normalized: bool):
    p = pairs(ctx)
    v = _alpha_pair_gain(ctx, alpha, graded) * np.power(beta, p.rank - 1.0)
    raw = _by_group(ctx, p, v, None)
    n = _n_aspects(ctx, graded=graded)
    val = _safe_div(raw * (1.0 - (1.0 - alpha) * beta), n)
    if not normalized:
        return val
    offs, gains = ideal_alpha_gains(ctx, alpha, graded, False, None, beta=beta)
    ideal = _ideal_topic_sum(offs, gains, lambda r: np.power(beta, r - 1.0), None)
    ideal = _safe_div(ideal[ctx.aligned.group_topic] * (1.0 - (1.0 - alpha) * beta), n)
    return np.where(raw > 0, _safe_div(val, ideal), 0.0)


def ap_ia(ctx, k=None):
    p = pairs(ctx)
    b = _binary(ctx, p)
    cnt = segment_cumsum(b.astype(np.int64), p.seg)
    asp = aspects(ctx)
    w = aspect_weights(ctx, graded=False)
    v = np.where(b, cnt / p.rank, 0.0) * _safe_div(w[p.aspect], asp.nrel[p.aspect])
    return _by_group(ctx, p, v, k)


def p_ia(ctx, k):
    p = pairs(ctx)
    b = _binary(ctx, p)
    w = aspect_weights(ctx, graded=False)
    return _by_group(ctx, p, np.where(b, w[p.aspect], 0.0), k) / k


def _first_binary(ctx):
    p = pairs(ctx)
    b = _binary(ctx, p)
    return b & (_exclusive_count(b, p.seg) == 0)


def st_recall(ctx, k):
    p = pairs(ctx)
    first = _first_binary(ctx)
    return _safe_div(_by_group(ctx, p, first.astype(np.float64), k), _n_aspects(ctx, graded=False))


def rr_ia(ctx, k):
    p = pairs(ctx)
    first = _first_binary(ctx)
    w = aspect_weights(ctx, graded=False)
    return _by_group(ctx, p, np.where(first, w[p.aspect] / p.rank, 0.0), k)


def s_rr(ctx, k):
    """1 / (rank at which every relevant aspect is covered), 0 if never (within k)."""
    a = ctx.aligned
    p = pairs(ctx)
    first = _first_binary(ctx)
    if k is not None:
        first = first & (p.rank <= k)
    covered = np.bincount(p.group, weights=first, minlength=a.n_groups)
    last = np.zeros(a.n_groups)
    np.maximum.at(last, p.group[first], p.rank[first].astype(np.float64))
    n = _n_aspects(ctx, graded=False)
    return np.where((n > 0) & (covered >= n), _safe_div(1.0, last), 0.0)


def _cascade(ctx, r: np.ndarray) -> np.ndarray:
    """r(d_i,t) Π_{j<i} (1 − r(d_j,t)) per pair."""
    p = pairs(ctx)
    return r * _exclusive_cumprod(1.0 - r, p.seg)


def err_ia_graded(ctx, k):
    """Σ_t w(t) Σ_{i<=k} (1/i) r_i Π_{j<i}(1 − r_j), r = (2^g − 1)/2^gmax (Agrawal/Chapelle)."""
    p = pairs(ctx)
    r = err_gain(ctx, p)
    w = aspect_weights(ctx, graded=True)
    return _by_group(ctx, p, _cascade(ctx, r) * w[p.aspect] / p.rank, k)


def rbp_ia(ctx, prob, k=None):
    """Σ_t w(t) Σ_i (1 − p) p^{i−1} r(d_i,t), r = (2^g − 1)/2^gmax."""
    p = pairs(ctx)
    r = err_gain(ctx, p)
    w = aspect_weights(ctx, graded=True)
    return _by_group(ctx, p, (1 - prob) * np.power(prob, p.rank - 1.0) * r * w[p.aspect], k)


def rbu(ctx, prob, effort, k=None):
    """Rank-Biased Utility (Amigó et al., SIGIR 2018, Eq. 11, authors' conventions; see module doc)."""
    a = ctx.aligned
    p = pairs(ctx)
    r = err_gain(ctx, p)
    w = aspect_weights(ctx, graded=True)
    util = _by_group(
        ctx, p, (1 - prob) * np.power(prob, p.rank - 1.0) * _cascade(ctx, r) * w[p.aspect], k
    )
    n = a.group_len if k is None else np.minimum(a.group_len, k)
    return util - effort * (1.0 - np.power(prob, n.astype(np.float64)))


def ndcg_ia(ctx, k):
    """Σ_t w(t) nDCG_t@k, linear gain = grade, ideal per aspect from its judgments."""
    a = ctx.aligned
    p = pairs(ctx)
    asp = aspects(ctx)
    inv = _sub_aspect(ctx)
    pos = a.sub_rel > 0
    s_asp, s_g = inv[pos], a.sub_rel[pos]
    o = np.lexsort((-s_g, s_asp))
    s_asp, s_g = s_asp[o], s_g[o]
    offs = np.searchsorted(s_asp, np.arange(asp.n + 1))
    rank = np.arange(len(s_g)) - np.repeat(offs[:-1], np.diff(offs)) + 1
    v = s_g / np.log2(rank + 1.0)
    if k is not None:
        v = np.where(rank <= k, v, 0.0)
    idcg = np.bincount(s_asp, weights=v, minlength=asp.n)
    w = aspect_weights(ctx, graded=True)
    val = p.grade / np.log2(p.rank + 1.0) * _safe_div(w[p.aspect], idcg[p.aspect])
    return _by_group(ctx, p, val, k)


def d_ndcg(ctx, k):
    """Sakai's D-nDCG@k: global gain GG(d) = Σ_t w(t) g(d,t), ideal = GG sorted descending."""
    a = ctx.aligned
    p = pairs(ctx)
    inv = _sub_aspect(ctx)
    w = aspect_weights(ctx, graded=True)
    dcg = _by_group(ctx, p, p.grade * w[p.aspect] / np.log2(p.rank + 1.0), k)
    pos = a.sub_rel > 0
    n_docs = len(a.judged_docs) + 1
    key = a.sub_topic[pos] * n_docs + a.sub_doc[pos]
    uk, kinv = np.unique(key, return_inverse=True)
    gg = np.bincount(kinv, weights=a.sub_rel[pos] * w[inv[pos]], minlength=len(uk))
    ut = uk // n_docs
    o = np.lexsort((-gg, ut))
    ut, gg = ut[o], gg[o]
    offs = np.searchsorted(ut, np.arange(len(a.topics) + 1))
    ideal = _ideal_topic_sum(offs, gg, lambda r: 1.0 / np.log2(r + 1.0), k)
    return _safe_div(dcg, ideal[a.group_topic])


def eu(ctx, alpha, effort, graded, k=None):
    """Expected Utility (Amigó et al., SIGIR 2018): Σ_i (Σ_t w r (1−α)^c − e) / (1 + log2 i)."""
    a = ctx.aligned
    p = pairs(ctx)
    v = _alpha_pair_gain(ctx, alpha, graded) * aspect_weights(ctx, graded=graded)[p.aspect]
    gain = _by_group(ctx, p, v / (1.0 + np.log2(p.rank)), k)
    n = a.group_len if k is None else np.minimum(a.group_len, k)
    cum = np.concatenate(
        [[0.0], np.cumsum(1.0 / (1.0 + np.log2(np.arange(1, int(n.max(initial=0)) + 1))))]
    )
    return gain - effort * cum[n]


def ct(ctx, alpha, sat, graded, k=None):
    """Cube Test in the form of Amigó et al., SIGIR 2018: Σ_i (1/i) Σ_t w r (1−α)^c f_sat, f_sat = [Σ_{j<i} r < sat]."""
    p = pairs(ctx)
    r, _ = alpha_gain(ctx, p, graded)
    filled = _exclusive_cumsum(r, p.seg)
    v = _alpha_pair_gain(ctx, alpha, graded) * aspect_weights(ctx, graded=graded)[p.aspect]
    v = np.where(filled < sat, v, 0.0)
    return _by_group(ctx, p, v / p.rank, k)
