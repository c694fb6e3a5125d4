"""Reading and writing TREC run and qrels files — the only file I/O of irframe.

Formats
-------
- run ([`read_run`][irframe.io.read_run], [`read_runs`][irframe.io.read_runs],
  [`write_run`][irframe.io.write_run]): ``topic Q0 doc rank score tag`` — one retrieved
  document per line, fields separated by any mix of spaces and tabs.  Fields after the
  sixth are ignored (trec_eval ignores them too).
- qrels ([`read_qrels`][irframe.io.read_qrels], [`write_qrels`][irframe.io.write_qrels]):
  ``topic iter doc rel`` (``kind="trec"``; ``iter`` is ignored) or ``topic subtopic doc rel``
  (``kind="diversity"``, ndeval's qrels).  Exactly four fields, as trec_eval requires.

In both, blank lines and lines whose first non-blank character is ``#`` are
skipped (trec_eval 10.0 behaviour; 9.0.8 has no comments, see ``docs/io.md``).
A ``#`` anywhere else is data (``CR#93E-1860`` is a docno).  Gzip files are
detected by their magic bytes and read transparently.  A UTF-8 byte order mark at
the start of a file is dropped; CRLF line ends are accepted; fields may be of any
length (a 10 MB docno is read).

Errors: a file that cannot be opened raises ``OSError`` (from ``open``); a corrupt or
truncated gzip stream, bytes that are not UTF-8 and every malformed line raise
[`ParseError`][irframe.errors.ParseError] naming the file and (for a line) the line number
and the line itself.

Returned frames
---------------
Ids (``system``, ``topic``, ``doc``, ``subtopic``) are pandas ``category``
columns whose categories are the id strings, **sorted by code point** (= byte
order of UTF-8 = trec_eval's ``strcmp`` order); ids are never parsed as numbers
(``"051"`` stays ``"051"``).  ``rank`` is int64, ``score`` float64, ``rel`` int64
when every grade is written as an integer, float64 otherwise.

Reading is vectorised: pyarrow's CSV reader when pyarrow is installed (fast
path for files with a single kind of separator), else ``pandas.read_csv``;
irregular files (mixed tabs and spaces, comments, trailing fields) are first
normalised with a few byte-level regular expressions.  Only when a file fails
to parse is it walked line by line, to report the first bad line.  The byte and
error layer lives in ``irframe._textfile``, the writers in ``irframe._writers``; every
public name is importable from here.
"""

from __future__ import annotations

import glob as _glob
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, Union, overload

import numpy as np
import pandas as pd

from . import _prefetch, _textfile
from ._arrow import POOL
from ._ids import (
    docs_mostly_distinct,
    encode_by_topic,
    encode_group,
    small_code_dtype,
    sort_order,
    take_increasing,
)
from ._textfile import (
    as_float,
    bad_number,
    c_atol,
    check_finite,
    concat_chunks,
    diagnose,
    iter_lines,
    last_string,
    line_error,
    load_run,
    name_of,
    nth_data_line,
    number_chunks,
    pa,
    parse_table,
    pc,
    read_bytes,
    read_run_columns,
    show_line,
)
from ._threads import map_threads
from ._writers import format_qrels, format_run, write_qrels, write_run
from .errors import ConventionWarning, InputError, OptionError, ParseError, PerformanceHint, warn
from .params import check_flag
from .schema import QRELS_ROLES, RUN_ROLES, role_names

__all__ = [
    "format_qrels",
    "format_run",
    "read_cost_file",
    "read_prefs",
    "read_qrels",
    "read_run",
    "read_runs",
    "write_qrels",
    "write_run",
]

PathLike = Union[str, "os.PathLike[str]"]

# --------------------------------------------------------------------------------------
# categorical encoding (sorted categories)
# --------------------------------------------------------------------------------------


def _sorted_codes(chunks: list[Any]) -> tuple[np.ndarray, Any]:
    """(codes, sorted dictionary) of arrow string or dictionary chunks, one shared dictionary
    sorted by code point (`_sort_dictionary`); the codes are written once, per chunk,
    in the type pandas keeps them in (`irframe._ids.small_code_dtype`: no copy in ``from_codes``)."""
    if pa.types.is_dictionary(chunks[0].type):
        # Small per-chunk dictionaries (topics, tags): unified; each chunk's indices then map
        # through its own part of the unified entries
        enc = pc.dictionary_encode(
            pa.concat_arrays([c.dictionary for c in chunks], memory_pool=POOL), memory_pool=POOL
        )
        rank, dictionary = _sort_dictionary(enc.dictionary)
        lookup = rank[enc.indices.to_numpy(zero_copy_only=False)].astype(
            small_code_dtype(len(dictionary))
        )
        ends = np.cumsum([len(c.dictionary) for c in chunks])
        parts = [
            (lookup[end - len(c.dictionary) : end], c.indices)
            for c, end in zip(chunks, ends, strict=True)
        ]
    else:
        enc = encode_group(chunks)
        rank, dictionary = _sort_dictionary(enc.chunk(0).dictionary)
        lookup = rank.astype(small_code_dtype(len(dictionary)))
        parts = [(lookup, c.indices) for c in enc.chunks]
    codes = np.empty(sum(len(i) for _, i in parts), lookup.dtype)
    row = 0
    for table, indices in parts:
        stop = row + len(indices)
        np.take(
            table, indices.to_numpy(zero_copy_only=False), out=codes[row:stop], mode="clip"
        )  # (valid indices: clip skips a buffer)
        row = stop
    return codes, dictionary


