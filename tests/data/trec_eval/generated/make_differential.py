"""Write differential.json.gz: small hostile TREC collections and what two trec_eval binaries
print for them (provenance in ../SOURCE.txt; the test is tests/test_cli_differential.py).

    python make_differential.py TREC_EVAL_9.0.8 TREC_EVAL_10.0 [N_CASES]

Each case is drawn from its own seed (``random.Random(seed)``): 1-6 topic ids (leading
zeros, non-ASCII, punctuation) and up to 30 documents, or (pooled, 3 in 10) 17-19 topics over
up to 12 documents; qrels with negative, zero and large grades; topics only in the run or
only in the qrels; files split on spaces, tabs or both, CRLF line ends, a missing final
newline; scores with exponents, signs, ``-0`` and many decimals, tied scores; run lines out
of topic order; now and then a document twice in a ranking or in a topic's judgments; and
random trec_eval options (``-q -c -n -l -M -J -N`` and measure sets).
The inputs are stored with the outputs, so the test does not depend on this generator or on
Python's random module.  A case where either binary dies of a signal (trec_eval's undefined
behaviour on topics judged only below -1, docs/trec_eval.md) is not kept; how many were
dropped is printed.  No trec_eval code is used or kept: the binaries are only run.
"""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

TOPICS = ["1", "2", "10", "301", "q-1", "07", "7", "abc", "é", "T.3"]
ODD_DOCS = ["D", "dé", "x" * 30, "a.b", "0", "-1", "doc#"]
GRADES = [0, 0, 1, 1, 2, 3, -1, 5, 100]
SCORES = ["1e-3", "-0", "0.1", "0.10000001", "1E2", "+3", ".5", "5.", "0"]
MEASURES = [
    ["-m", "all_trec"],
    ["-m", "official"],
    ["-m", "ndcg_cut.1,3,7", "-m", "P.2,5", "-m", "recall.3"],
    ["-m", "Rprec_mult.0.5,1.5", "-m", "success.1,2", "-m", "iprec_at_recall.0.25"],
    ["-m", "map", "-m", "bpref", "-m", "infAP", "-m", "recip_rank", "-m", "gm_map"],
    ["-m", "set_F.0.5", "-m", "utility.2,-1,0,0", "-m", "num_rel_ret", "-m", "11pt_avg"],
]


def _sep(r: random.Random) -> str:
    return r.choice([" ", "\t", "  ", " \t"])


def case(seed: int) -> dict | None:
    """One collection and its command line (None: no run or no qrels line was drawn)."""
    r = random.Random(seed)
    pooled = r.random() < 0.3  # many topics over few documents (read as a categorical)
    if pooled:
        topics = [*dict.fromkeys(r.choice(TOPICS) for _ in range(3)), *map(str, range(20, 36))]
    else:
        topics = list(dict.fromkeys(r.choice(TOPICS) for _ in range(r.randint(1, 6))))
    docs = [
        f"d{i}" if r.random() < 0.7 else f"{r.choice(ODD_DOCS)}{i}"
        for i in range(r.randint(1, 12 if pooled else 30))
    ]
    qrels = []
    for t in topics + ["900"] * (r.random() < 0.15):  # 900: judged, never retrieved
        if r.random() < 0.15:
            continue  # retrieved, never judged
        for d in r.sample(docs, r.randint(1, len(docs))):
            g = r.choice(GRADES) if r.random() < 0.9 else r.randint(-3, 10)
            qrels.append(f"{t}{_sep(r)}{r.choice(['0', 'Q0', '1'])}{_sep(r)}{d}{_sep(r)}{g}")
    run = []
    for t in topics:
        if r.random() < 0.05:
            continue  # judged, never retrieved
        for i, d in enumerate(r.sample(docs, r.randint(1, len(docs)))):
            score = r.choice(
                [
                    str(round(r.uniform(-5, 5), r.randint(0, 6))),
                    str(r.randint(0, 3)),
                    r.choice(SCORES),
                    f"{r.uniform(0, 1):.9f}",
                ]
            )
            run.append(f"{t}{_sep(r)}Q0{_sep(r)}{d}{_sep(r)}{i + 1}{_sep(r)}{score}{_sep(r)}tag")
    if not run or not qrels:
        return None
    if r.random() < 0.3:
        r.shuffle(run)
    if r.random() < 0.3:
        r.shuffle(qrels)
    if r.random() < 0.05:
        run.append(r.choice(run))  # a document twice in a ranking
    if r.random() < 0.05:
        qrels.append(r.choice(qrels))  # a document judged twice
    eol = "\r\n" if r.random() < 0.1 else "\n"
    final = "" if r.random() < 0.1 else eol
    args: list[str] = []
    for flag, p in (("-q", 0.6), ("-c", 0.3), ("-n", 0.05), ("-J", 0.2)):
        if r.random() < p:
            args.append(flag)
    if r.random() < 0.2:
        args += ["-l", str(r.choice([0, 1, 2, 3]))]
    if r.random() < 0.2:
        args += ["-M", str(r.randint(1, 10))]
    if r.random() < 0.15:
        args += ["-N", str(r.randint(50, 1000))]
    args += r.choice(MEASURES)
    return {
        "seed": seed,
        "qrels": eol.join(qrels) + final,
        "run": eol.join(run) + final,
        "args": args,
    }


def main(argv: list[str]) -> int:
    binaries = {"9.0.8": argv[1], "10.0": argv[2]}
    n = int(argv[3]) if len(argv) > 3 else 300
    cases, dropped, seed = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        q, run = Path(tmp) / "qrels", Path(tmp) / "run"
        while len(cases) < n:
            c = case(seed)
            seed += 1
            if c is None:
                continue
            q.write_bytes(c["qrels"].encode())
            run.write_bytes(c["run"].encode())
            out = {}
            for version, binary in binaries.items():
                p = subprocess.run([binary, *c["args"], str(q), str(run)], capture_output=True)
                out[version] = {
                    "status": p.returncode,
                    "stdout": p.stdout.decode(),
                    "stderr": p.stderr.decode()
                    .replace(str(q), "@QRELS@")
                    .replace(str(run), "@RUN@"),
                }
            if any(o["status"] < 0 for o in out.values()):
                dropped += 1
                continue
            c["binaries"] = out
            cases.append(c)
    path = Path(__file__).with_name("differential.json.gz")
    path.write_bytes(gzip.compress(json.dumps(cases, indent=0).encode(), mtime=0))
    print(f"{len(cases)} cases from seeds 0..{seed - 1}; {dropped} dropped (a binary crashed)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
