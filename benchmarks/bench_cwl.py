"""Benchmark of the C/W/L module (issue 3 targets).

1. the whole 7 × 8 C × A grid (seed Table 3/4) on the 15 TREC 2003 Robust runs (~1.3 M rows), target < 5 s;
2. one C/W/L metric on the 2.5 M-row synthetic collection, target <= 2 × the time of
   ``irf.evaluate(runs, qrels, "AP")``.

Usage::

    python benchmarks/bench_cwl.py [--shared ../shared/data] [--bench DIR]  (default: irframe-bench50 in the system temp dir) [--repeat 3]

The synthetic collection is generated with ``../shared/bench/gen.py`` when absent.
Times are the best of ``--repeat`` runs (wall clock, frames already in memory).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

import irframe as irf
from irframe.cwl import cwl, cwla_grid
from irframe.measures.cwl import _DEGEN_CACHE

ROOT = Path(__file__).resolve().parents[1]


def best(fn, repeat):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--bench", default=os.path.join(tempfile.gettempdir(), "irframe-bench50"))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()

    shared = Path(a.shared)
    runs = irf.read_runs(str(shared / "robust03" / "runs" / "input.*.gz"))
    qrels = irf.read_qrels(shared / "robust03" / "qrels" / "robust03_qrels.txt.gz")

    def grid():
        _DEGEN_CACHE.clear()          # include the X/XX probing in the timing
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cwla_grid(runs, qrels, gains="auto")
    t_grid = best(grid, a.repeat)
    print(f"Robust03 ({len(runs):,} rows, {runs.system.nunique()} runs): 7 x 8 C x A grid  {t_grid:6.2f} s"
          f"   (target < 5 s: {'OK' if t_grid < 5 else 'MISSED'})")

    bench = Path(a.bench)
    if not (bench / "runs.parquet").exists():
        subprocess.run([sys.executable, str(ROOT.parent / "shared" / "bench" / "gen.py"), str(bench),
                        "--systems", "50", "--topics", "50", "--depth", "1000"], check=True)
    runs = pd.read_parquet(bench / "runs.parquet")
    qrels = irf.read_qrels(bench / "qrels.txt")
    t_ap = best(lambda: irf.evaluate(runs, qrels, "AP"), a.repeat)
    rows = [
        ("cwl(RBP@0.8), input order, no residuals",
         lambda: cwl(runs, qrels, "RBP@0.8", gains="auto", residuals=False)),
        ("cwl(RBP@0.8), input order, residuals",
         lambda: cwl(runs, qrels, "RBP@0.8", gains="auto")),
        ("cwl(INST-T=2), trec_eval order, residuals",
         lambda: cwl(runs, qrels, "INST-T=2", gains="auto", order="trec_eval")),
        ("metric CWL(C=RBP(p=0.8)) (trec_eval order)",
         lambda: irf.evaluate(runs, qrels, "CWL(C=RBP(p=0.8))")),
        ("metric CWLA(C=INST(T=2),A=max)",
         lambda: irf.evaluate(runs, qrels, "CWLA(C=INST(T=2),A=max)")),
    ]
    print(f"synthetic ({len(runs):,} rows): evaluate AP {t_ap:6.2f} s")
    for name, fn in rows:
        t = best(fn, a.repeat)
        print(f"  {name:45s} {t:6.2f} s  = {t / t_ap:4.2f} x AP   (target <= 2: {'OK' if t <= 2 * t_ap else 'MISSED'})")


if __name__ == "__main__":
    main()
