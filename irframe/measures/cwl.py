"""C/W/L, C/W/L/A, RBP and ERR in the ``.ir.metric()`` namespace.

Registered measure strings
--------------------------
``CWLA(C=<C function>,A=<A function>)@depth``
    sum_i L(i) A(i) (seed 002, Eq. 15), e.g. ``CWLA(C=RBP(p=0.8),A=max)``,
    ``CWLA(C=INST(T=2.25),A=PE(beta=0.5))``.  ``A`` defaults to ``ERG``.
``CWL(C=<C function>,out=EU|ETU|EC|ETC|ED)@depth``
    one cwl_eval output of a C/W/L metric (default ``EU``), e.g. ``CWL(C=AP)`` is cwl_eval's AP,
    ``CWL(C=NDCG-k@10)`` its scaled DCG — kept apart from the trec_eval ``AP``/``nDCG``/``RR``/``P``.
``RBP(p=0.8[,rel=k])@k``
    rank-biased precision (1-p) sum_i p^(i-1) r_i over the whole ranking (or its first k).
    As in ir_measures: with ``rel=k`` binary (r_i = 1 when grade >= k, its cwl_eval provider),
    without ``rel`` graded with r_i = the grade itself when it is positive (its trectools
    provider; no tie averaging).
``ERR(gmax=4)@k``
    expected reciprocal rank as gdeval (ir_measures' ERR@k provider):
    r_i = (2^g - 1) / 2^gmax with gdeval's fixed gmax = 4; negative grades and unjudged → 0.

Gains of ``CWLA``/``CWL``: the ``gains=`` mapping of the evaluation when given, else the grade
divided by ``gmax`` when that parameter is set, else ``"auto"`` (grades in [0, 1] unchanged; the
grade divided by the largest judged grade when that exceeds 1; negatives 0).  Unjudged
documents have gain 0; rankings are padded with gain 0 to the depth (default 1000, cwl_eval's).
"""

from __future__ import annotations

import numpy as np

from .. import cwl as _cwl
from ..align import segment_sum
from .registry import REQUIRED, EvalContext, Measure, MeasureDef, MeasureParamError, register

DEFAULT_DEPTH = 1000


def _depth(m: Measure) -> int:
    return m.cutoff if m.cutoff is not None else DEFAULT_DEPTH


def _gain_rule(ctx: EvalContext, m: Measure):
    if ctx.options.get("gains"):
        return ("map", tuple(sorted(ctx.options["gains"].items()))), dict(ctx.options["gains"])
    gmax = m.param("gmax")
    if gmax is not None:
        return ("gmax", float(gmax)), (lambda x, g=float(gmax): np.maximum(x, 0.0) / g)
    return ("auto",), "auto"


def _rankings(ctx: EvalContext, m: Measure) -> "_cwl.Rankings":
    key, rule = _gain_rule(ctx, m)
    D = _depth(m)

    def build():
        a = ctx.aligned
        g = _cwl.gain_values(a.row_rel, rule, qrels_grades=a.qrels_grades_all, max_gain=1.0, min_gain=0.0)
        gain = _cwl._dense(a, np.nan_to_num(g, nan=0.0), D, 0.0)
        return _cwl.Rankings(gain, np.ones_like(gain), np.minimum(a.group_len, D), unit_cost=True)
    return ctx.memo(("cwl_rankings", D, key), build)


def _model(ctx: EvalContext, m: Measure, cf: "_cwl.CFunction"):
    r = _rankings(ctx, m)

    def build():
        _cwl._check_gain_range(cf, r.gain, "worst")
        return _cwl.user_model(cf(r))
    key = ("cwl_model", _depth(m), _gain_rule(ctx, m)[0], cf.name) if cf.builtin else ("cwl_model", id(cf))
    return r, ctx.memo(key, build)


def _check_cwla(params: dict) -> dict:
    C, A = params["C"], params["A"]
    if not isinstance(C, str):
        raise MeasureParamError(f"C must be a C function such as RBP(p=0.8), got {C!r}")
    _cwl.c_function(C)
    _cwl.a_function(str(A))
    params["A"] = str(A)
    return _check_gmax(params)


def _check_gmax(params: dict) -> dict:
    g = params.get("gmax")
    if g is not None and (isinstance(g, bool) or not isinstance(g, (int, float)) or g <= 0):
        raise MeasureParamError(f"gmax must be a positive number, got {g!r}")
    return params


def _cwla(ctx: EvalContext, m: Measure) -> np.ndarray:
    cf = _cwl.c_function(m.param("C"))
    af = _cwl.a_function(m.param("A"))
    _cwl._warn_degenerate(cf, af, _depth(m), label=m.label)
    r, model = _model(ctx, m, cf)
    return np.einsum("ij,ij->i", model.L, af(r, model))


_OUTS = ("EU", "ETU", "EC", "ETC", "ED")


