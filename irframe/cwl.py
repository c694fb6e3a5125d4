"""C/W/L and C/W/L/A user-model metrics (Moffat, Mackenzie, Thomas & Azzopardi, "A Flexible Framework
for Offline Effectiveness Metrics", SIGIR 2022, doi:10.1145/3477495.3531924; cwl_eval).

A *continuation function* C(i) is the probability that a user who has examined
rank i goes on to rank i + 1.  From it (Moffat et al., SIGIR 2022, Eqs. 1–5):

    V(i) = prod_{j<i} C(j)          fraction of users who view rank i   (V(1) = 1)
    V+   = sum_i V(i)               expected number of documents viewed
    W(i) = V(i) / V+                share of attention paid to rank i
    L(i) = V(i) (1 - C(i))          fraction of users whose last document is rank i

and, for gains r_i in [0, 1] and per-document costs c_i (cwl_eval's outputs):

    EU  = sum W(i) r_i   (expected utility per document, the "ERG" metric)
    ETU = sum L(i) sum_{j<=i} r_j   (expected total utility, "ETG")
    EC  = sum W(i) c_i,  ETC = sum L(i) sum_{j<=i} c_j,  ED = V+ = 1 / W(1)

An *aggregation function* A(i) (Eqs. 16–24) generalises the ETG sum:
``CWLA(C, A) = sum_i L(i) A(i)`` (Eq. 15).

Everything here is computed on a dense ``G × depth`` matrix (one row per
(system, topic) pair, one column per rank, rankings padded or cut to ``depth``
exactly as cwl_eval's ``--max_depth`` does); C functions that depend on gains
already seen (RR, INST, BPM, IFT) are vectorised across rows and use cumulative
sums / logical accumulations along the rank axis — there is no loop per ranking.

Entry points
------------
- [`cwl`][irframe.cwl.cwl]: cwl_eval-compatible evaluation → ``xarray.Dataset`` (EU, ETU, EC,
  ETC, ED, residuals).
- [`cwla`][irframe.cwl.cwla]: C/W/L/A scores of (C, A) combinations → ``xarray.DataArray``.
- [`cwla_grid`][irframe.cwl.cwla_grid]: the whole C × A grid (Moffat et al., SIGIR 2022,
  Table 3) → DataArray with ``C`` and ``A`` dims.
- [`cwl_from_gains`][irframe.cwl.cwl_from_gains],
  [`cwla_from_gains`][irframe.cwl.cwla_from_gains]: the same machinery on a plain gain matrix.
- [`c_function`][irframe.cwl.c_function], [`a_function`][irframe.cwl.a_function]: parse C / A
  specifications or wrap user callables.

Examples
--------
Moffat et al., SIGIR 2022, Tables 1–2: arbitrary C(i) and gains, V+ = 4.184, ERG = 0.518, CWLA(C, A_avg) = 0.549.

>>> import numpy as np
>>> from irframe.cwl import cwl_from_gains, cwla_from_gains, CFunction
>>> r = np.array([[0.7, 0.4, 0.0, 1.0, 0.5, 0.3]])
>>> table1 = CFunction("table1", lambda rk: np.array([0.8, 1.0, 1.0, 0.7, 0.4, 0.0]))
>>> out = cwl_from_gains(r, table1)
>>> round(float(out["ED"][0]), 3), round(float(out["EU"][0]), 3)
(4.184, 0.518)
>>> round(float(cwla_from_gains(r, table1, "avg")[0]), 3)
0.549
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .align import align
from .cube import group_coords, result, scatter
from .errors import DegenerateMeasureWarning, InputError, OptionError
from .io import read_cost_file
from .measures.cwl import (
    DEGENERACY_REASONS,
    check_gain_range,
    cwl_from_gains,
    cwla_from_gains,
    degeneracy,
    dense,
    gain_values,
    group_chunks,
    scores,
)
from .measures.cwl_functions import (
    A_FUNCTIONS,
    C_FUNCTIONS,
    DEFAULT_CWL_METRICS,
    TABLE3_A,
    TABLE3_C,
    AFunction,
    CFunction,
    GainRangeError,
    Rankings,
    UserModel,
    a_function,
    c_function,
    user_model,
)
from .options import CWL, Options, takes_options
from .params import COST, GAIN_BOUND, check_costs, check_flag
from .qrelsets import evaluation_dims

__all__ = [
    "A_FUNCTIONS",
    "C_FUNCTIONS",
    "DEFAULT_CWL_METRICS",
    "TABLE3_A",
    "TABLE3_C",
    "AFunction",
    "CFunction",
    "GainRangeError",
    "Rankings",
    "UserModel",
    "a_function",
    "c_function",
    "cwl",
    "cwl_from_gains",
    "cwla",
    "cwla_from_gains",
    "cwla_grid",
    "degeneracy",
    "gain_values",
    "read_cost_file",
    "user_model",
]


def _rankings(
    aligned,
    row_gain: np.ndarray,
    row_cost: np.ndarray,
    depth: int,
    *,
    worst: bool,
    min_gain: float,
    max_gain: float,
    min_cost: float,
    max_cost: float,
    groups: slice,
) -> Rankings:
    """The rankings of the groups ``groups`` (`group_chunks`), padded to ``depth``."""
    # cwl_eval hands only max_gain to its rankings: the worst case is always gain 0
    # (--min_gain just relaxes the range check), the best case max_gain
    gfill = 0.0 if worst else max_gain
    cfill = max_cost if worst else min_cost
    length = np.minimum(aligned.group_len[groups], depth)
    g = dense(aligned, np.where(np.isnan(row_gain), gfill, row_gain), depth, gfill, groups)
    if cfill == 1.0 and np.isnan(row_cost).all():
        return Rankings(g, np.ones_like(g), length, unit_cost=True)
    c = dense(aligned, np.where(np.isnan(row_cost), cfill, row_cost), depth, cfill, groups)
    return Rankings(g, c, length)


def _row_costs(
    runs: pd.DataFrame, aligned, costs: Any, element_column: str, cost_column: str | None
) -> np.ndarray:
    n = aligned.n_rows
    if cost_column is not None:
        if cost_column not in runs.columns:
            raise InputError(
                f"cost_column={cost_column!r} is not a column of the run frame; found "
                f"{', '.join(map(str, runs.columns))}"
            )
        vals = pd.to_numeric(runs[cost_column], errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isnan(vals) & ~((vals >= 0) & np.isfinite(vals))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"cost_column={cost_column!r} has {int(bad.sum())} negative or infinite cost(s), "
                f"e.g. row {runs.index[i]!r}: {vals[i]!r}; costs must be finite and >= 0"
            )
        return vals[aligned.row_source]
    if costs is None:
        return np.full(n, np.nan)
    if not isinstance(costs, Mapping):
        if not isinstance(costs, (str, os.PathLike)) and not hasattr(costs, "read"):
            raise OptionError(
                f"costs must be a mapping element type -> cost, a cost file path or None, "
                f"got {type(costs).__name__} {costs!r:.40}"
            )
        costs = read_cost_file(costs)
    costs = check_costs(costs)
    if element_column not in runs.columns:
        raise InputError(
            f"costs are given per element type, but the run frame has no {element_column!r} column "
            f"(cwl_eval reads it from the 2nd column of the result file); add it, pass "
            f"element_column='<name>', or give per-row costs with cost_column='<name>'"
        )
    et = runs[element_column].astype(str).to_numpy()[aligned.row_source]
    lookup = pd.Series({str(k): float(v) for k, v in costs.items()}, dtype=np.float64)
    return lookup.reindex(et).to_numpy(
        dtype=np.float64
    )  # unknown types → NaN (cwl_eval: max/min cost)


# =====================================================================================
# public frame-level API
# =====================================================================================
_VARS = ("EU", "ETU", "EC", "ETC", "ED")


@takes_options("align", **CWL)
@evaluation_dims
def cwl(
    runs: pd.DataFrame,
    qrels: pd.DataFrame,
    measures: str | Iterable[Any] | None = None,
    *,
    costs: Any = None,
    residuals: bool = True,
    min_gain: float = 0.0,
    max_gain: float = 1.0,
    min_cost: float = 1.0,
    max_cost: float = 1.0,
    element_column: str = "element_type",
    cost_column: str | None = None,
    judgments: str = "each",
    dialect: str = "cwl_eval",
    opts: Options,
) -> xr.Dataset:
    """C/W/L evaluation as cwl_eval 1.0.12 does it, for every system and topic at once.

    Parameters
    ----------
    runs, qrels : pandas.DataFrame
        Run frame ``system, topic, doc[, score, rank]`` and qrels ``topic, doc, rel``; ``rel``
        holds grades or gains (see ``gains``).
    measures : str, C function, or list of them, optional
        cwl_eval names (``"RBP@0.8"``, ``"INST-T=2"``, ``"NDCG-k@10"``, ``"RR"``, ``"AP"``,
        ``"U-L@50"``, ``"BPM-Static-T=1-K=10"`` …), cwl_eval metric-file lines
        (``"RBPCWLMetric(0.8)"``), irframe syntax (``"RBP(p=0.8)"``, ``"INST(T=2)"``,
        ``"SDCG@10"``, ``"TBG(H=224)"`` …, see [`c_function`][irframe.cwl.c_function]) or [`CFunction`][irframe.cwl.CFunction]
        objects / callables.  ``None``: cwl_eval's default list (`DEFAULT_CWL_METRICS`).
        The ``measure`` coordinate holds each string exactly as passed (a callable: its name).
    dialect : {"cwl_eval", "irframe"}, default "cwl_eval"
        How ``measures`` are spelled: cwl_eval's names, where ``RBP@0.8`` is RBP with
        p = 0.8 and ``RR``/``AP`` are cwl_eval's (the default: cwl_eval's metric lists
        keep their meaning), or irframe's measure grammar, where ``@`` is a cutoff and a
        cwl_eval spelling is refused with its irframe spelling ([`c_function`][irframe.cwl.c_function]).
    costs : mapping or path, optional
        Cost per element type (cwl_eval's cost file, or its path); the element type of each
        row comes from the run column ``element_column``.  Unknown types and no costs at all
        cost ``max_cost`` (worst case) / ``min_cost`` (best case), both 1 by default.
    residuals : bool, default True
        Also compute the best case (unjudged and padded documents get ``max_gain`` and
        ``min_cost``) and report ``ResEU`` … ``ResED`` = best − worst (cwl_eval ``-r``).
    min_gain, max_gain, min_cost, max_cost : float
        cwl_eval's ``--min_gain`` etc.
    element_column, cost_column : str
        Column with the element type of each row / with a per-row cost.
    judgments : {"each", "common"}, default "each"
        With ``qrels={name: frame}`` (several judgment sets): the policy for documents
        judged in only some of them; the result gets a last ``qrels`` dim
        ([`irframe.qrelsets`][irframe.qrelsets]).

    Returns
    -------
    xarray.Dataset
        Variables ``EU, ETU, EC, ETC, ED`` (worst case: unjudged = gain 0, as cwl_eval prints),
        ``ResEU, ResETU, ResEC, ResETC, ResED`` (when ``residuals``) and ``Tail``; dims
        ``(system, topic, measure)``; coordinate ``cwl_name`` (cwl_eval's printed name).
        NaN where a system did not retrieve for a topic.

    Notes
    -----
    cwl_eval reads the result file line by line: pass ``order="input"`` to reproduce it on a
    frame in file order (``irframe.read_run`` keeps file order).  ``Tail`` reports V(depth+1),
    the share of users the model sends beyond the ``depth`` cut.
    Differences from the cwl_eval command line, all deliberate: topics are those present in
    the run *and* the qrels (cwl_eval also prints run topics without judgments, with zero
    gain); duplicate (system, topic, doc) rows are an error unless ``duplicates="first"``;
    many systems are evaluated at once.

    See Also
    --------
    - [`df.ir.cwl`][irframe.IrAccessor.cwl]: the accessor form.
    - [`evaluate`][irframe.evaluate] with ``"CWL(C=...)"``: one output as a measure of a score cube.
    - [`cwla`][irframe.cwl.cwla]: C/W/L/A, with an aggregation function.
    - [C/W/L and C/W/L/A](../cwl.md): the guide.

    Examples
    --------
    >>> import pandas as pd
    >>> import irframe as irf
    >>> run = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a", "b", "c"], "score": [3., 2., 1.]})
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["a", "c"], "rel": [1, 1]})
    >>> ds = irf.cwl.cwl(run, qrels, ["P@2", "RBP@0.5"])
    >>> ds.EU.sel(system="s", topic="1").round(4).values.tolist()
    [0.5, 0.625]
    >>> float(ds.ResEU.sel(system="s", topic="1", measure="P@2"))  # "b" is unjudged: up to +1/2
    0.5
    """
    residuals = check_flag("residuals", residuals)
    cfs, labels = _c_functions(measures, dialect)
    kw = _gain_cost_bounds(min_gain, max_gain, min_cost, max_cost)
    min_gain, max_gain = kw["min_gain"], kw["max_gain"]
    gains = opts.gains
    aligned = align(runs, qrels, opts=opts)
    assert opts.depth is not None  # (CWL["depth"] refuses None)
    row_gain = gain_values(
        aligned.row_rel,
        gains,
        qrels_grades=aligned.qrels_grades_all,
        min_gain=min_gain,
        max_gain=max_gain,
    )
    row_cost = _row_costs(runs, aligned, costs, element_column, cost_column)
    values: dict[str, np.ndarray] = {}
    for groups in group_chunks(aligned, opts.depth):  # memory bounded whatever the groups
        worst = _rankings(aligned, row_gain, row_cost, opts.depth, worst=True, groups=groups, **kw)
        best = (
            _rankings(aligned, row_gain, row_cost, opts.depth, worst=False, groups=groups, **kw)
            if residuals
            else None
        )
        for v, x in _cwl_values(worst, best, cfs).items():
            values.setdefault(v, np.empty((aligned.n_groups, len(cfs))))[groups] = x
    coords = {
        **group_coords(aligned),
        "measure": np.asarray(labels, dtype=object),
        "cwl_name": ("measure", np.asarray([c.cwl_name or c.name for c in cfs], dtype=object)),
    }
    ds = result(
        {v: scatter(aligned, x) for v, x in values.items()},
        ("system", "topic", "measure"),
        coords,
        options=opts,
        measures=[c.name for c in cfs],
        attrs={"residuals": int(residuals), **kw, "gains": _gains_attr(gains)},
    )
    for v, d in _DESCRIPTIONS.items():
        ds[v].attrs["description"] = d
    for v in _COSTS:  # every C function's cost: the lower the better (report, flips)
        ds[v].attrs["lower_is_better"] = "; ".join(labels)
    return ds


_COSTS = ("EC", "ETC")


_DESCRIPTIONS = {
    "EU": "expected utility per document (ERG form)",
    "ETU": "expected total utility (ETG form)",
    "EC": "expected cost per document",
    "ETC": "expected total cost",
    "ED": "expected depth = V+ (documents examined)",
    "Tail": "V(depth+1): share of users still reading at the depth cut",
}


def _gain_cost_bounds(
    min_gain: Any, max_gain: Any, min_cost: Any, max_cost: Any
) -> dict[str, float]:
    """cwl_eval's --min_gain/--max_gain/--min_cost/--max_cost, checked by the shared specs."""
    min_gain, max_gain = (
        GAIN_BOUND.check("min_gain", min_gain),
        GAIN_BOUND.check("max_gain", max_gain),
    )
    min_cost, max_cost = COST.check("min_cost", min_cost), COST.check("max_cost", max_cost)
    if min_gain > max_gain or min_cost > max_cost:
        raise OptionError(
            f"need min_gain <= max_gain and min_cost <= max_cost, got min_gain={min_gain}, "
            f"max_gain={max_gain}, min_cost={min_cost}, max_cost={max_cost}"
        )
    return {"min_gain": min_gain, "max_gain": max_gain, "min_cost": min_cost, "max_cost": max_cost}


