"""irframe.rag: nugget scores against nuggetizer's formula, support scores against their
definition (Thakur et al., SIGIR 2025), readers and errors, and the cube tools on the result.

nuggetizer (castorini, PyPI ``nuggetizer`` 0.0.5) needs ``openai`` and ``tiktoken`` (whose
encodings are downloaded at run time), so it is not a test dependency: its scoring function,
``calculate_nugget_scores`` in ``nuggetizer/core/metrics.py``, is transcribed below from its
documented formula (``.claude/skills/nuggetizer-eval/references/metrics.md``: strict score =
count(support) / total nuggets; score = (count(support) + 0.5 count(partial_support)) / total;
the vital scores over the vital nuggets only; 0 when there is no nugget to divide by).
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe import rag, stats
from irframe.errors import DuplicateError, InputError, ParseError


def nuggetizer_scores(nuggets: list[dict]) -> dict:
    """Transcription of nuggetizer's calculate_nugget_scores for one answer."""
    vital = [n for n in nuggets if n["importance"] == "vital"]

    def credit(ns, partial):
        return sum(
            1.0
            if n["assignment"] == "support"
            else (0.5 if partial and n["assignment"] == "partial_support" else 0.0)
            for n in ns
        )

    return {
        "strict_vital_score": credit(vital, False) / len(vital) if vital else 0.0,
        "strict_all_score": credit(nuggets, False) / len(nuggets) if nuggets else 0.0,
        "vital_score": credit(vital, True) / len(vital) if vital else 0.0,
        "all_score": credit(nuggets, True) / len(nuggets) if nuggets else 0.0,
    }


nugget = st.fixed_dictionaries(
    {
        "importance": st.sampled_from(["vital", "okay"]),
        "assignment": st.sampled_from(["support", "partial_support", "not_support"]),
    }
)
# records: (system, topic) -> nugget list; some answers have no nugget, some topics no vital one
records = st.dictionaries(
    st.tuples(st.sampled_from(["r1", "r2", "r3"]), st.sampled_from(["t1", "t2", "t3", "t4"])),
    st.lists(nugget, max_size=7),
    min_size=1,
    max_size=12,
)


def _frame(recs: dict) -> pd.DataFrame:
    rows = []
    for (s, t), ns in recs.items():
        if not ns:
            rows.append(
                {"system": s, "topic": t, "nugget": None, "importance": None, "assignment": None}
            )
        for i, n in enumerate(ns):
            rows.append({"system": s, "topic": t, "nugget": i, **n})
    return pd.DataFrame(rows)


@settings(max_examples=150)
@given(records)
def test_nugget_scores_match_nuggetizer(recs):
    df = _frame(recs)
    before = df.copy()
    cube = rag.nugget_scores(df)
    pd.testing.assert_frame_equal(df, before)  # the caller's frame is not modified
    assert cube.dims == ("system", "topic", "measure")
    assert list(cube.measure.values) == list(rag.NUGGET_MEASURES)
    for s in cube.system.values:
        for t in cube.topic.values:
            cell = cube.sel(system=s, topic=t)
            if (s, t) not in recs:
                assert cell.isnull().all()
                continue
            want = nuggetizer_scores(recs[(s, t)])
            for m, v in want.items():
                assert cell.sel(measure=m).item() == pytest.approx(v, abs=1e-15), (s, t, m)


def _sentences():
    cite = st.tuples(
        st.sampled_from(["d1", "d2", "d3", "d4"]),
        st.sampled_from(["full_support", "partial_support", "no_support"]),
    )
    return st.lists(st.lists(cite, max_size=3, unique_by=lambda c: c[0]), max_size=5)


