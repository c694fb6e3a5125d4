"""Where irframe and a peer tool read the same input differently, say so when it matters.

Called by [irframe.evaluate][] between the alignment and the kernels (never on a part of a
bigger frame, see ``irframe.evaluate.Whole``), on what the alignment already knows, so the
checks cost a few array reductions:

* a diversity measure on qrels without subtopics: an [InputError][irframe.errors.InputError]
  whose advice names the caller's column that holds them (ir_measures keeps diversity
  subtopics in ``iteration``);
* a relevance level above every grade of the qrels (``P(rel=2)@10`` on binary qrels): every
  document is non-relevant, so the measure is 0 (or NaN) everywhere -- a
  [DegenerateMeasureWarning][irframe.errors.DegenerateMeasureWarning];
* ``Accuracy`` on a ranking that retrieves nothing relevant (in its top k): 0 here, left
  out of the mean by ir_measures -- a [ConventionWarning][irframe.errors.ConventionWarning]
  with the expression that averages as ir_measures does;
* qrels topics a system has no ranking for, without ``complete=True``: trec_eval and
  pytrec_eval leave them out (irframe's default), ir_measures scores them 0 and ranx refuses
  the run (``make_comparable=True`` scores them 0) -- a
  [ConventionWarning][irframe.errors.ConventionWarning] naming both and ``complete=True``.

docs/coming-from.md lists every such difference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .errors import ConventionWarning, DegenerateMeasureWarning, InputError, warn
from .schema import (
    DEFAULT_SYSTEM,
    QRELS_ALIASES,
    as_frame,
    collect_runs,
    empty_rankings,
    is_run_collection,
    peer_data,
    resolve_roles,
    user_column,
)

__all__ = ["check_aligned", "keep_present", "prepare_runs"]


def check_aligned(
    aligned: Any,
    specs: list,
    rel_level: float,
    qrels: Any,
    qrels_columns: Any,
    complete: bool,
) -> None:
    """Raise or warn (see the module docstring) before ``specs`` are computed on ``aligned``."""
    if not aligned.has_subtopics:
        needs = [m.label for m in specs if "subtopics" in m.definition.needs]
        if needs:
            raise subtopic_error(needs, qrels, qrels_columns)
    grades = aligned.qrels_grades_all
    top = float(np.max(grades)) if grades is not None and len(grades) else None
    if top is not None:
        _check_levels(specs, rel_level, top, grades)
    _check_accuracy(aligned, specs, rel_level)
    _check_swapped(aligned)
    if not complete:
        _check_missing_topics(aligned, qrels, qrels_columns)


def _check_swapped(aligned: Any) -> None:
    """Grades that are not whole numbers beside scores that all are: the arguments in ranx's
    and ir_measures' order (qrels first), a ConventionWarning (fractional grades are legal)."""
    grades = aligned.qrels_grades_all
    frac = grades[np.isfinite(grades) & (grades != np.floor(grades))]
    if not len(frac):
        return
    scores = aligned.row_score
    if len(scores) and np.isfinite(scores).all() and (scores == np.floor(scores)).all():
        warn(
            f"the qrels' grades are not whole numbers (e.g. {frac[0]:g}) while every score "
            "of the run is one: were the arguments swapped? irframe takes the runs first, "
            "then the qrels (irframe.evaluate(run, qrels, measures)); ranx.evaluate and "
            "ir_measures take the qrels first.",
            ConventionWarning,
        )


def _check_accuracy(aligned: Any, specs: list, rel_level: float) -> None:
    """ir_measures' Accuracy leaves a ranking that retrieves nothing relevant (in its top k)
    out of its mean, where irframe scores it 0: a ConventionWarning when a ranking does."""
    for m in specs:
        if m.definition.name != "Accuracy":
            continue
        level = m.param("rel") if m.param("rel") is not None else rel_level
        hit = np.nan_to_num(aligned.row_rel, nan=-np.inf) >= level
        if m.cutoff is not None:
            hit &= aligned.row_rank <= m.cutoff
        found = np.bincount(aligned.row_group[hit], minlength=aligned.n_groups) > 0
        none = int(np.count_nonzero(~found))
        if not none:
            continue
        rel = f"rel={level:g}"
        count = f"NumRelRet({rel})" + (f"@{m.cutoff}" if m.cutoff is not None else "")
        warn(
            f"{m.label}: {none} of {aligned.n_groups} (system, topic) ranking(s) retrieve "
            f"nothing relevant{'' if m.cutoff is None else f' in their top {m.cutoff}'} and "
            "score 0 here; ir_measures leaves them out of its mean. To average as ir_measures "
            f"does, evaluate {count!r} too and average {m.label!r} where it is > 0: "
            f"cube.sel(measure={m.label!r}).where(cube.sel(measure={count!r}) > 0)"
            ".mean('topic').",
            ConventionWarning,
        )


