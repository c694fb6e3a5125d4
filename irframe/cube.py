"""Turn per-group measure values into the xarray cube ``system × topic × measure``.

NaN in a cube means "not evaluated" (the system did not retrieve for that topic and
``complete`` was off).  :func:`summarize` applies an explicit policy to NaN and the
per-measure aggregation trec_eval uses (mean, geometric mean, sum).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
import xarray as xr

from .align import Aligned
from .errors import InputError

__all__ = ["make_cube", "summarize", "GM_FLOOR"]

GM_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN


def make_cube(aligned: Aligned, values: np.ndarray, labels: Sequence[str], aggregates: Sequence[str],
              attrs: dict) -> xr.DataArray:
    """Scatter ``values`` (G × M) into a dense (S × T × M) cube, NaN where no group exists."""
    s, t, m = len(aligned.systems), len(aligned.topics), len(labels)
    data = np.full((s, t, m), np.nan)
    data[aligned.group_system, aligned.group_topic, :] = values
    return _data_array(data, ("system", "topic", "measure"),
                       {"system": aligned.systems, "topic": aligned.topics, "measure": list(labels)},
                       {"aggregate": ("measure", list(aggregates))}, attrs, "score")


def _data_array(data: np.ndarray, dims: tuple[str, ...], index_coords: dict, other_coords: dict,
                attrs: dict, name: str) -> xr.DataArray:
    """``xr.DataArray`` built from ready Variables (object coordinates as pandas Indexes).

    Passing raw arrays makes xarray test them for dask arrays, which imports ``dask.array``
    (about a second) on the first cube of a process whenever dask is installed; irframe's
    data are numpy arrays, so that check is skipped.
    """
    coords = {k: xr.IndexVariable((k,), pd.Index(np.asarray(v, dtype=object), dtype=object), fastpath=True)
              for k, v in index_coords.items()}
    coords.update({k: xr.Variable((d,), np.asarray(v, dtype=object), fastpath=True)
                   for k, (d, v) in other_coords.items()})
    return xr.DataArray(xr.Variable(dims, data, fastpath=True), coords=coords, attrs=attrs, name=name)


def summarize(cube: xr.DataArray, missing: Literal["skip", "zero", "common"] = "skip") -> pd.DataFrame:
    """Summarise a cube over topics, as trec_eval's ``all`` line.

    Parameters
    ----------
    cube : xarray.DataArray
        A cube from :func:`irframe.evaluate` (dims ``system, topic, measure``).
    missing : {"skip", "zero", "common"}
        Policy for topics a system was not evaluated on (NaN cells):
        ``"skip"`` averages each system over its own evaluated topics (trec_eval's
        default); ``"zero"`` counts them as 0 (trec_eval ``-c``; gm_map uses log(1e-5));
        ``"common"`` keeps only topics every system was evaluated on (a fair comparison).

    Returns
    -------
    pandas.DataFrame
        Index ``system``, one column per measure (labels as passed).  ``aggregate="sum"``
        measures (num_ret, num_rel, num_rel_ret) are summed, ``"gmean"`` measures (gm_map,
        stored per topic as log values) are ``exp(mean)``, the rest averaged.

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> cube = irf.evaluate(runs, qrels, ["map", "num_ret"])
    >>> irf.summarize(cube).round(4).to_dict("records")
    [{'map': 0.1785, 'num_ret': 1500.0}]
    """
    if missing not in ("skip", "zero", "common"):
        raise ValueError(f"missing= must be 'skip', 'zero' or 'common', got {missing!r}")
    if isinstance(cube, xr.Dataset):  # e.g. irframe.cwl.cwl(): one table per output, side by side
        return pd.concat({str(v): summarize(cube[v], missing) for v in cube.data_vars}, axis=1,
                         names=["output", "measure"])
    if not isinstance(cube, xr.DataArray):
        raise TypeError(f"summarize needs an xarray cube from irframe.evaluate (or a C/W/L Dataset), "
                        f"got {type(cube).__name__}")
    if set(cube.dims) != {"system", "topic", "measure"}:
        raise ValueError(f"summarize needs a cube with dims (system, topic, measure), got {cube.dims}")
    cube = cube.transpose("system", "topic", "measure")
    data = cube.values.copy()
    _check_nan_cells(cube, data)
    aggs = cube.coords["aggregate"].values if "aggregate" in cube.coords else np.array(["mean"] * data.shape[2])
    if missing == "common":
        keep = ~np.isnan(data).any(axis=(0, 2))
        data = data[:, keep, :]
    out = np.empty((data.shape[0], data.shape[2]))
    for j, agg in enumerate(aggs):
        col = data[:, :, j]
        if missing == "zero":
            col = np.where(np.isnan(col), np.log(GM_FLOOR) if agg == "gmean" else 0.0, col)
        with np.errstate(invalid="ignore"):
            if agg == "sum":
                out[:, j] = np.cumsum(np.where(np.isnan(col), 0.0, col), axis=1)[:, -1] if col.shape[1] else 0.0
                out[np.isnan(col).all(axis=1), j] = np.nan
            elif agg == "gmean":
                out[:, j] = np.exp(_nanmean(col))
            else:
                out[:, j] = _nanmean(col)
    return pd.DataFrame(out, index=pd.Index(cube.system.values, name="system"),
                        columns=pd.Index(cube.measure.values, name="measure"))


def _check_nan_cells(cube: xr.DataArray, data: np.ndarray) -> None:
    """NaN means "not evaluated", a property of a (system, topic) cell: refuse a NaN beside values.

    A NaN for one measure where other measures of the same cell have values is an undefined
    value, not a missing ranking; averaging over the remaining topics would hide it.
    """
    if data.shape[2] < 2:
        return
    nan = np.isnan(data)
    partial = nan.any(axis=2) & ~nan.all(axis=2)
    if partial.any():
        s, t = np.argwhere(partial)[0]
        ms = [str(m) for m, bad in zip(cube.measure.values, nan[s, t]) if bad]
        raise InputError(
            f"the cube has NaN for measure(s) {ms[:5]} at system {cube.system.values[s]!r}, topic "
            f"{cube.topic.values[t]!r} ({int(partial.sum())} such cell(s)) while other measures of the same "
            f"cell have values. NaN means 'not evaluated', so summarize would silently average over the "
            f"other topics; fill or drop those values explicitly (e.g. cube.fillna(0)) first.")


def _nanmean(col: np.ndarray) -> np.ndarray:
    """Mean over topics skipping NaN, summed left to right in topic order as trec_eval does
    (numpy's pairwise sum can differ in the last bit and flip a printed 4th decimal)."""
    n = (~np.isnan(col)).sum(axis=1)
    s = np.cumsum(np.where(np.isnan(col), 0.0, col), axis=1)[:, -1] if col.shape[1] else np.zeros(len(col))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, s / np.maximum(n, 1), np.nan)
