"""Many runs from parquet: time and peak memory of parquet → cube, in memory and through
``irframe.dask`` on a ``LocalCluster`` whose workers have a memory limit.

Usage::

    # issue #30: 10 MS MARCO-shaped runs, 6,980 queries x 1,000 = 69.8 M rows, str ids
    python benchmarks/bench_big.py [--shape msmarco] [--systems 10 --queries 6980]
        [--paths in-memory,in-memory-dict,dask-by-system,dask-shuffle-tasks,...]
        [--workers 2 --memory-limit 4GB]
        [--check-topics 200] [--work DIR]

    # pooled TREC collection of ../shared/bench/gen.py (27.5 M rows, graded qrels)
    python benchmarks/bench_big.py --shape gen [--systems 110 --topics 250 --depth 1000]

**msmarco** — step 1 (skipped when ``DIR/runs/`` exists) writes ``--systems`` runs of
``shapes.iter_runs("msmarco")`` (6,980 queries × 1,000 passages from an 8.8 M corpus, ~1.06
judged relevant per query, 3-decimal scores), one parquet file per run as a user keeps them
(``DIR/runs/run<s>.parquet``, row groups of 1 M rows), generated and written one run at a
time (the writer holds one run), and ``DIR/qrels.parquet``.  Step 2 starts a **fresh
process** per path, in the order given by ``--paths``:

* ``in-memory``: ``pandas.read_parquet(DIR/runs)`` (pandas' default ``str`` ids) +
  ``irframe.evaluate`` (RR@10, R@1000, nDCG@10, AP); prints wall and CPU time (user + system)
  of each part and the process's peak resident memory (``VmHWM`` of ``/proc/self/status``,
  frames included); saves the cube (``DIR/cube.pkl``), then (untimed) checks
  ``--check-topics`` evenly spaced topics of every run against pytrec_eval;
* ``in-memory-dict``: the same with the system and topic columns read as dictionaries
  (``read_dictionary=["system", "topic"]``, pyarrow's option: pandas categoricals);
* ``dask-by-system``: ``dask.dataframe.read_parquet(DIR/runs)`` (one partition per run file)
  + ``irframe.evaluate(ddf, ..., partitioned_by="system")`` (the Dask backend) on a
  ``distributed.LocalCluster`` of
  ``--workers`` single-threaded worker processes of ``--memory-limit`` each (the nanny
  restarts a worker above 95 % of it; restarts are counted), cluster started and irframe
  imported before the clock;
* ``dask-shuffle``: the same frame shuffled by topic (the default for a Dask frame; dask's
  default shuffle on a distributed cluster, p2p);
* ``dask-shuffle-tasks``: the same with ``shuffle_method="tasks"``;
* ``dask-shuffle-rowgroups``: read one partition per row group (``split_row_groups=True``),
  then shuffled by topic.

Each Dask path prints its wall time, the driver's and each worker's peak RSS, and whether the
cube is identical (``xarray.DataArray.identical``) to the in-memory one.

**gen** — the collection of ``../shared/bench/gen.py`` (graded qrels; scores rounded to 4
decimals, so tied scores) in one parquet file; in-memory path only, read as ``str`` ids and
as dictionaries (``read_dictionary=``: pandas categoricals), 7 measures of ``bench_core.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MSMARCO_MEASURES = ["RR@10", "R@1000", "nDCG@10", "AP"]
# pytrec_eval's names; RR@10 is recip_rank where the first relevant is within rank 10, else 0
PYTREC = {"RR@10": "recip_rank", "R@1000": "recall_1000", "nDCG@10": "ndcg_cut_10", "AP": "map"}

COMMON = r"""
import json, os, pickle, resource, sys, time
from pathlib import Path
def peak_mb(pid="self"):  # VmHWM: the process's own peak RSS
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
"""

IN_MEMORY = (
    COMMON
    + r"""
