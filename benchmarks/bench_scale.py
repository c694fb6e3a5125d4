"""Extreme but legal inputs: memory and time must follow the input, not a cutoff, a depth,
the longest id or the number of systems squared.

Usage::

    python benchmarks/bench_scale.py [--cases cwl,lr,lr_systems,shared_long_id,diversity,giant_topic]
                                     [--scale 1.0]

Each case runs in a fresh Python process (``python bench_scale.py --one CASE``) that builds
its input, evaluates it once to warm up on a tenth of it, then once in full; it prints the
wall time and the growth of the process's peak resident memory (``VmHWM`` of
``/proc/self/status``, reset with ``clear_refs`` before the call) next to AP on the same
input as the yardstick.  ``--scale`` multiplies every case's size.

Cases (the sizes at ``--scale 1``):

* ``cwl``: 100,000 rankings of 5 documents; ``CWL(C=RBP(p=0.8))`` pads every ranking to
  cwl_eval's default depth 1000.
* ``lr``: 120,000 topics of 5 rows and one topic with 120,000 relevant documents retrieved;
  ``LR`` (metric lexirecall).
* ``lr_systems``: 10,000 systems × 10 topics × 10 documents; ``LR(repr=rank)``.
* ``shared_long_id``: an ``object`` topic column in which one topic id of 1 MB is one
  Python object shared by 2,000 of 20,000 rows.
* ``diversity``: 5 M rows of distinct documents, 50 judged; ``alpha_nDCG@20`` and
  ``P_rare(alpha=0.5)@20``.
* ``giant_topic``: one topic of 120,000 rows beside 120,000 topics of 5 rows; ``AP``.
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import time

import numpy as np
import pandas as pd

CASES = ("cwl", "lr", "lr_systems", "shared_long_id", "diversity", "giant_topic")


def _peak_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover - not Linux


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:  # pragma: no cover - not Linux or not allowed
        pass


def _ids(prefix: str, values) -> pd.Series:
    return pd.Series([f"{prefix}{v}" for v in values], dtype="str")


def _input(case: str, scale: float):
    """(runs, qrels, measures) of a case."""
    rng = np.random.default_rng(0)
    if case in ("cwl", "lr", "giant_topic"):
        t = max(int(120_000 * scale), 10) if case != "cwl" else max(int(100_000 * scale), 10)
        topic = np.repeat(np.arange(t), 5)
        if case != "cwl":
            topic = np.r_[topic, np.full(t, -1)]  # one topic as deep as all the others
        doc = np.arange(len(topic))
        runs = pd.DataFrame(
            {
                "system": "s",
                "topic": _ids("t", topic),
                "doc": _ids("d", doc),
                "score": -np.arange(len(topic), dtype=float),
            }
        )
        qrels = runs[["topic", "doc"]].iloc[:: 1 if case == "lr" else 2].assign(rel=1)
        measures = {"cwl": ["CWL(C=RBP(p=0.8))"], "lr": ["LR"], "giant_topic": ["AP"]}[case]
        return runs, qrels, measures
    if case == "lr_systems":
        s = max(int(10_000 * scale), 2)
        sys_, top, rank = np.meshgrid(np.arange(s), np.arange(10), np.arange(10), indexing="ij")
        doc = rng.integers(0, 30, sys_.size)
        runs = pd.DataFrame(
            {
                "system": _ids("s", sys_.ravel()),
                "topic": _ids("t", top.ravel()),
                "doc": _ids("d", doc),
                "score": -rank.ravel().astype(float),
            }
        ).drop_duplicates(["system", "topic", "doc"])
        qrels = pd.DataFrame(
            {
                "topic": _ids("t", np.repeat(np.arange(10), 5)),
                "doc": _ids("d", np.tile(np.arange(5), 10)),
                "rel": 1,
            }
        )
        return runs, qrels, ["LR(repr=rank)"]
    if case == "shared_long_id":
        n = max(int(20_000 * scale), 20)
        topic = np.array([f"t{i % 10}" for i in range(n)], dtype=object)
        topic[::10] = "x" * 1_000_000  # one object in a tenth of the rows
        runs = pd.DataFrame(
            {
                "system": pd.Series(["s"] * n, dtype=object),
                "topic": pd.Series(topic, dtype=object),
                "doc": pd.Series([f"d{i}" for i in range(n)], dtype=object),
                "score": rng.random(n),
            }
        )
        qrels = pd.DataFrame(
            {
                "topic": pd.Series(topic[::7], dtype=object),
                "doc": pd.Series(runs.doc[::7].to_numpy(), dtype=object),
                "rel": 1,
            }
        )
        return runs, qrels, ["AP"]
    if case == "diversity":
        n = max(int(5_000_000 * scale), 500)
        per = n // 500
        runs = pd.DataFrame(
            {
                "system": _ids("s", np.repeat(np.arange(10), 50 * per)),
                "topic": _ids("t", np.tile(np.repeat(np.arange(50), per), 10)),
                "doc": _ids("d", np.arange(n)),
                "score": rng.random(n),
            }
        )
        qrels = pd.DataFrame(
            {
                "topic": _ids("t", np.arange(50)),
                "doc": _ids("d", np.arange(50) * per),
                "rel": 1,
                "subtopic": "1",
            }
        )
        return runs, qrels, ["alpha_nDCG@20", "P_rare(alpha=0.5)@20"]
    raise SystemExit(f"unknown case {case!r}")


def one(case: str, scale: float) -> None:
    import irframe as irf

    runs, qrels, measures = _input(case, scale)
    small_runs, small_qrels, _ = _input(case, scale / 10)
    for m in dict.fromkeys([*measures, "AP"]):
        irf.evaluate(small_runs, small_qrels, [m])  # imports, first-call caches
        gc.collect()
        _reset_peak()
        before = _peak_mb()
        t = time.perf_counter()
        irf.evaluate(runs, qrels, [m])
        wall = time.perf_counter() - t
        print(
            f"{case:15s} {len(runs):>10,} rows  {m:24s} {wall:7.2f} s  "
            f"peak +{_peak_mb() - before:7.0f} MB",
            flush=True,
        )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--one", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.one:
        one(a.one, a.scale)
        return 0
    for case in a.cases.split(","):
        subprocess.run(
            [sys.executable, __file__, "--one", case, "--scale", str(a.scale)], check=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
