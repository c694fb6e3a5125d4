"""irframe.dask: topic-partitioned evaluation of Dask run frames.

References: trec_eval 9.0.8's expected outputs (tests/data/trec_eval) for the trec_eval
sample evaluated through Dask; everywhere else the in-memory ``irframe.evaluate`` on the
same pandas frame, which the trec_eval / cwl_eval / ndeval parity tests verify — the Dask
cube must be *identical* to it (values, coords, ``aggregate``, attrs), for random
collections, several partitionings, ``complete=``, ``depth=`` and ``order=``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

dd = pytest.importorskip("dask.dataframe")
import dask  # noqa: E402
from dask_ref import check_trec_eval_sample  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import irframe as irf  # noqa: E402
import irframe.dask as idk  # noqa: E402
from irframe.errors import DuplicateError, InputError  # noqa: E402
from irframe.measures import MeasureDef  # noqa: E402
from irframe.measures import registry as _registry  # noqa: E402

HERE = Path(__file__).resolve().parent

# every topic-local family, no subtopics needed
MEASURES = [
    "AP",
    "gm_map",
    "nDCG",
    "nDCG@5",
    "P@5",
    "P(rel=2)@3",
    "RR",
    "Rprec",
    "Bpref",
    "infAP",
    "R@10",
    "Success@3",
    "Judged@5",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "iprec_at_recall_0.10",
    "11pt_avg",
    "RBP(p=0.8)",
    "ERR@5",
    "CWLA(C=RBP(p=0.8),A=max)",
    "CWL(C=INST(T=2))",
    "P_rare(alpha=0.5)@5",
    "AP_rare(alpha=1)",
    "LR",
    "TSE(n=100000)",
    "ndpm",
    "dpm_p",
]
DIVERSITY = [
    "alpha_nDCG@5",
    "ERR_IA@5",
    "nERR_IA@5",
    "RBU(p=0.8,e=0.03)@5",
    "StRecall@5",
    "NRBP",
    "AP_IA",
    "P_IA@5",
    "S_RR",
]


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def assert_same(got: xr.DataArray, want: xr.DataArray) -> None:
    xr.testing.assert_identical(got, want)
    assert got.attrs == want.attrs
    assert got.dims == want.dims


# --------------------------------------------------------------------- strategies
@st.composite
def collections(draw):
    """A random multi-system collection: ties, short/missing rankings, graded/negative/
    unjudged docs, qrels topics nobody retrieved, run topics without qrels."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_sys = draw(st.integers(1, 4))
    n_top = draw(st.integers(1, 6))
    rows = []
    for s in range(n_sys):
        for t in range(n_top):
            if rng.random() < 0.25:
                continue  # this system did not retrieve for this topic
            n = int(rng.integers(1, 12))
            docs = rng.choice(15, size=n, replace=False)
            scores = np.round(rng.normal(size=n), 1)  # rounding makes ties
            rows += [
                (f"s{s}", f"t{t:02d}", f"d{d}", float(sc))
                for d, sc in zip(docs, scores, strict=True)
            ]
    if not rows:
        rows = [("s0", "t00", "d0", 1.0)]
    runs = pd.DataFrame(rows, columns=["system", "topic", "doc", "score"])
    runs["rank"] = runs.groupby(["system", "topic"]).cumcount() + 1
    q = []
    for t in range(n_top + 2):  # two judged topics are in no run
        if t < n_top and rng.random() < 0.15:
            continue  # a retrieved topic without judgments
        for d in rng.choice(15, size=int(rng.integers(1, 10)), replace=False):
            q.append((f"t{t:02d}", f"d{d}", int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))))
    if not q:
        q = [("t00", "d0", 1)]
    qrels = pd.DataFrame(q, columns=["topic", "doc", "rel"])
    return runs, qrels


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    collections(),
    st.sampled_from([1, 2, 3, 5]),
    st.booleans(),
    st.sampled_from([None, 4]),
    st.sampled_from(["trec_eval", "input", "rank"]),
)
def test_random_collections_equal_in_memory(coll, nparts, complete, depth, order):
    runs, qrels = coll
    if not set(runs.topic) & set(qrels.topic):  # no judged topic: both refuse, as trec_eval does
        with pytest.raises(irf.EmptyOverlapError):
            irf.evaluate(runs, qrels, MEASURES, complete=complete, depth=depth, order=order)
        with pytest.raises(irf.EmptyOverlapError):
            irf.evaluate(
                dd.from_pandas(runs, npartitions=nparts),
                qrels,
                MEASURES,
                complete=complete,
                depth=depth,
                order=order,
            )
        return
    want = irf.evaluate(runs, qrels, MEASURES, complete=complete, depth=depth, order=order)
    got = irf.evaluate(
        dd.from_pandas(runs, npartitions=nparts),
        qrels,
        MEASURES,
        complete=complete,
        depth=depth,
        order=order,
    )
    assert_same(got, want)


@pytest.mark.parametrize("nparts", [1, 3, 7])
@pytest.mark.parametrize("complete,depth", [(False, None), (True, None), (False, 8), (True, 8)])
def test_synthetic_diversity_equal_in_memory(nparts, complete, depth):
    qrels, runs = irf.datasets.synthetic(4, 9, 25, diversity=True, rng=3)
    # holes: a system missing two topics, a topic nobody retrieved (only in qrels)
    runs = runs[
        ~((runs.system == "sys1") & runs.topic.isin(["402", "405"])) & (runs.topic != "407")
    ]
    ms = MEASURES + DIVERSITY
    want = irf.evaluate(runs, qrels, ms, complete=complete, depth=depth)
    got = irf.evaluate(
        dd.from_pandas(runs, npartitions=nparts), qrels, ms, complete=complete, depth=depth
    )
    assert_same(got, want)
    assert ("407" in got.topic.values) == complete


