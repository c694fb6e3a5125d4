"""Lower-is-better measures (NDPM, C/W/L's costs): one declaration on the measure, read by
the axiom checker, the results table and flips.

References: NDPM computed by hand from Yao (1995)'s definition on two-document rankings;
the order of two systems by their means read off
the per-topic values in the test.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import irframe as irf
from irframe import axioms
from irframe.cube import lower_is_better_labels
from irframe.errors import IrframeWarning, UnknownMeasureError
from irframe.measures import parse_measure


def test_declared_on_the_measure_and_its_parameters():
    assert parse_measure("ndpm").lower_is_better and parse_measure("dpm").lower_is_better
    assert not parse_measure("dpm_drf").lower_is_better  # 1 best, -1 worst
    assert not parse_measure("AP").lower_is_better
    assert parse_measure("CWL(C=RBP(p=0.8),out=EC)").lower_is_better
    assert parse_measure("CWL(C=RBP(p=0.8),out=ETC)").lower_is_better
    assert not parse_measure("CWL(C=RBP(p=0.8),out=EU)").lower_is_better


def test_axiom_checker_reads_the_direction():
    # Priority (swap a relevant document above a non-relevant one): Yao's ndpm of
    # [rel, non] is 0 (no pair contradicted), of [non, rel] it is 1 (one of one) -- the
    # better ranking has the lower value, so the constraint holds for ndpm.
    qrels = pd.DataFrame({"topic": "1", "doc": ["r", "n"], "rel": [1, 0]})
    runs = pd.DataFrame(
        {
            "system": ["good"] * 2 + ["bad"] * 2,
            "topic": "1",
            "doc": ["r", "n", "n", "r"],
            "score": [2.0, 1.0, 2.0, 1.0],
        }
    )
    v = irf.evaluate(runs, qrels, "ndpm").sel(topic="1", measure="ndpm")
    assert float(v.sel(system="good")) == 0.0 and float(v.sel(system="bad")) == 1.0
    assert axioms.check("ndpm", constraints=["Pri"]).loc["Pri", "verdict"] == "satisfied"
    # the mirror measure that is higher-is-better gives the same verdict
    assert axioms.check("dpm_drf", constraints=["Pri"]).loc["Pri", "verdict"] == "satisfied"


def _two_systems():
    qrels, runs = irf.datasets.synthetic(systems=2, topics=8, depth=20, rng=3)
    return qrels, runs


def test_cube_records_and_report_bolds_the_smallest():
    qrels, runs = _two_systems()
    cube = irf.evaluate(runs, qrels, ["AP", "ndpm"])
    assert cube.attrs["lower_is_better"] == "ndpm"
    assert "lower_is_better" not in irf.evaluate(runs, qrels, ["AP"]).attrs
    means = cube.mean("topic").to_pandas()  # systems × measures
    best = means["ndpm"].idxmin()

    def ndpm_cell(report, system):
        for line in report.to_markdown().splitlines():
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 4 and cells[2] == system:
                return cells[4]
        raise AssertionError(system)

    assert ndpm_cell(irf.report(cube, digits=6), best).startswith("**")
    worst = means["ndpm"].idxmax()
    assert not ndpm_cell(irf.report(cube, digits=6), worst).startswith("**")
    # an explicit list decides alone
    assert ndpm_cell(irf.report(cube, digits=6, lower_is_better=[]), worst).startswith("**")


def test_judged_only_measures_keep_the_attribute():
    qrels, runs = _two_systems()
    cube = irf.evaluate(runs, qrels, ["ndpm", "P(judged_only=True)@5", "AP"])
    assert cube.attrs["lower_is_better"] == "ndpm"


def test_flips_follow_the_direction_and_warn_on_unknown_labels():
    qrels, runs = _two_systems()
    cube = irf.evaluate(runs, qrels, ["ndpm"], bounds=True)
    low = cube.sel(bound="low", measure="ndpm").mean("topic").to_pandas()
    ahead = low.idxmin()  # the smaller ndpm is ahead
    f = irf.flips(cube)
    assert set(f["system"]) == {ahead}
    renamed = cube.assign_coords(measure=["ndpm (graded)"])
    with pytest.warns(IrframeWarning, match="lower_is_better"):
        g = irf.flips(renamed)
    assert set(g["system"]) != {ahead}  # taken as higher-is-better, as the warning says
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = irf.flips(renamed, lower_is_better=["ndpm (graded)"])
    assert set(h["system"]) == {ahead}
    with pytest.raises(UnknownMeasureError, match="Did you mean"):
        irf.flips(renamed, lower_is_better=["ndpm (graded"])


def test_cwl_costs_are_lower_is_better():
    qrels, runs = _two_systems()
    ds = irf.cwl.cwl(runs, qrels, ["RBP(p=0.8)", "AP"], gains="auto")
    assert lower_is_better_labels(ds["EC"]) == {"RBP(p=0.8)", "AP"}
    assert lower_is_better_labels(ds["EU"]) == set()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lower = irf.report(ds["EC"], digits=6).to_markdown()
    means = ds["EC"].mean("topic").to_pandas()
    best = str(means["AP"].idxmin())
    assert any(
        line.split("|")[2].strip() == best and line.split("|")[4].strip().startswith("**")
        for line in lower.splitlines()
        if line.count("|") > 4
    )
