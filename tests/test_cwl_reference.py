"""C/W/L parity with the installed reference tools.

* the ``cwl-eval`` 1.0.12 command (all 10 printed columns, residuals included) on the
  cwl_eval fixtures, on the cwl authors' AQUAINT runs, and on TREC 2003 Robust runs with
  gains = grade / 2;
* ``ir_measures``: ``RBP(p=0.8,rel=1)`` (its cwl_eval provider) and ``ERR@k`` (its gdeval
  provider, perl) on Robust03 runs.
"""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import reference_module, reference_tool
from test_cwl import (
    DATA,
    assert_matches_cwl_eval,
    read_expected,
    read_gains,
    read_metrics,
    read_result,
)

import irframe as irf
from irframe.cwl import cwl

COLS = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")
EXTRA_METRICS = [
    "NERReq8CWLMetric(10)",
    "NERReq9CWLMetric(5)",
    "NERReq10CWLMetric(0.9)",
    "NERReq11CWLMetric(2.0)",
    "NPVCWLMetric(0.1)",
    "SETCWLMetric(0.5,10)",
    "BPMDCWLMetric(2,20,0.5,1.0,0.3)",
    "INSQCWLMetric(2.0)",
    "TBGCWLMetric(224)",
]


def cwl_eval_cli(tmp: Path, gain_file: Path, result_file: Path, *args: str) -> list[list[str]]:
    exe = reference_tool("cwl-eval")  # the venv's bin/ next to sys.executable, then PATH
    out = subprocess.run(
        [exe, str(gain_file), str(result_file), "-r", *args],
        cwd=tmp,  # writes cwl.log in cwd
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line.split("\t") for line in out.splitlines() if line.strip()]


def compare_rows(ds, rows, system):
    pos = defaultdict(int)
    n = 0
    # plain arrays (topic x measure) per column: a per-value DataArray.sel costs far more
    where = {t: i for i, t in enumerate(ds.topic.values.tolist())}
    values = {c: ds[c].sel(system=system).transpose("topic", "measure").values for c in COLS}
    for row in rows:
        topic = row[0]
        j = pos[topic]
        pos[topic] += 1
        assert str(ds.cwl_name.values[j]).strip() == row[1].strip()
        for col, text in zip(COLS, row[2:], strict=True):
            got = float(values[col][where[topic], j])
            got_s = f"{got:.4f}"
            assert (
                got_s == text
                or (got_s == "-0.0000" and text == "0.0000")
                or (got_s == "0.0000" and text == "-0.0000")
            ), (topic, row[1], col, got, text)
            n += 1
    return n


@pytest.mark.parametrize("chunk", [None, 1], ids=["one_chunk", "a_chunk_per_ranking"])
@pytest.mark.parametrize("gainf,costs", [("qrel_file", False), ("gain_file", True)])
def test_residuals_match_cwl_eval_cli(tmp_path, gainf, costs, chunk, monkeypatch):
    if chunk is not None:  # the dense matrices built a ranking at a time (memory bound)
        monkeypatch.setattr("irframe.measures.cwl.CHUNK_CELLS", chunk)
    metrics = tmp_path / "metrics"
    metrics.write_text("\n".join(read_metrics(DATA / "metrics_file") + EXTRA_METRICS) + "\n")
    args = ["-m", str(metrics)] + (["-c", str(DATA / "cost_file")] if costs else [])
    rows = cwl_eval_cli(tmp_path, DATA / gainf, DATA / "result_file", *args)
    ds = cwl(
        read_result(DATA / "result_file"),
        read_gains(DATA / gainf),
        read_metrics(metrics),
        order="input",
        costs=DATA / "cost_file" if costs else None,
    )
    assert compare_rows(ds, rows, "R1") == len(rows) * 10 == 3 * 36 * 10


