"""Tests of irframe.stats against scipy / statsmodels and brute-force references."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
import xarray as xr
from conftest import reference_module
from scipy import stats as st

from irframe import stats as irs
from irframe.errors import InputError, OptionError

statsmodels = reference_module("statsmodels")
from statsmodels.stats.multitest import multipletests  # noqa: E402


def make_cube(S=4, T=15, K=None, seed=0, shift=None, integer=False):
    rng = np.random.default_rng(seed)
    if integer:
        x = rng.integers(0, 9, size=(S, T)).astype(float) / 8.0
    else:
        x = rng.uniform(size=(S, T))
    if shift is not None:
        x = x + np.asarray(shift, float)[:, None]
    systems = [f"s{i}" for i in range(S)]
    topics = [f"{100 + t:03d}" for t in range(T)]
    if K is None:
        return xr.DataArray(
            x, dims=("system", "topic"), coords={"system": systems, "topic": topics}
        )
    xs = np.stack([x + 0.1 * k * rng.normal(size=x.shape) for k in range(K)], axis=-1)
    return xr.DataArray(
        xs,
        dims=("system", "topic", "measure"),
        coords={"system": systems, "topic": topics, "measure": [f"m{k}" for k in range(K)]},
    )


# ---------------------------------------------------------------------------
# t and Wilcoxon agree with scipy
# ---------------------------------------------------------------------------


def test_t_matches_scipy_ttest_rel_and_ci():
    cube = make_cube(S=5, T=20, shift=[0, 0.1, 0.2, 0, -0.1])
    res = irs.compare(cube, test="t", correction=None)
    for a in cube.system.values:
        for b in cube.system.values:
            if a == b:
                assert np.isnan(res.pvalue.sel(system=a, other=b))
                continue
            x, y = cube.sel(system=a).values, cube.sel(system=b).values
            ref = st.ttest_rel(x, y)
            cell = res.sel(system=a, other=b)
            assert float(cell.statistic) == pytest.approx(ref.statistic, rel=1e-10)
            assert float(cell.pvalue) == pytest.approx(ref.pvalue, rel=1e-10)
            ci = ref.confidence_interval(0.95)
            assert float(cell.ci_low) == pytest.approx(ci.low, rel=1e-9)
            assert float(cell.ci_high) == pytest.approx(ci.high, rel=1e-9)
            d = x - y
            assert float(cell.effect) == pytest.approx(d.mean())
            assert float(cell.effect_size) == pytest.approx(d.mean() / d.std(ddof=1))
            assert int(cell.wins) == (d > 0).sum() and int(cell.losses) == (d < 0).sum()


def test_wilcoxon_matches_scipy():
    cube = make_cube(S=4, T=25, shift=[0, 0.15, 0.05, 0], integer=True)  # ties and zeros
    res = irs.compare(cube, test="wilcoxon", correction=None)
    for a, b in itertools.permutations(cube.system.values, 2):
        x, y = cube.sel(system=a).values, cube.sel(system=b).values
        ref = st.wilcoxon(x, y)
        cell = res.sel(system=a, other=b)
        assert float(cell.statistic) == pytest.approx(ref.statistic)
        assert float(cell.pvalue) == pytest.approx(ref.pvalue, rel=1e-10)


def test_wilcoxon_each_pair_as_scipy_tests_it_alone():
    # scipy.stats.wilcoxon(method="auto") on a 2-D array chooses exact vs approximate
    # p-values once for the whole array: a pair with tied or zero differences must not
    # switch a tie-free pair from the exact distribution to the normal approximation.
    # Found by differential fuzzing.
    rng = np.random.default_rng(11)
    x = rng.normal(size=(3, 20))
    x[2, :8] = x[0, :8]  # s0 - s2 has zero differences; s0 - s1 and s1 - s2 have none
    cube = xr.DataArray(x, dims=("system", "topic"), coords={"system": ["s0", "s1", "s2"]})
    for zero_method in ("wilcox", "pratt", "zsplit"):
        res = irs.compare(cube, test="wilcoxon", correction=None, zero_method=zero_method)
        for a, b in itertools.combinations(range(3), 2):
            ref = st.wilcoxon(x[a], x[b], zero_method=zero_method)
            cell = res.isel(system=a, other=b)
            assert float(cell.statistic) == pytest.approx(ref.statistic)
            assert float(cell.pvalue) == pytest.approx(ref.pvalue, rel=1e-10)


def test_missing_topics_aligned_by_label_not_position():
    cube = make_cube(S=3, T=12, seed=4)
    x = cube.values.copy()
    x[1, [2, 7]] = np.nan  # s1 not evaluated on two topics
    x[2, 0] = np.nan
    cube = cube.copy(data=x)
    res = irs.compare(cube, test="t", correction=None)
    a, b = cube.sel(system="s0").values, cube.sel(system="s1").values
    ok = ~np.isnan(a) & ~np.isnan(b)
    ref = st.ttest_rel(a[ok], b[ok])
    assert float(res.pvalue.sel(system="s0", other="s1")) == pytest.approx(ref.pvalue)
    assert int(res.n_topics.sel(system="s0", other="s1")) == 10
    assert int(res.n_topics.sel(system="s1", other="s2")) == 9
    # permuting the topic axis changes nothing
    perm = np.random.default_rng(1).permutation(cube.sizes["topic"])
    res2 = irs.compare(cube.isel(topic=perm), test="t", correction=None)
    xr.testing.assert_allclose(res, res2)
    # missing="zero" counts NaN as 0 (trec_eval -c)
    resz = irs.compare(cube, test="t", correction=None, missing="zero")
    refz = st.ttest_rel(np.nan_to_num(a), np.nan_to_num(b))
    assert float(resz.pvalue.sel(system="s0", other="s1")) == pytest.approx(refz.pvalue)
    with pytest.raises(ValueError, match="missing='error'"):
        irs.compare(cube, missing="error")


def test_pairs_with_too_few_common_topics_are_nan():
    x = np.array([[0.1, 0.2, 0.3], [np.nan, np.nan, 0.4], [0.3, 0.1, 0.2]])
    cube = xr.DataArray(x, dims=("system", "topic"), coords={"system": list("abc")})
    res = irs.compare(cube, test="t")
    assert np.isnan(res.pvalue.sel(system="a", other="b"))
    assert not np.isnan(res.pvalue.sel(system="a", other="c"))


def test_antisymmetry_of_cells():
    cube = make_cube(S=4, T=18, shift=[0, 0.1, 0.3, 0.2])
    for test in ("t", "randomization", "bootstrap"):
        res = irs.compare(cube, test=test, rng=3, n_samples=500)
        for a, b in itertools.combinations(cube.system.values, 2):
            ab, ba = res.sel(system=a, other=b), res.sel(system=b, other=a)
            assert float(ab.effect) == pytest.approx(-float(ba.effect))
            assert float(ab.statistic) == pytest.approx(-float(ba.statistic))
            assert float(ab.pvalue) == float(ba.pvalue)
            assert float(ab.ci_low) == pytest.approx(-float(ba.ci_high))
            assert int(ab.wins) == int(ba.losses)


# ---------------------------------------------------------------------------
# randomization
# ---------------------------------------------------------------------------


def brute_force_randomization(d):
    """Slow reference: enumerate all 2**n sign vectors with itertools."""
    n = len(d)
    obs = abs(sum(d)) / n
    count = 0
    for signs in itertools.product((1, -1), repeat=n):
        if abs(sum(s * v for s, v in zip(signs, d, strict=True))) / n >= obs - 1e-12:
            count += 1
    return count / 2**n


@pytest.mark.parametrize("T", [5, 8, 12])
def test_exact_randomization_equals_full_enumeration(T):
    cube = make_cube(S=4, T=T, seed=T, shift=[0, 0.2, 0.1, 0], integer=True)
    res = irs.compare(cube, test="randomization", correction=None, exact=True)
    assert res.attrs["exact"] == 1
    for a, b in itertools.combinations(cube.system.values, 2):
        d = (cube.sel(system=a) - cube.sel(system=b)).values.tolist()
        assert float(res.pvalue.sel(system=a, other=b)) == pytest.approx(
            brute_force_randomization(d), abs=1e-12
        )
    # default switches to exact for few topics
    assert irs.compare(cube, test="randomization").attrs["exact"] == 1


def test_sampled_randomization_is_seeded_and_close_to_exact():
    cube = make_cube(S=3, T=14, seed=11, shift=[0, 0.15, 0.3])
    r1 = irs.compare(cube, test="randomization", exact=False, n_samples=20000, rng=42)
    r2 = irs.compare(
        cube, test="randomization", exact=False, n_samples=20000, rng=np.random.default_rng(42)
    )
    xr.testing.assert_identical(r1, r2)
    r3 = irs.compare(cube, test="randomization", exact=False, n_samples=20000, rng=43)
    assert not np.allclose(r1.pvalue.fillna(0), r3.pvalue.fillna(0))
    ex = irs.compare(cube, test="randomization", exact=True)
    p_s, p_e = r1.pvalue.values, ex.pvalue.values
    ok = ~np.isnan(p_e)
    se = np.sqrt(p_e[ok] * (1 - p_e[ok]) / 20000) + 1 / 20000
    assert np.all(np.abs(p_s[ok] - p_e[ok]) <= 4 * se)
    assert r1.attrs["exact"] == 0


def test_rng_never_uses_global_state():
    cube = make_cube(S=3, T=30)
    # the legacy global generator is what this test watches
    np.random.seed(0)  # noqa: NPY002
    before = np.random.random()  # noqa: NPY002
    np.random.seed(0)  # noqa: NPY002
    irs.compare(cube, test="randomization", n_samples=100, rng=1)
    irs.compare(cube, test="bootstrap", n_samples=100, rng=1)
    assert np.random.random() == before  # noqa: NPY002


# ---------------------------------------------------------------------------
# bootstrap
# ---------------------------------------------------------------------------


def test_bootstrap_property_resamples_are_seeded_multinomial_draws():
    """Property (the outside reference is scipy.stats.bootstrap, below): the resamples are
    multinomial draws from rng, the CI their percentiles, the p-value the shifted-null count."""
    cube = make_cube(S=2, T=25, seed=5, shift=[0.1, 0])
    B = 3000
    res = irs.compare(cube, test="bootstrap", n_samples=B, rng=7, alpha=0.1)
    d = (cube.sel(system="s0") - cube.sel(system="s1")).values
    n = d.size
    W = np.random.default_rng(7).multinomial(n, np.full(n, 1 / n), size=B)
    boot = W @ d / n
    lo, hi = np.quantile(boot, [0.05, 0.95])
    cell = res.sel(system="s0", other="s1")
    assert float(cell.ci_low) == pytest.approx(lo)
    assert float(cell.ci_high) == pytest.approx(hi)
    p = (1 + np.sum(np.abs(boot - d.mean()) >= abs(d.mean()) - 1e-12)) / (B + 1)
    assert float(cell.pvalue) == pytest.approx(p)
    assert res.attrs["ci"] == "bootstrap"
    # bootstrap CIs can be requested for any test
    r_t = irs.compare(cube, test="t", ci="bootstrap", n_samples=B, rng=7, alpha=0.1)
    assert float(r_t.sel(system="s0", other="s1").ci_low) == pytest.approx(lo)


def test_bootstrap_percentile_ci_agrees_with_scipy_bootstrap():
    """scipy.stats.bootstrap (percentile method) on the paired differences, own resamples.

    The two draw different resamples, so the endpoints agree up to Monte Carlo error: for
    B = 20,000 the standard error of a 5 % / 95 % quantile of a near-normal bootstrap
    distribution with sd s is about sqrt(.05 * .95 / B) / phi(1.645) * s = 0.015 s (0.021 s for
    the difference of two runs); the tolerance 0.1 s is about five standard errors.
    """
    B = 20_000
    for seed, shift in ((5, 0.1), (11, 0.0)):
        cube = make_cube(S=2, T=25, seed=seed, shift=[shift, 0])
        d = (cube.sel(system="s0") - cube.sel(system="s1")).values.ravel()
        ref = st.bootstrap(
            (d,),
            np.mean,
            n_resamples=B,
            confidence_level=0.9,
            method="percentile",
            random_state=np.random.default_rng(seed),
        )
        s = ref.standard_error
        for res in (
            irs.compare(cube, test="bootstrap", n_samples=B, rng=7, alpha=0.1),
            irs.compare(cube, test="t", ci="bootstrap", n_samples=B, rng=8, alpha=0.1),
        ):
            cell = res.sel(system="s0", other="s1")
            assert abs(float(cell.ci_low) - ref.confidence_interval.low) < 0.1 * s
            assert abs(float(cell.ci_high) - ref.confidence_interval.high) < 0.1 * s
        x = cube.sel(system="s0").values.ravel()
        ref_m = st.bootstrap(
            (x,),
            np.mean,
            n_resamples=B,
            confidence_level=0.95,
            method="percentile",
            random_state=np.random.default_rng(seed),
        )
        m = irs.mean_ci(cube, method="bootstrap", rng=0, n_samples=B, alpha=0.05).sel(system="s0")
        assert (
            abs(float(m.ci_low.squeeze()) - ref_m.confidence_interval.low)
            < 0.1 * ref_m.standard_error
        )
        assert (
            abs(float(m.ci_high.squeeze()) - ref_m.confidence_interval.high)
            < 0.1 * ref_m.standard_error
        )


# ---------------------------------------------------------------------------
# corrections
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method,sm", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")]
)
@pytest.mark.parametrize("use_sm", [True, False])
def test_adjust_pvalues_equals_multipletests(method, sm, use_sm):
    p = np.random.default_rng(0).uniform(size=40) ** 3
    p[[3, 9]] = p[5]  # ties
    got = irs.adjust_pvalues(p, method, use_statsmodels=use_sm)
    np.testing.assert_allclose(got, multipletests(p, method=sm)[1], rtol=1e-12)
    with_nan = np.append(p, np.nan)
    got = irs.adjust_pvalues(with_nan, method, use_statsmodels=use_sm)
    assert np.isnan(got[-1])
    np.testing.assert_allclose(got[:-1], multipletests(p, method=sm)[1], rtol=1e-12)


def test_compare_correction_family_is_distinct_pairs():
    cube = make_cube(S=5, T=20, K=2, shift=[0, 0.1, 0.2, 0.3, 0.05])
    res = irs.compare(cube, test="t", correction="holm")
    for m in cube.measure.values:
        r = res.sel(measure=m)
        iu = np.triu_indices(5, 1)
        raw = r.pvalue.values[iu]
        np.testing.assert_allclose(
            r.pvalue_adjusted.values[iu], multipletests(raw, method="holm")[1]
        )
        np.testing.assert_allclose(
            r.pvalue_adjusted.values.T[iu], multipletests(raw, method="holm")[1]
        )
        assert (r.significant.values == (r.pvalue_adjusted.values < 0.05)).all()
    assert res.attrs["correction"] == "holm" and res.attrs["test"] == "t"


def test_baseline_list_family():
    cube = make_cube(S=5, T=20, shift=[0, 0.1, 0.2, 0.3, 0.05])
    res = irs.compare(cube, baseline=["s0", "s1"], test="t", correction="bonferroni")
    assert list(res.other.values) == ["s0", "s1"]
    assert res.sizes["system"] == 5
    # distinct pairs: 4 with s0, and 3 more with s1 (s0-s1 counted once) -> family of 7
    raw = float(res.pvalue.sel(system="s3", other="s1"))
    assert float(res.pvalue_adjusted.sel(system="s3", other="s1")) == pytest.approx(min(1, 7 * raw))
    assert float(res.pvalue_adjusted.sel(system="s1", other="s0")) == float(
        res.pvalue_adjusted.sel(system="s0", other="s1")
    )


# ---------------------------------------------------------------------------
# shape, errors, immutability
# ---------------------------------------------------------------------------


def test_dims_and_measure_handling():
    cube = make_cube(S=3, T=10, K=2)
    res = irs.compare(cube, baseline="s0")
    assert res.statistic.dims == ("system", "other", "measure")
    sel = irs.compare(cube.sel(measure="m1"), baseline="s0")
    assert sel.statistic.dims == ("system", "other")
    assert sel.coords["measure"].item() == "m1"
    xr.testing.assert_allclose(sel.drop_vars("measure"), res.sel(measure="m1").drop_vars("measure"))
    # transposed input is fine
    res_t = irs.compare(cube.transpose("measure", "topic", "system"), baseline="s0")
    xr.testing.assert_allclose(res, res_t)


def test_errors():
    cube = make_cube(S=3, T=10)
    with pytest.raises(KeyError, match=r"available systems: \['s0', 's1', 's2'\]"):
        irs.compare(cube, baseline="bm25")
    with pytest.raises(ValueError, match="dims"):
        irs.compare(cube.rename(topic="query"))
    with pytest.raises(ValueError, match="preference cube"):
        irs.compare(xr.DataArray(np.zeros((2, 2, 3)), dims=("system", "other", "topic")))
    with pytest.raises(ValueError, match="at least 2 topics"):
        irs.compare(cube.isel(topic=[0]))
    with pytest.raises(ValueError, match="at least 2 systems"):
        irs.compare(cube.isel(system=[0]))
    with pytest.raises(ValueError, match="test must be one of"):
        irs.compare(cube, test="z")
    with pytest.raises(ValueError, match="correction"):
        irs.compare(cube, correction="fdr")
    with pytest.raises(TypeError, match="rng"):
        irs.compare(cube, test="randomization", rng="seed")
    with pytest.raises(TypeError):
        irs.compare(cube.values)


def test_caller_cube_not_modified():
    cube = make_cube(S=3, T=10, K=2)
    x = cube.values.copy()
    x[0, 0, 0] = np.nan
    cube = cube.copy(data=x)
    before = cube.copy(deep=True)
    for test in irs.TESTS:
        irs.compare(cube, test=test, n_samples=100, rng=0, missing="zero")
    irs.tukey_hsd(cube, missing="zero")
    irs.anova(cube)
    irs.mean_ci(cube)
    xr.testing.assert_identical(cube, before)


# ---------------------------------------------------------------------------
# Tukey HSD and ANOVA
# ---------------------------------------------------------------------------


def test_tukey_one_way_matches_scipy_and_statsmodels():
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    cube = make_cube(S=4, T=30, seed=2, shift=[0, 0.1, 0.25, 0.05])
    res = irs.tukey_hsd(cube, two_way=False, alpha=0.05)
    groups = [cube.sel(system=s).values for s in cube.system.values]
    ref = st.tukey_hsd(*groups)
    ci = ref.confidence_interval(0.95)
    np.testing.assert_allclose(
        res.pvalue.values[~np.eye(4, dtype=bool)],
        ref.pvalue[~np.eye(4, dtype=bool)],
        rtol=1e-6,
        atol=1e-9,
    )
    np.testing.assert_allclose(
        res.effect.values[~np.eye(4, dtype=bool)], ref.statistic[~np.eye(4, dtype=bool)]
    )
    np.testing.assert_allclose(
        res.ci_low.values[~np.eye(4, dtype=bool)], ci.low[~np.eye(4, dtype=bool)], rtol=1e-6
    )
    endog = np.concatenate(groups)
    labels = np.repeat(cube.system.values, 30)
    sm = pairwise_tukeyhsd(endog, labels, alpha=0.05)
    # statsmodels' result object (unrounded), pairs in itertools.combinations order of its groups;
    # meandiff = group2 - group1
    pairs = list(itertools.combinations(sm.groupsunique, 2))
    assert len(pairs) == len(sm.pvalues) == 6
    for (g1, g2), p, d, (lo, hi), rej in zip(
        pairs, sm.pvalues, sm.meandiffs, sm.confint, sm.reject, strict=True
    ):
        cell = res.sel(system=g2, other=g1)
        assert float(cell.effect) == pytest.approx(d, rel=1e-12)
        assert float(cell.pvalue) == pytest.approx(p, rel=1e-6, abs=1e-9)
        assert float(cell.ci_low) == pytest.approx(lo, rel=1e-9)
        assert float(cell.ci_high) == pytest.approx(hi, rel=1e-9)
        assert bool(cell.significant) == bool(rej)


def test_tukey_two_way_closed_form_and_statsmodels_mse():
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    x = np.array([[0.2, 0.5, 0.9, 0.4], [0.3, 0.4, 1.0, 0.6], [0.6, 0.8, 1.2, 0.7]])
    cube = xr.DataArray(
        x, dims=("system", "topic"), coords={"system": list("abc"), "topic": list("wxyz")}
    )
    res = irs.tukey_hsd(cube)
    # closed form by hand
    S, T = x.shape
    resid = x - x.mean(1, keepdims=True) - x.mean(0, keepdims=True) + x.mean()
    mse = (resid**2).sum() / ((S - 1) * (T - 1))
    q = abs(x[2].mean() - x[0].mean()) / np.sqrt(mse / T)
    assert float(res.mse) == pytest.approx(mse)
    assert float(res.df) == 6
    assert float(res.statistic.sel(system="c", other="a")) == pytest.approx(q)
    assert float(res.pvalue.sel(system="c", other="a")) == pytest.approx(
        st.studentized_range.sf(q, 3, 6)
    )
    qc = st.studentized_range.ppf(0.95, 3, 6)
    assert float(res.ci_low.sel(system="c", other="a")) == pytest.approx(
        x[2].mean() - x[0].mean() - qc * np.sqrt(mse / T)
    )
    # statsmodels' two-way ANOVA gives the same residual mean square
    df = cube.to_dataframe("y").reset_index()
    fit = smf.ols("y ~ C(system) + C(topic)", data=df).fit()
    assert fit.mse_resid == pytest.approx(mse)
    tab = anova_lm(fit)
    ours = irs.anova(cube)
    assert ours.loc["system", "F"] == pytest.approx(tab.loc["C(system)", "F"])
    assert ours.loc["topic", "pvalue"] == pytest.approx(tab.loc["C(topic)", "PR(>F)"])
    assert ours.loc["residual", "sum_sq"] == pytest.approx(tab.loc["Residual", "sum_sq"])


def test_two_way_removes_topic_effect():
    rng = np.random.default_rng(8)
    base = rng.normal(scale=0.05, size=(4, 20)) + np.array([0, 0.03, 0.06, 0.09])[:, None]
    hard = base + rng.normal(scale=1.0, size=20)  # large topic effects
    cube0 = xr.DataArray(base, dims=("system", "topic"))
    cube1 = xr.DataArray(hard, dims=("system", "topic"))
    xr.testing.assert_allclose(irs.tukey_hsd(cube0).pvalue, irs.tukey_hsd(cube1).pvalue)
    assert (
        irs.tukey_hsd(cube1, two_way=False).significant.sum()
        < irs.tukey_hsd(cube1).significant.sum()
    )


def test_anova_one_way_matches_f_oneway():
    cube = make_cube(S=3, T=12, K=2, shift=[0, 0.2, 0.1])
    tab = irs.anova(cube, two_way=False)
    for m in cube.measure.values:
        ref = st.f_oneway(*[cube.sel(system=s, measure=m).values for s in cube.system.values])
        assert tab.loc[(m, "system"), "F"] == pytest.approx(ref.statistic)
        assert tab.loc[(m, "system"), "pvalue"] == pytest.approx(ref.pvalue)


def test_tukey_drops_incomplete_topics():
    cube = make_cube(S=3, T=10)
    x = cube.values.copy()
    x[1, 4] = np.nan
    res = irs.tukey_hsd(cube.copy(data=x))
    ref = irs.tukey_hsd(cube.isel(topic=[t for t in range(10) if t != 4]))
    xr.testing.assert_allclose(res.pvalue, ref.pvalue)
    assert int(res.n_topics) == 9


# ---------------------------------------------------------------------------
# sign test
# ---------------------------------------------------------------------------


def make_pref(S=5, T=30, seed=0):
    rng = np.random.default_rng(seed)
    skill = np.linspace(-0.6, 0.6, S)
    p = np.zeros((S, S, T), dtype=np.int8)
    for i in range(S):
        for j in range(i + 1, S):
            u = rng.uniform(size=T)
            pr = 0.5 + (skill[i] - skill[j]) / 2
            v = np.where(u < 0.2, 0, np.where(rng.uniform(size=T) < pr, 1, -1))
            p[i, j], p[j, i] = v, -v
    names = [f"r{i}" for i in range(S)]
    return xr.DataArray(
        p,
        dims=("system", "other", "topic"),
        coords={"system": names, "other": names, "topic": [str(t) for t in range(T)]},
    )


def test_sign_test_matches_binomtest_and_holm():
    pref = make_pref()
    res = irs.sign_test(pref, correction="holm")
    S = pref.sizes["system"]
    raw = []
    for i in range(S):
        for j in range(S):
            if i == j:
                assert np.isnan(res.pvalue.values[i, j])
                continue
            v = pref.values[i, j]
            w, l = int((v == 1).sum()), int((v == -1).sum())  # noqa: E741 - wins, losses
            assert res.wins.values[i, j] == w and res.losses.values[i, j] == l
            ref = st.binomtest(w, w + l, 0.5).pvalue
            assert res.pvalue.values[i, j] == pytest.approx(ref, rel=1e-9)
            if i < j:
                raw.append(ref)
    iu = np.triu_indices(S, 1)
    np.testing.assert_allclose(
        res.pvalue_adjusted.values[iu], multipletests(raw, method="holm")[1], rtol=1e-9
    )
    np.testing.assert_allclose(res.pvalue_adjusted.values.T[iu], res.pvalue_adjusted.values[iu])


def test_sign_test_errors():
    pref = make_pref(S=3)
    with pytest.raises(ValueError, match="-1, 0 or \\+1"):
        irs.sign_test(pref * 2)
    with pytest.raises(ValueError, match="dims"):
        irs.sign_test(pref.rename(other="o"))


def test_mean_ci_matches_t_interval():
    cube = make_cube(S=2, T=15, K=2)
    res = irs.mean_ci(cube, alpha=0.1)
    x = cube.sel(system="s1", measure="m0").values
    lo, hi = st.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=st.sem(x))
    assert float(res.ci_low.sel(system="s1", measure="m0")) == pytest.approx(lo)
    assert float(res.ci_high.sel(system="s1", measure="m0")) == pytest.approx(hi)
    b = irs.mean_ci(cube, method="bootstrap", rng=0, n_samples=2000)
    assert (b.ci_low <= b["mean"]).all() and (b["mean"] <= b.ci_high).all()


# ---------------------------------------------------------------------------
# Type-I error (speed: benchmarks/bench_stats.py)
# ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap"])
def test_type_one_error_rate(test):
    """No true difference: the rejection rate at alpha = 0.05 is within sampling error of 0.05.

    R = 800 independent replicates (topic difficulty plus noise, 30 topics) go into one call
    as the ``measure`` dimension. Under a calibrated test the number of rejections is
    Binomial(R, 0.05) (Monte Carlo tests: given their resamples), so it lies in the central
    1 - 1e-4 interval [binom.ppf(5e-5), binom.isf(5e-5)] = [18, 66] (rate 0.0225-0.0825)
    except with probability about 1e-4. The percentile bootstrap is known to be slightly
    liberal with 30 topics, so its upper bound is widened by 0.01.
    """
    rng = np.random.default_rng(2024)
    R, T = 800, 30
    topic = rng.uniform(0, 1, size=(1, T, R))  # shared topic difficulty
    x = np.clip(topic + rng.normal(scale=0.15, size=(2, T, R)), 0, 1)
    cube = xr.DataArray(
        x,
        dims=("system", "topic", "measure"),
        coords={"system": ["a", "b"], "measure": [f"r{i}" for i in range(R)]},
    )
    res = irs.compare(cube, test=test, correction=None, n_samples=1000, rng=rng)
    rejections = int(res.significant.sel(system="a", other="b").sum())
    lo, hi = st.binom.ppf(5e-5, R, 0.05), st.binom.isf(5e-5, R, 0.05)
    if test == "bootstrap":
        hi += 0.01 * R
    assert lo <= rejections <= hi, (rejections / R, lo / R, hi / R)


# ----------------------------------------------------------------- every correction, brute force
def _brute_adjust(p: list[float], method: str) -> list[float]:
    """Adjusted p-values written out from each procedure's definition (loops; Hommel's as
    the closed testing of Simes' tests, every subset of the hypotheses)."""
    import itertools

    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    if method == "sidak":
        return [1 - (1 - x) ** m for x in p]
    if method in ("holm-sidak", "holm"):
        running = 0.0
        for step, i in enumerate(order):
            left = m - step
            v = 1 - (1 - p[i]) ** left if method == "holm-sidak" else left * p[i]
            running = max(running, min(v, 1.0))
            out[i] = running
        return out
    if method in ("simes-hochberg", "by"):
        c = sum(1 / k for k in range(1, m + 1)) if method == "by" else None
        for step, i in enumerate(order):
            if method == "simes-hochberg":
                cands = [(m - j) * p[order[j]] for j in range(step, m)]
            else:
                cands = [c * m / (j + 1) * p[order[j]] for j in range(step, m)]
            out[i] = min(1.0, min(cands))
        return out
    assert method == "hommel"

    def simes(subset):
        ps = sorted(p[i] for i in subset)
        return min(len(ps) * x / (k + 1) for k, x in enumerate(ps))

    for i in range(m):
        out[i] = max(
            simes(s) for r in range(1, m + 1) for s in itertools.combinations(range(m), r) if i in s
        )
    return out


