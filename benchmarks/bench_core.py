"""irframe vs its peers on the data users actually have, in one process.

Usage::

    python benchmarks/bench_core.py [--systems 50 --topics 50 --depth 1000] [--rounds 5]
                                    [--peers pytrec_eval,ranx,ir_measures]
                                    [--sections df,files,robust03,first] [--profile]

What it times (7 measures: AP, nDCG, nDCG@10, P@10, RR, R@1000, Rprec):

* **df** — the collection of ``../shared/bench/gen.py`` (graded qrels, S × T × depth, scores
  rounded to 4 decimals so ties occur), written to parquet and read back with
  ``pandas.read_parquet`` (pandas 3: ``str`` ids), then with the ids as ``object``,
  ``category`` and ``string[pyarrow]``.  The ``object`` frames hold one Python str per distinct
  id, shared by every row with that id, as pandas 2.2's ``read_parquet`` makes them (pyarrow's
  ``to_pandas(deduplicate_objects=True)``; ``read_csv`` shares them per chunk): built by
  factorizing each column and taking from an object array of its distinct ids.  The worst case,
  one Python str per row (``astype(object)`` of a pandas 3 ``str`` column), is timed as its own
  row, ``object, one str per row``.  irframe from the frames to the cube against
  pytrec_eval's whole path (its dict-of-dicts built the fast way a user would, ``zip`` over
  ``.to_numpy()`` arrays, then ``evaluate``) and against its ``evaluate`` alone (dicts built
  outside the timer); ranx (numba warmed up first, not timed) and ir_measures when installed.
* **files** — the same collection as TREC files written by another tool (a plain Python
  writer, ties in the generator's arbitrary order): ``read_runs`` + ``read_qrels`` +
  ``evaluate`` against pytrec_eval fed by a plain Python line loop, pytrec_eval with its own
  readers (``parse_qrel``, ``parse_run``: its README's way) and ranx's readers.
* **robust03** — the 15 TREC 2003 Robust runs of ``../shared/data/robust03`` (gzip; up to 97 %
  tied rows in one run), same contestants as *files*.
* **first** — a fresh process: ``import irframe``, then the first ``evaluate`` call on the
  ``str`` frames against the median of three warm calls (median over 5 processes).  The
  modules are byte-compiled first, as in an installed package (one untimed process writes
  the bytecode under ``PYTHONPYCACHEPREFIX`` in the temporary folder; a
  ``PYTHONDONTWRITEBYTECODE`` in the environment would otherwise make every first call
  compile the modules ``evaluate`` imports lazily, ~0.02 s).

Every section runs ``--rounds`` alternating rounds (contestant A, B, C, A, B, C, ...) in this
one process and reports the median wall and CPU time per contestant; every ratio is peer
median / irframe median (> 1: irframe is faster).  Before timing, irframe's per-topic values are checked
against pytrec_eval's (trec_eval's C code): the benchmark refuses to time wrong numbers.
Peers that take many seconds (ir_measures) run ``--slow-rounds`` rounds.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import irframe as irf

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "RR", "R@1000", "Rprec"]
TREC = {
    "AP": "map",
    "nDCG": "ndcg",
    "nDCG@10": "ndcg_cut_10",
    "P@10": "P_10",
    "RR": "recip_rank",
    "R@1000": "recall_1000",
    "Rprec": "Rprec",
}
TREC_SET = {"map", "ndcg", "ndcg_cut.10", "P.10", "recip_rank", "recall.1000", "Rprec"}
OBJECT_PER_ROW = "object, one str per row"
RANX = ["map", "ndcg", "ndcg@10", "precision@10", "mrr", "recall@1000", "r-precision"]
DTYPES = ("str", "object", OBJECT_PER_ROW, "category", "string[pyarrow]")


def shared_dir() -> Path:
    env = os.environ.get("IRFRAME_SHARED_DATA")
    data = Path(env) if env else ROOT.parent / "shared" / "data"
    if not data.is_dir():
        sys.exit(f"shared data not found at {data} (set IRFRAME_SHARED_DATA)")
    return data


def load_gen():
    path = shared_dir().parent / "bench" / "gen.py"
    spec = importlib.util.spec_from_file_location("gen", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---- timing ----------------------------------------------------------------------------
def rounds(
    contestants: dict, n: int, slow: dict | None = None
) -> dict[str, list[tuple[float, float]]]:
    """Alternating rounds of (wall, CPU) seconds; ``slow`` maps contestant → its own (smaller)
    number of rounds.  CPU is this process's user + system time (every thread)."""
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in contestants}
    for r in range(n):
        for name, fn in contestants.items():
            if slow and r >= slow.get(name, n):
                continue
            gc.collect()
            t, c = time.perf_counter(), time.process_time()
            fn()
            times[name].append((time.perf_counter() - t, time.process_time() - c))
    return times


