"""TREC text files as bytes and columns: the reading and error layer behind [`irframe.io`][irframe.io].

Every failure to read, decompress or decode a file becomes an ``OSError`` or a
[`ParseError`][irframe.errors.ParseError] naming the file (and the line when there is one).  The
column parsers here (pyarrow's CSV reader, else ``pandas.read_csv``) only report "this buffer
did not parse"; `diagnose` then walks the lines and names the first bad one, checking
everything the parsers check.

>>> _normalise(b"  051\\tQ0  d1 1 2.5 run extra\\n# note\\n", "run")
b'051 Q0 d1 1 2.5 run\\n\\n'
"""

from __future__ import annotations

import csv
import gzip
import io as _io
import os
import re
import stat
import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ._arrow import POOL
from .errors import ParseError

if TYPE_CHECKING:
    import pandas as pd
# pandas is imported inside the few functions that need it: the command line reads its run
# files with this module while pandas is still being imported (irframe._prefetch)

try:  # optional dependency
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv
except ImportError:  # pragma: no cover - exercised by the no-pyarrow test via monkeypatch
    pa = pc = pacsv = None

#: gzip's reader: python-isal's ``igzip`` when installed (``pip install 'irframe[fast]'``):
#: ISA-L inflates about twice as fast as zlib, into the same bytes, with the same exceptions
#: (``gzip.BadGzipFile``, ``EOFError``) but for bad deflate data; ``GZIP_ERRORS`` are all
#: a corrupt gzip stream raises
GZIP: Any = gzip
GZIP_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error)
try:  # optional dependency
    from isal import igzip as _igzip
    from isal.isal_zlib import error as _isal_error
except ImportError:  # pragma: no cover - isal is optional (the tests run with and without it)
    pass
else:
    GZIP, GZIP_ERRORS = _igzip, (*GZIP_ERRORS, cast("type[BaseException]", _isal_error))

_RUN_HELP = "expected 'topic Q0 doc rank score tag'"
_QRELS_HELP = {
    "trec": "expected 'topic iter doc rel'",
    "diversity": "expected 'topic subtopic doc rel'",
}
_BOM = b"\xef\xbb\xbf"


def name_of(path: Any) -> str:
    if isinstance(path, (str, os.PathLike)):
        return os.fspath(path)
    return str(getattr(path, "name", "<stream>"))


def is_stream(path: Any) -> bool:
    """Whether a command-line path can be read only once: ``-`` (standard input), a pipe, a
    named pipe (FIFO), process substitution (``<(zcat run.gz)``, ``/dev/fd/63``),
    ``/dev/stdin``, a socket or a device: anything but a regular file.  Such a path is opened
    once and read once (`read_bytes` sniffs gzip from the bytes it read); nothing may
    open it to look at it first.  A path that cannot be stat'ed is not one (the reader reports
    the error).

    >>> is_stream("-"), is_stream(__file__)
    (True, False)
    """
    if isinstance(path, str) and path == "-":
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, TypeError, ValueError):
        return False


def read_bytes(path: Any) -> bytes:
    """Bytes of a file (path or binary/text file object): gunzipped when gzip, UTF-8 BOM removed.

    Raises
    ------
    OSError
        The file cannot be opened or read (as raised by ``open``, naming the file).
    ParseError
        A corrupt or truncated gzip stream, or a text-mode file object that cannot decode
        its bytes; the message names the file.
    """
    name = name_of(path)
    if isinstance(path, (str, os.PathLike)):
        with open(path, "rb") as fh:
            data = fh.read()
    elif hasattr(path, "read"):
        try:
            data = path.read()
        except UnicodeDecodeError as e:
            raise ParseError(
                f"{name}: cannot decode the file as text ({e}); open it in binary mode "
                f"(open(path, 'rb')) or pass the path, so that irframe can report the bad line",
                path=name,
            ) from e
        if isinstance(data, str):
            data = data.encode("utf-8", errors="surrogateescape")
        elif not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{name}: read() returned {type(data).__name__}, expected bytes or str")
        data = bytes(data)
    else:
        raise TypeError(f"expected a path or a file object, got {type(path).__name__}")
    if data[:2] == b"\x1f\x8b":
        try:
            data = GZIP.decompress(data)
        except GZIP_ERRORS as e:  # BadGzipFile, truncation, bad deflate data
            raise ParseError(
                f"{name}: corrupt gzip file ({type(e).__name__}: {e}); the file may be "
                f"truncated or not gzip at all",
                path=name,
            ) from e
    if data[:3] == _BOM:  # a UTF-8 byte order mark (Windows editors) is not part of the first id
        data = data[3:]
    return data


