"""Lexicographic evaluation (F. Diaz & B. Mitra, "Recall as a Measure of Ranking Robustness",
arXiv:2302.11370v1, 2023, whose section and equation numbers are cited here; published as
Diaz, Ekstrand & Mitra, "Recall, Robustness, and Lexicographic Evaluation", ACM TORS 4(1), 2025).

What this module computes
-------------------------
*Preferences* between the rankings of every pair of systems on every topic:

* [`lexirecall`][irframe.lexi.lexirecall] -- leximin over the position vector ``p`` of the relevant
  documents (Eq. 11): compare ``p_m`` first, then ``p_{m-1}``, ...; the ranking
  whose relevant document sits higher at the first difference wins.  Unretrieved
  relevant documents are imputed pessimistically (§2.2) at ``n-m+k+1, ..., n``.
  For any corpus size ``n >= depth + m`` this is the same as: *the run that
  retrieves more relevant documents wins; otherwise compare the ranks of the
  retrieved relevant documents from the deepest upward, lower rank wins; all equal
  is a tie* -- so no corpus size is needed (the authors' convention).
* [`lexiprecision`][irframe.lexi.lexiprecision] -- leximax from the top (§7.3.1): compare ``p_1``, then
  ``p_2``, ...; a retrieved rank beats "not retrieved".
* [`rrlp`][irframe.lexi.rrlp] -- the reciprocal-rank difference ``1/p_i - 1/p'_i`` at the first
  position ``i`` where the two vectors differ (lexiprecision with a magnitude).

Speed: within a topic both relations are total preorders, so each (system, topic)
gets one sort key (a fixed-width big-endian byte string); one ``argsort`` over all
keys gives a dense class of every ranking, and the preference cube is the sign of
the class difference -- ``O(G log G)`` plus the ``S x S x T`` output, no loop over
pairs.

*Metrics*: [`tse`][irframe.lexi.tse] (total search efficiency, Eq. 3) and
[`metric_lexirecall`][irframe.lexi.metric_lexirecall] (§7.3.2) need an explicit corpus size ``n``.

*Aggregation* over topics: [`preference_counts`][irframe.lexi.preference_counts], [`mean_preference`][irframe.lexi.mean_preference],
[`order_systems`][irframe.lexi.order_systems] (net wins / Copeland, Borda, Markov chain),
[`preference_table`][irframe.lexi.preference_table] (with the sign test of [`irframe.stats.sign_test`][irframe.stats.sign_test]),
[`metric_agreement`][irframe.lexi.metric_agreement] (Fig. 9) and [`tie_fraction`][irframe.lexi.tie_fraction] (Fig. 10).

*Analytical tools*: [`tie_probability`][irframe.lexi_theory.tie_probability] (Table 2 / App. A.4, exact big-integer
arithmetic), [`simulate_ties`][irframe.lexi_theory.simulate_ties] (Monte-Carlo check of the same),
[`orientation`][irframe.lexi_theory.orientation] (§3.1, Fig. 3) and [`worst_case_simulation`][irframe.lexi_theory.worst_case_simulation] (Table 1).

Conventions
-----------
* Relevant ⇔ grade ``>= rel_level`` (default 1; with integer grades this is the
  authors' "grade > 0").  Grades are not truncated.
* A topic without relevant documents at ``rel_level`` is dropped from the
  preference cubes (``attrs["dropped_topics"]`` counts them).
* A topic missing from a system's run is that system's worst case (nothing
  retrieved): it ties with every other system that retrieved no relevant document.
* Document order inside a ranking follows ``order=`` of [`irframe.align.align`][irframe.align.align]
  (default ``"trec_eval"``).

Examples
--------
>>> import pandas as pd
>>> from irframe.lexi import lexirecall
>>> runs = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "topic": "1",
...                      "doc": ["d1", "d2", "d3"] * 2, "score": [3, 2, 1, 1, 2, 3]})
>>> qrels = pd.DataFrame({"topic": "1", "doc": ["d1", "d2"], "rel": 1})
>>> pref = lexirecall(runs, qrels)
>>> pref.sel(topic="1").values.tolist()   # a: relevant at 1, 2; b: at 2, 3
[[0, 1], [-1, 0]]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ._backend import by_backend
from .align import Aligned, align
from .cube import result
from .errors import InputError, OptionError, ShapeError
from .lexi_theory import (
    orientation,
    position_metric,
    simulate_ties,
    tie_probability,
    worst_case_simulation,
)
from .measures.lexi import (
    EXPOSURES,
    Positions,
    bottom_position,
    check_corpus_size,
    dense_classes,
    exposure,
    key_classes,
    metric_lexirecall_values,
    precision_keys,
    relevant_positions,
    sign_matrix,
)
from .options import Options, takes_options
from .qrelsets import judgment_sets

__all__ = [
    "EXPOSURES",
    "exposure",
    "lexi_classes",
    "lexiprecision",
    "lexirecall",
    "mean_preference",
    "metric_agreement",
    "metric_lexirecall",
    "order_systems",
    "orientation",
    "position_metric",
    "preference_counts",
    "preference_table",
    "rrlp",
    "simulate_ties",
    "tie_fraction",
    "tie_probability",
    "tse",
    "worst_case_simulation",
]

# =====================================================================================
# relevant positions per (system, topic)
# =====================================================================================


def dropped_topic_attrs(dropped: list[str]) -> dict[str, Any]:
    """The attrs naming the topics dropped for lacking relevant documents (the first 50 ids).

    Parameters
    ----------
    dropped : sequence of str
        The dropped topic ids.

    Returns
    -------
    dict
    """
    return {
        "dropped_topics": len(dropped),
        "dropped_topic_ids": ",".join(dropped[:50]) + (",..." if len(dropped) > 50 else ""),
    }


def _lexi_result(
    values: np.ndarray,
    pos: Positions,
    name: str,
    a: Aligned,
    rel_level: float,
    *,
    pairwise: bool = True,
    attrs: Mapping[str, Any] | None = None,
) -> xr.DataArray:
    """A lexicographic result over ``(system, other, topic)`` (``pairwise``) or ``(system, topic)``."""
    S, T = pos.shape
    systems, topics = np.asarray(pos.systems, dtype=object), np.asarray(pos.topics, dtype=object)
    own = {"measure": name, **dropped_topic_attrs(pos.dropped_topics)}
    dims: tuple[str, ...]
    if pairwise:
        own["description"] = (
            "+1: system preferred to other; topics without relevant documents dropped; "
            "a topic missing from a run is its worst case"
        )
        dims, coords = (
            ("system", "other", "topic"),
            {"system": systems, "other": systems, "topic": topics},
        )
    else:
        dims, coords, values = (
            ("system", "topic"),
            {"system": systems, "topic": topics},
            values.reshape(S, T),
        )
    return result(
        values,
        dims,
        coords,
        name=name,
        options=a.options.replace(rel_level=float(rel_level)),
        measures=[name],
        attrs={**own, **(attrs or {})},
    )


def _aligned(runs: pd.DataFrame | Aligned, qrels: pd.DataFrame | None, opts: Options) -> Aligned:
    if isinstance(runs, Aligned):
        if opts.changed("align") or qrels is not None:
            raise OptionError(
                "qrels and alignment options cannot be combined with an already aligned input"
            )
        return runs
    if qrels is None:
        raise InputError("qrels are needed: pass qrels=... (a frame topic, doc, rel)")
    return align(runs, qrels, opts=opts)


@takes_options("align", "rel_level")
def lexi_classes(
    runs: pd.DataFrame | Aligned,
    qrels: pd.DataFrame | None = None,
    *,
    kind: str = "recall",
    opts: Options,
) -> xr.DataArray:
    """Dense class of every (system, topic) ranking under lexirecall or lexiprecision.

    Within a topic, a lower class is strictly better and equal classes tie, so the
    class is an exact "metric" representation of the preference relation among the
    compared runs (classes of different topics are not comparable).

    Parameters
    ----------
    runs : pandas.DataFrame or Aligned
        Run frame (or already aligned arrays).
    qrels : pandas.DataFrame, optional
        Judgments (not needed with an [`Aligned`][irframe.Aligned]).
    kind : {"recall", "precision"}
        Lexicographic recall or precision.

    Returns
    -------
    xarray.DataArray
        int64, dims ``(system, topic)``; topics without relevant documents dropped.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"system": list("aabb"), "topic": "1", "doc": ["x", "y"] * 2,
    ...                      "score": [2, 1, 1, 2]})
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["x"], "rel": [1]})
    >>> c = lexi_classes(runs, qrels).sel(topic="1")
    >>> bool(c.sel(system="a") < c.sel(system="b"))
    True
    """
    a, rel_level = _aligned(runs, qrels, opts), opts.rel_level
    pos = relevant_positions(a, rel_level)
    if kind not in ("recall", "precision"):
        raise OptionError(f"kind must be 'recall' or 'precision', got {kind!r}")
    cls = key_classes(pos, kind)
    S, T = pos.shape
    if T:
        cls = cls.reshape(S, T)
        cls = cls - cls.min(axis=0, keepdims=True)
    else:
        cls = cls.reshape(S, 0)
    return _lexi_result(
        cls, pos, f"lexi{kind}_class", a, rel_level, pairwise=False, attrs={"kind": kind}
    )


@by_backend
@takes_options("align", "rel_level")
@judgment_sets
def lexirecall(
    runs: pd.DataFrame | Aligned,
    qrels: pd.DataFrame | None = None,
    *,
    judgments: str = "each",
    opts: Options,
) -> xr.DataArray:
    """Lexicographic recall preferences between all systems on every topic.

    Parameters
    ----------
    runs : pandas.DataFrame
        Long run frame ``system, topic, doc, score[, rank]``.
    qrels : pandas.DataFrame
        ``topic, doc, rel``.
    judgments : {"each", "common"}, default "each"
        With ``qrels={name: frame}`` (several judgment sets): the policy for documents
        judged in only some of them; the result gets a last ``qrels`` dim
        ([`irframe.qrelsets`][irframe.qrelsets]).

    Returns
    -------
    xarray.DataArray
        int8, dims ``("system", "other", "topic")``, values in {-1, 0, +1}; +1 means
        ``system`` is preferred to ``other``.  Antisymmetric with a zero diagonal.
        Topics without relevant documents are dropped (``attrs["dropped_topics"]``).

    Notes
    -----
    Pessimistic imputation (Diaz & Mitra 2023, §2.2) makes the comparison independent of the
    corpus size: the run retrieving more relevant documents wins; with equal counts
    the ranks of the retrieved relevant documents decide, deepest first.

    See Also
    --------
    - [`df.ir.lexirecall`][irframe.IrAccessor.lexirecall]: the accessor form.
    - [`irframe.dask`][irframe.dask]: ``runs`` may be a Dask frame (the same cube).
    - [`sign_test`][irframe.stats.sign_test]: significance over topics.
    - [`metric_lexirecall`][irframe.lexi.metric_lexirecall]: a per-ranking score with the same order.
    - [Lexicographic evaluation](../lexi.md): the guide.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 2, "topic": "7",
    ...                      "doc": ["r1", "x", "r2", "r1", "r2"], "score": [3, 2, 1, 2, 1]})
    >>> qrels = pd.DataFrame({"topic": "7", "doc": ["r1", "r2"], "rel": 1})
    >>> int(lexirecall(runs, qrels).sel(system="b", other="a", topic="7"))  # p = (1, 2) vs (1, 3)
    1
    """
    a, rel_level = _aligned(runs, qrels, opts), opts.rel_level
    pos = relevant_positions(a, rel_level)
    cls = key_classes(pos, "recall")
    S, T = pos.shape
    return _lexi_result(sign_matrix(cls, S, T), pos, "lexirecall", a, rel_level)


@by_backend
@takes_options("align", "rel_level")
@judgment_sets
def lexiprecision(
    runs: pd.DataFrame | Aligned,
    qrels: pd.DataFrame | None = None,
    *,
    judgments: str = "each",
    opts: Options,
) -> xr.DataArray:
    """Lexicographic precision preferences (leximax from the top, Diaz & Mitra 2023, §7.3.1).

    Same inputs and output as [`lexirecall`][irframe.lexi.lexirecall]; the comparison walks the relevant
    documents from the top: lower rank wins, a retrieved rank beats "not retrieved".
    Whenever reciprocal rank differs, lexiprecision agrees with it.

    Parameters
    ----------
    runs : pandas.DataFrame
        Long run frame ``system, topic, doc, score[, rank]``.
    qrels : pandas.DataFrame
        ``topic, doc, rel``.
    judgments : {"each", "common"}, default "each"
        With ``qrels={name: frame}`` (several judgment sets): the policy for documents judged in
        only some of them; the result gets a last ``qrels`` dim
        ([`irframe.qrelsets`][irframe.qrelsets]).

    Returns
    -------
    xarray.DataArray
        int8 ``(system, other, topic)``: +1 where ``system``'s ranking is preferred, -1 where
        ``other``'s is, 0 for a tie.

    See Also
    --------
    - [`df.ir.lexiprecision`][irframe.IrAccessor.lexiprecision]: the accessor form.
    - [`irframe.dask`][irframe.dask]: ``runs`` may be a Dask frame (the same cube).
    - [`rrlp`][irframe.lexi.rrlp]: lexiprecision with a magnitude.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "topic": "7",
    ...                      "doc": ["r1", "x", "r2", "r1", "r2", "x"], "score": [3, 2, 1, 3, 2, 1]})
    >>> qrels = pd.DataFrame({"topic": "7", "doc": ["r1", "r2"], "rel": 1})
    >>> int(lexiprecision(runs, qrels).sel(system="b", other="a", topic="7"))  # RR ties, p_2: 2 < 3
    1
    """
    a, rel_level = _aligned(runs, qrels, opts), opts.rel_level
    pos = relevant_positions(a, rel_level)
    cls = key_classes(pos, "precision")
    S, T = pos.shape
    return _lexi_result(sign_matrix(cls, S, T), pos, "lexiprecision", a, rel_level)


# =====================================================================================
# rrLP
# =====================================================================================
@takes_options("align", "rel_level")
def rrlp(
    runs: pd.DataFrame | Aligned,
    qrels: pd.DataFrame | None = None,
    *,
    n: int | None = None,
    opts: Options,
) -> xr.DataArray:
    """rrLP: reciprocal-rank difference at the first position where the vectors differ.

    For rankings ``π`` (``system``) and ``π'`` (``other``) with position vectors ``p``,
    ``p'`` walked from the top, ``rrLP = 1/p_i - 1/p'_i`` where ``i`` is the first index
    with ``p_i != p'_i`` (0 when the vectors are equal).  Its sign is the
    lexiprecision preference; when reciprocal rank differs it equals
    ``RR(π) - RR(π')``.

    Parameters
    ----------
    runs, qrels : pandas.DataFrame
        The run frame (``system, topic, doc, score``) and the judgments (``topic, doc, rel``),
        as for [`irframe.evaluate`][irframe.evaluate]; or arrays aligned already
        ([`irframe.align.align`][irframe.align.align]) and no qrels.
    n : int, optional
        Corpus size for the pessimistic imputation of unretrieved relevant documents
        (position ``n - m + i``).  By default ``n`` is taken as infinite, so an
        unretrieved document contributes ``1/p = 0``.

    Returns
    -------
    xarray.DataArray
        float64, dims ``("system", "other", "topic")``, antisymmetric.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "topic": "7",
    ...                      "doc": ["r1", "x", "r2", "r1", "r2", "x"], "score": [3, 2, 1, 3, 2, 1]})
    >>> qrels = pd.DataFrame({"topic": "7", "doc": ["r1", "r2"], "rel": 1})
    >>> round(float(rrlp(runs, qrels).sel(system="b", other="a", topic="7")), 4)   # 1/2 - 1/3
    0.1667
    """
    a, rel_level = _aligned(runs, qrels, opts), opts.rel_level
    pos = relevant_positions(a, rel_level)
    S, T = pos.shape
    L = pos.max_k
    if n is not None:
        check_corpus_size(n, pos)
    M = precision_keys(pos)
    _cls, order = dense_classes(M)
    if S * T == 0:
        return _lexi_result(np.zeros((S, S, T)), pos, "rrLP", a, rel_level)
    # sorted order: topic first, every topic has exactly S cells
    order_t = order.reshape(T, S)
    Ms = M[order].astype(np.int64)[:, 1:].reshape(T, S, L)
    if S > 1 and L > 0:
        diff = Ms[:, 1:, :] != Ms[:, :-1, :]  # (T, S-1, L)
        adj = np.where(diff.any(axis=2), diff.argmax(axis=2), L)  # first differing index
    else:
        adj = np.full((T, max(S - 1, 0)), L, np.int64)
    # LCP of sorted positions i < j = min(adj[i..j-1])
    ii = np.arange(S)
    A = np.full((T, S, S), L, np.int64)
    if S > 1:
        upper = ii[None, :, None] < ii[None, None, 1:]  # j > i, j = 1..S-1
        A[:, :, 1:] = np.where(upper, adj[:, None, :], np.iinfo(np.int64).max)
        A = np.minimum.accumulate(A, axis=2)
        A = np.where(ii[:, None] < ii[None, :], A, 0)
        A = np.maximum(A, np.swapaxes(A, 1, 2))
    A[:, ii, ii] = L
    # back to systems: cell = s*T + t, sorted index -> system
    sys_sorted = order_t // T  # (T, S)
    posn = np.empty((T, S), np.int64)
    posn[np.arange(T)[:, None], sys_sorted] = ii[None, :]
    tt = np.arange(T)[:, None, None]
    d = A[tt, posn[:, :, None], posn[:, None, :]]  # (T, S, S) first differing index
    # value 1/p at index d for each cell; imputed positions n-m+d+1 (or 1/inf = 0)
    inv = np.zeros((S * T, L + 1))
    cols = np.arange(L + 1)
    if n is not None:
        m_cell = np.tile(pos.m, S)
        inv[:] = 1.0 / (n - m_cell[:, None] + cols[None, :] + 1)
        inv[:, L] = 0.0
        inv[cols[None, :] >= np.maximum(m_cell, 0)[:, None]] = 0.0
    inv[pos.cell, pos.j] = 1.0 / pos.rank
    cell_s = np.arange(S)[:, None] * T + np.arange(T)[None, :]  # (S, T)
    ca = cell_s.T[:, :, None]  # (T, S, 1)
    cb = cell_s.T[:, None, :]  # (T, 1, S)
    val = inv[ca, d] - inv[cb, d]  # (T, S, S)
    val = np.where(d >= L, 0.0, val)
    out = np.ascontiguousarray(np.moveaxis(val, 0, 2))
    return _lexi_result(out, pos, "rrLP", a, rel_level, attrs={"n": -1 if n is None else int(n)})


# =====================================================================================
# exposure functions, TSE, metric lexirecall
# =====================================================================================


@takes_options("align", "rel_level")
def tse(
    runs: pd.DataFrame | Aligned,
    qrels: pd.DataFrame | None = None,
    *,
    n: int,
    e: str | Callable = "AP",
    p: float = 0.8,
    k: int = 1000,
    opts: Options,
) -> xr.DataArray:
    """Total search efficiency ``TSE_e = e(p_m)`` (Diaz & Mitra 2023, Eq. 3).

    ``p_m`` is the position of the lowest-ranked relevant document with pessimistic
    imputation in a corpus of ``n`` documents: the rank of the deepest relevant
    document when all ``m`` are retrieved, else ``n``.

    Parameters
    ----------
    runs, qrels : pandas.DataFrame
        The run frame (``system, topic, doc, score``) and the judgments (``topic, doc, rel``),
        as for [`irframe.evaluate`][irframe.evaluate]; or arrays aligned already
        ([`irframe.align.align`][irframe.align.align]) and no qrels.
    n : int
        Corpus size; must be at least ranking length + unretrieved relevant documents.
    e : {"AP", "NDCG", "RBP", "R", "RP"} or callable
        Exposure function (see [`exposure`][irframe.lexi.exposure]); ``p`` is RBP's γ, ``k`` the recall cutoff.
    p : float, default 0.8
        RBP's persistence γ (``e="RBP"``).
    k : int, default 1000
        The recall cutoff (``e="R"``).

    Returns
    -------
    xarray.DataArray
        float64, dims ``(system, topic)``; topics without relevant documents dropped.

    See Also
    --------
    - [`evaluate`][irframe.evaluate] with ``"TSE(n=...)"``: the same as a measure.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"system": "a", "topic": "1", "doc": ["r1", "x", "r2"], "score": [3, 2, 1]})
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["r1", "r2"], "rel": 1})
    >>> float(tse(runs, qrels, n=100).sel(system="a", topic="1"))   # e_AP(3)
    0.3333333333333333
    >>> float(tse(runs, qrels.assign(doc=["r1", "zz"]), n=100).item())  # zz unretrieved: e_AP(n)
    0.01
    """
    a, rel_level = _aligned(runs, qrels, opts), opts.rel_level
    pos = relevant_positions(a, rel_level)
    n = check_corpus_size(n, pos)
    pm = bottom_position(pos, n)
    S, _ = pos.shape
    vals = exposure(e, pm, np.tile(pos.m, S), p=p, k=k)
    return _lexi_result(
        vals,
        pos,
        "TSE",
        a,
        rel_level,
        pairwise=False,
        attrs={"n": n, "e": e if isinstance(e, str) else getattr(e, "__name__", "callable")},
    )


@takes_options("align", "rel_level")
def metric_lexirecall(
    runs: pd.DataFrame | Aligned,
    qrels: pd.DataFrame | None = None,
    *,
    n: int,
    epsilon: float | Fraction = Fraction(1, 2),
    representation: str = "exact",
    opts: Options,
) -> xr.DataArray:
    """Metric lexirecall ``LR(p) = Σ_i w_i x_i`` (Diaz & Mitra 2023, §7.3.2, Yager's leximin weights).

    ``x_i = (n - p_i)/n`` and ``w_1 = Δ^(m-1)/(1+Δ)^(m-1)``, ``w_i = Δ^(m-i)/(1+Δ)^(m+1-i)``
    with ``Δ = 1/(n + ε)``.  Higher is better; within a topic it orders rankings exactly
    like [`lexirecall`][irframe.lexi.lexirecall] -- *if* computed exactly.  In float64 the weights span
    ``n^-(m-1)``, so at realistic ``n`` (5·10⁸) everything beyond the bottom one or two
    recall levels is lost (the paper's warning).

    Parameters
    ----------
    runs, qrels : pandas.DataFrame
        The run frame (``system, topic, doc, score``) and the judgments (``topic, doc, rel``),
        as for [`irframe.evaluate`][irframe.evaluate]; or arrays aligned already
        ([`irframe.align.align`][irframe.align.align]) and no qrels.
    n : int
        Corpus size (ranking length + unretrieved relevant documents at most).
    epsilon : float or Fraction in (0, 1)
        The free parameter ε (converted exactly with ``Fraction(str(epsilon))``).
    representation : {"exact", "float", "rank"}
        ``"exact"``: `fractions.Fraction` values (object array) equal to the
        formula, computed with integer arithmetic -- exact order for any ``n``.
        ``"float"``: the formula in float64 (loses order at large ``n``).
        ``"rank"``: float64 in [0, 1], the share of the other systems' rankings of the
        topic this ranking strictly beats (a missing ranking counts as worst case) --
        exact order among the compared runs, independent of ``n``.

    Returns
    -------
    xarray.DataArray
        dims ``(system, topic)``; topics without relevant documents dropped.

    See Also
    --------
    - [`evaluate`][irframe.evaluate] with ``"LR"``: the same as a measure.
    - [`lexirecall`][irframe.lexi.lexirecall]: the preferences it represents.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"system": list("aabb"), "topic": "1", "doc": ["r1", "x", "x", "r1"],
    ...                      "score": [2, 1, 2, 1]})
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["r1"], "rel": 1})
    >>> lr = metric_lexirecall(runs, qrels, n=10, epsilon=0.5)
    >>> [str(v) for v in lr.sel(topic="1").values]      # m = 1: w_1 = 1, x_1 = (n - p_1)/n
    ['9/10', '4/5']
    """
    a, rel_level = _aligned(runs, qrels, opts), opts.rel_level
    pos = relevant_positions(a, rel_level)
    n = check_corpus_size(n, pos)
    return _lexi_result(
        metric_lexirecall_values(pos, n, epsilon, representation),
        pos,
        "LR",
        a,
        rel_level,
        pairwise=False,
        attrs={"n": n, "epsilon": str(epsilon), "representation": representation},
    )


# =====================================================================================
# aggregation across topics
# =====================================================================================
def _pref_values(pref: xr.DataArray) -> np.ndarray:
    if (
        not isinstance(pref, xr.DataArray)
        or tuple(pref.dims[:2]) != ("system", "other")
        or pref.ndim != 3
    ):
        raise ShapeError(
            "expected a preference cube with dims ('system', 'other', 'topic'), "
            f"got {getattr(pref, 'dims', type(pref).__name__)}; compute it with irframe.lexi.lexirecall"
        )
    return np.asarray(pref.values)


def preference_counts(pref: xr.DataArray) -> xr.Dataset:
    """Wins, losses and ties of every (system, other) pair over topics.

    Parameters
    ----------
    pref : xarray.DataArray
        Preference cube ``(system, other, topic)`` with values in {-1, 0, +1}, as from
        [`lexirecall`][irframe.lexi.lexirecall] or [`lexiprecision`][irframe.lexi.lexiprecision].

    Returns
    -------
    xarray.Dataset
        Dims ``(system, other)``: ``wins`` (topics with +1), ``losses`` (-1), ``ties`` (0),
        ``net`` (wins - losses), ``topics``.  NaN cells of a float cube are not counted.

    See Also
    --------
    - [`mean_preference`][irframe.lexi.mean_preference], [`order_systems`][irframe.lexi.order_systems], [`preference_table`][irframe.lexi.preference_table].

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> p = xr.DataArray(np.array([[[0, 0, 0], [1, 1, 0]], [[-1, -1, 0], [0, 0, 0]]], dtype=np.int8),
    ...                  dims=("system", "other", "topic"), coords={"system": ["a", "b"], "other": ["a", "b"]})
    >>> int(preference_counts(p).wins.sel(system="a", other="b"))
    2
    """
    v = _pref_values(pref)
    valid = ~np.isnan(v) if v.dtype.kind == "f" else np.ones(v.shape, bool)
    wins = ((v > 0) & valid).sum(axis=2)
    losses = ((v < 0) & valid).sum(axis=2)
    ties = ((v == 0) & valid).sum(axis=2)
    coords = {d: pref.coords[d] for d in ("system", "other") if d in pref.coords}
    dims = ("system", "other")
    ds = xr.Dataset(
        {
            "wins": (dims, wins),
            "losses": (dims, losses),
            "ties": (dims, ties),
            "net": (dims, wins - losses),
            "topics": (dims, valid.sum(axis=2)),
        },
        coords=coords,
    )
    return result(
        ds,
        computed="irframe.lexi.preference_counts",
        parameters={},
        attrs={"measure": pref.attrs.get("measure", pref.name or "")},
    )


def mean_preference(pref: xr.DataArray) -> xr.DataArray:
    """Mean preference over topics, ``(wins - losses) / topics`` in [-1, 1] (NaN skipped).

    Parameters
    ----------
    pref : xarray.DataArray
        Preference cube ``(system, other, topic)`` with values in {-1, 0, +1}, as from
        [`lexirecall`][irframe.lexi.lexirecall] or [`lexiprecision`][irframe.lexi.lexiprecision].

    Returns
    -------
    xarray.DataArray
        Dims ``(system, other)``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> p = xr.DataArray(np.array([[[0, 0], [1, 0]], [[-1, 0], [0, 0]]], dtype=np.int8),
    ...                  dims=("system", "other", "topic"))
    >>> mean_preference(p).values.tolist()
    [[0.0, 0.5], [-0.5, 0.0]]
    """
    _pref_values(pref)
    return result(
        pref.astype(np.float64).mean("topic", skipna=True),
        name="mean_preference",
        computed="irframe.lexi.mean_preference",
        parameters={},
        attrs={"measure": pref.attrs.get("measure", pref.name or "")},
    )


def order_systems(
    pref: xr.DataArray,
    *,
    method: str = "net_wins",
    damping: float = 0.85,
    tol: float = 1e-12,
    max_iter: int = 10_000,
) -> pd.DataFrame:
    """Order systems from a preference cube.

    Parameters
    ----------
    pref : xarray.DataArray
        A preference cube ``(system, other, topic)`` of +1 / 0 / -1, e.g. from
        [`lexirecall`][irframe.lexi.lexirecall].
    method : {"net_wins", "copeland", "borda", "markov"}
        ``net_wins``: Σ over topics and other systems of the preference (wins - losses);
        ``copeland``: number of systems beaten minus systems lost to on the per-pair
        majority over topics; ``borda``: mean over topics of the number of systems
        beaten plus half the ties (Borda count of the per-topic weak orders);
        ``markov``: stationary distribution of a Markov chain that moves from a
        system to each other system with probability proportional to the share of
        topics where that other system is preferred (MC4-style, with ``damping``
        teleportation so the chain is ergodic).
    damping : float
        Markov only: probability of following a preference (1 - damping teleports).
    tol : float, default 1e-12
        Markov only: the power iteration stops when the distribution moves less than this.
    max_iter : int, default 10000
        Markov only: the most iterations.

    Returns
    -------
    pandas.DataFrame
        Index = systems best first; columns ``score`` and ``rank`` (1 = best; ties share
        the minimum rank).

    See Also
    --------
    - [`preference_counts`][irframe.lexi.preference_counts]: the counts it orders by.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> p = np.zeros((3, 3, 2), np.int8)
    >>> p[0, 1] = p[0, 2] = p[1, 2] = 1
    >>> p = p - p.transpose(1, 0, 2)
    >>> pref = xr.DataArray(p, dims=("system", "other", "topic"),
    ...                     coords={"system": list("abc"), "other": list("abc")})
    >>> order_systems(pref).index.tolist()
    ['a', 'b', 'c']
    >>> order_systems(pref, method="markov").index.tolist()
    ['a', 'b', 'c']
    """
    v = _pref_values(pref).astype(np.float64)
    S = v.shape[0]
    systems = pref.coords["system"].values if "system" in pref.coords else np.arange(S)
    valid = ~np.isnan(v)
    vz = np.where(valid, v, 0.0)
    if method == "net_wins":
        score = vz.sum(axis=(1, 2))
    elif method == "copeland":
        tot = vz.sum(axis=2)
        score = (tot > 0).sum(axis=1) - (tot < 0).sum(axis=1)
    elif method == "borda":
        pts = (vz > 0) + 0.5 * ((vz == 0) & valid)
        eye = np.eye(S, dtype=bool)[:, :, None]
        pts = np.where(eye, 0.0, pts)
        ntop = np.maximum(valid.any(axis=(0, 1)).sum(), 1)
        score = pts.sum(axis=(1, 2)) / ntop
    elif method == "markov":
        if not (0 < damping <= 1):
            raise OptionError(f"damping must lie in (0, 1], got {damping!r}")
        ntopics = np.maximum(valid.sum(axis=2), 1)
        beat_by = (vz < 0).sum(axis=2) / ntopics  # [i, j]: share of topics where j beats i
        np.fill_diagonal(beat_by, 0.0)
        P = beat_by / max(S - 1, 1)
        P[np.arange(S), np.arange(S)] = 1.0 - P.sum(axis=1)
        P = damping * P + (1 - damping) / S
        pi = np.full(S, 1.0 / S)
        for _ in range(max_iter):  # power iteration
            nxt = pi @ P
            if np.abs(nxt - pi).sum() < tol:
                pi = nxt
                break
            pi = nxt
        score = pi
    else:
        raise OptionError(
            f"method must be 'net_wins', 'copeland', 'borda' or 'markov', got {method!r}"
        )
    s = pd.Series(
        np.asarray(score, dtype=np.float64), index=pd.Index(systems, name="system"), name="score"
    )
    out = s.to_frame()
    out["rank"] = s.rank(ascending=False, method="min").astype(int)
    return out.sort_values(["rank"], kind="stable")


def preference_table(
    pref: xr.DataArray, *, correction: str | None = "holm", alpha: float = 0.05
) -> pd.DataFrame:
    """One row per unordered system pair: wins, losses, ties, mean preference and sign test.

    The sign (binomial) test and its multiple-comparison correction are those of
    [`irframe.stats.sign_test`][irframe.stats.sign_test].

    Parameters
    ----------
    pref : xarray.DataArray
        Preference cube ``(system, other, topic)`` with values in {-1, 0, +1}, as from
        [`lexirecall`][irframe.lexi.lexirecall] or [`lexiprecision`][irframe.lexi.lexiprecision].
    correction : {"holm", "bonferroni", "bh", "by", "sidak", "holm-sidak", "simes-hochberg", "hommel", None}
        Multiple-comparison correction of the p-values.
    alpha : float
        Significance level.

    Returns
    -------
    pandas.DataFrame
        Columns ``system, other, wins, losses, ties, mean, pvalue, pvalue_adjusted,
        significant`` for every pair with ``system`` before ``other``.

    See Also
    --------
    - [`preference_counts`][irframe.lexi.preference_counts]: the counts it shows.
    """
    from .stats import sign_test

    v = _pref_values(pref)
    st = sign_test(pref, correction=correction, alpha=alpha)
    S = v.shape[0]
    iu, ju = np.triu_indices(S, k=1)
    sysv = np.asarray(pref.coords["system"].values if "system" in pref.coords else np.arange(S))
    mean = mean_preference(pref).values
    return pd.DataFrame(
        {
            "system": sysv[iu],
            "other": sysv[ju],
            "wins": st.wins.values[iu, ju].astype(int),
            "losses": st.losses.values[iu, ju].astype(int),
            "ties": st.ties.values[iu, ju].astype(int),
            "mean": mean[iu, ju],
            "pvalue": st.pvalue.values[iu, ju],
            "pvalue_adjusted": st.pvalue_adjusted.values[iu, ju],
            "significant": st.significant.values[iu, ju],
        }
    )


def _score_2d(scores: xr.DataArray, pref: xr.DataArray) -> tuple[np.ndarray, list]:
    """Score cube → array (measure, system, topic) aligned to pref's systems and topics."""
    if "system" not in scores.dims or "topic" not in scores.dims:
        raise ShapeError(
            f"expected a score cube with dims (system, topic[, measure]), got {scores.dims}"
        )
    sc = (
        scores if "measure" in scores.dims else scores.expand_dims(measure=[scores.name or "score"])
    )
    sc = sc.transpose("measure", "system", "topic")
    psys = [str(s) for s in pref.coords["system"].values]
    ssys = [str(s) for s in sc.coords["system"].values]
    missing = sorted(set(psys) - set(ssys))
    if missing:
        raise InputError(f"systems {missing[:5]} of the preference cube are not in the score cube")
    topics = [str(t) for t in pref.coords["topic"].values]
    sc = sc.assign_coords(system=ssys, topic=[str(t) for t in sc.coords["topic"].values])
    arr = sc.reindex(system=psys, topic=topics).values.astype(np.float64)  # NaN for absent topics
    labels = [str(x) for x in sc.coords["measure"].values]
    return arr, labels


