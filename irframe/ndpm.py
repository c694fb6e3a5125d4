"""Yao's distance-based performance measure (ndpm) as a tidy frame of pair counts.

Y. Y. Yao, "Measuring retrieval effectiveness based on user preference of documents",
JASIS 46(2), 1995 (doi:10.1002/(SICI)1097-4571(199503)46:2<133::AID-ASI6>3.0.CO;2-Z).
The counting and the measures live in `irframe.measures.ndpm` (kernels, re-exported
here); ``irf.evaluate(runs, qrels, ["ndpm", "dpm_r"])`` evaluates them as cube measures.
"""

from __future__ import annotations

import pandas as pd

from .align import Aligned, align
from .errors import OptionError
from .measures.ndpm import (
    COUNT_FIELDS,
    count_pairs,
    measures_from_counts,
    ranking_distance,
    weak_order_counts,
)
from .options import Options, check_rel_level, takes_options

__all__ = [
    "COUNT_FIELDS",
    "measures_from_counts",
    "pair_counts",
    "ranking_distance",
    "weak_order_counts",
]


@takes_options("align")
def pair_counts(
    runs: pd.DataFrame | Aligned,
    qrels: pd.DataFrame | None = None,
    *,
    k: int | None = None,
    rel_level: float | None = None,
    opts: Options,
) -> pd.DataFrame:
    """Pair counts and every distance-based measure per (system, topic), as a tidy frame.

    Columns: ``system, topic, n, C, C_plus, C_minus, C_u, C_s, dpm, ndpm, dpm_drf, dpm_p,
    dpm_r, dpm_pa, dpm_ra, dpm_m, dpm_e``.  ``runs`` is a run frame, or arrays aligned with
    their qrels (``qrels`` None).  Options as in [`irframe.evaluate`][irframe.evaluate];
    ``k`` and ``rel_level`` as in `irframe.measures.ndpm.count_pairs` (``rel_level=None``, the
    default, keeps the graded user ranking).

    Parameters
    ----------
    runs, qrels : pandas.DataFrame
        Run frame and judgments, as for [`irframe.evaluate`][irframe.evaluate].
    k : int, optional
        Only the top k documents count as retrieved.
    rel_level : float, optional
        Binarise the user ranking at grade >= rel_level (None: graded).

    Returns
    -------
    pandas.DataFrame
        One row per (system, topic) with the columns above.

    See Also
    --------
    - [`irframe.evaluate`][irframe.evaluate] with ``"ndpm"``, ``"dpm_drf"``, ...: the measures as a cube.
    - [NDPM](../ndpm.md): the guide.

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"topic": "q", "doc": ["d1", "d2", "d3", "d4", "d5"], "rel": [2, 2, 1, 0, 0]})
    >>> run = pd.DataFrame({"system": "s", "topic": "q", "doc": ["d1", "d5", "d2", "d4", "d3"],
    ...                     "score": [3.0, 3.0, 2.0, 2.0, 1.0]})
    >>> pair_counts(run, qrels)[["C", "C_plus", "C_minus", "C_u", "C_s", "dpm", "ndpm"]].values.tolist()
    [[8.0, 3.0, 3.0, 2.0, 2.0, 8.0, 0.5]]
    """
    if isinstance(runs, Aligned):  # arrays aligned with their qrels, under their own options
        if qrels is not None or opts.changed():
            raise OptionError(
                "qrels and alignment options cannot be combined with an already aligned input"
            )
        a = runs
    else:
        a = align(runs, qrels, opts=opts)
    c = count_pairs(a, k=k, rel_level=None if rel_level is None else check_rel_level(rel_level))
    m = measures_from_counts(c)
    out = pd.DataFrame(
        {
            "system": a.systems[a.group_system].to_numpy(),
            "topic": a.topics[a.group_topic].to_numpy(),
        }
    )
    for f in COUNT_FIELDS:
        out[f] = c[f]
    for f, v in m.items():
        out[f] = v
    return out