@settings(max_examples=150)
@given(
    st.dictionaries(
        st.tuples(st.sampled_from(["r1", "r2"]), st.sampled_from(["t1", "t2", "t3"])),
        _sentences(),
        min_size=1,
    )
)
def test_support_scores_match_definition(answers):
    """Weighted precision / recall (Thakur et al., SIGIR 2025), written out per answer."""
    w = {"full_support": 1.0, "partial_support": 0.5, "no_support": 0.0}
    rows = []
    for (s, t), sents in answers.items():
        if not sents:
            rows.append((s, t, None, None, None))
        for i, cites in enumerate(sents):
            if not cites:
                rows.append((s, t, i, None, None))
            rows += [(s, t, i, c, j) for c, j in cites]
    df = pd.DataFrame(rows, columns=["system", "topic", "sentence", "citation", "support"])
    cube = rag.support_scores(df)
    for (s, t), sents in answers.items():
        pairs = [w[j] for cites in sents for _, j in cites]
        prec = sum(pairs) / len(pairs) if pairs else 0.0
        rec = (
            sum(max((w[j] for _, j in c), default=0.0) for c in sents) / len(sents)
            if sents
            else 0.0
        )
        got = cube.sel(system=s, topic=t)
        assert got.sel(measure="support_precision").item() == pytest.approx(prec, abs=1e-15)
        assert got.sel(measure="support_recall").item() == pytest.approx(rec, abs=1e-15)


def test_cube_tools_work_on_nugget_cubes():
    rng = np.random.default_rng(7)
    recs = {}
    for s in ["a", "b", "c"]:
        for t in range(20):
            k = int(rng.integers(0, 8))
            p = {"a": [0.5, 0.2, 0.3], "b": [0.3, 0.2, 0.5], "c": [0.4, 0.2, 0.4]}[s]
            recs[(s, f"q{t:02d}")] = [
                {
                    "importance": ["vital", "okay"][int(rng.integers(0, 2))],
                    "assignment": rng.choice(["support", "partial_support", "not_support"], p=p),
                }
                for _ in range(k)
            ]
    human = _frame(recs)
    flip = (rng.random(len(human)) <= 0.2) & human.nugget.notna()  # (answers with nuggets)
    llm = human.assign(assignment=human.assignment.where(~flip, "support"))
    cube = rag.nugget_scores(human)
    table = irf.summarize(cube)
    assert table.loc["a", "all_score"] == pytest.approx(
        np.mean([nuggetizer_scores(recs[("a", f"q{t:02d}")])["all_score"] for t in range(20)])
    )
    res = stats.compare(cube, "c", test="t", correction=None)
    assert set(res.measure.values) == set(rag.NUGGET_MEASURES)
    renamed = human.rename(columns={"topic": "qid", "system": "run_id"})
    np.testing.assert_array_equal(
        rag.nugget_scores(renamed, columns={"topic": "qid", "system": "run_id"}).values,
        cube.values,
    )
    assert "all_score" in irf.report(cube, "c").to_markdown()
    both = rag.nugget_scores({"human": human, "llm": llm})
    assert both.dims == ("system", "topic", "measure", "qrels")
    np.testing.assert_array_equal(both.sel(qrels="human").values, cube.values)
    np.testing.assert_array_equal(both.sel(qrels="llm").values, rag.nugget_scores(llm).values)
    # the statistics broadcast over the judgment-set dim
    per_set = stats.compare(both, "c", test="t", correction=None)
    assert per_set.pvalue.dims == ("system", "other", "measure", "qrels")
    np.testing.assert_allclose(
        per_set.pvalue.sel(qrels="human").values, res.pvalue.values, rtol=1e-12, equal_nan=True
    )


