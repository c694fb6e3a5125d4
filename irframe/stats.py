"""Significance tests on score cubes.

Every function takes a score cube -- an `xarray.DataArray` with dims
``("system", "topic", "measure")`` or a 2-D ``(system, topic)`` selection such as
``cube.sel(measure="AP")`` -- or, for [`sign_test`][irframe.stats.sign_test], a preference cube with dims
``("system", "other", "topic")`` and values in {-1, 0, +1}.  NaN in a score cube
means "this system was not evaluated on this topic".  The caller's cube is never
modified.

Randomness only ever comes from the ``rng=`` argument (a
`numpy.random.Generator`, an int seed, or None for fresh entropy); global
random state is never touched.

Power and topic-set size design ([`power`][irframe.power.power],
[`topic_set_size`][irframe.power.topic_set_size], ...) is re-exported from
[`irframe.power`][irframe.power].

Every score-cube function takes ``dim=`` (the topic dim, default ``"topic"``) and
broadcasts over every other dim: a cube ``(system, topic, measure, qrels)`` gives
results per measure and per judgment set.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats as _st

from ._paired import (
    CORRECTIONS,
    TESTS,
    CompareOptions,
    bootstrap_test,
    check_correction,
    compare_options,
    difference_summary,
    paired_tests,
    warn_bootstrap,
)
from ._replicates import replicate_pair_tests
from ._scores import batch_coords, complete_topics, mask_missing, pref_cube, score_cube
from .cube import result
from .errors import InputError, OptionError, PerformanceHint, UnknownSystemError, shown, warn
from .options import make_rng, peer_keywords
from .params import ALPHA, DRAWS, check_flag
from .power import min_detectable_effect, power, power_table, topic_set_size, variance_components

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "adjust_pvalues",
    "anova",
    "compare",
    "mean_ci",
    "min_detectable_effect",
    "power",
    "power_table",
    "sign_test",
    "topic_set_size",
    "tukey_hsd",
    "variance_components",
]

_SM_METHOD = {  # irframe's correction -> statsmodels' multipletests method
    "holm": "holm",
    "bonferroni": "bonferroni",
    "bh": "fdr_bh",
    "by": "fdr_by",
    "sidak": "sidak",
    "holm-sidak": "holm-sidak",
    "simes-hochberg": "simes-hochberg",
    "hommel": "hommel",
}


# ---------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------


_SLOW_SECONDS = 2.0


def _slow_sampling_hint(o, sampled: bool, seconds: float) -> None:
    """One line when sampled tests took long: how precise their p-values are, and the cost of less."""
    if not sampled or seconds <= _SLOW_SECONDS or o.used_exact:
        return
    n = o.n_samples
    warn(
        f"compare(test={o.test!r}) took {seconds:.1f} s with n_samples={n}: its sampled p-values "
        f"have a standard error of at most {0.5 / np.sqrt(n):.4f}; time grows with n_samples "
        f"(n_samples={max(n // 10, 1)}: about 10× faster, standard error at most "
        f"{0.5 / np.sqrt(max(n // 10, 1)):.3f})",
        PerformanceHint,
    )


def numbered_system_hint(what: str, name, names: list[str]) -> str:
    """For a system given by its position (PyTerrier's ``Experiment(baseline=0)`` is an
    index into its systems), the advice to name it; "" for anything else."""
    if (
        isinstance(name, (int, np.integer))
        and not isinstance(name, bool)
        and 0 <= name < len(names)
    ):
        return (
            f" A system is named here, not numbered (PyTerrier's baseline={name} is an index):"
            f" {what}={names[int(name)]!r} is system {name} of the cube."
        )
    return ""


def unknown_system_error(what: str, name, systems) -> UnknownSystemError:
    """``name`` is no system of the cube: an [UnknownSystemError][irframe.errors.UnknownSystemError] with the
    closest system names, so that ``report(baseline="bm25_rm")`` says ``Did you mean 'bm25_rm3'?``."""
    import difflib

    names = [str(s) for s in systems]
    close = difflib.get_close_matches(str(name), names, n=3, cutoff=0.5)
    lower = {n.lower(): n for n in names}
    if str(name).lower() in lower and lower[str(name).lower()] not in close:
        close.insert(0, lower[str(name).lower()])
    hint = numbered_system_hint(what, name, names) or (
        f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    )
    return UnknownSystemError(
        f"{what} {shown(name)} is not a system of the cube.{hint} available systems: "
        f"{shown(list(systems), 400)}"
    )


def _integer_counts(ds: xr.Dataset, c: xr.DataArray) -> xr.Dataset:
    """``wins``/``ties``/``losses`` (and ``n_topics``) as int64: a system against itself ties
    on every topic it was evaluated on (the cells no pair test fills)."""
    n_eval = c.notnull().sum("topic")
    if not set(n_eval.dims) <= set(ds.dims):  # replicate-aware tests: counts as they are
        return ds
    for o in ds.other.values:
        if o in ds.system.values:
            cell = {"system": o, "other": o}
            n = n_eval.sel(system=o, drop=True)
            for k, v in (("wins", 0), ("losses", 0), ("ties", n), ("n_topics", n)):
                if k in ds:
                    ds[k].loc[cell] = v
    for k in ("wins", "ties", "losses", "n_topics"):
        if k in ds and not ds[k].isnull().any():
            ds[k] = (ds[k].dims, ds[k].values.astype(np.int64), ds[k].attrs)
    return ds


def _baseline_list(baseline, systems: pd.Index) -> list:
    if baseline is None:
        return list(systems)
    names = (
        [baseline]
        if isinstance(baseline, str) or not isinstance(baseline, Sequence)
        else list(baseline)
    )
    if len(names) == 0:
        raise OptionError("baseline is an empty list; pass None for all pairs")
    unknown = [b for b in names if b not in systems]
    if unknown:
        raise unknown_system_error("baseline", unknown[0], systems)
    if len(set(names)) != len(names):
        raise OptionError(f"baseline lists a system twice: {names}")
    return names


def _pair_layout(systems: pd.Index, others: Sequence):
    """Map each (system, other) cell to an unordered pair.

    Returns (pa, pb, cell_pair, cell_sign) where pairs are (pa[u], pb[u]) system
    indices with pa < pb, cell_pair is (S, O) int (-1 on the diagonal) and
    cell_sign is +1 when the cell is (pa, pb) and -1 when it is (pb, pa).
    """
    S = len(systems)
    oi = np.array([systems.get_loc(o) for o in others], dtype=np.intp)
    si = np.arange(S)
    A = np.broadcast_to(si[:, None], (S, len(oi)))
    B = np.broadcast_to(oi[None, :], (S, len(oi)))
    lo, hi = np.minimum(A, B), np.maximum(A, B)
    valid = A != B
    key = lo * S + hi
    ukeys, inv = np.unique(key[valid], return_inverse=True)
    cell_pair = np.full((S, len(oi)), -1, dtype=np.intp)
    cell_pair[valid] = inv
    cell_sign = np.where(A < B, 1.0, -1.0)
    return ukeys // S, ukeys % S, cell_pair, cell_sign


def _scatter(
    values: np.ndarray, cell_pair: np.ndarray, cell_sign: np.ndarray | None = None, fill=np.nan
):
    out = np.full(
        cell_pair.shape,
        fill,
        dtype=np.result_type(values.dtype, np.float64) if fill is np.nan else values.dtype,
    )
    valid = cell_pair >= 0
    v = values[cell_pair[valid]]
    if cell_sign is not None:
        v = v * cell_sign[valid]
    out[valid] = v
    return out


# ---------------------------------------------------------------------------
# p-value corrections
# ---------------------------------------------------------------------------


def _adjust_fallback(p: np.ndarray, method: str) -> np.ndarray:
    m = p.size
    if m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    if method == "sidak":
        return -np.expm1(m * np.log1p(-p))  # 1 - (1 - p)^m
    order = np.argsort(p, kind="mergesort")
    ps = p[order]
    left = m - np.arange(m)  # hypotheses left at each step: m, m-1, ..., 1
    if method == "holm":
        adj = np.maximum.accumulate(left * ps)
    elif method == "holm-sidak":
        adj = np.maximum.accumulate(-np.expm1(left * np.log1p(-ps)))
    elif method == "simes-hochberg":
        adj = np.minimum.accumulate((left * ps)[::-1])[::-1]
    elif method in ("bh", "by"):
        c = np.sum(1.0 / np.arange(1, m + 1)) if method == "by" else 1.0
        adj = np.minimum.accumulate((c * m / np.arange(m, 0, -1)) * ps[::-1])[::-1]
    else:  # hommel: statsmodels only (adjust_pvalues says so)
        raise ValueError(method)
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def adjust_pvalues(
    pvalues, method: str | None = "holm", *, use_statsmodels: bool | None = None
) -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array_like
        Raw p-values, any shape.  NaN entries are left out of the family and stay NaN.
    method : {"holm", "bonferroni", "bh", "by", "sidak", "holm-sidak", "simes-hochberg", "hommel", None}
        Holm's step-down, Bonferroni, Benjamini-Hochberg or Benjamini-Yekutieli (FDR) step-up,
        Šidák, Holm-Šidák step-down, Hochberg's step-up, Hommel's; None returns a copy.
        statsmodels' ``multipletests`` names are accepted too (``"fdr_bh"``, ``"hs"``, ...).
    use_statsmodels : bool, optional
        Use `statsmodels.stats.multitest.multipletests` (default when installed) or
        the built-in implementation (``False``; Hommel's needs statsmodels); both give
        the same numbers.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape as the input.

    See Also
    --------
    - [`compare`][irframe.stats.compare]: applies it with ``correction=``.

    Examples
    --------
    >>> from irframe.stats import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    method = check_correction(method)
    p = np.array(pvalues, dtype=np.float64, copy=True)
    if method is None:
        return p
    flat = p.ravel()
    ok = ~np.isnan(flat)
    if ok.any() and ((flat[ok] < 0) | (flat[ok] > 1)).any():
        raise OptionError("p-values must lie in [0, 1]")
    if use_statsmodels is None:
        try:
            import statsmodels.stats.multitest  # noqa: F401

            use_statsmodels = True
        except ImportError:
            use_statsmodels = False
    if method == "hommel" and not use_statsmodels:
        raise OptionError(
            "correction='hommel' is computed by statsmodels: install it "
            "(pip install 'irframe[stats]'), or choose 'simes-hochberg' or 'holm'"
        )
    if ok.any():
        if use_statsmodels:
            from statsmodels.stats.multitest import multipletests

            flat[ok] = multipletests(flat[ok], method=_SM_METHOD[method])[1]
        else:
            flat[ok] = _adjust_fallback(flat[ok], method)
    return flat.reshape(p.shape)


# ---------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------

_COMPARE_VARS = (
    "statistic",
    "pvalue",
    "pvalue_adjusted",
    "ci_low",
    "ci_high",
    "effect",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "n_topics",
)


def _to_cells(
    res: dict[str, np.ndarray], layout, antisym_stat: bool, names: Sequence[str]
) -> np.ndarray:
    """Scatter per-pair results (U,) into (system, other) cells, oriented ``system - other``."""
    _, _, cell_pair, cell_sign = layout
    flip = cell_sign < 0
    out = {}
    out["statistic"] = _scatter(res["statistic"], cell_pair, cell_sign if antisym_stat else None)
    for k in ("pvalue", "pvalue_adjusted", "ties", "n_topics", "df"):
        if k in res:
            out[k] = _scatter(res[k], cell_pair)
    lo_c, hi_c = _scatter(res["ci_low"], cell_pair), _scatter(res["ci_high"], cell_pair)
    out["ci_low"], out["ci_high"] = np.where(flip, -hi_c, lo_c), np.where(flip, -lo_c, hi_c)
    out["effect"] = _scatter(res["effect"], cell_pair, cell_sign)
    out["effect_size"] = _scatter(res["effect_size"], cell_pair, cell_sign)
    w_c, l_c = _scatter(res["wins"], cell_pair), _scatter(res["losses"], cell_pair)
    out["wins"], out["losses"] = np.where(flip, l_c, w_c), np.where(flip, w_c, l_c)
    return np.stack([out[k] for k in names], axis=-1)


def _paired_block(X: np.ndarray, layout, o: CompareOptions) -> np.ndarray:
    """One family: X (S, T) -> (S, O, len(_COMPARE_VARS))."""
    pa, pb = layout[0], layout[1]
    X = mask_missing(X, o.missing)
    D = X[pa] - X[pb]  # (U, T)
    res = {**paired_tests(D, o), **difference_summary(D)}
    res["pvalue_adjusted"] = adjust_pvalues(res["pvalue"], o.correction)
    return _to_cells(res, layout, o.test != "wilcoxon", _COMPARE_VARS)


def _replicate_block(Y: np.ndarray, layout, o: CompareOptions) -> np.ndarray:
    """One family with replicates: Y (S, R, T) -> (S, O, len(_COMPARE_VARS) + 1)."""
    res = replicate_pair_tests(Y, layout[0], layout[1], alpha=o.alpha, missing=o.missing)
    res["pvalue_adjusted"] = adjust_pvalues(res["pvalue"], o.correction)
    return _to_cells(res, layout, True, (*_COMPARE_VARS, "df"))


def _over_batch(X: np.ndarray, *, block, layout, opts) -> np.ndarray:
    """apply_ufunc body: X (K, S, [R,] T) -> (K, S, O, V), one correction family per k."""
    return np.stack([block(X[k], layout, opts) for k in range(X.shape[0])], axis=0)


@peer_keywords
def compare(
    cube,
    baseline=None,
    *,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    n_samples: int = 10_000,
    rng=None,
    missing: str = "skip",
    ci: str | None = None,
    exact: bool | None = None,
    zero_method: str = "wilcox",
    dim: str = "topic",
    replicates: str | None = None,
) -> xr.Dataset:
    """Paired significance tests between systems over topics.

    Each pair of systems is compared on the per-topic differences
    ``d_t = score(system, t) - score(other, t)``.  Topics are matched by their label,
    never by position.  Every dim of the cube other than ``system``, the topic dim
    ``dim`` (and ``replicates``) is broadcast over: a cube ``(system, topic, measure,
    qrels)`` gives results per measure and per qrels set.

    Parameters
    ----------
    cube : xarray.DataArray
        Scores with dims ``system`` and ``dim`` (default ``topic``), and any others
        (``measure``, ``qrels``, a C x A grid, ...).
    baseline : None, str or list of str
        None compares all pairs; otherwise every system is compared with each
        baseline, which becomes the ``other`` coordinate.
    test : {"t", "wilcoxon", "randomization", "bootstrap"}
        Paired t-test (`scipy.stats.ttest_1samp` on the differences), Wilcoxon
        signed-rank (`scipy.stats.wilcoxon`), paired randomization (sign-flip)
        test on the mean difference, or bootstrap (shift) test on the mean difference.
        Ignored with ``replicates=`` (see below).
    correction : {"holm", "bonferroni", "bh", "by", "sidak", "holm-sidak", "simes-hochberg", "hommel", None}
        Multiple-comparison correction ([`adjust_pvalues`][irframe.stats.adjust_pvalues];
        statsmodels' ``multipletests`` names are accepted too).  The family is every distinct unordered pair
        present in the result (each pair counted once even though both ``(a, b)`` and
        ``(b, a)`` cells are filled), separately for each measure and each cell of the
        other broadcast dims.
    alpha : float
        Level for ``significant`` and for the (1 - alpha) confidence interval.
    n_samples : int
        Samples for the sampled randomization test and for the bootstrap.
    rng : numpy.random.Generator, int or None
        Source of randomness (randomization and bootstrap only).
    missing : {"skip", "common", "zero", "error"}
        Not-evaluated (NaN) cells, see `irframe.options.MISSING`: ``"skip"`` (default):
        a pair is compared on the topics *both* systems were evaluated on; ``"common"``: on the
        topics *every* system was evaluated on; ``"zero"``: NaN counts as 0 (trec_eval ``-c``);
        ``"error"``: raise if the cube holds NaN.  Pairs with fewer than 2 topics get NaN results.
    ci : {"t", "bootstrap"}, optional
        Confidence interval of the mean difference: t-based, or bootstrap percentile.
        Default: "bootstrap" for ``test="bootstrap"``, "t" otherwise.
    exact : bool, optional
        Randomization only: enumerate all ``2**n`` sign vectors.  Default: exact when a
        pair has at most 16 topics, sampled otherwise.
    zero_method : str
        Passed to `scipy.stats.wilcoxon`.
    dim : str
        The topic dim, over which pairs are matched.
    replicates : str, optional
        A dim holding replicate runs of each system (seeds, folds).  The pair is then
        tested with the linear mixed model ``score = system + topic + system:topic +
        run(system) + error`` (topic, system-by-topic and replicate-run effects random),
        whose REML solution for complete data is the ANOVA (expected mean square)
        estimator: the effect is the difference of grand means ``d`` and
        ``Var(d) = S2_D / n + (1/R_a + 1/R_b) max(S2_rep - MSE / n, 0)`` (``S2_D``: variance
        over topics of the seed-averaged differences; ``S2_rep``: pooled variance of the
        run means within a system; ``MSE``: residual), tested with Student's t on
        Satterthwaite's degrees of freedom, returned as a ``df`` variable.  A replicate
        slot NaN on every topic is an absent run; a pair with one run per system is NaN.
        Checked against statsmodels' ``MixedLM`` in the tests.

    Returns
    -------
    xarray.Dataset
        Dims ``(system, other[, measure, ...])``.  Variables: ``statistic`` (t, Wilcoxon W,
        or mean difference for randomization/bootstrap), ``pvalue``, ``pvalue_adjusted``,
        ``significant`` (``pvalue_adjusted < alpha``), ``ci_low``, ``ci_high`` (CI of the
        mean difference), ``effect`` (mean difference ``system - other``),
        ``effect_size`` (Cohen's d_z: mean difference / sd of differences), ``wins``,
        ``ties``, ``losses`` (topics where ``system`` is above / equal / below), and
        ``n_topics``.  Cells comparing a system with itself are NaN.  ``attrs`` record
        the test, correction, alpha, n_samples, ci method, missing policy and
        whether the randomization was exact.

    Raises
    ------
    irframe.errors.UnknownSystemError
        ``baseline`` is not a system of the cube (close names suggested).
    irframe.errors.InputError
        ``cube`` is not a score cube with ``system`` and topic dims, or (``missing="error"``) holds NaN cells.
    irframe.errors.OptionError
        An option outside its range or choices (the message lists them).

    Notes
    -----
    The sampled randomization p-value is ``(1 + #{|mean*| >= |mean|}) / (1 + n_samples)``,
    the exact one ``#{|mean*| >= |mean|} / 2**n`` over all sign vectors (the observed one
    included).  The bootstrap p-value is the two-sided shift test
    ``(1 + #{|mean* - mean| >= |mean|}) / (1 + n_samples)``.  All pairs share the same
    sign-flip (or resampling) matrix, so the computation is one matrix product per block.

    See Also
    --------
    - [`tukey_hsd`][irframe.stats.tukey_hsd]: all pairs at once, one family-wise error rate.
    - [`adjust_pvalues`][irframe.stats.adjust_pvalues]: the corrections of ``correction=``.
    - [`report`][irframe.report]: a results table with the markers of these tests.
    - [`significance_matrix`][irframe.plot.significance_matrix], [`topic_differences`][irframe.plot.topic_differences]: draw the result.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import compare
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(size=(3, 20)) + np.array([[0.0], [0.05], [0.3]])
    >>> cube = xr.DataArray(scores, dims=("system", "topic"),
    ...                     coords={"system": ["a", "b", "c"], "topic": [str(t) for t in range(20)]})
    >>> res = compare(cube, baseline="a", test="randomization", n_samples=2000, rng=1)
    >>> res.significant.sel(other="a").to_series().to_dict()
    {'a': False, 'b': False, 'c': True}
    >>> res.attrs["test"], res.attrs["correction"]
    ('randomization', 'holm')

    Extra dims are broadcast over, e.g. two judgment sets:

    >>> two = xr.concat([cube, cube + 0.0], dim="qrels").assign_coords(qrels=["nist", "copy"])
    >>> compare(two, baseline="a").pvalue.dims
    ('system', 'other', 'qrels')
    """
    started = time.perf_counter()
    o = compare_options(test, correction, alpha, n_samples, rng, missing, ci, exact, zero_method)
    keep = () if replicates is None else (replicates,)
    if replicates is not None and replicates == dim:
        raise OptionError(f"replicates={replicates!r} must differ from the topic dim")
    c, layout = score_cube(cube, dim=dim, keep=keep)
    systems = pd.Index(c.indexes["system"])
    if c.sizes["topic"] < 2:
        raise InputError(f"paired tests need at least 2 topics, the cube has {c.sizes['topic']}")
    others = _baseline_list(baseline, systems)
    pairs = _pair_layout(systems, others)
    names = _COMPARE_VARS if replicates is None else (*_COMPARE_VARS, "df")
    core = ["system", *keep, "topic"]
    out = xr.apply_ufunc(
        _over_batch,
        c,
        input_core_dims=[core],
        output_core_dims=[["system", "other", "_var"]],
        kwargs={
            "block": _paired_block if replicates is None else _replicate_block,
            "layout": pairs,
            "opts": o,
        },
        dask="forbidden",
    )
    if not replicates:
        warn_bootstrap(
            o.bootstrap_topics,
            f"compare(test={o.test!r}{', ci=' + repr(o.ci) if o.ci == 'bootstrap' else ''})",
        )
    out = out.assign_coords(
        other=np.asarray(others, dtype=c["system"].values.dtype),  # as the system coordinate
        _var=list(names),
    ).transpose("system", "other", "measure", "_var")
    ds = _integer_counts(out.to_dataset("_var"), c)
    padj = ds.pvalue_adjusted
    ds["significant"] = (
        padj.dims,
        ~np.isnan(padj.values) & (np.nan_to_num(padj.values, nan=1.0) < o.alpha),
    )
    ds = ds[
        [*_COMPARE_VARS[:3], "significant", *_COMPARE_VARS[3:], *(("df",) if replicates else ())]
    ]
    sampled = (o.test in ("randomization", "bootstrap") or o.ci == "bootstrap") and not replicates
    params = {
        "test": "mixed_model" if replicates else o.test,
        "correction": o.correction,
        "alpha": o.alpha,
        "n_samples": o.n_samples if sampled else 0,
        "ci": "t" if replicates else o.ci,
        "missing": o.missing,
        "exact": o.used_exact,
        "zero_method": o.zero_method,
        "dim": dim,
        "replicates": replicates,
    }
    _slow_sampling_hint(o, sampled, time.perf_counter() - started)
    return result(
        layout.restore(ds),
        computed="irframe.stats.compare",
        parameters=params,
        attrs={
            "confidence": float(1 - o.alpha),
            "family": "distinct unordered pairs per measure (and per cell of other broadcast dims)",
        },
    )


# ---------------------------------------------------------------------------
# ANOVA and Tukey HSD
# ---------------------------------------------------------------------------


def _anova_parts(X: np.ndarray, two_way: bool):
    S, T = X.shape
    grand = X.mean()
    sm = X.mean(axis=1, keepdims=True)
    ss_sys = T * ((sm - grand) ** 2).sum()
    if two_way:
        tm = X.mean(axis=0, keepdims=True)
        ss_top = S * ((tm - grand) ** 2).sum()
        resid = X - sm - tm + grand
        df_res = (S - 1) * (T - 1)
    else:
        ss_top = None
        resid = X - sm
        df_res = S * (T - 1)
    sse = (resid**2).sum()
    return ss_sys, ss_top, sse, df_res


def anova(cube, *, two_way: bool = True, missing: str = "skip", dim: str = "topic") -> pd.DataFrame:
    """ANOVA of scores: one-way (system) or two-way randomised blocks (system + topic).

    Parameters
    ----------
    cube : xarray.DataArray
        Scores ``(system, topic[, measure])``.
    two_way : bool
        Include topic as a blocking factor (no interaction), as in Tukey HSD for IR
        (Carterette 2012, ACM TOIS; Sakai 2018, *Laboratory Experiments in Information
        Retrieval*, Springer).  With one score per cell this is the only estimable model.
    missing : {"skip", "common", "zero", "error"}
        Not-evaluated (NaN) cells (`irframe.options.MISSING`): this method needs a complete
        system × topic block, so ``"skip"`` (default) and ``"common"`` keep, per measure, the
        topics every system was evaluated on; ``"zero"`` counts NaN as 0; ``"error"`` raises.
    dim : str, default "topic"
        The dimension of the cube the topics lie on (another name for the same role, e.g. a cube
        whose topic dim was renamed).

    Returns
    -------
    pandas.DataFrame
        One row per source (``system``, ``topic``, ``residual``) -- indexed by
        ``(measure, source)`` for a 3-D cube -- with columns ``df, sum_sq, mean_sq, F, pvalue``.

    Raises
    ------
    irframe.errors.InputError
        ``cube`` is not a score cube with ``system`` and topic dims, or (``missing="error"``) holds NaN cells.
    irframe.errors.OptionError
        An option outside its range or choices (the message lists them).

    See Also
    --------
    - [`tukey_hsd`][irframe.stats.tukey_hsd]: which pairs differ.
    - [`variance_components`][irframe.power.variance_components]: the same decomposition for topic-set-size design.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import anova
    >>> x = np.array([[1., 2., 3.], [2., 2., 5.]])
    >>> cube = xr.DataArray(x, dims=("system", "topic"))
    >>> anova(cube)["df"].tolist()
    [1.0, 2.0, 2.0]
    """
    two_way = check_flag("two_way", two_way)
    c, layout = score_cube(cube, dim=dim)
    frames = {}
    for k, m in enumerate(c.indexes["measure"]):
        X = complete_topics(c.values[:, :, k], missing)
        S, T = X.shape
        if T < 2:
            raise InputError(
                f"ANOVA needs at least 2 topics evaluated for every system (measure {m!r} has {T})"
            )
        ss_sys, ss_top, sse, df_res = _anova_parts(X, two_way)
        mse = sse / df_res
        rows = [("system", S - 1, ss_sys)]
        if two_way:
            rows.append(("topic", T - 1, ss_top))
        rows_out = []
        for src, df, ss in rows:
            with np.errstate(divide="ignore", invalid="ignore"):
                F = (ss / df) / mse
            rows_out.append((src, float(df), ss, ss / df, F, _st.f.sf(F, df, df_res)))
        rows_out.append(("residual", float(df_res), sse, mse, np.nan, np.nan))
        frames[m] = pd.DataFrame(
            rows_out, columns=["source", "df", "sum_sq", "mean_sq", "F", "pvalue"]
        ).set_index("source")
    if not layout.has_measure:
        return next(iter(frames.values()))
    return pd.concat(
        frames, names=[*(layout.batch_dims if layout.stacked else ["measure"]), "source"]
    )


def tukey_hsd(
    cube, *, two_way: bool = True, alpha: float = 0.05, missing: str = "skip", dim: str = "topic"
) -> xr.Dataset:
    """Tukey's honestly significant difference test for all pairs of systems.

    With ``two_way=True`` (default) the error term is the residual mean square of the
    randomised-blocks ANOVA ``score = system + topic + error`` (no interaction), with
    ``(S-1)(T-1)`` degrees of freedom -- the form used for IR test collections by
    Carterette (2012, "Multiple testing in statistical analysis of systems-based information
    retrieval experiments", ACM TOIS) and Sakai (2018, Springer), and for discriminative power in the papers irframe implements.
    With ``two_way=False`` it is the classic one-way test (MSE within systems,
    ``S(T-1)`` df), equal to `scipy.stats.tukey_hsd` and statsmodels'
    ``pairwise_tukeyhsd``.

    For systems i, j: ``q = |mean_i - mean_j| / sqrt(MSE / T)`` and the p-value is
    ``P(Q > q)`` for the studentized range with ``S`` groups
    (`scipy.stats.studentized_range`); the simultaneous confidence interval is
    ``mean_i - mean_j +- q_{1-alpha} sqrt(MSE / T)``.  Tukey's test controls the
    family-wise error itself, so no further correction is applied.

    Parameters
    ----------
    cube : xarray.DataArray
        Scores ``(system, topic[, measure])``.
    two_way : bool
        Randomised blocks (default) or one-way.
    alpha : float
        Level for ``significant`` and the simultaneous CIs.
    missing : {"skip", "common", "zero", "error"}
        Not-evaluated (NaN) cells (`irframe.options.MISSING`): this method needs a complete
        system × topic block, so ``"skip"`` (default) and ``"common"`` keep, per measure, the
        topics every system was evaluated on; ``"zero"`` counts NaN as 0; ``"error"`` raises.
    dim : str, default "topic"
        The dimension of the cube the topics lie on (another name for the same role, e.g. a cube
        whose topic dim was renamed).

    Returns
    -------
    xarray.Dataset
        Dims ``(system, other[, measure])``: ``statistic`` (q), ``pvalue``,
        ``significant``, ``ci_low``, ``ci_high``, ``effect`` (``mean_system - mean_other``),
        ``effect_size`` (``effect / sqrt(mse)``, Sakai's standardised effect ES_E); per
        measure ``mse``, ``df``, ``n_topics`` and ``margin_of_error`` (the half-width
        ``t_{1-alpha/2}(df) sqrt(mse / n_topics)`` of the (1 - alpha) interval of each system
        mean on the pooled residual variance: Sakai, *Laboratory Experiments in Information
        Retrieval*, Springer 2018, ch. 3).

    Raises
    ------
    irframe.errors.InputError
        ``cube`` is not a score cube with ``system`` and topic dims, or (``missing="error"``) holds NaN cells.
    irframe.errors.OptionError
        An option outside its range or choices (the message lists them).

    See Also
    --------
    - [`compare`][irframe.stats.compare]: pairwise tests with corrections.
    - [`anova`][irframe.stats.anova]: the ANOVA table.
    - [`significance_matrix`][irframe.plot.significance_matrix]: draw the result.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import tukey_hsd
    >>> rng = np.random.default_rng(3)
    >>> x = rng.normal(size=(3, 30)) + np.array([[0.0], [0.1], [1.0]]) + rng.normal(size=30)
    >>> cube = xr.DataArray(x, dims=("system", "topic"), coords={"system": ["a", "b", "c"]})
    >>> res = tukey_hsd(cube)
    >>> bool(res.significant.sel(system="c", other="a")), bool(res.significant.sel(system="b", other="a"))
    (True, False)
    """
    two_way = check_flag("two_way", two_way)
    alpha = ALPHA.check("alpha", alpha)
    c, layout = score_cube(cube, dim=dim)
    systems = list(c.indexes["system"])
    S, K = len(systems), c.sizes["measure"]
    shape = (S, S, K)
    q = np.full(shape, np.nan)
    p = np.full(shape, np.nan)
    lo = np.full(shape, np.nan)
    hi = np.full(shape, np.nan)
    eff = np.full(shape, np.nan)
    mse_k, df_k, nt_k = np.full(K, np.nan), np.full(K, np.nan), np.zeros(K, dtype=np.int64)
    iu = np.triu_indices(S, 1)
    for k, m in enumerate(c.indexes["measure"]):
        X = complete_topics(c.values[:, :, k], missing)
        T = X.shape[1]
        if T < 2:
            raise InputError(
                f"Tukey HSD needs at least 2 topics evaluated for every system (measure {m!r} has {T})"
            )
        _, _, sse, df_res = _anova_parts(X, two_way)
        mse = sse / df_res
        se = np.sqrt(mse / T)
        means = X.mean(axis=1)
        diff = means[:, None] - means[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            qq = np.abs(diff) / se
        # the studentized range CDF is a numerical integral: evaluate it once per distinct q
        uq, inv = np.unique(qq[iu], return_inverse=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pu = np.where(
                np.isfinite(uq),
                _st.studentized_range.sf(np.where(np.isfinite(uq), uq, 0), S, df_res),
                np.nan,
            )
        pu = np.where(np.isinf(uq), 0.0, pu)
        pmat = np.full((S, S), np.nan)
        pmat[iu] = pu[np.asarray(inv).ravel()]
        pmat.T[iu] = pmat[iu]
        qcrit = _st.studentized_range.ppf(1 - alpha, S, df_res)
        np.fill_diagonal(diff, np.nan)
        qq = np.where(np.isnan(diff), np.nan, qq)
        q[:, :, k], p[:, :, k], eff[:, :, k] = qq, pmat, diff
        lo[:, :, k], hi[:, :, k] = diff - qcrit * se, diff + qcrit * se
        mse_k[k], df_k[k], nt_k[k] = mse, df_res, T
    dims = ("system", "other", "measure")
    with np.errstate(invalid="ignore", divide="ignore"):  # NaN where mse is 0 (constant cube)
        effect_size = eff / np.sqrt(mse_k)
    ds = xr.Dataset(
        {
            "statistic": (dims, q),
            "pvalue": (dims, p),
            "significant": (dims, np.where(np.isnan(p), False, p < alpha)),
            "ci_low": (dims, lo),
            "ci_high": (dims, hi),
            "effect": (dims, eff),
            "effect_size": (dims, effect_size),
            "mse": ("measure", mse_k),
            "margin_of_error": ("measure", _st.t.ppf(1 - alpha / 2, df_k) * np.sqrt(mse_k / nt_k)),
            "df": ("measure", df_k),
            "n_topics": ("measure", nt_k),
        },
        coords={"system": systems, "other": systems},
    )
    return result(
        layout.restore(ds.assign_coords(batch_coords(c))),
        computed="irframe.stats.tukey_hsd",
        parameters={"two_way": two_way, "alpha": float(alpha), "missing": missing, "dim": dim},
        attrs={"test": "tukey_hsd", "correction": "none (family-wise by construction)"},
    )


# ---------------------------------------------------------------------------
# sign test on preference cubes
# ---------------------------------------------------------------------------


def sign_test(pref, *, correction: str | None = "holm", alpha: float = 0.05) -> xr.Dataset:
    """Two-sided binomial sign test for each pair of a preference cube.

    For each (system, other) cell, ``wins`` counts topics with +1, ``losses`` with -1,
    ``ties`` with 0; under H0 wins ~ Binomial(wins + losses, 1/2) (ties dropped).  The
    two-sided p-value equals `scipy.stats.binomtest`'s and is computed for all
    cells at once with `scipy.stats.binom` ``.cdf``.  The correction family is
    the distinct unordered pairs (the cube is expected to be antisymmetric, as
    lexirecall's is); a cell ``(b, a)`` gets the adjusted p-value of ``(a, b)``.

    Parameters
    ----------
    pref : xarray.DataArray
        Dims ``(system, other, topic)``, values in {-1, 0, +1}, +1 = system preferred.
    correction : {"holm", "bonferroni", "bh", "by", "sidak", "holm-sidak", "simes-hochberg", "hommel", None}
        As [`adjust_pvalues`][irframe.stats.adjust_pvalues].
    alpha : float

    Returns
    -------
    xarray.Dataset
        Dims ``(system, other)``: ``wins, ties, losses``, ``statistic`` (wins / (wins +
        losses)), ``pvalue``, ``pvalue_adjusted``, ``significant``.

    See Also
    --------
    - [`lexirecall`][irframe.lexi.lexirecall], [`lexiprecision`][irframe.lexi.lexiprecision]: the preference cubes it tests.
    - [`preference_counts`][irframe.lexi.preference_counts]: wins, losses and ties.
    - [`significance_matrix`][irframe.plot.significance_matrix]: draw the result.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import sign_test
    >>> p = np.zeros((2, 2, 10), dtype=np.int8)
    >>> p[0, 1] = [1] * 9 + [-1]
    >>> p[1, 0] = -p[0, 1]
    >>> pref = xr.DataArray(p, dims=("system", "other", "topic"),
    ...                     coords={"system": ["a", "b"], "other": ["a", "b"]})
    >>> round(float(sign_test(pref).pvalue.sel(system="a", other="b")), 4)
    0.0215
    """
    alpha = ALPHA.check("alpha", alpha)
    correction = check_correction(correction)
    pref = pref_cube(pref)
    v = np.asarray(pref.values)
    wins = (v == 1).sum(axis=2).astype(float)
    losses = (v == -1).sum(axis=2).astype(float)
    ties = (v == 0).sum(axis=2).astype(float)
    n = wins + losses
    k = np.minimum(wins, losses)
    with np.errstate(invalid="ignore"):
        pval = np.where(n > 0, np.minimum(1.0, 2 * _st.binom.cdf(k, n, 0.5)), 1.0)
        stat = np.where(n > 0, wins / np.where(n > 0, n, 1), np.nan)
    sys_l = (
        [str(s) for s in pref.coords["system"].values]
        if "system" in pref.coords
        else [str(i) for i in range(v.shape[0])]
    )
    oth_l = (
        [str(s) for s in pref.coords["other"].values]
        if "other" in pref.coords
        else [str(i) for i in range(v.shape[1])]
    )
    same = np.array([[a == b for b in oth_l] for a in sys_l], dtype=bool)
    pval = np.where(same, np.nan, pval)
    _check_antisymmetric(v, sys_l, oth_l, pref)
    # family: distinct unordered label pairs, first occurrence represents the pair
    keys = {}
    rep = np.full(v.shape[:2], -1, dtype=np.intp)
    reps: list[tuple[int, int]] = []
    for i, a in enumerate(sys_l):
        for j, b in enumerate(oth_l):
            if a == b:
                continue
            key = (a, b) if a < b else (b, a)
            if key not in keys:
                keys[key] = len(reps)
                reps.append((i, j))
            rep[i, j] = keys[key]
    fam = np.array([pval[i, j] for i, j in reps]) if reps else np.zeros(0)
    adj_f = adjust_pvalues(fam, correction)
    padj = np.where(rep >= 0, adj_f[np.maximum(rep, 0)] if len(adj_f) else np.nan, np.nan)
    dims = ("system", "other")
    ds = xr.Dataset(
        {
            "wins": (dims, wins),
            "ties": (dims, ties),
            "losses": (dims, losses),
            "statistic": (dims, stat),
            "pvalue": (dims, pval),
            "pvalue_adjusted": (dims, padj),
            "significant": (dims, np.where(np.isnan(padj), False, padj < alpha)),
        },
        coords={d: pref.coords[d] for d in dims if d in pref.coords},
    )
    return result(
        ds,
        computed="irframe.stats.sign_test",
        parameters={"correction": correction, "alpha": float(alpha)},
        attrs={"test": "sign"},
    )


def _check_antisymmetric(v: np.ndarray, sys_l: list, oth_l: list, pref) -> None:
    """The sign test corrects over unordered pairs and gives (b, a) the adjusted p-value
    of (a, b): a cube holding both must have p[b, a] = -p[a, b] on every topic."""
    at = {b: j for j, b in enumerate(oth_l)}
    row = {a: i for i, a in enumerate(sys_l)}
    for i, a in enumerate(sys_l):
        for b, j in at.items():
            if a == b or b not in row or a not in at:
                continue
            bad = np.flatnonzero(v[i, j] != -v[row[b], at[a]])
            if len(bad):
                topics = (
                    pref.coords["topic"].values if "topic" in pref.coords else range(v.shape[2])
                )
                t = topics[bad[0]]
                raise InputError(
                    f"preference cube is not antisymmetric: (system {a!r}, other {b!r}, "
                    f"topic {str(t)!r}) is {int(v[i, j, bad[0]]):+d} but (system {b!r}, other "
                    f"{a!r}) is {int(v[row[b], at[a], bad[0]]):+d} ({len(bad)} topic(s) differ). "
                    "The sign test corrects over unordered pairs, so it needs p[b, a] = "
                    "-p[a, b], as lexirecall and lexiprecision give; otherwise test one "
                    f"direction at a time: sign_test(pref.sel(system=[{a!r}], other=[{b!r}]))."
                )


# ---------------------------------------------------------------------------
# per-system means with confidence intervals
# ---------------------------------------------------------------------------


def mean_ci(
    cube,
    *,
    method: str = "t",
    alpha: float = 0.05,
    n_samples: int = 10_000,
    rng=None,
    missing: str = "skip",
    dim: str = "topic",
) -> xr.Dataset:
    """Mean score per system with a (1 - alpha) confidence interval over topics.

    Parameters
    ----------
    cube : xarray.DataArray
        Scores ``(system, topic[, measure])``.
    method : {"t", "bootstrap"}
        Student-t interval or bootstrap percentile interval.
    missing : {"skip", "zero", "common"}
        ``"skip"``: each system's mean uses its own evaluated topics; ``"zero"``: NaN
        counts as 0; ``"common"``: only topics every system was evaluated on.
    alpha : float, default 0.05
        The interval covers 1 - alpha.
    n_samples : int, default 10000
        Resamples of the bootstrap interval (``method="bootstrap"``).
    rng : numpy.random.Generator, int or None
        The bootstrap's randomness (`irframe.options.make_rng`): a seed gives the same interval
        every call.
    dim : str, default "topic"
        The dimension of the cube the topics lie on (another name for the same role, e.g. a cube
        whose topic dim was renamed).

    Returns
    -------
    xarray.Dataset
        Dims ``(system[, measure])``: ``mean``, ``ci_low``, ``ci_high``, ``n_topics``.

    Raises
    ------
    irframe.errors.InputError
        ``cube`` is not a score cube with ``system`` and topic dims, or (``missing="error"``) holds NaN cells.
    irframe.errors.OptionError
        An option outside its range or choices (the message lists them).

    See Also
    --------
    - [`summarize`][irframe.summarize]: the means alone.
    - [`system_means`][irframe.plot.system_means]: draw them.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import mean_ci
    >>> cube = xr.DataArray([[0.1, 0.3, 0.5], [0.2, 0.2, np.nan]], dims=("system", "topic"),
    ...                     coords={"system": ["a", "b"]})
    >>> mean_ci(cube)["mean"].round(3).values.tolist()
    [0.3, 0.2]
    """
    alpha = ALPHA.check("alpha", alpha)
    n_samples = DRAWS.check("n_samples", n_samples)
    if method not in ("t", "bootstrap"):
        raise OptionError(f"method must be 't' or 'bootstrap', got {method!r}")
    c, layout = score_cube(cube, dim=dim)
    X = mask_missing(c.values, missing)
    gen = make_rng(rng) if method == "bootstrap" else None
    S, _T, K = X.shape
    mean = np.full((S, K), np.nan)
    lo, hi, nt = mean.copy(), mean.copy(), np.zeros((S, K))
    for s in range(S):
        for k in range(K):
            x = X[s, :, k]
            x = x[~np.isnan(x)]
            nt[s, k] = x.size
            if x.size == 0:
                continue
            mean[s, k] = x.mean()
            if x.size < 2:
                continue
            if method == "t":
                h = _st.t.ppf(1 - alpha / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size)
                lo[s, k], hi[s, k] = mean[s, k] - h, mean[s, k] + h
            else:
                _, bl, bh = bootstrap_test(
                    x[None, :], int(n_samples), gen, alpha, want_p=False, want_ci=True
                )
                lo[s, k], hi[s, k] = bl[0], bh[0]
    if method == "bootstrap":
        n_min = nt[nt >= 2].min() if (nt >= 2).any() else None
        warn_bootstrap(None if n_min is None else int(n_min), "mean_ci(method='bootstrap')")
    dims = ("system", "measure")
    ds = xr.Dataset(
        {"mean": (dims, mean), "ci_low": (dims, lo), "ci_high": (dims, hi), "n_topics": (dims, nt)},
        coords={"system": list(c.indexes["system"])},
    )
    return result(
        layout.restore(ds.assign_coords(batch_coords(c))),
        computed="irframe.stats.mean_ci",
        parameters={
            "method": method,
            "alpha": float(alpha),
            "n_samples": int(n_samples) if method == "bootstrap" else 0,
            "missing": missing,
            "dim": dim,
        },
    )
