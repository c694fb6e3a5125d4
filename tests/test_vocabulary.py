"""One vocabulary across the public API (docs/internals.md, irframe.options).

Every public function of every public module is enumerated; a parameter that names one of
the shared concepts must use the shared name (never a synonym such as ``cutoff=`` or
``seed=``) and, for the evaluation options, the shared default.  The few justified
differences are listed in ``EXCEPTIONS`` with the reason (also stated in docs/internals.md).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from public_api import public_functions

from irframe.options import MISSING, OPTIONS

#: a synonym seen in a signature -> the one name irframe uses
SYNONYMS = {
    "cutoff": "k",
    "at": "k",
    "topk": "k",
    "threshold": "rel_level",
    "rel_threshold": "rel_level",
    "relevance_level": "rel_level",
    "max_depth": "depth",
    "truncate": "depth",
    "seed": "rng",
    "random_state": "rng",
    "random_seed": "rng",
    "nan_policy": "missing",
    "na": "missing",
    "qrels_columns_": "qrels_columns",
}

#: the shared default of each evaluation option
DEFAULTS = {name: o.default for name, o in OPTIONS.items()}
DEFAULTS.update({"missing": "skip", "rng": None})

#: (function, parameter) -> why it differs
EXCEPTIONS = {
    ("irframe.cwl.cwl", "depth"): "C/W/L pads every ranking to depth (cwl_eval --max_depth 1000)",
    (
        "irframe.cwl.cwla_grid",
        "depth",
    ): "C/W/L pads every ranking to depth (cwl_eval --max_depth 1000)",
    ("irframe.accessor.IrAccessor.cwl", "depth"): "as irframe.cwl.cwl (its accessor form)",
    ("irframe.accessor.IrAccessor.cwla_grid", "depth"): "as irframe.cwl.cwla_grid",
    ("irframe.measures.cwl.degeneracy", "depth"): "C/W/L probing depth",
    ("irframe.datasets.synthetic", "depth"): "length of the generated rankings",
    (
        "irframe.reproducibility.reproducibility",
        "depth",
    ): "rankings compared to rank 1000, as repro_eval (RUN_LENGTH, RBO_DEPTH)",
    (
        "irframe.reproducibility.ktu_rbo",
        "depth",
    ): "rankings compared to rank 1000, as repro_eval (RUN_LENGTH, RBO_DEPTH)",
    (
        "irframe.ndpm.pair_counts",
        "rel_level",
    ): "None keeps the graded user ranking (no binarisation)",
    (
        "irframe.measures.ndpm.count_pairs",
        "rel_level",
    ): "None keeps the graded user ranking",
    ("irframe.agreement.label_agreement", "rel_level"): "None compares the grades themselves",
    ("irframe.agreement.label_confusion", "rel_level"): "None compares the grades themselves",
    (
        "irframe.treceval.trec_eval_values",
        "order",
    ): "None: the order of the trec_eval version reproduced",
    (
        "irframe.treceval.trec_eval_runs",
        "order",
    ): "None: the order of the trec_eval version reproduced",
    (
        "irframe.io.read_runs",
        "system",
    ): "a naming rule for many files ('file' = from the file name)",
    (
        "irframe.dask.read_runs",
        "system",
    ): "a naming rule for many files ('file' = from the file name)",
}

FUNCTIONS = public_functions()


def test_enough_functions_are_checked():
    assert len(FUNCTIONS) > 100
    assert "irframe.evaluate.evaluate" in FUNCTIONS and "irframe.cwl.cwl" in FUNCTIONS


def test_no_synonyms_for_shared_concepts():
    bad = [
        f"{q}({p}=) -> use {SYNONYMS[p]}="
        for q, f in FUNCTIONS.items()
        for p in inspect.signature(f).parameters
        if p in SYNONYMS
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("concept", sorted(DEFAULTS))
def test_one_default_per_option(concept):
    want = DEFAULTS[concept]
    bad = []
    for q, f in FUNCTIONS.items():
        p = inspect.signature(f).parameters.get(concept)
        if p is None or p.default is inspect.Parameter.empty or (q, concept) in EXCEPTIONS:
            continue
        if p.default != want:
            bad.append(f"{q}: {concept}={p.default!r} (the shared default is {want!r})")
    assert not bad, "\n".join(bad)


def test_missing_values_have_one_meaning():
    assert set(MISSING) == {"skip", "common", "zero", "error"}
    for q, f in FUNCTIONS.items():
        doc = inspect.getdoc(f) or ""
        assert 'missing : {"common", "zero", "error"}' not in doc, q


def test_exceptions_are_real():
    for (q, p), why in EXCEPTIONS.items():
        if q.startswith("irframe.dask.") and q not in FUNCTIONS:
            continue
        assert q in FUNCTIONS, q
        default = inspect.signature(FUNCTIONS[q]).parameters[p].default
        assert default != DEFAULTS[p], (
            f"{q}({p}=) no longer differs: remove it from EXCEPTIONS ({why})"
        )


def test_rng_accepts_what_default_rng_takes():
    """``rng=``: a Generator is used as is; every seed numpy's ``default_rng`` takes gives the
    draws ``default_rng`` gives (outside reference: numpy); anything else is a TypeError."""
    from irframe.options import make_rng

    g = np.random.default_rng(1)
    assert make_rng(g) is g
    for seed in (7, [1, 2], np.random.SeedSequence(5), None):
        if seed is None:
            assert isinstance(make_rng(seed), np.random.Generator)
            continue
        assert (
            make_rng(seed).integers(10**9, size=3).tolist()
            == np.random.default_rng(seed).integers(10**9, size=3).tolist()
        )
    for bad in (0.5, "x", object()):
        with pytest.raises(TypeError, match="rng must be"):
            make_rng(bad)


RUN_NAMES = ("runs", "run", "ddf", "my_run", "pool_runs")
QRELS_NAMES = ("qrels",)


def test_runs_come_before_qrels():
    """``(runs, qrels)`` everywhere: in every public signature taking both positionally, the run
    frame comes first (functions of the qrels alone, such as ``degrade_qrels``, may take
    ``runs=`` as a keyword)."""
    checked, bad = 0, []
    for q, f in FUNCTIONS.items():
        names = [
            n
            for n, p in inspect.signature(f).parameters.items()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        runs = [i for i, n in enumerate(names) if n in RUN_NAMES]
        qrels = [i for i, n in enumerate(names) if n in QRELS_NAMES]
        if runs and qrels:
            checked += 1
            if min(runs) > min(qrels):
                bad.append(f"{q}{inspect.signature(f)}")
    assert checked >= 20, checked
    assert not bad, "qrels before runs:\n" + "\n".join(bad)