def test_read_nuggets(tmp_path):
    recs = [
        {
            "qid": "q1",
            "run_id": "runA",
            "answer_text": "x",
            "nuggets": [
                {"text": "a", "importance": "vital", "assignment": "support"},
                {"text": "b", "importance": "okay", "assignment": "partial_support"},
            ],
        },
        {"qid": 2, "run_id": "runA", "nuggets": []},
        {
            "qid": "q1",
            "run_id": "runB",
            "nuggets": [{"text": "a", "importance": "okay", "assignment": "not_support"}],
        },
    ]
    path = tmp_path / "assign.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n\n")
    df = rag.read_nuggets(path)
    assert df.shape == (4, 6) and df.system.tolist() == ["runA", "runA", "runA", "runB"]
    cube = rag.nugget_scores(df)
    for r in recs:
        want = nuggetizer_scores(r["nuggets"])
        got = cube.sel(system=r["run_id"], topic=str(r["qid"]))
        assert got.values.tolist() == [want[m] for m in rag.NUGGET_MEASURES]
    gz = tmp_path / "assign.jsonl.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write(path.read_text())
    pd.testing.assert_frame_equal(rag.read_nuggets(gz), df)
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({k: v for k, v in recs[0].items() if k != "run_id"}))
    assert rag.read_nuggets(one, system="mine").system.unique().tolist() == ["mine"]


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("{not json", r"line 2: not a JSON object"),
        ('{"run_id": "r", "nuggets": []}', r"line 2: field 'qid' is missing"),
        ('{"qid": "q", "run_id": "r", "nuggets": {}}', r"line 2: field 'nuggets' is a dict"),
        (
            '{"qid": "q", "run_id": "r", "nuggets": [{"importance": "vital", "assignment": "yes"}]}',
            r"line 2: field nuggets\[0\]\.assignment is 'yes'",
        ),
        ('{"qid": "q", "nuggets": []}', r"line 2: no 'run_id'.*pass system="),
        ('{"qid": "q0", "run_id": "r", "nuggets": []}', r"line 2: a second answer.*line 1"),
    ],
)
def test_read_nuggets_errors(tmp_path, line, match):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"qid": "q0", "run_id": "r", "nuggets": []}\n' + line + "\n")
    with pytest.raises(ParseError, match=match) as info:
        rag.read_nuggets(path)
    assert str(path) in str(info.value) and info.value.lineno == 2


def test_read_support(tmp_path):
    recs = [
        {
            "topic_id": "t1",
            "run_id": "r",
            "answer": [
                {
                    "text": "s0",
                    "citations": ["d1", "d2"],
                    "support": ["full_support", "no_support"],
                },
                {"text": "s1", "citations": [], "support": []},
                {"text": "s2", "citations": ["d3"], "support": ["partial_support"]},
            ],
        },
        {"topic_id": "t2", "run_id": "r", "answer": []},
    ]
    path = tmp_path / "support.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs))
    cube = rag.support_scores(rag.read_support(path))
    assert cube.sel(topic="t1").values.ravel().tolist() == [1.5 / 3, 1.5 / 3]
    assert cube.sel(topic="t2").values.ravel().tolist() == [0.0, 0.0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"topic_id": "t", "run_id": "r", "answer": [{"citations": ["d"], "support": []}]}'
    )
    with pytest.raises(ParseError, match=r"line 1: answer\[0\] has 1 citations but 0 support"):
        rag.read_support(bad)


def test_frame_errors():
    df = pd.DataFrame(
        {
            "system": "r",
            "topic": "t",
            "nugget": [0, 0],
            "importance": ["vital", "vital"],
            "assignment": ["support", "support"],
        }
    )
    with pytest.raises(DuplicateError, match="repeating"):
        rag.nugget_scores(df)
    with pytest.raises(InputError, match=r"'importance' has 1 value\(s\) outside.*'VITAL'"):
        rag.nugget_scores(df.assign(nugget=[0, 1], importance=["vital", "VITAL"]))
    with pytest.raises(irf.ColumnError, match=r"lacks column\(s\) \['assignment'\]"):
        rag.nugget_scores(df.drop(columns="assignment"))


