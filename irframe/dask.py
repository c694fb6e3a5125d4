"""The Dask backend: [`irframe.evaluate`][irframe.evaluate] and the other family functions on a
``dask.dataframe.DataFrame`` run frame, topic by topic.

Pass a Dask frame where a pandas frame goes; the same function evaluates it partition by
partition and returns the same result:

* [`irframe.evaluate`][irframe.evaluate] (and ``ddf.ir.metric`` / ``ddf.ir.summary``): the cube;
* [`irframe.lexi.lexirecall`][irframe.lexi.lexirecall], [`irframe.lexi.lexiprecision`][irframe.lexi.lexiprecision]
  (``ddf.ir.lexirecall`` ...): the preference cubes;
* [`irframe.rarity.rarity`][irframe.rarity.rarity], [`irframe.rarity.rare_finds`][irframe.rarity.rare_finds]
  (``ddf.ir.rarity``): the tables.

Every measure irframe registers is *topic-local*: the value of a (system, topic) cell
depends only on that topic's qrels and on the rankings of that topic (its own ranking,
and for rarity and metric lexirecall the other systems' rankings of the same topic).
So a run frame split by topic can be evaluated one partition at a time by the in-memory
code (`irframe.evaluate.evaluate_part`; the family function on the partition's aligned
arrays), each partition against its topics' rows of the (small, in-memory) qrels and told
the systems and grades of the whole (`irframe.evaluate.Whole`), and the per-partition
results stitched together along ``topic``.  Only results travel back to the client; the run
rows never do.  What is Dask-specific lives here: how the frame is split, the facts every
partition must share, and the stitching.

Three keywords exist only for Dask frames (every other option is the function's own, checked
by the same code with the same messages):

* ``partitioned_by`` (None, ``"topic"``, ``"system"``): None (default) shuffles the frame on
  the topic column (``ddf.shuffle("topic")``), so each topic's rows end up in exactly one
  partition, unless the frame is indexed by topic with known divisions
  (``ddf.set_index("topic")``), which is used as it is.  ``"topic"``: the caller guarantees
  that every topic's rows are in one partition (e.g. one file per topic); nothing is
  shuffled, and a topic found in two partitions raises
  [`NotPartitionedError`][irframe.dask.NotPartitionedError].  ``"system"``: the same for
  frames holding each system in one partition ([`read_runs`][irframe.dask.read_runs]: one
  file per system), for every measure that does not look at the other systems (all but
  rarity's and ``LR``; not for lexirecall, lexiprecision and the rarity tables).
* ``npartitions`` (int): partitions of the shuffle (default: as many as the frame has).
* ``shuffle_method`` (``"disk"``, ``"tasks"``, ``"p2p"``): passed to ``ddf.shuffle`` (default:
  dask's choice; ``"tasks"`` is often faster on one machine, ``"p2p"`` is the distributed
  scheduler's default).

The result is identical (values, coordinates, ``aggregate`` coordinate and attrs) to the
in-memory call on the concatenated pandas frame, with every option; several judgment sets
(``qrels={name: frame}``) are evaluated one set at a time, each a pass over the frame
(``ddf.persist()`` first keeps it in memory between them).

Notes
-----
The qrels, measures and options are validated on the client before anything is computed, by
the in-memory function itself on a one-document ranking (so the errors are its errors).
On a ``dask.distributed`` client the qrels are scattered to every worker once
(``client.scatter(..., broadcast=True)``), never embedded in the task graph.  Every partition
is told what it must know about the whole frame: every system and every qrels grade.  The
systems are gathered from the system and topic columns of the input partitions: inside the
shuffle's graph when the frame is shuffled (each input partition is read once), else in a
first pass that also checks ``partitioned_by=`` before any partition is evaluated.  So
``complete=True`` gives every missing (system, topic) pair an empty ranking, rarity's S and
metric lexirecall see every system, and gain scales and the unjudged bound (``bounds=True``)
use the largest grade of all qrels, exactly as in memory; judged topics that no partition
holds are evaluated (as empty rankings) by the partition holding the smallest judged run
topic.  With ``order="input"`` or ``duplicates="first"`` the original row order is restored
after the shuffle (two int64 columns travel with the rows).

``import irframe.dask`` registers the ``.ir`` accessor on Dask DataFrames (the pandas
accessor's methods, forwarding to the same functions)::

    import irframe.dask
    cube = ddf.ir.metric(["AP", "nDCG@10"], qrels=qrels)

Examples
--------
>>> import dask, dask.dataframe as dd, irframe as irf, irframe.dask
>>> qrels, runs = irf.datasets.synthetic(3, 4, 20)
>>> ddf = dd.from_pandas(runs, npartitions=2)
>>> with dask.config.set(scheduler="synchronous"):
...     cube = irf.evaluate(ddf, qrels, ["AP", "P@10"])
...     same = ddf.ir.metric(["AP", "P@10"], qrels=qrels)
>>> cube.identical(irf.evaluate(runs, qrels, ["AP", "P@10"])), same.identical(cube)
(True, True)
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

try:
    import dask
    import dask.dataframe as dd
    from dask.dataframe.extensions import register_dataframe_accessor
except ImportError as _e:  # pragma: no cover - exercised only without dask
    raise ImportError(
        "irframe.dask needs dask with its dataframe part: "
        "pip install 'dask[dataframe,distributed]' (or pip install 'irframe[dask]')"
    ) from _e

from ._dask_parts import collect, combine, combine_systems, distinct, partition_keys, repeated
from .accessor import IrAccessor
from .errors import EmptyOverlapError, InputError, IrframeError, OptionError, choose
from .evaluate import Whole, evaluate_part
from .measures import Measure, MeasureDef, parse_measures
from .options import ALIGN_OPTIONS, OPTION_NAMES, make_options
from .params import COUNT
from .qrelsets import over_qrels
from .schema import as_frame, check_id_column, role_names, run_columns
from .schema import qrels_columns as _qrels_columns

__all__ = [
    "DaskIrAccessor",
    "NotOnDaskError",
    "NotPartitionedError",
    "UnsupportedMeasureError",
    "check_measures",
    "is_system_local",
    "is_topic_local",
    "read_runs",
]

_POS_PART = "__irframe_partition__"
_POS_ROW = "__irframe_row__"


class UnsupportedMeasureError(IrframeError, ValueError):
    """A measure that cannot be evaluated topic by topic (not declared topic-local)."""


class NotOnDaskError(IrframeError, NotImplementedError):
    """An ``ddf.ir`` entry point of the pandas accessor that Dask frames do not offer (yet)."""


class NotPartitionedError(InputError):
    """``partitioned_by="topic"`` was given but a topic's rows are in several partitions."""


