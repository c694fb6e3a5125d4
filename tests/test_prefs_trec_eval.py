"""trec_eval's preference measures on generated judgments, against the trec_eval binary.

Reference: a trec_eval binary built from NIST's source (10.0), found as ``$IRFRAME_TREC_EVAL``
or ``trec_eval`` on the PATH (without one those tests skip), and its outputs on 80 such
topics stored in ``tests/data/trec_eval/generated`` (``prefs.gen``; run everywhere).  Hypothesis generates
preference files with several topics and judgment groups: groups of one sub-group
(equivalence classes, repeated lines, any levels) and groups of several sub-groups whose
preferences agree with one hidden order per group (so trec_eval accepts them: transitive
preferences across sub-groups, no contradiction); runs with tied scores, unjudged and
missing documents, topics with no judged document ranked, and ``-M`` cuts.  ``irframe eval`` must print
what the binary prints, byte for byte.
"""

from __future__ import annotations

import io
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irframe import cli
from irframe import prefs as prefs_module

BINARY = os.environ.get("IRFRAME_TREC_EVAL") or shutil.which("trec_eval")
needs_binary = pytest.mark.skipif(
    not (BINARY and os.access(BINARY, os.X_OK)),
    reason="no trec_eval binary ($IRFRAME_TREC_EVAL or trec_eval on the PATH)",
)
GEN = Path(__file__).parent / "data" / "trec_eval" / "generated"

DOCS = [f"d{i:02d}" for i in range(14)]


@st.composite
def _group(draw, topic: str, jg: str) -> list[str]:
    docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=9, unique=True))
    if draw(st.booleans()):  # one sub-group: equivalence classes by level
        lines = [f"{topic} {jg} s {d} {draw(st.integers(0, 3))}" for d in docs]
        return lines + [draw(st.sampled_from(lines)) for _ in range(draw(st.integers(0, 2)))]
    # several sub-groups agreeing with one order: nonrelevant documents (level 0 in every
    # sub-group) below the relevant ones, whose levels rise with their place in the order
    nonrel = set(draw(st.lists(st.sampled_from(docs), unique=True)))
    order = draw(st.permutations(docs))  # best last
    lines = []
    for s in range(draw(st.integers(2, 4))):
        sub = draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
        rel = sorted((d for d in sub if d not in nonrel), key=order.index)
        cut = sorted(draw(st.lists(st.integers(0, len(rel)), max_size=2)))
        for i, d in enumerate(rel):
            lines.append(f"{topic} {jg} t{s} {d} {1 + sum(i >= c for c in cut)}")
        lines += [f"{topic} {jg} t{s} {d} 0" for d in sub if d in nonrel]
    return lines


@st.composite
def _case(draw):
    lines, runs = [], []
    for t in range(draw(st.integers(1, 3))):
        topic = f"q{t}"
        for g in draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, unique=True)):
            lines += draw(_group(topic, g))
        if t == 0 or draw(st.booleans()):
            ranked = draw(st.lists(st.sampled_from([*DOCS, "x1", "x2"]), max_size=12, unique=True))
            runs += [f"{topic} Q0 {d} 0 {draw(st.integers(0, 4))} run" for d in ranked]
        runs.append(f"{topic} Q0 zz 0 -1 run")  # 10.0 stops on a judged topic without results
    depth = draw(st.sampled_from([None, None, 1, 3]))
    return lines, runs, depth


def generate(seed: int = 30, topics: int = 80) -> tuple[list[str], list[str]]:
    """The stored ``generated/prefs.gen`` and ``prefs.gen.run``: the cases above drawn with
    ``random.Random(seed)``, one per topic (prefs lines, run lines)."""
    rng = random.Random(seed)
    lines, runs = [], []
    for t in range(topics):
        topic = f"q{t:02d}"
        for jg in rng.sample(["a", "b", "c"], rng.randint(1, 3)):
            docs = rng.sample(DOCS, rng.randint(1, 9))
            if rng.random() < 0.5:  # one sub-group
                group = [f"{topic} {jg} s {d} {rng.randint(0, 3)}" for d in docs]
                group += [rng.choice(group) for _ in range(rng.randint(0, 2))]
            else:  # several sub-groups agreeing with one order
                nonrel = set(rng.sample(docs, rng.randint(0, len(docs))))
                order = rng.sample(docs, len(docs))
                group = []
                for sg in range(rng.randint(2, 4)):
                    sub = rng.sample(docs, rng.randint(1, len(docs)))
                    rel = sorted((d for d in sub if d not in nonrel), key=order.index)
                    cut = sorted(rng.randint(0, len(rel)) for _ in range(rng.randint(0, 2)))
                    for i, d in enumerate(rel):
                        group.append(f"{topic} {jg} t{sg} {d} {1 + sum(i >= c for c in cut)}")
                    group += [f"{topic} {jg} t{sg} {d} 0" for d in sub if d in nonrel]
            lines += group
        if rng.random() < 0.8:
            ranked = rng.sample([*DOCS, "x1", "x2"], rng.randint(0, 12))
            runs += [f"{topic} Q0 {d} 0 {rng.randint(0, 4)} run" for d in ranked]
        runs.append(f"{topic} Q0 zz 0 -1 run")
    return lines, runs


