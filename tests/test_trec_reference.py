"""trec_eval parity: trec_eval's own test fixtures and the 15 TREC 2003 Robust runs.

References: trec_eval 9.0.8's expected outputs (``out.test*``, copied into
tests/data/trec_eval with their SOURCE note, and ``../shared/data``), trec_eval 9.0.8 and
10.0 per-topic outputs on Robust03, and pytrec_eval's unrounded values.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import reference_module
from trec_ref import FIXTURES, compare, expected_counts, read_trec_eval_output

import irframe as irf

HERE = Path(__file__).resolve().parent
BUNDLED = HERE / "data" / "trec_eval"


@pytest.fixture(params=["arrow", "pandas"])
def reader(request, monkeypatch):
    """Read the files with pyarrow and with the pandas fallback (docs/io.md)."""
    if request.param == "arrow":
        reference_module("pyarrow")
    else:
        monkeypatch.setattr("irframe._textfile.USE_ARROW", False)
    return request.param


@pytest.fixture(scope="module")
def fixtures():
    """(inputs dir, expected-v9.0.8 dir), bundled with the tests (see its SOURCE.txt)."""
    return BUNDLED, BUNDLED / "expected_v9.0.8"


CONFIGS = [
    # expected file, qrels, results, options  (quicktest_commands.txt)
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.a", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "depth": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"rel_level": 2}),
    ("out.test.meas_params", "qrels.test", "results.test", {}),
    ("out.test", "qrels.test", "results.test", {}),
]


@pytest.mark.parametrize(
    "expected_name,qrels_name,run_name,options", CONFIGS, ids=[c[0] for c in CONFIGS]
)
def test_trec_eval_fixture(fixtures, reader, expected_name, qrels_name, run_name, options):
    inputs, expected_dir = fixtures
    expected = read_trec_eval_output(expected_dir / expected_name)
    fixture = FIXTURES[expected_name]
    qrels = irf.read_qrels(inputs / qrels_name)
    run = irf.read_run(inputs / run_name)
    cube = irf.evaluate(run, qrels, list(fixture.measures), **options)
    counts, bad = compare(
        expected, cube, fixture.measures, missing="zero" if options.get("complete") else "skip"
    )
    assert not bad, "\n".join(bad[:20])
    # every listed measure was compared, each with the exact number of (measure, topic) values
    assert dict(counts) == expected_counts(fixture)
    print(
        f"{expected_name}: {sum(counts.values())} (measure, topic) values of {len(counts)} measures compared"
    )


def test_a_dropped_or_unlisted_measure_fails_the_comparison(fixtures):
    inputs, expected_dir = fixtures
    expected = read_trec_eval_output(expected_dir / "out.test.aq")
    fixture = FIXTURES["out.test.aq"]
    qrels, run = irf.read_qrels(inputs / "qrels.test"), irf.read_run(inputs / "results.test")
    fewer = [m for m in fixture.measures if m not in ("ndcg_cut_10", "bpref")]
    counts, bad = compare(expected, irf.evaluate(run, qrels, fewer), fixture.measures)
    assert {
        "ndcg_cut_10: listed but missing from irframe's cube",
        "bpref: listed but missing from irframe's cube",
    } <= set(bad)
    assert dict(counts) != expected_counts(fixture)
    # a name in the file that is neither listed nor excluded is reported too
    counts, bad = compare(expected, irf.evaluate(run, qrels, fewer), fewer)
    assert "bpref: in the trec_eval output but neither compared nor in NOT_COMPARED" in bad


def test_num_q_and_complete_topics(fixtures):
    inputs, _ = fixtures
    qrels = irf.read_qrels(inputs / "qrels.test")
    run = irf.read_run(inputs / "results.trunc")  # topics 301 and 303 only
    default = irf.evaluate(run, qrels, ["map", "num_rel"])
    assert default.topic.values.tolist() == ["301", "303"]
    complete = irf.evaluate(run, qrels, ["map", "num_rel"], complete=True)
    assert complete.topic.values.tolist() == ["301", "302", "303"]
    assert complete.sel(topic="302", measure="map").item() == 0.0
    # the recall base of the missing topic still counts (trec_eval -c: num_rel all = 561)
    assert irf.summarize(complete)["num_rel"].iloc[0] == 561


# ------------------------------------------------------------------------ Robust03
@pytest.fixture(scope="module")
def robust(shared_data):
    base = shared_data / "robust03"
    qrels = irf.read_qrels(base / "qrels" / "robust03_qrels.txt.gz")
    runs = irf.read_runs(sorted((base / "runs").glob("input.*.gz")), system="tag")
    return base, qrels, runs


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize(
    "version,order", [("trec_eval_9.0.8", "trec_eval"), ("trec_eval_10.0", "trec_eval10")]
)
def test_robust03_all_runs_match_trec_eval(robust, version, order):
    base, qrels, runs = robust
    files = sorted((base / "expected" / version).glob("*.all_trec.q.txt.gz"))
    assert len(files) == 15
    fixture = FIXTURES[f"robust03 {version}"]
    cube = irf.evaluate(runs, qrels, list(fixture.measures), order=order)
    assert len(cube.system) == 15
    problems, total = [], 0
    for f in files:
        system = f.name.split(".all_trec")[0]
        counts, bad = compare(read_trec_eval_output(f), cube, fixture.measures, system=system)
        problems += [f"{system}: {b}" for b in bad]
        if dict(counts) != expected_counts(fixture):
            problems.append(
                f"{system}: compared {dict(counts)}, expected {expected_counts(fixture)}"
            )
        total += sum(counts.values())
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:30])
    # every run, every listed measure, every topic plus the summary line
    assert total == 15 * sum(expected_counts(fixture).values())
    print(
        f"{version}: {total} (measure, topic) values of {len(fixture.measures)} measures compared"
    )


@pytest.mark.shared
@pytest.mark.slow
def test_robust03_equals_pytrec_eval_unrounded(robust):
    pytrec_eval = reference_module("pytrec_eval")
    _, qrels, runs = robust
    pairs = {  # irframe measure -> pytrec_eval key
        "map": "map",
        "gm_map": "gm_map",
        "Rprec": "Rprec",
        "bpref": "bpref",
        "infAP": "infAP",
        "recip_rank": "recip_rank",
        "P_10": "P_10",
        "P_1000": "P_1000",
        "recall_100": "recall_100",
        "recall_1000": "recall_1000",
        "ndcg": "ndcg",
        "ndcg_cut_10": "ndcg_cut_10",
        "ndcg_cut_1000": "ndcg_cut_1000",
        "success_10": "success_10",
        "iprec_at_recall_0.10": "iprec_at_recall_0.10",
        "iprec_at_recall_0.50": "iprec_at_recall_0.50",
        "11pt_avg": "11pt_avg",
        "num_ret": "num_ret",
        "num_rel": "num_rel",
        "num_rel_ret": "num_rel_ret",
        "map_cut_100": "map_cut_100",
    }
    cube = irf.evaluate(runs, qrels, list(pairs))
    q = {}
    for t, d, r in zip(qrels.topic.astype(str), qrels.doc.astype(str), qrels.rel, strict=True):
        q.setdefault(t, {})[d] = int(r)
    ev = pytrec_eval.RelevanceEvaluator(
        q,
        {
            "map",
            "gm_map",
            "Rprec",
            "bpref",
            "infAP",
            "recip_rank",
            "P",
            "recall",
            "ndcg",
            "ndcg_cut",
            "success",
            "iprec_at_recall",
            "11pt_avg",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "map_cut",
        },
    )
    worst = 0.0
    compared = 0
    for system, g in runs.groupby("system", observed=True):
        r = {}
        for t, d, s in zip(g.topic.astype(str), g.doc.astype(str), g.score, strict=True):
            r.setdefault(t, {})[d] = float(s)
        res = ev.evaluate(r)
        mine = cube.sel(system=system).transpose("topic", "measure").to_pandas()
        for topic, vals in res.items():
            for ours, theirs in pairs.items():
                diff = abs(float(mine.at[topic, ours]) - vals[theirs])
                worst = max(worst, diff)
                compared += 1
    assert compared == 15 * 100 * len(pairs)
    assert worst <= 1e-9, worst


def test_robust03_files_read_the_same_without_pyarrow(robust, monkeypatch):
    """The Robust03 qrels and three of the runs compared above read identically with the pandas
    fallback (all 15 runs take ~50 s that way; three cover both tie-heavy and depth-10 runs)."""
    base, qrels, _ = robust
    files = [base / "runs" / f"input.{n}.gz" for n in ("NLPR03vb10", "aplrob03a", "uic0301")]
    with_arrow = irf.read_runs(files, system="tag")
    monkeypatch.setattr("irframe._textfile.USE_ARROW", False)
    pd.testing.assert_frame_equal(irf.read_qrels(base / "qrels" / "robust03_qrels.txt.gz"), qrels)
    pd.testing.assert_frame_equal(irf.read_runs(files, system="tag"), with_arrow)


@pytest.mark.shared
def test_robust03_ties_are_broken_like_trec_eval(robust):
    """Runs whose float32 scores tie are ordered docno-descending: ranks differ from the file."""
    _, qrels, runs = robust
    from irframe.align import align

    a = align(runs, qrels)
    tied = np.flatnonzero(np.diff(a.row_score) == 0)
    assert len(tied) > 0  # Robust03 has tied scores
    docs = a.docs[a.row_doc]
    same_group = a.row_group[tied] == a.row_group[tied + 1]
    left, right = docs[tied][same_group], docs[tied + 1][same_group]
    assert all(x.encode() > y.encode() for x, y in zip(left, right, strict=True))
