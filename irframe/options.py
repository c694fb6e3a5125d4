"""The options of the public entry points: declared once, checked once, carried as one object.

`OPTIONS` is the table of every option (default, check, text,
group).  A public function takes its groups with
[`takes_options`][irframe.options.takes_options], which gives it those keywords (in its
signature and its Parameters section) and checks what the caller passes into one
[`Options`][irframe.options.Options]; the aligned arrays carry it
(``Aligned.options``), the kernels read ``Options.kernel_options()`` and the result
constructor (`irframe.cube.result`) records ``Options.attrs()`` on every cube.

The vocabulary beyond the table (also in docs/internals.md):

``k``
    a cutoff: only the first k documents of a ranking count (``P@k``, rarity's top k).
``depth``
    truncation after ordering (trec_eval ``-M``), None = no cut; the C/W/L functions also
    pad to it (cwl_eval's ``--max_depth``), so they need a number (default 1000 there).
``missing``
    what to do with NaN (not evaluated) cells of a cube, see `MISSING`.
``rng``
    a `numpy.random.Generator`, a seed, or None (fresh entropy).

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

import functools
import inspect
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ParamSpec, TypeVar

import numpy as np

from .errors import OptionError, shown
from .params import DEPTH, REL_LEVEL, Param, check_flag, check_gains

__all__ = [
    "ALIGN_OPTIONS",
    "CWL",
    "DUPLICATES",
    "EVALUATE",
    "MISSING",
    "OPTIONS",
    "OPTION_NAMES",
    "ORDERS",
    "PEER_KEYWORDS",
    "TIE_ORDERS",
    "Option",
    "Options",
    "check_depth",
    "check_k",
    "check_missing",
    "check_rel_level",
    "make_options",
    "make_rng",
    "peer_keyword_hint",
    "peer_keywords",
    "takes_options",
]

ORDERS = ("trec_eval", "trec_eval10", "rank", "input")
_ON_CUBE = "irframe.report(cube, ...) or irframe.stats.compare(cube, ...) on the cube irframe.evaluate returns"
_Advice = tuple[tuple[str, str], ...]


def _rename(ours: str, where: str = "irframe.evaluate") -> _Advice:
    """A peer's keyword that is ``ours=`` here: on a function taking it, else on ``where``."""
    name = ours.split("=")[0]
    return ((name, f"write {ours}"), ("", f"write {ours} on {where}"))


def _says(text: str) -> _Advice:
    return (("", text),)


