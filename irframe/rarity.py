"""Rarity ("innovation") of relevant documents and the rarity-weighted measures (seed 003).

Turkmen, Lease & Kutlu, *Innovation metrics for IR evaluation campaigns* (ECIR 2023).
For a relevant document d of a topic:

* ``S_d`` — the number of systems that retrieve d **within their top k** (the same
  cutoff as the measure, as in the authors' code), ``S`` — the number of systems in the
  frame (or in the ``reference=`` frame, see below);
* rarity ``R(d) = 1 − S_d/S`` (Eq. 2) and the normalised ``R'(d) = 1 − (S_d − 1)/(S − 1)``
  (§5.2), clipped to [0, 1].  ``R'`` is 1 for a document only one system found and 0
  for one every system found (the paper's "maximized when S_d = S" is a slip: that is
  where it is minimised); with a single system ``R' = 1``.

A relevant document no system retrieved within k has ``S_d = 0``: its rarity is
``R = 1`` (and ``R' = 1``).  It cannot affect a system in the frame, but it does when
the rarity comes from a ``reference=`` frame and the evaluated run finds what no
reference system found — then ``P_rare`` can reach 2 at α = 1 (closed bound).

Measures (registered in :mod:`irframe.measures.rarity`), with ``Rel`` = trec_eval
relevance (truncated grade >= ``rel``/``rel_level``):

* ``P_rare(alpha=α)@k = (1/k) Σ_{i<=k} Rel(d_i)(1 + α R(d_i))`` (Eq. 1) — divides by
  k even for runs shorter than k;
* ``AP_rare(alpha=α)@k = (1/NR) Σ_{i<=k} Rel(d_i) P_rare@i`` (Eq. 3), NR = relevant
  documents of the topic in the qrels; the rarity inside ``P_rare@i`` is the one of
  cutoff k.  Without ``@k`` the whole ranking is used (S_d counts any depth);
* ``P_rare_norm(alpha=α)@k = (1/k) Σ Rel(d_i)((1 − α) + α R'(d_i))`` (Eq. 4 with R',
  α ∈ [0, 1], value in [0, 1]) and its AP analogue ``AP_rare_norm``.

With α = 0 they equal ``P@k`` and ``AP@k`` (``AP`` without cutoff) bit for bit.

``reference=`` (a run frame with the default column names) takes ``S_d`` and ``S``
from other runs — e.g. the pool's runs of a campaign when scoring a new run (the
reusability question of §5.4).  The reference is ordered and truncated with the same
``order``/``depth``/``judged_only`` as the evaluated runs.

Examples
--------
>>> import pandas as pd, irframe as irf
>>> qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b", "c"], "rel": [1, 1, 0]})
>>> runs = pd.DataFrame({"system": ["s1", "s1", "s2", "s2"], "topic": "1",
...                      "doc": ["a", "b", "a", "c"], "score": [2.0, 1.0, 2.0, 1.0]})
>>> rarity(runs, qrels, k=2)
  topic doc  rel  S_d  S  rarity  rarity_norm
0     1   a  1.0    2  2     0.0          0.0
1     1   b  1.0    1  2     0.5          1.0
>>> cube = irf.evaluate(runs, qrels, ["P@2", "P_rare(alpha=1)@2"])
>>> cube.sel(topic="1").values.tolist()   # systems s1, s2 x measures P@2, P_rare
[[1.0, 1.25], [0.5, 0.5]]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .align import Aligned, align, segment_sum

__all__ = ["rarity", "rarity_aligned", "rare_finds", "rare_finds_aligned", "RarityLookup",
           "rarity_lookup", "p_rare", "ap_rare"]


# --------------------------------------------------------------------------- checks
def _check_k(k) -> int | None:
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer (the cutoff within which a system "
                         f"'retrieves' a document) or None for the whole ranking, got {k!r}")
    return int(k)


def _check_level(rel_level) -> float:
    if isinstance(rel_level, bool) or not isinstance(rel_level, (int, float, np.integer, np.floating)) \
            or not np.isfinite(rel_level):
        raise ValueError(f"rel_level must be a finite number (relevant <=> grade >= rel_level), got {rel_level!r}")
    return rel_level


def _rel_mask(grade: np.ndarray, level: float) -> np.ndarray:
    """trec_eval relevance: truncated grade >= level and >= 0 (NaN = unjudged -> False)."""
    with np.errstate(invalid="ignore"):
        t = np.trunc(grade)
        return (t >= level) & (t >= 0)


# --------------------------------------------------------------------------- S_d lookup
@dataclass(frozen=True)
class RarityLookup:
    """S_d per (topic, doc) in the code space of one :class:`~irframe.align.Aligned`.

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
        Key multiplier (``len(aligned.docs)``).
    """

    keys: np.ndarray
    counts: np.ndarray
    n_systems: int
    n_docs: int

    def s_d(self, topic: np.ndarray, doc: np.ndarray) -> np.ndarray:
        """S_d for (topic code, doc code) pairs (0 where nobody retrieved the document)."""
        q = np.asarray(topic, np.int64) * self.n_docs + np.asarray(doc, np.int64)
        if len(self.keys) == 0:
            return np.zeros(len(q), dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.keys, q), len(self.keys) - 1)
        return np.where(self.keys[pos] == q, self.counts[pos], 0).astype(np.int64)

    def rarity(self, s_d: np.ndarray) -> np.ndarray:
        """R(d) = 1 − S_d/S (Eq. 2)."""
        return 1.0 - np.asarray(s_d, np.float64) / self.n_systems

    def rarity_norm(self, s_d: np.ndarray) -> np.ndarray:
        """R'(d) = 1 − (S_d − 1)/(S − 1), clipped to [0, 1]; 1 when S = 1 (§5.2)."""
        s_d = np.asarray(s_d, np.float64)
        if self.n_systems <= 1:
            return np.ones(len(s_d))
        return np.clip(1.0 - (s_d - 1.0) / (self.n_systems - 1), 0.0, 1.0)


