"""Benchmark of the C/W/L module (issue 3 targets).

1. the whole 7 × 8 C × A grid (seed Table 3/4) on the 15 TREC 2003 Robust runs (~1.3 M rows), target < 5 s;
2. one C/W/L metric on the 2.5 M-row synthetic collection, target <= 2 × the time of
   ``irf.evaluate(runs, qrels, "AP")``.

Usage::

    python benchmarks/bench_cwl.py [--shared ../shared/data] [--bench DIR]  (default: irframe-bench50 in the system temp dir) [--rounds 5]

The synthetic collection is generated with ``../shared/bench/gen.py`` when absent.
Every task runs in ``--rounds`` alternating rounds in one process (frames already in
memory); the table gives the median and the median per-round ratio to ``evaluate AP``
(``benchmarks/_rounds.py``): on a shared machine the ratio is the figure to quote.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pandas as pd

import irframe as irf
from irframe.cwl import cwl, cwla_grid
from irframe.measures.cwl import _DEGEN_CACHE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rounds import rounds, table

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--bench", default=os.path.join(tempfile.gettempdir(), "irframe-bench50"))
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()

    shared = Path(a.shared)
    runs = irf.read_runs(str(shared / "robust03" / "runs" / "input.*.gz"))
    qrels = irf.read_qrels(shared / "robust03" / "qrels" / "robust03_qrels.txt.gz")

    def grid():
        _DEGEN_CACHE.clear()  # include the X/XX probing in the timing
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cwla_grid(runs, qrels, gains="auto")

    print(f"Robust03 ({len(runs):,} rows, {runs.system.nunique()} runs), target: grid < 5 s")
    table(
        rounds(
            {"evaluate AP": lambda: irf.evaluate(runs, qrels, "AP"), "7 x 8 C x A grid": grid},
            a.rounds,
        ),
        "evaluate AP",
    )

    bench = Path(a.bench)
    if not (bench / "runs.parquet").exists():
        subprocess.run(
            [
                sys.executable,
                str(ROOT.parent / "shared" / "bench" / "gen.py"),
                str(bench),
                "--systems",
                "50",
                "--topics",
                "50",
                "--depth",
                "1000",
            ],
            check=True,
        )
    runs = pd.read_parquet(bench / "runs.parquet")
    qrels = irf.read_qrels(bench / "qrels.txt")
    irf.evaluate(runs, qrels, "AP")  # warm-up (imports, caches)
    tasks = {
        "evaluate AP": lambda: irf.evaluate(runs, qrels, "AP"),
        "cwl(RBP@0.8), input order, no residuals": lambda: cwl(
            runs, qrels, "RBP@0.8", gains="auto", residuals=False, order="input"
        ),
        "cwl(RBP@0.8), input order, residuals": lambda: cwl(
            runs, qrels, "RBP@0.8", gains="auto", order="input"
        ),
        "cwl(RBP@0.8) (default trec_eval order), residuals": lambda: cwl(
            runs, qrels, "RBP@0.8", gains="auto"
        ),
        "cwl(INST-T=2) (trec_eval order), residuals": lambda: cwl(
            runs, qrels, "INST-T=2", gains="auto"
        ),
        "evaluate CWL(C=RBP(p=0.8))": lambda: irf.evaluate(runs, qrels, "CWL(C=RBP(p=0.8))"),
        "evaluate CWLA(C=INST(T=2),A=max)": lambda: irf.evaluate(
            runs, qrels, "CWLA(C=INST(T=2),A=max)"
        ),
    }
    print(f"synthetic ({len(runs):,} rows), target: each <= 2 x evaluate AP")
    table(rounds(tasks, a.rounds), "evaluate AP")


if __name__ == "__main__":
    main()
