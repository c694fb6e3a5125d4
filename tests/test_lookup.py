"""Alignment by lookup (run docs looked up in the judged set, never all encoded) on MS MARCO-
shaped frames: almost every (topic, doc) pair distinct, ~1 judged doc per query, ties from
3-decimal scores.

Both doc encodings (lookup, and codes for every doc) are forced in turn; every number is
checked against pytrec_eval (trec_eval's C code) or against a brute force written here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe import _ids
from irframe import align as A
from irframe.errors import DuplicateError

pytest.importorskip("pyarrow")

DTYPES = ["str", "object", "object-per-row", "category", "string[pyarrow]"]


@pytest.fixture(params=[True, False], ids=["lookup", "codes"])
def encoding(request, monkeypatch):
    monkeypatch.setattr(A, "_LOOKUP", request.param)
    return request.param


def as_dtype(df: pd.DataFrame, dtype: str) -> pd.DataFrame:
    cols = [c for c in ("system", "topic", "doc") if c in df]
    out = df.copy()
    for c in cols:
        s = out[c].astype(object)
        if dtype == "object":  # one Python str per distinct id
            codes, uniques = pd.factorize(s)
            out[c] = pd.Series(np.asarray(uniques, dtype=object)[codes], dtype=object)
        elif dtype == "object-per-row":  # a fresh str object per row
            out[c] = pd.Series(["".join(list(x)) for x in s], dtype=object)
        else:
            out[c] = s.astype(dtype)
    return out


def msmarco_like(queries=40, depth=60, corpus=1_000_000, seed=0, systems=2):
    """Runs of ``depth`` docs per query drawn from a corpus of a million (so nearly every
    pair is distinct), scores rounded to 3 decimals in a narrow range (many ties), about one
    judged relevant doc per query, some of them retrieved."""
    rng = np.random.default_rng(seed)
    q_topic = np.repeat(np.arange(queries), 1 + (rng.random(queries) < 0.2))
    q_doc = rng.integers(0, corpus, len(q_topic))
    qrels = pd.DataFrame(
        {"topic": [f"q{t}" for t in q_topic], "doc": [str(d) for d in q_doc], "rel": 1}
    ).drop_duplicates(["topic", "doc"])
    rows = []
    for s in range(systems):
        for t in range(queries):
            docs = rng.choice(corpus, depth, replace=False)
            judged = q_doc[q_topic == t]
            take = judged[rng.random(len(judged)) < 0.7]
            docs[rng.choice(depth, len(take), replace=False)] = take
            docs = np.unique(docs)
            score = np.round(rng.normal(size=len(docs)) * 0.01, 3)  # ~20 distinct: many ties
            for d, sc in zip(docs, score, strict=False):
                rows.append((f"sys{s}", f"q{t}", str(d), sc))
    runs = pd.DataFrame(rows, columns=["system", "topic", "doc", "score"])
    runs = runs.sort_values(["system", "topic", "score"], ascending=[True, True, False])
    return runs.reset_index(drop=True), qrels.reset_index(drop=True)


PYTREC = {
    "AP": "map",
    "nDCG": "ndcg",
    "nDCG@10": "ndcg_cut_10",
    "P@10": "P_10",
    "RR": "recip_rank",
    "R@1000": "recall_1000",
    "Rprec": "Rprec",
}


@pytest.mark.parametrize("dtype", DTYPES)
def test_msmarco_shape_equals_pytrec_eval(encoding, dtype):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    runs, qrels = msmarco_like()
    assert runs.doc.nunique() > 0.95 * len(runs)  # the shape: nearly every doc distinct
    tied = 1 - runs.groupby(["system", "topic"]).score.nunique().sum() / len(runs)
    assert tied > 0.3  # and ties, which trec_eval breaks by docno
    q: dict = {}
    for t, d, r in zip(qrels.topic, qrels.doc, qrels.rel, strict=False):
        q.setdefault(t, {})[d] = int(r)
    ev = pytrec_eval.RelevanceEvaluator(
        q, {"map", "ndcg", "ndcg_cut.10", "P.10", "recip_rank", "recall.1000", "Rprec"}
    )
    cube = irf.evaluate(as_dtype(runs, dtype), as_dtype(qrels, dtype), list(PYTREC))
    for s, g in runs.groupby("system"):
        res = ev.evaluate(
            {
                t: dict(zip(gt.doc, gt.score.astype(float), strict=False))
                for t, gt in g.groupby("topic")
            }
        )
        for t, vals in res.items():
            mine = cube.sel(system=s, topic=t).sel(measure=list(PYTREC)).values
            np.testing.assert_allclose(mine, [vals[m] for m in PYTREC.values()], rtol=0, atol=1e-12)


def _brute_force(frame: pd.DataFrame, qrels: pd.DataFrame):
    """Per (system, topic) with qrels: docs in trec_eval's order (float32 score descending,
    then docno descending by bytes) and their grades, by plain Python sorting."""
    grades = {(t, d): r for t, d, r in zip(qrels.topic, qrels.doc, qrels.rel, strict=False)}
    topics = set(qrels.topic)
    out = []
    for (s, t), g in sorted(frame.groupby(["system", "topic"]), key=lambda kv: kv[0]):
        if t not in topics:
            continue
        rows = sorted(
            zip(g.score.astype(np.float32).tolist(), g.doc.tolist(), strict=False),
            key=lambda r: (-r[0], [-b for b in r[1].encode("utf-8")] + [1]),
        )
        out.append((s, t, [d for _, d in rows], [grades.get((t, d), np.nan) for _, d in rows]))
    return sorted(out, key=lambda x: (x[0].encode(), x[1].encode()))


def _got(a: A.Aligned):
    out = []
    for g in range(a.n_groups):
        rows = slice(a.offsets[g], a.offsets[g + 1])
        out.append(
            (
                a.systems[a.group_system[g]],
                a.topics[a.group_topic[g]],
                [a.docs[d] for d in a.row_doc[rows]],
                a.row_rel[rows].tolist(),
            )
        )
    return out


IDS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12)


@st.composite
def _frames(draw):
    """Frames whose docs are mostly distinct (long random ids, a few shared), scores from a
    few values (ties), some topics without qrels; optionally shuffled."""
    n_sys, n_top = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    shared = draw(st.lists(IDS, min_size=1, max_size=4, unique=True))
    rows = []
    for s in range(n_sys):
        for t in range(n_top):
            docs = draw(st.lists(st.one_of(IDS, st.sampled_from(shared)), max_size=12, unique=True))
            for d in docs:
                rows.append((f"s{s}", f"t{t}", d, draw(st.sampled_from([1.0, 0.5, 0.25, -0.0]))))
    frame = pd.DataFrame(rows, columns=["system", "topic", "doc", "score"])
    if draw(st.booleans()):
        frame = frame.sample(frac=1, random_state=draw(st.integers(0, 9)))
    judged = draw(st.lists(st.sampled_from(sorted(set(frame.doc)) or ["x"]) | IDS, max_size=6))
    qrels = pd.DataFrame(
        {
            "topic": [f"t{draw(st.integers(0, n_top))}" for _ in judged],
            "doc": judged,
            "rel": [draw(st.integers(0, 3)) for _ in judged],
        }
    ).drop_duplicates(["topic", "doc"])
    return frame.reset_index(drop=True), qrels.reset_index(drop=True)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_frames(), st.sampled_from(DTYPES), st.booleans())
def test_lookup_order_grades_and_docs_match_brute_force(fq, dtype, lookup):
    frame, qrels = fq
    if len(frame) == 0 or len(qrels) == 0 or not set(frame.topic) & set(qrels.topic):
        return
    runs, q = as_dtype(frame, dtype), as_dtype(qrels, dtype)
    old = A._LOOKUP
    try:
        A._LOOKUP = lookup
        a = A.align(runs, q)
    finally:
        A._LOOKUP = old
    got, expected = _got(a), _brute_force(frame, qrels)
    assert [x[:3] for x in got] == [x[:3] for x in expected]
    np.testing.assert_array_equal(
        np.array([r for x in got for r in x[3]], float),
        np.array([r for x in expected for r in x[3]], float),
    )
    assert [frame.doc.iloc[i] for i in a.row_source] == [a.docs[d] for d in a.row_doc]


def test_duplicates_found_and_reported_alike(encoding):
    runs, qrels = msmarco_like(queries=5, depth=30)
    dup = runs.iloc[[3, 40]].assign(score=[9.0, -9.0])  # same docs again, other scores
    bad = pd.concat([runs, dup], ignore_index=True)
    with pytest.raises(DuplicateError) as e:
        irf.evaluate(bad, qrels, ["AP"])
    assert f"row {len(runs)}" in str(e.value) and "duplicate (system, topic, doc)" in str(e.value)
    a = A.align(bad, qrels, duplicates="first")
    b = A.align(runs, qrels)
    np.testing.assert_array_equal(a.row_source, b.row_source)
    np.testing.assert_array_equal(a.row_rel, b.row_rel)


def test_hash_collisions_are_verified(monkeypatch):
    """Every doc hashing alike makes every pair a candidate: the exact check decides, so no
    duplicate is reported where there is none and the numbers do not change."""
    runs, qrels = msmarco_like(queries=8, depth=40)
    monkeypatch.setattr(A, "_LOOKUP", True)
    want = irf.evaluate(runs, qrels, ["AP", "nDCG@10"])
    monkeypatch.setattr(_ids, "_chunk_hashes", lambda c: np.zeros(len(c), np.uint64))
    got = irf.evaluate(runs, qrels, ["AP", "nDCG@10"])
    np.testing.assert_array_equal(got.values, want.values)


def test_hash_of_equal_strings_is_equal_across_chunks():
    import pyarrow as pa

    words = ["", "a", "abcdefgh", "abcdefghi", "é" * 9, "x" * 40, "abcdefgh\x00", "12345678"]
    h1 = _ids._chunk_hashes(pa.array(words))
    h2 = _ids._chunk_hashes(pa.array(["pad", *words]).slice(1))
    h3 = _ids._chunk_hashes(pa.array(words, pa.large_string()))
    np.testing.assert_array_equal(h1, h2)
    np.testing.assert_array_equal(h1, h3)
    assert len(set(h1.tolist())) == len(words)  # these distinct strings hash apart


@pytest.mark.parametrize("n", [255, 256, 257, 264, 265, 1000, 100_000])
def test_hash_of_long_strings_is_a_function_of_their_bytes(n):
    """Strings around and above the length where hashing switches to one string at a time:
    equal strings hash equal in any chunk, strings differing in one byte hash apart."""
    import pyarrow as pa

    base = "a" * n
    words = [base, base[:-1] + "b", "b" + base[1:], base + "a", base[: n // 2], "q"]
    h1 = _ids._chunk_hashes(pa.array(words))
    h2 = _ids._chunk_hashes(pa.array(["pad", *reversed(words)]).slice(1))
    h3 = _ids._chunk_hashes(pa.array(words, pa.large_string()))
    np.testing.assert_array_equal(h1, h2[::-1])
    np.testing.assert_array_equal(h1, h3)
    assert len(set(h1.tolist())) == len(words)


def test_doc_codes_are_built_only_when_asked(monkeypatch):
    monkeypatch.setattr(A, "_LOOKUP", True)
    runs, qrels = msmarco_like(queries=4, depth=20)
    a = A.align(runs, qrels)
    assert a.__dict__.get("_row_doc") is None  # not built by alignment
    assert "_doc_loader" in a.__dict__
    docs = [a.docs[d] for d in a.row_doc]
    assert docs == [runs.doc.iloc[i] for i in a.row_source]
    judged = set(zip(qrels.topic, qrels.doc, strict=False))
    # qrels codes index the same docs table
    qt = a.qrels_topic
    assert {(a.topics[t], a.docs[d]) for t, d in zip(qt, a.qrels_doc, strict=False)} <= judged


@pytest.mark.parametrize("distinct, expected", [(3_000, False), (60_000, True)])
def test_many_distinct_docs_are_looked_up_however_often_they_repeat(
    monkeypatch, distinct, expected
):
    """Past ``_DISTINCT_TABLE_MAX`` distinct docs (2 M; here lowered to 20,000) a run's docs
    are looked up even when each repeats in many rows (many runs from one corpus): the
    sample's estimate of the distinct count, not only its share of the rows, decides (the
    sample lowered with it: the estimate holds for samples smaller than the distinct count)."""
    monkeypatch.setattr(_ids, "_DISTINCT_TABLE_MAX", 20_000)
    monkeypatch.setattr(_ids, "_SAMPLE", 4096)
    rng = np.random.default_rng(3)
    ids = rng.permutation(np.repeat(np.arange(distinct), 640_000 // distinct))
    s = pd.Series([f"{x}" for x in ids], dtype="str")
    assert s.nunique() == distinct and len(s) / distinct >= 10  # every doc in 10 rows or more
    assert _ids.docs_mostly_distinct(s) is expected


def test_distinct_estimate_tells_pooled_from_corpus_runs():
    rng = np.random.default_rng(1)
    pooled = pd.Series([f"D{x}" for x in rng.integers(0, 3000, 200_000)])
    corpus = pd.Series([f"{x}" for x in rng.integers(0, 8_800_000, 200_000)])
    assert not _ids.docs_mostly_distinct(pooled)
    assert _ids.docs_mostly_distinct(corpus)
    assert _ids.docs_mostly_distinct(corpus.astype("category"))
    assert not _ids.docs_mostly_distinct(pooled.astype(object))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    base=st.lists(st.integers(0, 400), min_size=1, max_size=400),
    times=st.integers(1, 12),
    sample=st.sampled_from([64, 1 << 16]),
    unused=st.integers(0, 2000),
)
def test_distinct_estimate_same_for_categories_and_strings(
    monkeypatch, base, times, sample, unused
):
    """Property: a categorical column (its codes counted) gets the estimate of the same ids as
    strings (pyarrow's count_distinct over the same sampled rows), whatever categories go
    unused."""
    monkeypatch.setattr(_ids, "_SAMPLE", sample)
    s = pd.Series([f"d{x}" for x in base * times], dtype="str")  # each id in `times` rows
    cats = sorted(set(s) | {f"d{x}" for x in range(401, 401 + unused)})  # interleaved
    assert _ids.docs_mostly_distinct(s.astype(pd.CategoricalDtype(cats))) is (
        _ids.docs_mostly_distinct(s)
    )


@pytest.fixture
def loader_calls(monkeypatch):
    """Alignment by lookup, with every build of the doc codes counted."""
    monkeypatch.setattr(A, "_LOOKUP", True)
    calls = []
    build = A._DocLoader.__call__

    def counted(self, aligned):
        calls.append(aligned)
        return build(self, aligned)

    monkeypatch.setattr(A._DocLoader, "__call__", counted)
    return calls


@pytest.mark.parametrize("complete", [False, True])
def test_whole_widen_keeps_the_doc_codes_pending(loader_calls, complete):
    """``Whole.widen`` (a part of a bigger frame, as irframe.dask evaluates it) copies the
    alignment without building its doc codes; built later, each row's doc is the caller's."""
    from irframe.evaluate import Whole

    runs, qrels = msmarco_like(queries=5, depth=30, systems=2)
    runs = runs[runs.system == "sys1"]
    a = A.align(runs, qrels, complete=complete)
    whole = Whole(systems=np.array(["sys0", "sys1", "sys2"], dtype=object), grades=[0.0, 1.0, 3.0])
    b = whole.widen(a)
    assert loader_calls == []
    assert list(b.systems) == ["sys0", "sys1", "sys2"]
    assert b.qrels_grades_all.tolist() == [0.0, 1.0, 3.0]
    assert [b.docs[d] for d in b.row_doc] == [runs.doc.iloc[i] for i in b.row_source]
    assert len(loader_calls) == 1
    assert [a.docs[d] for d in a.row_doc] == [runs.doc.iloc[i] for i in a.row_source]


def test_dask_evaluation_never_builds_the_doc_codes(loader_calls):
    """Measures that read no doc ids (AP, nDCG@10, RR@10, R@1000): the Dask backend's partitions,
    by system and shuffled by topic, are evaluated without building doc codes (as in memory),
    and give the in-memory cube."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")

    runs, qrels = msmarco_like(queries=12, depth=40, systems=3)
    ms = ["AP", "nDCG@10", "RR@10", "R@1000"]
    expected = irf.evaluate(runs, qrels, ms)
    assert loader_calls == []
    with dask.config.set(scheduler="synchronous"):
        by_system = dd.concat([dd.from_pandas(g, npartitions=1) for _, g in runs.groupby("system")])
        assert irf.evaluate(by_system, qrels, ms, partitioned_by="system").identical(expected)
        mixed = dd.from_pandas(runs.sample(frac=1, random_state=0), npartitions=3)
        assert irf.evaluate(mixed, qrels, ms).identical(expected)
    assert loader_calls == []


