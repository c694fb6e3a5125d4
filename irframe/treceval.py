"""trec_eval's evaluation procedure: which topics, which values, which summary, which text.

[`trec_eval_values`][irframe.treceval.trec_eval_values] reproduces what the ``trec_eval`` program computes for one run
file and one qrels file, as data; [`trec_eval_runs`][irframe.treceval.trec_eval_runs] does it for every system of a run
frame at once (one alignment), each system as its own trec_eval call, and returns
[`TrecRun`][irframe.treceval.TrecRun] objects whose ``text()`` is trec_eval's output, byte for byte (the
command line prints it).  The numbers come from irframe's measures
(`irframe.evaluate.evaluate_groups`); this module adds only trec_eval's bookkeeping:

- **topics**: 9.0.8 evaluates the run's topics that have qrels, in ``strcmp`` order; 10.0
  walks the qrels topics and stops with "result qid 'X' not found in qrels" (exit 4)
  when the run lacks one, unless ``-c``: 9.0.8 then counts such a topic as 0 in the averages,
  10.0 evaluates it with a stand-in ranking of one document (``ceci_nest_pas_un_docno``,
  unjudged unless the qrels name it), prints its lines, and resets ``num_ret``, ``utility``,
  ``unj*``, ``rbp_resid`` (to 0) and ``relstring`` (to '') — those printed names only.
- **summary**: a float measure is the sum over evaluated topics, left to right in topic
  order, divided by the number of topics (all qrels topics with ``-c``); counts are summed;
  ``gm_map``/``gm_bpref`` are ``exp(mean of log(max(x, 1e-5)))`` with ``log(1e-5)`` for
  each missing topic under ``-c``; ``num_rel`` under ``-c`` counts every qrels line with
  a grade above 0 in every topic (whatever ``-l``), as trec_eval's ``te_calc_avg_num_rel``.
- **z-scores** (``-Z``): each per-topic value becomes ``(x - mean) / sd`` with the mean and
  standard deviation of the file for (topic, printed name); -1000000 when missing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from .errors import IrframeError

__all__ = [
    "TrecEvalError",
    "TrecLine",
    "TrecRun",
    "Zscores",
    "format_trec_line",
    "line_text",
    "one_run",
    "read_zscores",
    "trec_eval_run",
    "trec_eval_runs",
    "trec_eval_values",
]

MISSING_ZSCORE = -1000000.0


class TrecEvalError(IrframeError, ValueError):
    """An error trec_eval reports with this message and exit status; ``printed``: what it
    printed on standard output before stopping (10.0 ``-q``: the topics before the one that
    stops it)."""

    def __init__(self, message: str, status: int, printed: str = ""):
        super().__init__(message)
        self.status = status
        self.printed = printed


@dataclass(frozen=True)
class TrecLine:
    """One output line: ``name`` (printed), ``topic`` (or ``"all"``), ``value``, ``kind``
    (``float``, ``long``, ``gm``, ``runid``, ``num_q``, ``relstring``, ``extra_float``,
    ``extra_long``) and ``zscore`` (the value is a z-score: trec_eval prints ``Z`` + ``%6.4f``)."""

    name: str
    topic: str
    value: object
    kind: str
    zscore: bool = False


class Zscores(Mapping):
    """A trec_eval ``-Z`` file: ``(qid, measure) → (mean, stddev)``, looked up as trec_eval
    looks it up.

    trec_eval sorts the lines by qid, then measure (``strcmp``, a stable sort), and finds a
    qid, then a measure among that qid's lines, by binary search whose upper bound is one
    past the last entry.  So of a (qid, measure) given twice it finds the one its search
    meets first (not always the first or the last line), and a measure a qid lacks but
    sorting after all of that qid's measures can be found among the next qid's lines; both
    are reproduced here.  A search reaching past the last qid or the last line (trec_eval
    then reads beyond its arrays) finds nothing.  Iterating gives the keys of the file.
    """

    def __init__(self, lines: list[tuple[str, str, float, float]]) -> None:
        self._pool = sorted(lines, key=lambda r: (r[0].encode(), r[1].encode()))
        self._qids: list[str] = []
        self._start: list[int] = []
        for i, r in enumerate(self._pool):
            if not self._qids or self._qids[-1] != r[0]:
                self._qids.append(r[0])
                self._start.append(i)

    @staticmethod
    def _search(key: bytes, n: int, at) -> int | None:
        """trec_eval's binary search over ``at(0) .. at(n)`` (``end`` starts at ``n``);
        ``at(i)`` is None past the arrays (not found)."""
        start, end = 0, n
        while start <= end:
            cur = (start + end) // 2
            there = at(cur)
            if there is None or key < there:
                end = cur - 1
            elif key > there:
                start = cur + 1
            else:
                return cur
        return None

    def get(self, key, default=None):
        qid, meas = key
        nq = len(self._qids)
        q = self._search(qid.encode(), nq, lambda i: self._qids[i].encode() if i < nq else None)
        if q is None:
            return default
        first = self._start[q]
        n = (self._start[q + 1] if q + 1 < nq else len(self._pool)) - first
        pool = self._pool
        i = self._search(
            meas.encode(),
            n,
            lambda j: pool[first + j][1].encode() if first + j < len(pool) else None,
        )
        return default if i is None else (pool[first + i][2], pool[first + i][3])

    def __getitem__(self, key):
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self):
        return iter(dict.fromkeys((r[0], r[1]) for r in self._pool))

    def __len__(self) -> int:
        return len(dict.fromkeys((r[0], r[1]) for r in self._pool))


def read_zscores(path) -> Zscores:
    """Read a trec_eval ``-Z`` file: lines ``qid measure mean stddev``.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The ``-Z`` file.

    Returns
    -------
    Zscores
        ``(qid, measure) → (mean, stddev)``, a mapping whose lookups follow trec_eval's.

    Raises
    ------
    TrecEvalError
        A line without four fields, or a file without lines (trec_eval's messages, exit 255).
    """
    from .measures.trec_eval_syntax import c_atof

    lines: list[tuple[str, str, float, float]] = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 4:
                raise TrecEvalError(
                    f"trec_eval.get_zscores: Malformed line {lineno} in {path}: {line!r}", 255
                )
            lines.append((parts[0], parts[1], c_atof(parts[2]), c_atof(parts[3])))
    if not lines:
        raise TrecEvalError(f"trec_eval.get_zscores: Cannot read zscores file '{path}'", 255)
    return Zscores(lines)


def _zscore(value: float, ms: tuple[float, float] | None) -> float:
    if ms is None:
        return MISSING_ZSCORE
    mean, sd = ms
    if sd:
        return (value - mean) / sd
    return 0.0 if value == mean else MISSING_ZSCORE


def _utf8(s: str) -> bytes:
    return s.encode("utf-8")


# --------------------------------------------------------------------------------------
# the request: which values, which relevance information
# --------------------------------------------------------------------------------------


def _request(
    measures: Sequence[str], version: str, rel_format: str
) -> tuple[list, list[str], str | None]:
    """trec_eval's printed values (`TrecValue`),
    the irframe measure strings (``extras``) of a ``-m`` list and the stop (stderr text) of
    the first requested family whose ranking form refuses the relevance format, or None
    (trec_eval meets it on the first topic it evaluates); trec_eval's errors otherwise."""
    from .measures import parse_measure
    from .measures.trec_eval_syntax import expand, is_trec_request, split_request

    trec_req = [m for m in measures if is_trec_request(m, version)]
    extras = [m for m in measures if not is_trec_request(m, version)]
    for m in extras:  # unknown names fail like trec_eval's "illegal measure"
        name = split_request(m)[0]
        if is_trec_request(name, "10.0"):  # rbp, dcg ...: a 10.0 family, not 9.0.8's
            raise TrecEvalError(
                f"trec_eval: illegal measure '{name}'\n{name} is a measure of trec_eval 10.0, "
                f"not {version}: pass --trec-eval-version 10.0",
                1,
            )
        try:
            parse_measure(m)
        except (IrframeError, ValueError) as e:
            name = m.partition(".")[0]
            raise TrecEvalError(f"trec_eval: illegal measure '{name}'\n{e}", 1) from None
    try:
        values = expand(trec_req, version) if (trec_req or not extras) else []
    except IrframeError as e:
        family = getattr(e, "trec_family", None)
        if family is not None:  # trec_eval's two lines
            raise TrecEvalError(
                f"{getattr(e, 'trec_text', e)}\ntrec_eval: Cannot initialize measure '{family}'", 2
            ) from None
        msg = str(e)
        if msg.startswith("trec_eval: improper measure in parameter '"):  # then main's own line
            msg += f"\ntrec_eval: illegal measure '{msg.split(chr(39))[1]}'"
        raise TrecEvalError(msg, 1) from None
    needs = _REL_NEEDS[rel_format]
    if extras and needs == "prefs":  # preferences hold no grades for irframe's measures
        raise TrecEvalError(
            f"irframe: -R {rel_format} reads preferences, which give no relevance grades: "
            f"'{extras[0]}' cannot be computed from them (only trec_eval's prefs measures "
            "can); evaluate it in a separate call on a qrels file (-R qrels, the default)\n"
            f"trec_eval: Can't calculate measure '{extras[0]}'",
            4,
        )
    wrong = [
        v for v in values if v.kind in ("float", "long", "gm", "relstring") and v.needs != needs
    ]
    refusal = None
    if wrong:  # the first family (trec_eval's order) whose ranking form refuses the format
        refusal = f"{_FORMAT_REFUSAL[wrong[0].needs]}\ntrec_eval: Can't calculate measure '{wrong[0].family}'"
    elif any(  # calc_utility refuses other than 4 coefficients at the first topic: exit 4
        v.family == "utility" and len(parse_measure(v.measure).param("coef")) != 4 for v in values
    ):
        refusal = (
            "trec_eval.calc_utility: improper number of coefficients\n"
            "trec_eval: Can't calculate measure 'utility'"
        )
    return values, extras, refusal


_REL_NEEDS = {"qrels": "qrels", "qrels_jg": "qrels_jg", "prefs": "prefs", "qrels_prefs": "prefs"}
#: what trec_eval's te_form_res_rels, te_form_res_rels_jg and form_prefs_counts print when
#: the relevance format is not theirs
_FORMAT_REFUSAL = {
    "qrels": "trec_eval.form_res_qrels: rel_info format not qrels or results format not trec_results",
    "qrels_jg": "trec_eval: rel_info format not qrels_jg or results format not trec_results",
    "prefs": "trec_eval.form_prefs_info: prefs_info format not (prefs or qrels_prefs) or results format "
    "not trec_results",
}
#: trec_eval's ``-R`` relevance formats
REL_FORMATS = tuple(_REL_NEEDS)


def _rel_info(qrels: pd.DataFrame, rel_format: str):
    """(qrels ``topic, doc, rel``, judgment-group qrels or None, preferences or None); for
    preferences the qrels hold one row per topic."""
    if rel_format == "qrels_jg":
        return qrels.drop(columns="jg").drop_duplicates(["topic", "doc"]), qrels, None
    if _REL_NEEDS[rel_format] == "prefs":
        from .io import constant_categorical  # one code per row, not a string per row

        prefs = (
            qrels
            if "jsg" in qrels.columns
            else qrels.assign(jsg=constant_categorical("0", len(qrels)))[
                ["topic", "jg", "jsg", "doc", "rel"]
            ]
        )
        # the alignment only gives the preference measures their topics and checks the run
        # (the judgments are irframe.prefs.Judgments' own): one row per topic is aligned,
        # ~5x faster than every judged document on Robust03, the rest checked as qrels are
        from .schema import checked_qrels

        checked_qrels(prefs[["topic", "doc", "rel"]])
        return prefs[["topic", "doc", "rel"]].drop_duplicates("topic"), None, prefs
    return qrels, None, None


# --------------------------------------------------------------------------------------
# topics: which ones each run is evaluated on
# --------------------------------------------------------------------------------------


def _codes(s: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Integer codes (-1: missing) and distinct values (as str) of an id column; free on categoricals."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return s.array.codes, [str(c) for c in s.cat.categories]  # (a read-only view: no copy)
    codes, uniques = pd.factorize(s)
    return codes, [str(u) for u in uniques]


def _qrels_topics(qrels: pd.DataFrame) -> list[str]:
    """The qrels' topics as str, in trec_eval's order (strcmp: UTF-8 bytes)."""
    return sorted({str(t) for t in _distinct(qrels["topic"])}, key=_utf8)


def _distinct(s: pd.Series) -> list:
    """The distinct values of an id column (unordered); from the codes of a categorical."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        used = np.zeros(len(s.cat.categories) + 1, bool)  # the last flag: missing (code -1)
        used[s.array.codes] = True
        return list(s.cat.categories[used[:-1]])
    return list(s.unique())


def _topics_by_system(runs: pd.DataFrame, systems: list[str], wanted: set[str]) -> list[set[str]]:
    """For each system (in ``systems`` order), the topics of ``wanted`` it retrieved for."""
    s_codes, s_names = _codes(runs["system"])
    t_codes, t_names = _codes(runs["topic"])
    width = len(t_names) + 1  # codes shifted by one: -1 (missing) becomes 0
    pair = s_codes.astype(np.int64) + 1
    pair *= width
    pair += t_codes
    pair += 1
    space = (len(s_names) + 1) * width
    found = (
        np.flatnonzero(np.bincount(pair, minlength=space))
        if space <= 4 * len(pair) + 4096
        else np.unique(pair)
    )
    pos = {s: i for i, s in enumerate(systems)}
    out: list[set[str]] = [set() for _ in systems]
    for s_code, t_code in zip(*np.divmod(found, width), strict=True):
        if s_code and t_code and t_names[t_code - 1] in wanted and s_names[s_code - 1] in pos:
            out[pos[s_names[s_code - 1]]].add(t_names[t_code - 1])
    return out


def _trec_rank(runs: pd.DataFrame, version: str) -> np.ndarray:
    """Each row's place in trec_eval's order of its (system, topic): score descending (9.0.8:
    as a C float), then docno descending in ``strcmp`` order; 0-based."""
    score = runs["score"].to_numpy(dtype=np.float64)
    if version != "10.0":
        with np.errstate(over="ignore"):  # beyond a C float: +-inf, as in trec_eval 9.0.8
            score = score.astype(np.float32).astype(np.float64)
    doc = pd.Index(runs["doc"].astype(str).to_numpy())
    doc_code = pd.Index(sorted(doc.unique(), key=_utf8)).get_indexer(doc)
    system = pd.factorize(runs["system"].astype(str).to_numpy())[0]
    topic = pd.factorize(runs["topic"].astype(str).to_numpy())[0]
    order = np.lexsort((-doc_code, -score, topic, system))
    key = system.astype(np.int64) * (int(topic.max(initial=0)) + 1) + topic
    sorted_key = key[order]
    first = np.r_[0, np.flatnonzero(sorted_key[1:] != sorted_key[:-1]) + 1]
    start = np.repeat(first, np.diff(np.r_[first, len(order)]))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order)) - start
    return rank


def _id_codes(x: pd.Series) -> np.ndarray:
    """Integer codes of an id column (equal ids, equal codes) without building strings."""
    if isinstance(x.dtype, pd.CategoricalDtype):
        return x.cat.codes.to_numpy().astype(np.int64)
    return pd.factorize(x.astype(str).to_numpy())[0].astype(np.int64)


def _duplicated(*codes: np.ndarray) -> np.ndarray:
    """Per row: its combination of codes occurs on another row too."""
    return pd.DataFrame(dict(enumerate(codes))).duplicated(keep=False).to_numpy(dtype=bool)


def _duplicates(runs: pd.DataFrame, qrels: pd.DataFrame, depth: int | None, version: str):
    """trec_eval's duplicate checks (``te_form_res_rels``): per (system, topic) the smallest
    docno (``strcmp``) the ranking holds twice among its top ``depth`` documents, per topic
    the smallest docno the qrels hold twice; and ``runs``/``qrels`` without the extra copies
    (a run keeps each document's best-ranked copy), ready to align."""
    run_dup = _duplicated(
        _id_codes(runs["system"]), _id_codes(runs["topic"]), _id_codes(runs["doc"])
    )
    q_dup = _duplicated(_id_codes(qrels["topic"]), _id_codes(qrels["doc"]))
    run_docs: dict[tuple[str, str], str] = {}
    q_docs: dict[str, str] = {}
    if q_dup.any():
        q_key = pd.DataFrame(
            {
                "topic": qrels["topic"].astype(str).to_numpy(),
                "doc": qrels["doc"].astype(str).to_numpy(),
            }
        )
        q_docs = {t: min(g, key=_utf8) for t, g in q_key[q_dup].groupby("topic")["doc"]}
        qrels = qrels[~q_key.duplicated(keep="first").to_numpy()]
    if run_dup.any():
        sub = runs[run_dup]  # only the rows whose document occurs twice in their ranking
        run_key = pd.DataFrame(
            {
                "system": sub["system"].astype(str).to_numpy(),
                "topic": sub["topic"].astype(str).to_numpy(),
                "doc": sub["doc"].astype(str).to_numpy(),
            }
        )
        # the place in its ranking (with -M: among every row; else among the copies, same order)
        sub_rank = (
            _trec_rank(runs, version)[run_dup] if depth is not None else _trec_rank(sub, version)
        )
        top = run_key[sub_rank < depth] if depth is not None else run_key
        top = top[top.duplicated(keep=False).to_numpy()]
        run_docs = {
            (s, t): min(g, key=_utf8) for (s, t), g in top.groupby(["system", "topic"])["doc"]
        }
        best = run_key.assign(rank=sub_rank).sort_values("rank", kind="stable")
        extra = best.duplicated(["system", "topic", "doc"], keep="first").sort_index().to_numpy()
        drop = np.zeros(len(runs), dtype=bool)
        drop[np.flatnonzero(run_dup)[extra]] = True
        runs = runs[~drop]
    return run_docs, q_docs, runs, qrels


def _first_stops(
    errors: dict,
    printed_before: dict,
    values: list,
    qrels: pd.DataFrame,
    qrels_topics: list[str],
    systems: list[str],
    run_topics: list[set[str]],
    run_docs: Mapping[tuple[str, str], str],
    q_docs: Mapping[str, str],
    version: str,
    complete: bool,
    per_topic: bool,
) -> None:
    """trec_eval's stops inside ``te_form_res_rels`` (exit 4, "Can't calculate measure 'X'",
    X the first requested family, in its table order, that forms the ranking's relevance
    list) at the first topic of each run's evaluation order where one applies; ``errors``
    and ``printed_before`` (10.0/9.0.8 ``-q``: the topics printed before) are updated in place.

    At a topic, in trec_eval's order: 10.0 without -c stops first on a qrels topic the run
    lacks; then a docno the ranking holds twice among its top ``-M`` documents ("duplicate
    docs", printed without a newline), a docno the topic's qrels hold twice; and, on the
    first topic evaluated only, grades all below 0: the per-grade counts are sized by the
    highest grade + 1 with a helper that returns the existing buffer when that size is not
    above the one allocated, i.e. NULL on the first call.  Once a topic with a grade >= 0
    has been evaluated, a later topic whose highest grade is -1 is evaluated (one whose
    highest grade is below -1 makes trec_eval clear memory with a negative size: undefined
    behaviour there, evaluated normally here).
    """
    family = next((v.family for v in values if v.family not in ("runid", "num_q")), None)
    if family is None:
        return
    t_codes, t_names = _codes(qrels["topic"])
    top = (
        pd.Series(np.trunc(pd.to_numeric(qrels["rel"]).to_numpy(dtype=np.float64)))
        .groupby(t_codes)
        .max()
    )
    below = {t_names[c] for c in top.index[top.to_numpy() < 0] if c >= 0}
    dup_systems = {s for s, _ in run_docs}
    calc = f"trec_eval: Can't calculate measure '{family}'"
    for s, rt in zip(
        systems, run_topics, strict=True
    ):  # a loop over runs (files); topics only where one fails
        if not (below or q_docs or s in dup_systems):
            continue
        if version == "10.0":
            seq = qrels_topics
        elif errors[s] is not None:
            continue
        else:
            seq = [t for t in qrels_topics if t in rt]
        for k, t in enumerate(seq):
            if version == "10.0" and not complete and t not in rt:
                break  # the stop already in errors: "result qid ... not found"
            if (s, t) in run_docs:
                msg = f"trec_eval.form_res_qrels: duplicate docs {run_docs[s, t]}{calc}"
            elif t in q_docs:
                msg = f"trec_eval.form_res_rels: duplicate docs {q_docs[t]}\n{calc}"
            elif k == 0 and t in below:
                msg = calc
            else:
                continue
            errors[s] = TrecEvalError(msg, 4)
            printed_before.pop(s, None)
            if per_topic and k:
                printed_before[s] = seq[:k]
            break


#: the document of 10.0's stand-in ranking for a qrels topic the run lacks under -c
#: (trec_eval.c's ``bogus_ranking``: this docno, score 1.0)
STAND_IN_DOCNO = "ceci_nest_pas_un_docno"


def _with_stand_in(
    runs: pd.DataFrame,
    qrels: pd.DataFrame,
    missing: Mapping[str, list[str]],
    system: Mapping[str, Any],
) -> pd.DataFrame:
    """``runs`` plus 10.0's stand-in ranking (one document, `STAND_IN_DOCNO`, score 1.0)
    for each (system, qrels topic) of ``missing`` (``system``: name → value in ``runs``);
    categorical columns keep a categorical dtype."""
    pairs = [(s, t) for s, ts in missing.items() for t in ts]
    if not pairs:
        return runs
    topic = {str(t): t for t in qrels["topic"].unique()}
    extra = {
        "system": [system[s] for s, _ in pairs],
        "topic": [topic[t] for _, t in pairs],
        "doc": [STAND_IN_DOCNO] * len(pairs),
    }
    if "score" in runs.columns:
        extra["score"] = [1.0] * len(pairs)
    if "rank" in runs.columns:
        extra["rank"] = [1] * len(pairs)
    extra = pd.DataFrame(extra)
    out = {}
    for col in runs.columns:
        x = runs[col]
        if col not in extra.columns:
            out[col] = pd.concat(
                [x.reset_index(drop=True), pd.Series([None] * len(pairs))], ignore_index=True
            )
            continue
        if isinstance(x.dtype, pd.CategoricalDtype):
            try:
                out[col] = pd.Series(
                    pd.api.types.union_categoricals(
                        [x.array, pd.Categorical(extra[col])], ignore_order=True
                    )
                )
                continue
            except TypeError:
                pass
        categorical = isinstance(x.dtype, pd.CategoricalDtype)  # ids union_categoricals refused
        out[col] = pd.concat(
            [
                x.reset_index(drop=True).astype(object if categorical else x.dtype),
                extra[col].astype(object if categorical else x.dtype),
            ],
            ignore_index=True,
        )
    return pd.DataFrame(out)


def _cleared_on_stand_in(name: str) -> bool:
    """Printed names 10.0 sets to 0 (relstring: empty) after evaluating a stand-in ranking: it
    compares the printed name, so ``utility_1,-1,0,0``, ``relstring_5`` and ``rbp_resid_p=0.5``
    keep the stand-in document's values."""
    return name in ("num_ret", "utility", "relstring", "rbp_resid") or name.startswith("unj")


def _topic_error(
    version: str, complete: bool, qrels_topics: list[str], run_topics: set[str]
) -> TrecEvalError | None:
    """trec_eval's per-run stop: 10.0 without -c and a qrels topic the run lacks (status 4);
    no topic with both results and judgments (status 7)."""
    if version == "10.0" and not complete:
        for t in qrels_topics:
            if t not in run_topics:
                return TrecEvalError(f"trec_eval: result qid '{t}' not found in qrels", 4)
    if not run_topics and not (complete and version == "10.0" and qrels_topics):
        return TrecEvalError("trec_eval: No queries with both results and relevance info", 7)
    return None


# --------------------------------------------------------------------------------------
# values: (system, topic, measure) arrays
# --------------------------------------------------------------------------------------


def _measure_table(
    aligned,
    runs: pd.DataFrame,
    qrels: pd.DataFrame,
    jg_qrels,
    prefs,
    labels: list[str],
    *,
    rel_level: int,
    num_docs_in_coll: int,
    **align_options,
) -> tuple[np.ndarray, dict[str, str]]:
    """Per (system, topic, measure) values over ``aligned``'s systems and topics (NaN where a
    system has no ranking) and each measure's aggregate (``mean``, ``sum``, ``gmean``)."""
    from .measures import parse_measure

    shape = (len(aligned.systems), len(aligned.topics), len(labels))
    if not labels:
        return np.zeros(shape), {}
    if prefs is not None:
        from .prefs import Judgments

        topics = [str(t) for t in aligned.topics]
        data = np.zeros(shape)
        v10 = align_options["order"] == "trec_eval10"
        judgments = Judgments(prefs, float32=not v10)
        by_system = dict(tuple(runs.groupby("system", sort=False, observed=True)))
        for i, s in enumerate(aligned.systems):  # a loop over runs (files), not over rows
            run = by_system.get(s, runs.iloc[:0])
            # 10.0 evaluates every topic (-c: with an empty ranking), 9.0.8 only the run's
            has = set(run["topic"].astype(str).unique())  # not row by row
            own = topics if v10 else [t for t in topics if t in has]
            per_topic = judgments.values(run, own, depth=align_options["depth"])
            data[i] = [[per_topic.get(t, {}).get(lab, 0.0) for lab in labels] for t in topics]
        return data, {lab: "sum" if lab.startswith("prefs_num") else "mean" for lab in labels}
    if jg_qrels is not None:
        data = _avg_over_judgment_groups(
            runs,
            jg_qrels,
            labels,
            aligned.systems,
            aligned.topics,
            rel_level=rel_level,
            num_docs_in_coll=num_docs_in_coll,
            **align_options,
        )
        return data, dict.fromkeys(labels, "mean")
    from .cube import scatter
    from .evaluate import evaluate_groups

    needs_n = any(parse_measure(lab).definition.options for lab in labels)
    extra: dict[str, Any] = {"num_docs_in_coll": num_docs_in_coll} if needs_n else {}
    values, specs = evaluate_groups(
        aligned, labels, rel_level=rel_level, **extra
    )  # no cube: no xarray
    return scatter(aligned, values), dict(
        zip(labels, [m.definition.aggregate for m in specs], strict=True)
    )


def _zero_by_zero(aligned, labels: list[str], rel_level: float) -> np.ndarray | None:
    """(system, topic, measure) cells whose trec_eval value is C's 0.0/0.0, printed ``-nan``
    (`irframe.measures.trec.iprec_zero_by_zero`, `rndcg_zero_by_zero`;
    the table keeps 0.0 there: NaN in it means *not evaluated*); None when there is none."""
    from .measures.trec import iprec_zero_by_zero, rndcg_zero_by_zero

    out = None
    for j, lab in enumerate(labels):
        groups = iprec_zero_by_zero(aligned, lab, rel_level)
        if groups is None:
            groups = rndcg_zero_by_zero(aligned, lab, rel_level)
        if groups is not None:
            if out is None:
                out = np.zeros((len(aligned.systems), len(aligned.topics), len(labels)), bool)
            out[aligned.group_system[groups], aligned.group_topic[groups], j] = True
    return out


def _relstrings(aligned, values) -> dict[str, dict[tuple[int, int], str]]:
    """trec_eval's relstring values: {printed name: {(system code, topic code): string}}."""
    wanted = [v for v in values if v.kind == "relstring"]
    if not wanted:  # (the preference measures never import the trec family)
        return {}
    from .measures.trec import relstrings

    out = {}
    for v in wanted:
        keys = zip(aligned.group_system.tolist(), aligned.group_topic.tolist(), strict=True)
        out[v.name] = dict(zip(keys, relstrings(aligned, v.measure), strict=True))
    return out


def _avg_over_judgment_groups(
    runs: pd.DataFrame,
    jg_qrels: pd.DataFrame,
    labels: list[str],
    systems,
    topics,
    *,
    rel_level: int,
    num_docs_in_coll: int,
    **align_options,
) -> np.ndarray:
    """Per (system, topic, measure), in ``systems`` × ``topics`` order: the mean over the
    topic's judgment groups of the measure computed with that group's judgments (trec_eval's
    ``*_avgjg``: summed over the groups in order, divided by their number when there are several)."""
    from .align import align

    s_index = pd.Index([str(s) for s in systems])
    t_index = pd.Index([str(t) for t in topics])
    total = np.zeros((len(s_index), len(t_index), len(labels)))
    count = np.zeros(len(t_index))
    groups = sorted(jg_qrels["jg"].astype(str).unique(), key=_utf8)
    run_topics = set(runs["topic"].astype(str).unique())
    for jg in groups:  # a loop over judgment groups (a handful), not over topics
        sub = jg_qrels[jg_qrels["jg"].astype(str) == jg].drop(columns="jg")
        sub_topics = sub["topic"].astype(str).unique()
        count += t_index.isin(sub_topics)
        if run_topics.isdisjoint(sub_topics):  # nothing retrieved for this group: it adds 0
            continue
        a = align(runs, sub, **align_options)
        values, _ = _measure_table(
            a,
            runs,
            sub,
            None,
            None,
            labels,
            rel_level=rel_level,
            num_docs_in_coll=num_docs_in_coll,
            **align_options,
        )
        si = s_index.get_indexer([str(s) for s in a.systems])
        ti = t_index.get_indexer([str(t) for t in a.topics])
        sv, tv = si >= 0, ti >= 0
        total[np.ix_(si[sv], ti[tv])] += np.nan_to_num(values[np.ix_(sv, tv)])
    return total / np.where(count > 1, count, 1)[None, :, None]


def _num_rel_all(qrels: pd.DataFrame) -> int:
    """trec_eval -c's num_rel: qrels lines with (integer-truncated) grade > 0, every topic."""
    rel = pd.to_numeric(qrels["rel"]).to_numpy(dtype=np.float64)
    return int((np.trunc(rel) > 0).sum())


# --------------------------------------------------------------------------------------
# lines of one run
# --------------------------------------------------------------------------------------


@dataclass
class _Printing:
    """What every run prints: ``values`` and ``extras`` as requested, ``kinds`` (printed name →
    line kind), ``label`` (printed name → measure label) and the options that shape the lines."""

    values: list
    extras: list[str]
    kinds: dict[str, str]
    label: dict[str, str]
    per_topic: bool
    summary: bool
    complete: bool
    zscores: Mapping[tuple[str, str], tuple[float, float]] | None
    num_rel_all: int | None


def _printing(
    values,
    extras: list[str],
    aggs: Mapping[str, str],
    qrels: pd.DataFrame,
    *,
    per_topic: bool,
    summary: bool,
    complete: bool,
    zscores,
) -> _Printing:
    kinds = {v.name: v.kind for v in values}
    label = {v.name: v.measure for v in values if v.kind in ("float", "long", "gm")}
    for e in extras:
        kinds[e] = {"sum": "extra_long", "gmean": "gm"}.get(aggs.get(e, "mean"), "extra_float")
        label[e] = e
    num_rel_all = _num_rel_all(qrels) if complete and "num_rel" in kinds else None
    return _Printing(
        values, extras, kinds, label, per_topic, summary, complete, zscores, num_rel_all
    )


def _printed_values(
    p: _Printing,
    table: np.ndarray,
    col: Mapping[str, int],
    rows: list[int],
    topics: list[str],
    undefined: np.ndarray | None = None,
    stand_in: np.ndarray | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Per printed numeric name, the values of the evaluated topics (NaN → 0; z-scores with
    -Z) and their sum, added left to right in topic order (trec_eval's ``+=``)."""
    names = list(p.label)
    cols = [col.get(p.label[n], -1) for n in names]
    at = np.ix_(rows, [max(c, 0) for c in cols])
    absent = [k for k, c in enumerate(cols) if c < 0]  # printed names the table does not hold
    x = table[at] if table.size else np.zeros((len(rows), len(names)))
    x[:, absent] = 0.0
    x = np.where(np.isnan(x), 0.0, x)
    if undefined is not None:  # C's 0.0/0.0 (see _zero_by_zero)
        u = undefined[at]
        u[:, absent] = False
        x[u] = -np.nan
    if (
        stand_in is not None and stand_in.any()
    ):  # 10.0 -c: values it resets after a stand-in ranking
        for k, name in enumerate(names):
            if name not in p.extras and _cleared_on_stand_in(name):
                x[stand_in, k] = 0.0
    if p.zscores is not None:
        for k, name in enumerate(names):
            x[:, k] = [
                _zscore(float(xi), p.zscores.get((t, name)))
                for t, xi in zip(topics, x[:, k], strict=True)
            ]
    return {n: x[:, k] for k, n in enumerate(names)}, _row_sums(names, x)


def _row_sums(names: list[str], x: np.ndarray) -> dict[str, float]:
    """Per name (column of ``x``), the sum of its values added row (topic) after row."""
    sums = np.zeros(len(names))
    for row in x:  # one topic at a time, every measure at once: the same additions as a scalar loop
        sums += row
    return dict(zip(names, sums.tolist(), strict=True))


@dataclass
class TrecRun:
    """What trec_eval prints for one run, as arrays: [`lines`][irframe.treceval.TrecRun.lines] gives the lines as data,
    [`text`][irframe.treceval.TrecRun.text] the output text (formatted without a Python object per line)."""

    p: _Printing
    per: Mapping[str, np.ndarray]  # printed name → value per evaluated topic
    sums: Mapping[str, float]  # printed name → sum over the evaluated topics
    topics: list[str]  # evaluated topics, in trec_eval's order
    strings: Mapping[str, list[str]]  # relstring name → string per evaluated topic
    n_q: int
    run_id: str

    def _topic_names(self) -> list[str]:
        """Names printed per topic (``-q``), in trec_eval's order."""
        if not self.p.per_topic:
            return []
        order = [v.name for v in self.p.values] + self.p.extras
        return [n for n in order if self.p.kinds[n] not in ("runid", "num_q", "gm")]

    def lines(self) -> list[TrecLine]:
        """Per-topic lines (``-q``) then the summary, in trec_eval's order.

        Returns
        -------
        list of TrecLine
        """
        z = self.p.zscores is not None
        names = self._topic_names()
        lines = [
            TrecLine(name, t, self.strings[name][i], "relstring")
            if self.p.kinds[name] == "relstring"
            else TrecLine(name, t, float(self.per[name][i]), self.p.kinds[name], z)
            for i, t in enumerate(self.topics)
            for name in names
        ]
        return lines + self._summary()

    def text(self) -> str:
        """The output text: ``lines()`` formatted by [`line_text`][irframe.treceval.line_text], one column at a time.

        Returns
        -------
        str
            What trec_eval prints, byte for byte.
        """
        z = self.p.zscores is not None
        columns = []
        for name in self._topic_names():
            kind = self.p.kinds[name]
            if kind == "relstring":
                columns.append(
                    [
                        f"{name:<22}\t{t}\t'{x}'"
                        for t, x in zip(self.topics, self.strings[name], strict=True)
                    ]
                )
                continue
            head = f"{'Z' if z else ''}{name:<22}\t"
            texts = _value_texts(self.per[name], integer=kind in ("long", "extra_long") and not z)
            columns.append([f"{head}{t}\t{x}" for t, x in zip(self.topics, texts, strict=True)])
        out = [line for row in zip(*columns, strict=True) for line in row]  # topic by topic
        out += [line_text(x) for x in self._summary()]
        return "\n".join(out) + "\n" if out else ""

    def _summary(self) -> list[TrecLine]:
        p, z, n_q = self.p, self.p.zscores is not None, self.n_q
        if not p.summary:
            return []
        lines = []
        for name in [v.name for v in p.values] + p.extras:
            kind = p.kinds[name]
            if kind == "runid":
                lines.append(TrecLine("runid", "all", self.run_id, "runid"))
            elif kind == "num_q":
                lines.append(TrecLine("num_q", "all", float(n_q), "long", z))
            elif kind in ("long", "extra_long"):
                total = (
                    p.num_rel_all
                    if (name == "num_rel" and p.num_rel_all is not None)
                    else self.sums[name]
                )
                lines.append(TrecLine(name, "all", float(total), kind, z))
            elif kind == "gm":
                total = self.sums[name] + (
                    (n_q - len(self.topics)) * math.log(1e-5) if p.complete else 0.0
                )
                lines.append(
                    TrecLine(name, "all", math.exp(total / n_q) if n_q else 0.0, "float", z)
                )
            elif kind != "relstring":
                lines.append(TrecLine(name, "all", self.sums[name] / n_q if n_q else 0.0, kind, z))
        return lines


def combine_trec_runs(parts: Sequence[TrecRun], qrels: pd.DataFrame, run_id: str) -> TrecRun:
    """One run's [`TrecRun`][irframe.treceval.TrecRun] from ``parts``: the same run evaluated
    with the same options on disjoint sets of its topics, each against the judgments of its
    own topics (``irframe eval`` reading a large file in blocks).

    The per-topic values are put in trec_eval's topic order and added again in that order (the
    sums of one evaluation of every topic, bit for bit); ``-c``'s number of topics and
    ``num_rel`` are those of the whole ``qrels``; ``run_id`` is printed as the run id.  Valid
    only where one evaluation of every topic stops on no topic (the caller evaluates the whole
    run when a part stopped, or when 10.0 meets a qrels topic the run lacks).

    Parameters
    ----------
    parts : sequence of TrecRun
        At least one; from [`trec_eval_runs`][irframe.treceval.trec_eval_runs] with the same
        measures and options.
    qrels : pandas.DataFrame
        Every judgment (``read_qrels``), as the whole run would be evaluated against.
    run_id : str
        The run id (trec_eval's: the tag of the file's last line).

    Returns
    -------
    TrecRun
    """
    p = parts[0].p
    complete_num_rel = p.complete and "num_rel" in p.kinds
    p = replace(p, num_rel_all=_num_rel_all(qrels) if complete_num_rel else None)
    topics = [t for r in parts for t in r.topics]
    order = sorted(range(len(topics)), key=lambda i: _utf8(topics[i]))
    names = list(p.label)
    x = np.zeros((len(topics), len(names)))
    for k, n in enumerate(names):
        x[:, k] = np.concatenate([np.asarray(r.per[n], dtype=np.float64) for r in parts])[order]
    strings = {name: [s for r in parts for s in r.strings[name]] for name in parts[0].strings}
    strings = {name: [v[i] for i in order] for name, v in strings.items()}
    topics = [topics[i] for i in order]
    n_q = len(_qrels_topics(qrels)) if p.complete else len(topics)
    per = {n: x[:, k] for k, n in enumerate(names)}
    return TrecRun(p, per, _row_sums(names, x), topics, strings, n_q, run_id)


# --------------------------------------------------------------------------------------
# output text
# --------------------------------------------------------------------------------------


def _c_long(v: float) -> int:
    """C's ``(long) x``: truncation toward zero."""
    return math.trunc(v) if math.isfinite(v) else 0


def _float_text(v: float) -> str:
    if math.isnan(v):  # C's printf: "nan" or "-nan" by the sign bit
        return f"{'-nan' if math.copysign(1.0, v) < 0 else 'nan':>6}"
    return f"{v:6.4f}"


def _value_texts(x: np.ndarray, integer: bool) -> list[str]:
    """``%ld`` (C's truncation) or ``%6.4f`` of every value."""
    if integer:
        return [
            str(v) for v in np.trunc(np.where(np.isfinite(x), x, 0.0)).astype(np.int64).tolist()
        ]
    if np.isnan(x).any():
        return [_float_text(v) for v in x.tolist()]
    return [f"{v:6.4f}" for v in x.tolist()]


def format_trec_line(
    name: str, topic: str, value: Any, integer: bool = False, zscore: bool = False
) -> str:
    """One line of trec_eval output: ``"%-22s\\t%s\\t%6.4f"`` (``%ld`` for counts).

    Parameters
    ----------
    name : str
        Measure name as trec_eval prints it.
    topic : str
        Topic id or ``"all"``.
    value : float
        The value.
    integer : bool
        Print as a count (``%ld``).
    zscore : bool
        A z-score line (always ``%6.4f``).

    Returns
    -------
    str

    Examples
    --------
    >>> format_trec_line("map", "all", 0.178545)
    'map                   \\tall\\t0.1785'
    >>> format_trec_line("num_ret", "301", 500.0, integer=True)
    'num_ret               \\t301\\t500'
    """
    prefix = "Z" if zscore else ""
    if isinstance(value, str):
        text = value
    elif integer and not zscore:
        text = str(_c_long(float(value)))
    else:
        text = _float_text(float(value))
    return f"{prefix}{name:<22}\t{topic}\t{text}"


def line_text(line: TrecLine) -> str:
    """The text trec_eval prints for ``line``.

    Parameters
    ----------
    line : TrecLine
        One output line.

    Returns
    -------
    str
    """
    if line.kind == "relstring":
        return f"{line.name:<22}\t{line.topic}\t'{line.value}'"
    return format_trec_line(
        line.name,
        line.topic,
        line.value,
        integer=line.kind in ("long", "extra_long", "runid"),
        zscore=line.zscore,
    )


# --------------------------------------------------------------------------------------
# public entry points
# --------------------------------------------------------------------------------------


def trec_eval_runs(
    runs: pd.DataFrame,
    qrels: pd.DataFrame,
    measures: Sequence[str] = (),
    *,
    run_ids: Mapping[str, str] | None = None,
    version: str = "9.0.8",
    per_topic: bool = False,
    complete: bool = False,
    rel_level: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
    num_docs_in_coll: int = 0,
    summary: bool = True,
    debug_query: str | None = None,
    zscores: Mapping[tuple[str, str], tuple[float, float]] | None = None,
    order: str | None = None,
    rel_format: str = "qrels",
) -> list[tuple[str, TrecRun | TrecEvalError]]:
    """What trec_eval prints for each run of a run frame, as if each were its own file.

    Every system of ``runs`` is one run (one trec_eval call); they are aligned and
    evaluated together (one pass over all rows), with each run's own topics, documents and
    ``-c``/``-M``/``-J`` semantics.

    Parameters
    ----------
    runs : pandas.DataFrame
        ``system, topic, doc, score`` ([`irframe.io.read_runs`][irframe.io.read_runs] with a name per file).
        Irframe measure strings in ``measures`` see every system: those that depend on the
        other systems (rarity, ``LR``) differ from one call per run.
    qrels : pandas.DataFrame
        As [`irframe.read_qrels`][irframe.io.read_qrels] returns them.
    measures : sequence of str
        ``-m`` arguments: trec_eval families/nicknames with parameters (``P.5,10``,
        ``all_trec``) or irframe measure strings (printed as given, after trec_eval's).
        Empty: ``official``.
    run_ids : mapping, optional
        System → the run id to print (default: the system name).
    version : {"9.0.8", "10.0"}
        Whose behaviour to reproduce (10.0 also orders by float64 scores).
    per_topic, complete, rel_level, depth, judged_only, num_docs_in_coll, summary
        trec_eval's ``-q``, ``-c``, ``-l``, ``-M``, ``-J``, ``-N``, and not ``-n``.
    debug_query : str, optional
        Evaluate this topic only (trec_eval ``-D level.qid``).
    zscores : mapping, optional
        From [`read_zscores`][irframe.treceval.read_zscores] (``-Z``).
    order : str, optional
        Document order; default ``"trec_eval"`` for 9.0.8, ``"trec_eval10"`` for 10.0.
    rel_format : {"qrels", "qrels_jg", "prefs", "qrels_prefs"}
        ``qrels_jg`` (trec_eval ``-R qrels_jg``): ``qrels`` has a ``jg`` column (judgment
        groups, [`irframe.read_qrels`][irframe.io.read_qrels] ``kind="jg"``); the ``*_avgjg`` measures evaluate the
        run against each group's judgments and average over the groups of the topic.
        ``prefs`` / ``qrels_prefs``: ``qrels`` holds preference judgments (``topic, jg, jsg,
        doc, rel`` from [`irframe.io.read_prefs`][irframe.io.read_prefs], or ``topic, jg, doc, rel`` from
        ``read_qrels(kind="jg")``) for the ``prefs_*`` measures ([`irframe.prefs`][irframe.prefs]).

    Returns
    -------
    list of (system, TrecRun or TrecEvalError)
        In system order (sorted by code point): ``TrecRun.lines()`` are the lines as data,
        ``TrecRun.text()`` the text trec_eval prints; a run trec_eval would stop on holds
        the error (message and exit status) instead.

    Raises
    ------
    TrecEvalError
        The errors of every run alike: an unknown or malformed measure, a measure the
        relevance format cannot give.

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> two = pd.concat([runs.assign(system="a"), runs[runs.topic != "303"].assign(system="b")])
    >>> [(s, [round(x.value, 4) for x in r.lines()]) for s, r in trec_eval_runs(two, qrels, ["map"])]
    [('a', [0.1785]), ('b', [0.2249])]
    >>> trec_eval_runs(two, qrels, ["map"])[1][1].text()
    'map                   \\tall\\t0.2249\\n'

    (``b`` retrieved for topics 301 and 302 only: the mean of their AP, 0.0324 and 0.4175.)
    """
    from .align import align
    from .errors import DuplicateError

    values, extras, refusal = _request(measures, version, rel_format)
    qrels, jg_qrels, prefs = _rel_info(qrels, rel_format)
    qrels_topics = _qrels_topics(qrels)
    run_systems = _distinct(runs["system"])
    systems = sorted({str(s) for s in run_systems}, key=_utf8)
    # -c averages over every qrels topic and counts num_rel over them, even with -D's one topic
    all_qrels, n_qrels_topics = qrels, len(qrels_topics)
    system_values = {str(s): s for s in run_systems}
    if debug_query is not None:
        runs = runs[runs["topic"].astype(str) == debug_query]
        qrels = qrels[qrels["topic"].astype(str) == debug_query]
        qrels_topics = [t for t in qrels_topics if t == debug_query]
    run_topics = _topics_by_system(runs, systems, set(qrels_topics))
    errors = {
        s: _topic_error(version, complete, qrels_topics, rt)
        for s, rt in zip(systems, run_topics, strict=True)
    }
    # 10.0 -q prints the topics before the qrels topic the run lacks, then stops
    printed_before = {
        s: qrels_topics[: min(i for i, t in enumerate(qrels_topics) if t not in rt)]
        for s, rt in zip(systems, run_topics, strict=True)
        if per_topic and getattr(errors[s], "status", None) == 4  # (None: no error)
    }
    printed_before = {s: ts for s, ts in printed_before.items() if ts}
    if refusal is not None:  # a family refusing -R's format stops on the first topic evaluated,
        for s, rt in zip(
            systems, run_topics, strict=True
        ):  # unless the run has none or 10.0 first meets a missing one
            err = errors[s]
            if err is None or (err.status == 4 and qrels_topics[0] in rt):
                errors[s] = TrecEvalError(refusal, 4)
                printed_before.pop(s, None)
    labels = list(
        dict.fromkeys([v.measure for v in values if v.kind in ("float", "long", "gm")] + extras)
    )
    options: dict[str, Any] = {
        "order": order or ("trec_eval10" if version == "10.0" else "trec_eval"),
        "depth": depth,
        "judged_only": judged_only,
        "complete": complete,
    }
    run_docs: Mapping[tuple[str, str], str] = {}
    q_docs: Mapping[str, str] = {}
    base_errors, base_printed, base_runs = errors, printed_before, runs
    deduplicated = False
    while True:  # twice at most: again without the duplicates when alignment finds some
        errors, printed_before = dict(base_errors), dict(base_printed)
        if rel_format == "qrels":
            _first_stops(
                errors,
                printed_before,
                values,
                qrels,
                qrels_topics,
                systems,
                run_topics,
                run_docs,
                q_docs,
                version,
                complete,
                per_topic,
            )
        if all(errors.values()) and not printed_before:
            if rel_format == "qrels" and not deduplicated:  # an earlier topic may hold a duplicate
                deduplicated = True
                run_docs, q_docs, base_runs, qrels = _duplicates(base_runs, qrels, depth, version)
                if run_docs or q_docs:
                    continue
            return [(s, e) for s in systems if (e := errors[s]) is not None]  # (all are)
        # 10.0 -c evaluates a qrels topic the run lacks with a stand-in ranking of one document
        stand_in = (
            {
                s: [t for t in qrels_topics if t not in rt]
                for s, rt in zip(systems, run_topics, strict=True)
                if errors[s] is None or s in printed_before
            }
            if version == "10.0" and complete
            else {}
        )
        runs = _with_stand_in(base_runs, qrels, stand_in, system_values)
        try:
            aligned = align(runs, qrels, **options)
            break
        except DuplicateError:
            if rel_format != "qrels" or deduplicated:
                raise
            deduplicated = True
            # trec_eval stops at the first evaluated topic holding a duplicate (checked only now:
            # alignment finds them at no extra cost)
            run_docs, q_docs, base_runs, qrels = _duplicates(base_runs, qrels, depth, version)
    cube_labels = [lab for lab in labels if not lab.startswith("relstring")]
    table, aggs = _measure_table(
        aligned,
        runs,
        qrels,
        jg_qrels,
        prefs,
        cube_labels,
        rel_level=rel_level,
        num_docs_in_coll=num_docs_in_coll,
        **options,
    )
    undefined = (
        _zero_by_zero(aligned, cube_labels, rel_level)
        if jg_qrels is None and prefs is None
        else None
    )
    col = {lab: j for j, lab in enumerate(cube_labels)}
    strings = _relstrings(aligned, values)
    p = _printing(
        values,
        extras,
        aggs,
        all_qrels,
        per_topic=per_topic,
        summary=summary,
        complete=complete,
        zscores=zscores,
    )
    tindex = {str(t): i for i, t in enumerate(aligned.topics)}
    sindex = {str(s): i for i, s in enumerate(aligned.systems)}
    out: list[tuple[str, TrecRun | TrecEvalError]] = []

    def run(s: str, topics: list[str], n_q: int, printing: _Printing) -> TrecRun:
        si, rows = sindex[s], [tindex[t] for t in topics]
        bogus = set(stand_in.get(s, ()))
        mask = np.array([t in bogus for t in topics], dtype=bool) if bogus else None
        per, sums = _printed_values(
            printing,
            table[si],
            col,
            rows,
            topics,
            None if undefined is None else undefined[si],
            mask,
        )
        run_strings = {
            name: [
                by.get((si, r), "") if not (bogus and name == "relstring" and t in bogus) else ""
                for r, t in zip(rows, topics, strict=True)
            ]
            for name, by in strings.items()
        }
        return TrecRun(printing, per, sums, topics, run_strings, n_q, (run_ids or {}).get(s, s))

    for s, rt in zip(systems, run_topics, strict=True):  # a loop over runs (files), not over rows
        err = errors[s]
        if err is not None:
            if s in printed_before:
                ts = printed_before[s]
                err = errors[s] = TrecEvalError(
                    str(err),
                    err.status,
                    run(s, ts, len(ts), replace(p, summary=False)).text(),
                )
            out.append((s, err))
            continue
        # 10.0 prints every qrels topic it evaluates (-c: with an empty ranking); 9.0.8 the run's
        topics = [t for t in qrels_topics if t in tindex and (version == "10.0" or t in rt)]
        if not topics:
            out.append(
                (s, TrecEvalError("trec_eval: No queries with both results and relevance info", 7))
            )
            continue
        out.append((s, run(s, topics, n_qrels_topics if complete else len(topics), p)))
    return out


def trec_eval_values(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    measures: Sequence[str] = (),
    *,
    version: str = "9.0.8",
    per_topic: bool = False,
    complete: bool = False,
    rel_level: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
    num_docs_in_coll: int = 0,
    summary: bool = True,
    debug_query: str | None = None,
    zscores: Mapping[tuple[str, str], tuple[float, float]] | None = None,
    order: str | None = None,
    run_id: str | None = None,
    rel_format: str = "qrels",
) -> list[TrecLine]:
    """The lines trec_eval prints for one run (as data, in trec_eval's order):
    [`trec_eval_run`][irframe.treceval.trec_eval_run]'s ``lines()``.

    Parameters
    ----------
    run : pandas.DataFrame
        Every row belongs to the one run (as every line of a trec_eval results file,
        whatever its tag).
    qrels, measures, version, per_topic, complete, rel_level, depth, judged_only, num_docs_in_coll, summary, debug_query, zscores, order, rel_format
        As for [`trec_eval_runs`][irframe.treceval.trec_eval_runs].
    run_id : str, optional
        The run id to print (default: the system name of the run frame's last row, as
        trec_eval prints the tag of the file's last line).

    Returns
    -------
    list of TrecLine

    Raises
    ------
    TrecEvalError
        With trec_eval's message and exit status (7: no topic has both results and
        relevance information; 4: 10.0 and a qrels topic missing from the run without -c).

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> [(x.name, round(x.value, 4)) for x in trec_eval_values(runs, qrels, ["map", "P.5"])]
    [('map', 0.1785), ('P_5', 0.2667)]
    """
    return trec_eval_run(
        run,
        qrels,
        measures,
        run_id=run_id,
        version=version,
        per_topic=per_topic,
        complete=complete,
        rel_level=rel_level,
        depth=depth,
        judged_only=judged_only,
        num_docs_in_coll=num_docs_in_coll,
        summary=summary,
        debug_query=debug_query,
        zscores=zscores,
        order=order,
        rel_format=rel_format,
    ).lines()


def trec_eval_run(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    measures: Sequence[str] = (),
    *,
    run_id: str | None = None,
    **options: Any,
) -> TrecRun:
    """[`trec_eval_runs`][irframe.treceval.trec_eval_runs] for one run (every row of ``run``, as trec_eval reads one file):
    its [`TrecRun`][irframe.treceval.TrecRun].

    Parameters
    ----------
    run : pandas.DataFrame
        Every row belongs to the one run (as every line of a trec_eval results file).
    qrels, measures
        As for [`trec_eval_runs`][irframe.treceval.trec_eval_runs].
    run_id : str, optional
        The run id to print (default: the system name of the run frame's last row, as
        trec_eval prints the tag of the file's last line).
    **options
        The other keywords of [`trec_eval_runs`][irframe.treceval.trec_eval_runs] (``version``, ``per_topic``, ...).

    Raises
    ------
    TrecEvalError
        With trec_eval's message and exit status.

    Returns
    -------
    TrecRun
        Its ``text()`` is trec_eval's output.

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> trec_eval_run(runs, qrels, ["map"]).text()
    'map                   \\tall\\t0.1785\\n'
    """
    one, default_id = one_run(run)
    ((_, result),) = trec_eval_runs(
        one, qrels, measures, run_ids={"run": default_id if run_id is None else run_id}, **options
    )
    if isinstance(result, TrecEvalError):
        raise result
    return result


def one_run(run: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """A run frame as one run, the way trec_eval reads a file: every row in system ``"run"``
    whatever its tag; and the run id trec_eval prints (the system of the last row).

    Parameters
    ----------
    run : pandas.DataFrame
        A run frame.

    Returns
    -------
    (pandas.DataFrame, str)
        The frame with one system ``"run"`` and the run id.

    Examples
    --------
    >>> import pandas as pd
    >>> frame, run_id = one_run(pd.DataFrame({"system": ["a", "b"], "topic": "1", "doc": ["x", "y"]}))
    >>> frame.system.tolist(), run_id
    (['run', 'run'], 'b')
    """
    run_id = str(run["system"].iloc[-1]) if len(run) else ""
    frame = pd.DataFrame(
        {
            "system": pd.Categorical.from_codes(np.zeros(len(run), np.int8), ["run"]),
            **{c: run[c] for c in run.columns if c != "system"},
        },
        copy=False,
    )
    return frame, run_id
