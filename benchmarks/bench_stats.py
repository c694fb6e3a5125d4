"""Benchmark: all-pairs randomization test (irframe.stats.compare) on 50 systems x 50 topics.

1,225 system pairs, 10,000 sampled sign flips each (formerly a wall-clock assert in
tests/test_stats.py; speed lives here, correctness in the tests). Target: under 10 s on a
2-core machine.

Run:  python benchmarks/bench_stats.py [--systems 50 --topics 50 --samples 10000 --repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import xarray as xr

from irframe import stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=50)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    x = np.clip(
        rng.uniform(0, 1, a.topics) + rng.normal(scale=0.15, size=(a.systems, a.topics)), 0, 1
    )
    cube = xr.DataArray(
        x,
        dims=("system", "topic"),
        coords={
            "system": [f"s{i}" for i in range(a.systems)],
            "topic": [str(t) for t in range(a.topics)],
        },
    )
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        res = stats.compare(cube, test="randomization", n_samples=a.samples, rng=0)
        times.append(time.perf_counter() - t0)
    assert res.attrs["exact"] == 0
    pairs = a.systems * (a.systems - 1) // 2
    print(
        f"all-pairs randomization: {a.systems} systems x {a.topics} topics ({pairs} pairs), "
        f"{a.samples} samples: min {min(times):.2f} s, median {float(np.median(times)):.2f} s"
    )


if __name__ == "__main__":
    main()
