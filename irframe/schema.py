"""Column roles and validation of run and qrels frames.

A *run frame* has one row per retrieved document: ``system, topic, doc`` and
``score`` and/or ``rank``.  A *qrels frame* has ``topic, doc, rel`` and, for
diversity judgments, ``subtopic``.

This module is the one place that maps columns to roles.  Without a ``columns``
mapping, each role is found under its own name or under the name a neighbouring
tool uses (`RUN_ALIASES`, `QRELS_ALIASES`): PyTerrier's
``qid, docno, score, rank, name`` and ``label``; ir_measures' and ir_datasets'
``query_id, doc_id, score`` and ``relevance``; ranx's ``q_id, doc_id, score``.
Two candidate columns for one role is an error naming both.  A run frame without
a system column holds one system (named by ``system=``, default ``"run"``).
[`run_frame`][irframe.schema.run_frame]/[`qrels_frame`][irframe.schema.qrels_frame] also accept ir_measures/ir_datasets-style
iterables of namedtuples and the ``{topic: {doc: value}}`` dicts of pytrec_eval
and ranx.

Validation collects every problem of one kind before raising, names the rows
(first few) and says how to fix them.  Nothing here modifies the caller's frame.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .errors import (
    ColumnError,
    ConventionWarning,
    DuplicateError,
    EmptyOverlapError,
    InputError,
    OptionError,
    ShapeError,
    shown,
    warn,
)

__all__ = [
    "DEFAULT_SYSTEM",
    "QRELS_ALIASES",
    "QRELS_ROLES",
    "RUN_ALIASES",
    "RUN_ROLES",
    "QrelsColumns",
    "RunColumns",
    "as_frame",
    "canonical",
    "check_duplicates",
    "check_id_column",
    "checked_qrels",
    "id_error",
    "missing_run_columns",
    "no_overlap_error",
    "non_string_ids",
    "numeric_column",
    "qrels_columns",
    "qrels_frame",
    "record_fields",
    "records_frame",
    "resolve_roles",
    "role_names",
    "run_columns",
    "run_frame",
]

RUN_ROLES = ("system", "topic", "doc", "score", "rank")
QRELS_ROLES = ("topic", "doc", "rel", "subtopic")
_TOPIC = ("topic", "qid", "query_id", "q_id")
_DOC = ("doc", "docno", "doc_id")
#: Column names recognised for each run role, in the order they are listed in messages.
RUN_ALIASES: dict[str, tuple[str, ...]] = {
    "system": ("system", "name"),
    "topic": _TOPIC,
    "doc": _DOC,
    "score": ("score",),
    "rank": ("rank",),
}
#: Column names recognised for each qrels role (ranx keeps grades in a ``score`` column).
QRELS_ALIASES: dict[str, tuple[str, ...]] = {
    "topic": _TOPIC,
    "doc": _DOC,
    "rel": ("rel", "label", "relevance", "score"),
    "subtopic": ("subtopic", "subtopic_id"),
}
#: Name of the one system of a run frame without a system column, unless ``system=`` names it.
DEFAULT_SYSTEM = "run"
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


def role_names(
    columns: Mapping[str, str] | None, roles: tuple[str, ...] = RUN_ROLES
) -> dict[str, str]:
    """Column name of every role: the defaults (the role names) overridden by ``columns``.

    Examples
    --------
    >>> role_names({"doc": "docno"})["doc"]
    'docno'
    """
    columns = dict(columns or {})
    check_roles(columns, "run" if roles == RUN_ROLES else "qrels", roles)
    return {role: columns.get(role, role) for role in roles}


def check_roles(
    columns: Mapping[str, Any], kind: str = "run", roles: tuple[str, ...] | None = None
) -> None:
    """Raise an [`OptionError`][irframe.errors.OptionError] for a role ``columns=`` (``kind="run"``) or
    ``qrels_columns=`` (``kind="qrels"``) does not know; a role of the other map is pointed
    to it (``columns={'rel': 'label'}`` → ``qrels_columns={'rel': 'label'}``).

    Examples
    --------
    >>> check_roles({"rel": "label"})
    Traceback (most recent call last):
    ...
    irframe.errors.OptionError: columns= has unknown role(s) ['rel']; known roles are ['system', 'topic', 'doc', 'score', 'rank', 'replicate']. 'rel' is a qrels role: pass qrels_columns={'rel': 'label'} instead of columns=
    """
    known = tuple(roles or (RUN_ALIASES if kind == "run" else QRELS_ALIASES))
    if kind == "run" and roles is None:
        known = (*known, "replicate")  # irframe.evaluate's replicate role
    unknown = [r for r in columns if r not in known]
    if not unknown:
        return
    keyword, other, other_kw = (
        ("columns", QRELS_ALIASES, "qrels_columns")
        if kind == "run"
        else ("qrels_columns", RUN_ALIASES, "columns")
    )
    moved = {r: columns[r] for r in unknown if r in other}
    hint = ""
    if moved:
        roles_text = ", ".join(map(repr, moved))
        hint = (
            f". {roles_text} {'is a' if len(moved) == 1 else 'are'} {'qrels' if kind == 'run' else 'run'} "
            f"role{'s' if len(moved) > 1 else ''}: pass {other_kw}={moved!r} instead of "
            f"{keyword}="
        )
    raise OptionError(
        f"{keyword}= has unknown role(s) {sorted(unknown)}; known roles are {list(known)}{hint}"
    )


#: ``attrs`` key of a run frame copy to which `run_frame` added the one-system column
ADDED_SYSTEM = "irframe_added_system"
#: ``attrs`` key of a frame made from the caller's ``{topic: {doc: value}}`` dict (`as_frame`)
FROM_DICT = "irframe_from_dict"


def _found(df: pd.DataFrame) -> str:
    added = df.attrs.get(ADDED_SYSTEM)
    cols = [str(c) for c in df.columns if c != added or added is None]
    return ", ".join(cols[:20]) + (", ..." if len(cols) > 20 else "") if cols else "(no columns)"


def resolve_roles(
    df: pd.DataFrame,
    columns: Mapping[str, str] | None = None,
    kind: str = "run",
    what: str | None = None,
    *,
    fallback: bool = False,
) -> dict[str, Any]:
    """The column of every role of ``df`` (``None`` when absent; with ``fallback=True``
    the name asked for, ``columns[role]`` or the role itself, so messages can name it).

    ``columns`` maps roles to column names and wins; every other role is looked up
    under the names of `RUN_ALIASES` (``kind="run"``) or `QRELS_ALIASES`
    (``kind="qrels"``).  A role matched by two columns raises [`ColumnError`][irframe.errors.ColumnError].

    Parameters
    ----------
    df : pandas.DataFrame
        The frame whose columns are looked up.
    columns : mapping, optional
        Role → column name; wins over the recognised names.
    kind : {"run", "qrels"}
        Which roles and names to use.
    what : str, optional
        How messages name the frame.
    fallback : bool
        Name a missing role's column anyway (for messages) instead of None.

    Returns
    -------
    dict of str to str or None
        The column of every role.

    Examples
    --------
    >>> import pandas as pd
    >>> pt = pd.DataFrame(columns=["qid", "docid", "docno", "rank", "score", "query"])
    >>> resolve_roles(pt)
    {'system': None, 'topic': 'qid', 'doc': 'docno', 'score': 'score', 'rank': 'rank'}
    >>> resolve_roles(pd.DataFrame(columns=["qid", "query_id", "doc", "score"]))
    Traceback (most recent call last):
    ...
    irframe.errors.ColumnError: run frame has 2 candidate columns for the topic role: 'qid', 'query_id'; choose one with columns={'topic': 'qid'}
    """
    aliases = RUN_ALIASES if kind == "run" else QRELS_ALIASES
    what = what or f"{kind} frame"
    columns = dict(columns or {})
    check_roles(columns, kind)
    keyword = "columns" if kind == "run" else "qrels_columns"
    chosen = set(columns.values())
    out: dict[str, Any] = {}
    for role, names in aliases.items():
        if role in columns:
            out[role] = columns[role] if columns[role] in df.columns else None
            continue
        cands = [c for c in names if c in df.columns and c not in chosen]
        if len(cands) > 1:
            raise ColumnError(
                f"{what} has {len(cands)} candidate columns for the {role} role: "
                f"{', '.join(map(repr, cands))}; choose one with "
                f"{keyword}={{{role!r}: {cands[0]!r}}}"
            )
        out[role] = cands[0] if cands else None
    twice = [c for c in dict.fromkeys(out.values()) if c is not None and _count(df, c) > 1]
    if twice:
        raise ColumnError(
            f"{what} has {len(twice)} column name(s) twice: {', '.join(map(repr, twice))}; "
            "keep one of each, e.g. df = df.loc[:, ~df.columns.duplicated()] (the first)."
        )
    if fallback:
        out = {
            role: name if name is not None else columns.get(role, role)
            for role, name in out.items()
        }
    return out


def _count(df: pd.DataFrame, col: Any) -> int:
    """How many columns of ``df`` are named ``col``."""
    return 1 if df.columns.is_unique else int((df.columns == col).sum())


def _wanted(role: str, columns: Mapping[str, str] | None, kind: str) -> str:
    """How a missing role is named in a message: the requested column or its accepted names."""
    if columns and role in columns:
        return repr(columns[role])
    names = (RUN_ALIASES if kind == "run" else QRELS_ALIASES)[role]
    return repr(role) + (f" (or {', '.join(map(repr, names[1:]))})" if len(names) > 1 else "")


_HINTS = {  # pieces of column names that suggest a role, for the advice of a missing column
    "system": ("system", "run", "name", "model", "method"),
    "topic": ("topic", "query", "qid", "q_id", "qry"),
    "doc": ("doc", "passage", "pid", "item"),
    "score": ("score", "sim", "prob", "logit"),
    "rel": ("rel", "label", "grade", "judg", "qrel"),
    "subtopic": ("subtopic", "iteration", "aspect", "intent"),
}


def _column_advice(df: pd.DataFrame, columns: Mapping[str, str] | None, kind: str) -> str:
    """How to name the missing roles: ``columns={'doc': 'docid'}`` with the caller's own
    columns when one unused column looks like the role, else the general form."""
    keyword = "columns" if kind == "run" else "qrels_columns"
    n = resolve_roles(df, columns, kind, fallback=False)
    used = {c for c in n.values() if c is not None} | set((columns or {}).values())
    free = [c for c in df.columns if c not in used and isinstance(c, str)]
    wanted: tuple[str, ...] = (
        ("topic", "doc", "score") if kind == "run" else ("topic", "doc", "rel")
    )
    added = df.attrs.get(ADDED_SYSTEM) if kind == "run" else None
    if kind == "run" and (n.get("system") is None or n.get("system") == added):
        wanted = ("system", *wanted)  # a frame given one system name: its own may be elsewhere
    guess: dict[str, str] = {}
    for role in wanted:
        if (n.get(role) is not None and n.get(role) != added) or (
            columns and role in columns and columns[role] != added
        ):
            continue
        cands = [c for c in free if any(h in c.lower() for h in _HINTS[role])]
        if len(cands) == 1 and cands[0] not in guess.values():
            guess[role] = cands[0]
    where = "df.ir(columns=...) on the accessor" if kind == "run" else "df.ir(qrels_columns=...)"
    if guess:
        mine = {r: c for r, c in (columns or {}).items() if not (r == "system" and c == added)}
        return (
            f"Pass {keyword}={ {**mine, **guess}!r} if those columns hold them ({where}), "
            "or rename them (df.rename(columns=...))."
        )
    return (
        f"Rename the columns (df.rename(columns={{...}})) or pass {keyword}={{role: column}} "
        f"({where})."
    )


def missing_run_columns(
    df: pd.DataFrame, columns: Mapping[str, str] | None = None, *, need_system: bool = True
) -> list[str]:
    """The required run columns that ``df`` lacks, as named in messages (empty when usable)."""
    n = resolve_roles(df, columns, "run")
    missing = [
        _wanted(r, columns, "run")
        for r in ("system", "topic", "doc")[0 if need_system else 1 :]
        if n[r] is None
    ]
    if n["score"] is None and n["rank"] is None:
        missing.append(f"{_wanted('score', columns, 'run')} (or {_wanted('rank', columns, 'run')})")
    return missing


def run_columns(
    df: pd.DataFrame, columns: Mapping[str, str] | None = None, what: str = "run frame"
) -> RunColumns:
    """Resolve and check the columns of a run frame (see [`resolve_roles`][irframe.schema.resolve_roles]).

    Raises
    ------
    ColumnError
        Listing the missing columns and the columns found.
    """
    missing = missing_run_columns(df, columns)
    if missing:
        one = (
            " A frame of one system needs a system column here: df.assign(system='my_run')."
            if missing[0].startswith(_wanted("system", columns, "run"))
            else ""
        )
        raise ColumnError(
            f"{what} is missing column(s) {', '.join(missing)}; found: {_found(df)}. "
            + _column_advice(df, columns, "run")
            + one
        )
    n = resolve_roles(df, columns, "run", what)
    return RunColumns(n["system"], n["topic"], n["doc"], n["score"], n["rank"])


def qrels_columns(
    df: pd.DataFrame, columns: Mapping[str, str] | None = None, what: str = "qrels frame"
) -> QrelsColumns:
    """Resolve and check the columns of a qrels frame (see [`resolve_roles`][irframe.schema.resolve_roles])."""
    if not isinstance(df, pd.DataFrame):
        raise ShapeError(
            f"{what} must be a pandas DataFrame, got {type(df).__name__}; "
            "read a file with irframe.read_qrels(path)"
        )
    n = resolve_roles(df, columns, "qrels", what)
    missing = [_wanted(r, columns, "qrels") for r in ("topic", "doc", "rel") if n[r] is None]
    if missing:
        raise ColumnError(
            f"{what} is missing column(s) {', '.join(missing)}; found: {_found(df)}. "
            "Qrels need topic, doc, rel (and subtopic for diversity judgments). "
            + _column_advice(df, columns, "qrels")
        )
    return QrelsColumns(n["topic"], n["doc"], n["rel"], n["subtopic"])


# ------------------------------------------------------------------ other tools' shapes
def as_frame(obj: Any, kind: str = "run", what: str | None = None) -> pd.DataFrame:
    """``obj`` as a DataFrame: a DataFrame as it is, or a conversion of

    * an iterable of namedtuples (ir_measures' ``Qrel``/``ScoredDoc``, ir_datasets'
      ``qrels_iter()``/``scoreddocs_iter()``): one column per field;
    * a dict of dicts ``{topic: {doc: value}}`` (pytrec_eval, ranx ``to_dict()``):
      columns ``topic, doc`` and ``score`` (run) or ``rel`` (qrels);
    * a ranx ``Run`` or ``Qrels`` (its ``to_dict()``; a named run adds a ``system``
      column holding its name) or a trectools ``TrecRun`` or ``TrecQrel`` (its frame, with
      ``query`` and ``docid`` read as ``topic`` and ``doc``).

    Parameters
    ----------
    obj : pandas.DataFrame, dict of dicts or iterable of namedtuples
        The run or the judgments.
    kind : {"run", "qrels"}
        Which: names the value column of a dict of dicts.
    what : str, optional
        How messages name the object.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> as_frame({"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 0.5}}).values.tolist()
    [['q1', 'd1', 2.0], ['q1', 'd2', 1.0], ['q2', 'd1', 0.5]]
    >>> from collections import namedtuple
    >>> Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance"])
    >>> as_frame(iter([Qrel("q1", "d1", 1)]), "qrels").columns.tolist()
    ['query_id', 'doc_id', 'relevance']
    """
    what = what or f"{kind} frame"
    if isinstance(obj, pd.DataFrame):
        return obj
    peer = peer_data(obj, kind)
    if peer is not None:
        name, data = peer
        df = data if isinstance(data, pd.DataFrame) else _from_nested_dict(data, kind, what)
        return df if name is None else df.assign(system=name)[["system", *df.columns]]
    if isinstance(obj, Mapping):
        return _from_nested_dict(obj, kind, what)
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes, pd.Series, np.ndarray)):
        df = records_frame(obj, what)
        other = [f for f, k in _RECORD_KIND.items() if k != kind and f in df.columns]
        if other and not any(f in df.columns for f, k in _RECORD_KIND.items() if k == kind):
            raise ShapeError(
                f"{what}: records with a {other[0]!r} field (ir_measures' "
                f"{'ScoredDoc' if other[0] == 'score' else 'Qrel'}) were given as the "
                f"{'runs' if kind == 'run' else 'qrels'}: "
                "irframe takes the runs first, then the qrels (ir_measures' calc_aggregate "
                "takes the qrels first). Write irframe.evaluate(run, qrels, measures)."
            )
        return df
    hint = (
        f"; to read a file use irframe.read_{'qrels' if kind == 'qrels' else 'run'}(path)"
        if isinstance(obj, (str, bytes)) or hasattr(obj, "__fspath__")
        else ""
    )
    raise ShapeError(
        f"{what} must be a pandas DataFrame, a dict {{topic: {{doc: value}}}} or an iterable "
        f"of records (namedtuples or dataclasses), got {type(obj).__name__}{hint}"
    )


#: the peers' classes of runs and qrels, and the order their own functions take them in
_PEER_KINDS = {"Run": "run", "Qrels": "qrels", "TrecRun": "run", "TrecQrel": "qrels"}
_PEER_ORDER = {
    "ranx": "ranx.evaluate and ranx.compare take the qrels first",
    "trectools": "as trectools' TrecEval(run, qrels)",
}
#: fields of ir_measures' records that tell a run from qrels
_RECORD_KIND = {"score": "run", "relevance": "qrels"}


def peer_data(obj: Any, kind: str) -> tuple[str | None, Any] | None:
    """``(name, data)`` of a peer tool's run or qrels object, else None: a ranx ``Run`` or
    ``Qrels`` gives its ``to_dict()`` and a run's name (None when unnamed); a trectools
    ``TrecRun`` or ``TrecQrel`` its frame (``run_data``, ``qrels_data``) with ``query`` and
    ``docid`` renamed ``topic`` and ``doc`` (a new frame) and no name (its ``system``
    column names it).  The tools are recognised by their module, never imported."""
    top = (type(obj).__module__ or "").split(".")[0]
    cls = type(obj).__name__
    if top in _PEER_ORDER and _PEER_KINDS.get(cls, kind) != kind:
        raise ShapeError(
            f"a {top} {cls} was given as the {'runs' if kind == 'run' else 'qrels'}: irframe takes the runs first, then "
            f"the qrels ({_PEER_ORDER[top]}). Write irframe.evaluate(run, qrels, measures)."
        )
    if top == "ranx" and callable(getattr(obj, "to_dict", None)):
        name = getattr(obj, "name", None) if kind == "run" else None
        return (str(name) if name is not None else None), dict(obj.to_dict())
    if top == "trectools":
        data = getattr(obj, "run_data" if kind == "run" else "qrels_data", None)
        if isinstance(data, pd.DataFrame):
            data = data.rename(columns={"query": "topic", "docid": "doc"})
            if kind == "run" and "system" in data.columns and len(data):
                tags = pd.unique(data["system"])
                if len(tags) > 1:  # trectools evaluates a TrecRun as one run, named by get_runid()
                    runid = getattr(obj, "get_runid", None)  # its first line's tag
                    name = str(runid() if callable(runid) else tags[0])
                    warn(
                        f"a trectools TrecRun whose tag column holds {len(tags)} values "
                        f"({', '.join(map(repr, tags[:5]))}{' ...' if len(tags) > 5 else ''}) "
                        f"is read as one run named {name!r} (its get_runid()), as trectools' "
                        "TrecEval evaluates it. For one system per tag pass its frame: irframe.evaluate(run.run_data, qrels, measures, "
                        "columns={'topic': 'query', 'doc': 'docid'}).",
                        ConventionWarning,
                    )
                    return None, data.assign(system=name)
            return None, data
    return None


def record_fields(record: Any) -> tuple[str, ...] | None:
    """The field names of a record (a namedtuple or a dataclass instance), else None."""
    fields = getattr(record, "_fields", None)
    if isinstance(record, tuple) and fields is not None:
        return tuple(fields)
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        return tuple(f.name for f in dataclasses.fields(record))
    return None


def records_frame(records: Iterable, what: str) -> pd.DataFrame:
    """An iterable of records as a frame, one column per field, each value read by field name.

    Every record must be of one class (namedtuples of classes with the same fields in the same
    order count as one); records of two classes are an error naming both, since a field's
    position means nothing across classes (ir_measures' ``Qrel`` and ir_datasets' ``TrecQrel``).

    Examples
    --------
    >>> from collections import namedtuple
    >>> Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance"])
    >>> records_frame([Qrel("q1", "d1", 1)], "qrels").values.tolist()
    [['q1', 'd1', 1]]
    """
    rows = list(records)
    if not rows:
        raise InputError(f"{what} is an empty iterable; nothing to evaluate")
    first = rows[0]
    fields = record_fields(first)
    if fields is None:
        raise ShapeError(
            f"{what}: expected a DataFrame, a dict {{topic: {{doc: value}}}} or an iterable of "
            f"namedtuples such as Qrel(query_id, doc_id, relevance) (or of dataclasses); "
            f"got an iterable of {type(first).__name__}"
        )
    classes = dict.fromkeys(map(type, rows))
    if len(classes) > 1:
        other_cls = next(c for c in classes if c is not type(first))
        i = next(i for i, r in enumerate(rows) if type(r) is other_cls)
        other_fields = record_fields(rows[i])
        if other_fields != fields:
            raise InputError(
                f"{what} mixes records of two classes: {_class_name(type(first))}"
                f"({', '.join(fields)}) (record 0) and {_class_name(other_cls)}"
                f"{'(' + ', '.join(other_fields) + ')' if other_fields else ''} (record {i}). "
                f"Records are read by field name, and one frame needs one set of fields: "
                f"convert them to one class first (e.g. pd.DataFrame(...) per class, renamed "
                f"to the same columns, then pd.concat)."
            )
    if isinstance(first, tuple):
        return pd.DataFrame.from_records(rows, columns=list(fields))
    get = operator.attrgetter(*fields)
    values = map(get, rows) if len(fields) > 1 else ((get(r),) for r in rows)
    return pd.DataFrame.from_records(list(values), columns=list(fields))


def _class_name(cls: type) -> str:
    mod = getattr(cls, "__module__", "")
    return cls.__qualname__ if mod in ("builtins", "__main__", "") else f"{mod}.{cls.__qualname__}"


def _from_nested_dict(obj: Mapping, kind: str, what: str) -> pd.DataFrame:
    inner = list(obj.values())
    bad = [t for t, d in zip(obj, inner, strict=True) if not isinstance(d, Mapping)]
    if bad:
        raise ShapeError(
            f"{what}: a dict must map each topic to a dict {{doc: value}}; topic {bad[0]!r} maps "
            f"to {type(obj[bad[0]]).__name__}"
        )
    lens = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    n = int(lens.sum())
    values = list(itertools.chain.from_iterable(d.values() for d in inner))
    nested = next((v for v in values if isinstance(v, Mapping)), None)
    if nested is not None:
        raise ShapeError(
            f"{what}: expected {{topic: {{doc: value}}}} with numbers as values, found a dict "
            "nested deeper; several runs are {name: {topic: {doc: score}}} with every value "
            "such a dict, or {name: run frame}"
        )
    topic = np.repeat(np.asarray([*list(obj.keys()), None], dtype=object)[:-1], lens)
    doc = np.empty(n, dtype=object)
    doc[:] = list(itertools.chain.from_iterable(inner))
    df = pd.DataFrame({"topic": topic, "doc": doc, ("score" if kind == "run" else "rel"): values})
    df.attrs[FROM_DICT] = True  # id errors advise converting the dict's keys, not a column
    return df


def _is_run_dict(x: Any) -> bool:
    """``{topic: {doc: score}}`` (every value a mapping)."""
    return isinstance(x, Mapping) and all(isinstance(v, Mapping) for v in x.values())


def is_run_collection(obj: Any) -> bool:
    """Several runs: ``{name: run}`` or a list/tuple of runs, each a DataFrame or a
    ``{topic: {doc: score}}`` dict (ranx's ``compare`` and PyTerrier's ``pt.Experiment``
    take runs so)."""
    if isinstance(obj, Mapping):
        vals = list(obj.values())
        return bool(vals) and (
            all(isinstance(v, pd.DataFrame) for v in vals)
            or all(_is_run_dict(v) and v for v in vals)  # {name: {topic: {doc: score}}}
        )
    if isinstance(obj, (list, tuple)) and obj:
        return all(isinstance(v, pd.DataFrame) for v in obj) or all(
            _is_run_dict(v) and v and all(isinstance(w, Mapping) for w in v.values()) for v in obj
        )
    return False


def collect_runs(
    obj: Any, columns: Mapping[str, str] | None = None, system: str | None = None
) -> tuple[pd.DataFrame, Mapping[str, str] | None, dict]:
    """Several runs (see [`is_run_collection`][irframe.schema.is_run_collection]) as one long frame with a ``system`` column.

    ``{name: run}`` names each run by its key; a list names the runs by their own system
    column, or ``run0``, ``run1``, ... by position when they have none.  A frame's own
    system column must agree with its key (one value).  Returns ``(frame, columns, empty)``:
    ``columns`` for the new frame (its roles carry their role names), and ``empty``:
    ``{system: [topics]}`` of the ``{topic: {}}`` rankings (present, retrieved nothing).

    Examples
    --------
    >>> runs = {"bm25": {"q1": {"a": 2.0}}, "dense": {"q1": {"b": 1.0}, "q2": {}}}
    >>> frame, _, empty = collect_runs(runs)
    >>> frame.values.tolist(), empty
    ([['bm25', 'q1', 'a', 2.0], ['dense', 'q1', 'b', 1.0]], {'dense': ['q2']})
    """
    if system is not None:
        raise OptionError(
            f"system={system!r} names the one system of a run frame; with several runs their "
            "names are the dict's keys (or each frame's system column)"
        )
    items = list(obj.items()) if isinstance(obj, Mapping) else [(None, r) for r in obj]
    names: set[Any]
    parts, empty, names = [], {}, set()
    for i, (name, run) in enumerate(items):
        what = f"run {name!r}" if name is not None else f"run #{i}"
        if isinstance(run, Mapping):
            hollow = [t for t, d in run.items() if not d]
            df, rc = run_frame(run, None, system=str(name) if name is not None else f"run{i}")
        else:
            hollow = []
            n = resolve_roles(run, columns, "run", what)
            own = n["system"]
            if name is not None and own is not None:
                values = pd.unique(run[own])
                if len(values) != 1 or str(values[0]) != str(name):
                    raise InputError(
                        f"{what} has its own system column {own!r} with value(s) "
                        f"{list(values[:5])}; a dict of runs names each run by its key: drop "
                        f"the column (run.drop(columns={own!r})) or pass the frames as a list"
                    )
            sys_name = str(name) if name is not None else (None if own else f"run{i}")
            df, rc = run_frame(run, columns, system=None if own else sys_name, what=what)
        df = canonical(df, rc)
        keep = [c for c in ("system", "topic", "doc", "score", "rank") if c in df.columns]
        df = df[keep]
        sys_names = {str(x) for x in pd.unique(df["system"])} if len(df) else {str(name)}
        clash = names & sys_names
        if clash:
            raise InputError(
                f"system name(s) {sorted(clash)} given by two runs; name each run by passing "
                "them as a dict {name: run, ...}"
            )
        names |= sys_names
        if hollow:
            empty[str(name) if name is not None else f"run{i}"] = [str(t) for t in hollow]
        for c in ("system", "topic", "doc"):
            if isinstance(df[c].dtype, pd.CategoricalDtype):
                df = df.assign(**{c: df[c].astype(object)})
        parts.append(df)
    frame = pd.concat(parts, ignore_index=True)
    if all(isinstance(r, Mapping) for _, r in items):  # id errors advise converting the dicts
        frame.attrs = {**frame.attrs, FROM_DICT: "several"}
    return frame, None, empty


def empty_rankings(obj: Any) -> list:
    """Topics of a ``{topic: {doc: score}}`` run with an empty ranking (``{}``): present, and
    retrieved nothing (pytrec_eval, ir_measures and ranx score them 0)."""
    if _is_run_dict(obj):
        return [str(t) for t, d in obj.items() if not d]
    return []


def run_frame(
    obj: Any,
    columns: Mapping[str, str] | None = None,
    *,
    system: str | None = None,
    what: str = "run frame",
) -> tuple[pd.DataFrame, RunColumns]:
    """A run in any accepted shape → (frame, its resolved columns); the caller's data untouched.

    A frame without a system column (none under ``columns``/`RUN_ALIASES`) holds
    one system named ``system`` (default `DEFAULT_SYSTEM`): the frame returned
    is a shallow copy with a one-category ``system`` column.

    Parameters
    ----------
    obj : pandas.DataFrame, dict of dicts or iterable of namedtuples
        A run in any shape [`as_frame`][irframe.schema.as_frame] accepts.
    columns : mapping, optional
        Role → column name, for names that are not recognised.
    system : str, optional
        Name of the one system of a frame without a system column.
    what : str
        How messages name the object.

    Returns
    -------
    (pandas.DataFrame, RunColumns)
        The frame (the caller's, or a shallow copy) and the column of every role.

    Raises
    ------
    irframe.errors.ColumnError
        A role is missing or matched by two columns.

    Examples
    --------
    >>> import pandas as pd
    >>> pt = pd.DataFrame({"qid": "1", "docno": ["a", "b"], "score": [2.0, 1.0], "rank": [0, 1]})
    >>> df, rc = run_frame(pt, system="BM25")
    >>> rc
    RunColumns(system='system', topic='qid', doc='docno', score='score', rank='rank')
    >>> df["system"].tolist(), "system" in pt.columns
    (['BM25', 'BM25'], False)
    """
    df = as_frame(obj, "run", what)
    _check_flat_columns(df, columns, what)
    n = resolve_roles(df, columns, "run", what)
    if n["system"] is None and not (columns and "system" in columns):
        if system is None and not missing_run_columns(df, columns, need_system=False):
            _check_no_system_column(df, n, what)  # (else the missing columns' error, first)
        name = DEFAULT_SYSTEM if system is None else system
        if not isinstance(name, str) or not name:
            raise OptionError(
                f"system= must be a non-empty str naming the one system, got {name!r}"
            )
        col = "system"
        while col in df.columns:
            col = "_" + col
        df = df.copy(deep=False)
        df[col] = pd.Categorical.from_codes(np.zeros(len(df), dtype=np.int8), categories=[name])
        df.attrs = {**df.attrs, ADDED_SYSTEM: col}  # not the caller's: messages leave it out
        columns = {**(columns or {}), "system": col}
    elif system is not None:
        raise OptionError(
            f"system={system!r} names the one system of a frame without a system column, "
            f"but {what} has one ({n['system']!r}); drop system= or the column"
        )
    return df, run_columns(df, columns, what)


def _check_flat_columns(df: pd.DataFrame, columns: Mapping[str, Any] | None, what: str) -> None:
    """Columns with several levels (``pd.concat({...}, axis=1)``) hold no role's name."""
    if isinstance(df.columns, pd.MultiIndex) and not columns:
        drop = "0" if df.columns.nlevels == 2 else repr(list(range(df.columns.nlevels - 1)))
        raise ColumnError(
            f"{what} has columns of {df.columns.nlevels} levels (e.g. {df.columns[0]!r}); "
            f"flatten them, e.g. df = df.droplevel({drop}, axis=1), or name each role's "
            f"column: columns={{'topic': {df.columns[0]!r}, ...}}."
        )


#: column names that name systems in other tools' frames (case ignored), where a run frame
#: has no recognised system column: one holding several values is not silently merged
_SYSTEM_LIKE = frozenset(
    {
        "system",
        "systems",
        "sys",
        "run",
        "runs",
        "run_id",
        "runid",
        "run_name",
        "run_tag",
        "runtag",
        "tag",
        "system_id",
        "system_name",
        "model",
        "method",
        "retriever",
        "ranker",
    }
)


def _check_no_system_column(df: pd.DataFrame, n: Mapping[str, Any], what: str) -> None:
    """A frame without a system column is one run; refuse it when a column of another
    name holds several system-like values (``System``, ``run_id``, ``tag``): evaluated as one
    run, those systems' rankings would merge silently."""
    used = {c for c in n.values() if c is not None}
    for c in df.columns:
        if c in used or not isinstance(c, str) or c.lower() not in _SYSTEM_LIKE:
            continue
        values = pd.unique(df[c].dropna()) if len(df) else []
        if len(values) > 1:
            shown_values = ", ".join(repr(str(v)[:30]) for v in list(values)[:3])
            raise ColumnError(
                f"{what} has no system column, but column {c!r} holds {len(values)} values "
                f"({shown_values}{', ...' if len(values) > 3 else ''}): evaluated as one run, "
                f"their rankings would merge. Pass columns={{'system': {c!r}}} if it names the "
                "systems, or system='my_run' if the frame is one run."
            )


def qrels_frame(
    obj: Any, columns: Mapping[str, str] | None = None, what: str = "qrels frame"
) -> tuple[pd.DataFrame, QrelsColumns]:
    """Qrels in any accepted shape → (frame, its resolved columns); see [`as_frame`][irframe.schema.as_frame].

    Parameters
    ----------
    obj : pandas.DataFrame, dict of dicts or iterable of namedtuples
        Judgments in any shape [`as_frame`][irframe.schema.as_frame] accepts.
    columns : mapping, optional
        Role → column name, for names that are not recognised.
    what : str
        How messages name the object.

    Returns
    -------
    (pandas.DataFrame, QrelsColumns)
        The frame and the column of every role.

    Raises
    ------
    irframe.errors.ColumnError
        A role is missing or matched by two columns.

    Examples
    --------
    >>> import pandas as pd
    >>> _, qc = qrels_frame(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1],
    ...                                   "iteration": ["0"]}))
    >>> qc
    QrelsColumns(topic='query_id', doc='doc_id', rel='relevance', subtopic=None)
    """
    df = as_frame(obj, "qrels", what)
    _check_flat_columns(df, columns, what)
    qc = qrels_columns(df, columns, what)
    run_like = [c for c in ("system", "rank", "Q0", "q0") if c in df.columns]
    if qc.rel == "score" and not (columns and "rel" in columns) and run_like:
        raise ShapeError(
            f"{what} looks like a run: its grades would come from column 'score', and it has "
            f"a {run_like[0]!r} column. Pass the judgments (topic, doc, rel) as the qrels: "
            "irframe.evaluate(runs, qrels, measures), runs first. If 'score' really holds "
            "the grades, say so: qrels_columns={'rel': 'score'}."
        )
    return df, qc


#: ``attrs`` key of a canonical copy: role name → the caller's column name, so that an error
#: raised on the copy names the caller's own column (``qid``, not ``topic``)
USER_COLUMNS = "irframe_user_columns"


def user_column(df: Any, col: Any) -> Any:
    """The caller's name of column ``col`` of ``df`` (``col`` itself unless ``df`` is a
    [`canonical`][irframe.schema.canonical] copy that renamed it).

    Examples
    --------
    >>> import pandas as pd
    >>> pt = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})
    >>> user_column(canonical(pt, RunColumns(None, "qid", "docno", "score", None)), "topic")
    'qid'
    """
    attrs = getattr(df, "attrs", None) or {}
    return attrs.get(USER_COLUMNS, {}).get(col, col)


def checked_qrels(
    obj: Any, columns: Mapping[str, str] | None = None, what: str = "qrels frame"
) -> tuple[pd.DataFrame, QrelsColumns, np.ndarray]:
    """Qrels with the checks [irframe.evaluate][] makes: (frame, columns, grades as float64).

    The one validation path of every function that takes qrels without aligning them with a
    run (``join``, ``label_agreement``, ``label_confusion``, ``degrade_qrels`` ...): the
    shapes of [as_frame][irframe.schema.as_frame], the roles of
    [qrels_columns][irframe.schema.qrels_columns], string ids without
    missing values ([check_id_column][irframe.schema.check_id_column]; topic, doc and subtopic) and finite numeric
    grades ([numeric_column][irframe.schema.numeric_column]: no NaN, no text, no bools).

    Examples
    --------
    >>> import pandas as pd
    >>> checked_qrels(pd.DataFrame({"topic": [1], "doc": ["d"], "rel": [1]}))
    Traceback (most recent call last):
    ...
    irframe.errors.InputError: qrels frame: column 'topic' (dtype int64) must hold strings, but 1 value(s) are int: row 0: topic=1. ...
    """
    df, qc = qrels_frame(obj, columns, what)
    for col in (qc.topic, qc.doc, qc.subtopic):
        if col is not None:
            check_id_column(df, col, what)
    return df, qc, numeric_column(df, qc.rel, what)


def canonical(df: pd.DataFrame, resolved: RunColumns | QrelsColumns) -> pd.DataFrame:
    """A shallow copy of ``df`` whose role columns carry the role names (``doc`` for ``docno``...).

    Other columns are kept, except one whose name a role column takes over.  The copy's
    ``attrs`` remember the caller's names ([`user_column`][irframe.schema.user_column]) for error messages.
    """
    roles = {name: role for role, name in vars(resolved).items() if name is not None}
    taken = [c for c in df.columns if c not in roles and c in roles.values()]
    out = df.drop(columns=taken) if taken else df.copy(deep=False)
    out.columns = [roles.get(c, c) for c in out.columns]
    renamed = {role: user_column(df, name) for name, role in roles.items()}
    renamed = {role: name for role, name in renamed.items() if name != role}
    if renamed:
        out.attrs = {**out.attrs, USER_COLUMNS: renamed}
    return out


def _rows(df: pd.DataFrame, mask: np.ndarray, cols: list[str]) -> str:
    idx = np.flatnonzero(mask)
    head = df.iloc[idx[:_SHOW]][cols]
    more = f" (and {len(idx) - _SHOW} more)" if len(idx) > _SHOW else ""
    # a repeated index label (pd.concat) names two rows alike: their positions tell them apart
    where = (
        (lambda i: f"row {shown(df.index[i])}")
        if df.index.is_unique
        else (lambda i: f"row {shown(df.index[i])} (position {i})")
    )
    lines = "; ".join(
        f"{where(i)}: "
        + ", ".join(f"{user_column(df, c)}={shown(v)}" for c, v in zip(cols, vals, strict=True))
        for i, vals in zip(idx[:_SHOW], head.itertuples(index=False, name=None), strict=True)
    )
    return lines + more


def non_string_ids(s: pd.Series) -> np.ndarray | None:
    """Mask of the non-missing values of ``s`` that are not strings, or ``None`` when all are.

    Strings are ``str`` objects (``object`` dtype, checked by one C-level pass of
    `pandas.api.types.infer_dtype`), pandas' ``str``/``string`` dtypes, pyarrow string
    types, or a categorical whose categories are strings.  Every other dtype (numbers, bools,
    dates, bytes ...) and any Python int/float/bytes among strings is not.
    """
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        bad_cats = non_string_ids(pd.Series(dtype.categories, dtype=dtype.categories.dtype))
        if bad_cats is None:
            return None
        codes = s.cat.codes.to_numpy()
        return np.isin(codes, np.flatnonzero(bad_cats))
    if isinstance(dtype, pd.StringDtype):
        return None
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa

        t = dtype.pyarrow_dtype
        if pa.types.is_dictionary(t):
            t = t.value_type
        if pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view":
            return None
        return s.notna().to_numpy()
    if dtype == np.dtype(object):
        if pd.api.types.infer_dtype(s, skipna=True) in ("string", "empty"):
            return None
        values = s.to_numpy()
        return (
            np.fromiter((not isinstance(v, str) for v in values), bool, len(values))
            & s.notna().to_numpy()
        )
    return s.notna().to_numpy()


def id_error(df: pd.DataFrame, col: str, what: str, mask: np.ndarray) -> InputError:
    """The error for non-string ids: column, dtype, the kinds of values and example rows."""
    s, name = df[col], user_column(df, col)
    kinds = sorted({type(v).__name__ for v in s[mask].head(1000)})
    mixed = " mixed with strings" if (~mask & s.notna().to_numpy()).any() else ""
    found = (
        f"{int(mask.sum())} value(s) are {'/'.join(kinds)}{mixed}: {_rows(df, mask, [col])}"
        if mask.any()
        else "its dtype holds no strings"
    )
    why = (
        "Ids must be strings so that '051' and '51' stay different and 7 never silently fails "
        "to match '7'"
    )
    source = df.attrs.get(FROM_DICT)
    if source and col in ("topic", "doc"):  # the caller gave dicts, not a frame

        def as_str(key: str, c: str) -> str:  # the conversion of one level's keys
            m = mask if c == col else (non_string_ids(df[c]) if c in df.columns else None)
            if m is None or not m.any():
                return key
            conv = _to_str(df[c], m, c).replace(f"df[{c!r}]", "")
            if conv != ".astype(str)":
                return f"(str(int({key})) if isinstance({key}, float) else str({key}))"
            return f"str({key})"

        # both levels at once when both hold numbers (else the next error would be the docs')
        topic_key, doc_key = as_str("t", "topic"), as_str("k", "doc")
        fix = (
            f"{{{topic_key}: d for t, d in x.items()}}"
            if doc_key == "k"
            else f"{{{topic_key}: {{{doc_key}: v for k, v in d.items()}} for t, d in x.items()}}"
        )
        which = "each run's dict x" if source == "several" else "the dict x"
        return InputError(
            f"{what}: the dict's {'topic keys' if col == 'topic' else 'doc keys'} must be "
            f"strings, but {found}. {why}. Convert {which} with {fix} if the numbers really "
            "are the ids."
        )
    nan = s.isna().to_numpy()
    first = (
        f"First drop or fill the {int(nan.sum())} row(s) without an id "
        f"({_rows(df, nan, [col])}), e.g. df = df.dropna(subset=[{name!r}]); then read "
        if nan.any()
        else "Read "
    )
    return InputError(
        f"{what}: column {name!r} (dtype {s.dtype}) must hold strings, but {found}. {why} "
        f"(pd.concat of differently read frames gives such columns). {first}files with "
        f"irframe.read_run/read_qrels, or convert with df[{name!r}] = {_to_str(s, mask, name)} "
        f"if the numbers really are the ids."
    )


def _to_str(s: pd.Series, mask: np.ndarray, name: str) -> str:
    """Code converting the id column ``s`` to str that keeps integral floats as integers.

    ``7.0.astype(str)`` is ``'7.0'``, which matches no ``'7'`` of the other frame: a float
    column of whole numbers (how pandas stores int ids next to a missing value) goes through
    int64, an object column holding such floats through a per-value conversion.
    """
    col = f"df[{name!r}]"
    values = s[mask & s.notna().to_numpy()]
    if isinstance(s.dtype, pd.CategoricalDtype):
        values = pd.Series(s.cat.categories)
    floats = [v for v in values.head(100_000) if isinstance(v, (float, np.floating))]
    if not floats and values.dtype.kind != "f":
        return f"{col}.astype(str)"
    whole = pd.to_numeric(values, errors="coerce")
    if not (whole.notna().all() and (whole % 1 == 0).all()):
        return f"{col}.astype(str)"  # real fractions: '1.5' is as good a name as any
    if s.dtype.kind == "f" or isinstance(s.dtype, pd.CategoricalDtype):
        return f"{col}.astype('int64').astype(str)"
    return f"{col}.map(lambda v: str(int(v)) if isinstance(v, float) else str(v))"


def no_overlap_error(run_topics, qrels_topics) -> EmptyOverlapError:
    """The error for a run and qrels without a common topic (trec_eval's fatal message)."""

    def some(x) -> str:
        shown = ", ".join(repr(str(t)[:40]) for t in list(x[:3]))
        return shown + (f" ... ({len(x)} topics)" if len(x) > 3 else "")

    return EmptyOverlapError(
        f"No queries with both results and relevance info (trec_eval's message): the run's topics "
        f"({some(run_topics)}) and the qrels' topics ({some(qrels_topics)}) have none in common. "
        f"Check that run and qrels belong to the same collection and spell topic ids alike."
    )


def check_id_column(df: pd.DataFrame, col: str, what: str) -> None:
    """Ids must be strings (object of str, str, string, pyarrow string or categorical of strings).

    Numbers would silently turn "051" into 51 and stop matching the other frame; an object
    column mixing Python ints with strings (``pd.concat`` of two differently read frames) is
    rejected the same way, naming the column, its dtype and example rows.

    Examples
    --------
    >>> import pandas as pd
    >>> check_id_column(pd.DataFrame({"topic": ["1", 2]}), "topic", "run frame")
    Traceback (most recent call last):
    ...
    irframe.errors.InputError: run frame: column 'topic' (dtype object) must hold strings, but 1 value(s) are int mixed with strings: row 1: topic=2. ...
    """
    s = df[col]
    bad = non_string_ids(s)
    if bad is not None and (
        bad.any() or s.dtype != object
    ):  # an empty numeric column too (dask meta)
        raise id_error(df, col, what, bad)
    if isinstance(s.dtype, pd.CategoricalDtype):  # missing: code -1 (no array of flags per row)
        missing = len(s) > 0 and s.array.codes.min() < 0
    else:
        missing = s.isna().any()
    if missing:
        mask = s.isna().to_numpy()
        raise InputError(
            f"{what}: column {user_column(df, col)!r} has {int(mask.sum())} missing id(s): "
            f"{_rows(df, mask, [col])}. Drop or fill those rows."
        )


def numeric_column(
    df: pd.DataFrame, col: str, what: str, *, finite: bool = True, allow_nan: bool = False
) -> np.ndarray:
    """Return ``df[col]`` as float64, raising on non-numeric, NaN or infinite values."""
    s, name = df[col], user_column(df, col)
    if pd.api.types.is_bool_dtype(s.dtype):
        raise InputError(f"{what}: column {name!r} is boolean; expected numbers")
    kind = getattr(s.dtype, "kind", "O")
    if kind in "cmM":  # complex, timedelta, datetime: no number is meant for sure
        col = f"df[{name!r}]"
        fix = {
            "c": f"{col}.to_numpy().real for the real part",
            "m": f"{col}.dt.total_seconds()",
            "M": f"({col} - {col}.min()).dt.total_seconds() for seconds since the first",
        }[kind]
        raise InputError(
            f"{what}: column {name!r} has dtype {s.dtype}; expected real numbers (int or "
            f"float). Convert it to the numbers you mean, e.g. {col} = {fix}."
        )
    if pd.api.types.is_numeric_dtype(s.dtype):
        values = s.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        values = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.isnan(values) & s.notna().to_numpy()
        if bad.any():
            raise InputError(
                f"{what}: column {name!r} has {int(bad.sum())} non-numeric value(s): "
                f"{_rows(df, bad, [col])}. Fix or drop those rows."
            )
    if not allow_nan and np.isnan(values).any():
        bad = np.isnan(values)
        raise InputError(
            f"{what}: column {name!r} has {int(bad.sum())} NaN value(s): "
            f"{_rows(df, bad, [col])}. Drop those rows or fill them."
        )
    if finite and np.isinf(values).any():
        bad = np.isinf(values)
        raise InputError(
            f"{what}: column {name!r} has {int(bad.sum())} infinite value(s): "
            f"{_rows(df, bad, [col])}. Replace them with finite numbers."
        )
    values = values.view()  # may share memory with the caller's frame: never writable from here
    values.flags.writeable = False
    return values


def check_duplicates(
    df: pd.DataFrame,
    key_codes: np.ndarray,
    cols: list[str],
    what: str,
    duplicates: str,
    grade: str | None = None,
) -> np.ndarray | None:
    """Check a 1-d int64 key for duplicates.

    Returns ``None`` when there are none, otherwise (``duplicates="first"``) a boolean
    mask of the rows to keep.  With ``duplicates="error"`` raises [`DuplicateError`][irframe.errors.DuplicateError]
    naming the rows (with their ``grade``, the qrels' grade column, which is never taken
    for a column telling them apart: two grades for one judgment are the conflict itself).
    """
    from .errors import choose

    duplicates = choose("duplicates", duplicates, ("error", "first"))
    dup = pd.Index(key_codes).duplicated(keep="first")
    if not dup.any():
        return None
    if duplicates == "first":
        return ~dup
    dup_all = pd.Index(key_codes).duplicated(keep=False)
    shown = [user_column(df, c) for c in cols]
    own = [*cols, grade] if grade else cols
    differing = _telling_apart(df, key_codes, dup_all, cols) if what.startswith("qrels") else []
    apart = [c for c in differing if c != grade]
    if apart:
        # not copies: another column tells the rows apart, so keeping the first would drop
        # judgments.  ir_measures keeps diversity subtopics in the 'iteration' column.
        col = "iteration" if "iteration" in apart else apart[0]
        raise DuplicateError(
            f"{what} has {int(dup.sum())} repeated ({', '.join(shown)}) row(s) that column "
            f"{col!r} tells apart: {_rows(df, dup_all, [*cols, col])}. If {col!r} holds "
            f"subtopics (ir_measures' convention for diversity qrels keeps them in "
            f"'iteration'), pass qrels_columns={{'subtopic': {col!r}}}; otherwise make the "
            f"rows unique yourself (duplicates='first' would drop these judgments)."
        )
    differ = bool(grade) and grade in differing  # (only it differs: apart is empty here)
    raise DuplicateError(
        f"{what} has {int(dup.sum())} duplicate ({', '.join(shown)}) row(s): {_rows(df, dup_all, own)}. "
        + ("Their grades differ: keep one judgment per (topic, doc). " if differ else "")
        + "trec_eval treats this as fatal; remove them or pass duplicates='first' to keep the first."
    )


def _telling_apart(df: pd.DataFrame, key_codes, dup_all: np.ndarray, cols: list) -> list:
    """Columns of ``df`` (other than ``cols``) whose values differ between rows with the same key."""
    sub = df.iloc[np.flatnonzero(dup_all)]
    keys = np.asarray(key_codes)[dup_all]
    out = []
    for c in df.columns:
        if c in cols:
            continue
        try:
            n = pd.Series(sub[c].to_numpy(), dtype=object).groupby(keys).nunique(dropna=False)
        except TypeError:  # unhashable values
            continue
        if (n > 1).any():
            out.append(c)
    return out