def test_options_pass_through():
    qrels, runs = irf.datasets.synthetic(3, 5, 20, rng=5)
    ref = runs[runs.system != "sys0"]
    opts = {
        "rel_level": 2,
        "judged_only": True,
        "gains": {1: 1, 2: 3, 3: 7},
        "reference": ref,
        "order": "trec_eval10",
    }
    ms = ["AP", "nDCG@10", "P_rare(alpha=0.5)@10", "RBP(p=0.5)"]
    want = irf.evaluate(runs, qrels, ms, **opts)
    got = irf.evaluate(dd.from_pandas(runs, npartitions=3), qrels, ms, **opts)
    assert_same(got, want)


def test_trec_eval_sample_matches_trec_eval_via_dask():
    """trec_eval 9.0.8's expected per-topic and summary values, through Dask (3 topics, 3 partitions)."""
    check_trec_eval_sample("synchronous")


# --------------------------------------------------------------------- partitioning
def test_each_partition_holds_whole_topics(monkeypatch):
    """After the shuffle, every topic's rows reach the partition function in one call, all of them."""
    qrels, runs = irf.datasets.synthetic(3, 12, 15, rng=1)
    seen = []
    real = idk._evaluate_partition

    def spy(part, *args, **kwargs):
        seen.append(part["topic"].astype(str).value_counts().to_dict())
        return real(part, *args, **kwargs)

    monkeypatch.setattr(idk, "_evaluate_partition", spy)
    got = irf.evaluate(dd.from_pandas(runs, npartitions=5), qrels, ["AP"])
    calls = [c for c in seen if c]
    assert len(calls) > 1
    topics = [t for c in calls for t in c]
    assert len(topics) == len(set(topics)) == 12  # no topic in two calls
    counts = {t: n for c in calls for t, n in c.items()}
    assert (
        counts == runs.topic.astype(str).value_counts().to_dict()
    )  # each call had all of its topics' rows
    assert_same(got, irf.evaluate(runs, qrels, ["AP"]))


def test_partitioned_by_topic_skips_shuffle_and_checks(monkeypatch):
    qrels, runs = irf.datasets.synthetic(3, 6, 10, rng=2)
    by_topic = [runs[runs.topic == t] for t in runs.topic.cat.categories]
    ddf = dd.from_delayed([dask.delayed(f) for f in by_topic], meta=runs.iloc[:0])
    called = []
    monkeypatch.setattr(dd.DataFrame, "shuffle", lambda *a, **k: called.append(1))
    got = irf.evaluate(ddf, qrels, ["AP", "nDCG@5"], partitioned_by="topic", complete=True)
    assert not called
    assert_same(got, irf.evaluate(runs, qrels, ["AP", "nDCG@5"], complete=True))
    # a frame that is not split by topic, declared as such: an error naming the split topics
    wrong = dd.from_pandas(runs, npartitions=3)
    with pytest.raises(idk.NotPartitionedError, match="more than one partition"):
        irf.evaluate(wrong, qrels, ["AP"], partitioned_by="topic")


@pytest.mark.parametrize("complete", [False, True])
def test_partitioned_by_system(complete):
    """One partition per system (as read_runs gives): no shuffle, same cube, and the C/W/L gains
    that depend on the largest judged grade of all evaluated topics still match."""
    qrels, runs = irf.datasets.synthetic(4, 7, 20, rng=8)
    runs = runs[
        ~((runs.system == "sys1") & runs.topic.isin(["401", "404"])) & (runs.topic != "403")
    ]
    runs = runs[~((runs.system == "sys3") & (runs.topic == "402"))]
    by_sys = [runs[runs.system == s] for s in ["sys2", "sys0", "sys3", "sys1"]]
    ddf = dd.from_delayed([dask.delayed(f) for f in by_sys], meta=runs.iloc[:0])
    ms = [
        "AP",
        "gm_map",
        "nDCG@10",
        "RBP(p=0.8)",
        "CWLA(C=INST(T=2),A=fin)",
        "TSE(n=10000)",
        "ndpm",
    ]
    got = irf.evaluate(ddf, qrels, ms, partitioned_by="system", complete=complete, depth=9)
    assert_same(got, irf.evaluate(runs, qrels, ms, complete=complete, depth=9))
    with pytest.raises(idk.UnsupportedMeasureError, match="other systems"):
        irf.evaluate(ddf, qrels, ["AP", "LR"], partitioned_by="system")
    with pytest.raises(idk.NotPartitionedError, match="system"):
        irf.evaluate(
            dd.from_pandas(runs.sort_values("topic"), npartitions=3),
            qrels,
            "AP",
            partitioned_by="system",
        )


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize(
    "name", ["zz", "a0", ""]
)  # the unjudged system sorted last / first / empty
def test_partitioned_by_system_with_a_run_of_unjudged_topics(complete, name):
    """Regression (complete=True raised EmptyOverlapError): a run file none of whose topics is
    judged gives, as in memory, a NaN row, or with complete=True the empty rankings' values for
    every qrels topic."""
    qrels, runs = irf.datasets.synthetic(3, 4, 6, rng=1)
    runs = runs.astype(dict.fromkeys(("system", "topic", "doc"), str))
    qrels = qrels.astype(dict.fromkeys(("topic", "doc"), str))
    runs = pd.concat(
        [runs, runs[runs.system == "sys0"].assign(system=name, topic="unjudged")], ignore_index=True
    )
    ddf = dd.from_delayed(
        [dask.delayed(runs[runs.system == s]) for s in sorted(set(runs.system))], meta=runs.iloc[:0]
    )
    ms = ["AP", "P@5", "num_rel", "RBP(p=0.8)"]
    got = irf.evaluate(ddf, qrels, ms, partitioned_by="system", complete=complete)
    assert_same(got, irf.evaluate(runs, qrels, ms, complete=complete))


