"""Preference measures of equivalence-class judgment groups (one sub-group per group, as
``-R qrels_prefs`` reads every qrels file), counted from sorted ranks without a matrix,
against a brute force over every pair of judgment lines written here from the definitions
in `irframe.prefs` (trec_eval's ``form_prefs_counts``: ties by docno ascending, a
retrieved document above every unretrieved one, two unretrieved never fulfilled).
The byte-identical trec_eval outputs are in tests/test_prefs.py and tests/test_trec_eval_cli.py.
"""

from __future__ import annotations

import math

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from irframe.prefs import Judgments

DOCS = [f"d{i}" for i in range(12)]


def _brute(lines: list[tuple[str, int]], run: list[tuple[str, float]]) -> dict[str, float]:
    judged = {d for d, _ in lines}
    ranking = sorted(run, key=lambda x: (-x[1], x[0]))  # score desc, docno ascending
    ranked = [d for d, _ in ranking if d in judged]
    pos = {d: i for i, d in enumerate(ranked)}

    def fulfilled(a: str, b: str) -> bool:  # a preferred to b
        if a in pos and b in pos:
            return pos[a] < pos[b]
        return a in pos

    def kind(a: str, b: str) -> str:
        n = (a in pos) + (b in pos)
        return {2: "ret", 1: "imp", 0: "none"}[n]

    count = {k: [0, 0] for k in ("ret", "imp", "none")}  # [fulfilled, possible]
    for a, la in lines:
        for b, lb in lines:
            if la > lb:
                k = kind(a, b)
                count[k][0] += fulfilled(a, b)
                count[k][1] += 1
    level = dict(lines)
    pairs = {k: [0, 0] for k in ("ret", "imp", "none")}
    for i, a in enumerate(sorted(judged)):
        for b in sorted(judged)[i + 1 :]:
            if level[a] != level[b]:
                hi, lo = (a, b) if level[a] > level[b] else (b, a)
                k = kind(hi, lo)
                pairs[k][0] += fulfilled(hi, lo)
                pairs[k][1] += 1

    def div(f, p):
        return f / p if p else 0.0

    fr, pr = count["ret"]
    fi, pi = count["imp"]
    no = count["none"][1]
    out = {
        "prefs_num_prefs_poss": float(pr + pi + no),
        "prefs_num_prefs_ful": float(fr + fi),
        "prefs_num_prefs_ful_ret": float(fr),
        "prefs_simp": div(fr + fi, pr + pi + no),
        "prefs_simp_ret": div(fr, pr),
        "prefs_simp_imp": div(fr + fi, pr + pi),
        "prefs_pair": div(pairs["ret"][0] + pairs["imp"][0], sum(p for _, p in pairs.values())),
        "prefs_pair_ret": div(*pairs["ret"]),
        "prefs_pair_imp": div(pairs["ret"][0] + pairs["imp"][0], pairs["ret"][1] + pairs["imp"][1]),
    }
    out["prefs_avgjg"] = out["prefs_simp"]  # one group: its own ratio
    out["prefs_avgjg_ret"] = out["prefs_simp_ret"]
    out["prefs_avgjg_imp"] = out["prefs_simp_imp"]
    return out


@st.composite
def _case(draw):
    docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
    lines = [(d, draw(st.integers(0, 3))) for d in docs]
    lines += [draw(st.sampled_from(lines)) for _ in range(draw(st.integers(0, 3)))]  # repeats
    run_docs = draw(st.lists(st.sampled_from(DOCS), max_size=12, unique=True))
    run = [(d, float(draw(st.integers(0, 3)))) for d in run_docs]  # ties
    return lines, run


@settings(max_examples=300, deadline=None)
@given(_case())
def test_class_counts_equal_brute_force(case):
    lines, run = case
    prefs = pd.DataFrame(
        {
            "topic": "q",
            "jg": "0",
            "jsg": "0",
            "doc": [d for d, _ in lines],
            "rel": [float(lv) for _, lv in lines],
        }
    )
    rf = pd.DataFrame({"topic": "q", "doc": [d for d, _ in run], "score": [s for _, s in run]})
    if not len(rf):
        rf = pd.DataFrame({"topic": ["other"], "doc": ["x"], "score": [0.0]})
    got = Judgments(prefs).values(rf, ["q"])["q"]
    want = _brute(lines, run)
    for k, v in want.items():
        assert math.isclose(got[k], v, rel_tol=0, abs_tol=1e-12), (k, got[k], v)
