"""irframe against its peers on the field's common shapes: MS MARCO dev, TREC DL, BEIR.

Usage::

    python benchmarks/bench_shapes.py [--shapes msmarco,dl,beir] [--queries N] [--corpus N]
        [--rounds 3] [--dtypes str,object,...] [--peers pytrec_eval,ranx]
        [--sections df,memory,files,cli] [--trec-eval PATH]

Collections come from ``benchmarks/shapes.py`` (module docstring there: documents drawn from
a corpus of millions, almost every (topic, doc) pair distinct, ties from 3-decimal scores).
Measures: RR@10, R@1000, nDCG@10, AP (pytrec_eval: recip_rank, recall_1000, ndcg_cut_10, map;
trec_eval 9 has no RR cut-off, so the check against pytrec_eval uses RR without it).

* **df** — the run frame with ids as ``str``, ``object`` (one Python str per distinct id),
  ``object-per-row`` (one Python str per row: ``astype(object)``) and ``category`` → cube, against pytrec_eval's whole path
  (dicts by ``zip`` over ``.to_numpy()``, then ``evaluate``), pytrec_eval's ``evaluate``
  alone, and ranx (``from_df`` + ``evaluate``, and ``evaluate`` alone; numba warmed up first).
  Before timing, irframe's per-topic AP, nDCG@10, R@1000 and RR equal pytrec_eval's.
* **memory** — each contestant once in a fresh process (frames read from parquet first):
  peak resident memory of the process (``VmHWM``), and its growth over the frames loaded.
* **files** — the run and its qrels as TREC files → cube: ``read_runs`` + ``read_qrels`` +
  ``evaluate`` against pytrec_eval with its own readers (``parse_qrel``/``parse_run``) and
  with a plain Python line loop, and ranx (``from_file`` + ``evaluate``); values checked first.
* **cli** — the run as a TREC file: ``irframe eval`` against the trec_eval binary
  (``--trec-eval``; built from NIST's source; irframe given ``--trec-eval-version 10.0`` when
  the binary says it is 10.0) with the four measures, with trec_eval's default measures and
  with ``-q`` (`CLI_VARIANTS`); wall time and peak memory from GNU ``time``; the outputs
  must be byte-identical before anything is timed.  A run file this large is read in blocks
  (irframe._evalstream).

Alternating rounds (A, B, C, A, B, C, ...) in one process; medians; every ratio is peer /
irframe (> 1: irframe is faster).  The machine these figures come from is shared: read the
ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_core as bc  # noqa: E402
import shapes  # noqa: E402

import irframe as irf  # noqa: E402

MEASURES = ["RR@10", "R@1000", "nDCG@10", "AP"]
TREC_SET = {"recip_rank", "recall.1000", "ndcg_cut.10", "map"}
CHECK = {"AP": "map", "nDCG@10": "ndcg_cut_10", "R@1000": "recall_1000", "RR": "recip_rank"}
RANX = ["mrr@10", "recall@1000", "ndcg@10", "map"]
TE_MEASURES = ["-m", "recip_rank", "-m", "recall.1000", "-m", "ndcg_cut.10", "-m", "map"]


def pytrec_evaluate(q: dict, r: dict) -> dict:
    return bc.pytrec_evaluate(q, r, TREC_SET)


def ranx_contestants(runs, qrels) -> dict:
    return bc.ranx_contestants(runs, qrels, RANX)


def section_df(shape, runs, qrels, args) -> dict:
    peers = set(args.peers.split(","))
    out = {}
    q_dicts = r_dicts = None
    if "pytrec_eval" in peers:
        q_dicts, r_dicts = bc.pytrec_dicts(runs, qrels)
        bc.check_against_pytrec(
            irf.evaluate(runs, qrels, list(CHECK)), pytrec_evaluate(q_dicts, r_dicts), shape, CHECK
        )
    for dt in args.dtypes.split(","):
        rr = shapes.frame(runs, dt)
        qq = shapes.frame(qrels, dt)
        cs = {"irframe: frame -> cube": lambda rr=rr, qq=qq: irf.evaluate(rr, qq, MEASURES)}
        if "pytrec_eval" in peers:
            cs["pytrec_eval: zip(.to_numpy()) dicts + evaluate"] = lambda rr=rr, qq=qq: (
                pytrec_evaluate(*bc.pytrec_dicts(rr, qq))
            )
            cs["pytrec_eval: evaluate only"] = lambda: pytrec_evaluate(q_dicts, r_dicts)
        if "ranx" in peers:
            cs.update(ranx_contestants(rr, qq))
        out[dt] = bc.report(
            f"{shape}: run frame -> cube, ids {dt} (dtype {rr.doc.dtype.name!r})",
            bc.rounds(cs, args.rounds),
            "irframe: frame -> cube",
        )
        del rr, qq
    return out


ONE = """
import json, sys
sys.path.insert(0, {here!r})
import pandas as pd, bench_shapes as b, shapes
runs = shapes.frame(pd.read_parquet({run!r}), {dt!r}); qrels = shapes.frame(pd.read_parquet({qrels!r}), {dt!r})
import irframe as irf, pytrec_eval
def status(key):  # VmHWM: this process's own peak (ru_maxrss would count the parent's too)
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) for x in f if x.startswith(key)) / 1024
before = status("VmRSS")
what = {what!r}
if what == "irframe":
    irf.evaluate(runs, qrels, b.MEASURES)