@pytest.mark.parametrize("arrow", [True, False])
@pytest.mark.parametrize("depth", [None, 3])
def test_stored_trec_eval_outputs(depth, arrow, monkeypatch):
    """The binary's outputs stored in tests/data (provenance in SOURCE.txt): no binary needed;
    ids looked up with pyarrow and without."""
    monkeypatch.setattr(prefs_module, "_USE_ARROW", arrow)
    lines, runs = generate()
    assert (GEN / "prefs.gen").read_text().splitlines() == lines
    assert (GEN / "prefs.gen.run").read_text().splitlines() == runs
    args = ["-q", "-m", "all_prefs", "-R", "prefs"] + ([] if depth is None else ["-M", str(depth)])
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(
        ["eval", "--trec-eval-version", "10.0", *args, str(GEN / "prefs.gen"),
         str(GEN / "prefs.gen.run")], out=out, err=err,
    )  # fmt: skip
    assert status == 0, err.getvalue()
    name = "out.prefs.gen" + ("" if depth is None else f".M{depth}") + ".v10.0"
    assert out.getvalue() == (GEN / name).read_text()


def _binary(args: list[str]) -> str:
    return subprocess.run([BINARY, *args], capture_output=True, check=True, text=True).stdout


@needs_binary
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_case())
def test_prefs_equal_trec_eval(tmp_path_factory, case):
    lines, runs, depth = case
    tmp = tmp_path_factory.mktemp("prefs")
    prefs, run = tmp / "prefs", tmp / "run"
    prefs.write_text("\n".join(lines) + "\n")
    run.write_text("\n".join(runs) + "\n")
    args = ["-q", "-m", "all_prefs", "-R", "prefs"]
    if depth is not None:
        args += ["-M", str(depth)]
    want = _binary([*args, str(prefs), str(run)])
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(
        ["eval", "--trec-eval-version", "10.0", *args, str(prefs), str(run)], out=out, err=err
    )
    assert status == 0, err.getvalue()
    assert out.getvalue() == want


@needs_binary
@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["q0", "q1"]),
            st.sampled_from(["0", "u", "v"]),
            st.sampled_from(DOCS),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=30,
        unique_by=lambda x: (x[0], x[1], x[2]),
    ),
    st.lists(
        st.tuples(st.sampled_from(DOCS), st.integers(0, 3)), max_size=14, unique_by=lambda x: x[0]
    ),
)
def test_qrels_prefs_equal_trec_eval(tmp_path_factory, qrels, ranked):
    """``-R qrels_prefs``: a qrels file read as preferences, its second field the group."""
    tmp = tmp_path_factory.mktemp("qprefs")
    q, r = tmp / "qrels", tmp / "run"
    q.write_text("".join(f"{t} {g} {d} {lv}\n" for t, g, d, lv in qrels))
    ranked = [*ranked, ("zz", -1)]  # 10.0 stops on a judged topic without results
    r.write_text("".join(f"{t} Q0 {d} 0 {s} run\n" for t in ("q0", "q1") for d, s in ranked))
    args = ["-q", "-m", "all_prefs", "-R", "qrels_prefs", str(q), str(r)]
    want = _binary(args)
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["eval", "--trec-eval-version", "10.0", *args], out=out, err=err)
    assert status == 0, err.getvalue()
    assert out.getvalue() == want


@pytest.mark.parametrize("fmt", ["qrels_prefs", "prefs"])
def test_an_irframe_measure_under_preferences_is_refused_and_the_advice_works(tmp_path, fmt):
    """Preferences give no grades: ``-m nDCG@10`` beside ``-m all_prefs`` under ``-R prefs`` /
    ``qrels_prefs`` stops like trec_eval's own measures do (exit 4, "Can't calculate
    measure"), not a silent 0; the call the message suggests (a qrels file, ``-R qrels``)
    gives nDCG@10 as pytrec_eval computes it."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 a 1\nq2 0 d 0\n")
    prefs = tmp_path / "prefs"
    prefs.write_text("q1 g s a 2\nq1 g s b 0\nq1 g s c 1\nq2 g s a 1\nq2 g s d 0\n")
    run = tmp_path / "run"
    run.write_text(
        "q1 Q0 b 1 3.0 r\nq1 Q0 c 2 2.0 r\nq1 Q0 a 3 1.0 r\nq2 Q0 d 1 2.0 r\nq2 Q0 a 2 1.0 r\n"
    )
    rel = qrels if fmt == "qrels_prefs" else prefs
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(
        ["eval", "-R", fmt, "-m", "all_prefs", "-m", "nDCG@10", str(rel), str(run)], out, err
    )
    assert status == 4
    assert "Can't calculate measure 'nDCG@10'" in err.getvalue()
    assert "-R qrels, the default" in err.getvalue()
    assert "nDCG@10" not in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["eval", "-m", "nDCG@10", str(qrels), str(run)], out, err) == 0
    judged = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"a": 1, "d": 0}}
    ranked = {"q1": {"b": 3.0, "c": 2.0, "a": 1.0}, "q2": {"d": 2.0, "a": 1.0}}
    ref = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut.10"}).evaluate(ranked)
    mean = sum(v["ndcg_cut_10"] for v in ref.values()) / len(ref)
    assert out.getvalue().split() == ["nDCG@10", "all", f"{mean:.4f}"]
