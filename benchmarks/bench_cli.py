"""The command line against the trec_eval binary: wall time, CPU time and peak memory.

Usage::

    python benchmarks/bench_cli.py --trec-eval PATH/TO/trec_eval \\
        [--rounds 5] [--runs 50] [--sections one,robust03,gen]

* **one** — one Robust03 run (``../shared/data/robust03``, gunzipped first: trec_eval reads no
  gzip): ``irframe eval -q -m all_trec QRELS RUN`` against ``trec_eval -q -m all_trec QRELS RUN``
  (targets: ≤ 1.2 s wall, ≤ 200 MB peak);
* **robust03** — the 15 Robust03 runs in one ``irframe eval`` call against one trec_eval call
  per run, ``-q -m all_trec``;
* **gen** — ``--runs`` run files of the ``../shared/bench/gen.py`` collection (50 topics ×
  1000 documents per run, files written by a plain Python writer): one ``irframe eval``
  call over all of them against one trec_eval call per file, with trec_eval's default
  measures and with ``-m all_trec`` (target: irframe ≥ 3× faster).

Before timing, the output of the irframe call is compared byte for byte with the
concatenated outputs of the trec_eval calls: the benchmark refuses to time different output.
Contestants alternate (irframe, trec_eval, irframe, …) for ``--rounds`` rounds; medians are
reported with every round's wall time, each child's CPU time (user + sys) and peak resident
memory from GNU ``time``, and the ratios trec_eval / irframe (> 1: irframe is faster).

irframe runs as an installed package would: its modules byte-compiled once before timing
(``PYTHONPYCACHEPREFIX`` in the temporary folder, so the checkout is not touched; a
``PYTHONDONTWRITEBYTECODE`` in the environment would otherwise make every call compile
them again, ~0.08 s).
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
        p = subprocess.run(
            ["/usr/bin/time", "-f", "%e %U %S %M", "-o", f.name, *cmd],
            env=env,
            stdout=stdout,
            stderr=subprocess.PIPE,
        )
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
    print(f"  output identical to trec_eval's ({len(ours.splitlines())} lines)")


def show(cmd: list[str], n: int = 1) -> str:
    text = " ".join(Path(c).name if os.sep in c else c for c in cmd[:12]) + (
        " ..." if len(cmd) > 12 else ""
    )
    return text if n == 1 else f"{n} x: {text}"


def bench(title: str, contestants: dict[str, list[list[str]]], env: dict, rounds: int) -> dict:
    """Alternating rounds; prints medians and the ratios of every contestant to the first."""
    print(f"\n{title}")
    for k, cmds in contestants.items():
        print(f"  {k}: {show(cmds[0], len(cmds))}")
    res: dict[str, list[tuple[float, float, float]]] = {k: [] for k in contestants}
    for _ in range(rounds):
        for k, cmds in contestants.items():
            res[k].append(series(cmds, env))
    base = None
    out = {}
    for k, v in res.items():
        wall, cpu, rss = (statistics.median(x[i] for x in v) for i in range(3))
        base = base or (wall, cpu)
        ratio = (
            ""
            if (wall, cpu) == base
            else f"  {k}/irframe: wall {wall / base[0]:.2f}, cpu {cpu / base[1]:.2f}"
        )
        print(
            f"  {k:<28} wall {wall:6.2f} s  cpu {cpu:6.2f} s  peak {rss:6.0f} MB{ratio}"
            f"   (walls: {' '.join(f'{x[0]:.2f}' for x in v)})"
        )
        out[k] = (wall, cpu, rss)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trec-eval", required=True, help="path of a trec_eval binary (9.0.8)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--sections", default="one,robust03,gen")
    args = ap.parse_args(argv)
    sections = set(args.sections.split(","))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_core import build_collection, child_env, shared_dir

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = child_env(work)
        irframe = [sys.executable, "-m", "irframe.cli", "eval"]
        te = args.trec_eval
        rob = shared_dir() / "robust03"
        qrels = work / "robust03_qrels.txt"
        qrels.write_bytes(gzip.decompress((rob / "qrels" / "robust03_qrels.txt.gz").read_bytes()))
        if "one" in sections:
            one = work / "aplrob03a.txt"
            one.write_bytes(gzip.decompress((rob / "runs" / "input.aplrob03a.gz").read_bytes()))
            ir1 = [*irframe, "-q", "-m", "all_trec", str(qrels), str(one)]
            te1 = [te, "-q", "-m", "all_trec", str(qrels), str(one)]
            compare(ir1, [te1], env)  # also byte-compiles irframe's modules
            r = bench(
                "one Robust03 run (aplrob03a, 100 topics), -q -m all_trec",
                {"irframe": [ir1], "trec_eval": [te1]},
                env,
                args.rounds,
            )
            print(
                f"  irframe: {r['irframe'][0]:.2f} s wall (target <= 1.2 s), "
                f"{r['irframe'][2]:.0f} MB peak (target <= 200 MB)"
            )
        if "robust03" in sections:
            files = []
            for f in sorted((rob / "runs").glob("input.*.gz")):
                files.append(work / f.name[:-3])
                files[-1].write_bytes(gzip.decompress(f.read_bytes()))
            ir = irframe + ["-q", "-m", "all_trec", str(qrels)] + [str(f) for f in files]
            tes = [[te, "-q", "-m", "all_trec", str(qrels), str(f)] for f in files]
            compare(ir, tes, env)
            bench(
                f"the {len(files)} Robust03 runs, -q -m all_trec: one irframe call vs one trec_eval call per run",
                {"irframe": [ir], "trec_eval": tes},
                env,
                args.rounds,
            )
        if "gen" in sections:
            ns = argparse.Namespace(systems=args.runs, topics=50, depth=1000)
            _, _, gq, paths = build_collection(ns, work)
            files = [str(p) for p in paths]
            for flags, name in (
                ([], "trec_eval's default measures"),
                (["-m", "all_trec"], "-m all_trec"),
            ):
                ir = irframe + flags + [str(gq)] + files
                tes = [[te, *flags, str(gq), f] for f in files]
                compare(ir, tes, env)
                r = bench(
                    f"{len(files)} gen.py runs, {name}: one irframe call vs one trec_eval call per run",
                    {"irframe": [ir], "trec_eval": tes},
                    env,
                    args.rounds,
                )
                print(
                    f"  trec_eval / irframe wall: {r['trec_eval'][0] / r['irframe'][0]:.2f} (target >= 3)"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
