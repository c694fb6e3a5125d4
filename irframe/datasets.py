"""Small collections to try irframe on: a seeded synthetic generator and trec_eval's test data.

Both return ``(qrels, runs)`` in the library's frame model (the same columns and
dtypes as [`irframe.io.read_qrels`][irframe.io.read_qrels] / [`irframe.io.read_run`][irframe.io.read_run]): ids are
``category`` columns with sorted string categories, ``rank`` int64, ``score``
float64, ``rel`` int64.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from .errors import OptionError
from .options import make_rng
from .params import COUNT, check_flag

__all__ = ["synthetic", "trec_eval_sample"]


def _cat(codes: np.ndarray, categories: list[str] | np.ndarray) -> pd.Categorical:
    """Categorical from codes into ``categories``, re-coded so the categories are sorted."""
    cats = np.asarray(categories, dtype=object)
    if not pd.Index(cats).is_monotonic_increasing:
        order = np.argsort(cats, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        codes, cats = rank[codes], cats[order]
    return pd.Categorical.from_codes(
        codes, dtype=pd.CategoricalDtype(pd.Index(cats, dtype=str)), validate=False
    )


def synthetic(
    systems: int = 5,
    topics: int = 10,
    depth: int = 100,
    *,
    rng: np.random.Generator | int | None = None,
    ties: float = 0.05,
    graded: bool = True,
    diversity: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A synthetic test collection: graded qrels and runs of varying quality.

    Every topic has a pool of ``2 * depth`` (at least 200) documents, about 8 % of them
    relevant (grades 1–3, or 1 when ``graded=False``); all relevant documents and
    about half of the others are judged.  System ``s`` scores a document
    ``N(0, 1) + skill_s * grade``, with ``skill`` rising linearly from 0.3 (first
    system) to 2.0 (last), keeps the top ``depth``, and rounds scores to 4 decimals;
    then a fraction ``ties`` of the ranked documents get the score of the document
    ranked just above them (tied scores, as real runs have).  ``rank`` numbers the
    documents 1..depth in the system's own order (ties in arbitrary order, so
    ``order="rank"`` and ``order="trec_eval"`` can differ).

    Parameters
    ----------
    systems, topics, depth : int
        Collection size: ``systems * topics * depth`` run rows.
    rng : numpy.random.Generator, int or None
        Source of randomness (as everywhere in irframe): a seed gives the same frames
        every time; None (default) fresh ones.
    ties : float in [0, 1)
        Fraction of ranked documents whose score ties with the one above.
    graded : bool
        Grades 1–3 (default) or binary 1.
    diversity : bool
        Add subtopics: 2–6 per topic, each relevant document relevant to a random
        non-empty subset of them; the qrels then have columns
        ``topic, subtopic, doc, rel`` (one row per judged document and subtopic).

    Returns
    -------
    qrels, runs : pandas.DataFrame
        ``qrels``: ``topic, doc, rel`` (``topic, subtopic, doc, rel`` with diversity);
        ``runs``: ``system, topic, doc, rank, score``, sorted by system, topic, rank.
        Topic ids are ``"401"``, ``"402"``, …; doc ids ``"D401-000123"``; system names
        ``"sys0"``, ``"sys1"``, … (zero-padded to equal width).  The ``doc`` columns of
        both frames share one category set, every pooled document (retrieved or not).

    See Also
    --------
    - [`trec_eval_sample`][irframe.datasets.trec_eval_sample]: trec_eval's own test run and qrels.

    Examples
    --------
    >>> from irframe.datasets import synthetic
    >>> qrels, runs = synthetic(systems=3, topics=2, depth=5, rng=1)
    >>> runs.shape, runs.columns.tolist()
    ((30, 5), ['system', 'topic', 'doc', 'rank', 'score'])
    >>> runs.system.cat.categories.tolist(), qrels.topic.cat.categories.tolist()
    (['sys0', 'sys1', 'sys2'], ['401', '402'])
    >>> sorted(qrels.rel.unique().tolist()) == [0, 1, 2, 3] or len(qrels) < 40
    True
    """
    graded = check_flag("graded", graded)
    diversity = check_flag("diversity", diversity)
    for name, v in (("systems", systems), ("topics", topics), ("depth", depth)):
        COUNT.check(name, v)
    if (
        isinstance(ties, bool)
        or not isinstance(ties, (int, float, np.integer, np.floating))
        or not 0 <= ties < 1
    ):
        raise OptionError(f"ties must be a number in [0, 1), got {ties!r}")
    rng = make_rng(rng)
    S, T, K = int(systems), int(topics), int(depth)
    P = max(2 * K, 200)  # pool per topic

    topic_ids = [str(401 + t) for t in range(T)]
    # grades of the pool (T, P): ~8 % relevant
    relevant = rng.random((T, P)) < 0.08
    grade = np.where(relevant, rng.choice([1, 1, 1, 2, 2, 3], size=(T, P)) if graded else 1, 0)
    judged = relevant | (rng.random((T, P)) < 0.5)

    top, top_score = _top_scores(rng, grade, S, K, ties)

    width = len(str(S - 1))
    sys_names = [f"sys{s:0{width}d}" for s in range(S)]
    doc_names = [f"D{tid}-{i:06d}" for tid in topic_ids for i in range(P)]
    t_idx = np.broadcast_to(np.arange(T)[None, :, None], (S, T, K))
    runs = pd.DataFrame(
        {
            "system": _cat(np.repeat(np.arange(S), T * K), sys_names),
            "topic": _cat(t_idx.ravel(), topic_ids),
            "doc": _cat((t_idx * P + top).ravel(), doc_names),
            "rank": np.tile(np.arange(1, K + 1, dtype=np.int64), S * T),
            "score": top_score.ravel().astype(np.float64),
        }
    )

    jt, jd = np.nonzero(judged)  # judged (topic, pool index)
    if not diversity:
        qrels = pd.DataFrame(
            {
                "topic": _cat(jt, topic_ids),
                "doc": _cat(jt * P + jd, doc_names),
                "rel": grade[jt, jd].astype(np.int64),
            }
        )
        return qrels, runs
    return _diversity_qrels(rng, grade, judged, topic_ids, doc_names), runs


