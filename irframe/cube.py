"""Turn per-group measure values into the xarray cube ``system × topic × measure``.

NaN in a cube means "not evaluated" (the system did not retrieve for that topic and
``complete`` was off).  [`summarize`][irframe.summarize] applies an explicit policy to NaN and the
per-measure aggregation trec_eval uses (mean, geometric mean, sum).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, overload

import numpy as np
import pandas as pd

from ._lazy import xarray as xr  # imported on first use: the command line never needs it
from ._version import __version__
from .align import Aligned
from .errors import (
    InputError,
    IrframeError,
    IrframeWarning,
    ShapeError,
    UnknownMeasureError,
    shown,
    warn,
)
from .options import Options, check_missing

__all__ = [
    "GM_FLOOR",
    "attr_value",
    "group_coords",
    "lower_is_better_labels",
    "make_cube",
    "pick_labels",
    "result",
    "scatter",
    "summarize",
]

GM_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN


def scatter(aligned: Aligned, values: np.ndarray, fill: float = np.nan) -> np.ndarray:
    """Scatter per-group values (G, ...) into a dense (S, T, ...) array, ``fill`` where no group exists.

    Parameters
    ----------
    aligned : Aligned
        The groups' systems and topics (``group_system``, ``group_topic``).
    values : numpy.ndarray
        One row per group.
    fill : float, default NaN
        The cells of (system, topic) pairs without a group.

    Returns
    -------
    numpy.ndarray
        Shape (systems, topics, ...).
    """
    values = np.asarray(values)
    out = np.full(
        (len(aligned.systems), len(aligned.topics), *values.shape[1:]),
        fill,
        dtype=np.result_type(values.dtype, np.float64) if np.isnan(fill) else values.dtype,
    )
    out[aligned.group_system, aligned.group_topic] = values
    return out


def group_coords(aligned: Aligned) -> dict[str, np.ndarray]:
    """The ``system`` and ``topic`` coordinates of a cube over ``aligned``.

    Parameters
    ----------
    aligned : Aligned
        The aligned arrays.

    Returns
    -------
    dict
        ``{"system": ..., "topic": ...}``, object arrays of the names.
    """
    return {
        "system": np.asarray(aligned.systems, dtype=object),
        "topic": np.asarray(aligned.topics, dtype=object),
    }


@overload
def result(
    data: np.ndarray | xr.DataArray,
    dims: Sequence[str] = (),
    coords: Mapping[str, Any] | None = None,
    *,
    name: str | None = None,
    options: Options | None = None,
    measures: Sequence[str] = (),
    computed: str | None = None,
    parameters: Mapping[str, Any] | None = None,
    attrs: Mapping[str, Any] | None = None,
) -> xr.DataArray: ...
@overload
def result(
    data: Mapping[str, Any] | xr.Dataset,
    dims: Sequence[str] = (),
    coords: Mapping[str, Any] | None = None,
    *,
    name: str | None = None,
    options: Options | None = None,
    measures: Sequence[str] = (),
    computed: str | None = None,
    parameters: Mapping[str, Any] | None = None,
    attrs: Mapping[str, Any] | None = None,
) -> xr.Dataset: ...
def result(
    data: np.ndarray | Mapping[str, Any] | xr.DataArray | xr.Dataset,
    dims: Sequence[str] = (),
    coords: Mapping[str, Any] | None = None,
    *,
    name: str | None = None,
    options: Options | None = None,
    measures: Sequence[str] = (),
    computed: str | None = None,
    parameters: Mapping[str, Any] | None = None,
    attrs: Mapping[str, Any] | None = None,
) -> xr.DataArray | xr.Dataset:
    """The one constructor of every cube / Dataset irframe returns.

    ``data`` is one array (→ DataArray), a mapping name → array or ``(dims, array)``
    (→ Dataset; a bare array lies on ``dims``), or an xarray object already shaped by
    xarray operations (e.g. `xarray.apply_ufunc`), whose attrs are replaced.

    Every result records the same attrs, in this order:

    * evaluation cubes: the evaluation options ([`Options.attrs`][irframe.options.Options.attrs]);
    * analysis results (statistics, meta-evaluation): the call's ``parameters`` under their
      keyword names, ``parameters`` (those names, ``", "``-joined) and ``computed`` (the
      public function, e.g. ``"irframe.stats.compare"``);
    * ``irframe_version``; ``measures`` (the definitions evaluated, ``"; "``-joined);
    * then the function's own facts (``attrs``).

    Values are stored as netCDF-safe scalars: None → ``"none"``, bool → int, numpy scalars →
    Python numbers.

    Parameters
    ----------
    data : numpy.ndarray, mapping or xarray object
        The values (see above).
    dims : sequence of str
        The dims of an array (of each array of a mapping, unless given with its own).
    coords : mapping, optional
        Coordinates: name → values, or ``(dims, values)`` for a non-index coordinate.
    name : str, optional
        The DataArray's name.
    options : Options, optional
        An evaluation's options, recorded first.
    measures : sequence of str
        The measures' definitions (recorded ``"; "``-joined).
    computed : str, optional
        The public function that made it.
    parameters : mapping, optional
        An analysis call's keyword arguments.
    attrs : mapping, optional
        The function's own facts, recorded last.

    Returns
    -------
    xarray.DataArray or xarray.Dataset

    Examples
    --------
    >>> import numpy as np
    >>> from irframe.options import make_options
    >>> r = result(np.zeros((1, 2)), ("system", "topic"), {"system": ["s"], "topic": ["1", "2"]},
    ...            options=make_options(), measures=["AP"])
    >>> r.attrs["order"], r.attrs["measures"], "irframe_version" in r.attrs
    ('trec_eval', 'AP', True)
    >>> t = result({"pvalue": np.ones(2)}, ("system",), {"system": ["a", "b"]},
    ...            computed="irframe.stats.example", parameters={"alpha": 0.05, "correction": None})
    >>> {k: t.attrs[k] for k in ("alpha", "correction", "parameters", "computed")}
    {'alpha': 0.05, 'correction': 'none', 'parameters': 'alpha, correction', 'computed': 'irframe.stats.example'}
    """
    all_attrs: dict[str, Any] = dict(options.attrs()) if options is not None else {}
    if parameters is not None:
        all_attrs.update({k: attr_value(v) for k, v in parameters.items()})
        all_attrs["parameters"] = ", ".join(parameters)
    if computed is not None:
        all_attrs["computed"] = computed
    all_attrs["irframe_version"] = __version__
    if measures:
        all_attrs["measures"] = "; ".join(map(str, measures))
    all_attrs.update({k: attr_value(v) for k, v in (attrs or {}).items()})
    if isinstance(data, (xr.DataArray, xr.Dataset)):
        out = data.copy(deep=False)
        out.attrs = all_attrs
        if name is not None and isinstance(out, xr.DataArray):
            out.name = name
        return out
    dims = tuple(dims)
    variables = _coord_variables(coords or {})
    if isinstance(data, Mapping):
        return xr.Dataset(
            {
                k: xr.Variable(*v)
                if isinstance(v, tuple)
                else xr.Variable(dims, np.asarray(v), fastpath=True)
                for k, v in data.items()
            },
            coords=variables,
            attrs=all_attrs,
        )
    return xr.DataArray(
        xr.Variable(dims, np.asarray(data), fastpath=True),
        coords=variables,
        attrs=all_attrs,
        name=name,
    )


def attr_value(value: Any) -> Any:
    """A parameter as a netCDF-safe attr: None → ``"none"``, bool → int, numpy scalar → Python number.

    Parameters
    ----------
    value : object
        The parameter's value.

    Returns
    -------
    object
        The value to store.

    Examples
    --------
    >>> attr_value(None), attr_value(True), attr_value(np.float32(0.5)), attr_value("t")
    ('none', 1, 0.5, 't')
    """
    if value is None:
        return "none"
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _coord_variables(coords: Mapping[str, Any]) -> dict[str, xr.Variable]:
    """Coordinates as ready Variables: ``name: values`` is the index of dimension ``name``,
    ``name: (dims, values)`` a non-index coordinate.

    Passing raw arrays makes xarray test them for dask arrays, which imports ``dask.array``
    (about a second) on the first cube of a process whenever dask is installed; irframe's
    data are numpy arrays, so that check is skipped.
    """
    out: dict[str, xr.Variable] = {}
    for k, v in coords.items():
        if isinstance(v, tuple):
            d, values = v
            out[k] = xr.Variable(
                (d,) if isinstance(d, str) else tuple(d), np.asarray(values), fastpath=True
            )
        else:
            out[k] = xr.IndexVariable(
                (k,), pd.Index(np.asarray(v, dtype=object), dtype=object), fastpath=True
            )
    return out


def make_cube(
    aligned: Aligned,
    values: np.ndarray,
    labels: Sequence[str],
    aggregates: Sequence[str],
    *,
    options: Options | None = None,
    measures: Sequence[str] = (),
    attrs: Mapping[str, Any] | None = None,
) -> xr.DataArray:
    """The ``system × topic × measure`` cube of per-group values ``values`` (G × M).

    Parameters
    ----------
    aligned : Aligned
        The groups the rows of ``values`` belong to.
    values : numpy.ndarray
        (G, M) values.
    labels : sequence of str
        The ``measure`` coordinate.
    aggregates : sequence of str
        Per measure: ``"mean"``, ``"sum"`` or ``"gmean"`` (the ``aggregate`` coordinate).
    options, measures, attrs
        As for [`result`][irframe.cube.result].

    Returns
    -------
    xarray.DataArray
        Named ``score``, dims ``(system, topic, measure)``.

    Its ``aggregate`` coordinate (along ``measure``: ``mean``, ``sum`` or ``gmean``) tells
    [irframe.summarize][] how each measure is summarised over topics; being a coordinate it
    follows the measure axis through ``sel`` and ``concat``, and ``cube.to_dataframe()`` shows
    it as a column (``cube.to_series()`` or ``cube.drop_vars("aggregate")`` for values only).
    """
    coords = {
        **group_coords(aligned),
        "measure": np.asarray(list(labels), dtype=object),
        "aggregate": ("measure", np.asarray(list(aggregates), dtype=object)),
    }
    return result(
        scatter(aligned, values),
        ("system", "topic", "measure"),
        coords,
        name="score",
        options=options,
        measures=measures,
        attrs=attrs,
    )


def measure_dim_advice(cube: xr.DataArray) -> str:
    """For a (system, topic) cube (one measure selected), how to give it its measure axis
    back; "" for other shapes."""
    if set(cube.dims) != {"system", "topic"}:
        return ""
    m = cube.coords["measure"] if "measure" in cube.coords else None
    name = str(m.item()) if m is not None and m.ndim == 0 else "AP"
    return f"name its measure: cube.expand_dims(measure=[{name!r}], axis=-1)"


def pick_labels(
    names: Iterable[Any],
    available: Iterable[Any],
    what: str,
    error: type[Exception],
    hint: Callable[[str, Any, list[str]], str] | None = None,
) -> list:
    """The cube labels ``names`` designate (matched as given, else by their text), or ``error``
    naming the unknown one, the closest labels and every available one.

    Parameters
    ----------
    names : iterable
        The labels asked for.
    available : iterable
        The cube's labels (a coordinate's values).
    what : str
        What the names are, for the message (``"measure"``, ``"baseline"``).
    error : type
        The exception raised for an unknown name.
    hint : callable, optional
        ``hint(what, name, labels) -> str``: advice of the caller's own, used when not empty.

    Returns
    -------
    list
        The cube's labels, in the order asked.
    """
    avail = list(available)
    by_text = {str(a): a for a in avail}
    out = []
    for n in names:
        if any(n is a or (type(n) is type(a) and n == a) for a in avail):
            out.append(n)
        elif str(n) in by_text:
            out.append(by_text[str(n)])
        else:
            close = difflib.get_close_matches(str(n), list(by_text), n=3, cutoff=0.5)
            advice = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            advice = (hint(what, n, list(by_text)) if hint else "") or advice
            listed = ", ".join(map(repr, list(by_text)[:20])) + (" ..." if len(avail) > 20 else "")
            noun = "measure" if issubclass(error, UnknownMeasureError) else "system"
            raise error(
                f"{what} {str(n)!r} is not a {noun} of the cube.{advice} The cube's {noun}s: {listed}"
            )
    return out


def lower_is_better_labels(
    cube: xr.DataArray, given: str | Iterable[str] | None = None
) -> set[str]:
    """The ``measure`` labels of ``cube`` whose best value is the smallest.

    ``given`` (a caller's ``lower_is_better=``: labels of the cube) decides when not None.
    Otherwise a label is lower-is-better when the cube's ``lower_is_better`` attribute
    lists it ([`irframe.evaluate`][irframe.evaluate] records its measures', `irframe.cwl.cwl`
    its costs ``EC`` and ``ETC``), else when it is a measure string whose definition says so
    ([`Measure.lower_is_better`][irframe.measures.registry.Measure.lower_is_better]).  A
    label that is neither (a renamed measure) is taken as higher-is-better, with an
    `IrframeWarning` naming it and the keyword that decides.

    Parameters
    ----------
    cube : xarray.DataArray
        A cube with a ``measure`` dim.
    given : str or iterable of str, optional
        The caller's ``lower_is_better=``.

    Returns
    -------
    set of str

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.synthetic(2, 3, 10, rng=0)
    >>> cube = irf.evaluate(runs, qrels, ["AP", "ndpm"])
    >>> sorted(lower_is_better_labels(cube)), sorted(lower_is_better_labels(cube, []))
    (['ndpm'], [])
    """
    labels = [str(m) for m in cube["measure"].values]
    if given is not None:
        given = [given] if isinstance(given, str) else list(given)
        return {
            str(m)
            for m in pick_labels(given, labels, "lower_is_better measure", UnknownMeasureError)
        }
    from .measures import parse_measure

    declared = set(str(cube.attrs.get("lower_is_better", "")).split("; ")) - {""}
    lower, unknown = set(), []
    for label in labels:
        if label in declared:
            lower.add(label)
            continue
        try:
            if parse_measure(label).lower_is_better:
                lower.add(label)
        except IrframeError:  # not a measure string: a label of the user's own
            unknown.append(label)
    if unknown:
        warn(
            f"measure label(s) {shown(unknown, 200)} name no measure, so whether lower or higher "
            "is better is unknown: taken as higher-is-better. Say which are lower-is-better "
            "with lower_is_better=[...] (an empty list: none).",
            IrframeWarning,
        )
    return lower


def summarize(cube: xr.DataArray | xr.Dataset, missing: str = "skip") -> pd.DataFrame:
    """Summarise a cube over topics, as trec_eval's ``all`` line.

    Parameters
    ----------
    cube : xarray.DataArray
        A cube from [`irframe.evaluate`][irframe.evaluate] (dims ``system, topic, measure``).
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

    See Also
    --------
    - [`df.ir.summary`][irframe.IrAccessor.summary]: evaluate and summarise in one call.
    - [`irframe.report`][irframe.report]: means with significance markers, for a paper.
    - [`irframe.stats.mean_ci`][irframe.stats.mean_ci]: means with confidence intervals.

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> cube = irf.evaluate(runs, qrels, ["map", "num_ret"])
    >>> irf.summarize(cube).round(4).to_dict("records")
    [{'map': 0.1785, 'num_ret': 1500.0}]
    """
    check_missing(missing, ("skip", "zero", "common"))
    if isinstance(cube, xr.Dataset):  # e.g. irframe.cwl.cwl(): one table per output, side by side
        return pd.concat(
            {str(v): summarize(cube[v], missing) for v in cube.data_vars},
            axis=1,
            names=["output", "measure"],
        )
    if not isinstance(cube, xr.DataArray):
        raise ShapeError(
            f"summarize needs an xarray cube from irframe.evaluate (or a C/W/L Dataset), "
            f"got {type(cube).__name__}"
        )
    if set(cube.dims) != {"system", "topic", "measure"}:
        raise ShapeError(
            f"summarize needs a cube with dims (system, topic, measure), got {cube.dims}"
            + (f"; {fix}" if (fix := measure_dim_advice(cube)) else "")
        )
    arr: xr.DataArray = cube.transpose("system", "topic", "measure")  # (a Dataset returned above)
    data = arr.values.copy()
    _check_nan_cells(arr, data)
    aggs = (  # a scalar one (a selected measure, expanded again) holds for every measure
        np.broadcast_to(arr.coords["aggregate"].values, data.shape[2:3])
        if "aggregate" in arr.coords
        else np.array(["mean"] * data.shape[2])
    )
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
                out[:, j] = (
                    np.cumsum(np.where(np.isnan(col), 0.0, col), axis=1)[:, -1]
                    if col.shape[1]
                    else 0.0
                )
                out[np.isnan(col).all(axis=1), j] = np.nan
            elif agg == "gmean":
                out[:, j] = np.exp(_nanmean(col))
            else:
                out[:, j] = _nanmean(col)
    return pd.DataFrame(
        out,
        index=pd.Index(arr.system.values, name="system"),
        columns=pd.Index(arr.measure.values, name="measure"),
    )


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
        ms = [str(m) for m, bad in zip(cube.measure.values, nan[s, t], strict=True) if bad]
        raise InputError(
            f"the cube has NaN for measure(s) {ms[:5]} at system {shown(cube.system.values[s])}, topic "
            f"{shown(cube.topic.values[t])} ({int(partial.sum())} such cell(s)) while other measures of the same "
            f"cell have values. NaN means 'not evaluated', so summarize would silently average over the "
            f"other topics. Say what they mean first: not evaluated for every measure of the cell "
            f"(cube = cube.where(cube.notnull().all('measure'))), or 0 (cube = cube.fillna(0)), "
            f"or summarize the measures one by one (cube.sel(measure=[...]))."
        )


def _nanmean(col: np.ndarray) -> np.ndarray:
    """Mean over topics skipping NaN, summed left to right in topic order as trec_eval does
    (numpy's pairwise sum can differ in the last bit and flip a printed 4th decimal)."""
    n = (~np.isnan(col)).sum(axis=1)
    s = (
        np.cumsum(np.where(np.isnan(col), 0.0, col), axis=1)[:, -1]
        if col.shape[1]
        else np.zeros(len(col))
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, s / np.maximum(n, 1), np.nan)
