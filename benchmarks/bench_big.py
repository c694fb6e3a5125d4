"""A large collection from a parquet file: time and peak memory of parquet → cube.

Usage::

    python benchmarks/bench_big.py [--systems 110 --topics 250 --depth 1000] [--work DIR]

Step 1 (skipped when ``DIR/runs.parquet`` exists) builds the collection with
``../shared/bench/gen.py`` (graded qrels; scores rounded to 4 decimals, so tied scores)
and writes it to parquet.  Step 2 runs in a fresh process: ``pandas.read_parquet`` (pandas'
default ``str`` ids) + ``irframe.evaluate`` with the 7 measures of ``bench_core.py``, and
reports the wall time of each part and the peak resident memory of that process
(``getrusage``), which includes the frames themselves.  A second process reads the id
columns as dictionaries (``read_dictionary=``, pyarrow's option: pandas categoricals).
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

STEP2 = """
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=110)
    ap.add_argument("--topics", type=int, default=250)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--work", help="folder for the parquet files (default: a temporary one)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_core import MEASURES, load_gen

    tmp = None
    if args.work is None:
        tmp = tempfile.TemporaryDirectory()
        args.work = tmp.name
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    runs_path, qrels_path = work / "runs.parquet", work / "qrels.parquet"
    if not runs_path.exists():
        q, r = load_gen().make(args.systems, args.topics, args.depth, seed=1)
        r.to_parquet(runs_path)
        q.to_parquet(qrels_path)
        print(f"wrote {len(r):,} run rows, {len(q):,} qrels to {work}")
        del q, r
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    variants = {
        "pd.read_parquet(path)": {},
        "pd.read_parquet(path, read_dictionary=[ids])": {
            "read_dictionary": ["system", "topic", "doc"]
        },
    }
    for name, kw in variants.items():
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                STEP2,
                str(runs_path),
                str(qrels_path),
                json.dumps(MEASURES),
                json.dumps(kw),
            ],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        res = json.loads(out.stdout)
        print(
            f"{name}: {res['rows']:,} rows ({res['dtype']} ids): read {res['read_parquet']:.2f} s + "
            f"evaluate {res['evaluate']:.2f} s = {res['total']:.2f} s; peak RSS {res['peak_rss_gb']:.2f} GB "
            f"(whole process, frames included); load average {os.getloadavg()[0]:.1f}"
        )
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
