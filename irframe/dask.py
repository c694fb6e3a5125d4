"""Scale-out with Dask: evaluate a ``dask.dataframe.DataFrame`` run frame topic by topic.

Every measure irframe registers is *topic-local*: the value of a (system, topic) cell
depends only on that topic's qrels and on the rankings of that topic (its own ranking,
and for rarity and metric lexirecall the other systems' rankings of the same topic).
So a run frame split by topic can be evaluated one partition at a time
(`irframe.evaluate.evaluate_part`), each partition against its topics' rows of the
(small, in-memory) qrels and told the systems and grades of the whole
(`irframe.evaluate.Whole`), and the per-partition cubes stitched together along
``topic``.  Only cubes travel back to the client; the run rows never do.  The same holds
for the preference cubes of [`irframe.lexi`][irframe.lexi] ([`lexirecall`][irframe.dask.lexirecall], [`lexiprecision`][irframe.dask.lexiprecision])
and the tables of [`irframe.rarity`][irframe.rarity] ([`rarity`][irframe.dask.rarity], [`rare_finds`][irframe.dask.rare_finds]).

``import irframe.dask`` registers a thin ``.ir`` accessor on Dask DataFrames::

    import irframe.dask
    cube = ddf.ir.metric(["AP", "nDCG@10"], qrels=qrels)

How a frame is split (see [`evaluate`][irframe.dask.evaluate]):

* by default the frame is shuffled on the topic column (``ddf.shuffle("topic")``), so
  each topic's rows end up in exactly one partition;
* a frame indexed by topic with known divisions (``ddf.set_index("topic")``) is already
  split by topic and is used as it is;
* ``partitioned_by="topic"`` tells [`evaluate`][irframe.dask.evaluate] that the frame already holds each
  topic in a single partition (e.g. one file per topic); nothing is shuffled, and a topic
  found in two partitions raises [`NotPartitionedError`][irframe.dask.NotPartitionedError];
* ``partitioned_by="system"`` does the same for frames holding each system in one
  partition ([`read_runs`][irframe.dask.read_runs]: one file per system), for every measure that does not
  look at the other systems (all but rarity's and ``LR``).

The result is identical (values, coordinates, ``aggregate`` coordinate and attrs) to
``irframe.evaluate`` on the concatenated pandas frame, with ``complete=`` and ``depth=``
and every other option.

Examples
--------
>>> import dask, dask.dataframe as dd, irframe as irf, irframe.dask
>>> qrels, runs = irf.datasets.synthetic(3, 4, 20)
>>> ddf = dd.from_pandas(runs, npartitions=2)
>>> with dask.config.set(scheduler="synchronous"):
...     cube = ddf.ir.metric(["AP", "P@10"], qrels=qrels)
>>> cube.identical(irf.evaluate(runs, qrels, ["AP", "P@10"]))
True
"""

from __future__ import annotations

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
from .errors import EmptyOverlapError, InputError, IrframeError
from .evaluate import Whole, check_request
from .evaluate import evaluate_part as _evaluate_part
from .measures import Measure, MeasureDef, parse_measures
from .options import Options, make_options
from .params import check_flag
from .qrelsets import is_qrels_sets
from .schema import as_frame, check_id_column, role_names, run_columns
from .schema import qrels_columns as _qrels_columns

__all__ = [
    "DaskIrAccessor",
    "NotOnDaskError",
    "NotPartitionedError",
    "UnsupportedMeasureError",
    "check_measures",
    "evaluate",
    "is_system_local",
    "is_topic_local",
    "lexiprecision",
    "lexirecall",
    "rare_finds",
    "rarity",
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


def check_measures(measures: str | Iterable[str], *, system_local: bool = False) -> list[Measure]:
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
            f"measure(s) {names} cannot be evaluated partition by partition: irframe.dask only runs "
            f"measures whose value for a (system, topic) depends on that topic alone. If yours "
            f"is, register it with MeasureDef(..., topic_local=True); otherwise compute the frame "
            f"(ddf.compute()) and use irframe.evaluate."
        )
    if system_local:
        labels = [m.label for m in specs if not is_system_local(m.definition)]
        if labels:
            raise UnsupportedMeasureError(
                f"measure(s) {labels} compare a ranking with the other systems' rankings of the topic, so they "
                f"cannot be evaluated on a frame split by system; drop partitioned_by='system' (irframe.dask "
                f"then shuffles by topic)"
            )
    return specs


