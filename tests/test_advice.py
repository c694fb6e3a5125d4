"""Follow the advice: every error that suggests code or a keyword is followed, as a user
would, and the call must then succeed (or fail with a *different*, more specific error).

The harness reads the suggestion out of the message itself -- ``pass qrels_columns={...}``,
``choose one with columns={...}``, ``duplicates='first'``, ``df['qid'] = df['qid'].astype(str)``,
``Did you mean 'wilcoxon'?`` -- applies it to the caller's own inputs and calls again.  Nothing
here knows which fix a case needs: a message whose advice does not work fails the test.
(Written for issue #32: the two suggestions that did not work before it -- ``df['topic']`` for
a PyTerrier frame whose column is ``qid``, and ``columns={'rel': 'label'}`` where
``qrels_columns=`` was needed -- fail this test on the code before the fix.)
"""

from __future__ import annotations

import ast
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import irframe as irf
from irframe.errors import IrframeError

_KW = re.compile(
    r"(?:pass|with|Pass)\s+(\w+)=(\{[^{}]*\}|'[^']*'|\"[^\"]*\"|True|False|None|-?\d+(?:\.\d+)?)"
)
_INSTEAD = re.compile(r"instead of (\w+)=")
_CODE = re.compile(r"(df\[(['\"])(\w+)\2\]\s*=\s*df\[\2\3\2\]\.astype\(str\))")
_DID_YOU_MEAN = re.compile(
    r"(\w+) must be one of .*?, got ('[^']*'|\"[^\"]*\")\..*?Did you mean '([^']*)'"
)
_MEASURE = re.compile(r"unknown measure '([^']*)'\. Did you mean '([^']*)'")
_BASELINE = re.compile(r"baseline '([^']*)' is not a system.*?Did you mean '([^']*)'")


def _advice(message: str) -> list:
    """Every suggestion in ``message`` as ('kw', name, value) / ('code', text) steps."""
    steps = [("kw", k, ast.literal_eval(v)) for k, v in _KW.findall(message)]
    steps += [("code", m[0]) for m in _CODE.findall(message)]
    m = _DID_YOU_MEAN.search(message)
    if m:
        steps.append(("kw", m.group(1), m.group(3)))
    m = _BASELINE.search(message)
    if m:
        steps.append(("kw", "baseline", m.group(2)))
    m = _MEASURE.search(message)
    if m:
        steps.append(("measure", m.group(1), m.group(2)))
    m = _INSTEAD.search(message)
    if m and steps:
        steps.append(("drop", m.group(1), steps[0][2]))
    return steps


def _follow(message: str, inputs: dict, kwargs: dict) -> tuple[dict, dict]:
    inputs = {k: (v.copy() if isinstance(v, pd.DataFrame) else v) for k, v in inputs.items()}
    kwargs = dict(kwargs)
    steps = _advice(message)
    assert steps, f"the message suggests nothing to apply: {message}"
    for step in steps:
        if step[0] == "kw":
            kwargs[step[1]] = step[2]
        elif step[0] == "measure":  # the name replaced in the user's measure string
            kwargs["measures"] = kwargs["measures"].replace(step[1], step[2])
        elif step[0] == "drop":  # "pass qrels_columns={...} instead of columns=": move the roles
            rest = {k: v for k, v in (kwargs.get(step[1]) or {}).items() if k not in step[2]}
            kwargs[step[1]] = rest or None
        else:  # df[...] = ...: on the frame the message is about
            target = "qrels" if message.startswith("qrels") else "run"
            env = {"df": inputs[target]}
            exec(step[1], {}, env)  # the user's own line
            inputs[target] = env["df"]
    return inputs, kwargs


