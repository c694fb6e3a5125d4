"""Retrieval-augmented generation runs scored by nuggets and by citation support, as cubes.

The TREC 2024 and 2025 RAG tracks judge a generated answer by *nuggets* -- facts a good
answer contains, each labelled ``vital`` or ``okay`` -- assigned to the answer as
``support``, ``partial_support`` or ``not_support`` (Pradeep et al., "The Great Nugget Recall:
Automating Fact Extraction and RAG Evaluation with Large Language Models", SIGIR 2025,
arXiv:2504.15068; the AutoNuggetizer of the ``nuggetizer`` package), and by *support* --
whether each cited passage supports the answer sentence citing it (Thakur et al., "Support
Evaluation for the TREC 2024 RAG Track: Comparing Human versus LLM Judges", SIGIR 2025,
arXiv:2504.15205).

Both scores come out as ordinary irframe cubes ``(system, topic, measure)`` built by
`irframe.cube.result`, so [irframe.summarize][irframe.cube.summarize], [irframe.stats.compare][],
`irframe.report` and the judgment-set dim (``{"human": frame, "llm": frame}`` adds a
``qrels`` dim, as for [irframe.evaluate][irframe.evaluate.evaluate]) work on them unchanged, next to retrieval
measures.

Nugget scores (nuggetizer's ``calculate_nugget_scores``, ``nuggetizer/core/metrics.py``, and
its documented scoring formula): per (system, topic) answer, with ``V`` its vital nuggets and
``A`` all its nuggets, ``s(n) = 1`` for support, ``0.5`` for partial support, ``0`` otherwise:

* ``strict_vital_score`` = #{n in V: support} / |V|
* ``strict_all_score``   = #{n in A: support} / |A|
* ``vital_score``        = sum_{n in V} s(n) / |V|
* ``all_score``          = sum_{n in A} s(n) / |A|

each 0 when its denominator is 0 (a topic without vital nuggets scores 0 on both vital
scores; an answer with no nuggets scores 0 everywhere).

Support scores (Thakur et al. 2025, §2: "weighted precision" and "weighted recall", full
support weighted 1, partial support 0.5, no support 0): per answer, over its judged
(sentence, citation) pairs and its sentences,

* ``support_precision`` = sum of the pairs' weights / number of pairs (citations judged);
* ``support_recall``    = sum over sentences of the largest weight of the sentence's
  citations (0 for a sentence without citation) / number of sentences;

each 0 when its denominator is 0 (an answer without citations, an empty answer).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .cube import result
from .errors import ColumnError, DuplicateError, InputError, ParseError
from .qrelsets import is_qrels_sets

__all__ = [
    "ASSIGNMENTS",
    "IMPORTANCES",
    "NUGGET_MEASURES",
    "NUGGET_ROLES",
    "SUPPORT_LEVELS",
    "SUPPORT_MEASURES",
    "SUPPORT_ROLES",
    "nugget_scores",
    "read_nuggets",
    "read_support",
    "support_scores",
]

IMPORTANCES = ("vital", "okay")
ASSIGNMENTS = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
SUPPORT_LEVELS = {"full_support": 1.0, "partial_support": 0.5, "no_support": 0.0}
NUGGET_MEASURES = ("strict_vital_score", "strict_all_score", "vital_score", "all_score")
SUPPORT_MEASURES = ("support_precision", "support_recall")

_SHOW = 5
NUGGET_ROLES = ("system", "topic", "nugget", "importance", "assignment")
SUPPORT_ROLES = ("system", "topic", "sentence", "citation", "support")


def _need(df: pd.DataFrame, cols: list[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
    lost = [c for c in cols if c not in df.columns]
    if lost:
        raise ColumnError(
            f"{what} lacks column(s) {lost}; it has {list(map(str, df.columns))[:20]}. "
            f"Rename them, e.g. df.rename(columns={{...}})"
        )


def _roles(df, columns: Mapping[str, str] | None, roles: tuple, what: str) -> pd.DataFrame:
    """``df`` with the columns ``columns`` names renamed to their roles (a shallow copy)."""
    if not columns:
        return df
    unknown = [r for r in columns if r not in roles]
    if unknown:
        raise InputError(
            f"columns= names unknown roles {unknown} for a {what}; roles: {list(roles)}"
        )
    _need(df, list(columns.values()), what)
    taken = [c for c in df.columns if c in columns and c not in columns.values()]
    out = df.drop(columns=taken) if taken else df.copy(deep=False)
    return out.rename(columns={v: k for k, v in columns.items()})


def _bad_values(df: pd.DataFrame, col: str, allowed, what: str, mask=None) -> None:
    values = df[col]
    bad = ~values.isin(list(allowed)).to_numpy()
    if mask is not None:
        bad &= mask
    if bad.any():
        idx = np.flatnonzero(bad)
        shown = ", ".join(f"row {df.index[i]!r}: {values.iloc[i]!r}" for i in idx[:_SHOW])
        import difflib

        first = values.iloc[idx[0]]
        fold = {str(a).lower().replace(" ", "_").replace("-", "_"): a for a in allowed}
        near = fold.get(str(first).strip().lower().replace(" ", "_").replace("-", "_")) or next(
            iter(difflib.get_close_matches(str(first), [str(a) for a in allowed], n=1)), None
        )
        example = (
            f"e.g. df[{col!r}] = df[{col!r}].replace({{{first!r}: {near!r}}})"
            if near is not None and isinstance(first, str)
            else f"e.g. df[{col!r}] = df[{col!r}].replace({{old: new, ...}})"
        )
        raise InputError(
            f"{what} column {col!r} has {int(bad.sum())} value(s) outside {list(allowed)} "
            f"({shown}); map them first, {example}"
        )


def _no_orphans(df: pd.DataFrame, empty: np.ndarray, cols: list[str], key: str, what: str) -> None:
    """A row without a ``key`` marks an answer (or sentence) without any: a judgment on it
    (``cols`` not missing) has nothing to belong to, and would be left out silently."""
    orphan = empty & df[cols].notna().any(axis=1).to_numpy()
    if orphan.any():
        idx = np.flatnonzero(orphan)
        shown = ", ".join(
            f"row {df.index[i]!r}: " + ", ".join(f"{c}={df[c].iloc[i]!r}" for c in cols)
            for i in idx[:_SHOW]
        )
        raise InputError(
            f"{what} has {int(orphan.sum())} row(s) with no {key} but a judgment ({shown}): a "
            f"row without a {key} stands for none at all, so its {' and '.join(cols)} must be "
            f"missing too. Give the {key} its id, or drop the row."
        )


def _cells(df: pd.DataFrame) -> tuple[np.ndarray, pd.Index, pd.Index, np.ndarray]:
    """(cell code per row, systems, topics, (S*T) has-a-row flags): systems/topics sorted as str."""
    for col in ("system", "topic"):
        if df[col].isna().any():
            i = int(np.flatnonzero(df[col].isna().to_numpy())[0])
            raise InputError(
                f"column {col!r} is missing at row {df.index[i]!r}; every row needs one"
            )
    s_codes, systems = pd.factorize(df["system"].astype(str), sort=True)
    t_codes, topics = pd.factorize(df["topic"].astype(str), sort=True)
    cell = s_codes.astype(np.int64) * len(topics) + t_codes
    present = np.zeros(len(systems) * len(topics), bool)
    present[cell] = True
    return cell, pd.Index(systems), pd.Index(topics), present


def _cube(values: np.ndarray, systems, topics, present, measures, computed, params):
    S, T = len(systems), len(topics)
    out = values.reshape(S, T, len(measures))
    out[~present.reshape(S, T)] = np.nan  # NaN: the system gave no answer for the topic
    coords = {
        "system": np.asarray(systems, dtype=object),
        "topic": np.asarray(topics, dtype=object),
        "measure": np.asarray(measures, dtype=object),
        "aggregate": ("measure", np.array(["mean"] * len(measures), dtype=object)),
    }
    return result(
        out,
        ("system", "topic", "measure"),
        coords,
        name="score",
        computed=computed,
        parameters=params,
        measures=measures,
    )


def _over_sets(fn, sets: Mapping[str, pd.DataFrame]) -> xr.DataArray:
    """``fn`` under every judgment set, stacked along a last ``qrels`` dim (NaN where a set
    has no answer of a system for a topic), as [irframe.evaluate][irframe.evaluate.evaluate] stacks judgment sets."""
    names = [str(k) for k in sets]
    if len(set(names)) != len(names):
        raise InputError(f"judgment set names must be distinct, got {names}")
    cubes = [fn(v) for v in sets.values()]
    out = xr.concat(cubes, dim=pd.Index(names, name="qrels"), join="outer", coords="minimal")
    out = out.transpose("system", "topic", "measure", "qrels")
    return result(out, name="score", attrs=cubes[0].attrs)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1), 0.0)


def nugget_scores(
    nuggets: pd.DataFrame | Mapping[str, pd.DataFrame], *, columns: Mapping[str, str] | None = None
) -> xr.DataArray:
    """The four nugget scores of every (system, topic) answer, as a cube.

    Parameters
    ----------
    nuggets : pandas.DataFrame or mapping of name -> DataFrame
        One row per (system, topic, nugget) assignment with columns ``system, topic, nugget,
        importance, assignment`` (importance in ``vital``/``okay``, assignment in
        ``support``/``partial_support``/``not_support``; other columns are ignored).  A row
        whose ``nugget`` is missing stands for an answer without nuggets (it scores 0).  A
        mapping of judgment sets (e.g. ``{"human": ..., "llm": ...}``) adds a ``qrels`` dim.
    columns : mapping, optional
        Role -> column name for frames whose columns are named otherwise (e.g.
        ``{"topic": "qid", "system": "run_id"}``).

    Returns
    -------
    xarray.DataArray
        ``(system, topic, measure[, qrels])`` with measures ``strict_vital_score,
        strict_all_score, vital_score, all_score`` (nuggetizer's names, module docstring);
        NaN where a system has no row for a topic.

    Examples
    --------
    >>> import pandas as pd
    >>> from irframe.rag import nugget_scores
    >>> df = pd.DataFrame({"system": "r1", "topic": "t1", "nugget": [0, 1, 2],
    ...                    "importance": ["vital", "vital", "okay"],
    ...                    "assignment": ["support", "partial_support", "support"]})
    >>> nugget_scores(df).sel(system="r1", topic="t1").values.round(4).tolist()
    [0.5, 0.6667, 0.75, 0.8333]
    """
    if is_qrels_sets(nuggets):
        return _over_sets(lambda f: nugget_scores(f, columns=columns), nuggets)
    nuggets = _roles(nuggets, columns, NUGGET_ROLES, "nugget frame")
    _need(nuggets, ["system", "topic", "nugget", "importance", "assignment"], "nugget frame")
    real = nuggets["nugget"].notna().to_numpy()
    _no_orphans(nuggets, ~real, ["importance", "assignment"], "nugget", "nugget frame")
    _bad_values(nuggets, "importance", IMPORTANCES, "nugget frame", real)
    _bad_values(nuggets, "assignment", ASSIGNMENTS, "nugget frame", real)
    cell, systems, topics, present = _cells(nuggets)
    keyed = nuggets.loc[real, ["system", "topic", "nugget"]].astype(str)
    dup = keyed.duplicated(keep=False).to_numpy()
    if dup.any():
        rows = keyed.index[dup][:_SHOW].tolist()
        raise DuplicateError(
            f"nugget frame has {int(dup.sum())} rows repeating a (system, topic, nugget) "
            f"assignment (rows {rows}; ids compared as text); keep one per nugget, e.g. "
            "df = df[~df.astype({'system': str, 'topic': str, 'nugget': str})"
            ".duplicated(['system', 'topic', 'nugget'])]"
        )
    vital = real & (nuggets["importance"] == "vital").to_numpy()
    assign = nuggets["assignment"].to_numpy()
    full = real & (assign == "support")
    credit = np.where(full, 1.0, 0.0) + np.where(real & (assign == "partial_support"), 0.5, 0.0)
    n = len(present)

    def count(weights):
        return np.bincount(cell, weights=weights.astype(np.float64), minlength=n)

    n_all, n_vital = count(real), count(vital)
    values = np.stack(
        [
            _ratio(count(full & vital), n_vital),
            _ratio(count(full), n_all),
            _ratio(count(credit * vital), n_vital),
            _ratio(count(credit), n_all),
        ],
        axis=1,
    )
    return _cube(values, systems, topics, present, NUGGET_MEASURES, "irframe.rag.nugget_scores", {})


def support_scores(
    support: pd.DataFrame | Mapping[str, pd.DataFrame], *, columns: Mapping[str, str] | None = None
) -> xr.DataArray:
    """Weighted support precision and recall of every (system, topic) answer, as a cube.

    Parameters
    ----------
    support : pandas.DataFrame or mapping of name -> DataFrame
        One row per judged (answer sentence, citation) with columns ``system, topic,
        sentence, citation, support`` (support in ``full_support``/``partial_support``/
        ``no_support``).  A sentence without citations is one row with ``citation`` (and
        ``support``) missing; an answer without sentences is one row with ``sentence``
        missing.  A mapping of judgment sets adds a ``qrels`` dim.
    columns : mapping, optional
        Role -> column name for frames whose columns are named otherwise.

    Returns
    -------
    xarray.DataArray
        ``(system, topic, measure[, qrels])`` with measures ``support_precision,
        support_recall`` (module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> from irframe.rag import support_scores
    >>> df = pd.DataFrame({"system": "r1", "topic": "t1", "sentence": [0, 0, 1, 2],
    ...                    "citation": ["d1", "d2", "d3", None],
    ...                    "support": ["full_support", "no_support", "partial_support", None]})
    >>> support_scores(df).sel(system="r1", topic="t1").values.round(4).tolist()
    [0.5, 0.5]
    """
    if is_qrels_sets(support):
        return _over_sets(lambda f: support_scores(f, columns=columns), support)
    support = _roles(support, columns, SUPPORT_ROLES, "support frame")
    _need(support, ["system", "topic", "sentence", "citation", "support"], "support frame")
    has_sentence = support["sentence"].notna().to_numpy()
    cited = has_sentence & support["citation"].notna().to_numpy()
    _no_orphans(support, ~has_sentence, ["citation", "support"], "sentence", "support frame")
    _no_orphans(support, has_sentence & ~cited, ["support"], "citation", "support frame")
    _bad_values(support, "support", SUPPORT_LEVELS, "support frame", cited)
    cell, systems, topics, present = _cells(support)
    keyed = support.loc[cited, ["system", "topic", "sentence", "citation"]].astype(str)
    dup = keyed.duplicated(keep=False).to_numpy()
    if dup.any():
        rows = keyed.index[dup][:_SHOW].tolist()
        raise DuplicateError(
            f"support frame has {int(dup.sum())} rows repeating a (system, topic, sentence, "
            f"citation) judgment (rows {rows}); keep one judgment per citation"
        )
    weight = support["support"].map(SUPPORT_LEVELS).to_numpy(dtype=np.float64, na_value=0.0)
    weight = np.where(cited, weight, 0.0)
    n = len(present)
    n_pairs = np.bincount(cell, weights=cited.astype(np.float64), minlength=n)
    precision = _ratio(np.bincount(cell, weights=weight, minlength=n), n_pairs)
    # sentences: (cell, sentence) groups, their best citation
    s_code, s_names = pd.factorize(support["sentence"].to_numpy()[has_sentence].astype(str))
    sent_codes, _ = pd.factorize(cell[has_sentence].astype(np.int64) * len(s_names) + s_code)
    best = np.zeros(sent_codes.max() + 1 if len(sent_codes) else 0)
    np.maximum.at(best, sent_codes, weight[has_sentence])
    sent_cell = np.zeros(len(best), np.int64)
    sent_cell[sent_codes] = cell[has_sentence]
    n_sent = np.bincount(sent_cell, minlength=n).astype(np.float64)
    recall = _ratio(np.bincount(sent_cell, weights=best, minlength=n), n_sent)
    values = np.stack([precision, recall], axis=1)
    return _cube(
        values, systems, topics, present, SUPPORT_MEASURES, "irframe.rag.support_scores", {}
    )


# ---------------------------------------------------------------------------
# readers: JSON lines
# ---------------------------------------------------------------------------


def _line_error(path, lineno: int, line: str, why: str) -> ParseError:
    """The error for a record of a JSON-lines file, naming the file and line."""
    return ParseError(
        f"{path}, line {lineno}: {why}", path=str(path), lineno=lineno, line=line.rstrip("\n")
    )


def _records(path):
    """(line number, record, line) of every non-empty line of a JSON-lines file (.gz read too)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise _line_error(
                    path,
                    lineno,
                    line,
                    f"not a JSON object ({exc.msg} at column {exc.colno}); "
                    "each line must be one JSON record",
                ) from None
            if not isinstance(rec, dict):
                raise _line_error(
                    path,
                    lineno,
                    line,
                    f"a JSON {type(rec).__name__}, not an object",
                )
            yield lineno, rec, line


def _field(rec: dict, name: str, path, lineno: int, line: str, kinds=(str,)) -> Any:
    if name not in rec:
        raise _line_error(
            path,
            lineno,
            line,
            f"field {name!r} is missing (found {sorted(rec)[:10]})",
        )
    value = rec[name]
    if not isinstance(value, kinds):
        raise _line_error(
            path,
            lineno,
            line,
            f"field {name!r} is a {type(value).__name__}, expected "
            f"{' or '.join(k.__name__ for k in kinds)}",
        )
    return value


def _system_of(rec, system, path, lineno, line):
    if system is not None:
        return system
    if "run_id" not in rec:
        raise _line_error(
            path,
            lineno,
            line,
            "no 'run_id' field names the system; pass system=... to name the run of the whole file",
        )
    return str(_field(rec, "run_id", path, lineno, line, (str, int)))


def _first_answer(seen: dict, sys_: str, topic: str, path, lineno: int, line: str) -> None:
    """Record the line of a (system, topic) answer; a second one is a ParseError."""
    if (sys_, topic) in seen:
        raise _line_error(
            path,
            lineno,
            line,
            f"a second answer of system {sys_!r} for topic "
            f"{topic!r} (the first is on line {seen[(sys_, topic)]}); keep one per topic",
        )
    seen[(sys_, topic)] = lineno


def read_nuggets(path: str | os.PathLike, *, system: str | None = None) -> pd.DataFrame:
    """Read nuggetizer's assignment output (JSON lines) into a nugget frame.

    Each line is one answer: ``{"qid": ..., "run_id": ..., "nuggets": [{"text": ...,
    "importance": "vital"|"okay", "assignment": "support"|"partial_support"|"not_support"},
    ...]}`` (nuggetizer's ``assign`` output; other fields are ignored).

    Parameters
    ----------
    path : str or path-like
    system : str, optional
        The system of every record; default each record's ``run_id``.

    Returns
    -------
    pandas.DataFrame
        ``system, topic, nugget, text, importance, assignment``; ``nugget`` is the nugget's
        position in its record's list.  A record with an empty list gives one row with
        ``nugget`` missing (an answer without nuggets: it scores 0).

    Raises
    ------
    irframe.ParseError
        Naming the file, line and field of a malformed record.
    """
    rows: list[tuple] = []
    seen: dict[tuple, int] = {}
    for lineno, rec, line in _records(path):
        topic = str(_field(rec, "qid", path, lineno, line, (str, int)))
        sys_ = _system_of(rec, system, path, lineno, line)
        _first_answer(seen, sys_, topic, path, lineno, line)
        items = _field(rec, "nuggets", path, lineno, line, (list,))
        if not items:
            rows.append((sys_, topic, None, None, None, None))
        for i, n in enumerate(items):
            where = f"nuggets[{i}]"
            if not isinstance(n, dict):
                raise _line_error(
                    path,
                    lineno,
                    line,
                    f"{where} is a {type(n).__name__}, not an object",
                )
            for key, allowed in (("importance", IMPORTANCES), ("assignment", ASSIGNMENTS)):
                if not isinstance(n.get(key), str) or n.get(key) not in allowed:
                    raise _line_error(
                        path,
                        lineno,
                        line,
                        f"field {where}.{key} is {n.get(key)!r}, expected one of {list(allowed)}",
                    )
            rows.append((sys_, topic, i, n.get("text"), n["importance"], n["assignment"]))
    df = pd.DataFrame(
        rows, columns=["system", "topic", "nugget", "text", "importance", "assignment"]
    )
    df["nugget"] = df["nugget"].astype("Int64")
    return df


def read_support(path: str | os.PathLike, *, system: str | None = None) -> pd.DataFrame:
    """Read citation-support judgments (JSON lines) into a support frame.

    Each line is one answer, in the TREC 2024 RAG answer format with a judgment per
    citation: ``{"topic_id": ..., "run_id": ..., "answer": [{"text": ..., "citations": [...],
    "support": [...]}, ...]}`` -- ``citations`` the cited segment ids of the sentence and
    ``support`` one of ``full_support``/``partial_support``/``no_support`` per citation, in
    the same order (``qid`` is accepted for ``topic_id``).

    Parameters
    ----------
    path : str or os.PathLike
        The JSON-lines file.
    system : str, optional
        The system of every answer (default: each line's ``run_id``; a line without one
        is an error naming it).

    Returns
    -------
    pandas.DataFrame
        ``system, topic, sentence, citation, support`` (see [irframe.rag.support_scores][]).

    Raises
    ------
    irframe.ParseError
        Naming the file, line and field of a malformed record.
    """
    rows: list[tuple] = []
    seen: dict[tuple, int] = {}
    for lineno, rec, line in _records(path):
        key = "topic_id" if "topic_id" in rec else "qid"
        topic = str(_field(rec, key, path, lineno, line, (str, int)))
        sys_ = _system_of(rec, system, path, lineno, line)
        _first_answer(seen, sys_, topic, path, lineno, line)  # (else it would join the first)
        answer = _field(rec, "answer", path, lineno, line, (list,))
        if not answer:
            rows.append((sys_, topic, None, None, None))
        for i, sent in enumerate(answer):
            where = f"answer[{i}]"
            if not isinstance(sent, dict):
                raise _line_error(
                    path,
                    lineno,
                    line,
                    f"{where} is a {type(sent).__name__}, not an object",
                )
            cites = sent.get("citations") or []
            judged = sent.get("support") or []
            if (
                not isinstance(cites, list)
                or not isinstance(judged, list)
                or len(cites) != len(judged)
            ):
                raise _line_error(
                    path,
                    lineno,
                    line,
                    f"{where} has {len(cites) if isinstance(cites, list) else cites!r} "
                    f"citations but {len(judged) if isinstance(judged, list) else judged!r} support "
                    "judgments; give one judgment per citation",
                )
            if not cites:
                rows.append((sys_, topic, i, None, None))
            for c, s in zip(cites, judged, strict=True):
                if not isinstance(s, str) or s not in SUPPORT_LEVELS:
                    raise _line_error(
                        path,
                        lineno,
                        line,
                        f"{where}.support has {s!r}, expected one of {list(SUPPORT_LEVELS)}",
                    )
                rows.append((sys_, topic, i, str(c), s))
    df = pd.DataFrame(rows, columns=["system", "topic", "sentence", "citation", "support"])
    df["sentence"] = df["sentence"].astype("Int64")
    return df
