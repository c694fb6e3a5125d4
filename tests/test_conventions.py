"""Frames and objects from neighbouring tools work as they are (no rename by the user).

Every shape must give the same cube as the canonical frame (``system, topic, doc,
score`` / ``topic, doc, rel``).  The ir_measures namedtuples are also evaluated by
ir_measures itself (an outside reference).  The ir_datasets ``TrecQrel`` and the
ranx/pytrec_eval dicts are built here with the same shape, no download.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from conftest import reference_module  # skips, or fails with CI=true, when absent
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe.errors import ColumnError
from irframe.schema import QRELS_ALIASES, RUN_ALIASES

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@100"]
TrecQrel = namedtuple(
    "TrecQrel", ["query_id", "doc_id", "relevance", "iteration"]
)  # ir_datasets' shape
GenericScoredDoc = namedtuple("GenericScoredDoc", ["query_id", "doc_id", "score"])


@pytest.fixture(scope="module")
def collection():
    qrels, runs = irf.datasets.synthetic(3, 6, 30, rng=7)
    return qrels, runs


def _one(runs):
    """The canonical one-system frame (system 'A')."""
    first = runs["system"].astype(str).min()
    return runs[runs["system"].astype(str) == first].assign(system="A").reset_index(drop=True)


def _same(a: xr.DataArray, b: xr.DataArray) -> None:
    xr.testing.assert_identical(a, b)


def pyterrier_run(runs):
    """qid, docid (an int Terrier id), docno, rank (0-based), score, query, name."""
    out = pd.DataFrame(
        {
            "qid": runs["topic"],
            "docid": np.arange(len(runs)),
            "docno": runs["doc"],
            "rank": runs["rank"] - 1,
            "score": runs["score"],
            "query": "text",
            "name": runs["system"],
        }
    )
    return out


def test_pyterrier_frames(collection):
    qrels, runs = collection
    ref = irf.evaluate(runs, qrels, MEASURES)
    pt_res = pyterrier_run(runs)
    pt_qrels = qrels.rename(columns={"topic": "qid", "doc": "docno", "rel": "label"})
    before = pt_res.copy()
    _same(irf.evaluate(pt_res, pt_qrels, MEASURES), ref)
    _same(pt_res.ir.metric(MEASURES, pt_qrels), ref)
    pd.testing.assert_frame_equal(pt_res, before)  # the caller's frame is untouched


def test_pyterrier_result_without_name_is_one_system(collection):
    qrels, runs = collection
    one = _one(runs)
    ref = irf.evaluate(one, qrels, MEASURES)
    res = pyterrier_run(one).drop(columns="name")
    _same(irf.evaluate(res, qrels, MEASURES, system="A"), ref)
    _same(res.ir(system="A").metric(MEASURES, qrels), ref)
    default = res.ir.metric(MEASURES, qrels)
    assert default.system.values.tolist() == [irf.schema.DEFAULT_SYSTEM]
    np.testing.assert_array_equal(default.values, ref.values)
    assert "system" not in res.columns
    with pytest.raises(ValueError, match="has one"):
        irf.evaluate(runs, qrels, "AP", system="A")


def test_ir_measures_and_ir_datasets_qrels(collection):
    qrels, runs = collection
    ref = irf.evaluate(runs, qrels, MEASURES)
    frame = qrels.rename(columns={"topic": "query_id", "doc": "doc_id", "rel": "relevance"}).assign(
        iteration="0"
    )
    _same(irf.evaluate(runs, frame, MEASURES), ref)
    tuples = [
        TrecQrel(t, d, r, "0")
        for t, d, r in zip(qrels.topic.astype(str), qrels.doc.astype(str), qrels.rel, strict=True)
    ]
    _same(irf.evaluate(runs, iter(tuples), MEASURES), ref)  # a one-shot iterator, as qrels_iter()
    _same(runs.ir.metric(MEASURES, qrels=(q for q in tuples)), ref)


def test_ranx_frames_and_dicts(collection):
    qrels, runs = collection
    one = _one(runs)
    ref = irf.evaluate(one, qrels, MEASURES)
    ranx_run = pd.DataFrame({"q_id": one.topic, "doc_id": one.doc, "score": one.score})
    ranx_qrels = pd.DataFrame({"q_id": qrels.topic, "doc_id": qrels.doc, "score": qrels.rel})
    _same(irf.evaluate(ranx_run, ranx_qrels, MEASURES, system="A"), ref)
    run_dict: dict = {}
    for t, d, s in zip(one.topic.astype(str), one.doc.astype(str), one.score, strict=True):
        run_dict.setdefault(t, {})[d] = float(s)
    qrels_dict: dict = {}
    for t, d, r in zip(qrels.topic.astype(str), qrels.doc.astype(str), qrels.rel, strict=True):
        qrels_dict.setdefault(t, {})[d] = int(r)
    _same(irf.evaluate(run_dict, qrels_dict, MEASURES, system="A"), ref)
    _same(one.ir.metric(MEASURES, qrels=qrels_dict), ref)


def test_namedtuples_against_ir_measures(collection):
    """irframe on ir_measures' own Qrel/ScoredDoc objects equals ir_measures on them."""
    ir_measures = reference_module("ir_measures")
    qrels, runs = collection
    one = _one(runs)
    q = [
        ir_measures.Qrel(t, d, int(r))
        for t, d, r in zip(qrels.topic.astype(str), qrels.doc.astype(str), qrels.rel, strict=True)
    ]
    r = [
        ir_measures.ScoredDoc(t, d, float(s))
        for t, d, s in zip(one.topic.astype(str), one.doc.astype(str), one.score, strict=True)
    ]
    cube = irf.evaluate(r, q, ["AP", "nDCG@10", "P@5"], system="A")
    _same(cube, irf.evaluate(one, qrels, ["AP", "nDCG@10", "P@5"]))
    measures = {"AP": ir_measures.AP, "nDCG@10": ir_measures.nDCG @ 10, "P@5": ir_measures.P @ 5}
    for label, m in measures.items():
        theirs = {x.query_id: x.value for x in ir_measures.iter_calc([m], q, r)}
        ours = cube.sel(system="A", measure=label).to_series()
        for topic, v in theirs.items():
            assert ours[topic] == pytest.approx(v, abs=1e-12), (label, topic)
    generic = (GenericScoredDoc(*x) for x in r)  # ir_datasets scoreddocs_iter() shape
    _same(irf.evaluate(generic, q, ["AP", "nDCG@10", "P@5"], system="A"), cube)


