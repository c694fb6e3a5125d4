"""Meta-evaluation: judging the measures themselves.

Functions take score cubes (``(system, topic, measure)`` DataArrays, NaN = not
evaluated) or preference cubes (``(system, other, topic)``, values in {-1, 0, +1}) and
return pandas / xarray objects.  Randomness only comes from ``rng=`` (a
`numpy.random.Generator` or int seed).  Inputs are never modified.

References: F. Diaz & B. Mitra, "Recall as a Measure of Ranking Robustness", arXiv:2302.11370v1
(2023; ACM TORS 2025 as "Recall, Robustness, and Lexicographic Evaluation", with M. Ekstrand);
E. Amigó, D. Spina & J. Carrillo-de-Albornoz, "An Axiomatic Analysis of Diversity Evaluation
Metrics", SIGIR 2018 (doi:10.1145/3209978.3210024); M. D. Türkmen, M. Lease & M. Kutlu, "New
Metrics to Encourage Innovation and Diversity in Information Retrieval Approaches", ECIR 2023; T. Breuer et al., "How to Measure the Reproducibility of
System-oriented IR Experiments", SIGIR 2020 (reproducibility).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal, overload

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats as _st

from ._scores import batch_coords, complete_topics, is_pref, mask_missing, score_cube
from .agreement import (
    cohen_kappa,
    decision_flips,
    krippendorff_alpha,
    label_agreement,
    label_confusion,
    qrels_agreement,
    rbo,
    tau_ap,
    tau_b,
)
from .cube import result
from .degradation import degrade_qrels, label_degradation
from .errors import InputError, OptionError, ShapeError, UnknownSystemError
from .options import make_rng
from .params import ALPHA, COUNT, DRAWS, FUZZINESS, check_flag
from .reproducibility import reproducibility
from .stats import compare, sign_test, tukey_hsd

__all__ = [
    "cohen_kappa",
    "correlation_matrix",
    "decision_flips",
    "degrade_qrels",
    "discriminative_power",
    "kendall_tau",
    "krippendorff_alpha",
    "label_agreement",
    "label_confusion",
    "label_degradation",
    "metric_unanimity",
    "qrels_agreement",
    "rbo",
    "reproducibility",
    "stability",
    "swap_rate",
    "tau_ap",
    "tau_b",
]


# ---------------------------------------------------------------------------
# discriminative power
# ---------------------------------------------------------------------------


def discriminative_power(
    cube,
    *,
    test: str = "tukey",
    alpha: float = 0.05,
    correction="auto",
    n_samples: int = 10_000,
    rng=None,
    missing: str = "skip",
    two_way: bool = True,
    dim: str = "topic",
) -> pd.DataFrame:
    """Fraction of system pairs a significance test separates (discriminative power).

    Parameters
    ----------
    cube : xarray.DataArray
        A score cube ``(system, topic[, measure])`` or a preference cube
        ``(system, other, topic)`` (lexirecall); a preference cube always uses the
        binomial sign test (Diaz & Mitra 2023: binomial tests with Holm's correction).
    test : {"tukey", "t", "wilcoxon", "randomization", "bootstrap"}
        ``"tukey"`` is the randomised-blocks Tukey HSD of
        [`irframe.stats.tukey_hsd`][irframe.stats.tukey_hsd] (Turkmen et al., ECIR 2023, Table 1); the others are the paired
        tests of [`irframe.stats.compare`][irframe.stats.compare] over all pairs.
    alpha : float
        Significance level (Turkmen et al., ECIR 2023 report 0.05 and 0.01).
    correction : str or None
        ``"auto"``, or a correction of
        [`irframe.stats.adjust_pvalues`][irframe.stats.adjust_pvalues], or None.
        ``"auto"``: Holm for preference cubes (as in Diaz & Mitra 2023), none for paired tests
        (Sakai's protocol, SIGIR 2006); Tukey HSD is family-wise by construction and ignores it.
    n_samples, rng, missing, two_way
        Passed to the underlying test.
    dim : str
        The topic dim of a score cube; every dim other than system and topic (measure,
        qrels, ...) is broadcast over.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``measure`` (a MultiIndex over the broadcast dims when there are
        several) with columns ``significant`` (number of distinct unordered
        pairs), ``pairs`` (S(S-1)/2) and ``power`` (their ratio).

    See Also
    --------
    - [`discriminative_power`][irframe.meta.discriminative_power], [`stability`][irframe.meta.stability], [`swap_rate`][irframe.meta.swap_rate]: the three views of a measure's reliability.
    - [Statistics and meta-evaluation](../stats.md): the guide.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.meta import discriminative_power
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(4, 40)) + np.arange(4)[:, None] * 0.5
    >>> cube = xr.DataArray(x[:, :, None], dims=("system", "topic", "measure"),
    ...                     coords={"system": list("abcd"), "measure": ["AP"]})
    >>> discriminative_power(cube, test="tukey").loc["AP", "pairs"]
    np.int64(6)
    """
    two_way = check_flag("two_way", two_way)
    alpha = ALPHA.check("alpha", alpha)
    n_samples = DRAWS.check("n_samples", n_samples)
    if is_pref(cube):
        corr = "holm" if correction == "auto" else correction
        res = sign_test(cube, correction=corr, alpha=alpha)
        sig = res.significant.values
        labels_s = [str(s) for s in res.coords["system"].values] if "system" in res.coords else None
        labels_o = [str(s) for s in res.coords["other"].values] if "other" in res.coords else None
        seen, nsig = set(), 0
        for i in range(sig.shape[0]):
            for j in range(sig.shape[1]):
                a = labels_s[i] if labels_s else str(i)
                b = labels_o[j] if labels_o else str(j)
                if a == b:
                    continue
                key = (min(a, b), max(a, b))
                if key in seen:
                    continue
                seen.add(key)
                nsig += bool(sig[i, j])
        name = cube.name if cube.name is not None else "preference"
        df = pd.DataFrame(
            {"significant": [nsig], "pairs": [len(seen)]}, index=pd.Index([name], name="measure")
        )
        df["power"] = df["significant"] / df["pairs"]
        return df
    if test == "tukey":
        res = tukey_hsd(cube, alpha=alpha, missing=missing, two_way=two_way, dim=dim)
    else:
        corr = None if correction == "auto" else correction
        res = compare(
            cube,
            None,
            test=test,
            correction=corr,
            alpha=alpha,
            n_samples=n_samples,
            rng=rng,
            missing=missing,
            dim=dim,
        )
    sig = res.significant
    batch = [d for d in sig.dims if d not in ("system", "other")]
    if not batch:
        label = sig.coords["measure"].item() if "measure" in sig.coords else "score"
        sig, batch = sig.expand_dims(measure=[label]), ["measure"]
    sig = sig.transpose("system", "other", *batch).stack(_batch=batch)
    iu = np.triu_indices(sig.sizes["system"], 1)
    nsig = sig.values[iu[0], iu[1], :].sum(axis=0)
    index = sig.indexes["_batch"]
    index = index.get_level_values(0).rename(batch[0]) if len(batch) == 1 else index
    df = pd.DataFrame(
        {"significant": nsig.astype(np.int64), "pairs": np.int64(len(iu[0]))}, index=index
    )
    df["power"] = df["significant"] / df["pairs"]
    return df


# ---------------------------------------------------------------------------
# stability and swap rate
# ---------------------------------------------------------------------------


def _pair_outcomes(means: np.ndarray, fuzziness: float):
    """means (S, R) -> (U, R) int8 outcome for pairs i<j: +1 i better, -1 j better, 0 tie."""
    S = means.shape[0]
    iu = np.triu_indices(S, 1)
    a, b = means[iu[0]], means[iu[1]]
    diff = a - b
    thr = fuzziness * np.maximum(np.abs(a), np.abs(b))
    out = np.sign(diff).astype(np.int8)
    out[np.abs(diff) <= thr] = 0
    return out, iu


@overload
def stability(
    cube: xr.DataArray,
    *,
    n_trials: int = ...,
    n_topics: int | None = ...,
    rng: Any = ...,
    fuzziness: float = ...,
    missing: str = ...,
    per_pair: Literal[False] = ...,
    dim: str = ...,
) -> pd.DataFrame: ...
@overload
def stability(
    cube: xr.DataArray,
    *,
    n_trials: int = ...,
    n_topics: int | None = ...,
    rng: Any = ...,
    fuzziness: float = ...,
    missing: str = ...,
    per_pair: Literal[True],
    dim: str = ...,
) -> tuple[pd.DataFrame, xr.Dataset]: ...
def stability(
    cube: xr.DataArray,
    *,
    n_trials: int = 1000,
    n_topics: int | None = None,
    rng: Any = None,
    fuzziness: float = 0.0,
    missing: str = "skip",
    per_pair: bool = False,
    dim: str = "topic",
) -> pd.DataFrame | tuple[pd.DataFrame, xr.Dataset]:
    """Stability of pairwise system orderings under topic subsampling.

    Follows Türkmen et al., ECIR 2023, §4.4 (after Buckley & Voorhees, SIGIR 2000): in each of
    ``n_trials`` trials draw ``n_topics`` topics without replacement (default: half the
    topics, rounded down), average each system over them, and record for each pair of
    systems which one scores higher.  The stability of a pair is the fraction of trials
    won by the system that wins most often (a pair that is 700/1000 one way has
    stability 0.7; tied trials count for neither side); a measure's stability is the
    mean over all unordered pairs.

    Parameters
    ----------
    cube : xarray.DataArray
        Scores ``(system, topic[, measure])``.
    n_trials : int
        Number of topic subsets R (Turkmen et al., ECIR 2023: 1000).
    n_topics : int, optional
        Topics per subset T (Turkmen et al., ECIR 2023: half of the topics).
    rng : numpy.random.Generator or int, optional
        The same subsets are used for every measure.
    fuzziness : float
        Relative difference below which two means count as tied
        (``|a - b| <= fuzziness * max(|a|, |b|)``; Buckley & Voorhees used 0.05).  0 = exact.
    missing : {"skip", "common", "zero", "error"}
        Not-evaluated (NaN) cells (`irframe.options.MISSING`): this method needs a complete
        system × topic block, so ``"skip"`` (default) and ``"common"`` keep, per measure, the
        topics every system was evaluated on; ``"zero"`` counts NaN as 0; ``"error"`` raises.
    per_pair : bool
        Also return per-pair ``wins``/``losses``/``ties`` as an xarray Dataset.
    dim : str
        The topic dim; other dims than system and topic are broadcast over (the
        table is then indexed by all of them).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``measure``: ``stability``, ``swap_rate`` (Buckley & Voorhees error
        rate: sum over pairs of the minority count / (pairs x trials)), ``tie_rate``,
        ``pairs``, ``n_topics``, ``n_trials``.  With ``per_pair=True`` a tuple
        ``(table, Dataset)``.

    See Also
    --------
    - [`discriminative_power`][irframe.meta.discriminative_power], [`stability`][irframe.meta.stability], [`swap_rate`][irframe.meta.swap_rate]: the three views of a measure's reliability.
    - [Statistics and meta-evaluation](../stats.md): the guide.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.meta import stability
    >>> x = np.array([[0.5] * 10, [0.1] * 10, list(np.linspace(0, 1, 10))])
    >>> cube = xr.DataArray(x, dims=("system", "topic"), coords={"system": ["a", "b", "c"]})
    >>> stability(cube, n_trials=200, rng=0).loc["score", "stability"] < 1
    np.True_
    """
    per_pair = check_flag("per_pair", per_pair)
    n_trials = DRAWS.check("n_trials", n_trials)
    fuzziness = FUZZINESS.check("fuzziness", fuzziness)
    gen = make_rng(rng)
    c, layout = score_cube(cube, dim=dim)
    T_all = c.sizes["topic"]
    if T_all < 2:
        raise InputError(f"stability needs at least 2 topics, the cube has {T_all}")
    # one set of random keys shared by all measures -> reproducible and comparable; drawn
    # (and used) in blocks of trials, so memory does not grow with n_trials
    R = int(n_trials)
    S, K = c.sizes["system"], c.sizes["measure"]
    step = _trial_block(S, T_all)
    parts = [
        (m, *_stability_setup(c.values[:, :, k], m, n_topics, missing))
        for k, m in enumerate(c.indexes["measure"])
    ]
    counts: list[Any] = [None] * K  # per measure: (wins, losses, ties) summed over blocks
    for a in range(0, R, step):
        keys = gen.random((min(R, a + step) - a, T_all))
        for k, (_, X, keep, nt) in enumerate(parts):
            w, l_, t = _stability_block(X, keep, nt, keys, fuzziness)
            counts[k] = (
                (w, l_, t)
                if counts[k] is None
                else tuple(x + y for x, y in zip(counts[k], (w, l_, t), strict=True))
            )
    rows, pair_ds = [], []
    systems = list(c.indexes["system"])
    for k, (m, _X, _keep, nt) in enumerate(parts):
        wins, losses, ties = counts[k]
        iu = np.triu_indices(S, 1)
        row = _stability_row(m, wins, losses, ties, nt, R)
        rows.append(row)
        if per_pair:
            S = len(systems)
            mat = {n: np.full((S, S), np.nan) for n in ("wins", "losses", "ties")}
            for n, v, vt in (
                ("wins", wins, losses),
                ("losses", losses, wins),
                ("ties", ties, ties),
            ):
                mat[n][iu] = v
                mat[n].T[iu] = vt
            pair_ds.append(mat)
    table = pd.DataFrame(rows).set_index("measure")
    table.index = layout.frame_index(table.index)
    if per_pair:
        dims = ("system", "other", "measure")
        ds = xr.Dataset(
            {
                n: (dims, np.stack([m[n] for m in pair_ds], axis=-1))
                for n in ("wins", "losses", "ties")
            },
            coords={"system": systems, "other": systems},
        )
        ds = ds.assign_coords(batch_coords(c))
        ds["stability"] = (dims, np.maximum(ds.wins.values, ds.losses.values) / int(n_trials))
        return table, result(
            layout.restore(ds),
            computed="irframe.meta.stability",
            parameters={
                "n_trials": int(n_trials),
                "n_topics": n_topics,
                "fuzziness": float(fuzziness),
                "missing": missing,
                "per_pair": per_pair,
                "dim": dim,
            },
        )
    return table


def _complete_block(X0: np.ndarray, missing: str) -> tuple[np.ndarray, np.ndarray]:
    """`complete_topics` of X0 (S, T) and which of the T topics it kept (all of them
    for 'zero' and 'error'), to index the random keys drawn over every topic."""
    X = complete_topics(X0, missing)
    keep = (
        ~np.isnan(X0).any(axis=0) if missing in ("common", "skip") else np.ones(X0.shape[1], bool)
    )
    return X, keep


def _trial_block(S: int, T: int) -> int:
    """Trials per block: keys and topic weights (B, T), means (S, B) and pair outcomes (U, B)
    stay within ``_TRIAL_ELEMENTS`` elements."""
    U = S * (S - 1) // 2
    return max(1, _TRIAL_ELEMENTS // (2 * T + S + U))


_TRIAL_ELEMENTS = 4_000_000


def _stability_setup(X0: np.ndarray, m, n_topics, missing: str):
    """One measure's complete block, the kept topics and the subset size."""
    X, keep = _complete_block(X0, missing)
    T = X.shape[1]
    nt = T // 2 if n_topics is None else COUNT.check("n_topics", n_topics)
    if T < 2 or not 1 <= nt <= T:
        raise InputError(f"measure {m!r}: cannot draw {nt} topics from {T} complete topics")
    return X, keep, nt


def _stability_block(X, keep, nt: int, keys: np.ndarray, fuzziness: float):
    """Wins, losses and ties per pair over one block of trials (keys (B, T_all))."""
    B = keys.shape[0]
    sel = np.argsort(keys[:, keep], axis=1)[:, :nt]
    W = np.zeros((B, X.shape[1]))
    np.put_along_axis(W, sel, 1.0, axis=1)
    out, _ = _pair_outcomes(X @ W.T / nt, fuzziness)  # (U, B)
    return (out > 0).sum(axis=1), (out < 0).sum(axis=1), (out == 0).sum(axis=1)


def _stability_row(m, wins, losses, ties, nt: int, R: int) -> dict:
    return {
        "measure": m,
        "stability": float(np.mean(np.maximum(wins, losses) / R)),
        "swap_rate": float(np.minimum(wins, losses).sum() / (len(wins) * R)),
        "tie_rate": float(ties.sum() / (len(wins) * R)),
        "pairs": len(wins),
        "n_topics": nt,
        "n_trials": R,
    }


def swap_rate(
    cube,
    *,
    n_splits: int = 1000,
    topic_set_size: int | None = None,
    rng=None,
    fuzziness: float = 0.0,
    missing: str = "skip",
    dim: str = "topic",
) -> pd.DataFrame:
    """Swap rate between disjoint topic sets (Voorhees & Buckley, SIGIR 2002).

    Each split draws two *disjoint* topic sets of ``topic_set_size`` topics (default:
    half the topics, rounded down); a pair of systems swaps when the two sets order it
    strictly in opposite directions (differences within ``fuzziness`` count as ties and
    never swap).

    Parameters
    ----------
    cube : xarray.DataArray
        Score cube ``(system, topic[, measure])``.
    n_splits : int
        Random pairs of disjoint topic sets.
    topic_set_size : int, optional
        Topics per set (default: half the topics).
    rng : numpy.random.Generator, int or None
        Source of randomness.
    fuzziness : float
        Differences at most this large are ties.
    missing : {"skip", "common", "zero", "error"}
        Not-evaluated (NaN) cells.
    dim : str
        The topic dim.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``measure``: ``swap_rate`` (swaps / (pairs x splits)), ``tie_rate``
        (fraction of (pair, set) outcomes that are ties), ``pairs``, ``topic_set_size``,
        ``n_splits``.

    See Also
    --------
    - [`discriminative_power`][irframe.meta.discriminative_power], [`stability`][irframe.meta.stability], [`swap_rate`][irframe.meta.swap_rate]: the three views of a measure's reliability.
    - [Statistics and meta-evaluation](../stats.md): the guide.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.meta import swap_rate
    >>> x = np.array([[0.9] * 10, [0.1] * 10])
    >>> cube = xr.DataArray(x, dims=("system", "topic"))
    >>> float(swap_rate(cube, n_splits=50, rng=0).loc["score", "swap_rate"])
    0.0
    """
    n_splits = DRAWS.check("n_splits", n_splits)
    fuzziness = FUZZINESS.check("fuzziness", fuzziness)
    gen = make_rng(rng)
    c, layout = score_cube(cube, dim=dim)
    T_all = c.sizes["topic"]
    R = int(n_splits)
    parts = []
    for k, m in enumerate(c.indexes["measure"]):
        X, keep = _complete_block(c.values[:, :, k], missing)
        T = X.shape[1]
        size = T // 2 if topic_set_size is None else COUNT.check("topic_set_size", topic_set_size)
        if size < 1 or 2 * size > T:
            raise InputError(
                f"measure {m!r}: two disjoint sets of {size} topics need {2 * size} topics, have {T}"
            )
        parts.append((m, X, keep, size, [0, 0]))  # swaps, ties
    S = c.sizes["system"]
    step = max(1, _trial_block(S, T_all) // 2)  # two sets of weights and outcomes per split
    for a in range(0, R, step):
        keys = gen.random((min(R, a + step) - a, T_all))  # drawn in blocks: the same stream
        for _m, X, keep, size, acc in parts:
            order = np.argsort(keys[:, keep], axis=1)
            W1 = np.zeros((keys.shape[0], X.shape[1]))
            W2 = np.zeros_like(W1)
            np.put_along_axis(W1, order[:, :size], 1.0, axis=1)
            np.put_along_axis(W2, order[:, size : 2 * size], 1.0, axis=1)
            o1, _ = _pair_outcomes(X @ W1.T / size, fuzziness)
            o2, _ = _pair_outcomes(X @ W2.T / size, fuzziness)
            acc[0] += int((o1 * o2 < 0).sum())
            acc[1] += int((o1 == 0).sum() + (o2 == 0).sum())
    rows = []
    n_splits = R
    for m, _X, _keep, size, (swaps, tie_count) in parts:
        U = S * (S - 1) // 2
        rows.append(
            {
                "measure": m,
                "swap_rate": float(swaps / (U * n_splits)),
                "tie_rate": float(tie_count / (2 * U * n_splits)),
                "pairs": U,
                "topic_set_size": size,
                "n_splits": int(n_splits),
            }
        )
    table = pd.DataFrame(rows).set_index("measure")
    table.index = layout.frame_index(table.index)
    return table


# ---------------------------------------------------------------------------
# Kendall tau
# ---------------------------------------------------------------------------


def _as_scores(x, name):
    if isinstance(x, xr.DataArray):
        if x.ndim != 1:
            raise ShapeError(f"{name} must be 1-D (one score per system), got dims {x.dims}")
        idx = x.indexes[x.dims[0]] if x.dims[0] in x.coords else None
        return pd.Series(np.asarray(x.values, float), index=idx)
    if isinstance(x, pd.Series):
        return x.astype(float)
    if isinstance(x, dict):
        return pd.Series(x, dtype=float)
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1:
        raise ShapeError(f"{name} must be 1-D (one score per system)")
    return pd.Series(arr)


def _align_scores(a, b):
    sa, sb = _as_scores(a, "a"), _as_scores(b, "b")
    labelled = not isinstance(sa.index, pd.RangeIndex) and not isinstance(sb.index, pd.RangeIndex)
    if labelled:
        if set(sa.index) != set(sb.index):
            raise UnknownSystemError(
                f"a and b rank different systems: only in a {sorted(set(sa.index) - set(sb.index))[:5]}, "
                f"only in b {sorted(set(sb.index) - set(sa.index))[:5]}"
            )
        sb = sb.reindex(sa.index)
    elif len(sa) != len(sb):
        raise InputError(f"a and b have different lengths ({len(sa)} and {len(sb)})")
    x, y = sa.to_numpy(float), sb.to_numpy(float)
    ok = ~(np.isnan(x) | np.isnan(y))
    return x[ok], y[ok]


def kendall_tau(a, b, *, variant: str = "b", symmetric: bool = False) -> float:
    """Kendall's rank correlation between two system orderings.

    Parameters
    ----------
    a, b : pandas.Series, 1-D xarray.DataArray, dict or array_like
        Scores per system (higher = better).  Labelled inputs are aligned by system;
        systems with NaN in either are dropped.
    variant : {"a", "b", "ap"}
        ``"a"``: (concordant - discordant) / (n (n-1) / 2), ties count as neither;
        ``"b"``: tau-b, adjusted for ties (`scipy.stats.kendalltau`);
        ``"ap"``: tau-AP of Yilmaz, Aslam & Robertson (SIGIR 2008), which weights errors
        near the top more: ``2/(n-1) * sum_{i=2..n} C(i)/(i-1) - 1`` where ``C(i)`` is the
        number of systems ranked above position ``i`` by ``a`` that ``b`` also ranks above
        it.  ``a`` is the ranking under test and ``b`` the reference; ties count 1/2, and
        systems tied in ``a`` are averaged over their orders (see [`tau_ap`][irframe.agreement.tau_ap]).
    symmetric : bool
        For ``"ap"``: average tau-AP(a, b) and tau-AP(b, a).

    Returns
    -------
    float

    See Also
    --------
    - [`correlation_matrix`][irframe.meta.correlation_matrix]: every pair of measures.
    - [`rbo`][irframe.agreement.rbo], [`tau_ap`][irframe.agreement.tau_ap]: top-weighted agreement.

    Examples
    --------
    >>> from irframe.meta import kendall_tau
    >>> truth = {"A": 4, "B": 3, "C": 2, "D": 1}
    >>> kendall_tau({"A": 3, "B": 4, "C": 2, "D": 1}, truth, variant="a")   # swap at the top
    0.6666666666666666
    >>> round(kendall_tau({"A": 3, "B": 4, "C": 2, "D": 1}, truth, variant="ap"), 4)
    0.3333
    >>> round(kendall_tau({"A": 4, "B": 3, "C": 1, "D": 2}, truth, variant="ap"), 4)  # swap at the bottom
    0.7778
    """
    symmetric = check_flag("symmetric", symmetric)
    x, y = _align_scores(a, b)
    n = x.size
    if n < 2:
        raise InputError(f"Kendall's tau needs at least 2 systems, got {n}")
    if variant == "b":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(_st.kendalltau(x, y).statistic)
    if variant == "a":
        iu = np.triu_indices(n, 1)
        s = np.sign(x[iu[0]] - x[iu[1]]) * np.sign(y[iu[0]] - y[iu[1]])
        return float(s.sum() / len(s))
    if variant == "ap":
        t = tau_ap(x, y)
        return float((t + tau_ap(y, x)) / 2) if symmetric else float(t)
    raise OptionError(f"variant must be 'a', 'b' or 'ap', got {variant!r}")


_CORR_METHODS = ("kendall", "tau_a", "tau_ap", "spearman", "pearson")


def correlation_matrix(
    cube, *, method: str = "kendall", missing: str = "skip", dim: str = "topic"
) -> xr.DataArray:
    """Correlation between the system orderings induced by each pair of measures.

    Systems are ordered by their mean score per measure.

    Parameters
    ----------
    cube : xarray.DataArray
        Scores ``(system, topic, measure)``.
    method : {"kendall", "tau_a", "tau_ap", "spearman", "pearson"}
        ``"kendall"`` is tau-b.  ``"tau_ap"`` is asymmetric: entry ``[m1, m2]`` is
        tau-AP of the ordering by ``m1`` against the reference ordering by ``m2``.
    missing : {"skip", "zero", "common"}
        How system means treat NaN: skip them, count them as 0, or use only topics
        every system was evaluated on (per measure).
    dim : str
        The topic dim.  Dims other than system and topic are flattened into one list
        of orderings (e.g. every measure under every qrels set), labelled by joining
        the labels with ``"/"`` (``"AP/nist"``).

    Returns
    -------
    xarray.DataArray
        Dims ``("measure", "other_measure")``.

    See Also
    --------
    - [`kendall_tau`][irframe.meta.kendall_tau]: one pair of orderings.
    - [`correlation_heatmap`][irframe.plot.correlation_heatmap]: draw the matrix.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.meta import correlation_matrix
    >>> x = np.random.default_rng(0).uniform(size=(6, 5, 2))
    >>> cube = xr.DataArray(x, dims=("system", "topic", "measure"), coords={"measure": ["AP", "P@10"]})
    >>> round(correlation_matrix(cube).sel(measure="AP", other_measure="AP").item(), 6)
    1.0
    """
    if method not in _CORR_METHODS:
        raise OptionError(f"method must be one of {_CORR_METHODS}, got {method!r}")
    c, layout = score_cube(cube, dim=dim)
    X = mask_missing(c.values, missing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        means = np.nanmean(X, axis=1)  # (S, K)
    K = means.shape[1]
    out = np.full((K, K), np.nan)
    for i in range(K):
        for j in range(K):
            x, y = means[:, i], means[:, j]
            ok = ~(np.isnan(x) | np.isnan(y))
            if ok.sum() < 2:
                continue
            x, y = x[ok], y[ok]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if method == "kendall":
                    out[i, j] = _st.kendalltau(x, y).statistic
                elif method == "tau_a":
                    out[i, j] = kendall_tau(x, y, variant="a")
                elif method == "tau_ap":
                    out[i, j] = tau_ap(x, y)
                elif method == "spearman":
                    out[i, j] = _st.spearmanr(x, y).statistic
                else:
                    out[i, j] = (
                        _st.pearsonr(x, y).statistic if np.ptp(x) > 0 and np.ptp(y) > 0 else np.nan
                    )
    labels = list(c.indexes["measure"])
    if layout.stacked:
        labels = ["/".join(map(str, t)) for t in labels]
    return result(
        out,
        ("measure", "other_measure"),
        {"measure": labels, "other_measure": labels},
        name=method,
        computed="irframe.meta.correlation_matrix",
        parameters={"method": method, "missing": missing, "dim": dim},
    )


# ---------------------------------------------------------------------------
# Metric Unanimity
# ---------------------------------------------------------------------------


def _stack_measures(cube, dims):
    """Return (DataArray (system, topic, measure), unstack function)."""
    if not isinstance(cube, xr.DataArray):
        raise ShapeError(f"cube must be an xarray.DataArray, not {type(cube).__name__}")
    missing = {"system", "topic"} - set(cube.dims)
    if missing:
        raise ShapeError(
            f"cube must have dims 'system' and 'topic' plus the measure dim(s); got {tuple(cube.dims)}"
        )
    if dims is None:
        dims = [d for d in cube.dims if d not in ("system", "topic")]
    elif isinstance(dims, str):
        dims = [dims]
    else:
        dims = list(dims)
    extra = [d for d in cube.dims if d not in ("system", "topic") and d not in dims]
    if extra:
        raise ShapeError(
            f"cube has dims {extra} that are neither system/topic nor measure dims {dims}"
        )
    if not dims:
        raise InputError(
            "metric unanimity needs several measures: the cube has only dims (system, topic)"
        )
    for d in dims:
        if d not in cube.coords:
            cube = cube.assign_coords({d: np.arange(cube.sizes[d])})
    if dims == ["measure"]:
        return cube.transpose("system", "topic", "measure"), (lambda da: da)
    stacked = cube.stack(measure=dims).transpose("system", "topic", "measure")

    def unstack(da):
        return da.unstack("measure")

    return stacked, unstack


def _measure_positions(labels: pd.Index, sel, what: str) -> np.ndarray:
    """Positions of the selected measures (all when ``sel`` is None) on the measure axis."""
    if sel is None:
        return np.arange(len(labels))
    sel = [sel] if isinstance(sel, (str, tuple)) else list(sel)
    pos = []
    for s in sel:
        hits = (
            np.flatnonzero(labels == s)
            if not isinstance(labels, pd.MultiIndex)
            else np.flatnonzero(labels.isin([s]))
        )
        if hits.size == 0:
            raise UnknownSystemError(
                f"{what} {s!r} is not a measure of the cube; available: {list(labels)}"
            )
        pos.extend(hits.tolist())
    return np.array(sorted(set(pos)))


def _unanimity_counts(
    X: np.ndarray, in_ref: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Over ordered pairs of system outputs with every score: per measure m, the counts of
    joint improvement (d_m and unanimity of the reference set without m), of d_m (ties 1/2)
    and of unanimity, and the number of pairs; blocks of topics bound the memory."""
    valid = ~np.isnan(X).any(axis=2)  # (S, T)
    S, T, K = X.shape
    joint = np.zeros(K)
    pm = np.zeros(K)
    pM = np.zeros(K)
    n_pairs = 0
    offdiag = ~np.eye(S, dtype=bool)
    step = max(1, 2_000_000 // max(S * S * K, 1))
    for a in range(0, T, step):
        xb = X[:, a : a + step, :]  # (S, t, K)
        vb = valid[:, a : a + step]  # (S, t)
        pair_ok = vb[:, None, :] & vb[None, :, :] & offdiag[:, :, None]  # (S, S, t)
        xi, xj = xb[:, None, :, :], xb[None, :, :, :]  # (S, 1, t, K), (1, S, t, K)
        ge = xi >= xj
        imp = (xi > xj) + 0.5 * (xi == xj)  # dm with the 0.5 tie rule
        n_ge = (ge & in_ref).sum(axis=3)  # (S, S, t)
        n_ref = in_ref.sum()
        # unanimity of M \ {m}: all reference measures other than m (by position)
        dM = (n_ge[..., None] - (ge & in_ref)) == (n_ref - in_ref)  # (S, S, t, K)
        dM &= pair_ok[..., None]
        ok = pair_ok[..., None]
        n_pairs += int(pair_ok.sum())
        pm += (imp * ok).sum(axis=(0, 1, 2))
        pM += dM.sum(axis=(0, 1, 2))
        joint += (imp * dM).sum(axis=(0, 1, 2))
    return joint, pm, pM, n_pairs


def metric_unanimity(
    cube, measures=None, *, others=None, base: float = 2, level: str = "topic", dims=None
) -> xr.DataArray:
    """Metric Unanimity (MU) of each measure with respect to the others (Amigó et al., SIGIR 2018, §6.1).

    Over ordered pairs ``(i, j)`` of distinct system outputs, let ``dm`` be the
    improvement of ``i`` over ``j`` reported by measure ``m`` (1 if ``m(i) > m(j)``,
    0.5 if tied -- footnote 9 of Amigó et al., SIGIR 2018, which makes ``P(dm) = 1/2`` -- 0 otherwise) and
    ``dM`` the unanimous improvement reported by the reference set ``M``
    (``m'(i) >= m'(j)`` for every ``m'`` in ``M``).  Then

    ``MU_M(m) = log_base( P(dm, dM) / (P(dm) P(dM)) )``,

    the pointwise mutual information.  The worked example of Amigó et al., SIGIR 2018 gives 0.415 (base 2).

    Parameters
    ----------
    cube : xarray.DataArray
        Scores with dims ``system``, ``topic`` and one or more measure dims, e.g.
        ``(system, topic, measure)`` or a C x A grid ``(system, topic, C, A)``; several
        measure dims are flattened into one measure set and unflattened in the result.
    measures : list, optional
        Labels (of the ``measure`` dim) to compute MU for; default all.
    others : list, optional
        Reference set ``M``.  Default: every measure of the cube.  A measure is never
        part of its own reference set (excluded by position, so duplicated labels count
        as distinct measures).  A measure whose reference set would be empty gets NaN
        (an error if it was asked for explicitly in ``measures``).
    base : float
        Logarithm base (2 in Amigó et al., SIGIR 2018).
    level : {"topic", "system"}
        ``"topic"`` (default, as in Amigó et al., SIGIR 2018: "MU ... work[s] at topic (query) level"):
        system outputs are (system, topic) rankings and pairs are two systems on the
        same topic, pooled over topics.  ``"system"``: outputs are systems scored by
        their mean over topics.
    dims : str or list of str, optional
        The measure dim(s); default every dim other than system and topic.

    Returns
    -------
    xarray.DataArray
        MU per measure (named ``"MU"``), with attrs ``base``, ``level`` and ``n_pairs``
        (ordered pairs counted).  A (system, topic) output with NaN in any measure is
        left out for all measures, so every measure is judged on the same pairs.  MU is
        NaN when no pair is unanimously improved (``P(dM) = 0``).

    See Also
    --------
    - [`correlation_matrix`][irframe.meta.correlation_matrix]: agreement between measures on system orderings.

    Examples
    --------
    The worked example of Amigó et al., SIGIR 2018 (three systems, one topic):

    >>> import numpy as np, xarray as xr
    >>> from irframe.meta import metric_unanimity
    >>> x = np.array([[1, 0.8, 1], [0.5, 0.3, 0.2], [0.2, 0.4, 0.5]])[:, None, :]
    >>> cube = xr.DataArray(x, dims=("system", "topic", "measure"),
    ...                     coords={"system": ["S1", "S2", "S3"], "measure": ["m1", "m2", "m3"]})
    >>> metric_unanimity(cube).round(3).values.tolist()
    [0.415, 1.0, 1.0]
    """
    if level not in ("topic", "system"):
        raise OptionError(f"level must be 'topic' or 'system', got {level!r}")
    if not base > 0 or base == 1:
        raise OptionError(f"base must be positive and != 1, got {base}")
    stacked, unstack = _stack_measures(cube, dims)
    X = np.array(stacked.values, dtype=np.float64, copy=True)  # (S, T, K)
    labels = stacked.indexes["measure"]
    K = X.shape[2]
    if K < 2:
        raise InputError("metric unanimity needs at least 2 measures")
    if X.shape[0] < 2:
        raise InputError("metric unanimity needs at least 2 systems")

    target = _measure_positions(labels, measures, "measure")
    ref = _measure_positions(labels, others, "reference measure")
    in_ref = np.zeros(K, bool)
    in_ref[ref] = True

    if level == "system":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            X = np.nanmean(X, axis=1, keepdims=True)
    joint, pm, pM, n_pairs = _unanimity_counts(X, in_ref)
    n_ref_m = in_ref.sum() - in_ref
    if measures is not None and (n_ref_m[target] == 0).any():
        raise InputError(
            "the reference set is empty for some measure (it only contains the measure itself)"
        )
    if n_pairs == 0:
        raise InputError("no pair of system outputs has scores for every measure")
    with np.errstate(divide="ignore", invalid="ignore"):
        P_joint, P_m, P_M = joint / n_pairs, pm / n_pairs, pM / n_pairs
        mu = np.log(P_joint / (P_m * P_M)) / math.log(base)
    mu = np.where((P_M > 0) & (n_ref_m > 0), mu, np.nan)
    res = xr.DataArray(
        mu, dims=("measure",), coords={"measure": stacked.coords["measure"]}, name="MU"
    )
    res = res.isel(measure=target)
    res = unstack(res) if len(target) == K else res
    return result(
        res,
        computed="irframe.meta.metric_unanimity",
        parameters={"base": float(base), "level": level},
        attrs={"n_pairs": n_pairs},
    )