_MEASURES: _Advice = (
    ("measures", "write measures="),
    ("cube", "select them on the cube: cube.sel(measure=['AP'])"),
    (
        "",
        "write the measures as the measures argument: irframe.evaluate(runs, qrels, ['AP']) "
        "or df.ir.metric(['AP'], qrels=qrels)",
    ),
)
_ROUND: _Advice = (
    ("digits", "write digits="),
    ("", "round the result (.round(4)), or write digits= on irframe.report"),
)
_PER_TOPIC = _says(
    "the cube holds the per-topic values already (its topic dim); irframe.summarize(cube) "
    "gives the means"
)
#: Other tools' keywords: ``name: (tool, advice)``.  ``advice`` lists ``(keyword, text)``
#: pairs, the first whose keyword the called function takes is said ("": any function),
#: so the fix named is one that function accepts.  Only named in errors (irframe keeps
#: one vocabulary), by `peer_keyword_hint`.
PEER_KEYWORDS: dict[str, tuple[str, _Advice]] = {
    "relevance_level": ("pytrec_eval", _rename("rel_level=")),
    "judged_docs_only_flag": ("pytrec_eval", _rename("judged_only=True")),
    "removeUnjudged": ("trectools", _rename("judged_only=True")),
    "trec_eval": (
        "trectools",
        _says(
            "nothing to write: irframe orders rankings as trec_eval does by default "
            "(order='trec_eval')"
        ),
    ),
    "make_comparable": ("ranx", _rename("complete=True")),
    "metrics": ("ranx", _MEASURES),
    "max_p": ("ranx", _rename("alpha=", _ON_CUBE)),
    "stat_test": ("ranx", _rename("test=", _ON_CUBE)),
    "rounding_digits": ("ranx", _ROUND),
    "n_permutations": ("ranx", _rename("n_samples=", _ON_CUBE)),
    "random_seed": ("ranx", _rename("rng=", _ON_CUBE)),
    "return_mean": ("ranx", _says("nothing to write: " + _PER_TOPIC[0][1])),
    "return_std": (
        "ranx",
        _says("the cube holds the per-topic values: cube.std('topic') gives their spread"),
    ),
    "threads": ("ranx", _says("nothing to write: irframe uses both cores where it pays")),
    "eval_metrics": ("PyTerrier", _MEASURES),
    "round": ("PyTerrier", _ROUND),
    "perquery": ("PyTerrier", _PER_TOPIC),
    "per_query": ("PyTerrier", _PER_TOPIC),
    # PyTerrier's Experiment takes the significance tests' keywords with the runs
    "baseline": (
        "PyTerrier",
        _says(
            f"the significance tests against a baseline are {_ON_CUBE}, with "
            "baseline='its system name'"
        ),
    ),
    "test": ("PyTerrier", (("test", ""), ("", f"write test= on {_ON_CUBE}"))),
    "correction": ("PyTerrier", (("correction", ""), ("", f"write correction= on {_ON_CUBE}"))),
    "filter_by_qrels": (
        "PyTerrier",
        _says(
            "nothing to write: irframe evaluates the topics that have judgments, as trec_eval "
            "(complete=True adds the judged topics a run lacks)"
        ),
    ),
    "names": (
        "PyTerrier",
        (
            ("cube", "name the systems: cube.assign_coords(system=['BM25', ...])"),
            ("", "write the runs as a dict {name: run}"),
        ),
    ),
}
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
    """A finite number (booleans refused), by the shared spec `irframe.params.REL_LEVEL`."""
    if rel_level is None:
        raise OptionError(f"{name} must be {REL_LEVEL.allowed()}, got None")
    return REL_LEVEL.check(name, rel_level, hint=f" (relevant ⇔ grade >= {name})")


def check_depth(depth: Any, *, allow_none: bool = True) -> int | None:
    """A positive integer (or None when allowed), by `irframe.params.DEPTH`."""
    if depth is None and not allow_none:
        raise OptionError(f"depth must be {DEPTH.allowed()}, got None")
    return DEPTH.check("depth", depth)


def check_k(k: Any, *, allow_none: bool = True, what: str = "the cutoff") -> int | None:
    """A positive integer cutoff (or None = the whole ranking, when allowed)."""
    if k is None and not allow_none:
        raise OptionError(f"k must be {_K.allowed()} ({what}), got None")
    return _K.check("k", k, hint=f" ({what}{'; None = the whole ranking' if allow_none else ''})")


def check_missing(missing: Any, allowed: tuple[str, ...] = tuple(MISSING)) -> str:
    """One of `MISSING` (``allowed`` narrows it for a function)."""
    if missing not in allowed:
        raise OptionError(
            f"missing= must be one of {', '.join(map(repr, allowed))}, got {missing!r}"
        )
    return missing


def make_rng(rng: Any) -> np.random.Generator:
    """``rng=``: a `numpy.random.Generator` (used as is), or anything
    `numpy.random.default_rng` takes as a seed (an int, a sequence of ints, a
    ``SeedSequence`` or ``BitGenerator``; None: fresh entropy); anything else is an OptionError (a TypeError).

    Examples
    --------
    >>> bool(make_rng(3).integers(10) == make_rng(3).integers(10))
    True
    >>> make_rng(0.5)
    Traceback (most recent call last):
    ...
    irframe.errors.OptionError: rng must be a numpy.random.Generator or a seed numpy's default_rng takes (an int, a sequence of ints, a SeedSequence, a BitGenerator or None), not float
    """
    if isinstance(rng, np.random.Generator):
        return rng
    try:
        return np.random.default_rng(rng)
    except TypeError:  # a negative seed keeps numpy's own ValueError
        raise OptionError(
            "rng must be a numpy.random.Generator or a seed numpy's default_rng takes (an int, "
            f"a sequence of ints, a SeedSequence, a BitGenerator or None), not {type(rng).__name__}"
        ) from None