# ----------------------------------------------------------------------- evaluate
def evaluate(
    ddf: dd.DataFrame,
    qrels: pd.DataFrame,
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
    partitioned_by: str | None = None,
    npartitions: int | None = None,
    shuffle_method: str | None = None,
    **options: Any,
) -> xr.DataArray:
    """Evaluate a Dask run frame topic by topic; the same cube as [`irframe.evaluate`][irframe.evaluate].

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        Long run frame ``system, topic, doc, score[, rank]`` (``topic`` may also be the
        index, as after ``ddf.set_index("topic")``).
    qrels : pandas.DataFrame
        Judgments ``topic, doc, rel[, subtopic]``, in memory (a Dask qrels frame is
        computed first; qrels are small).  Every partition gets the rows of its topics.
    measures : str or list of str
        Measure strings as for [`irframe.evaluate`][irframe.evaluate]; only topic-local measures
        ([`is_topic_local`][irframe.dask.is_topic_local]) are accepted.
    rel_level, order, complete, depth, gains, judged_only, duplicates, columns, qrels_columns, **options
        As for [`irframe.evaluate`][irframe.evaluate] (``reference=`` for rarity is sent to every
        partition).
    partitioned_by : {None, "topic", "system"}
        ``"topic"``: the caller guarantees that all rows of a topic are in one partition,
        so no shuffle is needed (checked: a topic in two partitions raises
        [`NotPartitionedError`][irframe.dask.NotPartitionedError]).  ``"system"``: all rows of a system are in one
        partition, as [`read_runs`][irframe.dask.read_runs] gives (one file per system); no shuffle either,
        and only measures that need no other system are allowed (not rarity, not ``LR``).
        ``None`` (default): shuffle on the topic column, unless the frame is indexed by
        topic with known divisions.
    npartitions : int, optional
        Number of partitions of the shuffle (default: as many as ``ddf`` has).
    shuffle_method : {"disk", "tasks", "p2p"}, optional
        Passed to ``ddf.shuffle`` (default: dask's choice; ``"tasks"`` is often faster
        on one machine, ``"p2p"`` is the distributed scheduler's default).

    Returns
    -------
    xarray.DataArray
        Dims ``("system", "topic", "measure")``, identical to ``irframe.evaluate`` on
        ``ddf.compute()``: systems and topics sorted, NaN where a system did not
        retrieve for a topic (unless ``complete=True``), ``aggregate`` coordinate, attrs.

    Raises
    ------
    UnsupportedMeasureError
        For a measure that is not topic-local.
    NotPartitionedError
        ``partitioned_by="topic"`` (``"system"``) but a topic (system) is split over partitions.

    Notes
    -----
    The qrels and measures are validated on the client before anything is computed.
    On a ``dask.distributed`` client the qrels are scattered to every worker once
    (``client.scatter(..., broadcast=True)``), never embedded in the task graph.
    Each partition is evaluated by `irframe.evaluate.evaluate_part` with its own rows and
    its topics' qrels rows, told what it must know about the whole frame
    (`irframe.evaluate.Whole`): every system and every qrels grade.  The systems are
    gathered from the system and topic columns of the input partitions: inside the shuffle's
    graph when the frame is shuffled (each input partition is read once), else in a first
    pass that also checks ``partitioned_by=`` before any partition is evaluated.  So
    ``complete=True`` gives every missing (system, topic) pair an empty ranking, rarity's S
    and metric lexirecall see every system, and gain scales and the unjudged bound
    (``bounds=True``) use the largest grade of all qrels, exactly as in memory; judged topics
    that no partition holds are evaluated (as empty rankings) by the partition holding the
    smallest judged run topic.  With ``order="input"`` or ``duplicates="first"``
    the original row order is restored after the shuffle (two int64 columns travel
    with the rows).

    See Also
    --------
    - [`evaluate`][irframe.evaluate]: the same on a pandas frame.
    - [`read_runs`][irframe.dask.read_runs]: one partition per run file.
    - [Dask](../dask.md): the guide.

    Examples
    --------
    >>> import dask, dask.dataframe as dd, irframe as irf
    >>> from irframe.dask import evaluate
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> ddf = dd.from_pandas(runs, npartitions=3)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     cube = evaluate(ddf, qrels, ["map", "P@10"], complete=True)
    >>> float(cube.sel(measure="P@10").mean().round(4))
    0.3
    """
    rep = (columns or {}).get("replicate") or (
        "replicate" if "replicate" in getattr(ddf, "columns", ()) else None
    )
    if rep is not None:  # irframe.evaluate stacks replicates along a dim; not done topic-wise here
        raise InputError(
            f"irframe.dask.evaluate has no replicate role, but the run frame's column {rep!r} "
            f"holds replicates (seeds, folds); evaluate them in memory with "
            f"irframe.evaluate(ddf.compute(), qrels, measures, columns={{'replicate': {rep!r}}}), "
            f"or one replicate at a time: ddf[ddf[{rep!r}] == r] (dropping the column)"
        )
    qrels = _check_inputs(ddf, qrels, partitioned_by, npartitions, "evaluate")
    specs = check_measures(measures, system_local=partitioned_by == "system")
    bounds, unjudged_grade = options.pop("bounds", False), options.pop("unjudged_grade", None)
    opts = make_options(  # built and checked once, on the client
        rel_level=rel_level,
        order=order,
        depth=depth,
        gains=gains,
        judged_only=judged_only,
        duplicates=duplicates,
        columns=columns,
        qrels_columns=qrels_columns,
        bounds=bounds,
        unjudged_grade=unjudged_grade,
        measure_options=options,
        tie_orders=True,
    )
    check_request(specs, opts)
    return _by_partition(
        ddf,
        qrels,
        _Measures(measures, opts),
        columns=columns,
        qrels_columns=qrels_columns,
        order=order,
        duplicates=duplicates,
        complete=complete,
        partitioned_by=partitioned_by,
        npartitions=npartitions,
        shuffle_method=shuffle_method,
    )


