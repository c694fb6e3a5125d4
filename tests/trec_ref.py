"""Helpers for comparing irframe with trec_eval output files (``-q`` relational format).

Every comparison is against an explicit list of trec_eval measure names per fixture
(``FIXTURES``). ``compare`` checks that each listed measure is in the expected file *and* in
the cube, that every other name in the file is a known, documented exclusion
(``NOT_COMPARED``), and returns how many (measure, topic) values of each listed measure it
compared; the tests assert those counts exactly. A regression that drops a measure (it no
longer parses, or the cube loses it) therefore fails instead of narrowing the comparison.

To compare a new measure, add its name to the right list below (a name in an expected file
that is in no list and not in ``NOT_COMPARED`` fails the comparison).
"""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import irframe as irf

# trec_eval's default measure set (`trec_eval qrels run`, out.test) minus num_q/runid
OFFICIAL = (
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    *(f"iprec_at_recall_{r / 10:.2f}" for r in range(11)),
    *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
)
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# `-m all_trec` (trec_eval 9.0.8): every name irframe computes
ALL_TREC = (
    *OFFICIAL,
    "infAP",
    "gm_bpref",
    "11pt_avg",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "G",
    "binG",
    "utility",
    "num_nonrel_judged_ret",
    "set_P",
    "set_recall",
    "set_F",
    "set_map",
    "set_relative_P",
    "success_1",
    "success_5",
    "success_10",
    *(f"Rprec_mult_{m / 10:.2f}" for m in range(2, 21, 2)),
    *(f"recall_{k}" for k in CUTOFFS),
    *(f"ndcg_cut_{k}" for k in CUTOFFS),
    *(f"map_cut_{k}" for k in CUTOFFS),
    *(f"relative_P_{k}" for k in CUTOFFS),
)
# trec_eval 10.0 adds these to all_trec
ALL_TREC_10 = (*ALL_TREC, "rbp", "rbp_resid", "unj_5", "unj_10", "unj_20")
# out.test.meas_params: measures with explicit parameters
MEAS_PARAMS = (
    "iprec_at_recall_0.10",
    "iprec_at_recall_0.20",
    "iprec_at_recall_0.25",
    "iprec_at_recall_0.50",
    "iprec_at_recall_0.75",
    "P_3",
    "P_5",
    "P_7",
    "recall_20",
    "recall_2000",
    "Rprec_mult_0.20",
    "Rprec_mult_0.35",
    "Rprec_mult_5.00",
    "ndcg_cut_10",
    "ndcg_cut_20",
    "ndcg_cut_23",
    "success_2",
    "success_5",
    "success_20",
)
# names in the expected files that are not compared: bookkeeping lines (runid, num_q, the
# relstring text) and parameter lists that only trec_eval's command-line syntax expresses
# (irframe's CLI reproduces those files byte for byte: tests/test_cli.py)
NOT_COMPARED = frozenset(
    {
        "runid",
        "num_q",
        "relstring",
        "relstring_20",
        "utility_2,-1,0,0",
        "11pt_avg_.25,.5,.75",
        "ndcg_1=3,2=9,4=4.5",
    }
)
# trec_eval prints these on the summary line only, never per topic
SUMMARY_ONLY = frozenset({"gm_map", "gm_bpref"})


class Fixture(NamedTuple):
    measures: tuple[str, ...]
    topics: int  # topics printed per measure (0 without -q)


FIXTURES = {
    "out.test": Fixture(OFFICIAL, 0),
    "out.test.a": Fixture(ALL_TREC, 0),
    "out.test.aq": Fixture(ALL_TREC, 3),
    "out.test.aqc": Fixture(ALL_TREC, 2),  # results.trunc has topics 301 and 303
    "out.test.aqcM": Fixture(ALL_TREC, 2),
    "out.test.aql": Fixture(ALL_TREC, 3),
    "out.test.meas_params": Fixture(MEAS_PARAMS, 3),
    "robust03 trec_eval_9.0.8": Fixture(ALL_TREC, 100),  # every Robust03 run
    "robust03 trec_eval_10.0": Fixture(ALL_TREC_10, 100),
}
INTEGER_MEASURES = {"num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret"}


def expected_counts(fixture: Fixture) -> dict[str, int]:
    """{measure: number of (measure, topic) values} a comparison of ``fixture`` must make."""
    return {m: 1 if m in SUMMARY_ONLY else fixture.topics + 1 for m in fixture.measures}


def read_trec_eval_output(path: Path) -> dict[tuple[str, str], str]:
    """{(measure, topic or 'all'): printed value} of a trec_eval -q output file."""
    opener = gzip.open if str(path).endswith(".gz") else open
    out = {}
    with opener(path, "rt") as f:
        for line in f:
            name, topic, value = line.rstrip("\n").split("\t")
            out[(name.strip(), topic)] = value.strip()
    return out


def fmt(name: str, value: float) -> str:
    return f"{value:.0f}" if name in INTEGER_MEASURES else f"{value:.4f}"


def compare(
    expected: dict, cube, measures, system: str | None = None, missing: str = "skip"
) -> tuple[Counter, list[str]]:
    """Compare the listed ``measures`` of ``expected`` with a cube.

    Returns ``(counts, problems)``: how many (measure, topic) values of each measure were
    compared, and every mismatch, every listed measure absent from the file or the cube, and
    every name in the file that is neither listed nor in ``NOT_COMPARED``.
    """
    measures = list(measures)
    listed = set(measures)
    in_file = {name for name, _ in expected}
    in_cube = set(cube.measure.values.tolist())
    problems = [
        f"{m}: listed but not in the trec_eval output" for m in measures if m not in in_file
    ]
    problems += [
        f"{m}: listed but missing from irframe's cube" for m in measures if m not in in_cube
    ]
    problems += [
        f"{m}: in the trec_eval output but neither compared nor in NOT_COMPARED"
        for m in sorted(in_file - listed - NOT_COMPARED)
    ]
    if system is None:
        system = cube.system.values[0]
    present = [m for m in measures if m in in_cube]
    # label lookups in a DataFrame: a per-value DataArray.sel costs ~50 times more
    one = cube.sel(system=system).transpose("topic", "measure").to_pandas()
    summary = irf.summarize(cube.sel(system=[system], measure=present), missing=missing).iloc[0]
    counts: Counter = Counter()
    for (name, topic), want in expected.items():
        if name not in listed or name not in in_cube:
            continue
        if topic == "all":
            got = fmt(name, float(summary[name]))
        else:
            got = fmt(name, float(one.at[topic, name]))
        counts[name] += 1
        if got != want:
            problems.append(f"{name} topic {topic}: trec_eval {want}, irframe {got}")
    return counts, problems
