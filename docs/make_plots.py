"""Regenerate the images of docs/gallery.md and docs/stats.md:  python docs/make_plots.py

Uses irframe's seeded synthetic collection (irframe.datasets.synthetic) and writes PNGs
into docs/img/.  docs/gallery.md shows the code between the ``--8<--`` markers next to
the image it made.
"""

from __future__ import annotations

import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

import irframe as irf
from irframe import meta, plot, stats

OUT = pathlib.Path(__file__).parent / "img"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    # --8<-- [start:setup]
    qrels, runs = irf.datasets.synthetic(systems=8, topics=40, depth=100, rng=7)
    cube = irf.evaluate(runs, qrels, ["AP", "nDCG@10", "P@10", "R@100", "RR"])
    systems = list(cube.system.values)
    base, best = systems[0], systems[-1]
    # --8<-- [end:setup]

    # --8<-- [start:topic_differences]
    ax = plot.topic_differences(cube, best, base, measure="AP")
    ax.figure.tight_layout()
    # --8<-- [end:topic_differences]
    ax.figure.savefig(OUT / "topic_differences.png", dpi=90)

    # --8<-- [start:system_means]
    ax = plot.system_means(cube, measure="AP")
    ax.figure.tight_layout()
    # --8<-- [end:system_means]
    ax.figure.savefig(OUT / "system_means.png", dpi=90)

    # --8<-- [start:significance_matrix]
    res = stats.compare(cube.sel(measure="nDCG@10"), test="randomization", correction="holm", rng=0)
    ax = plot.significance_matrix(res, annotate=True)
    ax.figure.tight_layout()
    # --8<-- [end:significance_matrix]
    ax.figure.savefig(OUT / "significance_matrix.png", dpi=90)

    # --8<-- [start:correlation_heatmap]
    ax = plot.correlation_heatmap(meta.correlation_matrix(cube, method="tau_ap"), vmin=0)
    ax.figure.tight_layout()
    # --8<-- [end:correlation_heatmap]
    ax.figure.savefig(OUT / "correlation_heatmap.png", dpi=90)

    # --8<-- [start:grid_heatmap]
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
    # --8<-- [end:grid_heatmap]
    ax.figure.savefig(OUT / "grid_heatmap.png", dpi=90)

    # --8<-- [start:orientation_curves]
    from irframe.lexi import orientation

    ms = list(range(1, 16))
    curves = pd.DataFrame(
        [
            (metric, m, kind, value)
            for metric in ["RR", "AP", "NDCG", "RBP", "RP"]
            for kind in ("precision", "recall")
            for m, value in zip(ms, orientation(metric, n=100_000, m=ms, kind=kind), strict=True)
        ],
        columns=["measure", "m", "orientation", "value"],
    )
    axes = plot.orientation_curves(curves, logy=True)
    # --8<-- [end:orientation_curves]
    axes[0].figure.savefig(OUT / "orientation_curves.png", dpi=90)
    # --8<-- [start:reproduction_effects]
    # a "reproduction": the same runs, their scores perturbed by a little noise
    noise = np.random.default_rng(7).normal(scale=0.5, size=len(runs))
    again = runs.assign(score=runs.score + noise)
    rep = meta.reproducibility(runs, again, qrels, measures=["AP"], baseline=base)
    ax = plot.reproduction_effects(rep, measure="AP")
    ax.figure.tight_layout()
    # --8<-- [end:reproduction_effects]
    ax.figure.savefig(OUT / "reproduction_effects.png", dpi=90)
    plt.close("all")
    print("wrote", sorted(p.name for p in OUT.glob("*.png")))


if __name__ == "__main__":
    main()
