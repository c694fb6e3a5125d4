"""Column roles and validation of run and qrels frames.

A *run frame* has one row per retrieved document: ``system, topic, doc`` and
``score`` and/or ``rank``.  A *qrels frame* has ``topic, doc, rel`` and, for
diversity judgments, ``subtopic``.  Column names are configurable through a
``columns`` mapping from role to column name; the defaults are the role names.

Validation collects every problem of one kind before raising, names the rows
(first few) and says how to fix them.  Nothing here modifies the caller's frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import ColumnError, DuplicateError, InputError

__all__ = ["RUN_ROLES", "QRELS_ROLES", "role_names", "RunColumns", "QrelsColumns", "run_columns", "qrels_columns", "missing_run_columns",
           "check_id_column", "numeric_column", "check_duplicates"]

RUN_ROLES = ("system", "topic", "doc", "score", "rank")
QRELS_ROLES = ("topic", "doc", "rel", "subtopic")
_SHOW = 5  # rows shown in an error message


@dataclass(frozen=True)
class RunColumns:
    """Resolved column names of a run frame (``score``/``rank`` may be ``None``)."""

    system: str
    topic: str
    doc: str
    score: str | None
    rank: str | None


@dataclass(frozen=True)
class QrelsColumns:
    """Resolved column names of a qrels frame (``subtopic`` may be ``None``)."""

    topic: str
    doc: str
    rel: str
    subtopic: str | None


def role_names(columns: Mapping[str, str] | None, roles: tuple[str, ...] = RUN_ROLES) -> dict[str, str]:
    """Column name of every role: the defaults (the role names) overridden by ``columns``.

    >>> role_names({"doc": "docno"})["doc"]
    'docno'
    """
    columns = dict(columns or {})
    unknown = set(columns) - set(roles)
    if unknown:
        raise ValueError(f"columns= has unknown role(s) {sorted(unknown)}; known roles are {list(roles)}")
    return {role: columns.get(role, role) for role in roles}


def _found(df: pd.DataFrame) -> str:
    cols = [str(c) for c in df.columns]
    return ", ".join(cols[:20]) + (", ..." if len(cols) > 20 else "") if cols else "(no columns)"


def missing_run_columns(df: pd.DataFrame, columns: Mapping[str, str] | None = None) -> list[str]:
    """Names of the required run columns that ``df`` lacks (empty when it is usable)."""
    n = role_names(columns, RUN_ROLES)
    missing = [n[r] for r in ("system", "topic", "doc") if n[r] not in df.columns]
    if n["score"] not in df.columns and n["rank"] not in df.columns:
        missing.append(f"{n['score']} (or {n['rank']})")
    return missing


def run_columns(df: pd.DataFrame, columns: Mapping[str, str] | None = None,
                what: str = "run frame") -> RunColumns:
    """Resolve and check the columns of a run frame.

    Raises
    ------
    ColumnError
        Listing the missing columns and the columns found.
    """
    missing = missing_run_columns(df, columns)
    if missing:
        raise ColumnError(
            f"{what} is missing column(s) {', '.join(repr(m) for m in missing)}; found: {_found(df)}. "
            "Rename the columns (df.rename(columns={...})) or pass columns={'doc': 'docno', ...}.")
    n = role_names(columns, RUN_ROLES)
    return RunColumns(n["system"], n["topic"], n["doc"],
                      n["score"] if n["score"] in df.columns else None,
                      n["rank"] if n["rank"] in df.columns else None)


def qrels_columns(df: pd.DataFrame, columns: Mapping[str, str] | None = None,
                  what: str = "qrels frame") -> QrelsColumns:
    """Resolve and check the columns of a qrels frame."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame, got {type(df).__name__}; "
                        "read a file with irframe.read_qrels(path)")
    n = role_names(columns, QRELS_ROLES)
    missing = [n[r] for r in ("topic", "doc", "rel") if n[r] not in df.columns]
    if missing:
        raise ColumnError(
            f"{what} is missing column(s) {', '.join(repr(m) for m in missing)}; found: {_found(df)}. "
            "Qrels need topic, doc, rel (and subtopic for diversity judgments).")
    return QrelsColumns(n["topic"], n["doc"], n["rel"],
                        n["subtopic"] if n["subtopic"] in df.columns else None)