elif what == "pytrec_eval":
    b.pytrec_evaluate(*b.bc.pytrec_dicts(runs, qrels))
elif what == "ranx":
    next(iter(b.ranx_contestants(runs, qrels).values()))()
print(json.dumps([before, status("VmHWM")]))
"""


def section_memory(shape, work: Path, args) -> None:
    print(f"\n{shape}: peak resident memory, one fresh process per contestant (MB)")
    for dt in args.dtypes.split(","):
        for what in ("irframe", "pytrec_eval", "ranx"):
            code = ONE.format(
                here=str(HERE),
                run=str(work / "run.parquet"),
                qrels=str(work / "qrels.parquet"),
                dt=dt,
                what=what,
            )
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            if p.returncode:
                print(f"  {what} ({dt}) failed: {p.stderr.strip().splitlines()[-1:]}")
                continue
            before, peak = json.loads(p.stdout.strip().splitlines()[-1])
            print(
                f"  ids {dt:<26} {what:<12} peak {peak:8.0f}  frames loaded {before:8.0f}  "
                f"growth {peak - before:8.0f}"
            )


#: the command lines timed in the cli section: trec_eval's options after the program name
CLI_VARIANTS = {
    "four measures": TE_MEASURES,
    "default measures": [],
    "-q, four measures": ["-q", *TE_MEASURES],
}


def section_files(shape, work: Path, args) -> dict:
    peers = set(args.peers.split(","))
    qpath, paths = work / "qrels.txt", [work / "run.txt"]
    title = f"{shape}: TREC files ({paths[0].stat().st_size / 1e6:.0f} MB run) -> cube"
    runs = irf.read_runs(paths)
    print(f"\n{title}: read_runs gives doc dtype {runs.doc.dtype.name!r}")
    if "pytrec_eval" in peers:
        cube = irf.evaluate(runs, irf.read_qrels(qpath), list(CHECK))
        bc.check_against_pytrec(cube, bc.pytrec_own_parsers(qpath, paths, TREC_SET), title, CHECK)
    del runs
    return bc.report(
        title,
        bc.rounds(bc.files_contestants(qpath, paths, peers, MEASURES, TREC_SET, RANX), args.rounds),
        "irframe: read_runs + read_qrels + evaluate",
    )


def _binary_version(te: str) -> list[str]:
    """``--trec-eval-version 10.0`` when the binary is 10.0 (``-v`` says so), else nothing:
    the options that make irframe print what this binary prints."""
    p = subprocess.run([te, "-v"], capture_output=True, text=True)
    return ["--trec-eval-version", "10.0"] if "version 10." in p.stdout + p.stderr else []


def section_cli(shape, work: Path, args) -> None:
    import bench_cli

    te = args.trec_eval
    if not te or not Path(te).exists():
        print("\ncli: no trec_eval binary (--trec-eval); skipped")
        return
    env = bc.child_env(work)
    qpath, rpath = work / "qrels.txt", work / "run.txt"
    version = _binary_version(te)
    print(f"\n{shape}: TREC file ({rpath.stat().st_size / 1e6:.0f} MB)")
    for title, opts in CLI_VARIANTS.items():
        irf_cmd = [sys.executable, "-m", "irframe", "eval", *version, *opts, str(qpath), str(rpath)]
        te_cmd = [te, *opts, str(qpath), str(rpath)]
        a = subprocess.run(irf_cmd, env=env, capture_output=True).stdout
        b = subprocess.run(te_cmd, capture_output=True).stdout
        if a != b:
            sys.exit(f"irframe eval and trec_eval print different output ({title}); not timing")
        print(f"  {title}: output byte-identical ({len(b.splitlines())} lines)")
        bench_cli.bench(
            f"{shape}, {title}: irframe eval vs trec_eval",
            {"irframe eval": [irf_cmd], "trec_eval": [te_cmd]},
            env,
            args.rounds,
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="msmarco,dl,beir")
    ap.add_argument("--queries", type=int, default=None)
    ap.add_argument("--corpus", type=int, default=None)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dtypes", default=",".join(shapes.DTYPES))
    ap.add_argument("--peers", default="pytrec_eval,ranx")
    ap.add_argument("--sections", default="df,memory,files,cli")
    ap.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"))
    args = ap.parse_args(argv)
    sections = set(args.sections.split(","))
    for shape in args.shapes.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            qrels, runs = shapes.make(
                shape, queries=args.queries, corpus=args.corpus, depth=args.depth
            )
            tied = 1 - runs.groupby("topic").score.nunique().sum() / len(runs)
            print(
                f"\n== {shape}: {runs.topic.nunique():,} queries x depth {args.depth} = "
                f"{len(runs):,} rows, {runs.doc.nunique():,} distinct docs, {len(qrels):,} "
                f"judgments ({(qrels.rel > 0).sum() / qrels.topic.nunique():.1f} relevant per "
                f"query); {tied:.1%} of rows tie an earlier row's score"
            )
            runs.to_parquet(work / "run.parquet")
            qrels.to_parquet(work / "qrels.parquet")
            if "df" in sections:
                section_df(shape, runs, qrels, args)
            if "memory" in sections:
                section_memory(shape, work, args)
            if sections & {"files", "cli"}:
                shapes.write_trec(runs, qrels, work / "run.txt", work / "qrels.txt")
            if "files" in sections:
                section_files(shape, work, args)
            if "cli" in sections:
                section_cli(shape, work, args)
    print(
        f"\npeak resident memory of this process: "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
