"""Tests of irframe.datasets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irframe as irf
import irframe.io as iio
from irframe.datasets import synthetic, trec_eval_sample

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"


def _check_model(qrels: pd.DataFrame, runs: pd.DataFrame, doc: str = "category") -> None:
    """The data model; ``doc`` "str": a run read from a file whose docs are mostly distinct
    (irframe.io.read_runs keeps them as strings)."""
    assert runs.columns.tolist() == ["system", "topic", "doc", "rank", "score"]
    assert runs.dtypes.astype(str).tolist() == [
        "category",
        "category",
        "category" if doc == "category" else runs.doc.dtype.name,
        "int64",
        "float64",
    ]
    if doc == "str":
        assert pd.api.types.is_string_dtype(runs.doc) and runs.doc.notna().all()
    assert qrels["rel"].dtype == np.int64
    for df in (qrels, runs):
        for c in df.columns:
            if isinstance(df[c].dtype, pd.CategoricalDtype):
                cats = df[c].cat.categories
                assert cats.tolist() == sorted(cats.tolist())
                assert not pd.api.types.is_numeric_dtype(cats.dtype)
                assert (df[c].cat.codes >= 0).all()


def test_synthetic_shape_and_model():
    qrels, runs = synthetic(systems=4, topics=6, depth=30, rng=3)
    _check_model(qrels, runs)
    assert len(runs) == 4 * 6 * 30
    assert qrels.columns.tolist() == ["topic", "doc", "rel"]
    assert runs.system.cat.categories.tolist() == ["sys0", "sys1", "sys2", "sys3"]
    assert runs.topic.cat.categories.tolist() == [str(t) for t in range(401, 407)]
    assert set(qrels.rel.unique()) <= {0, 1, 2, 3} and qrels.rel.max() >= 2
    assert runs.doc.astype(str).str.fullmatch(r"D4\d\d-\d{6}").all()
    # each doc belongs to its topic
    assert (runs.doc.astype(str).str[1:4] == runs.topic.astype(str)).all()
    # rank 1..depth in descending score order, no duplicate docs in a ranking
    g = runs.groupby(["system", "topic"], observed=True)
    assert (g["rank"].apply(lambda r: r.tolist() == list(range(1, 31)))).all()
    assert (g["score"].apply(lambda s: s.is_monotonic_decreasing)).all()
    assert not runs.duplicated(["system", "topic", "doc"]).any()
    assert not qrels.duplicated(["topic", "doc"]).any()


def test_synthetic_is_seeded():
    a = synthetic(systems=3, topics=4, depth=20, rng=7)
    b = synthetic(systems=3, topics=4, depth=20, rng=7)
    c = synthetic(systems=3, topics=4, depth=20, rng=8)
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_frame_equal(a[1], b[1])
    assert not a[1]["score"].equals(c[1]["score"])


def test_synthetic_ties_and_binary():
    _, runs = synthetic(systems=5, topics=10, depth=200, rng=0, ties=0.2)
    same = runs["score"].to_numpy()[1:] == runs["score"].to_numpy()[:-1]
    within = runs["rank"].to_numpy()[1:] > 1
    assert 0.15 < same[within].mean() < 0.25
    _, no_ties = synthetic(systems=2, topics=3, depth=50, ties=0)
    assert no_ties.groupby(["system", "topic"], observed=True)["score"].nunique().min() > 45
    qrels, _ = synthetic(graded=False)
    assert set(qrels.rel.unique()) == {0, 1}


def test_synthetic_skill_orders_systems():
    import irframe

    qrels, runs = synthetic(systems=5, topics=20, depth=100, rng=1)
    ap = irframe.summarize(irframe.evaluate(runs, qrels, ["AP"]))["AP"]
    assert ap.is_monotonic_increasing and ap.iloc[-1] > ap.iloc[0] + 0.2


def test_synthetic_diversity():
    qrels, runs = synthetic(systems=2, topics=5, depth=50, diversity=True, rng=2)
    _check_model(qrels, runs)
    assert qrels.columns.tolist() == ["topic", "subtopic", "doc", "rel"]
    n_sub = qrels.groupby("topic", observed=True)["subtopic"].nunique()
    assert n_sub.between(2, 6).all()
    assert not qrels.duplicated(["topic", "subtopic", "doc"]).any()
    # every doc relevant overall is relevant to at least one subtopic, and each judged doc
    # has one row per subtopic of its topic
    per_doc = qrels.groupby(["topic", "doc"], observed=True)
    assert (per_doc.size().groupby(level=0).nunique() == 1).all()
    assert (per_doc["rel"].max() >= 0).all() and (qrels.rel > 0).any()


def test_synthetic_roundtrips_through_files(tmp_path):
    qrels, runs = synthetic(systems=2, topics=3, depth=10, rng=4)
    iio.write_run(runs, tmp_path / "r")
    iio.write_qrels(qrels, tmp_path / "q")
    back = iio.read_run(tmp_path / "r", system="tag")  # 60 rows, 60 docs: read as strings
    assert pd.api.types.is_string_dtype(back.doc) and not hasattr(back.doc, "cat")
    assert back.doc.tolist() == runs.doc.astype(str).tolist()
    pd.testing.assert_frame_equal(back.drop(columns="doc"), runs.drop(columns="doc"))
    pd.testing.assert_frame_equal(
        iio.read_qrels(tmp_path / "q"), qrels.assign(doc=qrels.doc.cat.remove_unused_categories())
    )


@pytest.mark.parametrize("bad", [{"systems": 0}, {"depth": -1}, {"ties": 1.0}])
def test_synthetic_bad_arguments(bad):
    with pytest.raises(ValueError):
        synthetic(**bad)


def test_trec_eval_sample():
    qrels, runs = trec_eval_sample()
    _check_model(qrels, runs, doc="str")
    pd.testing.assert_frame_equal(qrels, iio.read_qrels(DATA / "qrels.test"))
    pd.testing.assert_frame_equal(runs, iio.read_run(DATA / "results.test"))
    assert len(qrels) == 3681 and len(runs) == 1500


def test_trec_eval_sample_numbers():
    import irframe

    qrels, runs = trec_eval_sample()
    s = irframe.summarize(irframe.evaluate(runs, qrels, ["map", "P_10", "num_rel_ret"])).iloc[0]
    assert round(s["map"], 4) == 0.1785 and round(s["P_10"], 4) == 0.3 and s["num_rel_ret"] == 131


def test_package_data_has_licence():
    from importlib import resources

    files = {p.name for p in (resources.files("irframe") / "data").iterdir()}
    assert {"qrels.test", "results.test", "LICENSE.trec_eval.md", "SOURCE.txt"} <= files


@pytest.mark.parametrize(
    "kw", [{"systems": True}, {"systems": 0}, {"topics": 2.5}, {"ties": 1.0}, {"ties": "a"}]
)
def test_synthetic_refuses_bad_sizes_with_an_irframe_error(kw):
    with pytest.raises(irf.errors.OptionError, match=next(iter(kw))):
        irf.datasets.synthetic(**{"systems": 2, "topics": 3, "depth": 5, **kw})