def _split(runs: pd.DataFrame, col: str, groups: list[list[str]]) -> dd.DataFrame:
    """A Dask frame with the rows of each group of ``col`` values in one partition."""
    return dd.from_delayed(
        [dask.delayed(runs[runs[col].isin(g)]) for g in groups], meta=runs.iloc[:0]
    )


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("how", ["topic", "system", None])
def test_partitions_use_the_whole_qrels_grades(how, complete):
    """Facts of the whole qrels frame reach every partition: the first partition's topics are
    judged with grade 1 at most, the others up to 3; ``bounds=True`` gives unjudged documents the
    largest grade of the *whole* qrels (3) in the high bound, C/W/L ``gains="auto"`` divides by it."""
    qrels, runs = irf.datasets.synthetic(3, 6, 30, rng=2)
    runs = runs.astype(dict.fromkeys(("system", "topic", "doc"), str))
    qrels = qrels.astype(dict.fromkeys(("topic", "doc"), str))
    topics = sorted(qrels.topic.unique())
    qrels.loc[qrels.topic.isin(topics[:3]), "rel"] = qrels.rel.clip(upper=1)
    assert qrels.rel.max() == 3
    if how == "system":
        ddf = _split(runs, "system", [[s] for s in sorted(runs.system.unique())])
    else:
        ddf = _split(runs, "topic", [topics[:3], topics[3:]])
    ms = ["AP", "P@5", "nDCG@10", "RBP(p=0.8)"]
    want = irf.evaluate(runs, qrels, ms, bounds=True, complete=complete)
    assert want.attrs["unjudged_grade"] == 3
    assert_same(
        irf.evaluate(ddf, qrels, ms, bounds=True, complete=complete, partitioned_by=how), want
    )
    ms = ["CWL(C=INST(T=2))", "nDCG(dcg='exp-log2')@10"]
    got = irf.evaluate(ddf, qrels, ms, complete=complete, partitioned_by=how)
    assert_same(got, irf.evaluate(runs, qrels, ms, complete=complete))


@pytest.mark.parametrize("complete", [False, True])
def test_partitions_get_only_their_own_rows(monkeypatch, complete):
    """What each partition evaluates is exactly its rows and its topics' qrels rows (plus, in one
    partition with ``complete=True``, the judged topics nobody retrieved): no made-up rows; the
    systems and grades of the whole come as :class:`irframe.evaluate.Whole`."""
    qrels, runs = irf.datasets.synthetic(3, 8, 12, rng=5)
    runs = runs.astype(dict.fromkeys(("system", "topic", "doc"), str))
    qrels = qrels.astype(dict.fromkeys(("topic", "doc"), str))
    runs = runs[(runs.topic != "405") & ~((runs.system == "sys1") & (runs.topic == "402"))]
    calls = []
    real = idk.evaluate_part

    def spy(part, q, measures, whole, options):
        calls.append((part.copy(), q.copy(), whole))
        return real(part, q, measures, whole, options)

    monkeypatch.setattr(idk, "evaluate_part", spy)
    topics = sorted(runs.topic.unique())
    got = irf.evaluate(
        _split(runs, "topic", [topics[:4], topics[4:]]),
        qrels,
        ["AP", "LR", "P_rare(alpha=1)@5"],
        partitioned_by="topic",
        complete=complete,
    )
    assert_same(
        got, irf.evaluate(runs, qrels, ["AP", "LR", "P_rare(alpha=1)@5"], complete=complete)
    )
    parts = calls  # (the client's one-row probe is the in-memory irframe.evaluate)
    assert len(parts) == 2
    key = ["system", "topic", "doc"]
    rows = pd.concat([p for p, _, _ in parts]).sort_values(key).reset_index(drop=True)
    want = runs.sort_values(key).reset_index(drop=True)[rows.columns]
    # (Dask under pandas 2 stores strings in arrow, dataframe.convert-string: values compared)
    pd.testing.assert_frame_equal(rows, want.astype(rows.dtypes.to_dict()))
    judged = sorted(sorted(q.topic.unique()) for _, q, _ in parts)
    extra = (
        ["405"] if complete else []
    )  # judged, retrieved by nobody: evaluated where the first judged run topic is
    assert judged == [topics[:4] + extra, topics[4:]]
    for _, _, whole in parts:
        assert whole.systems.tolist() == ["sys0", "sys1", "sys2"]
        assert whole.grades.tolist() == sorted(qrels.rel.unique().astype(float).tolist())


