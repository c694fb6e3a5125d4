"""Timings of the rarity measures and ndpm on the 50 × 50 × 1000 synthetic collection.

Usage::

    python benchmarks/bench_rarity_ndpm.py [--data DIR]  (default: $IRFRAME_BENCH50, else irframe-bench50 in the system temp dir) [--repeat 3]

``--data`` is a folder written by ``../shared/bench/gen.py`` (``runs.parquet`` and
``qrels.txt``; ~1550 judged documents per topic); when it does not exist it is generated
there with that script (or, without the shared folder, with ``irframe.datasets.synthetic``).

Targets (issue 6):

* rarity table + ``P_rare@100`` + ``AP_rare@100`` for all systems within 2× the time of
  ``irf.evaluate(runs, qrels, "P@10")``;
* ``ndpm`` for 50 systems × 50 topics × 1000 (≈1500 judged per topic) under 3 s.

Every timing is the best of ``--repeat`` runs, from the in-memory frames to the result.
"""

from __future__ import annotations

import argparse
import tempfile
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

import irframe as irf
from irframe.align import align
from irframe.rarity import rarity, rarity_aligned

RARE = ["P_rare(alpha=0.5)@100", "AP_rare(alpha=0.5)@100"]


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def load(path: Path):
    if not (path / "runs.parquet").exists():
        gen = Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen.py"
        if gen.exists():
            subprocess.run([sys.executable, str(gen), str(path), "--systems", "50", "--topics", "50",
                            "--depth", "1000"], check=True)
        else:
            qrels, runs = irf.datasets.synthetic(50, 50, 1000, rng=0)
            return runs, qrels
    runs = pd.read_parquet(path / "runs.parquet")
    qrels = pd.read_csv(path / "qrels.txt", sep=" ", header=None, names=["topic", "iter", "doc", "rel"],
                        dtype={"topic": str, "doc": str})
    return runs, qrels


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("IRFRAME_BENCH50", os.path.join(tempfile.gettempdir(), "irframe-bench50")))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    runs, qrels = load(Path(args.data))
    n_judged = qrels.groupby("topic").size().mean()
    print(f"{len(runs):,} run rows, {runs.system.nunique()} systems, {runs.topic.nunique()} topics, "
          f"{n_judged:.0f} judged documents per topic")
    irf.evaluate(runs, qrels, "P@10")  # warm-up (imports, caches)

    t_p10 = best(lambda: irf.evaluate(runs, qrels, "P@10"), args.repeat)

    def rare_one_align():
        a = align(runs, qrels)
        rarity_aligned(a, k=100)
        irf.evaluate_aligned(a, RARE)

    def rare_two_calls():
        rarity(runs, qrels, k=100)
        irf.evaluate(runs, qrels, RARE)

    t_rare1 = best(rare_one_align, args.repeat)
    t_rare2 = best(rare_two_calls, args.repeat)
    t_meas = best(lambda: irf.evaluate(runs, qrels, RARE), args.repeat)
    t_ndpm = best(lambda: irf.evaluate(runs, qrels, "ndpm"), args.repeat)
    t_all = best(lambda: irf.evaluate(runs, qrels, ["ndpm", "dpm", "dpm_drf", "dpm_p", "dpm_r", "dpm_pa",
                                                    "dpm_ra", "dpm_m", "dpm_e"]), args.repeat)
    print(f"{'evaluate P@10':<58}{t_p10:7.3f} s")
    print(f"{'evaluate P_rare@100 + AP_rare@100':<58}{t_meas:7.3f} s  ({t_meas / t_p10:.2f}x P@10)")
    print(f"{'rarity table + both measures, one align (evaluate_aligned)':<58}{t_rare1:7.3f} s  "
          f"({t_rare1 / t_p10:.2f}x P@10; target <= 2x)")
    print(f"{'rarity(...) + evaluate(...), two calls':<58}{t_rare2:7.3f} s  ({t_rare2 / t_p10:.2f}x P@10)")
    print(f"{'evaluate ndpm':<58}{t_ndpm:7.3f} s  (target < 3 s)")
    print(f"{'evaluate the 9 ndpm-family measures':<58}{t_all:7.3f} s")


if __name__ == "__main__":
    main()