def test_every_entry_point_takes_the_shapes(collection):
    qrels, runs = collection
    pt_res = pyterrier_run(runs)
    pt_qrels = qrels.rename(columns={"topic": "qid", "doc": "docno", "rel": "label"})
    xr.testing.assert_identical(
        irf.cwl.cwl(pt_res, pt_qrels, ["RBP@0.8"], gains="auto"),
        irf.cwl.cwl(runs, qrels, ["RBP@0.8"], gains="auto"),
    )
    xr.testing.assert_identical(
        pt_res.ir.cwl(["RBP@0.8"], pt_qrels, gains="auto"),
        irf.cwl.cwl(runs, qrels, ["RBP@0.8"], gains="auto"),
    )
    xr.testing.assert_identical(
        irf.lexi.lexirecall(pt_res, pt_qrels), irf.lexi.lexirecall(runs, qrels)
    )
    xr.testing.assert_identical(
        pt_res.ir.lexiprecision(pt_qrels), irf.lexi.lexiprecision(runs, qrels)
    )
    pd.testing.assert_frame_equal(
        irf.rarity.rarity(pt_res, pt_qrels, k=10), irf.rarity.rarity(runs, qrels, k=10)
    )
    pd.testing.assert_frame_equal(
        pt_res.ir.summary(["AP"], pt_qrels), runs.ir.summary(["AP"], qrels)
    )
    # join keeps the caller's column names and remembers the qrels
    j = pt_res.ir.join(pt_qrels)
    assert list(j.columns) == [*list(pt_res.columns), "rel"]
    _same(j.ir.metric(MEASURES), irf.evaluate(runs, qrels, MEASURES))
    ours = [line.split() for line in pt_res.ir.to_trec().splitlines()]
    canon = [line.split() for line in runs.ir.to_trec().splitlines()]
    assert [x[:3] + x[4:] for x in ours] == [x[:3] + x[4:] for x in canon]
    assert [int(x[3]) + 1 for x in ours] == [
        int(x[3]) for x in canon
    ]  # PyTerrier's rank is 0-based


def test_dask_frames_with_other_names(collection):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")

    qrels, runs = collection
    pt_res = pyterrier_run(runs)
    pt_qrels = qrels.rename(columns={"topic": "qid", "doc": "docno", "rel": "label"})
    with dask.config.set(scheduler="synchronous"):
        _same(
            irf.evaluate(dd.from_pandas(pt_res, npartitions=2), pt_qrels, MEASURES),
            irf.evaluate(runs, qrels, MEASURES),
        )
        with pytest.raises(
            ColumnError, match=r"one system needs a system column here: df.assign\(system="
        ):
            irf.evaluate(
                dd.from_pandas(pt_res.drop(columns="name"), npartitions=2), pt_qrels, MEASURES
            )