def iter_lines(data: bytes) -> Iterator[tuple[int, bytes, list[bytes]]]:
    """(1-based line number, line, fields) of every data line (error paths only)."""
    for lineno, line in enumerate(data.split(b"\n"), 1):
        fields = line.split()  # bytes.split(): ASCII whitespace, like C isspace()
        if not fields or fields[0].startswith(b"#"):
            continue
        yield lineno, line, fields


def show_line(line: bytes) -> str:
    text = line.rstrip(b"\r").decode("utf-8", errors="replace")
    return text if len(text) <= 200 else text[:200] + "..."


def line_error(path: str, lineno: int, line: bytes, why: str) -> ParseError:
    text = show_line(line)
    return ParseError(
        f"{path}, line {lineno}: {why}: {text!r}", path=path, lineno=lineno, line=text
    )


def _is_int(b: bytes) -> bool:
    return re.fullmatch(rb"[+-]?[0-9]+", b) is not None  # not Python's '1_000'


_NUM_PREFIX = re.compile(r"^\s*[+-]?\d+")


def c_atol(text: str) -> int:
    """C's ``atol``: the leading integer of ``text``, 0 when there is none, saturated to a
    64-bit ``long`` (glibc's ``strtol`` gives LONG_MAX / LONG_MIN beyond it).

    >>> c_atol("23.4"), c_atol("abc"), c_atol(" -7x"), c_atol("99999999999999999999")
    (23, 0, -7, 9223372036854775807)
    """
    m = _NUM_PREFIX.match(text)
    return min(max(int(m.group(0)), -(2**63)), 2**63 - 1) if m else 0


def as_float(b: bytes) -> float | None:
    if b"_" in b:  # Python's float() reads '1_0' as 10; C's strtod and arrow do not
        return None
    try:
        return float(b)
    except ValueError:
        return None


def bad_number(b: bytes, what: str, help_: str) -> str | None:
    """Why the field ``b`` is not a finite number as C's strtod reads it (None: it is)."""
    value = as_float(b)
    if value is None:
        return f"{what} {show_line(b)!r} is not a number ({help_})"
    if not np.isfinite(value):
        return f"{what} {show_line(b)!r} is not finite"
    return None


def diagnose(data: bytes, path: str, kind: str, cause: BaseException | None = None) -> ParseError:
    """Walk the lines to find the first malformed one; returns the error to raise."""
    help_ = _RUN_HELP if kind == "run" else _QRELS_HELP[kind]
    used = (
        (0, 2, 5) if kind == "run" else (0, 1, 2) if kind == "diversity" else (0, 2)
    )  # fields kept as text
    for lineno, line, f in iter_lines(data):
        try:
            for i in used:
                if i < len(f):
                    f[i].decode("utf-8")
        except UnicodeDecodeError:
            return line_error(path, lineno, line, "not valid UTF-8")
        if kind == "run":
            if len(f) < 6:
                return line_error(path, lineno, line, f"{len(f)} field(s), {help_}")
            if not _is_int(f[3]):
                return line_error(
                    path, lineno, line, f"rank {show_line(f[3])!r} is not an integer ({help_})"
                )
            if not -(2**63) <= int(f[3]) < 2**63:
                return line_error(
                    path, lineno, line, f"rank {show_line(f[3])!r} does not fit a 64-bit integer"
                )
            why = bad_number(f[4], "score", help_)
        else:
            if len(f) != 4:
                return line_error(path, lineno, line, f"{len(f)} field(s), {help_}")
            why = bad_number(f[3], "relevance", help_)
        if why is not None:
            return line_error(path, lineno, line, why)
    reason = f" ({cause})" if cause is not None else ""
    return ParseError(
        f"{path}: could not parse the file{reason}; every line looks well formed, so "
        f"this is a reader limitation — please report it",
        path=path,
    )


