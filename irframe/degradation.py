"""Judgment degradation: how measures behave as relevance labels are removed (Diaz & Mitra 2023, §6.2.4).

F. Diaz & B. Mitra, "Recall as a Measure of Ranking Robustness" (2023).  Both functions are
re-exported by [`irframe.meta`][irframe.meta], where they are documented with the other
meta-evaluation tools.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from ._progress import progress as _progress
from ._scores import is_pref, pref_cube, score_cube
from .errors import ColumnError, InputError, OptionError
from .options import make_rng
from .params import check_flag
from .schema import checked_qrels

__all__ = ["degrade_qrels", "label_degradation"]


def degrade_qrels(
    qrels: pd.DataFrame,
    fraction: float,
    *,
    method: str = "uniform",
    runs: pd.DataFrame | None = None,
    rng=None,
    rel_level: float = 1,
    min_relevant: int = 1,
    how: str = "drop",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Remove a fraction of the relevant judgments of every topic (Diaz & Mitra 2023, §6.2.4).

    Per topic with ``n`` relevant documents (``rel >= rel_level``),
    ``min(round_half_up(fraction * n), n - min_relevant)`` of them are removed, so at
    least ``min_relevant`` remain (Diaz & Mitra 2023 keep one).  Documents are drawn

    * ``method="uniform"``: uniformly without replacement;
    * ``method="frequency"``: without replacement with probability proportional to the
      number of rankings in ``runs`` that retrieve the document for that topic (popular
      documents go first); documents no ranking retrieves are removed only once every
      retrieved one is gone.  Sampling uses Efraimidis-Spirakis keys.

    Parameters
    ----------
    qrels : pandas.DataFrame
        Columns ``topic, doc, rel`` (names configurable), optionally ``subtopic``; every
        row of a removed (topic, doc) goes.
    fraction : float
        In [0, 1].
    runs : pandas.DataFrame, optional
        Required for ``method="frequency"``: columns ``system, topic, doc``.
    how : {"drop", "zero"}
        Drop the judgment rows (the document becomes unjudged) or set their grade to 0
        (judged non-relevant).
    columns, qrels_columns : mapping, optional
        Role → column name of ``runs`` and ``qrels`` (as everywhere); the run frame's topic
        and doc columns default to the qrels' names.
    method : {"uniform", "frequency"}, default "uniform"
        How the removed relevant documents are drawn (see above).
    rng : numpy.random.Generator, int or None
        The draws' randomness (`irframe.options.make_rng`).
    rel_level : float, default 1
        A document is relevant when its grade is at least ``rel_level``; only relevant judgments
        are removed.
    min_relevant : int, default 1
        Relevant documents left in every topic at least (Diaz & Mitra 2023 keep one).

    Returns
    -------
    pandas.DataFrame
        A new qrels frame (the input is not modified).

    See Also
    --------
    - [`irframe.degradation.label_degradation`][irframe.degradation.label_degradation]: what degrading does to a measure.

    Examples
    --------
    >>> import pandas as pd
    >>> from irframe.meta import degrade_qrels
    >>> q = pd.DataFrame({"topic": ["1"] * 4, "doc": list("abcd"), "rel": [1, 1, 1, 0]})
    >>> len(degrade_qrels(q, 0.5, rng=0))   # round(0.5 * 3) = 2 of 3 relevant removed
    2
    """
    if not 0 <= fraction <= 1:
        raise OptionError(f"fraction must be in [0, 1], got {fraction}")
    if method not in ("uniform", "frequency"):
        raise OptionError(f"method must be 'uniform' or 'frequency', got {method!r}")
    if how not in ("drop", "zero"):
        raise OptionError(f"how must be 'drop' or 'zero', got {how!r}")
    qrels, qc, grades = checked_qrels(qrels, qrels_columns)  # evaluate's checks on ids, grades
    topic, doc, rel = qc.topic, qc.doc, qc.rel
    rn = {"system": "system", "topic": topic, "doc": doc, **(columns or {})}
    gen = make_rng(rng)
    q = qrels.copy()
    relevant = grades >= rel_level
    pairs = q.loc[relevant, [topic, doc]].drop_duplicates()
    if method == "frequency":
        if runs is None:
            raise OptionError(
                "method='frequency' needs runs= (a frame with system, topic, doc columns)"
            )
        miss = [rn[r] for r in ("system", "topic", "doc") if rn[r] not in runs.columns]
        if miss:
            raise ColumnError(f"runs lacks columns {miss}; found {list(runs.columns)}")
        r = runs[[rn["system"], rn["topic"], rn["doc"]]].drop_duplicates()
        freq = r.groupby([rn["topic"], rn["doc"]], observed=True).size().rename_axis([topic, doc])
        freq.name = "_freq"
        pairs = pairs.merge(freq.reset_index(), on=[topic, doc], how="left")
        w = pairs["_freq"].fillna(0).to_numpy(float)
    else:
        w = np.ones(len(pairs))
    u = gen.random(len(pairs))
    with np.errstate(divide="ignore"):
        key = np.where(
            w > 0, np.log(u) / np.where(w > 0, w, 1), -np.inf
        )  # larger key = removed earlier
    pairs = pairs.assign(_key=key, _tie=u).reset_index(drop=True)
    drop_idx = []
    for _, g in pairs.groupby(topic, sort=False, observed=True):
        n = len(g)
        k = min(math.floor(fraction * n + 0.5), n - min_relevant)
        if k <= 0:
            continue
        order = np.lexsort((-g["_tie"].to_numpy(), -g["_key"].to_numpy()))
        drop_idx.extend(g.index[order[:k]].tolist())
    removed = pairs.loc[drop_idx, [topic, doc]]
    mark = (
        pd.MultiIndex.from_frame(q[[topic, doc]]).isin(pd.MultiIndex.from_frame(removed))
        if len(removed)
        else np.zeros(len(q), bool)
    )
    if how == "drop":
        return q.loc[~mark].reset_index(drop=True)
    q.loc[mark, rel] = 0
    return q