@pytest.mark.parametrize("method", ["by", "sidak", "holm-sidak", "simes-hochberg", "hommel"])
@pytest.mark.parametrize("seed", range(4))
def test_statsmodels_corrections_against_their_definitions(method, seed):
    """The corrections PyTerrier users pass through to statsmodels (its names accepted too):
    irframe's values against each procedure written out by definition, with statsmodels and
    (but Hommel's) with the built-in code."""
    pytest.importorskip("statsmodels")
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(0, 0.2, size=6) ** 1.5, 6)
    want = _brute_adjust(list(p), method)
    np.testing.assert_allclose(irs.adjust_pvalues(p, method), want, rtol=1e-12, atol=1e-15)
    if method != "hommel":
        got = irs.adjust_pvalues(p, method, use_statsmodels=False)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "name, ours",
    [
        ("hs", "holm-sidak"),
        ("h", "holm"),
        ("fdr_by", "by"),
        ("sh", "simes-hochberg"),
        ("ho", "hommel"),
        ("s", "sidak"),
        ("fdr_bh", "bh"),
        ("Holm-Sidak", "holm-sidak"),
    ],
)
def test_statsmodels_correction_names_are_the_same_procedure(name, ours):
    """statsmodels' multipletests names (PyTerrier's correction=) are read as the procedure
    they name, not as a near spelling (hs was 'Did you mean bh?')."""
    pytest.importorskip("statsmodels")
    p = [0.01, 0.02, 0.03, 0.2]
    np.testing.assert_array_equal(irs.adjust_pvalues(p, name), irs.adjust_pvalues(p, ours))