# ----------------------------------------------------------------------- measures
def is_topic_local(definition: MeasureDef) -> bool:
    """Whether a measure can be evaluated one topic-partition at a time: its definition's
    ``topic_local`` (every built-in measure declares it).

    Examples
    --------
    >>> from irframe.measures import get_definition
    >>> is_topic_local(get_definition("AP"))
    True
    """
    return bool(definition.topic_local)


def is_system_local(definition: MeasureDef) -> bool:
    """Whether a measure's value for a (system, topic) ignores the other systems' rankings
    (its definition's ``system_local``: every measure but rarity's and ``LR``)."""
    return bool(definition.system_local)


def check_measures(
    measures: str | Measure | Iterable[str | Measure], *, system_local: bool = False
) -> list[Measure]:
    """Parse ``measures`` and raise [`UnsupportedMeasureError`][irframe.dask.UnsupportedMeasureError] for any that is not
    topic-local (see [`is_topic_local`][irframe.dask.is_topic_local]).

    Examples
    --------
    >>> [m.name for m in check_measures(["map", "nDCG@10"])]
    ['AP', 'nDCG']
    """
    specs = parse_measures(measures)
    bad = [m for m in specs if not is_topic_local(m.definition)]
    if bad:
        names = ", ".join(f"{m.label!r} (family {m.definition.family or 'unset'!r})" for m in bad)
        raise UnsupportedMeasureError(
            f"measure(s) {names} cannot be evaluated partition by partition on a Dask frame: only "
            f"measures whose value for a (system, topic) depends on that topic alone are. If yours "
            f"is, register it with MeasureDef(..., topic_local=True); otherwise compute the frame "
            f"(ddf.compute()) and evaluate it in memory."
        )
    if system_local:
        labels = [m.label for m in specs if not is_system_local(m.definition)]
        if labels:
            raise UnsupportedMeasureError(
                f"measure(s) {labels} compare a ranking with the other systems' rankings of the topic, so they "
                f"cannot be evaluated on a frame split by system; drop partitioned_by='system' (the frame "
                f"is then shuffled by topic)"
            )
    return specs


# ----------------------------------------------------------------------- the backend
#: the functions whose result for a topic looks at every system's ranking of it: why, for the
#: error refusing ``partitioned_by="system"``
_ALL_SYSTEMS = {
    "lexirecall": "compares every system's ranking of a topic",
    "lexiprecision": "compares every system's ranking of a topic",
    "rarity": "counts the systems retrieving each document of a topic",
    "rare_finds": "counts the systems retrieving each document of a topic",
}
#: the row order of the in-memory tables
_TABLE_ORDER = {"rarity": ["topic", "doc"], "rare_finds": ["system", "topic", "rank"]}


