"""The extra dimensions of an evaluation, one mechanism for every family: several judgment sets
(``qrels={name: frame, ...}`` gives results with a ``qrels`` dim) and replicate runs (a run
frame with a replicate column gives a ``replicate`` dim after ``system``).

Policy for documents judged in only some of the sets (``judgments=``):

* ``"each"`` (default): every set is used as it is.  A document a set did not judge is
  *unjudged* under that set and counts as non-relevant there, as trec_eval does
  (``judged_only=True`` removes it from the rankings instead, per set);
* ``"common"``: each set keeps only the (topic, doc) judgments present in *every*
  set, so all sets judge the same documents and differ only in their labels.  With
  ``judged_only=True`` as well, the rankings are condensed to those commonly judged
  documents (Sakai's condensed lists).

Each set is evaluated separately (the run frame is aligned once per set) and the
results are concatenated along ``qrels``; a topic some set does not judge is NaN
(not evaluated) under that set.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from ._lazy import xarray as xr  # imported on first use: the command line never needs it
from .errors import ColumnError, InputError, OptionError
from .schema import qrels_columns, qrels_frame, run_frame

__all__ = [
    "JUDGMENTS",
    "evaluation_dims",
    "is_qrels_sets",
    "judgment_sets",
    "over_qrels",
    "over_replicates",
    "prepare_qrels_sets",
    "replicate_role",
]

JUDGMENTS = ("each", "common")


def is_qrels_sets(qrels) -> bool:
    """Whether ``qrels`` is a mapping of judgment sets ``{name: qrels}``.

    A set is a DataFrame or an iterable of records (namedtuples, dataclasses); a mapping
    whose values are all mappings is one set in another shape (pytrec_eval's
    ``{topic: {doc: grade}}``).  A mapping mixing both is an error naming the odd value.

    Parameters
    ----------
    qrels : object
        Anything passed as ``qrels=``.

    Returns
    -------
    bool

    Raises
    ------
    irframe.errors.InputError
        A mapping mixing judgment sets and topics.
    """
    if not isinstance(qrels, Mapping) or isinstance(qrels, pd.DataFrame) or len(qrels) == 0:
        return False
    nested = [isinstance(v, Mapping) for v in qrels.values()]
    if all(nested):
        return False
    if any(nested):
        names = list(qrels)
        a = names[nested.index(True)]
        b = names[nested.index(False)]
        raise InputError(
            f"qrels is a mapping that mixes judgment sets and topics: {_show(a)} maps to a dict "
            f"(a topic of pytrec_eval's {{topic: {{doc: grade}}}}) but {_show(b)} maps to "
            f"{type(qrels[b]).__name__} (a judgment set {{name: qrels frame}}); pass one shape"
        )
    return True


def _show(name) -> str:
    return repr(name) if isinstance(name, str) else f"{name!r} ({type(name).__name__})"


def prepare_qrels_sets(
    qrels: Mapping, *, judgments: str = "each", columns: Mapping[str, str] | None = None
) -> dict:
    """Validate ``{name: qrels}`` and apply the ``judgments`` policy (new frames).

    Each set is a DataFrame or an iterable of records; errors name the set.

    Parameters
    ----------
    qrels : mapping of str to pandas.DataFrame
        The judgment sets.
    judgments : {"each", "common"}
        Use every set as it is, or keep only the (topic, doc) pairs every set judged.
    columns : mapping, optional
        Role → column name of the qrels frames.

    Returns
    -------
    dict of str to pandas.DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"topic": "1", "doc": ["x", "y"], "rel": [1, 0]})
    >>> b = pd.DataFrame({"topic": "1", "doc": ["y", "z"], "rel": [1, 1]})
    >>> {k: v.doc.tolist() for k, v in prepare_qrels_sets({"a": a, "b": b}, judgments="common").items()}
    {'a': ['y'], 'b': ['y']}
    """
    if judgments not in JUDGMENTS:
        raise OptionError(f"judgments must be one of {', '.join(JUDGMENTS)}, got {judgments!r}")
    if len(qrels) == 0:
        raise InputError("qrels={} holds no judgment set; pass {name: qrels frame, ...}")
    sets = {}
    for name, frame in qrels.items():
        if not isinstance(name, str):
            raise InputError(f"judgment-set names must be strings, got {_show(name)}")
        what = f"judgment set {name!r}"
        if isinstance(frame, Mapping):
            raise InputError(
                f"{what} is a dict; a judgment set is a qrels DataFrame or an iterable of records "
                f"(convert a {{topic: {{doc: grade}}}} dict with irframe.schema.as_frame(d, 'qrels'))"
            )
        frame, _ = qrels_frame(frame, columns, what=what)
        if len(frame) == 0:
            raise InputError(f"{what} is empty (no judgment); drop it or fill it")
        sets[name] = frame
    if judgments == "each" or len(sets) == 1:
        return sets
    keys = {}
    for name, frame in sets.items():
        qc = qrels_columns(frame, columns)
        keys[name] = pd.MultiIndex.from_arrays(
            [frame[qc.topic].astype(str), frame[qc.doc].astype(str)]
        )
    common = None
    for k in keys.values():
        common = k.unique() if common is None else common.intersection(k.unique())
    assert common is not None  # (at least one judgment set)
    if len(common) == 0:
        raise InputError(
            f"judgments='common' keeps the (topic, doc) pairs every set judged, but the judgment "
            f"sets {', '.join(map(repr, sets))} share none; use judgments='each' or check that "
            f"the sets judge the same collection"
        )
    return {
        name: frame.loc[np.asarray(keys[name].isin(common))].reset_index(drop=True)
        for name, frame in sets.items()
    }


def _name_set(name: str, fn: Callable, frame):
    """``fn(frame)``; an input error (bad data, no common topic) is prefixed with the set's name."""
    try:
        return fn(frame)
    except InputError as e:
        if e.args and isinstance(e.args[0], str) and f"{name!r}" not in e.args[0]:
            e.args = (f"judgment set {name!r}: {e.args[0]}", *e.args[1:])
        raise


