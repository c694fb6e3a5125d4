"""irframe vs its peers on the standard trec_eval measures, in one process.

Usage::

    python benchmarks/bench_core.py [--systems 50 --topics 50 --depth 1000] [--repeat 3]
                                    [--big] [--peers pytrec_eval,ir_measures,ranx]

It builds the synthetic collection of ``../shared/bench/gen.py`` with
``irframe.datasets.synthetic`` (same shape: graded qrels, S systems × T topics ×
depth, scores with ties), writes it as TREC files to a temporary folder, and times,
for the 7 measures AP, nDCG, nDCG@10, P@10, RR, R@1000, Rprec:

* ``df→cube``: irframe from the in-memory run DataFrame (string id columns) to the cube;
* ``pytrec_eval dicts+evaluate``: building pytrec_eval's dict-of-dicts from the same
  DataFrame plus evaluating; ``pytrec_eval evaluate``: evaluate alone, dicts prepared
  outside the timer;
* ``files→cube``: irframe.read_qrels + read_runs + evaluate from the TREC files, vs
  pytrec_eval's own file parsers + evaluate;
* ir_measures and ranx when installed (ranx warmed up first: its numba JIT compile is not
  counted).

Every timing is the best of ``--repeat`` runs; ratios are peer time / irframe time
(> 1 means irframe is faster).  ``--big`` times 110 × 250 × 1000 (27.5 M rows) in
memory and reports peak RSS.  Absolute times vary with machine load; the ratios are
what the performance page reports.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import tempfile
import time

import pandas as pd

import irframe as irf

MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "RR", "R@1000", "Rprec"]
TREC_NAMES = {"map", "ndcg", "ndcg_cut.10", "P.10", "recip_rank", "recall.1000", "Rprec"}


def best(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def pytrec_dicts(runs: pd.DataFrame, qrels: pd.DataFrame):
    q = {}
    for t, d, r in zip(qrels.topic.astype(str), qrels.doc.astype(str), qrels.rel):
        q.setdefault(t, {})[d] = int(r)
    r = {}
    for s, t, d, sc in zip(runs.system.astype(str), runs.topic.astype(str), runs.doc.astype(str), runs.score):
        r.setdefault(s, {}).setdefault(t, {})[d] = float(sc)
    return q, r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=50)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--big", action="store_true", help="also time 110 x 250 x 1000 in memory")
    ap.add_argument("--peers", default="pytrec_eval,ir_measures,ranx")
    args = ap.parse_args(argv)
    peers = set(args.peers.split(",")) if args.peers else set()
    rows = []

    qrels, runs = irf.datasets.synthetic(args.systems, args.topics, args.depth, seed=0)
    runs_str = runs.astype({c: str for c in ("system", "topic", "doc")})  # plain string columns
    qrels_str = qrels.astype({c: str for c in ("topic", "doc")})
    print(f"collection: {args.systems} systems x {args.topics} topics x depth {args.depth} = "
          f"{len(runs):,} rows, {len(qrels):,} qrels; pandas {pd.__version__}, dtype {runs_str.doc.dtype}")

    t_ir, cube = best(lambda: irf.evaluate(runs_str, qrels_str, MEASURES), args.repeat)
    rows.append(("df→cube", "irframe", t_ir))

    with tempfile.TemporaryDirectory() as tmp:
        qpath = os.path.join(tmp, "qrels.txt")
        irf.write_qrels(qrels_str, qpath)
        paths = []
        for s, g in runs_str.groupby("system", sort=True):
            p = os.path.join(tmp, f"{s}.txt")
            irf.write_run(g, p)
            paths.append(p)

        def files_irframe():
            return irf.evaluate(irf.read_runs(paths, system="file"), irf.read_qrels(qpath), MEASURES)

        t_files, _ = best(files_irframe, args.repeat)
        rows.append(("files→cube", "irframe", t_files))

        if "pytrec_eval" in peers:
            try:
                import pytrec_eval
            except ImportError:
                print("pytrec_eval not installed; skipped")
            else:
                def pt_full():
                    q, r = pytrec_dicts(runs_str, qrels_str)
                    ev = pytrec_eval.RelevanceEvaluator(q, TREC_NAMES)
                    return {s: ev.evaluate(x) for s, x in r.items()}

                t, _ = best(pt_full, args.repeat)
                rows.append(("df→cube", "pytrec_eval dicts+evaluate", t))
                q, r = pytrec_dicts(runs_str, qrels_str)

                def pt_eval():
                    ev = pytrec_eval.RelevanceEvaluator(q, TREC_NAMES)
                    return {s: ev.evaluate(x) for s, x in r.items()}

                t, _ = best(pt_eval, args.repeat)
                rows.append(("df→cube", "pytrec_eval evaluate only", t))

                def pt_files():
                    with open(qpath) as f:
                        qq = pytrec_eval.parse_qrel(f)
                    ev = pytrec_eval.RelevanceEvaluator(qq, TREC_NAMES)
                    out = {}
                    for p in paths:
                        with open(p) as f:
                            out[p] = ev.evaluate(pytrec_eval.parse_run(f))
                    return out

                t, _ = best(pt_files, args.repeat)
                rows.append(("files→cube", "pytrec_eval files", t))

        if "ir_measures" in peers:
            try:
                import ir_measures
            except ImportError:
                print("ir_measures not installed; skipped")
            else:
                ms = [ir_measures.parse_measure(m) for m in ("AP", "nDCG", "nDCG@10", "P@10", "RR", "R@1000", "Rprec")]
                qdf = qrels_str.rename(columns={"topic": "query_id", "doc": "doc_id", "rel": "relevance"})
                rdf = runs_str.rename(columns={"topic": "query_id", "doc": "doc_id"})

                def im():
                    return {s: list(ir_measures.iter_calc(ms, qdf, g)) for s, g in rdf.groupby("system")}

                t, _ = best(im, 1)
                rows.append(("df→cube", "ir_measures", t))

        if "ranx" in peers:
            try:
                from ranx import Qrels, Run, evaluate as rx_eval
            except ImportError:
                print("ranx not installed; skipped")
            else:
                rx_ms = ["map", "ndcg", "ndcg@10", "precision@10", "mrr", "recall@1000", "r-precision"]
                qx = qrels_str.rename(columns={"topic": "q_id", "doc": "doc_id", "rel": "score"})
                rx_runs = runs_str.rename(columns={"topic": "q_id", "doc": "doc_id"})

                def rx_build():
                    # ranx wants object-dtype ids
                    rq = Qrels.from_df(qx[["q_id", "doc_id", "score"]].astype(
                                           {"score": int, "q_id": object, "doc_id": object}),
                                       q_id_col="q_id", doc_id_col="doc_id", score_col="score")
                    rr = {s: Run.from_df(g[["q_id", "doc_id", "score"]].astype({"q_id": object, "doc_id": object}),
                                         q_id_col="q_id",
                                         doc_id_col="doc_id", score_col="score")
                          for s, g in rx_runs.groupby("system", observed=True)}
                    return rq, rr

                rq, rr = rx_build()
                rx_eval(rq, next(iter(rr.values())), rx_ms)  # numba JIT warm-up, not timed

                def rx_full():
                    q2, r2 = rx_build()
                    return {s: rx_eval(q2, r, rx_ms, return_mean=False) for s, r in r2.items()}

                t, _ = best(rx_full, 1)
                rows.append(("df→cube", "ranx: from the frame + evaluate (warm)", t))
                t, _ = best(lambda: {s: rx_eval(rq, r, rx_ms, return_mean=False) for s, r in rr.items()}, 1)
                rows.append(("df→cube", "ranx: evaluate only (warm)", t))

    base = {"df→cube": t_ir, "files→cube": t_files}
    print(f"\n{'path':<12} {'tool':<30} {'seconds':>8} {'peer/irframe':>13}")
    for path, tool, t in rows:
        print(f"{path:<12} {tool:<30} {t:8.3f} {t / base[path]:13.2f}")

    if args.big:
        del runs, runs_str
        gc.collect()
        q2, r2 = irf.datasets.synthetic(110, 250, 1000, seed=1)
        r2 = r2.astype({c: str for c in ("system", "topic", "doc")})
        q2 = q2.astype({c: str for c in ("topic", "doc")})
        t = time.perf_counter()
        irf.evaluate(r2, q2, MEASURES)
        dt = time.perf_counter() - t
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2
        print(f"\nbig: 110 x 250 x 1000 = {len(r2):,} rows in memory → cube: {dt:.2f} s; "
              f"peak RSS of this process {peak:.2f} GB (includes the frames themselves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