def _preferences(cube) -> tuple[np.ndarray, list]:
    """-> (prefs (U, T, K) in {-1,0,1} with NaN for incomparable, measure labels)."""
    if is_pref(cube):
        p = pref_cube(cube)
        v = np.asarray(p.values, float)
        S = min(v.shape[0], v.shape[1])
        iu = np.triu_indices(S, 1)
        return v[iu[0], iu[1], :][:, :, None], [
            cube.name if cube.name is not None else "preference"
        ]
    c, _ = score_cube(cube)
    X = c.values
    S = X.shape[0]
    iu = np.triu_indices(S, 1)
    d = X[iu[0]] - X[iu[1]]
    return np.sign(d), list(c.indexes["measure"])


def label_degradation(
    qrels: pd.DataFrame,
    evaluate: Callable[[pd.DataFrame], xr.DataArray],
    *,
    fractions: Sequence[float] = (0.25, 0.5, 0.75),
    method: str = "uniform",
    runs: pd.DataFrame | None = None,
    n_repeats: int = 1,
    rng=None,
    rel_level: float = 1,
    min_relevant: int = 1,
    how: str = "drop",
    progress: bool = False,
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Ties and agreement with full-data preferences as relevance labels are removed.

    Diaz & Mitra 2023, §6.2.4: per topic, remove a fraction of the relevant judgments
    (uniformly, or by how many rankings retrieve them -- see [`degrade_qrels`][irframe.degradation.degrade_qrels]),
    re-evaluate, and measure (a) the fraction of tied system pairs and (b) the
    agreement of the per-topic preferences with those obtained from the full qrels.

    Parameters
    ----------
    qrels : pandas.DataFrame
        Full judgments.
    evaluate : callable
        ``evaluate(qrels) -> cube``; returns a score cube ``(system, topic[, measure])``
        or a preference cube ``(system, other, topic)`` (e.g.
        ``lambda q: runs.ir.metric(["AP", "R@1000"], qrels=q)``).  It must return the
        same systems in the same order every time.
    fractions : sequence of float
        Fractions of relevant judgments to remove.
    method : {"uniform", "frequency"}
    runs : pandas.DataFrame, optional
        Needed for ``method="frequency"``.
    n_repeats : int
        Independent degradations per fraction.
    rng : numpy.random.Generator or int, optional
    rel_level, min_relevant, how, columns, qrels_columns
        Passed to [`degrade_qrels`][irframe.degradation.degrade_qrels].
    progress : bool
        Show a progress bar over the re-evaluations (needs tqdm: the ``progress`` extra).

    Returns
    -------
    pandas.DataFrame
        Columns ``fraction, repeat, measure, ties, agreement, comparisons``: ``ties``
        is the fraction of (pair, topic) comparisons that are tied; ``agreement`` the
        fraction whose preference (-1/0/+1) equals the full-data one; comparisons where
        either evaluation is NaN are left out.  Fraction 0 (full data) is included.

    See Also
    --------
    - [`irframe.degradation.degrade_qrels`][irframe.degradation.degrade_qrels]: one degraded qrels frame.
    - [`irframe.lexi.tie_fraction`][irframe.lexi.tie_fraction]: ties of a preference or score cube.

    Examples
    --------
    >>> import numpy as np, pandas as pd, xarray as xr
    >>> from irframe.meta import label_degradation
    >>> q = pd.DataFrame({"topic": ["1"] * 4, "doc": list("abcd"), "rel": [1, 1, 1, 1]})
    >>> def evaluate(q):  # number of relevant docs among fixed retrieved sets
    ...     got = {"s1": {"a", "b"}, "s2": {"c"}}
    ...     rel = set(q.doc[q.rel > 0])
    ...     x = [[len(got[s] & rel)] for s in got]
    ...     return xr.DataArray(np.array(x, float), dims=("system", "topic"), coords={"system": list(got)})
    >>> t = label_degradation(q, evaluate, fractions=[0.0, 0.75], rng=0)
    >>> t[["fraction", "agreement"]].iloc[0].tolist()
    [0.0, 1.0]
    """
    progress = check_flag("progress", progress)
    gen = make_rng(rng)
    full = _preferences(evaluate(qrels.copy()))
    base, labels = full
    rows = []

    def summarize(p, frac, rep):
        for k, m in enumerate(labels):
            a, b = base[:, :, k], p[:, :, k]
            ok = ~(np.isnan(a) | np.isnan(b))
            n = int(ok.sum())
            rows.append(
                {
                    "fraction": float(frac),
                    "repeat": rep,
                    "measure": m,
                    "ties": float((b[ok] == 0).sum() / n) if n else np.nan,
                    "agreement": float((a[ok] == b[ok]).sum() / n) if n else np.nan,
                    "comparisons": n,
                }
            )

    jobs = [(frac, rep) for frac in fractions for rep in range(1 if frac == 0 else int(n_repeats))]
    for frac, rep in _progress(jobs, enabled=progress, desc="label degradation"):
        if frac == 0:
            summarize(base, 0.0, 0)
        else:
            q = degrade_qrels(
                qrels,
                frac,
                method=method,
                runs=runs,
                rng=gen,
                rel_level=rel_level,
                min_relevant=min_relevant,
                how=how,
                columns=columns,
                qrels_columns=qrels_columns,
            )
            p, lab = _preferences(evaluate(q))
            if p.shape != base.shape or lab != labels:
                raise InputError(
                    "evaluate(qrels) returned a cube with different systems/topics/measures "
                    f"than on the full qrels ({p.shape} vs {base.shape})"
                )
            summarize(p, frac, rep)
    return pd.DataFrame(
        rows, columns=["fraction", "repeat", "measure", "ties", "agreement", "comparisons"]
    )
