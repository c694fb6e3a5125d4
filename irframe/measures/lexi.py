"""Per-(system, topic) measures of the lexicographic family (seed 000), for ``.ir.metric``.

* ``TSE(n=..., e=AP)`` -- total search efficiency ``e(p_m)`` (Eq. 3) with pessimistic
  imputation in a corpus of ``n`` documents; ``e`` is one of ``AP`` (1/i), ``NDCG``
  (1/log2(i+1)), ``RBP`` ((1-p) p^(i-1), parameter ``p``), ``R`` (I(i <= k), parameter
  ``k``), ``RP`` (I(i <= m)).
* ``LR`` -- metric lexirecall (§7.3.2).  Default ``repr=rank``: the share of the other
  systems' rankings of the topic (in this evaluation; a missing ranking is its worst
  case) that this ranking strictly beats under lexirecall -- orders rankings exactly
  like lexirecall, needs no ``n``.  ``LR(n=..., repr=float)`` is the paper's formula in
  float64 (loses order at large n; see :func:`irframe.lexi.metric_lexirecall` for the
  exact rational value).

Relevant ⇔ grade >= the evaluation's ``rel_level`` (grades not truncated).  A topic
without relevant documents scores 0 (trec_eval's convention for undefined measures).

Examples
--------
>>> import pandas as pd, irframe as irf
>>> runs = pd.DataFrame({"system": "a", "topic": "1", "doc": ["r1", "x", "r2"], "score": [3, 2, 1]})
>>> qrels = pd.DataFrame({"topic": "1", "doc": ["r1", "r2"], "rel": 1})
>>> float(irf.evaluate(runs, qrels, "TSE(n=1000)").item())
0.3333333333333333
"""

from __future__ import annotations

import numpy as np

from ..align import segment_max, segment_sum
from .registry import REQUIRED, EvalContext, Measure, MeasureDef, MeasureParamError, register


def _check_n_param(n, *, required: bool):
    if n is None:
        if required:
            raise MeasureParamError("needs the corpus size n=..., e.g. TSE(n=500000000)")
        return None
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise MeasureParamError(f"corpus size n must be a positive integer, got {n!r}")
    return n


def _validate_tse(params: dict) -> dict:
    params["n"] = _check_n_param(params["n"], required=True)
    e = str(params["e"]).upper()
    if e not in ("AP", "NDCG", "RBP", "R", "RP"):
        raise MeasureParamError(f"TSE exposure e={params['e']!r} is not one of AP, NDCG, RBP, R, RP")
    params["e"] = e
    if not (0 < float(params["p"]) < 1):
        raise MeasureParamError(f"RBP persistence p must lie in (0, 1), got {params['p']!r}")
    if not isinstance(params["k"], int) or params["k"] < 1:
        raise MeasureParamError(f"recall cutoff k must be a positive integer, got {params['k']!r}")
    return params


def _validate_lr(params: dict) -> dict:
    rep = str(params["repr"])
    if rep not in ("rank", "float"):
        raise MeasureParamError(f"LR repr must be 'rank' or 'float', got {rep!r}")
    params["repr"] = rep
    params["n"] = _check_n_param(params["n"], required=(rep == "float"))
    if not (0 < float(params["eps"]) < 1):
        raise MeasureParamError(f"eps must lie in (0, 1), got {params['eps']!r}")
    return params


def _tse(ctx: EvalContext, m: Measure) -> np.ndarray:
    from ..lexi import exposure
    a = ctx.aligned
    level = float(ctx.options["rel_level"])
    n = m.param("n")
    with np.errstate(invalid="ignore"):
        is_rel = a.row_rel >= level
    k = segment_sum(is_rel, a.offsets).astype(np.int64)
    last = segment_max(np.where(is_rel, a.row_rank, 0), a.offsets).astype(np.int64)
    m_topic = np.bincount(a.qrels_topic, weights=(a.qrels_rel >= level), minlength=len(a.topics)).astype(np.int64)
    mg = m_topic[a.group_topic]
    need = a.group_len + mg - k
    if len(need) and n < need.max():
        raise MeasureParamError(f"{m.label!r}: corpus size n={n} is too small; a ranking here needs "
                                f"n >= {int(need.max())} (ranking length + unretrieved relevant documents)")
    pm = np.where(k == mg, last, n)
    val = exposure(m.param("e"), pm, mg, p=float(m.param("p")), k=int(m.param("k")))
    return np.where(mg > 0, val, 0.0)


def _lr(ctx: EvalContext, m: Measure) -> np.ndarray:
    from ..lexi import metric_lexirecall
    a = ctx.aligned
    level = float(ctx.options["rel_level"])
    lr = metric_lexirecall(a, n=m.param("n") if m.param("n") is not None else 1,
                           epsilon=m.param("eps"), representation=m.param("repr"), rel_level=level) \
        if m.param("repr") == "float" else metric_lexirecall(a, n=_large_enough(a, level), representation="rank",
                                                             rel_level=level)
    sys_idx = {s: i for i, s in enumerate(lr.coords["system"].values)}
    top_idx = {t: i for i, t in enumerate(lr.coords["topic"].values)}
    t_map = np.array([top_idx.get(t, -1) for t in a.topics], dtype=np.int64)
    s_map = np.array([sys_idx[s] for s in a.systems], dtype=np.int64)
    gt = t_map[a.group_topic]
    gs = s_map[a.group_system]
    vals = np.asarray(lr.values, dtype=np.float64)
    return np.where(gt >= 0, vals[gs, np.maximum(gt, 0)] if vals.size else 0.0, 0.0)


def _large_enough(a, level: float) -> int:
    """A corpus size that passes the imputation check (the rank representation ignores n)."""
    m_topic = np.bincount(a.qrels_topic, weights=(a.qrels_rel >= level), minlength=len(a.topics))
    return int((a.group_len.max() if a.n_groups else 0) + (m_topic.max() if len(m_topic) else 0) + 1)


register(MeasureDef(
    name="TSE", compute=_tse, params={"n": REQUIRED, "e": "AP", "p": 0.8, "k": 1000}, cutoff="none",
    description="total search efficiency e(p_m) with pessimistic imputation in a corpus of n docs (seed 000 Eq. 3)",
    family="lexi", validate=_validate_tse))

register(MeasureDef(
    name="LR", compute=_lr, params={"n": None, "eps": 0.5, "repr": "rank"}, cutoff="none",
    description="metric lexirecall: share of other systems' rankings beaten under lexirecall "
                "(repr=rank), or the seed-000 formula in float64 (repr=float, needs n)",
    family="lexi", validate=_validate_lr))