def subtopic_error(labels: list, qrels: Any, qrels_columns: Any) -> InputError:
    """Diversity measures on qrels without a subtopic role: the advice names the column."""
    cols: list = []
    try:
        frame = as_frame(qrels, "qrels")
        cols = [str(c) for c in frame.columns]
        used = {c for c in resolve_roles(frame, qrels_columns, "qrels").values() if c}
    except Exception:  # the frame was usable for alignment; only the advice is at stake
        frame, used = None, set()
    free = [c for c in cols if c not in used]
    guess = next((c for c in ("iteration", "subtopic_id", "aspect", "intent") if c in free), None)
    if guess is not None and frame is not None and frame[guess].nunique() < 2:
        guess = None  # one value (trec_eval's constant "0" iteration): no subtopics there
    if guess is not None:
        advice = (
            f"column {guess!r} looks like it holds them (ir_measures keeps diversity "
            f"subtopics in 'iteration'): pass qrels_columns={{'subtopic': {guess!r}}}"
        )
    else:
        advice = (
            "read diversity qrels with irframe.read_qrels(path, kind='diversity'), or name "
            "the subtopic column of a frame with qrels_columns={'subtopic': <column>}"
        )
    return InputError(
        f"measure(s) {labels} need diversity qrels (a subtopic per judgment), but the qrels "
        f"have no subtopic column (columns: {', '.join(cols) or 'unknown'}; recognised names: "
        f"{', '.join(QRELS_ALIASES['subtopic'])}); {advice}"
    )


def _check_levels(specs, rel_level, top, grades) -> None:
    shown = ", ".join(f"{g:g}" for g in np.unique(grades)[:8])
    if rel_level > top:
        warn(
            f"rel_level={rel_level:g} is above every grade of the qrels ({shown}): no document "
            "is relevant, so binary measures are 0 (or NaN) on every topic. Use a rel_level "
            "the qrels reach (trec_eval -l).",
            DegenerateMeasureWarning,
        )
        return
    high = [
        m.label
        for m in specs
        if "rel" in m.definition.params and m.param("rel") is not None and m.param("rel") > top
    ]
    if high:
        warn(
            f"{high}: the measure's rel= is above every grade of the qrels ({shown}), so no "
            "document counts as relevant and the value is 0 (or NaN) on every topic. Use a "
            "level the qrels reach, or qrels with graded judgments.",
            DegenerateMeasureWarning,
        )


def _qrels_topic_count(qrels: Any, qrels_columns: Any) -> int | None:
    if not isinstance(qrels, pd.DataFrame):
        if isinstance(qrels, dict):
            return len(qrels)  # {topic: {doc: grade}}
        return None
    col = resolve_roles(qrels, qrels_columns, "qrels").get("topic")
    if col is None:
        return None
    from ._ids import _encode_one

    try:  # the ids as alignment reads them (arrow string_view, categories ...), by runs
        return len(_encode_one(qrels[col], runs=True)[1])
    except (TypeError, ValueError):  # ids alignment refuses: it names them later
        return None


def _check_missing_topics(aligned, qrels, qrels_columns) -> None:
    n_q = _qrels_topic_count(qrels, qrels_columns)
    if n_q is None:
        return
    n_sys = len(aligned.systems)
    missing = n_q * n_sys - aligned.n_groups
    if missing <= 0:
        return
    per = np.bincount(aligned.group_system, minlength=n_sys)
    worst = int(np.argmin(per))
    name = user_column(qrels, "topic") if isinstance(qrels, pd.DataFrame) else "topic"
    warn(
        f"{missing} (system, qrels topic) pair(s) have no ranking (e.g. system "
        f"{aligned.systems[worst]!r} ranks {int(per[worst])} of the qrels' {n_q} {name}s). "
        "They are not evaluated (NaN cells, or no topic row when no system ranks the topic: "
        "trec_eval's and pytrec_eval's convention, irframe's default); ir_measures scores them 0 and ranx refuses such a run "
        "(make_comparable=True scores them 0). Pass complete=True (trec_eval -c) to score "
        "them 0.",
        ConventionWarning,
    )