def nth_data_line(data: bytes, row: int) -> tuple[int, bytes]:
    for i, (lineno, line, _) in enumerate(iter_lines(data)):
        if i == row:
            return lineno, line
    raise IndexError(row)  # pragma: no cover


def _last_data_fields(data: bytes) -> list[bytes] | None:
    """Fields of the last data line (as `iter_lines` splits them), found from the end.

    >>> _last_data_fields(b"1 Q0 a 1 2 x\\n1 Q0 b 2 1 y\\n# note\\n  \\n")
    [b'1', b'Q0', b'b', b'2', b'1', b'y']
    """
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        fields = data[start:end].split()
        if fields and not fields[0].startswith(b"#"):
            return fields
        end = start - 1
    return None


def _has_data(data: bytes) -> bool:
    return any(True for _ in iter_lines(data))


def _normalise(data: bytes, kind: str) -> bytes:
    """Make ``data`` single-space separated, vectorised over its bytes with numpy.

    Whitespace runs → one space, leading/trailing whitespace dropped, comment lines
    (first non-blank byte ``#``) emptied, runs cut to their first 6 fields.  Line
    breaks are kept, so data line numbers do not change.
    """
    a = np.frombuffer(data, dtype=np.uint8)
    if len(a) == 0:
        return data
    idx = np.int32 if len(a) < 2**31 - 1 else np.int64
    nl = a == 10
    ws = (a == 32) | (a == 9) | (a == 13) | (a == 11) | (a == 12)
    tok = ~(ws | nl)
    keep = tok | nl
    keep[1:] |= ws[1:] & tok[:-1]  # one separator right after a token
    b = a[keep]
    b = np.where(tok[keep], b, np.where(b == 10, 10, 32)).astype(np.uint8)
    sp = b == 32
    drop = np.zeros(len(b), dtype=bool)
    drop[:-1] = sp[:-1] & (b[1:] == 10)  # space before a line break
    drop[-1] = sp[-1]
    b = b[~drop]
    nl = b == 10
    line_id = np.cumsum(nl, dtype=idx) - nl  # line of every byte (a break ends its line)
    starts = np.flatnonzero(np.concatenate(([True], nl[:-1])))
    first = b[np.minimum(starts, len(b) - 1)] if len(b) else b[:0]
    comment = (first == 35) & (starts < len(b))
    drop = np.zeros(len(b), dtype=bool)
    if comment.any():
        drop |= comment[line_id] & ~nl
    if kind == "run":
        sp = b == 32
        before = np.cumsum(sp, dtype=idx) - sp  # spaces before each byte in the file
        field = before - before[starts][line_id]  # field index of each byte in its line
        drop |= (field >= 6) & ~nl
        drop |= sp & (field == 5)
    if drop.any():
        b = b[~drop]
    return b.tobytes()


def _delimiter(data: bytes) -> tuple[bytes, bool] | None:
    """``(delimiter, check)`` when the file may be split on one character, else None.

    Single-byte searches (``memchr`` speed): a file with comment lines, without any separator,
    or with C whitespace the CSV parsers do not split on (vertical tab, form feed, a carriage
    return that does not end a line) is normalised first.  Whether splitting made an empty field (the
    separator doubled, leading or trailing, where trec_eval's whitespace split sees none) is
    checked on the parsed columns (`_has_empty`).  ``check`` asks to verify that no
    text column holds a space: a tab-separated file may pad its numbers with spaces
    (``104\\t  2.129133``, which the number parsers accept), but a space anywhere else
    separates fields, so such a file takes the normalising path.
    """
    if b"#" in data and (data[:1] == b"#" or b"\n#" in data):  # memchr first: cheap
        return None
    if b"\v" in data or b"\f" in data:  # whitespace to trec_eval (C isspace), data to the parsers
        return None
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return None  # a CR inside a line is whitespace to trec_eval; the parsers end the line there
    has_tab, has_space = b"\t" in data, b" " in data
    if has_tab:
        return b"\t", has_space
    return (b" ", False) if has_space else None


def _is_text(t: Any) -> bool:
    return pa.types.is_string(t) or pa.types.is_binary(t)