def lexirecall(
    ddf: dd.DataFrame,
    qrels: pd.DataFrame,
    *,
    rel_level: float = 1,
    partitioned_by: str | None = None,
    npartitions: int | None = None,
    shuffle_method: str | None = None,
    **options: Any,
) -> xr.DataArray:
    """[`irframe.lexi.lexirecall`][irframe.lexi.lexirecall] of a Dask run frame, topic by topic; the same cube.

    The preferences of a topic compare every system's ranking of it, so the frame is split by
    topic as in [`evaluate`][irframe.dask.evaluate] (shuffled, or ``partitioned_by="topic"``; not ``"system"``), and
    every partition is told all systems.  ``options`` as for [`irframe.lexi.lexirecall`][irframe.lexi.lexirecall].

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        Long run frame ``system, topic, doc, score[, rank]``.
    qrels : pandas.DataFrame
        Judgments, in memory.
    rel_level : float
        Relevant ⇔ grade >= rel_level.
    partitioned_by : {None, "topic"}
        ``"topic"``: every topic's rows are in one partition already (no shuffle); ``None``:
        shuffle on the topic column, as in [`evaluate`][irframe.dask.evaluate].
    npartitions, shuffle_method
        As for [`evaluate`][irframe.dask.evaluate].
    **options
        As for [`irframe.lexi.lexirecall`][irframe.lexi.lexirecall].

    Returns
    -------
    xarray.DataArray
        ``(system, other, topic)`` in {-1, 0, +1}, identical to the pandas result.

    See Also
    --------
    - [`lexirecall`][irframe.lexi.lexirecall]: the same on a pandas frame.

    Examples
    --------
    >>> import dask, dask.dataframe as dd, irframe as irf, irframe.dask as idk
    >>> qrels, runs = irf.datasets.synthetic(3, 4, 20, rng=1)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     pref = idk.lexirecall(dd.from_pandas(runs, npartitions=2), qrels)
    >>> pref.identical(irf.lexi.lexirecall(runs, qrels))
    True
    """
    return _lexi(
        ddf, qrels, "recall", rel_level, partitioned_by, npartitions, shuffle_method, options
    )