def run_by_partition(
    fn: Callable[..., Any],
    ddf: dd.DataFrame,
    qrels: Any = None,
    *args: Any,
    partitioned_by: str | None = None,
    npartitions: int | None = None,
    shuffle_method: str | None = None,
    **kwargs: Any,
) -> Any:
    """``fn(ddf, qrels, *args, **kwargs)`` for a Dask frame ``ddf``, partition by partition
    (called by the public functions through `irframe._backend.by_backend`; ``fn`` is the
    in-memory function).  The keywords ``partitioned_by``, ``npartitions`` and
    ``shuffle_method`` are the backend's (see the module's description)."""
    name = fn.__name__
    if name != "evaluate" and name not in _ALL_SYSTEMS:  # pragma: no cover - a new family
        raise NotImplementedError(f"{name} has no Dask backend")
    if partitioned_by is not None:
        partitioned_by = choose("partitioned_by", partitioned_by, ("topic", "system"))
    if npartitions is not None:
        npartitions = COUNT.check("npartitions", npartitions)
    if shuffle_method is not None:
        shuffle_method = choose("shuffle_method", shuffle_method, ("disk", "tasks", "p2p"))
    if partitioned_by is not None and (npartitions, shuffle_method) != (None, None):
        given = "npartitions=" if npartitions is not None else "shuffle_method="
        raise OptionError(
            f"{given} sets the shuffle by topic, but partitioned_by={partitioned_by!r} says the "
            "frame is split already and is not shuffled: drop one of them"
        )
    if qrels is None:
        raise InputError("qrels are needed: pass qrels=... (a frame topic, doc, rel)")
    if isinstance(qrels, dd.DataFrame):  # qrels are small: in memory
        qrels = qrels.compute()
    columns = kwargs.get("columns")
    rep = (columns or {}).get("replicate") if isinstance(columns, Mapping) else None
    rep = rep or ("replicate" if "replicate" in getattr(ddf, "columns", ()) else None)
    if name == "evaluate" and rep is not None:  # replicates are a dim of the whole frame
        raise InputError(
            f"irframe.evaluate on a Dask frame has no replicate role, but the run frame's column "
            f"{rep!r} holds replicates (seeds, folds); evaluate them in memory with "
            f"irframe.evaluate(ddf.compute(), qrels, measures, columns={{'replicate': {rep!r}}}), "
            f"or one replicate at a time: ddf[ddf[{rep!r}] == r] (dropping the column)"
        )
    split = {
        "partitioned_by": partitioned_by,
        "npartitions": npartitions,
        "shuffle_method": shuffle_method,
    }
    judgments = kwargs.pop("judgments", "each")
    return over_qrels(
        lambda q: _one_qrels(fn, ddf, q, args, kwargs, split),
        qrels,
        judgments=judgments,
        columns=kwargs.get("qrels_columns"),
    )