def _has_empty(col: Any) -> bool:
    """Does a parsed text column hold an empty field?  (Numeric columns: False.)"""
    if pa is not None and isinstance(col, (pa.ChunkedArray, pa.Array)):
        chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
        for c in chunks:
            values = c.dictionary if pa.types.is_dictionary(c.type) else c
            if (
                _is_text(values.type)
                and len(values)
                and pc.min(pc.binary_length(values)).as_py() == 0
            ):
                return True
        return False
    return False  # the pandas reader reads an empty field as missing and refuses the file itself


def _has_space(col: Any) -> bool:
    if pa is not None and isinstance(col, (pa.ChunkedArray, pa.Array)):
        chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
        for c in chunks:
            values = c.dictionary if pa.types.is_dictionary(c.type) else c
            if _is_text(values.type) and pc.any(pc.match_substring(values, " ")).as_py():
                return True
        return False
    import pandas as pd

    return bool(pd.Series(col).str.contains(" ", regex=False).any())


def _arrow_table(
    data: bytes, delim: bytes, names: Sequence[str], types: Mapping[str, Any], threads: bool
):
    try:
        return _arrow_read(data, delim, names, types, threads, None)
    except pa.ArrowInvalid as e:
        if "straddl" not in str(e):
            raise
    # a field longer than arrow's block (1 MB, e.g. a 10 MB docno): read the file as one block
    return _arrow_read(data, delim, names, types, threads, min(len(data) + 1, 2**31 - 1))


def _arrow_read(
    data: bytes,
    delim: bytes,
    names: Sequence[str],
    types: Mapping[str, Any],
    threads: bool,
    block_size: int | None,
):
    opts = {} if block_size is None else {"block_size": block_size}
    return pacsv.read_csv(
        pa.BufferReader(data),
        read_options=pacsv.ReadOptions(column_names=list(names), use_threads=threads, **opts),
        parse_options=pacsv.ParseOptions(
            delimiter=delim.decode(),
            quote_char=False,
            double_quote=False,
            escape_char=False,
            ignore_empty_lines=True,
        ),
        convert_options=pacsv.ConvertOptions(
            column_types=dict(types),
            include_columns=list(types),
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            check_utf8=True,
        ),
        memory_pool=POOL,
    )


def _pandas_table(
    data: bytes, delim: bytes, names: Sequence[str], cols: Sequence[str]
) -> pd.DataFrame:
    import pandas as pd

    df = pd.read_csv(
        _io.BytesIO(data),
        sep=delim.decode(),
        header=None,
        dtype=object,
        keep_default_na=False,
        na_filter=True,
        na_values=[""],
        quoting=csv.QUOTE_NONE,
        skip_blank_lines=True,
        engine="c",
        encoding="utf-8",
        encoding_errors="surrogateescape",
    )
    if df.shape[1] != len(names):  # ragged lines raise in read_csv; this is a uniform mismatch
        raise ValueError(f"expected {len(names)} fields, found {df.shape[1]}")
    if df.isna().to_numpy().any():  # a short line: missing trailing fields
        raise ValueError("missing fields")
    df.columns = list(names)
    df = df[list(cols)]
    for (
        c
    ) in cols:  # only the fields kept must be UTF-8 (Q0/iter may hold any bytes, as in trec_eval)
        try:
            df[c].str.encode("utf-8", errors="strict")
        except UnicodeEncodeError:  # a surrogate escape: a byte that was not UTF-8
            raise ValueError("not valid UTF-8") from None
    return df


def has_data_fast(data: bytes) -> bool:
    # Quick accept: a first line with a non-comment character; else walk the lines.
    head = bytes(data[:4096]).lstrip(b" \t\r\n\f\v")  # (a bytearray's lstrip copies it all)
    if head and not head.startswith(b"#"):
        return True
    return _has_data(data)


def number_chunks(col: Any, dtype: type) -> list[np.ndarray]:
    """A numeric column as a list of numpy arrays (zero-copy views of arrow chunks)."""
    if pa is not None and isinstance(col, (pa.ChunkedArray, pa.Array)):
        target = pa.int64() if dtype is np.int64 else pa.float64()
        chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
        if col.type != target:
            try:
                col = pc.cast(col, target)
                chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
            except pa.ArrowInvalid:  # text arrow cannot cast ('+2'): Python's int/float, per value
                return [_text_numbers(c.to_numpy(zero_copy_only=False), dtype) for c in chunks]
        return [_numbers(c, dtype) for c in chunks]
    return [_text_numbers(np.asarray(col, dtype=object), dtype)]


