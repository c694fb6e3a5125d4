"""Command line: ``irframe eval QRELS RUN... [options]`` — trec_eval's output, irframe's measures.

Each RUN file is evaluated on its own, as trec_eval does for one file (its run id is
the tag of the file's last line, as trec_eval reports it).  Measures are given as
irframe strings (``AP``, ``nDCG@10``) or trec_eval names (``map``, ``P_10``) and are
printed as given.  The default measures are trec_eval's default set.

Output (``--format trec``, the default) reproduces trec_eval's layout byte for byte:
``"%-22s\\t%s\\t%6.4f"`` lines (counts as integers), a ``runid`` and a ``num_q`` line
before the summary, per-topic lines first with ``-q``.  ``--format csv`` / ``json``
give tidy rows ``run, topic, measure, value``.

Examples
--------
::

    irframe eval qrels.txt run1.gz run2.gz
    irframe eval qrels.txt run.txt -q -m AP nDCG@10 P_10
    python -m irframe eval qrels.txt runs/*.gz -m map --format csv > results.csv
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np
import pandas as pd

__all__ = ["main", "build_parser", "TREC_EVAL_DEFAULT", "format_trec_line"]

#: trec_eval 9.0.8's default measure set (after ``runid`` and ``num_q``), in its order.
TREC_EVAL_DEFAULT: tuple[str, ...] = (
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    *(f"iprec_at_recall_{k / 10:.2f}" for k in range(11)),
    *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
)

ORDERS = ("trec_eval", "trec_eval10", "rank", "input")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``irframe`` command."""
    p = argparse.ArgumentParser(prog="irframe", description="Offline IR evaluation (trec_eval-compatible).")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    e = sub.add_parser(
        "eval", help="evaluate run files against qrels (trec_eval's output)",
        description="Evaluate TREC run files against qrels; output like trec_eval 9.0.8.",
        epilog="Put -m after the files or repeat it: 'irframe eval q run -m AP nDCG@10' or "
               "'irframe eval -m AP -m P_10 q run'.")
    e.add_argument("qrels", help="qrels file (topic iter doc rel; .gz read transparently)")
    e.add_argument("runs", nargs="+", metavar="RUN", help="run file(s); each is evaluated separately")
    e.add_argument("-m", "--measure", dest="measures", action="extend", nargs="+", metavar="MEASURE",
                   help="measure(s): irframe strings (AP, nDCG@10, P(rel=2)@10) or trec_eval names "
                        "(map, P_10, ndcg_cut_10); default: trec_eval's default set")
    e.add_argument("-q", dest="per_topic", action="store_true", help="also print per-topic values")
    e.add_argument("-c", dest="complete", action="store_true",
                   help="average over all qrels topics; topics missing from a run score 0")
    e.add_argument("-l", dest="rel_level", type=float, default=1, metavar="N",
                   help="relevance level: relevant <=> grade >= N (default 1)")
    e.add_argument("-M", dest="depth", type=int, default=None, metavar="N",
                   help="evaluate only the top N documents of each ranking")
    e.add_argument("-J", dest="judged_only", action="store_true",
                   help="drop unjudged documents before evaluating")
    e.add_argument("--order", choices=ORDERS, default="trec_eval",
                   help="document order in a ranking (default: trec_eval's: score as float32 "
                        "descending, ties by docno descending)")
    e.add_argument("--format", choices=("trec", "csv", "json"), default="trec",
                   help="output format (default trec)")
    return p


# --------------------------------------------------------------------------------------
# formatting
# --------------------------------------------------------------------------------------

def _value_text(value: Any, integer: bool) -> str:
    if isinstance(value, str):
        return value
    v = float(value)
    if integer and math.isfinite(v):
        return str(int(round(v)))
    return f"{v:6.4f}"


def format_trec_line(name: str, topic: str, value: Any, integer: bool = False) -> str:
    """One line of trec_eval output: ``"%-22s\\t%s\\t%6.4f"`` (``%ld`` for counts).

    Examples
    --------
    >>> format_trec_line("map", "all", 0.178545)
    'map                   \\tall\\t0.1785'
    >>> format_trec_line("num_ret", "301", 500.0, integer=True)
    'num_ret               \\t301\\t500'
    """
    return f"{name:<22}\t{topic}\t{_value_text(value, integer)}"


