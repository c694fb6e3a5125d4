"""The evaluation entry point: frames + measure strings → cube.

``evaluate`` is what ``df.ir.metric`` and the CLI call: parse the measures, align
once, run each measure's kernel over all (system, topic) groups, scatter into the
cube.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ._conventions import check_aligned, keep_present, prepare_runs
from ._lazy import xarray as xr  # imported on first use: the command line never needs it
from .align import Aligned, align
from .cube import make_cube
from .errors import ColumnError, InputError, OptionError, shown
from .measures import EvalContext, Measure, parse_measures
from .measures.ties import (
    TIE_ORDERS,
    check_tie_order,
    cut_after_order,
    expected_values,
    order_ties,
)
from .measures.unjudged import (
    BOUNDS,
    bound_exact,
    bound_grade,
    check_bounds_supported,
    label_free,
    labelled,
)
from .options import ORDERS, Options, aligned_options, make_options
from .params import check_flag, check_gains
from .qrelsets import is_qrels_sets, over_qrels
from .schema import run_frame

__all__ = [
    "Whole",
    "evaluate",
    "evaluate_aligned",
    "evaluate_groups",
    "evaluate_part",
    "list_measures",
]

_CORE_OPTIONS = ("rel_level", "gains")


def evaluate(
    runs: pd.DataFrame,
    qrels: pd.DataFrame | Mapping[str, pd.DataFrame],
    measures: str | Iterable[str],
    *,
    rel_level: float = 1,
    order: str = "trec_eval",
    complete: bool = False,
    depth: int | None = None,
    gains: Mapping[float, float] | None = None,
    judged_only: bool = False,
    duplicates: str = "error",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    system: str | None = None,
    bounds: bool = False,
    unjudged_grade: float | None = None,
    judgments: str = "each",
    **options: Any,
) -> xr.DataArray:
    """Evaluate every system of ``runs`` on every topic with the given measures.

    Parameters
    ----------
    runs : pandas.DataFrame, dict or iterable of namedtuples
        Long run frame: ``system, topic, doc`` and ``score`` (and/or ``rank``).  Other
        tools' names are recognised (PyTerrier ``qid, docno, name``, ir_measures
        ``query_id, doc_id``, ranx ``q_id``); without a system column the frame is one
        system named ``system``.  Also ``{topic: {doc: score}}`` (pytrec_eval, ranx) and
        iterables of namedtuples such as ir_measures' ``ScoredDoc(query_id, doc_id, score)``.
    qrels : pandas.DataFrame, dict or iterable of namedtuples
        Judgments ``topic, doc, rel`` (``subtopic`` for diversity measures); PyTerrier's
        ``label``, ir_measures' ``relevance``, ir_datasets' ``qrels_iter()`` and
        ``{topic: {doc: grade}}`` are recognised as well.  A mapping ``{name: qrels
        frame}`` of several judgment sets evaluates the runs under each and adds a
        ``qrels`` dim (see ``judgments``).
    measures : str or list of str
        Measure strings such as ``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@10"`` or trec_eval
        names such as ``"map"``, ``"P_10"`` (see :func:`list_measures`).
    rel_level : float, default 1
        Binary relevance threshold: relevant ⇔ grade >= rel_level (trec_eval ``-l``).
        A measure's own ``rel=`` parameter overrides it.
    order : {"trec_eval", "trec_eval10", "rank", "input", "expected", "best", "worst"}
        Document order inside a ranking (see docs/conventions.md).  The tie-aware orders
        treat documents with equal float32 scores as tied (trec_eval's ties):
        ``"expected"`` gives the mean over all orders of the tied documents (closed forms,
        McSherry & Najork, ECIR 2008), ``"worst"``/``"best"`` the extremes (tied documents
        sorted by grade ascending/descending); see :mod:`irframe.measures.ties` for the measures
        that support them.
    complete : bool
        Evaluate every qrels topic for every system (trec_eval ``-c``); missing rankings
        are empty and score 0.
    depth : int, optional
        Truncate every ranking to ``depth`` documents after ordering (trec_eval ``-M``).
    gains : mapping, optional
        Grade → gain for the nDCG family (trec_eval ``-m ndcg.1=3,2=9``); unlisted grades
        keep their grade as gain.
    judged_only : bool
        Remove unjudged documents before evaluating (trec_eval ``-J``).
    duplicates : {"error", "first"}
        Duplicate (system, topic, doc) or qrels rows: raise (default) or keep the first.
    columns, qrels_columns : mapping, optional
        Role → column-name maps for names that are not recognised (or to choose between
        two candidates).
    system : str, optional
        Name of the one system of a run without a system column (default ``"run"``).
    bounds : bool
        Add a ``bound`` dimension: ``low`` (every unjudged retrieved document
        non-relevant, today's value), ``high`` (every one relevant at ``unjudged_grade``)
        and ``residual`` = high − low; coordinate ``bound_exact`` tells per measure whether
        low/high are the exact minimum/maximum over labellings (see :mod:`irframe.measures.unjudged`).
    unjudged_grade : float, optional
        Grade given to unjudged documents for ``high`` (default: the largest qrels grade, at
        least ``rel_level``).
    judgments : {"each", "common"}
        With several judgment sets: ``"each"`` (default) uses every set as it is, so a
        document one set did not judge is unjudged, i.e. non-relevant, under it;
        ``"common"`` keeps in every set only the (topic, doc) judgments all sets share
        (with ``judged_only=True`` the rankings are condensed to those documents).
        See :mod:`irframe.qrelsets`.
    **options
        Extra options consumed by specific measures (e.g. ``reference=`` for rarity).

    Returns
    -------
    xarray.DataArray
        Dims ``("system", "topic", "measure")`` (plus ``"bound"`` with ``bounds=True``);
        the ``measure`` coordinate holds the strings as passed; NaN = not evaluated.
        attrs record the options.  A run frame with a
        replicate column (``columns={"replicate": "seed"}``, or a column named
        ``replicate``) adds a ``replicate`` dim after ``system`` (NaN where a system lacks
        that replicate); several judgment sets add a last ``qrels`` dim.

    Examples
    --------
    >>> import irframe as irf, pandas as pd
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> cube = irf.evaluate(runs, qrels, ["AP", "P@10"])
    >>> cube.dims
    ('system', 'topic', 'measure')
    >>> cube.sel(measure="P@10").mean("topic").round(4).item()
    0.3

    A PyTerrier result frame and ir_measures-style qrels, as they are:

    >>> pt_res = runs.drop(columns="system").rename(columns={"topic": "qid", "doc": "docno"})
    >>> ir_qrels = qrels.rename(columns={"topic": "query_id", "doc": "doc_id", "rel": "relevance"})
    >>> irf.evaluate(pt_res, ir_qrels, "P@10", system="BM25").sel(measure="P@10").mean().round(4).item()
    0.3

    Several judgment sets, and several seeds per system:

    >>> shallow = qrels[qrels.doc.str.len() % 2 == 0]
    >>> irf.evaluate(runs, {"full": qrels, "shallow": shallow}, "AP").dims
    ('system', 'topic', 'measure', 'qrels')
    >>> seeds = pd.concat([runs.assign(seed=s) for s in (1, 2)])
    >>> irf.evaluate(seeds, qrels, "AP", columns={"replicate": "seed"}).dims
    ('system', 'replicate', 'topic', 'measure')
    """
    runs, columns, system, empty, systems = prepare_runs(runs, columns, system)  # peers' forms
    if systems is not None or (empty and not complete):
        # {topic: {}}: present, retrieved nothing -> scored as with -c (then the other cells
        # dropped again); several runs: the cube keeps their order
        cube = evaluate(
            runs,
            qrels,
            measures,
            rel_level=rel_level,
            order=order,
            complete=complete or bool(empty),
            depth=depth,
            gains=gains,
            judged_only=judged_only,
            duplicates=duplicates,
            columns=columns,
            qrels_columns=qrels_columns,
            system=system,
            bounds=bounds,
            unjudged_grade=unjudged_grade,
            judgments=judgments,
            **options,
        )
        if empty and not complete:
            cube = keep_present(cube, runs, empty, system)
        return (
            cube if systems is None else cube.sel(system=[s for s in systems if s in cube.system])
        )
    kwargs = dict(
        rel_level=rel_level,
        order=order,
        complete=complete,
        depth=depth,
        gains=gains,
        judged_only=judged_only,
        duplicates=duplicates,
        qrels_columns=qrels_columns,
        system=system,
        bounds=bounds,
        unjudged_grade=unjudged_grade,
        **options,
    )
    if is_qrels_sets(qrels):
        return over_qrels(
            lambda q: evaluate(runs, q, measures, columns=columns, **kwargs),
            qrels,
            judgments=judgments,
            columns=qrels_columns,
        )
    rep_col, columns = _replicate_role(runs, columns)
    if rep_col is not None:
        return _evaluate_replicates(runs, qrels, measures, rep_col, columns, kwargs)
    return _evaluate_frame(runs, qrels, measures, columns=columns, **kwargs)


@dataclass(frozen=True)
class Whole:
    """What a part of a bigger run frame must know about the whole to be evaluated as part of it
    (:mod:`irframe.dask` evaluates a frame one partition at a time).

    ``systems``: every system of the whole frame (sorted by code point, as ``align`` sorts them):
    the part's cube gets a row for each (NaN, or an empty ranking's values with ``complete=True``),
    and the measures comparing systems (rarity's S, ``LR``) see all of them.  ``grades``: every
    grade of the whole qrels frame (:attr:`irframe.align.Aligned.qrels_grades_all`: C/W/L gain
    scales, ``dcg="exp-log2"``, the unjudged bound).  None keeps the part's own.
    """

    systems: np.ndarray | None = None
    grades: np.ndarray | None = None

    def align(self, runs: pd.DataFrame, qrels: pd.DataFrame, opts: Options) -> Aligned:
        """``runs`` aligned with ``opts`` (:class:`irframe.options.Options`), as if within the whole."""
        return self.widen(align(runs, qrels, **opts.align_kwargs()))

    def widen(self, a: Aligned) -> Aligned:
        """``a`` (aligned from the part) as if aligned within the whole: groups renumbered
        over all systems (empty groups added for ``complete``), the whole's grades."""
        out = (
            a
            if self.grades is None
            else replace(a, qrels_grades_all=np.asarray(self.grades, np.float64))
        )
        if self.systems is None:
            return out
        systems = pd.Index(np.asarray(self.systems, dtype=object), name="system").astype(
            a.systems.dtype
        )
        pos = systems.get_indexer(a.systems)
        if (pos < 0).any() or (np.diff(pos) <= 0).any():
            raise RuntimeError(
                "internal error: a part's systems must be a subset of the whole's, in its order"
            )
        n_t = len(a.topics)
        group_system = pos[a.group_system]
        if (
            not a.complete
        ):  # the same groups (still sorted: pos is increasing), over the whole's systems
            return replace(out, systems=systems, group_system=group_system)
        counts = np.zeros(
            len(systems) * n_t, np.int64
        )  # every (system, topic): absent systems rank nothing
        counts[group_system * n_t + a.group_topic] = np.diff(a.offsets)
        return replace(
            out,
            systems=systems,
            group_system=np.repeat(np.arange(len(systems), dtype=np.int64), n_t),
            group_topic=np.tile(np.arange(n_t, dtype=np.int64), len(systems)),
            offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        )


def _evaluate_frame(
    runs,
    qrels,
    measures,
    *,
    rel_level,
    order,
    complete,
    depth,
    gains,
    judged_only,
    duplicates,
    columns,
    qrels_columns,
    system,
    bounds,
    unjudged_grade,
    whole: Whole | None = None,
    **options,
) -> xr.DataArray:
    """One run frame (no replicate role) under one qrels frame (``whole``: see :class:`Whole`)."""
    if order not in ORDERS and order not in TIE_ORDERS:
        valid = (*ORDERS, *TIE_ORDERS)
        near = [o for o in valid if isinstance(order, str) and o.lower() == order.lower()]
        raise OptionError(
            f"order={shown(order)} is not one of {', '.join(map(repr, valid))}"
            + (f"; did you mean {near[0]!r}?" if near else "")
        )
    specs = parse_measures(measures)
    if order in TIE_ORDERS:
        check_tie_order(specs, order, check_gains(gains))  # before the (costly) alignment
    opts = make_options(
        order="trec_eval" if order in TIE_ORDERS else order,
        rel_level=rel_level,
        depth=depth,
        complete=complete,
        judged_only=judged_only,
        gains=gains,
        duplicates=duplicates,
        columns=columns,
        qrels_columns=qrels_columns,
        system=system,
    )
    kw = dict(
        rel_level=rel_level,
        gains=gains,
        order=order if order in TIE_ORDERS else None,
        bounds=bounds,
        unjudged_grade=unjudged_grade,
        **options,
    )
    unchecked = [whole is None]  # a whole frame: checked once (_conventions)
    whole = whole or Whole()

    def aligned(o: Options) -> Aligned:
        # a tie-aware order sees the whole tie group a depth cuts: align without the depth,
        # cut after ordering (-J applies after -M, so with judged_only the cut stays in align)
        if order in TIE_ORDERS and o.depth is not None and not o.judged_only:
            a = cut_after_order(whole.align(runs, qrels, replace(o, depth=None)), order, o.depth)
        else:
            a = whole.align(runs, qrels, o)
        if unchecked.pop() if unchecked else False:  # what a peer tool reads differently, once
            check_aligned(a, specs, rel_level, qrels, qrels_columns, complete)
        return a

    judged = [m for m in specs if m.param("judged_only")]
    if not judged or judged_only:
        return evaluate_aligned(aligned(opts), specs, **kw)
    # measures with judged_only=True (ir_measures' parameter): their own alignment without unjudged docs
    rest = [m for m in specs if not m.param("judged_only")]
    parts = [evaluate_aligned(aligned(opts), rest, **kw)] if rest else []
    parts.append(evaluate_aligned(aligned(replace(opts, judged_only=True)), judged, **kw))
    out = xr.concat(parts, dim="measure", combine_attrs="override").sel(
        measure=[m.label for m in specs]
    )
    if "measures" in out.attrs:
        out.attrs["measures"] = "; ".join(m.canonical for m in specs)
    return out


def evaluate_part(
    runs: pd.DataFrame,
    qrels: pd.DataFrame,
    measures: str | Iterable[str],
    whole: Whole,
    **kwargs: Any,
) -> xr.DataArray:
    """:func:`evaluate` of one part of a bigger run frame (one qrels frame, no replicate role),
    told what it must know about the whole (:class:`Whole`); keywords as for :func:`evaluate`.

    Examples
    --------
    >>> import numpy as np, irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> part = runs[runs.system == runs.system.iloc[0]]
    >>> cube = evaluate_part(part, qrels, "AP", Whole(systems=np.array(["a", part.system.iloc[0], "zz"])))
    >>> cube.system.values.tolist()[0], int(cube.sel(system="zz").isnull().all())
    ('a', 1)
    """
    args = {
        k: p.default
        for k, p in inspect.signature(evaluate).parameters.items()
        if p.default is not p.empty and p.kind is p.KEYWORD_ONLY and k != "judgments"
    }
    return _evaluate_frame(runs, qrels, measures, whole=whole, **{**args, **kwargs})


def _replicate_role(
    runs, columns: Mapping[str, str] | None
) -> tuple[str | None, Mapping[str, str] | None]:
    """The replicate column (``columns["replicate"]``, else a ``replicate`` column) and the other roles."""
    columns = dict(columns or {})
    col = columns.pop("replicate", None)
    if col is not None and (not isinstance(runs, pd.DataFrame) or col not in runs.columns):
        found = ", ".join(map(str, getattr(runs, "columns", [])[:20]))
        raise ColumnError(
            f"columns={{'replicate': {col!r}}} names no column of the run frame; found: {found}"
        )
    if col is None and isinstance(runs, pd.DataFrame) and "replicate" in runs.columns:
        col = "replicate"
    return col, (columns or None)


def _evaluate_replicates(
    runs: pd.DataFrame, qrels, measures, rep_col: str, columns, kwargs
) -> xr.DataArray:
    """Evaluate every (system, replicate) run in one pass and unstack into a ``replicate`` dim."""
    system = kwargs.pop("system")
    df, rc = run_frame(runs, columns, system=system)
    rep_codes, reps = pd.factorize(df[rep_col], sort=True)
    if (rep_codes < 0).any():
        rows = np.flatnonzero(rep_codes < 0)[:5].tolist()
        raise InputError(
            f"run frame column {rep_col!r} (the replicate) is missing at rows {rows}; "
            "give every row its replicate (seed, fold) label"
        )
    sys_codes, systems = pd.factorize(df[rc.system], sort=True)
    run_code = sys_codes.astype(np.int64) * len(reps) + rep_codes
    used, inv = np.unique(run_code, return_inverse=True)
    width = len(str(int(used.max()))) if len(used) else 1
    df = df.copy(deep=False)
    df[rc.system] = pd.Categorical.from_codes(
        inv.ravel(), categories=[f"{u:0{width}d}" for u in used]
    )
    cube = _evaluate_frame(
        df, qrels, measures, columns={**(columns or {}), "system": rc.system}, system=None, **kwargs
    )
    code = np.array([int(v) for v in cube.coords["system"].values], dtype=np.int64)
    run = pd.MultiIndex.from_arrays(
        [np.asarray(systems)[code // len(reps)], np.asarray(reps)[code % len(reps)]],
        names=["system", "replicate"],
    )
    cube = cube.rename(system="_run").assign_coords(
        xr.Coordinates.from_pandas_multiindex(run, "_run")
    )
    cube = cube.unstack("_run").transpose("system", "replicate", "topic", ...)
    cube.attrs["replicate_column"] = rep_col
    return cube


def evaluate_aligned(
    aligned: Aligned,
    measures: str | Iterable[str] | list[Measure],
    *,
    rel_level: float = 1,
    gains: Mapping[float, float] | None = None,
    order: str | None = None,
    bounds: bool = False,
    unjudged_grade: float | None = None,
    **options: Any,
) -> xr.DataArray:
    """Evaluate already aligned arrays (see :func:`irframe.align.align`).

    ``order`` may be a tie-aware order ("expected", "best", "worst", see :mod:`irframe.measures.ties`)
    applied to the aligned ranking, or None / the aligned order; ``bounds`` and
    ``unjudged_grade`` as in :func:`evaluate`.  Ties are equal ``row_score`` values: float32
    scores when aligned with ``order="trec_eval"`` (as :func:`evaluate` does), float64 with
    ``"trec_eval10"``, none without scores (``"rank"``/``"input"`` frames lacking a score).
    """
    bounds = check_flag("bounds", bounds)
    specs, opts, cube_options, order = _prepare(aligned, measures, rel_level, gains, order, options)
    if bounds:
        check_bounds_supported(specs)
    values = _values(aligned, specs, opts, order)
    labels, aggs = [m.label for m in specs], [m.definition.aggregate for m in specs]
    cube_kw = {"options": cube_options, "measures": [m.canonical for m in specs]}
    low = make_cube(aligned, values, labels, aggs, **cube_kw)
    if not bounds:
        return low
    grade = bound_grade(aligned, unjudged_grade, cube_options.rel_level)
    high = _values(labelled(aligned, grade), specs, opts, order)
    for j, m in enumerate(specs):
        if label_free(m):
            high[:, j] = values[:, j]
    return _bounds_cube(
        low,
        make_cube(aligned, high, labels, aggs, **cube_kw),
        [bound_exact(m) for m in specs],
        grade,
    )


def evaluate_groups(
    aligned: Aligned,
    measures: str | Iterable[str] | list[Measure],
    *,
    rel_level: float = 1,
    gains: Mapping[float, float] | None = None,
    **options: Any,
) -> tuple[np.ndarray, list[Measure]]:
    """The values :func:`evaluate_aligned` puts in its cube, per group: a (G × M) array whose
    row ``g`` is the group ``(aligned.group_system[g], aligned.group_topic[g])``, and the
    parsed measures (labels, aggregates).  No cube is built (xarray is not imported).

    >>> import irframe as irf
    >>> from irframe.align import align
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> values, specs = evaluate_groups(align(runs, qrels), ["AP", "num_ret"])
    >>> values.round(4).tolist(), [m.definition.aggregate for m in specs]
    ([[0.0324, 500.0], [0.4175, 500.0], [0.0858, 500.0]], ['mean', 'sum'])
    """
    specs, opts, _, _ = _prepare(aligned, measures, rel_level, gains, None, options)
    return _values(aligned, specs, opts, None), specs


def _prepare(aligned: Aligned, measures, rel_level, gains, order, options):
    """Checked measures, kernel options, cube options and tie order of :func:`evaluate_aligned`."""
    specs = parse_measures(measures)
    if order is not None and order != aligned.order:
        if order not in TIE_ORDERS:
            raise ValueError(
                f"order={order!r}: the arrays were aligned with order={aligned.order!r}; "
                f"only the tie-aware orders {TIE_ORDERS} can be applied afterwards"
            )
    else:
        order = None
    consumed = set().union(*(m.definition.options for m in specs))
    unknown = set(options) - consumed
    if unknown:
        raise OptionError(
            f"unexpected option(s) {sorted(unknown)} for measures {[m.label for m in specs]}"
        )
    for m in specs:
        if m.param("judged_only") and not aligned.judged_only:
            raise OptionError(
                f"measure {m.label!r} has judged_only=True: evaluate it with irframe.evaluate "
                "(which aligns the judged documents separately) or align with judged_only=True"
            )
        if "subtopics" in m.definition.needs and not aligned.has_subtopics:
            raise InputError(
                f"measure {m.label!r} needs diversity qrels with a 'subtopic' column "
                "(read them with irframe.read_qrels(path, kind='diversity'))"
            )
    cube_options = replace(
        aligned_options(aligned, rel_level=rel_level, gains=check_gains(gains)),
        order=order or aligned.order,
    )
    rel_level, gains = cube_options.rel_level, cube_options.gains
    if order is not None:
        check_tie_order(specs, order, gains)
    opts = {"rel_level": rel_level, "gains": dict(gains) if gains else None, **options}
    return specs, opts, cube_options, order


def _bounds_cube(
    low: xr.DataArray, high: xr.DataArray, exact: list[bool], grade: float
) -> xr.DataArray:
    """Stack low/high cubes into one with a ``bound`` dimension (low, high, residual)."""
    out = xr.concat([low, high, high - low], dim=pd.Index(list(BOUNDS), name="bound"))
    out = out.transpose("system", "topic", "measure", "bound")
    out = out.assign_coords(bound_exact=("measure", np.asarray(exact, dtype=bool)))
    out.attrs = {**low.attrs, "unjudged_grade": grade}
    out.name = "score"
    return out


def _values(aligned: Aligned, specs: list[Measure], opts: dict, order: str | None) -> np.ndarray:
    """Run every measure's kernel over the groups of ``aligned`` → (G × M) values."""
    if order in ("best", "worst"):
        aligned = order_ties(aligned, order)
    ctx = EvalContext(aligned, opts)
    values = np.empty((aligned.n_groups, len(specs)))
    for j, m in enumerate(specs):
        v = expected_values(ctx, m) if order == "expected" else m.definition.compute(ctx, m)
        v = np.asarray(v, dtype=np.float64)
        if v.shape != (aligned.n_groups,):
            raise RuntimeError(
                f"kernel of {m.name} returned shape {v.shape}, expected ({aligned.n_groups},)"
            )
        if not np.isfinite(v).all():  # a cube's NaN means "not evaluated": never a value
            g = int(np.flatnonzero(~np.isfinite(v))[0])
            raise InputError(
                f"measure {m.label!r} gave {int((~np.isfinite(v)).sum())} non-finite value(s), e.g. {v[g]} for "
                f"system {shown(aligned.systems[aligned.group_system[g]])}, topic "
                f"{shown(aligned.topics[aligned.group_topic[g]])}; measures must return finite numbers "
                f"(NaN in a cube means 'not evaluated')"
            )
        values[:, j] = v
    return values


def list_measures() -> pd.DataFrame:
    """A table of every registered measure: name, parameters (defaults and allowed values), cutoff,
    family, description.

    Examples
    --------
    >>> import irframe as irf
    >>> "AP" in irf.list_measures().index
    True
    """
    from .measures.registry import REQUIRED, registered_measures

    rows = []
    for name, d in sorted(registered_measures().items()):
        params = ", ".join(f"{k}" if v is REQUIRED else f"{k}={v}" for k, v in d.defaults.items())
        allowed = "; ".join(f"{k}: {p.allowed()}" for k, p in d.params.items() if p.kind != "any")
        rows.append(
            {
                "name": name,
                "params": params,
                "allowed": allowed,
                "cutoff": d.cutoff,
                "family": d.family,
                "aggregate": d.aggregate,
                "description": d.description,
            }
        )
    return pd.DataFrame(rows).set_index("name")