def _numbers(c: Any, dtype: type) -> np.ndarray:
    """A numeric arrow array (int64 or float64) as numpy, zero copy when it has no nulls:
    a read-only view of its buffer, as ``Array.to_numpy`` gives but without importing pandas
    (pyarrow's pandas shim), which the command line's reading thread must not wait for."""
    if c.null_count == 0:
        return np.frombuffer(c.buffers()[1], dtype, len(c), c.offset * np.dtype(dtype).itemsize)
    return c.to_numpy(zero_copy_only=False)  # pragma: no cover - the readers' numbers have no nulls


def _text_numbers(values: np.ndarray, dtype: type) -> np.ndarray:
    """Numbers written as text, with C's syntax (``atol``/``strtod``): ValueError otherwise."""
    import pandas as pd

    s = pd.Series(values, dtype=object)
    ok = s.str.fullmatch(r"[+-]?[0-9]+") if dtype is np.int64 else ~s.str.contains("_", regex=False)
    if not ok.all():
        raise ValueError("not a number")
    return np.asarray(values, dtype=object).astype(dtype)


def concat_chunks(chunks: Sequence[np.ndarray], dtype: type) -> np.ndarray:
    if not chunks:
        return np.array([], dtype=dtype)
    return chunks[0] if len(chunks) == 1 else np.concatenate(chunks)


def check_finite(chunks: Sequence[np.ndarray], data: bytes, path: str, what: str) -> None:
    offset = 0
    for values in chunks:
        ok = np.isfinite(values)
        if not ok.all():
            row = int(np.flatnonzero(~ok)[0])
            n = int((~ok).sum())
            lineno, line = nth_data_line(data, offset + row)
            more = f" ({n - 1} more line(s) like it)" if n > 1 else ""
            raise line_error(
                path, lineno, line, f"{what} is {float(values[row])}, not a finite number{more}"
            )
        offset += len(values)


# --------------------------------------------------------------------------------------
# parsing into columns
# --------------------------------------------------------------------------------------

_RUN_FIELDS = ("topic", "q0", "doc", "rank", "score", "tag")
#: fields read only to be checked (Q0, iter, an unused tag): bytes, any of which trec_eval accepts there
_TEXT = pa.binary() if pa is not None else None


# Switch for tests: pretend pyarrow is absent.
USE_ARROW = pa is not None


def _types(cols: Sequence[str], dict_cols: Sequence[str] = ()) -> dict[str, Any]:
    """Arrow column types for the reader (None values in pandas mode)."""
    if not USE_ARROW:
        return dict.fromkeys(cols)
    special = {"rank": pa.int64(), "score": pa.float64()}
    dict_type = pa.dictionary(pa.int32(), pa.string())
    return {c: special.get(c, dict_type if c in dict_cols else pa.string()) for c in cols}


def _refuse_nul_before_pandas3(data: bytes, path: str) -> None:
    """pandas 2's CSV parser reads a NUL byte as the end of its field (a doc ``\\x00`` becomes
    missing, ``a\\x00b`` becomes ``a``): refuse a file with a NUL byte outside comment lines,
    naming the line, rather than read other ids than the file's.  pandas 3 and pyarrow read
    it."""
    import re

    import pandas as pd

    if int(pd.__version__.split(".")[0]) >= 3:
        return
    for m in re.finditer(rb"[^\n]*\x00[^\n]*", data):
        if m.group().lstrip(b" \t\r\v\f").startswith(b"#"):
            continue
        lineno = data.count(b"\n", 0, m.start()) + 1
        line = m.group().decode("utf-8", "backslashreplace")
        raise ParseError(
            f"{path}: line {lineno} holds a NUL byte ({line!r}), which the CSV parser of "
            f"pandas {pd.__version__} cannot read; install pyarrow (pip install "
            "'irframe[arrow]') or pandas 3 to read this file",
            path=path,
            lineno=lineno,
            line=line,
        )