def test_unretrieved_judged_topics_when_the_first_run_topic_is_unjudged():
    """complete=True: judged topics nobody retrieved are evaluated in a partition that overlaps the
    qrels, even when the smallest run topic has no judgments (found by hypothesis)."""
    runs = pd.DataFrame(
        {
            "system": ["s0", "s0", "s1"],
            "topic": ["t00", "t03", "t03"],
            "doc": ["a", "b", "a"],
            "score": [1.0, 2.0, 1.0],
        }
    )
    qrels = pd.DataFrame({"topic": ["t03", "t05", "t06"], "doc": ["a", "a", "b"], "rel": [1, 1, 0]})
    want = irf.evaluate(runs, qrels, ["AP", "NumRel", "LR"], complete=True)
    for ddf, how in [
        (_split(runs, "topic", [["t00"], ["t03"]]), "topic"),
        (dd.from_pandas(runs, npartitions=3), None),
    ]:
        assert_same(
            irf.evaluate(ddf, qrels, ["AP", "NumRel", "LR"], complete=True, partitioned_by=how),
            want,
        )


def test_custom_column_names_and_shuffle_method():
    qrels, runs = irf.datasets.synthetic(3, 5, 10, rng=11)
    r = runs.rename(columns={"topic": "qid", "doc": "docno"})
    q = qrels.rename(columns={"topic": "qid", "doc": "docno", "rel": "grade"})
    opts = {
        "columns": {"topic": "qid", "doc": "docno"},
        "qrels_columns": {"topic": "qid", "doc": "docno", "rel": "grade"},
    }
    want = irf.evaluate(r, q, ["AP", "RBP(p=0.8)"], complete=True, **opts)
    got = irf.evaluate(
        dd.from_pandas(r, npartitions=3),
        q,
        ["AP", "RBP(p=0.8)"],
        complete=True,
        shuffle_method="tasks",
        **opts,
    )
    assert_same(got, want)


def test_topic_index_with_divisions_is_used_as_is():
    qrels, runs = irf.datasets.synthetic(3, 6, 10, rng=4)
    plain = runs.assign(topic=runs.topic.astype(str))
    ddf = dd.from_pandas(plain, npartitions=3).set_index("topic")
    assert ddf.known_divisions
    got = irf.evaluate(ddf, qrels, ["AP", "P@5"])
    assert_same(got, irf.evaluate(runs, qrels, ["AP", "P@5"]))


def test_input_order_and_duplicates_first_survive_the_shuffle():
    qrels, runs = irf.datasets.synthetic(3, 6, 12, rng=6)
    runs = runs.sample(frac=1.0, random_state=0).reset_index(drop=True)  # file order ≠ score order
    dup = pd.concat([runs, runs.iloc[::7].assign(score=-5.0)], ignore_index=True)
    for frame, opts in [
        (runs, {"order": "input"}),
        (dup, {"duplicates": "first"}),
        (dup, {"duplicates": "first", "order": "input"}),
    ]:
        want = irf.evaluate(frame, qrels, ["AP", "RR", "P@3"], **opts)
        got = irf.evaluate(dd.from_pandas(frame, npartitions=4), qrels, ["AP", "RR", "P@3"], **opts)
        assert_same(got, want)


# --------------------------------------------------------------------- errors
def test_unsupported_measure_is_rejected_with_a_fix(monkeypatch):
    def kernel(ctx, m):
        return np.zeros(ctx.aligned.n_groups)

    monkeypatch.setitem(
        _registry._REGISTRY, "XGlobal", MeasureDef("XGlobal", kernel, family="custom")
    )
    monkeypatch.setitem(
        _registry._REGISTRY,
        "XLocal",
        MeasureDef("XLocal", kernel, family="custom", topic_local=True),
    )
    qrels, runs = irf.datasets.synthetic(2, 3, 5)
    ddf = dd.from_pandas(runs, npartitions=2)
    with pytest.raises(idk.UnsupportedMeasureError, match=r"XGlobal.*topic_local"):
        irf.evaluate(ddf, qrels, ["AP", "XGlobal"])
    with pytest.raises(ValueError):  # a ValueError subclass
        idk.check_measures("XGlobal")
    assert float(irf.evaluate(ddf, qrels, "XLocal").sum()) == 0.0
    for name, d in _registry.registered_measures().items():  # every built-in measure is topic-local
        if d.compute.__module__.startswith("irframe."):
            assert idk.is_topic_local(d), name


def test_bad_input_errors():
    qrels, runs = irf.datasets.synthetic(2, 4, 6)
    with pytest.raises(ValueError, match="partitioned_by"):
        irf.evaluate(dd.from_pandas(runs, npartitions=2), qrels, "AP", partitioned_by="doc")
    with pytest.raises(KeyError, match="score"):
        irf.evaluate(
            dd.from_pandas(runs.drop(columns=["score", "rank"]), npartitions=2), qrels, "AP"
        )
    with pytest.raises(InputError, match="strings"):
        irf.evaluate(
            dd.from_pandas(runs.assign(topic=runs.topic.astype(int)), npartitions=2), qrels, "AP"
        )
    with pytest.raises(irf.errors.UnknownMeasureError, match="AP"):
        irf.evaluate(dd.from_pandas(runs, npartitions=2), qrels, "APP")
    # problems inside a partition surface with the in-memory error types
    dup = pd.concat([runs, runs.iloc[:1]], ignore_index=True)
    with pytest.raises(DuplicateError):
        irf.evaluate(dd.from_pandas(dup, npartitions=2), qrels, "AP")
    bad = runs.assign(score=runs.score.where(runs.index != 3, np.nan))
    with pytest.raises(InputError, match="score"):
        irf.evaluate(dd.from_pandas(bad, npartitions=2), qrels, "AP")
    # qrels are validated on the client before any partition runs
    with pytest.raises(DuplicateError):
        irf.evaluate(dd.from_pandas(runs, npartitions=2), pd.concat([qrels, qrels.iloc[:1]]), "AP")


