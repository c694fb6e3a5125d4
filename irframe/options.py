"""The evaluation options shared by every entry point, validated in one place.

Every public function that aligns runs with qrels (``evaluate``, ``cwl``, ``cwla_grid``,
``lexirecall`` …, ``rarity``, ``rare_finds``, ``pair_counts``, ``irframe.dask.evaluate``)
takes the same keywords with the same defaults and meanings; each builds one
:class:`Options` with :func:`make_options` and passes it down.  The result constructor
(:func:`irframe.cube.result`) records :meth:`Options.attrs` on every cube.

The vocabulary (also in docs/internals.md):

``rel_level``
    relevance threshold: relevant ⇔ grade >= rel_level (trec_eval ``-l``), default 1.
``k``
    a cutoff: only the first k documents of a ranking count (``P@k``, rarity's top k).
``depth``
    truncation: every ranking is cut to ``depth`` documents after ordering (trec_eval ``-M``);
    None = no cut.  The C/W/L functions also pad to it (cwl_eval's ``--max_depth``), so
    they need a number (default 1000 there).
``order``
    document order inside a ranking: ``"trec_eval"`` (default), ``"trec_eval10"``, ``"rank"``
    or ``"input"`` (docs/conventions.md).
``complete``, ``judged_only``, ``duplicates``, ``columns``, ``qrels_columns``, ``system``
    trec_eval ``-c`` and ``-J``, duplicate rows, column-name maps, the name of a one-system run.
``gains``
    grade → gain: None (the grade is the gain), a mapping (unlisted grades keep their grade);
    the C/W/L functions also take ``"auto"``, ``"scale"`` or a vectorised callable.
``missing``
    what to do with NaN (not evaluated) cells of a cube, see :data:`MISSING`.
``rng``
    a :class:`numpy.random.Generator`, a seed, or None (fresh entropy).

Examples
--------
>>> from irframe.options import make_options
>>> o = make_options(rel_level=2, depth=100)
>>> o.rel_level, o.depth, o.order
(2, 100, 'trec_eval')
>>> make_options(depth=0)
Traceback (most recent call last):
...
irframe.errors.OptionError: depth must be an integer in [1, 2**53], got 0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .errors import OptionError, shown
from .params import DEPTH, REL_LEVEL, Param, check_flag, check_gains

__all__ = [
    "ALIGN_OPTIONS",
    "DUPLICATES",
    "MISSING",
    "OPTION_NAMES",
    "ORDERS",
    "TIE_ORDERS",
    "Options",
    "aligned_options",
    "check_depth",
    "check_k",
    "check_missing",
    "check_rel_level",
    "make_options",
    "make_rng",
]

ORDERS = ("trec_eval", "trec_eval10", "rank", "input")
#: orders applied to the tied documents of a trec_eval-ordered ranking (irframe.measures.ties)
TIE_ORDERS = ("expected", "best", "worst")
DUPLICATES = ("error", "first")

#: the one meaning of each ``missing=`` value, for every function that takes it
MISSING = {
    "skip": "ignore not-evaluated cells: a mean uses each system's own topics, a paired statistic the "
    "topics both systems have; methods that need a complete system × topic block (ANOVA, "
    "Tukey HSD, stability, swap rate, discriminative power) use the topics every system has",
    "common": "use only the topics every system was evaluated on",
    "zero": "count not-evaluated cells as 0 (trec_eval -c; gm_map uses log(1e-5))",
    "error": "raise if the cube holds a not-evaluated cell",
}


_K = Param("int", None, low=1, description="cutoff: only the first k documents of a ranking count")


def check_rel_level(rel_level: Any, *, name: str = "rel_level") -> Any:
    """A finite number (booleans refused), by the shared spec :data:`irframe.params.REL_LEVEL`."""
    if rel_level is None:
        raise OptionError(f"{name} must be {REL_LEVEL.allowed()}, got None")
    return REL_LEVEL.check(name, rel_level, hint=f" (relevant ⇔ grade >= {name})")


def check_depth(depth: Any, *, allow_none: bool = True) -> int | None:
    """A positive integer (or None when allowed), by :data:`irframe.params.DEPTH`."""
    if depth is None and not allow_none:
        raise OptionError(f"depth must be {DEPTH.allowed()}, got None")
    return DEPTH.check("depth", depth)


def check_k(k: Any, *, allow_none: bool = True, what: str = "the cutoff") -> int | None:
    """A positive integer cutoff (or None = the whole ranking, when allowed)."""
    if k is None and not allow_none:
        raise OptionError(f"k must be {_K.allowed()} ({what}), got None")
    return _K.check("k", k, hint=f" ({what}{'; None = the whole ranking' if allow_none else ''})")


def check_missing(missing: Any, allowed: tuple[str, ...] = tuple(MISSING)) -> str:
    """One of :data:`MISSING` (``allowed`` narrows it for a function)."""
    if missing not in allowed:
        raise ValueError(
            f"missing= must be one of {', '.join(map(repr, allowed))}, got {missing!r}"
        )
    return missing


def make_rng(rng: Any) -> np.random.Generator:
    """``rng=``: a :class:`numpy.random.Generator` (used as is), or anything
    :func:`numpy.random.default_rng` takes as a seed (an int, a sequence of ints, a
    ``SeedSequence`` or ``BitGenerator``; None: fresh entropy); anything else is a TypeError.

    >>> bool(make_rng(3).integers(10) == make_rng(3).integers(10))
    True
    >>> make_rng(0.5)
    Traceback (most recent call last):
    ...
    TypeError: rng must be a numpy.random.Generator or a seed numpy's default_rng takes (an int, a sequence of ints, a SeedSequence, a BitGenerator or None), not float
    """
    if isinstance(rng, np.random.Generator):
        return rng
    try:
        return np.random.default_rng(rng)
    except TypeError:  # a negative seed keeps numpy's own ValueError
        raise TypeError(
            "rng must be a numpy.random.Generator or a seed numpy's default_rng takes (an int, "
            f"a sequence of ints, a SeedSequence, a BitGenerator or None), not {type(rng).__name__}"
        ) from None


@dataclass(frozen=True)
class Options:
    """Alignment and evaluation options, validated once (build it with :func:`make_options`).

    The alignment fields (:data:`ALIGN_OPTIONS`) go to :func:`irframe.align.align`; the
    others are read by the evaluation: ``order`` may also be a tie order
    (:data:`TIE_ORDERS`, applied after a trec_eval alignment), ``bounds`` and
    ``unjudged_grade`` (:mod:`irframe.measures.unjudged`), ``measure_options`` the extra
    keywords measures declare (``reference=``, ``num_docs_in_coll=``, ``weights=``).
    """

    order: str = "trec_eval"
    rel_level: float = 1
    depth: int | None = None
    complete: bool = False
    judged_only: bool = False
    gains: Any = None
    duplicates: str = "error"
    columns: Mapping[str, str] | None = None
    qrels_columns: Mapping[str, str] | None = None
    system: str | None = None
    bounds: bool = False
    unjudged_grade: float | None = None
    measure_options: Mapping[str, Any] | None = None

    @property
    def tie_order(self) -> str | None:
        """The tie order (``"expected"``, ``"best"``, ``"worst"``) or None."""
        return self.order if self.order in TIE_ORDERS else None

    def align_kwargs(self) -> dict[str, Any]:
        """Keywords of :func:`irframe.align.align` (a tie order aligns in trec_eval's order)."""
        out = {name: getattr(self, name) for name in ALIGN_OPTIONS}
        if self.tie_order:
            out["order"] = "trec_eval"
        return out

    def kernel_options(self) -> dict[str, Any]:
        """What a kernel reads in ``ctx.options``: ``rel_level``, ``gains`` and the measure options."""
        gains = dict(self.gains) if isinstance(self.gains, Mapping) and self.gains else None
        return {"rel_level": self.rel_level, "gains": gains, **(self.measure_options or {})}

    def attrs(self) -> dict[str, Any]:
        """The options as netCDF-safe attrs (depth None → -1, booleans → 0/1, gains as text, rel_level a float)."""
        g = self.gains
        if g is None:
            gains = ""
        elif isinstance(g, str):
            gains = g
        elif isinstance(g, Mapping):
            gains = ",".join(f"{k}={v}" for k, v in sorted(g.items()))
        else:
            gains = getattr(g, "__name__", "callable")
        return {
            "order": self.order,
            "rel_level": float(self.rel_level),
            "complete": int(self.complete),
            "depth": -1 if self.depth is None else int(self.depth),
            "judged_only": int(self.judged_only),
            "gains": gains,
        }


OPTION_NAMES = tuple(f.name for f in fields(Options))
#: the options :func:`irframe.align.align` takes
ALIGN_OPTIONS = (
    "order",
    "depth",
    "complete",
    "judged_only",
    "duplicates",
    "columns",
    "qrels_columns",
    "system",
)


def aligned_options(aligned: Any, *, rel_level: float = 1, gains: Any = None) -> Options:
    """The options an already aligned input was built with (for results computed from it)."""
    return Options(
        order=aligned.order,
        rel_level=check_rel_level(rel_level),
        depth=aligned.depth,
        complete=bool(aligned.complete),
        judged_only=bool(aligned.judged_only),
        gains=gains,
    )


def make_options(
    *,
    order: str = "trec_eval",
    rel_level: float = 1,
    depth: int | None = None,
    complete: bool = False,
    judged_only: bool = False,
    gains: Any = None,
    duplicates: str = "error",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    system: str | None = None,
    bounds: bool = False,
    unjudged_grade: float | None = None,
    measure_options: Mapping[str, Any] | None = None,
    depth_required: bool = False,
    tie_orders: bool = False,
) -> Options:
    """Validate the options once; ``depth_required`` for the C/W/L functions (they pad to it),
    ``tie_orders`` for the functions that take :data:`TIE_ORDERS` (:func:`irframe.evaluate`)."""
    orders = ORDERS + TIE_ORDERS if tie_orders else ORDERS
    if order not in orders:
        near = [o for o in orders if isinstance(order, str) and o.lower() == order.lower()]
        raise OptionError(
            f"order={shown(order)} is not one of {', '.join(map(repr, orders))}"
            + (f"; did you mean {near[0]!r}?" if near else "")
        )
    if duplicates not in DUPLICATES:
        raise OptionError(
            f"duplicates={duplicates!r} is not one of {', '.join(map(repr, DUPLICATES))}"
        )
    complete = check_flag("complete", complete)
    judged_only = check_flag("judged_only", judged_only)
    bounds = check_flag("bounds", bounds)
    for name, v in (("columns", columns), ("qrels_columns", qrels_columns)):
        if v is not None and not isinstance(v, Mapping):
            raise TypeError(f"{name} must be a mapping role -> column name, got {type(v).__name__}")
    if gains is not None and not isinstance(gains, str) and not callable(gains):
        gains = check_gains(gains)
    return Options(
        order=order,
        rel_level=check_rel_level(rel_level),
        depth=check_depth(depth, allow_none=not depth_required),
        complete=bool(complete),
        judged_only=bool(judged_only),
        gains=gains,
        duplicates=duplicates,
        columns=columns,
        qrels_columns=qrels_columns,
        system=system,
        bounds=bool(bounds),
        unjudged_grade=unjudged_grade,
        measure_options=dict(measure_options) if measure_options else None,
    )