def _gains_attr(gains: Any) -> str:
    return "grade" if gains is None else (gains if isinstance(gains, str) else "user")


def _c_functions(measures: Any, dialect: str) -> tuple[list[CFunction], list[str]]:
    """C functions of [`cwl`][irframe.cwl.cwl]'s ``measures`` (cwl_eval names) and their labels, as passed."""
    specs = (
        list(DEFAULT_CWL_METRICS)
        if measures is None
        else (
            [measures]
            if isinstance(measures, (str, CFunction)) or callable(measures)
            else list(measures)
        )
    )
    if not specs:
        raise OptionError(
            "no measures given; pass e.g. ['RBP@0.8', 'INST-T=2'] or None for cwl_eval's defaults"
        )
    cfs = [c_function(s, dialect=dialect) for s in specs]
    labels = [s if isinstance(s, str) else c.name for s, c in zip(specs, cfs, strict=True)]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise OptionError(f"measure(s) {dup} requested twice")
    return cfs, labels


def _cwl_values(
    worst: Rankings, best: Rankings | None, cfs: Sequence[CFunction]
) -> dict[str, np.ndarray]:
    """(G, M) arrays of EU … ED (worst case), Res* = best − worst (when ``best``) and Tail."""
    G, M = worst.shape[0], len(cfs)
    vals = {v: np.empty((G, M)) for v in _VARS}
    if best is not None:
        vals.update({"Res" + v: np.empty((G, M)) for v in _VARS})
    vals["Tail"] = np.empty((G, M))
    for j, cf in enumerate(cfs):
        out, m = scores(worst, cf, "worst")
        for v in _VARS:
            vals[v][:, j] = out[v]
        vals["Tail"][:, j] = m.tail
        if best is not None:
            out_b, _ = scores(best, cf, "best")
            for v in _VARS:
                vals["Res" + v][:, j] = out_b[v] - out[v]
    return vals


