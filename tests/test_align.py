"""The aligned arrays: (topic, doc) cell numbering on each of its three paths, and segment helpers,
checked against brute-force Python."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import irframe.align as A
import irframe.errors as irf_errors


@pytest.mark.parametrize("one_topic_per_doc", [True, False])
@pytest.mark.parametrize("dense", [True, False])
def test_cells_number_each_topic_doc_pair_once(monkeypatch, one_topic_per_doc, dense):
    monkeypatch.setattr(A, "_DENSE_LOOKUP_MAX", 10**9 if dense else 1)
    rng = np.random.default_rng(7)
    T, D = 6, 50
    topic = rng.integers(0, T, 400)
    doc = topic * 8 + rng.integers(0, 8, 400) if one_topic_per_doc else rng.integers(0, D, 400)
    qkeys = np.unique(rng.integers(0, T, 80) * D + rng.integers(0, D, 80))
    cell, n_cells, q_cell = A._cells(topic, doc, D, T * D, qkeys)
    ids: dict = {}
    for pair, c in zip(zip(topic.tolist(), doc.tolist(), strict=True), cell.tolist(), strict=True):
        assert ids.setdefault(pair, c) == c  # one id per pair
    assert len(set(ids.values())) == len(ids)  # distinct pairs, distinct ids
    assert max(ids.values()) < n_cells
    for key, c in zip(qkeys.tolist(), q_cell.tolist(), strict=True):
        assert c == ids.get(divmod(key, D), -1)  # qrels cells find the same ids, -1 if absent


def test_segment_helpers_against_python():
    rng = np.random.default_rng(3)
    lens = rng.integers(0, 6, 30)
    offsets = np.concatenate([[0], np.cumsum(lens)])
    x = rng.random(offsets[-1])
    segs = [x[a:b] for a, b in itertools.pairwise(offsets)]
    np.testing.assert_allclose(
        A.segment_sum(x, offsets), [sum(s.tolist()) for s in segs], rtol=0, atol=1e-14
    )
    np.testing.assert_array_equal(
        A.segment_cumsum(x, offsets), np.concatenate([np.cumsum(s) for s in segs])
    )
    np.testing.assert_array_equal(
        A.segment_suffix_max(x, offsets),
        np.concatenate([np.maximum.accumulate(s[::-1])[::-1] for s in segs]),
    )
    np.testing.assert_array_equal(
        A.segment_max(x, offsets, empty=-1.0), [s.max() if len(s) else -1.0 for s in segs]
    )


# ---- ordering and id encoding against brute force -----------------------------------------
import pandas as pd  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

DOCS = ["a", "b", "B", "é", "ab", "z9", "Ω", "a\u00e9", "10", "9", "d\U0001f600"]


def _brute_force(
    frame: pd.DataFrame, qrels: pd.DataFrame
) -> list[tuple[str, str, list[str], list[float]]]:
    """trec_eval's order written out: per (system, topic), float32 score desc, docno bytes desc."""
    grades = {(t, d): float(r) for t, d, r in zip(qrels.topic, qrels.doc, qrels.rel, strict=True)}
    out = []
    for (s, t), g in sorted(frame.groupby(["system", "topic"]), key=lambda kv: kv[0]):
        if t not in set(qrels.topic):
            continue
        rows = sorted(
            zip(g.score.astype(np.float32).tolist(), g.doc.tolist(), strict=True),
            key=lambda r: (-r[0], [-b for b in r[1].encode("utf-8")] + [1]),
        )
        docs = [d for _, d in rows]
        out.append((s, t, docs, [grades.get((t, d), np.nan) for d in docs]))
    return out