def metric_agreement(pref: xr.DataArray, scores: xr.DataArray) -> xr.DataArray:
    """How often the preference agrees with the sign of a metric difference (Diaz & Mitra 2023, Fig. 9).

    Over every unordered system pair and topic where the metric differs
    (``μ(π) != μ(π')``, both defined), the fraction where the preference cube
    prefers the ranking with the higher metric value.

    Parameters
    ----------
    pref : xarray.DataArray
        Preference cube ``(system, other, topic)``.
    scores : xarray.DataArray
        Score cube ``(system, topic, measure)`` or ``(system, topic)`` from
        [`irframe.evaluate`][irframe.evaluate]; topics are matched by id (topics only one side has
        are ignored).

    Returns
    -------
    xarray.DataArray
        dim ``measure``: agreement in [0, 1] (NaN when the metric never differs);
        coordinate ``pairs`` = number of compared (pair, topic) cells.
    """
    v = _pref_values(pref).astype(np.float64)
    arr, labels = _score_2d(scores, pref)
    S = v.shape[0]
    iu, ju = np.triu_indices(S, k=1)
    pv = v[iu, ju, :]  # (P, T)
    out, npairs = [], []
    for mat in arr:  # loop over measures
        d = mat[iu, :] - mat[ju, :]
        ok = ~np.isnan(d) & (d != 0) & ~np.isnan(pv)
        agree = ok & (np.sign(d) == pv)
        n = int(ok.sum())
        npairs.append(n)
        out.append(agree.sum() / n if n else np.nan)
    return result(
        np.array(out),
        ("measure",),
        {"measure": labels, "pairs": ("measure", np.array(npairs))},
        name="agreement",
        computed="irframe.lexi.metric_agreement",
        parameters={},
        attrs={"preference": pref.attrs.get("measure", pref.name or "")},
    )


