"""Benchmark: all-pairs lexirecall / lexiprecision on a TREC-2004-Robust-sized synthetic frame.

110 systems x 250 topics x depth 1000 (27.5 M rows), ~70 relevant documents per topic
(seed 000 Table 3, robust 2004).  Target (issue 4): lexirecall under 3 s, memory
proportional to the output cube (110 x 110 x 250 int8 = 3 MB).

Run:  python benchmarks/bench_lexi.py [--systems 110 --topics 250 --depth 1000]
Prints the time of align() and, separately, of the preference computation on the
aligned arrays, plus the end-to-end time of irframe.lexi.lexirecall(runs, qrels).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
import pandas as pd


def synthetic(
    systems: int = 110,
    topics: int = 250,
    depth: int = 1000,
    rel_mean: int = 70,
    pool: int = 3000,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Runs (systems x topics x depth) and binary/graded qrels with ~rel_mean relevant per topic."""
    rng = np.random.default_rng(seed)
    n_rel = np.clip(rng.poisson(rel_mean, topics), 1, pool // 2)
    tnames = np.array([f"{300 + t}" for t in range(topics)], dtype=object)
    docnames = np.array([f"D{j:05d}" for j in range(pool)], dtype=object)
    # qrels: relevant docs 0..n_rel-1 of the topic's pool (grade 1 or 2), plus 2*n_rel judged non-relevant
    q_t, q_d, q_r = [], [], []
    for t in range(topics):
        nj = min(3 * n_rel[t], pool)
        q_t.append(np.full(nj, t))
        q_d.append(np.arange(nj))
        q_r.append(np.where(np.arange(nj) < n_rel[t], rng.integers(1, 3, nj), 0))
    q_t, q_d, q_r = map(np.concatenate, (q_t, q_d, q_r))
    qrels = pd.DataFrame(
        {
            "topic": tnames[q_t],
            "doc": [f"{tnames[t]}-{docnames[d]}" for t, d in zip(q_t, q_d, strict=True)],
            "rel": q_r,
        }
    )
    # runs: each (system, topic) ranks `depth` of the pool; relevant docs get a score boost
    skill = rng.uniform(0.5, 3.0, systems)
    parts = []
    relmask = np.arange(pool)[None, :] < n_rel[:, None]  # (topics, pool)
    for s in range(systems):  # generation only
        score = rng.standard_normal((topics, pool)).astype(np.float32) + skill[s] * relmask
        top = np.argpartition(-score, depth - 1, axis=1)[:, :depth]
        sc = np.take_along_axis(score, top, axis=1)
        parts.append(
            (
                np.full(topics * depth, s),
                np.repeat(np.arange(topics), depth),
                top.ravel(),
                sc.ravel(),
            )
        )
    s_, t_, d_, sc_ = map(np.concatenate, zip(*parts, strict=True))
    docs = pd.Categorical.from_codes(
        t_ * pool + d_, categories=[f"{t}-{d}" for t in tnames for d in docnames]
    )
    runs = pd.DataFrame(
        {
            "system": pd.Categorical.from_codes(s_, [f"sys{i:03d}" for i in range(systems)]),
            "topic": pd.Categorical.from_codes(t_, tnames),
            "doc": docs,
            "score": sc_.astype(np.float64),
        }
    )
    return runs, qrels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=110)
    ap.add_argument("--topics", type=int, default=250)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from irframe.align import align
    from irframe.lexi import lexiprecision, lexirecall

    t0 = time.perf_counter()
    runs, qrels = synthetic(args.systems, args.topics, args.depth)
    print(
        f"generated {len(runs):,} rows, {len(qrels):,} qrels in {time.perf_counter() - t0:.1f} s; "
        f"relevant/topic = {(qrels.rel > 0).groupby(qrels.topic).sum().mean():.1f}"
    )

    best = {}
    for _ in range(args.repeat):
        t = time.perf_counter()
        a = align(runs, qrels)
        ta = time.perf_counter() - t
        t = time.perf_counter()
        pr = lexirecall(a)
        tr = time.perf_counter() - t
        t = time.perf_counter()
        pp = lexiprecision(a)
        tp = time.perf_counter() - t
        t = time.perf_counter()
        lexirecall(runs, qrels)
        te = time.perf_counter() - t
        for k, v in (
            ("align", ta),
            ("lexirecall (aligned)", tr),
            ("lexiprecision (aligned)", tp),
            ("lexirecall end-to-end", te),
        ):
            best[k] = min(best.get(k, np.inf), v)
    for k, v in best.items():
        print(f"{k:28s} {v:7.3f} s")
    tracemalloc.start()
    lexirecall(a)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"output cube {pr.nbytes / 1e6:.1f} MB; peak extra memory of lexirecall_aligned {peak / 1e6:.1f} MB"
    )
    ok = best["lexirecall (aligned)"] < 3
    print(
        f"target: all-pairs lexirecall < 3 s on the aligned arrays -> {'OK' if ok else 'MISSED'} "
        f"({best['lexirecall (aligned)']:.3f} s; align, shared with every measure, {best['align']:.1f} s)"
    )
    _ = pp


if __name__ == "__main__":
    main()
