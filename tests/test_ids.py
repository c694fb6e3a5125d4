"""Id columns → codes (``irframe._ids``) against a brute-force encoder written here.

``object`` columns are encoded by object identity first and by value second; these tests mix
objects shared by many rows, equal strings held by distinct objects, runs and non-runs, and
missing or non-string ids, and compare with a dict-based first-appearance encoder.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from irframe import _ids
from irframe.errors import InputError


def _missing(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def brute_force(values) -> tuple[list[int], list]:
    """First-appearance codes by value (dict lookup); missing values get -1."""
    seen: dict = {}
    codes = [-1 if _missing(v) else seen.setdefault(v, len(seen)) for v in values]
    return codes, list(seen)


def fresh(s: str) -> str:
    """A str equal to ``s`` held by a new object (CPython shares only 0/1-character strings)."""
    return "".join(list(s))


WORDS = ["d1", "d2", "doc-10", "é", "", "D000-000123", "a b", "x"]


@st.composite
def object_ids(draw, missing: bool = False):
    """An object array of str ids: values drawn as runs of shared or fresh objects."""
    shared = [fresh(w) for w in WORDS]  # one object per word, shared by the rows that use it
    pieces = draw(
        st.lists(
            st.tuples(
                st.integers(0, len(WORDS) - 1),  # which word
                st.sampled_from(["shared", "fresh", "mixed"]),
                st.integers(1, 30),
            ),  # run length
            max_size=12,
        )
    )
    values: list = []
    for w, kind, length in pieces:
        for i in range(length):
            use_shared = kind == "shared" or (kind == "mixed" and i % 2 == 0)
            values.append(shared[w] if use_shared else fresh(WORDS[w]))
    if draw(st.booleans()):  # rows out of run order
        perm = draw(st.permutations(range(len(values))))
        values = [values[i] for i in perm]
    if missing and values:
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(values) - 1))
            values[i] = draw(st.sampled_from([None, float("nan"), np.nan, pd.NA]))
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(object_ids(missing=True), object_ids()), st.booleans())
def test_object_codes_match_brute_force(values, runs):
    """Every path (identity, values compared in runs, pyarrow strings for one object per row,
    pandas' factorize with missing ids) against the dict-based encoder."""
    before = [id(v) for v in values]
    codes, uniques = _ids._object_encode(values, runs)
    want_codes, want_uniques = brute_force(values)
    assert codes.tolist() == want_codes
    uniques = _ids._as_str(uniques)
    assert list(uniques) == want_uniques and all(type(u) is str for u in uniques)
    # int32; by runs (system, topic: few distinct ids) the smallest type, as pandas' categoricals
    assert codes.dtype == np.int32 or codes.dtype == _ids.small_code_dtype(len(uniques))
    assert [id(v) for v in values] == before  # the caller's array is untouched


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(object_ids(), object_ids(), st.booleans())
def test_encode_merges_run_and_qrels_ids_like_brute_force(run_ids, qrels_ids, runs):
    """encode(): one code per distinct string across both columns, first-appearance order."""
    frames = [
        (pd.DataFrame({"doc": pd.Series(run_ids, dtype=object)}), "doc", "run frame"),
        (pd.DataFrame({"doc": pd.Series(qrels_ids, dtype=object)}), "doc", "qrels frame"),
    ]
    (rc, qc), uniques = _ids.encode(frames, runs=runs)
    want, want_uniques = brute_force(list(run_ids) + list(qrels_ids))
    assert rc.tolist() + qc.tolist() == want
    assert uniques.tolist() == want_uniques


@pytest.mark.parametrize("kind", ["shared", "fresh"])
@pytest.mark.parametrize("runs", [False, True])
@pytest.mark.parametrize("bad", [None, float("nan"), pd.NA, 7, b"d1", 1.5])
def test_missing_or_non_string_object_ids_name_the_row(kind, runs, bad):
    """Every path (identity runs, identity hashing, values) still refuses a bad id by row."""
    n = 400
    words = [f"doc{i % 5}" for i in range(n)] if not runs else [f"sys{i // 100}" for i in range(n)]
    pool = {w: fresh(w) for w in set(words)}
    values = [pool[w] if kind == "shared" else fresh(w) for w in words]
    values[237] = bad
    df = pd.DataFrame({"doc": pd.Series(values, dtype=object)})
    with pytest.raises(InputError, match=r"column 'doc'.*row 237"):
        _ids.encode([(df, "doc", "run frame")], runs=runs)


def test_identity_paths_are_taken():
    """The sample rule sends shared objects through identity hashing and one object per row
    past it (so the property tests above exercise both)."""
    words = [f"D{i % 300:06d}" for i in range(20_000)]
    pool = {w: fresh(w) for w in set(words)}
    shared = np.array([pool[w] for w in words], dtype=object)
    per_row = np.array([fresh(w) for w in words], dtype=object)
    assert _ids._shared_objects(np.asarray(_ids._Addresses(shared)))
    assert not _ids._shared_objects(np.asarray(_ids._Addresses(per_row)))
    for values in (shared, per_row):
        codes, uniques = _ids._object_encode(values, runs=False)
        want, want_uniques = brute_force(values)
        assert codes.tolist() == want and list(_ids._as_str(uniques)) == want_uniques


@pytest.mark.parametrize("bad", [None, pd.NA, 7])
def test_encode_of_object_columns_by_identity_merges_equal_strings(bad):
    """Two ``object`` columns large enough for the identity path (checked), each holding
    every id in two distinct objects, the qrels ids partly the run's: encode() factorizes the
    distinct objects by value once, in the merge (one column: on its own), and must still
    give one code per string (brute force) and refuse a bad id by column and row."""
    rng = np.random.default_rng(7)
    run_words = [f"D{i:06d}" for i in rng.integers(0, 3000, 30_000)]
    q_words = [f"D{i:06d}" for i in rng.integers(2000, 4000, 8_000)]
    pools = [{w: fresh(w) for w in set(run_words + q_words)} for _ in range(2)]
    run_ids = np.array([pools[(i // 7) % 2][w] for i, w in enumerate(run_words)], dtype=object)
    q_ids = np.array([pools[i % 2][w] for i, w in enumerate(q_words)], dtype=object)
    for ids in (run_ids, q_ids):
        assert _ids._shared_objects(np.asarray(_ids._Addresses(ids)))

    def frames():  # object columns (pandas 3 would infer str from the arrays)
        return [
            (pd.DataFrame({"doc": pd.Series(run_ids, dtype=object)}), "doc", "run frame"),
            (pd.DataFrame({"doc": pd.Series(q_ids, dtype=object)}), "doc", "qrels frame"),
        ]

    (rc, qc), uniques = _ids.encode(frames())
    want, want_uniques = brute_force(list(run_ids) + list(q_ids))
    assert rc.tolist() + qc.tolist() == want
    assert uniques.tolist() == want_uniques
    (rc,), uniques = _ids.encode(frames()[:1])  # one column: factorized by value on its own
    want, want_uniques = brute_force(list(run_ids))
    assert rc.tolist() == want and uniques.tolist() == want_uniques
    q_ids[4321] = bad
    with pytest.raises(InputError, match=r"qrels frame.*column 'doc'.*row 4321"):
        _ids.encode(frames())


def test_addresses_are_the_objects_ids_and_keep_them_alive():
    values = np.array([fresh("abc"), fresh("abc"), None], dtype=object)[::-1]  # not contiguous
    holder = _ids._Addresses(values)
    addresses = np.asarray(holder)
    assert addresses.tolist() == [id(v) for v in values]
    assert addresses.base is holder and not addresses.flags.writeable


@st.composite
def arrow_ids(draw):
    """A pyarrow chunked string array (string or large_string, sliced or not) of runs of a few
    words, all of one byte length or of mixed lengths."""
    pa = pytest.importorskip("pyarrow")
    width = draw(st.sampled_from([None, 0, 1, 3]))  # None: words of mixed lengths
    alphabet = st.sampled_from("abé")
    word = (
        st.text(alphabet, max_size=4)
        if width is None
        else st.text(st.sampled_from("ab"), min_size=width, max_size=width)
    )
    words = draw(st.lists(word, min_size=1, max_size=4))
    runs = draw(
        st.lists(st.tuples(st.integers(0, len(words) - 1), st.integers(1, 12)), max_size=10)
    )
    values = [words[w] for w, length in runs for _ in range(length)]
    cuts = sorted(draw(st.lists(st.integers(0, len(values)), max_size=3)))
    typ = draw(st.sampled_from([pa.string(), pa.large_string()]))
    arr = pa.chunked_array(
        [pa.array(values[a:b], typ) for a, b in zip([0, *cuts], [*cuts, len(values)], strict=True)],
        typ,
    )
    skip = draw(st.integers(0, 2))
    return arr[skip:] if skip <= len(arr) else arr


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrow_ids(), st.booleans())
def test_arrow_codes_match_brute_force(arr, runs):
    """pyarrow strings, by runs (the byte-periodicity shortcut for one-width values, string
    comparison otherwise) and by hashing, against the dict-based encoder."""
    codes, uniques = _ids._arrow_encode(arr, runs)
    want_codes, want_uniques = brute_force(arr.to_pylist())
    assert codes.tolist() == want_codes
    assert uniques.to_pylist() == want_uniques


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrow_ids(), st.sampled_from([1, 2, 5, 1 << 22]))
def test_fixed_width_run_heads_match_brute_force(arr, block):
    """Where the shortcut applies, its run heads are the rows differing from the row before
    (also when the byte comparison runs in blocks that cut through values)."""
    values = arr.to_pylist()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_ids, "_BLOCK", block)
        heads = _ids._fixed_width_heads(arr)
    if heads is not None:
        assert heads.tolist() == [
            i for i in range(len(values)) if i == 0 or values[i] != values[i - 1]
        ]


def test_fixed_width_shortcut_is_taken_on_sorted_names():
    pa = pytest.importorskip("pyarrow")
    names = [f"sys{s:03d}" for s in range(7) for _ in range(500)]
    arr = pa.chunked_array([pa.array(names[:1200]), pa.array(names[1200:])])
    assert _ids._fixed_width_heads(arr).tolist() == list(range(0, 3500, 500))
    assert (
        _ids._fixed_width_heads(pa.chunked_array([pa.array(["a", "bb"] * 10)])) is None
    )  # widths differ


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    object_ids(), st.lists(st.sampled_from(["zz", "unused", "d2", "0"]), max_size=4), st.booleans()
)
def test_category_codes_drop_unused_categories_like_brute_force(values, extra, runs):
    """``category`` columns, with categories no row uses (a filtered frame), in runs or not:
    the uniques are exactly the ids present, each row's code points at its own id."""
    cats = sorted(set(values) | set(extra))
    s = pd.Series(pd.Categorical(values, categories=cats))
    codes, uniques = _ids._encode_one(s, runs)
    uniques = list(_ids._as_str(uniques))
    assert sorted(uniques) == sorted(set(values))
    assert [uniques[c] for c in codes] == list(values)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    object_ids(),
    object_ids(),
    st.sampled_from(["str", "object", "category"]),
    st.sampled_from(["object", "str"]),
    st.data(),
)
def test_encode_by_topic_groups_like_brute_force(
    monkeypatch, run_ids, qrels_ids, run_dtype, qrels_dtype, data
):
    """encode() with the run column's topics (align's doc encoding), the groups forced (no
    size thresholds, a group per topic, two cores): whatever the topics (one block after
    another, interleaved) and dtypes (pandas strings, one object per row or shared objects,
    category), each column's codes decode to its own values and the uniques are distinct."""
    pytest.importorskip("pyarrow")
    monkeypatch.setattr(_ids, "_GROUPS_MIN_ROWS", 0)
    monkeypatch.setattr(_ids, "_GROUP_ROWS", 1)
    monkeypatch.setattr(_ids, "_MIN_SLICE_ROWS", data.draw(st.sampled_from([0, 0, 3])))
    monkeypatch.setattr(_ids.os, "cpu_count", lambda: 2)
    n_topics = data.draw(st.integers(1, 4))
    topic = np.array(
        data.draw(
            st.lists(st.integers(0, n_topics - 1), min_size=len(run_ids), max_size=len(run_ids))
        ),
        dtype=np.int8,
    )
    if data.draw(st.booleans()):
        topic = np.sort(topic)  # one block per topic, as run files and frames list them

    def column(ids, dtype):
        s = pd.Series(ids, dtype=object)
        return (
            s
            if dtype == "object"
            else s.astype(pd.StringDtype("pyarrow")).astype(
                "category" if dtype == "category" else pd.StringDtype("pyarrow")
            )
        )

    grouped = []
    encode = _ids.encode_by_topic
    monkeypatch.setattr(
        _ids, "encode_by_topic", lambda *a: grouped.append(encode(*a)) or grouped[-1]
    )
    frames = [
        (pd.DataFrame({"doc": column(run_ids, run_dtype)}), "doc", "run frame"),
        (pd.DataFrame({"doc": column(qrels_ids, qrels_dtype)}), "doc", "qrels frame"),
    ]
    (rc, qc), uniques = _ids.encode(frames, topic=(topic, n_topics))
    assert uniques[rc].tolist() == list(run_ids) and uniques[qc].tolist() == list(qrels_ids)
    assert len(set(uniques.tolist())) == len(uniques)
    assert all(type(u) is str for u in uniques)
    if run_dtype == "str" and len(set(topic.tolist())) > 1 and len(set(run_ids)) > 0:
        assert grouped  # the groups were tried


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(object_ids(), object_ids(), st.sampled_from(["str", "category"]), st.booleans())
def test_encode_merges_arrow_and_category_ids_like_brute_force(run_ids, qrels_ids, dtype, runs):
    """encode() of arrow-backed str or category columns (the pyarrow merge, which hashes the
    smaller of the two sets of ids, either side): one code per distinct string across both
    columns.  str: first-appearance order, as the brute force; category: each column's
    codes decode to its values and the uniques are distinct."""
    pytest.importorskip("pyarrow")
    pa_str = pd.StringDtype("pyarrow")
    frames = [
        (
            pd.DataFrame(
                {
                    "doc": pd.Series(ids, dtype=object)
                    .astype(pa_str)
                    .astype("category" if dtype == "category" else pa_str)
                }
            ),
            "doc",
            what,
        )
        for ids, what in ((run_ids, "run frame"), (qrels_ids, "qrels frame"))
    ]
    (rc, qc), uniques = _ids.encode(frames, runs=runs)
    assert uniques[rc].tolist() == list(run_ids) and uniques[qc].tolist() == list(qrels_ids)
    assert len(set(uniques.tolist())) == len(uniques)
    if dtype == "str":
        want, want_uniques = brute_force(list(run_ids) + list(qrels_ids))
        assert rc.tolist() + qc.tolist() == want and uniques.tolist() == want_uniques


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["a", "bb", "", "ccc", "é"]), max_size=6), min_size=1, max_size=6
    ),
    st.data(),
)
def test_take_increasing_matches_pyarrow_take(chunks, data):
    """Chunk-by-chunk take against pyarrow's own take of the concatenated column (empty
    chunks included)."""
    pa = pytest.importorskip("pyarrow")
    arr = pa.chunked_array(chunks, type=pa.string())
    n = len(arr)
    rows = np.array(
        sorted(data.draw(st.sets(st.integers(0, max(n - 1, 0)), max_size=n))) if n else [],
        dtype=np.int64,
    )
    got = _ids.take_increasing(arr, rows)
    assert got.to_pylist() == arr.combine_chunks().take(pa.array(rows, pa.int64())).to_pylist()


