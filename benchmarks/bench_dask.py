"""irframe.dask on a ``dask.distributed.LocalCluster``: time and peak memory per data layout,
and the out-of-core check (a memory limit that only the Dask path meets).

Usage::

    python benchmarks/bench_dask.py [--systems 20 --topics 50 --depth 1000]
        [--workers 2 --memory-limit 1GiB] [--total-limit 3GiB] [--rounds 1]
        [--work DIR] [--layouts in-memory,hive-topic,...]

    # the issue's scale: 27.5 M rows, 3 GiB for everything
    python benchmarks/bench_dask.py --systems 110 --topics 250 \\
        --depth 1000 --memory-limit 1.25GiB --total-limit 3GiB

Step 1 (skipped when ``DIR`` already holds the data) writes one collection, generated topic by
topic (memory bounded by one topic) the way ``../shared/bench/gen.py`` does: per topic a pool of
``max(3 * depth, 2000)`` documents with string ids ``D<topic>-<n>``, about 8 % relevant (grades
1–3) and 1 500 judged; every system scores the pool ``normal + skill * grade + 0.3 * latent`` and
keeps its top ``depth``, scores rounded to 4 decimals (so tied scores occur). Three layouts of
the same rows: a hive-partitioned parquet dataset by topic (``hive/topic=401/``), 50 parquet files
each holding a random fiftieth of every topic's rows (``mixed/``: every file holds every topic
and system), and one TREC run file per system (``trec/input.<system>.txt``, topic-sorted).

Step 2 runs each layout in a **fresh process** (so peaks do not mix), ``--rounds`` times in
alternating order:

* ``in-memory``: ``pandas.read_parquet(mixed/)`` + ``irframe.evaluate`` (the reference cube,
  saved as ``DIR/cube.pkl`` by the first run);
* ``in-memory-limited``: the same under ``RLIMIT_AS`` = ``--total-limit`` (its address space may
  not exceed what the whole Dask run is given): expected to fail at the issue's scale;
* the Dask layouts, on a LocalCluster of ``--workers`` processes (one thread each) under
  ``--memory-limit`` each (enforced by the nanny: a worker above 95 % of it is restarted, which is
  reported), started and with irframe imported before the clock: ``hive-topic``
  (``partitioned_by="topic"``, no shuffle), ``mixed-parquet`` (p2p shuffle by topic),
  ``trec-files-shuffle`` (``irframe.dask.read_runs`` + p2p shuffle) and ``trec-files-by-system``
  (``partitioned_by="system"``).

Each run prints wall time, the driver's peak RSS and each worker's peak RSS (``VmHWM`` of
``/proc/self/status``, Linux), their sum, whether a "Sending large graph" warning was issued, and
whether the cube is identical to the in-memory one.  The last lines give the median per layout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "RR", "R@1000", "Rprec"]
LAYOUTS = [
    "in-memory",
    "in-memory-limited",
    "hive-topic",
    "mixed-parquet",
    "trec-files-shuffle",
    "trec-files-by-system",
]
MIXED_FILES = 50

RUN = r"""
import json, os, pickle, resource, sys, time, warnings
from pathlib import Path
work, layout, ms = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
workers, limit, total = int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
if layout == "in-memory-limited":  # the address space the whole Dask run is given
    resource.setrlimit(resource.RLIMIT_AS, (total, total))
import pandas as pd
import irframe as irf
qrels = pd.read_parquet(work / "qrels.parquet")
def peak():  # VmHWM: this process's own peak RSS (ru_maxrss would carry the parent's across fork/exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
out = {"layout": layout}
if layout.startswith("in-memory"):
    t0 = time.perf_counter()
    try:
        runs = pd.read_parquet(work / "mixed")
        cube = irf.evaluate(runs, qrels, ms)
    except BaseException as e:  # MemoryError, or arrow's allocation failure
        out.update(seconds=time.perf_counter() - t0, failed=f"{type(e).__name__}: {str(e)[:120]}",
                   driver_peak_mb=round(peak()))
        print(json.dumps(out))
        sys.exit(0)
    out["seconds"] = time.perf_counter() - t0
    out["rows"] = len(runs)
    if not (work / "cube.pkl").exists():
        (work / "cube.pkl").write_bytes(pickle.dumps(cube))
