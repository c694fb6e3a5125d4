"""Headless (Agg) tests of irframe.plot: every function returns Axes with the expected artists."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from irframe import meta, plot, stats  # noqa: E402
from irframe.errors import OptionError, UnknownMeasureError, UnknownSystemError  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture
def cube():
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(4, 12, 2)) + np.array([0, 0.1, 0.2, 0.3])[:, None, None]
    return xr.DataArray(
        x,
        dims=("system", "topic", "measure"),
        coords={
            "system": ["bm25", "ql", "dense", "rerank"],
            "topic": [f"{t:03d}" for t in range(12)],
            "measure": ["AP", "nDCG@10"],
        },
    )


def test_topic_differences(cube):
    x = cube.values.copy()
    x[0, 3, 0] = np.nan
    ax = plot.topic_differences(cube.copy(data=x), "dense", "bm25", measure="AP")
    assert isinstance(ax, Axes)
    assert len(ax.patches) == 11  # the topic bm25 lacks is left out
    heights = [p.get_height() for p in ax.patches]
    assert heights == sorted(heights, reverse=True)
    assert "dense \u2212 bm25" in ax.get_ylabel() and "AP" in ax.get_ylabel()
    assert "wins" in ax.get_title()
    with pytest.raises(UnknownSystemError, match="'nope' is not a system of the cube"):
        plot.topic_differences(cube, "nope", "bm25", measure="AP")
    with pytest.raises(UnknownMeasureError, match="Did you mean 'AP'"):
        plot.topic_differences(cube, "dense", "bm25", measure="APP")
    with pytest.raises(OptionError, match="measure="):
        plot.topic_differences(cube, "dense", "bm25")


def test_system_means(cube):
    _fig, ax0 = plt.subplots()
    ax = plot.system_means(cube, measure="nDCG@10", ax=ax0)
    assert ax is ax0
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(labels) == sorted(cube.system.values)
    means = cube.sel(measure="nDCG@10").mean("topic").to_series().sort_values()
    assert labels == list(means.index)  # best at the top
    assert len(ax.containers) == 1  # one errorbar container
    assert ax.get_xlabel() == "mean nDCG@10"


def test_significance_matrix(cube):
    res = stats.compare(cube, test="t")
    ax = plot.significance_matrix(res, measure="AP")
    assert len(ax.images) == 1
    img = ax.images[0].get_array()
    assert img.shape == (4, 4)
    assert img.mask[0, 0]  # diagonal blank
    assert ax.get_legend() is not None
    ax2 = plot.significance_matrix(stats.tukey_hsd(cube.sel(measure="AP")), annotate=True)
    assert "tukey_hsd" in ax2.get_title()
    # the user's mistakes name the cube's labels (they were xarray's KeyErrors)
    with pytest.raises(UnknownMeasureError, match="The cube's measures"):
        plot.significance_matrix(res, measure="nDCG")
    with pytest.raises(UnknownSystemError, match="is not a system of the cube"):
        plot.significance_matrix(res, measure="AP", systems=["nope"])


def test_correlation_heatmap(cube):
    corr = meta.correlation_matrix(cube, method="kendall")
    ax = plot.correlation_heatmap(corr)
    assert len(ax.images) == 1
    assert len(ax.texts) == 4  # annotated cells
    assert [t.get_text() for t in ax.get_xticklabels()] == ["AP", "nDCG@10"]


def test_grid_heatmap_marks_undefined_cells():
    g = xr.DataArray(
        [[0.1, np.nan, 0.3], [0.2, 0.5, 0.6]],
        dims=("A", "C"),
        coords={"C": ["RBP", "AP2", "RR"], "A": ["fin", "avg"]},
        name="MU",
    )
    ax = plot.grid_heatmap(g)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["RBP", "AP2", "RR"]
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("X") == 1 and len(texts) == 6
    assert ax.get_title() == "MU"
    with pytest.raises(ValueError, match="dims"):
        plot.grid_heatmap(g.rename(A="B"))


def test_orientation_curves_formats():
    long = pd.DataFrame(
        [
            (m, k, o, v)
            for m in ("RR", "AP", "TSE")
            for k in range(1, 6)
            for o, v in (("precision", 1 / k), ("recall", 0.5 / k))
        ],
        columns=["measure", "m", "orientation", "value"],
    )
    axes = plot.orientation_curves(long)
    assert len(axes) == 2 and all(isinstance(a, Axes) for a in axes)
    assert axes[1].get_ylabel() == "recall orientation"
    ax = plot.orientation_curves(long, kind="precision")
    assert len(ax.get_lines()) == 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["RR", "AP", "TSE"]
    da = xr.DataArray(
        np.ones((5, 2)), dims=("m", "measure"), coords={"m": range(1, 6), "measure": ["RR", "AP"]}
    )
    assert len(plot.orientation_curves(da).get_lines()) == 2
    with pytest.raises(OptionError, match="choose from"):
        plot.orientation_curves(long, kind="recalls")