def over_qrels(
    fn: Callable,
    qrels,
    *,
    judgments: str = "each",
    columns: Mapping[str, str] | None = None,
):
    """``fn(qrels)``; with a mapping of judgment sets, ``fn`` under every set, stacked.

    The one way every family applies several judgment sets (``evaluate``, ``cwl``,
    ``cwla_grid``, ``lexirecall``, ``lexiprecision``, ``rarity``, ``rare_finds``):
    an xarray result (DataArray or Dataset) gets a last ``qrels`` dim (labels missing
    under some set, such as a topic it does not judge, are NaN there); a table gets a
    leading ``qrels`` column, the sets in the mapping's order.  ``attrs["judgments"]``
    records the policy.

    Parameters
    ----------
    fn : callable
        ``fn(qrels_frame)`` → DataArray or Dataset.
    qrels : mapping of str to pandas.DataFrame
        The judgment sets.
    judgments : {"each", "common"}
        Use every set as it is, or keep only the (topic, doc) pairs every set judged.
    columns : mapping, optional
        Role → column name of the qrels frames.

    Returns
    -------
    xarray.DataArray or xarray.Dataset
        With a last ``qrels`` dim labelled by the sets' names.

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> cube = over_qrels(lambda q: irf.evaluate(runs, q, "P@10"), {"nist": qrels, "same": qrels})
    >>> cube.dims
    ('system', 'topic', 'measure', 'qrels')
    >>> import pandas as pd
    >>> a = pd.DataFrame({"topic": "1", "doc": ["x", "y"], "rel": [1, 0]})
    >>> b = pd.DataFrame({"topic": "1", "doc": ["y", "z"], "rel": [1, 1]})
    >>> over_qrels(lambda q: q[q.rel > 0][["doc"]], {"a": a, "b": b}).values.tolist()
    [['a', 'x'], ['b', 'y'], ['b', 'z']]
    """
    if not is_qrels_sets(qrels):
        if judgments not in JUDGMENTS:
            raise OptionError(f"judgments must be one of {', '.join(JUDGMENTS)}, got {judgments!r}")
        return fn(qrels)
    sets = prepare_qrels_sets(qrels, judgments=judgments, columns=columns)
    results = [_name_set(name, fn, frame) for name, frame in sets.items()]
    if isinstance(results[0], pd.DataFrame):
        out = pd.concat(results, keys=list(sets), names=["qrels", None]).reset_index(level=0)
        out = out.reset_index(drop=True)
        out.attrs["judgments"] = judgments
        return out
    out = xr.concat(
        results,
        dim=pd.Index(list(sets), name="qrels"),
        join="outer",
        fill_value=np.nan,
        combine_attrs="drop_conflicts",
        coords="minimal",
        compat="override",
    )
    out = out.transpose(*[d for d in out.dims if d != "qrels"], "qrels")
    out.attrs["judgments"] = judgments
    return out


