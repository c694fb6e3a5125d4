"""Stitching the per-partition results of [`irframe.dask`][irframe.dask] (no Dask needed here).

The facts every partition must know about the whole frame (`collect`), the distinct
keys of a partition, and the stitching of per-partition cubes into one cube built by
`irframe.cube.result` (by topic: `combine`; by system: `combine_systems`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .cube import result
from .schema import no_overlap_error

__all__ = ["collect", "combine", "combine_systems", "distinct", "partition_keys", "repeated"]


def partition_keys(part: pd.DataFrame, system: str, topic: str) -> tuple[np.ndarray, np.ndarray]:
    """The distinct systems and topics of one partition (strings)."""
    if topic not in part.columns and part.index.name == topic:
        t = part.index.to_series()
    else:
        t = part[topic]
    return distinct(part[system]), distinct(t)


def distinct(s: pd.Series) -> np.ndarray:
    """Distinct values as an object array of str (unique first: cheap on categoricals);
    missing ids left out (a partition's own check names their rows, as in memory)."""
    u = pd.unique(s.dropna())
    return np.asarray([str(x) for x in u], dtype=object)


def collect(
    qrels: pd.DataFrame, *keys: tuple[np.ndarray, np.ndarray], qc, duplicates: str, complete: bool
) -> dict:
    """What every partition must know about the whole frame (`irframe.evaluate.Whole`):
    the sorted systems and every grade of the qrels frame; with ``complete=True`` also the
    judged topics no partition holds and the judged run topic whose partition evaluates them
    (``host``: a partition whose rows overlap the qrels)."""
    systems = sorted(set().union(*(k[0].tolist() for k in keys))) if keys else []
    run_topics = set().union(*(k[1].tolist() for k in keys)) if keys else set()
    qrels_topics = set(distinct(qrels[qc.topic]).tolist())
    if not run_topics & qrels_topics:
        raise no_overlap_error(sorted(run_topics), sorted(qrels_topics))
    q = qrels
    if duplicates == "first":  # the grades the in-memory alignment keeps (Aligned.qrels_grades_all)
        cols = [qc.topic, qc.doc] + ([qc.subtopic] if qc.subtopic else [])
        q = q.drop_duplicates(subset=cols, keep="first")
    missing = sorted(qrels_topics - run_topics) if complete else []
    return {
        "systems": np.asarray(systems, dtype=object),
        "grades": np.unique(pd.to_numeric(q[qc.rel]).to_numpy(np.float64)),
        "missing": missing,
        "host": min(run_topics & qrels_topics) if missing else None,
    }


def combine(
    cubes: list[xr.DataArray], shared: dict, probe: xr.DataArray, complete: bool
) -> xr.DataArray:
    """Stitch per-partition cubes (every one over all systems) along ``topic``, sorted."""
    systems = np.asarray(shared["systems"], dtype=object)
    axis = probe.dims.index("topic")
    blocks, topics = [], []
    for c in cubes:
        if not np.array_equal(
            c.system.values, systems
        ):  # pragma: no cover - every partition knows all systems
            raise RuntimeError("internal error: a partition cube lacks systems")
        blocks.append(c.values)
        topics.append(c.topic.values)
    topics_arr = np.concatenate(topics) if topics else np.array([], dtype=object)
    empty = tuple(
        0 if d == "topic" else len(systems) if d in ("system", "other") else probe.sizes[d]
        for d in probe.dims
    )
    data = np.concatenate(blocks, axis=axis) if blocks else np.empty(empty, dtype=probe.dtype)
    order: np.ndarray | list[int] = (
        np.argsort(np.array(topics_arr.tolist(), dtype=str), kind="stable")
        if len(topics_arr)
        else []
    )
    data = np.take(data, np.asarray(order, dtype=np.int64), axis=axis)
    return _stitched(data, systems, np.asarray(topics_arr, dtype=object)[order], probe, complete)


def repeated(labels: np.ndarray) -> list[str]:
    """Labels that occur more than once (a topic or system split across partitions)."""
    if not len(labels):
        return []
    uniq, counts = np.unique(np.asarray(labels).astype(str), return_counts=True)
    return [str(t) for t, n in zip(uniq, counts, strict=True) if n > 1]


def combine_systems(
    cubes: list[xr.DataArray], systems: np.ndarray, probe: xr.DataArray, complete: bool
) -> xr.DataArray:
    """Stitch per-partition cubes of disjoint systems over every system of the whole
    (``systems``, sorted as ``align`` sorts them) and the union of their topics, NaN where not
    evaluated (a system whose partition has no judged topic: a NaN row, as in memory)."""
    systems = np.asarray(systems, dtype=object)
    topics = np.asarray(
        sorted(set().union(*(c.topic.values.tolist() for c in cubes)), key=np.str_), dtype=object
    )
    rows, cols = pd.Index(systems), pd.Index(topics)
    data = np.full((len(systems), len(topics), *probe.shape[2:]), np.nan)
    for c in cubes:
        data[np.ix_(rows.get_indexer(c.system.values), cols.get_indexer(c.topic.values))] = c.values
    return _stitched(data, systems, topics, probe, complete)


def _stitched(
    data: np.ndarray, systems: np.ndarray, topics: np.ndarray, probe: xr.DataArray, complete: bool
) -> xr.DataArray:
    """The cube of stitched partition values, with the probe's other dims (``measure``, and
    ``bound`` with ``bounds=True``), their coordinates and attrs."""
    coords: dict[Any, Any] = {"system": systems, "topic": topics}
    if "other" in probe.dims:  # a preference cube: system × other
        coords["other"] = systems
    coords.update({k: (c.dims, c.values) for k, c in probe.coords.items() if k not in coords})
    return result(
        data,
        [str(d) for d in probe.dims],  # (our cubes' dims and names are strings)
        coords,
        name=None if probe.name is None else str(probe.name),
        attrs={**probe.attrs, "complete": int(bool(complete))},
    )