# ---------------------------------------------------------------------------------------
# the table: every option of the public entry points, declared once
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Option:
    """One option of the public entry points: its default, its check and its documentation.

    Parameters
    ----------
    default : object
        The value when the caller does not give it (a function may declare its own, see
        [`takes_options`][irframe.options.takes_options]).
    check : callable
        ``check(name, value) -> value``: the given value converted, or an
        [`OptionError`][irframe.errors.OptionError] (a TypeError for a wrong kind of object)
        naming the option and what it allows.
    type : str
        The numpydoc type of the option (``"bool"``, ``'{"error", "first"}'``).
    doc : str
        What the option does, for the Parameters section of every function that takes it.
    group : str
        ``"align"`` (how runs and qrels are aligned: [`irframe.align.align`][irframe.align.align]
        takes these), ``"evaluation"`` (read by the measures) or ``"bounds"``.
    """

    default: Any
    check: Callable[[str, Any], Any]
    type: str
    doc: str
    group: str

    def but(self, **changes: Any) -> Option:
        """This option with other attributes (a function's own default, check or text)."""
        return replace(self, **changes)


def peer_keyword_hint(names: Iterable[str], takes: Iterable[str] = ()) -> str:
    """What to write instead of other tools' keywords among ``names`` (`PEER_KEYWORDS`), for
    a function taking the keywords ``takes``, as a sentence for an error message ("" when
    none is one).

    Examples
    --------
    >>> peer_keyword_hint(["relevance_level", "foo"], takes=["rel_level"])
    " (relevance_level= is pytrec_eval's keyword: write rel_level=)"
    >>> peer_keyword_hint(["round"], takes=["digits"])
    " (round= is PyTerrier's keyword: write digits=)"
    """
    takes = set(takes)
    said = []
    for n in names:
        if n not in PEER_KEYWORDS:
            continue
        tool, advice = PEER_KEYWORDS[n]
        text = next(t for kw, t in advice if not kw or kw in takes)
        if text:  # "": the function takes that keyword itself
            owner = f"{tool}'" if tool.endswith(("s", "x")) else f"{tool}'s"
            said.append(f"{n}= is {owner} keyword: {text}")
    return f" ({'; '.join(said)})" if said else ""


P = ParamSpec("P")