def test_callers_frames_are_not_modified():
    qrels, runs = irf.datasets.synthetic(2, 4, 6, rng=9)
    q0, r0 = qrels.copy(), runs.copy()
    irf.evaluate(dd.from_pandas(runs, npartitions=2), qrels, ["AP", "RBP(p=0.8)"], complete=True)
    pd.testing.assert_frame_equal(qrels, q0)
    pd.testing.assert_frame_equal(runs, r0)


# --------------------------------------------------------------------- accessor, reader
def test_accessor_delegates():
    qrels, runs = irf.datasets.synthetic(3, 4, 10)
    ddf = dd.from_pandas(runs, npartitions=2)
    assert_same(
        ddf.ir.metric(["AP", "P@5"], qrels=qrels, depth=5),
        irf.evaluate(runs, qrels, ["AP", "P@5"], depth=5),
    )
    no_doc = dd.from_pandas(runs.drop(columns=["doc"]), npartitions=1)
    with pytest.raises(irf.ColumnError) as dask_error:
        no_doc.ir.metric("AP", qrels)
    with pytest.raises(irf.ColumnError) as memory_error:
        runs.drop(columns=["doc"]).ir.metric("AP", qrels)
    assert str(dask_error.value) == str(memory_error.value)
    # ddf.ir(columns=...) as on pandas frames
    renamed = runs.rename(columns={"doc": "docno"})
    assert_same(
        dd.from_pandas(renamed, npartitions=2).ir(columns={"doc": "docno"}).metric("AP", qrels),
        renamed.ir(columns={"doc": "docno"}).metric("AP", qrels),
    )


def test_read_runs_one_partition_per_file(tmp_path):
    qrels, runs = irf.datasets.synthetic(3, 5, 8, rng=7)
    for s in runs.system.cat.categories:
        irf.io.write_run(runs[runs.system == s], tmp_path / f"input.{s}.gz", tag=f"tag{s}")
    ddf = idk.read_runs(str(tmp_path / "*.gz"))
    assert ddf.npartitions == 3
    parts = [p.compute() for p in ddf.to_delayed()]
    assert {tuple(p.dtypes.astype(str)) for p in parts} == {tuple(ddf.dtypes.astype(str))}
    assert not any(isinstance(t, pd.CategoricalDtype) for t in ddf.dtypes)
    eager = irf.read_runs(str(tmp_path / "*.gz"))
    lazy = ddf.compute().reset_index(drop=True)
    ids = ("system", "topic", "doc")
    assert all(pd.api.types.is_string_dtype(lazy[c]) for c in ids)
    # (str under pandas 3; under pandas 2 Dask stores strings in arrow, convert-string)
    pd.testing.assert_frame_equal(lazy, eager.astype({c: lazy[c].dtype for c in ids}))
    want = irf.evaluate(eager, qrels, ["AP", "nDCG@5"])
    assert_same(irf.evaluate(ddf, qrels, ["AP", "nDCG@5"]), want)
    assert_same(irf.evaluate(ddf, qrels, ["AP", "nDCG@5"], partitioned_by="system"), want)
    tags = idk.read_runs(sorted(tmp_path.iterdir()), system="tag").compute()
    assert sorted(tags.system.unique()) == ["tagsys0", "tagsys1", "tagsys2"]
    with pytest.raises(ValueError, match="both give system name"):
        idk.read_runs(sorted(tmp_path.iterdir()), system=lambda p: "same")


def test_docs_page_examples_run():
    import doctest

    page = HERE.parent / "docs" / "dask.md"
    result = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
    )
    assert result.attempted >= 5
    assert result.failed == 0


def test_run_files_are_read_once_through_the_shuffle(tmp_path, monkeypatch):
    """The ids are gathered in the shuffle's graph: every run file is parsed once (twice with
    partitioned_by='system', whose cheap id pass comes first)."""
    qrels, runs = irf.datasets.synthetic(3, 5, 8, rng=7)
    for s in runs.system.cat.categories:
        irf.io.write_run(runs[runs.system == s], tmp_path / f"input.{s}.gz")
    reads = []
    real = idk._read_one
    monkeypatch.setattr(idk, "_read_one", lambda path, *a: reads.append(path) or real(path, *a))
    want = irf.evaluate(irf.read_runs(str(tmp_path / "*.gz")), qrels, ["AP", "RBP(p=0.8)"])
    got = irf.evaluate(idk.read_runs(str(tmp_path / "*.gz")), qrels, ["AP", "RBP(p=0.8)"])
    assert_same(got, want)
    assert sorted(pd.Series(reads).value_counts().tolist()) == [1, 1, 1]
    reads.clear()
    got = irf.evaluate(
        idk.read_runs(str(tmp_path / "*.gz")), qrels, ["AP", "RBP(p=0.8)"], partitioned_by="system"
    )
    assert_same(got, want)
    assert sorted(pd.Series(reads).value_counts().tolist()) == [2, 2, 2]