def _retrieved_relevant_keys(a: Aligned, k: int | None, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows that are relevant and within the top k, and their (topic, doc) keys."""
    sel = _rel_mask(a.row_rel, level)
    if k is not None:
        sel &= a.row_rank <= k
    rows = np.flatnonzero(sel)
    keys = a.row_topic[rows] * max(len(a.docs), 1) + a.row_doc[rows]
    return rows, keys


def rarity_lookup(aligned: Aligned, *, k: int | None = 100, rel_level: float = 1,
                  reference: pd.DataFrame | None = None) -> RarityLookup:
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
    """
    k = _check_k(k)
    level = _check_level(rel_level)
    a = aligned
    nd = max(len(a.docs), 1)
    if reference is None:
        _, keys = _retrieved_relevant_keys(a, k, level)
        uk, cnt = np.unique(keys, return_counts=True)
        return RarityLookup(uk, cnt.astype(np.int64), len(a.systems), nd)
    if not isinstance(reference, pd.DataFrame):
        raise TypeError(f"reference must be a run frame (pandas DataFrame), got {type(reference).__name__}")
    qrels = pd.DataFrame({"topic": a.topics[a.qrels_topic].to_numpy(), "doc": a.docs[a.qrels_doc],
                          "rel": a.qrels_rel})
    try:
        ref = align(reference, qrels, order=a.order, depth=a.depth, judged_only=a.judged_only)
    except (KeyError, ValueError) as e:
        raise type(e)(f"reference=: {e}") from None
    _, rkeys = _retrieved_relevant_keys(ref, k, level)
    uk, cnt = np.unique(rkeys, return_counts=True)
    rnd = max(len(ref.docs), 1)
    rt, rdoc = uk // rnd, uk % rnd
    t_map = a.topics.get_indexer(ref.topics)[rt] if len(uk) else np.zeros(0, np.int64)
    used, inv = np.unique(rdoc, return_inverse=True)
    d_map = pd.Index(a.docs).get_indexer(ref.docs[used])[inv] if len(uk) else np.zeros(0, np.int64)
    ok = (t_map >= 0) & (d_map >= 0)
    mk = t_map[ok].astype(np.int64) * nd + d_map[ok]
    o = np.argsort(mk)
    return RarityLookup(mk[o], cnt[ok][o].astype(np.int64), len(ref.systems), nd)


# --------------------------------------------------------------------------- tables
def rarity_aligned(aligned: Aligned, *, k: int | None = 100, rel_level: float = 1,
                   reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`rarity` on already aligned arrays (one row per relevant judged document)."""
    a = aligned
    look = rarity_lookup(a, k=k, rel_level=rel_level, reference=reference)
    q = np.flatnonzero(_rel_mask(a.qrels_rel, _check_level(rel_level)))
    t, d = a.qrels_topic[q], a.qrels_doc[q]
    o = np.lexsort((d, t))            # topic, then doc code (first-seen order of the ids)
    q, t, d = q[o], t[o], d[o]
    s_d = look.s_d(t, d)
    out = pd.DataFrame({"topic": a.topics[t].to_numpy(), "doc": a.docs[d], "rel": a.qrels_rel[q],
                        "S_d": s_d, "S": np.full(len(q), look.n_systems, dtype=np.int64),
                        "rarity": look.rarity(s_d), "rarity_norm": look.rarity_norm(s_d)})
    return out.sort_values(["topic", "doc"], kind="stable", ignore_index=True)


def rarity(runs: pd.DataFrame, qrels: pd.DataFrame, *, k: int | None = 100, rel_level: float = 1,
           reference: pd.DataFrame | None = None, order: str = "trec_eval", depth: int | None = None,
           complete: bool = False, judged_only: bool = False, columns: Mapping[str, str] | None = None,
           qrels_columns: Mapping[str, str] | None = None, duplicates: str = "error") -> pd.DataFrame:
    """Rarity of every relevant document: how many systems found it in their top k.

    Parameters
    ----------
    runs : pandas.DataFrame
        Long run frame ``system, topic, doc, score[, rank]``.
    qrels : pandas.DataFrame
        ``topic, doc, rel``.
    k : int or None, default 100
        A system *retrieves* d when d is in its top k; None = at any depth.
    rel_level : float, default 1
        Relevant ⇔ truncated grade >= rel_level (as trec_eval and the rarity measures).
    reference : pandas.DataFrame, optional
        Take S_d and S from these runs instead (default column names).
    order, depth, complete, judged_only, columns, qrels_columns, duplicates
        As in :func:`irframe.evaluate`.  Topics: those evaluated (in runs and qrels;
        every qrels topic with ``complete=True``).

    Returns
    -------
    pandas.DataFrame
        One row per relevant document of each evaluated topic, sorted by (topic, doc):
        ``topic, doc, rel, S_d, S, rarity, rarity_norm``; ``S_d = 0`` (rarity 1) for a
        relevant document no system retrieved within k.

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b", "z"], "rel": [1, 2, 1]})
    >>> runs = pd.DataFrame({"system": ["s1", "s2", "s2"], "topic": "1", "doc": ["a", "a", "b"],
    ...                      "score": [1.0, 2.0, 1.0]})
    >>> rarity(runs, qrels, k=10)[["doc", "S_d", "rarity"]].values.tolist()
    [['a', 2, 0.0], ['b', 1, 0.5], ['z', 0, 1.0]]
    """
    a = align(runs, qrels, order=order, depth=depth, complete=complete, judged_only=judged_only,
              columns=columns, qrels_columns_=qrels_columns, duplicates=duplicates)
    return rarity_aligned(a, k=k, rel_level=rel_level, reference=reference)


def rare_finds_aligned(aligned: Aligned, *, k: int | None = 100, rel_level: float = 1,
                       max_systems: int | None = 1, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`rare_finds` on already aligned arrays."""
    a = aligned
    if max_systems is not None and (isinstance(max_systems, bool) or not isinstance(max_systems, (int, np.integer))
                                    or max_systems < 0):
        raise ValueError(f"max_systems must be a non-negative integer or None, got {max_systems!r}")
    look = rarity_lookup(a, k=k, rel_level=rel_level, reference=reference)
    rows, _ = _retrieved_relevant_keys(a, _check_k(k), _check_level(rel_level))
    s_d = look.s_d(a.row_topic[rows], a.row_doc[rows])
    if max_systems is not None:
        keep = s_d <= max_systems
        rows, s_d = rows[keep], s_d[keep]
    g = a.row_group[rows]
    return pd.DataFrame({"system": a.systems[a.group_system[g]].to_numpy(),
                         "topic": a.topics[a.group_topic[g]].to_numpy(), "doc": a.docs[a.row_doc[rows]],
                         "rank": a.row_rank[rows], "rel": a.row_rel[rows], "S_d": s_d,
                         "S": np.full(len(rows), look.n_systems, dtype=np.int64),
                         "rarity": look.rarity(s_d), "rarity_norm": look.rarity_norm(s_d)})


def rare_finds(runs: pd.DataFrame, qrels: pd.DataFrame, *, k: int | None = 100, rel_level: float = 1,
               max_systems: int | None = 1, reference: pd.DataFrame | None = None, order: str = "trec_eval",
               depth: int | None = None, judged_only: bool = False, columns: Mapping[str, str] | None = None,
               qrels_columns: Mapping[str, str] | None = None, duplicates: str = "error") -> pd.DataFrame:
    """The relevant documents each system found in its top k that (almost) nobody else did.

    Parameters
    ----------
    max_systems : int or None, default 1
        Keep documents with ``S_d <= max_systems``: 1 = found by this system only
        (with ``reference=``: by at most one reference system; 0 = by none of them);
        None keeps every relevant document retrieved within k.
    k, rel_level, reference, order, depth, judged_only, columns, qrels_columns, duplicates
        As in :func:`rarity`.

    Returns
    -------
    pandas.DataFrame
        Tidy, one row per (system, topic, doc), in (system, topic, rank) order:
        ``system, topic, doc, rank, rel, S_d, S, rarity, rarity_norm``.
        ``df.groupby("system").size()`` counts each system's unique finds.

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b", "c"], "rel": [1, 1, 1]})
    >>> runs = pd.DataFrame({"system": ["s1", "s1", "s2", "s2"], "topic": "1",
    ...                      "doc": ["a", "b", "a", "c"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> rare_finds(runs, qrels, k=10)[["system", "doc", "rank", "S_d"]].values.tolist()
    [['s1', 'b', 2, 1], ['s2', 'c', 2, 1]]
    """
    a = align(runs, qrels, order=order, depth=depth, judged_only=judged_only, columns=columns,
              qrels_columns_=qrels_columns, duplicates=duplicates)
    return rare_finds_aligned(a, k=k, rel_level=rel_level, max_systems=max_systems, reference=reference)


# --------------------------------------------------------------------------- measure kernels
# Both measures are linear in α:  P_rare = P@k + α·(1/k) Σ Rel·R  and
# AP_rare = AP + α·(1/NR) Σ_i Rel(d_i)·(Σ_{j<=i} Rel(d_j) R(d_j))/i  (and (1 − α)·base + α·… for
# the normalised forms).  The base is trec_eval's P@k / AP kernel itself, so α = 0 gives
# exactly P@k and AP.  Rarity is a ratio of integers, R = (S − S_d)/S and
# R' = min(S − S_d, S − 1)/(S − 1), so the rarity part accumulates integer numerators
# exactly and divides once: no floating-point cumulative sum runs across groups.
def _row_numerators(aligned: Aligned, look: RarityLookup, k: int | None, level: float,
                    normalized: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """(relevant rows within k, rarity numerator per row, common denominator)."""
    rows, _ = _retrieved_relevant_keys(aligned, k, level)
    s_d = look.s_d(aligned.row_topic[rows], aligned.row_doc[rows])
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


def _base_measure(aligned: Aligned, name: str, k: int | None, level: float) -> np.ndarray:
    """trec_eval's P@k / AP[@k] per group, from the registered kernel."""
    from .measures.registry import EvalContext, parse_measure
    m = parse_measure(f"{name}(rel={float(level)!r})" + ("" if k is None else f"@{k}"))
    return np.asarray(m.definition.compute(EvalContext(aligned, {"rel_level": level, "gains": None}), m),
                      dtype=np.float64)


def _mix(base: np.ndarray, extra: np.ndarray, alpha: float, normalized: bool) -> np.ndarray:
    if normalized:
        return (1.0 - alpha) * base + alpha * extra
    return base + alpha * extra


def p_rare(aligned: Aligned, *, alpha: float, k: int, rel_level: float = 1, normalized: bool = False,
           lookup: RarityLookup | None = None, reference: pd.DataFrame | None = None,
           base: np.ndarray | None = None) -> np.ndarray:
    """P@k_rareness (Eq. 1) or P'@k_rareness (Eq. 4, ``normalized=True``) per group (G,).

    ``base`` (per group) is P@k when already computed; by default trec_eval's P@k kernel
    is run.
    """
    k = _check_k(k)
    if k is None:
        raise ValueError("P_rare needs a cutoff k (it divides by k)")
    a = aligned
    look = lookup if lookup is not None else rarity_lookup(a, k=k, rel_level=rel_level, reference=reference)
    rows, num, den = _row_numerators(a, look, k, rel_level, normalized)
    num_sum = np.bincount(a.row_group[rows], weights=num, minlength=a.n_groups)  # integers: exact
    extra = num_sum / den / k                                                        # (1/k) Σ Rel·R
    if base is None:
        base = _base_measure(a, "P", k, rel_level)
    return _mix(base, extra, alpha, normalized)


def ap_rare(aligned: Aligned, *, alpha: float, k: int | None, rel_level: float = 1,
            num_rel: np.ndarray | None = None, normalized: bool = False, lookup: RarityLookup | None = None,
            reference: pd.DataFrame | None = None, base: np.ndarray | None = None) -> np.ndarray:
    """AP_rareness (Eq. 3; ``normalized=True``: with the P' weights) per group (G,).

    ``num_rel`` (per group) defaults to the relevant documents of the topic in the qrels;
    ``base`` is AP (AP@k) when already computed, by default trec_eval's AP kernel is run.
    """
    k = _check_k(k)
    a = aligned
    look = lookup if lookup is not None else rarity_lookup(a, k=k, rel_level=rel_level, reference=reference)
    rows, num, den = _row_numerators(a, look, k, rel_level, normalized)
    grp = a.row_group[rows]
    roff = np.concatenate([[0], np.cumsum(np.bincount(grp, minlength=a.n_groups))]).astype(np.int64)
    cum_num = _int_segment_cumsum(num, roff)                 # Σ_{j<=i} numerators, exact
    terms = cum_num / den / a.row_rank[rows]
    total = segment_sum(terms, roff)                         # each group's relevant rows only
    if num_rel is None:
        nrel_t = np.bincount(a.qrels_topic, weights=_rel_mask(a.qrels_rel, rel_level),
                             minlength=len(a.topics)).astype(np.int64)
        num_rel = nrel_t[a.group_topic]
    num_rel = np.asarray(num_rel, dtype=np.float64)
    extra = np.zeros(a.n_groups)
    np.divide(total, num_rel, out=extra, where=num_rel != 0)
    if base is None:
        base = _base_measure(a, "AP", k, rel_level)
    return _mix(base, extra, alpha, normalized)
