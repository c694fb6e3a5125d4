"""Benchmark: every diversity measure on 8 runs x 50 topics at depth 10 000 (issue 5: < 3 s).

Prints align, evaluate-only and end-to-end times in ``--rounds`` alternating rounds (median,
and the median per-round ratio to ``align``; ``benchmarks/_rounds.py``), then pyndeval's time
for the ndeval measures on the same collection once (it evaluates one run at a time; minutes).

Usage: python benchmarks/bench_diversity.py [--depth 10000] [--rounds 5] [--no-peer]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import irframe as irf
from irframe.align import align
from irframe.datasets import synthetic
from irframe.evaluate import evaluate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rounds import rounds, table

MEASURES = [
    "alpha_DCG@20",
    "alpha_nDCG@20",
    "alpha_nDCG(alpha=0.25)@20",
    "ERR_IA@20",
    "ERR_IA(graded=true)@20",
    "nERR_IA@20",
    "NRBP",
    "nNRBP",
    "AP_IA",
    "P_IA@20",
    "StRecall@20",
    "nDCG_IA@20",
    "RR_IA",
    "RBP_IA(p=0.8)",
    "S_RR",
    "EU(alpha=0.5,e=0.05)",
    "CT@20",
    "Dsharp(lam=0.5)@20",
    "D_nDCG@20",
    "RBU(p=0.8,e=0.03)@20",
    "RBU(p=0.99,e=0.01)",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=8)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--depth", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    qrels, runs = synthetic(
        systems=args.systems, topics=args.topics, depth=args.depth, rng=0, diversity=True
    )
    print(f"{len(runs):,} run rows, {len(qrels):,} qrels rows, {len(MEASURES)} measures")
    a = align(runs, qrels)
    times = rounds(
        {
            "align": lambda: align(runs, qrels),
            f"evaluate_aligned (all {len(MEASURES)} measures)": lambda: evaluate(a, None, MEASURES),
            "end to end (irf.evaluate)": lambda: irf.evaluate(runs, qrels, MEASURES),
        },
        args.rounds,
    )
    table(times, "align", targets={"end to end (irf.evaluate)": "target < 3 s"})
    t_all = statistics.median(times["end to end (irf.evaluate)"])
    if args.no_peer:
        return
    try:
        import pyndeval
    except ImportError:
        print("pyndeval not installed; no peer timing")
        return
    qr = [
        (str(t), str(s), str(d), int(r))
        for t, s, d, r in qrels[["topic", "subtopic", "doc", "rel"]].itertuples(index=False)
    ]
    t0 = time.perf_counter()
    for _, sub in runs.groupby("system", observed=True):
        pyndeval.ndeval(
            qr,
            list(
                sub[["topic", "doc", "score"]]
                .astype({"topic": str, "doc": str})
                .itertuples(index=False, name=None)
            ),
        )
    t_peer = time.perf_counter() - t0
    print(
        f"pyndeval        {t_peer:7.3f} s   (its 21 default measures, qrels parse included; "
        f"ratio {t_peer / t_all:.1f}x)"
    )


if __name__ == "__main__":
    main()