work, ms, check = Path(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
kw = json.loads(sys.argv[5])
import numpy as np
import pandas as pd
import irframe as irf
rss0 = peak_mb()
w0, c0 = time.perf_counter(), cpu()
runs = pd.read_parquet(work / "runs", **kw)
qrels = pd.read_parquet(work / "qrels.parquet")
w1, c1 = time.perf_counter(), cpu()
rss1 = peak_mb()
cube = irf.evaluate(runs, qrels, ms)
w2, c2 = time.perf_counter(), cpu()
out = {"rows": len(runs), "dtype": str(runs["doc"].dtype), "system_dtype": str(runs["system"].dtype),
       "read_s": w1 - w0, "read_cpu": c1 - c0, "evaluate_s": w2 - w1,
       "evaluate_cpu": c2 - c1, "seconds": w2 - w0, "cpu": c2 - c0, "import_peak_mb": rss0,
       "read_peak_mb": rss1, "peak_mb": peak_mb(), "cube": list(cube.shape),
       "frame_mb": runs.memory_usage(deep=True).sum() / 2**20}
if not kw:  # the reference cube of the Dask paths
    (work / "cube.pkl").write_bytes(pickle.dumps(cube))
elif (work / "cube.pkl").exists():
    out["identical"] = bool(cube.identical(pickle.loads((work / "cube.pkl").read_bytes())))
if check:  # untimed: evenly spaced topics of every run against pytrec_eval (trec_eval's C code)
    import pytrec_eval
    trec = json.loads(sys.argv[4])
    topics = cube.topic.values[np.linspace(0, cube.sizes["topic"] - 1, check).astype(int)]
    sub = runs[runs["topic"].isin(topics)]
    q = {}
    for t, d, r in zip(qrels.topic.to_numpy(), qrels.doc.to_numpy(), qrels.rel.tolist()):
        q.setdefault(t, {})[d] = r
    r = {}
    for s, t, d, sc in zip(sub.system.to_numpy(), sub.topic.to_numpy(), sub.doc.to_numpy(),
                           sub.score.tolist()):
        r.setdefault(s, {}).setdefault(t, {})[d] = sc
    names = {m: trec[m] for m in ms}
    ev = pytrec_eval.RelevanceEvaluator(q, {"recip_rank", "recall.1000", "ndcg_cut.10", "map"})
    worst, n = 0.0, 0
    for s, per in r.items():
        res = ev.evaluate(per)
        for t, vals in res.items():
            mine = cube.sel(system=s, topic=t)
            for m, v in names.items():
                theirs = vals[v] if m != "RR@10" or vals[v] >= 0.1 else 0.0
                worst = max(worst, abs(float(mine.sel(measure=m)) - theirs))
                n += 1
    out["pytrec_checked"] = n
    out["pytrec_max_diff"] = worst
print(json.dumps(out))
"""
)

DASK = (
    COMMON
    + r"""
work, ms, path = Path(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
workers, limit = int(sys.argv[4]), sys.argv[5]
import warnings
import pandas as pd
import dask, dask.dataframe as dd, distributed
import irframe as irf
out = {"path": path}
with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              memory_limit=limit, dashboard_address=None,
                              silence_logs=50) as cluster, distributed.Client(cluster) as client:
    client.run(lambda: __import__("irframe.dask"))  # worker imports are not timed
    pids = client.run(os.getpid)
    w0, c0 = time.perf_counter(), cpu()
    qrels = pd.read_parquet(work / "qrels.parquet")
    # dask-shuffle-rowgroups: one partition per parquet row group (1 M rows) instead of per file
    ddf = dd.read_parquet(work / "runs", split_row_groups=path == "dask-shuffle-rowgroups")
    opts = {"partitioned_by": "system"} if path == "dask-by-system" else {}
    if path == "dask-shuffle-tasks":
        opts["shuffle_method"] = "tasks"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cube = irf.evaluate(ddf, qrels, ms, **opts)  # a Dask frame: irframe.dask's backend
    out["seconds"] = time.perf_counter() - w0
    out["driver_cpu"] = cpu() - c0
    out["partitions"] = ddf.npartitions
    out["warnings"] = sorted({str(w.message)[:100] for w in caught})
    now = client.run(os.getpid)
    out["worker_restarts"] = sum(1 for a, p in now.items() if pids.get(a) != p) + \
        len(set(pids) - set(now))
    out["worker_peak_mb"] = sorted(round(v) for v in client.run(peak_mb).values())
out["identical"] = bool(cube.identical(pickle.loads((work / "cube.pkl").read_bytes())))
out["peak_mb"] = peak_mb()
print(json.dumps(out))
"""
)


def write_msmarco(work: Path, systems: int, queries: int) -> None:
    """Step 1 of the msmarco shape (module docstring): one parquet file per run."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from shapes import iter_runs

    if (work / "qrels.parquet").exists():
        return
    (work / "runs").mkdir(parents=True, exist_ok=True)
    n = 0
    for s, (qrels, run) in enumerate(iter_runs("msmarco", queries=queries, systems=systems)):
        if s == 0:
            qrels.astype({"topic": "str", "doc": "str"}).to_parquet(work / "qrels.parquet")
        ids = dict.fromkeys(("system", "topic", "doc"), "str")  # pandas' default string dtype
        pq.write_table(
            pa.Table.from_pandas(run.astype(ids), preserve_index=False),
            work / "runs" / f"run{s}.parquet",
            row_group_size=1_000_000,
        )
        n += len(run)
        print(f"  wrote run{s}: {len(run):,} rows", flush=True)
    print(f"wrote {n:,} run rows ({systems} files) and qrels to {work}", flush=True)


def child(code: str, *args: str, timeout: float, log: Path | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        p = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"failed": f"timeout after {timeout:.0f} s"}
    lines = p.stdout.strip().splitlines()
    if p.returncode or not lines:
        if log is not None:
            log.write_text(p.stderr)
        tail = " | ".join(p.stderr.strip().splitlines()[-4:])
        return {"failed": f"exit {p.returncode}: {tail}" + (f" (stderr in {log})" if log else "")}
    return json.loads(lines[-1])


def main_msmarco(args, work: Path) -> None:
    write_msmarco(work, args.systems or 10, args.queries)
    ms = json.dumps(MSMARCO_MEASURES)
    for path in args.paths.split(","):
        load = os.getloadavg()
        if path.startswith("in-memory"):
            kw = {"read_dictionary": ["system", "topic"]} if path == "in-memory-dict" else {}
            res = child(
                IN_MEMORY,
                str(work),
                ms,
                str(args.check_topics if not kw else 0),
                json.dumps(PYTREC),
                json.dumps(kw),
                timeout=args.timeout,
                log=work / f"{path}.stderr",
            )
        else:
            if not (work / "cube.pkl").exists():
                sys.exit("run the in-memory path first (its cube is the reference)")
            res = child(
                DASK,
                str(work),
                ms,
                path,
                str(args.workers),
                args.memory_limit,
                timeout=args.timeout,
                log=work / f"{path}.stderr",
            )
        res.setdefault("path", path)
        res["load_before"] = [round(x, 1) for x in load]
        res["load_after"] = [round(x, 1) for x in os.getloadavg()]
        print(json.dumps(res), flush=True)
        if "failed" in res:
            continue
        if path.startswith("in-memory"):
            print(
                f"{path}: {res['rows']:,} rows ({res['dtype']} docs, {res['system_dtype']} "
                f"systems): read_parquet "
                f"{res['read_s']:.1f} s (CPU {res['read_cpu']:.1f}) + evaluate "
                f"{res['evaluate_s']:.1f} s (CPU {res['evaluate_cpu']:.1f}) = "
                f"{res['seconds']:.1f} s (CPU {res['cpu']:.1f}); peak RSS "
                f"{res['peak_mb'] / 1024:.2f} GB (after reading {res['read_peak_mb'] / 1024:.2f} GB;"
                f" frame {res['frame_mb'] / 1024:.2f} GB); pytrec_eval on "
                f"{res.get('pytrec_checked', 0)} values: max diff {res.get('pytrec_max_diff')}; "
                f"identical to in-memory: {res.get('identical', '-')}",
                flush=True,
            )
        else:
            print(
                f"{path}: {res['seconds']:.1f} s, {res['partitions']} partitions, workers' peak "
                f"RSS {res['worker_peak_mb']} MB, driver {res['peak_mb']:.0f} MB, "
                f"{res['worker_restarts']} restarts, identical: {res['identical']}",
                flush=True,
            )


STEP2_GEN = """
import json, resource, sys, time
import pandas as pd
import irframe as irf
ms = json.loads(sys.argv[3])
t0 = time.perf_counter()
kw = json.loads(sys.argv[4])
runs = pd.read_parquet(sys.argv[1], **kw)
qrels = pd.read_parquet(sys.argv[2], **kw)[["topic", "doc", "rel"]]
t1 = time.perf_counter()
cube = irf.evaluate(runs, qrels, ms)
t2 = time.perf_counter()
print(json.dumps({"rows": len(runs), "read_parquet": t1 - t0, "evaluate": t2 - t1, "total": t2 - t0,
                  "dtype": str(runs.doc.dtype), "cube": list(cube.shape),
                  "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2}))
"""


def main_gen(args, work: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_core import MEASURES, load_gen

    runs_path, qrels_path = work / "runs.parquet", work / "qrels.parquet"
    if not runs_path.exists():
        q, r = load_gen().make(args.systems or 110, args.topics, args.depth, seed=1)
        r.to_parquet(runs_path)
        q.to_parquet(qrels_path)
        print(f"wrote {len(r):,} run rows, {len(q):,} qrels to {work}")
        del q, r
    variants = {
        "pd.read_parquet(path)": {},
        "pd.read_parquet(path, read_dictionary=[ids])": {
            "read_dictionary": ["system", "topic", "doc"]
        },
    }
    for name, kw in variants.items():
        res = child(
            STEP2_GEN,
            str(runs_path),
            str(qrels_path),
            json.dumps(MEASURES),
            json.dumps(kw),
            timeout=args.timeout,
        )
        if "failed" in res:
            print(f"{name}: {res['failed']}")
            continue
        print(
            f"{name}: {res['rows']:,} rows ({res['dtype']} ids): read {res['read_parquet']:.2f} s + "
            f"evaluate {res['evaluate']:.2f} s = {res['total']:.2f} s; peak RSS {res['peak_rss_gb']:.2f} GB "
            f"(whole process, frames included); load average {os.getloadavg()[0]:.1f}"
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", choices=("msmarco", "gen"), default="msmarco")
    ap.add_argument("--systems", type=int, help="runs (default: msmarco 10, gen 110)")
    ap.add_argument("--queries", type=int, default=6980, help="msmarco: queries per run")
    ap.add_argument("--topics", type=int, default=250, help="gen: topics")
    ap.add_argument("--depth", type=int, default=1000, help="gen: depth")
    ap.add_argument(
        "--paths",
        default="in-memory,dask-by-system,dask-shuffle-tasks,dask-shuffle-rowgroups,dask-shuffle",
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="4GB", help="per Dask worker")
    ap.add_argument("--check-topics", type=int, default=200, help="0: no pytrec_eval check")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per child process")
    ap.add_argument("--work", help="folder for the parquet files (default: a temporary one)")
    args = ap.parse_args(argv)
    tmp = None
    if args.work is None:
        tmp = tempfile.TemporaryDirectory(prefix="bench_big_")
        args.work = tmp.name
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()}; data in {work}", flush=True)
    if args.shape == "msmarco":
        main_msmarco(args, work)
    else:
        main_gen(args, work)
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