def report(title: str, times: dict[str, list[tuple[float, float]]], base: str) -> dict:
    """Print the medians and peer/irframe ratios of wall and CPU time.  On a busy machine the
    CPU ratio is the steadier one; irframe's file readers use threads, so their CPU time can
    exceed their wall time (the CPU ratio then understates irframe)."""
    wall = {k: statistics.median(w for w, _ in v) for k, v in times.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
    print(f"\n{title}")
    print(
        f"  {'contestant':<46} {'wall s':>7} {'ratio':>6} {'CPU s':>7} {'ratio':>6}   wall per round"
    )
    for k, v in times.items():
        rw = "" if k == base else f"{wall[k] / wall[base]:6.2f}"
        rc = "" if k == base else f"{cpu[k] / cpu[base]:6.2f}"
        print(
            f"  {k:<46} {wall[k]:7.3f} {rw:>6} {cpu[k]:7.3f} {rc:>6}   {' '.join(f'{w:.3f}' for w, _ in v)}"
        )
    return {
        k: {
            "median": wall[k],
            "ratio": wall[k] / wall[base],
            "cpu_median": cpu[k],
            "cpu_ratio": cpu[k] / cpu[base],
            "rounds": [w for w, _ in v],
        }
        for k, v in times.items()
    }


# ---- peers ------------------------------------------------------------------------------
def pytrec_qrels(topic, doc, rel) -> dict:
    q: dict = {}
    for t, d, r in zip(topic, doc, rel, strict=True):
        q.setdefault(t, {})[d] = r
    return q


def pytrec_dicts(runs: pd.DataFrame, qrels: pd.DataFrame) -> tuple[dict, dict]:
    """The fast way a user builds pytrec_eval's dicts from frames: zip over .to_numpy()."""
    q = pytrec_qrels(qrels.topic.to_numpy(), qrels.doc.to_numpy(), qrels.rel.to_numpy().tolist())
    r: dict = {}
    for s, t, d, sc in zip(
        runs.system.to_numpy(),
        runs.topic.to_numpy(),
        runs.doc.to_numpy(),
        runs.score.to_numpy().tolist(),
        strict=True,
    ):
        r.setdefault(s, {}).setdefault(t, {})[d] = sc
    return q, r


def pytrec_evaluate(q: dict, r: dict, measures: set[str] = TREC_SET) -> dict:
    import pytrec_eval

    ev = pytrec_eval.RelevanceEvaluator(q, measures)
    return {s: ev.evaluate(x) for s, x in r.items()}


def open_text(path):
    return gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)


def pytrec_own_parsers(qpath, paths, trec_set: set[str] = TREC_SET) -> dict:
    """pytrec_eval's own readers (``parse_qrel``, ``parse_run``, as its README reads files)."""
    import pytrec_eval

    with open_text(qpath) as f:
        q = pytrec_eval.parse_qrel(f)
    r: dict = {}
    for p in paths:
        with open_text(p) as f:
            r[irf.io._file_system_name(p)] = pytrec_eval.parse_run(f)
    return pytrec_evaluate(q, r, trec_set)


