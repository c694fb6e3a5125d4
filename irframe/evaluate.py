"""The evaluation entry point: frames + measure strings → cube.

``evaluate`` is what ``df.ir.metric`` and the CLI call: parse the measures, align
once, run each measure's kernel over all (system, topic) groups, scatter into the
cube.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._backend import by_backend
from ._conventions import check_aligned, keep_present, prepare_runs
from ._lazy import xarray as xr  # imported on first use: the command line never needs it
from .align import Aligned, align, replace_aligned
from .cube import make_cube
from .errors import InputError, OptionError, shown
from .measures import EvalContext, Measure, parse_measures
from .measures.ties import check_tie_order, cut_after_order, expected_values, order_ties
from .measures.unjudged import (
    BOUNDS,
    bound_exact,
    bound_grade,
    check_bounds_supported,
    label_free,
    labelled,
)
from .options import EVALUATE, TIE_ORDER, TIE_ORDERS, Options, peer_keyword_hint, takes_options
from .qrelsets import over_qrels, over_replicates, replicate_role
from .schema import qrels_frame

__all__ = [
    "Whole",
    "check_request",
    "evaluate",
    "evaluate_groups",
    "evaluate_part",
    "list_measures",
]


@by_backend  # a Dask frame: irframe.dask, partition by partition
@takes_options(*EVALUATE, order=TIE_ORDER)
def evaluate(
    runs: Any,
    qrels: Any = None,
    measures: str | Measure | Iterable[str | Measure] | None = None,
    *,
    judgments: str = "each",
    opts: Options,
    **options: Any,
) -> xr.DataArray:
    """Evaluate every system of ``runs`` on every topic with the given measures.

    Parameters
    ----------
    runs : pandas.DataFrame, dict, iterable of namedtuples, or Aligned
        Long run frame: ``system, topic, doc`` and ``score`` (and/or ``rank``).  Other
        tools' names are recognised (PyTerrier ``qid, docno, name``, ir_measures
        ``query_id, doc_id``, ranx ``q_id``); without a system column the frame is one
        system named ``run`` (the ``system`` option names it otherwise).  Also ``{topic: {doc: score}}`` (pytrec_eval, ranx) and
        iterables of namedtuples such as ir_measures' ``ScoredDoc(query_id, doc_id, score)``.
        Or arrays already aligned with their qrels ([`irframe.align.align`][irframe.align.align]): then
        ``qrels`` is None and the alignment keywords (``complete``, ``depth``,
        ``judged_only``, ``duplicates``, ``columns``, ``qrels_columns``, ``system``) are
        those of the alignment; ``order`` may be a tie-aware order, applied to the aligned
        ranking (ties: equal ``row_score``, float32 scores under ``order="trec_eval"``).
    qrels : pandas.DataFrame, dict or iterable of namedtuples
        Judgments ``topic, doc, rel`` (``subtopic`` for diversity measures); PyTerrier's
        ``label``, ir_measures' ``relevance``, ir_datasets' ``qrels_iter()`` and
        ``{topic: {doc: grade}}`` are recognised as well.  A mapping ``{name: qrels
        frame}`` of several judgment sets evaluates the runs under each and adds a
        ``qrels`` dim (see ``judgments``).
    measures : str or list of str
        Measure strings such as ``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@10"`` or trec_eval
        names such as ``"map"``, ``"P_10"`` (see [`list_measures`][irframe.list_measures]).
    judgments : {"each", "common"}
        With several judgment sets: ``"each"`` (default) uses every set as it is, so a
        document one set did not judge is unjudged, i.e. non-relevant, under it;
        ``"common"`` keeps in every set only the (topic, doc) judgments all sets share
        (with ``judged_only=True`` the rankings are condensed to those documents).
        See [`irframe.qrelsets`][irframe.qrelsets].
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

    Raises
    ------
    irframe.errors.UnknownMeasureError
        A measure string names no registered measure (the message suggests close names).
    irframe.errors.MeasureParamError
        A measure parameter out of its range (``P@0``, ``RBP(p=2)``).
    irframe.errors.ColumnError
        A needed column is missing or ambiguous; ``columns=`` / ``qrels_columns=`` fix it.
    irframe.errors.DuplicateError
        Duplicate (system, topic, doc) or qrels rows with ``duplicates="error"``.
    irframe.errors.OptionError
        An option outside its range or choices, or a keyword evaluate does not take (other
        tools' spellings, ``k=``, ``relevance_level=``, are named with evaluate's own).
    irframe.errors.InputError
        Other bad input: the message names the rows and the fix
        ([What irframe does with bad input](../bad_input.md)).

    See Also
    --------
    - [`df.ir.metric`][irframe.IrAccessor.metric]: the same evaluation from the run frame's accessor.
    - [`irframe.summarize`][irframe.summarize]: means over topics (trec_eval's ``all`` line).
    - [`irframe.report`][irframe.report]: a results table with significance markers.
    - [`irframe.dask`][irframe.dask]: ``runs`` may be a Dask frame larger than memory (the same cube).
    - [`irframe.list_measures`][irframe.list_measures]: every measure and its parameters.

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
    if measures is None:
        raise OptionError(
            "evaluate() needs measures, e.g. evaluate(runs, qrels, ['AP', 'nDCG@10'])"
            + peer_keyword_hint(options, _evaluate_takes())
        )
    specs = parse_measures(measures)  # once: every later step gets the parsed measures
    opts = opts.replace(measure_options=options or None)
    if isinstance(runs, Aligned):
        given = [k for k in opts.changed("align") if k != "order"]
        given = ["qrels"] * (qrels is not None) + given + ["judgments"] * (judgments != "each")
        if given:
            raise OptionError(
                f"{', '.join(given)} cannot be combined with an already aligned input "
                "(the arrays carry their qrels and alignment options)"
            )
        if opts.order not in ("trec_eval", runs.order, *TIE_ORDERS):
            raise OptionError(
                f"order={shown(opts.order)}: the arrays were aligned with order={runs.order!r}; "
                f"only the tie-aware orders {TIE_ORDERS} can be applied afterwards"
            )
        opts = opts.replace(**{**runs.options.alignment(), "order": opts.tie_order or runs.order})
        return _evaluate_aligned(runs, _aligned_request(runs, specs, opts), opts)
    runs, columns, system, empty, systems = prepare_runs(runs, opts.columns, opts.system)
    opts = opts.replace(columns=columns, system=system)  # peers' forms
    if systems is not None or (empty and not opts.complete):
        # {topic: {}}: present, retrieved nothing -> scored as with -c (then the other cells
        # dropped again); several runs: the cube keeps their order
        full = opts.replace(complete=opts.complete or bool(empty))
        cube = evaluate(runs, qrels, specs, judgments=judgments, opts=full, **options)
        if empty and not opts.complete:
            cube = keep_present(cube, runs, empty, system)
        return (
            cube if systems is None else cube.sel(system=[s for s in systems if s in cube.system])
        )
    if qrels is None:
        raise InputError("qrels are needed: pass qrels=... (a frame topic, doc, rel)")
    rep_col, columns = replicate_role(runs, columns)
    opts = opts.replace(columns=columns)
    check_request(specs, opts)  # before the (costly) alignment
    return over_qrels(
        lambda q: _evaluate_runs(runs, q, specs, opts, rep_col),
        qrels,
        judgments=judgments,
        columns=opts.qrels_columns,
    )


def _evaluate_runs(runs, qrels, specs: list[Measure], opts: Options, rep_col: str | None):
    """One qrels frame: the run frame as it is, or one pass over its (system, replicate) runs."""
    if not isinstance(qrels, (pd.DataFrame, dict)):  # ranx Qrels, namedtuples, a generator:
        qrels = qrels_frame(qrels, opts.qrels_columns)[0]  # read once, a frame from here on
    if rep_col is None:
        return _evaluate_frame(runs, qrels, specs, opts)
    return over_replicates(
        lambda df, columns: _evaluate_frame(
            df, qrels, specs, opts.replace(columns=columns, system=None)
        ),
        runs,
        rep_col,
        opts.columns,
        opts.system,
    )


def _evaluate_takes() -> set[str]:
    """The keywords `evaluate` takes (its options included), for `peer_keyword_hint`."""
    return set(inspect.signature(evaluate).parameters)


def check_request(specs: list[Measure], opts: Options) -> None:
    """The checks of measures against the options, made once per call: the tie order and the
    bounds are supported, and every measure option is consumed by some measure."""
    consumed = set().union(*(m.definition.options for m in specs))
    unknown = set(opts.measure_options or ()) - consumed
    if unknown:
        raise OptionError(
            f"unexpected option(s) {sorted(unknown)} for measures {[m.label for m in specs]}"
            + peer_keyword_hint(sorted(unknown), _evaluate_takes())
        )
    if opts.tie_order:
        check_tie_order(specs, opts.tie_order, opts.gains)
        judged = opts.judged_only or any(m.param("judged_only") for m in specs)
        if opts.depth is not None and judged:
            raise OptionError(depth_and_judged_only(f"order={opts.tie_order!r}"))
    if opts.bounds:
        check_bounds_supported(specs)


def depth_and_judged_only(what: str) -> str:
    """The message for a tie-aware order asked with both ``depth`` and judged-only rankings."""
    return (
        f"{what} with both depth= and judged-only rankings (judged_only=True) is not "
        "supported: trec_eval cuts at the depth (-M) before dropping unjudged documents (-J), "
        "and a tie group the depth cuts has no single set of judged documents above the cut. "
        "Drop depth= (the measures' own @k cutoffs still apply) or drop judged_only=True"
    )


@dataclass(frozen=True)
class Whole:
    """What a part of a bigger run frame must know about the whole to be evaluated as part of it
    ([`irframe.dask`][irframe.dask] evaluates a frame one partition at a time).

    ``systems``: every system of the whole frame (sorted by code point, as ``align`` sorts them):
    the part's cube gets a row for each (NaN, or an empty ranking's values with ``complete=True``),
    and the measures comparing systems (rarity's S, ``LR``) see all of them.  ``grades``: every
    grade of the whole qrels frame (`irframe.align.Aligned.qrels_grades_all`: C/W/L gain
    scales, ``dcg="exp-log2"``, the unjudged bound).  None keeps the part's own.
    """

    systems: np.ndarray | None = None
    grades: np.ndarray | None = None

    def align(self, runs: pd.DataFrame, qrels: pd.DataFrame, opts: Options) -> Aligned:
        """``runs`` aligned with ``opts`` ([`irframe.options.Options`][irframe.options.Options]), as if within the whole."""
        return self.widen(align(runs, qrels, opts=opts))

    def widen(self, a: Aligned) -> Aligned:
        """``a`` (aligned from the part) as if aligned within the whole: groups renumbered
        over all systems (empty groups added for ``complete``), the whole's grades."""
        out = (
            a
            if self.grades is None
            else replace_aligned(a, qrels_grades_all=np.asarray(self.grades, np.float64))
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
            return replace_aligned(out, systems=systems, group_system=group_system)
        counts = np.zeros(
            len(systems) * n_t, np.int64
        )  # every (system, topic): absent systems rank nothing
        counts[group_system * n_t + a.group_topic] = np.diff(a.offsets)
        return replace_aligned(
            out,
            systems=systems,
            group_system=np.repeat(np.arange(len(systems), dtype=np.int64), n_t),
            group_topic=np.tile(np.arange(n_t, dtype=np.int64), len(systems)),
            offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        )


def _evaluate_frame(
    runs, qrels, specs: list[Measure], opts: Options, whole: Whole | None = None
) -> xr.DataArray:
    """One run frame (no replicate role) under one qrels frame (``whole``: see `Whole`)."""
    unchecked = [whole is None]  # a whole frame: checked once (_conventions)
    whole = whole or Whole()

    def aligned(o: Options) -> Aligned:
        # a tie-aware order sees the whole tie group a depth cuts: align without the depth,
        # cut after ordering (-J applies after -M, so with judged_only the cut stays in align)
        if o.tie_order and o.depth is not None and not o.judged_only:
            a = cut_after_order(
                whole.align(runs, qrels, o.replace(depth=None)), o.tie_order, o.depth
            )
        else:
            a = whole.align(runs, qrels, o)
        if unchecked.pop() if unchecked else False:  # what a peer tool reads differently, once
            check_aligned(a, specs, o.rel_level, qrels, o.qrels_columns, o.complete)
        return a

    judged = [m for m in specs if m.param("judged_only")]
    if not judged or opts.judged_only:
        return _evaluate_aligned(aligned(opts), specs, opts)
    # measures with judged_only=True (ir_measures' parameter): their own alignment without unjudged docs
    rest = [m for m in specs if not m.param("judged_only")]
    parts = [_evaluate_aligned(aligned(opts), rest, opts)] if rest else []
    parts.append(_evaluate_aligned(aligned(opts.replace(judged_only=True)), judged, opts))
    out = xr.concat(parts, dim="measure", combine_attrs="override").sel(
        measure=[m.label for m in specs]
    )
    if "measures" in out.attrs:
        out.attrs["measures"] = "; ".join(m.canonical for m in specs)
    out.attrs.pop("lower_is_better", None)
    out.attrs.update(_directions(specs))
    return out


def evaluate_part(
    runs: pd.DataFrame,
    qrels: pd.DataFrame,
    measures: str | Iterable[str] | list[Measure],
    whole: Whole,
    options: Options,
) -> xr.DataArray:
    """[`evaluate`][irframe.evaluate] of one part of a bigger run frame (one qrels frame, no replicate role),
    told what it must know about the whole (`Whole`), with the options the whole was
    given ([`irframe.options.make_options`][irframe.options.make_options], checked against the measures once by the caller).

    Examples
    --------
    >>> import numpy as np, irframe as irf
    >>> from irframe.options import make_options
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> part = runs[runs.system == runs.system.iloc[0]]
    >>> whole = Whole(systems=np.array(["a", part.system.iloc[0], "zz"]))
    >>> cube = evaluate_part(part, qrels, "AP", whole, make_options())
    >>> cube.system.values.tolist()[0], int(cube.sel(system="zz").isnull().all())
    ('a', 1)
    """
    return _evaluate_frame(runs, qrels, parse_measures(measures), options, whole)


def _aligned_request(aligned: Aligned, specs: list[Measure], opts: Options) -> list[Measure]:
    """``specs`` checked against the options of already aligned arrays (``opts``: the
    evaluation's own, with the arrays' alignment options)."""
    check_request(specs, opts)
    for m in specs:
        if m.param("judged_only") and not aligned.judged_only:
            raise OptionError(
                f"measure {m.label!r} has judged_only=True: evaluate it with irframe.evaluate "
                "(which aligns the judged documents separately) or align with judged_only=True"
            )
    return specs


def _evaluate_aligned(aligned: Aligned, specs: list[Measure], opts: Options) -> xr.DataArray:
    """The cube of ``specs`` over ``aligned`` under the (checked) options ``opts``."""
    for m in specs:
        if "subtopics" in m.definition.needs and not aligned.has_subtopics:
            raise InputError(
                f"measure {m.label!r} needs diversity qrels with a 'subtopic' column "
                "(read them with irframe.read_qrels(path, kind='diversity'))"
            )
    order = opts.tie_order
    cube_options = opts.replace(  # what the arrays were aligned with, and the tie order
        order=order or aligned.order,
        depth=aligned.depth,
        complete=aligned.complete,
        judged_only=aligned.judged_only,
    )
    kernel_options = opts.kernel_options()
    values = _values(aligned, specs, kernel_options, order)
    labels, aggs = [m.label for m in specs], [m.definition.aggregate for m in specs]
    cube_kw: dict[str, Any] = {
        "options": cube_options,
        "measures": [m.canonical for m in specs],
        "attrs": _directions(specs),
    }
    low = make_cube(aligned, values, labels, aggs, **cube_kw)
    if not opts.bounds:
        return low
    grade = bound_grade(aligned, opts.unjudged_grade, opts.rel_level)
    high = _values(labelled(aligned, grade), specs, kernel_options, order)
    for j, m in enumerate(specs):
        if label_free(m):
            high[:, j] = values[:, j]
    return _bounds_cube(
        low,
        make_cube(aligned, high, labels, aggs, **cube_kw),
        [bound_exact(m) for m in specs],
        grade,
    )


def _directions(specs: list[Measure]) -> dict[str, str]:
    """The cube attribute ``lower_is_better``: the labels of the measures whose best value is
    the smallest, ``"; "``-joined (no attribute when there are none)."""
    lower = [m.label for m in specs if m.lower_is_better]
    return {"lower_is_better": "; ".join(lower)} if lower else {}


@takes_options("rel_level", "gains")
def evaluate_groups(
    aligned: Aligned,
    measures: str | Iterable[str] | list[Measure],
    *,
    opts: Options,
    **options: Any,
) -> tuple[np.ndarray, list[Measure]]:
    """The values [`evaluate`][irframe.evaluate] puts in its cube for aligned arrays, per group: a (G × M) array whose
    row ``g`` is the group ``(aligned.group_system[g], aligned.group_topic[g])``, and the
    parsed measures (labels, aggregates).  No cube is built (xarray is not imported).

    >>> import irframe as irf
    >>> from irframe.align import align
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> values, specs = evaluate_groups(align(runs, qrels), ["AP", "num_ret"])
    >>> values.round(4).tolist(), [m.definition.aggregate for m in specs]
    ([[0.0324, 500.0], [0.4175, 500.0], [0.0858, 500.0]], ['mean', 'sum'])
    """
    opts = opts.replace(**aligned.options.alignment(), measure_options=options or None)
    specs = _aligned_request(aligned, parse_measures(measures), opts)
    return _values(aligned, specs, opts.kernel_options(), None), specs


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
    """A table of every registered measure, one row per name, from its definition
    ([`irframe.measures.MeasureDef`][irframe.MeasureDef]).

    Columns: ``params`` (defaults), ``allowed`` (allowed values), ``cutoff``, ``family``,
    ``aggregate``, ``better`` (``"higher"``, ``"lower"`` or ``"by parameters"``:
    ``lower_is_better``), ``description``; what it supports — ``expected`` (``order="expected"``),
    ``order_safe`` (``order="best"/"worst"``), ``bounds`` (how ``bounds=True`` applies),
    ``topic_local``, ``system_local``; its spelling in each tool of
    `irframe.measures.registry.TOOLS` (``trec_eval``, ``ir_measures``, ``ranx``,
    ``cwl_eval``, ``ndeval``; ``{k}`` stands for a cutoff; empty: none recorded);
    ``reference`` (what its numbers are checked against) and ``citation``.

    Returns
    -------
    pandas.DataFrame
        Indexed by measure name, one row per registered measure (sorted by name).

    See Also
    --------
    - The [measure catalogue](../measures.md): this table, rendered.
    - [`irframe.register`][irframe.register]: add a measure.
    - [`irframe.parse_measure`][irframe.parse_measure]: what a measure string means.

    Examples
    --------
    >>> import irframe as irf
    >>> table = irf.list_measures()
    >>> table.loc["AP", ["trec_eval", "bounds"]].tolist(), bool(table.loc["AP", "expected"])
    (['map', 'approximate'], True)
    """
    from .measures.registry import REQUIRED, TOOLS, registered_measures

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
                "better": (
                    "by parameters"
                    if callable(d.lower_is_better)
                    else ("lower" if d.lower_is_better else "higher")
                ),
                "description": d.description,
                "expected": d.expected is not None,
                "order_safe": bool(d.order_safe),
                "bounds": d.bounds,
                "topic_local": bool(d.topic_local),
                "system_local": bool(d.system_local),
                **{tool: d.spellings.get(tool, "") for tool in TOOLS},
                "reference": d.reference,
                "citation": d.citation,
            }
        )
    return pd.DataFrame(rows).set_index("name")