def test_writers_take_the_shapes(collection):
    qrels, runs = collection
    pt_res = pyterrier_run(runs).assign(rank=runs["rank"])
    pt_qrels = qrels.rename(columns={"topic": "qid", "doc": "docno", "rel": "label"})
    assert irf.io.format_run(pt_res) == irf.io.format_run(runs)
    assert irf.io.format_qrels(pt_qrels) == irf.io.format_qrels(qrels)
    one = pt_res[pt_res["name"] == pt_res["name"].iloc[0]].drop(columns="name")
    assert irf.io.format_run(one, tag="bm25").split("\n")[0].endswith(" bm25")
    with pytest.raises(irf.DuplicateError, match="twice in one ranking"):  # every system, one tag
        irf.io.format_run(pt_res.drop(columns="name"), tag="bm25")


def test_columns_override_on_the_accessor(collection):
    qrels, runs = collection
    ref = irf.evaluate(runs, qrels, MEASURES)
    odd = runs.rename(columns={"system": "model", "topic": "query", "doc": "document"})
    oddq = qrels.rename(columns={"topic": "query", "doc": "document", "rel": "grade"})
    cols, qcols = (
        {"system": "model", "topic": "query", "doc": "document"},
        {"topic": "query", "doc": "document", "rel": "grade"},
    )
    _same(odd.ir(columns=cols, qrels_columns=qcols).metric(MEASURES, oddq), ref)
    _same(irf.evaluate(odd, oddq, MEASURES, columns=cols, qrels_columns=qcols), ref)
    joined = odd.ir(columns=cols, qrels_columns=qcols).join(
        oddq
    )  # the joined frame's qrels are resolved once
    _same(joined.ir(columns=cols, qrels_columns=qcols).metric(MEASURES), ref)
    with pytest.raises(
        ColumnError, match=r"missing column\(s\) 'topic' \(or 'qid', 'query_id', 'q_id'\)"
    ):
        odd.ir.metric(MEASURES, qrels)


def test_ambiguity_lists_the_candidates(collection):
    qrels, runs = collection
    both = runs.assign(qid=runs["topic"])
    with pytest.raises(
        ColumnError,
        match=r"2 candidate columns for the topic role: 'topic', 'qid'; "
        r"choose one with columns=\{'topic': 'topic'\}",
    ):
        irf.evaluate(both, qrels, "AP")
    with pytest.raises(ColumnError, match=r"'label', 'relevance'"):
        irf.evaluate(runs, qrels.assign(label=qrels.rel, relevance=qrels.rel), "AP")
    _same(
        irf.evaluate(both, qrels, "AP", columns={"topic": "qid"}), irf.evaluate(runs, qrels, "AP")
    )
    _same(both.ir(columns={"topic": "qid"}).metric("AP", qrels), irf.evaluate(runs, qrels, "AP"))


def test_bad_shapes_are_named():
    with pytest.raises(TypeError, match="iterable of namedtuples"):
        irf.evaluate([("q", "d", 1.0)], {"q": {"d": 1}}, "AP")
    with pytest.raises(TypeError, match="nested deeper"):
        irf.evaluate({"sys": {"q": {"d": {"x": 1.0}}}}, {"q": {"d": 1}}, "AP")
    # {name: {topic: {doc: score}}} is several runs (ranx's compare takes them so)
    several = irf.evaluate({"sys": {"q": {"d": 1.0}}}, {"q": {"d": 1}}, "AP")
    assert several.system.values.tolist() == ["sys"] and float(several.item()) == 1.0
    with pytest.raises(TypeError, match="maps to list"):
        irf.evaluate({"q": ["d"]}, {"q": {"d": 1}}, "AP")


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_any_alias_choice_gives_the_same_cube(data):
    """Property: renaming each role to any of its recognised names changes nothing."""
    qrels, runs = irf.datasets.synthetic(2, 3, 12, rng=data.draw(st.integers(0, 50)))
    ref = irf.evaluate(runs, qrels, ["AP", "nDCG@5"])
    rmap = {
        role: data.draw(st.sampled_from(RUN_ALIASES[role]))
        for role in ("system", "topic", "doc", "score")
    }
    qmap = {
        role: data.draw(st.sampled_from(QRELS_ALIASES[role])) for role in ("topic", "doc", "rel")
    }
    r = runs.drop(columns="rank").rename(columns=rmap)
    q = qrels.rename(columns=qmap)
    _same(irf.evaluate(r, q, ["AP", "nDCG@5"]), ref)
