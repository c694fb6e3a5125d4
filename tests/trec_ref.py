"""Helpers for comparing irframe with trec_eval output files (``-q`` relational format)."""

from __future__ import annotations

import gzip
from pathlib import Path

import irframe as irf
from irframe.errors import IrframeError

# the measures the foundation issue requires, by trec_eval name prefix
REQUIRED_PREFIXES = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "infAP",
                     "recip_rank", "P_", "recall_", "success_", "ndcg", "ndcg_cut_", "iprec_at_recall_",
                     "11pt_avg", "map_cut_")
INTEGER_MEASURES = {"num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret"}


def read_trec_eval_output(path: Path) -> dict[tuple[str, str], str]:
    """{(measure, topic or 'all'): printed value} of a trec_eval -q output file."""
    opener = gzip.open if str(path).endswith(".gz") else open
    out = {}
    with opener(path, "rt") as f:
        for line in f:
            name, topic, value = line.rstrip("\n").split("\t")
            out[(name.strip(), topic)] = value.strip()
    return out


def supported(names) -> list[str]:
    """The trec_eval names irframe parses (others, such as utility or relstring, are skipped)."""
    ok = []
    for n in sorted(set(names)):
        if n in ("runid", "num_q", "relstring"):
            continue
        try:
            irf.parse_measure(n)
        except (IrframeError, ValueError):
            continue
        ok.append(n)
    return ok


def fmt(name: str, value: float) -> str:
    return f"{value:.0f}" if name in INTEGER_MEASURES else f"{value:.4f}"


def compare(expected: dict, cube, system: str | None = None, missing: str = "skip") -> tuple[int, list[str]]:
    """Compare every supported (measure, topic) of ``expected`` with a cube; returns (n compared, mismatches)."""
    names = set(cube.measure.values.tolist())
    if system is None:
        system = cube.system.values[0]
    one = cube.sel(system=system)
    summary = irf.summarize(cube.sel(system=[system]), missing=missing).iloc[0]
    bad, n = [], 0
    for (name, topic), want in expected.items():
        if name not in names:
            continue
        if topic == "all":
            got = fmt(name, float(summary[name]))
        else:
            got = fmt(name, float(one.sel(topic=topic, measure=name)))
        n += 1
        if got != want:
            bad.append(f"{name} topic {topic}: trec_eval {want}, irframe {got}")
    return n, bad
