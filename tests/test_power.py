"""Power and topic-set size against statsmodels' power classes and the closed-form
approximation of Sakai's topic-set-size design (Sakai, "Topic set size design",
Information Retrieval Journal 19(3):256-283, 2016, Section 3, after Nagata 2003)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr
from scipy import stats as st

from irframe import stats as irs

from conftest import reference_module  # skips, or fails with CI=true, when absent

smp = reference_module("statsmodels.stats.power")


@pytest.mark.parametrize("effect,var,n", [(0.05, 0.02, 50), (0.1, 0.05, 25), (0.02, 0.01, 200), (0.2, 0.3, 8)])
def test_paired_t_power_matches_statsmodels(effect, var, n):
    ref = smp.TTestPower().power(effect_size=effect / math.sqrt(var), nobs=n, alpha=0.05, alternative="two-sided")
    assert irs.power(effect, n_topics=n, variance=var) == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("effect,var,target", [(0.05, 0.02, 0.8), (0.1, 0.05, 0.9), (0.03, 0.01, 0.8)])
def test_topic_set_size_is_ceiling_of_statsmodels_solution(effect, var, target):
    n_real = smp.TTestPower().solve_power(effect_size=effect / math.sqrt(var), power=target, alpha=0.05)
    assert irs.topic_set_size(effect, variance=var, target_power=target) == math.ceil(n_real)


def test_topic_set_size_close_to_sakai_nagata_approximation():
    # Sakai (2016), Eq. for the paired t-test design: n ~ ((z_{a/2} + z_b) / lambda)^2 + z_{a/2}^2 / 2,
    # lambda = minD / sigma_d; the exact (noncentral t) size is within one topic of it.
    za, zb = st.norm.ppf(1 - 0.05 / 2), st.norm.ppf(0.8)
    for minD, var in [(0.05, 0.02), (0.1, 0.1), (0.02, 0.005), (0.1, 0.02)]:
        lam = minD / math.sqrt(var)
        approx = ((za + zb) / lam) ** 2 + za ** 2 / 2
        assert abs(irs.topic_set_size(minD, variance=var) - math.ceil(approx)) <= 1


@pytest.mark.parametrize("m,n,minD,var", [(5, 30, 0.1, 0.05), (10, 50, 0.08, 0.04), (3, 12, 0.2, 0.1)])
def test_one_way_anova_power_matches_statsmodels(m, n, minD, var):
    # least favourable configuration: sum of squared deviations minD^2 / 2 -> Cohen's f
    f = math.sqrt(minD ** 2 / (2 * m * var))
    ref = smp.FTestAnovaPower().power(effect_size=f, nobs=m * n, alpha=0.05, k_groups=m)
    assert irs.power(minD, n_topics=n, variance=var, design="anova", n_systems=m) == pytest.approx(ref, rel=1e-8)


def test_two_way_anova_power_by_noncentral_f_definition():
    m, n, minD, var = 6, 40, 0.1, 0.03
    df1, df2, lam = m - 1, (m - 1) * (n - 1), n * minD ** 2 / (2 * var)
    # Monte Carlo free definition: P(F' > F_crit) with scipy's ncf
    ref = 1 - st.ncf.cdf(st.f.ppf(0.95, df1, df2), df1, df2, lam)
    assert irs.power(minD, n_topics=n, variance=var, design="anova2", n_systems=m) == pytest.approx(ref)


def test_min_detectable_effect_inverts_power():
    mde = irs.min_detectable_effect(n_topics=50, variance=0.02, target_power=0.8)
    d_ref = smp.TTestPower().solve_power(nobs=50, power=0.8, alpha=0.05) * math.sqrt(0.02)
    assert mde == pytest.approx(d_ref, rel=1e-6)


def test_variance_components_and_table_from_cube():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 40)) * 0.1 + rng.normal(size=40) * 0.3
    cube = xr.DataArray(x[:, :, None].repeat(2, axis=2) * [1.0, 2.0], dims=("system", "topic", "measure"),
                        coords={"measure": ["AP", "AP2"]})
    vc = irs.variance_components(cube)
    # two-way residual mean square by statsmodels' OLS with system and topic factors
    import pandas as pd
    import statsmodels.formula.api as smf
    long = pd.DataFrame({"y": x.ravel(), "s": np.repeat(np.arange(5), 40).astype(str),
                         "t": np.tile(np.arange(40), 5).astype(str)})
    fit = smf.ols("y ~ C(s) + C(t)", long).fit()
    assert vc.loc["AP", "var_residual"] == pytest.approx(fit.mse_resid)
    assert vc.loc["AP2", "var_residual"] == pytest.approx(4 * fit.mse_resid)
    assert vc.loc["AP", "var_diff"] == pytest.approx(2 * fit.mse_resid)
    tab = irs.power_table(cube, [0.05, 0.1])
    assert tab.index.names == ["measure", "effect"]
    row = tab.loc[("AP", 0.05)]
    assert row["power"] == pytest.approx(irs.power(0.05, n_topics=40, variance=2 * fit.mse_resid))
    assert row["topics_needed"] == irs.topic_set_size(0.05, variance=2 * fit.mse_resid)


def test_errors():
    with pytest.raises(ValueError, match="design"):
        irs.power(0.1, n_topics=10, variance=0.1, design="z")
    with pytest.raises(ValueError, match="n_topics"):
        irs.power(0.1, n_topics=1, variance=0.1)
    with pytest.raises(ValueError, match="variance"):
        irs.power(0.1, n_topics=10, variance=0)
    with pytest.raises(ValueError, match="non-zero"):
        irs.topic_set_size(0, variance=0.1)