@st.composite
def _runs(draw):
    n_sys, n_top = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    rows = []
    for s in range(n_sys):
        for t in range(n_top):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
            for d in docs:  # few distinct scores: many ties; float32-equal but float64-distinct too
                rows.append(
                    (
                        f"s{s}",
                        str(t),
                        d,
                        draw(st.sampled_from([1.0, 0.5, 0.5 + 1e-12, 2.0, -0.0, 0.0])),
                    )
                )
    frame = pd.DataFrame(rows, columns=["system", "topic", "doc", "score"])
    layout = draw(st.sampled_from(["as drawn", "shuffled", "sorted", "groups reversed"]))
    if layout == "shuffled":
        frame = frame.sample(frac=1, random_state=draw(st.integers(0, 9)))
    elif layout == "sorted":  # rank order inside each group, ties in arbitrary order
        frame = frame.sort_values(["system", "topic", "score"], ascending=[True, True, False])
    elif layout == "groups reversed":  # contiguous groups, each in rank order, groups out of order
        frame = frame.sort_values(["system", "topic", "score"], ascending=[False, False, False])
    return frame.reset_index(drop=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs(), st.sampled_from(["object", "str", "category", "string[pyarrow]"]), st.data())
def test_order_and_relevance_match_brute_force(frame, dtype, data):
    pytest.importorskip("pyarrow")
    qdocs = data.draw(
        st.lists(st.sampled_from([*DOCS, "unretrieved"]), min_size=1, max_size=6, unique=True)
    )
    qrels = pd.DataFrame({"topic": "0", "doc": qdocs, "rel": range(len(qdocs))})
    expected = _brute_force(frame, qrels)
    runs = frame.astype(dict.fromkeys(("system", "topic", "doc"), dtype))
    q = qrels.astype(dict.fromkeys(("topic", "doc"), dtype))
    a = A.align(runs, q)
    got = []
    for g in range(a.n_groups):
        rows = slice(a.offsets[g], a.offsets[g + 1])
        got.append(
            (
                a.systems[a.group_system[g]],
                a.topics[a.group_topic[g]],
                [a.docs[d] for d in a.row_doc[rows]],
                a.row_rel[rows].tolist(),
            )
        )
    assert [x[:3] for x in got] == [x[:3] for x in expected]
    np.testing.assert_array_equal(
        np.concatenate([x[3] for x in got]), np.concatenate([x[3] for x in expected])
    )
    # row_source points back at the caller's rows
    assert [runs.doc.iloc[i] for i in a.row_source] == [a.docs[d] for d in a.row_doc]