def _top_scores(rng: np.random.Generator, grade: np.ndarray, S: int, K: int, ties: float):
    """Scores ``N(0, 1) + skill * grade`` of every pooled document (S, T, P); the top K per (system,
    topic), best first, rounded to 4 decimals, a fraction ``ties`` tied with the one above."""
    T, P = grade.shape
    skill = np.linspace(0.3, 2.0, S) if S > 1 else np.array([1.0])
    score = rng.standard_normal((S, T, P)) + skill[:, None, None] * grade[None]
    top = (
        np.argpartition(-score, K - 1, axis=2)[:, :, :K]
        if K < P
        else np.broadcast_to(np.arange(P), (S, T, P)).copy()
    )
    top_score = np.take_along_axis(score, top, axis=2)
    order = np.argsort(-top_score, axis=2)
    top = np.take_along_axis(top, order, axis=2)
    top_score = np.round(np.take_along_axis(top_score, order, axis=2), 4)
    if ties > 0 and K > 1:
        tie = rng.random((S, T, K)) < ties
        tie[:, :, 0] = False
        src = np.where(tie, 0, np.arange(K))
        src = np.maximum.accumulate(src, axis=2)  # forward-fill the tied positions
        top_score = np.take_along_axis(top_score, src, axis=2)
    return top, top_score


def _diversity_qrels(
    rng: np.random.Generator,
    grade: np.ndarray,
    judged: np.ndarray,
    topic_ids: list,
    doc_names: list,
) -> pd.DataFrame:
    """Subtopic qrels: 2–6 subtopics per topic, each relevant document relevant to a random non-empty subset."""
    T, P = grade.shape
    n_sub = np.asarray(rng.integers(2, 7, size=T))  # 2..6 subtopics per topic
    M = int(n_sub.max())
    # each relevant doc: relevant to a random non-empty subset of its topic's subtopics
    member = rng.random((T, P, M)) < 0.4
    member &= np.arange(M)[None, None, :] < n_sub[:, None, None]
    first = rng.integers(0, n_sub[:, None], size=(T, P))  # guarantee one subtopic
    member[np.arange(T)[:, None], np.arange(P)[None, :], first] = True
    sub_rel = np.where(member, grade[:, :, None], 0)
    valid = judged[:, :, None] & (np.arange(M)[None, None, :] < n_sub[:, None, None])
    rows_t, rows_d, rows_s = np.nonzero(valid)
    sub_names = [str(i + 1) for i in range(M)]
    qrels = pd.DataFrame(
        {
            "topic": _cat(rows_t, topic_ids),
            "subtopic": _cat(rows_s, sub_names),
            "doc": _cat(rows_t * P + rows_d, doc_names),
            "rel": sub_rel[rows_t, rows_d, rows_s].astype(np.int64),
        }
    )
    return qrels


def trec_eval_sample() -> tuple[pd.DataFrame, pd.DataFrame]:
    """trec_eval's own test collection: 3 topics (301–303), one run ``STANDARD``.

    ``qrels.test`` (3681 binary judgments, 561 relevant) and ``results.test``
    (500 documents per topic) from the official NIST trec_eval repository
    (``test/``, identical in 9.0.8 and 10.0), shipped in ``irframe/data`` with
    NIST's licence notice.  trec_eval 9.0.8 gives map 0.1785, P_10 0.3000 on it.

    Returns
    -------
    qrels, runs : pandas.DataFrame
        As [`irframe.io.read_qrels`][irframe.io.read_qrels] and [`irframe.io.read_run`][irframe.io.read_run] return them.

    See Also
    --------
    - [`synthetic`][irframe.datasets.synthetic]: seeded collections of any size.

    Examples
    --------
    >>> from irframe.datasets import trec_eval_sample
    >>> qrels, runs = trec_eval_sample()
    >>> len(qrels), len(runs), runs.system.unique().tolist()
    (3681, 1500, ['STANDARD'])
    >>> int((qrels.rel > 0).sum())
    561
    """
    from .io import read_qrels, read_run

    base = resources.files("irframe") / "data"
    with resources.as_file(base / "qrels.test") as q, resources.as_file(base / "results.test") as r:
        return read_qrels(q), read_run(r)