def pytrec_files(qpath, paths, trec_set: set[str] = TREC_SET) -> dict:
    """pytrec_eval fed by a plain Python line loop over the TREC files."""
    q: dict = {}
    with open_text(qpath) as f:
        for line in f:
            t, _, d, rel = line.split()
            q.setdefault(t, {})[d] = int(rel)
    r: dict = {}
    for p in paths:
        run: dict = {}
        with open_text(p) as f:
            for line in f:
                t, _, d, _, sc, _ = line.split()
                run.setdefault(t, {})[d] = float(sc)
        r[irf.io._file_system_name(p)] = run
    return pytrec_evaluate(q, r, trec_set)


def check_against_pytrec(cube, res: dict, what: str, names: dict[str, str] = TREC) -> None:
    """irframe's per-topic values must equal pytrec_eval's (trec_eval's C code); ``names``:
    irframe measure -> pytrec_eval's key."""
    sys_i = {str(s): i for i, s in enumerate(cube.coords["system"].values)}
    top_i = {str(t): i for i, t in enumerate(cube.coords["topic"].values)}
    values = cube.sel(measure=list(names)).values
    theirs = np.full(values.shape, np.nan)
    for s, per_topic in res.items():
        for t, vals in per_topic.items():
            theirs[sys_i[str(s)], top_i[t]] = [vals[m] for m in names.values()]
    if np.isnan(values).sum() != np.isnan(theirs).sum():
        sys.exit(f"irframe and pytrec_eval evaluate different (system, topic) pairs on {what}")
    worst = float(np.nanmax(np.abs(values - theirs)))
    print(
        f"  check {what}: max |irframe - pytrec_eval| over every system, topic, measure = {worst:.1e}"
    )
    if worst > 1e-9:
        sys.exit(f"irframe disagrees with pytrec_eval on {what}; not timing wrong numbers")


def ranx_contestants(runs: pd.DataFrame, qrels: pd.DataFrame, measures: list[str] = RANX) -> dict:
    try:
        from ranx import Qrels, Run
        from ranx import evaluate as rx_eval
    except ImportError:
        print("  ranx not installed; skipped")
        return {}
    qx = qrels.rename(columns={"topic": "q_id", "doc": "doc_id", "rel": "score"})
    rx = runs.rename(columns={"topic": "q_id", "doc": "doc_id"})

    def build():  # ranx wants object ids and int grades
        rq = Qrels.from_df(
            qx[["q_id", "doc_id", "score"]].astype({"q_id": object, "doc_id": object}),
            q_id_col="q_id",
            doc_id_col="doc_id",
            score_col="score",
        )
        rr = {
            s: Run.from_df(
                g[["q_id", "doc_id", "score"]].astype({"q_id": object, "doc_id": object}),
                q_id_col="q_id",
                doc_id_col="doc_id",
                score_col="score",
            )
            for s, g in rx.groupby("system", observed=True)
        }
        return rq, rr

    rq, rr = build()
    rx_eval(rq, next(iter(rr.values())), measures)  # numba JIT compile: not timed

    def full():
        q2, r2 = build()
        return {s: rx_eval(q2, r, measures, return_mean=False) for s, r in r2.items()}

    return {
        "ranx: from_df + evaluate (warm JIT)": full,
        "ranx: evaluate only (warm JIT)": lambda: {
            s: rx_eval(rq, r, measures, return_mean=False) for s, r in rr.items()
        },
    }


def irm_contestant(runs: pd.DataFrame, qrels: pd.DataFrame) -> dict:
    try:
        import ir_measures
    except ImportError:
        print("  ir_measures not installed; skipped")
        return {}
    ms = [ir_measures.parse_measure(m) for m in MEASURES]
    qdf = qrels.rename(columns={"topic": "query_id", "doc": "doc_id", "rel": "relevance"})
    rdf = runs.rename(columns={"topic": "query_id", "doc": "doc_id"})
    return {
        "ir_measures: iter_calc per system": lambda: {
            s: list(ir_measures.iter_calc(ms, qdf, g))
            for s, g in rdf.groupby("system", observed=True)
        }
    }