def _encode_by_topic(chunks: list[Any], topic: pd.Categorical) -> tuple[np.ndarray, Any] | None:
    """Codes and sorted dictionary (`_sort_dictionary`) of doc ids, encoded by groups of
    topics on two threads (`irframe._ids.encode_by_topic`); None to encode them whole."""
    return encode_by_topic(chunks, np.asarray(topic.codes), len(topic.categories), _sort_dictionary)


def _sort_dictionary(dictionary: Any) -> tuple[np.ndarray, Any]:
    """(rank of each entry in code point order, the sorted dictionary) of a pyarrow string array."""
    order = sort_order(dictionary)
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank, pc.take(dictionary, pa.array(order), memory_pool=POOL)


def categorical_ids(parts: Sequence[Any], topic: pd.Categorical | None = None) -> pd.Categorical:
    """One categorical from several string columns; categories sorted by code point.

    ``topic`` (each row's topic, for doc ids) encodes by topic groups (`_encode_by_topic`)."""
    chunks = _arrow_chunks(parts)
    if chunks is not None:
        if not chunks:
            return pd.Categorical([], categories=pd.Index([], dtype=str))
        grouped = (
            None
            if topic is None or pa.types.is_dictionary(chunks[0].type)
            else _encode_by_topic(chunks, topic)
        )
        codes, dictionary = grouped if grouped is not None else _sorted_codes(chunks)
        categories = pd.Index(dictionary.to_pandas(), dtype=str)
    else:
        codes, uniques = pd.factorize(_object_values(parts), sort=True)
        categories = pd.Index(uniques, dtype=str)
    return pd.Categorical.from_codes(codes, dtype=_distinct_dtype(categories), validate=False)


def _arrow_chunks(parts: Sequence[Any]) -> list[Any] | None:
    """The non-empty arrow chunks of string columns parsed by pyarrow, in order; None when
    they are not all arrow (the pandas reader's columns, or no pyarrow)."""
    if (
        pa is None
        or not parts
        or not all(isinstance(p, (pa.ChunkedArray, pa.Array)) for p in parts)
    ):
        return None
    chunks = [c for p in parts for c in (p.chunks if isinstance(p, pa.ChunkedArray) else [p])]
    return [c for c in chunks if len(c)]


def _object_values(parts: Sequence[Any]) -> np.ndarray:
    """The pandas reader's string columns as one object array."""
    if not parts:
        return np.array([], dtype=object)
    return np.concatenate([np.asarray(p, dtype=object) for p in parts])


def _distinct_dtype(categories: pd.Index) -> pd.CategoricalDtype:
    """The categorical dtype of ``categories`` that are distinct by construction (an encoding's
    dictionary): pandas' own check of that, a hash table over every category (~10 ms for
    150,000 doc ids), is skipped where pandas offers its fast path (pandas 2.2 to 3.x)."""
    fast = getattr(pd.CategoricalDtype, "_from_fastpath", None)
    return fast(categories, False) if fast is not None else pd.CategoricalDtype(categories)


def unique_strings(col: Any) -> list[str]:
    if pa is not None and isinstance(col, (pa.ChunkedArray, pa.Array)):
        return sorted(set(categorical_ids([col]).categories))
    return list(pd.unique(np.asarray(col, dtype=object)))


def constant_categorical(name: str, n: int) -> pd.Categorical:
    return pd.Categorical.from_codes(
        np.zeros(n, dtype=np.int8),
        dtype=pd.CategoricalDtype(pd.Index([name], dtype=str)),
        validate=False,
    )


# --------------------------------------------------------------------------------------
# public readers
# --------------------------------------------------------------------------------------


