"""The option table (``irframe.options.OPTIONS``) is the one place an option is declared: every
public entry point that takes an option group shows its options in its signature and its
docstring, checks them with the table's check (and its message), and an option added to the
table reaches the kernels through ``evaluate`` and the accessor with no other change."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest
from public_api import public_functions

import irframe as irf
from irframe.errors import OptionError
from irframe.measures import registry
from irframe.options import OPTIONS, Option
from irframe.params import Param

options_mod = importlib.import_module("irframe.options")
DECORATED = {q: f for q, f in public_functions().items() if hasattr(f, "option_specs")}


def test_the_entry_points_are_decorated():
    for q in (
        "irframe.evaluate.evaluate",
        "irframe.accessor.IrAccessor.metric",
        "irframe.accessor.IrAccessor.summary",
        "irframe.cwl.cwl",
        "irframe.lexi.lexirecall",
        "irframe.rarity.rarity",
        "irframe.align.align",
        "irframe.ndpm.pair_counts",
    ):
        assert q in DECORATED, q


@pytest.mark.parametrize("q", sorted(DECORATED))
def test_signature_and_docs_list_the_options_of_the_table(q):
    f = DECORATED[q]
    specs = f.option_specs()
    params = inspect.signature(f).parameters
    doc = inspect.getdoc(f) or ""
    for name, spec in specs.items():
        p = params[name]
        assert (p.kind is p.KEYWORD_ONLY and p.default is spec.default) or p.default == spec.default
        if "Parameters\n----------" in doc:
            assert f"\n{name} : {spec.type}\n" in doc, (q, name)
    assert "opts" not in params  # the internal Options never shows


def test_bad_options_keep_their_messages():
    qrels, runs = irf.datasets.trec_eval_sample()
    with pytest.raises(OptionError, match=r"order='Expected' .*did you mean 'expected'"):
        irf.evaluate(runs, qrels, "AP", order="Expected")
    with pytest.raises(OptionError, match=r"order='expected' is not one of"):
        irf.lexi.lexirecall(runs, qrels, order="expected")  # no tie orders there
    with pytest.raises(OptionError, match=r"depth must be an integer in \[1, 2\*\*53\], got None"):
        irf.cwl.cwl(runs, qrels, "RBP@0.8", depth=None)
    with pytest.raises(OptionError, match="complete must be True or False"):
        runs.ir.metric("AP", qrels, complete="no")
    with pytest.raises(TypeError, match=r"unexpected option\(s\) \['colour'\]"):
        irf.rarity.rarity(runs, qrels, colour="red")
    with pytest.raises(OptionError, match="columns= must map roles to your column names"):
        runs.ir(columns=["doc"])


def test_a_list_of_columns_gets_advice_that_works():
    """``columns=["qid"]`` (a list) is refused with an example mapping; the mapping the
    message shows, applied to the user's own column names, evaluates."""
    qrels, runs = irf.datasets.trec_eval_sample()
    mine = runs.rename(columns={"topic": "qid", "doc": "docno"})
    for call in (
        lambda: irf.evaluate(mine, qrels, "AP", columns=["qid", "docno"]),
        lambda: mine.ir.metric("AP", qrels, columns=["qid", "docno"]),
    ):
        with pytest.raises(OptionError) as e:
            call()
        assert "columns={'topic': 'qid', 'doc': 'docno'}" in str(e.value)
    fixed = irf.evaluate(mine, qrels, "AP", columns={"topic": "qid", "doc": "docno"})
    expect = irf.evaluate(runs, qrels, "AP")
    np.testing.assert_array_equal(fixed.values, expect.values)


@pytest.fixture
def boost(monkeypatch):
    """A new evaluation option ``boost`` (a number >= 0), added to the table only, and a
    measure whose kernel returns it for every ranking."""
    spec = Param("float", 1.0, low=0)
    monkeypatch.setitem(
        OPTIONS,
        "boost",
        Option(1.0, spec.check, "float, default 1", "A test option.", "evaluation"),
    )
    monkeypatch.setitem(
        registry._REGISTRY,
        "Boost",
        registry.MeasureDef(
            "Boost", lambda ctx, m: np.full(ctx.aligned.n_groups, ctx.options["boost"])
        ),
    )


@pytest.mark.parametrize("via", ["evaluate", "accessor", "summary"])
def test_an_option_added_to_the_table_reaches_the_kernels(boost, via):
    qrels, runs = irf.datasets.trec_eval_sample()
    call = {
        "evaluate": lambda **kw: irf.evaluate(runs, qrels, "Boost", **kw),
        "accessor": lambda **kw: runs.ir.metric("Boost", qrels, **kw),
        "summary": lambda **kw: runs.ir.summary("Boost", qrels, **kw).to_numpy(),
    }[via]
    assert np.all(np.asarray(call(boost=2.5)) == 2.5)
    assert np.all(np.asarray(call()) == 1.0)  # the table's default
    with pytest.raises(OptionError, match=r"boost must be a finite number >= 0, got -1"):
        call(boost=-1)


def test_without_the_table_entry_the_keyword_is_refused():
    qrels, runs = irf.datasets.trec_eval_sample()
    with pytest.raises(TypeError, match="unexpected option"):
        irf.evaluate(runs, qrels, "AP", boost=2.5)
