"""Regenerate the images of docs/stats.md:  python docs/make_plots.py

Uses irframe's seeded synthetic collection (irframe.datasets.synthetic) when the core
is available, else a synthetic score cube.  Writes PNGs into docs/img/.
"""

from __future__ import annotations

import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from irframe import meta, plot, stats

OUT = pathlib.Path(__file__).parent / "img"
MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]


def score_cube() -> xr.DataArray:
    try:
        import irframe as irf

        qrels, runs = irf.datasets.synthetic(systems=8, topics=40, depth=100, rng=7)
        return irf.evaluate(runs, qrels, MEASURES)
    except Exception:  # core not available: a synthetic cube with the same shape
        rng = np.random.default_rng(7)
        skill = np.linspace(0, 0.3, 8)[:, None, None]
        x = np.clip(
            rng.uniform(size=(1, 40, 1)) + skill + rng.normal(scale=0.15, size=(8, 40, 5)), 0, 1
        )
        return xr.DataArray(
            x,
            dims=("system", "topic", "measure"),
            coords={
                "system": [f"sys{i}" for i in range(8)],
                "topic": [f"{t:03d}" for t in range(40)],
                "measure": MEASURES,
            },
        )


def orientation(n: int = 100_000, ms=range(1, 16)) -> pd.DataFrame:
    """Precision/recall orientation (seed 000, section 3 / Fig. 3) of a few metrics, binary relevance."""

    def metrics(pos, m):
        pos = np.sort(np.asarray(pos, float))
        ideal = np.sum(1 / np.log2(np.arange(1, m + 1) + 1))
        return {
            "RR": 1 / pos[0],
            "AP": np.mean(np.arange(1, m + 1) / pos),
            "nDCG": np.sum(1 / np.log2(pos + 1)) / ideal,
            "RBP(p=0.8)": 0.2 * np.sum(0.8 ** (pos - 1)),
            "R@1000": np.sum(pos <= 1000) / m,
            "Rprec": np.sum(pos <= m) / m,
        }

    rows = []
    for m in ms:
        bottom = list(range(n - m + 2, n + 1))  # m-1 relevant at the bottom
        before, after = metrics([1, *bottom], m), metrics([n - m + 1, *bottom], m)
        for k in before:
            rows.append((k, m, "precision", before[k] - after[k]))
        top = list(range(1, m))  # m-1 relevant at the top
        before, after = metrics([*top, m], m), metrics([*top, n], m)
        for k in before:
            rows.append((k, m, "recall", before[k] - after[k]))
    return pd.DataFrame(rows, columns=["measure", "m", "orientation", "value"])


def main() -> None:
    OUT.mkdir(exist_ok=True)
    cube = score_cube()
    systems = list(cube.system.values)
    base, best = systems[0], systems[-1]

    ax = plot.topic_differences(cube, best, base, measure="AP")
    ax.figure.tight_layout()
    ax.figure.savefig(OUT / "topic_differences.png", dpi=90)

    ax = plot.system_means(cube, measure="AP")
    ax.figure.tight_layout()
    ax.figure.savefig(OUT / "system_means.png", dpi=90)

    res = stats.compare(cube.sel(measure="nDCG@10"), test="randomization", correction="holm", rng=0)
    ax = plot.significance_matrix(res, annotate=True)
    ax.figure.tight_layout()
    ax.figure.savefig(OUT / "significance_matrix.png", dpi=90)

    ax = plot.correlation_heatmap(meta.correlation_matrix(cube, method="tau_ap"), vmin=0)
    ax.figure.tight_layout()
    ax.figure.savefig(OUT / "correlation_heatmap.png", dpi=90)

    # a C x A grid of Metric Unanimity: here a stand-in grid made of the measures above
    grid_cube = cube.sel(measure=["AP", "nDCG@10", "P@10", "R@100"])
    grid_cube = (
        grid_cube.assign_coords(C=("measure", ["AP-like", "DCG-like", "P-like", "R-like"]))
        .swap_dims(measure="C")
        .drop_vars("measure")
    )
    variants = xr.concat(
        [grid_cube, grid_cube**2, np.sqrt(grid_cube)], dim=pd.Index(["fin", "sq", "sqrt"], name="A")
    )
    mu = meta.metric_unanimity(variants, dims=["C", "A"])
    mu = mu.where(
        ~((mu.C == "R-like") & (mu.A == "sqrt"))
    )  # show how an undefined ("X") cell looks
    ax = plot.grid_heatmap(mu, title="Metric Unanimity over a C \u00d7 A grid")
    ax.figure.tight_layout()
    ax.figure.savefig(OUT / "grid_heatmap.png", dpi=90)

    axes = plot.orientation_curves(orientation(), logy=True)
    axes[0].figure.savefig(OUT / "orientation_curves.png", dpi=90)
    plt.close("all")
    print("wrote", sorted(p.name for p in OUT.glob("*.png")))


if __name__ == "__main__":
    main()
