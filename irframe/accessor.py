"""The ``.ir`` DataFrame accessor: a thin layer that validates, delegates, returns.

pandas >= 3 builds a new accessor object on every ``df.ir`` access, so nothing is
cached here; ``__init__`` only checks the columns.

A frame returned by [`IrAccessor.join`][irframe.IrAccessor.join] carries its qrels in ``DataFrame.attrs``
(``"irframe.qrels"``) inside a `JoinedQrels`, a string token that pandas shares
instead of copying when it propagates attrs.  It survives row filtering
(``j[j.system == "a"]``), copies and pickling, so the recall base always comes from the
full qrels, for as long as any frame holding it lives — there is no process-wide registry
to evict it, and it is freed with the last frame.  Formats that store attrs as JSON
(parquet) keep only the token text: such a frame must be given ``qrels=`` again.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._lazy import xarray as xr  # imported on first use: the command line never needs it
from .errors import ColumnError, InputError, ShapeError
from .options import CWL, EVALUATE, TIE_ORDER, Options, make_options, takes_options
from .qrelsets import is_qrels_sets
from .schema import (
    canonical,
    check_duplicates,
    check_id_column,
    checked_qrels,
    missing_run_columns,
    resolve_roles,
    run_frame,
)

__all__ = ["IrAccessor", "JoinedQrels", "join", "qrels_of"]

_QRELS_KEY = "irframe.qrels"


class JoinedQrels(str):
    """The qrels a joined frame remembers: a token string that carries the qrels frame.

    pandas copies ``attrs`` (deeply) whenever it derives a frame; copying returns this same
    object, so every frame derived from a joined frame shares one qrels frame, and the
    qrels are freed with the last of them.  JSON writers see only the token text.
    """

    __slots__ = ("__weakref__", "qrels")
    qrels: pd.DataFrame

    def __new__(cls, qrels: pd.DataFrame, token: str | None = None) -> JoinedQrels:
        self = super().__new__(cls, token or f"irframe-qrels-{uuid.uuid4().hex}")
        self.qrels = qrels
        return self

    def __copy__(self) -> JoinedQrels:
        return self

    def __deepcopy__(self, memo: dict) -> JoinedQrels:
        return self

    def __reduce__(self):
        return (JoinedQrels, (self.qrels, str(self)))


def join(
    runs: pd.DataFrame,
    qrels: Any,
    *,
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    duplicates: str = "error",
) -> pd.DataFrame:
    """Attach qrels to a run frame: a new frame with a ``rel`` column (NaN = unjudged).

    The result remembers the full qrels, so later ``metric()`` calls need no
    ``qrels=`` and filtering rows never changes the recall base.  The caller's
    frames are not modified.  Column names are resolved as everywhere
    ([`irframe.schema.resolve_roles`][irframe.schema.resolve_roles]); ``qrels`` may be any shape
    [`irframe.schema.qrels_frame`][irframe.schema.qrels_frame] accepts.

    See Also
    --------
    - [`df.ir.join`][irframe.IrAccessor.join]: the accessor form.
    - [`df.ir.metric`][irframe.IrAccessor.metric]: evaluates a joined frame without ``qrels=``.

    Parameters
    ----------
    runs : pandas.DataFrame
        Long run frame.  Not modified.
    qrels : pandas.DataFrame, dict or iterable of namedtuples
        Judgments; not modified.
    columns, qrels_columns : mapping, optional
        Role → column name maps for names that are not recognised.
    duplicates : {"error", "first"}, default "error"
        A (topic, doc) judged twice (without subtopics) is an error, as in
        [irframe.evaluate][]; ``"first"`` keeps the first judgment, in ``rel`` and in the
        qrels the frame remembers.

    Returns
    -------
    pandas.DataFrame
        A shallow copy of ``runs`` with a ``rel`` column (NaN = unjudged) that remembers the
        qrels in ``attrs``.

    Raises
    ------
    irframe.errors.ColumnError
        The run frame lacks a topic or doc column.
    irframe.errors.InputError
        The run frame already has a ``rel`` column, or the ids or grades are unusable.

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> j = runs.ir.join(qrels)
    >>> "rel" in j.columns and "rel" not in runs.columns
    True
    >>> float(j.ir.metric("P@10").mean().round(4))
    0.3
    """
    if is_qrels_sets(qrels):
        raise InputError(
            f"join attaches one qrels frame, but qrels is a mapping of {len(qrels)} judgment "
            f"sets ({', '.join(map(repr, list(qrels)[:5]))}); join one of them "
            f"(runs.ir.join(qrels[name])) or pass qrels={{name: frame, ...}} to metric()"
        )
    q, qc, _ = checked_qrels(qrels, qrels_columns)
    if not isinstance(runs, pd.DataFrame):
        raise ShapeError(f"join needs a run DataFrame, got {type(runs).__name__}")
    missing = missing_run_columns(runs, columns, need_system=False)
    if missing:
        raise ColumnError(
            f"run frame is missing column(s) {', '.join(missing)}; pass columns={{...}}"
        )
    n = resolve_roles(runs, columns, "run")
    if "rel" in runs.columns:
        raise InputError(
            "the run frame already has a 'rel' column (joined before?); "
            "drop it first or call metric(..., qrels=...) directly"
        )
    for col in (n["topic"], n["doc"]):
        check_id_column(runs, col, "run frame")
    key_cols = [qc.topic, qc.doc]
    keys = [q[c].astype(str) for c in key_cols]
    if qc.subtopic is None:  # (with subtopics a doc's grade is its max over them)
        key = q.groupby(keys, observed=True, sort=False).ngroup()
        keep = check_duplicates(
            q, key.to_numpy(np.int64), key_cols, "qrels frame", duplicates, qc.rel
        )
        if keep is not None:
            q, keys = q[keep], [k[keep] for k in keys]
    grades = q.groupby(keys, observed=True, sort=False)[qc.rel].max()
    idx = pd.MultiIndex.from_arrays([runs[n["topic"]].astype(str), runs[n["doc"]].astype(str)])
    pos = grades.index.get_indexer(idx)
    rel = np.where(pos >= 0, grades.to_numpy(dtype=np.float64)[np.maximum(pos, 0)], np.nan)
    out = runs.copy(deep=False)
    out["rel"] = rel
    out.attrs = {**runs.attrs, _QRELS_KEY: JoinedQrels(canonical(q, qc).copy())}
    return out


def qrels_of(df: pd.DataFrame) -> pd.DataFrame | None:
    """The qrels a joined frame remembers, or None."""
    held = df.attrs.get(_QRELS_KEY)
    return held.qrels if isinstance(held, JoinedQrels) else None


@pd.api.extensions.register_dataframe_accessor("ir")
class IrAccessor:
    """IR evaluation on a long run frame (``system, topic, doc, score[, rank]``).

    Other tools' column names are recognised (PyTerrier, ir_measures, ranx; see
    [`irframe.schema`][irframe.schema]); ``df.ir(columns=..., qrels_columns=..., system=...)`` sets
    them explicitly.  A frame without a system column is one system.

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> cube = runs.ir.metric(["AP", "nDCG@10"], qrels=qrels)
    >>> cube.dims
    ('system', 'topic', 'measure')
    """

    def __init__(self, obj: pd.DataFrame) -> None:
        self._obj = obj  # columns are resolved when a method runs, after any df.ir(columns=...)
        self._columns: Mapping[str, str] | None = None
        self._qrels_columns: Mapping[str, str] | None = None
        self._system: str | None = None

    def __call__(
        self,
        *,
        columns: Mapping[str, str] | None = None,
        qrels_columns: Mapping[str, str] | None = None,
        system: str | None = None,
    ) -> IrAccessor:
        """The accessor with column names set: ``df.ir(columns={"doc": "my_doc"}).metric(...)``.

        Parameters
        ----------
        columns, qrels_columns : mapping, optional
            Role → column name of the run frame and of the qrels, for names that are not
            recognised (see [`irframe.schema`][irframe.schema]) or to choose between two candidates.
        system : str, optional
            Name of the one system of a frame without a system column (default ``"run"``).

        Examples
        --------
        >>> import irframe as irf
        >>> qrels, runs = irf.datasets.trec_eval_sample()
        >>> res = runs.drop(columns="system").rename(columns={"doc": "docid_str"})
        >>> cube = res.ir(columns={"doc": "docid_str"}, system="BM25").metric("P@10", qrels)
        >>> cube.system.values.tolist(), cube.mean().round(4).item()
        (['BM25'], 0.3)
        """
        roles = make_options(columns=columns, qrels_columns=qrels_columns, system=system)
        acc = type(self)(self._obj)  # (also the Dask accessor, a subclass)
        acc._columns, acc._qrels_columns, acc._system = roles.columns, qrels_columns, system
        return acc

    # ------------------------------------------------------------------ helpers
    def _runs(self) -> pd.DataFrame:
        """The run frame with role names as column names (a shallow copy)."""
        df, rc = run_frame(self._obj, self._columns, system=self._system)
        return canonical(df, rc)

    def _qrels(self, qrels: Any = None) -> Any:
        """``qrels`` as given (the family function validates them, once), or the qrels a
        joined frame remembers."""
        if qrels is not None:
            return qrels
        q = qrels_of(self._obj)  # join() stores them with role names already
        if q is None:
            if _QRELS_KEY in self._obj.attrs:
                raise InputError(
                    "this frame was joined with qrels, but its attrs went through a format that "
                    "keeps only text (e.g. parquet); pass qrels=... explicitly"
                )
            raise InputError("no qrels: pass qrels=... or call df.ir.join(qrels) first")
        return q

    def _roles(self, qrels: Any, opts: Options) -> Options:
        """``opts`` with the column options of ``df.ir(columns=..., qrels_columns=...,
        system=...)`` where the call left them None (a joined frame's qrels already carry
        the role names)."""
        roles = {
            "columns": self._columns,
            "qrels_columns": None if qrels is None else self._qrels_columns,
            "system": self._system,
        }
        return opts.replace(**{k: v for k, v in roles.items() if getattr(opts, k) is None})

    # ------------------------------------------------------------------ API
    def join(self, qrels: Any, duplicates: str = "error") -> pd.DataFrame:
        """Attach ``qrels``: a new frame with a ``rel`` column that remembers the qrels.

        Parameters
        ----------
        qrels : pandas.DataFrame, dict or iterable of namedtuples
            Judgments in any shape [`irframe.schema.qrels_frame`][irframe.schema.qrels_frame]
            accepts.
        duplicates : {"error", "first"}, default "error"
            A (topic, doc) judged twice: an error, or the first judgment kept.

        Returns
        -------
        pandas.DataFrame
            A copy of the run frame with ``rel`` (NaN = unjudged); later ``metric()`` calls on
            it (or on rows filtered from it) need no ``qrels=``.

        Raises
        ------
        irframe.errors.InputError
            The frame already has a ``rel`` column.

        See Also
        --------
        - [`irframe.join`][irframe.join]: the same as a function.

        Examples
        --------
        >>> import irframe as irf
        >>> qrels, runs = irf.datasets.trec_eval_sample()
        >>> j = runs.ir.join(qrels)
        >>> float(j.ir.metric("P@10").mean().round(4))
        0.3
        """
        return join(
            self._obj,
            qrels,
            columns=self._columns,
            qrels_columns=self._qrels_columns,
            duplicates=duplicates,
        )

    @takes_options(*EVALUATE, order=TIE_ORDER)
    def metric(
        self,
        measures: str | Iterable[str],
        qrels: pd.DataFrame | None = None,
        *,
        judgments: str = "each",
        opts: Options,
        **options: Any,
    ) -> xr.DataArray:
        """Evaluate measures → cube ``(system, topic, measure)``.

        The accessor form of [`irframe.evaluate`][irframe.evaluate]: same measures, same
        options, same numbers.  ``order="expected"|"best"|"worst"`` gives tie-aware values
        ([`irframe.measures.ties`][irframe.measures.ties]); ``bounds=True`` adds a ``bound``
        dimension low/high/residual for unjudged documents
        ([`irframe.measures.unjudged`][irframe.measures.unjudged]).

        Parameters
        ----------
        measures : str or list of str
            Measure strings such as ``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@10"`` or trec_eval
            names such as ``"map"`` (see the [measure catalogue](../measures.md)).
        qrels : pandas.DataFrame, dict or mapping of frames, optional
            Judgments; not needed on a frame made by [`join`][irframe.IrAccessor.join].  A
            mapping ``{name: qrels}`` adds a ``qrels`` dim.
        judgments : {"each", "common"}, default "each"
            With several judgment sets, as in [`irframe.evaluate`][irframe.evaluate].
        **options
            Measure options, as in [`irframe.evaluate`][irframe.evaluate].

        Returns
        -------
        xarray.DataArray
            Scores with dims ``(system, topic, measure)`` (plus ``qrels`` / ``bound`` when
            asked for); NaN where a system was not evaluated on a topic.

        Raises
        ------
        irframe.errors.UnknownMeasureError
            A measure string names no registered measure.
        irframe.errors.InputError
            No qrels given and the frame was not joined, or bad input (see
            [What irframe does with bad input](../bad_input.md)).

        See Also
        --------
        - [`irframe.evaluate`][irframe.evaluate]: the same as a function.
        - [`df.ir.summary`][irframe.IrAccessor.summary]: the means over topics directly.
        - [`irframe.dask`][irframe.dask]: ``ddf.ir.metric`` on Dask frames larger than memory.

        Examples
        --------
        >>> import irframe as irf
        >>> qrels, runs = irf.datasets.trec_eval_sample()
        >>> cube = runs.ir.metric(["AP", "P@10"], qrels=qrels)
        >>> cube.sizes["measure"], float(cube.sel(measure="P@10").mean().round(4))
        (2, 0.3)
        """
        from .evaluate import evaluate

        # the frames as given: evaluate() validates them, once (a joined frame: its qrels)
        return evaluate(
            self._obj,
            self._qrels(qrels),
            measures,
            judgments=judgments,
            opts=self._roles(qrels, opts),
            **options,
        )

    @takes_options(*EVALUATE, order=TIE_ORDER)
    def summary(
        self,
        measures: str | Iterable[str],
        qrels: pd.DataFrame | None = None,
        *,
        missing: str = "skip",
        opts: Options,
        **options: Any,
    ) -> pd.DataFrame:
        """Means over topics (trec_eval's ``all`` line) as a system × measure table.

        Parameters
        ----------
        measures : str or list of str
            Measure strings, as for [`metric`][irframe.IrAccessor.metric].
        qrels : pandas.DataFrame, optional
            Judgments; not needed on a joined frame.
        missing : {"skip", "zero", "common"}
            The topic-set policy of [`irframe.summarize`][irframe.summarize].
        **options
            Measure options, as in [`irframe.evaluate`][irframe.evaluate].

        Returns
        -------
        pandas.DataFrame
            One row per system, one column per measure.

        See Also
        --------
        - [`irframe.summarize`][irframe.summarize]: the same from a cube you already have.
        - [`irframe.report`][irframe.report]: means with significance markers, for a paper.

        Examples
        --------
        >>> import irframe as irf
        >>> qrels, runs = irf.datasets.trec_eval_sample()
        >>> runs.ir.summary(["AP", "P@10"], qrels).round(4).values.tolist()
        [[0.1785, 0.3]]
        """
        from .cube import summarize

        return summarize(self.metric(measures, qrels, opts=opts, **options), missing=missing)

    def to_trec(
        self, path: str | os.PathLike[str] | None = None, *, tag: str | None = None
    ) -> str | None:
        """Write the run frame in TREC format to ``path``, or return it as a string.

        Parameters
        ----------
        path : str or path-like, optional
            Output file (``.gz`` compresses); None returns the text.
        tag : str, optional
            Run tag of every line (default: the system name).

        Returns
        -------
        str or None
            The TREC text when ``path`` is None.

        See Also
        --------
        - [`irframe.io.write_run`][irframe.io.write_run], [`irframe.io.format_run`][irframe.io.format_run]

        Examples
        --------
        >>> import irframe as irf
        >>> _, runs = irf.datasets.trec_eval_sample()
        >>> print(runs.head(1).ir.to_trec(), end="")
        301 Q0 FR940202-2-00150 104 2.129133 STANDARD
        """
        from . import io

        if path is None:
            return io.format_run(self._runs(), tag=tag)
        io.write_run(self._runs(), path, tag=tag)
        return None

    @takes_options("align", **CWL)
    def cwl(
        self,
        measures: str | Iterable[str],
        qrels: pd.DataFrame | None = None,
        *,
        costs: Any = None,
        opts: Options,
        **options: Any,
    ) -> xr.Dataset:
        """C/W/L evaluation: a Dataset with EU, ETU, EC, ETC, ED (and residuals).

        Parameters
        ----------
        measures : str or list of str
            C functions such as ``"RBP(p=0.8)"``, ``"INST(T=3)"``, ``"AP"``.
        qrels : pandas.DataFrame, optional
            Judgments; not needed on a joined frame.
        costs : optional
            Cost per element type, as for [`irframe.cwl.cwl`][irframe.cwl.cwl].
        **options
            Any other option of [`irframe.cwl.cwl`][irframe.cwl.cwl].

        Returns
        -------
        xarray.Dataset
            One variable per output, each ``(system, topic, measure)``.

        See Also
        --------
        - [`irframe.cwl.cwl`][irframe.cwl.cwl]: the same as a function.
        - [`df.ir.metric`][irframe.IrAccessor.metric] with ``"CWL(C=...)"``: one output as
          a measure of a score cube.

        Examples
        --------
        >>> import irframe as irf
        >>> qrels, runs = irf.datasets.synthetic(systems=3, topics=5, depth=20, rng=0)
        >>> ds = runs.ir.cwl(["RBP(p=0.8)", "INST(T=2)"], qrels=qrels, gains="auto")
        >>> ds.EU.dims, ds.EU.sizes["measure"]
        (('system', 'topic', 'measure'), 2)
        """
        from .cwl import cwl

        return cwl(
            self._obj,
            self._qrels(qrels),
            measures,
            costs=costs,
            opts=self._roles(qrels, opts),
            **options,
        )

    @takes_options("align", **CWL)
    def cwla_grid(
        self,
        qrels: pd.DataFrame | None = None,
        C: Any = None,
        A: Any = None,
        *,
        opts: Options,
        **options: Any,
    ) -> xr.DataArray:
        """Every C × A combination of Table 3 of Moffat et al., SIGIR 2022 in one cube.

        Parameters
        ----------
        qrels : pandas.DataFrame, optional
            Judgments; not needed on a joined frame.
        C, A : list of str, optional
            C and A functions (default: those of Table 3).
        **options
            Any other option of [`irframe.cwl.cwla_grid`][irframe.cwl.cwla_grid].

        Returns
        -------
        xarray.DataArray
            Scores with dims ``(system, topic, C, A)``.

        See Also
        --------
        - [`irframe.cwl.cwla_grid`][irframe.cwl.cwla_grid]: the same as a function.
        - [`irframe.plot.grid_heatmap`][irframe.plot.grid_heatmap]: draw the C × A means.

        Examples
        --------
        >>> import irframe as irf
        >>> qrels, runs = irf.datasets.synthetic(systems=3, topics=5, depth=20, rng=0)
        >>> g = runs.ir.cwla_grid(qrels, C=["RBP(p=0.8)", "INST(T=2)"], A=["ERG", "max"], gains="auto")
        >>> g.dims, g.A.values.tolist()
        (('system', 'topic', 'C', 'A'), ['ERG', 'max'])
        """
        from .cwl import cwla_grid

        return cwla_grid(
            self._obj, self._qrels(qrels), C, A, opts=self._roles(qrels, opts), **options
        )

    @takes_options("align", "rel_level")
    def lexirecall(
        self, qrels: pd.DataFrame | None = None, *, opts: Options, **options: Any
    ) -> xr.DataArray:
        """Lexicographic recall preferences ``(system, other, topic)``.

        Parameters
        ----------
        qrels : pandas.DataFrame, optional
            Judgments; not needed on a joined frame.
        **options
            Any other option of [`irframe.lexi.lexirecall`][irframe.lexi.lexirecall].

        Returns
        -------
        xarray.DataArray
            +1 where ``system`` is preferred to ``other`` on a topic, -1 the reverse, 0 tied.

        See Also
        --------
        - [`irframe.lexi.lexirecall`][irframe.lexi.lexirecall]: the same as a function.
        - [`irframe.stats.sign_test`][irframe.stats.sign_test]: significance of the preferences.
        - [`irframe.dask`][irframe.dask]: ``ddf.ir.lexirecall`` on Dask frames.

        Examples
        --------
        >>> import irframe as irf
        >>> qrels, runs = irf.datasets.synthetic(systems=3, topics=5, depth=20, rng=0)
        >>> pref = runs.ir.lexirecall(qrels=qrels)
        >>> pref.dims, pref.sel(system="sys2", other="sys0").values.tolist()
        (('system', 'other', 'topic'), [1, 1, 1, 1, 1])
        """
        from .lexi import lexirecall

        return lexirecall(self._obj, self._qrels(qrels), opts=self._roles(qrels, opts), **options)

    @takes_options("align", "rel_level")
    def lexiprecision(
        self, qrels: pd.DataFrame | None = None, *, opts: Options, **options: Any
    ) -> xr.DataArray:
        """Lexicographic precision preferences ``(system, other, topic)``.

        Parameters
        ----------
        qrels : pandas.DataFrame, optional
            Judgments; not needed on a joined frame.
        **options
            Any other option of [`irframe.lexi.lexiprecision`][irframe.lexi.lexiprecision].

        Returns
        -------
        xarray.DataArray
            +1 where ``system`` is preferred to ``other`` on a topic, -1 the reverse, 0 tied.

        See Also
        --------
        - [`irframe.lexi.lexiprecision`][irframe.lexi.lexiprecision]: the same as a function.
        - [`df.ir.lexirecall`][irframe.IrAccessor.lexirecall]: from the bottom of the ranking.

        Examples
        --------
        >>> import irframe as irf
        >>> qrels, runs = irf.datasets.synthetic(systems=3, topics=5, depth=20, rng=0)
        >>> runs.ir.lexiprecision(qrels=qrels).sel(system="sys0", other="sys2").values.tolist()
        [-1, -1, -1, -1, -1]
        """
        from .lexi import lexiprecision

        return lexiprecision(
            self._obj, self._qrels(qrels), opts=self._roles(qrels, opts), **options
        )

    @takes_options("align", "rel_level")
    def rarity(
        self,
        qrels: pd.DataFrame | None = None,
        *,
        k: int = 100,
        opts: Options,
        **options: Any,
    ) -> pd.DataFrame:
        """Per relevant document: how many systems found it in their top k.

        Parameters
        ----------
        qrels : pandas.DataFrame, optional
            Judgments; not needed on a joined frame.
        k : int
            Depth at which a system "finds" a document.
        **options
            Any other option of [`irframe.rarity.rarity`][irframe.rarity.rarity].

        Returns
        -------
        pandas.DataFrame
            One row per relevant document, with the number of systems that found it and its
            rarity.

        See Also
        --------
        - [`irframe.rarity.rarity`][irframe.rarity.rarity]: the same as a function.
        - [`irframe.rarity.rare_finds`][irframe.rarity.rare_finds]: the rare documents each system
          found.
        - The measures ``P_rare`` and ``AP_rare`` in [`df.ir.metric`][irframe.IrAccessor.metric].

        Examples
        --------
        >>> import irframe as irf
        >>> qrels, runs = irf.datasets.synthetic(systems=3, topics=5, depth=20, rng=0)
        >>> runs.ir.rarity(qrels=qrels, k=10).columns.tolist()
        ['topic', 'doc', 'rel', 'S_d', 'S', 'rarity', 'rarity_norm']
        """
        from .rarity import rarity

        return rarity(self._obj, self._qrels(qrels), k=k, opts=self._roles(qrels, opts), **options)
