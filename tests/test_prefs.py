"""trec_eval's preference measures on judgments trec_eval treats specially.

References: the trec_eval 9.0.8 and 10.0 binaries (provenance in
``tests/data/trec_eval/SOURCE.txt``): their outputs on ``generated/prefs.duplicates`` (repeated
lines) and ``generated/prefs.unranked_conflict`` are kept beside the inputs, and for each
inconsistent file below both binaries stop with the message quoted in ``STOPS`` (run once by
hand on those exact lines; trec_eval reads them only when it evaluates the topic).  The
upstream prefs tests (``tests/test_trec_eval_cli.py``) cover consistent files.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest

import irframe as irf
from irframe import cli
from irframe.prefs import Judgments, _encode, prefs_values

GEN = Path(__file__).parent / "data" / "trec_eval" / "generated"


def _eval(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["eval", *map(str, argv)], out=out, err=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_repeated_lines_equal_trec_eval(version):
    """One sub-group: trec_eval counts every line of an equivalence class (R and N of
    prefs_avgjg_Rnonrel too); several sub-groups: each document once."""
    status, out, err = _eval(
        "--trec-eval-version",
        version,
        "-m",
        "all_prefs",
        "-q",
        "-R",
        "prefs",
        GEN / "prefs.duplicates",
        GEN / "prefs.duplicates.run",
    )
    assert status == 0, err
    assert out == (GEN / f"out.prefs.duplicates.v{version}").read_text()


def test_complete_evaluates_unranked_topics_in_10_only():
    args = [
        "-c",
        "-m",
        "all_prefs",
        "-q",
        "-R",
        "prefs",
        GEN / "prefs.unranked_conflict",
        GEN / "prefs.unranked_conflict.run",
    ]
    status, out, err = _eval("--trec-eval-version", "9.0.8", *args)
    assert status == 0, err
    assert out == (GEN / "out.prefs.unranked_conflict.c.v9.0.8").read_text()
    status, out, err = _eval("--trec-eval-version", "10.0", *args)
    assert status != 0 and out == ""
    assert (
        "topic 'q1', judgment group 'u', sub-group 's': document 'd1' has two levels (2 and 1)"
        in err
    )


STOPS = [  # lines, what irframe names, trec_eval's message (both versions)
    (
        "q1 u s d1 2|q1 u s d1 1|q1 u s d2 0",
        "topic 'q1', judgment group 'u', sub-group 's': document 'd1' has two levels (2 and 1); give it one level",
        "Internal docid 0 occurs with different rel_level in same jsg",
    ),
    (
        "q1 u s d2 0|q1 u s d2 0|q1 u s d1 2|q1 u s d1 1",  # a repeated line is not the conflict
        "topic 'q1', judgment group 'u', sub-group 's': document 'd1' has two levels (2 and 1)",
        "Internal docid 0 occurs with different rel_level in same jsg",
    ),
    (
        "q1 u s d1 2|q1 u s d2 0|q1 u t d1 0|q1 u t d3 1",
        "topic 'q1', judgment group 'u': document 'd1' is non-relevant (level 0) in one sub-group and relevant",
        "doc 'd1' has both 0 and non-0 rel_level assigned",
    ),
    (
        "q1 u s d1 2|q1 u s d2 1|q1 u t d1 1|q1 u t d2 2",
        "topic 'q1', judgment group 'u': its sub-groups prefer 'd1' to 'd2' and 'd2' to 'd1'",
        "Pref inconsistency found",
    ),
]


@pytest.mark.parametrize("lines,named,trec_eval_says", STOPS)
def test_inconsistent_judgment_groups_raise(lines, named, trec_eval_says):
    prefs = pd.DataFrame(
        [ln.split() for ln in lines.split("|")], columns=["topic", "jg", "jsg", "doc", "rel"]
    )
    prefs["rel"] = prefs["rel"].astype(float)
    run = pd.DataFrame({"topic": ["q1", "q1"], "doc": ["d1", "d2"], "score": [2.0, 1.0]})
    with pytest.raises(irf.InputError, match=re.escape(named)) as e:
        prefs_values(prefs, run, ["q1"])
    quoted = str(e.value).split("trec_eval stops: '")[1].split("'")[0]
    assert quoted and quoted in trec_eval_says  # the message quotes trec_eval's own


def test_several_runs_each_equal_trec_eval(tmp_path):
    """Judgments are prepared once for all runs; each run still prints trec_eval's output."""
    run = GEN / "prefs.whitespace.run"
    other = tmp_path / "other.run"  # the same run under another tag and file
    other.write_bytes(run.read_bytes().replace(b" ws\n", b" other\n"))
    want = (GEN / "out.prefs.whitespace.v10.0").read_text(encoding="utf-8")
    status, out, err = _eval(
        "--trec-eval-version",
        "10.0",
        "-m",
        "all_prefs",
        "-q",
        "-R",
        "prefs",
        GEN / "prefs.whitespace",
        run,
        other,
        run,
    )
    assert status == 0, err
    assert out == want + want.replace("\tws\n", "\tother\n") + want


def test_judgments_reused_across_runs_equal_one_call_each():
    """Property: a prepared Judgments gives what prefs_values gives for each run alone."""
    prefs = irf.io.read_prefs(GEN / "prefs.duplicates")
    runs = irf.io.read_run(GEN / "prefs.duplicates.run")
    j = Judgments(prefs, float32=False)
    for depth in (None, 2):
        sub = runs[runs["doc"] != "d1"]
        assert j.values(sub, ["q0", "q1"], depth=depth) == prefs_values(
            prefs, sub, ["q0", "q1"], float32=False, depth=depth
        )


@pytest.mark.parametrize(
    "ids", ["sorted categories", "object", "unsorted categories", "unused categories"]
)
def test_judgments_same_whatever_the_id_columns(ids):
    """Property: the readers' categoricals (sorted arrow strings, kept as they are by
    Judgments) give the values of the same judgments as plain str columns, as categoricals
    whose categories are not sorted, and as categoricals with categories no row uses."""
    prefs = irf.io.read_prefs(GEN / "prefs.duplicates")
    runs = irf.io.read_run(GEN / "prefs.duplicates.run")
    other = prefs.copy()
    for col in ("topic", "jg", "jsg", "doc"):
        s = prefs[col].astype(str)
        if ids == "sorted categories":  # as read_qrels writes them: kept as they are
            other[col] = s.astype("category")
            cats = other[col].cat.categories
            arrow = pd.api.types.is_string_dtype(cats) and cats.dtype != object  # (pandas 3)
            assert isinstance(_encode(other[col])[1], pd.Index) == arrow
        elif ids == "unsorted categories":
            other[col] = s.astype(pd.CategoricalDtype(sorted(set(s), reverse=True)))
        elif ids == "unused categories":
            other[col] = s.astype(pd.CategoricalDtype(sorted({*s, "zz-unused", "0-unused"})))
        else:
            other[col] = s.astype(object)
    for float32 in (True, False):
        want = Judgments(prefs, float32=float32).values(runs, ["q0", "q1"])
        assert Judgments(other, float32=float32).values(runs, ["q0", "q1"]) == want
