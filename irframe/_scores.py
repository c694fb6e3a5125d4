"""Score-cube handling shared by [`irframe.stats`][irframe.stats], [`irframe.meta`][irframe.meta] and
[`irframe.agreement`][irframe.agreement] (internal: the public API lives in those modules).

A *score cube* is an `xarray.DataArray` with a ``system`` dim, a topic dim
(``"topic"`` unless ``dim=`` names another) and any number of further dims -- the
``measure`` of [`irframe.evaluate`][irframe.evaluate], a ``qrels`` set, a C x A grid, a simulation
index.  The statistics are computed over (system, topic) and *broadcast* over the
other dims: `score_cube` validates the cube and returns a float64 copy laid out
``(system, topic, measure)`` where ``measure`` is the one batch dim (the other dims
stacked into it when there are several), plus a `CubeLayout` that puts the
original dims back on a result.

NaN means "not evaluated".  The caller's cube is never modified.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from .errors import InputError, ShapeError
from .options import check_missing

__all__ = [
    "CubeLayout",
    "batch_coords",
    "complete_topics",
    "is_pref",
    "mask_missing",
    "pref_cube",
    "score_cube",
]

_STACKED = "measure"  # the batch dim the kernels loop over
_MEASURE_TMP = "_measure"  # the caller's own measure dim while it is stacked with others


@dataclass(frozen=True)
class CubeLayout:
    """How the caller's cube was reshaped, to put its dims back on a result.

    ``batch_dims`` are the caller's dims other than system, topic (and any ``keep``
    dims), in their order; ``stacked`` is True when they were stacked into one
    ``measure`` dim; ``has_measure`` is False for a 2-D ``(system, topic)`` cube, whose
    results carry no measure dim (the scalar ``measure`` coordinate, if any, is kept).
    """

    batch_dims: tuple
    stacked: bool
    has_measure: bool
    scalar_label: object = None

    def restore(self, ds):
        """Unstack the batch dim of a result (Dataset or DataArray) back into the caller's dims."""
        if not self.has_measure:
            ds = ds.isel({_STACKED: 0}, drop=True)
            if self.scalar_label is not None and self.scalar_label != "score":
                ds = ds.assign_coords(measure=self.scalar_label)
            return ds
        if not self.stacked:
            return ds
        ds = ds.unstack(_STACKED)
        if _MEASURE_TMP in ds.dims:
            ds = ds.rename({_MEASURE_TMP: "measure"})
        lead = [d for d in ds.dims if d not in self.batch_dims]
        return ds.transpose(*lead, *self.batch_dims)

    def frame_index(self, labels: Sequence) -> pd.Index:
        """The index of a table with one row per batch label (a MultiIndex when stacked)."""
        if self.stacked:
            return pd.MultiIndex.from_tuples(list(labels), names=list(self.batch_dims))
        return pd.Index(list(labels), name="measure")


def _check_dims(cube, name: str, dim: str, keep: Sequence[str]) -> None:
    if isinstance(cube, xr.Dataset):
        raise ShapeError(
            f"{name} must be an xarray.DataArray of scores, not a Dataset; "
            f"select one variable (e.g. ds['EU']) first"
        )
    if not isinstance(cube, xr.DataArray):
        raise ShapeError(
            f"{name} must be an xarray.DataArray with dims ('system', {dim!r}[, 'measure', ...]), "
            f"not {type(cube).__name__}"
        )
    dims = set(cube.dims)
    if "other" in dims and "system" in dims and dim in dims and len(dims) == 3 and not keep:
        raise ShapeError(
            f"{name} must have dims ('system', {dim!r}[, 'measure', ...]); got {tuple(cube.dims)} "
            "(this looks like a preference cube; use irframe.stats.sign_test)"
        )
    need = {"system", dim, *keep}
    if not need <= dims:
        raise ShapeError(
            f"{name} must have dims ('system', {dim!r}[, 'measure', ...])"
            f"{' and ' + repr(tuple(keep)) if keep else ''}; got {tuple(cube.dims)}"
            + ("; name the topic dim with dim=..." if dim == "topic" else "")
        )
    if dim != "topic" and "topic" in dims:
        raise ShapeError(
            f"dim={dim!r} names the topic dim but the cube also has a 'topic' dim; rename one"
        )