def _one_qrels(
    fn: Callable[..., Any], ddf: dd.DataFrame, qrels: Any, args: tuple, kwargs: dict, split: dict
) -> Any:
    """`run_by_partition` under one qrels frame: validated on the client by ``fn`` itself, then by partition."""
    if not isinstance(qrels, pd.DataFrame):  # records, {topic: {doc: grade}}: as everywhere
        qrels = as_frame(qrels, "qrels")
    meta = ddf._meta
    try:  # the run columns, from the (empty) meta frame
        topic_name = role_names(kwargs.get("columns"))["topic"]
        topic_in_index = topic_name not in meta.columns and meta.index.name == topic_name
        if topic_in_index:
            meta = meta.reset_index()
        rc = run_columns(meta, kwargs.get("columns"))
    except Exception:
        _in_memory_error(fn, ddf, qrels, args, kwargs)
        raise
    for col in (rc.system, rc.topic, rc.doc):  # (the in-memory message names rows: not known here)
        check_id_column(meta, col, "run frame")
    try:  # the qrels columns, and a judged document to rank
        qc = _qrels_columns(qrels, kwargs.get("qrels_columns"))
        one_doc = _one_doc_run(rc, qrels, qc, "probe")
    except Exception:
        _in_memory_error(fn, ddf, qrels, args, kwargs)
        raise
    specs: list[Measure] | None = None
    if fn.__name__ == "evaluate":  # the measures parsed once, here, for the probe and every part
        try:
            bound = inspect.signature(fn).bind(one_doc, qrels, *args, **kwargs)
            bound.apply_defaults()
            specs = parse_measures(bound.arguments["measures"])
            bound.arguments["measures"] = specs
        except (IrframeError, TypeError):  # the probe raises it, as evaluate does
            specs = None
    # the in-memory function on a one-document ranking against the full qrels: its errors for
    # bad measures, options and qrels, and the result's other dims, coordinates and attrs
    if specs is not None:
        probe = _quietly(fn, *bound.args, **bound.kwargs)
    else:
        probe = _quietly(fn, one_doc, qrels, *args, **kwargs)
    probe = probe.iloc[:0] if isinstance(probe, pd.DataFrame) else probe.isel(topic=slice(0, 0))
    call = inspect.signature(fn).bind(ddf, qrels, *args, **kwargs)
    call.apply_defaults()
    given, extra = _arguments(call)
    every = {**given, **extra}  # the function's named keywords and its **options
    by_system = split["partitioned_by"] == "system"
    work: _Measures | _OnAligned
    if fn.__name__ == "evaluate":
        assert specs is not None  # (else the probe raised)
        check_measures(specs, system_local=by_system)
        options = make_options(
            **{k: v for k, v in given.items() if k in OPTION_NAMES},
            measure_options=extra,
            tie_orders=True,
        )
        work = _Measures(specs, options)
    else:
        if by_system:
            raise UnsupportedMeasureError(
                f"{fn.__name__} {_ALL_SYSTEMS[fn.__name__]}, so it cannot be computed on a frame "
                f"split by system; drop partitioned_by='system' (the frame is then shuffled by topic)"
            )
        work = _OnAligned(
            fn,
            {k: v for k, v in every.items() if k in ALIGN_OPTIONS},
            {k: v for k, v in every.items() if k not in ALIGN_OPTIONS},
        )
    return _by_partition(
        ddf,
        qrels,
        work,
        probe,
        rc=rc,
        qc=qc,
        topic_in_index=topic_in_index,
        order=every.get("order", "trec_eval"),
        duplicates=every.get("duplicates", "error"),
        complete=bool(every.get("complete", False)),
        **split,
    )


def _in_memory_error(
    fn: Callable[..., Any], ddf: dd.DataFrame, qrels: Any, args: tuple, kwargs: dict
) -> None:
    """Raise the in-memory function's error for the frame's columns and the qrels, if it has one:
    ``fn`` on one row of Dask's stand-in values (``_meta_nonempty``, of the frame's dtypes)."""
    one_row = ddf._meta_nonempty.iloc[:1]
    if one_row.index.name is not None and one_row.index.name not in one_row.columns:
        one_row = one_row.reset_index()
    try:
        _quietly(fn, one_row, qrels, *args, **kwargs)
    except EmptyOverlapError:  # got past the columns and qrels (the stand-in topic is not judged)
        pass