def judgment_sets(fn: Callable) -> Callable:
    """Decorator of a family entry point ``fn(runs, qrels, ..., judgments="each", opts=...)``
    (under [`takes_options`][irframe.options.takes_options]): with ``qrels={name: frame}`` it
    runs ``fn`` under every set through [`over_qrels`][irframe.qrelsets.over_qrels]
    (``judgments=`` is consumed here, the sets' columns are ``opts.qrels_columns``)."""

    @functools.wraps(fn)
    def wrapper(runs, qrels=None, *args, judgments: str = "each", opts, **kwargs):
        return over_qrels(
            lambda q: fn(runs, q, *args, opts=opts, **kwargs),
            qrels,
            judgments=judgments,
            columns=opts.qrels_columns,
        )

    return wrapper


def replicate_role(runs, columns: Mapping[str, str] | None) -> tuple[str | None, dict | None]:
    """The replicate column (``columns["replicate"]``, else a ``replicate`` column) and the
    other roles."""
    columns = dict(columns or {})
    col = columns.pop("replicate", None)
    if col is not None and (not isinstance(runs, pd.DataFrame) or col not in runs.columns):
        found = ", ".join(map(str, getattr(runs, "columns", [])[:20]))
        raise ColumnError(
            f"columns={{'replicate': {col!r}}} names no column of the run frame; found: {found}"
        )
    if col is None and isinstance(runs, pd.DataFrame) and "replicate" in runs.columns:
        col = "replicate"
    return col, (columns or None)


def over_replicates(
    fn: Callable, runs: pd.DataFrame, rep_col: str, columns: Mapping | None, system: str | None
):
    """``fn(frame, columns)`` once over every (system, replicate) run, as one system each, and
    the result's ``system`` dim unstacked into ``system`` × ``replicate`` (NaN where a system
    lacks a replicate)."""
    df, rc = run_frame(runs, columns, system=system)
    rep_codes, reps = pd.factorize(df[rep_col], sort=True)
    if (rep_codes < 0).any():
        rows = np.flatnonzero(rep_codes < 0)[:5].tolist()
        raise InputError(
            f"run frame column {rep_col!r} (the replicate) is missing at rows {rows}; "
            "give every row its replicate (seed, fold) label"
        )
    sys_codes, systems = pd.factorize(df[rc.system], sort=True)
    run_code = sys_codes.astype(np.int64) * len(reps) + rep_codes
    used, inv = np.unique(run_code, return_inverse=True)
    width = len(str(int(used.max()))) if len(used) else 1
    df = df.copy(deep=False)
    df[rc.system] = pd.Categorical.from_codes(
        inv.ravel(), categories=[f"{u:0{width}d}" for u in used]
    )
    out = fn(df, {**(columns or {}), "system": rc.system})
    code = np.array([int(v) for v in out.coords["system"].values], dtype=np.int64)
    run = pd.MultiIndex.from_arrays(
        [np.asarray(systems)[code // len(reps)], np.asarray(reps)[code % len(reps)]],
        names=["system", "replicate"],
    )
    out = out.rename(system="_run").assign_coords(
        xr.Coordinates.from_pandas_multiindex(run, "_run")
    )
    out = out.unstack("_run").transpose("system", "replicate", "topic", ...)
    out.attrs["replicate_column"] = rep_col
    return out


def evaluation_dims(fn: Callable) -> Callable:
    """Decorator of a family entry point ``fn(runs, qrels, ..., columns=, system=,
    judgments="each")`` returning a cube with a ``system`` dim: several judgment sets
    ([`over_qrels`][irframe.qrelsets.over_qrels]) and replicate runs ([`over_replicates`][irframe.qrelsets.over_replicates]), as for
    [`irframe.evaluate`][irframe.evaluate]."""

    @functools.wraps(fn)
    def wrapper(runs, qrels=None, *args, judgments: str = "each", opts, **kwargs):
        rep_col, columns = replicate_role(runs, opts.columns)

        def one(q):
            if rep_col is None:
                return fn(runs, q, *args, opts=opts, **kwargs)
            return over_replicates(
                lambda df, cols: fn(
                    df, q, *args, opts=opts.replace(columns=cols, system=None), **kwargs
                ),
                runs,
                rep_col,
                columns,
                opts.system,
            )

        return over_qrels(one, qrels, judgments=judgments, columns=opts.qrels_columns)

    return wrapper