_ID_VALUES = st.one_of(
    st.text(max_size=6),
    st.text(max_size=6).map(np.str_),
    st.binary(max_size=4),
    st.none(),
    st.just(float("nan")),
    st.integers(-5, 5),
    st.just(pd.NA),
)


@given(st.lists(_ID_VALUES, max_size=12))
@example([np.str_("\x00")])  # found by hypothesis: prints as "", holds one NUL
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_run_docs_of_object_ids_by_brute_force(values):
    """Property (against a rule written here): an ``object`` doc column is read by lookup
    exactly when every id is a str (numpy str included) that UTF-8 can encode, with the same
    strings; a column with any other value (bytes, None, NaN, NA, a number) raises the id
    rule's InputError; str ids that are not UTF-8 (lone surrogates) go to the encoded path."""
    df = pd.DataFrame({"doc": pd.Series(values, dtype=object)})
    all_str = all(isinstance(v, str) for v in values)
    if not all_str:
        with pytest.raises(InputError):
            _ids.run_docs(df, "doc", "run frame")
        return
    got = _ids.run_docs(df, "doc", "run frame")

    def utf8(v: str) -> bool:
        try:
            v.encode()
        except UnicodeEncodeError:
            return False
        return True

    if not all(utf8(v) for v in values):
        assert got is None
        return
    assert got is not None
    # the strings themselves: str() of a numpy str drops trailing NULs (np.str_("\x00") prints
    # as ""), the base class's __str__ gives the value a str comparison sees
    assert got.strings(np.arange(len(values))).to_pylist() == [str.__str__(v) for v in values]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="peak memory read from /proc")