def _rows(df: pd.DataFrame, mask: np.ndarray, cols: list[str]) -> str:
    idx = np.flatnonzero(mask)
    shown = df.iloc[idx[:_SHOW]][cols]
    more = f" (and {len(idx) - _SHOW} more)" if len(idx) > _SHOW else ""
    lines = "; ".join(
        f"row {df.index[i]!r}: " + ", ".join(f"{c}={v!r}" for c, v in zip(cols, vals))
        for i, vals in zip(idx[:_SHOW], shown.itertuples(index=False, name=None)))
    return lines + more


def check_id_column(df: pd.DataFrame, col: str, what: str) -> None:
    """Ids must be strings (object, str, string or categorical of strings), never numbers.

    Numbers would silently turn "051" into 51 and stop matching the other frame.
    """
    s = df[col]
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    if pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
        raise InputError(
            f"{what}: column {col!r} holds numbers (dtype {s.dtype}); ids must be strings so that "
            f"'051' and '51' stay different. Read files with irframe.read_run/read_qrels, or convert "
            f"with df[{col!r}] = df[{col!r}].astype(str) if the numbers are really the ids.")
    if s.isna().any():
        mask = s.isna().to_numpy()
        raise InputError(f"{what}: column {col!r} has {int(mask.sum())} missing id(s): "
                         f"{_rows(df, mask, [col])}. Drop or fill those rows.")


def numeric_column(df: pd.DataFrame, col: str, what: str, *, finite: bool = True,
                   allow_nan: bool = False) -> np.ndarray:
    """Return ``df[col]`` as float64, raising on non-numeric, NaN or infinite values."""
    s = df[col]
    if pd.api.types.is_bool_dtype(s.dtype):
        raise InputError(f"{what}: column {col!r} is boolean; expected numbers")
    if pd.api.types.is_numeric_dtype(s.dtype):
        values = s.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        values = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.isnan(values) & s.notna().to_numpy()
        if bad.any():
            raise InputError(f"{what}: column {col!r} has {int(bad.sum())} non-numeric value(s): "
                             f"{_rows(df, bad, [col])}. Fix or drop those rows.")
    if not allow_nan and np.isnan(values).any():
        bad = np.isnan(values)
        raise InputError(f"{what}: column {col!r} has {int(bad.sum())} NaN value(s): "
                         f"{_rows(df, bad, [col])}. Drop those rows or fill them.")
    if finite and np.isinf(values).any():
        bad = np.isinf(values)
        raise InputError(f"{what}: column {col!r} has {int(bad.sum())} infinite value(s): "
                         f"{_rows(df, bad, [col])}. Replace them with finite numbers.")
    values = values.view()  # may share memory with the caller's frame: never writable from here
    values.flags.writeable = False
    return values


def check_duplicates(df: pd.DataFrame, key_codes: np.ndarray, cols: list[str], what: str,
                     duplicates: str) -> np.ndarray | None:
    """Check a 1-d int64 key for duplicates.

    Returns ``None`` when there are none, otherwise (``duplicates="first"``) a boolean
    mask of the rows to keep.  With ``duplicates="error"`` raises :class:`DuplicateError`
    naming the rows.
    """
    if duplicates not in ("error", "first"):
        raise ValueError(f"duplicates= must be 'error' or 'first', got {duplicates!r}")
    dup = pd.Index(key_codes).duplicated(keep="first")
    if not dup.any():
        return None
    if duplicates == "first":
        return ~dup
    dup_all = pd.Index(key_codes).duplicated(keep=False)
    raise DuplicateError(
        f"{what} has {int(dup.sum())} duplicate ({', '.join(cols)}) row(s): {_rows(df, dup_all, cols)}. "
        "trec_eval treats this as fatal; remove them or pass duplicates='first' to keep the first.")
