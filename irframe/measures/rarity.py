"""Rarity ("innovation") of relevant documents and the rarity-weighted measures.

Türkmen, Lease & Kutlu, "New Metrics to Encourage Innovation and Diversity in Information Retrieval
Approaches", ECIR 2023 (doi:10.1007/978-3-031-28238-6_16).
The S_d lookup and the measure kernels; the frame-level tables ([`irframe.rarity.rarity`][irframe.rarity.rarity],
[`irframe.rarity.rare_finds`][irframe.rarity.rare_finds]) are in [`irframe.rarity`][irframe.rarity].

=====================================  ==========================================================
measure string                         definition
=====================================  ==========================================================
``P_rare(alpha=α)@k``                  (1/k) Σ_{i<=k} Rel(d_i)(1 + α R(d_i))            (Eq. 1)
``AP_rare(alpha=α)[@k]``               (1/NR) Σ_{i<=k} Rel(d_i) P_rare@i                 (Eq. 3)
``P_rare_norm(alpha=α)@k``             (1/k) Σ_{i<=k} Rel(d_i)((1 − α) + α R'(d_i))      (Eq. 4)
``AP_rare_norm(alpha=α)[@k]``          (1/NR) Σ_{i<=k} Rel(d_i) P_rare_norm@i
=====================================  ==========================================================

``alpha`` is required (α = 0 gives P@k / AP exactly); the ``_norm`` forms need α in [0, 1].
``rel=`` overrides the evaluation's ``rel_level``.  The cutoff k is also the depth within
which a system counts as retrieving a document for S_d.  Option ``reference=`` (a run
frame) of [`irframe.evaluate`][irframe.evaluate] / ``.ir.metric`` takes S_d and S from other runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..align import Aligned, align, segment_sum
from ..errors import EmptyOverlapError
from ..options import Options, check_rel_level
from ..options import check_k as _check_k
from ..params import REL
from ..schema import run_frame
from .registry import REQUIRED, EvalContext, Measure, MeasureDef, Param, parse_measure, register
from .trec_arrays import measure_rel_level
from .trec_arrays import num_rel as num_rel_groups

__all__ = [
    "RarityLookup",
    "ap_rare",
    "check_k",
    "p_rare",
    "rarity_lookup",
    "relevant_mask",
    "retrieved_relevant_rows",
]


# --------------------------------------------------------------------------- checks
def check_k(k) -> int | None:
    """The rarity cutoff: a positive integer, or None for the whole ranking."""
    return _check_k(k, what="the cutoff within which a system 'retrieves' a document")


def relevant_mask(grade: np.ndarray, rel_level: float) -> np.ndarray:
    """trec_eval relevance: truncated grade >= level and >= 0 (NaN = unjudged -> False)."""
    with np.errstate(invalid="ignore"):
        t = np.trunc(grade)
        return (t >= rel_level) & (t >= 0)


# --------------------------------------------------------------------------- S_d lookup
@dataclass(frozen=True)
class RarityLookup:
    """S_d per (topic, doc) in the code space of one [`Aligned`][irframe.align.Aligned].

    Attributes
    ----------
    keys : numpy.ndarray
        Sorted int64 keys ``topic_code * n_docs + doc_code`` of relevant documents
        retrieved within k by at least one system.
    counts : numpy.ndarray
        S_d of each key.
    n_systems : int
        S.
    n_docs : int
        Key multiplier (``len(aligned.judged_docs)``).
    """

    keys: np.ndarray
    counts: np.ndarray
    n_systems: int
    n_docs: int

    def s_d(self, topic: np.ndarray, doc: np.ndarray) -> np.ndarray:
        """S_d for (topic code, doc code) pairs (0 where nobody retrieved the document).

        Parameters
        ----------
        topic, doc : numpy.ndarray
            Topic and doc codes of the [`Aligned`][irframe.align.Aligned].

        Returns
        -------
        numpy.ndarray
            int64 S_d per pair.
        """
        q = np.asarray(topic, np.int64) * self.n_docs + np.asarray(doc, np.int64)
        if len(self.keys) == 0:
            return np.zeros(len(q), dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.keys, q), len(self.keys) - 1)
        return np.where(self.keys[pos] == q, self.counts[pos], 0).astype(np.int64)

    def rarity(self, s_d: np.ndarray) -> np.ndarray:
        """R(d) = 1 − S_d/S (Eq. 2).

        Parameters
        ----------
        s_d : numpy.ndarray
            S_d per document.

        Returns
        -------
        numpy.ndarray
        """
        return 1.0 - np.asarray(s_d, np.float64) / self.n_systems

    def rarity_norm(self, s_d: np.ndarray) -> np.ndarray:
        """R'(d) = 1 − (S_d − 1)/(S − 1), clipped to [0, 1]; 1 when S = 1 (§5.2).

        Parameters
        ----------
        s_d : numpy.ndarray
            S_d per document.

        Returns
        -------
        numpy.ndarray
        """
        s_d = np.asarray(s_d, np.float64)
        if self.n_systems <= 1:
            return np.ones(len(s_d))
        return np.clip(1.0 - (s_d - 1.0) / (self.n_systems - 1), 0.0, 1.0)


def retrieved_relevant_rows(
    a: Aligned, k: int | None, rel_level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Rows that are relevant and within the top k, and their (topic, doc) keys."""
    sel = relevant_mask(a.row_rel, rel_level)
    if k is not None:
        sel &= a.row_rank <= k
    rows = np.flatnonzero(sel)
    keys = a.row_topic[rows] * max(len(a.judged_docs), 1) + a.row_judged_doc[rows]
    return rows, keys


