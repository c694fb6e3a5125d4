"""How far a reproduced (or replicated) experiment is from the original one.

Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff, "How to Measure the Reproducibility
of System-oriented IR Experiments", SIGIR 2020 (doi:10.1145/3397271.3401036), measure a
reproduction at four levels, from the ranked lists to the overall effect:

* **ranked lists** (reproducibility only: the same topics) -- Kendall's τ Union (KTU) and
  rank-biased overlap (RBO) between the original and the reproduced ranking of each topic;
* **topic scores** (reproducibility only) -- root mean square error (RMSE) of the per-topic
  scores and the normalised RMSE (nRMSE);
* **overall effect** (given a baseline and an advanced system in both experiments) -- the
  Effect Ratio (ER) and the Delta Relative Improvement (ΔRI);
* **significance** -- the p-value of a two-sided t-test between the original and the
  reproduced scores of each system: paired for reproducibility (same topics), unpaired
  (Student's, equal variances) for replicability (other topics).

[`reproducibility`][irframe.reproducibility.reproducibility] computes all of them for many systems -- and many reproduced versions
of each, a ``replicate`` dim -- in one call, vectorised over systems, versions, topics and
measures.  The conventions are those of the reference implementation, repro_eval 0.5.0
(Breuer et al., "repro_eval: A Python Interface to Reproducibility Measures of System-Oriented
IR Experiments", ECIR 2021), and ``tests/test_reproducibility.py`` checks every value against
it on TREC 2003 Robust runs:

* the rankings KTU and RBO compare are ordered by score descending in double precision,
  ties by docno descending (what repro_eval's ``break_ties`` gives for a run sorted by its
  parsed scores; ``order="trec_eval10"``), and cut at ``depth`` (1000: repro_eval's
  ``RUN_LENGTH`` and ``RBO_DEPTH``).  The scores are evaluated with ``order`` as given (by
  default trec_eval's float32 order, which repro_eval gets from pytrec_eval); ``order="rank"``
  or ``"input"`` applies to both;
* **KTU** of a topic is Kendall's τ between the two sequences "position, in the sorted union
  of both rankings' docnos, of the document at rank i" of the original and of the reproduced
  ranking, i = 1..n -- repro_eval's definition (its ``_KTU``).  Each sequence has distinct
  values, so τ-a = τ-b.  repro_eval needs both rankings of a topic to have the same length
  (scipy raises otherwise); irframe then compares the first ``min(n_original, n_reproduced)``
  ranks.  Fewer than two ranks give NaN;
* **RBO** is the truncated, normalised RBO of repro_eval (after Clarke et al., TOIS 2021):
  ``sum_{i<depth} p^i |A_{:i+1} ∩ B_{:i+1}| / (i+1)`` divided by ``sum_{i<depth} p^i``,
  with p = 0.95; a ranking shorter than ``depth`` stops growing but the denominators go on;
* **RMSE** = sqrt(mean_t (x_t - y_t)^2); **nRMSE** = RMSE / sqrt(mean_t max(x_t, 1 - x_t)^2)
  over the original scores x (the largest RMSE a reproduction could have for scores in
  [0, 1]);
* **ER** = mean_t(a'_t - b'_t) / mean_t(a_t - b_t) (reproduced over original mean
  improvement of the advanced run a over the baseline b); **ΔRI** = RI - RI' with
  RI = (mean(a) - mean(b)) / mean(b);
* **p-values**: ``scipy.stats.ttest_rel`` (paired) or ``ttest_ind`` (unpaired); where the
  original and reproduced scores are identical (t = 0/0) the p-value is 1 -- repro_eval
  gives 1 only when every measure of the run is identical, NaN for the measure otherwise.

Topics: a topic enters a comparison when both sides have a value (``missing="skip"``,
irframe's default everywhere); repro_eval requires every topic on both sides and fails
otherwise.  repro_eval scores runs through ir_measures, which scores every topic of the
qrels (0 where a run retrieved nothing, trec_eval's ``-c``): pass ``complete=True`` for its
topic set (the test does); KTU and RBO are always over the topics both runs retrieved for.  ``missing="zero"`` scores a topic a system did not retrieve for as 0,
``missing="common"`` keeps the topics every run of the call has.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats as _st

from .align import align
from .cube import result
from .errors import InputError, OptionError
from .evaluate import evaluate
from .options import check_missing
from .params import check_flag
from .schema import run_frame

__all__ = ["ktu_rbo", "reproducibility"]

_MISSING = ("skip", "zero", "common")


# ---------------------------------------------------------------------------
# ranked lists: KTU and RBO over many (original, reproduced) ranking pairs
# ---------------------------------------------------------------------------


def _discordant(pair: np.ndarray, x: np.ndarray, y: np.ndarray, n_pairs: int) -> np.ndarray:
    """Per pair, the number of index pairs (i, j) ordered one way by ``x`` and the other by ``y``.

    ``pair`` is sorted (each pair's elements contiguous); ``x`` and ``y`` have distinct values
    within a pair (docnos of one ranking).  The pairs are laid out as rows of a matrix, padded
    to a power of two (pairs of similar length together, so padding at most doubles the
    size); each row is sorted by ``x``, then a bottom-up merge counts inversions of ``y``: at
    width ``w`` the two sorted halves of every block of ``2w`` are merged by one row-wise
    stable sort of ``2 y + (1 for the right half)``, and the left-half elements greater than
    the right-half ones are ``w^2 + w(w-1)/2 - (sum of the merged positions of the right
    half)``.  Padding (after every real element, larger than all) adds no inversion.
    """
    n = len(pair)
    out = np.zeros(n_pairs)
    if n == 0:
        return out
    pair = np.asarray(pair, np.int64)
    starts = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]])
    lengths = np.diff(np.r_[starts, n])
    big = int(max(x.max(), y.max())) + 1
    dtype = np.int32 if 2 * big + 1 < 2**31 else np.int64
    width = np.ones(len(starts), np.int64)
    while (small := width < lengths).any():  # the power of two >= each length
        width[small] *= 2
    for p2 in np.unique(width).tolist():
        sel = np.flatnonzero(width == p2)
        G, lens = len(sel), lengths[sel]
        first = np.repeat(starts[sel], lens)
        col = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        rows = np.repeat(np.arange(G), lens)
        X = np.full((G, p2), big, dtype)
        Y = np.full((G, p2), big, dtype)
        X[rows, col] = x[first + col]
        Y[rows, col] = y[first + col]
        Y = np.take_along_axis(Y, np.argsort(X, axis=1, kind="stable"), axis=1)
        D = np.zeros(G, np.int64)
        w = 1
        while w < p2:
            keys = Y.reshape(G, p2 // (2 * w), 2 * w) * 2  # a fresh array
            keys[..., w:] += 1
            keys.sort(axis=-1, kind="stable")  # merges the two sorted halves
            right_pos = ((keys & 1) * np.arange(2 * w, dtype=dtype)).sum(-1, dtype=np.int64)
            D += (w * w + w * (w - 1) // 2 - right_pos).sum(-1)
            keys >>= 1
            Y = keys.reshape(G, p2)
            w *= 2
        out[pair[starts[sel]]] = D
    return out


def ktu_rbo(
    original: tuple[np.ndarray, np.ndarray],
    reproduced: tuple[np.ndarray, np.ndarray],
    docs: np.ndarray,
    *,
    depth: int = 1000,
    p: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """KTU and RBO of many ranking pairs (repro_eval's definitions, see the module docstring).

    Parameters
    ----------
    original, reproduced : (offsets, doc) pairs of numpy arrays
        The rankings in CSR layout: ranking ``k`` is ``doc[offsets[k]:offsets[k+1]]``, rank 1
        first; ``doc`` holds int codes into ``docs``.  Both have the same number of rankings;
        ranking ``k`` of ``original`` is compared with ranking ``k`` of ``reproduced``.
    docs : numpy.ndarray
        The doc ids (str) the codes of both sides index; their code-point order is KTU's
        "sorted union".
    depth : int
        Rankings are cut at ``depth``; RBO sums over ``depth`` ranks.
    p : float
        RBO's persistence, in (0, 1).

    Returns
    -------
    (ktu, rbo) : two float arrays, one value per pair

    Examples
    --------
    >>> import numpy as np
    >>> docs = np.array(["a", "b", "c"], dtype=object)
    >>> ktu, rbo = ktu_rbo((np.array([0, 3]), np.array([0, 1, 2])),
    ...                    (np.array([0, 3]), np.array([1, 2, 0])), docs, depth=3, p=0.5)
    >>> round(float(ktu[0]), 4), round(float(rbo[0]), 4)
    (-0.3333, 0.2857)
    """
    if not 0 < p < 1:
        raise OptionError(f"p must be in (0, 1), got {p!r}")
    (o_off, o_doc), (r_off, r_doc) = original, reproduced
    o_off, r_off = np.asarray(o_off, np.int64), np.asarray(r_off, np.int64)
    n_pairs = len(o_off) - 1
    if len(r_off) - 1 != n_pairs:
        raise InputError("original and reproduced must hold the same number of rankings")
    rank_of = np.empty(len(docs), np.int64)  # code -> position among docs in code-point order
    rank_of[np.argsort(np.asarray(docs, dtype=str), kind="stable")] = np.arange(len(docs))
    o_code, r_code = rank_of[np.asarray(o_doc)], rank_of[np.asarray(r_doc)]
    n_o = np.minimum(np.diff(o_off), depth)
    n_r = np.minimum(np.diff(r_off), depth)

    # KTU over the first min(n_o, n_r) ranks
    n = np.minimum(n_o, n_r)
    pair = np.repeat(np.arange(n_pairs), n)
    i = np.arange(pair.size) - np.repeat(np.cumsum(n) - n, n)
    x, y = o_code[o_off[pair] + i], r_code[r_off[pair] + i]
    disc = _discordant(pair, x, y, n_pairs)
    with np.errstate(invalid="ignore", divide="ignore"):
        ktu = np.where(n >= 2, 1.0 - 4.0 * disc / (n * (n - 1.0)), np.nan)

    # RBO: a document both rankings hold up to depth counts at every depth from max(ranks)
    pair_o = np.repeat(np.arange(n_pairs), n_o)
    rank_o = np.arange(pair_o.size) - np.repeat(np.cumsum(n_o) - n_o, n_o)
    pair_r = np.repeat(np.arange(n_pairs), n_r)
    rank_r = np.arange(pair_r.size) - np.repeat(np.cumsum(n_r) - n_r, n_r)
    span = len(docs) + 1
    key_o = pair_o * span + o_code[o_off[pair_o] + rank_o]
    key_r = pair_r * span + r_code[r_off[pair_r] + rank_r]
    _, io, ir = np.intersect1d(key_o, key_r, assume_unique=True, return_indices=True)
    weight = p ** np.arange(depth, dtype=np.float64)
    tail = np.cumsum((weight / np.arange(1, depth + 1))[::-1])[::-1]  # sum_{i>=m} p^i/(i+1)
    m = np.maximum(rank_o[io], rank_r[ir])
    rbo = np.bincount(pair_o[io], weights=tail[m], minlength=n_pairs) / weight.sum()
    return ktu, rbo


# ---------------------------------------------------------------------------
# inputs: run frames or cubes
# ---------------------------------------------------------------------------


def _replicate_column(runs, columns: Mapping[str, str] | None) -> str | None:
    col = (columns or {}).get("replicate")
    if col is None and isinstance(runs, pd.DataFrame) and "replicate" in runs.columns:
        col = "replicate"
    return col


def _cube(x, qrels, measures, what: str, replicate_ok: bool, eval_kw) -> xr.DataArray:
    """A run (frame, dict, ...) evaluated, or a cube checked and its measures selected."""
    if isinstance(x, xr.DataArray):
        allowed = {"system", "topic", "measure"} | ({"replicate"} if replicate_ok else set())
        if not {"system", "topic", "measure"} <= set(x.dims) or set(x.dims) - allowed:
            raise InputError(
                f"the {what} cube has dims {tuple(x.dims)}; reproducibility needs "
                f"(system, {'[replicate, ]' if replicate_ok else ''}topic, measure) -- "
                "select or stack the other dims first"
            )
        if measures is not None:
            missing = [m for m in measures if m not in x.indexes["measure"]]
            if missing:
                raise InputError(
                    f"measures {missing} are not in the {what} cube; it has "
                    f"{list(x.measure.values)}"
                )
            x = x.sel(measure=list(measures))
        return x
    if isinstance(x, xr.Dataset):
        raise InputError(f"the {what} is a Dataset; pass one score cube (a DataArray) or a run")
    if qrels is None:
        raise InputError(
            f"the {what} is a run: pass qrels= to evaluate it (or pass score cubes instead)"
        )
    if measures is None:
        raise InputError(f"the {what} is a run: name the measures to compare, e.g. measures=['AP']")
    cube = evaluate(x, qrels, measures, **eval_kw)
    if "replicate" in cube.dims and not replicate_ok:
        raise InputError(
            f"the {what} has a replicate column; only the reproduced runs may have versions"
        )
    return cube


def _rankings(runs, qrels, columns, order, depth, rep_col):
    """(aligned arrays, run label of each aligned system: (system, replicate or None))."""
    cols = {k: v for k, v in (columns or {}).items() if k != "replicate"} or None
    if rep_col is None:
        a = align(runs, qrels, order=order, depth=depth, columns=cols)
        return a, [(s, None) for s in a.systems]
    df, rc = run_frame(runs, cols)
    sys_codes, systems = pd.factorize(df[rc.system], sort=True)
    rep_codes, reps = pd.factorize(df[rep_col], sort=True)
    if (rep_codes < 0).any():
        rows = np.flatnonzero(rep_codes < 0)[:5].tolist()
        raise InputError(
            f"run frame column {rep_col!r} (the replicate) is missing at rows {rows}; "
            "give every row its replicate (version) label"
        )
    code = sys_codes.astype(np.int64) * len(reps) + rep_codes
    width = len(str(int(code.max()))) if len(code) else 1
    df = df.copy(deep=False)
    df[rc.system] = pd.Categorical.from_codes(
        code, categories=[f"{c:0{width}d}" for c in range(len(systems) * len(reps))]
    )
    a = align(df, qrels, order=order, depth=depth, columns={**(cols or {}), "system": rc.system})
    labels = [
        (np.asarray(systems)[int(c) // len(reps)], np.asarray(reps)[int(c) % len(reps)])
        for c in a.systems
    ]
    return a, labels


def _ranking_measures(original, reproduced, qrels, systems, reps, topics, o):
    """ktu, rbo (S, V, T) of every reproduced ranking against its system's original ranking."""
    rep_col = _replicate_column(reproduced, o["columns"])
    # repro_eval orders the rankings it compares by their double-precision scores (its
    # break_ties on the parsed run), while trec_eval scores them in float32
    order = "trec_eval10" if o["order"] == "trec_eval" else o["order"]
    a_o, lab_o = _rankings(original, qrels, o["columns"], order, o["depth"], None)
    a_r, lab_r = _rankings(reproduced, qrels, o["columns"], order, o["depth"], rep_col)
    S, V, T = len(systems), len(reps), len(topics)
    sys_index, rep_index, top_index = pd.Index(systems), pd.Index(reps), pd.Index(topics)
    # original groups -> (output system, topic) cells
    o_sys = sys_index.get_indexer([s for s, _ in lab_o])
    o_top = top_index.get_indexer(a_o.topics)
    cell_o = np.full(S * T, -1, np.int64)
    gs, gt = o_sys[a_o.group_system], o_top[a_o.group_topic]
    ok = (gs >= 0) & (gt >= 0)
    cell_o[gs[ok] * T + gt[ok]] = np.flatnonzero(ok)
    # reproduced groups -> (system, replicate, topic)
    r_sys = sys_index.get_indexer([s for s, _ in lab_r])
    r_rep = (
        np.zeros(len(lab_r), np.int64)
        if rep_col is None
        else rep_index.get_indexer([r for _, r in lab_r])
    )
    r_top = top_index.get_indexer(a_r.topics)
    gs_r, gv_r, gt_r = r_sys[a_r.group_system], r_rep[a_r.group_system], r_top[a_r.group_topic]
    g_o = np.where((gs_r >= 0) & (gt_r >= 0), cell_o[np.maximum(gs_r, 0) * T + gt_r], -1)
    g_r = np.flatnonzero(g_o >= 0)
    g_o = g_o[g_r]
    docs, inv = np.unique(np.concatenate([a_o.docs, a_r.docs]).astype(str), return_inverse=True)
    code_o, code_r = inv[: len(a_o.docs)], inv[len(a_o.docs) :]

    def csr(a, groups, code):
        lens = (a.offsets[1:] - a.offsets[:-1])[groups]
        off = np.concatenate([[0], np.cumsum(lens)])
        rows = np.repeat(a.offsets[groups], lens) + (np.arange(off[-1]) - np.repeat(off[:-1], lens))
        return off, code[a.row_doc[rows]]

    ktu, rbo = ktu_rbo(
        csr(a_o, g_o, code_o), csr(a_r, g_r, code_r), docs, depth=o["depth"], p=o["p"]
    )
    out_k, out_r = np.full((S, V, T), np.nan), np.full((S, V, T), np.nan)
    idx = (gs_r[g_r], gv_r[g_r], gt_r[g_r])
    out_k[idx], out_r[idx] = ktu, rbo
    return out_k, out_r


# ---------------------------------------------------------------------------
# scores: RMSE, nRMSE, ER, ΔRI, t-tests
# ---------------------------------------------------------------------------


def _nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    n = (~np.isnan(x)).sum(axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.nansum(x, axis) / n, np.nan)


def _ttest(Xo: np.ndarray, Xr: np.ndarray, paired: bool) -> np.ndarray:
    """Two-sided t-test p-values along the last axis; 1 where the two samples are identical."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy: 0/0 for identical samples
        if paired:
            pv = _st.ttest_rel(Xo, Xr, axis=-1, nan_policy="omit").pvalue
        else:
            pv = _st.ttest_ind(Xo, Xr, axis=-1, nan_policy="omit").pvalue
    pv = np.asarray(pv, dtype=np.float64)
    if paired:
        d = Xo - Xr
        same = np.nansum(np.abs(d), axis=-1) == 0
        same &= (~np.isnan(d)).sum(-1) > 0
    else:
        lo = np.minimum(np.nanmin(Xo, -1, initial=np.inf), np.nanmin(Xr, -1, initial=np.inf))
        hi = np.maximum(np.nanmax(Xo, -1, initial=-np.inf), np.nanmax(Xr, -1, initial=-np.inf))
        same = lo == hi
    return np.where(same, 1.0, pv)


def _relative_improvement(adv: np.ndarray, base: np.ndarray, axis: int) -> np.ndarray:
    """(mean adv - mean base) / mean base over the topics (``axis``) where both have a score."""
    both = ~np.isnan(adv) & ~np.isnan(base)
    mean_a = _nanmean(np.where(both, adv, np.nan), axis=axis)
    mean_b = _nanmean(np.where(both, base, np.nan), axis=axis)
    return (mean_a - mean_b) / mean_b


def _effects(Xo, Xr, b, adv, S, paired):
    """er, delta_ri, ri_original, ri_reproduced (S, V, M) of the systems ``adv`` over ``b``.

    Xo is (S, T, M) and Xr (S, V, T', M), both under the missing policy already.
    """
    V, M = Xr.shape[1], Xr.shape[3]
    er, dri, ri_o, ri_r = (np.full((S, V, M), np.nan) for _ in range(4))
    if b is None or not len(adv):
        return er, dri, ri_o, ri_r
    with np.errstate(invalid="ignore", divide="ignore"):
        mi_o = _nanmean(Xo[adv] - Xo[b][None], axis=1)  # (A, M)
        mi_r = _nanmean(Xr[adv] - Xr[b][None], axis=2)  # (A, V, M)
        # RI on the topics both systems have, as ER's mean difference (missing="skip")
        rio = _relative_improvement(Xo[adv], Xo[b][None], axis=1)  # (A, M)
        rir = _relative_improvement(Xr[adv], Xr[b][None], axis=2)  # (A, V, M)
        er[adv] = mi_r / mi_o[:, None, :]
        ri_o[adv] = rio[:, None, :]
        ri_r[adv] = rir
        dri[adv] = rio[:, None, :] - rir
    return er, dri, ri_o, ri_r


def reproducibility(
    original,
    reproduced,
    qrels=None,
    *,
    measures: str | Iterable[str] | None = None,
    baseline: str | None = None,
    advanced: str | Sequence[str] | None = None,
    paired: bool = True,
    qrels_reproduced=None,
    depth: int = 1000,
    p: float = 0.95,
    missing: str = "skip",
    order: str = "trec_eval",
    columns: Mapping[str, str] | None = None,
    **options: Any,
) -> xr.Dataset:
    """Reproducibility (same topics) or replicability (other topics) of many systems at once.

    Breuer et al., SIGIR 2020; the conventions of repro_eval 0.5.0 (module docstring).

    Parameters
    ----------
    original : run frame or xarray.DataArray
        The original runs (``system, topic, doc, score``, any form [irframe.evaluate][irframe.evaluate.evaluate] takes)
        or their score cube ``(system, topic, measure)``.
    reproduced : run frame or xarray.DataArray
        The reproduced runs, named as the original systems they reproduce.  A ``replicate``
        column (or ``columns={"replicate": ...}``) holds several reproduced versions of a
        system, which become a ``replicate`` dim; a cube may have that dim.
    qrels : qrels frame, optional
        Judgments to evaluate run frames with (and the topics compared: as everywhere in
        irframe, topics outside the qrels are ignored).  Not needed for cubes.
    measures : str or list of str
        Measures to evaluate run frames with (a subset of a cube's measures).
    baseline : str, optional
        The baseline system: ER and ΔRI are computed for the ``advanced`` systems over it, in
        both experiments.  None: no effect measures.
    advanced : str or list of str, optional
        The advanced systems (default: every reproduced system but the baseline).
    paired : bool
        True: reproducibility -- the same topics; paired t-test; KTU, RBO (run frames) and
        RMSE, nRMSE.  False: replicability -- other topics (``qrels_reproduced``); unpaired
        t-test, ER, ΔRI only.
    qrels_reproduced : qrels frame, optional
        Judgments of the reproduced experiment (default ``qrels``).
    depth : int
        Rankings are cut at ``depth`` before anything is computed (repro_eval's 1000).
    p : float
        RBO persistence (repro_eval's 0.95).
    missing : {"skip", "zero", "common"}
        Topics a run has no score for: skipped in each comparison, scored 0, or every topic
        some run lacks dropped.
    order : str
        Document order inside a topic (see docs/conventions.md).
    columns : mapping, optional
        Role -> column name of the run frames (``"replicate"`` included).
    **options
        Further evaluation options for [irframe.evaluate][irframe.evaluate.evaluate] (``rel_level``, ``complete``, ...).

    Returns
    -------
    xarray.Dataset
        Dims ``system[, replicate]``, ``measure``, ``topic``:

        * ``rmse``, ``nrmse``, ``pvalue`` -- ``(system[, replicate], measure)`` (RMSE, nRMSE
          only when paired);
        * ``er``, ``delta_ri``, ``ri_original``, ``ri_reproduced`` --
          ``(system[, replicate], measure)``, NaN but for the advanced systems (with
          ``baseline``);
        * ``ktu``, ``rbo`` -- ``(system[, replicate])`` means over topics, and
          ``ktu_topic``, ``rbo_topic`` -- per topic (paired, both inputs run frames).

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.synthetic(systems=3, topics=10, depth=50, rng=1)
    >>> again = runs.assign(score=runs.score + 0.01 * (runs.index % 7))
    >>> ds = irf.meta.reproducibility(runs, again, qrels, measures=["AP"], baseline="sys0")
    >>> sorted(ds.data_vars)[:4], ds.ktu.dims
    (['delta_ri', 'er', 'ktu', 'ktu_topic'], ('system',))
    """
    paired = check_flag("paired", paired)
    check_missing(missing, _MISSING)
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 1:
        raise OptionError(f"depth must be a positive int (ranks compared), got {depth!r}")
    if not 0 < p < 1:
        raise OptionError(f"p must be in (0, 1), got {p!r}")
    if isinstance(measures, str):
        measures = [measures]
    if measures is not None:
        measures = list(measures)
    eval_kw = {"order": order, "depth": int(depth), "columns": columns, **options}
    plain = {k: v for k, v in (columns or {}).items() if k != "replicate"} or None
    O_cube = _cube(original, qrels, measures, "original", False, {**eval_kw, "columns": plain})
    q_rep = qrels if qrels_reproduced is None else qrels_reproduced
    R_cube = _cube(reproduced, q_rep, measures, "reproduced", True, eval_kw)
    has_rep = "replicate" in R_cube.dims
    if not has_rep:
        R_cube = R_cube.expand_dims(replicate=[0], axis=1)
    R_cube = R_cube.transpose("system", "replicate", "topic", "measure")
    O_cube = O_cube.transpose("system", "topic", "measure")

    systems = list(R_cube.indexes["system"])
    unknown = [s for s in systems if s not in O_cube.indexes["system"]]
    if unknown:
        raise InputError(
            f"reproduced systems {unknown[:5]} have no original run; name each reproduced run "
            f"as the original system it reproduces (original systems: "
            f"{list(O_cube.system.values)[:10]})"
        )
    meas = list(R_cube.indexes["measure"])
    lost = [m for m in meas if m not in O_cube.indexes["measure"]]
    if lost:
        raise InputError(f"measures {lost} are in the reproduced cube but not in the original")
    O_cube = O_cube.sel(system=systems, measure=meas)

    if paired:
        topics = O_cube.indexes["topic"].union(R_cube.indexes["topic"])
        O_cube, R_cube = O_cube.reindex(topic=topics), R_cube.reindex(topic=topics)
    Xo = O_cube.values.astype(np.float64)  # (S, T, M)
    Xr = R_cube.values.astype(np.float64)  # (S, V, T, M)
    if missing == "zero":
        Xo, Xr = np.nan_to_num(Xo, nan=0.0), np.nan_to_num(Xr, nan=0.0)
    elif missing == "common":
        if paired:
            keep = ~(np.isnan(Xo).any(axis=(0, 2)) | np.isnan(Xr).any(axis=(0, 1, 3)))
            Xo, Xr = Xo[:, keep], Xr[:, :, keep]
            topics = topics[keep]
        else:
            Xo = Xo[:, ~np.isnan(Xo).any(axis=(0, 2))]
            Xr = Xr[:, :, ~np.isnan(Xr).any(axis=(0, 1, 3))]
    S, V, M = len(systems), Xr.shape[1], len(meas)

    # effects
    b, adv = None, np.zeros(0, np.int64)
    if baseline is not None:
        if baseline not in systems:
            raise InputError(
                f"baseline {baseline!r} is not among the reproduced systems {systems[:10]}; "
                "the baseline must be run in both experiments"
            )
        b = systems.index(baseline)
        names = (
            [s for s in systems if s != baseline]
            if advanced is None
            else [advanced]
            if isinstance(advanced, str)
            else list(advanced)
        )
        bad = [a for a in names if a not in systems or a == baseline]
        if bad:
            raise InputError(
                f"advanced systems {bad} are not reproduced systems other than the baseline "
                f"{baseline!r}; reproduced systems: {systems[:10]}"
            )
        adv = np.array([systems.index(a) for a in names], np.int64)
    elif advanced is not None:
        raise InputError("advanced= needs baseline= (ER and ΔRI compare them)")
    er, dri, ri_o, ri_r = _effects(Xo, Xr, b, adv, S, paired)

    # p-values: (S, V, M)
    Xot = np.moveaxis(Xo, 1, -1)[:, None]  # (S, 1, M, T)
    Xrt = np.moveaxis(Xr, 2, -1)  # (S, V, M, T')
    pval = _ttest(np.broadcast_to(Xot, Xrt.shape) if paired else Xot, Xrt, paired)
    pval = np.broadcast_to(pval, (S, V, M))

    sm = ("system", "replicate", "measure")
    data: dict[str, Any] = {}
    if paired:
        both = ~np.isnan(Xot) & ~np.isnan(Xrt)
        n = both.sum(-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            sq = np.where(both, (Xot - Xrt) ** 2, 0.0).sum(-1)
            worst = np.where(both, np.maximum(Xot, 1 - Xot) ** 2, 0.0).sum(-1)
            rmse = np.where(n > 0, np.sqrt(sq / np.maximum(n, 1)), np.nan)
            nrmse = rmse / np.sqrt(worst / np.maximum(n, 1))
        data["rmse"], data["nrmse"] = (sm, rmse), (sm, nrmse)
    data.update(
        pvalue=(sm, pval),
        er=(sm, er),
        delta_ri=(sm, dri),
        ri_original=(sm, ri_o),
        ri_reproduced=(sm, ri_r),
    )
    coords: dict[str, Any] = {
        "system": systems,
        "replicate": list(R_cube.indexes["replicate"]),
        "measure": meas,
    }
    runs_given = not isinstance(original, xr.DataArray) and not isinstance(reproduced, xr.DataArray)
    if paired and runs_given:
        o = {"columns": columns, "order": order, "depth": int(depth), "p": float(p)}
        all_topics = pd.Index(R_cube.indexes["topic"]) if missing != "common" else topics
        ktu, rbo = _ranking_measures(
            original, reproduced, qrels, systems, coords["replicate"], all_topics, o
        )
        st = ("system", "replicate", "topic")
        data["ktu_topic"], data["rbo_topic"] = (st, ktu), (st, rbo)
        data["ktu"] = (sm[:2], _nanmean(ktu, axis=2))
        data["rbo"] = (sm[:2], _nanmean(rbo, axis=2))
        coords["topic"] = list(all_topics)
    ds = result(data, (), coords)
    if not has_rep:
        ds = ds.isel(replicate=0, drop=True)
    order_vars = [
        v
        for v in (
            "ktu",
            "rbo",
            "rmse",
            "nrmse",
            "er",
            "delta_ri",
            "pvalue",
            "ri_original",
            "ri_reproduced",
            "ktu_topic",
            "rbo_topic",
        )
        if v in ds.data_vars
    ]
    return result(
        ds[order_vars],
        computed="irframe.reproducibility.reproducibility",
        measures=meas,
        parameters={
            "baseline": baseline,
            "advanced": advanced
            if advanced is None or isinstance(advanced, str)
            else ", ".join(map(str, advanced)),
            "paired": bool(paired),
            "depth": int(depth),
            "p": float(p),
            "missing": missing,
            "order": order,
        },
        attrs={"test": "ttest_rel" if paired else "ttest_ind"},
    )