else:
    import dask, dask.dataframe as dd, pyarrow as pa, distributed
    import irframe.dask as idk
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=limit,
                                  dashboard_address=None, silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        client.run(lambda: __import__("irframe.dask"))  # worker imports are not timed
        pids = client.run(os.getpid)
        t0 = time.perf_counter()
        opts = {}
        if layout == "hive-topic":
            schema = pa.schema([("topic", pa.string())])
            ddf = dd.read_parquet(work / "hive", dataset={"partitioning": {"flavor": "hive", "schema": schema}})
            opts["partitioned_by"] = "topic"
        elif layout == "mixed-parquet":
            ddf = dd.read_parquet(work / "mixed")
        else:
            ddf = idk.read_runs(str(work / "trec" / "*.txt"))
            if layout == "trec-files-by-system":
                opts["partitioned_by"] = "system"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cube = irf.evaluate(ddf, qrels, ms, **opts)  # a Dask frame: the Dask backend
        out["seconds"] = time.perf_counter() - t0
        out["partitions"] = ddf.npartitions
        out["large_graph_warning"] = any("Sending large graph" in str(w.message) for w in caught)
        out["worker_restarts"] = sum(1 for a, p in client.run(os.getpid).items() if pids.get(a) != p) + \
            len(set(pids) - set(client.scheduler_info()["workers"]))
        rss = client.run(peak)
        out["worker_peak_mb"] = sorted(round(v) for v in rss.values())
