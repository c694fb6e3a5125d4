"""trec_eval's evaluation procedure on one run: which topics, which values, which summary.

:func:`trec_eval_values` reproduces what the ``trec_eval`` program computes for one run
file and one qrels file, as data (the command line formats it byte for byte).  The
numbers come from irframe's measures (:func:`irframe.evaluate_aligned`); this module
adds only trec_eval's bookkeeping:

- **topics**: 9.0.8 evaluates the run's topics that have qrels, in ``strcmp`` order; 10.0
  walks the qrels topics and stops with "result qid 'X' not found in qrels" (exit 4)
  when the run lacks one, unless ``-c``, which gives such a topic an empty ranking (10.0
  also prints its per-topic lines; 9.0.8 only counts it in the averages).
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
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import IrframeError

__all__ = ["TrecEvalError", "TrecLine", "trec_eval_values", "read_zscores"]

MISSING_ZSCORE = -1000000.0


class TrecEvalError(IrframeError, ValueError):
    """An error trec_eval reports with this message and exit status."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


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


def read_zscores(path) -> dict[tuple[str, str], tuple[float, float]]:
    """Read a trec_eval ``-Z`` file: lines ``qid measure mean stddev`` → {(qid, measure): (mean, sd)}."""
    from .measures.trec_eval_syntax import c_atof
    out: dict[tuple[str, str], tuple[float, float]] = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 4:
                raise TrecEvalError(f"trec_eval.get_zscores: Malformed line {lineno} in {path}: {line!r}", 2)
            out.setdefault((parts[0], parts[1]), (c_atof(parts[2]), c_atof(parts[3])))
    return out


def _zscore(value: float, ms: tuple[float, float] | None) -> float:
    if ms is None:
        return MISSING_ZSCORE
    mean, sd = ms
    if sd:
        return (value - mean) / sd
    return 0.0 if value == mean else MISSING_ZSCORE


def _seq_sum(values: np.ndarray) -> float:
    """Left-to-right float sum (trec_eval's ``+=`` in topic order)."""
    total = 0.0
    for v in values.tolist():
        total += v
    return total