# ------------------------------------------------------------------ runs given as peers give them
def prepare_runs(runs: Any, columns: Any, system: Any) -> tuple[Any, Any, Any, dict, Any]:
    """``(runs, columns, system, empty, systems)`` for [irframe.evaluate][]: several runs
    (``{name: frame}``, a list of frames, ``{name: {topic: {doc: score}}}``: ranx's
    ``compare``, PyTerrier's ``pt.Experiment``) become one long frame and ``systems`` their
    names in input order (else None); ``empty`` maps a system to its topics given with an
    empty ranking (``{topic: {}}``: present, retrieved nothing)."""
    runs = _peer_runs(runs)
    if is_run_collection(runs):
        frame, cols, empty = collect_runs(runs, columns, system)
        if not len(frame) and empty:
            raise _nothing_retrieved(sum(map(len, empty.values())))
        names = list(dict.fromkeys(str(s) for s in pd.unique(frame["system"])))
        hollow = sorted(set(empty) - set(names))
        if hollow:  # a system without a row has no place in the cube: never dropped silently
            raise InputError(
                f"run(s) {hollow} retrieve nothing: every ranking is empty ({{topic: {{}}}}), so "
                "the system has no row to evaluate (pytrec_eval scores such a run 0 on every "
                "measure). Leave it out of the runs, or give it its retrieved documents."
            )
        return frame, cols, None, empty, names
    hollow = empty_rankings(runs)
    if hollow and len(hollow) == len(runs):
        raise _nothing_retrieved(len(hollow))
    return runs, columns, system, ({system or DEFAULT_SYSTEM: hollow} if hollow else {}), None


def _nothing_retrieved(n: int) -> InputError:
    """Every ranking of the runs is ``{}``: a system with no row has no place in a cube."""
    return InputError(
        f"every ranking of the run(s) is empty ({n} {{topic: {{}}}} ranking(s)): nothing was "
        "retrieved, so there is nothing to evaluate (pytrec_eval scores such a run 0 on every "
        "measure). A topic given as {} next to topics with documents is scored 0."
    )


def _peer_runs(runs: Any) -> Any:
    """Runs given as a peer tool's objects, as the dicts irframe reads with their names: a
    named ranx ``Run`` is ``{name: {topic: {doc: score}}}``, and a list of ranx runs or a dict
    of them ``{name: ...}`` (a list names each by its name, or as ranx's ``compare`` does,
    ``run_1``, ``run_2``, ... by position); trectools' ``TrecRun`` is its frame.  Anything
    else is returned as it is."""
    one = peer_data(runs, "run")
    if one is not None:
        name, data = one
        return {name: data} if name is not None else data
    if isinstance(runs, (list, tuple)) and runs:
        peers = [peer_data(r, "run") for r in runs]
        ranx = [p for p in peers if p is not None and not isinstance(p[1], pd.DataFrame)]
        if len(ranx) == len(peers):
            names = [n if n is not None else f"run_{i + 1}" for i, (n, _) in enumerate(ranx)]
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:  # (ranx's compare keeps the last of them; nothing is dropped here)
                raise InputError(
                    f"ranx runs named {', '.join(map(repr, twice))} twice: a cube has one "
                    "system of a name. Rename one (run.name = 'other') or pass "
                    "{name: run, ...}."
                )
            return {n: d for n, (_, d) in zip(names, ranx, strict=True)}
        if any(p is not None for p in peers):  # trectools runs (their frames) among frames
            return [r if p is None else p[1] for r, p in zip(runs, peers, strict=True)]
    if isinstance(runs, Mapping) and runs:
        peers = [peer_data(r, "run") for r in runs.values()]
        if any(p is not None for p in peers):  # the key names each run (not its tag column)
            return {
                k: r
                if p is None
                else (
                    p[1].drop(columns="system", errors="ignore")
                    if isinstance(p[1], pd.DataFrame)
                    else p[1]
                )
                for (k, r), p in zip(runs.items(), peers, strict=True)
            }
    return runs


def keep_present(cube: Any, runs: Any, empty: dict, system: Any) -> Any:
    """A cube evaluated with ``complete=True`` restricted to the (system, topic) pairs the input
    names: ranked ones and the empty rankings (0, as trec_eval -c scores them); other cells NaN,
    and topics no system names dropped -- ``complete=False`` but for the empty rankings."""
    systems = [str(s) for s in cube.system.values]
    topics = [str(t) for t in cube.topic.values]
    s_at = {s: i for i, s in enumerate(systems)}
    t_at = {t: i for i, t in enumerate(topics)}
    mask = np.zeros((len(systems), len(topics)), bool)
    if _is_nested(runs):
        name = system or DEFAULT_SYSTEM
        pairs = [(name, str(t)) for t in runs]
    else:
        pairs = [
            (str(s), str(t))
            for s, t in runs[["system", "topic"]].drop_duplicates().itertuples(index=False)
        ]
        pairs += [(s, t) for s, ts in empty.items() for t in ts]
    for s, t in pairs:
        if s in s_at and t in t_at:
            mask[s_at[s], t_at[t]] = True
    import xarray as xr

    keep = xr.DataArray(
        mask, dims=("system", "topic"), coords={"system": cube.system, "topic": cube.topic}
    )
    out = cube.where(keep).sel(topic=cube.topic.values[mask.any(axis=0)])
    out.attrs = dict(cube.attrs)
    return out


def _is_nested(x: Any) -> bool:
    return isinstance(x, dict) and all(isinstance(v, dict) for v in x.values())