# ------------------------------------------------------------------ bad inputs with advice
PT_RUN = pd.DataFrame(
    {
        "qid": [1, 1, 2],
        "docno": ["d1", "d2", "d1"],
        "score": [3.0, 2.0, 1.0],
        "rank": [0, 1, 0],
    }
)
PT_QRELS = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["d1", "d3", "d1"], "label": [1, 1, 0]})
STR_RUN = PT_RUN.assign(qid=PT_RUN.qid.astype(str))


def _merged():
    """A PyTerrier result frame merged with its qrels (pt.Experiment's intermediate form)."""
    return STR_RUN.merge(PT_QRELS, on=["qid", "docno"], how="left").fillna({"label": 0})


def _evaluate(run, qrels, measures="AP", **kw):
    return irf.evaluate(run, qrels, measures, **kw)


def _metric(run, qrels, measures="AP", **kw):
    acc = run.ir(**{k: kw.pop(k) for k in ("columns", "qrels_columns", "system") if k in kw})
    return acc.metric(measures, qrels, **kw)


def _two_systems():
    runs = pd.concat(
        [
            STR_RUN.assign(system="bm25_rm3"),
            STR_RUN.assign(system="ColBERT", score=STR_RUN.score[::-1].to_numpy()),
        ]
    )
    return irf.evaluate(runs, PT_QRELS, ["AP", "P@2"])