def _quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` whose values are discarded: no warnings."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _arguments(call: inspect.BoundArguments) -> tuple[dict, dict]:
    """The named arguments of a call (all but the run and qrels frames) and its ``**options``."""
    named, extra = {}, {}
    for i, (name, value) in enumerate(call.arguments.items()):
        kind = call.signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            extra = dict(value)
        elif i >= 2 and kind is not inspect.Parameter.VAR_POSITIONAL:
            named[name] = value
    return named, extra


class _Measures:
    """The work of ``evaluate`` on one part: `irframe.evaluate.evaluate_part`'s cube."""

    def __init__(self, measures: Any, options: Any) -> None:
        self.measures, self.options = measures, options

    def __call__(
        self, run: pd.DataFrame, q: pd.DataFrame, whole: Whole, complete: bool
    ) -> tuple[xr.DataArray, list]:
        opts = self.options.replace(complete=complete)
        return evaluate_part(run, q, self.measures, whole, opts), []

    def finish(self, cube: xr.DataArray, dropped: list[str]) -> xr.DataArray:
        return cube


class _OnAligned:
    """The work of a family function on one part: the part aligned as within the whole, then
    the public function on those arrays; and the topics it dropped (no relevant document, for
    the preference cubes' attrs)."""

    def __init__(self, fn: Callable[..., Any], align: dict, rest: dict) -> None:
        self.module, self.name = fn.__module__, fn.__name__  # by name: pickled by reference
        self.align, self.rest = align, rest

    def __call__(
        self, run: pd.DataFrame, q: pd.DataFrame, whole: Whole, complete: bool
    ) -> tuple[Any, list]:
        a = whole.align(run, q, make_options(**{**self.align, "complete": complete}))
        out = getattr(importlib.import_module(self.module), self.name)(a, **self.rest)
        if not isinstance(out, xr.DataArray):
            return out, []
        kept = set(out.topic.values.tolist())
        return out, [str(t) for t in a.topics if t not in kept]

    def finish(self, out: Any, dropped: list[str]) -> Any:
        if isinstance(out, pd.DataFrame):
            return out.sort_values(_TABLE_ORDER[self.name], kind="stable", ignore_index=True)
        if "dropped_topics" in out.attrs:
            from .lexi import dropped_topic_attrs

            out.attrs.update(dropped_topic_attrs(sorted(dropped)))
        return out


def _by_partition(
    ddf: dd.DataFrame,
    qrels: pd.DataFrame,
    work: _Measures | _OnAligned,
    probe: xr.DataArray | pd.DataFrame,
    *,
    rc,
    qc,
    topic_in_index: bool,
    order: str,
    duplicates: str,
    complete: bool,
    partitioned_by: str | None,
    npartitions: int | None,
    shuffle_method: str | None,
) -> Any:
    """Split ``ddf`` by topic (or take the caller's split), run ``work`` on every partition told
    the whole's facts, and stitch the results like ``probe`` (see the module's Notes)."""
    # ---- split by topic (or take the caller's split) -------------------------------------------
    frame = ddf
    split = "system" if partitioned_by == "system" else "topic"
    keep_order = order == "input" or duplicates == "first"
    shuffled = False
    if partitioned_by is None and not (topic_in_index and ddf.known_divisions):
        if topic_in_index:
            frame = frame.reset_index()
        if keep_order:  # remember each row's place: a shuffle does not promise to keep it
            frame = frame.map_partitions(_tag_positions, meta=_tag_positions(frame._meta.copy()))
        frame = frame.shuffle(rc.topic, npartitions=npartitions, shuffle_method=shuffle_method)
        shuffled = True
    # ---- the facts every partition must agree on — all systems, the run topics (and the
    # caller's split) — from the two id columns of each input partition: one small result each
    id_cols = [rc.system] if topic_in_index else [rc.system, rc.topic]
    keys = [
        dask.delayed(partition_keys, pure=True)(p, rc.system, rc.topic)
        for p in ddf[id_cols].to_delayed()
    ]
    client = _distributed_client()
    # qrels (and the shared facts) go to the workers once (scattered on a distributed cluster),
    # never inside the task graph
    qrels_d = (
        client.scatter(qrels, broadcast=True, hash=False)
        if client
        else dask.delayed(qrels, pure=False)
    )
    if shuffled:
        # the shuffle reads every input partition before its first output partition exists, so
        # the ids are gathered in the same graph: each input partition (run file) is read once
        shared_d = dask.delayed(collect, pure=True)(
            qrels_d, *keys, qc=qc, duplicates=duplicates, complete=complete
        )
    else:
        # a cheap first pass (parquet reads just these columns), so that a split topic (system)
        # is found before anything is evaluated
        keys = dask.compute(*keys)
        _check_split(keys, split)
        shared = collect(qrels, *keys, qc=qc, duplicates=duplicates, complete=complete)
        shared_d = client.scatter(shared, broadcast=True, hash=False) if client else shared

    # ---- each partition is evaluated as soon as it is read (or as soon as the shuffle has
    # produced it), against its topics' qrels rows
    # the work (measures and options, e.g. rarity's reference= runs) also goes to the workers once
    work_d = client.scatter(work, broadcast=True, hash=False) if client else work
    task = dask.delayed(_evaluate_partition, pure=True)
    cubes = [
        task(
            p,
            qrels_d,
            shared_d,
            work_d,
            rc=rc,
            qc=qc,
            split=split,
            restore_order=keep_order and shuffled,
            complete=complete,
        )
        for p in frame.to_delayed()
    ]
    if shuffled:
        *results, shared = dask.compute(*cubes, shared_d)
    else:
        results = list(dask.compute(*cubes))
    results = [c for c in results if c is not None]
    dropped = [t for r in results if isinstance(r, tuple) for t in r[1]]
    results = [r[0] if isinstance(r, tuple) else r for r in results]
    if isinstance(probe, pd.DataFrame):  # a table per partition (rarity): rows of disjoint topics
        rows = [r for r in results if len(r)]  # (an empty table's id columns are object, not str)
        return work.finish(
            pd.concat(rows, ignore_index=True) if rows else (results or [probe])[0], dropped
        )
    if split == "system":
        return work.finish(combine_systems(results, shared["systems"], probe, complete), dropped)
    return work.finish(combine(results, shared, probe, complete), dropped)


def _tag_positions(df: pd.DataFrame, partition_info: dict | None = None) -> pd.DataFrame:
    number = partition_info["number"] if partition_info else 0
    return df.assign(
        **{
            _POS_PART: np.full(len(df), number, dtype=np.int64),
            _POS_ROW: np.arange(len(df), dtype=np.int64),
        }
    )


def _as_run_frame(part: pd.DataFrame, rc, restore_order: bool) -> pd.DataFrame:
    if rc.topic not in part.columns and part.index.name == rc.topic:
        part = part.reset_index()
    if restore_order:
        part = part.sort_values([_POS_PART, _POS_ROW], kind="stable")
    cols = [c for c in (rc.system, rc.topic, rc.doc, rc.score, rc.rank) if c is not None]
    return part[cols]


def _evaluate_partition(
    part: pd.DataFrame,
    qrels: pd.DataFrame,
    shared: dict,
    work: _Measures | _OnAligned,
    *,
    rc,
    qc,
    split: str,
    restore_order: bool,
    complete: bool,
) -> tuple[xr.DataArray, list] | xr.DataArray | pd.DataFrame | None:
    """Evaluate one partition with ``work`` (e.g. `irframe.evaluate.evaluate_part`; the unit of work).

    ``split="topic"``: the partition holds whole topics; it is evaluated against their qrels
    rows, told every system and grade of the whole (and, in the partition holding
    ``shared["host"]``, given the judged topics no partition holds, so ``complete=True``
    evaluates them as empty rankings).  ``split="system"``: it holds whole systems; told the
    grades (with ``complete=True`` it gets the full qrels anyway).  A partition none of whose
    topics is judged is only validated, as in memory (its rows are checked, then dropped):
    returns None (by system, its systems get NaN rows from the whole's system list)."""
    if len(part) == 0:
        return None
    part = _as_run_frame(part, rc, restore_order)
    topics = distinct(part[rc.topic])
    if split == "system":
        q = qrels[qrels[qc.topic].astype(str).isin(topics)]
        whole = Whole(grades=shared["grades"])
        if complete and len(q):
            q = qrels
    else:
        if shared["host"] is not None and shared["host"] in set(topics.tolist()):
            topics = np.concatenate([topics, np.asarray(shared["missing"], dtype=object)])
        q = qrels[qrels[qc.topic].astype(str).isin(topics)]
        whole = Whole(systems=shared["systems"], grades=shared["grades"])
    if len(q) == 0:
        try:  # the checks the in-memory alignment makes on every row (ids, scores); then no overlap
            work(part, qrels, Whole(), False)
        except EmptyOverlapError:
            return (
                _empty_rankings(part, qrels, shared, work, rc, qc)
                if split == "system" and complete
                else None
            )
        raise RuntimeError(
            "internal error: a partition without judged topics overlaps the qrels"
        )  # pragma: no cover
    return work(part, q, whole, complete)


def _empty_rankings(
    part: pd.DataFrame, qrels: pd.DataFrame, shared: dict, work: _Measures | _OnAligned, rc, qc
):
    """``complete=True`` by system, a partition none of whose topics is judged: as in memory, its
    systems rank nothing for every qrels topic.  Evaluated as the systems of a whole that also
    holds a one-document ranking (under a name sorted after all of theirs: the largest one
    extended), whose row is then dropped; the measures allowed by system (no cross-system
    statistic) give each system's values independently of the others."""
    systems = sorted(distinct(part[rc.system]).tolist())
    extra = systems[-1] + "\x00"
    cube, dropped = work(
        _one_doc_run(rc, qrels, qc, extra),
        qrels,
        Whole(systems=np.asarray([*systems, extra], dtype=object), grades=shared["grades"]),
        True,
    )
    return cube.isel(system=slice(0, -1)), dropped


def _one_doc_run(rc, qrels: pd.DataFrame, qc, system: str) -> pd.DataFrame:
    """A run frame ranking one judged document (the first qrels row) for ``system``."""
    run = pd.DataFrame(
        {
            rc.system: [system],
            rc.topic: [str(qrels[qc.topic].iloc[0])],
            rc.doc: [str(qrels[qc.doc].iloc[0])],
        }
    )
    if rc.score:
        run[rc.score] = 1.0
    if rc.rank:
        run[rc.rank] = 1
    return run


def _check_split(keys: list[tuple[np.ndarray, np.ndarray]], split: str) -> None:
    """Raise [`NotPartitionedError`][irframe.dask.NotPartitionedError] when a topic (``split="topic"``) or a system
    (``split="system"``) occurs in more than one partition (from the cheap first pass)."""
    i = 1 if split == "topic" else 0
    labels = np.concatenate([k[i] for k in keys]) if keys else np.array([], dtype=object)
    twice = repeated(labels)
    if not twice:
        return
    shown = f"{twice[:5]!r}{' ...' if len(twice) > 5 else ''}"
    if split == "topic":
        raise NotPartitionedError(
            f"topic(s) {shown} occur in more than one partition, but each topic's rows must be in one "
            f"partition (partitioned_by='topic' was given, or the topic index's divisions overlap). Drop "
            f"partitioned_by= to let irframe.dask shuffle by topic."
        )
    raise NotPartitionedError(
        f"system(s) {shown} occur in more than one partition, but partitioned_by='system' needs each "
        f"system's rows in one partition. Drop partitioned_by= to let irframe.dask shuffle by topic."
    )


def _distributed_client() -> Any:
    """The ``dask.distributed`` client that ``dask.compute`` would use now, or None (local
    schedulers, or distributed not installed)."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - distributed is part of the dask extra
        return None
    try:
        scheduler = dask.base.get_scheduler()
    except (
        RuntimeError,
        ValueError,
    ):  # pragma: no cover - a misconfigured scheduler: let compute say so
        return None
    client = getattr(scheduler, "__self__", scheduler)
    return client if isinstance(client, Client) else None


# ----------------------------------------------------------------------- reading
def _plain(df: pd.DataFrame) -> pd.DataFrame:
    """Id columns → pandas' default string dtype (``str``; ``object`` under pandas 2.2), so
    every partition has the same dtypes whether a file's docs were read as a categorical or
    as strings ([`read_runs`][irframe.io.read_runs])."""
    out = df.copy(deep=False)
    plain = pd.Series([], dtype=str).dtype
    for c in out.columns:
        s = out[c]
        if isinstance(s.dtype, pd.CategoricalDtype):  # take from the categories: no per-row str()
            cats = s.cat.categories.astype(str)
            out[c] = pd.Series(cats.array.take(s.cat.codes.to_numpy()), index=s.index, name=c)
        elif pd.api.types.is_string_dtype(s.dtype) and s.dtype != plain:
            out[c] = s.astype(plain)  # pandas 2.2: the strings read into Python objects
    return out


def _read_one(path: str, system: str | None, columns: Mapping[str, str] | None) -> pd.DataFrame:
    from .io import read_run

    return _plain(read_run(path, system=system, columns=columns))


def read_runs(
    paths_or_glob: Any,
    system: str | Callable[[str], str] = "file",
    *,
    columns: Mapping[str, str] | None = None,
) -> dd.DataFrame:
    """Many TREC run files as a lazy Dask frame, one partition per file.

    Parameters
    ----------
    paths_or_glob : str, os.PathLike or iterable of them
        Files, a glob pattern or a directory, as for [`irframe.read_runs`][irframe.io.read_runs].
    system : {"file", "tag"} or callable, default "file"
        How rows are named: the file name (``input.`` and ``.gz``/``.txt`` removed), the
        tag column, or ``f(path) -> str``.  Names are resolved (and checked for
        clashes) now; the files are read lazily, each by [`irframe.read_run`][irframe.io.read_run].
    columns : mapping, optional
        Output column names by role, as in [`irframe.read_run`][irframe.io.read_run].

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``system, topic, doc, rank, score``; ids are plain strings (pandas'
        default string dtype) in every partition, ``rank`` int64, ``score`` float64.
        Divisions are unknown; [`irframe.evaluate`][irframe.evaluate] shuffles them by topic.

    See Also
    --------
    - [`read_runs`][irframe.io.read_runs]: the same into one pandas frame.

    Examples
    --------
    >>> import dask, pathlib, tempfile, irframe.dask as idk
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "bm25.txt").write_text("1 Q0 a 1 3.0 x\\n2 Q0 b 1 2.0 x\\n")
    >>> _ = (d / "rm3.txt").write_text("1 Q0 b 1 2.0 y\\n")
    >>> ddf = idk.read_runs(str(d / "*.txt"))
    >>> ddf.npartitions
    2
    >>> with dask.config.set(scheduler="synchronous"):
    ...     ddf.compute().system.tolist()
    ['bm25', 'bm25', 'rm3']
    """
    from .io import expand_paths, system_names

    files = expand_paths(paths_or_glob)
    if not files:
        raise InputError(f"no run files match {paths_or_glob!r}")
    names = system_names(files, system)
    n = role_names(columns)
    meta = pd.DataFrame(
        {
            n["system"]: pd.Series([], dtype=str),
            n["topic"]: pd.Series([], dtype=str),
            n["doc"]: pd.Series([], dtype=str),
            n["rank"]: pd.Series([], dtype=np.int64),
            n["score"]: pd.Series([], dtype=np.float64),
        }
    )
    read = dask.delayed(_read_one, pure=True)
    return dd.from_delayed(
        [read(f, name, columns) for f, name in zip(files, names, strict=True)],
        meta=meta,
        verify_meta=True,
    )


# ----------------------------------------------------------------------- accessor
@register_dataframe_accessor("ir")
class DaskIrAccessor(IrAccessor):
    """``ddf.ir`` on Dask DataFrames (registered by ``import irframe.dask``): the pandas
    accessor's methods ([`IrAccessor`][irframe.IrAccessor]) on a Dask run frame; ``metric``,
    ``summary``, ``lexirecall``, ``lexiprecision`` and ``rarity`` call the same functions
    (they take Dask frames), with the Dask keywords ``partitioned_by``, ``npartitions`` and
    ``shuffle_method`` (see [`irframe.dask`][irframe.dask]).  ``cwl``, ``cwla_grid``, ``join``
    and ``to_trec`` raise [`NotOnDaskError`][irframe.dask.NotOnDaskError] saying what to use.

    Examples
    --------
    >>> import dask, dask.dataframe as dd, irframe as irf, irframe.dask
    >>> qrels, runs = irf.datasets.synthetic(2, 3, 10)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     cube = dd.from_pandas(runs, npartitions=2).ir.metric("nDCG@10", qrels=qrels)
    >>> cube.dims
    ('system', 'topic', 'measure')
    """

    def _qrels(self, qrels: Any = None) -> Any:
        if qrels is None:
            raise InputError("pass qrels=... (Dask frames cannot be joined with .ir.join)")
        return qrels

    def cwl(self, *args: Any, **kwargs: Any) -> Any:
        """Not on Dask frames yet (raises [`NotOnDaskError`][irframe.dask.NotOnDaskError] saying what to use)."""
        raise _not_yet(
            "ddf.ir.cwl (the C/W/L Dataset of EU, ETU, EC, ETC, ED)",
            "C/W/L measures are: ddf.ir.metric(['CWL(C=INST(T=2))', 'CWLA(C=RBP(p=0.8),A=max)'], "
            "qrels=...)",
        )

    def cwla_grid(self, *args: Any, **kwargs: Any) -> Any:
        """Not on Dask frames yet (raises [`NotOnDaskError`][irframe.dask.NotOnDaskError] saying what to use)."""
        raise _not_yet(
            "ddf.ir.cwla_grid",
            "each C/W/L/A combination is a measure: ddf.ir.metric(['CWLA(C=...,A=...)', "
            "...], qrels=...)",
        )

    def join(self, *args: Any, **kwargs: Any) -> Any:
        """Not on Dask frames (raises [`NotOnDaskError`][irframe.dask.NotOnDaskError]): pass ``qrels=`` to ``metric``."""
        raise _not_yet(
            "ddf.ir.join",
            "pass qrels= to ddf.ir.metric (the qrels stay in memory and are sent to "
            "the workers once)",
            later=False,
        )

    def to_trec(self, *args: Any, **kwargs: Any) -> Any:
        """Not on Dask frames (raises [`NotOnDaskError`][irframe.dask.NotOnDaskError])."""
        raise _not_yet(
            "ddf.ir.to_trec",
            "write each partition with ddf.map_partitions and irframe.io.write_run, "
            "or ddf.compute().ir.to_trec(path) when the frame fits in memory",
            later=False,
        )


def _not_yet(what: str, instead: str, later: bool = True) -> NotOnDaskError:
    return NotOnDaskError(
        f"{what} is not supported on Dask frames{' yet' if later else ''}; {instead}. Or compute the frame "
        f"(ddf.compute()) and use the pandas accessor, if it fits in memory."
    )


# ----------------------------------------------------------------------- deprecated (0.1 names)
def _moved(name: str, new: str) -> Callable[..., Any]:
    """``irframe.dask.<name>`` of irframe 0.1: a FutureWarning, then ``new`` (which takes Dask frames)."""

    def alias(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"irframe.dask.{name} is deprecated and will be removed; call {new}(ddf, qrels, ...): "
            f"it takes Dask frames",
            FutureWarning,
            stacklevel=2,
        )
        module, _, attr = new.rpartition(".")
        return getattr(importlib.import_module(module), attr)(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = name
    return alias


evaluate = _moved("evaluate", "irframe.evaluate")
lexirecall = _moved("lexirecall", "irframe.lexi.lexirecall")
lexiprecision = _moved("lexiprecision", "irframe.lexi.lexiprecision")
rarity = _moved("rarity", "irframe.rarity.rarity")
rare_finds = _moved("rare_finds", "irframe.rarity.rare_finds")
