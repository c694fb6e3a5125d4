"""Statistical power and topic-set size (available as ``irframe.stats.power`` etc.).

How many topics does a claim need?  Following Sakai's topic-set-size design (Sakai,
"Topic set size design", Information Retrieval Journal 19(3), 2016, after Nagata 2003)
and Webber, Moffat & Zobel ("Statistical power in retrieval experimentation", CIKM
2008), power is computed exactly from the noncentral t or F distribution:

* ``design="paired_t"``: two systems, two-sided paired t-test on ``n`` topics.  The
  effect is the mean difference ``minD``; ``variance`` is that of the per-topic
  differences ``sigma_d^2``; noncentrality ``sqrt(n) minD / sigma_d`` with ``n - 1`` df.
* ``design="anova"``: one-way ANOVA over ``n_systems`` systems (Sakai's ANOVA-based
  design).  The effect is the minimum detectable *range* ``minD`` between the best and
  worst system (the least favourable configuration: the others at the grand mean);
  ``variance`` is the within-system variance ``sigma^2``; noncentrality
  ``lambda = n minD^2 / (2 sigma^2)`` with ``(m - 1, m (n - 1))`` df.
* ``design="anova2"``: the same for the randomised-blocks (system + topic) ANOVA, whose
  error has ``(m - 1)(n - 1)`` df and ``variance`` is its residual variance.

From a cube, [`variance_components`][irframe.power.variance_components] estimates the variances per measure (and per
cell of any other broadcast dim): the residual mean square ``V_E`` of the two-way
ANOVA, the one-way within-system mean square, and ``sigma_d^2 = 2 V_E`` for the paired
design (the variance of a difference of two systems once topic effects are removed).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _st

from ._scores import complete_topics, score_cube
from .errors import InputError, OptionError
from .params import ALPHA, Param

__all__ = [
    "DESIGNS",
    "min_detectable_effect",
    "power",
    "power_table",
    "topic_set_size",
    "variance_components",
]

DESIGNS = ("paired_t", "anova", "anova2")


_SYSTEMS = Param("int", 2, low=2, description="systems compared (ANOVA designs)")
_TOPICS = Param("int", None, low=2, description="topics (at least 2)")


def _check(design, alpha, n_systems):
    if design not in DESIGNS:
        raise OptionError(f"design must be one of {DESIGNS}, got {design!r}")
    ALPHA.check("alpha", alpha)
    return 2 if design == "paired_t" else _SYSTEMS.check("n_systems", n_systems)


def _check_power(target_power, alpha) -> float:
    """A power to reach: above ``alpha`` (a test has power alpha at effect 0, so every
    effect reaches less) and below 1 (no finite effect or topic set reaches 1)."""
    return Param("float", 0.8, low=float(alpha), high=1, low_open=True, high_open=True).check(
        "target_power", target_power, hint=f" (above alpha={alpha:g}: power at effect 0 is alpha)"
    )


def _finite(name: str, values: np.ndarray, *, positive: bool = False) -> None:
    bad = ~np.isfinite(values) | ((values <= 0) if positive else False)
    if bad.any():
        kind = "positive numbers" if positive else "finite numbers"
        raise OptionError(f"{name} must hold {kind}, got {values[bad].ravel()[:3].tolist()}")


def power(
    effect, *, n_topics, variance, alpha: float = 0.05, design: str = "paired_t", n_systems: int = 2
):
    """Probability that the test detects a true effect of size ``effect`` with ``n_topics`` topics.

    Parameters
    ----------
    effect : float or array_like
        Mean difference (``paired_t``) or best-worst range (``anova``, ``anova2``), in
        score units.
    n_topics : int or array_like
        Topics ``n`` (at least 2).
    variance : float or array_like
        ``sigma_d^2`` for ``paired_t``; the within-system (``anova``) or residual
        (``anova2``) variance otherwise.
    alpha : float
        Significance level (two-sided for the t-test).
    design : {"paired_t", "anova", "anova2"}
    n_systems : int
        Systems compared (ANOVA designs).

    Returns
    -------
    float or numpy.ndarray

    See Also
    --------
    - [`irframe.power.power_table`][irframe.power.power_table]: all of it for a cube's measures.
    - [`irframe.stats.compare`][irframe.stats.compare]: the tests whose power this is.
    - [Judgment sets, replicates, power](../judgments.md): the guide.

    Examples
    --------
    >>> from irframe.stats import power
    >>> round(float(power(0.05, n_topics=50, variance=0.02)), 3)
    0.688
    """
    m = _check(design, alpha, n_systems)
    d, n, v = np.broadcast_arrays(
        np.asarray(effect, float), np.asarray(n_topics, float), np.asarray(variance, float)
    )
    _finite("effect", d)
    _finite("n_topics", n)  # (not rounded: a fractional n solves for the exact topic count)
    _finite("variance", v, positive=True)
    if (n < 2).any():
        raise OptionError("n_topics must be at least 2")
    with np.errstate(invalid="ignore", divide="ignore"):
        if design == "paired_t":
            df = n - 1
            nc = np.sqrt(n) * np.abs(d) / np.sqrt(v)  # power is symmetric in the sign of the effect
            crit = _st.t.ppf(1 - alpha / 2, df)
            # the far tail is below 1e-12 where scipy's nct.cdf can return NaN: count it as 0
            out = _st.nct.sf(crit, df, nc) + np.nan_to_num(_st.nct.cdf(-crit, df, nc), nan=0.0)
        else:
            df1 = np.full_like(n, m - 1.0)
            df2 = m * (n - 1) if design == "anova" else (m - 1) * (n - 1)
            lam = n * d**2 / (2 * v)
            crit = _st.f.ppf(1 - alpha, df1, df2)
            out = _st.ncf.sf(crit, df1, df2, lam)
    return float(out) if out.ndim == 0 else out


def topic_set_size(
    effect,
    *,
    variance,
    alpha: float = 0.05,
    target_power: float = 0.8,
    design: str = "paired_t",
    n_systems: int = 2,
    max_topics: int = 1_000_000,
) -> int:
    """The smallest number of topics whose [`power`][irframe.power.power] reaches ``target_power``.

    Parameters
    ----------
    effect : float
        Mean difference (``paired_t``) or best-worst range (ANOVA designs), in score units;
        non-zero.
    variance : float
        As for [`power`][irframe.power.power] (from
        [`variance_components`][irframe.power.variance_components]).
    alpha : float
        Significance level (two-sided for the t-test).
    target_power : float
        The power to reach, in (alpha, 1).
    design : {"paired_t", "anova", "anova2"}
        Paired t-test, one-way ANOVA or two-way (system + topic) ANOVA.
    n_systems : int
        Systems compared (ANOVA designs).
    max_topics : int
        Give up above this many topics.

    Returns
    -------
    int
        Topics needed (Sakai, "Topic set size design", Information Retrieval Journal 2016).

    Raises
    ------
    irframe.errors.OptionError
        ``target_power`` outside (0, 1), a zero effect, or more than ``max_topics`` needed.

    See Also
    --------
    - [`irframe.power.power_table`][irframe.power.power_table]: all of it for a cube's measures.
    - [`irframe.stats.compare`][irframe.stats.compare]: the tests whose power this is.
    - [Judgment sets, replicates, power](../judgments.md): the guide.

    Examples
    --------
    >>> from irframe.stats import topic_set_size
    >>> topic_set_size(0.05, variance=0.02)
    65
    """
    _check(design, alpha, n_systems)
    target_power = _check_power(target_power, alpha)
    if not np.isfinite(float(effect)) or float(effect) == 0:
        raise OptionError(f"effect must be a non-zero finite number, got {effect!r}")
    kw = {"variance": variance, "alpha": alpha, "design": design, "n_systems": n_systems}
    lo, hi = 2, 2
    while power(effect, n_topics=hi, **kw) < target_power:  # doubling, then bisection
        lo, hi = hi, hi * 2
        if hi > max_topics:
            raise OptionError(f"more than max_topics={max_topics} topics would be needed")
    while lo < hi:
        mid = (lo + hi) // 2
        if power(effect, n_topics=mid, **kw) >= target_power:
            hi = mid
        else:
            lo = mid + 1
    return int(hi)


def min_detectable_effect(
    *,
    n_topics: int,
    variance,
    alpha: float = 0.05,
    target_power: float = 0.8,
    design: str = "paired_t",
    n_systems: int = 2,
) -> float:
    """The smallest effect detected with probability ``target_power`` on ``n_topics`` topics.

    Parameters
    ----------
    n_topics : int
        Topics available (at least 2).
    variance : float
        As for [`power`][irframe.power.power].
    alpha : float
        Significance level (two-sided for the t-test).
    target_power : float
        The power to reach, in (alpha, 1).
    design : {"paired_t", "anova", "anova2"}
        Paired t-test, one-way ANOVA or two-way (system + topic) ANOVA.
    n_systems : int
        Systems compared (ANOVA designs).

    Returns
    -------
    float
        The effect (in score units) at which [`power`][irframe.power.power] equals
        ``target_power``.

    See Also
    --------
    - [`irframe.power.power_table`][irframe.power.power_table]: all of it for a cube's measures.
    - [`irframe.stats.compare`][irframe.stats.compare]: the tests whose power this is.
    - [Judgment sets, replicates, power](../judgments.md): the guide.

    Examples
    --------
    >>> from irframe.stats import min_detectable_effect, power
    >>> mde = min_detectable_effect(n_topics=50, variance=0.02)
    >>> round(mde, 4), round(float(power(mde, n_topics=50, variance=0.02)), 6)
    (0.0572, 0.8)
    """
    from scipy.optimize import brentq

    _check(design, alpha, n_systems)
    target_power = _check_power(target_power, alpha)
    n_topics = _TOPICS.check("n_topics", n_topics)
    _finite("variance", np.asarray(variance, float), positive=True)
    kw = {
        "n_topics": n_topics,
        "variance": variance,
        "alpha": alpha,
        "design": design,
        "n_systems": n_systems,
    }
    hi = np.sqrt(float(variance))
    while power(hi, **kw) < target_power:
        hi *= 2
    return float(brentq(lambda d: power(d, **kw) - target_power, 0.0, hi, xtol=1e-12))


def variance_components(cube, *, dim: str = "topic", missing: str = "skip") -> pd.DataFrame:
    """Variance estimates of a cube for topic-set-size design, per measure.

    Parameters
    ----------
    cube : xarray.DataArray
        Score cube with a system and a topic dim.
    dim : str
        The topic dim.
    missing : {"skip", "common", "zero", "error"}
        Not-evaluated (NaN) cells: the two-way decomposition needs complete topics.

    Returns
    -------
    pandas.DataFrame
        Indexed by measure (and any other broadcast dim): ``n_systems``, ``n_topics``
        (complete topics used), ``var_within`` (one-way within-system mean square),
        ``var_residual`` (two-way residual mean square ``V_E``), ``var_diff``
        (``2 V_E``, for ``design="paired_t"``), ``var_topic`` (the topic variance
        component ``(MS_topic - V_E) / S``, truncated at 0).

    See Also
    --------
    - [`irframe.power.power_table`][irframe.power.power_table]: all of it for a cube's measures.
    - [`irframe.stats.compare`][irframe.stats.compare]: the tests whose power this is.
    - [Judgment sets, replicates, power](../judgments.md): the guide.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import variance_components
    >>> x = np.array([[0.1, 0.5, 0.3], [0.2, 0.7, 0.3]])
    >>> variance_components(xr.DataArray(x, dims=("system", "topic")))["var_residual"].round(4).tolist()
    [0.005]
    """
    c, layout = score_cube(cube, dim=dim)
    rows = []
    for k, label in enumerate(c.indexes["measure"]):
        X = complete_topics(c.values[:, :, k], missing)
        S, T = X.shape
        if T < 2:
            raise InputError(
                f"measure {label!r}: need at least 2 topics evaluated for every system, have {T}"
            )
        sm, tm, g = X.mean(axis=1, keepdims=True), X.mean(axis=0, keepdims=True), X.mean()
        ve = ((X - sm - tm + g) ** 2).sum() / ((S - 1) * (T - 1))
        within = ((X - sm) ** 2).sum() / (S * (T - 1))
        ms_topic = S * ((tm - g) ** 2).sum() / (T - 1)
        rows.append((label, S, T, within, ve, 2 * ve, max((ms_topic - ve) / S, 0.0)))
    t = pd.DataFrame(
        rows,
        columns=[
            "measure",
            "n_systems",
            "n_topics",
            "var_within",
            "var_residual",
            "var_diff",
            "var_topic",
        ],
    ).set_index("measure")
    t.index = layout.frame_index(t.index)
    return t


def power_table(
    cube,
    effects,
    *,
    alpha: float = 0.05,
    target_power: float = 0.8,
    design: str = "paired_t",
    dim: str = "topic",
    missing: str = "skip",
) -> pd.DataFrame:
    """Power, topics needed and minimal detectable effect of a cube's measures.

    For each measure (variances from [`variance_components`][irframe.power.variance_components]; ``var_diff`` for
    ``paired_t``, ``var_within`` for ``anova``, ``var_residual`` for ``anova2``, with
    the cube's number of systems) and each effect: ``power`` with the cube's topics,
    ``topics_needed`` for ``target_power``, and the ``min_detectable_effect`` with the
    cube's topics.

    Parameters
    ----------
    cube : xarray.DataArray
        Score cube ``(system, topic[, measure])``.
    effects : float or list of float
        Effects (in score units) to tabulate.
    alpha : float
        Significance level (two-sided for the t-test).
    target_power : float
        The power to reach, in (alpha, 1).
    design : {"paired_t", "anova", "anova2"}
        Paired t-test, one-way ANOVA or two-way (system + topic) ANOVA.
    dim : str
        The topic dim.
    missing : {"skip", "common", "zero", "error"}
        Not-evaluated (NaN) cells, as in
        [`variance_components`][irframe.power.variance_components].

    Returns
    -------
    pandas.DataFrame
        Indexed by (measure, effect): ``variance``, ``n_topics``, ``power``,
        ``topics_needed``, ``min_detectable_effect``.

    See Also
    --------
    - [`irframe.power.power_table`][irframe.power.power_table]: all of it for a cube's measures.
    - [`irframe.stats.compare`][irframe.stats.compare]: the tests whose power this is.
    - [Judgment sets, replicates, power](../judgments.md): the guide.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import power_table
    >>> x = np.random.default_rng(0).uniform(size=(4, 50))
    >>> power_table(xr.DataArray(x, dims=("system", "topic")), [0.05, 0.1]).columns.tolist()
    ['variance', 'n_topics', 'power', 'topics_needed', 'min_detectable_effect']
    """
    vc = variance_components(cube, dim=dim, missing=missing)
    col = {"paired_t": "var_diff", "anova": "var_within", "anova2": "var_residual"}[design]
    rows, keys = [], []
    for label, r in vc.iterrows():
        kw = {
            "variance": r[col],
            "alpha": alpha,
            "design": design,
            "n_systems": int(r["n_systems"]),
        }
        n = int(r["n_topics"])
        mde = min_detectable_effect(n_topics=n, target_power=target_power, **kw)
        for e in effects:
            keys.append((*(label if isinstance(label, tuple) else (label,)), float(e)))
            rows.append(
                (
                    r[col],
                    n,
                    power(e, n_topics=n, **kw),
                    topic_set_size(e, target_power=target_power, **kw),
                    mde,
                )
            )
    index = pd.MultiIndex.from_tuples(keys, names=[*vc.index.names, "effect"])
    return pd.DataFrame(
        rows,
        index=index,
        columns=["variance", "n_topics", "power", "topics_needed", "min_detectable_effect"],
    )
