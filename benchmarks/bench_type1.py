"""Benchmark: Type-I error rate of every test of irframe.stats.compare on 2 to 50 topics.

Simulated true nulls: two systems with no difference.  Each replicate draws per-topic
difficulties and two noisy systems around them; the replicates go into one
:func:`irframe.stats.compare` call as the ``measure`` dim (one correction family each, so no
correction applies).  Two null models:

``bounded``  scores = clip(difficulty ~ U(0, 1) + N(0, 0.15), 0, 1) -- continuous with ties at 0, 1;
``sparse``   scores = clip(difficulty ~ Beta(0.5, 2) + N(0, 0.1), 0, 1) -- skewed, many zeros.

The table gives the rejection rate at alpha = 0.05 (Monte Carlo standard error about
sqrt(0.05 * 0.95 / R) = 0.005 at R = 2000) and the fraction of replicates that raised a
warning.  The table is copied into docs/stats.md.

Run:  python benchmarks/bench_type1.py [--replicates 2000 --samples 1000 --topics 2 3 5 10 20 30 50]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import xarray as xr

from irframe import stats
from irframe.errors import IrframeWarning


def null_cube(model: str, n_topics: int, replicates: int, rng: np.random.Generator):
    if model == "bounded":
        topic = rng.uniform(0, 1, size=(1, n_topics, replicates))
        noise = rng.normal(scale=0.15, size=(2, n_topics, replicates))
    else:
        topic = rng.beta(0.5, 2.0, size=(1, n_topics, replicates))
        noise = rng.normal(scale=0.1, size=(2, n_topics, replicates))
    x = np.clip(topic + noise, 0, 1)
    return xr.DataArray(
        x,
        dims=("system", "topic", "measure"),
        coords={
            "system": ["a", "b"],
            "topic": [f"t{i}" for i in range(n_topics)],
            "measure": [f"r{i}" for i in range(replicates)],
        },
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=2000)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--topics", type=int, nargs="+", default=[2, 3, 5, 10, 20, 30, 50])
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    print(
        f"Type-I error at alpha = {a.alpha}: {a.replicates} null replicates per cell, "
        f"{a.samples} resamples"
    )
    print("| model | topics | " + " | ".join(stats.TESTS) + " |")
    print("|---|---:|" + "---:|" * len(stats.TESTS))
    for model in ("bounded", "sparse"):
        for n in a.topics:
            cube = null_cube(model, n, a.replicates, rng)
            cells = []
            for test in stats.TESTS:
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always", IrframeWarning)
                    res = stats.compare(
                        cube,
                        test=test,
                        correction=None,
                        alpha=a.alpha,
                        n_samples=a.samples,
                        rng=rng,
                    )
                rate = float(res.significant.sel(system="a", other="b").mean())
                warned = any(issubclass(x.category, IrframeWarning) for x in w)
                cells.append(f"{rate:.3f}{' (w)' if warned else ''}")
            print(f"| {model} | {n} | " + " | ".join(cells) + " |", flush=True)
    print("(w): compare() warned that the test is not calibrated on this many topics")


if __name__ == "__main__":
    main()
