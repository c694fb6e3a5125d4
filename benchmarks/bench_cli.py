"""The command line against the trec_eval binary: wall time, CPU time and peak memory.

Usage::

    python benchmarks/bench_cli.py --trec-eval PATH/TO/trec_eval [--rounds 3] [--runs 50]

* one Robust03 run (``../shared/data/robust03``, gunzipped first: trec_eval reads no gzip):
  ``irframe eval -q -m all_trec QRELS RUN`` against ``trec_eval -q -m all_trec QRELS RUN``;
* ``--runs`` run files of the ``../shared/bench/gen.py`` collection (50 × 1000 per run, Python-
  written TREC files): one ``irframe eval`` call over all of them against one trec_eval call
  per file, with trec_eval's default measures and with ``-m all_trec``.

Every command runs ``--rounds`` times, alternating; medians are reported, with each child's
CPU time (user + sys) and peak resident memory from GNU ``time``.  The outputs of irframe
and trec_eval are compared line by line before timing.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(cmd: list[str], env: dict, stdout) -> tuple[float, float, float]:
    """(wall s, cpu s, peak RSS MB) of one child process, measured by GNU time (a child forked
    from this Python process would count this process's memory in its own peak)."""
    with tempfile.NamedTemporaryFile("r") as f:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", f.name, *cmd], env=env,
                           stdout=stdout, stderr=subprocess.PIPE)
        if p.returncode != 0:
            sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode()}")
        wall, user, system, rss_kb = f.read().split()[-4:]
    return float(wall), float(user) + float(system), float(rss_kb) / 1024


def series(cmds: list[list[str]], env: dict) -> tuple[float, float, float]:
    """Run the commands one after the other: summed wall and CPU, max peak RSS."""
    w = c = m = 0.0
    for cmd in cmds:
        a, b, r = run(cmd, env, subprocess.DEVNULL)
        w, c, m = w + a, c + b, max(m, r)
    return w, c, m


def compare(irframe_cmd, trec_cmds, env) -> None:
    ours = subprocess.run(irframe_cmd, env=env, capture_output=True, check=True).stdout
    theirs = b"".join(subprocess.run(c, capture_output=True, check=True).stdout for c in trec_cmds)
    if ours != theirs:
        sys.exit(f"outputs differ: {' '.join(irframe_cmd[:8])} ...")


def bench(title: str, contestants: dict[str, list[list[str]]], env: dict, rounds: int) -> None:
    res: dict[str, list[tuple[float, float, float]]] = {k: [] for k in contestants}
    for _ in range(rounds):
        for k, cmds in contestants.items():
            res[k].append(series(cmds, env))
    print(f"\n{title}")
    base = None
    for k, v in res.items():
        wall, cpu, rss = (statistics.median(x[i] for x in v) for i in range(3))
        base = base or (wall, cpu)
        ratio = "" if (wall, cpu) == base else f"  peer/irframe: wall {wall / base[0]:.2f}, cpu {cpu / base[1]:.2f}"
        print(f"  {k:<44} wall {wall:6.2f} s  cpu {cpu:6.2f} s  peak {rss:6.0f} MB{ratio}"
              f"   (walls: {' '.join(f'{x[0]:.2f}' for x in v)})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trec-eval", required=True, help="path of a trec_eval binary (9.0.8)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_core import build_collection, shared_dir

    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    irframe = [sys.executable, "-m", "irframe.cli", "eval"]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rob = shared_dir() / "robust03"
        qrels = work / "robust03_qrels.txt"
        qrels.write_bytes(gzip.decompress((rob / "qrels" / "robust03_qrels.txt.gz").read_bytes()))
        one = work / "aplrob03a.txt"
        one.write_bytes(gzip.decompress((rob / "runs" / "input.aplrob03a.gz").read_bytes()))
        ir1 = irframe + ["-q", "-m", "all_trec", str(qrels), str(one)]
        te1 = [args.trec_eval, "-q", "-m", "all_trec", str(qrels), str(one)]
        compare(ir1, [te1], env)
        bench("one Robust03 run, -q -m all_trec", {"irframe eval": [ir1], "trec_eval": [te1]}, env, args.rounds)

        ns = argparse.Namespace(systems=args.runs, topics=50, depth=1000)
        _, _, gq, paths = build_collection(ns, work)
        files = [str(p) for p in paths]
        for flags, name in (([], "trec_eval's default measures"), (["-m", "all_trec"], "-m all_trec")):
            ir = irframe + flags + [str(gq)] + files
            te = [[args.trec_eval] + flags + [str(gq), f] for f in files]
            compare(ir, te, env)
            bench(f"{len(files)} runs, {name}: one irframe call vs one trec_eval call per run",
                  {"irframe eval (one call)": [ir], f"trec_eval ({len(files)} calls)": te}, env, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