def lexiprecision(
    ddf: dd.DataFrame,
    qrels: pd.DataFrame,
    *,
    rel_level: float = 1,
    partitioned_by: str | None = None,
    npartitions: int | None = None,
    shuffle_method: str | None = None,
    **options: Any,
) -> xr.DataArray:
    """[`irframe.lexi.lexiprecision`][irframe.lexi.lexiprecision] of a Dask run frame, topic by topic (see [`lexirecall`][irframe.dask.lexirecall]).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        Long run frame ``system, topic, doc, score[, rank]``.
    qrels : pandas.DataFrame
        Judgments, in memory.
    rel_level : float
        Relevant ⇔ grade >= rel_level.
    partitioned_by : {None, "topic"}
        ``"topic"``: every topic's rows are in one partition already (no shuffle); ``None``:
        shuffle on the topic column, as in [`evaluate`][irframe.dask.evaluate].
    npartitions, shuffle_method
        As for [`evaluate`][irframe.dask.evaluate].
    **options
        As for [`irframe.lexi.lexiprecision`][irframe.lexi.lexiprecision].

    Returns
    -------
    xarray.DataArray
        ``(system, other, topic)`` in {-1, 0, +1}, identical to the pandas result.

    See Also
    --------
    - [`lexiprecision`][irframe.lexi.lexiprecision]: the same on a pandas frame.
    """
    return _lexi(
        ddf, qrels, "precision", rel_level, partitioned_by, npartitions, shuffle_method, options
    )


def _lexi(
    ddf,
    qrels,
    kind: str,
    rel_level: float,
    partitioned_by,
    npartitions,
    shuffle_method,
    options: dict,
) -> xr.DataArray:
    from .lexi import _ALIGN_OPTIONS

    return _per_topic(
        ddf,
        qrels,
        lambda opts: _Lexi(kind, rel_level, opts),
        f"lexi{kind}",
        "compares every system's ranking of a topic",
        _ALIGN_OPTIONS,
        partitioned_by,
        npartitions,
        shuffle_method,
        options,
    )