def parse_table(
    data: bytes,
    path: str,
    kind: str,
    names: Sequence[str],
    types: Mapping[str, Any],
    threads: bool = True,
) -> dict[str, Any]:
    """Parse ``data`` into a dict of columns (arrow ChunkedArrays or pandas Series of str)."""
    if not has_data_fast(data):
        what = "run" if kind == "run" else "qrels"
        raise ParseError(f"{path}: empty {what} file (no data lines)", path=path)
    if not USE_ARROW and b"\x00" in data:
        _refuse_nul_before_pandas3(data, path)
    plan = _delimiter(data)
    attempts: list[tuple[bytes | None, bytes, bool]] = []
    if plan is not None:
        attempts.append((data, *plan))
    attempts.append((None, b" ", False))  # normalised
    last: BaseException | None = None
    for buf, d, check in attempts:
        single = buf is not None  # split on one character as written (else normalised first)
        if buf is None:
            buf = _normalise(data, kind)
        if buf[:3] == _BOM:  # an id starting with U+FEFF: the CSV parsers would drop it as a BOM
            buf = b"\n" + buf  # (an empty line is skipped and never reported)
        # Split on one character, every field is read: a field that is empty (the separator
        # doubled, leading or trailing, where trec_eval's whitespace split sees no field) or,
        # with ``check``, holds a space sends the file to the normalised attempt (an empty
        # number already fails to convert).
        read = {n: types.get(n, _TEXT) for n in names} if single else types
        try:
            if USE_ARROW:
                t = _arrow_table(buf, d, names, read, threads)
                cols = {c: t.column(c) for c in read}
            else:
                df = _pandas_table(buf, d, names, list(read))
                cols = {c: df[c] for c in read}
        except (ValueError, UnicodeDecodeError) as e:  # ArrowInvalid subclasses ValueError
            last = e
            continue
        if single and any(_has_empty(col) or (check and _has_space(col)) for col in cols.values()):
            continue
        return {c: cols[c] for c in types}
    error = diagnose(data, path, kind, last)
    if error.lineno is None and USE_ARROW:
        # every line is well formed but arrow's number parser refused one (e.g. a rank '+2',
        # which trec_eval's atol accepts): read numbers as text, converted by number_chunks
        # (``buf`` is still the last attempt's: the normalised text, BOM guard applied)
        text_types = {
            c: (t if pa.types.is_dictionary(t) else pa.string()) for c, t in types.items()
        }
        assert buf is not None  # set by the last attempt above
        try:
            t = _arrow_table(buf, b" ", names, text_types, threads)
            return {c: t.column(c) for c in types}
        except ValueError:
            pass
    raise error


def read_run_columns(
    data: bytes, path: str, want_tag: bool, threads: bool = True, want_rank: bool = True
) -> dict[str, Any]:
    """Columns of one run file: topic/doc/tag (strings), rank/score (lists of numpy chunks).

    Without ``want_rank`` the rank field is only checked to be there (any text, as trec_eval,
    which skips it) and no ``rank`` column is returned."""
    names = (
        ["topic", "doc"]
        + (["rank"] if want_rank else [])
        + ["score"]
        + (["tag"] if want_tag else [])
    )
    cols = parse_table(
        data, path, "run", _RUN_FIELDS, _types(names, dict_cols=("topic", "tag")), threads
    )
    try:
        if want_rank:
            cols["rank"] = number_chunks(cols["rank"], np.int64)
        cols["score"] = number_chunks(cols["score"], np.float64)
    except (ValueError, TypeError, OverflowError) as e:
        raise diagnose(data, path, "run", e) from None
    check_finite(cols["score"], data, path, "score")
    cols["n"] = sum(len(c) for c in cols["score"])
    return cols


def _last_tag(data: bytes, path: str, threads: bool) -> str:
    """The tag (6th field) of the last data line of a run file that parsed: what trec_eval
    prints as the run id.  A tag that is not UTF-8 is left to the column reader to report."""
    fields = _last_data_fields(data)
    try:
        return fields[5].decode("utf-8")  # type: ignore[index]
    except (UnicodeDecodeError, TypeError, IndexError):
        return last_string(read_run_columns(data, path, want_tag=True, threads=threads)["tag"])