# ---- collection ----------------------------------------------------------------------------
def build_collection(args, work: Path) -> tuple[pd.DataFrame, pd.DataFrame, Path, list[Path]]:
    gen = load_gen()
    q, r = gen.make(args.systems, args.topics, args.depth, seed=0)
    r.to_parquet(work / "runs.parquet")
    q.to_parquet(work / "qrels.parquet")
    runs = pd.read_parquet(work / "runs.parquet")  # what a user has: pandas' default dtypes
    qrels = pd.read_parquet(work / "qrels.parquet")[["topic", "doc", "rel"]]
    # TREC files written by another tool: a plain Python writer, rank order as generated
    qpath = work / "qrels.txt"
    with open(qpath, "w") as f:
        for t, d, g in zip(q.topic, q.doc, q.rel, strict=True):
            f.write(f"{t} 0 {d} {g}\n")
    paths = []
    for s, g in r.groupby("system", sort=True):
        p = work / f"{s}.txt"
        with open(p, "w") as f:
            for t, d, rk, sc in zip(g.topic, g.doc, g["rank"], g.score, strict=True):
                f.write(f"{t} Q0 {d} {rk} {sc} {s}\n")
        paths.append(p)
    tied = 1 - r.groupby(["system", "topic"]).score.nunique().sum() / len(r)
    print(
        f"collection (../shared/bench/gen.py): {args.systems} systems x {args.topics} topics x "
        f"depth {args.depth} = {len(r):,} rows, {len(q):,} qrels; {tied:.1%} of rows share their "
        f"score with an earlier row; read_parquet gives {runs.doc.dtype!r} ids"
    )
    return runs, qrels, qpath, paths


def shared_objects(s: pd.Series) -> pd.Series:
    """An ``object`` column holding one Python str per distinct id, shared by its rows (what
    pandas 2.2's ``read_parquet`` gives)."""
    codes, uniques = pd.factorize(s.to_numpy(dtype=object))
    return pd.Series(
        np.asarray(uniques, dtype=object)[codes], index=s.index, dtype=object, name=s.name
    )


def as_dtype(df: pd.DataFrame, dtype: str, cols) -> pd.DataFrame:
    """``df`` with the id columns ``cols`` as ``dtype`` (see the module docstring for the two
    ``object`` variants)."""
    if dtype == "str":
        return df
    if dtype == "object":
        return df.assign(**{c: shared_objects(df[c]) for c in cols})
    if dtype == OBJECT_PER_ROW:
        return df.astype(dict.fromkeys(cols, object))
    return df.astype(dict.fromkeys(cols, dtype))


def distinct_objects(s: pd.Series) -> str:
    """How many Python objects an ``object`` column holds, against its distinct values."""
    if s.dtype != object:
        return ""
    return f", {len({id(x) for x in s.to_numpy()}):,} objects for {s.nunique():,} distinct {s.name} ids"


# ---- sections ----------------------------------------------------------------------------------
def section_df(args, runs, qrels, peers) -> dict:
    out = {}
    q_dicts, r_dicts = pytrec_dicts(runs, qrels)
    res = pytrec_evaluate(q_dicts, r_dicts) if "pytrec_eval" in peers else None
    for dt in DTYPES:
        rr = as_dtype(runs, dt, ("system", "topic", "doc"))
        qq = as_dtype(qrels, dt, ("topic", "doc"))
        if res is not None:
            check_against_pytrec(irf.evaluate(rr, qq, MEASURES), res, f"{dt} frame")
        cs = {"irframe: frame -> cube": lambda rr=rr, qq=qq: irf.evaluate(rr, qq, MEASURES)}
        if "pytrec_eval" in peers:
            cs["pytrec_eval: zip(.to_numpy()) dicts + evaluate"] = lambda rr=rr, qq=qq: (
                pytrec_evaluate(*pytrec_dicts(rr, qq))
            )
            cs["pytrec_eval: evaluate only"] = lambda: pytrec_evaluate(q_dicts, r_dicts)
        if "ranx" in peers:
            cs.update(ranx_contestants(rr, qq))
        slow = {}
        if "ir_measures" in peers:
            cs.update(irm_contestant(rr, qq))
            slow = {k: args.slow_rounds for k in cs if k.startswith("ir_measures")}
        out[dt] = report(
            f"run frame -> cube, ids {dt} (dtype {rr.doc.dtype.name!r}{distinct_objects(rr.doc)})",
            rounds(cs, args.rounds, slow),
            "irframe: frame -> cube",
        )
    return out