def test_one_long_id_object_in_many_rows_is_not_copied_per_row(tmp_path):
    """A topic id of 1 MB held by one Python object in 2,000 of 20,000 rows (the ids hold
    ~3 MB): the peak memory of evaluating it follows the input, not rows × id length (it
    copied every row's string to arrow: ~800 MB; by identity now)."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import numpy as np, pandas as pd, irframe as irf\n"
        "def hwm():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM'):\n"
        "            return int(line.split()[1]) * 1024\n"
        "N = 20000\n"
        "topic = np.array([f't{i % 10}' for i in range(N)], dtype=object)\n"
        "topic[::10] = 'x' * 1_000_000\n"
        "runs = pd.DataFrame({'system': pd.Series(['s'] * N, dtype=object),\n"
        "    'topic': pd.Series(topic, dtype=object),\n"
        "    'doc': pd.Series([f'd{i}' for i in range(N)], dtype=object),\n"
        "    'score': np.random.default_rng(0).random(N)})\n"
        "qrels = pd.DataFrame({'topic': pd.Series(topic[::7], dtype=object),\n"
        "    'doc': pd.Series(runs.doc[::7].to_numpy(), dtype=object), 'rel': 1})\n"
        "irf.evaluate(runs.head(50), qrels.head(10), ['AP'])  # imports, first-call caches\n"
        "before = hwm()\n"
        "cube = irf.evaluate(runs, qrels, ['AP'])\n"
        "print(hwm() - before, cube.sizes['topic'])\n"
    )
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True
    ).stdout.split()
    growth, topics = int(out[0]), int(out[1])
    assert topics == 10
    assert growth < 200 * 2**20, f"peak memory grew by {growth / 2**20:.0f} MB"