# ------------------------------------------------------------------------------ AQUAINT (cwl authors' runs)
@pytest.mark.parametrize("run_name", ["bm25", "lmd", "pl2"])
@pytest.mark.parametrize("metric_list", ["precision", "rbp"])
def test_aquaint_runs_match_cwl_eval(shared_data, run_name, metric_list):
    base = shared_data / "cwl_eval_fixtures"
    ex = base / "leifos_cwl_examples"
    qrels = pd.read_csv(
        ex / "trec_aq_303-689.qrels.gz",
        sep=r"\s+",
        header=None,
        dtype=str,
        names=["topic", "it", "doc", "rel"],
    ).astype({"rel": float})[["topic", "doc", "rel"]]
    run = pd.read_csv(
        ex / f"aq_{run_name}.res.gz",
        sep=r"\s+",
        header=None,
        dtype=str,
        names=["topic", "element_type", "doc", "rank", "score", "system"],
    ).astype({"score": float})
    ds = cwl(
        run,
        qrels,
        read_metrics(ex / f"{metric_list}_metrics"),
        max_gain=2.0,
        residuals=False,
        order="input",
    )
    expected = read_expected(
        base / "expected_generated" / f"aq_{run_name}.{metric_list}_metrics.maxgain2.tsv"
    )
    assert_matches_cwl_eval(ds, expected, str(ds.system.values[0]))


# ------------------------------------------------------------------------------ Robust03, gains = grade / 2
def robust(shared_data, names):
    runs = irf.read_runs([shared_data / "robust03" / "runs" / f"input.{n}.gz" for n in names])
    qrels = irf.read_qrels(shared_data / "robust03" / "qrels" / "robust03_qrels.txt.gz")
    return runs, qrels


def _write_cli_inputs(tmp_path, runs, qrels, gain, metric_lines):
    """The run (in frame order: cwl_eval reads file order), gain and metrics files for cwl-eval."""
    res = tmp_path / "run.txt"
    with open(res, "w") as f:
        for t, d, rk, sc, s in zip(
            runs.topic.astype(str),
            runs.doc.astype(str),
            runs["rank"],
            runs.score,
            runs.system.astype(str),
            strict=True,
        ):
            f.write(f"{t} Q0 {d} {rk} {sc!r} {s}\n")
    gq = tmp_path / "gains.txt"
    with open(gq, "w") as f:
        for t, d, g in zip(qrels.topic.astype(str), qrels.doc.astype(str), qrels.rel, strict=True):
            f.write(f"{t} 0 {d} {gain(g)}\n")
    mf = tmp_path / "metrics"
    mf.write_text("\n".join(metric_lines) + "\n")
    return res, gq, mf


def _robust_vs_cli(tmp_path, shared_data, name, topic_slice, metric_lines):
    runs, qrels = robust(shared_data, [name])
    topics = sorted(runs.topic.astype(str).unique())[topic_slice]
    runs = runs[runs.topic.astype(str).isin(topics)]
    res, gq, mf = _write_cli_inputs(tmp_path, runs, qrels, lambda g: max(g, 0) / 2, metric_lines)
    rows = cwl_eval_cli(tmp_path, gq, res, "-m", str(mf))
    ds = cwl(runs, qrels, metric_lines, gains=lambda g: np.maximum(g, 0) / 2, order="input")
    return compare_rows(ds, rows, name)


ROBUST_METRICS = [
    "PrecisionCWLMetric(10)",
    "RBPCWLMetric(0.8)",
    "NDCGCWLMetric(10)",
    "RRCWLMetric()",
    "APCWLMetric()",
    "INSTCWLMetric(2.0)",
    "INSQCWLMetric(2.0)",
    "BPMCWLMetric(1.0,20)",
    "UMeasureCWLMetric(50)",
    "TBGCWLMetric(22)",
    "IFTGoalRateCWLMetric(2.0,0.9,10, 0.2, 0.9, 10)",
    "NERReq11CWLMetric(2.0)",
]


def test_robust03_matches_cwl_eval_cli(tmp_path, shared_data):
    # two runs, the first 8 topics each (cwl_eval's Python loops are slow); the full set is slow-marked
    for name in ("aplrob03a", "pircRBa1"):
        assert (
            _robust_vs_cli(tmp_path, shared_data, name, slice(0, 8), ROBUST_METRICS)
            == 8 * len(ROBUST_METRICS) * 10
        )


@pytest.mark.slow
@pytest.mark.parametrize("i,name", enumerate(("uwmtCR0", "THUIRr0301", "humR03dc")))
def test_robust03_matches_cwl_eval_cli_all_topics(tmp_path, shared_data, i, name):
    # every one of the 100 topics once, spread over three more runs (cwl_eval's Python loops
    # take ~1 s per topic and run, so the three runs do not each repeat all 100): run i
    # takes topics i, i+3, i+6, ... of the 100 (one test each, so pytest-xdist spreads them)
    n = _robust_vs_cli(tmp_path, shared_data, name, slice(i, None, 3), ROBUST_METRICS)
    assert n == len(range(i, 100, 3)) * len(ROBUST_METRICS) * 10