@pytest.mark.parametrize("order", ["best", "worst", "expected"])
def test_tie_orders_keep_the_doc_codes_pending(loader_calls, order):
    """A tie order with a depth (``order_ties``, ``cut_after_order``) reorders and cuts the rows
    without building the doc codes; built afterwards, every row's doc is the caller's row's, and
    the cube is the encoded path's."""
    from irframe.measures.ties import cut_after_order

    runs, qrels = msmarco_like(queries=6, depth=40, systems=2)
    a = A.align(runs, qrels)
    b = cut_after_order(a, order, 15)
    assert loader_calls == []
    assert b.n_rows < a.n_rows
    assert [b.docs[d] for d in b.row_doc] == [runs.doc.iloc[i] for i in b.row_source]
    assert len(loader_calls) == 1
    ms = ["AP", "nDCG@10", "P@5", "R@15"]
    lookup = irf.evaluate(runs, qrels, ms, order=order, depth=15)
    assert len(loader_calls) == 1  # evaluate built none either
    A._LOOKUP = False  # (restored by the fixture's monkeypatch)
    np.testing.assert_array_equal(
        lookup.values, irf.evaluate(runs, qrels, ms, order=order, depth=15).values
    )


def test_diversity_and_rarity_read_judged_docs_only(monkeypatch):
    """Diversity and rarity measures on runs of mostly distinct docs: they read the judged
    docs' codes only, so the table of every run doc is not built (it took 1.2 GB and 6.9 s
    of alpha_nDCG on 5 M rows); the values equal those of the fully encoded path, itself
    checked against ndeval and the rarity authors' code (test_diversity_ndeval.py,
    test_rarity.py). Property test across the two paths."""
    runs, qrels = msmarco_like(queries=12, depth=30, systems=3)
    rng = np.random.default_rng(1)
    div = qrels.assign(subtopic=rng.integers(1, 4, len(qrels)).astype(str))
    div = pd.concat([div, div.assign(subtopic="9")]).reset_index(drop=True)  # two aspects each
    measures = ["alpha_nDCG@10", "ERR_IA@10", "P_IA@5", "StRecall@10", "D_nDCG@10"]
    rare = ["P_rare(alpha=0.5)@10", "AP_rare(alpha=0.5)", "AP"]
    monkeypatch.setattr(A, "_LOOKUP", False)
    want_div = irf.evaluate(runs, div, measures)
    want_rare = irf.evaluate(runs, qrels, rare)
    monkeypatch.setattr(A, "_LOOKUP", True)
    built = []
    real = A._DocLoader.__call__
    monkeypatch.setattr(A._DocLoader, "__call__", lambda self, a: built.append(1) or real(self, a))
    got_div = irf.evaluate(runs, div, measures)
    got_rare = irf.evaluate(runs, qrels, rare)
    assert not built  # no table of every run doc
    np.testing.assert_allclose(got_div.values, want_div.values, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_rare.values, want_rare.values, rtol=1e-12, atol=1e-12)
    table = irf.rarity.rare_finds(runs, qrels, k=10)
    monkeypatch.setattr(A, "_LOOKUP", False)
    pd.testing.assert_frame_equal(table, irf.rarity.rare_finds(runs, qrels, k=10))