def files_contestants(
    qpath, paths, peers, measures=MEASURES, trec_set=TREC_SET, ranx_measures=RANX
) -> dict:
    cs = {
        "irframe: read_runs + read_qrels + evaluate": lambda: irf.evaluate(
            irf.read_runs(paths), irf.read_qrels(qpath), measures
        )
    }
    if "pytrec_eval" in peers:
        cs["pytrec_eval: Python line loop + evaluate"] = lambda: pytrec_files(
            qpath, paths, trec_set
        )
        cs["pytrec_eval: parse_qrel/parse_run + evaluate"] = lambda: pytrec_own_parsers(
            qpath, paths, trec_set
        )
    if "ranx" in peers and not str(qpath).endswith(".gz"):  # ranx's readers take no gzip
        try:
            from ranx import Qrels, Run
            from ranx import evaluate as rx_eval
        except ImportError:
            pass
        else:
            rq = Qrels.from_file(str(qpath), kind="trec")
            rx_eval(rq, Run.from_file(str(paths[0]), kind="trec"), ranx_measures)  # warm the JIT

            def rx():
                q2 = Qrels.from_file(str(qpath), kind="trec")
                return [
                    rx_eval(
                        q2, Run.from_file(str(p), kind="trec"), ranx_measures, return_mean=False
                    )
                    for p in paths
                ]

            cs["ranx: from_file + evaluate (warm JIT)"] = rx
    return cs


def tie_share(runs: pd.DataFrame) -> pd.Series:
    """Per system: share of rows whose float32 score equals an earlier row's in the same topic."""
    f32 = runs.assign(s32=runs.score.astype(np.float32))
    g = f32.groupby(["system", "topic"], observed=True)
    per = (
        g.s32.nunique().groupby(level=0, observed=True).sum()
        / g.size().groupby(level=0, observed=True).sum()
    )
    return 1 - per


def section_files(args, qpath, paths, peers, title) -> dict:
    ties = tie_share(irf.read_runs(paths))
    print(
        f"\n{title}: tied rows per run from {ties.min():.1%} to {ties.max():.1%} (median {ties.median():.1%})"
    )
    if "pytrec_eval" in peers:
        cube = irf.evaluate(irf.read_runs(paths), irf.read_qrels(qpath), MEASURES)
        check_against_pytrec(cube, pytrec_files(qpath, paths), title)
        check_against_pytrec(cube, pytrec_own_parsers(qpath, paths), f"{title} (parse_run)")
    return report(
        title,
        rounds(files_contestants(qpath, paths, peers), args.rounds),
        "irframe: read_runs + read_qrels + evaluate",
    )


FIRST_CALL = """
import json, resource, statistics, sys, time
t0 = time.perf_counter()
import irframe as irf
t1 = time.perf_counter()
import pandas as pd
runs, qrels = pd.read_parquet(sys.argv[1]), pd.read_parquet(sys.argv[2])[["topic", "doc", "rel"]]
ms = json.loads(sys.argv[3])

def call():
    r0, t = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    irf.evaluate(runs, qrels, ms)
    r1, t2 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    return t2 - t, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime

first = call()
warm = [call() for _ in range(3)]
med = [statistics.median(w[i] for w in warm) for i in range(3)]
print(json.dumps({"import": t1 - t0, "first": first[0], "warm": med[0], "first_user": first[1],
                  "warm_user": med[1], "first_sys": first[2], "warm_sys": med[2]}))
"""


