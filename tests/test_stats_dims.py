"""Statistics over named dimensions: extra dims (qrels, replicate, C x A grid, ...) are
broadcast over, and the result of every cell equals the test run on that slice alone
(property tests: the slices themselves are checked against scipy/statsmodels in
test_stats.py and test_meta.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from irframe import meta
from irframe import stats as irs


def cube4(S=4, T=12, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=(S, T, 2, 3)) + np.linspace(0, 0.3, S)[:, None, None, None]
    return xr.DataArray(
        x,
        dims=("system", "topic", "measure", "qrels"),
        coords={
            "system": [f"s{i}" for i in range(S)],
            "topic": [f"t{t}" for t in range(T)],
            "measure": ["AP", "P@10"],
            "qrels": ["nist", "bin", "noisy"],
        },
    )


@pytest.mark.parametrize("test", ["t", "wilcoxon", "bootstrap"])
def test_compare_broadcasts_over_extra_dims(test):
    cube = cube4()
    res = irs.compare(cube, baseline="s0", test=test, n_samples=200, rng=0)
    assert res.pvalue.dims == ("system", "other", "measure", "qrels")
    for q in cube.qrels.values:
        for m in cube.measure.values:
            one = (
                irs.compare(
                    cube.sel(qrels=q, measure=m).drop_vars("qrels"), baseline="s0", test="t"
                )
                if test == "t"
                else None
            )
            if one is not None:
                got = res.sel(qrels=q, measure=m)
                for v in ("statistic", "pvalue", "pvalue_adjusted", "ci_low", "ci_high", "effect"):
                    np.testing.assert_allclose(got[v].values, one[v].values, equal_nan=True)


def test_compare_named_topic_dim_and_transposed():
    cube = cube4()
    a = irs.compare(cube, test="t")
    b = irs.compare(
        cube.rename(topic="query").transpose("qrels", "query", "measure", "system"),
        test="t",
        dim="query",
    )
    xr.testing.assert_allclose(a, b.transpose(*a.pvalue.dims))
    with pytest.raises(ValueError, match="dim="):
        irs.compare(cube.rename(topic="query"))


def test_tukey_anova_mean_ci_broadcast():
    cube = cube4()
    tk = irs.tukey_hsd(cube)
    assert tk.pvalue.dims == ("system", "other", "measure", "qrels")
    one = irs.tukey_hsd(cube.sel(qrels="bin", measure="AP"))
    np.testing.assert_allclose(
        tk.pvalue.sel(qrels="bin", measure="AP").values, one.pvalue.values, equal_nan=True
    )
    av = irs.anova(cube)
    assert av.index.names == ["measure", "qrels", "source"]
    pd.testing.assert_frame_equal(
        av.xs(("P@10", "noisy"), level=["measure", "qrels"]),
        irs.anova(cube.sel(qrels="noisy", measure="P@10")),
    )
    mc = irs.mean_ci(cube)
    assert mc["mean"].dims == ("system", "measure", "qrels")


def test_meta_tables_indexed_by_every_broadcast_dim():
    cube = cube4()
    dp = meta.discriminative_power(cube, test="t")
    assert dp.index.names == ["measure", "qrels"] and len(dp) == 6
    one = meta.discriminative_power(cube.sel(qrels="bin"), test="t")
    assert dp.loc[("AP", "bin"), "significant"] == one.loc["AP", "significant"]
    st = meta.stability(cube, n_trials=50, rng=0)
    assert st.index.names == ["measure", "qrels"]
    _tab, ds = meta.stability(cube, n_trials=50, rng=0, per_pair=True)
    assert ds.wins.dims == ("system", "other", "measure", "qrels")
    sw = meta.swap_rate(cube, n_splits=20, rng=0)
    assert sw.index.names == ["measure", "qrels"]
    cm = meta.correlation_matrix(cube)
    assert "AP/nist" in list(cm.measure.values)
    only_q = cube.sel(measure="AP", drop=True)
    dq = meta.discriminative_power(only_q, test="tukey")
    assert dq.index.name == "qrels" and list(dq.index) == ["nist", "bin", "noisy"]


def test_cxa_grid_dims_without_a_measure_dim():
    rng = np.random.default_rng(3)
    x = rng.uniform(size=(3, 10, 2, 2))
    grid = xr.DataArray(
        x,
        dims=("system", "topic", "C", "A"),
        coords={"system": ["a", "b", "c"], "C": ["RBP", "DCG"], "A": ["ETG", "max"]},
    )
    res = irs.compare(grid, baseline="a")
    assert res.pvalue.dims == ("system", "other", "C", "A")
    one = irs.compare(grid.sel(C="DCG", A="max", drop=True), baseline="a")
    np.testing.assert_allclose(
        res.pvalue.sel(C="DCG", A="max").values, one.pvalue.values, equal_nan=True
    )
    dp = meta.discriminative_power(grid, test="tukey")
    assert dp.index.names == ["C", "A"]
