"""irframe.stats against the worked example printed in Sakai's book (Table 5.1 and chapter 5).

Tetsuya Sakai, 情報アクセス評価方法論 (Information Access Evaluation Methodology), Corona
Publishing 2015: nDCG@5 of systems X, Y, Z on 20 topics, with the paired t-test of X and Y,
the two-way ANOVA without replication of X, Y, Z, the margins of error and the Tukey HSD
effect sizes.  The data and the printed numbers (with their provenance) are in
``../shared/data/sakai_book``; every printed number is compared within half a unit of its
last printed digit.

The topic-set-size table is computed from the ANOVA's V_E as Sakai's topic set size design
does (Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016) and
cross-checked against statsmodels' power classes (TTestPower, FTestAnovaPower, FTestPowerF2).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from conftest import reference_module

from irframe import stats


def _tol(printed: float) -> float:
    """Half a unit of the last digit printed (0.0742 -> 0.00005)."""
    exp = Decimal(repr(printed)).as_tuple().exponent
    return 0.5 * 10.0**exp


def _check(got: float, printed: float, what: str) -> None:
    assert abs(got - printed) <= _tol(printed) * (1 + 1e-9), f"{what}: {got} vs printed {printed}"


@pytest.fixture(scope="module")
def book(shared_data):
    base = shared_data / "sakai_book"
    table = pd.read_csv(base / "table5_1_ndcg5.csv").set_index("topic")
    printed = json.loads((base / "printed_values.json").read_text(encoding="utf-8"))
    cube = xr.DataArray(
        table.T.to_numpy()[:, :, None],
        dims=("system", "topic", "measure"),
        coords={"system": list(table.columns), "topic": list(table.index), "measure": ["nDCG@5"]},
    )
    assert cube.shape == (3, 20, 1)
    return cube, printed


def test_paired_t(book):
    cube, printed = book
    want = printed["paired_t_X_minus_Y"]
    r = stats.compare(cube.sel(system=["X", "Y"]), test="t", correction=None)
    xy = r.sel(system="X", other="Y", measure="nDCG@5")
    _check(float(xy.effect), want["mean_difference"], "mean difference")
    sd = float(xy.effect) / float(xy.effect_size)  # effect_size = mean / sd of the differences
    _check(sd**2, want["variance_of_differences_unbiased"], "V of differences")
    _check(float(xy.effect_size), want["effect_size_mean_over_sd"], "effect size")
    _check(float(xy.statistic), want["t"], "t")
    _check(float(xy.pvalue), want["p_two_sided"], "p")
    _check(float(xy.ci_high - xy.ci_low) / 2, want["margin_of_error_95"], "MOE")


def test_two_way_anova(book):
    cube, printed = book
    want = printed["two_way_anova_without_replication_XYZ"]
    a = stats.anova(cube, two_way=True).loc["nDCG@5"]
    _check(a.loc["system", "sum_sq"], want["S_A_between_system"], "S_A")
    _check(a.loc["topic", "sum_sq"], want["S_B_between_topic"], "S_B")
    _check(a.loc["residual", "sum_sq"], want["S_E_residual"], "S_E")
    _check(a["sum_sq"].sum(), want["S_T_total"], "S_T")
    _check(a.loc["system", "mean_sq"], want["V_A"], "V_A")
    _check(a.loc["topic", "mean_sq"], want["V_B"], "V_B")
    _check(a.loc["residual", "mean_sq"], want["V_E"], "V_E")
    _check(a.loc["system", "F"], want["F_system"], "F")
    _check(a.loc["system", "pvalue"], want["p_system"], "p system")
    _check(a.loc["topic", "pvalue"], want["p_topic"], "p topic")
    assert a["df"].tolist() == [2.0, 19.0, 38.0]
    # S_T is the total sum of squares about the grand mean (the decomposition is complete)
    x = cube.values[:, :, 0]
    assert a["sum_sq"].sum() == pytest.approx(((x - x.mean()) ** 2).sum(), rel=1e-12)


def test_tukey_effect_sizes_and_margin_of_error(book):
    cube, printed = book
    tk = stats.tukey_hsd(cube, two_way=True).sel(measure="nDCG@5")
    for pair, es in printed["tukey_hsd_effect_sizes_mean_diff_over_sqrt_VE"].items():
        a, b = pair.split("-")
        _check(float(tk.effect_size.sel(system=a, other=b)), es, f"ES_E {pair}")
        assert float(tk.effect_size.sel(system=b, other=a)) == -float(
            tk.effect_size.sel(system=a, other=b)
        )
    moe = printed["two_way_anova_without_replication_XYZ"]["margin_of_error_95_per_system_mean"]
    _check(float(tk.margin_of_error), moe, "MOE per system mean")
    _check(float(tk.mse), printed["two_way_anova_without_replication_XYZ"]["V_E"], "V_E")


def test_topic_set_size_table_from_VE(book):
    """Topic set sizes from the book's V_E, against statsmodels' power solvers."""
    sm_power = reference_module("statsmodels.stats.power")
    cube, _ = book
    tk = stats.tukey_hsd(cube, two_way=True).sel(measure="nDCG@5")
    v_e = float(tk.mse)
    rows = []
    for min_d in (0.05, 0.10, 0.15, 0.20):
        for target in (0.7, 0.8, 0.9):
            paired = stats.topic_set_size(
                min_d, variance=2 * v_e, design="paired_t", target_power=target
            )
            one_way = stats.topic_set_size(
                min_d, variance=v_e, design="anova", n_systems=3, target_power=target
            )
            two_way = stats.topic_set_size(
                min_d, variance=v_e, design="anova2", n_systems=3, target_power=target
            )
            rows.append((min_d, target, paired, one_way, two_way))
            # paired t: effect size d = minD / sigma_d, sigma_d^2 = 2 V_E (Sakai 2016, §4)
            n_sm = sm_power.TTestPower().solve_power(
                effect_size=min_d / math.sqrt(2 * v_e),
                alpha=0.05,
                power=target,
                alternative="two-sided",
            )
            assert paired == math.ceil(n_sm - 1e-9), (min_d, target, paired, n_sm)
            # one-way ANOVA, least favourable configuration: Cohen's f^2 = minD^2 / (2 m V_E),
            # statsmodels' nobs is the total m n
            f = min_d / math.sqrt(2 * 3 * v_e)
            nobs = sm_power.FTestAnovaPower().solve_power(
                effect_size=f, k_groups=3, alpha=0.05, power=target
            )
            assert one_way == math.ceil(nobs / 3 - 1e-9), (min_d, target, one_way, nobs)
            # randomised blocks: the noncentral F with (m-1, (m-1)(n-1)) df and lambda =
            # n minD^2 / (2 V_E); statsmodels' FTestPowerF2 takes lambda = f^2 (df1 + df2 + ncc)
            for n in (two_way - 1, two_way):
                df1, df2 = 2, 2 * (n - 1)
                lam = n * min_d**2 / (2 * v_e)
                pw = sm_power.FTestPowerF2().power(
                    effect_size=lam / (df1 + df2 + 1),
                    df_num=df1,
                    df_denom=df2,
                    alpha=0.05,
                    ncc=1,
                )
                assert pw == pytest.approx(
                    stats.power(min_d, n_topics=n, variance=v_e, design="anova2", n_systems=3),
                    rel=1e-9,
                )
                assert (pw >= target) == (n == two_way), (min_d, target, n, pw)
    table = pd.DataFrame(rows, columns=["minD", "power", "paired_t", "anova", "anova2"])
    # fewer topics for larger effects and lower power; the designs order as their error df
    assert (table.groupby("power")["paired_t"].apply(lambda s: s.is_monotonic_decreasing)).all()
    assert (table["anova2"] >= table["anova"]).all()
    assert np.isfinite(table.to_numpy(float)).all()
