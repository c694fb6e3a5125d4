"""Cost of tie-aware values and unjudged-document bounds relative to plain values, in one process.

Usage::

    python benchmarks/bench_uncertainty.py [--systems 50 --topics 50 --depth 1000] [--rounds 5]

On the synthetic collection of ``irframe.datasets.synthetic`` (graded qrels, S × T × depth
rows, scores with ties) it times, for the measures P@10, R@1000, RR, AP, nDCG@10, RBP:

* ``evaluate(order="trec_eval")`` (plain) vs ``order="expected"``, ``"best"``, ``"worst"``
  and ``bounds=True``, end to end (alignment included, as a user calls it);
* the same on one alignment (``evaluate`` of the aligned arrays: kernels only).

Rounds alternate between the variants and the median per variant is reported, with the
ratio variant / plain.  The machine may be shared: the ratios, measured in one process,
are what docs/uncertainty.md quotes.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import irframe as irf
from irframe.align import align

MEASURES = ["P@10", "R@1000", "RR", "AP", "nDCG@10", "RBP(p=0.8)"]


def timed(fn) -> float:
    gc.collect()
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=50)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    qrels, runs = irf.datasets.synthetic(args.systems, args.topics, args.depth, rng=0)
    aligned = align(runs, qrels)
    ties = irf.evaluate(runs, qrels, "NumRet").attrs  # warm-up (imports, caches)
    del ties
    variants = {
        "plain": {"order": "trec_eval"},
        "expected": {"order": "expected"},
        "best": {"order": "best"},
        "worst": {"order": "worst"},
        "bounds": {"bounds": True},
    }
    e2e = {k: [] for k in variants}
    kern = {k: [] for k in variants}
    for _ in range(args.rounds):
        for name, kw in variants.items():
            e2e[name].append(timed(lambda kw=kw: irf.evaluate(runs, qrels, MEASURES, **kw)))
            kw2 = {k: (None if v == "trec_eval" else v) for k, v in kw.items()}
            kern[name].append(timed(lambda kw2=kw2: irf.evaluate(aligned, None, MEASURES, **kw2)))
    from irframe.measures.ties import tie_groups

    t = tie_groups(aligned)
    tied = float((t.size[t.row_tie] > 1).mean())
    print(
        f"{len(runs):,} rows ({args.systems} systems x {args.topics} topics x {args.depth}); "
        f"{tied:.1%} of rows share their float32 score; measures {', '.join(MEASURES)}; "
        f"median of {args.rounds} alternating rounds"
    )
    print(f"{'variant':10s} {'end-to-end s':>13s} {'ratio':>6s} {'kernels s':>10s} {'ratio':>6s}")
    p_e, p_k = statistics.median(e2e["plain"]), statistics.median(kern["plain"])
    for name in variants:
        me, mk = statistics.median(e2e[name]), statistics.median(kern[name])
        print(f"{name:10s} {me:13.3f} {me / p_e:6.2f} {mk:10.3f} {mk / p_k:6.2f}")


if __name__ == "__main__":
    main()