def read_run(
    path: PathLike | Any,
    system: str | Callable[[str], str] | None = None,
    *,
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Read a TREC run file into a run frame: one file is one run (one system).

    Parameters
    ----------
    path : str, os.PathLike or file object
        ``topic Q0 doc rank score tag`` lines, separated by spaces and/or tabs;
        fields after the sixth are ignored.  Gzip is detected and read transparently.
        Blank lines and lines starting with ``#`` are skipped.
    system : str or callable, optional
        How the run is named -- the rule of [irframe.io.read_runs][] and ``irframe eval``:
        a file is one run, and its tag column splits it only when asked.
        ``None`` (default): the run id trec_eval prints, the tag (6th field) of the
        last line; when the tag column holds several values the file is still one run
        (a [ConventionWarning][irframe.errors.ConventionWarning] says so).
        ``"tag"``: one system per tag value (the file is split by its tag column).
        ``"file"``: the file name without ``.gz``/``.txt`` and ``input.``.
        A callable ``f(path) -> str``, or any other string: that name.
    columns : mapping, optional
        Output column names by role (``{"doc": "docno"}``); roles are
        ``system, topic, doc, rank, score``.

    Returns
    -------
    pandas.DataFrame
        Columns ``system, topic, doc, rank, score`` in file order.  ``system`` and
        ``topic`` are ``category`` columns with categories sorted by code point; ``doc``
        too when docs repeat across rows, else a string column (pandas' ``str``), as in
        [`read_runs`][irframe.io.read_runs].  ``rank`` is int64 (as written; trec_eval
        ignores it), ``score`` float64.

    Raises
    ------
    irframe.errors.ParseError
        A malformed line (fewer than 6 fields, non-integer rank, non-numeric or
        non-finite score, invalid UTF-8) — the message names the file, the
        1-based line number and the line — or a file without data lines.

    See Also
    --------
    - [`irframe.io.read_runs`][irframe.io.read_runs]: many files (a directory or a glob) into one frame.
    - [`irframe.io.write_run`][irframe.io.write_run]: the way back.
    - [`irframe.dask.read_runs`][irframe.dask.read_runs]: one partition per file, for Dask.

    Examples
    --------
    >>> import io, irframe.io as iio
    >>> text = "051 Q0 d1 1 2.5 bm25\\n051 Q0 d2 2 1.25 bm25\\n"
    >>> run = iio.read_run(io.StringIO(text))
    >>> run
      system topic doc  rank  score
    0   bm25   051  d1     1   2.50
    1   bm25   051  d2     2   1.25
    >>> run.dtypes.astype(str).tolist()[:2], run.dtypes.astype(str).tolist()[3:]
    (['category', 'category'], ['int64', 'float64'])
    >>> run.doc.tolist()  # one line per doc: a string column, no dictionary of docs
    ['d1', 'd2']
    >>> iio.read_run(io.StringIO(text), system="mine").system.tolist()
    ['mine', 'mine']
    >>> two = "051 Q0 d1 1 2.5 a\\n051 Q0 d2 2 1.25 b\\n"
    >>> iio.read_run(io.StringIO(two), system="tag").system.tolist()
    ['a', 'b']
    """
    return read_run_text(path, system, columns)


def read_run_text(
    path: PathLike | Any,
    system: str | Callable[[str], str] | None = None,
    columns: Mapping[str, str] | None = None,
    ranks: bool = True,
    doc_strings: bool = False,
) -> pd.DataFrame:
    """[`read_run`][irframe.io.read_run]; ``ranks`` as in `read_runs_tagged`.  ``doc_strings`` (the command
    line) keeps the doc column as the parser's arrow strings (pandas ``str``): no table of
    every distinct doc is built, which a run from a corpus of millions would fill with one
    entry per line (alignment looks its docs up in the judged set instead)."""
    if system is not None and not isinstance(system, str) and not callable(system):
        raise OptionError(
            f"system must be None, 'tag', 'file', a name or a callable, got {type(system).__name__}"
        )
    name = name_of(path)
    if system == "file" or callable(system):
        if not isinstance(path, (str, os.PathLike)):
            raise OptionError(f"system={system!r} names a run by its file, but {name!r} is no path")
        system = system_names([os.fspath(path)], system)[0]
    data = read_bytes(path)
    want_tag = system is None or system == "tag"
    cols = read_run_columns(data, name, want_tag=want_tag, want_rank=ranks)
    n = cols["n"]
    if system == "tag":
        sys_col = categorical_ids([cols["tag"]])
    elif system is None:
        sys_col = categorical_ids([cols["tag"]])
        if len(sys_col.categories) > 1:  # one run all the same, named by trec_eval's run id
            runid = last_string(cols["tag"])
            warn_tags(name, list(sys_col.categories), runid)
            cats = sys_col.categories[[sys_col.categories.get_loc(runid)]]
            sys_col = pd.Categorical.from_codes(
                np.zeros(n, dtype=np.int8), dtype=pd.CategoricalDtype(cats), validate=False
            )
    else:
        sys_col = constant_categorical(system, n)
    return run_frame_of(
        sys_col,
        categorical_ids([cols["topic"]]),
        doc_string_column(cols["doc"]) if doc_strings else doc_column([cols["doc"]]),
        concat_chunks(cols["rank"], np.int64) if ranks else None,
        concat_chunks(cols["score"], np.float64),
        columns,
    )


def string_array(values: Any) -> Any:
    """Strings (a pyarrow string array, zero copy, or an object array) as a pandas string
    array in pandas' default string dtype: ``str`` under pandas 2.3 and 3, ``string`` under
    pandas 2.2; stored in arrow when pyarrow is installed."""
    storage = "python" if pa is None else "pyarrow"
    try:
        dtype = pd.StringDtype(storage, na_value=np.nan)
    except TypeError:  # pandas 2.2: StringDtype takes no na_value
        dtype = pd.StringDtype(storage)
    return pd.array(values, dtype=dtype)


def doc_column(parts: Sequence[Any], topic: pd.Categorical | None = None) -> Any:
    """The doc column of run files (`read_runs`): a string column (`string_array`) when
    most rows hold a doc of their own (`irframe._ids.docs_mostly_distinct`, the rule by
    which alignment looks docs up in the judged set instead of numbering them), else a
    categorical (`categorical_ids`).

    A single run, or runs from a corpus of millions (MS MARCO, BEIR, TREC DL), hold about
    one doc per row: a sorted dictionary of them costs more than the evaluation (file → cube
    about 6× slower on the MS MARCO shape of docs/performance.md) and serves nothing.
    Pooled runs (many systems over the same judged docs) repeat their docs, and every later
    step reuses their codes."""
    chunks = _arrow_chunks(parts)
    if chunks is not None:
        if chunks and all(pa.types.is_string(c.type) for c in chunks):
            strings = string_array(pa.chunked_array(chunks, type=pa.string()))
            if docs_mostly_distinct(pd.Series(strings, copy=False)):
                return strings
        return categorical_ids(parts, topic)
    values = _object_values(parts)
    if docs_mostly_distinct(pd.Series(values, dtype=object, copy=False)):
        return string_array(values)
    return categorical_ids([values], topic)


def doc_string_column(col: Any) -> Any:
    """A parsed string column as a pandas string array on the same arrow data (zero copy,
    `string_array`); a categorical without pyarrow."""
    if (
        pa is not None
        and isinstance(col, (pa.ChunkedArray, pa.Array))
        and (pa.types.is_string(col.type) or pa.types.is_large_string(col.type))
    ):
        return string_array(col)
    return categorical_ids([col])


def warn_tags(name: str, tags: list, runid: str) -> None:
    shown = ", ".join(map(repr, tags[:5])) + (f" ... ({len(tags)} tags)" if len(tags) > 5 else "")
    warn(
        f"{name}: the tag column holds {len(tags)} values ({shown}); the file is read as one run "
        f"named {runid!r}, the tag of its last line (trec_eval, irframe eval and read_runs "
        "read a file as one run). Pass system='tag' to split it into one system per tag.",
        ConventionWarning,
    )


def run_frame_of(system, topic, doc, rank, score, columns) -> pd.DataFrame:
    n = role_names(columns, RUN_ROLES)
    cols = {
        n["system"]: system,
        n["topic"]: topic,
        n["doc"]: doc,
        n["rank"]: rank,
        n["score"]: score,
    }
    return pd.DataFrame({k: v for k, v in cols.items() if v is not None}, copy=False)


def _strip_suffixes(name: str) -> str:
    for suffix in (".gz", ".txt"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input.") :]
    return name


def _file_system_name(path: PathLike) -> str:
    """System name of a run file: the file name without ``.gz``/``.txt`` and ``input.``.

    >>> _file_system_name("runs/input.bm25.gz"), _file_system_name("a/rm3.txt.gz")
    ('bm25', 'rm3')
    """
    return _strip_suffixes(os.path.basename(os.fspath(path)))


def expand_paths(paths_or_glob: PathLike | Iterable[PathLike]) -> list[str]:
    if isinstance(paths_or_glob, (str, os.PathLike)):
        p = os.fspath(paths_or_glob)
        if os.path.isdir(p):
            files = sorted(
                os.path.join(p, f)
                for f in os.listdir(p)
                if not f.startswith(".") and os.path.isfile(os.path.join(p, f))
            )
            if not files:
                raise FileNotFoundError(f"no run files in directory {p!r}")
            return files
        if _glob.has_magic(p):
            files = sorted(f for f in _glob.glob(p) if os.path.isfile(f))
            if not files:
                raise FileNotFoundError(f"no file matches {p!r}")
            return files
        return [p]
    files = [os.fspath(p) for p in paths_or_glob]
    if not files:
        raise OptionError("read_runs() got an empty list of paths")
    return files


def system_names(files: Sequence[str], system: str | Callable[[str], str]) -> list[str | None]:
    """The system name of every file under ``system="file"|"tag"|callable`` (None for "tag":
    the tag column names the rows).  Raises when a name is empty or two files share one."""
    if system == "file":
        names: list[str | None] = [_file_system_name(f) for f in files]
    elif system == "tag":
        return [None] * len(files)
    elif callable(system):
        names = [system(f) for f in files]
    else:
        raise OptionError(
            f"system must be 'file', 'tag' or a callable, got {system!r} (read_run(path, "
            "system=name) names the one run of a file)"
        )
    seen: dict[str, str] = {}
    for f, name in zip(files, names, strict=True):
        if not isinstance(name, str) or not name:
            raise OptionError(f"system name for {f!r} must be a non-empty str, got {name!r}")
        if name in seen:
            raise InputError(
                f"files {seen[name]!r} and {f!r} both give system name {name!r}; "
                "rename a file or pass system='tag' or a callable"
            )
        seen[name] = f
    return names


@overload
def read_runs(
    paths_or_glob: PathLike | Iterable[PathLike],
    system: str | Callable[[str], str] = ...,
    *,
    columns: Mapping[str, str] | None = ...,
    last_tags: Literal[False] = ...,
    progress: bool = ...,
) -> pd.DataFrame: ...
@overload
def read_runs(
    paths_or_glob: PathLike | Iterable[PathLike],
    system: str | Callable[[str], str] = ...,
    *,
    columns: Mapping[str, str] | None = ...,
    last_tags: Literal[True],
    progress: bool = ...,
) -> tuple[pd.DataFrame, list[str]]: ...
def read_runs(
    paths_or_glob: PathLike | Iterable[PathLike],
    system: str | Callable[[str], str] = "file",
    *,
    columns: Mapping[str, str] | None = None,
    last_tags: bool = False,
    progress: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, list[str]]:
    """Read many TREC run files into one run frame.

    Parameters
    ----------
    paths_or_glob : str, os.PathLike or iterable of them
        A list of files, a glob pattern (``"runs/*.gz"``) or a directory (every
        non-hidden file in it).  Files are read in sorted order for globs and
        directories, in the given order for lists.
    system : {"file", "tag"} or callable, default "file"
        How each file's rows are named.  The rule of [irframe.io.read_run][] and
        ``irframe eval``: a file is one run, and its tag column splits it only when asked.
        ``"file"`` — the file name without ``.gz``/``.txt`` and without a leading
        ``input.`` (TREC's ``input.<runid>.gz``); ``"tag"`` — one system per value of the
        tag column (6th field: a file holding two tags becomes two systems);
        a callable ``f(path) -> str``.
    columns : mapping, optional
        Output column names by role, as in [`read_run`][irframe.io.read_run].
    last_tags : bool, default False
        Also return the tag (6th field) of each file's last line, the run id trec_eval
        prints: ``(frame, tags)``.
    progress : bool, default False
        Show a progress bar over the files (needs tqdm: ``pip install 'irframe[progress]'``).
        Without pyarrow, reading takes ~10× longer; when it takes more than 2 s a one-line
        [PerformanceHint][irframe.errors.PerformanceHint] says so (``pip install
        'irframe[arrow]'``).

    Returns
    -------
    pandas.DataFrame
        ``system, topic, doc, rank, score``, files concatenated in order.
        ``system`` and ``topic`` are categoricals (categories sorted by code point).
        ``doc`` is a categorical too when docs repeat across rows (pooled runs: many
        systems over the same judged docs), whose codes every later step reuses; when
        most rows hold a doc of their own (one run, or runs from a corpus of millions:
        MS MARCO, BEIR, TREC DL) it is a string column (pandas' ``str``; ``string``
        under pandas 2.2) on the parsed text, as a dictionary of millions of docs would
        cost more than the evaluation.  The rule is alignment's own
        (`irframe._ids.docs_mostly_distinct`: about a quarter as many distinct docs as
        rows, or more than 2 M, estimated from 65,536 evenly spaced rows).

    Raises
    ------
    irframe.errors.InputError
        Two files give the same system name (names both files).
    irframe.errors.ParseError
        A malformed line in any file (file, line number and line in the message).

    See Also
    --------
    - [`irframe.io.read_run`][irframe.io.read_run]: one file.
    - [`irframe.dask.read_runs`][irframe.dask.read_runs]: the same files as a Dask frame.

    Examples
    --------
    >>> import tempfile, pathlib, irframe.io as iio
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "input.bm25.gz").write_bytes(__import__("gzip").compress(b"1 Q0 a 1 3.0 x\\n"))
    >>> _ = (d / "rm3.txt").write_text("1 Q0 b 1 2.0 y\\n1 Q0 a 2 1.0 y\\n")
    >>> iio.read_runs(d)
      system topic doc  rank  score
    0   bm25     1   a     1    3.0
    1    rm3     1   b     1    2.0
    2    rm3     1   a     2    1.0
    >>> iio.read_runs(sorted(d.iterdir()), system="tag").system.tolist()
    ['x', 'y', 'y']
    """
    last_tags = check_flag("last_tags", last_tags)
    progress = check_flag("progress", progress)
    return read_runs_tagged(paths_or_glob, system, columns, last_tags, progress=progress)


def read_runs_tagged(
    paths_or_glob: PathLike | Iterable[PathLike],
    system: str | Callable[[str], str] = "file",
    columns: Mapping[str, str] | None = None,
    last_tags: bool = False,
    ranks: bool = True,
    progress: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, list[str]]:
    """[`read_runs`][irframe.io.read_runs]; without ``ranks`` (the command line's trec_eval orders) the rank
    field may hold any text, as trec_eval skips it, and the frame has no rank column."""
    files = expand_paths(paths_or_glob)
    by_file = system_names(files, system)
    by_tag = system == "tag"
    names: list[str] = [n for n in by_file if n is not None]
    seen: dict[str, str] = {n: f for f, n in zip(files, by_file, strict=True) if n is not None}

    def load(f: str) -> dict[str, Any]:
        # One file per worker thread (pyarrow releases the GIL), no nested threads.
        taken = _prefetch.take(f, (by_tag, ranks, last_tags))  # read while pandas was imported
        if taken is not None:
            return taken
        return load_run(
            read_bytes(f),
            f,
            want_tag=by_tag,
            want_rank=ranks,
            last_tag=last_tags,
            threads=len(files) == 1,
        )

    started = time.perf_counter()
    bar = _bar(len(files), progress)
    if bar is not None:
        read_one = load

        def load(f: str) -> dict[str, Any]:
            out = read_one(f)
            bar.update(1)
            return out

    workers = min(os.cpu_count() or 1, 8)
    if _prefetch.reading():
        # the command line's reading thread is the second reader: it reads from the first
        # file on, this thread from the last one back, so the two meet once (no wait, and no
        # third thread with its own allocator arena: fresh memory costs more than it saves)
        parts = [load(f) for f in files[::-1]][::-1]
    else:
        try:
            parts = map_threads(load, files, workers)
        finally:
            if bar is not None:
                bar.close()
    _slow_read_hint(len(files), time.perf_counter() - started)

    if by_tag:
        for f, p in zip(files, parts, strict=True):
            for t in unique_strings(p["tag"]):
                if t in seen:
                    raise InputError(
                        f"files {seen[t]!r} and {f!r} both hold run tag {t!r}; "
                        "pass system='file' or a callable to name systems by file"
                    )
                seen[t] = f
    if by_tag:
        sys_col = categorical_ids([p["tag"] for p in parts])
    else:
        order = np.argsort(np.array(names, dtype=object), kind="stable")
        rank = np.empty(len(order), dtype=small_code_dtype(len(order)))
        rank[order] = np.arange(len(order))
        codes = np.repeat(rank, [p["n"] for p in parts])
        sys_col = pd.Categorical.from_codes(
            codes, dtype=pd.CategoricalDtype(pd.Index(sorted(names), dtype=str)), validate=False
        )
    topic_col = categorical_ids([p["topic"] for p in parts])
    frame = run_frame_of(
        sys_col,
        topic_col,
        doc_column([p["doc"] for p in parts], topic_col),
        concat_chunks([c for p in parts for c in p["rank"]], np.int64) if ranks else None,
        concat_chunks([c for p in parts for c in p["score"]], np.float64),
        columns,
    )
    if last_tags:
        return frame, [p["last_tag"] for p in parts]
    return frame


_SLOW_READ_SECONDS = 2.0


def _bar(n: int, progress: bool):
    """A tqdm bar over ``n`` files when asked (``progress=True``), else None."""
    if not progress:
        return None
    from ._progress import progress as _progress_bar

    return _progress_bar(range(n), enabled=True, total=n, desc="run files")


def _slow_read_hint(n_files: int, seconds: float) -> None:
    """One line when reading took long for want of pyarrow (the pandas reader is ~10× slower)."""
    if not _textfile.USE_ARROW and seconds > _SLOW_READ_SECONDS:
        warn(
            f"reading {n_files} run file(s) took {seconds:.1f} s with the pandas reader; "
            "pip install 'irframe[arrow]' (pyarrow) reads them about 10× faster",
            PerformanceHint,
        )


def _detect_qrels_kind(second: pd.Categorical) -> str:
    # trec qrels have a constant iteration column (usually "0"); diversity ones number subtopics.
    return "diversity" if len(second.categories) > 1 else "trec"


def read_qrels(
    path: PathLike | Any, kind: str = "trec", *, columns: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Read a TREC qrels file.

    Parameters
    ----------
    path : str, os.PathLike or file object
        Four whitespace-separated fields per line; gzip read transparently; blank
        lines and lines starting with ``#`` skipped.
    kind : {"trec", "diversity", "jg", "auto"}, default "trec"
        ``"trec"``: ``topic iter doc rel`` (``iter`` ignored) → columns
        ``topic, doc, rel``.  ``"diversity"``: ``topic subtopic doc rel`` (ndeval)
        → ``topic, subtopic, doc, rel``.  ``"auto"``: diversity when the second
        field takes more than one value in the file, trec otherwise.  ``"jg"``:
        trec_eval's ``qrels_jg`` format, ``topic jg doc rel`` with a judgment group
        (one assessor's judgments) in the second field → ``topic, jg, doc, rel``.
    columns : mapping, optional
        Output column names by role (``topic, subtopic, doc, rel``).

    Returns
    -------
    pandas.DataFrame
        Rows in file order.  Ids are ``category`` columns (categories sorted);
        ``rel`` is int64 when every grade is written as an integer, float64
        otherwise (``"1.7"`` stays 1.7; trec_eval truncates it to 1 when
        computing its measures, which irframe's trec_eval measures do too).

    Raises
    ------
    irframe.errors.ParseError
        A line without exactly 4 fields, a non-numeric or non-finite grade,
        or a file without data lines; the message names file, line number and line.

    See Also
    --------
    - [`irframe.io.write_qrels`][irframe.io.write_qrels]: the way back.
    - [`irframe.io.read_prefs`][irframe.io.read_prefs]: preference judgments.
    - [`df.ir.join`][irframe.IrAccessor.join]: attach the qrels to a run frame.

    Examples
    --------
    >>> import io, irframe.io as iio
    >>> q = iio.read_qrels(io.StringIO("# judged by NIST\\n051 0 d1 1\\n051 0 d2 0\\n"))
    >>> q
      topic doc  rel
    0   051  d1    1
    1   051  d2    0
    >>> q.rel.dtype
    dtype('int64')
    >>> iio.read_qrels(io.StringIO("7 1 d1 1\\n7 2 d1 0\\n"), kind="auto").columns.tolist()
    ['topic', 'subtopic', 'doc', 'rel']
    """
    if kind == "jg":  # trec_eval's qrels_jg: the second field is the judgment group
        q = read_qrels(path, kind="diversity", columns=columns)
        return q.rename(columns={role_names(columns, QRELS_ROLES)["subtopic"]: "jg"})
    if kind not in ("trec", "diversity", "auto"):
        raise OptionError(f"kind must be 'trec', 'diversity', 'jg' or 'auto', got {kind!r}")
    name = name_of(path)
    data = read_bytes(path)
    fields = ("topic", "second", "doc", "rel")
    types: dict[str, Any]
    want_second = kind != "trec"
    keys = ["topic"] + (["second"] if want_second else []) + ["doc", "rel"]
    types = {k: (pa.string() if pa is not None else None) for k in keys}
    cols = parse_table(data, name, "diversity" if kind == "diversity" else "trec", fields, types)
    rel = _parse_rel(cols["rel"], data, name, kind)
    second = categorical_ids([cols["second"]]) if want_second else None
    if kind == "auto":
        kind = _detect_qrels_kind(second)
    n = role_names(columns, QRELS_ROLES)
    out: dict[str, Any] = {n["topic"]: categorical_ids([cols["topic"]])}
    if kind == "diversity":
        out[n["subtopic"]] = second
    out[n["doc"]] = categorical_ids([cols["doc"]])
    out[n["rel"]] = rel
    return pd.DataFrame(out, copy=False)


def _parse_rel(col: Any, data: bytes, path: str, kind: str) -> np.ndarray:
    k = "diversity" if kind == "diversity" else "trec"
    try:
        rel = concat_chunks(number_chunks(col, np.int64), np.int64)
    except (ValueError, TypeError, OverflowError):
        pass
    else:  # arrow reads '0x10' as 16
        _check_atol(col, rel, data, path, k)
        return rel
    try:
        chunks = number_chunks(col, np.float64)
    except (ValueError, TypeError, OverflowError) as e:
        raise diagnose(data, path, k, e) from None
    check_finite(chunks, data, path, "relevance")
    rel = concat_chunks(chunks, np.float64)
    _check_atol(col, rel, data, path, k)
    return rel


_PLAIN_DECIMAL = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$"


def _check_atol(col: Any, rel: np.ndarray, data: bytes, path: str, kind: str) -> None:
    """Grades whose number (strtod) truncates to another value than trec_eval's ``atol``
    reads (its leading integer: ``1e1`` → 1, ``0x10`` → 0, ``.5e1`` → 0) are refused.

    Plain decimals (``2``, ``-1``, ``1.7``, ``.5``) always agree; only the other spellings
    (exponents, hexadecimal) are compared, one by one (they are rare).
    """
    if pa is not None and isinstance(col, (pa.ChunkedArray, pa.Array)):
        digits = pc.utf8_is_digit(col, memory_pool=POOL)  # cheap first pass
        other = np.flatnonzero(~digits.to_numpy(zero_copy_only=False))
        if len(other):
            taken = take_increasing(
                col, other
            )  # (pyarrow's take would copy a chunked column first)
            other = other[
                ~pc.match_substring_regex(taken, _PLAIN_DECIMAL, memory_pool=POOL).to_numpy(
                    zero_copy_only=False
                )
            ]
    else:
        other = np.flatnonzero(
            ~pd.Series(col, dtype=object).str.match(_PLAIN_DECIMAL).to_numpy(dtype=bool)
        )
    for row in other:
        lineno, line = nth_data_line(data, int(row))
        text = line.split()[3]
        atol = c_atol(text.decode("utf-8", "surrogateescape"))
        if atol != int(np.trunc(rel[row])):
            raise line_error(
                path,
                lineno,
                line,
                f"grade {show_line(text)!r} is {rel[row]:g} as a number but {atol} to "
                f"trec_eval{' and ndeval' if kind == 'diversity' else ''} (C's atol reads its leading "
                f"integer); write it as a plain integer or decimal",
            )


def read_cost_file(path: Any) -> dict[str, float]:
    """Read a cwl_eval cost file (``element_type cost`` per line) into a dict.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The cost file.

    Returns
    -------
    dict of str to float
        Cost per element type.

    Raises
    ------
    irframe.errors.ParseError
        A malformed line (file, line number and line in the message).

    Examples
    --------
    >>> import io
    >>> from irframe.io import read_cost_file
    >>> read_cost_file(io.StringIO("E1 1.0\\nE2 2.5\\n"))
    {'E1': 1.0, 'E2': 2.5}
    """
    name = name_of(path)
    data = read_bytes(path)
    out: dict[str, float] = {}
    for lineno, line, parts in iter_lines(data):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            raise line_error(name, lineno, line, "not valid UTF-8") from None
        if len(parts) != 2:
            raise line_error(name, lineno, line, "expected 'element_type cost'")
        cost = as_float(parts[1])
        if cost is None or not np.isfinite(cost) or cost < 0:
            raise line_error(
                name, lineno, line, f"cost {show_line(parts[1])!r} is not a finite number >= 0"
            )
        out[parts[0].decode("utf-8")] = cost
    return out


_PREFS_HELP = "expected 5 fields 'topic jg jsg doc level' separated by whitespace"
_LEVEL_HELP = "write the level as a decimal number >= 0 such as 2 or 0.5"


def read_prefs(path: PathLike | Any) -> pd.DataFrame:
    """Read trec_eval's preference-judgment file (``-R prefs``): ``topic jg jsg doc level``.

    Within a judgment sub-group (``jsg``) of a judgment group (``jg``, one user's need) a
    document with a higher level is preferred to one with a lower level; level 0 means
    non-relevant.  The file is read as trec_eval reads it: lines end at ``\\n`` (a ``\\r``
    before it is whitespace, so CRLF files read the same), fields are separated by ASCII
    whitespace (C's ``isspace``: space, tab, ``\\r``, ``\\v``, ``\\f``), so any other byte,
    such as a no-break space, belongs to its id.  Like irframe's other readers (and unlike
    trec_eval, which reports a "Malformed line"), blank lines are skipped, and so are lines
    whose first non-blank character is ``#`` (trec_eval 10.0 skips a ``#`` line only in the
    first column and not right after another one; 9.0.8 reads no comments).  A gzipped file is decompressed and a UTF-8 byte order mark dropped.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The file (text or binary file objects are accepted).

    Returns
    -------
    pandas.DataFrame
        Columns ``topic, jg, jsg, doc, rel`` (ids as str, ``rel`` float64), file order.

    Raises
    ------
    irframe.errors.ParseError
        Naming the file, the 1-based line number and the line: a line without exactly 5
        fields; an id that is not UTF-8; a level that is not a finite decimal number >= 0
        as C's ``strtod`` reads the whole field (trec_eval's ``atof`` would read ``abc`` as
        0, ``1_0`` as 1, and take ``nan``, ``inf`` or a negative level, all without a word;
        it documents levels as non-negative); a file with no data line.
    OSError
        The file cannot be opened or read.

    See Also
    --------
    - [`irframe.prefs.Judgments`][irframe.prefs.Judgments]: the preference measures of trec_eval on them.

    Examples
    --------
    >>> import io
    >>> read_prefs(io.StringIO("q1 u1 s1 d1 3\\nq1 u1 s1 d2 2\\n")).values.tolist()
    [['q1', 'u1', 's1', 'd1', 3.0], ['q1', 'u1', 's1', 'd2', 2.0]]
    >>> read_prefs(io.StringIO("q1 u1 s1 d1 nan\\n"))
    Traceback (most recent call last):
    ...
    irframe.errors.ParseError: <stream>, line 1: level 'nan' is not finite; write the level as a decimal number >= 0 such as 2 or 0.5: 'q1 u1 s1 d1 nan'
    """
    name = name_of(path)
    data = read_bytes(path)
    try:
        data.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError:  # find the line below
        utf8 = False
    rows: list[list[bytes]] = []
    levels: list[float] = []
    for lineno, line, f in iter_lines(data):
        # the usual line: 5 fields, a level >= 0 as strtod reads it (NaN fails the comparison)
        level = as_float(f[4]) if len(f) == 5 else None
        level = -1.0 if level is None else level
        if not (utf8 and 0.0 <= level < np.inf):
            _prefs_line_check(name, lineno, line, f)
        rows.append(f)
        levels.append(level + 0.0)  # + 0.0: '-0' is level 0
    if not rows:
        raise ParseError(
            f"{name}: no preference lines found (each line is 'topic jg jsg doc level')", path=name
        )
    cols = {
        c: b"\n".join([r[i] for r in rows]).decode("utf-8").split("\n")  # one decode per column
        for i, c in enumerate(("topic", "jg", "jsg", "doc"))
    }
    return pd.DataFrame({**cols, "rel": np.array(levels, dtype=np.float64)})


def _prefs_line_check(name: str, lineno: int, line: bytes, f: list[bytes]) -> None:
    """Raise the ParseError of a malformed preference line (return if it is well formed)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        raise line_error(
            name, lineno, line, "not valid UTF-8 (re-encode the file as UTF-8)"
        ) from None
    if len(f) != 5:
        raise line_error(name, lineno, line, f"{len(f)} field(s), {_PREFS_HELP}")
    why = bad_number(f[4], "level", "as C's strtod reads the whole field")
    if why is None and float(f[4]) < 0:
        why = f"level {show_line(f[4])!r} is negative (trec_eval's levels are >= 0; 0 is non-relevant)"
    if why is not None:
        raise line_error(name, lineno, line, f"{why}; {_LEVEL_HELP}")
