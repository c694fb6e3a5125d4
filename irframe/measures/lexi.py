"""Lexicographic evaluation kernels and measures (F. Diaz & B. Mitra, "Recall as a Measure of
Ranking Robustness", 2023).

Relevant positions of every (system, topic), the sort keys of lexirecall / lexiprecision, exposure
functions and metric lexirecall live here; the frame-level preference cubes and their analysis
in [`irframe.lexi`][irframe.lexi].  Registered measures, for ``.ir.metric``:


* ``TSE(n=..., e=AP)`` -- total search efficiency ``e(p_m)`` (Eq. 3) with pessimistic
  imputation in a corpus of ``n`` documents; ``e`` is one of ``AP`` (1/i), ``NDCG``
  (1/log2(i+1)), ``RBP`` ((1-p) p^(i-1), parameter ``p``), ``R`` (I(i <= k), parameter
  ``k``), ``RP`` (I(i <= m)).
* ``LR`` -- metric lexirecall (§7.3.2).  Default ``repr=rank``: the share of the other
  systems' rankings of the topic (in this evaluation; a missing ranking is its worst
  case) that this ranking strictly beats under lexirecall -- orders rankings exactly
  like lexirecall, needs no ``n``.  ``LR(n=..., repr=float)`` is the paper's formula in
  float64 (loses order at large n; see [`irframe.lexi.metric_lexirecall`][irframe.lexi.metric_lexirecall] for the
  exact rational value).

Relevant ⇔ grade >= the evaluation's ``rel_level`` (grades not truncated).  A topic
without relevant documents scores 0 (trec_eval's convention for undefined measures).

Examples
--------
>>> import pandas as pd, irframe as irf
>>> runs = pd.DataFrame({"system": "a", "topic": "1", "doc": ["r1", "x", "r2"], "score": [3, 2, 1]})
>>> qrels = pd.DataFrame({"topic": "1", "doc": ["r1", "r2"], "rel": 1})
>>> float(irf.evaluate(runs, qrels, "TSE(n=1000)").item())
0.3333333333333333
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ..align import Aligned, segment_max, segment_sum
from ..options import check_rel_level
from .registry import REQUIRED, EvalContext, Measure, MeasureDef, MeasureParamError, Param, register

__all__ = [
    "EXPOSURES",
    "Positions",
    "bottom_position",
    "check_corpus_size",
    "dense_classes",
    "exposure",
    "imputed_positions",
    "key_classes",
    "metric_lexirecall_values",
    "precision_keys",
    "recall_keys",
    "relevant_positions",
    "sign_matrix",
]


# =====================================================================================
# relevant positions per (system, topic)
# =====================================================================================
@dataclass
class Positions:
    """Ranks of the retrieved relevant documents of every (system, kept topic) cell.

    Cells form the full ``S x T'`` grid (cell = s * T' + t); a system that did not
    run a topic has an empty cell (k = 0, its worst case).
    """

    systems: pd.Index
    topics: pd.Index  # kept topics (with at least one relevant document)
    m: np.ndarray  # (T',) relevant documents per kept topic
    k: np.ndarray  # (S*T',) relevant retrieved per cell
    length: np.ndarray  # (S*T',) ranking length per cell (0 when missing)
    cell: np.ndarray  # (R,) cell of every retrieved relevant document
    j: np.ndarray  # (R,) 0-based index among the cell's relevant docs (top first)
    rank: np.ndarray  # (R,) 1-based rank
    n_dropped_topics: int
    dropped_topics: list

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.systems), len(self.topics)

    @property
    def max_k(self) -> int:
        return int(self.k.max()) if len(self.k) else 0


def relevant_positions(a: Aligned, rel_level: float) -> Positions:
    rel_level = float(check_rel_level(rel_level))
    n_t_all = len(a.topics)
    m_all = np.bincount(
        a.qrels_topic, weights=(a.qrels_rel >= rel_level), minlength=n_t_all
    ).astype(np.int64)
    keep = m_all > 0
    kept = np.flatnonzero(keep)
    recode = np.full(n_t_all, -1, np.int64)
    recode[kept] = np.arange(len(kept))
    S, T = len(a.systems), len(kept)
    g_t = recode[a.group_topic]
    g_ok = g_t >= 0
    g_cell = np.where(g_ok, a.group_system * T + g_t, -1)

    with np.errstate(invalid="ignore"):
        idx = np.flatnonzero(a.row_rel >= rel_level)  # NaN (unjudged) -> not relevant
    # group and rank of the relevant rows only (no N-sized int64 temporaries)
    grp = np.searchsorted(a.offsets, idx, side="right") - 1
    rank = idx - a.offsets[grp] + 1
    cell = g_cell[grp]
    ok = cell >= 0
    cell, rank = cell[ok], rank[ok]
    # rows are sorted by group then rank: index among the cell's relevant documents
    starts = np.searchsorted(cell, cell, side="left") if len(cell) else cell
    j = np.arange(len(cell), dtype=np.int64) - starts
    k = np.bincount(cell, minlength=S * T).astype(np.int64)
    length = np.zeros(S * T, np.int64)
    length[g_cell[g_ok]] = a.group_len[g_ok]
    dropped = [str(t) for t in a.topics[~keep]]
    return Positions(
        systems=a.systems,
        topics=a.topics[kept],
        m=m_all[kept],
        k=k,
        length=length,
        cell=cell,
        j=j,
        rank=rank,
        n_dropped_topics=int((~keep).sum()),
        dropped_topics=dropped,
    )


def _key_dtype(pos: Positions) -> tuple[np.dtype, int]:
    max_rank = int(pos.rank.max()) if len(pos.rank) else 0
    need = max(max_rank, len(pos.topics), pos.max_k + 1)
    if need < 0xFFFF:
        return np.dtype(">u2"), 0xFFFF
    return np.dtype(">u4"), 0xFFFFFFFF


def recall_keys(
    pos: Positions, cells: np.ndarray | None = None, width: int | None = None
) -> np.ndarray:
    """Rows ``[topic, L-k, r_k, r_{k-1}, ..., r_1, 0...]``: ascending = better (lexirecall).

    ``cells`` (default all, ``s * T' + t``): the rows of those cells only, ``L = width``
    (at least their largest k; default ``pos.max_k``).
    """
    return _keys(pos, "recall", cells, width)


def precision_keys(
    pos: Positions, cells: np.ndarray | None = None, width: int | None = None
) -> np.ndarray:
    """Rows ``[topic, r_1, ..., r_k, MAX...]``: ascending = better (lexiprecision); ``cells``
    and ``width`` as for [`recall_keys`][irframe.measures.lexi.recall_keys]."""
    return _keys(pos, "precision", cells, width)


def _keys(pos: Positions, kind: str, cells: np.ndarray | None, width: int | None) -> np.ndarray:
    S, T = pos.shape
    cells = np.arange(S * T) if cells is None else np.asarray(cells, dtype=np.int64)
    L = pos.max_k if width is None else int(width)
    dt, sentinel = _key_dtype(pos)
    row_of = np.full(S * T, -1, dtype=np.int64)
    row_of[cells] = np.arange(len(cells))
    mine = row_of[pos.cell] >= 0  # the relevant documents of these cells
    row, cell, j = row_of[pos.cell[mine]], pos.cell[mine], pos.j[mine]
    if kind == "recall":
        M = np.zeros((len(cells), 2 + L), dtype=dt)
        M[:, 1] = L - pos.k[cells]
        M[row, 2 + pos.k[cell] - 1 - j] = pos.rank[mine]
    else:
        M = np.full((len(cells), 1 + L), sentinel, dtype=dt)
        M[row, 1 + j] = pos.rank[mine]
    M[:, 0] = cells % T if T else 0
    return M


def key_classes(pos: Positions, kind: str) -> np.ndarray:
    """Dense class of every cell (``S * T'``) by its lexirecall (``kind="recall"``) or
    lexiprecision key: within a topic, a lower class is better and equal keys share one.

    The keys are built for groups of topics of similar width (their largest k rounded up to
    a power of two), so memory follows the relevant documents of each topic, not every cell
    padded to the largest k of any topic.  Classes of different topics are not comparable.
    """
    S, T = pos.shape
    out = np.zeros(S * T, dtype=np.int64)
    if S * T == 0:
        return out
    widest = pos.k.reshape(S, T).max(axis=0)  # per topic
    bucket = np.where(widest > 0, 1 << np.ceil(np.log2(np.maximum(widest, 1))).astype(np.int64), 0)
    offset = 0
    for b in np.unique(bucket):  # a few widths: powers of two
        topics = np.flatnonzero(bucket == b)
        cells = (np.arange(S)[:, None] * T + topics[None, :]).ravel()
        cls, _ = dense_classes(_keys(pos, kind, cells, int(b)))
        out[cells] = cls + offset
        offset += int(cls.max()) + 1 if len(cls) else 0
    return out


def dense_classes(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense class of every row (ascending lexicographic order) and the sort order.

    Rows are fixed-width big-endian unsigned integers, so byte order = numeric
    lexicographic order; one ``argsort`` of the byte strings sorts them.
    """
    if M.shape[0] == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    M = np.ascontiguousarray(M)
    b = M.view(f"S{M.shape[1] * M.dtype.itemsize}").ravel()
    order = np.argsort(b, kind="stable")
    Ms = M[order]
    new = np.empty(len(order), bool)
    new[0] = True
    new[1:] = (Ms[1:] != Ms[:-1]).any(axis=1)
    cls = np.empty(len(order), np.int64)
    cls[order] = np.cumsum(new) - 1
    return cls, order


def sign_matrix(cls: np.ndarray, S: int, T: int) -> np.ndarray:
    """``pref[s, o, t] = sign(cls[o, t] - cls[s, t])`` (lower class = better) as int8."""
    c = cls.reshape(S, T)
    a, b = c[:, None, :], c[None, :, :]
    out = np.greater(b, a).view(np.int8)
    out = out - np.less(b, a).view(np.int8)
    return out


def _e_ap(p, m, **kw):
    return 1.0 / p


def _e_ndcg(p, m, **kw):
    return 1.0 / np.log2(p + 1.0)


def _e_rbp(p, m, *, p_rbp=0.8, **kw):
    return (1.0 - p_rbp) * np.power(p_rbp, p - 1.0)


def _e_recall(p, m, *, k=1000, **kw):
    return (p <= k).astype(np.float64)


def _e_rp(p, m, **kw):
    return (p <= m).astype(np.float64)


EXPOSURES: dict[str, Callable] = {
    "AP": _e_ap,
    "NDCG": _e_ndcg,
    "RBP": _e_rbp,
    "R": _e_recall,
    "RP": _e_rp,
}
"""Exposure functions of Diaz & Mitra 2023, §2.3/§3.2: ``e(i)`` for AP, NDCG, RBP(γ), R_k, RP."""


def exposure(
    e: str | Callable, positions: np.ndarray, m: np.ndarray | int, *, p: float = 0.8, k: int = 1000
) -> np.ndarray:
    """Exposure ``e(i)`` at the given (1-based) positions.

    Parameters
    ----------
    e : {"AP", "NDCG", "RBP", "R", "RP"} or callable
        ``AP``: 1/i; ``NDCG``: 1/log2(i+1); ``RBP``: (1-p) p^(i-1); ``R``: I(i <= k);
        ``RP``: I(i <= m).  A callable is called as ``e(positions)`` (or
        ``e(positions, m)`` when it takes two arguments) and must return an array.
    positions : array of int
    m : int or array
        Number of relevant documents (used by ``RP``).
    p, k : float, int
        RBP persistence γ and the recall cutoff k.

    Returns
    -------
    numpy.ndarray
        Same shape as ``positions``.

    Examples
    --------
    >>> exposure("AP", np.array([1, 4]), 2).tolist()
    [1.0, 0.25]
    >>> exposure("RP", np.array([1, 3]), 2).tolist()
    [1.0, 0.0]
    """
    positions = np.asarray(positions, dtype=np.float64)
    if callable(e):
        try:
            nargs = len(inspect.signature(e).parameters)
        except (TypeError, ValueError):  # pragma: no cover
            nargs = 1
        out = e(positions, m) if nargs >= 2 else e(positions)
        return np.asarray(out, dtype=np.float64)
    key = str(e).upper()
    if key in ("R_K", "RK", "RECALL"):
        key = "R"
    if key not in EXPOSURES:
        raise ValueError(
            f"unknown exposure {e!r}; use one of {sorted(EXPOSURES)} or a callable e(i)"
        )
    if key == "RBP" and not (0 < p < 1):
        raise ValueError(f"RBP persistence p must lie in (0, 1), got {p!r}")
    with np.errstate(divide="ignore", invalid="ignore"):  # position 0 = topic without relevant docs
        return EXPOSURES[key](positions, np.asarray(m, dtype=np.float64), p_rbp=p, k=k)


def check_corpus_size(n: Any, pos: Positions) -> int:
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"corpus size n must be a positive integer, got {n!r}")
    S, T = pos.shape
    if S * T:
        need = pos.length + (np.tile(pos.m, S) - pos.k)
        worst = int(need.max())
        if n < worst:
            raise ValueError(
                f"corpus size n={n} is too small: a ranking of {int(pos.length[need.argmax()])} "
                f"documents with {int(np.tile(pos.m, S)[need.argmax()] - pos.k[need.argmax()])} "
                f"unretrieved relevant documents needs n >= {worst} for pessimistic imputation"
            )
    return int(n)


def bottom_position(pos: Positions, n: int) -> np.ndarray:
    """p_m per cell: rank of the deepest relevant document, or n when one is unretrieved."""
    S, T = pos.shape
    last = np.zeros(S * T, np.int64)
    np.maximum.at(last, pos.cell, pos.rank)
    m_cell = np.tile(pos.m, S)
    return np.where(pos.k == m_cell, last, n)


def imputed_positions(pos: Positions, n: int) -> np.ndarray:
    """Full position vectors p (cells x max m), pessimistic imputation; 0-padded beyond m."""
    S, T = pos.shape
    M = int(pos.m.max()) if T else 0
    m_cell = np.tile(pos.m, S)
    P = np.zeros((S * T, M), np.int64)
    cols = np.arange(M)[None, :]
    P[:] = np.where(cols < m_cell[:, None], n - m_cell[:, None] + cols + 1, 0)
    P[pos.cell, pos.j] = pos.rank
    return P


# =====================================================================================
# metric lexirecall
# =====================================================================================
def metric_lexirecall_values(
    pos: Positions,
    n: int,
    epsilon: float | Fraction = Fraction(1, 2),
    representation: str = "exact",
) -> np.ndarray:
    """Metric lexirecall of every cell of ``pos`` (``S*T'``), see [`irframe.lexi.metric_lexirecall`][irframe.lexi.metric_lexirecall]."""
    S, T = pos.shape
    if representation == "rank":
        c = key_classes(pos, "recall").reshape(S, T)
        # per topic, the systems whose class is above (worse than) each one's: a sort of
        # each topic's classes, not an S x S comparison
        top = int(c.max()) + 1 if c.size else 1
        keyed = c + np.arange(T)[None, :] * top  # topics apart, each topic's classes in order
        flat = np.sort(keyed.T.ravel())
        at_most = np.searchsorted(flat, keyed.ravel(), side="right") - np.tile(np.arange(T) * S, S)
        beats = S - at_most
        vals = beats / max(S - 1, 1)
        return vals.astype(np.float64).ravel()
    eps = Fraction(str(epsilon)) if not isinstance(epsilon, Fraction) else epsilon
    if not (0 < eps < 1):
        raise ValueError(f"epsilon must lie in (0, 1), got {epsilon!r}")
    P = imputed_positions(pos, n)
    m_cell = np.tile(pos.m, S)
    Mmax = P.shape[1]
    if representation == "float":
        delta = 1.0 / (n + float(eps))
        i = np.arange(1, Mmax + 1)[None, :].astype(np.float64)
        mm = m_cell[:, None].astype(np.float64)
        with np.errstate(under="ignore"):
            logw = np.where(
                i == 1,
                (mm - 1) * (np.log(delta) - np.log1p(delta)),
                (mm - i) * np.log(delta) - (mm + 1 - i) * np.log1p(delta),
            )
            w = np.exp(np.where(i <= mm, logw, -np.inf))
        x = np.where(i <= mm, (n - P) / n, 0.0)
        # sum the smallest terms first
        vals = np.sum((w * x)[:, ::-1], axis=1)
        return vals
    if representation != "exact":
        raise ValueError(
            f"representation must be 'exact', 'float' or 'rank', got {representation!r}"
        )
    # exact: with c = n + ε = (b n + a)/b and C = b (c + 1) = b(n+1) + a,
    # LR = [b^(m-1) d_1 + (b n + a) Σ_{i=2}^m C^(i-2) b^(m-i) d_i] / (n C^(m-1)),  d_i = n - p_i
    a_, b_ = eps.numerator, eps.denominator
    C = b_ * (n + 1) + a_
    d = (n - P).astype(object)
    bpow = np.array([b_**e for e in range(Mmax + 1)], dtype=object)
    mexp = m_cell.astype(np.int64)
    H = np.zeros(S * T, dtype=object)
    Cp = 1
    for j in range(2, Mmax + 1):  # loop over recall levels, vectorised over rankings
        active = mexp >= j
        term = d[:, j - 1] * bpow[np.where(active, mexp - j, 0)] * Cp
        H = H + np.where(active, term, 0)
        Cp *= C
    num = bpow[np.maximum(mexp - 1, 0)] * d[:, 0] + (b_ * n + a_) * H
    Cpow = {mm: C ** (mm - 1) for mm in np.unique(mexp).tolist()}
    den = (
        np.array([n * Cpow[mm] for mm in mexp.tolist()], dtype=object)
        if len(mexp)
        else np.zeros(0, object)
    )
    vals = (
        np.array([Fraction(int(x), int(y)) for x, y in zip(num, den, strict=True)], dtype=object)
        if len(num)
        else np.zeros(0, dtype=object)
    )
    return vals


# =====================================================================================
# registered measures
# =====================================================================================
N = Param("int", REQUIRED, low=1, description="corpus size (number of documents)")
E = Param(
    "str", "AP", choices=("AP", "NDCG", "RBP", "R", "RP"), description="exposure function of TSE"
)
P = Param(
    "float",
    0.8,
    low=0,
    high=1,
    low_open=True,
    high_open=True,
    description="RBP persistence of e=RBP",
)
K = Param("int", 1000, low=1, description="recall cutoff of e=R")
EPS = Param(
    "float",
    0.5,
    low=0,
    high=1,
    low_open=True,
    high_open=True,
    description="epsilon of LR(repr=float)",
)
REPR = Param(
    "str",
    "rank",
    choices=("rank", "float"),
    description="rank: share of rankings beaten; float: the paper's formula",
)


def _validate_lr(params: dict) -> dict:
    if params["repr"] == "float" and params["n"] is None:
        raise MeasureParamError(
            "LR(repr=float) needs the corpus size n=..., e.g. LR(repr=float,n=500000000)"
        )
    return params


def _tse(ctx: EvalContext, m: Measure) -> np.ndarray:
    a = ctx.aligned
    level = float(ctx.options["rel_level"])
    n = m.param("n")
    with np.errstate(invalid="ignore"):
        is_rel = a.row_rel >= level
    k = segment_sum(is_rel, a.offsets).astype(np.int64)
    last = segment_max(np.where(is_rel, a.row_rank, 0), a.offsets).astype(np.int64)
    m_topic = np.bincount(
        a.qrels_topic, weights=(a.qrels_rel >= level), minlength=len(a.topics)
    ).astype(np.int64)
    mg = m_topic[a.group_topic]
    need = a.group_len + mg - k
    if len(need) and n < need.max():
        raise MeasureParamError(
            f"{m.label!r}: corpus size n={n} is too small; a ranking here needs "
            f"n >= {int(need.max())} (ranking length + unretrieved relevant documents)"
        )
    pm = np.where(k == mg, last, n)
    val = exposure(m.param("e"), pm, mg, p=float(m.param("p")), k=int(m.param("k")))
    return np.where(mg > 0, val, 0.0)


def _lr(ctx: EvalContext, m: Measure) -> np.ndarray:
    a = ctx.aligned
    level = float(ctx.options["rel_level"])
    pos = relevant_positions(a, level)
    if m.param("repr") == "float":
        n = check_corpus_size(m.param("n") if m.param("n") is not None else 1, pos)
        vals = metric_lexirecall_values(pos, n, m.param("eps"), "float")
    else:
        vals = metric_lexirecall_values(
            pos, check_corpus_size(_large_enough(a, level), pos), representation="rank"
        )
    S, T = pos.shape
    vals = np.asarray(vals, dtype=np.float64).reshape(S, T)
    t_map = pd.Index(pos.topics).get_indexer(a.topics)  # -1: topic without relevant documents
    gt = t_map[a.group_topic]
    return np.where(gt >= 0, vals[a.group_system, np.maximum(gt, 0)] if vals.size else 0.0, 0.0)


def _large_enough(a, level: float) -> int:
    """A corpus size that passes the imputation check (the rank representation ignores n)."""
    m_topic = np.bincount(a.qrels_topic, weights=(a.qrels_rel >= level), minlength=len(a.topics))
    return int(
        (a.group_len.max() if a.n_groups else 0) + (m_topic.max() if len(m_topic) else 0) + 1
    )


register(
    MeasureDef(
        name="TSE",
        compute=_tse,
        params={"n": N, "e": E, "p": P, "k": K},
        cutoff="none",
        description="total search efficiency e(p_m) with pessimistic imputation in a corpus of n docs (Diaz & Mitra 2023, Eq. 3)",
        family="lexi",
        topic_local=True,
        reference="closed forms of Diaz & Mitra 2023",
        citation="Diaz & Mitra 2023, Recall as a Measure of Ranking Robustness, arXiv:2302.11370v1 "
        "(ACM TORS 2025 with Ekstrand: Recall, Robustness, and Lexicographic Evaluation)",
    )
)

register(
    MeasureDef(
        name="LR",
        compute=_lr,
        params={"n": replace(N, default=None), "eps": EPS, "repr": REPR},
        cutoff="none",
        description="metric lexirecall: share of other systems' rankings beaten under lexirecall "
        "(repr=rank), or the formula of Diaz & Mitra 2023 in float64 (repr=float, needs n)",
        family="lexi",
        validate=_validate_lr,
        topic_local=True,
        system_local=False,  # beats the other systems' rankings of the topic
        reference="closed forms of Diaz & Mitra 2023",
        citation="Diaz & Mitra 2023, Recall as a Measure of Ranking Robustness, arXiv:2302.11370v1 "
        "(ACM TORS 2025 with Ekstrand: Recall, Robustness, and Lexicographic Evaluation)",
    )
)