def rarity_lookup(
    aligned: Aligned,
    *,
    k: int | None = 100,
    rel_level: float = 1,
    reference: pd.DataFrame | None = None,
) -> RarityLookup:
    """Count, for every relevant document, the systems retrieving it within the top k.

    Parameters
    ----------
    aligned : Aligned
        The evaluated runs; the lookup uses its topic and doc codes.
    k : int or None
        Cutoff; None counts retrieval at any depth.
    rel_level : float
        Relevant ⇔ truncated grade >= rel_level (trec_eval's convention).
    reference : DataFrame, optional
        Runs whose systems define S_d and S instead of ``aligned``'s systems.

    Returns
    -------
    RarityLookup
    """
    k = check_k(k)
    level = check_rel_level(rel_level)
    a = aligned
    nd = max(len(a.judged_docs), 1)  # relevant docs are judged: no table of every run doc
    if reference is None:
        _, keys = retrieved_relevant_rows(a, k, level)
        uk, cnt = np.unique(keys, return_counts=True)
        return RarityLookup(uk, cnt.astype(np.int64), len(a.systems), nd)
    if not isinstance(reference, pd.DataFrame):
        raise TypeError(
            f"reference must be a run frame (pandas DataFrame), got {type(reference).__name__}"
        )
    qrels = pd.DataFrame(
        {
            "topic": a.topics[a.qrels_topic].to_numpy(),
            "doc": a.judged_docs[a.qrels_doc],
            "rel": a.qrels_rel,
        }
    )
    try:
        opts = Options(order=a.order, depth=a.depth, judged_only=a.judged_only)  # checked already
        ref = align(reference, qrels, opts=opts)
    except EmptyOverlapError:  # the reference retrieved none of these topics: no document is rare
        ref_frame, rc = run_frame(reference)
        n_ref = len(pd.unique(ref_frame[rc.system]))
        return RarityLookup(np.zeros(0, np.int64), np.zeros(0, np.int64), n_ref, nd)
    except (KeyError, ValueError) as e:
        raise type(e)(f"reference=: {e}") from None
    _, rkeys = retrieved_relevant_rows(ref, k, level)
    uk, cnt = np.unique(rkeys, return_counts=True)
    rnd = max(len(ref.judged_docs), 1)
    rt, rdoc = uk // rnd, uk % rnd
    t_map = a.topics.get_indexer(ref.topics)[rt] if len(uk) else np.zeros(0, np.int64)
    used, inv = np.unique(rdoc, return_inverse=True)
    d_map = (
        pd.Index(a.judged_docs).get_indexer(ref.judged_docs[used])[inv]
        if len(uk)
        else np.zeros(0, np.int64)
    )
    ok = (t_map >= 0) & (d_map >= 0)
    mk = t_map[ok].astype(np.int64) * nd + d_map[ok]
    o = np.argsort(mk)
    return RarityLookup(mk[o], cnt[ok][o].astype(np.int64), len(ref.systems), nd)


# --------------------------------------------------------------------------- measure kernels
# Both measures are linear in α:  P_rare = P@k + α·(1/k) Σ Rel·R  and
# AP_rare = AP + α·(1/NR) Σ_i Rel(d_i)·(Σ_{j<=i} Rel(d_j) R(d_j))/i  (and (1 − α)·base + α·… for
# the normalised forms).  The base is trec_eval's P@k / AP kernel itself, so α = 0 gives
# exactly P@k and AP.  Rarity is a ratio of integers, R = (S − S_d)/S and
# R' = min(S − S_d, S − 1)/(S − 1), so the rarity part accumulates integer numerators
# exactly and divides once: no floating-point cumulative sum runs across groups.
def _row_numerators(
    aligned: Aligned, look: RarityLookup, k: int | None, level: float, normalized: bool
) -> tuple[np.ndarray, np.ndarray, int]:
    """(relevant rows within k, rarity numerator per row, common denominator)."""
    rows, _ = retrieved_relevant_rows(aligned, k, level)
    s_d = look.s_d(aligned.row_topic[rows], aligned.row_judged_doc[rows])
    S = look.n_systems
    if not normalized:
        return rows, S - s_d, S
    if S <= 1:
        return rows, np.ones(len(rows), dtype=np.int64), 1
    return rows, np.minimum(S - s_d, S - 1), S - 1


