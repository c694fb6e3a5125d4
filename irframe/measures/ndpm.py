"""Yao's distance-based performance measure (ndpm) and the measures derived from it.

Y. Y. Yao, *Measuring retrieval effectiveness based on user preference of documents*
(Journal of the American Society for Information Science 46, 1995).  For one (system, topic):

* **D** is the set of judged documents of the topic (the qrels, grade = max over
  subtopics);
* the **user ranking** ≻u is the weak order of D by grade (higher grade preferred;
  equal grades tie; grades are used only through their order, so any
  strictly increasing relabelling of the grades gives the same numbers);
* the **system ranking** ≻s is the run's order restricted to D: documents with equal
  scores (under the order policy — in ``order="trec_eval"`` equal *float32* scores)
  tie, and the judged documents the system did not retrieve (or retrieved below the
  cutoff ``@k``) tie together below everything it retrieved.  Retrieved documents
  that are not judged take no part.  With ``order="rank"`` / ``"input"`` the run order
  is taken as a linear order (no ties among retrieved documents).

Counting the unordered pairs of D (Eq. 13):

====  =============================================================
C     pairs the user orders, |≻u|
C⁺    pairs both rankings order the same way (agreeing)
C⁻    pairs they order oppositely (contradicting)
Cᵘ    pairs the user orders and the system ties
Cˢ    pairs the user ties and the system orders
====  =============================================================

the measures are

* ``dpm = 2C⁻ + Cᵘ`` (Eq. 19; distance to the closest acceptable ranking ≻a),
* ``ndpm = (2C⁻ + Cᵘ) / (2C)`` (Eq. 23), ``dpm_drf = 1 − 2·ndpm`` (Eq. 26),
* ranking-based precision/recall ``dpm_p = C⁺/|≻s|``, ``dpm_r = C⁺/C`` (Eq. 55–56),
  ``dpm_pa = (C⁺+Cˢ)/|≻s|``, ``dpm_ra = (C⁺+Cˢ)/|≻a|`` (Eq. 61–62) with
  ``|≻s| = C⁺+C⁻+Cˢ`` and ``|≻a| = C + Cˢ``,
* the normalised distances ``dpm_m = dpm / |≻a ∪ ≻s|`` (Eq. 45, Marczewski–Steinhaus)
  and ``dpm_e = dpm / (|≻a| + |≻s|)`` (Eq. 46/64, van Rijsbergen).

A ratio whose denominator is 0 is 0 (trec_eval's convention for 0/0).  In particular
a topic whose judged documents all have the same grade has C = 0: every ranking is
acceptable, dpm = 0 and ndpm = 0 (dpm_drf = 1).

Counting is linear per grade level: with at most ``_LEVEL_LOOP_MAX`` distinct grades it
costs one cumulative sum per grade level over the retrieved rows; with more distinct
grades (float grades) a vectorised bottom-up merge-sort inversion count is used
(O(n log² n)).  Pairs are never enumerated, and the judged
documents a system did not retrieve are never materialised (their pairs are counted
from per-grade totals).

Examples
--------
Example 3 of the paper: user ranking {d1, d2} ≻ d3 ≻ {d4, d5}, system ranking
{d1, d5} ≻ {d2, d4} ≻ d3.

>>> import pandas as pd, irframe as irf
>>> qrels = pd.DataFrame({"topic": "q", "doc": ["d1", "d2", "d3", "d4", "d5"], "rel": [2, 2, 1, 0, 0]})
>>> run = pd.DataFrame({"system": "s", "topic": "q", "doc": ["d1", "d5", "d2", "d4", "d3"],
...                     "score": [3.0, 3.0, 2.0, 2.0, 1.0]})
>>> cube = irf.evaluate(run, qrels, ["dpm", "ndpm"])
>>> cube.values.ravel().tolist()
[8.0, 0.5]

Registered measures (lower is better for the distances, higher for the others)
------------------------------------------------------------------------------
==========  ===========================================================  =========
name        definition                                                    range
==========  ===========================================================  =========
dpm         2C⁻ + Cᵘ, distance to the closest acceptable ranking (Eq. 19)  [0, 2C]
ndpm        dpm / 2C (Eq. 23)                                            [0, 1]
dpm_drf     distance reduction factor 1 − 2·ndpm (Eq. 26)                [−1, 1]
dpm_p       ranking-based precision C⁺/|≻s| (Eq. 55)                     [0, 1]
dpm_r       ranking-based recall C⁺/C (Eq. 56)                           [0, 1]
dpm_pa      acceptable-ranking precision |≻a∩≻s|/|≻s| (Eq. 61)           [0, 1]
dpm_ra      acceptable-ranking recall |≻a∩≻s|/|≻a| (Eq. 62)              [0, 1]
dpm_m       Marczewski–Steinhaus distance dpm/|≻a∪≻s| (Eq. 45)           [0, 1]
dpm_e       van Rijsbergen's distance dpm/(|≻a|+|≻s|) (Eq. 46, 64)       [0, 1]
==========  ===========================================================  =========

``@k`` treats only the first k documents as retrieved (the rest of the judged documents
tie at the bottom); ``rel=`` binarises the user ranking (grade >= rel vs the rest).
All measures of one evaluation share one pair count per (cutoff, rel).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..align import Aligned, segment_sum
from .registry import EvalContext, Measure, MeasureDef, Param, register

__all__ = [
    "COUNT_FIELDS",
    "count_pairs",
    "measures_from_counts",
    "ranking_distance",
    "weak_order_counts",
]

#: fields of the count dictionaries returned by `count_pairs`
COUNT_FIELDS = ("n", "C", "C_plus", "C_minus", "C_u", "C_s")

_LEVEL_LOOP_MAX = 32  # distinct grades up to which per-level cumulative sums are used


# --------------------------------------------------------------------------- helpers
def _pairs(n: np.ndarray) -> np.ndarray:
    """n choose 2 (int64)."""
    n = np.asarray(n, dtype=np.int64)
    return n * (n - 1) // 2


def _isum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Exact integer segment sum (int64) over CSR ``offsets`` (0 for empty segments)."""
    values = np.asarray(values, dtype=np.int64)
    out = np.zeros(len(offsets) - 1, dtype=np.int64)
    nonempty = offsets[1:] > offsets[:-1]
    if nonempty.any():
        out[nonempty] = np.add.reduceat(values, offsets[:-1][nonempty])
    return out