def last_string(col: Any) -> str:
    """The last value of a string column (arrow or pandas) as str."""
    if pa is not None and isinstance(col, (pa.ChunkedArray, pa.Array)):
        return str(col[len(col) - 1].as_py())
    return str(col.iloc[-1])  # a pandas Series (the reader without pyarrow)


def load_run(
    data: bytes, path: str, want_tag: bool, want_rank: bool, last_tag: bool, threads: bool
) -> dict[str, Any]:
    """`read_run_columns` of one run file and, with ``last_tag``, the tag of its last
    line as ``"last_tag"`` (what trec_eval prints as the run id), without reading every
    line's tag unless ``want_tag``."""
    cols = read_run_columns(data, path, want_tag=want_tag, threads=threads, want_rank=want_rank)
    if last_tag:
        cols["last_tag"] = last_string(cols["tag"]) if want_tag else _last_tag(data, path, threads)
    return cols


# --------------------------------------------------------------------------------------
# reading in blocks (irframe eval on large files)
# --------------------------------------------------------------------------------------

#: the text ``irframe eval`` parses at a time when it streams a run file (`topic_blocks`):
#: a block holds whole lines, so a line longer than this makes its block longer
BLOCK_BYTES = 16 * 2**20
_SEPARATORS = np.array([ord(c) for c in " \t\v\f\r"], dtype=np.uint8)


class Tee:
    """A binary reader that copies what it reads to ``spool`` (standard input's bytes kept for
    a second reading)."""

    def __init__(self, raw: Any, spool: Any):
        self.raw, self.spool = raw, spool

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.spool.write(data)
        return data

    def readable(self) -> bool:  # pragma: no cover - io protocol
        return True


def topic_blocks(source: Any, block_bytes: int = BLOCK_BYTES) -> Iterator[bytearray]:
    """The text of a run file (binary file object) in blocks of whole topics: about
    ``block_bytes`` read at a time, each block cut before the lines of its last topic
    (`last_topic_start`), which are carried over to the next block; the last block holds the
    rest of the file.  Gunzipped as it is read when it starts with gzip's magic bytes (sniffed
    from the bytes read, never by opening it twice); the UTF-8 byte order mark dropped as
    `read_bytes` does.  A block is one copy of the text read (``bytearray``, which the
    parsers read as they read ``bytes``); a topic longer than a block makes its block longer.

    A block may cut a topic in two when a line inside it begins with whitespace (see
    `last_topic_start`); a file not grouped by topic also has topics in
    several blocks: the caller checks that no topic is met twice.

    Raises ``GZIP_ERRORS`` (``OSError``, ``EOFError``, ...) as the file or its gzip stream does (the
    caller reads the file again with `read_bytes`, which reports them).

    >>> data = b"1 Q0 a 1 1 r\\n1 Q0 b 2 1 r\\n2 Q0 a 1 1 r\\n2 Q0 b 2 1 r\\n3 Q0 a 1 1 r"
    >>> [sorted({bytes(x[:1]) for x in b.splitlines()}) for b in topic_blocks(_io.BytesIO(data), 30)]
    [[b'1'], [b'2', b'3']]
    """
    prefix = source.read(2)
    reader: Any = source
    if prefix == b"\x1f\x8b":
        reader = GZIP.GzipFile(fileobj=cast(Any, _Prefixed(prefix, source)), mode="rb")
        prefix = b""
    carry = bytearray(prefix)
    floor, topic = 0, None  # the lines before ``floor`` in ``carry`` are all this topic's
    first = True
    while True:
        chunk = reader.read(block_bytes)
        buf = carry  # ours: extended in place (a topic longer than a block grows it once)
        buf += chunk
        del carry
        if first and (len(buf) >= 3 or not chunk):
            first = False
            if buf[:3] == _BOM:
                del buf[:3]
        if not chunk:
            if buf:
                yield buf
            return
        del chunk
        end = buf.rfind(b"\n") + 1  # the complete lines
        found = last_topic_start(buf, floor, end) if end else None
        if found is None:  # no data line yet, or a line longer than the block
            carry, floor, topic = buf, end, None
            continue
        start, last = found
        if (start == floor and floor and last == topic) or start == 0:  # one topic so far
            carry, floor, topic = buf, end, last
            continue
        carry, floor, topic = buf[start:], end - start, last
        del buf[start:]
        yield buf
        del buf