def peer_keywords(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` refusing other tools' keywords it does not take (`PEER_KEYWORDS`) with an
    [OptionError][irframe.errors.OptionError] that says what to write instead; any other
    call goes to ``fn`` as it is."""
    takes = set(inspect.signature(fn).parameters)

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        peers = [k for k in kwargs if k in PEER_KEYWORDS and k not in takes]
        if peers:
            raise OptionError(
                f"{fn.__name__}() got an unexpected keyword argument {peers[0]!r}"
                + peer_keyword_hint(peers, takes)
            )
        return fn(*args, **kwargs)

    return wrapper


def _choice(allowed: tuple[str, ...]) -> Callable[[str, Any], Any]:
    def check(name: str, value: Any) -> Any:
        if value in allowed:
            return value
        near = [o for o in allowed if isinstance(value, str) and o.lower() == value.lower()]
        raise OptionError(
            f"{name}={shown(value)} is not one of {', '.join(map(repr, allowed))}"
            + (f"; did you mean {near[0]!r}?" if near else "")
        )

    return check


def _flag(name: str, value: Any) -> bool:
    return bool(check_flag(name, value))


def _depth(name: str, value: Any) -> int | None:
    return check_depth(value)


def _required_depth(name: str, value: Any) -> int | None:
    return check_depth(value, allow_none=False)


def _rel_level(name: str, value: Any) -> Any:
    return check_rel_level(value, name=name)


def _gains(name: str, value: Any) -> Any:
    if value is None or isinstance(value, str) or callable(value):
        return value  # the C/W/L functions' "auto", "scale" or a vectorised callable
    return check_gains(value, name=name)


def _mapping(name: str, value: Any) -> Any:
    if value is not None and not isinstance(value, Mapping):
        raise OptionError(
            f"{name}= must map roles to your column names, e.g. {name}={{'topic': 'qid', "
            f"'doc': 'docno'}}, not a {type(value).__name__}"
        )
    return value


def _any(name: str, value: Any) -> Any:
    return value


#: Every option of the public entry points, in the order of their signatures.  A function
#: declares the groups (and single options) it takes with
#: [`takes_options`][irframe.options.takes_options]; an option added here appears, with its
#: check and its text, in every function that takes its group.
OPTIONS: dict[str, Option] = {
    "rel_level": Option(
        1,
        _rel_level,
        "float, default 1",
        "Binary relevance threshold: relevant ⇔ grade >= rel_level (trec_eval ``-l``). "
        "A measure's own ``rel=`` parameter overrides it.",
        "evaluation",
    ),
    "order": Option(
        "trec_eval",
        _choice(ORDERS),
        '{"trec_eval", "trec_eval10", "rank", "input"}',
        "Document order inside a ranking (docs/conventions.md): ``trec_eval`` sorts by float32 "
        "score descending then docno descending; ``trec_eval10`` the same in float64; "
        "``rank`` by the rank column (ties docno descending); ``input`` keeps the frame's "
        "row order.",
        "align",
    ),
    "complete": Option(
        False,
        _flag,
        "bool",
        "Evaluate every qrels topic for every system (trec_eval ``-c``); missing rankings "
        "are empty and score 0.",
        "align",
    ),
    "depth": Option(
        None,
        _depth,
        "int, optional",
        "Truncate every ranking to ``depth`` documents after ordering (trec_eval ``-M``).",
        "align",
    ),
    "gains": Option(
        None,
        _gains,
        "mapping, optional",
        "Grade → gain for the nDCG family (trec_eval ``-m ndcg.1=3,2=9``); unlisted grades "
        "keep their grade as gain.",
        "evaluation",
    ),
    "judged_only": Option(
        False,
        _flag,
        "bool",
        "Remove unjudged documents before evaluating (trec_eval ``-J``, applied after "
        "``depth`` as trec_eval applies ``-M`` first).",
        "align",
    ),
    "duplicates": Option(
        "error",
        _choice(DUPLICATES),
        '{"error", "first"}',
        "Duplicate (system, topic, doc) or qrels rows: raise (default) or keep the first.",
        "align",
    ),
    "columns": Option(
        None,
        _mapping,
        "mapping, optional",
        "Role → column name of the run frame, for names that are not recognised (or to "
        "choose between two candidates), see [`irframe.schema`][irframe.schema].",
        "align",
    ),
    "qrels_columns": Option(
        None, _mapping, "mapping, optional", "Role → column name of the qrels frame.", "align"
    ),
    "system": Option(
        None,
        _any,
        "str, optional",
        'Name of the one system of a run without a system column (default ``"run"``).',
        "align",
    ),
    "bounds": Option(
        False,
        _flag,
        "bool",
        "Add a ``bound`` dimension: ``low`` (every unjudged retrieved document non-relevant, "
        "today's value), ``high`` (every one relevant at ``unjudged_grade``) and ``residual`` "
        "= high − low; coordinate ``bound_exact`` tells per measure whether low/high are the "
        "exact minimum/maximum over labellings (see "
        "[`irframe.measures.unjudged`][irframe.measures.unjudged]).",
        "bounds",
    ),
    "unjudged_grade": Option(
        None,
        _any,
        "float, optional",
        "Grade given to unjudged documents for ``high`` (default: the largest qrels grade, at "
        "least ``rel_level``).",
        "bounds",
    ),
}

#: every option's name, and those of the ``"align"`` group (the Dask backend sorts a call's
#: keywords by them)
OPTION_NAMES = tuple(OPTIONS)
ALIGN_OPTIONS = tuple(n for n, o in OPTIONS.items() if o.group == "align")
#: the groups [`irframe.evaluate`][irframe.evaluate] takes (all of them)
EVALUATE = ("align", "evaluation", "bounds")
#: ``order=`` of the functions that also take the tie-aware orders (`TIE_ORDERS`)
TIE_ORDER = OPTIONS["order"].but(
    check=_choice(ORDERS + TIE_ORDERS),
    type='{"trec_eval", "trec_eval10", "rank", "input", "expected", "best", "worst"}',
    doc=OPTIONS["order"].doc
    + " The tie-aware orders treat documents with equal float32 scores as tied (trec_eval's "
    'ties): ``"expected"`` gives the mean over all orders of the tied documents (closed forms, '
    'McSherry & Najork, ECIR 2008), ``"worst"``/``"best"`` the extremes (tied documents sorted '
    "by grade ascending/descending); see [`irframe.measures.ties`][irframe.measures.ties] for "
    "the measures that support them.",
)

#: the C/W/L functions' ``depth=`` and ``gains=`` ([`irframe.cwl.cwl`][irframe.cwl.cwl])
CWL = {
    "depth": OPTIONS["depth"].but(
        default=1000,
        check=_required_depth,
        type="int, default 1000",
        doc="Every ranking is padded (gain 0, cost ``max_cost``) or cut to ``depth`` documents "
        "before the sums (cwl_eval ``--max_depth``): the truncation of the infinite sums.",
    ),
    "gains": OPTIONS["gains"].but(
        type='None, "auto", "scale", mapping or callable',
        doc="Grade → gain (see [`gain_values`][irframe.cwl.gain_values]).  None (default) is "
        "cwl_eval's rule: the grade is the gain and must lie in [min_gain, max_gain] = [0, 1], "
        'else an error; "auto" divides by the largest grade when it exceeds 1 (0/1/2 → 0, '
        "0.5, 1).  Unjudged documents have gain 0.",
    ),
}


class Options:
    """Every option of one call, checked once at the public boundary
    ([`takes_options`][irframe.options.takes_options]), carried by the aligned arrays
    ([`irframe.align.Aligned`][irframe.align.Aligned]) and read by the kernels
    ([`kernel_options`][irframe.options.Options.kernel_options]).

    One attribute per option of `OPTIONS` (its default when the call did not give it), plus
    ``measure_options``: the extra keywords measures declare (``reference=``,
    ``num_docs_in_coll=``, ``weights=``).  ``order`` may also be a tie order (`TIE_ORDERS`,
    applied after a trec_eval alignment).  Immutable:
    [`replace`][irframe.options.Options.replace] makes a changed copy.

    Examples
    --------
    >>> o = Options(depth=10)
    >>> o.depth, o.order, o.replace(depth=None).depth
    (10, 'trec_eval', None)
    """

    # the typed view of OPTIONS (the values live in the instance, so an option added to the
    # table is an attribute too)
    order: str
    rel_level: float
    depth: int | None
    complete: bool
    judged_only: bool
    gains: Any
    duplicates: str
    columns: Mapping[str, str] | None
    qrels_columns: Mapping[str, str] | None
    system: str | None
    bounds: bool
    unjudged_grade: float | None
    measure_options: Mapping[str, Any] | None

    def __init__(self, **values: Any) -> None:
        unknown = set(values) - set(OPTIONS) - {"measure_options"}
        if unknown:
            raise OptionError(f"unknown option(s) {sorted(unknown)}; options: {', '.join(OPTIONS)}")
        d = {name: o.default for name, o in OPTIONS.items()}
        d["measure_options"] = None
        d.update(values)
        self.__dict__.update(d)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Options are immutable: use options.replace(name=value)")

    def __getattr__(self, name: str) -> Any:  # only reached for a name the instance lacks
        raise AttributeError(f"no option {name!r}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Options) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # (mappings inside)

    def __repr__(self) -> str:
        return f"Options({', '.join(f'{k}={v!r}' for k, v in self.changed().items())})"

    def replace(self, **changes: Any) -> Options:
        """A copy with ``changes`` (values already checked: internal use)."""
        return Options(**{**self.__dict__, **changes})

    def changed(self, group: str | None = None) -> dict[str, Any]:
        """The options (of ``group``) whose value is not the table's default."""
        return {
            k: v
            for k, v in self.__dict__.items()
            if k in OPTIONS
            and (group is None or OPTIONS[k].group == group)
            and not _same(v, OPTIONS[k].default)
        }

    @property
    def tie_order(self) -> str | None:
        """The tie order (``"expected"``, ``"best"``, ``"worst"``) or None."""
        return self.order if self.order in TIE_ORDERS else None

    def alignment(self) -> dict[str, Any]:
        """The ``"align"`` options as the arrays are aligned (a tie order aligns in
        trec_eval's order)."""
        out = {
            k: v for k, v in self.__dict__.items() if k in OPTIONS and OPTIONS[k].group == "align"
        }
        if self.tie_order:
            out["order"] = "trec_eval"
        return out

    def kernel_options(self) -> dict[str, Any]:
        """What a kernel reads in ``ctx.options``: the ``"evaluation"`` options (``rel_level``,
        ``gains`` …) and the measure options."""
        out = {
            k: v
            for k, v in self.__dict__.items()
            if k in OPTIONS and OPTIONS[k].group == "evaluation"
        }
        g = self.gains
        out["gains"] = dict(g) if isinstance(g, Mapping) and g else None
        return {**out, **(self.measure_options or {})}

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


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):
        return a is b


def check_options(specs: Mapping[str, Option], given: Mapping[str, Any]) -> Options:
    """The one validator: each of ``given`` (the caller's keywords) checked by its spec, the
    others at the function's defaults, as one [`Options`][irframe.options.Options]."""
    values = {}
    for name, spec in specs.items():
        values[name] = spec.check(name, given[name]) if name in given else spec.default
    return Options(**values)


def option_specs(takes: tuple[str, ...], own: Mapping[str, Option | None]) -> dict[str, Option]:
    """The options a function takes: those of the groups (or names) in ``takes``, in table
    order, with the function's own variants ``own`` (None: not taken), read from `OPTIONS`
    at each call."""
    out = {}
    for name, o in OPTIONS.items():
        if o.group in takes or name in takes or name in own:
            spec = own.get(name, o)
            if spec is not None:
                out[name] = spec
    return out


def make_options(
    *,
    depth_required: bool = False,
    tie_orders: bool = False,
    measure_options: Mapping[str, Any] | None = None,
    **values: Any,
) -> Options:
    """[`Options`][irframe.options.Options] from keywords, checked by the table (a function
    decorated with [`takes_options`][irframe.options.takes_options] does this for its callers):
    ``depth_required`` refuses ``depth=None`` (the C/W/L functions pad to it),
    ``tie_orders`` accepts `TIE_ORDERS` ([`irframe.evaluate`][irframe.evaluate])."""
    unknown = set(values) - set(OPTIONS)
    if unknown:
        raise OptionError(f"unknown option(s) {sorted(unknown)}; options: {', '.join(OPTIONS)}")
    own = {}
    if depth_required:
        own["depth"] = OPTIONS["depth"].but(check=_required_depth)
    if tie_orders:
        own["order"] = TIE_ORDER
    opts = check_options(option_specs(tuple(OPTIONS), own), values)
    return opts.replace(measure_options=dict(measure_options)) if measure_options else opts


# ---------------------------------------------------------------------------------------
# the decorator of the public entry points
# ---------------------------------------------------------------------------------------
R = TypeVar("R")
#: ``takes_options(group, name=NOT_TAKEN)``: an option of the group the function does not take
NOT_TAKEN: Any = object()


def takes_options(*takes: str, **own: Any) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Decorator of a public entry point ``fn(..., *, opts: Options, ...)``: its callers pass
    the options of ``takes`` (group names of `OPTIONS`, or option names) as keywords; they are
    checked once, here, into one [`Options`][irframe.options.Options] handed to ``fn`` as
    ``opts=``.

    ``own`` gives the function's variant of an option: an [`Option`][irframe.options.Option]
    (another check or text), a plain value (another default) or `NOT_TAKEN` (an option of
    its groups the function does not take).  The decorated function's
    signature (``inspect.signature``, ``help()``) lists the options as keyword-only
    parameters with their defaults, and its docstring's Parameters section gets their text
    from the table.  An internal caller holding an ``Options`` already passes it as ``opts=``
    (then with no option keyword).

    Examples
    --------
    >>> @takes_options("align")
    ... def depth_of(runs, *, opts):
    ...     '''The depth.
    ...
    ...     Parameters
    ...     ----------
    ...     runs : DataFrame
    ...     '''
    ...     return opts.depth
    >>> depth_of(None, depth=5)
    5
    >>> import inspect; "judged_only" in inspect.signature(depth_of).parameters
    True
    >>> depth_of(None, depth=0)
    Traceback (most recent call last):
    ...
    irframe.errors.OptionError: depth must be an integer in [1, 2**53], got 0
    """
    variants = {
        name: None
        if v is NOT_TAKEN
        else v
        if isinstance(v, Option)
        else OPTIONS[name].but(default=v)
        for name, v in own.items()
    }

    def decorate(fn: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> R:
            specs = option_specs(takes, variants)
            if "opts" in kwargs:  # an internal caller's Options, checked already
                both = sorted(set(kwargs) & set(specs))
                if both or not isinstance(kwargs["opts"], Options):
                    raise TypeError(f"opts= takes an Options, and no option keyword {both}")
                return fn(*args, **kwargs)
            given = {name: kwargs.pop(name) for name in specs if name in kwargs}
            unknown = None if own_names is None else sorted(set(kwargs) - own_names)
            if unknown and own_names is not None:
                allowed = [*sorted(own_names - {"opts", "runs", "qrels"}), *specs]
                raise OptionError(
                    f"{fn.__name__}() got an unexpected keyword argument {unknown[0]!r} "
                    f"(unexpected option(s) {unknown}; allowed: {', '.join(allowed)})"
                    + peer_keyword_hint(unknown, [*own_names, *specs])
                )
            return fn(*args, opts=check_options(specs, given), **kwargs)

        specs = option_specs(takes, variants)
        sig = inspect.signature(fn)
        params = [p for p in sig.parameters.values() if p.name != "opts"]
        own_names = (  # None: fn takes any keyword (**kwargs)
            None
            if any(p.kind is p.VAR_KEYWORD for p in params)
            else {p.name for p in params if p.kind is not p.POSITIONAL_ONLY}
        )
        at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
        params[at:at] = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=o.default)
            for name, o in specs.items()
        ]
        wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        wrapper.__doc__ = option_docs(fn.__doc__, specs)
        wrapper.option_specs = lambda: option_specs(takes, variants)  # type: ignore[attr-defined]
        return wrapper

    return decorate


def option_docs(doc: str | None, specs: Mapping[str, Option]) -> str | None:
    """``doc`` with one numpydoc entry per option of ``specs`` at the end of its Parameters
    section (before a ``**kwargs`` entry)."""
    if not doc or not specs:
        return doc
    lines = inspect.cleandoc(doc).split("\n")
    head = next((i for i, s in enumerate(lines) if s.strip() == "Parameters"), None)
    if head is None:
        return doc
    end = head + 2
    while end < len(lines) and not (
        lines[end].strip()
        and end + 1 < len(lines)
        and lines[end + 1].strip()
        and set(lines[end + 1].strip()) == {"-"}
    ):
        end += 1  # up to the next section's header
    while end > head + 2 and not lines[end - 1].strip():
        end -= 1
    star = next((i for i in range(head + 2, end) if lines[i].startswith("**")), end)
    entries = []
    for name, o in specs.items():
        entries.append(f"{name} : {o.type}")
        entries += [f"    {s}" for s in textwrap.wrap(o.doc, 88)]
    return "\n".join(lines[:star] + entries + lines[star:])
