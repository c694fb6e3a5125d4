"""Significance tests on score cubes.

Every function takes a score cube -- an :class:`xarray.DataArray` with dims
``("system", "topic", "measure")`` or a 2-D ``(system, topic)`` selection such as
``cube.sel(measure="AP")`` -- or, for :func:`sign_test`, a preference cube with dims
``("system", "other", "topic")`` and values in {-1, 0, +1}.  NaN in a score cube
means "this system was not evaluated on this topic".  The caller's cube is never
modified.

Randomness only ever comes from the ``rng=`` argument (a
:class:`numpy.random.Generator`, an int seed, or None for fresh entropy); global
random state is never touched.

Functions
---------
compare        paired tests (t, Wilcoxon, randomization, bootstrap) between systems
tukey_hsd      Tukey's HSD on the randomised-blocks (system x topic) ANOVA
anova          one-way or two-way (system + topic) ANOVA table
sign_test      binomial sign test on a preference cube (lexirecall, lexiprecision)
mean_ci        per-system mean with a t or bootstrap confidence interval
adjust_pvalues Holm, Bonferroni and Benjamini-Hochberg corrections
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats as _st

__all__ = [
    "compare",
    "tukey_hsd",
    "anova",
    "sign_test",
    "mean_ci",
    "adjust_pvalues",
    "TESTS",
    "CORRECTIONS",
]

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh", None)
_SM_METHOD = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}
_EXACT_MAX_TOPICS = 16
_CHUNK_ELEMENTS = 4_000_000  # pairs x samples per block (bounds memory to ~32 MB a block)


# ---------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------

def _rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be a numpy.random.Generator, an int seed or None, not {type(rng).__name__}")


def _score_cube(cube, *, name: str = "cube") -> tuple[xr.DataArray, bool]:
    """Return a float64 copy with dims (system, topic, measure) and whether `measure` was a dim."""
    if isinstance(cube, xr.Dataset):
        raise TypeError(f"{name} must be an xarray.DataArray of scores, not a Dataset; "
                        f"select one variable (e.g. ds['EU']) first")
    if not isinstance(cube, xr.DataArray):
        raise TypeError(f"{name} must be an xarray.DataArray with dims ('system', 'topic'[, 'measure']), "
                        f"not {type(cube).__name__}")
    dims = set(cube.dims)
    if dims not in ({"system", "topic"}, {"system", "topic", "measure"}):
        hint = ""
        if "other" in dims:
            hint = " (this looks like a preference cube; use irframe.stats.sign_test)"
        raise ValueError(f"{name} must have dims ('system', 'topic') or ('system', 'topic', 'measure'); "
                         f"got {tuple(cube.dims)}{hint}")
    has_measure = "measure" in dims
    if not has_measure:
        label = cube.coords["measure"].item() if "measure" in cube.coords and cube.coords["measure"].ndim == 0 else None
        cube = cube.drop_vars([c for c in cube.coords if c not in cube.dims], errors="ignore")
        cube = cube.expand_dims(measure=[label if label is not None else "score"])
    cube = cube.transpose("system", "topic", "measure")
    if not np.issubdtype(cube.dtype, np.number) and cube.dtype != bool:
        raise TypeError(f"{name} must hold numbers, got dtype {cube.dtype}")
    for d in ("system", "topic"):
        idx = cube.indexes.get(d) if d in cube.coords else None
        if idx is not None and idx.has_duplicates:
            raise ValueError(f"{name} has duplicate {d} labels: {list(idx[idx.duplicated()].unique())[:5]}")
    if "system" not in cube.coords:
        cube = cube.assign_coords(system=[f"s{i}" for i in range(cube.sizes["system"])])
    if "topic" not in cube.coords:
        cube = cube.assign_coords(topic=[str(i) for i in range(cube.sizes["topic"])])
    out = xr.DataArray(np.array(cube.values, dtype=np.float64, copy=True), dims=cube.dims,
                       coords={d: cube.coords[d].values for d in cube.dims}, attrs=dict(cube.attrs))
    if np.isinf(out.values).any():
        raise ValueError(f"{name} contains infinite values")
    if out.sizes["system"] < 2:
        raise ValueError(f"{name} needs at least 2 systems, got {out.sizes['system']}")
    return out, has_measure


def _apply_missing(x: np.ndarray, missing: str, *, name: str = "cube") -> np.ndarray:
    """x: (S, T[, K]).  'common' keeps NaN (handled pairwise), 'zero' fills, 'error' raises."""
    if missing == "common":
        return x
    if missing == "zero":
        return np.nan_to_num(x, nan=0.0)
    if missing == "error":
        if np.isnan(x).any():
            raise ValueError(f"{name} has NaN (not evaluated) cells and missing='error'")
        return x
    raise ValueError(f"missing must be 'common', 'zero' or 'error', got {missing!r}")


def _baseline_list(baseline, systems: pd.Index) -> list:
    if baseline is None:
        return list(systems)
    names = [baseline] if isinstance(baseline, str) or not isinstance(baseline, Sequence) else list(baseline)
    if len(names) == 0:
        raise ValueError("baseline is an empty list; pass None for all pairs")
    unknown = [b for b in names if b not in systems]
    if unknown:
        raise KeyError(f"baseline {unknown[0]!r} is not a system of the cube; available systems: {list(systems)}")
    if len(set(names)) != len(names):
        raise ValueError(f"baseline lists a system twice: {names}")
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


def _scatter(values: np.ndarray, cell_pair: np.ndarray, cell_sign: np.ndarray | None = None, fill=np.nan):
    out = np.full(cell_pair.shape, fill, dtype=np.result_type(values.dtype, np.float64) if fill is np.nan else values.dtype)
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
    order = np.argsort(p, kind="mergesort")
    ps = p[order]
    if method == "holm":
        adj = np.maximum.accumulate((m - np.arange(m)) * ps)
    elif method == "bh":
        adj = np.minimum.accumulate((m / np.arange(m, 0, -1)) * ps[::-1])[::-1]
    else:  # pragma: no cover - guarded by caller
        raise ValueError(method)
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def adjust_pvalues(pvalues, method: str | None = "holm", *, use_statsmodels: bool | None = None) -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array_like
        Raw p-values, any shape.  NaN entries are left out of the family and stay NaN.
    method : {"holm", "bonferroni", "bh", None}
        Holm's step-down, Bonferroni, or Benjamini-Hochberg (FDR) step-up; None returns a copy.
    use_statsmodels : bool, optional
        Use :func:`statsmodels.stats.multitest.multipletests` (default when installed) or
        the built-in implementation (``False``); both give the same numbers.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape as the input.

    Examples
    --------
    >>> from irframe.stats import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {method!r}")
    p = np.array(pvalues, dtype=np.float64, copy=True)
    if method is None:
        return p
    flat = p.ravel()
    ok = ~np.isnan(flat)
    if ok.any() and ((flat[ok] < 0) | (flat[ok] > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    if use_statsmodels is None:
        try:
            import statsmodels.stats.multitest  # noqa: F401
            use_statsmodels = True
        except ImportError:
            use_statsmodels = False
    if ok.any():
        if use_statsmodels:
            from statsmodels.stats.multitest import multipletests
            flat[ok] = multipletests(flat[ok], method=_SM_METHOD[method])[1]
        else:
            flat[ok] = _adjust_fallback(flat[ok], method)
    return flat.reshape(p.shape)


# ---------------------------------------------------------------------------
# paired test kernels: D is (P, n) -- one row of per-topic differences per pair
# ---------------------------------------------------------------------------

def _t_kernel(D, alpha):
    res = _st.ttest_1samp(D, 0.0, axis=1)
    n = D.shape[1]
    mean = D.mean(axis=1)
    se = D.std(axis=1, ddof=1) / np.sqrt(n)
    h = _st.t.ppf(1 - alpha / 2, n - 1) * se
    return np.asarray(res.statistic, float), np.asarray(res.pvalue, float), mean - h, mean + h


def _wilcoxon_kernel(D, zero_method):
    P = D.shape[0]
    stat = np.full(P, np.nan)
    pval = np.ones(P)
    nz = (D != 0).any(axis=1) if zero_method != "zsplit" else np.ones(P, bool)
    if nz.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = _st.wilcoxon(D[nz], axis=1, zero_method=zero_method)
        stat[nz] = r.statistic
        pval[nz] = r.pvalue
    return stat, pval


def _iter_blocks(total: int, P: int):
    step = max(1, _CHUNK_ELEMENTS // max(P, 1))
    for start in range(0, total, step):
        yield start, min(total, start + step)


def _randomization_kernel(D, n_samples, rng, exact):
    P, n = D.shape
    obs = D.sum(axis=1)
    tol = 1e-9 * np.maximum(np.abs(D).sum(axis=1), 1e-300)
    thresh = np.abs(obs) - tol
    count = np.zeros(P, dtype=np.int64)
    bits = np.arange(n, dtype=np.int64)
    if exact:
        total = 1 << n
        for a, b in _iter_blocks(total, P):
            k = np.arange(a, b, dtype=np.int64)
            F = (((k[:, None] >> bits) & 1) * 2 - 1).astype(np.float64)  # (B, n)
            count += (np.abs(D @ F.T) >= thresh[:, None]).sum(axis=1)
        p = count / total
    else:
        for a, b in _iter_blocks(n_samples, P):
            F = rng.integers(0, 2, size=(b - a, n)).astype(np.float64) * 2 - 1
            count += (np.abs(D @ F.T) >= thresh[:, None]).sum(axis=1)
        p = (count + 1) / (n_samples + 1)
    return obs / n, np.minimum(p, 1.0)


def _bootstrap_means(D, n_samples, rng):
    """(P, B) bootstrap means of each row, resampling topics with replacement."""
    P, n = D.shape
    out = np.empty((P, n_samples))
    for a, b in _iter_blocks(n_samples, P):
        W = rng.multinomial(n, np.full(n, 1.0 / n), size=b - a).astype(np.float64)  # (B, n)
        out[:, a:b] = (D @ W.T) / n
    return out


def _bootstrap_p(D, boot):
    mean = D.mean(axis=1)
    tol = 1e-9 * np.maximum(np.abs(D).mean(axis=1), 1e-300)
    count = (np.abs(boot - mean[:, None]) >= (np.abs(mean) - tol)[:, None]).sum(axis=1)
    return (count + 1) / (boot.shape[1] + 1)


def _percentile_ci(boot, alpha):
    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2], axis=1)
    return lo, hi


# ---------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------

def compare(cube, baseline=None, *, test: str = "t", correction: str | None = "holm", alpha: float = 0.05,
            n_samples: int = 10_000, rng=None, missing: str = "common", ci: str | None = None,
            exact: bool | None = None, zero_method: str = "wilcox") -> xr.Dataset:
    """Paired significance tests between systems over topics.

    Each pair of systems is compared on the per-topic differences
    ``d_t = score(system, t) - score(other, t)``.  Topics are matched by their label,
    never by position.

    Parameters
    ----------
    cube : xarray.DataArray
        Scores with dims ``(system, topic, measure)`` or ``(system, topic)``.
    baseline : None, str or list of str
        None compares all pairs; otherwise every system is compared with each
        baseline, which becomes the ``other`` coordinate.
    test : {"t", "wilcoxon", "randomization", "bootstrap"}
        Paired t-test (:func:`scipy.stats.ttest_1samp` on the differences), Wilcoxon
        signed-rank (:func:`scipy.stats.wilcoxon`), paired randomization (sign-flip)
        test on the mean difference, or bootstrap (shift) test on the mean difference.
    correction : {"holm", "bonferroni", "bh", None}
        Multiple-comparison correction.  The family is, per measure, every distinct
        unordered pair present in the result (each pair counted once even though both
        ``(a, b)`` and ``(b, a)`` cells are filled).
    alpha : float
        Level for ``significant`` and for the (1 - alpha) confidence interval.
    n_samples : int
        Samples for the sampled randomization test and for the bootstrap.
    rng : numpy.random.Generator, int or None
        Source of randomness (randomization and bootstrap only).
    missing : {"common", "zero", "error"}
        ``"common"`` (default): a pair is compared on the topics *both* systems were
        evaluated on (non-NaN); ``"zero"``: NaN counts as 0 (trec_eval ``-c``);
        ``"error"``: raise if the cube holds NaN.  Pairs with fewer than 2 common topics
        get NaN results.
    ci : {"t", "bootstrap"}, optional
        Confidence interval of the mean difference: t-based, or bootstrap percentile.
        Default: "bootstrap" for ``test="bootstrap"``, "t" otherwise.
    exact : bool, optional
        Randomization only: enumerate all ``2**n`` sign flips.  Default: exact when a
        pair has at most 16 topics, sampled otherwise.
    zero_method : str
        Passed to :func:`scipy.stats.wilcoxon`.

    Returns
    -------
    xarray.Dataset
        Dims ``(system, other[, measure])``.  Variables: ``statistic`` (t, Wilcoxon W,
        or mean difference for randomization/bootstrap), ``pvalue``, ``pvalue_adjusted``,
        ``significant`` (``pvalue_adjusted < alpha``), ``ci_low``, ``ci_high`` (CI of the
        mean difference), ``effect`` (mean difference ``system - other``),
        ``effect_size`` (Cohen's d_z: mean difference / sd of differences), ``wins``,
        ``ties``, ``losses`` (topics where ``system`` is above / equal / below), and
        ``n_topics``.  Cells comparing a system with itself are NaN.  ``attrs`` record
        the test, correction, alpha, n_samples, ci method, missing policy and
        whether the randomization was exact.

    Notes
    -----
    The sampled randomization p-value is ``(1 + #{|mean*| >= |mean|}) / (1 + n_samples)``,
    the exact one ``#{|mean*| >= |mean|} / 2**n`` over all sign vectors (the observed one
    included).  The bootstrap p-value is the two-sided shift test
    ``(1 + #{|mean* - mean| >= |mean|}) / (1 + n_samples)``.  All pairs share the same
    sign-flip (or resampling) matrix, so the computation is one matrix product per block.

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
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, got {test!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if int(n_samples) < 1:
        raise ValueError(f"n_samples must be positive, got {n_samples}")
    n_samples = int(n_samples)
    if ci is None:
        ci = "bootstrap" if test == "bootstrap" else "t"
    if ci not in ("t", "bootstrap"):
        raise ValueError(f"ci must be 't' or 'bootstrap', got {ci!r}")
    if test == "wilcoxon" and zero_method not in ("wilcox", "pratt", "zsplit"):
        raise ValueError(f"zero_method must be 'wilcox', 'pratt' or 'zsplit', got {zero_method!r}")
    gen = _rng(rng) if (test in ("randomization", "bootstrap") or ci == "bootstrap") else None

    c, has_measure = _score_cube(cube)
    systems = pd.Index(c.indexes["system"])
    if c.sizes["topic"] < 2:
        raise ValueError(f"paired tests need at least 2 topics, the cube has {c.sizes['topic']}")
    others = _baseline_list(baseline, systems)
    pa, pb, cell_pair, cell_sign = _pair_layout(systems, others)
    X = _apply_missing(c.values, missing)
    S, O, K = len(systems), len(others), c.sizes["measure"]
    U = len(pa)

    names = ["statistic", "pvalue", "pvalue_adjusted", "ci_low", "ci_high", "effect", "effect_size",
             "wins", "ties", "losses", "n_topics"]
    out = {k: np.full((S, O, K), np.nan) for k in names}
    used_exact = False
    antisym_stat = test != "wilcoxon"
    for k in range(K):
        D = X[pa, :, k] - X[pb, :, k]  # (U, T)
        mask = ~np.isnan(D)
        ntop = mask.sum(axis=1)
        res = {kk: np.full(U, np.nan) for kk in ("statistic", "pvalue", "ci_low", "ci_high")}
        patterns, inv = np.unique(mask, axis=0, return_inverse=True)
        inv = np.asarray(inv).ravel()
        for g in range(patterns.shape[0]):
            cols = patterns[g]
            rows = np.flatnonzero(inv == g)
            n = int(cols.sum())
            if n < 2:
                continue
            Dg = D[np.ix_(rows, np.flatnonzero(cols))]
            boot = None
            if test == "t":
                stat, p, lo, hi = _t_kernel(Dg, alpha)
            elif test == "wilcoxon":
                stat, p = _wilcoxon_kernel(Dg, zero_method)
                lo = hi = None
            elif test == "randomization":
                ex = (n <= _EXACT_MAX_TOPICS) if exact is None else bool(exact)
                if ex and n > 30:
                    raise ValueError(f"exact randomization with {n} topics would enumerate 2**{n} sign vectors")
                used_exact = used_exact or ex
                stat, p = _randomization_kernel(Dg, n_samples, gen, ex)
                lo = hi = None
            else:  # bootstrap
                boot = _bootstrap_means(Dg, n_samples, gen)
                stat, p = Dg.mean(axis=1), _bootstrap_p(Dg, boot)
                lo = hi = None
            if ci == "bootstrap":
                if boot is None:
                    boot = _bootstrap_means(Dg, n_samples, gen)
                lo, hi = _percentile_ci(boot, alpha)
            elif lo is None:
                _, _, lo, hi = _t_kernel(Dg, alpha)
            res["statistic"][rows] = stat
            res["pvalue"][rows] = p
            res["ci_low"][rows] = lo
            res["ci_high"][rows] = hi
        padj = adjust_pvalues(res["pvalue"], correction)
        with np.errstate(invalid="ignore", divide="ignore"):
            Dn = np.where(mask, D, 0.0)
            mean = np.where(ntop > 0, Dn.sum(axis=1) / np.maximum(ntop, 1), np.nan)
            var = np.where(ntop > 1, ((Dn - mean[:, None]) ** 2 * mask).sum(axis=1) / np.maximum(ntop - 1, 1), np.nan)
            esize = mean / np.sqrt(var)
        wins = (D > 0).sum(axis=1).astype(float)
        losses = (D < 0).sum(axis=1).astype(float)
        ties = (D == 0).sum(axis=1).astype(float)
        out["statistic"][:, :, k] = _scatter(res["statistic"], cell_pair, cell_sign if antisym_stat else None)
        out["pvalue"][:, :, k] = _scatter(res["pvalue"], cell_pair)
        out["pvalue_adjusted"][:, :, k] = _scatter(padj, cell_pair)
        lo_c = _scatter(res["ci_low"], cell_pair)
        hi_c = _scatter(res["ci_high"], cell_pair)
        flip = cell_sign < 0
        out["ci_low"][:, :, k] = np.where(flip, -hi_c, lo_c)
        out["ci_high"][:, :, k] = np.where(flip, -lo_c, hi_c)
        out["effect"][:, :, k] = _scatter(mean, cell_pair, cell_sign)
        out["effect_size"][:, :, k] = _scatter(esize, cell_pair, cell_sign)
        w_c, l_c = _scatter(wins, cell_pair), _scatter(losses, cell_pair)
        out["wins"][:, :, k] = np.where(flip, l_c, w_c)
        out["losses"][:, :, k] = np.where(flip, w_c, l_c)
        out["ties"][:, :, k] = _scatter(ties, cell_pair)
        out["n_topics"][:, :, k] = _scatter(ntop.astype(float), cell_pair)

    sig = np.where(np.isnan(out["pvalue_adjusted"]), False, out["pvalue_adjusted"] < alpha)
    coords = {"system": list(systems), "other": list(others), "measure": list(c.indexes["measure"])}
    dims = ("system", "other", "measure")
    data_vars = {k: (dims, v) for k, v in out.items()}
    data_vars["significant"] = (dims, sig)
    ds = xr.Dataset(data_vars, coords=coords)
    ds = ds[["statistic", "pvalue", "pvalue_adjusted", "significant", "ci_low", "ci_high", "effect",
             "effect_size", "wins", "ties", "losses", "n_topics"]]
    ds.attrs = {"test": test, "correction": correction if correction else "none", "alpha": float(alpha),
                "n_samples": n_samples if test in ("randomization", "bootstrap") or ci == "bootstrap" else 0,
                "ci": ci, "confidence": float(1 - alpha), "missing": missing,
                "exact": int(used_exact), "family": "distinct unordered pairs per measure"}
    return _finish(ds, has_measure, c)


def _finish(ds: xr.Dataset, has_measure: bool, c: xr.DataArray) -> xr.Dataset:
    if not has_measure:
        label = c.indexes["measure"][0]
        ds = ds.isel(measure=0, drop=True)
        if label != "score":
            ds = ds.assign_coords(measure=label)
    return ds


# ---------------------------------------------------------------------------
# ANOVA and Tukey HSD
# ---------------------------------------------------------------------------

def _mask_missing(X: np.ndarray, missing: str) -> np.ndarray:
    """Apply a NaN policy to (S, T, ...) values keeping the shape: 'skip' leaves NaN, 'zero'
    fills 0, 'common' blanks every topic some system was not evaluated on."""
    if missing == "zero":
        return np.nan_to_num(X, nan=0.0)
    if missing == "common":
        return np.where(np.isnan(X).any(axis=0, keepdims=True), np.nan, X)
    if missing != "skip":
        raise ValueError(f"missing must be 'skip', 'zero' or 'common', got {missing!r}")
    return X


def _complete_topics(X: np.ndarray, missing: str) -> np.ndarray:
    """X (S, T) -> (S, T') with only topics every system was evaluated on."""
    if missing == "zero":
        return np.nan_to_num(X, nan=0.0)
    if missing == "error":
        if np.isnan(X).any():
            raise ValueError("cube has NaN (not evaluated) cells and missing='error'")
        return X
    if missing != "common":
        raise ValueError(f"missing must be 'common', 'zero' or 'error', got {missing!r}")
    return X[:, ~np.isnan(X).any(axis=0)]


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
    sse = (resid ** 2).sum()
    return ss_sys, ss_top, sse, df_res


def anova(cube, *, two_way: bool = True, missing: str = "common") -> pd.DataFrame:
    """ANOVA of scores: one-way (system) or two-way randomised blocks (system + topic).

    Parameters
    ----------
    cube : xarray.DataArray
        Scores ``(system, topic[, measure])``.
    two_way : bool
        Include topic as a blocking factor (no interaction), as in Tukey HSD for IR
        (Carterette; Sakai).  With one score per cell this is the only estimable model.
    missing : {"common", "zero", "error"}
        ``"common"`` keeps, per measure, the topics every system was evaluated on.

    Returns
    -------
    pandas.DataFrame
        One row per source (``system``, ``topic``, ``residual``) -- indexed by
        ``(measure, source)`` for a 3-D cube -- with columns ``df, sum_sq, mean_sq, F, pvalue``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import anova
    >>> x = np.array([[1., 2., 3.], [2., 2., 5.]])
    >>> cube = xr.DataArray(x, dims=("system", "topic"))
    >>> anova(cube)["df"].tolist()
    [1.0, 2.0, 2.0]
    """
    c, has_measure = _score_cube(cube)
    frames = {}
    for k, m in enumerate(c.indexes["measure"]):
        X = _complete_topics(c.values[:, :, k], missing)
        S, T = X.shape
        if T < 2:
            raise ValueError(f"ANOVA needs at least 2 topics evaluated for every system (measure {m!r} has {T})")
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
        frames[m] = pd.DataFrame(rows_out, columns=["source", "df", "sum_sq", "mean_sq", "F", "pvalue"]).set_index("source")
    if not has_measure:
        return next(iter(frames.values()))
    return pd.concat(frames, names=["measure", "source"])


def tukey_hsd(cube, *, two_way: bool = True, alpha: float = 0.05, missing: str = "common") -> xr.Dataset:
    """Tukey's honestly significant difference test for all pairs of systems.

    With ``two_way=True`` (default) the error term is the residual mean square of the
    randomised-blocks ANOVA ``score = system + topic + error`` (no interaction), with
    ``(S-1)(T-1)`` degrees of freedom -- the form used for IR test collections by
    Carterette (2012) and Sakai, and for discriminative power in the seed papers.
    With ``two_way=False`` it is the classic one-way test (MSE within systems,
    ``S(T-1)`` df), equal to :func:`scipy.stats.tukey_hsd` and statsmodels'
    ``pairwise_tukeyhsd``.

    For systems i, j: ``q = |mean_i - mean_j| / sqrt(MSE / T)`` and the p-value is
    ``P(Q > q)`` for the studentized range with ``S`` groups
    (:data:`scipy.stats.studentized_range`); the simultaneous confidence interval is
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
    missing : {"common", "zero", "error"}
        ``"common"`` keeps, per measure, only topics every system was evaluated on
        (the design must be balanced).

    Returns
    -------
    xarray.Dataset
        Dims ``(system, other[, measure])``: ``statistic`` (q), ``pvalue``,
        ``significant``, ``ci_low``, ``ci_high``, ``effect`` (``mean_system - mean_other``);
        per measure ``mse``, ``df`` and ``n_topics``.

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
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    c, has_measure = _score_cube(cube)
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
        X = _complete_topics(c.values[:, :, k], missing)
        T = X.shape[1]
        if T < 2:
            raise ValueError(f"Tukey HSD needs at least 2 topics evaluated for every system (measure {m!r} has {T})")
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
            pu = np.where(np.isfinite(uq), _st.studentized_range.sf(np.where(np.isfinite(uq), uq, 0), S, df_res), np.nan)
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
    ds = xr.Dataset(
        {"statistic": (dims, q), "pvalue": (dims, p),
         "significant": (dims, np.where(np.isnan(p), False, p < alpha)),
         "ci_low": (dims, lo), "ci_high": (dims, hi), "effect": (dims, eff),
         "mse": ("measure", mse_k), "df": ("measure", df_k), "n_topics": ("measure", nt_k)},
        coords={"system": systems, "other": systems, "measure": list(c.indexes["measure"])},
        attrs={"test": "tukey_hsd", "two_way": int(two_way), "alpha": float(alpha), "missing": missing,
               "correction": "none (family-wise by construction)"})
    return _finish(ds, has_measure, c)


# ---------------------------------------------------------------------------
# sign test on preference cubes
# ---------------------------------------------------------------------------

def _pref_cube(pref) -> xr.DataArray:
    if not isinstance(pref, xr.DataArray):
        raise TypeError(f"preference cube must be an xarray.DataArray, not {type(pref).__name__}")
    if set(pref.dims) != {"system", "other", "topic"}:
        raise ValueError(f"preference cube must have dims ('system', 'other', 'topic'); got {tuple(pref.dims)}")
    pref = pref.transpose("system", "other", "topic")
    v = np.asarray(pref.values)
    if v.dtype.kind == "f" and np.isnan(v).any():
        raise ValueError("preference cube holds NaN; values must be -1, 0 or +1")
    if not np.isin(v, (-1, 0, 1)).all():
        raise ValueError("preference cube values must be -1, 0 or +1")
    return pref


def sign_test(pref, *, correction: str | None = "holm", alpha: float = 0.05) -> xr.Dataset:
    """Two-sided binomial sign test for each pair of a preference cube.

    For each (system, other) cell, ``wins`` counts topics with +1, ``losses`` with -1,
    ``ties`` with 0; under H0 wins ~ Binomial(wins + losses, 1/2) (ties dropped).  The
    two-sided p-value equals :func:`scipy.stats.binomtest`'s and is computed for all
    cells at once with :data:`scipy.stats.binom` ``.cdf``.  The correction family is
    the distinct unordered pairs (the cube is expected to be antisymmetric, as
    lexirecall's is); a cell ``(b, a)`` gets the adjusted p-value of ``(a, b)``.

    Parameters
    ----------
    pref : xarray.DataArray
        Dims ``(system, other, topic)``, values in {-1, 0, +1}, +1 = system preferred.
    correction : {"holm", "bonferroni", "bh", None}
    alpha : float

    Returns
    -------
    xarray.Dataset
        Dims ``(system, other)``: ``wins, ties, losses``, ``statistic`` (wins / (wins +
        losses)), ``pvalue``, ``pvalue_adjusted``, ``significant``.

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
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")
    pref = _pref_cube(pref)
    v = np.asarray(pref.values)
    wins = (v == 1).sum(axis=2).astype(float)
    losses = (v == -1).sum(axis=2).astype(float)
    ties = (v == 0).sum(axis=2).astype(float)
    n = wins + losses
    k = np.minimum(wins, losses)
    with np.errstate(invalid="ignore"):
        pval = np.where(n > 0, np.minimum(1.0, 2 * _st.binom.cdf(k, n, 0.5)), 1.0)
        stat = np.where(n > 0, wins / np.where(n > 0, n, 1), np.nan)
    sys_l = [str(s) for s in pref.coords["system"].values] if "system" in pref.coords else [str(i) for i in range(v.shape[0])]
    oth_l = [str(s) for s in pref.coords["other"].values] if "other" in pref.coords else [str(i) for i in range(v.shape[1])]
    same = np.array([[a == b for b in oth_l] for a in sys_l], dtype=bool)
    pval = np.where(same, np.nan, pval)
    # family: distinct unordered label pairs, first occurrence represents the pair
    keys = {}
    rep = np.full(v.shape[:2], -1, dtype=np.intp)
    reps = []
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
    ds = xr.Dataset(
        {"wins": (("system", "other"), wins), "ties": (("system", "other"), ties),
         "losses": (("system", "other"), losses), "statistic": (("system", "other"), stat),
         "pvalue": (("system", "other"), pval), "pvalue_adjusted": (("system", "other"), padj),
         "significant": (("system", "other"), np.where(np.isnan(padj), False, padj < alpha))},
        coords={d: pref.coords[d] for d in ("system", "other") if d in pref.coords},
        attrs={"test": "sign", "correction": correction if correction else "none", "alpha": float(alpha)})
    return ds


# ---------------------------------------------------------------------------
# per-system means with confidence intervals
# ---------------------------------------------------------------------------

def mean_ci(cube, *, method: str = "t", alpha: float = 0.05, n_samples: int = 10_000, rng=None,
            missing: str = "skip") -> xr.Dataset:
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

    Returns
    -------
    xarray.Dataset
        Dims ``(system[, measure])``: ``mean``, ``ci_low``, ``ci_high``, ``n_topics``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import mean_ci
    >>> cube = xr.DataArray([[0.1, 0.3, 0.5], [0.2, 0.2, np.nan]], dims=("system", "topic"),
    ...                     coords={"system": ["a", "b"]})
    >>> mean_ci(cube)["mean"].round(3).values.tolist()
    [0.3, 0.2]
    """
    if method not in ("t", "bootstrap"):
        raise ValueError(f"method must be 't' or 'bootstrap', got {method!r}")
    c, has_measure = _score_cube(cube)
    X = _mask_missing(c.values, missing)
    gen = _rng(rng) if method == "bootstrap" else None
    S, T, K = X.shape
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
                b = _bootstrap_means(x[None, :], int(n_samples), gen)
                lo[s, k], hi[s, k] = (v[0] for v in _percentile_ci(b, alpha))
    dims = ("system", "measure")
    ds = xr.Dataset({"mean": (dims, mean), "ci_low": (dims, lo), "ci_high": (dims, hi), "n_topics": (dims, nt)},
                    coords={"system": list(c.indexes["system"]), "measure": list(c.indexes["measure"])},
                    attrs={"method": method, "alpha": float(alpha), "missing": missing})
    return _finish(ds, has_measure, c)
