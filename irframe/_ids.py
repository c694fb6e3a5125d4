"""Id columns → integer codes: the one place where run and qrels ids are factorized.

Every id column (system, topic, doc, subtopic) becomes integer codes (int32 while the
distinct ids fit, else int64: half the memory traffic per row; a ``category`` column's own
codes, int8 to int32, read-only and not copied; columns encoded by runs, system and topic,
in the smallest type, `small_code_dtype`) plus its distinct ids,
never a fixed-width string array, so memory is proportional to the ids themselves.
Arrow-backed strings are encoded with pyarrow's hash tables, ``category`` columns reuse
their codes, ``object`` columns use pandas' hash table and are checked on their distinct
values.  Run and qrels columns are encoded on their own and only their distinct values are
merged (`encode`), so every row is hashed once.

Runs whose docs are mostly distinct (a corpus of millions: MS MARCO, BEIR, TREC DL;
`docs_mostly_distinct`) are not encoded at all: `RunDocs` looks each row's doc
up among the judged docs, hashes the docs for the duplicate check and reads the strings of
tied rows only ([`irframe.align.align`][irframe.align.align]).

>>> import pandas as pd
>>> (r, q), uniques = encode([(pd.DataFrame({"doc": ["b", "a"]}), "doc", "run frame"),
...                           (pd.DataFrame({"doc": ["a", "z"]}), "doc", "qrels frame")])
>>> r.tolist(), q.tolist(), uniques.tolist()
([0, 1], [1, 2], ['b', 'a', 'z'])
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ._arrow import POOL
from ._threads import map_threads
from .errors import InputError
from .schema import check_id_column

#: each row's topic code and the number of topics (`encode_by_topic`), or None
Topics = tuple[np.ndarray, int] | None

__all__ = [
    "RunDocs",
    "arrow_strings",
    "code_dtype",
    "docs_mostly_distinct",
    "encode",
    "encode_by_topic",
    "encode_group",
    "run_docs",
    "small_code_dtype",
    "sort_order",
    "sorted_codes",
    "str_sort_order",
]


def code_dtype(n: int) -> type[np.signedinteger[Any]]:
    """The smallest of int32/int64 holding the codes ``0..n`` (and -1).

    >>> code_dtype(150_000).__name__, code_dtype(2**31).__name__
    ('int32', 'int64')
    """
    return np.int32 if n < 2**31 - 1 else np.int64


def small_code_dtype(n: int) -> type[np.signedinteger[Any]]:
    """The smallest signed integer type holding the codes ``0..n-1`` and -1, as pandas keeps a
    categorical's codes (int8 below 127 values, int16, int32, int64): for columns of few
    distinct ids (system, topic), whose codes repeat over many rows.

    >>> small_code_dtype(50).__name__, small_code_dtype(150_000).__name__
    ('int8', 'int32')
    """
    for t in (np.int8, np.int16, np.int32):
        if n < np.iinfo(t).max:
            return t
    return np.int64


def _arrow_strings(s: pd.Series):
    """The pyarrow string data behind an arrow-backed string column (zero copy), else None."""
    dtype = s.dtype
    if isinstance(dtype, pd.StringDtype):
        if dtype.storage not in ("pyarrow", "pyarrow_numpy"):
            return None
    elif not (
        isinstance(dtype, pd.ArrowDtype)
        and str(dtype.pyarrow_dtype) in ("string", "large_string", "string_view")
    ):
        return None
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - arrow-backed dtypes imply pyarrow
        return None
    arr = _chunked(pa.array(s.array))  # __arrow_array__: the column's own (chunked) array
    if str(arr.type) == "string_view":  # few kernels take views (take, dictionary_encode)
        arr = arr.cast(pa.large_string())
    return arr


def _chunked(arr):
    """A pyarrow array as a chunked array of itself (a chunked array as it is)."""
    import pyarrow as pa

    return arr if isinstance(arr, pa.ChunkedArray) else pa.chunked_array([arr])


def _nonempty_chunks(arr) -> list[Any]:
    """The chunks of a pyarrow (chunked) array that hold rows, in order."""
    return [c for c in _chunked(arr).chunks if len(c)]


_BLOCK = 1 << 22


def run_heads(changed: np.ndarray) -> np.ndarray:
    """Rows starting a run of equal values (row 0 included), from ``changed`` (per row after
    the first: differs from the row before).

    >>> x = np.array([1, 1, 2, 2, 2, 1])
    >>> run_heads(x[1:] != x[:-1]).tolist()
    [0, 2, 5]
    """
    return np.flatnonzero(np.concatenate([[True], changed]))


def _fixed_width_heads(arr) -> np.ndarray | None:
    """Rows whose value differs from the row before (row 0 included) of a pyarrow chunked
    string array whose values all have one byte length L (system and topic names often do).

    Within a run of equal values the data bytes repeat with period L, so comparing the data
    buffer with itself shifted by L bytes (in blocks of 4 MB) finds every change without a
    string comparison per row.  None (the caller compares strings) for other widths or
    layouts, nulls, or many changes (their byte positions would outnumber the rows)."""
    import pyarrow as pa

    heads, start, width, last = [], 0, None, None
    for c in arr.chunks:
        m = len(c)
        if not m:
            continue
        if c.null_count or not (pa.types.is_string(c.type) or pa.types.is_large_string(c.type)):
            return None
        itemsize = 4 if pa.types.is_string(c.type) else 8
        offsets = np.frombuffer(
            c.buffers()[1], np.int32 if itemsize == 4 else np.int64, m + 1, c.offset * itemsize
        )
        length = int(offsets[1] - offsets[0])
        if (
            (width is not None and length != width)
            or offsets[-1] - offsets[0] != length * m
            or not (np.diff(offsets) == length).all()
        ):
            return None
        width = length
        data = (
            np.frombuffer(c.buffers()[2], np.uint8, length * m, int(offsets[0]))
            if length
            else np.zeros(0, np.uint8)
        )
        changed, count = (
            [],
            0,
        )  # bytes differing from the byte L before, by blocks of bounded memory
        for lo in range(0, len(data) - length, _BLOCK):
            hi = min(len(data) - length, lo + _BLOCK)
            changed.append(lo + np.flatnonzero(data[lo + length : hi + length] != data[lo:hi]))
            count += len(changed[-1])
            if count > m:
                return None
        rows = np.concatenate(changed) // length + 1 if changed else np.zeros(0, np.intp)
        first = data[:length].tobytes()
        if last is None or first != last:
            heads.append(np.array([start]))
        heads.append(start + rows[np.diff(rows, prepend=0) != 0])
        start, last = start + m, data[len(data) - length :].tobytes()
    return np.concatenate(heads) if heads else np.zeros(0, np.intp)


def take_increasing(arr, rows: np.ndarray):
    """``arr[rows]`` of a pyarrow (chunked) array, for increasing ``rows``, taken chunk by chunk:
    pyarrow's ``take`` on a chunked array first concatenates every chunk, a copy of the whole
    column (~30 MB for 2.5 M short ids) to take a few thousand values.

    >>> import pyarrow as pa
    >>> take_increasing(pa.chunked_array([["a", "b"], ["c"], ["d", "e"]]), np.array([1, 3, 4])).to_pylist()
    ['b', 'd', 'e']
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    starts = np.cumsum([0] + [len(c) for c in chunks])
    cut = np.searchsorted(rows, starts)  # rows[cut[i]:cut[i + 1]] fall in chunk i
    parts = [
        pc.take(c, pa.array(rows[cut[i] : cut[i + 1]] - starts[i]), memory_pool=POOL)
        for i, c in enumerate(chunks)
        if cut[i + 1] > cut[i]
    ]
    return pa.chunked_array(parts, type=arr.type)