class _Prefixed:
    """A binary reader giving ``prefix`` and then what ``raw`` gives (the sniffed bytes)."""

    def __init__(self, prefix: bytes, raw: Any):
        self.prefix, self.raw = prefix, raw

    def read(self, n: int = -1) -> bytes:
        if not self.prefix:
            return self.raw.read(n)
        if n is None or n < 0:
            out, self.prefix = self.prefix + self.raw.read(), b""
            return out
        out, self.prefix = self.prefix[:n], self.prefix[n:]
        return out + (self.raw.read(n - len(out)) if n > len(out) else b"")

    def readinto(self, b: Any) -> int:  # python-isal's GzipFile reads this way
        view = memoryview(b).cast("B")
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def readable(self) -> bool:  # pragma: no cover - io protocol
        return True


def _last_data_line(data: bytes, end: int) -> tuple[int, bytes] | None:
    """(start, first field) of the last data line of ``data[:end]`` (as `iter_lines` finds
    data lines), or None."""
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        fields = data[start:end].split(None, 1)
        if fields and not fields[0].startswith(b"#"):
            return start, bytes(fields[0])
        end = start - 1
    return None


def last_topic_start(data: Any, floor: int = 0, end: int | None = None) -> tuple[int, bytes] | None:
    """``(start, topic)``: ``topic`` is the first field of the last data line of ``data[:end]``
    (whole lines of a run file), ``start`` where its last lines begin: the start of the line after the
    last line before it that does not begin with ``topic`` followed by whitespace; ``floor``
    (a line start) when every line from ``floor`` on begins with it (the lines before ``floor``
    are not looked at).  Vectorised over windows that grow from the end.  None when ``data``
    has no data line.

    Empty lines and comment lines (``#`` first) belong to any topic.  A line that begins
    with whitespace ends the search: its topic is not known here, so a topic may be cut in
    two; the caller then meets it again in a later block (and reads the file whole).

    >>> last_topic_start(b"1 Q0 a 1 1 r\\n2 Q0 b 1 1 r\\n2 Q0 c 2 1 r\\n")
    (13, b'2')
    >>> last_topic_start(b"2 Q0 b 1 1 r\\n2 Q0 c 2 1 r\\n"), last_topic_start(b"#\\n")
    ((0, b'2'), None)
    """
    end = len(data) if end is None else end
    found = _last_data_line(data, end)
    if found is None:
        return None
    hi, topic = found  # lines starting before hi are checked, from the end
    a = np.frombuffer(data, dtype=np.uint8)
    t = np.frombuffer(topic, dtype=np.uint8)
    last = len(a) - 1
    window = 1 << 16
    while hi > floor:
        lo = max(floor, hi - window)
        seg = a[max(lo - 1, 0) : hi]
        starts = np.flatnonzero(seg == 10) + max(lo - 1, 0) + 1  # after a line break
        starts = starts[(starts >= lo) & (starts < hi)]
        if lo == 0:
            starts = np.concatenate(([0], starts))
        if not len(starts):  # a line longer than the window
            window *= 2
            continue
        ok = starts + len(t) < len(a)
        for j, byte in enumerate(t[:16]):  # a loop over the topic's first bytes
            ok &= a[np.minimum(starts + j, last)] == byte
        if len(t) > 16:  # a long topic id: the lines still matching, compared whole (each at
            for i in np.flatnonzero(ok):  # least len(t) bytes long: len(seg) / len(t) of them)
                s0 = int(starts[i])
                ok[i] = data[s0 : s0 + len(t)] == topic
        ok &= np.isin(a[np.minimum(starts + len(t), last)], _SEPARATORS)
        first = a[starts]  # empty lines and comments are no topic's: they end none
        ok |= (first == 10) | (first == 35)
        ok |= (first == 13) & (a[np.minimum(starts + 1, last)] == 10)
        bad = np.flatnonzero(~ok)
        if len(bad):
            i = bad[-1]
            return (int(starts[i + 1]) if i + 1 < len(starts) else hi), topic
        hi = int(starts[0])
        window *= 2
    return floor, topic