def _per_topic(
    ddf,
    qrels,
    make_work: Callable[[dict], Any],
    name: str,
    why: str,
    allowed: Iterable[str],
    partitioned_by,
    npartitions,
    shuffle_method,
    options: dict,
) -> Any:
    """An entry point whose result for a topic looks at every system's ranking of it (lexi, rarity
    tables): options checked, split by topic only, then `_by_partition`."""
    qrels = _check_inputs(ddf, qrels, partitioned_by, npartitions, name)
    unknown = set(options) - set(allowed)
    if unknown:
        raise TypeError(
            f"unexpected option(s) {sorted(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )
    if partitioned_by == "system":
        raise UnsupportedMeasureError(
            f"{name} {why}, so it cannot be computed on a frame split by system; drop partitioned_by='system' "
            f"(irframe.dask then shuffles by topic)"
        )
    opts = {"order": "trec_eval", "duplicates": "error", **options}
    return _by_partition(
        ddf,
        qrels,
        make_work(opts),
        columns=opts.get("columns"),
        qrels_columns=opts.get("qrels_columns"),
        order=opts["order"],
        duplicates=opts["duplicates"],
        complete=check_flag("complete", opts.get("complete", False)),
        partitioned_by=partitioned_by,
        npartitions=npartitions,
        shuffle_method=shuffle_method,
    )


def _aligned_part(run: pd.DataFrame, q: pd.DataFrame, whole: Whole, opts: dict, complete: bool):
    """The part aligned with ``opts`` (align options), as if within the whole."""
    from .options import make_options

    return whole.align(run, q, make_options(**{**opts, "complete": complete}))


class _Measures:
    """The work of [`evaluate`][irframe.dask.evaluate] on one part: a measure cube (no extra facts)."""

    def __init__(self, measures: Any, options: Options) -> None:
        self.measures, self.options = measures, options

    def __call__(
        self, run: pd.DataFrame, q: pd.DataFrame, whole: Whole, complete: bool
    ) -> tuple[xr.DataArray, list]:
        opts = self.options.replace(complete=complete)
        return _evaluate_part(run, q, self.measures, whole, opts), []

    def finish(self, cube: xr.DataArray, dropped: list[str]) -> xr.DataArray:
        return cube


class _Lexi:
    """The work of [`lexirecall`][irframe.dask.lexirecall] / [`lexiprecision`][irframe.dask.lexiprecision] on one part: the preference cube of
    its topics, and the topics it dropped (no relevant document), for the stitched attrs."""

    def __init__(self, kind: str, rel_level: float, opts: dict) -> None:
        self.kind, self.rel_level, self.opts = kind, rel_level, opts

    def __call__(
        self, run: pd.DataFrame, q: pd.DataFrame, whole: Whole, complete: bool
    ) -> tuple[xr.DataArray, list]:
        from .lexi import lexiprecision, lexirecall

        a = _aligned_part(run, q, whole, self.opts, complete)
        cube = (lexirecall if self.kind == "recall" else lexiprecision)(a, rel_level=self.rel_level)
        kept = set(cube.topic.values.tolist())
        return cube, [str(t) for t in a.topics if t not in kept]

    def finish(self, cube: xr.DataArray, dropped: list[str]) -> xr.DataArray:
        from .lexi import dropped_topic_attrs

        cube.attrs.update(dropped_topic_attrs(sorted(dropped)))
        return cube


def rarity(
    ddf: dd.DataFrame,
    qrels: pd.DataFrame,
    *,
    k: int | None = 100,
    rel_level: float = 1,
    partitioned_by: str | None = None,
    npartitions: int | None = None,
    shuffle_method: str | None = None,
    **options: Any,
) -> pd.DataFrame:
    """[`irframe.rarity.rarity`][irframe.rarity.rarity] of a Dask run frame, topic by topic: the same table.

    A relevant document's S_d counts the systems retrieving it in their top ``k`` *for its
    topic*, and S counts all systems, so the frame is split by topic (shuffled, or
    ``partitioned_by="topic"``; not ``"system"``) and every partition is told all systems.
    ``options`` as for [`irframe.rarity.rarity`][irframe.rarity.rarity] (one qrels frame).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        Long run frame ``system, topic, doc, score[, rank]``.
    qrels : pandas.DataFrame
        Judgments, in memory.
    k : int, optional
        Depth at which a system finds a document (None: the whole ranking).
    rel_level : float
        Relevant ⇔ grade >= rel_level.
    partitioned_by : {None, "topic"}
        ``"topic"``: every topic's rows are in one partition already (no shuffle); ``None``:
        shuffle on the topic column, as in [`evaluate`][irframe.dask.evaluate].
    npartitions, shuffle_method
        As for [`evaluate`][irframe.dask.evaluate].
    **options
        As for [`irframe.rarity.rarity`][irframe.rarity.rarity].

    Returns
    -------
    pandas.DataFrame
        The same table as [`irframe.rarity.rarity`][irframe.rarity.rarity].

    See Also
    --------
    - [`rarity`][irframe.rarity.rarity]: the same on a pandas frame.

    Examples
    --------
    >>> import dask, dask.dataframe as dd, irframe as irf, irframe.dask as idk
    >>> qrels, runs = irf.datasets.synthetic(3, 4, 20, rng=1)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     table = idk.rarity(dd.from_pandas(runs, npartitions=2), qrels, k=10)
    >>> table.equals(irf.rarity.rarity(runs, qrels, k=10))
    True
    """
    return _table(
        ddf,
        qrels,
        "rarity",
        {"k": k, "rel_level": rel_level},
        partitioned_by,
        npartitions,
        shuffle_method,
        options,
    )


def rare_finds(
    ddf: dd.DataFrame,
    qrels: pd.DataFrame,
    *,
    k: int | None = 100,
    rel_level: float = 1,
    max_systems: int | None = 1,
    partitioned_by: str | None = None,
    npartitions: int | None = None,
    shuffle_method: str | None = None,
    **options: Any,
) -> pd.DataFrame:
    """[`irframe.rarity.rare_finds`][irframe.rarity.rare_finds] of a Dask run frame, topic by topic (see [`rarity`][irframe.dask.rarity])."""
    return _table(
        ddf,
        qrels,
        "rare_finds",
        {"k": k, "rel_level": rel_level, "max_systems": max_systems},
        partitioned_by,
        npartitions,
        shuffle_method,
        options,
    )


def _table(
    ddf, qrels, kind: str, params: dict, partitioned_by, npartitions, shuffle_method, options: dict
) -> pd.DataFrame:
    allowed = {
        "reference",
        "order",
        "depth",
        "complete",
        "judged_only",
        "columns",
        "qrels_columns",
        "duplicates",
    }
    return _per_topic(
        ddf,
        qrels,
        lambda opts: _Table(kind, params, opts),
        kind,
        "counts the systems retrieving each document of a topic",
        allowed,
        partitioned_by,
        npartitions,
        shuffle_method,
        options,
    )


class _Table:
    """The work of [`rarity`][irframe.dask.rarity] / [`rare_finds`][irframe.dask.rare_finds] on one part: its topics' rows of the table."""

    def __init__(self, kind: str, params: dict, opts: dict) -> None:
        self.kind, self.params = kind, params
        self.reference = opts.get("reference")
        self.opts = {k: v for k, v in opts.items() if k != "reference"}

    def __call__(
        self, run: pd.DataFrame, q: pd.DataFrame, whole: Whole, complete: bool
    ) -> tuple[pd.DataFrame, list]:
        from .rarity import rare_finds, rarity

        a = _aligned_part(run, q, whole, self.opts, complete)
        f = rarity if self.kind == "rarity" else rare_finds
        return f(a, reference=self.reference, **self.params), []

    def finish(self, table: pd.DataFrame, dropped: list[str]) -> pd.DataFrame:
        keys = ["topic", "doc"] if self.kind == "rarity" else ["system", "topic", "rank"]
        return table.sort_values(keys, kind="stable", ignore_index=True)


def _check_inputs(ddf, qrels, partitioned_by, npartitions, name: str) -> pd.DataFrame:
    """Argument checks shared by the entry points; the qrels in memory."""
    if isinstance(ddf, pd.DataFrame):
        raise TypeError(
            f"irframe.dask.{name} takes a dask DataFrame; for a pandas frame use the in-memory "
            f"function (irframe.{name}), or wrap it with dask.dataframe.from_pandas"
        )
    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(f"ddf must be a dask.dataframe.DataFrame, got {type(ddf).__name__}")
    if isinstance(qrels, dd.DataFrame):
        qrels = qrels.compute()
    if is_qrels_sets(qrels):
        raise InputError(
            f"irframe.dask.{name} takes one qrels frame, but qrels is a mapping of "
            f"{len(qrels)} judgment sets ({', '.join(map(repr, list(qrels)[:5]))}); evaluate "
            f"one set at a time, e.g. {{name: irframe.dask.{name}(ddf, q, ...) for name, q in "
            f"qrels.items()}}, or compute() the run frame and pass the mapping to irframe.{name}"
        )
    if not isinstance(qrels, pd.DataFrame):  # records, {topic: {doc: grade}}: as everywhere
        qrels = as_frame(qrels, "qrels")
    if partitioned_by not in (None, "topic", "system"):
        raise ValueError(
            f"partitioned_by must be None, 'topic' or 'system', got {partitioned_by!r}"
        )
    if npartitions is not None and (
        not isinstance(npartitions, (int, np.integer)) or npartitions < 1
    ):
        raise ValueError(f"npartitions must be a positive integer, got {npartitions!r}")
    return qrels


def _by_partition(
    ddf: dd.DataFrame,
    qrels: pd.DataFrame,
    work: _Measures | _Lexi | _Table,
    *,
    columns,
    qrels_columns,
    order: str,
    duplicates: str,
    complete: bool,
    partitioned_by: str | None,
    npartitions: int | None,
    shuffle_method: str | None,
) -> xr.DataArray:
    """Split ``ddf`` by topic (or take the caller's split), run ``work`` on every partition told
    the whole's facts, and stitch the results (see [`evaluate`][irframe.dask.evaluate], Notes)."""
    # ---- resolve columns on the (empty) meta frame ---------------------------------------
    meta = ddf._meta
    topic_name = role_names(columns)["topic"]
    topic_in_index = topic_name not in meta.columns and meta.index.name == topic_name
    if topic_in_index:
        meta = meta.reset_index()
    rc = run_columns(meta, columns)
    for col in (rc.system, rc.topic, rc.doc):
        check_id_column(meta, col, "run frame")
    qc = _qrels_columns(qrels, qrels_columns)
    # validate qrels, measures and options on the client (a one-row evaluation), before any work
    probe = _probe(rc, qrels, qc, work)

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


def _probe(
    rc, qrels: pd.DataFrame, qc, work: _Measures | _Lexi | _Table
) -> xr.DataArray | pd.DataFrame:
    """Validate qrels, measures and options on the client: evaluate a one-document ranking
    (a judged document of the first qrels topic) against the full qrels.  Its values are
    discarded; its other dims, coordinates and attrs are the stitched cube's."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):  # its values are discarded
        warnings.simplefilter("ignore")
        cube, _ = work(_one_doc_run(rc, qrels, qc, "probe"), qrels, Whole(), False)
    return cube.iloc[:0] if isinstance(cube, pd.DataFrame) else cube.isel(topic=slice(0, 0))


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
    work: _Measures | _Lexi | _Table,
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
    part: pd.DataFrame, qrels: pd.DataFrame, shared: dict, work: _Measures | _Lexi | _Table, rc, qc
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
    """Categorical id columns → plain strings, so every partition has the same dtypes."""
    out = df.copy(deep=False)
    for c in out.columns:
        s = out[c]
        if isinstance(s.dtype, pd.CategoricalDtype):  # take from the categories: no per-row str()
            cats = s.cat.categories.astype(str)
            out[c] = pd.Series(cats.array.take(s.cat.codes.to_numpy()), index=s.index, name=c)
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
        Divisions are unknown; [`evaluate`][irframe.dask.evaluate] shuffles by topic.

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
    from .io import _expand, system_names

    files = _expand(paths_or_glob)
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
class DaskIrAccessor:
    """``ddf.ir`` on Dask DataFrames (registered by ``import irframe.dask``).

    Examples
    --------
    >>> import dask, dask.dataframe as dd, irframe as irf, irframe.dask
    >>> qrels, runs = irf.datasets.synthetic(2, 3, 10)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     cube = dd.from_pandas(runs, npartitions=2).ir.metric("nDCG@10", qrels=qrels)
    >>> cube.dims
    ('system', 'topic', 'measure')
    """

    def __init__(self, obj: dd.DataFrame) -> None:
        cols = set(obj.columns) | ({obj.index.name} if obj.index.name else set())
        missing = [c for c in ("system", "topic", "doc") if c not in cols]
        if missing or not ({"score", "rank"} & cols):
            missing += [] if {"score", "rank"} & cols else ["score (or rank)"]
            raise AttributeError(
                f".ir needs a run frame with columns system, topic, doc and score (or rank); missing: "
                f"{', '.join(missing)}; found: {', '.join(map(str, list(obj.columns)[:20]))}. Rename columns "
                f"or use irframe.dask.evaluate(ddf, qrels, measures, columns={{...}})."
            )
        self._obj = obj

    def metric(
        self, measures: str | Iterable[str], qrels: pd.DataFrame, **options: Any
    ) -> xr.DataArray:
        """Evaluate measures → cube ``(system, topic, measure)``; see [`irframe.dask.evaluate`][irframe.dask.evaluate].

        Parameters
        ----------
        measures : str or list of str
            Measure strings; every measure must be computable per partition (see
            [`irframe.dask.evaluate`][irframe.dask.evaluate]).
        qrels : pandas.DataFrame
            Judgments, in memory (sent to the workers once).
        **options
            Any option of [`irframe.dask.evaluate`][irframe.dask.evaluate].

        Returns
        -------
        xarray.DataArray
            The same cube as [`df.ir.metric`][irframe.IrAccessor.metric] on the computed frame.

        See Also
        --------
        - [`irframe.dask.evaluate`][irframe.dask.evaluate]: the same as a function.
        - [`df.ir.metric`][irframe.IrAccessor.metric]: pandas frames.
        """
        if qrels is None:
            raise InputError("pass qrels=... (Dask frames cannot be joined with .ir.join)")
        return evaluate(self._obj, qrels, measures, **options)

    def summary(
        self,
        measures: str | Iterable[str],
        qrels: pd.DataFrame,
        *,
        missing: str = "skip",
        **options: Any,
    ) -> pd.DataFrame:
        """Means over topics as a system × measure table ([`irframe.summarize`][irframe.summarize] of [`metric`][irframe.dask.DaskIrAccessor.metric]).

        Parameters
        ----------
        measures : str or list of str
            Measure strings.
        qrels : pandas.DataFrame
            Judgments, in memory (sent to the workers once).
        missing : {"skip", "zero", "common"}
            The topic-set policy of [`irframe.summarize`][irframe.summarize].
        **options
            Any option of [`irframe.dask.evaluate`][irframe.dask.evaluate].

        Returns
        -------
        pandas.DataFrame
            One row per system, one column per measure.
        """
        from .cube import summarize

        return summarize(self.metric(measures, qrels, **options), missing=missing)

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

    def lexirecall(self, qrels: pd.DataFrame, **options: Any) -> xr.DataArray:
        """Lexicographic recall preferences ``(system, other, topic)``; see [`irframe.dask.lexirecall`][irframe.dask.lexirecall].

        Parameters
        ----------
        qrels : pandas.DataFrame
            Judgments, in memory (sent to the workers once).
        **options
            Any option of [`irframe.dask.lexirecall`][irframe.dask.lexirecall].

        Returns
        -------
        xarray.DataArray
            ``(system, other, topic)`` in {-1, 0, +1}.
        """
        return lexirecall(self._obj, qrels, **options)

    def lexiprecision(self, qrels: pd.DataFrame, **options: Any) -> xr.DataArray:
        """Lexicographic precision preferences ``(system, other, topic)``; see [`irframe.dask.lexiprecision`][irframe.dask.lexiprecision].

        Parameters
        ----------
        qrels : pandas.DataFrame
            Judgments, in memory (sent to the workers once).
        **options
            Any option of [`irframe.dask.lexiprecision`][irframe.dask.lexiprecision].

        Returns
        -------
        xarray.DataArray
            ``(system, other, topic)`` in {-1, 0, +1}.
        """
        return lexiprecision(self._obj, qrels, **options)

    def rarity(self, qrels: pd.DataFrame, **options: Any) -> pd.DataFrame:
        """Per relevant document: how many systems found it in their top k; see [`irframe.dask.rarity`][irframe.dask.rarity].

        Parameters
        ----------
        qrels : pandas.DataFrame
            Judgments, in memory (sent to the workers once).
        **options
            Any option of [`irframe.dask.rarity`][irframe.dask.rarity].

        Returns
        -------
        pandas.DataFrame
            One row per relevant document (see [`irframe.rarity.rarity`][irframe.rarity.rarity]).
        """
        return rarity(self._obj, qrels, **options)

    def join(self, *args: Any, **kwargs: Any) -> Any:
        """Not on Dask frames (raises [`NotOnDaskError`][irframe.dask.NotOnDaskError]): pass ``qrels=`` to [`metric`][irframe.dask.DaskIrAccessor.metric]."""
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