def _parse_grid(Cs: Any, As: Any) -> tuple[list, list[CFunction], list, list[AFunction]]:
    Cs = (
        list(TABLE3_C)
        if Cs is None
        else ([Cs] if isinstance(Cs, (str, CFunction)) or callable(Cs) else list(Cs))
    )
    As = (
        list(TABLE3_A)
        if As is None
        else ([As] if isinstance(As, (str, AFunction)) or callable(As) else list(As))
    )
    cfs = [c_function(c) for c in Cs]
    afs = [a_function(a) for a in As]
    clab = [c if isinstance(c, str) else f.name for c, f in zip(Cs, cfs, strict=True)]
    alab = [a if isinstance(a, str) else f.name for a, f in zip(As, afs, strict=True)]
    for what, lab in (("C", clab), ("A", alab)):
        dup = sorted({x for x in lab if lab.count(x) > 1})
        if dup:
            raise OptionError(f"{what} function(s) {dup} given twice")
    return clab, cfs, alab, afs


def _grid_values(r: Rankings, cfs: Sequence[CFunction], afs: Sequence[AFunction]) -> np.ndarray:
    """(G, nC, nA) CWLA values; each C's user model is computed once and shared by all A."""
    out = np.empty((r.shape[0], len(cfs), len(afs)))
    for i, cf in enumerate(cfs):
        check_gain_range(cf, r.gain, "worst")
        m = user_model(cf(r))
        for j, af in enumerate(afs):
            out[:, i, j] = np.einsum("ij,ij->i", m.L, af(r, m))
    return out


