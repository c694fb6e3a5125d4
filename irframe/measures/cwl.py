"""C/W/L, C/W/L/A, RBP and ERR in the ``.ir.metric()`` namespace.

Registered measure strings
--------------------------
``CWLA(C=<C function>,A=<A function>)@depth``
    sum_i L(i) A(i) (Moffat et al., SIGIR 2022, Eq. 15), e.g. ``CWLA(C=RBP(p=0.8),A=max)``,
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

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..align import segment_sum
from ..errors import DegenerateMeasureWarning
from ..params import check_gains
from . import ties
from .cwl_functions import (
    AFunction,
    CFunction,
    GainRangeError,
    Rankings,
    UserModel,
    a_function,
    c_function,
    user_model,
)
from .registry import REQUIRED, EvalContext, Measure, MeasureDef, MeasureParamError, Param, register

__all__ = [
    "DEFAULT_DEPTH",
    "DEGENERACY_REASONS",
    "check_gain_range",
    "cwl_from_gains",
    "cwla_from_gains",
    "degeneracy",
    "dense",
    "gain_values",
    "group_chunks",
    "scores",
    "warn_degenerate",
]

DEFAULT_DEPTH = 1000


# =====================================================================================
# evaluation on gain matrices
# =====================================================================================
def check_gain_range(cf: CFunction, gain: np.ndarray, case: str) -> None:
    if cf.gain_range is None or gain.size == 0:
        return
    lo, hi = cf.gain_range
    gmin, gmax = float(gain.min()), float(gain.max())
    if gmin < lo or gmax > hi:
        bad = gmax if gmax > hi else gmin
        raise GainRangeError(
            f"C function {cf.name} (cwl_eval {cf.cwl_name or cf.name}) needs gains in [{lo}, {hi}] but the "
            f"{case}-case gains reach {bad} (unjudged documents and padding take "
            f"{'max_gain' if case == 'best' else '0'} there); map grades into [0, 1] with gains=..., "
            f"or drop this metric"
        )


def scores(r: Rankings, cf: CFunction, case: str = "worst") -> tuple[dict, UserModel]:
    check_gain_range(cf, r.gain, case)
    m = user_model(cf(r))
    ein = np.einsum
    out = {
        "EU": ein("ij,ij->i", m.W, r.gain),
        "ETU": ein("ij,ij->i", m.L, r.cum_gain),
        "EC": ein("ij,ij->i", m.W, r.cost),
        "ETC": ein("ij,ij->i", m.L, r.cum_cost),
        "ED": 1.0 / (1.0 / m.vplus),
    }
    return out, m


def cwl_from_gains(
    gains: Any, C: str | CFunction | Callable, *, costs: Any = None
) -> dict[str, np.ndarray]:
    """EU, ETU, EC, ETC, ED (and ``Tail`` = V(D+1)) of a gain matrix under one C function.

    ``gains`` is (G, D) (or one ranking as a 1-D array): row = ranking, column = rank, every
    value already a gain (no NaN).  Costs default to 1 per document.

    Parameters
    ----------
    gains : array_like
        (G, D) gains, one row per ranking, rank 1 in column 0 (or one ranking as a 1-D array).
    C : str, CFunction or callable
        The continuation function (see [`c_function`][irframe.cwl.c_function]).
    costs : array_like, optional
        Same shape as ``gains``; default 1 per document.

    Returns
    -------
    dict of str to numpy.ndarray
        ``EU, ETU, EC, ETC, ED, Tail``, one value per row.

    Examples
    --------
    >>> from irframe.cwl import cwl_from_gains
    >>> {k: round(float(v[0]), 4) for k, v in cwl_from_gains([1, 0, 1, 0], "P@2").items()}
    {'EU': 0.5, 'ETU': 1.0, 'EC': 1.0, 'ETC': 2.0, 'ED': 2.0, 'Tail': 0.0}
    """
    r = Rankings.from_gains(gains, costs)
    out, m = scores(r, c_function(C))
    out["Tail"] = m.tail
    return out


def cwla_from_gains(
    gains: Any, C: str | CFunction | Callable, A: str | AFunction | Callable, *, costs: Any = None
) -> np.ndarray:
    """CWLA(C, A) = sum_i L(i) A(i) (Eq. 15) for each row of a gain matrix.

    Parameters
    ----------
    gains : array_like
        (G, D) gains, one row per ranking, rank 1 in column 0 (or one ranking as a 1-D array).
    C : str, CFunction or callable
        The continuation function (see [`c_function`][irframe.cwl.c_function]).
    A : str, AFunction or callable
        The aggregation function (see [`a_function`][irframe.cwl.a_function]).
    costs : array_like, optional
        Same shape as ``gains``; default 1 per document.

    Returns
    -------
    numpy.ndarray
        One value per row.

    Examples
    --------
    >>> from irframe.cwl import cwla_from_gains
    >>> float(cwla_from_gains([[0, 1, 0, 1]], "RR", "ERR")[0])   # RR = 1/2
    0.5
    """
    r = Rankings.from_gains(gains, costs)
    cf, af = c_function(C), a_function(A)
    check_gain_range(cf, r.gain, "worst")
    m = user_model(cf(r))
    return np.einsum("ij,ij->i", m.L, af(r, m))


# =====================================================================================
# degenerate combinations (Table 3 "X" / "XX"), detected by probing the functions
# =====================================================================================
_DEGEN_CACHE: dict[tuple, str] = {}


def degeneracy(
    C: str | CFunction | Callable, A: str | AFunction | Callable, *, depth: int = 1000
) -> str:
    """``"X"`` if CWLA(C, A) is the same for every ranking, ``"XX"`` if it depends only on the
    set of gains (every permutation scores the same), ``""`` otherwise.

    Detected from the functions' behaviour, not from their names: both functions are
    evaluated on random rankings (fixed seed) — graded and binary gains, many zeros — and on
    permutations of them.  Works for user-supplied callables too.

    Parameters
    ----------
    C, A : str, function object or callable
        The continuation and aggregation functions.
    depth : int
        Length of the random rankings tried.

    Returns
    -------
    str
        ``"X"``, ``"XX"`` or ``""`` (the marks of Table 3 of Moffat et al., SIGIR 2022).

    Examples
    --------
    >>> from irframe.cwl import degeneracy
    >>> degeneracy("P@5", "ERR"), degeneracy("AP2", "ETG"), degeneracy("RBP(p=0.8)", "max")
    ('X', 'XX', '')
    """
    cf, af = c_function(C), a_function(A)
    depth = min(
        int(depth), 1000
    )  # probe rankings of at most cwl_eval's default depth: memory stays small
    key = (cf.name, af.name, depth) if cf.builtin and af.builtin else None
    if key is not None and key in _DEGEN_CACHE:
        return _DEGEN_CACHE[key]
    rng = np.random.default_rng(20220711)
    n = 24
    graded = rng.random((n, depth)) * (rng.random((n, depth)) < 0.4)
    binary = (rng.random((n, depth)) < 0.3).astype(np.float64)
    sparse = np.zeros((n, depth))
    top = min(depth, 12)
    sparse[:, :top] = rng.random((n, top)) * (rng.random((n, top)) < 0.5)
    gains = np.vstack([graded, binary, sparse])
    perm = np.argsort(rng.random(gains.shape), axis=1)
    shuffled = np.take_along_axis(gains, perm, axis=1)
    with np.errstate(all="ignore"):
        try:
            v = cwla_from_gains(gains, cf, af)
            vp = cwla_from_gains(shuffled, cf, af)
        except GainRangeError:  # pragma: no cover - probing gains lie in [0, 1]
            return ""
    scale = max(1.0, float(np.nanmax(np.abs(v))) if np.isfinite(v).any() else 1.0)
    tol = 1e-9 * scale
    if np.all(np.isfinite(v)) and np.ptp(np.concatenate([v, vp])) <= tol:
        flag = "X"
    elif np.all(np.isfinite(v)) and np.allclose(v, vp, rtol=0, atol=tol):
        flag = "XX"
    else:
        flag = ""
    if key is not None:
        _DEGEN_CACHE[key] = flag
    return flag


DEGENERACY_REASONS = {
    "X": "neither its C function nor its A function uses the gains, so it is a constant "
    "(an 'X' cell of Table 3 in Moffat et al. 2022)",
    "XX": "it depends only on the set of gains, not on their order, so it cannot distinguish two "
    "rankings of the same documents (an 'XX' cell of Table 3 in Moffat et al. 2022)",
}


def warn_degenerate(cf: CFunction, af: AFunction, depth: int, label: str | None = None) -> str:
    flag = degeneracy(cf, af, depth=depth)
    if flag:
        warnings.warn(
            f"{label or f'CWLA(C={cf.name},A={af.name})'}: {DEGENERACY_REASONS[flag]}",
            DegenerateMeasureWarning,
            stacklevel=3,
        )
    return flag


# =====================================================================================
# gains and costs from frames
# =====================================================================================
def gain_values(
    grades: np.ndarray,
    gains: Any,
    *,
    qrels_grades: np.ndarray | None = None,
    min_gain: float = 0.0,
    max_gain: float = 1.0,
) -> np.ndarray:
    """Map grades (NaN = unjudged, kept NaN) to gains.

    ``gains``:
      * ``None`` — the grade *is* the gain (cwl_eval); every qrels grade must lie in
        [min_gain, max_gain] (else [`GainRangeError`][irframe.cwl.GainRangeError], as cwl_eval);
      * ``"auto"`` — grades in [0, 1] are used as they are; when the largest grade exceeds 1
        every grade is divided by it (0/1/2 → 0, 0.5, 1); negative grades become 0;
      * ``"scale"`` — grade / largest grade, negatives 0;
      * a mapping grade → gain (grades not listed: their own value), or a vectorised
        callable ``f(grades) -> gains``; the results must lie in [min_gain, max_gain].

    ``qrels_grades`` are all judged grades (the range check runs on them, as cwl_eval
    checks the whole gain file).

    Parameters
    ----------
    grades : numpy.ndarray
        One grade per row (NaN: unjudged).
    gains : None, "auto", "scale", mapping or callable
        The rule above.
    qrels_grades : numpy.ndarray, optional
        Every judged grade of the qrels (default: ``grades``).
    min_gain, max_gain : float, default 0 and 1
        The range gains must lie in (cwl_eval's ``--min_gain`` / ``--max_gain``).

    Returns
    -------
    numpy.ndarray
        One gain per row, NaN where the grade is.
    """
    grades = np.asarray(grades, dtype=np.float64)
    allg = (
        grades[~np.isnan(grades)]
        if qrels_grades is None
        else np.asarray(qrels_grades, dtype=np.float64)
    )
    gmax = float(allg.max()) if allg.size else 1.0

    def apply(x: np.ndarray) -> np.ndarray:
        if gains is None:
            return x.copy()
        if isinstance(gains, str):
            if gains == "auto":
                return np.maximum(x, 0.0) / gmax if gmax > 1.0 else np.maximum(x, 0.0)
            if gains == "scale":
                return np.maximum(x, 0.0) / gmax if gmax > 0 else np.zeros_like(x)
            raise ValueError(
                f"gains={gains!r}: use None, 'auto', 'scale', a mapping grade -> gain, or a callable"
            )
        if isinstance(gains, Mapping):
            out = x.copy()
            for k, v in (check_gains(gains) or {}).items():  # (None only for None)
                out[x == float(k)] = v
            return out
        if callable(gains):
            out = np.asarray(gains(x.copy()), dtype=np.float64)
            if out.shape != x.shape:
                raise ValueError(
                    f"gains callable returned shape {out.shape} for {x.shape} grades; it must "
                    f"be vectorised (numpy array in, same-shape array out)"
                )
            return out
        raise TypeError(
            f"gains must be None, 'auto', 'scale', a mapping or a callable, got {type(gains).__name__}"
        )

    checked = apply(np.unique(allg))
    if checked.size:
        lo, hi = float(np.nanmin(checked)), float(np.nanmax(checked))
        if hi > max_gain:
            raise GainRangeError(
                f"Detected a gain value ({hi}) greater than the maximum ({max_gain}) — cwl_eval refuses this "
                f"too. Map grades into [0, 1] with gains='auto' (grade / largest grade), gains={{0: 0, 1: 0.5, "
                f"2: 1}} or a callable, or allow it with max_gain={hi} (cwl_eval --max_gain)"
            )
        if lo < min_gain:
            raise GainRangeError(
                f"Detected a gain value ({lo}) less than the minimum ({min_gain}) — cwl_eval refuses this too. "
                f"Map negative grades to 0 with gains='auto', or allow them with min_gain={lo} (cwl_eval --min_gain)"
            )
        if np.isnan(checked).any():
            raise GainRangeError(
                "gains= mapped some grades to NaN; every judged grade needs a finite gain"
            )
    out = np.full(grades.shape, np.nan)
    ok = ~np.isnan(grades)
    out[ok] = apply(grades[ok])
    return out


#: C/W/L pads every ranking to its depth (cwl_eval's --max_depth): the dense G × depth matrices
#: may exceed the input only up to this many cells per group (the default depth) ...
PAD_CELLS_PER_GROUP = 1000
#: ... or this many cells in all (128 MB per float64 matrix), whichever is larger.
PAD_CELLS = 2**24


def check_dense_size(aligned, depth: int) -> None:
    """Refuse a padded G × depth matrix far larger than the input (memory never follows a user depth).

    Allowed: depth <= the longest ranking (the matrix is then at most G × longest), or at most
    ``PAD_CELLS_PER_GROUP`` cells per group, or ``PAD_CELLS`` cells in all.  Padding changes
    C/W/L values (expected costs and depths count padded positions, as in cwl_eval), so a
    larger depth is an error naming the size, not a silent clamp.
    """
    G = aligned.n_groups
    longest = int(aligned.group_len.max()) if G and aligned.n_rows else 0
    if depth <= max(longest, PAD_CELLS_PER_GROUP) or G * depth <= PAD_CELLS:
        return
    from ..errors import OptionError

    gb = G * depth * 8 / 1e9
    raise OptionError(
        f"C/W/L depth {depth} pads every ranking to {depth} positions (cwl_eval --max_depth): {G} × {depth} "
        f"matrices of {gb:.3g} GB each, while the longest ranking has {longest} document(s). Use a depth "
        f"up to {max(longest, PAD_CELLS_PER_GROUP)} (depth=/@k; cwl_eval's default is 1000)."
    )


def dense(
    aligned, row_values: np.ndarray, depth: int, fill: float, groups: slice | None = None
) -> np.ndarray:
    """Scatter per-row values into a (G, depth) matrix (rank r → column r-1); ``fill`` elsewhere.

    ``groups`` (a ``slice(g0, g1)`` of `group_chunks`): the rows of those groups only, a
    (g1 - g0, depth) matrix; ``row_values`` are still one per row of ``aligned``.
    """
    check_dense_size(aligned, depth)
    g0, g1 = (0, aligned.n_groups) if groups is None else (groups.start, groups.stop)
    lo, hi = int(aligned.offsets[g0]), int(aligned.offsets[g1])
    M = np.full((g1 - g0, depth), fill, dtype=np.float64)
    rank = aligned.row_rank[lo:hi]
    keep = rank <= depth
    flat = (aligned.row_group[lo:hi] - g0) * depth + (rank - 1)
    values = row_values[lo:hi]
    if keep.all():
        M.reshape(-1)[flat] = values
    else:
        M.reshape(-1)[flat[keep]] = values[keep]
    return M


#: C/W/L's G × depth matrices are built for this many cells at a time (8 MB per float64
#: matrix): many short rankings padded to the default depth 1000 (cwl_eval's) would
#: otherwise take memory in proportion to groups × depth, far beyond the input
CHUNK_CELLS = 2**20


def group_chunks(aligned, depth: int) -> list[slice]:
    """Consecutive group ranges whose dense matrices hold at most `CHUNK_CELLS` cells each
    (one group at least): C/W/L values are per ranking, so each range is computed alone."""
    G = aligned.n_groups
    step = max(1, CHUNK_CELLS // max(depth, 1))
    return [slice(g, min(g + step, G)) for g in range(0, G, step)] or [slice(0, 0)]


# =====================================================================================
# registered measures
# =====================================================================================


def _depth(m: Measure) -> int:
    return m.cutoff if m.cutoff is not None else DEFAULT_DEPTH


def _gain_rule(ctx: EvalContext, m: Measure):
    if ctx.options.get("gains"):
        return ("map", tuple(sorted(ctx.options["gains"].items()))), dict(ctx.options["gains"])
    gmax = m.param("gmax")
    if gmax is not None:
        if m.param("clip"):  # ir_measures' max_rel: grades clipped into [0, max_rel], then scaled
            return ("gmax_clip", float(gmax)), (lambda x, g=float(gmax): np.clip(x, 0.0, g) / g)
        return ("gmax", float(gmax)), (lambda x, g=float(gmax): np.maximum(x, 0.0) / g)
    return ("auto",), "auto"


def _rankings(ctx: EvalContext, m: Measure, groups: slice) -> Rankings:
    """The rankings of the groups ``groups`` (`group_chunks`), padded to the measure's depth."""
    key, rule = _gain_rule(ctx, m)
    D = _depth(m)
    a = ctx.aligned

    def gains():
        return np.nan_to_num(
            gain_values(
                a.row_rel, rule, qrels_grades=a.qrels_grades_all, max_gain=1.0, min_gain=0.0
            ),
            nan=0.0,
        )

    g = ctx.memo(("cwl_row_gains", key), gains)  # one per row: the input's size
    # padding after the end of a ranking: gain 0, or in the all-relevant labelling of
    # irframe.measures.unjudged the gain of the stated grade (cwl_eval's best case)
    fill = a.extras.get("unjudged_grade")
    pad = (
        0.0
        if fill is None
        else float(
            gain_values(
                np.array([fill]),
                rule,
                qrels_grades=a.qrels_grades_all,
                max_gain=np.inf,
                min_gain=-np.inf,
            )[0]
        )
    )
    gain = dense(a, g, D, pad, groups)
    return Rankings(gain, np.ones_like(gain), np.minimum(a.group_len[groups], D), unit_cost=True)


def _per_ranking(ctx: EvalContext, m: Measure, cf: CFunction, value) -> np.ndarray:
    """``value(rankings, user model)`` of every group, computed over `group_chunks` (memory
    bounded by `CHUNK_CELLS`, whatever the number of rankings); with one chunk, the
    rankings and the model are kept for the other C/W/L measures of the evaluation."""
    a = ctx.aligned
    D = _depth(m)
    chunks = group_chunks(a, D)

    def model_of(r: Rankings):
        check_gain_range(cf, r.gain, "worst")
        return user_model(cf(r))

    if len(chunks) == 1:
        key = _gain_rule(ctx, m)[0]
        r = ctx.memo(("cwl_rankings", D, key), lambda: _rankings(ctx, m, chunks[0]))
        model_key = ("cwl_model", D, key, cf.name) if cf.builtin else ("cwl_model", id(cf))
        return value(r, ctx.memo(model_key, lambda: model_of(r)))
    out = np.empty(a.n_groups)
    for groups in chunks:
        r = _rankings(ctx, m, groups)
        out[groups] = value(r, model_of(r))
    return out


def _c_check(dialect: str):
    def check(text: str) -> None:
        c_function(text, dialect=dialect)

    return check


GMAX_OPT = Param(
    "float",
    None,
    low=0,
    low_open=True,
    description="gain = grade / gmax (default: grades scaled into [0, 1] automatically)",
)
CLIP_OPT = Param(
    "bool",
    False,
    description="with gmax: grades above gmax count as gmax (ir_measures' max_rel) "
    "instead of an error",
)
C_IRF = Param(
    "str",
    REQUIRED,
    check_fn=_c_check("irframe"),
    allowed_text="a C function such as RBP(p=0.8)",
    description="the C function (continuation probabilities) of the user model",
)
A_FN = Param(
    "str",
    "ERG",
    check_fn=lambda text: a_function(text) and None,
    allowed_text="an A function such as ERG, max, fig(delta=0.8)",
    description="the A function",
)
C_CWL = Param(
    "str",
    REQUIRED,
    check_fn=_c_check("cwl_eval"),
    allowed_text="a C function such as AP or RBP@0.8",
    description="the C function, in cwl_eval's spelling (RBP@0.8: p = 0.8)",
)


def _cwla(ctx: EvalContext, m: Measure) -> np.ndarray:
    cf = c_function(m.param("C"))
    af = a_function(m.param("A"))
    warn_degenerate(cf, af, _depth(m), label=m.label)
    return _per_ranking(ctx, m, cf, lambda r, model: np.einsum("ij,ij->i", model.L, af(r, model)))


_OUTS = ("EU", "ETU", "EC", "ETC", "ED")


OUT = Param("str", "EU", choices=_OUTS, description="which cwl_eval output")


def _cwl_measure(ctx: EvalContext, m: Measure) -> np.ndarray:
    cf = c_function(m.param("C"), dialect="cwl_eval")
    out = m.param("out")

    def value(r: Rankings, model) -> np.ndarray:
        if out == "EU":
            return np.einsum("ij,ij->i", model.W, r.gain)
        if out == "ETU":
            return np.einsum("ij,ij->i", model.L, r.cum_gain)
        if out == "EC":
            return np.einsum("ij,ij->i", model.W, r.cost)
        if out == "ETC":
            return np.einsum("ij,ij->i", model.L, r.cum_cost)
        return 1.0 / (1.0 / model.vplus)

    return _per_ranking(ctx, m, cf, value)


P_RBP = Param("float", 0.8, low=0, high=1, high_open=True, description="persistence p of RBP")
REL_RBP = Param(
    "float",
    None,
    description="binary threshold: r = 1 iff grade >= rel (default: graded r = grade)",
)


def rbp_gains(grade: np.ndarray, rel: float | None) -> np.ndarray:
    """RBP's per-document gain: binary (grade >= rel) or graded (the grade when positive)."""
    with np.errstate(invalid="ignore"):
        if rel is None:
            r = np.where(grade > 0, grade, 0.0)
        else:
            r = (grade >= rel).astype(np.float64)
    return np.nan_to_num(r, nan=0.0)


def rbp_tail(ctx: EvalContext, m: Measure) -> np.ndarray | float:
    """RBP mass of the positions after the end of each ranking (up to the cutoff) when they
    are unjudged documents of the stated grade (the ``high`` bound, Moffat & Zobel 2008); 0 otherwise."""
    a = ctx.aligned
    fill = a.extras.get("unjudged_grade")
    if fill is None:
        return 0.0
    p = m.param("p")
    r = float(rbp_gains(np.array([fill]), m.param("rel"))[0])
    n = a.group_len.astype(np.float64)
    tail = np.power(p, n)
    if m.cutoff is not None:
        tail = np.where(n < m.cutoff, tail - p**m.cutoff, 0.0)
    return r * tail


def _rbp(ctx: EvalContext, m: Measure) -> np.ndarray:
    a = ctx.aligned
    p = m.param("p")
    r = rbp_gains(a.row_rel, m.param("rel"))
    w = (1.0 - p) * np.power(p, (a.row_rank - 1).astype(np.float64))
    contrib = r * w
    if m.cutoff is not None:
        contrib = np.where(a.row_rank <= m.cutoff, contrib, 0.0)
    return segment_sum(contrib, a.offsets) + rbp_tail(ctx, m)


GMAX_ERR = Param("float", 4, low=0, low_open=True, description="largest grade (gdeval uses 4)")


def _err(ctx: EvalContext, m: Measure) -> np.ndarray:
    a = ctx.aligned
    gmax = float(m.param("gmax"))
    grade = np.nan_to_num(a.row_rel, nan=0.0)
    if grade.size and grade.max() > gmax:
        raise MeasureParamError(
            f"{m.label!r}: a retrieved document has grade {grade.max()} > gmax={gmax:g}; "
            f"gdeval refuses grades above its maximum — pass ERR(gmax=...)"
        )
    g = np.maximum(grade, 0.0)
    r = (np.power(2.0, g) - 1.0) / np.power(2.0, gmax)
    D = int(a.group_len.max()) if a.n_groups and a.n_rows else 1
    if m.cutoff is not None:
        D = max(1, min(D, m.cutoff))
    R = dense(a, r, D, 0.0)
    decay = np.ones_like(R)
    if D > 1:
        np.cumprod(1.0 - R[:, :-1], axis=1, out=decay[:, 1:])
    terms = R * decay / np.arange(1, D + 1, dtype=np.float64)
    # summed left to right, as gdeval does: numpy's sum groups the terms by the row width,
    # the longest ranking in the frame, so a ranking's value changed with the others beside
    # it (a Dask partition of short rankings gave other last bits); padding adds exact zeros
    return np.cumsum(terms, axis=1)[:, -1]  # (D >= 1)


def _exp_rbp(ctx, m):
    """RBP's expected value over tie orders: every position of a tie group holds its mean gain."""
    a = ctx.aligned
    p = m.param("p")
    r = rbp_gains(a.row_rel, m.param("rel"))
    pos = np.flatnonzero(r)
    val = ties.expected_weighted_sum(
        ctx,
        pos,
        r[pos],
        m.cutoff,
        lambda i: (1.0 - p) * np.power(p, i - 1.0),
        lambda i: 1.0 - np.power(p, i * 1.0),
    )
    return val + rbp_tail(ctx, m)


register(
    MeasureDef(
        name="CWLA",
        compute=_cwla,
        params={"C": C_IRF, "A": A_FN, "gmax": GMAX_OPT, "clip": CLIP_OPT},
        cutoff="optional",
        description="C/W/L/A metric sum_i L(i) A(i) (Moffat et al. 2022), e.g. CWLA(C=RBP(p=0.8),A=max); "
        "@k = depth of the sums (default 1000)",
        family="cwl",
        properties={"cwla": True},
        bounds="approximate",
        topic_local=True,
        reference="Tables 1-3 of Moffat et al. 2022 and the identities RBP = CWLA(C=RBP, A=fin), AP = CWLA(C=AP2, A=avg)",
        citation="Moffat, Mackenzie, Thomas & Azzopardi 2022, A Flexible Framework for Offline "
        "Effectiveness Metrics, SIGIR",
    )
)
register(
    MeasureDef(
        name="CWL",
        compute=_cwl_measure,
        params={"C": C_CWL, "out": OUT, "gmax": GMAX_OPT, "clip": CLIP_OPT},
        cutoff="optional",
        description="a cwl_eval C/W/L metric output (out=EU|ETU|EC|ETC|ED), e.g. CWL(C=AP), CWL(C=INST-T=2)",
        family="cwl",
        lower_is_better=lambda m: m.param("out") in ("EC", "ETC"),  # the costs
        bounds="approximate",
        topic_local=True,
        spellings={"ir_measures": "INST(T=1,max_rel=2)"},
        reference="cwl_eval 1.0.12 (data/cwl_eval_fixtures)",
        citation="Azzopardi, Thomas & Moffat 2019, cwl_eval, SIGIR",
    )
)
register(
    MeasureDef(
        name="RBP",
        compute=_rbp,
        params={"p": P_RBP, "rel": REL_RBP},
        cutoff="optional",
        description="rank-biased precision (Moffat & Zobel); rel=k binary, else graded r = grade (ir_measures)",
        family="cwl",
        expected=_exp_rbp,
        order_safe=True,
        bounds="exact",
        topic_local=True,
        spellings={"ir_measures": "RBP(p=0.8)", "ranx": "rbp.8"},
        reference="cwl_eval 1.0.12 RBP; ir_measures",
        citation="Moffat & Zobel 2008, ACM TOIS",
    )
)
register(
    MeasureDef(
        name="ERR",
        compute=_err,
        params={"gmax": GMAX_ERR},
        cutoff="optional",
        description="expected reciprocal rank as gdeval: r = (2^g - 1) / 2^gmax, gmax = 4",
        family="cwl",
        order_safe=True,
        bounds="exact",
        topic_local=True,
        spellings={"ir_measures": "ERR@{k}"},
        reference="gdeval (TREC Web track); ir_measures",
        citation="Chapelle, Metzler, Zhang & Grinspan 2009, CIKM",
    )
)