def test_no_overlap_is_an_input_error_on_every_path():
    qrels, runs = irf.datasets.synthetic(2, 3, 5, rng=1)
    other = qrels.assign(topic=qrels.topic.astype(str) + "x")
    for opts in [{}, {"partitioned_by": "topic"}, {"partitioned_by": "system"}]:
        ddf = dd.from_delayed(
            [dask.delayed(runs[runs.system == s]) for s in ["sys0", "sys1"]], meta=runs.iloc[:0]
        )
        if opts.get("partitioned_by") == "topic":
            ddf = dd.from_delayed(
                [dask.delayed(runs[runs.topic == t]) for t in runs.topic.cat.categories],
                meta=runs.iloc[:0],
            )
        with pytest.raises(irf.errors.EmptyOverlapError, match="none in common"):
            irf.evaluate(ddf, other, "AP", **opts)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    coll=collections(),
    nparts=st.sampled_from([1, 2, 3]),
    complete=st.booleans(),
    depth=st.sampled_from([None, 3]),
    kind=st.sampled_from(["lexirecall", "lexiprecision"]),
)
def test_lexi_preferences_equal_in_memory(coll, nparts, complete, depth, kind):
    """The preference cubes (system × other × topic) and their dropped-topic attrs, shuffled by topic
    and through the accessor, are the in-memory ones."""
    runs, qrels = coll
    if not set(runs.topic) & set(qrels.topic):  # no judged topic: both refuse
        for f in (
            lambda: getattr(irf.lexi, kind)(runs, qrels),
            lambda: getattr(irf.lexi, kind)(dd.from_pandas(runs, npartitions=nparts), qrels),
        ):
            with pytest.raises(irf.EmptyOverlapError):
                f()
        return
    want = getattr(irf.lexi, kind)(runs, qrels, complete=complete, depth=depth)
    got = getattr(irf.lexi, kind)(
        dd.from_pandas(runs, npartitions=nparts), qrels, complete=complete, depth=depth
    )
    assert_same(got, want)
    assert_same(
        getattr(dd.from_pandas(runs, npartitions=nparts).ir, kind)(
            qrels, complete=complete, depth=depth
        ),
        want,
    )


def test_lexi_preferences_by_topic_and_errors():
    qrels, runs = irf.datasets.synthetic(3, 150, 10, rng=9)
    runs = runs.astype(dict.fromkeys(("system", "topic", "doc"), str))
    qrels = qrels.astype(dict.fromkeys(("topic", "doc"), str))
    topics = sorted(runs.topic.unique())
    qrels = qrels[
        qrels.topic.isin(topics[::3]) | (qrels.rel == 0)
    ]  # 100 topics without a relevant document
    got = irf.lexi.lexirecall(
        _split(runs, "topic", [topics[:70], topics[70:]]), qrels, partitioned_by="topic"
    )
    want = irf.lexi.lexirecall(runs, qrels)
    assert want.attrs["dropped_topics"] > 50  # the attrs name the first 50 dropped topics
    assert_same(got, want)
    with pytest.raises(idk.UnsupportedMeasureError, match="system"):
        irf.lexi.lexiprecision(dd.from_pandas(runs, npartitions=2), qrels, partitioned_by="system")
    with pytest.raises(TypeError, match="unexpected option"):
        irf.lexi.lexirecall(dd.from_pandas(runs, npartitions=2), qrels, gains={1: 2})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    coll=collections(),
    nparts=st.sampled_from([1, 2, 3]),
    complete=st.booleans(),
    depth=st.sampled_from([None, 3]),
    k=st.sampled_from([None, 2]),
)
def test_rarity_tables_equal_in_memory(coll, nparts, complete, depth, k):
    """The rarity table (S_d over every system of a topic, S = all systems) and the rare finds,
    shuffled by topic and through the accessor, are the in-memory tables."""
    runs, qrels = coll
    if not set(runs.topic) & set(qrels.topic):
        return
    ddf = dd.from_pandas(runs, npartitions=nparts)
    opts = {"k": k, "complete": complete, "depth": depth}
    pd.testing.assert_frame_equal(
        irf.rarity.rarity(ddf, qrels, **opts), irf.rarity.rarity(runs, qrels, **opts)
    )
    pd.testing.assert_frame_equal(
        ddf.ir.rarity(qrels, **opts), irf.rarity.rarity(runs, qrels, **opts)
    )
    for m in (1, None):
        pd.testing.assert_frame_equal(
            irf.rarity.rare_finds(ddf, qrels, max_systems=m, **opts),
            irf.rarity.rare_finds(runs, qrels, max_systems=m, **opts),
        )