def score_cube(
    cube, *, name: str = "cube", dim: str = "topic", keep: Sequence[str] = (), min_systems: int = 2
) -> tuple[xr.DataArray, CubeLayout]:
    """Validate a score cube and return a float64 copy ``(system, topic, *keep, measure)``.

    Parameters
    ----------
    cube : xarray.DataArray
        Scores with dims ``system``, ``dim`` and any others.
    dim : str
        The topic dim (renamed ``topic`` in the copy).
    keep : sequence of str
        Dims kept as they are (e.g. a ``replicate`` dim a test models), placed before
        the batch dim; every other dim is broadcast over.

    Returns
    -------
    (xarray.DataArray, CubeLayout)

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> x = xr.DataArray(np.zeros((2, 3, 4, 5)), dims=("system", "topic", "measure", "qrels"))
    >>> c, layout = score_cube(x)
    >>> c.dims, layout.batch_dims, layout.restore(c.isel(topic=0)).dims
    (('system', 'topic', 'measure'), ('measure', 'qrels'), ('system', 'measure', 'qrels'))
    """
    keep = tuple(keep)
    _check_dims(cube, name, dim, keep)
    if dim != "topic":
        cube = cube.rename({dim: "topic"})
    batch = tuple(d for d in cube.dims if d not in ("system", "topic", *keep))
    for d in (*batch, *keep, "system", "topic"):
        if d not in cube.coords:
            default = (
                [f"s{i}" for i in range(cube.sizes[d])]
                if d == "system"
                else [str(i) for i in range(cube.sizes[d])]
                if d == "topic"
                else np.arange(cube.sizes[d])
            )
            cube = cube.assign_coords({d: default})
    scalar = None
    if not batch:
        if "measure" in cube.coords and cube.coords["measure"].ndim == 0:
            scalar = cube.coords["measure"].item()
        cube = cube.drop_vars([c for c in cube.coords if c not in cube.dims], errors="ignore")
        cube = cube.expand_dims({_STACKED: [scalar if scalar is not None else "score"]})
        layout = CubeLayout((), False, False, scalar)
    elif batch == (_STACKED,):
        layout = CubeLayout(batch, False, True)
    else:
        if "measure" in batch:
            cube = cube.rename({"measure": _MEASURE_TMP})
            batch_tmp = tuple(_MEASURE_TMP if d == "measure" else d for d in batch)
        else:
            batch_tmp = batch
        cube = cube.drop_vars([c for c in cube.coords if c not in cube.dims], errors="ignore")
        cube = cube.stack({_STACKED: list(batch_tmp)})
        layout = CubeLayout(batch, True, True)
    cube = cube.transpose("system", "topic", *keep, _STACKED)
    if not np.issubdtype(cube.dtype, np.number) and cube.dtype != bool:
        raise ShapeError(f"{name} must hold numbers, got dtype {cube.dtype}")
    for d in ("system", "topic", *keep):
        idx = cube.indexes[d]
        if idx.has_duplicates:
            raise InputError(
                f"{name} has duplicate {d} labels: {list(idx[idx.duplicated()].unique())[:5]}"
            )
    cube = cube.drop_vars([c for c in cube.coords if c not in cube.dims and c not in cube.xindexes])
    out = cube.copy(data=np.array(cube.values, dtype=np.float64, copy=True))
    out.name = None
    if np.isinf(out.values).any():
        raise InputError(f"{name} contains infinite values")
    if out.sizes["system"] < min_systems:
        raise InputError(f"{name} needs at least {min_systems} systems, got {out.sizes['system']}")
    return out, layout


def batch_coords(c: xr.DataArray) -> xr.Coordinates:
    """The coordinates of the batch dim of a cube from `score_cube` (to label a result)."""
    return (
        c.isel(system=0, topic=0, drop=True)
        .drop_vars(
            [d for d in c.coords if d != _STACKED and _STACKED not in c.coords[d].dims],
            errors="ignore",
        )
        .coords
    )


def is_pref(cube) -> bool:
    """Whether ``cube`` is a preference cube ``(system, other, topic)``."""
    return isinstance(cube, xr.DataArray) and set(cube.dims) == {"system", "other", "topic"}


def pref_cube(pref) -> xr.DataArray:
    """Validate a preference cube ``(system, other, topic)`` with values in {-1, 0, +1}."""
    if not isinstance(pref, xr.DataArray):
        raise ShapeError(f"preference cube must be an xarray.DataArray, not {type(pref).__name__}")
    if set(pref.dims) != {"system", "other", "topic"}:
        raise ShapeError(
            f"preference cube must have dims ('system', 'other', 'topic'); got {tuple(pref.dims)}"
        )
    pref = pref.transpose("system", "other", "topic")
    v = np.asarray(pref.values)
    if v.dtype.kind == "f" and np.isnan(v).any():
        raise InputError("preference cube holds NaN; values must be -1, 0 or +1")
    if not np.isin(v, (-1, 0, 1)).all():
        raise InputError("preference cube values must be -1, 0 or +1")
    return pref


def _check_no_nan(X: np.ndarray, name: str) -> None:
    if np.isnan(X).any():
        raise InputError(f"{name} has NaN (not evaluated) cells and missing='error'")


def mask_missing(X: np.ndarray, missing: str, *, name: str = "cube") -> np.ndarray:
    """Apply a NaN policy to (S, T, ...) values keeping the shape (see
    `irframe.options.MISSING`): 'skip' leaves NaN (each pair of systems then uses the
    topics both have), 'zero' fills 0, 'common' blanks every topic some system was not
    evaluated on, 'error' raises (naming ``name``)."""
    check_missing(missing)
    if missing == "zero":
        return np.nan_to_num(X, nan=0.0)
    if missing == "common":
        return np.where(np.isnan(X).any(axis=0, keepdims=True), np.nan, X)
    if missing == "error":
        _check_no_nan(X, name)
    return X


def complete_topics(X: np.ndarray, missing: str) -> np.ndarray:
    """X (S, T) -> (S, T') for methods that need a complete block: 'skip' and 'common' keep the
    topics every system was evaluated on, 'zero' fills 0, 'error' raises on NaN."""
    check_missing(missing)
    if missing == "zero":
        return np.nan_to_num(X, nan=0.0)
    if missing == "error":
        _check_no_nan(X, "cube")
        return X
    return X[:, ~np.isnan(X).any(axis=0)]
