"""Replicate-aware comparison: irframe's closed-form mixed model vs statsmodels MixedLM.

All pairs of S systems with R seeds on T topics (synthetic, seeded).  irframe tests every
pair in one call; the reference fits one MixedLM (REML, variance components topic,
system:topic, run) per pair.  Rounds alternate; the median time of each is reported with
their ratio and the largest difference of the standard errors.

    python benchmarks/bench_replicates.py [S R T rounds]
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings

import numpy as np
import pandas as pd
import xarray as xr


def main(S=4, R=3, T=20, rounds=3):
    import statsmodels.formula.api as smf

    from irframe import stats

    rng = np.random.default_rng(0)
    Y = (
        np.linspace(0, 0.2, S)[:, None, None]
        + rng.normal(0, 1, (1, 1, T))
        + rng.normal(0, 0.3, (S, 1, T))
        + rng.normal(0, 0.4, (S, R, 1))
        + rng.normal(0, 0.2, (S, R, T))
    )
    cube = xr.DataArray(
        Y,
        dims=("system", "replicate", "topic"),
        coords={
            "system": [f"s{i}" for i in range(S)],
            "replicate": list(range(R)),
            "topic": [f"t{t}" for t in range(T)],
        },
    )

    def ours():
        return stats.compare(cube, replicates="replicate", correction=None)

    def reference():
        se = {}
        for a in range(S):
            for b in range(a + 1, S):
                rows = [
                    (int(s == a), f"{s}_{r}", t, Y[s, r, t])
                    for s in (a, b)
                    for r in range(R)
                    for t in range(T)
                ]
                df = pd.DataFrame(rows, columns=["sys", "run", "topic", "y"])
                df["st"] = df.sys.astype(str) + "_" + df.topic.astype(str)
                df["g"] = 1
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fit = smf.mixedlm(
                        "y ~ sys",
                        df,
                        groups="g",
                        re_formula="0",
                        vc_formula={
                            "topic": "0 + C(topic)",
                            "st": "0 + C(st)",
                            "run": "0 + C(run)",
                        },
                    ).fit(reml=True)
                se[(a, b)] = fit.bse["sys"]
        return se

    t_ours, t_ref = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        res = ours()
        t_ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        se = reference()
        t_ref.append(time.perf_counter() - t0)
    diff = max(
        abs(float(res.effect[a, b] / res.statistic[a, b]) - v) / v for (a, b), v in se.items()
    )
    mo, mr = statistics.median(t_ours), statistics.median(t_ref)
    print(
        f"S={S} R={R} T={T}: {S * (S - 1) // 2} pairs; irframe {mo:.3f}s, MixedLM {mr:.2f}s, "
        f"ratio {mr / mo:.0f}x; max relative SE difference {diff:.1e}"
    )


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