def test_ids_of_every_dtype_align_identically():
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(5)
    n = 2700
    frame = pd.DataFrame(
        {
            "system": np.repeat([f"s{i}" for i in range(3)], n // 3),
            "topic": np.tile(np.repeat(["7", "10", "8"], n // 9), 3),
            "doc": [f"d{x}" for x in rng.integers(0, 900, n)],
            "score": rng.integers(0, 50, n) / 10,
        }
    )
    frame = frame.drop_duplicates(["system", "topic", "doc"])
    qrels = pd.DataFrame(
        {"topic": ["7", "10", "99"] * 50, "doc": [f"d{x}" for x in range(150)], "rel": 1}
    )
    ref = A.align(
        frame.astype(dict.fromkeys(("system", "topic", "doc"), object)),
        qrels.astype({"topic": object, "doc": object}),
    )
    for dtype in ("str", "category", "string[pyarrow]"):
        a = A.align(
            frame.astype(dict.fromkeys(("system", "topic", "doc"), dtype)),
            qrels.astype({"topic": dtype, "doc": dtype}),
        )
        assert list(a.systems) == list(ref.systems) and list(a.topics) == list(ref.topics)
        np.testing.assert_array_equal(a.row_source, ref.row_source)
        np.testing.assert_array_equal(a.offsets, ref.offsets)
        np.testing.assert_array_equal(a.row_rel, ref.row_rel)
        assert [a.docs[d] for d in a.row_doc] == [ref.docs[d] for d in ref.row_doc]

        # judged docs per topic, grade descending (the order among equal grades is by doc code)
        def judged(x):
            return sorted(
                zip(
                    x.qrels_topic.tolist(),
                    (-x.qrels_rel).tolist(),
                    [x.docs[d] for d in x.qrels_doc],
                    strict=True,
                )
            )

        assert judged(a) == judged(ref)
        np.testing.assert_array_equal(a.qrels_offsets, ref.qrels_offsets)


@pytest.mark.parametrize("col", ["system", "topic", "doc"])
@pytest.mark.parametrize("bad", [None, pd.NA, float("nan"), 7, b"x"])
def test_object_ids_checked_after_encoding(col, bad):
    """object id columns are checked on their distinct values; a bad one is still named by row."""
    run = pd.DataFrame(
        {
            "system": ["s"] * 40,
            "topic": ["1"] * 40,
            "doc": [f"d{i}" for i in range(40)],
            "score": np.arange(40.0),
        }
    ).astype(object)
    run.loc[17, col] = bad
    qrels = pd.DataFrame({"topic": ["1"], "doc": ["d1"], "rel": [1]})
    with pytest.raises(irf_errors.InputError, match=rf"column '{col}'.*row 17"):
        A.align(run.astype({"score": float}), qrels)


@pytest.mark.parametrize(
    "run_dtype, qrels_dtype",
    [
        ("str", "object"),
        ("object", "category"),
        ("category", "string[pyarrow]"),
        ("string[pyarrow]", "str"),
    ],
)
def test_run_and_qrels_of_different_id_dtypes(run_dtype, qrels_dtype):
    """Run and qrels ids merged across dtypes (pyarrow and pandas hash tables) find the same docs."""
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {
            "system": ["b", "b", "a", "a", "a"],
            "topic": ["2", "2", "1", "1", "2"],
            "doc": ["x", "é", "y", "x", "z"],
            "score": [1.0, 2.0, 3.0, 3.0, 1.0],
        }
    )
    qrels = pd.DataFrame(
        {"topic": ["1", "1", "2", "3"], "doc": ["x", "w", "é", "x"], "rel": [2, 1, 1, 1]}
    )
    expected = _brute_force(frame, qrels)
    a = A.align(
        frame.astype(dict.fromkeys(("system", "topic", "doc"), run_dtype)),
        qrels.astype(dict.fromkeys(("topic", "doc"), qrels_dtype)),
    )
    got = [
        (
            a.systems[a.group_system[g]],
            a.topics[a.group_topic[g]],
            [a.docs[d] for d in a.row_doc[a.offsets[g] : a.offsets[g + 1]]],
            a.row_rel[a.offsets[g] : a.offsets[g + 1]].tolist(),
        )
        for g in range(a.n_groups)
    ]
    assert [x[:3] for x in got] == [x[:3] for x in expected]
    np.testing.assert_array_equal(
        np.concatenate([x[3] for x in got]), np.concatenate([x[3] for x in expected])
    )
    assert sorted(a.docs[d] for d in a.qrels_doc) == [
        "w",
        "x",
        "é",
    ]  # judged docs of evaluated topics 1, 2


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs(), st.data())
def test_duplicates_first_keeps_each_first_row(frame, data):
    """duplicates="first" against brute force: the first (system, topic, doc) row in frame order
    is evaluated, every later copy is gone; rows of topics without qrels are counted as dropped
    (once: their copies go too)."""
    qrels = pd.DataFrame({"topic": ["0", "1", "1"], "doc": ["a", "b", "é"], "rel": [1, 2, 1]})
    judged_topic = np.flatnonzero(frame.topic.isin(qrels.topic).to_numpy())
    if not len(judged_topic):
        return
    extra = data.draw(st.lists(st.sampled_from(judged_topic.tolist()), min_size=1, max_size=6))
    copies = frame.iloc[extra].assign(score=data.draw(st.sampled_from([9.0, -1.0, 0.5])))
    stray = frame.iloc[:2].assign(topic="no-qrels")  # a topic without judgments, twice
    dup = pd.concat([frame, copies, stray, stray]).reset_index(drop=True)
    first = ~dup.duplicated(
        ["system", "topic", "doc"], keep="first"
    ).to_numpy()  # pandas, not irframe
    expected = _brute_force(dup[first], qrels)
    with pytest.raises(irf_errors.DuplicateError):
        A.align(dup, qrels)
    a = A.align(dup, qrels, duplicates="first")
    got = [
        (
            a.systems[a.group_system[g]],
            a.topics[a.group_topic[g]],
            [a.docs[d] for d in a.row_doc[a.offsets[g] : a.offsets[g + 1]]],
            a.row_rel[a.offsets[g] : a.offsets[g + 1]].tolist(),
        )
        for g in range(a.n_groups)
    ]
    assert [x[:3] for x in got] == [x[:3] for x in expected]
    np.testing.assert_array_equal(
        np.concatenate([x[3] for x in got]), np.concatenate([x[3] for x in expected])
    )
    assert first[a.row_source].all()  # rows point at first occurrences of the caller's frame
    assert [dup.doc.iloc[i] for i in a.row_source] == [a.docs[d] for d in a.row_doc]
    assert a.n_dropped_rows == int((first & ~dup.topic.isin(qrels.topic).to_numpy()).sum())


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.data(),
    n_topics=st.integers(1, 5),
    n_docs=st.integers(1, 12),
    path=st.sampled_from(["dense", "hashed"]),
)
def test_cells_property_against_brute_force(monkeypatch, data, n_topics, n_docs, path):
    """Property: on random (topic, doc) rows, each path numbers every pair once and finds the
    qrels pairs (brute force: a dict of the pairs)."""
    monkeypatch.setattr(A, "_DENSE_LOOKUP_MAX", 10**9 if path == "dense" else 0)
    monkeypatch.setattr(A, "_DENSE_PER_AWAY_ROW", 10**9 if path == "dense" else 0)
    pairs = st.tuples(st.integers(0, n_topics - 1), st.integers(0, n_docs - 1))
    rows = data.draw(st.lists(pairs, min_size=1, max_size=40))
    judged = data.draw(st.lists(pairs, max_size=20, unique=True))
    topic = np.array([t for t, _ in rows], dtype=np.int8)
    doc = np.array([d for _, d in rows], dtype=np.int64)
    qkeys = np.array(sorted(t * n_docs + d for t, d in judged), dtype=np.int64)
    cell, n_cells, q_cell = A._cells(topic, doc, n_docs, n_topics * n_docs, qkeys)
    ids: dict = {}
    for pair, c in zip(rows, cell.tolist(), strict=True):
        assert ids.setdefault(pair, c) == c
    assert (
        len(set(ids.values())) == len(ids) and 0 <= min(ids.values()) <= max(ids.values()) < n_cells
    )
    assert q_cell.tolist() == [ids.get(divmod(k, n_docs), -1) for k in qkeys.tolist()]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=60),
    st.lists(st.integers(41, 400), min_size=0, max_size=20),
    st.integers(0, 2**32 - 1),
)
def test_segment_cumsum_is_left_to_right_per_segment(short, long, seed):
    """Property, against Python's left-to-right accumulate: every segment summed on its
    own, bit for bit, with many short segments and a few long ones (the long ones are
    finished one at a time: a giant topic made a Python step per row)."""
    rng = np.random.default_rng(seed)
    lens = np.array(short + long)
    rng.shuffle(lens)
    offsets = np.concatenate([[0], np.cumsum(lens)])
    x = rng.standard_normal(offsets[-1]) * 10.0 ** rng.integers(-6, 6, offsets[-1])
    want = [list(itertools.accumulate(x[a:b].tolist())) for a, b in itertools.pairwise(offsets)]
    np.testing.assert_array_equal(
        A.segment_cumsum(x, offsets), np.array([v for seg in want for v in seg], dtype=float)
    )