@takes_options("align", **CWL)
@evaluation_dims
def cwla_grid(
    runs: pd.DataFrame,
    qrels: pd.DataFrame,
    C: Any = None,
    A: Any = None,
    *,
    warn: bool = True,
    judgments: str = "each",
    opts: Options,
) -> xr.DataArray:
    """Every C × A combination (Moffat et al., SIGIR 2022, Table 3) for every system and topic, in one cube.

    Parameters
    ----------
    runs, qrels : pandas.DataFrame
        The run frame and the judgments, as for [`irframe.evaluate`][irframe.evaluate].
    C, A : list of specifications, optional
        C functions ([`c_function`][irframe.cwl.c_function]) and A functions ([`a_function`][irframe.cwl.a_function]).  Defaults:
        the seven rows and eight columns of Tables 3–4 with Table 4's parameters,
        `TABLE3_C` = P@5, RBP(p=0.8), DCG@5, AP1, RR, INST(T=2.25), AP2 and
        `TABLE3_A` = ETG, ERG, ERR, avg, max, fin, fig(delta=0.8), PE(beta=0.5).
    warn : bool
        Emit [`DegenerateMeasureWarning`][irframe.errors.DegenerateMeasureWarning] for constant ("X") and
        order-blind ("XX") combinations.
    judgments : {"each", "common"}, default "each"
        With ``qrels={name: frame}`` (several judgment sets): the policy for documents
        judged in only some of them; the result gets a last ``qrels`` dim
        ([`irframe.qrelsets`][irframe.qrelsets]).

    Returns
    -------
    xarray.DataArray
        Dims ``("system", "topic", "C", "A")``; coordinate ``flag`` (C × A) holds "X", "XX"
        or "" (detected by [`degeneracy`][irframe.cwl.degeneracy]).  NaN where a system did not retrieve for a topic.

    See Also
    --------
    - [`df.ir.cwla_grid`][irframe.IrAccessor.cwla_grid]: the accessor form.
    - [`grid_heatmap`][irframe.plot.grid_heatmap]: draw the grid.

    Examples
    --------
    >>> import warnings, pandas as pd
    >>> import irframe as irf
    >>> run = pd.DataFrame({"system": "s", "topic": "1", "doc": list("abcd"), "score": [4., 3, 2, 1]})
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["b", "d"], "rel": [2, 1]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     grid = irf.cwl.cwla_grid(run, qrels, depth=10, gains="auto")
    >>> grid.dims, grid.shape
    (('system', 'topic', 'C', 'A'), (1, 1, 7, 8))
    >>> str(grid.flag.sel(C="P@5", A="ERR").item()), str(grid.flag.sel(C="AP2", A="ETG").item())
    ('X', 'XX')
    """
    warn = check_flag("warn", warn)
    clab, cfs, alab, afs = _parse_grid(C, A)
    gains = opts.gains
    aligned = align(runs, qrels, opts=opts)
    assert opts.depth is not None  # (CWL["depth"] refuses None)
    g = np.nan_to_num(
        gain_values(aligned.row_rel, gains, qrels_grades=aligned.qrels_grades_all), nan=0.0
    )
    grid = np.empty((aligned.n_groups, len(cfs), len(afs)))
    for groups in group_chunks(aligned, opts.depth):  # memory bounded whatever the groups
        gain = dense(aligned, g, opts.depth, 0.0, groups)
        length = np.minimum(aligned.group_len[groups], opts.depth)
        grid[groups] = _grid_values(
            Rankings(gain, np.ones_like(gain), length, unit_cost=True), cfs, afs
        )
    flags = np.array(
        [[degeneracy(cf, af, depth=opts.depth) for af in afs] for cf in cfs], dtype=object
    )
    if warn:
        for i, j in zip(*np.nonzero(flags != ""), strict=True):
            warnings.warn(
                f"CWLA(C={clab[i]},A={alab[j]}): {DEGENERACY_REASONS[flags[i, j]]}",
                DegenerateMeasureWarning,
                stacklevel=6,  # the caller of cwla_grid (through takes_options and judgment sets)
            )
    coords = {
        **group_coords(aligned),
        "C": np.asarray(clab, dtype=object),
        "A": np.asarray(alab, dtype=object),
        "flag": (("C", "A"), flags),
    }
    return result(
        scatter(aligned, grid),
        ("system", "topic", "C", "A"),
        coords,
        name="CWLA",
        options=opts,
        measures=[f"CWLA(C={c.name},A={a.name})" for c in cfs for a in afs],
        attrs={"gains": _gains_attr(gains)},
    )