def _tidy(run_id: str, cube, summary: pd.Series, per_topic_topics: Sequence[str] | None,
          num_q: int) -> list[dict[str, Any]]:
    """Rows (run, topic, measure, value, integer) in trec_eval's print order."""
    measures = [str(m) for m in cube.coords["measure"].values]
    aggs = [str(a) for a in cube.coords["aggregate"].values] if "aggregate" in cube.coords \
        else ["mean"] * len(measures)
    rows: list[dict[str, Any]] = []
    if per_topic_topics is not None:
        values = cube.isel(system=0).transpose("topic", "measure")
        topics = [str(t) for t in values.coords["topic"].values]
        data = values.values
        index = {t: i for i, t in enumerate(topics)}
        for t in per_topic_topics:
            i = index[t]
            for j, (m, a) in enumerate(zip(measures, aggs)):
                if a == "gmean":  # trec_eval prints geometric means in the summary only
                    continue
                v = data[i, j]
                if np.isnan(v):
                    continue
                rows.append({"run": run_id, "topic": t, "measure": m, "value": float(v),
                             "integer": a == "sum"})
    rows.append({"run": run_id, "topic": "all", "measure": "num_q", "value": num_q, "integer": True})
    for m, a in zip(measures, aggs):
        rows.append({"run": run_id, "topic": "all", "measure": m, "value": float(summary[m]),
                     "integer": a == "sum"})
    return rows


def _evaluate_file(path: str, qrels: pd.DataFrame, measures: list[str], args) -> list[dict[str, Any]]:
    import irframe
    from .io import read_run

    run = read_run(path)
    run_id = str(run["system"].iloc[-1])          # trec_eval: the tag of the last line
    run["system"] = pd.Categorical([run_id] * len(run))
    cube = irframe.evaluate(run, qrels, measures, rel_level=args.rel_level, order=args.order,
                            complete=args.complete, depth=args.depth, judged_only=args.judged_only)
    summary = irframe.summarize(cube, missing="skip").iloc[0]
    evaluated = ~np.isnan(cube.isel(system=0).values).all(axis=1)       # per topic
    topics = [str(t) for t in cube.coords["topic"].values]
    num_q = int(evaluated.sum())
    per_topic = None
    if args.per_topic:
        # trec_eval 9.0.8 prints per-topic lines only for topics the run retrieved for,
        # also with -c (the missing topics only count in the averages).
        in_run = set(run["topic"].astype(str).unique())
        per_topic = sorted((t for t, ok in zip(topics, evaluated) if ok and t in in_run),
                           key=lambda s: s.encode("utf-8"))
    return _tidy(run_id, cube, summary, per_topic, num_q)


def _write(rows: list[dict[str, Any]], fmt: str, out: TextIO, first: bool) -> None:
    if fmt == "trec":
        lines = []
        for r in rows:
            if r["topic"] == "all" and r["measure"] == "num_q":
                lines.append(format_trec_line("runid", "all", r["run"]))
            lines.append(format_trec_line(r["measure"], r["topic"], r["value"], r["integer"]))
        out.write("\n".join(lines) + "\n")
    elif fmt == "csv":
        df = pd.DataFrame([{k: r[k] for k in ("run", "topic", "measure", "value")} for r in rows])
        df.to_csv(out, index=False, header=first, lineterminator="\n", float_format="%.17g")
    else:
        raise ValueError(fmt)  # json is written once, at the end


def _eval(args, out: TextIO) -> int:
    from .io import read_qrels

    measures = list(args.measures) if args.measures else list(TREC_EVAL_DEFAULT)
    qrels = read_qrels(args.qrels)
    everything: list[dict[str, Any]] = []
    for k, path in enumerate(args.runs):
        rows = _evaluate_file(path, qrels, measures, args)
        if args.format == "json":
            everything.extend(rows)
        else:
            _write(rows, args.format, out, first=k == 0)
    if args.format == "json":
        json.dump([{k: (int(r["value"]) if r["integer"] else r["value"]) if k == "value" else r[k]
                    for k in ("run", "topic", "measure", "value")} for r in everything],
                  out, indent=1, allow_nan=True)
        out.write("\n")
    return 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Entry point of the ``irframe`` console script (and ``python -m irframe``).

    Returns the exit status: 0 on success, 1 on bad input (the error is printed to
    stderr as ``irframe: error: ...``), 2 on a usage error.
    """
    out = sys.stdout if out is None else out
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(out)
        return 2
    try:
        if args.command == "eval":
            return _eval(args, out)
    except BrokenPipeError:  # pragma: no cover - e.g. `irframe eval ... | head`
        return 0
    except (ValueError, KeyError, OSError, TypeError) as e:
        msg = str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
        print(f"irframe: error: {msg}", file=sys.stderr)
        return 1
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover
    return 2  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
