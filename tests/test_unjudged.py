"""Bounds from unjudged documents (irframe.measures.unjudged) against outside references.

* RBP residual = trec_eval 10.0's ``rbp_resid`` on the Robust03 runs (expected file generated
  with trec_eval 10.0, provenance in tests/data/trec_eval/SOURCE.txt);
* C/W/L residuals = the ``cwl-eval`` command's ``ResEU``/``ResETU`` (its ``-r`` option);
* every other measure: brute force over every labelling of the unjudged retrieved documents
  (hypothesis), each labelling written into the qrels and evaluated by the plain evaluator —
  low/high are attained, and for ``bound_exact`` measures they are the minimum and maximum.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe.errors import MeasureParamError

TEST_DATA = Path(__file__).resolve().parent / "data"

MEASURES = [
    "P@3",
    "P",
    "R@3",
    "R",
    "AP",
    "AP@3",
    "nDCG",
    "nDCG@3",
    "RR",
    "RR@2",
    "Success@2",
    "Rprec",
    "NumRelRet",
    "NumRelRet@2",
    "NumRel",
    "NumRet",
    "Judged@3",
    "Bpref",
    "infAP",
    "IPrec(recall=0.5)",
    "IPrecAvg",
    "gm_map",
    "ERR@4",
    "P(rel=2)@3",
    "AP(rel=2)",
    "RBP(p=0.6)@3",
    "ndpm",
    "dpm_r",
]
UNJUDGED_AWARE = {
    "Bpref",
    "infAP",
    "ndpm",
    "dpm_r",
}  # treat "unjudged" differently from "judged non-relevant"


@st.composite
def one_ranking(draw):
    n = draw(st.integers(1, 6))
    # per retrieved doc: None = unjudged, -1 = trec_eval's "in pool, unjudged", else a grade
    labels = draw(st.lists(st.sampled_from([None, None, 0, 1, 2, -1]), min_size=n, max_size=n))
    if all(lab is not None and lab >= 0 for lab in labels):
        labels[0] = None
    extra = draw(
        st.lists(st.sampled_from([0, 1, 2]), min_size=1, max_size=3)
    )  # judged, not retrieved
    return labels, extra


def _frames(labels, extra, assign):
    """Run of n docs (rank order) and qrels; ``assign`` maps unjudged positions to a grade or None."""
    run = pd.DataFrame(
        {
            "system": "s",
            "topic": "t",
            "doc": [f"d{i}" for i in range(len(labels))],
            "score": np.arange(len(labels), 0, -1, dtype=float),
        }
    )
    q = []
    for i, lab in enumerate(labels):
        g = assign.get(i, lab)
        if g is not None:
            q.append((f"d{i}", g))
    q += [(f"x{j}", g) for j, g in enumerate(extra)]
    qrels = pd.DataFrame(q, columns=["doc", "rel"]).assign(topic="t")[["topic", "doc", "rel"]]
    return run, qrels


def _brute_force(labels, extra, grade, measures):
    """Values of every labelling of the unjudged docs with {0, grade}: one topic per labelling."""
    unj = [i for i, lab in enumerate(labels) if lab is None or lab < 0]
    runs, qrels = [], []
    for j, combo in enumerate(itertools.product([0, grade], repeat=len(unj))):
        r, q = _frames(labels, extra, dict(zip(unj, combo, strict=True)))
        runs.append(r.assign(topic=f"L{j:03d}"))
        qrels.append(q.assign(topic=f"L{j:03d}"))
    cube = irf.evaluate(pd.concat(runs), pd.concat(qrels), measures)
    return cube.sel(system="s").transpose("topic", "measure").values  # labellings × measures


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(one_ranking(), st.sampled_from([None, 1]))
def test_bounds_attained_and_tight_by_brute_force(case, grade):
    labels, extra = case
    run, qrels = _frames(labels, extra, {})
    b = irf.evaluate(run, qrels, MEASURES, bounds=True, unjudged_grade=grade)
    judged = [x for x in labels + extra if x is not None]
    g = (
        float(max([*judged, 1])) if grade is None else float(grade)
    )  # default: largest grade, >= rel_level
    assert b.attrs["unjudged_grade"] == g
    low = b.sel(system="s", topic="t", bound="low").values
    high = b.sel(system="s", topic="t", bound="high").values
    np.testing.assert_allclose(b.sel(system="s", topic="t", bound="residual").values, high - low)
    today = irf.evaluate(run, qrels, MEASURES).sel(system="s", topic="t").values
    np.testing.assert_allclose(low, today, rtol=1e-12, atol=1e-12)
    allv = _brute_force(labels, extra, g, MEASURES)
    exact = b.bound_exact.values
    for j, m in enumerate(MEASURES):
        col = allv[:, j]
        if m in ("Judged@3", "NumRet"):  # label-free
            assert high[j] == low[j]
            continue
        if m.startswith("RBP"):  # positions after the ranking are unjudged too
            tail = (0.6 ** len(labels) - 0.6**3) if len(labels) < 3 else 0.0
            assert high[j] == pytest.approx(col[-1] + g * tail, abs=1e-12), m
            continue
        assert high[j] == pytest.approx(col[-1], abs=1e-12), m  # every unjudged doc at the grade
        if m not in UNJUDGED_AWARE:
            assert low[j] == pytest.approx(col[0], abs=1e-12), m  # every unjudged doc judged 0
        if exact[j]:
            assert low[j] == pytest.approx(col.min(), abs=1e-12), m
            assert high[j] == pytest.approx(col.max(), abs=1e-12), m


def test_non_monotone_measures_are_flagged_and_high_is_not_a_maximum():
    # AP: one relevant at rank 1 (R = 1) and an unjudged doc at rank 5: labelling it relevant lowers AP
    labels, extra = [1, 0, 0, 0, None], []
    run, qrels = _frames(labels, extra, {})
    b = irf.evaluate(run, qrels, ["AP", "R@2", "P@5"], bounds=True)
    v = b.sel(system="s", topic="t")
    assert v.sel(measure="AP", bound="low").item() == 1.0
    assert v.sel(measure="AP", bound="high").item() == pytest.approx((1 + 2 / 5) / 2)
    assert v.bound_exact.values.tolist() == [False, False, True]
    assert v.sel(measure="AP", bound="residual").item() < 0


def test_bounds_do_not_depend_on_other_systems():
    run = pd.DataFrame(
        {
            "system": ["a"] * 3 + ["b"] * 3,
            "topic": "t",
            "doc": ["x", "u", "v", "x", "w", "y"],
            "score": [3.0, 2, 1] * 2,
        }
    )
    qrels = pd.DataFrame({"topic": "t", "doc": ["x", "y", "z"], "rel": [1, 2, 1]})
    ms = ["AP", "nDCG@3", "R", "Bpref"]
    both = irf.evaluate(run, qrels, ms, bounds=True)
    alone = irf.evaluate(run[run.system == "a"], qrels, ms, bounds=True)
    np.testing.assert_allclose(both.sel(system="a").values, alone.sel(system="a").values)


def test_diversity_bounds_label_every_subtopic():
    # an unjudged doc becomes relevant to every subtopic of its topic: brute force through the qrels
    run = pd.DataFrame(
        {"system": "s", "topic": "t", "doc": ["a", "u", "b", "v"], "score": [4.0, 3, 2, 1]}
    )
    qrels = pd.DataFrame(
        {
            "topic": "t",
            "subtopic": ["1", "2", "2", "3"],
            "doc": ["a", "a", "b", "c"],
            "rel": [1, 1, 1, 1],
        }
    )
    ms = ["alpha_nDCG@4", "ERR_IA@4", "P_IA@4", "StRecall@4", "nERR_IA@4"]
    b = irf.evaluate(run, qrels, ms, bounds=True)
    extra = pd.DataFrame(
        {"topic": "t", "subtopic": ["1", "2", "3"] * 2, "doc": ["u"] * 3 + ["v"] * 3, "rel": 1}
    )
    full = irf.evaluate(run, pd.concat([qrels, extra]), ms).sel(system="s", topic="t").values
    today = irf.evaluate(run, qrels, ms).sel(system="s", topic="t").values
    np.testing.assert_allclose(b.sel(system="s", topic="t", bound="high").values, full, atol=1e-12)
    np.testing.assert_allclose(b.sel(system="s", topic="t", bound="low").values, today, atol=1e-12)
    assert not b.bound_exact.values.any()


def test_cross_system_measures_raise_naming_the_measure():
    qrels, runs = irf.datasets.trec_eval_sample()
    with pytest.raises(MeasureParamError, match="P_rare"):
        irf.evaluate(runs, qrels, ["AP", "P_rare(alpha=1)@10"], bounds=True)


# --------------------------------------------------------------------------- trec_eval 10.0 rbp_resid
def _robust(shared_data):
    runs = irf.read_runs(sorted((shared_data / "robust03" / "runs").glob("input.*.gz")))
    qrels = irf.read_qrels(shared_data / "robust03" / "qrels" / "robust03_qrels.txt.gz")
    return runs, qrels


def test_rbp_residual_equals_trec_eval_10_rbp_resid(shared_data):
    runs, qrels = _robust(shared_data)
    ref = pd.read_csv(
        TEST_DATA / "trec_eval" / "robust03_rbp_resid_v10.0.tsv.gz",
        sep="\t",
        header=None,
        names=["system", "measure", "topic", "value"],
        dtype={"topic": str, "system": str},
    )
    ps = {"rbp_resid_p=0.8": 0.8, "rbp_resid_p=0.95": 0.95, "rbp_resid_p=0.99": 0.99}
    ms = [f"RBP(p={p},rel=1)" for p in ps.values()]
    b = irf.evaluate(runs, qrels, ms, bounds=True, order="trec_eval10").sel(bound="residual")
    unj = irf.evaluate(runs, qrels, ["Judged", "NumRet"], order="trec_eval10")
    n_unjudged = ((1 - unj.sel(measure="Judged")) * unj.sel(measure="NumRet")).round()
    checked = 0
    for name, p in ps.items():
        r = ref[ref.measure == name]
        got = b.sel(measure=f"RBP(p={p},rel=1)").to_pandas().stack()
        ours = got.reindex(pd.MultiIndex.from_arrays([r.system, r.topic])).to_numpy()
        nu = (
            n_unjudged.to_pandas()
            .stack()
            .reindex(pd.MultiIndex.from_arrays([r.system, r.topic]))
            .to_numpy()
        )
        with_unj = nu > 0
        # trec_eval prints 4 decimals
        np.testing.assert_allclose(
            ours[with_unj], r.value.to_numpy()[with_unj], atol=5e-5 + 1e-12, rtol=0
        )
        # trec_eval 10 leaves rbp_resid at 0 when no document is unjudged; ours is the tail p^n then
        n = (
            unj.sel(measure="NumRet")
            .to_pandas()
            .stack()
            .reindex(pd.MultiIndex.from_arrays([r.system, r.topic]))
            .to_numpy()
        )
        np.testing.assert_allclose(ours[~with_unj], p ** n[~with_unj], rtol=1e-12, atol=1e-15)
        checked += int(with_unj.sum())
    assert checked > 4000


def test_rbp_residual_closed_form():
    # Moffat & Zobel (2008): residual = (1-p) sum over unjudged ranks p^(i-1) + p^n
    run = pd.DataFrame(
        {"system": "s", "topic": "t", "doc": list("abcde"), "score": [5.0, 4, 3, 2, 1]}
    )
    qrels = pd.DataFrame({"topic": "t", "doc": ["a", "c", "e"], "rel": [1, 0, 1]})
    p = 0.7
    r = irf.evaluate(run, qrels, f"RBP(p={p},rel=1)", bounds=True).sel(bound="residual").item()
    assert r == pytest.approx((1 - p) * (p**1 + p**3) + p**5, abs=1e-15)


# --------------------------------------------------------------------------- cwl_eval residuals
def test_cwl_residuals_equal_cwl_eval(tmp_path):
    exe = shutil.which("cwl-eval") or shutil.which(
        "cwl-eval", path=str(Path(sys.executable).parent)
    )
    if exe is None:
        pytest.skip("cwl-eval (pip install cwl-eval) is not installed")
    data = TEST_DATA / "cwl"
    from test_cwl import read_gains, read_result

    run = read_result(data / "result_file")
    gains = read_gains(data / "qrel_file")
    metrics = [
        "RBPCWLMetric(0.8)",
        "PrecisionCWLMetric(5)",
        "INSTCWLMetric(2.0)",
        "RRCWLMetric()",
        "NDCGCWLMetric(10)",
        "BPMCWLMetric(1.0,20)",
    ]
    names = {
        "RBPCWLMetric(0.8)": "RBP(p=0.8)",
        "PrecisionCWLMetric(5)": "P@5",
        "INSTCWLMetric(2.0)": "INST(T=2.0)",
        "RRCWLMetric()": "RR",
        "NDCGCWLMetric(10)": "NDCG-k@10",
        "BPMCWLMetric(1.0,20)": "BPM(T=1.0,K=20)",
    }
    mf = tmp_path / "metrics"
    mf.write_text("\n".join(metrics) + "\n")
    out = subprocess.run(
        [exe, str(data / "qrel_file"), str(data / "result_file"), "-r", "-m", str(mf)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [line.split("\t") for line in out.splitlines() if line.strip()]
    labels = {}
    for mline in metrics:
        for out_name in ("EU", "ETU"):
            labels[(mline, out_name)] = f"CWL(C={names[mline]},out={out_name})"
    b = irf.evaluate(run, gains, list(labels.values()), bounds=True, order="input")
    n = 0
    for row in rows:
        topic, cname = row[0], row[1].strip()
        # cwl_eval columns: EU ETU EC ETC ED ResEU ResETU ...
        for mline in metrics:
            if _cwl_name(mline) != cname:
                continue
            for col, out_name in ((7, "EU"), (8, "ETU")):
                lab = labels[(mline, out_name)]
                got = b.sel(system="R1", topic=topic, measure=lab, bound="residual").item()
                assert f"{got:.4f}" == row[col].strip() or abs(got - float(row[col])) < 5e-5, (
                    topic,
                    cname,
                    out_name,
                )
                n += 1
    assert n == 3 * len(metrics) * 2


def _cwl_name(metric_line: str) -> str:
    import re

    name, args = re.match(r"(\w+)\((.*)\)", metric_line).groups()
    return {
        "RBPCWLMetric": lambda a: f"RBP@{float(a)}",
        "PrecisionCWLMetric": lambda a: f"P@{a}",
        "INSTCWLMetric": lambda a: f"INST-T={float(a)}",
        "RRCWLMetric": lambda a: "RR",
        "NDCGCWLMetric": lambda a: f"NDCG-k@{a}",
        "BPMCWLMetric": lambda a: "BPM-Static-T={}-K={}".format(
            *[float(x) if i == 0 else int(x) for i, x in enumerate(a.split(","))]
        ),
    }[name](args)


# --------------------------------------------------------------------------- flips
def test_flips_marks_pairs_whose_order_bounds_cannot_guarantee():
    run = pd.DataFrame(
        {
            "system": ["a"] * 2 + ["b"] * 2 + ["c"] * 2,
            "topic": "t",
            "doc": ["x", "y", "x", "u", "v", "w"],
            "score": [2.0, 1] * 3,
        }
    )
    qrels = pd.DataFrame({"topic": "t", "doc": ["x", "y", "v", "w"], "rel": [1, 1, 0, 0]})
    f = irf.flips(irf.evaluate(run, qrels, "P@2", bounds=True)).set_index(["system", "other"])
    # a = 1.0 (all judged); b: 0.5 .. 1.0 -> could tie a; c = 0 (all judged) -> safe behind both
    assert bool(f.loc[("a", "b"), "could_flip"]) is True
    assert bool(f.loc[("a", "c"), "could_flip"]) is False
    assert bool(f.loc[("b", "c"), "could_flip"]) is False
    assert f.loc[("b", "c"), "min_lead"] == pytest.approx(0.5)


def test_bounds_with_complete_and_depth():
    run = pd.DataFrame(
        {
            "system": ["a", "a", "a", "b"],
            "topic": ["t", "t", "t", "u"],
            "doc": ["x", "y", "z", "x"],
            "score": [3.0, 2, 1, 1],
        }
    )
    qrels = pd.DataFrame({"topic": ["t", "u"], "doc": ["x", "w"], "rel": [1, 1]})
    b = irf.evaluate(run, qrels, ["P@2", "RBP(p=0.5,rel=1)"], bounds=True, complete=True, depth=2)
    # a on t: x judged, y unjudged (z cut by depth=2): P@2 from 0.5 to 1
    assert b.sel(system="a", topic="t", measure="P@2").values.tolist() == [0.5, 1.0, 0.5]
    # b on t: empty ranking under complete=True; RBP's residual is the whole unseen tail
    assert b.sel(system="b", topic="t", measure="RBP(p=0.5,rel=1)").values.tolist() == [
        0.0,
        1.0,
        1.0,
    ]
    assert b.sel(system="b", topic="t", measure="P@2").values.tolist() == [0.0, 0.0, 0.0]


def test_diversity_bounds_with_aspect_weights():
    run = pd.DataFrame(
        {
            "system": ["s"] * 4 + ["r"] * 2,
            "topic": "t",
            "doc": ["a", "u", "b", "v", "a", "u"],
            "score": [4.0, 3, 2, 1, 2, 1],
        }
    )
    qrels = pd.DataFrame(
        {"topic": "t", "subtopic": ["1", "2", "2", "3"], "doc": ["a", "a", "b", "c"], "rel": 1}
    )
    w = pd.DataFrame({"topic": "t", "subtopic": ["1", "2", "3"], "weight": [0.5, 0.3, 0.2]})
    ms = ["P_IA@4", "nDCG_IA@4"]
    b = irf.evaluate(run, qrels, ms, bounds=True, weights=w)
    extra = pd.DataFrame(
        {"topic": "t", "subtopic": ["1", "2", "3"] * 2, "doc": ["u"] * 3 + ["v"] * 3, "rel": 1}
    )
    full = irf.evaluate(run[run.system == "s"], pd.concat([qrels, extra]), ms, weights=w)
    np.testing.assert_allclose(
        b.sel(system="s", topic="t", bound="high").values,
        full.sel(system="s", topic="t").values,
        atol=1e-12,
    )