def child_env(work: Path) -> dict:
    """The environment of a timed child process: this checkout's irframe, its modules
    byte-compiled as in an installed package (bytecode written under ``PYTHONPYCACHEPREFIX``
    in the temporary folder ``work``, so the checkout is not touched; a
    ``PYTHONDONTWRITEBYTECODE`` in the environment would make every child compile them)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        PYTHONPYCACHEPREFIX=str(work / "pycache"),
    )
    return env


def section_first(work: Path, n: int = 5) -> dict:
    env = child_env(work)  # one untimed process first writes the bytecode the first call needs
    res = []
    for _ in range(n + 1):
        p = subprocess.run(
            [
                sys.executable,
                "-c",
                FIRST_CALL,
                str(work / "runs.parquet"),
                str(work / "qrels.parquet"),
                json.dumps(MEASURES),
            ],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        res.append(json.loads(p.stdout))
    res = res[1:]  # the first process compiled the bytecode: not counted
    med = {k: statistics.median(r[k] for r in res) for k in res[0]}
    ratios = [r["first"] / r["warm"] for r in res]
    print(f"\nfirst call in a fresh process (str frames; {n} processes, modules byte-compiled)")
    print(
        f"  import irframe {med['import']:.3f} s; first evaluate {med['first']:.3f} s; warm "
        f"{med['warm']:.3f} s; first/warm {statistics.median(ratios):.2f} "
        f"(per process: {' '.join(f'{x:.2f}' for x in ratios)})"
    )
    print(
        f"  CPU of the first call: user {med['first_user']:.3f} s, system {med['first_sys']:.3f} s; "
        f"of a warm call: user {med['warm_user']:.3f} s, system {med['warm_sys']:.3f} s"
    )
    return {**med, "first_over_warm": statistics.median(ratios), "ratios": ratios}


def profile(runs, qrels) -> None:
    import cProfile
    import pstats

    irf.evaluate(runs, qrels, MEASURES)
    pr = cProfile.Profile()
    pr.enable()
    irf.evaluate(runs, qrels, MEASURES)
    pr.disable()
    print("\nprofile of one warm irframe call (str frames), by own time:")
    pstats.Stats(pr).sort_stats("tottime").print_stats(15)


def collection_args(ap: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The collection's size (gen.py's systems × topics × depth) and the number of rounds."""
    ap.add_argument("--systems", type=int, default=50)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    return ap


def main(argv=None) -> int:
    ap = collection_args(argparse.ArgumentParser(description=__doc__.split("\n")[0]))
    ap.add_argument("--slow-rounds", type=int, default=1, help="rounds for ir_measures")
    ap.add_argument("--peers", default="pytrec_eval,ranx")
    ap.add_argument("--sections", default="df,files,robust03,first")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    peers = set(filter(None, args.peers.split(",")))
    sections = set(args.sections.split(","))
    print(
        f"python {sys.version.split()[0]}, pandas {pd.__version__}, numpy {np.__version__}, "
        f"irframe {irf.__version__}; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}"
    )
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        runs, qrels, qpath, paths = build_collection(args, work)
        if "df" in sections:
            results["df"] = section_df(args, runs, qrels, peers)
        if "files" in sections:
            results["files"] = section_files(
                args, qpath, paths, peers, "TREC files (Python writer) -> cube"
            )
        if "robust03" in sections:
            rob = shared_dir() / "robust03"
            results["robust03"] = section_files(
                args,
                rob / "qrels" / "robust03_qrels.txt.gz",
                sorted((rob / "runs").glob("input.*.gz")),
                peers,
                "Robust03: 15 gzip run files -> cube",
            )
        if "first" in sections:
            results["first"] = section_first(work)
        if args.profile:
            profile(runs, qrels)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