def _int_segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    total = np.cumsum(values, dtype=np.int64)
    if len(total) == 0:
        return total
    before = np.concatenate([[0], total])[offsets[:-1]]
    return total - np.repeat(before, np.diff(offsets))


def _mix(base: np.ndarray, extra: np.ndarray, alpha: float, normalized: bool) -> np.ndarray:
    if normalized:
        return (1.0 - alpha) * base + alpha * extra
    return base + alpha * extra


def p_rare(
    aligned: Aligned,
    *,
    alpha: float,
    k: int | None,
    lookup: RarityLookup,
    base: np.ndarray,
    rel_level: float = 1,
    normalized: bool = False,
) -> np.ndarray:
    """P@k_rareness (Eq. 1) or P'@k_rareness (Eq. 4, ``normalized=True``) per group (G,).

    A kernel: every input is explicit -- ``lookup`` (S_d, from [`rarity_lookup`][irframe.rarity.rarity_lookup] at the
    same ``k``) and ``base`` (trec_eval's P@k per group, which α = 0 returns bit for bit).
    On frames, use the measure strings through [`irframe.evaluate`][irframe.evaluate] (or
    [`irframe.evaluate`][irframe.evaluate] of aligned arrays), which align, run this kernel and build the cube.

    Parameters
    ----------
    aligned : Aligned
        The aligned arrays ([`irframe.align.align`][irframe.align.align]).
    alpha : float
        The rarity weight (Eq. 1; the mixture weight of Eq. 4 with ``normalized``).
    k : int or None
        The cutoff (None: each ranking's length).
    lookup : RarityLookup
        S_d of every relevant document, from [`rarity_lookup`][irframe.rarity.rarity_lookup] at the same ``k``.
    base : numpy.ndarray
        trec_eval's P@k per group.
    rel_level : float, default 1
        A document is relevant when its grade is at least ``rel_level``.
    normalized : bool, default False
        P'@k (Eq. 4) instead of P@k_rareness (Eq. 1).

    Returns
    -------
    numpy.ndarray
        One value per group (G,).
    """
    k = check_k(k)
    if k is None:
        raise ValueError("P_rare needs a cutoff k (it divides by k)")
    a = aligned
    rows, num, den = _row_numerators(a, lookup, k, rel_level, normalized)
    num_sum = np.bincount(a.row_group[rows], weights=num, minlength=a.n_groups)  # integers: exact
    extra = num_sum / den / k  # (1/k) Σ Rel·R
    return _mix(base, extra, alpha, normalized)


def ap_rare(
    aligned: Aligned,
    *,
    alpha: float,
    k: int | None,
    lookup: RarityLookup,
    base: np.ndarray,
    rel_level: float = 1,
    num_rel: np.ndarray | None = None,
    normalized: bool = False,
) -> np.ndarray:
    """AP_rareness (Eq. 3; ``normalized=True``: with the P' weights) per group (G,).

    A kernel like [`p_rare`][irframe.rarity.p_rare]: ``base`` is trec_eval's AP (AP@k) per group; ``num_rel``
    (per group) defaults to the relevant documents of the topic in the qrels.

    Parameters
    ----------
    aligned : Aligned
        The evaluated runs.
    alpha : float
        Weight of rarity (α = 0 gives the base measure).
    k : int
        Cutoff.
    lookup : RarityLookup
        S_d from [`rarity_lookup`][irframe.rarity.rarity_lookup] at the same ``k``.
    base : numpy.ndarray
        The base measure per group.
    rel_level : float
        Relevant ⇔ grade >= rel_level.
    num_rel : numpy.ndarray, optional
        Relevant documents per group.
    normalized : bool
        With the P' weights.

    Returns
    -------
    numpy.ndarray
        One value per group.
    """
    k = check_k(k)
    a = aligned
    rows, num, den = _row_numerators(a, lookup, k, rel_level, normalized)
    grp = a.row_group[rows]
    roff = np.concatenate([[0], np.cumsum(np.bincount(grp, minlength=a.n_groups))]).astype(np.int64)
    cum_num = _int_segment_cumsum(num, roff)  # Σ_{j<=i} numerators, exact
    terms = cum_num / den / a.row_rank[rows]
    total = segment_sum(terms, roff)  # each group's relevant rows only
    if num_rel is None:
        nrel_t = np.bincount(
            a.qrels_topic, weights=relevant_mask(a.qrels_rel, rel_level), minlength=len(a.topics)
        ).astype(np.int64)
        num_rel = nrel_t[a.group_topic]
    num_rel = np.asarray(num_rel, dtype=np.float64)
    extra = np.zeros(a.n_groups)
    np.divide(total, num_rel, out=extra, where=num_rel != 0)
    return _mix(base, extra, alpha, normalized)