CASES = {
    "pyterrier int qid through .ir.metric": (_metric, {"run": PT_RUN, "qrels": PT_QRELS}, {}),
    "pyterrier int qid through evaluate": (_evaluate, {"run": PT_RUN, "qrels": PT_QRELS}, {}),
    "int qid in the qrels": (
        _evaluate,
        {"run": STR_RUN, "qrels": PT_QRELS.assign(qid=[1, 1, 2])},
        {},
    ),
    "ids mixing int and str": (
        _evaluate,
        {"run": STR_RUN.assign(qid=["1", 1, "2"]), "qrels": PT_QRELS},
        {},
    ),
    "merged frame as qrels": (_evaluate, {"run": STR_RUN, "qrels": _merged()}, {}),
    "merged frame as qrels, rel given in columns=": (
        _evaluate,
        {"run": STR_RUN, "qrels": _merged()},
        {"columns": {"rel": "label"}},
    ),
    "merged frame as qrels through the accessor": (
        _metric,
        {"run": STR_RUN, "qrels": _merged()},
        {"columns": {"rel": "label"}},
    ),
    "run with other column names": (
        _evaluate,
        {
            "run": STR_RUN.rename(columns={"docno": "docid", "score": "sim"}).drop(columns="rank"),
            "qrels": PT_QRELS,
        },
        {},
    ),
    "qrels with other column names": (
        _evaluate,
        {"run": STR_RUN, "qrels": PT_QRELS.rename(columns={"docno": "docid", "label": "grade"})},
        {},
    ),
    "two candidate topic columns": (
        _evaluate,
        {"run": STR_RUN.assign(query_id=STR_RUN.qid), "qrels": PT_QRELS},
        {},
    ),
    "duplicate run rows": (
        _evaluate,
        {"run": pd.concat([STR_RUN, STR_RUN.iloc[:1]]), "qrels": PT_QRELS},
        {},
    ),
    "duplicate qrels rows": (
        _evaluate,
        {"run": STR_RUN, "qrels": pd.concat([PT_QRELS, PT_QRELS.iloc[:1]])},
        {},
    ),
    "ir_measures diversity qrels (subtopic in iteration), repeated docs": (
        _evaluate,
        {
            "run": STR_RUN,
            "qrels": pd.DataFrame(
                {
                    "query_id": ["1", "1", "1", "2"],
                    "doc_id": ["d1", "d1", "d2", "d1"],
                    "relevance": [1, 1, 1, 1],
                    "iteration": ["1", "2", "2", "1"],
                }
            ),
        },
        {"measures": "ERR_IA@10"},
    ),
    "ir_measures diversity qrels (subtopic in iteration), no repeated doc": (
        _evaluate,
        {
            "run": STR_RUN,
            "qrels": pd.DataFrame(
                {
                    "query_id": ["1", "1", "2"],
                    "doc_id": ["d1", "d2", "d1"],
                    "relevance": [1, 1, 1],
                    "iteration": ["1", "2", "1"],
                }
            ),
        },
        {"measures": "alpha_nDCG@10"},
    ),
    "misspelt measure": (_evaluate, {"run": STR_RUN, "qrels": PT_QRELS}, {"measures": "nDGC@10"}),
    "two run files with one name": (
        lambda paths, **kw: irf.read_runs(paths, **kw),
        {"paths": None},
        {},
    ),
    "compare with an unknown test": (
        lambda cube, **kw: irf.stats.compare(cube, **kw),
        {"cube": _two_systems()},
        {"test": "wilcox"},
    ),
    "compare with an unknown correction": (
        lambda cube, **kw: irf.stats.compare(cube, **kw),
        {"cube": _two_systems()},
        {"correction": "holmes"},
    ),
    "report with a misspelt baseline": (
        lambda cube, **kw: irf.report(cube, **kw),
        {"cube": _two_systems()},
        {"baseline": "bm25_rm"},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_following_the_advice_works(case, tmp_path):
    call, inputs, kwargs = CASES[case]
    if case == "two run files with one name":  # files are made here
        for d, tag in (("a", "bm25"), ("b", "bm25_rm3")):
            (tmp_path / d).mkdir()
            (tmp_path / d / "run.txt").write_text(f"1 Q0 d1 1 2.0 {tag}\n")
        inputs = {"paths": [tmp_path / "a" / "run.txt", tmp_path / "b" / "run.txt"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(IrframeError) as first:
            call(*inputs.values(), **kwargs)
        message = str(first.value)
        fixed_inputs, fixed_kwargs = _follow(message, inputs, kwargs)
        try:
            result = call(*fixed_inputs.values(), **fixed_kwargs)
        except IrframeError as second:
            assert type(second) is not type(first.value) or str(second) != message, (
                f"following the advice of\n  {message}\nraised the same error again"
            )
            assert "unknown role" not in str(second), str(second)
            return
        except (KeyError, ValueError, TypeError) as second:  # not ours: the advice misled
            pytest.fail(f"following the advice of\n  {message}\nraised {second!r}")
    assert result is not None


def test_the_harness_finds_both_kinds_of_advice():
    """The parser itself, on messages written out (a property of the harness, not of irframe)."""
    msg = (
        "qrels frame has 3 candidate columns for the rel role: 'rel', 'label', 'score'; "
        "choose one with qrels_columns={'rel': 'label'}"
    )
    assert _advice(msg) == [("kw", "qrels_columns", {"rel": "label"})]
    code = "or convert with df['qid'] = df['qid'].astype(str) if the numbers really are the ids."
    assert _advice(code) == [("code", "df['qid'] = df['qid'].astype(str)")]


def test_every_input_error_is_an_irframe_error():
    """The plain ValueErrors of issue #32, now IrframeErrors that keep their built-in bases."""
    cube = _two_systems()
    for call in (
        lambda: irf.report(cube, baseline="nope"),
        lambda: irf.stats.compare(cube, test="ttest2"),
        lambda: irf.stats.compare(cube, correction="holm-bonf"),
        lambda: irf.evaluate(STR_RUN, PT_QRELS, "ERR_IA@10"),
        lambda: irf.evaluate(STR_RUN, PT_QRELS, "AP", columns={"rel": "label"}),
    ):
        with pytest.raises(IrframeError) as e:
            call()
        assert isinstance(e.value, (ValueError, KeyError)), type(e.value).__mro__
    # common spellings of the same thing are accepted where unambiguous
    res = irf.stats.compare(cube, test="t-test", correction="holm-bonferroni")
    assert (res.attrs["test"], res.attrs["correction"]) == ("t", "holm")
    assert np.isfinite(res.pvalue.values).any()
