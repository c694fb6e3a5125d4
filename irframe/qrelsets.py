"""Several judgment sets at once: ``qrels={name: frame, ...}`` gives results with a ``qrels`` dim.

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

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from ._lazy import xarray as xr  # imported on first use: the command line never needs it
from .errors import InputError, OptionError
from .schema import qrels_columns, qrels_frame

__all__ = ["JUDGMENTS", "is_qrels_sets", "over_qrels", "over_qrels_frames", "prepare_qrels_sets"]

JUDGMENTS = ("each", "common")


def is_qrels_sets(qrels) -> bool:
    """Whether ``qrels`` is a mapping of judgment sets ``{name: qrels}``.

    A set is a DataFrame or an iterable of records (namedtuples, dataclasses); a mapping
    whose values are all mappings is one set in another shape (pytrec_eval's
    ``{topic: {doc: grade}}``).  A mapping mixing both is an error naming the odd value.
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
    qrels: Mapping,
    *,
    judgments: str = "each",
    columns: Mapping[str, str] | None = None,
):
    """``fn(qrels_frame)`` for every judgment set, concatenated along a new ``qrels`` dim.

    ``fn`` returns an xarray DataArray or Dataset; labels missing under some set (a
    topic it does not judge) are NaN there.

    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.trec_eval_sample()
    >>> cube = over_qrels(lambda q: irf.evaluate(runs, q, "P@10"), {"nist": qrels, "same": qrels})
    >>> cube.dims
    ('system', 'topic', 'measure', 'qrels')
    """
    sets = prepare_qrels_sets(qrels, judgments=judgments, columns=columns)
    results = [_name_set(name, fn, frame) for name, frame in sets.items()]
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


def over_qrels_frames(
    fn: Callable,
    qrels: Mapping,
    *,
    judgments: str = "each",
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """``fn(qrels_frame)`` (a table) for every judgment set, stacked with a leading ``qrels`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"topic": "1", "doc": ["x", "y"], "rel": [1, 0]})
    >>> b = pd.DataFrame({"topic": "1", "doc": ["y", "z"], "rel": [1, 1]})
    >>> over_qrels_frames(lambda q: q[q.rel > 0][["doc"]], {"a": a, "b": b}).values.tolist()
    [['a', 'x'], ['b', 'y'], ['b', 'z']]
    """
    sets = prepare_qrels_sets(qrels, judgments=judgments, columns=columns)
    parts = [_name_set(name, fn, frame) for name, frame in sets.items()]
    out = pd.concat(parts, keys=list(sets), names=["qrels", None]).reset_index(level=0)
    out = out.reset_index(drop=True)
    out.attrs["judgments"] = judgments
    return out
