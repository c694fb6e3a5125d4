"""Timings of the rarity measures and ndpm on the 50 × 50 × 1000 synthetic collection.

Usage::

    python benchmarks/bench_rarity_ndpm.py [--data DIR]  (default: $IRFRAME_BENCH50, else irframe-bench50 in the system temp dir) [--rounds 5]

``--data`` is a folder written by ``../shared/bench/gen.py`` (``runs.parquet`` and
``qrels.txt``; ~1550 judged documents per topic); when it does not exist it is generated
there with that script (or, without the shared folder, with ``irframe.datasets.synthetic``).

Targets (issue 6):

* rarity table + ``P_rare@100`` + ``AP_rare@100`` for all systems within 2× the time of
  ``irf.evaluate(runs, qrels, "P@10")``;
* ``ndpm`` for 50 systems × 50 topics × 1000 (≈1500 judged per topic) under 3 s.

Every task runs in ``--rounds`` alternating rounds in one process, from the in-memory frames
to the result; the table gives the median and the median per-round ratio to ``evaluate P@10``
(``benchmarks/_rounds.py``): on a shared machine the ratio is the figure to quote.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import irframe as irf
from irframe.align import align
from irframe.measures.ndpm import count_pairs
from irframe.rarity import rarity

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rounds import rounds, table

RARE = ["P_rare(alpha=0.5)@100", "AP_rare(alpha=0.5)@100"]
NDPM_FAMILY = ["ndpm", "dpm", "dpm_drf", "dpm_p", "dpm_r", "dpm_pa", "dpm_ra", "dpm_m", "dpm_e"]


def load(path: Path):
    if not (path / "runs.parquet").exists():
        gen = Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen.py"
        if gen.exists():
            subprocess.run(
                [
                    sys.executable,
                    str(gen),
                    str(path),
                    "--systems",
                    "50",
                    "--topics",
                    "50",
                    "--depth",
                    "1000",
                ],
                check=True,
            )
        else:
            qrels, runs = irf.datasets.synthetic(50, 50, 1000, rng=0)
            return runs, qrels
    runs = pd.read_parquet(path / "runs.parquet")
    qrels = pd.read_csv(
        path / "qrels.txt",
        sep=" ",
        header=None,
        names=["topic", "iter", "doc", "rel"],
        dtype={"topic": str, "doc": str},
    )
    return runs, qrels


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data",
        default=os.environ.get(
            "IRFRAME_BENCH50", os.path.join(tempfile.gettempdir(), "irframe-bench50")
        ),
    )
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    runs, qrels = load(Path(args.data))
    n_judged = qrels.groupby("topic").size().mean()
    print(
        f"{len(runs):,} run rows, {runs.system.nunique()} systems, {runs.topic.nunique()} topics, "
        f"{n_judged:.0f} judged documents per topic"
    )
    irf.evaluate(runs, qrels, "P@10")  # warm-up (imports, caches)

    def rare_one_align():
        a = align(runs, qrels)
        rarity(a, k=100)
        irf.evaluate(a, None, RARE)

    def rare_two_calls():
        rarity(runs, qrels, k=100)
        irf.evaluate(runs, qrels, RARE)

    a = align(runs, qrels)
    # many distinct float grades: ndpm counts contradicting pairs by merge sort instead of per level
    fq = qrels.assign(rel=qrels["rel"] + np.random.default_rng(0).uniform(0, 0.5, len(qrels)))
    tasks = {
        "evaluate P@10": lambda: irf.evaluate(runs, qrels, "P@10"),
        "align only": lambda: align(runs, qrels),
        "on one Aligned: rarity table": lambda: rarity(a, k=100),
        "on one Aligned: P_rare@100 + AP_rare@100 (evaluate_aligned)": lambda: irf.evaluate(
            a, None, RARE
        ),
        "on one Aligned: ndpm pair counts": lambda: count_pairs(a),
        "evaluate ndpm, float grades (merge-sort count)": lambda: irf.evaluate(runs, fq, "ndpm"),
        "evaluate P_rare@100 + AP_rare@100": lambda: irf.evaluate(runs, qrels, RARE),
        "rarity table + both measures, one align (evaluate_aligned)": rare_one_align,
        "rarity(...) + evaluate(...), two calls": rare_two_calls,
        "evaluate ndpm": lambda: irf.evaluate(runs, qrels, "ndpm"),
        "evaluate the 9 ndpm-family measures": lambda: irf.evaluate(runs, qrels, NDPM_FAMILY),
    }
    table(
        rounds(tasks, args.rounds),
        "evaluate P@10",
        targets={
            "rarity table + both measures, one align (evaluate_aligned)": "target <= 2x",
            "evaluate ndpm": "target < 3 s",
        },
    )


if __name__ == "__main__":
    main()