def test_alpha_dependent_procedures_and_tukey_get_a_pointer():
    p = [0.01, 0.02]
    for name in ("fdr_tsbh", "fdr_tsbky", "fdr_gbs", "lfdr"):
        with pytest.raises(OptionError, match="depend on alpha"):
            irs.adjust_pvalues(p, name)
    cube = xr.DataArray(
        np.arange(12, dtype=float).reshape(3, 4, 1) / 12,
        dims=("system", "topic", "measure"),
        coords={"system": ["a", "b", "c"], "topic": list("wxyz"), "measure": ["AP"]},
    )
    with pytest.raises(OptionError, match=r"irframe.stats.tukey_hsd\(cube\) \(two_way=False"):
        irs.compare(cube, test="tukey")


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization"])
def test_identical_systems_stay_in_the_correction_family(test):
    """Two identical systems: p = 1 under every test (the t test gave NaN, t = 0/0, which
    left the pair out of the Holm family and lowered every other pair's adjusted p).
    Adjusted p-values equal statsmodels' Holm over all six pairs, the identical one at 1."""
    rng = np.random.default_rng(5)
    base = rng.uniform(0, 1, 12)
    scores = np.stack(
        [base, base, base + rng.normal(0.1, 0.2, 12), base + rng.normal(0.2, 0.2, 12)]
    )
    cube = xr.DataArray(
        scores[:, :, None],
        dims=("system", "topic", "measure"),
        coords={"system": list("abcd"), "topic": [f"t{i}" for i in range(12)], "measure": ["AP"]},
    )
    res = irs.compare(cube, test=test, correction="holm", rng=0, n_samples=999).sel(measure="AP")
    assert res.pvalue.sel(system="a", other="b").item() == 1.0
    pairs = [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    raw = np.array([res.pvalue.sel(system=x, other=y).item() for x, y in pairs])
    want = multipletests(raw, method="holm")[1]
    got = [res.pvalue_adjusted.sel(system=x, other=y).item() for x, y in pairs]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    if test == "t":  # scipy's own p on a differing pair
        ref = st.ttest_rel(scores[0], scores[2]).pvalue
        assert res.pvalue.sel(system="a", other="c").item() == pytest.approx(ref, rel=1e-12)


def test_sign_test_refuses_a_cube_that_is_not_antisymmetric():
    """(b, a) got the adjusted p-value of (a, b) beside its own raw p (1.0 next to 0.0215,
    'significant'); a cube where p[b, a] != -p[a, b] is refused, and the one-direction
    call the message gives is binomtest's p."""
    p = np.zeros((2, 2, 10))
    p[0, 1] = [1] * 9 + [-1]
    p[1, 0] = [1] * 5 + [-1] * 5
    pref = xr.DataArray(
        p,
        dims=("system", "other", "topic"),
        coords={"system": ["a", "b"], "other": ["a", "b"], "topic": [f"t{i}" for i in range(10)]},
    )
    with pytest.raises(InputError, match="preference cube is not antisymmetric") as e:
        irs.sign_test(pref)
    code = re.search(r"sign_test\((pref\.sel\(.*?\))\)\.$", str(e.value)).group(1)
    one = irs.sign_test(eval(code, {}, {"pref": pref}))
    assert one.pvalue.sel(system="a", other="b").item() == pytest.approx(
        st.binomtest(9, 10).pvalue, rel=1e-12
    )
    anti = pref.copy(data=np.stack([p[0], -p[0, ::-1]]))  # (b, a) = -(a, b)
    res = irs.sign_test(anti)
    assert (
        res.pvalue_adjusted.sel(system="b", other="a").item()
        == res.pvalue.sel(system="a", other="b").item()
    )


def test_a_constant_cube_leaks_no_numpy_warning():
    """Tukey HSD on systems with equal scores everywhere: effect_size is 0/0, NaN, without
    numpy's 'invalid value encountered in divide' reaching the user."""
    import warnings

    cube = xr.DataArray(
        np.full((3, 10, 1), 0.5),
        dims=("system", "topic", "measure"),
        coords={"system": list("abc"), "topic": [f"t{i}" for i in range(10)], "measure": ["AP"]},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = irs.tukey_hsd(cube)
    assert np.isnan(res.effect_size.sel(system="a", other="b").item())
