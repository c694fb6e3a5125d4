"""Writing run and qrels frames as TREC text (re-exported by [`irframe.io`][irframe.io]).

Ids are checked before anything is written: a TREC file cannot hold an empty id, an id with
whitespace, or a topic starting with ``#`` (read back as a comment), and scores and grades
must be finite.  Floats are written with the shortest text that reads back to the same
float64, so ``read_run(write_run(df))`` gives the numbers back to the last bit.
"""

from __future__ import annotations

import csv
import gzip
import os
import re
from collections.abc import Mapping
from typing import Union

import numpy as np
import pandas as pd

from .errors import (
    ColumnError,
    ConventionWarning,
    DuplicateError,
    InputError,
    OptionError,
    ShapeError,
    shown,
    warn,
)
from .schema import _rows, non_string_ids, resolve_roles

__all__ = ["format_qrels", "format_run", "write_qrels", "write_run"]

PathLike = Union[str, "os.PathLike[str]"]
_ID_BAD_RE = re.compile(r"[ \t\n\r\f\v]")  # C isspace(): what TREC readers split on
# NUL (it ends a C string: trec_eval aborts on it) and a byte-order mark (the readers strip
# one at the start of a file only)
_ID_CONTROL_RE = re.compile("[\x00\ufeff]")


def _topic_doc_strings(df: pd.DataFrame, n: Mapping[str, str]) -> tuple[pd.Series, pd.Series]:
    """Topic and doc columns as writable strings (a topic may not start a comment line)."""
    topic = _id_strings(df[n["topic"]], "topic column")
    hashed = topic.str.startswith("#").to_numpy()
    if hashed.any():
        raise InputError(
            f"topic ids starting with '#' would be read back as comment lines: "
            f"{_rows(df, hashed, [n['topic']])}"
        )
    return topic, _id_strings(df[n["doc"]], "doc column")


