"""One test per kind of bad input: the error type and a message naming the culprit.

The table in docs/bad_input.md lists the same kinds; each row is backed by a test here.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import irframe as irf
from irframe.errors import MeasureParamError, OptionError
from irframe.measures import parse_measure
from irframe.params import MAX_INT, Param


@pytest.fixture(scope="module")
def sample():
    qrels, runs = irf.datasets.trec_eval_sample()
    return runs, qrels


# ----------------------------------------------------------------- measure parameters
@pytest.mark.parametrize("text, param, allowed", [
    ("RBP(p=1.5)", "p", r"\[0, 1\)"),
    ("RBP(p=-0.1)", "p", r"\[0, 1\)"),
    ("P(rel=1e400)@10", "rel", "finite"),
    ("P(rel=nan)@10", "rel", "finite"),
    ("P(rel=-inf)@10", "rel", "finite"),
    ("Rprec(mult=1e300)", "mult", r"\(0, 1000\]"),
    ("Rprec(mult=0)", "mult", r"\(0, 1000\]"),
    ("RBP(p=True)", "p", r"\[0, 1\)"),
    ("TSE(n=true)", "n", "integer"),
    ("TSE(n=2.5)", "n", "integer"),
    ("TSE(n=0)", "n", "integer"),
    ("TSE(n=" + "9" * 5000 + ")", "n", "integer"),
    ("P(rel=" + "1" * 5000 + ")@10", "rel", "finite"),
    ("alpha_nDCG(alpha=2)@20", "alpha", r"\[0, 1\]"),
    ("alpha_nDCG(graded=2)@20", "graded", "true or false"),
    ("CWL(C=AP,out=XX)", "out", "one of EU"),
    ("TSE(n=10,e=foo)", "e", "one of AP"),
    ("IPrec(recall=1.5)", "recall", r"\[0, 1\]"),
    ("P_rare_norm(alpha=2)@10", "alpha", r"\[0, 1\]"),
    ("ERR(gmax=0)@10", "gmax", "> 0"),
])
def test_measure_parameter_out_of_range(text, param, allowed):
    with pytest.raises(MeasureParamError, match=rf"parameter {param} must be .*{allowed}") as e:
        parse_measure(text)
    assert len(str(e.value)) < 400  # a 5000-digit value is shortened, not echoed


@pytest.mark.parametrize("text", ["P@10000000000000000000", "P@0", "P@-3", "P@1.5", "P@1e3",
                                  "P@\u0663", "nDCG@" + "9" * 5000, f"P@{MAX_INT + 1}"])
def test_cutoff_out_of_range(text):
    with pytest.raises(MeasureParamError, match=r"cutoff k must be an integer in \[1, 2\*\*53\]"):
        parse_measure(text)


def test_cutoff_at_the_bound_is_accepted():
    assert parse_measure(f"P@{MAX_INT}").cutoff == MAX_INT


def test_duplicate_parameter():
    with pytest.raises(MeasureParamError, match="'rel' given twice"):
        parse_measure("P(rel=1,rel=2)@10")


def test_nested_c_function_parameter_is_checked():
    with pytest.raises(MeasureParamError, match="CWLA parameter C: .*p"):
        parse_measure("CWLA(C=RBP(p=1.5))")


@pytest.mark.parametrize("measures", [10, 1.5, None, b"AP", {"AP": 1}])
def test_measures_of_wrong_type(sample, measures):
    runs, qrels = sample
    with pytest.raises(TypeError, match="measure"):
        runs.ir.metric(measures, qrels=qrels)


# ----------------------------------------------------------------- numeric options
@pytest.mark.parametrize("kw, name", [
    (dict(depth=True), "depth"), (dict(depth=0), "depth"), (dict(depth=2.5), "depth"),
    (dict(depth=10 ** 30), "depth"), (dict(rel_level=True), "rel_level"),
    (dict(rel_level=math.nan), "rel_level"), (dict(rel_level=math.inf), "rel_level"),
    (dict(gains={2: math.nan}), r"gains\[2\]"), (dict(gains={2: math.inf}), r"gains\[2\]"),
    (dict(gains={True: 1}), "gains key"), (dict(gains=[1, 2]), "gains"),
])
def test_evaluate_numeric_options(sample, kw, name):
    runs, qrels = sample
    with pytest.raises(OptionError, match=rf"^{name}"):
        irf.evaluate(runs, qrels, "nDCG@10", **kw)


@pytest.mark.parametrize("kw, name", [
    (dict(costs=-1.0), "costs"), (dict(costs={"E": -1.0}), r"costs\['E'\]"),
    (dict(costs={"E": math.nan}), r"costs\['E'\]"), (dict(min_cost=-1.0), "min_cost"),
    (dict(max_cost=math.inf), "max_cost"), (dict(depth=True), "depth"), (dict(max_gain=math.nan), "max_gain"),
    (dict(min_cost=2.0, max_cost=1.0), "need min_gain"), (dict(gains={1: math.nan}), r"gains\[1\]"),
])
def test_cwl_numeric_options(sample, kw, name):
    runs, qrels = sample
    with pytest.raises(OptionError, match=rf"^{name}"):
        irf.cwl.cwl(runs.assign(element_type="E"), qrels, "RBP@0.8", **kw)


def test_option_error_is_value_and_type_error():
    assert issubclass(OptionError, ValueError) and issubclass(OptionError, TypeError)
    assert issubclass(MeasureParamError, OptionError)


def test_param_spec_rules():
    p = Param("int", None, low=1)
    assert p.check("k", 10.0) == 10 and p.check("k", np.int64(3)) == 3 and p.check("k", None) is None
    for bad in (True, 0, 2.5, math.nan, math.inf, "3", 10 ** 5000, MAX_INT + 1):
        with pytest.raises(OptionError, match="^k must be an integer"):
            p.check("k", bad)
    f = Param("float", 0.5, low=0, high=1, low_open=True)
    assert f.check("x", 1) == 1 and f.check("x", np.float32(0.25)) == 0.25
    for bad in (0, 1.0001, False, math.nan, -math.inf, "0.5", None):
        with pytest.raises(OptionError, match=r"^x must be a number in \(0, 1\]"):
            f.check("x", bad)