# --------------------------------------------------------------------------- registration
def _lookup(ctx: EvalContext, m: Measure) -> RarityLookup:
    ref = ctx.options.get("reference")
    level = measure_rel_level(ctx, m)
    key = ("rarity_lookup", m.cutoff, level, id(ref) if ref is not None else None)
    return ctx.memo(
        key, lambda: rarity_lookup(ctx.aligned, k=m.cutoff, rel_level=level, reference=ref)
    )


def _base(ctx: EvalContext, name: str, m: Measure, level: float) -> np.ndarray:
    """trec_eval's P@k / AP[@k] through its registered kernel (memoised with the context)."""
    base = parse_measure(
        f"{name}(rel={float(level)!r})" + ("" if m.cutoff is None else f"@{m.cutoff}")
    )
    return ctx.memo(("rarity_base", base.key), lambda: base.definition.compute(ctx, base))


def _p(normalized: bool):
    def compute(ctx: EvalContext, m: Measure) -> np.ndarray:
        level = measure_rel_level(ctx, m)
        return p_rare(
            ctx.aligned,
            alpha=float(m.param("alpha")),
            k=m.cutoff,
            rel_level=level,
            normalized=normalized,
            lookup=_lookup(ctx, m),
            base=_base(ctx, "P", m, level),
        )

    return compute


def _ap(normalized: bool):
    def compute(ctx: EvalContext, m: Measure) -> np.ndarray:
        level = measure_rel_level(ctx, m)
        return ap_rare(
            ctx.aligned,
            alpha=float(m.param("alpha")),
            k=m.cutoff,
            rel_level=level,
            num_rel=num_rel_groups(ctx, level),
            normalized=normalized,
            lookup=_lookup(ctx, m),
            base=_base(ctx, "AP", m, level),
        )

    return compute


ALPHA = Param("float", REQUIRED, description="rarity weight (0 gives P@k / AP)")
ALPHA_NORM = Param(
    "float", REQUIRED, low=0, high=1, description="mixture weight of rarity (0 gives P@k / AP)"
)


_COMMON: dict[str, Any] = {
    "family": "rarity",
    "options": frozenset({"reference"}),
    # S_d counts the systems retrieving d for the same topic: topic-local, not system-local
    "topic_local": True,
    "system_local": False,
    "reference": "Turkmen et al. 2023 formulas (authors' conventions)",
    "citation": "Türkmen, Lease & Kutlu 2023, New Metrics to Encourage Innovation and Diversity "
    "in Information Retrieval Approaches, ECIR",
}
register(
    MeasureDef(
        "P_rare",
        _p(False),
        params={"alpha": ALPHA, "rel": REL},
        cutoff="required",
        **_COMMON,
        description="rarity-weighted precision (1/k) sum Rel(d)(1 + alpha R(d)) (Turkmen et al. Eq. 1)",
    )
)
register(
    MeasureDef(
        "AP_rare",
        _ap(False),
        params={"alpha": ALPHA, "rel": REL},
        cutoff="optional",
        **_COMMON,
        description="rarity-weighted AP: (1/NR) sum Rel(d_i) P_rare@i (Turkmen et al. Eq. 3)",
    )
)
register(
    MeasureDef(
        "P_rare_norm",
        _p(True),
        params={"alpha": ALPHA_NORM, "rel": REL},
        cutoff="required",
        **_COMMON,
        description="bounded mixture P'@k: (1/k) sum Rel(d)((1-alpha) + alpha R'(d)) (Eq. 4), in [0, 1]",
    )
)
register(
    MeasureDef(
        "AP_rare_norm",
        _ap(True),
        params={"alpha": ALPHA_NORM, "rel": REL},
        cutoff="optional",
        **_COMMON,
        description="AP analogue of P_rare_norm: (1/NR) sum Rel(d_i) P_rare_norm@i, in [0, 1]",
    )
)
