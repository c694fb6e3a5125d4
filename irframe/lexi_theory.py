"""Analytical tools of lexicographic evaluation: tie probabilities, orientation, worst case.

F. Diaz & B. Mitra, "Recall as a Measure of Ranking Robustness" (2023): the probability that
two random rankings tie under a metric (Table 2, App. A.4, exact big-integer arithmetic) and
its Monte-Carlo check, the recall/precision orientation of a metric (§3.1, Fig. 3) and the
agreement of metrics with the worst-case preference (Table 1).  They work on positions, not
on run frames; [`irframe.lexi`][irframe.lexi] re-exports them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
import pandas as pd

from .errors import OptionError
from .measures.lexi import exposure
from .options import make_rng
from .params import check_flag

__all__ = [
    "orientation",
    "position_metric",
    "simulate_ties",
    "tie_probability",
    "worst_case_simulation",
]


def _check_nm(n: int, m: int) -> tuple[int, int]:
    n, m = int(n), int(m)
    if m < 1 or n < m:
        raise OptionError(f"need 1 <= m <= n, got n={n}, m={m}")
    return n, m


def tie_probability(
    metric: str, *, n: int, m: int, k: int | None = None, exact: bool = False
) -> float | Fraction:
    """Probability that two uniformly random complete rankings tie (Diaz & Mitra 2023, App. A.4).

    ``TSE``: ``Σ_{i=m}^n C(i-1, m-1)² / C(n, m)²``;
    ``R`` (R_k): ``Σ_i C(k, i)² C(n-k, m-i)² / C(n, m)²``;
    ``RP``: R_k with k = m; ``LR`` (lexirecall): ``1 / C(n, m)``.
    Computed with exact big-integer arithmetic (the TSE sum by the recurrence
    ``C(i, m-1) = C(i-1, m-1) i / (i-m+1)``, ``O(n)`` integer steps).

    Parameters
    ----------
    metric : {"TSE", "R", "RP", "LR"}
    n, m : int
        Corpus size and number of relevant documents.
    k : int, optional
        Recall cutoff for ``R`` (required there).
    exact : bool
        Return a `fractions.Fraction` instead of the nearest float.

    Returns
    -------
    float or fractions.Fraction

    Examples
    --------
    >>> round(tie_probability("TSE", n=1000, m=10), 5)       # Table 2
    0.00529
    >>> round(tie_probability("R", n=10_000, m=10, k=1000), 5)
    0.31267
    >>> tie_probability("LR", n=5, m=2, exact=True)
    Fraction(1, 10)
    """
    exact = check_flag("exact", exact)
    n, m = _check_nm(n, m)
    key = metric.upper().replace("@", "").replace("_K", "")
    denom = comb(n, m) ** 2
    if key == "TSE":
        c, s = 1, 0
        for i in range(m, n + 1):
            s += c * c
            c = c * i // (i - m + 1)
        res = Fraction(s, denom)
    elif key in ("R", "RK", "RP"):
        kk = m if key == "RP" else k
        if kk is None:
            raise OptionError("metric 'R' needs the cutoff k=")
        kk = int(kk)
        if kk < 0:
            raise OptionError(f"k must be >= 0, got {kk}")
        kk = min(kk, n)
        s = sum(comb(kk, i) ** 2 * comb(n - kk, m - i) ** 2 for i in range(m + 1))
        res = Fraction(s, denom)
    elif key == "LR":
        res = Fraction(1, comb(n, m))
    else:
        raise OptionError(f"metric must be 'TSE', 'R', 'RP' or 'LR', got {metric!r}")
    return res if exact else float(res)


def _sample_positions(rng: np.random.Generator, n: int, m: np.ndarray, width: int) -> np.ndarray:
    """Uniform random m-subsets of {1..n} per row, sorted; padded with n+1 beyond m.

    Rows are drawn with replacement and redrawn until they have no duplicate in
    their first m entries (vectorised rejection sampling).
    """
    Q = len(m)
    cols = np.arange(width)[None, :]
    active = cols < m[:, None]
    out = np.empty((Q, width), np.int64)
    todo = np.arange(Q)
    while len(todo):
        draw = rng.integers(1, n + 1, size=(len(todo), width))
        draw = np.where(active[todo], draw, n + 1 + cols)  # distinct pads
        srt = np.sort(draw, axis=1)
        dup = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
        good = ~dup
        out[todo[good]] = srt[good]
        todo = todo[dup]
    return np.where(active, out, n + 1)


def simulate_ties(
    *,
    n: int,
    m: int,
    k: int = 1000,
    samples: int = 100_000,
    rng: np.random.Generator | int | None = None,
) -> dict[str, float]:
    """Monte-Carlo tie frequencies of TSE, R_k, RP and LR for random complete rankings.

    Draws ``samples`` pairs of uniform random position vectors (m-subsets of 1..n)
    and counts ties; compare with [`tie_probability`][irframe.lexi_theory.tie_probability] (standard error
    ``sqrt(p (1 - p) / samples)``).

    Parameters
    ----------
    n, m : int
        Corpus size and number of relevant documents.
    k : int
        Recall cutoff of ``R_k``.
    samples : int
        Pairs of rankings drawn.
    rng : numpy.random.Generator, int or None
        Source of randomness.

    Returns
    -------
    dict of str to float
        Tie frequency of ``TSE``, ``R`` (R_k), ``RP`` and ``LR``.

    Examples
    --------
    >>> f = simulate_ties(n=20, m=3, samples=20_000, rng=0)
    >>> abs(f["TSE"] - tie_probability("TSE", n=20, m=3)) < 0.01
    True
    """
    n, m = _check_nm(n, m)
    rng = make_rng(rng)
    mm = np.full(samples, m)
    p = _sample_positions(rng, n, mm, m)
    q = _sample_positions(rng, n, mm, m)
    return {
        "TSE": float((p[:, -1] == q[:, -1]).mean()),
        "R": float(((p <= k).sum(1) == (q <= k).sum(1)).mean()),
        "RP": float(((p <= m).sum(1) == (q <= m).sum(1)).mean()),
        "LR": float((p == q).all(axis=1).mean()),
    }


def position_metric(
    metric: str,
    P: np.ndarray,
    m: np.ndarray | int,
    *,
    n: int | None = None,
    p: float = 0.8,
    k: int = 1000,
    e: str | Callable = "AP",
) -> np.ndarray:
    """A metric computed from position vectors (rows of ``P``, ascending, first m valid).

    Parameters
    ----------
    metric : {"AP", "NDCG", "RBP", "RR", "R", "RP", "TSE"}
        ``AP`` = (1/m) Σ i/p_i; ``NDCG`` = Σ 1/log2(p_i+1) / Σ_{j<=m} 1/log2(j+1);
        ``RBP`` = Σ (1-p) p^(p_i-1); ``RR`` = 1/p_1; ``R`` = #{p_i <= k}/m;
        ``RP`` = #{p_i <= m}/m; ``TSE`` = e(p_m) with exposure ``e``.
    P : array (rows, width)
    m : int or array (rows,)
    n : int, optional
        Corpus size (``TSE``, whose pessimistic imputation needs it).
    p : float, default 0.8
        RBP's persistence (``RBP``; ``TSE`` with ``e="RBP"``).
    k : int, default 1000
        Recall cutoff (``R``; ``TSE`` with ``e="R"``).
    e : {"AP", "NDCG", "RBP", "R", "RP"} or callable, default "AP"
        ``TSE``'s exposure function.

    Returns
    -------
    numpy.ndarray
        One value per row of ``P``.

    Examples
    --------
    >>> position_metric("AP", np.array([[1, 3]]), 2).round(4).tolist()
    [0.8333]
    """
    P = np.atleast_2d(np.asarray(P, dtype=np.float64))
    Q, W = P.shape
    m = np.broadcast_to(np.asarray(m, dtype=np.int64), (Q,))
    i = np.arange(1, W + 1)[None, :]
    valid = i <= m[:, None]
    Pv = np.where(valid, P, np.inf)
    key = metric.upper()
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        if key == "AP":
            return np.where(valid, i / Pv, 0.0).sum(1) / m
        if key == "NDCG":
            ideal = np.cumsum(1.0 / np.log2(np.arange(1, W + 1) + 1.0))[m - 1]
            return np.where(valid, 1.0 / np.log2(Pv + 1.0), 0.0).sum(1) / ideal
        if key == "RBP":
            return np.where(valid, (1 - p) * np.power(p, np.where(valid, P, 1) - 1.0), 0.0).sum(1)
        if key == "RR":
            return 1.0 / P[:, 0]
        if key in ("R", "RK", "R_K"):
            return (valid & (P <= k)).sum(1) / m
        if key == "RP":
            return (valid & (P <= m[:, None])).sum(1) / m
        if key == "TSE":
            pm = P[np.arange(Q), m - 1]
            return exposure(e, pm, m, p=p, k=k)
    raise OptionError(f"unknown metric {metric!r}; use AP, NDCG, RBP, RR, R, RP or TSE")


def orientation(
    metric: str, *, n: int, m: int | Sequence[int], kind: str = "recall", **params: Any
) -> np.ndarray:
    """Precision or recall orientation of a metric (Diaz & Mitra 2023, §3.1, Fig. 2-3).

    ``kind="precision"``: the ranking with a relevant document at position 1 and the
    other m-1 at the bottom (n-m+2 .. n) versus the same with the top one moved to
    n-m+1.  ``kind="recall"``: all relevant documents at 1..m versus the bottom one
    moved to n.  Returns ``μ(π) - μ(π')`` for every m.

    Parameters
    ----------
    metric : str
        A metric of [`position_metric`][irframe.lexi.position_metric]
        (``"AP", "NDCG", "RBP", "RR", "R", "RP", "TSE"``).
    n : int
        Corpus size.
    m : int or sequence of int
        Numbers of relevant documents, each in 1..n.
    kind : {"recall", "precision"}
        Which end of the ranking moves.
    **params
        Metric parameters (``p``, ``k``, ``e``) of [`position_metric`][irframe.lexi.position_metric].

    Returns
    -------
    numpy.ndarray
        One difference per m.

    See Also
    --------
    - [`irframe.plot.orientation_curves`][irframe.plot.orientation_curves]: draw them.

    Examples
    --------
    >>> orientation("RR", n=100, m=[1, 2], kind="recall").tolist()   # RR only sees p_1
    [0.99, 0.0]
    """
    ms = np.atleast_1d(np.asarray(m, dtype=np.int64))
    if (ms < 1).any() or (ms > n).any():
        raise OptionError(f"every m must lie in 1..n={n}")
    W = int(ms.max())
    cols = np.arange(W)[None, :]
    if kind == "recall":
        before = np.where(cols < ms[:, None], cols + 1, n + 1)
        after = before.copy()
        after[np.arange(len(ms)), ms - 1] = n
    elif kind == "precision":
        before = np.where(cols < ms[:, None], n - ms[:, None] + cols + 1, n + 1)
        before[:, 0] = 1
        after = before.copy()
        after[:, 0] = n - ms + 1
    else:
        raise OptionError(f"kind must be 'recall' or 'precision', got {kind!r}")
    return position_metric(metric, before, ms, n=n, **params) - position_metric(
        metric, after, ms, n=n, **params
    )


def worst_case_simulation(
    ns: Sequence[int] = (10**3, 10**4, 10**5, 10**6),
    *,
    queries: int = 10_000,
    m_low: int = 5,
    m_high: int = 50,
    k: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Agreement of metrics with the worst-case preference (Diaz & Mitra 2023, Table 1).

    For each corpus size, ``queries`` queries with ``m ~ U{m_low..m_high}`` relevant
    documents and a pair of uniform random complete rankings each.  The worst-case
    comparison ``WC_μ(π) < WC_μ(π')`` is the TSE comparison (Theorem A.1:
    ``sign(p'_m - p_m)`` for any top-heavy metric).  ``tied`` is the share of
    queries where the worst case ties; every metric column is the share, among the
    queries where the worst case does *not* tie, where the metric difference has the
    same sign as the worst-case difference (a metric tie counts as disagreement).
    ``random`` scores each ranking uniformly at random.

    Parameters
    ----------
    ns : sequence of int
        Corpus sizes.
    queries : int
        Queries per corpus size.
    m_low, m_high : int
        Range of the number of relevant documents.
    k : int
        Recall cutoff of ``R@k``.
    rng : numpy.random.Generator, int or None
        Source of randomness.

    Returns
    -------
    pandas.DataFrame
        Index ``n``; columns ``tied, TSE, R@k, RP, AP, NDCG, random``.
    """
    rng = make_rng(rng)
    rows = []
    for n in ns:  # loop over corpus sizes
        n = int(n)
        m = rng.integers(m_low, m_high + 1, size=queries)
        P = _sample_positions(rng, n, m, m_high)
        Q = _sample_positions(rng, n, m, m_high)
        idx = np.arange(queries)
        wc = np.sign(Q[idx, m - 1] - P[idx, m - 1])  # +1: π better in the worst case
        untied = wc != 0
        row = {"n": n, "tied": float((~untied).mean())}
        cases: tuple[tuple[str, str, dict[str, Any]], ...] = (
            ("TSE", "TSE", {}),
            (f"R@{k}", "R", {"k": k}),
            ("RP", "RP", {}),
            ("AP", "AP", {}),
            ("NDCG", "NDCG", {}),
        )
        for label, name, kw in cases:
            d = np.sign(
                position_metric(name, P, m, n=n, **kw) - position_metric(name, Q, m, n=n, **kw)
            )
            row[label] = float((d[untied] == wc[untied]).mean()) if untied.any() else np.nan
        rnd = np.sign(rng.random(queries) - rng.random(queries))
        row["random"] = float((rnd[untied] == wc[untied]).mean()) if untied.any() else np.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("n")
