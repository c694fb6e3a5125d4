"""How uncertain a score is: unjudged documents and tied scores, as reports.

* [`flips`][irframe.uncertainty.flips] — pairs of systems whose order could change if the unjudged documents were
  judged (from a cube of ``evaluate(..., bounds=True)``, see [`irframe.measures.unjudged`][irframe.measures.unjudged]);
* [`tie_sensitivity`][irframe.uncertainty.tie_sensitivity] — how much each score moves with the order of tied documents
  (``order="trec_eval" | "worst" | "expected" | "best"``, see [`irframe.measures.ties`][irframe.measures.ties]).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ._lazy import xarray as xr  # imported on first use: the command line never needs it
from .align import align
from .cube import lower_is_better_labels, summarize
from .errors import OptionError, ShapeError
from .evaluate import depth_and_judged_only, evaluate
from .measures import parse_measures
from .measures.ties import cut_after_order, tie_groups
from .options import EVALUATE, NOT_TAKEN, OPTIONS, Options, takes_options
from .qrelsets import is_qrels_sets, over_qrels

__all__ = ["flips", "tie_sensitivity"]


def flips(
    cube: xr.DataArray, missing: str = "skip", lower_is_better: str | Iterable[str] | None = None
) -> pd.DataFrame:
    """Pairs of systems whose order by mean score could flip within the bounds.

    For every measure and ordered pair (system, other) where ``system`` is ahead of
    ``other`` by the mean of ``low`` (today's values), the order is *safe* when the
    smallest possible lead, mean low of ``system`` − mean high of ``other``, is positive;
    otherwise the pair is marked ``could_flip``.  With ``bound_exact`` measures this is
    conservative (each system's extremes are taken independently, although one labelling
    is shared); for the other measures low/high are not extremes and the mark is indicative.
    For measures where lower is better the roles of low and high swap.

    Parameters
    ----------
    cube : xarray.DataArray
        A cube from ``evaluate(..., bounds=True)``.
    missing : {"skip", "common", "zero"}
        Topic policy for the means (see [`irframe.summarize`][irframe.summarize]); default ``"skip"``:
        each system's mean over its own topics.
    lower_is_better : list of str, optional
        Measures whose best value is the smallest.  Default: those the cube records (each
        measure declares it: ``ndpm``, C/W/L's costs); a label that names no measure
        (renamed) is taken as higher-is-better, with a warning
        ([`irframe.cube.lower_is_better_labels`][irframe.cube.lower_is_better_labels]).

    Returns
    -------
    pandas.DataFrame
        One row per (measure, system, other) with ``system`` ahead: ``low``, ``low_other``,
        ``high_other``, ``lead`` (observed), ``min_lead`` and ``could_flip``.

    See Also
    --------
    - [`irframe.evaluate`][irframe.evaluate] with ``bounds=True``: the bounds this reads.
    - [`irframe.tie_sensitivity`][irframe.tie_sensitivity]: the same question for ties.

    Examples
    --------
    >>> import pandas as pd
    >>> import irframe as irf
    >>> run = pd.DataFrame({"system": ["a", "a", "b", "b"], "topic": "1", "doc": ["x", "y", "x", "u"],
    ...                     "score": [2., 1, 2, 1]})
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["x", "y"], "rel": [1, 1]})
    >>> f = irf.flips(irf.evaluate(run, qrels, "P@2", bounds=True))
    >>> f[["system", "other", "lead", "min_lead", "could_flip"]].to_dict("records")
    [{'system': 'a', 'other': 'b', 'lead': 0.5, 'min_lead': 0.0, 'could_flip': True}]
    """
    if "bound" not in cube.dims:
        raise ShapeError(
            "flips() needs a cube from evaluate(..., bounds=True) (with a 'bound' dimension)"
        )
    lower = lower_is_better_labels(cube, lower_is_better)
    lo = summarize(cube.sel(bound="low", drop=True), missing=missing)
    hi = summarize(cube.sel(bound="high", drop=True), missing=missing)
    systems = np.asarray(lo.index, dtype=object)
    frames = []
    for meas in lo.columns:
        a_lo, a_hi = lo[meas].to_numpy(), hi[meas].to_numpy()
        worst, best = np.minimum(a_lo, a_hi), np.maximum(a_lo, a_hi)
        if str(meas) in lower:
            lead = a_lo[None, :] - a_lo[:, None]  # [i, j]: i ahead when its value is lower
            min_lead = worst[None, :] - best[:, None]
        else:
            lead = a_lo[:, None] - a_lo[None, :]
            min_lead = worst[:, None] - best[None, :]
        i, j = np.nonzero(lead > 0)
        frames.append(
            pd.DataFrame(
                {
                    "measure": meas,
                    "system": systems[i],
                    "other": systems[j],
                    "low": a_lo[i],
                    "low_other": a_lo[j],
                    "high_other": a_hi[j],
                    "lead": lead[i, j],
                    "min_lead": min_lead[i, j],
                    "could_flip": min_lead[i, j] <= 0,
                }
            )
        )
    cols = [
        "measure",
        "system",
        "other",
        "low",
        "low_other",
        "high_other",
        "lead",
        "min_lead",
        "could_flip",
    ]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


@takes_options(*EVALUATE, order=NOT_TAKEN)
def tie_sensitivity(
    runs: pd.DataFrame,
    qrels: pd.DataFrame,
    measures,
    *,
    judgments: str = "each",
    opts: Options,
    **options,
) -> pd.DataFrame:
    """How much each score moves with the order of tied documents.

    Evaluates ``measures`` once per order — trec_eval's tie-break, the expected value over
    tie orders, the worst and the best order — on one alignment.

    Parameters
    ----------
    runs, qrels : pandas.DataFrame
        As for [`irframe.evaluate`][irframe.evaluate].
    measures : str or list of str
        Measures that support tie-aware orders (see
        [`irframe.measures.ties`][irframe.measures.ties]).
    judgments : {"each", "common"}, default "each"
        With several judgment sets: one table per set, with a leading ``qrels`` column
        ([`irframe.qrelsets`][irframe.qrelsets]).
    **options
        Measure options, as for [`irframe.evaluate`][irframe.evaluate].

    Returns
    -------
    pandas.DataFrame
        One row per (system, topic, measure): ``trec_eval``, ``worst``, ``expected``,
        ``best``, ``spread`` = best − worst and ``tied_docs`` (documents of the ranking
        that share their score with another), sorted by ``spread`` descending.  Group it
        by system (``.groupby(["system", "measure"]).spread.mean()``) for a per-system view.

    See Also
    --------
    - [`irframe.evaluate`][irframe.evaluate] with ``order="expected"``, ``"best"`` or ``"worst"``.
    - [`irframe.flips`][irframe.flips]: pairs of systems whose order the bounds could flip.
    - [Unjudged documents and ties](../uncertainty.md): the guide.

    Examples
    --------
    >>> import pandas as pd
    >>> import irframe as irf
    >>> run = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a", "b"], "score": [1.0, 1.0]})
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})
    >>> irf.tie_sensitivity(run, qrels, ["RR"])[["trec_eval", "worst", "expected", "best", "spread"]]
       trec_eval  worst  expected  best  spread
    0        0.5    0.5      0.75   1.0     0.5
    """
    if is_qrels_sets(qrels):  # one table per judgment set, with a leading qrels column
        return over_qrels(
            lambda q: tie_sensitivity(runs, q, measures, opts=opts, **options),
            qrels,
            judgments=judgments,
            columns=opts.qrels_columns,
        )
    specs = parse_measures(measures)
    if opts.depth is not None and opts.judged_only:
        raise OptionError(depth_and_judged_only("tie_sensitivity"))
    # the depth cuts after each order, so a tie group it cuts shows its spread
    full = align(runs, qrels, opts=opts.replace(depth=None))
    aligned = cut_after_order(full, "trec_eval", opts.depth)
    own = opts.replace(**{k: OPTIONS[k].default for k in opts.changed("align")})  # (the arrays')
    cubes = {
        o: evaluate(
            cut_after_order(full, o, opts.depth), None, specs, opts=own.replace(order=o), **options
        )
        for o in ("trec_eval", "worst", "expected", "best")
    }
    ties = tie_groups(aligned)
    multi = ties.size > 1
    tied = np.bincount(ties.group[multi], weights=ties.size[multi], minlength=aligned.n_groups)
    n_tied = np.full((len(aligned.systems), len(aligned.topics)), np.nan)
    n_tied[aligned.group_system, aligned.group_topic] = tied
    frames = []
    for o, c in cubes.items():
        frames.append(c.to_series().rename(o))
    df = pd.concat(frames, axis=1).dropna(how="all").reset_index()
    df = df.drop(columns=[c for c in ("aggregate",) if c in df.columns])
    df["spread"] = df["best"] - df["worst"]
    tmap = (
        pd.DataFrame(
            n_tied,
            index=pd.Index(aligned.systems, name="system"),
            columns=pd.Index(aligned.topics, name="topic"),
        )
        .stack()
        .rename("tied_docs")
    )
    df = df.merge(tmap.reset_index(), on=["system", "topic"], how="left")
    return df.sort_values(
        ["spread", "system", "topic"], ascending=[False, True, True], kind="stable"
    ).reset_index(drop=True)