out["identical"] = bool(cube.identical(pickle.loads((work / "cube.pkl").read_bytes())))
out["driver_peak_mb"] = round(peak())
out["total_peak_mb"] = out["driver_peak_mb"] + sum(out.get("worker_peak_mb", []))
print(json.dumps(out))
"""


def build(work: Path, systems: int, topics: int, depth: int, seed: int = 0) -> None:
    """Write the collection topic by topic (see the module docstring); nothing if it exists."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    if (work / "qrels.parquet").exists():
        return
    rng = np.random.default_rng(seed)
    pool = max(3 * depth, 2000)
    names = np.array([f"sys{s:03d}" for s in range(systems)], dtype=object)
    skill = 0.5 + 1.5 * np.arange(systems) / max(1, systems - 1)
    for d in ("hive", "mixed", "trec"):
        (work / d).mkdir(parents=True, exist_ok=True)
    schema = pa.schema(
        [
            ("system", pa.string()),
            ("topic", pa.string()),
            ("doc", pa.string()),
            ("score", pa.float64()),
            ("rank", pa.int64()),
        ]
    )
    mixed = [
        pq.ParquetWriter(work / "mixed" / f"part.{b:02d}.parquet", schema)
        for b in range(MIXED_FILES)
    ]
    trec = [open(work / "trec" / f"input.{s}.txt", "w") for s in names]
    qrels = []
    try:
        for t in range(topics):
            tid = str(401 + t)
            docs = np.array([f"D{t:03d}-{i:06d}" for i in range(pool)], dtype=object)
            latent = rng.random(pool)
            grade = np.zeros(pool, dtype=np.int64)
            nrel = int(rng.integers(5, 200))
            relidx = rng.choice(pool, nrel, replace=False)
            grade[relidx] = rng.choice([1, 1, 1, 2, 2, 3], nrel)
            judged = np.zeros(pool, bool)
            judged[rng.choice(pool, min(pool, 1500), replace=False)] = True
            judged[relidx] = True
            qrels.append(pd.DataFrame({"topic": tid, "doc": docs[judged], "rel": grade[judged]}))
            score = np.round(
                rng.normal(size=(systems, pool)) + skill[:, None] * grade + 0.3 * latent, 4
            )
            top = (
                np.argpartition(-score, depth - 1, axis=1)[:, :depth]
                if depth < pool
                else np.tile(np.arange(pool), (systems, 1))
            )
            top = np.take_along_axis(
                top, np.argsort(-np.take_along_axis(score, top, 1), axis=1, kind="stable"), 1
            )
            n = top.size
            cols = {
                "system": np.repeat(names, top.shape[1]),
                "topic": np.full(n, tid, dtype=object),
                "doc": docs[top.ravel()],
                "score": np.take_along_axis(score, top, 1).ravel(),
                "rank": np.tile(np.arange(1, top.shape[1] + 1, dtype=np.int64), systems),
            }
            table = pa.table(cols, schema=schema)
            (work / "hive" / f"topic={tid}").mkdir(exist_ok=True)
            pq.write_table(table.drop(["topic"]), work / "hive" / f"topic={tid}" / "part.0.parquet")
            bucket = rng.integers(0, MIXED_FILES, n)
            order = np.argsort(bucket, kind="stable")
            bounds = np.searchsorted(bucket[order], np.arange(MIXED_FILES + 1))
            for b in range(MIXED_FILES):
                mixed[b].write_table(table.take(order[bounds[b] : bounds[b + 1]]))
            lines = (
                pd.DataFrame(
                    {
                        "topic": cols["topic"],
                        "q0": "Q0",
                        "doc": cols["doc"],
                        "rank": cols["rank"],
                        "score": cols["score"],
                        "tag": cols["system"],
                    }
                )
                .to_csv(sep=" ", header=False, index=False)
                .splitlines(keepends=True)
            )
            per = top.shape[1]
            for s, f in enumerate(trec):
                f.write("".join(lines[s * per : (s + 1) * per]))
    finally:
        for w in mixed:
            w.close()
        for f in trec:
            f.close()
    pd.concat(qrels, ignore_index=True).to_parquet(work / "qrels.parquet")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="1GiB", help="per worker (dask's memory_limit)")
    ap.add_argument("--total-limit", default="3GiB", help="address space of in-memory-limited")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    ap.add_argument("--work", type=Path)
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    a = ap.parse_args()
    from dask.utils import parse_bytes

    work = a.work or Path(tempfile.mkdtemp(prefix="bench_dask_"))
    work.mkdir(parents=True, exist_ok=True)
    build(work, a.systems, a.topics, a.depth)
    layouts = a.layouts.split(",")
    if not (work / "cube.pkl").exists() and layouts[0] != "in-memory":
        layouts = ["in-memory"] + [x for x in layouts if x != "in-memory"]
    print(
        f"{a.systems} systems x {a.topics} topics x depth {a.depth} = {a.systems * a.topics * a.depth:,} rows; "
        f"{a.workers} workers x {a.memory_limit}; in-memory-limited: RLIMIT_AS {a.total_limit}; "
        f"data in {work}",
        flush=True,
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    results: dict[str, list[dict]] = {}
    for r in range(a.rounds):
        order = (
            layouts if r % 2 == 0 else layouts[:1] + layouts[1:][::-1]
        )  # alternate (the reference first)
        for layout in order:
            cmd = [
                sys.executable,
                "-c",
                RUN,
                str(work),
                layout,
                json.dumps(MEASURES),
                str(a.workers),
                a.memory_limit,
                str(parse_bytes(a.total_limit)),
            ]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=a.timeout)
                line = (
                    p.stdout.strip().splitlines()[-1]
                    if p.returncode == 0 and p.stdout.strip()
                    else None
                )
                out = (
                    json.loads(line)
                    if line
                    else {
                        "layout": layout,
                        "failed": f"exit {p.returncode}: "
                        + " | ".join(p.stderr.strip().splitlines()[-3:]),
                    }
                )
            except subprocess.TimeoutExpired:
                out = {"layout": layout, "failed": f"timeout after {a.timeout:.0f} s"}
            out["round"] = r
            results.setdefault(layout, []).append(out)
            print(json.dumps(out), flush=True)
    print("medians over rounds:")
    for layout, runs in results.items():
        ok = [x for x in runs if "failed" not in x]
        if not ok:
            print(f"  {layout}: failed in {len(runs)} of {len(runs)} runs ({runs[0]['failed']})")
            continue
        med = {
            k: statistics.median(x[k] for x in ok)
            for k in ("seconds", "driver_peak_mb", "total_peak_mb")
        }
        print(
            f"  {layout}: {med['seconds']:.1f} s, driver {med['driver_peak_mb']:.0f} MB, "
            f"total {med['total_peak_mb']:.0f} MB, {len(ok)}/{len(runs)} ok, "
            f"identical {all(x.get('identical') for x in ok)}",
            flush=True,
        )


if __name__ == "__main__":
    main()
