"""Pairwise tests between systems that each have several replicate runs (seeds, folds).

Model, for a pair of systems ``a, b`` with ``R_a, R_b`` replicate runs on ``n`` topics::

    y[s, r, t] = mu_s + u_t + (su)_{s,t} + v_{s,r} + e_{s,r,t}

with the system mean ``mu_s`` fixed and the topic effect ``u_t``, the system-by-topic
interaction ``(su)_{s,t}``, the replicate-run effect ``v_{s,r}`` (a run of one seed of
one system) and the error ``e`` random and independent.  The effect is
``mu_a - mu_b``, estimated by the difference of the grand means ``d``, whose variance
is ``2 s2_st / n + (1/R_a + 1/R_b) (s2_v + s2_e / n)``.

For complete data (every run of both systems scored on the same ``n`` topics) the
REML estimates of this crossed model are the ANOVA (expected mean square)
estimators whenever they are non-negative (Searle, Casella & McCulloch, *Variance
Components*, 1992, ch. 4), which gives the closed form used here:

* ``S2_D``: variance over topics of ``D_t = ybar[a, ., t] - ybar[b, ., t]``
  (``n - 1`` df), ``E[S2_D] = 2 s2_st + s2_e (1/R_a + 1/R_b)``;
* ``S2_rep``: pooled within-system variance of the run means ``ybar[s, r, .]``
  (``R_a + R_b - 2`` df), ``E[S2_rep] = s2_v + s2_e / n``;
* ``MSE``: pooled residual mean square of ``y - ybar[s, r, .] - ybar[s, ., t] + ybar[s]``
  (``(R_a + R_b - 2)(n - 1)`` df), ``E[MSE] = s2_e``.

Then ``s2_v = max(S2_rep - MSE / n, 0)`` and ``Var(d) = S2_D / n + (1/R_a + 1/R_b) s2_v``;
the test statistic ``d / sqrt(Var(d))`` is referred to Student's t with Satterthwaite's
degrees of freedom for that linear combination of mean squares (``n - 1`` when
``s2_v`` is truncated at 0).  With one run per system the replicate variance cannot
be estimated and the pair gets NaN.  The tests check the effect and its standard
error against `statsmodels.regression.mixed_linear_model.MixedLM` fitted
directly on the long data.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as _st

from .errors import InputError, OptionError

__all__ = ["replicate_pair_tests"]


def _complete_runs(Y: np.ndarray, missing: str) -> tuple[np.ndarray, np.ndarray]:
    """-> (Y with the missing policy applied, run mask (S, R)): a run slot that is NaN on
    every topic is absent (systems may have different numbers of replicates)."""
    present = ~np.isnan(Y).all(axis=2)
    if missing == "zero":
        Y = np.where(present[:, :, None], np.nan_to_num(Y, nan=0.0), np.nan)
    elif missing == "error":
        if np.isnan(Y[present]).any():
            raise InputError("cube has NaN (not evaluated) cells and missing='error'")
    elif missing not in ("skip", "common"):
        raise OptionError(f"missing must be 'skip', 'common', 'zero' or 'error', got {missing!r}")
    return Y, present


def _system_parts(Ys: np.ndarray, V: np.ndarray, M: np.ndarray):
    """One side of every pair: Ys (U, R, T), run mask V (U, R), topic mask M (U, T) ->
    (R_s, grand mean, per-topic run-mean (U, T), SS of run means, residual SS)."""
    W = V[:, :, None] & M[:, None, :]
    Yz = np.where(W, Ys, 0.0)
    R = V.sum(axis=1).astype(float)
    n = M.sum(axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        run_mean = Yz.sum(axis=2) / n[:, None]  # (U, R)
        topic_mean = Yz.sum(axis=1) / R[:, None]  # (U, T)
        grand = (run_mean * V).sum(axis=1) / R  # (U,)
        ss_rep = (((run_mean - grand[:, None]) ** 2) * V).sum(axis=1)
        resid = Yz - run_mean[:, :, None] - topic_mean[:, None, :] + grand[:, None, None]
        sse = ((resid**2) * W).sum(axis=(1, 2))
    return R, grand, topic_mean, ss_rep, sse


def replicate_pair_tests(
    Y: np.ndarray, pa: np.ndarray, pb: np.ndarray, *, alpha: float = 0.05, missing: str = "skip"
) -> dict[str, np.ndarray]:
    """Mixed-model test of ``mu_a - mu_b`` for each pair ``(pa[u], pb[u])``.

    Parameters
    ----------
    Y : numpy.ndarray
        Scores ``(system, replicate, topic)``; NaN = not evaluated.  A replicate slot
        that is NaN on every topic is an absent run.
    pa, pb : numpy.ndarray
        System indices of the pairs.
    alpha : float
        Level of the (1 - alpha) confidence interval.
    missing : {"skip", "common", "zero", "error"}
        ``"skip"``: a pair uses the topics every present run of both systems was evaluated
        on; ``"common"``: the topics every present run of every system was evaluated on;
        ``"zero"``: NaN cells of present runs count as 0.

    Returns
    -------
    dict of numpy.ndarray
        Per pair: ``statistic`` (t), ``pvalue``, ``ci_low``, ``ci_high``, ``effect``
        (``d``), ``df``, ``effect_size`` (``d`` / sd of ``D_t``), ``wins``, ``ties``,
        ``losses`` (over topics, on ``D_t``), ``n_topics``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Y = rng.normal(size=(2, 3, 20)) + np.array([0.0, 1.0])[:, None, None]
    >>> r = replicate_pair_tests(Y, np.array([0]), np.array([1]))
    >>> bool(r["pvalue"][0] < 0.05), round(float(r["effect"][0]), 2)
    (True, -1.01)
    """
    Y, present = _complete_runs(np.asarray(Y, dtype=np.float64), missing)
    complete = ~(np.isnan(Y) & present[:, :, None]).any(axis=1)  # (S, T)
    if missing == "common":  # only the topics every system's present runs were evaluated on
        complete = np.broadcast_to(complete.all(axis=0), complete.shape)
    M = complete[pa] & complete[pb]  # (U, T)
    Ra, ga, ca, ssa, ea = _system_parts(Y[pa], present[pa], M)
    Rb, gb, cb, ssb, eb = _system_parts(Y[pb], present[pb], M)
    n = M.sum(axis=1).astype(float)
    df_rep = Ra + Rb - 2
    with np.errstate(invalid="ignore", divide="ignore"):
        D = np.where(M, ca - cb, np.nan)
        d = ga - gb
        s2_d = np.nansum((D - d[:, None]) ** 2, axis=1) / (n - 1)
        s2_rep = (ssa + ssb) / df_rep
        mse = (ea + eb) / (df_rep * (n - 1))
        h = 1 / Ra + 1 / Rb
        s2_v = np.maximum(s2_rep - mse / n, 0.0)
        var = s2_d / n + h * s2_v
        # Satterthwaite: var = a1 S2_D + a2 S2_rep + a3 MSE
        terms = (
            (s2_d / n) ** 2 / (n - 1)
            + (h * s2_rep) ** 2 / df_rep
            + (h * mse / n) ** 2 / (df_rep * (n - 1))
        )
        df = np.where(s2_v > 0, var**2 / terms, n - 1)
        se = np.sqrt(var)
        t = d / se
        p = 2 * _st.t.sf(np.abs(t), df)
        half = _st.t.ppf(1 - alpha / 2, df) * se
        ok = (n >= 2) & (Ra >= 1) & (Rb >= 1) & (df_rep >= 1)
        esize = d / np.sqrt(s2_d)
    nan = np.where(ok, 1.0, np.nan)
    return {
        "statistic": t * nan,
        "pvalue": p * nan,
        "ci_low": (d - half) * nan,
        "ci_high": (d + half) * nan,
        "effect": d * nan,
        "df": df * nan,
        "effect_size": esize * nan,
        "wins": (D > 0).sum(axis=1).astype(float),
        "ties": (D == 0).sum(axis=1).astype(float),
        "losses": (D < 0).sum(axis=1).astype(float),
        "n_topics": n,
    }