def trec_eval_values(qrels: pd.DataFrame, run: pd.DataFrame, measures: Sequence[str] = (), *,
                     version: str = "9.0.8", per_topic: bool = False, complete: bool = False,
                     rel_level: int = 1, depth: int | None = None, judged_only: bool = False,
                     num_docs_in_coll: int = 0, summary: bool = True, debug_query: str | None = None,
                     zscores: Mapping[tuple[str, str], tuple[float, float]] | None = None,
                     order: str | None = None, run_id: str | None = None,
                     rel_format: str = "qrels") -> list[TrecLine]:
    """The lines trec_eval prints for one run (as data, in trec_eval's order).

    Parameters
    ----------
    qrels, run : pandas.DataFrame
        Frames as :func:`irframe.read_qrels` / :func:`irframe.read_run` return them; the run
        holds one system.
    measures : sequence of str
        ``-m`` arguments: trec_eval families/nicknames with parameters (``P.5,10``,
        ``all_trec``) or irframe measure strings (printed as given, after trec_eval's).
        Empty: ``official``.
    version : {"9.0.8", "10.0"}
        Whose behaviour to reproduce (10.0 also orders by float64 scores).
    per_topic, complete, rel_level, depth, judged_only, num_docs_in_coll, summary
        trec_eval's ``-q``, ``-c``, ``-l``, ``-M``, ``-J``, ``-N``, and not ``-n``.
    debug_query : str, optional
        Evaluate this topic only (trec_eval ``-D level.qid``).
    zscores : mapping, optional
        From :func:`read_zscores` (``-Z``).
    order : str, optional
        Document order; default ``"trec_eval"`` for 9.0.8, ``"trec_eval10"`` for 10.0.
    run_id : str, optional
        The run id to print (default: the system name of the run frame's last row).
    rel_format : {"qrels", "qrels_jg", "prefs", "qrels_prefs"}
        ``qrels_jg`` (trec_eval ``-R qrels_jg``): ``qrels`` has a ``jg`` column (judgment
        groups, :func:`irframe.read_qrels` ``kind="jg"``); the ``*_avgjg`` measures evaluate the
        run against each group's judgments and average over the groups of the topic.
        ``prefs`` / ``qrels_prefs``: ``qrels`` holds preference judgments (``topic, jg, jsg,
        doc, rel`` from :func:`irframe.io.read_prefs`, or ``topic, jg, doc, rel`` from
        ``read_qrels(kind="jg")``) for the ``prefs_*`` measures (:mod:`irframe.prefs`).

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
    >>> [(x.name, round(x.value, 4)) for x in trec_eval_values(qrels, runs, ["map", "P.5"])]
    [('map', 0.1785), ('P_5', 0.2667)]
    """
    from .align import align
    from .evaluate import evaluate_aligned
    from .measures import parse_measure
    from .measures.trec_eval_syntax import expand, is_trec_request

    trec_req = [m for m in measures if is_trec_request(m, version)]
    extras = [m for m in measures if not is_trec_request(m, version)]
    for m in extras:           # unknown names fail like trec_eval's "illegal measure"
        try:
            parse_measure(m)
        except (IrframeError, ValueError) as e:
            name = m.partition(".")[0]
            raise TrecEvalError(f"trec_eval: illegal measure '{name}'\n{e}", 1) from None
    try:
        values = expand(trec_req, version) if (trec_req or not extras) else []
    except IrframeError as e:
        status = 1 if "illegal" in str(e) or "improper" in str(e) else 2
        msg = str(e) + ("\ntrec_eval: Cannot initialize measure" if status == 2 else "")
        raise TrecEvalError(msg, status) from None
    fmt_needs = {"qrels": "qrels", "qrels_jg": "qrels_jg", "prefs": "prefs", "qrels_prefs": "prefs"}[rel_format]
    wrong = [v.name for v in values if v.kind in ("float", "long", "gm", "relstring") and v.needs != fmt_needs]
    if wrong:
        raise TrecEvalError(f"trec_eval: Can't calculate measure '{wrong[0]}' with rel_info format "
                            f"'{rel_format}'", 4)
    jg_qrels = prefs = None
    if rel_format == "qrels_jg":
        jg_qrels = qrels
        qrels = qrels.drop(columns="jg").drop_duplicates(["topic", "doc"])
    elif fmt_needs == "prefs":
        prefs = qrels if "jsg" in qrels.columns else qrels.assign(jsg="0")[["topic", "jg", "jsg", "doc", "rel"]]
        qrels = prefs[["topic", "doc", "rel"]].drop_duplicates(["topic", "doc"])

    order = order or ("trec_eval10" if version == "10.0" else "trec_eval")
    run_topics = set(map(str, run["topic"].unique()))  # distinct values first: cheap on categoricals
    qrels_topics = sorted(set(map(str, qrels["topic"].unique())), key=lambda s: s.encode("utf-8"))
    if debug_query is not None:
        run = run[run["topic"].astype(str) == debug_query]
        qrels = qrels[qrels["topic"].astype(str) == debug_query]
        qrels_topics = [t for t in qrels_topics if t == debug_query]
    if version == "10.0" and not complete:
        for t in qrels_topics:
            if t not in run_topics:
                raise TrecEvalError(f"trec_eval: result qid '{t}' not found in qrels", 4)
    if not (run_topics & set(qrels_topics)) and not (complete and version == "10.0" and qrels_topics):
        raise TrecEvalError("trec_eval: No queries with both results and relevance info", 7)
    if run_id is None:
        run_id = str(run["system"].iloc[-1]) if len(run) else ""

    numeric = [v for v in values if v.kind in ("float", "long", "gm")]
    labels = list(dict.fromkeys([v.measure for v in numeric] + extras))
    aligned = align(run, qrels, order=order, depth=depth, complete=complete, judged_only=judged_only)
    cube_labels = [lab for lab in labels if not lab.startswith("relstring")]
    opts = {"rel_level": rel_level}
    if cube_labels and prefs is not None:
        from .prefs import prefs_values
        per_topic_prefs = prefs_values(prefs, run, [str(t) for t in aligned.topics], depth=depth,
                                       float32=order != "trec_eval10")
        data = np.array([[per_topic_prefs.get(str(t), {}).get(lab, 0.0) for lab in cube_labels]
                         for t in aligned.topics], dtype=np.float64).reshape(len(aligned.topics), len(cube_labels))
        col = {lab: j for j, lab in enumerate(cube_labels)}
        aggs = {lab: "sum" if lab.startswith("prefs_num") else "mean" for lab in cube_labels}
    elif cube_labels and jg_qrels is not None:
        data = _avg_over_judgment_groups(run, jg_qrels, cube_labels, aligned.topics, rel_level=rel_level,
                                         order=order, depth=depth, judged_only=judged_only, complete=complete)
        col = {lab: j for j, lab in enumerate(cube_labels)}
        aggs = {lab: "mean" for lab in cube_labels}
    elif cube_labels:
        needs_n = any(parse_measure(lab).definition.options for lab in cube_labels)
        extra_opts = {"num_docs_in_coll": num_docs_in_coll} if needs_n else {}
        cube = evaluate_aligned(aligned, cube_labels, **opts, **extra_opts)
        data = cube.values[0]  # (topic, measure); cube.isel would import dask.array (~1 s) when installed
        col = {lab: j for j, lab in enumerate(cube_labels)}
        aggs = dict(zip(cube_labels, cube.coords["aggregate"].values.tolist()))
    else:
        data, col, aggs = np.zeros((len(aligned.topics), 0)), {}, {}
    topics = [str(t) for t in aligned.topics]
    tindex = {t: i for i, t in enumerate(topics)}
    strings = {}
    for v in values:
        if v.kind == "relstring":
            from .measures.trec import relstrings
            strings[v.name] = dict(zip(topics, relstrings(aligned, v.measure)))

    # topics evaluated (and printed with -q)
    if version == "10.0":
        evaluated = [t for t in qrels_topics if t in tindex]
    else:
        evaluated = [t for t in qrels_topics if t in run_topics and t in tindex]
    n_eval = len(evaluated)
    n_q = len(qrels_topics) if complete else n_eval
    if n_eval == 0:
        raise TrecEvalError("trec_eval: No queries with both results and relevance info", 7)
    rows = [tindex[t] for t in evaluated]

    def zs(t, name, x):
        return _zscore(x, zscores.get((t, name))) if zscores is not None else x

    # per-topic matrix of printed values (after z-scores), one column per printed line
    printed: list[tuple[str, str, str | None]] = []   # (name, kind, label)
    for v in values:
        if v.kind in ("float", "long", "gm"):
            printed.append((v.name, v.kind, v.measure))
    for e in extras:
        printed.append((e, "extra_long" if aggs.get(e) == "sum" else
                        ("gm" if aggs.get(e) == "gmean" else "extra_float"), e))
    kind_of = {name: kind for name, kind, _ in printed}
    per = {}
    for name, kind, lab in printed:
        x = data[rows, col[lab]] if lab in col else np.zeros(len(rows))
        x = np.where(np.isnan(x), 0.0, x)
        if zscores is not None:
            x = np.array([zs(t, name, float(xi)) for t, xi in zip(evaluated, x)])
        per[name] = x

    lines: list[TrecLine] = []
    z = zscores is not None
    if per_topic:
        for i, t in enumerate(evaluated):
            for v in values:
                if v.kind in ("runid", "num_q", "gm"):
                    continue
                if v.kind == "relstring":
                    lines.append(TrecLine(v.name, t, strings[v.name].get(t, ""), "relstring"))
                    continue
                lines.append(TrecLine(v.name, t, float(per[v.name][i]), v.kind, z))
            for e in extras:
                if kind_of[e] != "gm":
                    lines.append(TrecLine(e, t, float(per[e][i]), kind_of[e], z))
    if not summary:
        return lines
    for name, kind in [(v.name, v.kind) for v in values] + [(e, kind_of[e]) for e in extras]:
        if kind == "runid":
            lines.append(TrecLine("runid", "all", run_id, "runid"))
            continue
        if kind == "num_q":
            lines.append(TrecLine("num_q", "all", float(n_q), "long", z))
            continue
        if kind == "relstring":
            continue
        x = per[name]
        if kind in ("long", "extra_long"):
            total = _seq_sum(x)
            if complete and name == "num_rel" and not z:
                total = float(_num_rel_all(qrels))
            lines.append(TrecLine(name, "all", total, kind, z))
        elif kind == "gm":
            total = _seq_sum(x)
            if complete:
                total += (n_q - n_eval) * math.log(1e-5)
            lines.append(TrecLine(name, "all", math.exp(total / n_q) if n_q else 0.0, "float", z))
        else:
            lines.append(TrecLine(name, "all", _seq_sum(x) / n_q if n_q else 0.0, kind, z))
    return lines


