"""The ``.ir`` DataFrame accessor: a thin layer that validates, delegates, returns.

pandas >= 3 builds a new accessor object on every ``df.ir`` access, so nothing is
cached here; ``__init__`` only checks the columns.

A frame returned by :meth:`IrAccessor.join` remembers its qrels through a short
string token in ``DataFrame.attrs`` (``"irframe.qrels"``), resolved in a bounded
in-process registry.  The token survives row filtering (``j[j.system == "a"]``),
so the recall base always comes from the full qrels.  A frame loaded in another
process (or after the registry evicted the entry) must be given ``qrels=`` again.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .errors import InputError
from .schema import missing_run_columns, qrels_columns

__all__ = ["IrAccessor", "join", "qrels_of"]

_QRELS_KEY = "irframe.qrels"
_QRELS_REGISTRY: "OrderedDict[str, pd.DataFrame]" = OrderedDict()
_REGISTRY_SIZE = 64


def join(runs: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Attach qrels to a run frame: a new frame with a ``rel`` column (NaN = unjudged).

    The result remembers the full qrels, so later ``metric()`` calls need no
    ``qrels=`` and filtering rows never changes the recall base.  The caller's
    frames are not modified.

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
    qc = qrels_columns(qrels)
    if "rel" in runs.columns:
        raise InputError("the run frame already has a 'rel' column (joined before?); "
                         "drop it first or call metric(..., qrels=...) directly")
    q = qrels
    key_cols = [qc.topic, qc.doc]
    grades = q.groupby([q[c].astype(str) for c in key_cols], observed=True, sort=False)[qc.rel].max()
    idx = pd.MultiIndex.from_arrays([runs["topic"].astype(str), runs["doc"].astype(str)])
    pos = grades.index.get_indexer(idx)
    rel = np.where(pos >= 0, grades.to_numpy(dtype=np.float64)[np.maximum(pos, 0)], np.nan)
    out = runs.copy(deep=False)
    out["rel"] = rel
    token = uuid.uuid4().hex
    _QRELS_REGISTRY[token] = qrels.copy()
    while len(_QRELS_REGISTRY) > _REGISTRY_SIZE:
        _QRELS_REGISTRY.popitem(last=False)
    out.attrs = {**runs.attrs, _QRELS_KEY: token}
    return out


def qrels_of(df: pd.DataFrame) -> pd.DataFrame | None:
    """The qrels a joined frame remembers, or None."""
    token = df.attrs.get(_QRELS_KEY)
    if token is None:
        return None
    return _QRELS_REGISTRY.get(token)


@pd.api.extensions.register_dataframe_accessor("ir")
class IrAccessor:
    """IR evaluation on a long run frame (``system, topic, doc, score[, rank]``).

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> cube = runs.ir.metric(["AP", "nDCG@10"], qrels=qrels)
    >>> cube.dims
    ('system', 'topic', 'measure')
    """

    def __init__(self, obj: pd.DataFrame) -> None:
        missing = missing_run_columns(obj)
        if missing:
            found = ", ".join(map(str, obj.columns[:20])) or "(no columns)"
            raise AttributeError(
                f".ir needs a run frame with columns system, topic, doc and score (or rank); "
                f"missing: {', '.join(missing)}; found: {found}. Rename columns or use "
                f"irframe.evaluate(runs, qrels, measures, columns={{...}}).")
        self._obj = obj

    # ------------------------------------------------------------------ helpers
    def _qrels(self, qrels: pd.DataFrame | None) -> pd.DataFrame:
        if qrels is not None:
            return qrels
        q = qrels_of(self._obj)
        if q is None:
            if _QRELS_KEY in self._obj.attrs:
                raise InputError("this frame was joined with qrels that are no longer available in this "
                                 "process; pass qrels=... explicitly")
            raise InputError("no qrels: pass qrels=... or call df.ir.join(qrels) first")
        return q

    # ------------------------------------------------------------------ API
    def join(self, qrels: pd.DataFrame) -> pd.DataFrame:
        """Attach ``qrels`` (see :func:`irframe.accessor.join`)."""
        return join(self._obj, qrels)

    def metric(self, measures: str | Iterable[str], qrels: pd.DataFrame | None = None, *,
               rel_level: float = 1, order: str = "trec_eval", complete: bool = False,
               depth: int | None = None, gains: Mapping | None = None, judged_only: bool = False,
               **options: Any) -> xr.DataArray:
        """Evaluate measures → cube ``(system, topic, measure)``; see :func:`irframe.evaluate`."""
        from .evaluate import evaluate
        return evaluate(self._obj, self._qrels(qrels), measures, rel_level=rel_level, order=order,
                        complete=complete, depth=depth, gains=gains, judged_only=judged_only, **options)

    def summary(self, measures: str | Iterable[str], qrels: pd.DataFrame | None = None, *,
                missing: str = "skip", **options: Any) -> pd.DataFrame:
        """Means over topics (trec_eval's ``all`` line) as a system × measure table.

        ``missing`` is the topic-set policy of :func:`irframe.summarize`.
        """
        from .cube import summarize
        return summarize(self.metric(measures, qrels, **options), missing=missing)

    def to_trec(self, path: str | None = None, *, tag: str | None = None) -> str | None:
        """Write the run frame in TREC format to ``path``, or return it as a string."""
        from . import io
        if path is None:
            return io.format_run(self._obj, tag=tag)
        io.write_run(self._obj, path, tag=tag)
        return None

    def cwl(self, measures: str | Iterable[str], qrels: pd.DataFrame | None = None, *,
            gains: Any = None, costs: Any = None, **options: Any) -> xr.Dataset:
        """C/W/L evaluation: Dataset with EU, ETU, EC, ETC, ED (+ residuals); see :mod:`irframe.cwl`."""
        from .cwl import cwl
        return cwl(self._obj, self._qrels(qrels), measures, gains=gains, costs=costs, **options)

    def cwla_grid(self, qrels: pd.DataFrame | None = None, C: Any = None, A: Any = None,
                  **options: Any) -> xr.DataArray:
        """Every C × A combination of seed 002's Table 3 in one cube; see :func:`irframe.cwl.cwla_grid`."""
        from .cwl import cwla_grid
        return cwla_grid(self._obj, self._qrels(qrels), C, A, **options)

    def lexirecall(self, qrels: pd.DataFrame | None = None, *, rel_level: float = 1,
                   **options: Any) -> xr.DataArray:
        """Lexicographic recall preferences ``(system, other, topic)``; see :mod:`irframe.lexi`."""
        from .lexi import lexirecall
        return lexirecall(self._obj, self._qrels(qrels), rel_level=rel_level, **options)

    def lexiprecision(self, qrels: pd.DataFrame | None = None, *, rel_level: float = 1,
                      **options: Any) -> xr.DataArray:
        """Lexicographic precision preferences ``(system, other, topic)``; see :mod:`irframe.lexi`."""
        from .lexi import lexiprecision
        return lexiprecision(self._obj, self._qrels(qrels), rel_level=rel_level, **options)

    def rarity(self, qrels: pd.DataFrame | None = None, *, k: int = 100, rel_level: float = 1,
               **options: Any) -> pd.DataFrame:
        """Per relevant document: how many systems found it in their top k; see :mod:`irframe.rarity`."""
        from .rarity import rarity
        return rarity(self._obj, self._qrels(qrels), k=k, rel_level=rel_level, **options)