def test_rarity_by_topic_reference_and_errors():
    qrels, runs = irf.datasets.synthetic(4, 8, 30, rng=12)
    runs = runs.astype(dict.fromkeys(("system", "topic", "doc"), str))
    qrels = qrels.astype(dict.fromkeys(("topic", "doc"), str))
    runs = runs[~((runs.system == "sys2") & runs.topic.isin(["401", "406"]))]
    topics = sorted(runs.topic.unique())
    ddf = _split(runs, "topic", [topics[:3], topics[3:]])
    want = irf.rarity.rarity(runs, qrels, k=10)
    assert (want.S == 4).all()  # S counts every system, also in topics where sys2 retrieved nothing
    pd.testing.assert_frame_equal(irf.rarity.rarity(ddf, qrels, k=10, partitioned_by="topic"), want)
    ref = runs[runs.system.isin(["sys0", "sys1"])]
    pd.testing.assert_frame_equal(
        irf.rarity.rarity(ddf, qrels, k=10, reference=ref, partitioned_by="topic"),
        irf.rarity.rarity(runs, qrels, k=10, reference=ref),
    )
    with pytest.raises(idk.UnsupportedMeasureError, match="system"):
        irf.rarity.rarity(ddf, qrels, partitioned_by="system")
    with pytest.raises(TypeError, match="unexpected keyword argument 'gains'"):
        irf.rarity.rare_finds(ddf, qrels, gains={1: 2})


def test_other_accessor_entry_points():
    """summary is the in-memory summary (lexirecall/lexiprecision/rarity: tested above); every other entry point of the pandas accessor raises
    NotOnDaskError naming itself and the measure strings that do run on Dask (which do)."""
    qrels, runs = irf.datasets.synthetic(3, 4, 20, rng=6)
    ddf = dd.from_pandas(runs, npartitions=2)
    pd.testing.assert_frame_equal(
        ddf.ir.summary(["AP", "P@5"], qrels=qrels), runs.ir.summary(["AP", "P@5"], qrels)
    )
    for name in ["cwl", "cwla_grid", "join", "to_trec"]:
        assert hasattr(runs.ir, name)
        with pytest.raises(idk.NotOnDaskError, match=f"ddf.ir.{name}") as err:
            getattr(ddf.ir, name)(qrels)
        assert isinstance(err.value, NotImplementedError)
        for ms in re.findall(
            r"'([^']+)'", str(err.value)
        ):  # the measure strings it suggests run on Dask
            if "..." not in ms:
                assert_same(ddf.ir.metric(ms, qrels=qrels), runs.ir.metric(ms, qrels))


# --------------------------------------------------------------------- one way: the public functions
def test_import_irframe_does_not_import_dask():
    """Dask frames are recognised without importing Dask (irframe._backend looks for
    dask.dataframe in sys.modules): ``import irframe`` and in-memory calls leave it out."""
    import subprocess
    import sys

    code = (
        "import sys, irframe as irf\n"
        "q, r = irf.datasets.trec_eval_sample()\n"
        "irf.evaluate(r, q, 'AP'); r.ir.metric('AP', q); irf.lexi.lexirecall(r, q)\n"
        "irf.rarity.rarity(r, q); irf.rarity.rare_finds(r, q)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


FAMILIES = {
    "evaluate": lambda runs, qrels, **kw: irf.evaluate(runs, qrels, ["AP", "P@5"], **kw),
    "lexirecall": lambda runs, qrels, **kw: irf.lexi.lexirecall(runs, qrels, **kw),
    "lexiprecision": lambda runs, qrels, **kw: irf.lexi.lexiprecision(runs, qrels, **kw),
    "rarity": lambda runs, qrels, **kw: irf.rarity.rarity(runs, qrels, **kw),
    "rare_finds": lambda runs, qrels, **kw: irf.rarity.rare_finds(runs, qrels, **kw),
}
BAD_OPTIONS = [
    {"order": "Expected"},
    {"order": "bogus"},
    {"depth": 0},
    {"depth": 2.5},
    {"rel_level": "high"},
    {"complete": "yes"},
    {"judged_only": 1.5},
    {"duplicates": "last"},
    {"columns": ["topic"]},
    {"judgments": "some"},
    {"frobnicate": 1},
    {"k": 0},
    {"max_systems": -1},
    {"gains": {1: "x"}},
    {"gains": {1: 2}, "order": "expected"},
    {"bounds": True},
    {"bounds": "yes"},
    {"order": "best", "depth": 3, "judged_only": True},
]


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize(
    "bad", BAD_OPTIONS, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items())
)
def test_option_errors_are_the_in_memory_errors(family, bad):
    """A bad option on a Dask frame raises what the in-memory call raises: the same exception
    type and text (the function itself validates them, on a one-document probe); and where the
    in-memory call accepts the options, the Dask call gives the same result."""
    qrels, runs = irf.datasets.synthetic(3, 4, 12, rng=2)
    f = FAMILIES[family]
    ddf = dd.from_pandas(runs, npartitions=2)
    try:
        want = f(runs, qrels, **bad)
    except Exception as e:
        with pytest.raises(type(e)) as got:
            f(ddf, qrels, **bad)
        assert type(got.value) is type(e)
        assert str(got.value) == str(e)
        return
    got = f(ddf, qrels, **bad)
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    else:
        assert_same(got, want)


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("judgments", ["each", "common"])
def test_judgment_sets_on_dask_frames(family, judgments):
    """``qrels={name: frame}`` on a Dask frame: one pass per set (the in-memory mechanism,
    irframe.qrelsets.over_qrels), the same result as in memory."""
    qrels, runs = irf.datasets.synthetic(3, 5, 15, rng=4)
    sets = {"full": qrels, "shallow": qrels.iloc[::2], "graded": qrels[qrels.rel != 1]}
    f = FAMILIES[family]
    want = f(runs, sets, judgments=judgments)
    got = f(dd.from_pandas(runs, npartitions=3), sets, judgments=judgments)
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
        assert got.attrs == want.attrs
    else:
        assert_same(got, want)
    with pytest.raises(InputError, match="judgment set 'bad'") as e:
        f(dd.from_pandas(runs, npartitions=3), {**sets, "bad": qrels.assign(rel="x")})
    with pytest.raises(InputError) as m:
        f(runs, {**sets, "bad": qrels.assign(rel="x")})
    assert str(e.value) == str(m.value)