def _id_strings(s: pd.Series, what: str) -> pd.Series:
    """Id column as strings, checking that they can be written and read back."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        uniques = pd.Series(s.cat.categories[np.unique(s.cat.codes[s.cat.codes >= 0])])
        if (s.cat.codes < 0).any():
            raise InputError(f"{what} has missing ids; drop or fill them before writing")
    else:
        if s.isna().any():
            raise InputError(f"{what} has missing ids; drop or fill them before writing")
        bad = non_string_ids(s)
        if bad is not None and bad.any():
            raise InputError(
                f"{what} (dtype {s.dtype}) holds {int(bad.sum())} non-string id(s), e.g. "
                f"{shown(s[bad].iloc[0])}; ids must be strings "
                f"(convert with .astype(str) if the numbers are the ids)"
            )
        uniques = pd.Series(pd.unique(s.to_numpy(dtype=object)))
    u = uniques.astype(str)
    name = str(s.name)
    for bad, why, fix in (
        (
            u.str.contains(_ID_BAD_RE) | (u == ""),
            "are empty or contain whitespace, which TREC files cannot hold (their fields "
            "are split on whitespace)",
            f"replace the whitespace, e.g. df[{name!r}] = df[{name!r}].str.replace("
            r"r'[ \t\n\r\f\v]', '_', regex=True), and drop empty ids",
        ),
        (
            u.str.contains(_ID_CONTROL_RE),
            "hold a NUL or a byte-order mark, which no TREC reader reads back as written "
            "(trec_eval stops at a NUL)",
            f"remove them, e.g. df[{name!r}] = df[{name!r}].str.replace('[\\x00\\ufeff]', "
            "'', regex=True)",
        ),
    ):
        if bad.any():
            rows = s.astype(str).isin(set(u[bad])).to_numpy()
            raise InputError(
                f"{what} {name!r}: {int(rows.sum())} row(s) whose ids {why}: "
                f"{_rows(s.to_frame(), rows, [s.name])}. Fix: {fix}; or keep the frame as "
                "parquet (df.to_parquet(path)), which holds any string."
            )
    return s.astype(str)


def _finite_floats(s: pd.Series, what: str) -> np.ndarray:
    if not (pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)):
        raise InputError(f"{what} must be numeric, got dtype {s.dtype}")
    v = s.to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.isfinite(v).all():
        raise InputError(
            f"{what} has {int((~np.isfinite(v)).sum())} NaN/infinite value(s) "
            f"({_rows(s.to_frame(), ~np.isfinite(v), [s.name])}); TREC files need finite numbers"
        )
    return v


def _float_text(v: np.ndarray) -> np.ndarray:
    """Shortest repr that reads back to the same float64 (numpy's dragon4)."""
    return v.astype(str)


def _grade_text(v: np.ndarray) -> np.ndarray:
    """Grades without an exponent: trec_eval reads a grade with ``atol``, which stops at the
    ``e`` of ``1e+16`` (grade 1) and irframe's reader refuses such text; the digits
    (``10000000000000000``, ``0.00001``) read back to the same float64 in both."""
    return np.array([np.format_float_positional(x, trim="0") for x in v], dtype=object)


def format_run(
    df: pd.DataFrame, tag: str | None = None, *, columns: Mapping[str, str] | None = None
) -> str:
    """Format a run frame as TREC run text (``topic Q0 doc rank score tag`` lines).

    Parameters
    ----------
    df : pandas.DataFrame
        A run frame: ``system, topic, doc`` and ``score`` and/or ``rank``.  Not modified.
    tag : str, optional
        Run tag written in the 6th field of every line; default: the ``system``
        column (several systems are kept apart by their tags, which
        ``read_run(path, system="tag")`` reads back; trec_eval reads one run, so a
        ``ConventionWarning`` says so).
    columns : mapping, optional
        Input column names by role.

    Returns
    -------
    str
        One line per row, in frame order, single-space separated, ending in a
        newline.  Scores are written with the shortest text that reads back to
        the same float64.  A missing ``rank`` is the 1-based position by score
        (descending, stable) within (system, topic); a missing ``score`` is
        ``-rank``.

    Raises
    ------
    irframe.errors.InputError
        Missing, empty, whitespace-, NUL- or byte-order-mark-holding ids, non-string ids, topics
        starting with ``#``, non-finite scores, ranks that are not integers, or a document
        twice in one ranking: TREC files could not hold them, or trec_eval would stop.

    See Also
    --------
    - [`irframe.io.write_run`][irframe.io.write_run]: the same text into a file.

    Examples
    --------
    >>> import pandas as pd, irframe.io as iio
    >>> run = pd.DataFrame({"system": "bm25", "topic": ["051", "051"], "doc": ["d1", "d2"],
    ...                     "score": [2.5, 0.1]})
    >>> print(iio.format_run(run), end="")
    051 Q0 d1 1 2.5 bm25
    051 Q0 d2 2 0.1 bm25
    """
    if not isinstance(df, pd.DataFrame):
        raise ShapeError(f"expected a DataFrame, got {type(df).__name__}")
    n = resolve_roles(df, columns, "run", fallback=True)  # PyTerrier's qid/docno... as they are
    need = [n["topic"], n["doc"]] + ([n["system"]] if tag is None else [])
    missing = [c for c in need if c not in df.columns]
    if n["score"] not in df.columns and n["rank"] not in df.columns:
        missing.append(f"{n['score']} (or {n['rank']})")
    if missing:
        raise ColumnError(
            f"run frame is missing column(s) {missing}; found {list(map(str, df.columns))}"
            + (
                "; pass tag= to write a frame without a system column"
                if tag is None and n["system"] in missing
                else ""
            )
        )
    if tag is not None and (
        not isinstance(tag, str) or not tag or _ID_BAD_RE.search(tag) or _ID_CONTROL_RE.search(tag)
    ):
        raise OptionError(f"tag must be a non-empty str without whitespace, got {tag!r}")
    if len(df) == 0:
        return ""
    topic, doc = _topic_doc_strings(df, n)
    if tag is None:
        tags = _id_strings(df[n["system"]], "system column")
        names = pd.unique(tags.to_numpy())
        if len(names) > 1:
            warn(
                f"{len(names)} systems ({', '.join(map(repr, names[:3]))}"
                f"{', ...' if len(names) > 3 else ''}) written to one run file, each line with "
                "its system as the tag: irframe.read_run(path, system='tag') reads them apart, "
                "but trec_eval (and read_run's default) reads the file as one run. For "
                "trec_eval, write one file per system: for name, g in "
                "df.groupby('system', observed=True): irf.write_run(g, f'{name}.txt')",
                ConventionWarning,
            )
    else:
        tags = pd.Series(tag, index=df.index, dtype=str)
    key = pd.MultiIndex.from_arrays([tags.to_numpy(), topic.to_numpy(), doc.to_numpy()])
    twice = key.duplicated(keep=False)
    if twice.any():
        cols = [c for c in (n["system"] if tag is None else None, n["topic"], n["doc"]) if c]
        raise DuplicateError(
            f"the run frame lists {int(key.duplicated().sum())} document(s) twice in one ranking "
            f"({_rows(df, twice, cols)}); trec_eval stops on such a file ('duplicate docs'). "
            f"Keep one row of each: df = df.drop_duplicates({cols!r})"
        )
    if n["score"] in df.columns:
        score = _finite_floats(df[n["score"]], "score column")
    if n["rank"] in df.columns:
        r = df[n["rank"]]
        if r.isna().any():
            raise InputError(
                f"rank column has missing values: {_rows(df, r.isna().to_numpy(), [r.name])}"
            )
        rv = _finite_floats(r, "rank column")
        if (rv != np.round(rv)).any():
            raise InputError(
                f"rank column has non-integer values: {_rows(df, rv != np.round(rv), [r.name])}"
            )
        if (np.abs(rv) >= 2.0**63).any():
            raise InputError(
                f"rank column has values beyond a 64-bit integer: {_rows(df, np.abs(rv) >= 2.0**63, [r.name])}"
            )
        rank = (
            r.to_numpy(dtype=np.int64)
            if pd.api.types.is_integer_dtype(r.dtype)
            else rv.astype(np.int64)
        )
    else:
        keys = pd.DataFrame({"s": tags.to_numpy(), "t": topic.to_numpy(), "x": -score})
        order = np.lexsort(
            (np.arange(len(keys)), -score, keys["t"].to_numpy(), keys["s"].to_numpy())
        )
        rank = np.empty(len(df), dtype=np.int64)
        grp = keys[["s", "t"]].iloc[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = (grp["s"].to_numpy()[1:] != grp["s"].to_numpy()[:-1]) | (
            grp["t"].to_numpy()[1:] != grp["t"].to_numpy()[:-1]
        )
        starts = np.flatnonzero(first)
        pos = np.arange(len(order)) - np.repeat(starts, np.diff(np.append(starts, len(order))))
        rank[order] = pos + 1
    if n["score"] not in df.columns:
        score = -rank.astype(np.float64)
    out = pd.DataFrame(
        {
            "t": topic.to_numpy(),
            "q": "Q0",
            "d": doc.to_numpy(),
            "r": rank.astype(str),
            "s": _float_text(score),
            "g": tags.to_numpy(),
        }
    )
    return out.to_csv(
        sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE, lineterminator="\n"
    )


def format_qrels(df: pd.DataFrame, *, columns: Mapping[str, str] | None = None) -> str:
    """Format a qrels frame as TREC qrels text.

    ``topic 0 doc rel`` lines, or ``topic subtopic doc rel`` when the frame has a
    ``subtopic`` column.  Integer grades are written as integers, float grades
    with the shortest text that reads back to the same float64.

    Parameters
    ----------
    df : pandas.DataFrame
        A qrels frame: ``topic, doc, rel`` (and ``subtopic``).  Not modified.
    columns : mapping, optional
        Input column names by role.

    Returns
    -------
    str
        One line per row, in frame order, ending in a newline.

    Raises
    ------
    irframe.errors.InputError
        Missing, empty or whitespace-holding ids, non-string ids, topics starting with ``#``,
        or non-finite scores / grades: TREC files could not hold them or read them back.

    See Also
    --------
    - [`irframe.io.write_qrels`][irframe.io.write_qrels]: the same text into a file.

    Examples
    --------
    >>> import pandas as pd, irframe.io as iio
    >>> q = pd.DataFrame({"topic": ["051", "051"], "doc": ["d1", "d2"], "rel": [2, 0]})
    >>> print(iio.format_qrels(q), end="")
    051 0 d1 2
    051 0 d2 0
    """
    if not isinstance(df, pd.DataFrame):
        raise ShapeError(f"expected a DataFrame, got {type(df).__name__}")
    n = resolve_roles(df, columns, "qrels", fallback=True)
    missing = [n[r] for r in ("topic", "doc", "rel") if n[r] not in df.columns]
    if missing:
        raise ColumnError(
            f"qrels frame is missing column(s) {missing}; found {list(map(str, df.columns))}"
        )
    if len(df) == 0:
        return ""
    topic, doc = _topic_doc_strings(df, n)
    if n["subtopic"] in df.columns:
        second = _id_strings(df[n["subtopic"]], "subtopic column").to_numpy()
    else:
        second = "0"
    r = df[n["rel"]]
    if pd.api.types.is_integer_dtype(r.dtype) and not pd.api.types.is_bool_dtype(r.dtype):
        if r.isna().any():
            raise InputError(
                f"rel column has missing values: {_rows(df, r.isna().to_numpy(), [r.name])}"
            )
        rel = r.to_numpy(dtype=np.int64).astype(str)
    else:
        rel = _grade_text(_finite_floats(r, "rel column"))
    out = pd.DataFrame({"t": topic.to_numpy(), "i": second, "d": doc.to_numpy(), "r": rel})
    return out.to_csv(
        sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE, lineterminator="\n"
    )


def _write_text(text: str, path: PathLike) -> None:
    data = text.encode("utf-8")
    p = os.fspath(path)
    if p.endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    with open(p, "wb") as fh:
        fh.write(data)


def write_run(
    df: pd.DataFrame,
    path: PathLike,
    tag: str | None = None,
    *,
    columns: Mapping[str, str] | None = None,
) -> None:
    """Write a run frame as a TREC run file (gzip when ``path`` ends in ``.gz``).

    ``read_run(path)`` gives the frame back: same rows and order, ids as
    categoricals, ``rank`` int64, ``score`` float64 equal to the last bit.
    See [`format_run`][irframe.io.format_run] for the format and the options; ``df`` is not modified.

    Parameters
    ----------
    df : pandas.DataFrame
        A run frame: ``system, topic, doc`` and ``score`` and/or ``rank``.  Not modified.
    path : str or os.PathLike
        Output file; ``.gz`` compresses.
    tag : str, optional
        Run tag of every line; default: the ``system`` column.
    columns : mapping, optional
        Input column names by role.

    Raises
    ------
    irframe.errors.InputError
        Missing, empty or whitespace-holding ids, non-string ids, topics starting with ``#``,
        or non-finite scores / grades: TREC files could not hold them or read them back.

    See Also
    --------
    - [`irframe.io.format_run`][irframe.io.format_run]: the same text as a string.
    - [`irframe.io.read_run`][irframe.io.read_run]: reads it back.
    - [`df.ir.to_trec`][irframe.IrAccessor.to_trec]: the accessor form.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, irframe.io as iio
    >>> run = pd.DataFrame({"system": "s", "topic": ["1", "1"], "doc": ["a", "b"],
    ...                     "rank": [1, 2], "score": [0.3, 0.1 + 0.2]})
    >>> path = os.path.join(tempfile.mkdtemp(), "s.txt.gz")
    >>> iio.write_run(run, path)
    >>> iio.read_run(path).score.tolist() == run.score.tolist()
    True
    """
    _write_text(format_run(df, tag, columns=columns), path)


def write_qrels(
    df: pd.DataFrame, path: PathLike, *, columns: Mapping[str, str] | None = None
) -> None:
    """Write a qrels frame as a TREC qrels file (gzip when ``path`` ends in ``.gz``).

    See [`format_qrels`][irframe.io.format_qrels] for the format; ``df`` is not modified.

    Parameters
    ----------
    df : pandas.DataFrame
        A qrels frame: ``topic, doc, rel`` (and ``subtopic`` for diversity qrels).  Not modified.
    path : str or os.PathLike
        Output file; ``.gz`` compresses.
    columns : mapping, optional
        Input column names by role.

    Raises
    ------
    irframe.errors.InputError
        Missing, empty or whitespace-holding ids, non-string ids, topics starting with ``#``,
        or non-finite scores / grades: TREC files could not hold them or read them back.

    See Also
    --------
    - [`irframe.io.format_qrels`][irframe.io.format_qrels]: the same text as a string.
    - [`irframe.io.read_qrels`][irframe.io.read_qrels]: reads it back.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, irframe.io as iio
    >>> q = pd.DataFrame({"topic": ["051"], "doc": ["d1"], "rel": [1.5]})
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> iio.write_qrels(q, path)
    >>> iio.read_qrels(path).rel.tolist()
    [1.5]
    """
    _write_text(format_qrels(df, columns=columns), path)