def tie_fraction(cube: xr.DataArray) -> xr.DataArray | float:
    """Fraction of tied comparisons (Diaz & Mitra 2023, Fig. 10).

    For a preference cube ``(system, other, topic)``: the share of (unordered pair,
    topic) cells equal to 0.  For a score cube ``(system, topic[, measure])``: the
    share of (unordered pair, topic) cells with equal metric values (both defined),
    per measure.

    Parameters
    ----------
    cube : xarray.DataArray
        A preference cube ``(system, other, topic)`` or a score cube ``(system, topic[, measure])``.

    Returns
    -------
    float or xarray.DataArray
        One fraction, or one per measure.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> s = xr.DataArray(np.array([[1.0, 0.5], [1.0, 0.2]]), dims=("system", "topic"))
    >>> float(tie_fraction(s))
    0.5
    """
    if cube.ndim == 3 and tuple(cube.dims) == ("system", "other", "topic"):
        v = np.asarray(cube.values).astype(np.float64)
        S = v.shape[0]
        iu, ju = np.triu_indices(S, k=1)
        pv = v[iu, ju, :]
        ok = ~np.isnan(pv)
        return float((pv[ok] == 0).mean()) if ok.any() else float("nan")
    if "system" not in cube.dims or "topic" not in cube.dims:
        raise ShapeError(
            f"expected a preference cube (system, other, topic) or a score cube "
            f"(system, topic[, measure]); got dims {cube.dims}"
        )
    sc = cube if "measure" in cube.dims else cube.expand_dims(measure=[cube.name or "score"])
    arr = sc.transpose("measure", "system", "topic").values.astype(np.float64)
    S = arr.shape[1]
    iu, ju = np.triu_indices(S, k=1)
    out = []
    for mat in arr:
        a, b = mat[iu, :], mat[ju, :]
        ok = ~np.isnan(a) & ~np.isnan(b)
        out.append(float((a[ok] == b[ok]).mean()) if ok.any() else np.nan)
    if "measure" not in cube.dims:
        return float(out[0])
    return result(
        np.array(out),
        ("measure",),
        {"measure": sc.coords["measure"].values},
        name="tie_fraction",
        computed="irframe.lexi.tie_fraction",
        parameters={},
    )
