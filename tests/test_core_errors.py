"""Bad input gets a clear error naming what is wrong; the caller's frames are never modified."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irframe as irf
from irframe.errors import (
    ColumnError,
    DuplicateError,
    InputError,
    MeasureParamError,
    ParseError,
    UnknownMeasureError,
)


@pytest.fixture
def frames():
    runs = pd.DataFrame(
        {
            "system": ["s", "s", "t"],
            "topic": ["1", "1", "1"],
            "doc": ["a", "b", "a"],
            "score": [2.0, 1.0, 1.0],
        }
    )
    qrels = pd.DataFrame({"topic": ["1", "1"], "doc": ["a", "c"], "rel": [1, 0]})
    return runs, qrels


def _snapshot(*dfs):
    return [d.copy(deep=True) for d in dfs]


def test_duplicate_run_rows_named(frames):
    runs, qrels = frames
    bad = pd.concat([runs, runs.iloc[[1]]], ignore_index=True)
    before = _snapshot(bad, qrels)
    with pytest.raises(
        DuplicateError, match=r"duplicate \(system, topic, doc\).*row 1.*doc='b'.*row 3"
    ):
        irf.evaluate(bad, qrels, "AP")
    cube = irf.evaluate(bad, qrels, "AP", duplicates="first")
    assert cube.sel(system="s").item() == 1.0
    pd.testing.assert_frame_equal(bad, before[0])
    assert isinstance(DuplicateError("x"), ValueError)


def test_duplicate_qrels_rows_named(frames):
    runs, qrels = frames
    bad = pd.concat([qrels, qrels.iloc[[0]]], ignore_index=True)
    with pytest.raises(
        DuplicateError, match=r"qrels frame has 1 duplicate \(topic, doc\).*doc='a'"
    ):
        irf.evaluate(runs, bad, "AP")


@pytest.mark.parametrize("value,word", [(np.nan, "NaN"), (np.inf, "infinite")])
def test_nan_or_inf_score(frames, value, word):
    runs, qrels = frames
    bad = runs.copy()
    bad.loc[2, "score"] = value
    before = _snapshot(bad)
    with pytest.raises(InputError, match=rf"column 'score' has 1 {word} value.*row 2"):
        irf.evaluate(bad, qrels, "AP")
    pd.testing.assert_frame_equal(bad, before[0])


def test_missing_column_lists_missing_and_found(frames):
    runs, qrels = frames
    with pytest.raises(
        ColumnError,
        match=r"missing column\(s\) 'doc' \(or 'docno', 'doc_id'\); "
        r"found: system, topic, score",
    ):
        irf.evaluate(runs.drop(columns="doc"), qrels, "AP")
    with pytest.raises(KeyError):  # ColumnError is a KeyError too
        irf.evaluate(runs, qrels.drop(columns="rel"), "AP")
    with pytest.raises(
        ColumnError, match=r"missing column\(s\) 'doc'.*; found: system, topic, score"
    ):
        runs.drop(columns="doc").ir.metric("AP", qrels)


def test_non_numeric_rel(frames):
    runs, qrels = frames
    bad = qrels.astype({"rel": object})
    bad.loc[1, "rel"] = "high"
    with pytest.raises(
        InputError, match=r"column 'rel' has 1 non-numeric value.*row 1: rel='high'"
    ):
        irf.evaluate(runs, bad, "AP")


def test_empty_run_and_qrels(frames):
    runs, qrels = frames
    with pytest.raises(InputError, match="run frame is empty"):
        irf.evaluate(runs.iloc[:0], qrels, "AP")
    with pytest.raises(InputError, match="qrels frame is empty"):
        irf.evaluate(runs, qrels.iloc[:0], "AP")


def test_unknown_measure_suggests_closest(frames):
    runs, qrels = frames
    with pytest.raises(UnknownMeasureError, match=r"unknown measure 'nDGC'.*Did you mean 'nDCG'"):
        irf.evaluate(runs, qrels, "nDGC@10")
    with pytest.raises(UnknownMeasureError, match=r"Did you mean 'AP'"):
        irf.evaluate(runs, qrels, "ap")
    with pytest.raises(MeasureParamError, match=r"unknown parameter\(s\) \['alpha'\] for P"):
        irf.evaluate(runs, qrels, "P(alpha=1)@10")
    with pytest.raises(MeasureParamError, match="takes no @cutoff"):
        irf.parse_measure("Rprec@10")


def test_malformed_trec_line_names_file_line_and_text(tmp_path):
    p = tmp_path / "run.txt"
    p.write_text("1 Q0 a 1 2.0 tag\n1 Q0 b 2\n")
    with pytest.raises(ParseError) as e:
        irf.read_run(p)
    msg = str(e.value)
    assert "run.txt" in msg and "line 2" in msg and "1 Q0 b 2" in msg
    assert e.value.lineno == 2


def test_topic_without_relevant_documents_scores_zero(frames):
    runs, _ = frames
    qrels = pd.DataFrame({"topic": ["1", "1"], "doc": ["a", "b"], "rel": [0, 0]})
    cube = irf.evaluate(
        runs,
        qrels,
        [
            "AP",
            "nDCG",
            "RR",
            "Rprec",
            "R@10",
            "Bpref",
            "infAP",
            "gm_map",
            "iprec_at_recall_0.00",
            "P@1",
        ],
    )
    assert not np.isnan(cube.values).any()
    np.testing.assert_array_equal(
        cube.sel(measure=[m for m in cube.measure.values if m != "gm_map"]).values, 0
    )
    np.testing.assert_allclose(cube.sel(measure="gm_map").values, np.log(1e-5))


def test_numeric_ids_are_refused(frames):
    runs, qrels = frames
    with pytest.raises(
        InputError, match=r"column 'topic' \(dtype int64\) must hold strings.*'051' and '51'"
    ):
        irf.evaluate(runs.assign(topic=1), qrels, "AP")


def test_bad_options(frames):
    runs, qrels = frames
    with pytest.raises(ValueError, match="order="):
        irf.evaluate(runs, qrels, "AP", order="score")
    with pytest.raises(ValueError, match=r"depth must be an integer in \[1, "):
        irf.evaluate(runs, qrels, "AP", depth=0)
    with pytest.raises(TypeError, match=r"unexpected option\(s\) \['colour'\]"):
        irf.evaluate(runs, qrels, "AP", colour="red")
    with pytest.raises(ValueError, match="requested twice"):
        irf.evaluate(runs, qrels, ["AP", "AP"])


def test_metric_without_qrels_says_how(frames):
    runs, _ = frames
    with pytest.raises(InputError, match=r"pass qrels=\.\.\. or call df\.ir\.join\(qrels\)"):
        runs.ir.metric("AP")


def test_callers_frames_unchanged_by_every_entry_point(frames):
    runs, qrels = frames
    runs = runs.astype({"system": "category"})
    before = _snapshot(runs, qrels)
    irf.evaluate(runs, qrels, ["AP", "nDCG"], complete=True, depth=1)
    j = runs.ir.join(qrels)
    j.ir.metric("AP")
    runs.ir.summary(["AP"], qrels=qrels)
    runs.ir.to_trec()
    pd.testing.assert_frame_equal(runs, before[0])
    pd.testing.assert_frame_equal(qrels, before[1])
    assert "rel" not in runs.columns and not runs.attrs


def test_measures_without_a_threshold_refuse_rel():
    """NumRet and Judged count documents whatever their grade: a rel= would be ignored, so it
    is refused (ir_measures' NumRet(rel=k) is read as its meaning, NumRelRet(rel=k))."""
    from irframe.measures import get_definition

    for name in ("NumRet", "Judged"):
        assert "rel" not in get_definition(name).params
    with pytest.raises(MeasureParamError, match="unknown parameter"):
        irf.parse_measure("Judged(rel=2)@10")
    assert irf.parse_measure("NumRet(rel=2)").name == "NumRelRet"