# ------------------------------------------------------------------------------ ir_measures
def _irm_frames(runs, qrels):
    # ids as Python strings (object columns): ir_measures iterates over the rows in Python,
    # which is several times slower over arrow-backed string columns (pandas 3's default)
    run_df = pd.DataFrame(
        {
            "query_id": runs.topic.astype(str).astype(object),
            "doc_id": runs.doc.astype(str).astype(object),
            "score": runs.score.astype(float),
        }
    )
    q_df = pd.DataFrame(
        {
            "query_id": qrels.topic.astype(str).astype(object),
            "doc_id": qrels.doc.astype(str).astype(object),
            "relevance": qrels.rel.astype(int),
        }
    )
    return run_df, q_df


def test_rbp_binary_matches_ir_measures(shared_data):
    ir_measures = reference_module("ir_measures")
    runs, qrels = robust(shared_data, ["aplrob03a", "pircRBa1"])
    # ir_measures sorts by score with a stable sort: ties keep the file order, which is rank order here
    cube = irf.evaluate(runs, qrels, ["RBP(p=0.8,rel=1)", "RBP(p=0.5,rel=2)"], order="input")
    n = 0
    for name in ("aplrob03a", "pircRBa1"):
        r = runs[runs.system == name]
        run_df, q_df = _irm_frames(r, qrels)
        for label, m in (
            ("RBP(p=0.8,rel=1)", ir_measures.RBP(p=0.8, rel=1)),
            ("RBP(p=0.5,rel=2)", ir_measures.RBP(p=0.5, rel=2)),
        ):
            for res in ir_measures.iter_calc([m], q_df, run_df):
                ours = float(cube.sel(system=name, topic=res.query_id, measure=label))
                # the cwl_eval provider normalises W over 1000 ranks: (1 - p^1000) ~ 1 for p <= 0.8
                assert ours == pytest.approx(res.value, rel=1e-10, abs=1e-12)
                n += 1
    assert n == 2 * 2 * 100


def test_rbp_graded_matches_cwl_eval_cli(tmp_path, shared_data):
    """Graded RBP (gain = grade) against the cwl-eval command's EU of RBPCWLMetric(0.8).

    cwl_eval takes the grades 0/1/2 themselves as gains with ``--max_gain 2``; its EU is
    sum_i (1 - p) p^(i-1) g_i (W normalised over 1000 ranks: 1 - 0.8^1000 = 1 to 1e-97).
    It prints 4 decimals. All 100 topics of two runs.
    """
    runs, qrels = robust(shared_data, ["aplrob03a", "pircRBa1"])
    cube = irf.evaluate(runs, qrels, "RBP(p=0.8)", order="input")  # cwl_eval keeps file order
    n = 0
    for name in ("aplrob03a", "pircRBa1"):
        sub = tmp_path / name
        sub.mkdir()
        one, gq, mf = _write_cli_inputs(
            sub, runs[runs.system == name], qrels, lambda g: max(int(g), 0), ["RBPCWLMetric(0.8)"]
        )
        rows = cwl_eval_cli(sub, gq, one, "-m", str(mf), "--max_gain", "2")
        for row in rows:
            topic, eu = row[0], row[2]
            got = float(cube.sel(system=name, topic=topic, measure="RBP(p=0.8)"))
            assert f"{got:.4f}" == eu.strip(), (name, topic, got, eu)
            n += 1
    assert n == 2 * 100


def test_err_matches_ir_measures_gdeval(shared_data):
    ir_measures = reference_module("ir_measures")
    reference_tool("perl")  # ir_measures' gdeval provider runs perl
    names = ("aplrob03a", "uwmtCR0")
    runs, qrels = robust(shared_data, names)
    cube = irf.evaluate(runs, qrels, ["ERR@20", "ERR@1000"], order="trec_eval10")
    n = 0
    for name in names:
        run_df, q_df = _irm_frames(runs[runs.system == name], qrels)
        for k in (20, 1000):
            for res in ir_measures.iter_calc([ir_measures.ERR @ k], q_df, run_df):
                ours = float(cube.sel(system=name, topic=res.query_id, measure=f"ERR@{k}"))
                assert ours == pytest.approx(res.value, abs=5e-6)  # gdeval prints %.5f
                n += 1
    assert n == 2 * 2 * 100
