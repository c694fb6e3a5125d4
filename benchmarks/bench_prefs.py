"""trec_eval's preference measures on one TREC 2003 Robust run: ``irframe eval`` against the
trec_eval binary built from NIST's source.

``-R qrels_prefs`` reads the Robust03 qrels as preferences (one judgment group per topic, every
pair of documents with different grades a preference: 50 topics, ~135 k lines), so this is
the input trec_eval itself derives from a qrels file; no separate prefs file is made up.

Two generated shapes no TREC file has (``--shape``): ``groups`` -- 3 topics of 4,000 judged
documents (50 grades) split over two judgment groups by the qrels' second field, 3,000 ranked
per topic (``-R qrels_prefs``: trec_eval fills a 4,000 x 4,000 count array per topic); and
``subgroups`` -- 2 topics, each 2 groups of 3 sub-groups of 600 of 1,500 documents agreeing
with one hidden order (``-R prefs``: the transitive closure, which trec_eval forms by repeated
n x n boolean matrix products).

Both commands run as subprocesses in alternating rounds (irframe, trec_eval, irframe, ...);
the machine is shared, so the median per-round ratio is what counts.  The outputs are
compared byte for byte (``--trec-eval-version 10.0``, the binary's version), and the run is
also evaluated in-process (``Judgments``: preparation and evaluation) to show where the time
goes.

    python benchmarks/bench_prefs.py [--rounds 5] [--run input.SABIR03BASE.gz]
        [--shape robust03|groups|subgroups] [--trec-eval PATH]

The binary defaults to ``$IRFRAME_TREC_EVAL`` or ``trec_eval`` on the PATH (as in the tests);
the Robust03 files are read from ``../shared/data`` (or ``$IRFRAME_SHARED_DATA``).
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import shared_dir


def _groups(qrels: Path, run: Path) -> None:
    rng = np.random.default_rng(1)
    with qrels.open("w") as f:
        for t in range(3):
            for i in range(4000):
                f.write(f"t{t} {rng.integers(0, 2)} d{i} {rng.integers(0, 50)}\n")
    with run.open("w") as f:
        for t in range(3):
            for k, i in enumerate(rng.permutation(6000)[:3000]):
                f.write(f"t{t} Q0 d{i} {k} {rng.integers(0, 300)} run\n")


def _subgroups(prefs: Path, run: Path) -> None:
    rng = np.random.default_rng(2)
    with prefs.open("w") as f:
        for t in range(2):
            n = 1500
            order = rng.permutation(n)  # the hidden order, higher is better
            nonrel = rng.random(n) < 0.4
            for jg in ("a", "b"):
                for s in range(3):
                    for d in rng.choice(n, 600, replace=False):
                        lev = 0 if nonrel[d] else 1 + order[d] * 5 // n
                        f.write(f"t{t} {jg} s{s} d{d} {lev}\n")
    with run.open("w") as f:
        for t in range(2):
            for k, i in enumerate(rng.permutation(2000)[:1000]):
                f.write(f"t{t} Q0 d{i} {k} {rng.integers(0, 300)} run\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--run", default="input.SABIR03BASE.gz")
    ap.add_argument("--shape", default="robust03", choices=["robust03", "groups", "subgroups"])
    ap.add_argument(
        "--trec-eval",
        default=os.environ.get("IRFRAME_TREC_EVAL") or shutil.which("trec_eval"),
        help="the trec_eval binary (default: $IRFRAME_TREC_EVAL or trec_eval on the PATH)",
    )
    a = ap.parse_args()
    if not a.trec_eval:
        ap.error("no trec_eval binary: pass --trec-eval PATH or set $IRFRAME_TREC_EVAL")
    tmp = Path(tempfile.mkdtemp())
    qrels, run = tmp / "qrels", tmp / "run"
    fmt = "qrels_prefs"
    if a.shape == "robust03":
        qrels.write_bytes(
            gzip.decompress(
                (shared_dir() / "robust03" / "qrels" / "robust03_qrels.txt.gz").read_bytes()
            )
        )
        run.write_bytes(gzip.decompress((shared_dir() / "robust03" / "runs" / a.run).read_bytes()))
    elif a.shape == "groups":
        _groups(qrels, run)
    else:
        _subgroups(qrels, run)
        fmt = "prefs"
    args = ["-R", fmt, "-m", "all_prefs", "-q", str(qrels), str(run)]
    cmds = {
        "irframe eval": [
            sys.executable,
            "-m",
            "irframe",
            "eval",
            "--trec-eval-version",
            "10.0",
            *args,
        ],
        "trec_eval": [a.trec_eval, *args],
    }
    outs, times = {}, {k: [] for k in cmds}
    for _ in range(a.rounds):
        for k, c in cmds.items():
            t = time.perf_counter()
            outs[k] = subprocess.run(c, capture_output=True, check=True).stdout
            times[k].append(time.perf_counter() - t)
    same = outs["irframe eval"] == outs["trec_eval"]
    name = a.run if a.shape == "robust03" else a.shape
    print(f"{name}: {qrels.stat().st_size / 1e6:.1f} MB judgments; outputs identical: {same}")
    for k, v in times.items():
        print(
            f"  {k:<14} median {statistics.median(v):6.2f} s  ({' '.join(f'{x:.2f}' for x in v)})"
        )
    ratio = statistics.median(
        x / y for x, y in zip(times["irframe eval"], times["trec_eval"], strict=False)
    )
    print(f"  irframe / trec_eval (median per-round ratio): {ratio:.2f}")

    import irframe as irf
    from irframe.prefs import Judgments

    if fmt == "prefs":
        prefs = irf.io.read_prefs(qrels)
    else:
        q = irf.io.read_qrels(qrels, kind="jg")
        prefs = q.assign(jsg="0")[["topic", "jg", "jsg", "doc", "rel"]]
    r = irf.io.read_run(run)
    topics = sorted(set(r["topic"].astype(str)))
    prep, ev = [], []
    for _ in range(a.rounds):
        t = time.perf_counter()
        j = Judgments(prefs, float32=False)
        prep.append(time.perf_counter() - t)
        t = time.perf_counter()
        j.values(r, topics)
        ev.append(time.perf_counter() - t)
    print(
        f"  in process: Judgments() {statistics.median(prep):.3f} s, "
        f".values(run) {statistics.median(ev):.3f} s"
    )
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