def test_a_judgment_on_a_row_without_its_id_is_refused():
    """A row without a nugget (without a sentence, without a citation) stands for none;
    one that carries a judgment was left out of the scores without a word (a nugget frame
    scored 1.0 where its three nuggets give 0.5)."""
    nug = pd.DataFrame(
        {
            "system": "r1",
            "topic": "t1",
            "nugget": [0, np.nan, 2],
            "importance": ["vital", "vital", "okay"],
            "assignment": ["support", "partial_support", "support"],
        }
    )
    with pytest.raises(InputError, match=r"1 row\(s\) with no nugget but a judgment \(row 1"):
        rag.nugget_scores(nug)
    whole = rag.nugget_scores(nug.assign(nugget=[0, 1, 2])).sel(system="r1", topic="t1")
    assert whole.values.round(4).tolist() == [0.5, 0.6667, 0.75, 0.8333]  # the docs' example
    sup = pd.DataFrame(
        {
            "system": "r1",
            "topic": "t1",
            "sentence": [0, 0, 1, np.nan],
            "citation": ["d1", None, "d3", "d4"],
            "support": ["full_support", "no_support", "partial_support", "full_support"],
        }
    )
    with pytest.raises(InputError, match="no citation but a judgment"):
        rag.support_scores(sup.iloc[:3])
    with pytest.raises(InputError, match="no sentence but a judgment"):
        rag.support_scores(sup.assign(citation=["d1", "d2", "d3", "d4"]))


def test_rag_fixes_from_the_messages_work():
    """A misspelt label: the message gives the mapping to apply (it showed replace({...}),
    a set holding Ellipsis); two nugget ids equal as text (1 and '1'): the message's
    selection keeps one (drop_duplicates on the raw values kept both)."""
    import re

    nug = pd.DataFrame(
        {
            "system": "r1",
            "topic": "t1",
            "nugget": [0, 1],
            "importance": ["vital", "okay"],
            "assignment": ["partial support", "support"],
        }
    )
    with pytest.raises(InputError, match="partial support") as e:
        rag.nugget_scores(nug)
    scope = {"df": nug.copy()}
    exec(re.search(r"e\.g\. (df\[.*)$", str(e.value)).group(1), {}, scope)
    assert rag.nugget_scores(scope["df"]).values.ravel().tolist() == [0.0, 0.5, 0.5, 0.75]
    twice = pd.DataFrame(
        {
            "system": "r1",
            "topic": "t1",
            "nugget": [1, "1", 2],
            "importance": "vital",
            "assignment": ["support", "support", "not_support"],
        }
    )
    with pytest.raises(DuplicateError, match="ids compared as text") as e:
        rag.nugget_scores(twice)
    scope = {"df": twice}
    exec(re.search(r"e\.g\. (df = .*)$", str(e.value)).group(1), {}, scope)
    assert len(scope["df"]) == 2
    assert rag.nugget_scores(scope["df"]).values.ravel().tolist() == [0.5, 0.5, 0.5, 0.5]


def test_readers_refuse_a_second_answer_and_lists_for_labels(tmp_path):
    """read_support joined two answers of one (run, topic) into one (read_nuggets refuses
    it); a list where a label belongs crashed with 'unhashable type: list'."""
    p = tmp_path / "s.jsonl"
    one = {
        "topic_id": "t1",
        "run_id": "r",
        "answer": [{"text": "x", "citations": ["d1"], "support": ["full_support"]}],
    }
    two = {
        "topic_id": "t1",
        "run_id": "r",
        "answer": [{"text": "y", "citations": ["d2"], "support": ["no_support"]}],
    }
    p.write_text(json.dumps(one) + "\n" + json.dumps(two) + "\n")
    with pytest.raises(ParseError, match=r"line 2: a second answer of system 'r' for topic 't1'"):
        rag.read_support(p)
    bad = {**one, "answer": [{"text": "x", "citations": ["d1"], "support": [["full_support"]]}]}
    p.write_text(json.dumps(bad) + "\n")
    with pytest.raises(ParseError, match=r"line 1: answer\[0\]\.support has"):
        rag.read_support(p)
    q = tmp_path / "n.jsonl"
    q.write_text(
        json.dumps(
            {
                "qid": "t1",
                "run_id": "r",
                "nuggets": [{"text": "a", "importance": "vital", "assignment": ["support"]}],
            }
        )
        + "\n"
    )
    with pytest.raises(ParseError, match=r"field nuggets\[0\]\.assignment"):
        rag.read_nuggets(q)
