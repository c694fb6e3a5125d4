"""Tests of irframe.meta: metric unanimity, Kendall tau, stability, discriminative power, label degradation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import assume, given, settings
from hypothesis import strategies as hst
from scipy import stats as st

from irframe import meta
from irframe import stats as irs


def cube3(x, systems=None, measures=None):
    x = np.asarray(x, float)
    S, T, K = x.shape
    return xr.DataArray(
        x,
        dims=("system", "topic", "measure"),
        coords={
            "system": systems or [f"s{i}" for i in range(S)],
            "topic": [f"t{t}" for t in range(T)],
            "measure": measures or [f"m{k}" for k in range(K)],
        },
    )


# ---------------------------------------------------------------------------
# Metric Unanimity (seed 001, section 6.1)
# ---------------------------------------------------------------------------

SEED_EXAMPLE = np.array([[1, 0.8, 1], [0.5, 0.3, 0.2], [0.2, 0.4, 0.5]])[:, None, :]


def test_mu_worked_example_0415():
    cube = cube3(SEED_EXAMPLE, systems=["S1", "S2", "S3"], measures=["m1", "m2", "m3"])
    mu = meta.metric_unanimity(cube)
    # log2((2/6) / (3/6 * 3/6)) = log2(4/3)
    assert float(mu.sel(measure="m1")) == pytest.approx(math.log2(4 / 3))
    assert round(float(mu.sel(measure="m1")), 3) == 0.415
    # Property 3 (asymmetry) on the same example: m2 and m3 capture every unanimous improvement
    assert float(mu.sel(measure="m2")) == pytest.approx(1.0)
    assert float(mu.sel(measure="m3")) == pytest.approx(1.0)
    assert mu.attrs["n_pairs"] == 6
    # the natural log is just a rescaling
    assert float(meta.metric_unanimity(cube, base=math.e).sel(measure="m1")) == pytest.approx(
        math.log(4 / 3)
    )
    # single measure selection
    assert meta.metric_unanimity(cube, ["m1"]).sizes["measure"] == 1


def brute_mu(x, m, ref, base=2):
    """Slow reference: loop over topics and ordered pairs of distinct systems."""
    S, T, _K = x.shape
    n = jm = jM = joint = 0.0
    for t in range(T):
        for i in range(S):
            for j in range(S):
                if i == j or np.isnan(x[i, t]).any() or np.isnan(x[j, t]).any():
                    continue
                n += 1
                dm = 1.0 if x[i, t, m] > x[j, t, m] else 0.5 if x[i, t, m] == x[j, t, m] else 0.0
                dM = all(x[i, t, k] >= x[j, t, k] for k in ref if k != m)
                jm += dm
                jM += dM
                joint += dm * dM
    return (
        math.log(joint / n / ((jm / n) * (jM / n)), base)
        if jM > 0 and joint > 0
        else (np.nan if jM == 0 else -np.inf)
    )


@pytest.mark.parametrize("seed", range(4))
def test_mu_matches_brute_force_with_ties_and_nan(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, size=(5, 4, 4)).astype(float)  # many ties
    x[1, 2, 0] = np.nan
    cube = cube3(x)
    mu = meta.metric_unanimity(cube)
    for m in range(4):
        assert float(mu.values[m]) == pytest.approx(brute_mu(x, m, range(4)))
    # explicit reference set
    mu2 = meta.metric_unanimity(cube, ["m0"], others=["m1", "m2"])
    assert float(mu2.values[0]) == pytest.approx(brute_mu(x, 0, [1, 2]))


def test_mu_level_system_uses_means():
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(6, 5, 3))
    mu = meta.metric_unanimity(cube3(x), level="system")
    xm = x.mean(axis=1, keepdims=True)
    for m in range(3):
        assert float(mu.values[m]) == pytest.approx(brute_mu(xm, m, range(3)))
    assert mu.attrs["n_pairs"] == 30


def test_mu_on_cxa_grid_unflattens():
    rng = np.random.default_rng(1)
    x = rng.uniform(size=(5, 3, 2, 3))
    grid = xr.DataArray(
        x,
        dims=("system", "topic", "C", "A"),
        coords={"C": ["RBP", "AP2"], "A": ["fin", "avg", "max"]},
    )
    mu = meta.metric_unanimity(grid)
    assert set(mu.dims) == {"C", "A"}
    flat = cube3(x.reshape(5, 3, 6))
    ref = meta.metric_unanimity(flat).values.reshape(2, 3)
    np.testing.assert_allclose(mu.transpose("C", "A").values, ref)


def test_mu_errors():
    cube = cube3(SEED_EXAMPLE)
    with pytest.raises(KeyError, match="available"):
        meta.metric_unanimity(cube, ["nDCG"])
    with pytest.raises(ValueError, match=r"several measures|at least 2 measures"):
        meta.metric_unanimity(cube.isel(measure=0))
    with pytest.raises(ValueError, match="dims"):
        meta.metric_unanimity(cube.rename(topic="q"))


# strategies: S systems x K reference measures with distinct values per measure (no ties in M)
@hst.composite
def untied_reference(draw, min_s=3, max_s=7, min_k=1, max_k=4):
    S = draw(hst.integers(min_s, max_s))
    K = draw(hst.integers(min_k, max_k))
    cols = [draw(hst.permutations(list(range(S)))) for _ in range(K)]
    return np.array(cols, float).T  # (S, K)


@settings(max_examples=60, deadline=None)
@given(
    M=untied_reference(),
    w1=hst.lists(hst.floats(0.1, 10), min_size=4, max_size=4),
    w2=hst.lists(hst.floats(0.1, 10), min_size=4, max_size=4),
    other=hst.data(),
)
def test_mu_property1_capturing_all_unanimous_improvements_maximises(M, w1, w2, other):
    """Property 1: a metric reporting every unanimous improvement has maximal MU, whatever else it does."""
    S, K = M.shape
    ma = M @ np.array(w1[:K])  # positive combinations: strictly better whenever all of M are
    mb = M @ np.array(w2[:K])
    rnd = np.array(other.draw(hst.lists(hst.integers(0, 3), min_size=S, max_size=S)), float)
    x = np.column_stack([ma, mb, rnd, M])[:, None, :]
    ref = list(range(3, 3 + K))
    mu = meta.metric_unanimity(cube3(x), ["m0", "m1", "m2"], others=[f"m{k}" for k in ref])
    assume(np.isfinite(mu.values[0]))
    assert mu.values[0] == pytest.approx(1.0)  # log2(P(dM) / (1/2 P(dM)))
    assert mu.values[1] == pytest.approx(mu.values[0])  # regardless of the other decisions
    assert mu.values[2] <= mu.values[0] + 1e-12  # nobody does better


@settings(max_examples=60, deadline=None)
@given(
    x=hst.lists(hst.lists(hst.integers(0, 5), min_size=3, max_size=3), min_size=2, max_size=8),
    c=hst.floats(-1, 1),
)
def test_mu_property2_constant_metric_has_zero_mu(x, c):
    x = np.array(x, float)
    S = x.shape[0]
    data = np.column_stack([np.full(S, c), x])[:, None, :]
    mu = meta.metric_unanimity(cube3(data), ["m0"])
    assume(not np.isnan(mu.values[0]))  # MU is undefined when no pair is unanimously improved
    assert mu.values[0] == pytest.approx(0.0, abs=1e-12)


def test_mu_property2_random_metric_near_zero():
    rng = np.random.default_rng(5)
    M = rng.uniform(size=(40, 30, 3))
    M[..., 1] += M[..., 0]
    rnd = rng.uniform(size=(40, 30, 1))
    mu = meta.metric_unanimity(cube3(np.concatenate([rnd, M], axis=2)), ["m0"])
    assert abs(float(mu.values[0])) < 0.03


def test_mu_property3_asymmetry():
    cube = cube3(SEED_EXAMPLE)
    mu = meta.metric_unanimity(cube).values
    assert not (mu[0] == mu[1] == mu[2])


@settings(max_examples=60, deadline=None)
@given(
    x=hst.lists(hst.lists(hst.integers(0, 4), min_size=3, max_size=3), min_size=3, max_size=8),
    reps=hst.integers(1, 4),
)
def test_mu_property4_duplicated_reference_metric_does_not_matter(x, reps):
    x = np.array(x, float)
    base = cube3(x[:, None, :])
    dup = np.column_stack([x] + [x[:, 2]] * reps)[:, None, :]
    mu1 = meta.metric_unanimity(base, ["m0"])
    mu2 = meta.metric_unanimity(cube3(dup), ["m0"])
    np.testing.assert_allclose(mu1.values, mu2.values)


@settings(max_examples=40, deadline=None)
@given(x=hst.lists(hst.lists(hst.integers(0, 10), min_size=3, max_size=3), min_size=3, max_size=7))
def test_mu_invariant_to_monotone_transforms(x):
    x = np.array(x, float) / 10
    y = x.copy()
    y[:, 1] = np.exp(3 * y[:, 1]) - 7
    a = meta.metric_unanimity(cube3(x[:, None, :])).values
    b = meta.metric_unanimity(cube3(y[:, None, :])).values
    np.testing.assert_allclose(a, b)


# ---------------------------------------------------------------------------
# Kendall tau
# ---------------------------------------------------------------------------


def test_tau_ap_hand_examples():
    truth = pd.Series({"A": 4, "B": 3, "C": 2, "D": 1})
    top_swap = pd.Series({"B": 4, "A": 3, "C": 2, "D": 1})
    bottom_swap = pd.Series({"A": 4, "B": 3, "D": 2, "C": 1})
    # by hand: C(2)=0, C(3)=2, C(4)=3 -> 2/3 (0 + 1 + 1) - 1 = 1/3
    assert meta.kendall_tau(top_swap, truth, variant="ap") == pytest.approx(1 / 3)
    # by hand: 1 + 1 + 2/3 -> 2/3 * 8/3 - 1 = 7/9
    assert meta.kendall_tau(bottom_swap, truth, variant="ap") == pytest.approx(7 / 9)
    # plain tau does not see where the swap is
    assert meta.kendall_tau(top_swap, truth, variant="a") == pytest.approx(2 / 3)
    assert meta.kendall_tau(bottom_swap, truth, variant="a") == pytest.approx(2 / 3)
    rev = -truth
    for v in ("a", "b", "ap"):
        assert meta.kendall_tau(truth, truth, variant=v) == pytest.approx(1.0)
        assert meta.kendall_tau(rev, truth, variant=v) == pytest.approx(-1.0)


def test_tau_b_matches_scipy_and_alignment():
    rng = np.random.default_rng(0)
    a = pd.Series(rng.integers(0, 5, 12).astype(float), index=[f"s{i}" for i in range(12)])
    b = pd.Series(rng.integers(0, 5, 12).astype(float), index=a.index)
    assert meta.kendall_tau(a, b) == pytest.approx(st.kendalltau(a.values, b.values).statistic)
    shuffled = b.sample(frac=1, random_state=1)
    assert meta.kendall_tau(a, shuffled) == pytest.approx(meta.kendall_tau(a, b))
    da = xr.DataArray(a.values, dims="system", coords={"system": a.index})
    assert meta.kendall_tau(da, shuffled) == pytest.approx(meta.kendall_tau(a, b))
    with pytest.raises(KeyError):
        meta.kendall_tau(a, b.rename({"s0": "zz"}))
    with pytest.raises(ValueError, match="variant"):
        meta.kendall_tau(a, b, variant="c")


def test_tau_a_no_ties_equals_tau_b():
    rng = np.random.default_rng(3)
    a, b = rng.permutation(10), rng.permutation(10)
    assert meta.kendall_tau(a, b, variant="a") == pytest.approx(meta.kendall_tau(a, b, variant="b"))


def test_correlation_matrix():
    rng = np.random.default_rng(2)
    x = rng.uniform(size=(8, 10, 3))
    cube = cube3(x, measures=["AP", "nDCG", "P@10"])
    for method in ("kendall", "tau_ap", "spearman", "pearson", "tau_a"):
        c = meta.correlation_matrix(cube, method=method)
        assert c.dims == ("measure", "other_measure")
        np.testing.assert_allclose(np.diag(c.values), 1.0)
    c = meta.correlation_matrix(cube)
    np.testing.assert_allclose(c.values, c.values.T)
    means = cube.mean("topic")
    assert float(c.sel(measure="AP", other_measure="P@10")) == pytest.approx(
        meta.kendall_tau(means.sel(measure="AP"), means.sel(measure="P@10"))
    )
    ap = meta.correlation_matrix(cube, method="tau_ap")
    assert float(ap.sel(measure="AP", other_measure="nDCG")) == pytest.approx(
        meta.kendall_tau(means.sel(measure="AP"), means.sel(measure="nDCG"), variant="ap")
    )


# ---------------------------------------------------------------------------
# stability / swap rate
# ---------------------------------------------------------------------------


def test_stability_closed_form():
    # a = [1,1,0,0], b = 0.5: of the 6 two-topic subsets a wins 1, loses 1, ties 4
    x = np.array([[1, 1, 0, 0], [0.5, 0.5, 0.5, 0.5]], float)[:, :, None]
    cube = cube3(x)
    tab = meta.stability(cube, n_trials=30000, rng=0)
    row = tab.loc["m0"]
    assert row["n_topics"] == 2 and row["pairs"] == 1
    assert row["stability"] == pytest.approx(1 / 6, abs=0.01)
    assert row["swap_rate"] == pytest.approx(1 / 6, abs=0.01)
    assert row["tie_rate"] == pytest.approx(2 / 3, abs=0.01)
    sw = meta.swap_rate(cube, n_splits=30000, rng=0).loc["m0"]
    # the halves {0,1}|{2,3} (2 of 6 ordered splits... i.e. 1/3) order the pair oppositely
    assert sw["swap_rate"] == pytest.approx(1 / 3, abs=0.01)


def test_stability_perfect_and_reproducible():
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(5, 20, 2)) * 0.1 + np.arange(5)[:, None, None]
    cube = cube3(x)
    tab = meta.stability(cube, n_trials=200, rng=1)
    assert (tab["stability"] == 1).all() and (tab["swap_rate"] == 0).all()
    noisy = cube3(rng.uniform(size=(5, 20, 2)))
    t1 = meta.stability(noisy, n_trials=300, rng=7)
    t2 = meta.stability(noisy, n_trials=300, rng=np.random.default_rng(7))
    pd.testing.assert_frame_equal(t1, t2)
    table, pairs = meta.stability(noisy, n_trials=300, rng=7, per_pair=True)
    pd.testing.assert_frame_equal(table, t1)
    st_pairs = pairs.stability.values
    iu = np.triu_indices(5, 1)
    np.testing.assert_allclose(st_pairs[iu[0], iu[1], :].mean(axis=0), t1["stability"].values)
    with pytest.raises(ValueError):
        meta.stability(noisy, n_topics=50)


def test_stability_fuzziness_turns_small_differences_into_ties():
    x = np.array([[1.0] * 6, [1.01] * 6], float)[:, :, None]
    assert meta.stability(cube3(x), n_trials=50, rng=0, fuzziness=0.05).loc["m0", "tie_rate"] == 1.0
    assert meta.stability(cube3(x), n_trials=50, rng=0).loc["m0", "stability"] == 1.0


# ---------------------------------------------------------------------------
# discriminative power
# ---------------------------------------------------------------------------


def _dp_cube():
    rng = np.random.default_rng(0)
    topic = rng.normal(size=(1, 40, 1))
    x = topic + rng.normal(size=(6, 40, 2))
    x[..., 0] += np.arange(6)[:, None] * 1.5  # well separated
    x[..., 1] += np.arange(6)[:, None] * 0.25  # some pairs separable, some not
    return cube3(x, measures=["good", "mixed"])


def test_discriminative_power_tukey_matches_statsmodels_anova_and_studentized_range():
    """Independent computation: statsmodels' two-way OLS residual MSE, scipy's studentized range."""
    import statsmodels.formula.api as smf

    cube = _dp_cube()
    dp = meta.discriminative_power(cube, test="tukey", alpha=0.05)
    S, T = cube.sizes["system"], cube.sizes["topic"]
    for m in ("good", "mixed"):
        df = cube.sel(measure=m).to_dataframe("y").reset_index()
        fit = smf.ols("y ~ C(system) + C(topic)", data=df).fit()
        means = df.groupby("system").y.mean().to_numpy()
        q = np.abs(means[:, None] - means[None, :]) / np.sqrt(fit.mse_resid / T)
        p = st.studentized_range.sf(q[np.triu_indices(S, 1)], S, fit.df_resid)
        assert dp.loc[m, "significant"] == int((p < 0.05).sum())
        assert dp.loc[m, "pairs"] == S * (S - 1) // 2 == 15
    assert dp.loc["good", "power"] == 1.0
    assert 0 < dp.loc["mixed", "power"] < 1


def test_discriminative_power_paired_t_matches_scipy_ttest_rel():
    cube = _dp_cube()
    dp = meta.discriminative_power(cube, test="t", alpha=0.01)
    S = cube.sizes["system"]
    for m in ("good", "mixed"):
        x = cube.sel(measure=m).values
        p = [st.ttest_rel(x[i], x[j]).pvalue for i in range(S) for j in range(i + 1, S)]
        assert dp.loc[m, "significant"] == sum(pv < 0.01 for pv in p)
    dp2 = meta.discriminative_power(
        cube.sel(measure="good"), test="randomization", n_samples=500, rng=0
    )
    assert dp2.index.tolist() == ["good"]


def test_discriminative_power_preference_cube_matches_binomtest_with_holm():
    """Sign test per distinct pair (scipy.stats.binomtest, ties dropped), Holm by statsmodels."""
    from statsmodels.stats.multitest import multipletests
    from test_stats import make_pref

    pref = make_pref(S=6, T=40)
    dp = meta.discriminative_power(pref)
    v = pref.values
    p = []
    for i in range(6):
        for j in range(i + 1, 6):
            wins, losses = int((v[i, j] > 0).sum()), int((v[i, j] < 0).sum())
            p.append(st.binomtest(wins, wins + losses, 0.5).pvalue)
    reject = multipletests(p, alpha=0.05, method="holm")[0]
    assert dp["pairs"].iloc[0] == 15
    assert dp["significant"].iloc[0] == int(reject.sum())
    assert 0 < int(reject.sum()) < 15


# ---------------------------------------------------------------------------
# label degradation
# ---------------------------------------------------------------------------


def make_qrels():
    rows = []
    for t, nrel in (("1", 10), ("2", 4), ("3", 1)):
        rows += [(t, f"d{t}_{i}", 1 if i < nrel else 0) for i in range(nrel + 3)]
    return pd.DataFrame(rows, columns=["topic", "doc", "rel"])


def test_degrade_qrels_counts_and_immutability():
    q = make_qrels()
    before = q.copy()
    out = meta.degrade_qrels(q, 0.5, rng=0)
    pd.testing.assert_frame_equal(q, before)
    nrel = out[out.rel >= 1].groupby("topic").size()
    assert nrel.to_dict() == {"1": 5, "2": 2, "3": 1}  # at least one relevant is kept
    assert (out.rel == 0).sum() == (q.rel == 0).sum()  # non-relevant judgments untouched
    allgone = meta.degrade_qrels(q, 1.0, rng=0)
    assert allgone[allgone.rel >= 1].groupby("topic").size().to_dict() == {"1": 1, "2": 1, "3": 1}
    zero = meta.degrade_qrels(q, 0.5, rng=0, how="zero")
    assert len(zero) == len(q) and (zero.rel >= 1).sum() == 8
    pd.testing.assert_frame_equal(
        meta.degrade_qrels(q, 0.5, rng=3), meta.degrade_qrels(q, 0.5, rng=3)
    )


def test_degrade_qrels_by_frequency_removes_popular_first():
    q = make_qrels()
    runs = pd.DataFrame(
        [(f"sys{s}", "1", f"d1_{i}") for s in range(10) for i in range(3)]
        + [("sys0", "1", "d1_5")],
        columns=["system", "topic", "doc"],
    )
    removed = {}
    for seed in range(200):
        out = meta.degrade_qrels(q, 0.3, method="frequency", runs=runs, rng=seed)  # 3 of 10 removed
        gone = set(q.doc[(q.topic == "1") & (q.rel >= 1)]) - set(out.doc)
        assert len(gone) == 3
        # documents no ranking retrieves only go once every retrieved one is gone
        assert gone <= {"d1_0", "d1_1", "d1_2", "d1_5"}
        for d in gone:
            removed[d] = removed.get(d, 0) + 1
    # popular (10 rankings) documents go far more often than the one retrieved once
    assert min(removed[d] for d in ("d1_0", "d1_1", "d1_2")) > 150
    assert removed.get("d1_5", 0) < 100
    uniform = [meta.degrade_qrels(q, 0.3, rng=seed) for seed in range(200)]
    hits = sum("d1_0" not in set(u.doc) for u in uniform)
    assert 30 < hits < 100  # about 3/10 of 200
    with pytest.raises(ValueError, match="runs="):
        meta.degrade_qrels(q, 0.3, method="frequency")


def test_label_degradation_ties_and_agreement():
    q = make_qrels()
    retrieved = {
        "a": [f"d1_{i}" for i in range(6)] + ["d2_0"],
        "b": [f"d1_{i}" for i in range(4, 10)] + ["d2_1", "d2_2"],
    }

    def evaluate(qr):
        rel = qr[qr.rel >= 1]
        x = np.zeros((2, 3, 1))
        for s, sys in enumerate(("a", "b")):
            for t, topic in enumerate(("1", "2", "3")):
                x[s, t, 0] = len(set(rel.doc[rel.topic == topic]) & set(retrieved[sys]))
        return cube3(x, systems=["a", "b"], measures=["numrelret"])

    tab = meta.label_degradation(q, evaluate, fractions=[0.0, 0.5, 0.9], n_repeats=3, rng=0)
    full = tab[tab.fraction == 0].iloc[0]
    assert full["agreement"] == 1.0 and full["comparisons"] == 3
    # topic 1: both retrieve 6 relevant; topic 3: neither retrieves its relevant doc
    assert full["ties"] == pytest.approx(2 / 3)
    assert len(tab) == 1 + 2 * 3
    assert set(tab.columns) == {"fraction", "repeat", "measure", "ties", "agreement", "comparisons"}
    assert (tab.ties >= 0).all() and (tab.agreement <= 1).all()
    # reproducible
    pd.testing.assert_frame_equal(
        tab, meta.label_degradation(q, evaluate, fractions=[0.0, 0.5, 0.9], n_repeats=3, rng=0)
    )


# ---------------------------------------------------------------------------
# end to end on irframe's own evaluation of a synthetic collection
# ---------------------------------------------------------------------------


def test_end_to_end_with_core_evaluate():
    irf = pytest.importorskip("irframe")
    if not hasattr(irf, "evaluate") or not hasattr(irf, "datasets"):
        pytest.skip("irframe.evaluate is not available")
    qrels, runs = irf.datasets.synthetic(systems=6, topics=20, depth=100, rng=1)
    cube = irf.evaluate(runs, qrels, ["AP", "nDCG@10", "P@10", "R@100"])
    res = irs.compare(cube.sel(measure="AP"), baseline=str(cube.system.values[0]), test="t")
    assert res.pvalue.dims == ("system", "other")
    dp = meta.discriminative_power(cube)
    assert list(dp.index) == ["AP", "nDCG@10", "P@10", "R@100"]
    assert (dp["power"] > 0.5).all()  # skills differ strongly in datasets.synthetic
    mu = meta.metric_unanimity(cube)
    assert np.isfinite(mu.values).all()
    tab = meta.label_degradation(
        qrels,
        lambda q: irf.evaluate(runs, q, ["AP", "R@100"]),
        fractions=[0, 0.5],
        method="frequency",
        runs=runs,
        rng=0,
    )
    full = tab[tab.fraction == 0]
    assert (full.agreement == 1).all()
    half = tab[tab.fraction == 0.5].set_index("measure")
    assert (half.agreement < 1).all()


def test_label_degradation_progress_bar_changes_nothing(capsys):
    pytest.importorskip("tqdm")
    import irframe as irf

    qrels, runs = irf.datasets.synthetic(4, 6, 30, rng=2)

    def evaluate(q):
        return irf.evaluate(runs, q, ["AP"])

    quiet = meta.label_degradation(qrels, evaluate, fractions=(0.0, 0.5), n_repeats=2, rng=1)
    shown = meta.label_degradation(
        qrels, evaluate, fractions=(0.0, 0.5), n_repeats=2, rng=1, progress=True
    )
    pd.testing.assert_frame_equal(quiet, shown)
    assert "label degradation" in capsys.readouterr().err  # tqdm writes the bar to stderr