@pytest.mark.parametrize(
    "name,new",
    [
        ("evaluate", "irframe.evaluate"),
        ("lexirecall", "irframe.lexi.lexirecall"),
        ("lexiprecision", "irframe.lexi.lexiprecision"),
        ("rarity", "irframe.rarity.rarity"),
        ("rare_finds", "irframe.rarity.rare_finds"),
    ],
)
def test_the_0_1_entry_points_warn_and_forward(name, new):
    """irframe 0.1's ``irframe.dask.evaluate`` & co. still work: a FutureWarning naming the new
    call, then that call's result."""
    qrels, runs = irf.datasets.synthetic(3, 4, 12, rng=3)
    ddf = dd.from_pandas(runs, npartitions=2)
    args = (["AP"],) if name == "evaluate" else ()
    with pytest.warns(FutureWarning, match=rf"irframe\.dask\.{name} is deprecated.*call {new}\("):
        got = getattr(idk, name)(ddf, qrels, *args, partitioned_by=None)
    module, _, attr = new.rpartition(".")
    import importlib

    want = getattr(importlib.import_module(module), attr)(runs, qrels, *args)
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    else:
        assert_same(got, want)


BAD_FRAMES = {
    "no doc column": lambda r, q: (r.drop(columns=["doc"]), q),
    "no score or rank": lambda r, q: (r.drop(columns=["score", "rank"]), q),
    "integer topics": lambda r, q: (r.assign(topic=r.topic.astype(int)), q),
    "no rel column": lambda r, q: (r, q.drop(columns=["rel"])),
    "empty qrels": lambda r, q: (r, q.iloc[:0]),
    "text grades": lambda r, q: (r, q.assign(rel="x")),
    "duplicate qrels": lambda r, q: (r, pd.concat([q, q.iloc[:1]])),
}


@pytest.mark.parametrize("family", ["evaluate", "lexirecall", "rarity"])
@pytest.mark.parametrize("case", sorted(BAD_FRAMES))
def test_column_and_qrels_errors_are_the_in_memory_errors(family, case):
    """Frames the in-memory call refuses for their columns or qrels: the Dask frame of the same
    rows is refused with the same exception type and text, before any partition is computed."""
    qrels, runs = irf.datasets.synthetic(3, 4, 12, rng=2)
    runs, qrels = BAD_FRAMES[case](runs.astype({"topic": str}), qrels)
    f = FAMILIES[family]
    with pytest.raises(Exception) as memory:
        f(runs, qrels)
    with pytest.raises(type(memory.value)) as got:
        f(dd.from_pandas(runs, npartitions=2), qrels)
    if case == "integer topics":  # the rows are not known before the frame is computed
        want = str(memory.value)
        assert str(got.value).split(", but")[0] == want.split(", but")[0]
        assert want[want.index("Ids must") :] in str(got.value)
    else:
        assert str(got.value) == str(memory.value)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"partitioned_by": "doc"}, "partitioned_by must be one of 'topic', 'system'"),
        ({"npartitions": 0}, r"npartitions must be an integer in \[1, "),
        ({"shuffle_method": "nope"}, "shuffle_method must be one of 'disk', 'tasks', 'p2p'"),
        ({"partitioned_by": "topic", "shuffle_method": "tasks"}, "drop one of them"),
        ({"partitioned_by": "system", "npartitions": 3}, "drop one of them"),
    ],
)
def test_dask_keywords_are_option_errors(kw, match):
    """The backend's own keywords: OptionErrors, as every other option (they were plain
    ValueErrors, or dask's own for shuffle_method); a shuffle option beside partitioned_by,
    which is not shuffled, was ignored without a word."""
    from irframe.errors import OptionError

    qrels, runs = irf.datasets.synthetic(systems=2, topics=4, depth=10, rng=0)
    with pytest.raises(OptionError, match=match):
        irf.evaluate(dd.from_pandas(runs, npartitions=2), qrels, "AP", **kw)


def test_missing_topic_ids_in_a_frame_split_by_topic_are_named_as_in_memory():
    """Missing topic ids in two partitions of a frame split by topic: the split check took
    them for a topic named '<NA>' found in two partitions (NotPartitionedError, whose advice
    only led to the real error); now the in-memory error naming the rows."""
    qrels, runs = irf.datasets.synthetic(systems=2, topics=4, depth=10, rng=0)
    parts = [g.copy() for _, g in runs.astype({"topic": object}).groupby("topic", sort=True)]
    for k, i in ((0, 0), (2, 1)):
        parts[k].iloc[i, parts[k].columns.get_loc("topic")] = None
    ddf = dd.concat([dd.from_pandas(p, npartitions=1) for p in parts])
    with pytest.raises(irf.InputError, match=r"column 'topic' has 1 missing id\(s\)"):
        irf.evaluate(ddf, qrels, "AP", partitioned_by="topic")