def _tied_pairs(run_start: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Σ m(m−1)/2 over the runs of equal elements in each segment.

    ``run_start[i]`` is True where a new run begins (it must be True at every
    segment start).
    """
    n = len(run_start)
    if n == 0:
        return np.zeros(len(offsets) - 1, dtype=np.int64)
    starts = np.flatnonzero(run_start)
    sizes = np.diff(np.append(starts, n))
    seg_of_run = np.searchsorted(offsets, starts, side="right") - 1
    return np.bincount(seg_of_run, weights=_pairs(sizes), minlength=len(offsets) - 1).astype(
        np.int64
    )


def _segment_inversions(vals: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per segment, the number of pairs i < j with ``vals[i] < vals[j]`` (int64).

    Vectorised bottom-up merge sort over all segments at once: at width w, every
    element of a right half counts the elements of its left half that are smaller
    (one global ``searchsorted``, the halves being sorted and offset by block), then
    each block of 2w is sorted.  O(N log N · log L) numpy work, no Python loop per
    segment.
    """
    vals = np.asarray(vals, dtype=np.int64)
    n_seg = len(offsets) - 1
    out = np.zeros(n_seg, dtype=np.int64)
    n = len(vals)
    if n == 0:
        return out
    lens = np.diff(offsets)
    seg = np.repeat(np.arange(n_seg, dtype=np.int64), lens)
    pos = np.arange(n, dtype=np.int64) - np.repeat(offsets[:-1], lens)
    v = vals - vals.min()
    span = int(v.max()) + 1
    cur = v.copy()
    w = 1
    max_len = int(lens.max())
    while w < max_len:
        block = pos // (2 * w)
        right = (pos // w) % 2 == 1
        # a global block id: increasing along the array
        gblock = seg * ((max_len + 2 * w - 1) // (2 * w)) + block
        key = gblock * span + cur
        left_keys = key[~right]  # sorted: halves are sorted, blocks increase
        rk = key[right]
        rb = gblock[right] * span
        cnt = np.searchsorted(left_keys, rk, side="left") - np.searchsorted(
            left_keys, rb, side="left"
        )
        out += np.bincount(seg[right], weights=cnt, minlength=n_seg).astype(np.int64)
        # merge: sort every block of 2w (keys of different blocks never interleave)
        cur = np.sort(key, kind="stable") - gblock * span
        w *= 2
    return out


def _before_greater_counts(
    code: np.ndarray, class_start: np.ndarray, offsets: np.ndarray, n_levels: int
) -> np.ndarray:
    """Per segment, pairs (i, j) with i in an earlier class than j and ``code[i] < code[j]``.

    ``class_start`` marks the first row of each tie class (True at segment starts).
    Uses the per-level loop for few levels, the merge-sort count otherwise.
    """
    n_seg = len(offsets) - 1
    if len(code) == 0:
        return np.zeros(n_seg, dtype=np.int64)
    if n_levels <= _LEVEL_LOOP_MAX:
        lens = np.diff(offsets)
        seg_start = np.repeat(offsets[:-1], lens)
        # index of the first row of each row's class
        cls_first = np.maximum.accumulate(np.where(class_start, np.arange(len(code)), 0))
        acc = np.zeros(len(code), dtype=np.int64)
        for lev in range(n_levels - 1):
            ind = (code == lev).astype(np.int64)
            cs = np.cumsum(ind)
            # level-`lev` rows strictly before the class start, within the segment
            before = cs[cls_first] - ind[cls_first] - (cs[seg_start] - ind[seg_start])
            acc += np.where(code > lev, before, 0)
        return _isum(acc, offsets)
    # general: order each class by code descending, then count increasing pairs
    cls_id = np.cumsum(class_start) - 1
    order = np.lexsort((-code, cls_id))  # classes stay in place (cls_id increasing)
    return _segment_inversions(code[order], offsets)


# --------------------------------------------------------------------------- core
def weak_order_counts(
    user: np.ndarray, system: np.ndarray, offsets: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Pair counts between a user and a system weak order, for many item sets at once.

    Parameters
    ----------
    user : array_like
        Per item, the user's preference value (higher = preferred; equal = indifferent).
    system : array_like
        Per item, the system's value (higher = ranked higher; equal = tied).
    offsets : array_like, optional
        CSR offsets: items ``offsets[g]:offsets[g+1]`` form set ``g``.  Default: one set.

    Returns
    -------
    dict
        int64 arrays per set: ``n``, ``C`` (= |≻u|), ``C_plus``, ``C_minus``, ``C_u``,
        ``C_s`` (Eq. 13), plus ``S`` (= |≻s|) and ``T`` (pairs tied in both).

    Examples
    --------
    Example 2 of the paper, rankings d1 ≻ d2 ≻ {d3, d4} and d2 ≻ {d1, d3} ≻ d4:
    the Kemeny–Snell distance is 2C⁻ + Cᵘ + Cˢ = 4.

    >>> c = weak_order_counts([3, 2, 1, 1], [2, 3, 2, 1])
    >>> int(2 * c["C_minus"][0] + c["C_u"][0] + c["C_s"][0])
    4
    """
    user = np.asarray(user, dtype=np.float64)
    system = np.asarray(system, dtype=np.float64)
    if user.shape != system.shape or user.ndim != 1:
        raise ValueError("user and system must be 1-d arrays of the same length")
    if np.isnan(user).any() or np.isnan(system).any():
        raise ValueError("user and system values must not be NaN")
    offsets = (
        np.array([0, len(user)], dtype=np.int64)
        if offsets is None
        else np.asarray(offsets, np.int64)
    )
    if offsets[0] != 0 or offsets[-1] != len(user) or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must be non-decreasing from 0 to len(user)")
    n_seg = len(offsets) - 1
    lens = np.diff(offsets)
    seg = np.repeat(np.arange(n_seg, dtype=np.int64), lens)
    ucode = np.unique(user, return_inverse=True)[1].astype(np.int64)
    n_levels = int(ucode.max()) + 1 if len(ucode) else 0
    scode = np.unique(system, return_inverse=True)[1].astype(np.int64)
    # system order inside each set: system value descending (stable)
    order = np.lexsort((-scode, seg))
    uc, sc = ucode[order], scode[order]
    new_seg = np.zeros(len(uc), bool)
    new_seg[offsets[:-1][lens > 0]] = True
    class_start = new_seg.copy()
    class_start[1:] |= sc[1:] != sc[:-1]
    n = lens.astype(np.int64)
    P = _pairs(n)
    # tied in user / in system / in both
    o_u = np.lexsort((uc, seg))
    us = uc[o_u]
    u_start = new_seg.copy()
    u_start[1:] |= us[1:] != us[:-1]
    U_t = _tied_pairs(u_start, offsets)
    S_t = _tied_pairs(class_start, offsets)
    cls_id = np.cumsum(class_start)
    o_b = np.lexsort((uc, cls_id))  # classes are contiguous, so segments keep their rows
    b_start = np.zeros(len(uc), bool)
    cb, ub = cls_id[o_b], uc[o_b]
    if len(uc):
        b_start[0] = True
        b_start[1:] = (cb[1:] != cb[:-1]) | (ub[1:] != ub[:-1])
    T = _tied_pairs(b_start, offsets)
    # contradicting: system ranks i above j (earlier class) while the user prefers j
    C_minus = _before_greater_counts(uc, class_start, offsets, n_levels)
    C = P - U_t
    C_u = S_t - T
    C_s = U_t - T
    C_plus = C - C_minus - C_u
    return {
        "n": n,
        "C": C,
        "C_plus": C_plus,
        "C_minus": C_minus,
        "C_u": C_u,
        "C_s": C_s,
        "S": P - S_t,
        "T": T,
    }


def ranking_distance(a: Any, b: Any) -> int:
    """Kemeny–Snell distance β between two weak orders of the same items (Eq. 11, 14).

    ``a`` and ``b`` give each item's level (higher = ranked higher, equal = tied).
    β counts 2 per contradicting pair and 1 per pair tied in exactly one ranking.

    Parameters
    ----------
    a, b : array_like
        Level of every item in each weak order.

    Returns
    -------
    int

    Examples
    --------
    >>> ranking_distance([3, 2, 1, 1], [2, 3, 2, 1])   # Example 2 of the paper
    4
    """
    c = weak_order_counts(a, b)
    return int(2 * c["C_minus"][0] + c["C_u"][0] + c["C_s"][0])


def measures_from_counts(c: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """All distance-based measures from pair counts (see the module docstring).

    Returns a dict of float64 arrays: ``dpm, ndpm, dpm_drf, dpm_p, dpm_r, dpm_pa, dpm_ra,
    dpm_m, dpm_e``.  0/0 is 0.

    Parameters
    ----------
    c : mapping of str to numpy.ndarray
        The pair counts ``C, C_plus, C_minus, C_u, C_s`` (as from
        [`pair_counts`][irframe.ndpm.pair_counts]).
    """
    C = np.asarray(c["C"], dtype=np.float64)
    Cp = np.asarray(c["C_plus"], dtype=np.float64)
    Cm = np.asarray(c["C_minus"], dtype=np.float64)
    Cu = np.asarray(c["C_u"], dtype=np.float64)
    Cs = np.asarray(c["C_s"], dtype=np.float64)
    dpm = 2 * Cm + Cu
    S = Cp + Cm + Cs  # |≻s|
    A = C + Cs  # |≻a|
    I = Cp + Cs  # noqa: E741 - |≻a ∩ ≻s|, the paper's notation beside S and A
    ndpm = _div(dpm, 2 * C)
    return {
        "dpm": dpm,
        "ndpm": ndpm,
        "dpm_drf": 1.0 - 2.0 * ndpm,
        "dpm_p": _div(Cp, S),
        "dpm_r": _div(Cp, C),
        "dpm_pa": _div(I, S),
        "dpm_ra": _div(I, A),
        "dpm_m": _div(dpm, A + S - I),
        "dpm_e": _div(dpm, A + S),
    }


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


# --------------------------------------------------------------------------- aligned runs
def count_pairs(
    aligned: Aligned, *, k: int | None = None, rel_level: float | None = None
) -> dict[str, np.ndarray]:
    """Pair counts C, C⁺, C⁻, Cᵘ, Cˢ for every group of ``aligned`` (arrays of length G).

    Parameters
    ----------
    aligned : Aligned
    k : int, optional
        Cutoff: only the first ``k`` documents of each ranking count as retrieved; the
        judged documents below join the bottom tie class.
    rel_level : float, optional
        Binarise the user ranking: grade >= rel_level is "relevant" (two-level user ranking).
        Default: the weak order of the raw grades.

    Notes
    -----
    The judged documents a system did not retrieve are never materialised: with
    N_tℓ judged documents of grade level ℓ in topic t and r_gℓ of them retrieved by
    group g, the unretrieved ones are u_gℓ = N_tℓ − r_gℓ, and their pairs follow from
    Σℓ u_gℓ² = Σℓ N_tℓ² − 2 Σℓ N_tℓ r_gℓ + Σℓ r_gℓ²; the contradicting pairs
    (retrieved d, unretrieved d' with a higher grade) are Σ_d H_t(d) − h_g(d), with H the
    judged and h the retrieved documents of a higher grade.
    """
    a = aligned
    q_grade = a.qrels_rel if rel_level is None else (a.qrels_rel >= rel_level).astype(np.float64)
    levels = np.unique(q_grade)
    L = len(levels)
    q_code = np.searchsorted(levels, q_grade)  # qrels are grade-descending within a topic
    n_t = a.n_judged().astype(np.int64)

    # per (topic, level): counts, via the grade-descending qrels order
    if rel_level is None:
        qkey = a.qrels_topic * L + (L - 1 - q_code)
    else:
        qkey = np.sort(a.qrels_topic * L + (L - 1 - q_code))
    lev_start = np.ones(len(qkey), bool)
    lev_start[1:] = qkey[1:] != qkey[:-1]
    U_topic = _tied_pairs(lev_start, a.qrels_offsets)  # user-tied pairs per topic
    sq_topic = 2 * U_topic + n_t  # Σℓ N_tℓ²

    # retrieved judged rows within the cutoff
    mask = ~np.isnan(a.row_rel)
    if k is not None:
        mask &= a.row_rank <= k
    rows = np.flatnonzero(mask)
    r_g = segment_sum(mask, a.offsets).astype(np.int64)
    roff = np.concatenate([[0], np.cumsum(r_g)]).astype(np.int64)
    grade = (
        a.row_rel[rows] if rel_level is None else (a.row_rel[rows] >= rel_level).astype(np.float64)
    )
    code = np.searchsorted(levels, grade).astype(np.int64)
    grp = a.row_group[rows]
    topic = a.group_topic[grp]
    rkey = topic * L + (L - 1 - code)
    H = np.searchsorted(qkey, rkey, side="left") - a.qrels_offsets[topic]  # judged, higher grade
    N_same = np.searchsorted(qkey, rkey, side="right") - np.searchsorted(qkey, rkey, side="left")

    class_start, S_ret, T_ret, sq_r = _retrieved_ties(a, rows, roff, r_g, code, L)

    # unretrieved judged documents: one tie class at the bottom
    gt = a.group_topic
    u = n_t[gt] - r_g
    cross_NS = _isum(N_same, roff)  # Σℓ N_tℓ r_gℓ
    sq_u = sq_topic[gt] - 2 * cross_NS + sq_r  # Σℓ u_gℓ²
    T_unret = (sq_u - u) // 2
    S_t = S_ret + _pairs(u)
    Tb = T_ret + T_unret

    # contradicting pairs
    C_cross = _isum(H, roff) - (r_g * r_g - sq_r) // 2  # retrieved d above unretrieved d' ≻u d
    C_within = _before_greater_counts(code, class_start, roff, L)

    n = n_t[gt]
    C = _pairs(n) - U_topic[gt]
    C_minus = C_cross + C_within
    C_u = S_t - Tb
    C_s = U_topic[gt] - Tb
    C_plus = C - C_minus - C_u
    return {"n": n, "C": C, "C_plus": C_plus, "C_minus": C_minus, "C_u": C_u, "C_s": C_s}


def _retrieved_ties(
    a: Aligned, rows: np.ndarray, roff: np.ndarray, r_g: np.ndarray, code: np.ndarray, L: int
):
    """Tie classes among the retrieved judged rows (equal scores under trec_eval's orders) →
    (class starts, system-tied pairs S, pairs tied by both system and user T, Σℓ r_gℓ²) per group."""
    G = a.n_groups
    grp = a.row_group[rows]
    seg_first = np.zeros(len(rows), bool)
    seg_first[roff[:-1][r_g > 0]] = True
    if a.order in ("trec_eval", "trec_eval10"):
        sc = a.row_score[rows]
        class_start = seg_first.copy()
        class_start[1:] |= sc[1:] != sc[:-1]
    else:
        class_start = np.ones(len(rows), bool)
    S_ret = _tied_pairs(class_start, roff)

    # (class, level) cells and (group, level) cells among retrieved rows
    cls_id = np.cumsum(class_start) - 1
    cls_size = np.bincount(cls_id) if len(cls_id) else np.zeros(0, np.int64)
    multi = cls_size[cls_id] > 1 if len(cls_id) else np.zeros(0, bool)
    if multi.any():
        ck = cls_id[multi] * L + code[multi]
        ck_u, ck_n = np.unique(ck, return_counts=True)
        first_row = np.searchsorted(cls_id, ck_u // L)  # first retrieved row of that class
        T_ret = np.bincount(
            np.searchsorted(roff, first_row, side="right") - 1, weights=_pairs(ck_n), minlength=G
        ).astype(np.int64)
    else:
        T_ret = np.zeros(G, dtype=np.int64)
    gk_u, gk_n = np.unique(grp * L + code, return_counts=True)
    sq_r = np.bincount(gk_u // L, weights=gk_n.astype(np.float64) ** 2, minlength=G).astype(
        np.int64
    )  # Σℓ r_gℓ²
    return class_start, S_ret, T_ret, sq_r


def _counts(ctx: EvalContext, m: Measure) -> dict[str, np.ndarray]:
    rel = m.param("rel")
    key = ("dpm_measures", m.cutoff, rel)
    return ctx.memo(
        key,
        lambda: measures_from_counts(count_pairs(ctx.aligned, k=m.cutoff, rel_level=rel)),
    )


def _kernel(field: str):
    def compute(ctx: EvalContext, m: Measure) -> np.ndarray:
        return _counts(ctx, m)[field]

    compute.__name__ = f"_{field}"
    return compute


REL = Param("float", None, description="binarise the user ranking: grade >= rel vs the rest")


_DEFS = {
    "ndpm": "Yao's normalized distance-based performance measure (2C- + Cu)/2C; lower is better",
    "dpm": "Yao's distance-based performance measure 2C- + Cu (pairs of judged documents)",
    "dpm_drf": "distance reduction factor 1 - 2*ndpm (Yao Eq. 26); 1 best, 0 random, -1 worst",
    "dpm_p": "ranking-based precision C+/|>s| (Yao Eq. 55)",
    "dpm_r": "ranking-based recall C+/C (Yao Eq. 56)",
    "dpm_pa": "ranking-based precision w.r.t. the closest acceptable ranking (Yao Eq. 61)",
    "dpm_ra": "ranking-based recall w.r.t. the closest acceptable ranking (Yao Eq. 62)",
    "dpm_m": "Marczewski-Steinhaus distance between acceptable and system rankings (Yao Eq. 45)",
    "dpm_e": "van Rijsbergen's normalized symmetric distance dpm/(|>a|+|>s|) (Yao Eq. 46)",
}
_ALIASES = {"ndpm": ("NDPM",), "dpm_drf": ("DRF",)}

for _name, _desc in _DEFS.items():
    register(
        MeasureDef(
            name=_name,
            compute=_kernel(_name),
            params={"rel": REL},
            cutoff="optional",
            description=_desc,
            family="ndpm",
            lower_is_better=_name in ("ndpm", "dpm", "dpm_m", "dpm_e"),
            bounds="approximate",
            topic_local=True,
            reference="Yao 1995, Examples 2-3 and identities (2-level ndpm = (1+F-R)/2)",
            citation="Yao 1995, Measuring retrieval effectiveness based on user preference of documents, JASIS",
        ),
        aliases=_ALIASES.get(_name, ()),
    )
