"""Bounds on every score from the unjudged documents a ranking retrieved.

A measure value computed from incomplete judgments treats every unjudged document as
non-relevant.  [`irframe.evaluate`][irframe.evaluate] with ``bounds=True`` gives, for each
(system, topic, measure):

``low``
    the value when every unjudged retrieved document is non-relevant (today's value);
``high``
    the value when every one of them is relevant at a stated grade (the largest grade of
    the qrels by default, at least ``rel_level``);
``residual``
    ``high - low``.

The labelling is *per ranking*: the unjudged documents of system s on topic t are
labelled, nothing else, so a system's bounds never depend on which other systems are
in the frame.  The definitions per family (see docs/uncertainty.md):

* rank-based (P, Success, RR, NumRelRet, ERR, RBP): the unjudged documents take the grade;
* recall-based (AP, R, Rprec, nDCG's ideal, bpref, infAP, IPrec, NumRel): the labelled
  documents also join the recall base (and the ideal ranking) of that (system, topic);
* diversity: an unjudged document is relevant, at the grade, to *every* subtopic of its topic;
* RBP and the C/W/L measures: the positions after the end of the ranking are unjudged too
  (up to the cutoff/depth, for RBP without cutoff to infinity), as trec_eval 10's
  ``rbp_resid`` and cwl_eval's residuals count them;
* measures of the judgments themselves, not of relevance (Judged, unj, rbp_resid, NumRet)
  keep ``high = low``.

``low``/``high`` are the values at two labellings.  For measures that are monotone in
every unjudged label (``bound_exact`` is True: P, Success, RR, NumRelRet, NumRel, RBP,
ERR, set recall, and the label-free ones) they are the exact minimum and maximum over all
labellings of the unjudged retrieved documents with {non-relevant, grade}.  For the
others (AP, nDCG, R@k, Rprec, ...) a relevant document far down the ranking can *lower*
the score (it enlarges the recall base more than it adds), so the true extremes may lie
outside [low, high]: ``high`` is then the all-relevant value, not a maximum.

Each measure declares how this applies (``MeasureDef(bounds=...)``: ``"exact"``,
``"exact_uncut"``, ``"approximate"``, ``"label_free"`` or ``"none"``); measures whose value
depends on other systems (rarity, metric lexirecall) declare ``"none"`` and raise an error
naming the measure.

Examples
--------
>>> import pandas as pd
>>> import irframe as irf
>>> run = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a", "b", "c"], "score": [3., 2, 1]})
>>> qrels = pd.DataFrame({"topic": "1", "doc": ["a", "z"], "rel": [1, 1]})
>>> b = irf.evaluate(run, qrels, ["P@3", "R@3"], bounds=True)
>>> b.sel(system="s", topic="1", measure="R@3").values.round(3).tolist()   # low, high, residual
[0.5, 0.75, 0.25]
>>> b.bound_exact.values.tolist()   # R@k: a relevant unjudged doc below k lowers it
[True, False]
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ..align import Aligned
from ..errors import MeasureParamError, OptionError
from .ties import expand_ranges

__all__ = [
    "BOUNDS",
    "bound_exact",
    "bound_grade",
    "check_bounds_supported",
    "label_free",
    "labelled",
]

BOUNDS = ("low", "high", "residual")


def bound_grade(aligned: Aligned, grade: float | None, rel_level: float = 1) -> float:
    """The grade given to unjudged documents: ``grade``, or the largest grade of the qrels
    (at least ``rel_level``, so that the documents count as relevant)."""
    if grade is None:
        g = aligned.qrels_grades_all
        grade = max(float(np.nanmax(g)) if g is not None and len(g) else rel_level, rel_level)
    if (
        isinstance(grade, bool)
        or not isinstance(grade, (int, float, np.integer, np.floating))
        or not np.isfinite(grade)
    ):
        raise OptionError(
            f"unjudged_grade must be a finite number (a relevance grade), got {grade!r}"
        )
    return float(grade)


def bound_exact(measure) -> bool:
    """Whether low/high of ``measure`` (a parsed [`Measure`][irframe.measures.Measure]) are the
    exact minimum/maximum over labellings (its definition's ``bounds=``)."""
    kind = measure.definition.bounds
    return kind in ("exact", "label_free") or (kind == "exact_uncut" and measure.cutoff is None)


def label_free(measure) -> bool:
    """Measures of the judgments, not of relevance (Judged, unj, rbp_resid, NumRet): high = low."""
    return measure.definition.bounds == "label_free"


def check_bounds_supported(specs) -> None:
    """Raise for measures without per-ranking bounds (``bounds="none"``)."""
    for m in specs:
        d = m.definition
        if d.bounds == "none":
            why = (
                "its value counts the other systems' rankings of the topic"
                if not d.system_local
                else "its definition declares no per-ranking bounds (MeasureDef(bounds=...))"
            )
            raise MeasureParamError(
                f"bounds=True is not defined for measure {m.label!r}: {why}; "
                f"evaluate it without bounds="
            )


def _order(first: np.ndarray, second: np.ndarray, doc: np.ndarray, n_docs: int) -> np.ndarray:
    """Permutation sorting by (first, second, doc): one stable argsort of a composite int64 key
    (``second`` replaced by its rank among its few distinct values); lexsort if it would overflow."""
    uniq, srank = np.unique(second, return_inverse=True)
    width = len(uniq) * n_docs
    if len(first) == 0 or (int(first.max()) + 1) * width < 2**62:
        return np.argsort((first * len(uniq) + srank) * n_docs + doc, kind="stable")
    return np.lexsort((doc, second, first))  # pragma: no cover - astronomically many groups × docs


def _gather(offsets: np.ndarray, segs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the rows of CSR segments ``segs`` (in that order) and the segment of each."""
    which, idx = expand_ranges(offsets[segs], offsets[segs + 1] - offsets[segs])
    return idx, which


def labelled(aligned: Aligned, grade: float) -> Aligned:
    """The aligned arrays under "every unjudged retrieved document has grade ``grade``".

    Each (system, topic) group becomes its own topic whose qrels are the topic's qrels plus
    the group's unjudged retrieved documents at ``grade`` (a document judged with a negative
    grade — trec_eval's "in pool, unjudged" — is relabelled too).  Group order, rows and
    scores are unchanged, so every kernel runs once more over these arrays.  Memory: the
    qrels are repeated once per group (systems × qrels rows).
    """
    a = aligned
    G = a.n_groups
    n_docs = max(len(a.docs), 1)
    unj = np.isnan(a.row_rel) | (a.row_rel < 0)
    row_rel = np.where(unj, grade, a.row_rel)
    # qrels of each group's topic, minus the negatively judged documents the group relabels
    idx, q_group = _gather(a.qrels_offsets, a.group_topic)
    q_doc, q_rel = a.qrels_doc[idx], a.qrels_rel[idx]
    neg = unj & ~np.isnan(a.row_rel)
    if neg.any():
        keep = ~np.isin(q_group * n_docs + q_doc, a.row_group[neg] * n_docs + a.row_doc[neg])
        q_group, q_doc, q_rel = q_group[keep], q_doc[keep], q_rel[keep]
    add_g, add_d = a.row_group[unj], a.row_doc[unj]
    qg = np.concatenate([q_group, add_g])
    qd = np.concatenate([q_doc, add_d])
    qr = np.concatenate([q_rel, np.full(len(add_g), grade)])
    o = _order(qg, -qr, qd, n_docs)
    out = replace(
        a,
        topics=pd.Index(
            np.asarray(a.topics, dtype=object)[a.group_topic], name="topic", dtype=object
        ),
        group_topic=np.arange(G, dtype=np.int64),
        row_rel=row_rel,
        qrels_offsets=np.searchsorted(qg[o], np.arange(G + 1)).astype(np.int64),
        qrels_doc=qd[o],
        qrels_rel=qr[o],
        extras={**a.extras, "unjudged_grade": grade},
    )
    if a.has_subtopics:
        out.sub_topic, out.sub_subtopic, out.sub_doc, out.sub_rel = _labelled_subtopics(
            a, unj, neg, grade
        )
    return out


def _labelled_subtopics(a: Aligned, unj: np.ndarray, neg: np.ndarray, grade: float):
    """Diversity judgments per group: the topic's, plus every unjudged retrieved document
    relevant at ``grade`` to every subtopic of the topic."""
    n_docs = max(len(a.docs), 1)
    T = len(a.topics)
    # diversity qrels: the subtopic arrays are set
    assert a.sub_topic is not None and a.sub_subtopic is not None and a.subtopics is not None
    assert a.sub_doc is not None and a.sub_rel is not None
    s_off = np.searchsorted(a.sub_topic, np.arange(T + 1))
    idx, s_group = _gather(s_off, a.group_topic)
    s_sub, s_doc, s_rel = a.sub_subtopic[idx], a.sub_doc[idx], a.sub_rel[idx]
    if neg.any():
        keep = ~np.isin(s_group * n_docs + s_doc, a.row_group[neg] * n_docs + a.row_doc[neg])
        s_group, s_sub, s_doc, s_rel = s_group[keep], s_sub[keep], s_doc[keep], s_rel[keep]
    # the subtopics of each topic (CSR over topics)
    pair = np.unique(a.sub_topic * (len(a.subtopics) + 1) + a.sub_subtopic)
    p_topic, p_sub = np.divmod(pair, len(a.subtopics) + 1)
    p_off = np.searchsorted(p_topic, np.arange(T + 1))
    rows = np.flatnonzero(unj)
    pidx, which = _gather(p_off, a.row_topic[rows])
    add_group, add_doc = a.row_group[rows][which], a.row_doc[rows][which]
    g = np.concatenate([s_group, add_group])
    s = np.concatenate([s_sub, p_sub[pidx]])
    d = np.concatenate([s_doc, add_doc])
    r = np.concatenate([s_rel, np.full(len(add_group), grade)])
    o = _order(g, s, d, n_docs)
    return g[o], s[o], d[o], r[o]
