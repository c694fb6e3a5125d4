"""irframe.dask on a ``dask.distributed.LocalCluster``: time and peak memory per data layout.

Usage::

    python benchmarks/bench_dask.py [--systems 20 --topics 50 --depth 1000]
        [--workers 2 --memory-limit 2GiB] [--work DIR] [--layouts in-memory,hive-topic,...]

Step 1 (skipped when ``DIR`` already holds them) writes one collection
(``irframe.datasets.synthetic``) in four layouts: one parquet file of all rows in random
order (``shuffled.parquet``, row groups of 100 k rows), a hive-partitioned parquet dataset by
topic (``hive/topic=.../``), and one gzipped TREC run file per system (``trec/``).

Step 2 runs each layout in a **fresh process** (so peaks do not mix): the in-memory path
(``pandas.read_parquet`` + ``irframe.evaluate``) or a LocalCluster with ``--workers``
processes of one thread each under ``--memory-limit``, started (and irframe imported on the
workers) before the clock, then
``irframe.dask.evaluate`` of 7 measures. It prints wall time, the driver's peak RSS and each
worker's peak RSS (``VmHWM`` of ``/proc/self/status``, Linux; the driver's figure includes its
imports and, for the in-memory path, the frame), and checks the cube is identical to the in-memory one
(the in-memory cube is saved by the first run as ``DIR/cube.pkl``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "RR", "R@1000", "Rprec"]
LAYOUTS = ["in-memory", "hive-topic", "trec-files-shuffle", "trec-files-by-system", "shuffled-parquet"]

RUN = r"""
import json, pickle, sys, time, warnings
from pathlib import Path
import pandas as pd
import irframe as irf
work, layout, ms = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
workers, limit = int(sys.argv[4]), sys.argv[5]
qrels = pd.read_parquet(work / "qrels.parquet")
def peak():  # VmHWM: this process's own peak RSS (ru_maxrss would carry the parent's across fork/exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
out = {"layout": layout}
if layout == "in-memory":
    t0 = time.perf_counter()
    runs = pd.read_parquet(work / "shuffled.parquet")
    cube = irf.evaluate(runs, qrels, ms)
    out["seconds"] = time.perf_counter() - t0
    (work / "cube.pkl").write_bytes(pickle.dumps(cube))
    out["identical"] = True
else:
    import dask, dask.dataframe as dd, pyarrow as pa, distributed
    import irframe.dask as idk
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=limit,
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        client.run(lambda: __import__("irframe.dask"))  # worker imports are not timed
        t0 = time.perf_counter()
        opts = {}
        if layout == "hive-topic":
            schema = pa.schema([("topic", pa.string())])
            ddf = dd.read_parquet(work / "hive", dataset={"partitioning": {"flavor": "hive", "schema": schema}})
            opts["partitioned_by"] = "topic"
        elif layout == "shuffled-parquet":
            ddf = dd.read_parquet(work / "shuffled.parquet", split_row_groups=True)
        else:
            ddf = idk.read_runs(str(work / "trec" / "*.gz"))
            if layout == "trec-files-by-system":
                opts["partitioned_by"] = "system"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cube = idk.evaluate(ddf, qrels, ms, **opts)
        out["seconds"] = time.perf_counter() - t0
        out["partitions"] = ddf.npartitions
        out["large_graph_warning"] = any("Sending large graph" in str(w.message) for w in caught)
        rss = client.run(peak)
        out["worker_peak_mb"] = sorted(round(v) for v in rss.values())
    out["identical"] = bool(cube.identical(pickle.loads((work / "cube.pkl").read_bytes())))
out["driver_peak_mb"] = round(peak())
print(json.dumps(out))
"""


def build(work: Path, systems: int, topics: int, depth: int) -> None:
    import numpy as np
    import irframe as irf
    if (work / "qrels.parquet").exists():
        return
    qrels, runs = irf.datasets.synthetic(systems, topics, depth, rng=0)
    ids = {c: str for c in ("system", "topic", "doc")}
    runs = runs.astype(ids)
    qrels = qrels.astype({c: str for c in ("topic", "doc")})
    shuffled = runs.iloc[np.random.default_rng(0).permutation(len(runs))].reset_index(drop=True)
    shuffled.to_parquet(work / "shuffled.parquet", row_group_size=100_000)
    runs.to_parquet(work / "hive", partition_cols=["topic"])
    (work / "trec").mkdir()
    for s, g in runs.groupby("system", sort=False):
        irf.io.write_run(g, work / "trec" / f"input.{s}.gz")
    qrels.to_parquet(work / "qrels.parquet")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="2GiB")
    ap.add_argument("--work", type=Path)
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="bench_dask_"))
    work.mkdir(parents=True, exist_ok=True)
    build(work, a.systems, a.topics, a.depth)
    layouts = a.layouts.split(",")
    if not (work / "cube.pkl").exists() and "in-memory" not in layouts:
        layouts.insert(0, "in-memory")
    print(f"{a.systems} systems x {a.topics} topics x depth {a.depth} = {a.systems * a.topics * a.depth:,} rows; "
          f"{a.workers} workers x {a.memory_limit}; data in {work}", flush=True)
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    for layout in layouts:
        p = subprocess.run([sys.executable, "-c", RUN, str(work), layout, json.dumps(MEASURES), str(a.workers),
                            a.memory_limit], capture_output=True, text=True, env=env)
        if p.returncode:
            print(json.dumps({"layout": layout, "failed": p.stderr.strip().splitlines()[-3:]}), flush=True)
        else:
            print(p.stdout.strip().splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