def _check_cwl(params: dict) -> dict:
    C = params["C"]
    if not isinstance(C, str):
        raise MeasureParamError(f"C must be a C function such as AP or RBP@0.8, got {C!r}")
    _cwl.c_function(C, cwl_eval_names=True)
    if params["out"] not in _OUTS:
        raise MeasureParamError(f"out must be one of {', '.join(_OUTS)}, got {params['out']!r}")
    return _check_gmax(params)


def _cwl_measure(ctx: EvalContext, m: Measure) -> np.ndarray:
    cf = _cwl.c_function(m.param("C"), cwl_eval_names=True)
    r, model = _model(ctx, m, cf)
    out = m.param("out")
    if out == "EU":
        return np.einsum("ij,ij->i", model.W, r.gain)
    if out == "ETU":
        return np.einsum("ij,ij->i", model.L, r.cum_gain)
    if out == "EC":
        return np.einsum("ij,ij->i", model.W, r.cost)
    if out == "ETC":
        return np.einsum("ij,ij->i", model.L, r.cum_cost)
    return 1.0 / (1.0 / model.vplus)


def _check_rbp(params: dict) -> dict:
    p = params["p"]
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p < 1.0:
        raise MeasureParamError(f"RBP persistence p must lie in [0, 1), got {p!r}")
    params["p"] = float(p)
    rel = params.get("rel")
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, (int, float))):
        raise MeasureParamError(f"rel must be a number (binary threshold) or omitted (graded), got {rel!r}")
    return params


def _rbp(ctx: EvalContext, m: Measure) -> np.ndarray:
    a = ctx.aligned
    p = m.param("p")
    rel = m.param("rel")
    grade = a.row_rel
    with np.errstate(invalid="ignore"):
        if rel is None:
            r = np.where(grade > 0, grade, 0.0)
        else:
            r = (grade >= rel).astype(np.float64)
    r = np.nan_to_num(r, nan=0.0)
    w = (1.0 - p) * np.power(p, (a.row_rank - 1).astype(np.float64))
    contrib = r * w
    if m.cutoff is not None:
        contrib = np.where(a.row_rank <= m.cutoff, contrib, 0.0)
    return segment_sum(contrib, a.offsets)


def _check_err(params: dict) -> dict:
    g = params["gmax"]
    if isinstance(g, bool) or not isinstance(g, (int, float)) or g <= 0:
        raise MeasureParamError(f"ERR gmax must be a positive number (gdeval uses 4), got {g!r}")
    return params


def _err(ctx: EvalContext, m: Measure) -> np.ndarray:
    a = ctx.aligned
    gmax = float(m.param("gmax"))
    grade = np.nan_to_num(a.row_rel, nan=0.0)
    if grade.size and grade.max() > gmax:
        raise MeasureParamError(f"{m.label!r}: a retrieved document has grade {grade.max()} > gmax={gmax:g}; "
                                f"gdeval refuses grades above its maximum — pass ERR(gmax=...)")
    g = np.maximum(grade, 0.0)
    r = (np.power(2.0, g) - 1.0) / np.power(2.0, gmax)
    D = int(a.group_len.max()) if a.n_groups and a.n_rows else 1
    if m.cutoff is not None:
        D = max(1, min(D, m.cutoff))
    R = _cwl._dense(a, r, D, 0.0)
    decay = np.ones_like(R)
    if D > 1:
        np.cumprod(1.0 - R[:, :-1], axis=1, out=decay[:, 1:])
    return (R * decay / np.arange(1, D + 1, dtype=np.float64)).sum(axis=1)


register(MeasureDef(
    name="CWLA", compute=_cwla, params={"C": REQUIRED, "A": "ERG", "gmax": None}, cutoff="optional",
    description="C/W/L/A metric sum_i L(i) A(i) (Moffat et al. 2022), e.g. CWLA(C=RBP(p=0.8),A=max); "
                "@k = depth of the sums (default 1000)",
    family="cwl", validate=_check_cwla, properties={"cwla": True}))
register(MeasureDef(
    name="CWL", compute=_cwl_measure, params={"C": REQUIRED, "out": "EU", "gmax": None}, cutoff="optional",
    description="a cwl_eval C/W/L metric output (out=EU|ETU|EC|ETC|ED), e.g. CWL(C=AP), CWL(C=INST-T=2)",
    family="cwl", validate=_check_cwl))
register(MeasureDef(
    name="RBP", compute=_rbp, params={"p": 0.8, "rel": None}, cutoff="optional",
    description="rank-biased precision (Moffat & Zobel); rel=k binary, else graded r = grade (ir_measures)",
    family="cwl", validate=_check_rbp))
register(MeasureDef(
    name="ERR", compute=_err, params={"gmax": 4}, cutoff="optional",
    description="expected reciprocal rank as gdeval: r = (2^g - 1) / 2^gmax, gmax = 4",
    family="cwl", validate=_check_err))