def cwla(
    runs: pd.DataFrame, qrels: pd.DataFrame, C: Any, A: Any = "ERG", **options: Any
) -> xr.DataArray:
    """CWLA(C, A) for one or more C and A functions → DataArray ``(system, topic, C, A)``.

    A thin wrapper of [`cwla_grid`][irframe.cwl.cwla_grid] for a single combination or a few; options as there.

    Parameters
    ----------
    runs, qrels : pandas.DataFrame
        Run frame and judgments, as for [`irframe.evaluate`][irframe.evaluate].
    C : str, CFunction, callable or list of them
        Continuation functions (see [`c_function`][irframe.cwl.c_function]).
    A : str, AFunction, callable or list of them
        Aggregation functions (see [`a_function`][irframe.cwl.a_function]); default ``"ERG"``.
    **options
        As for [`cwla_grid`][irframe.cwl.cwla_grid].

    Returns
    -------
    xarray.DataArray
        ``(system, topic, C, A)``.

    See Also
    --------
    - [`cwla_grid`][irframe.cwl.cwla_grid]: every C × A combination at once.
    - [`cwl`][irframe.cwl.cwl]: C/W/L without A.

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.synthetic(systems=3, topics=5, depth=20, rng=0)
    >>> irf.cwl.cwla(runs, qrels, "RBP(p=0.8)", ["ERG", "max"], gains="auto").sizes["A"]
    2
    """
    return cwla_grid(runs, qrels, C, A, **options)
