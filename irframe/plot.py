"""Plots of cubes and test results (optional extra ``irframe[plot]``: matplotlib).

matplotlib is imported inside each function, so ``import irframe.plot`` works without
it.  Every function draws on ``ax`` (or a new figure's Axes) and returns the Axes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from .cube import pick_labels
from .errors import OptionError, ShapeError, UnknownMeasureError, UnknownSystemError, shown
from .params import check_flag

__all__ = [
    "correlation_heatmap",
    "grid_heatmap",
    "orientation_curves",
    "reproduction_effects",
    "significance_matrix",
    "system_means",
    "topic_differences",
]


def _plt():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("irframe.plot needs matplotlib: pip install 'irframe[plot]'") from exc
    return plt


def _axes(ax, figsize=(6, 4)):
    if ax is not None:
        return ax
    plt = _plt()
    _, ax = plt.subplots(figsize=figsize)
    return ax


def _select_measure(
    da: xr.DataArray | xr.Dataset, measure, what="cube"
) -> tuple[xr.DataArray | xr.Dataset, str | None]:
    if "measure" in da.dims:
        if measure is None:
            if da.sizes["measure"] != 1:
                raise OptionError(
                    f"{what} has several measures {shown(list(da.measure.values), 400)}; pass measure="
                )
            measure = da.measure.values[0]
        measure = pick_labels([measure], da.measure.values, "measure", UnknownMeasureError)[0]
        return da.sel(measure=measure), str(measure)
    label = (
        da.coords["measure"].item()
        if "measure" in da.coords and da.coords["measure"].ndim == 0
        else measure
    )
    return da, (str(label) if label is not None else None)


def _heatmap(
    ax,
    values,
    xlabels,
    ylabels,
    *,
    cmap,
    vmin,
    vmax,
    annotate,
    fmt="{:.2f}",
    colorbar=True,
    nan_text=None,
):
    plt = _plt()
    im = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(xlabels)))
    ax.set_xticklabels([str(x) for x in xlabels], rotation=45, ha="right")
    ax.set_yticks(range(len(ylabels)))
    ax.set_yticklabels([str(y) for y in ylabels])
    if colorbar:
        plt.colorbar(im, ax=ax)
    if annotate:
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                v = values[i, j]
                if np.isnan(v):
                    if nan_text:
                        ax.text(j, i, nan_text, ha="center", va="center", fontsize=8, color="0.3")
                    continue
                r, g, b, _ = im.cmap(im.norm(v))  # dark cell -> white text
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
                ax.text(
                    j,
                    i,
                    fmt.format(v),
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if dark else "black",
                )
    return im


def topic_differences(
    cube, system: str, baseline: str, *, measure=None, sort: bool = True, ax=None
):
    """Bar chart of ``score(system, t) - score(baseline, t)`` for every topic.

    Topics where either system was not evaluated are left out.  Bars above zero are
    topics the system wins; the title reports wins/ties/losses and the mean difference.

    Parameters
    ----------
    cube : xarray.DataArray
        Scores ``(system, topic[, measure])``.
    system, baseline : str
    measure : str, optional
        Required when the cube has several measures.
    sort : bool
        Sort topics by the difference (default) or keep the cube's topic order.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    - [`compare`][irframe.stats.compare]: the test of the same differences.
    - The [plot gallery](../gallery.md): every plot with the code that made it.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from irframe.plot import topic_differences
    >>> cube = xr.DataArray(np.random.default_rng(0).uniform(size=(2, 8)), dims=("system", "topic"),
    ...                     coords={"system": ["bm25", "dense"], "topic": [str(t) for t in range(8)]})
    >>> ax = topic_differences(cube, "dense", "bm25")
    >>> len(ax.patches)
    8
    """
    sort = check_flag("sort", sort)
    da, label = _select_measure(cube, measure)
    system, baseline = pick_labels(
        [system, baseline], da.system.values, "system", UnknownSystemError
    )
    d = (da.sel(system=system) - da.sel(system=baseline)).to_series().dropna()
    if sort:
        d = d.sort_values(ascending=False)
    ax = _axes(ax, (max(6, 0.12 * len(d)), 4))
    colors = np.where(d.values > 0, "tab:blue", np.where(d.values < 0, "tab:red", "0.6"))
    ax.bar(np.arange(len(d)), d.values, color=colors, width=0.85)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlim(-0.6, len(d) - 0.4)
    if len(d) <= 60:
        ax.set_xticks(np.arange(len(d)))
        ax.set_xticklabels([str(t) for t in d.index], rotation=90, fontsize=7)
    else:
        ax.set_xticks([])
    ax.set_xlabel("topic" + (" (sorted by difference)" if sort else ""))
    ax.set_ylabel(f"{label + ': ' if label else ''}{system} \u2212 {baseline}")
    wins, ties, losses = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
    ax.set_title(
        f"{system} vs {baseline}: {wins} wins / {ties} ties / {losses} losses, mean \u0394 = {d.mean():+.4f}"
    )
    return ax


def system_means(
    cube,
    *,
    measure=None,
    method: str = "t",
    alpha: float = 0.05,
    sort: bool = True,
    n_samples: int = 2000,
    rng=None,
    missing: str = "skip",
    ax=None,
):
    """Mean score of each system with its (1 - alpha) confidence interval.

    Uses [`irframe.stats.mean_ci`][irframe.stats.mean_ci] (``method="t"`` or ``"bootstrap"``).  Systems
    are drawn as horizontal error bars, best at the top when ``sort`` is true.

    Parameters
    ----------
    cube : xarray.DataArray
        Score cube ``(system, topic[, measure])``.
    measure : str, optional
        Required when the cube has several measures.
    method : {"t", "bootstrap"}
        Confidence interval of [`irframe.stats.mean_ci`][irframe.stats.mean_ci].
    alpha : float
        1 - confidence level.
    sort : bool
        Best system at the top.
    n_samples : int
        Bootstrap samples.
    rng : numpy.random.Generator, int or None
        Source of randomness (bootstrap only).
    missing : {"skip", "common", "zero", "error"}
        Not-evaluated (NaN) cells, as in [`irframe.stats.mean_ci`][irframe.stats.mean_ci].
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure's).

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    - [`mean_ci`][irframe.stats.mean_ci]: the numbers drawn.
    - The [plot gallery](../gallery.md): every plot with the code that made it.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from irframe.plot import system_means
    >>> cube = xr.DataArray(np.random.default_rng(0).uniform(size=(3, 10)), dims=("system", "topic"),
    ...                     coords={"system": ["a", "b", "c"]})
    >>> [t.get_text() for t in system_means(cube, sort=False).get_yticklabels()]  # bottom to top
    ['c', 'b', 'a']
    """
    sort = check_flag("sort", sort)
    from .stats import mean_ci

    da, label = _select_measure(cube, measure)
    res = mean_ci(da, method=method, alpha=alpha, n_samples=n_samples, rng=rng, missing=missing)
    df = res[["mean", "ci_low", "ci_high"]].to_dataframe()[["mean", "ci_low", "ci_high"]]
    if sort:
        df = df.sort_values("mean", ascending=True)
    else:
        df = df.iloc[::-1]
    ax = _axes(ax, (6, max(2.5, 0.3 * len(df) + 1)))
    y = np.arange(len(df))
    err = np.vstack([df["mean"] - df["ci_low"], df["ci_high"] - df["mean"]])
    ax.errorbar(
        df["mean"], y, xerr=np.nan_to_num(err), fmt="o", color="tab:blue", ecolor="0.4", capsize=3
    )
    ax.set_yticks(y)
    ax.set_yticklabels([str(s) for s in df.index])
    ax.set_xlabel(f"mean {label}" if label else "mean score")
    ax.set_ylabel("system")
    ax.set_title(
        f"{round((1 - alpha) * 100)}% {'t' if method == 't' else 'bootstrap'} confidence intervals"
    )
    ax.grid(axis="x", alpha=0.3)
    return ax


def significance_matrix(
    result: xr.Dataset, *, measure=None, systems=None, ax=None, annotate: bool = False
):
    """Pairwise significance as a matrix: +1 row system significantly better, -1 worse, 0 not.

    Parameters
    ----------
    result : xarray.Dataset
        Output of [`irframe.stats.compare`][irframe.stats.compare], [`tukey_hsd`][irframe.stats.tukey_hsd] or
        [`sign_test`][irframe.stats.sign_test] (needs ``significant`` and ``effect`` or
        ``wins``/``losses``).
    measure : str, optional
        Required when the result has several measures.
    systems : list of str, optional
        The systems to show, in this order (default: the result's system order).
    annotate : bool
        Write the effect in each cell.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure otherwise.

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    - [`compare`][irframe.stats.compare], [`tukey_hsd`][irframe.stats.tukey_hsd], [`sign_test`][irframe.stats.sign_test]: the results it draws.
    - The [plot gallery](../gallery.md): every plot with the code that made it.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import compare
    >>> from irframe.plot import significance_matrix
    >>> x = np.random.default_rng(0).uniform(size=(3, 20)) + np.array([[0.], [0.], [0.5]])
    >>> res = compare(xr.DataArray(x, dims=("system", "topic"), coords={"system": list("abc")}))
    >>> significance_matrix(res).get_title().splitlines()
    ['Significant differences', '(t, holm, alpha=0.05)']
    """
    annotate = check_flag("annotate", annotate)
    from matplotlib.colors import ListedColormap

    if not isinstance(result, xr.Dataset) or "significant" not in result:
        raise ShapeError(
            "result must be a Dataset from irframe.stats.compare, tukey_hsd or sign_test"
        )
    ds, _ = _select_measure(result, measure, "result")
    if systems is not None:
        systems = pick_labels(systems, ds.system.values, "system", UnknownSystemError)
        ds = ds.sel(system=list(systems))
        if set(ds.other.values) == set(systems):
            ds = ds.sel(other=list(systems))
    sig = ds["significant"].transpose("system", "other").values.astype(bool)
    if "effect" in ds:
        direction = np.sign(ds["effect"].transpose("system", "other").values)
    else:
        direction = np.sign(
            ds["wins"].transpose("system", "other").values
            - ds["losses"].transpose("system", "other").values
        )
    vals = np.where(sig, np.nan_to_num(direction), 0.0)
    same = np.array([[a == b for b in ds.other.values] for a in ds.system.values])
    vals = np.where(same, np.nan, vals)
    longest = max((len(str(x)) for x in [*ds.system.values, *ds.other.values]), default=1)
    ax = _axes(  # room for the row names and the legend beside a single column (a baseline)
        ax,
        (
            max(5.0, 2.5 + 0.45 * vals.shape[1] + 0.07 * longest),
            max(3.0, 1.0 + 0.4 * vals.shape[0] + 0.05 * longest),
        ),
    )
    cmap = ListedColormap(["#d6604d", "#f0f0f0", "#4393c3"])
    _heatmap(
        ax,
        vals,
        list(ds.other.values),
        list(ds.system.values),
        cmap=cmap,
        vmin=-1.5,
        vmax=1.5,
        annotate=False,
        colorbar=False,
    )
    if annotate and "effect" in ds:
        eff = ds["effect"].transpose("system", "other").values
        for i in range(eff.shape[0]):
            for j in range(eff.shape[1]):
                if not np.isnan(eff[i, j]):
                    ax.text(j, i, f"{eff[i, j]:+.2f}", ha="center", va="center", fontsize=7)
    ax.set_xlabel("other")
    ax.set_ylabel("system")
    a = result.attrs
    ax.set_title(
        f"Significant differences\n({a.get('test', '?')}, {a.get('correction', 'none')}, "
        f"alpha={a.get('alpha', 0.05):g})",
        fontsize=10,
    )
    from matplotlib.patches import Patch

    ax.legend(
        handles=[
            Patch(color="#4393c3", label="system better"),
            Patch(color="#d6604d", label="system worse"),
            Patch(color="#f0f0f0", label="not significant"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=8,
        frameon=False,
    )
    return ax


def correlation_heatmap(
    corr: xr.DataArray,
    *,
    ax=None,
    annotate: bool = True,
    vmin=None,
    vmax: float = 1.0,
    cmap: str = "viridis",
):
    """Heatmap of a measure x measure correlation matrix.

    Parameters
    ----------
    corr : xarray.DataArray
        2-D, e.g. from [`irframe.meta.correlation_matrix`][irframe.meta.correlation_matrix] (dims
        ``measure, other_measure``); the first dim gives the rows.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure otherwise.
    annotate : bool, default True
        Write each cell's value in it.
    vmin, vmax : float, optional
        The colour scale's ends (default: the smallest value, and 1).
    cmap : str, default "viridis"
        A matplotlib colour map.

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    - [`correlation_matrix`][irframe.meta.correlation_matrix]: the matrix it draws.
    - The [plot gallery](../gallery.md): every plot with the code that made it.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from irframe.meta import correlation_matrix
    >>> from irframe.plot import correlation_heatmap
    >>> x = np.random.default_rng(0).uniform(size=(6, 5, 2))
    >>> cube = xr.DataArray(x, dims=("system", "topic", "measure"), coords={"measure": ["AP", "P@10"]})
    >>> correlation_heatmap(correlation_matrix(cube)).get_title()
    'kendall correlation of system orderings'
    """
    annotate = check_flag("annotate", annotate)
    if not isinstance(corr, xr.DataArray) or corr.ndim != 2:
        raise ShapeError("corr must be a 2-D xarray.DataArray")
    rows, cols = corr.dims
    vals = np.asarray(corr.values, float)
    if vmin is None:
        vmin = min(0.0, float(np.nanmin(vals))) if np.isfinite(vals).any() else 0.0
    ax = _axes(ax, (2 + 0.6 * vals.shape[1], 1.5 + 0.5 * vals.shape[0]))
    _heatmap(
        ax,
        vals,
        list(corr[cols].values) if cols in corr.coords else list(range(vals.shape[1])),
        list(corr[rows].values) if rows in corr.coords else list(range(vals.shape[0])),
        cmap=cmap,
        vmin=vmin,
        vmax=vmax,
        annotate=annotate,
    )
    ax.set_xlabel(cols)
    ax.set_ylabel(rows)
    method = corr.attrs.get("method", corr.name or "correlation")
    ax.set_title(f"{method} correlation of system orderings")
    return ax


def grid_heatmap(
    grid: xr.DataArray,
    *,
    rows: str = "C",
    cols: str = "A",
    ax=None,
    annotate: bool = True,
    fmt: str = "{:.3f}",
    cmap: str = "magma",
    title: str | None = None,
    nan_text: str = "X",
):
    """Heatmap of a 2-D DataArray, e.g. a C x A grid (C/W/L/A, Moffat et al., SIGIR 2022, Table 3) of MU or means.

    NaN cells (e.g. the "X" cells of Table 3 that are not defined) are left blank and
    labelled ``nan_text``.

    Parameters
    ----------
    grid : xarray.DataArray
        Dims ``rows`` and ``cols`` (default ``C`` and ``A``).
    rows, cols : str, default "C" and "A"
        The dims drawn as rows and as columns.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure otherwise.
    annotate : bool, default True
        Write each cell's value in it.
    fmt : str, default "{:.3f}"
        Format of the written values.
    cmap : str, default "magma"
        A matplotlib colour map.
    title : str, optional
        The axes' title.
    nan_text : str, default "X"
        Written in the NaN cells (combinations that are not defined).

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    - [`cwla_grid`][irframe.cwl.cwla_grid]: a C × A grid to draw.
    - The [plot gallery](../gallery.md): every plot with the code that made it.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from irframe.plot import grid_heatmap
    >>> g = xr.DataArray([[0.1, np.nan], [0.3, 0.4]], dims=("C", "A"),
    ...                  coords={"C": ["RBP", "AP2"], "A": ["fin", "avg"]})
    >>> [t.get_text() for t in grid_heatmap(g).get_xticklabels()]
    ['fin', 'avg']
    """
    annotate = check_flag("annotate", annotate)
    if not isinstance(grid, xr.DataArray):
        raise ShapeError("grid must be an xarray.DataArray")
    if set(grid.dims) != {rows, cols}:
        raise ShapeError(
            f"grid must have exactly dims ({rows!r}, {cols!r}); got {tuple(grid.dims)}"
        )
    g = grid.transpose(rows, cols)
    vals = np.asarray(g.values, float)
    ax = _axes(ax, (2 + 0.9 * vals.shape[1], 1.5 + 0.45 * vals.shape[0]))
    _heatmap(
        ax,
        vals,
        [str(v) for v in (g[cols].values if cols in g.coords else range(vals.shape[1]))],
        [str(v) for v in (g[rows].values if rows in g.coords else range(vals.shape[0]))],
        cmap=cmap,
        vmin=None,
        vmax=None,
        annotate=annotate,
        fmt=fmt,
        nan_text=nan_text,
    )
    ax.set_xlabel(cols)
    ax.set_ylabel(rows)
    ax.set_title(title if title is not None else (grid.name or f"{rows} \u00d7 {cols}"))
    return ax


def _orientation_long(data) -> pd.DataFrame:
    if isinstance(data, xr.DataArray):
        if "m" not in data.dims or "measure" not in data.dims:
            raise ShapeError(
                f"orientation DataArray needs dims 'm' and 'measure' (and optionally 'orientation'); got {data.dims}"
            )
        df = data.rename("value").to_dataframe().reset_index()
        if "orientation" not in df.columns:
            df["orientation"] = data.attrs.get("orientation", "")
        return df[["measure", "m", "orientation", "value"]]
    if isinstance(data, pd.DataFrame):
        cols = set(data.columns)
        if {"measure", "m", "value"} <= cols:
            df = data.copy()
            if "orientation" not in cols:
                df["orientation"] = ""
            return df[["measure", "m", "orientation", "value"]]
        if {"measure", "m"} <= cols and cols & {"precision", "recall"}:
            kinds = [k for k in ("precision", "recall") if k in cols]
            return data.melt(id_vars=["measure", "m"], value_vars=kinds, var_name="orientation")[
                ["measure", "m", "orientation", "value"]
            ]
        # wide: index = m, columns = measures
        df = data.copy()
        df.index.name = "m"
        df = df.reset_index().melt(id_vars="m", var_name="measure", value_name="value")
        df["orientation"] = ""
        return df[["measure", "m", "orientation", "value"]]
    raise ShapeError("data must be a pandas DataFrame or an xarray DataArray")


def orientation_curves(data, *, kind: str | None = None, ax=None, logy: bool = False):
    """Recall / precision orientation against the number of relevant items (Diaz & Mitra 2023, Fig. 3).

    Parameters
    ----------
    data : pandas.DataFrame or xarray.DataArray
        Long frame with columns ``measure, m, orientation, value``
        (``orientation`` in {"precision", "recall"}); or columns ``measure, m,
        precision, recall``; or a wide frame indexed by ``m`` with one column per
        measure; or a DataArray with dims ``m, measure[, orientation]``.
    kind : {"precision", "recall"}, optional
        Which orientation to draw.  When the data holds both and ``kind`` is None,
        both are drawn side by side and an array of two Axes is returned.
    ax : matplotlib Axes, optional
    logy : bool
        Logarithmic y axis.

    Returns
    -------
    matplotlib.axes.Axes (or a numpy array of two Axes, see ``kind``)

    See Also
    --------
    - [`orientation`][irframe.lexi.orientation]: the curves' numbers.
    - The [plot gallery](../gallery.md): every plot with the code that made it.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from irframe.plot import orientation_curves
    >>> wide = pd.DataFrame({"RR": [0.9, 0.9], "AP": [0.8, 0.5]}, index=[1, 2])
    >>> len(orientation_curves(wide, kind="recall").get_lines())
    2
    """
    logy = check_flag("logy", logy)
    df = _orientation_long(data)
    kinds = [k for k in pd.unique(df["orientation"]) if k != ""]
    if kind is None and len(kinds) > 1:
        if ax is not None:
            raise OptionError(
                "data holds several orientations; pass kind= to draw one on the given ax"
            )
        plt = _plt()
        fig, axes = plt.subplots(1, len(kinds), figsize=(5 * len(kinds), 4), sharey=False)
        for a, k in zip(axes, kinds, strict=True):
            orientation_curves(df[df["orientation"] == k], kind=k, ax=a, logy=logy)
        fig.tight_layout()
        return np.asarray(axes)
    if kind is not None:
        if kinds and kind not in kinds:
            raise OptionError(
                f"kind={kind!r} is not an orientation of the data; choose from {kinds}"
            )
        if kinds:
            df = df[df["orientation"] == kind]
    ax = _axes(ax)
    for measure, g in df.groupby("measure", sort=False):
        g = g.sort_values("m")
        ax.plot(g["m"], g["value"], marker="o", markersize=3, label=str(measure))
    ax.set_xlabel("m (number of relevant items)")
    label = kind if kind is not None else (kinds[0] if kinds else "")
    ax.set_ylabel(f"{label} orientation".strip())
    ax.set_title(f"{label.capitalize()} orientation".strip() if label else "Orientation")
    if logy:
        ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def reproduction_effects(
    ds: xr.Dataset, *, measure=None, ax=None, annotate: bool = True, label: str | None = None
):
    """Effect Ratio against Delta Relative Improvement of reproduced runs (Breuer et al., SIGIR 2020).

    One point per advanced system (and reproduced version): ΔRI on the x axis, ER on the y
    axis, as in the ER-ΔRI plots of Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff,
    "How to Measure the Reproducibility of System-oriented IR Experiments", SIGIR 2020.  The
    dashed lines mark a perfect reproduction of the effect (ER = 1, ΔRI = 0); points right of
    ΔRI = 0 and below ER = 1 reproduce a smaller improvement than the original, points above
    ER = 1 a larger one, points below ER = 0 reverse it.

    Parameters
    ----------
    ds : xarray.Dataset
        The result of [irframe.meta.reproducibility][] with ``baseline=``.
    measure : str, optional
        The measure to draw (required when ``ds`` has several).
    ax : matplotlib Axes, optional
    annotate : bool
        Label each point with its system (and version).
    label : str, optional
        Legend label of the points (e.g. one call per reproduced version on the same ``ax``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import irframe as irf
    >>> from irframe.plot import reproduction_effects
    >>> qrels, runs = irf.datasets.synthetic(systems=3, topics=10, depth=50, rng=1)
    >>> again = runs.assign(score=runs.score + 0.01 * (runs.index % 7))
    >>> ds = irf.meta.reproducibility(runs, again, qrels, measures=["AP"], baseline="sys0")
    >>> len(reproduction_effects(ds).collections[0].get_offsets())
    2
    """
    if not isinstance(ds, xr.Dataset) or "er" not in ds or "delta_ri" not in ds:
        raise ShapeError(
            "reproduction_effects needs the Dataset of irframe.meta.reproducibility "
            "(with baseline=, which gives er and delta_ri)"
        )
    er, name = _select_measure(ds["er"], measure, "reproducibility result")
    dri, _ = _select_measure(ds["delta_ri"], measure, "reproducibility result")
    er_s = er.to_series()
    dri_s = dri.to_series().reindex(er_s.index)
    keep = er_s.notna() & dri_s.notna()
    er_s, dri_s = er_s[keep], dri_s[keep]
    if er_s.empty:
        raise ShapeError("no ER / ΔRI values to draw: pass baseline= to reproducibility")
    ax = _axes(ax, figsize=(5.5, 4.5))
    ax.scatter(dri_s.values, er_s.values, s=30, zorder=3, label=label)
    ax.axhline(1.0, color="grey", ls="--", lw=1)
    ax.axvline(0.0, color="grey", ls="--", lw=1)
    if annotate:
        for key, x, y in zip(er_s.index, dri_s.values, er_s.values, strict=True):
            label = "/".join(map(str, key)) if isinstance(key, tuple) else str(key)
            ax.annotate(label, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("Delta Relative Improvement (ΔRI)")
    ax.set_ylabel("Effect Ratio (ER)")
    base = ds.attrs.get("baseline")
    ax.set_title(f"{name or ''} effects over {base}".strip() if base else (name or ""))
    ax.grid(alpha=0.3)
    return ax
