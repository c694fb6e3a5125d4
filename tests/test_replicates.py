"""Replicate-aware comparisons (several runs per system: seeds, folds).

Outside references: statsmodels' MixedLM fitted directly on the long data (REML,
crossed random effects for topic, system x topic and replicate run), and a seeded
simulation of the Type-I error rate."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from conftest import reference_module  # skips, or fails with CI=true, when absent

from irframe import stats as irs

smf = reference_module("statsmodels.formula.api")


def simulate(S, R, T, rng, *, shift=None, sd_topic=1.0, sd_st=0.3, sd_run=0.4, sd_e=0.2, extra=()):
    """Scores y[s, r, t] = shift_s + topic_t + st_{s,t} + run_{s,r} + e (plus leading extra dims)."""
    shape = tuple(extra)
    topic = rng.normal(0, sd_topic, (*shape, 1, 1, T))
    st = rng.normal(0, sd_st, (*shape, S, 1, T))
    run = rng.normal(0, sd_run, (*shape, S, R, 1))
    e = rng.normal(0, sd_e, (*shape, S, R, T))
    mu = np.zeros(S) if shift is None else np.asarray(shift, float)
    return mu[:, None, None] + topic + st + run + e


def as_cube(Y, extra_dims=()):
    S, R, T = Y.shape[-3:]
    dims = (*extra_dims, "system", "replicate", "topic")
    return xr.DataArray(
        Y,
        dims=dims,
        coords={
            "system": [f"s{i}" for i in range(S)],
            "replicate": [f"seed{r}" for r in range(R)],
            "topic": [f"t{t}" for t in range(T)],
        },
    )


def mixedlm_pair(Y, a, b, *, components=("topic", "st", "run"), method=None):
    """Fit y ~ system with variance components topic, system:topic and run, by REML."""
    R, T = Y.shape[1:]
    rows = [
        (s, f"{s}_{r}", t, Y[s, r, t])
        for s in (a, b)
        for r in range(R)
        for t in range(T)
        if not np.isnan(Y[s, r, t])
    ]  # an absent run has no rows
    df = pd.DataFrame(rows, columns=["sys", "run", "topic", "y"])
    df["sys"] = (df["sys"] == a).astype(int)  # effect = a - b
    df["st"] = df["sys"].astype(str) + "_" + df["topic"].astype(str)
    df["g"] = 1
    model = smf.mixedlm(
        "y ~ sys", df, groups="g", re_formula="0", vc_formula={c: f"0 + C({c})" for c in components}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = (
            model.fit(reml=True)
            if method is None
            else model.fit(reml=True, method=method, maxiter=20_000)
        )
    return fit.fe_params["sys"], fit.bse["sys"], fit.vcomp, fit.llf


@pytest.mark.parametrize("seed,R,T", [(5, 3, 15), (11, 4, 12)])
def test_matches_statsmodels_mixedlm(seed, R, T):
    rng = np.random.default_rng(seed)
    Y = simulate(3, R, T, rng, shift=[0.0, 0.3, 0.6])
    res = irs.compare(as_cube(Y), replicates="replicate", correction=None)
    for a, b in [(1, 0), (2, 0), (2, 1)]:
        eff, se, vcomp, _ = mixedlm_pair(Y, a, b)
        assert (vcomp > 1e-3).all()  # the closed form is REML when no component is truncated at 0
        cell = res.sel(system=f"s{a}", other=f"s{b}")
        assert float(cell.effect) == pytest.approx(eff, rel=1e-9)
        assert float(cell.effect / cell.statistic) == pytest.approx(se, rel=2e-3)
        # the reversed cell is the mirror image
        rev = res.sel(system=f"s{b}", other=f"s{a}")
        assert float(rev.statistic) == pytest.approx(-float(cell.statistic))
        assert float(rev.ci_low) == pytest.approx(-float(cell.ci_high))


@pytest.mark.parametrize("seed", [5, 7])
def test_unequal_numbers_of_seeds_match_mixedlm(seed):
    rng = np.random.default_rng(seed)
    Y = simulate(2, 4, 15, rng, shift=[0.0, 0.3])
    Y[0, 3] = np.nan  # s0 has three seeds, s1 four
    cell = irs.compare(as_cube(Y), replicates="replicate", correction=None).sel(
        system="s1", other="s0"
    )
    eff, se, vcomp, _ = mixedlm_pair(Y, 1, 0)
    assert (vcomp > 1e-3).all()
    assert float(cell.effect) == pytest.approx(eff, rel=1e-9)
    assert float(cell.effect / cell.statistic) == pytest.approx(se, rel=2e-3)


@pytest.mark.parametrize("seed", [1, 2, 4, 7])
def test_negative_seed_variance_estimate_is_the_reml_boundary_solution(seed):
    # No seed effect: the ANOVA estimate of the run variance, S2_rep - MSE / n, comes out
    # negative and is set to 0 (then df = n - 1).  REML's maximum is then on the boundary
    # (run variance 0): the model without the run component, or the full model maximised by
    # Nelder-Mead, reaches it and gives the same standard error.  (statsmodels' default BFGS
    # stops short of the boundary with a lower REML likelihood and a larger SE, so it is not
    # the reference here.)
    rng = np.random.default_rng(seed)
    Y = simulate(2, 3, 15, rng, shift=[0.0, 0.3], sd_run=0.0)
    cell = irs.compare(as_cube(Y), replicates="replicate", correction=None).sel(
        system="s1", other="s0"
    )
    assert float(cell.df) == 14  # the estimate was truncated
    se = float(cell.effect / cell.statistic)
    eff, se_red, _, llf_red = mixedlm_pair(Y, 1, 0, components=("topic", "st"))
    assert float(cell.effect) == pytest.approx(eff, rel=1e-9)
    assert se == pytest.approx(se_red, rel=1e-4)
    _, se_nm, vcomp, llf_nm = mixedlm_pair(Y, 1, 0, method="nm")
    assert vcomp[0] < 1e-5  # run component (names sorted)
    assert llf_nm == pytest.approx(llf_red, abs=1e-3)
    assert se == pytest.approx(se_nm, rel=1e-3)


@pytest.mark.parametrize("seed", [0, 1, 2, 4])
def test_negative_seed_variance_with_unequal_seeds_close_to_reml(seed):
    # unbalanced: the truncated ANOVA estimator is no longer REML exactly, but close
    rng = np.random.default_rng(seed)
    Y = simulate(2, 4, 15, rng, shift=[0.0, 0.3], sd_run=0.0)
    Y[0, 3] = np.nan
    cell = irs.compare(as_cube(Y), replicates="replicate", correction=None).sel(
        system="s1", other="s0"
    )
    assert float(cell.df) == 14
    eff, se_nm, vcomp, _ = mixedlm_pair(Y, 1, 0, method="nm")
    assert vcomp[0] < 1e-5
    assert float(cell.effect) == pytest.approx(eff, rel=1e-9)
    assert float(cell.effect / cell.statistic) == pytest.approx(se_nm, rel=5e-3)


def test_missing_common_uses_the_topics_every_system_has():
    # missing="common" keeps only the topics every system was evaluated on, with replicates
    # as without; it used to act as "skip" (the pair's own topics).  Found by differential
    # fuzzing.
    rng = np.random.default_rng(5)
    Y = simulate(3, 3, 15, rng, shift=[0.0, 0.3, 0.6])
    Y[2, :, :4] = np.nan  # s2 not evaluated on four topics
    res = irs.compare(as_cube(Y), replicates="replicate", correction=None, missing="common")
    cell = res.sel(system="s1", other="s0")
    eff, se, vcomp, _ = mixedlm_pair(Y[:, :, 4:], 1, 0)  # the pair on the common topics
    assert (vcomp > 1e-3).all()
    assert float(cell.n_topics) == 11
    assert float(cell.effect) == pytest.approx(eff, rel=1e-9)
    assert float(cell.effect / cell.statistic) == pytest.approx(se, rel=2e-3)
    skip = irs.compare(as_cube(Y), replicates="replicate", correction=None).sel(
        system="s1", other="s0"
    )
    assert float(skip.n_topics) == 15


def test_corrections_and_layout_as_without_replicates():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(1)
    Y = simulate(4, 3, 10, rng, shift=[0, 0.1, 0.4, 0.8])
    raw = irs.compare(as_cube(Y), replicates="replicate", correction=None)
    holm = irs.compare(as_cube(Y), replicates="replicate", correction="holm")
    iu = np.triu_indices(4, 1)
    p = raw.pvalue.values[iu]
    np.testing.assert_allclose(holm.pvalue_adjusted.values[iu], multipletests(p, method="holm")[1])
    assert holm.attrs["test"] == "mixed_model" and "df" in holm
    assert holm.pvalue.dims == ("system", "other")
    base = irs.compare(as_cube(Y), "s0", replicates="replicate")
    assert base.pvalue.dims == ("system", "other") and list(base.other.values) == ["s0"]


def test_type_one_error_rate_replicate_aware_vs_topic_only():
    # 400 independent experiments in one cube (a "sim" dim, broadcast over): two systems
    # with equal means, 3 seeds each, 20 topics, and a seed-to-seed variance that the
    # topic-only test (paired t on the seed-averaged scores) ignores.
    n_sim = 400
    rng = np.random.default_rng(2024)
    Y = simulate(2, 3, 20, rng, sd_st=0.1, sd_run=0.3, sd_e=0.1, extra=(n_sim,))
    cube = as_cube(Y, ("sim",))
    aware = irs.compare(cube, replicates="replicate", correction=None)
    naive = irs.compare(cube.mean("replicate"), correction=None)
    rate_aware = float(aware.significant.sel(system="s1", other="s0").mean())
    rate_naive = float(naive.significant.sel(system="s1", other="s0").mean())
    # binomial standard error at 0.05 with 400 draws is 0.011; allow 3 of them
    assert abs(rate_aware - 0.05) < 0.033, rate_aware
    assert rate_naive > 0.3, rate_naive
    assert (round(rate_aware, 2), round(rate_naive, 2)) == (
        0.04,
        0.74,
    )  # the rates docs/judgments.md quotes


def test_absent_replicate_slots_and_errors():
    rng = np.random.default_rng(3)
    Y = simulate(2, 3, 10, rng)
    Y[0, 2, :] = np.nan  # system s0 has only two seeds
    res = irs.compare(as_cube(Y), replicates="replicate")
    assert np.isfinite(float(res.pvalue.sel(system="s0", other="s1")))
    assert float(res.effect.sel(system="s0", other="s1")) == pytest.approx(
        np.nanmean(Y[0]) - Y[1].mean()
    )
    with pytest.raises(ValueError, match="replicate"):
        irs.compare(as_cube(Y).isel(replicate=0, drop=True), replicates="replicate")
    one = irs.compare(as_cube(Y[:, :1]), replicates="replicate")
    assert np.isnan(one.pvalue).all()  # one run per system: the seed variance is not estimable


def test_run_frame_with_replicate_column_gives_replicate_dim():
    import irframe as irf

    qrels, runs = irf.datasets.trec_eval_sample()
    runs = pd.concat([runs, runs.assign(system="other")], ignore_index=True)
    rng = np.random.default_rng(0)
    seeds = []
    for seed in (7, 8, 9):
        r = runs.copy()
        r["score"] = r["score"] + rng.normal(scale=0.5, size=len(r))
        seeds.append(r.assign(seed=seed))
    frame = pd.concat(seeds, ignore_index=True)
    frame = frame[~((frame.seed == 9) & (frame.system == "other"))]  # one run missing
    cube = irf.evaluate(frame, qrels, ["AP", "P@10"], columns={"replicate": "seed"})
    assert cube.dims == ("system", "replicate", "topic", "measure")
    assert list(cube.replicate.values) == [7, 8, 9]
    for seed in (7, 8):
        one = irf.evaluate(frame[frame.seed == seed].drop(columns="seed"), qrels, ["AP", "P@10"])
        np.testing.assert_allclose(
            cube.sel(replicate=seed).sel(system=one.system, topic=one.topic).values, one.values
        )
    assert cube.sel(replicate=9, system="other").isnull().all()  # "other" lacks seed 9
    assert cube.sel(replicate=9).drop_sel(system="other").notnull().any()
    # a column named "replicate" is recognised without columns=
    auto = irf.evaluate(frame.rename(columns={"seed": "replicate"}), qrels, "AP")
    assert auto.dims == ("system", "replicate", "topic", "measure")
    with pytest.raises(Exception, match="replicate"):
        irf.evaluate(frame, qrels, "AP", columns={"replicate": "fold"})