def _avg_over_judgment_groups(run: pd.DataFrame, jg_qrels: pd.DataFrame, labels: list[str], topics,
                              **options) -> np.ndarray:
    """Per topic (rows, in ``topics`` order) and measure: the mean over the topic's judgment
    groups of the measure computed with that group's judgments (trec_eval's ``*_avgjg``:
    summed over the groups in order, divided by their number when there are several)."""
    from .evaluate import evaluate
    index = pd.Index([str(t) for t in topics])
    total = np.zeros((len(index), len(labels)))
    count = np.zeros(len(index))
    groups = sorted(jg_qrels["jg"].astype(str).unique(), key=lambda s: s.encode("utf-8"))
    for jg in groups:   # a loop over judgment groups (a handful), not over topics
        sub = jg_qrels[jg_qrels["jg"].astype(str) == jg].drop(columns="jg")
        cube = evaluate(run, sub, labels, **options)
        rows = index.get_indexer([str(t) for t in cube.coords["topic"].values])
        ok = rows >= 0
        total[rows[ok]] += np.nan_to_num(cube.values[0][ok])
        count += index.isin(sub["topic"].astype(str).unique())
    return total / np.where(count > 1, count, 1)[:, None]


def _num_rel_all(qrels: pd.DataFrame) -> int:
    """trec_eval -c's num_rel: qrels lines with (integer-truncated) grade > 0, every topic."""
    rel = pd.to_numeric(qrels["rel"]).to_numpy(dtype=np.float64)
    return int((np.trunc(rel) > 0).sum())