def _arrow_encode(arr, runs: bool, topic: Topics = None) -> tuple[np.ndarray, Any]:
    """Codes and uniques (a pyarrow array) of a pyarrow (chunked) string array; ``runs``
    encodes only the first value of every run of equal adjacent values (a sorted
    system/topic column has few); ``topic`` (each row's topic code, and the number of
    topics) encodes by groups of topics on two threads when it pays (`encode_by_topic`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(arr)
    if topic is not None and not runs:
        chunks = _nonempty_chunks(arr)
        grouped = encode_by_topic(chunks, topic[0], topic[1]) if chunks else None
        if grouped is not None:
            return grouped
    heads = None
    if runs and n > 1:
        heads = _fixed_width_heads(arr)
        if heads is None:
            change = pc.not_equal(arr[1:], arr[:-1], memory_pool=POOL).to_numpy(
                zero_copy_only=False
            )
            heads = run_heads(change)
        if len(heads) > n // 8:
            heads = None
        else:
            arr = take_increasing(arr, heads)
    chunks = _nonempty_chunks(arr)
    if not chunks:
        return np.zeros(0, np.int32), pa.array([], pa.string())
    enc = encode_group(chunks)  # one dictionary shared by every chunk
    dictionary = enc.chunk(0).dictionary
    codes = np.concatenate(
        [c.indices.to_numpy(zero_copy_only=False) for c in enc.chunks], dtype=np.int32
    )  # arrow's dictionary indices are int32
    if heads is not None:
        codes = np.repeat(
            codes.astype(small_code_dtype(len(dictionary))), np.diff(np.append(heads, n))
        )
    return codes, dictionary


def encode_group(chunks: list[Any]) -> Any:
    """The chunks dictionary-encoded together: one chunked array whose chunks share one
    dictionary (of every chunk's strings, in first-appearance order)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(pa.chunked_array(chunks, type=chunks[0].type), memory_pool=POOL)
    # dictionary_encode shares one memo table across chunks: every chunk then points
    # at the same dictionary buffer (comparing the contents would cost more).
    if len({(c.dictionary.buffers()[1].address, len(c.dictionary)) for c in enc.chunks}) == 1:
        return enc
    return pa.chunked_array([enc.combine_chunks()])  # pragma: no cover - other pyarrow versions


#: below this many rows, `encode_by_topic` is not worth its threads
_GROUPS_MIN_ROWS = 1 << 18
#: about this many rows per topic group in `encode_by_topic`
_GROUP_ROWS = 1 << 17
#: `encode_by_topic` gives up when its slices hold fewer rows than this on average
_MIN_SLICE_ROWS = 1 << 10


def encode_by_topic(
    chunks: list[Any],
    topic: np.ndarray,
    n_topics: int,
    sort_dictionary: Callable[[Any], tuple[np.ndarray, Any]] | None = None,
) -> tuple[np.ndarray, Any] | None:
    """Codes (`small_code_dtype`) and dictionary (pyarrow) of the strings of ``chunks``
    (pyarrow string arrays of one type, the rows in order) whose rows have topic codes
    ``topic`` (0 .. ``n_topics`` - 1): the rows are encoded in groups of a few topics each,
    on two threads, and only the groups' dictionaries are merged.  The dictionary is in the
    groups' order, or sorted by ``sort_dictionary`` (a function of it giving each entry's
    rank and the sorted dictionary), which the codes then follow.

    Documents are retrieved for one topic, so a group's rows hold few distinct doc ids and
    its hash table stays in the processor's cache (one table for every row is ~2× slower
    per row, whatever the threads).  A group is a list of slices of the chunks, no copy:
    run files and frames list a topic's rows together.  None (encode whole) for small
    inputs, one core or rows whose topics alternate.  Only speed depends on the groups.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    codes = np.asarray(topic)
    n = len(codes)
    n_groups = min(n // _GROUP_ROWS, n_topics, 255)
    if n < _GROUPS_MIN_ROWS or n_groups < 2 or (os.cpu_count() or 1) < 2:
        return None
    # runs of one topic (run files list a topic's rows together): counted per run, never per
    # row (a row-long count or lookup would first widen every small code to int64)
    run_start = run_heads(codes[1:] != codes[:-1])
    run_topic = codes[run_start]
    run_rows = np.diff(np.append(run_start, n))
    # topics (in code order) cut into groups of about equal rows
    rows_before = (
        np.cumsum(np.bincount(run_topic, weights=run_rows, minlength=n_topics)).astype(np.int64) - 1
    )
    run_group = (rows_before * n_groups // n).astype(np.uint8)[run_topic]
    lengths = np.fromiter((len(c) for c in chunks), np.int64, len(chunks))
    chunk_starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    # slices: one group, one chunk
    starts = np.union1d(run_start[run_heads(run_group[1:] != run_group[:-1])], chunk_starts)
    if len(starts) * _MIN_SLICE_ROWS > n:  # groups alternate: slices would be too short
        return None
    group = run_group[np.searchsorted(run_start, starts, side="right") - 1]  # each slice's group
    ends = np.append(starts[1:], n)
    in_chunk = np.searchsorted(chunk_starts, starts, side="right") - 1
    slices: list[list[Any]] = [[] for _ in range(n_groups)]
    places: list[list[tuple[int, int]]] = [[] for _ in range(n_groups)]
    for start, end, c, g in zip(
        starts.tolist(), ends.tolist(), in_chunk.tolist(), group.tolist(), strict=True
    ):
        slices[g].append(chunks[c].slice(start - int(chunk_starts[c]), end - start))
        places[g].append((start, end))
    encoded = map_threads(lambda s: encode_group(s) if s else None, slices, 2)
    dicts = [enc.chunk(0).dictionary for enc in encoded if enc is not None]
    both = pc.dictionary_encode(pa.concat_arrays(dicts, memory_pool=POOL), memory_pool=POOL)
    dictionary = both.dictionary
    dtype = small_code_dtype(len(dictionary))
    remap = both.indices.to_numpy(zero_copy_only=False)  # group's code -> merged code
    if sort_dictionary is not None:  # -> sorted code
        rank, dictionary = sort_dictionary(dictionary)
        remap = rank[remap]
    remap = remap.astype(dtype)
    out = np.empty(n, dtype)
    offset = 0
    for enc, where in zip(encoded, places, strict=True):
        if enc is None:
            continue
        size = len(enc.chunk(0).dictionary)
        rm = remap[offset : offset + size]
        offset += size
        idx = [c.indices.to_numpy(zero_copy_only=False) for c in enc.chunks]
        if len(idx) != len(where):  # pragma: no cover - chunks combined (other pyarrow versions)
            idx = np.split(
                np.concatenate(idx), np.cumsum([end - start for start, end in where])[:-1]
            )
        for i, (start, end) in zip(idx, where, strict=True):  # one chunk per slice, in order
            np.take(rm, i, out=out[start:end], mode="clip")  # (valid indices: clip skips a buffer)
    return out, dictionary


class _Addresses:
    """``np.asarray`` of this is the addresses of an object array's elements as intp, zero copy
    (numpy refuses ``.view`` on object arrays).  The result's ``base`` is this holder, which
    keeps the array, hence its objects and their addresses, alive while the result lives."""

    def __init__(self, values: np.ndarray):
        self.values = np.ascontiguousarray(values, dtype=object)
        self.__array_interface__ = {
            "shape": (len(self.values),),
            "typestr": np.dtype(np.intp).str,
            "data": (self.values.ctypes.data, True),
            "version": 3,
        }


def _first_rows(codes: np.ndarray) -> np.ndarray:
    """Row of the first appearance of each code, for codes numbered in first-appearance order
    (a code is new exactly where it exceeds every earlier one)."""
    if not len(codes):
        return np.zeros(0, np.intp)
    return np.concatenate([[0], np.flatnonzero(codes[1:] > np.maximum.accumulate(codes)[:-1]) + 1])


def _int_codes(keys: np.ndarray) -> np.ndarray:
    """First-appearance codes of an integer array (pyarrow's hash table when installed:
    faster than pandas' on machine addresses)."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:  # pragma: no cover - pyarrow is an optional speed-up
        return pd.factorize(keys)[0]
    return pc.dictionary_encode(pa.array(keys), memory_pool=POOL).indices.to_numpy(
        zero_copy_only=False
    )


def _shared_objects(addresses: np.ndarray) -> bool:
    """Whether rows share their objects enough for encoding by identity to pay: on a strided
    sample of ~4√n rows, fewer distinct objects than expected if each object served 4 rows.

    With D = n/r objects each serving r rows, m rows drawn from n hold about
    D·(1 - (1 - m/n)^r) distinct objects, fewer the larger r; identity first when the sample
    holds at most the count for r = 4.  One object per row (``astype(object)`` of arrow
    strings) never repeats, so it is always factorized by value directly.
    """
    n = len(addresses)
    sample = addresses[:: _sample_step(n)]
    m = len(sample)
    return len(pd.unique(sample)) <= n / 4 * (1 - (1 - m / n) ** 4)


def _sample_step(n: int) -> int:
    """The stride of `_shared_objects`' sample of ~4√n rows."""
    return max(1, n // (4 * int(np.sqrt(n)) + 1))


def _long_objects(values: np.ndarray) -> bool:
    """Whether copying every row's string would take far more memory than the rows hold:
    on the strided sample, the mean length times the rows above 128 MB.  Rows that share a
    long id's object (one long topic id in many rows) then go by identity, whose memory
    follows the distinct objects, not rows × length."""
    sample = values[:: _sample_step(len(values))]
    lengths = [len(v) if isinstance(v, str) else 0 for v in sample]
    return bool(lengths) and sum(lengths) / len(lengths) * len(values) > 2**27


def _object_encode(
    values: np.ndarray, runs: bool, by_value: bool = True, topic: Topics = None
) -> tuple[np.ndarray, Any]:
    """Codes and uniques (first-appearance order; with ``topic``, possibly the order of the
    topic groups) of an object array, by object identity first.

    pandas 2.2 reads strings into one Python object per distinct id (``read_parquet``; per chunk
    for ``read_csv``), so rows are first told apart by their objects' addresses, with integer
    hashing, and only the distinct objects are factorized by value (pandas' hash table), which
    merges equal strings held by distinct objects.  ``runs`` (system/topic): only the first row
    of every run of one object is factorized (when runs are at most an eighth of the rows; else
    runs of equal values, as in `_arrow_encode`).  Rows of distinct objects (one object
    per row, `_shared_objects` false) are compared by value (``runs``) or copied to pyarrow
    strings once and encoded there (`_arrow_encode`, with ``topic``; uniques a pyarrow
    array): the doc column of ``../shared/bench/gen.py`` (2.5 M rows) takes 0.11 s so
    (0.08 s of it the copy) against 0.16 s in pandas' hash table of Python objects.
    Without pyarrow, or when not every row holds a str, they are factorized by value.
    Missing values (None, NaN, pd.NA) get code -1.

    ``by_value=False`` leaves the last step to the caller on the identity path: codes number
    the distinct objects and the uniques are those objects, which may repeat a value (equal
    strings in distinct objects) and hold missing values (`encode` factorizes them once
    with the other columns' uniques, instead of once per column and once more to merge).
    """
    n = len(values)
    holder = _Addresses(values)
    values, addresses = (
        holder.values,
        np.asarray(holder),
    )  # addresses into values, which stays alive
    shared = n > 1 and (_shared_objects(addresses) or _long_objects(values))
    if runs and n > 1:
        heads = run_heads(addresses[1:] != addresses[:-1]) if shared else None
        if (
            heads is None or len(heads) > n // 8
        ):  # objects not shared along the runs: compare the values
            try:
                heads = run_heads(values[1:] != values[:-1])
            except TypeError:  # pd.NA has no truth value: encode every row (the id check names it)
                heads = np.arange(n)
        if len(heads) <= n // 8:
            codes, uniques = pd.factorize(values[heads])
            return np.repeat(
                codes.astype(small_code_dtype(len(uniques))), np.diff(np.append(heads, n))
            ), uniques
    if shared:
        rows = _int_codes(addresses)
        objects = values[_first_rows(rows)]
        if not by_value:
            return rows.astype(code_dtype(len(objects)), copy=False), objects
        return _distinct(rows, objects)
    arr = _str_arrow(values)
    if arr is not None:
        return _arrow_encode(arr, False, topic)
    codes, uniques = pd.factorize(values)
    return codes.astype(code_dtype(len(uniques)), copy=False), uniques


def _str_arrow(values: np.ndarray):
    """A non-empty object array whose every element is a str (or numpy str) as a pyarrow
    string array, in one pass: pyarrow infers the type while it copies the UTF-8 bytes (a
    separate ``infer_dtype`` pass would touch every object twice; scattered objects miss the
    cache).  None when one is not (bytes infer as binary, None as null, other objects fail or
    infer another type), for lone surrogates (not UTF-8), or without pyarrow."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is an optional speed-up
        return None
    try:
        arr = pa.array(values)
    except (pa.ArrowException, UnicodeError, TypeError, ValueError):
        return None
    return arr if arr.type == pa.string() and not arr.null_count else None


def _encode_one(
    s: pd.Series, runs: bool, by_value: bool = True, topic: Topics = None
) -> tuple[np.ndarray, Any]:
    """Codes and uniques of one id column; uniques are exactly the ids present (unused
    categories dropped): a pyarrow string array for arrow-backed data, else an object array.
    Codes are int32 (int64 beyond 2**31 ids), except a ``category`` column's own codes
    (int8 to int32 after its number of categories), used as they are (read-only) when every
    category occurs, and codes encoded by ``runs`` or by ``topic`` groups (`_arrow_encode`),
    in `small_code_dtype`.  ``by_value`` is passed on to `_object_encode` for ``object``
    columns."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = s.cat.categories
        codes = s.array.codes  # the column's own codes (int8 to int64): a read-only view, no copy
        used = np.zeros(len(cats), bool)
        # which categories occur: from the first row of each run of equal codes when the
        # column comes in runs (system, topic), which spares indexing with every row
        heads = run_heads(codes[1:] != codes[:-1]) if runs and len(codes) > 1 else None
        if heads is not None and len(heads) <= len(codes) // 8:
            used[codes[heads]] = True
        else:
            used[codes] = True
        if not used.all():
            remap = (np.cumsum(used) - 1).astype(codes.dtype)
            codes, cats = remap[codes], cats[used]
        arr = _arrow_strings(pd.Series(cats))
        return codes, (arr.combine_chunks() if arr is not None else np.asarray(cats, dtype=object))
    arr = _arrow_strings(s)
    if arr is not None:
        return _arrow_encode(arr, runs, topic)
    return _object_encode(s.to_numpy(dtype=object), runs, by_value, topic)


def _as_str(uniques: Any) -> np.ndarray:
    """Uniques as an object array of Python str (ids of other types are converted)."""
    if not isinstance(uniques, np.ndarray):  # a pyarrow string array
        return uniques.to_numpy(zero_copy_only=False).astype(object, copy=False)
    uniques = np.asarray(uniques, dtype=object)
    if len(uniques) and pd.api.types.infer_dtype(uniques, skipna=False) != "string":
        uniques = np.array([str(u) for u in uniques], dtype=object)
    return uniques


def _checked_encode(
    df: pd.DataFrame, col: str, what: str, runs: bool, by_value: bool = True, topic: Topics = None
) -> tuple[np.ndarray, Any]:
    """`_encode_one` of ``df[col]`` under the id rule ([`irframe.schema.check_id_column`][irframe.schema.check_id_column]).

    Typed columns are checked first (from their dtype and missing-value mask, cheap); an
    ``object`` column is checked on its distinct values after encoding (missing ids get
    code -1), and only a failing column is scanned row by row for the error message.  Without
    ``by_value`` (`_object_encode`) a missing id is one of the uniques, which are then
    not all str: the same check finds it.  (Uniques copied to pyarrow strings are str.)
    """
    s = df[col]
    if s.dtype != object:
        check_id_column(df, col, what)
        return _encode_one(s, runs, topic=topic)
    codes, uniques = _encode_one(s, runs, by_value, topic)
    if not isinstance(uniques, np.ndarray):
        return codes, uniques
    if (len(codes) and codes.min() < 0) or (
        len(uniques) and pd.api.types.infer_dtype(uniques, skipna=False) != "string"
    ):
        check_id_column(df, col, what)  # raises, naming the rows
        raise InputError(
            f"{what}: column {col!r} holds missing or non-string ids"
        )  # pragma: no cover
    return codes, uniques


def _not_utf8(s: pd.Series) -> np.ndarray:
    """Mask of the str values of an object column that UTF-8 cannot encode (lone surrogates)."""

    def bad(v: Any) -> bool:
        try:
            v.encode("utf-8")
        except (UnicodeEncodeError, AttributeError):
            return isinstance(v, str)
        return False

    return np.fromiter((bad(v) for v in s.to_numpy()), bool, len(s))


def _surrogate_error(df: pd.DataFrame, col: str, what: str, mask: np.ndarray) -> InputError:
    """The error for ids holding lone surrogates (text decoded with ``surrogateescape``, or
    broken UTF-16): no file can hold them and no other tool can match them."""
    from .schema import _rows, user_column

    name = user_column(df, col)
    return InputError(
        f"{what}: column {name!r} has {int(mask.sum())} id(s) that are not valid Unicode "
        f"text (lone surrogates, e.g. from bytes decoded with errors='surrogateescape'): "
        f"{_rows(df, mask, [col])}. Decode the ids again from their bytes, or spell the "
        f"surrogates out (each id stays distinct): df[{name!r}] = df[{name!r}].str.encode("
        "'utf-8', 'backslashreplace').str.decode('utf-8')."
    )


def encode(
    columns: list[tuple[pd.DataFrame, str, str]], runs: bool = False, topic: Topics = None
) -> tuple[list[np.ndarray], np.ndarray]:
    """Joint codes of several id columns (one code per distinct id across all of them).

    ``columns`` are (frame, column, what) triples.  Returns (codes of each column, uniques
    as an object array of str in first-appearance order; with ``topic``, the first column's
    ids in the order of its topic groups).  Each column is encoded on its own and only the
    uniques are merged, so the rows are hashed once.  When every column is ``object``, their
    distinct objects are factorized by value once, in the merge.  ``topic`` (the first
    column's topic code per row, and the number of topics: a run's doc column) encodes the
    first column by groups of topics on two threads (`encode_by_topic`).
    """
    by_value = len(columns) == 1 or any(df[col].dtype != object for df, col, _ in columns)
    parts = [
        _checked_encode(df, col, what, runs, by_value, topic if i == 0 else None)
        for i, (df, col, what) in enumerate(columns)
    ]
    if len(parts) == 1:
        return [parts[0][0]], _as_str(parts[0][1])
    if any(not isinstance(u, np.ndarray) for _, u in parts):
        if not by_value:  # objects encoded by identity: their uniques may repeat a value
            parts = [_distinct(c, u) if isinstance(u, np.ndarray) else (c, u) for c, u in parts]
        try:
            return _arrow_merge(parts)
        except UnicodeEncodeError:  # Python str ids that are not UTF-8 (only they can fail)
            for df, col, what in columns:
                if df[col].dtype == object and (mask := _not_utf8(df[col])).any():
                    raise _surrogate_error(df, col, what, mask) from None
            raise  # pragma: no cover - the scan finds every id pyarrow could not encode
    all_uniques = np.concatenate([_as_str(u) for _, u in parts])
    merged, uniques = pd.factorize(all_uniques)
    merged = merged.astype(code_dtype(len(uniques)))
    out, start = [], 0
    for codes, u in parts:
        out.append(merged[start : start + len(u)][codes])
        start += len(u)
    return out, np.asarray(uniques, dtype=object)


def _distinct(codes: np.ndarray, uniques: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of objects (``codes`` numbering ``uniques``, which may repeat a value) and
    uniques made distinct by value: `_object_encode`'s identity path, and `encode`'s merge
    of its results without ``by_value``."""
    merged, distinct = pd.factorize(uniques)
    return merged.astype(code_dtype(len(distinct)))[codes], np.asarray(distinct, dtype=object)


def _arrow_merge(parts: list[tuple[np.ndarray, Any]]) -> tuple[list[np.ndarray], np.ndarray]:
    """`encode`'s merge of the uniques with pyarrow's hash tables (no Python objects
    until the final uniques): each part's new ids are appended to the first part's."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def arrow(u):
        return (
            pa.array(_as_str(u), pa.large_string())
            if isinstance(u, np.ndarray)
            else u.cast(pa.large_string())
        )

    base = arrow(parts[0][1])
    out = [parts[0][0]]
    for codes, u in parts[1:]:
        u = arrow(u)
        if len(u) < len(
            base
        ):  # hash the smaller side (a table that stays in cache), look up the other
            at = pc.index_in(base, value_set=u)  # each known id's place in u (null: not in u)
            found = pc.is_valid(at).to_numpy(zero_copy_only=False)
            pos = np.full(len(u), -1, np.int64)
            pos[at.drop_null().to_numpy(zero_copy_only=False)] = np.flatnonzero(found)
        else:
            pos = (
                pc.index_in(u, value_set=base)
                .fill_null(-1)
                .to_numpy(zero_copy_only=False)
                .astype(np.int64)
            )
        new = pos < 0
        if new.any():
            pos[new] = len(base) + np.arange(int(new.sum()))
            base = pa.concat_arrays([base, u.filter(pa.array(new))])
        out.append(pos.astype(code_dtype(len(base)))[codes])
    return out, _as_str(base)


def str_sort_order(names: np.ndarray) -> np.ndarray:
    """Stable argsort of str ids by code point (= UTF-8 byte order, trec_eval's strcmp)."""
    if len(names) > 1000:
        try:
            import pyarrow as pa
        except ImportError:  # pragma: no cover - pyarrow is an optional speed-up
            pass
        else:
            return sort_order(pa.array(names, pa.string()))
    return np.argsort(names, kind="stable")  # Python str comparison: by code point


#: strings from which `sort_order` sorts two halves on two threads
_SPLIT_SORT_MIN = 1 << 16


def sort_order(values: Any) -> np.ndarray:
    """Stable sort order (int64 positions) of a pyarrow string array without nulls, by
    bytes (code point order, trec_eval's ``strcmp``), as ``pc.array_sort_indices``.

    Large arrays (the doc dictionary of pooled runs: 150,000 to 200,000 ids, 25 to 40 ms) are
    cut at a pivot, the median of 255 evenly spaced entries, and the two sides are sorted on
    two threads (pyarrow releases the GIL): every value below the pivot comes first, and each
    side keeps its rows in order, so the result is the same stable order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(values)
    if n < max(_SPLIT_SORT_MIN, 2) or values.null_count or (os.cpu_count() or 1) < 2:
        return pc.array_sort_indices(values, memory_pool=POOL).to_numpy().astype(np.int64)
    sample = values.take(pa.array(np.linspace(0, n - 1, 255).astype(np.int64)))
    pivot = sample.take(pc.array_sort_indices(sample))[127]
    below = pc.less(values, pivot).to_numpy(zero_copy_only=False)
    sides = [np.flatnonzero(below), np.flatnonzero(~below)]

    def side(rows: np.ndarray) -> np.ndarray:
        if not len(rows):
            return rows
        part = pc.take(values, pa.array(rows), memory_pool=POOL)
        return rows[pc.array_sort_indices(part, memory_pool=POOL).to_numpy()]

    return np.concatenate(map_threads(side, sides, 2))


def sorted_codes(
    codes: list[np.ndarray], uniques: np.ndarray, keep: np.ndarray | None = None
) -> tuple[list[np.ndarray], np.ndarray]:
    """Recode so that uniques are sorted; ``keep`` (bool per unique) drops the others (-1)."""
    sel = np.arange(len(uniques)) if keep is None else np.flatnonzero(keep)
    order = sel[str_sort_order(uniques[sel])]
    if len(order) == len(uniques) and np.array_equal(order, np.arange(len(order))):
        return codes, uniques  # already in order (sorted categories, sorted frames)
    recode = np.full(len(uniques), -1, code_dtype(len(uniques)))
    recode[order] = np.arange(len(order))
    return [recode[c] for c in codes], uniques[order]


# ---------------------------------------------------------------------------------------
# Run docs read only where they must be (align's lookup path)
# ---------------------------------------------------------------------------------------
_MUL = np.uint64(0x9E3779B97F4A7C15)  # odd: multiplying by it is a bijection of uint64
_LEN = np.uint64(0xD6E8FEB86659FD93)
_LONG = 256  # bytes: longer strings are hashed one by one (`_chunk_hashes`)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)


def _chunk_hashes(c) -> np.ndarray:
    """A 64-bit hash of every string of a pyarrow string array without nulls, a function of
    the string's bytes alone (equal strings hash equal in any chunk or array); its high bits
    are the well-mixed ones (multiplicative hashing).

    The bytes are read 8 at a time (unaligned little-endian words at each string's start,
    from a zero-padded copy of the data buffer), masked to the string's length and folded in
    by xor and a multiplication: one vectorised pass per 8 bytes of the longest string up to
    `_LONG` bytes, over the strings that long.  Strings of at most 8 bytes (passage ids) take
    one pass.  A string longer than `_LONG` bytes is hashed on its own (BLAKE2b, 8 bytes),
    so the passes never depend on one huge id and the work stays proportional to the bytes
    (which of the two ways a string takes depends on its length alone).
    """
    import pyarrow as pa

    m = len(c)
    if m == 0:
        return np.zeros(0, np.uint64)
    if not (pa.types.is_string(c.type) or pa.types.is_large_string(c.type)):
        c = c.cast(pa.large_string())
    wide = pa.types.is_large_string(c.type)
    off = np.frombuffer(
        c.buffers()[1], np.int64 if wide else np.int32, m + 1, c.offset * (8 if wide else 4)
    )
    base, n_bytes = int(off[0]), int(off[-1] - off[0])
    pad = np.zeros(n_bytes + 8, np.uint8)
    if n_bytes:
        pad[:n_bytes] = np.frombuffer(c.buffers()[2], np.uint8, n_bytes, base)
    words = np.ndarray((n_bytes + 1,), "<u8", pad, 0, (1,))  # the 8 bytes from each position
    start = off[:-1] - base if base else off[:-1]
    length = np.diff(off)
    h = words[start]
    h &= _LOW_BYTES[np.minimum(length, 8)]
    h ^= length.astype(np.uint64) * _LEN
    h *= _MUL
    top = int(length.max())
    short = np.where(length <= _LONG, length, 0)  # the long strings are hashed below
    for k in range(8, min(top, _LONG), 8):  # longer strings: the next 8 bytes
        rows = np.flatnonzero(short > k)
        w = words[start[rows] + k]
        w &= _LOW_BYTES[np.minimum(length[rows] - k, 8)]
        w ^= h[rows]
        w *= _MUL
        h[rows] = w
    if top > _LONG:  # each costs at least _LONG bytes of input: a loop over them is linear
        import hashlib

        for r in np.flatnonzero(length > _LONG).tolist():
            b, n = int(start[r]), int(length[r])
            digest = hashlib.blake2b(pad[b : b + n].data, digest_size=8).digest()
            h[r] = int.from_bytes(digest, "little")
    return h


class RunDocs:
    """A run frame's doc column for alignment by lookup ([`irframe.align.align`][irframe.align.align]): the
    doc strings are read where they must be known, and no table of every distinct run doc
    is built unless a caller asks for doc codes (`codes`).

    * `qrels_codes` — each row's doc looked up in the (small) judged set;
    * `hashes` — a 64-bit hash per row (the duplicate check hashes, then verifies);
    * `strings` — the doc strings of some rows (trec_eval's docno tie-break compares
      the docs of tied rows only).

    Built by `run_docs` from an arrow-backed string column (zero copy), an ``object``
    column of str (converted to arrow once) or a ``category`` column (its codes and the
    categories).  ``rows`` (`subset`) restricts positions to some rows of the frame.
    """

    def __init__(self, arr=None, cat_codes=None, cats=None, rows=None):
        self.arr, self.cat_codes, self.cats, self.rows = arr, cat_codes, cats, rows

    def __len__(self) -> int:
        if self.rows is not None:
            return len(self.rows)
        return len(self.cat_codes) if self.arr is None else len(self.arr)

    def subset(self, rows: np.ndarray | None) -> RunDocs:
        """The same column restricted to ``rows`` (positions into this one; None: all)."""
        if rows is None:
            return self
        inner = rows if self.rows is None else self.rows[rows]
        return RunDocs(self.arr, self.cat_codes, self.cats, inner)

    def _sel(self, x: np.ndarray) -> np.ndarray:
        return x if self.rows is None else x[self.rows]

    def qrels_codes(self, qdocs) -> np.ndarray:
        """Per row, the position of its doc in ``qdocs`` (a pyarrow string array of distinct
        docs), -1 when the doc is not judged (int32)."""
        import pyarrow.compute as pc

        def look(a):
            return (
                pc.index_in(a, value_set=qdocs, memory_pool=POOL)
                .fill_null(-1)
                .to_numpy(zero_copy_only=False)
            )

        if self.arr is None:
            return self._sel(look(self.cats).astype(np.int32)[self.cat_codes])  # a new array
        # one call for all chunks: index_in hashes the value set once per call (a call per
        # chunk hashed it again for each, ~10 ms for 77,000 judged docs)
        at = look(self.arr) if len(self.arr) else np.zeros(0, np.int32)
        at = self._sel(at.astype(np.int32, copy=False))
        return at if at.flags.writeable else at.copy()  # callers permute it in place

    def hashes(self) -> np.ndarray:
        """A 64-bit hash of each row's doc (uint64): equal docs hash equal.  For ``category``
        columns the codes themselves (exact)."""
        if self.arr is None:  # distinct codes, multiplied by an odd number: high bits mixed
            h = self._sel(self.cat_codes).astype(np.uint64)
            h *= _MUL
            return h
        chunks = self.arr.chunks if hasattr(self.arr, "chunks") else [self.arr]
        h = np.concatenate([_chunk_hashes(c) for c in chunks] or [np.zeros(0, np.uint64)])
        return self._sel(h)

    def strings(self, rows: np.ndarray):
        """The docs of ``rows`` (positions, any order) as a pyarrow string array."""
        import pyarrow as pa

        rows = np.asarray(rows, dtype=np.int64)
        if self.rows is not None:
            rows = self.rows[rows]
        if self.arr is None:
            return self.cats.take(pa.array(self.cat_codes[rows]))
        arr = _chunked(self.arr)
        if arr.num_chunks == 1:
            return arr.chunk(0).take(pa.array(rows))
        o = np.argsort(rows, kind="stable")
        got = take_increasing(arr, rows[o]).combine_chunks()
        back = np.empty(len(o), np.int64)
        back[o] = np.arange(len(o))
        return got.take(pa.array(back))

    def judged_codes(self, qdocs) -> np.ndarray:
        """Per row of the whole column (``rows`` not applied), the position of its doc in
        ``qdocs``, -1 when the doc is not judged (int64): the codes the judged docs keep in
        `codes`, without a table of the other docs."""
        return RunDocs(self.arr, self.cat_codes, self.cats).qrels_codes(qdocs).astype(np.int64)

    def codes(self, qdocs) -> tuple[np.ndarray, np.ndarray]:
        """Doc codes of every row of the whole column and the docs they index (object array
        of str): the ``qdocs`` first (a row whose doc is judged gets its position there),
        then the other docs in first-appearance order.  Builds the table of every distinct
        run doc: only for callers that need codes (duplicates, doc-level measures)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        q = self.judged_codes(qdocs)
        other = np.flatnonzero(q < 0)
        n_q = len(qdocs)
        if self.arr is None:
            used = np.zeros(len(self.cats), bool)
            used[self.cat_codes[other]] = True
            cat_q = (
                pc.index_in(self.cats, value_set=qdocs).fill_null(-1).to_numpy(zero_copy_only=False)
            )
            used &= cat_q < 0
            extra = np.flatnonzero(used)
            recode = np.full(len(self.cats), -1, np.int64)
            recode[extra] = n_q + np.arange(len(extra))
            q[other] = recode[self.cat_codes[other]]
            names = self.cats.take(pa.array(extra))
        else:
            taken = take_increasing(_chunked(self.arr), other)
            enc = pc.dictionary_encode(taken.combine_chunks(), memory_pool=POOL)
            q[other] = n_q + enc.indices.to_numpy(zero_copy_only=False)
            names = enc.dictionary
        docs = np.concatenate([_as_str(qdocs), _as_str(names)])
        return q.astype(code_dtype(len(docs))), docs


def arrow_strings(values: np.ndarray):
    """An object array of str as a pyarrow string array, or None (no pyarrow, or ids that
    are not UTF-8-encodable)."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is an optional speed-up
        return None
    try:
        return pa.array(np.asarray(values, dtype=object), pa.string())
    except (pa.ArrowException, UnicodeError, TypeError, ValueError):
        return None


_SAMPLE = 1 << 16  # rows sampled to estimate how often run docs repeat
# distinct run docs from which a table of them is no longer cheap, however often each repeats
# (10 MS MARCO-shaped runs, 70 M rows: 8.8 M distinct docs, each in ~8 rows)
_DISTINCT_TABLE_MAX = 1 << 21


def docs_mostly_distinct(s: pd.Series) -> bool:
    """Whether an id column holds about as many distinct ids as a quarter of its rows or more,
    or more than ``_DISTINCT_TABLE_MAX`` (2,097,152) distinct ids, estimated from an evenly
    spaced sample of m rows: with d distinct ids in the sample, m - d pairs repeat, and ids
    drawn from D equally frequent ones repeat about m² / 2D times, so D ≈ m² / 2(m - d) (the
    whole column when m is all of it).

    Runs from a corpus of millions (MS MARCO, BEIR, TREC DL) say yes: a doc is looked up in
    the judged set and never put in a table of every run doc (`RunDocs`).  Pooled
    TREC runs (every system retrieving from the same few thousand docs per topic) say no:
    a table of their distinct docs is small and the doc codes it gives are cheap.  Many runs
    from one corpus repeat their docs (10 MS MARCO-shaped runs: 70 M rows, 8.8 M distinct
    docs) but a table of millions of docs is not cheap: ``benchmarks/bench_big.py`` took 65 s
    of CPU to evaluate them through the table, 10 s by lookup; a pooled frame with 2.3 M
    distinct docs (8 M rows) takes about as long either way."""
    n = len(s)
    if n == 0:
        return False
    pos = np.linspace(0, n - 1, min(n, _SAMPLE)).astype(np.int64)  # increasing
    pos = pos[np.concatenate(([True], pos[1:] != pos[:-1]))]  # (np.unique: a hash, ~13 ms)
    m = len(pos)
    if isinstance(s.dtype, pd.CategoricalDtype):  # distinct codes counted, not sorted (-1: missing)
        d = int(np.count_nonzero(np.bincount(s.array.codes[pos].astype(np.int64) + 1)))
    else:
        arr = _arrow_strings(s)
        if arr is not None:
            import pyarrow.compute as pc

            d = pc.count_distinct(take_increasing(arr, pos)).as_py()
        else:
            try:
                d = len(pd.unique(s.to_numpy(dtype=object)[pos]))
            except TypeError:  # unhashable ids: the id check of the encoded path names them
                return False
    if m == n:
        return d >= min(n / 4, _DISTINCT_TABLE_MAX)
    return m * m / (2 * max(m - d, 1)) >= min(n / 4, _DISTINCT_TABLE_MAX)


def run_docs(df: pd.DataFrame, col: str, what: str) -> RunDocs | None:
    """`RunDocs` of ``df[col]`` after the id rule ([`irframe.schema.check_id_column`][irframe.schema.check_id_column],
    raising on bad ids), or None when the column cannot be read by lookup (no pyarrow, ids
    that are not UTF-8, or not strings under some other dtype): the caller encodes it."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is an optional speed-up
        return None
    s = df[col]
    if isinstance(s.dtype, pd.CategoricalDtype):
        check_id_column(df, col, what)
        cats = _arrow_strings(pd.Series(s.cat.categories))  # arrow-backed: zero copy
        cats = (
            cats.combine_chunks()
            if cats is not None
            else arrow_strings(np.asarray(s.cat.categories, dtype=object))
        )
        if cats is None:
            return None
        return RunDocs(cat_codes=s.array.codes, cats=cats)
    arr = _arrow_strings(s)
    if arr is not None:
        check_id_column(df, col, what)
        return RunDocs(arr=arr)
    if s.dtype != object:
        check_id_column(df, col, what)
        return None
    values = s.to_numpy(dtype=object)
    if not len(values):
        return RunDocs(arr=pa.array([], pa.string()))
    arr = _str_arrow(values)
    if arr is None:
        check_id_column(df, col, what)  # raises, naming the rows (missing or non-str ids)
        return None  # lone surrogates: not UTF-8, the encoded path reads them
    return RunDocs(arr=arr)
