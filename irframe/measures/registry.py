"""Measure definitions, the registry, and the measure-string parser.

A measure string follows ir_measures' syntax ``Name(param=value, ...)@cutoff``
(``@cutoff`` may also come before the parameters).  Parameter values are numbers,
bare words, quoted strings, or nested measure strings such as ``C=RBP(p=0.8)``.
trec_eval names (``map``, ``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10`` ...)
are accepted as aliases with trec_eval semantics.

Every family module registers its measures with [`register`][irframe.register]; a user can
register their own the same way (see [`register`][irframe.register] for the kernel contract).

Examples
--------
>>> from irframe.measures import parse_measure
>>> m = parse_measure("P(rel=2)@10")
>>> m.name, m.cutoff, m.param("rel")
('P', 10, 2)
>>> parse_measure("ndcg_cut_10").canonical
'nDCG@10'
"""

from __future__ import annotations

import difflib
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..errors import MeasureParamError, UnknownMeasureError
from ..params import REQUIRED, Param, check_cutoff_text
from .trec_eval_syntax import expand_list_for_api

if TYPE_CHECKING:  # pragma: no cover
    from ..align import Aligned

__all__ = [
    "BOUNDS_KINDS",
    "REQUIRED",
    "TOOLS",
    "EvalContext",
    "Measure",
    "MeasureDef",
    "Param",
    "get_definition",
    "parse_measure",
    "parse_measures",
    "register",
    "registered_measures",
    "registry_scope",
    "unregister",
]

Aggregate = Literal["mean", "gmean", "sum"]
#: How the bounds of ``evaluate(bounds=True)`` ([irframe.measures.unjudged][]) apply.
Bounds = Literal["exact", "exact_uncut", "approximate", "label_free", "none"]
BOUNDS_KINDS = ("exact", "exact_uncut", "approximate", "label_free", "none")
#: The tools whose spelling of a measure a definition may record (``spellings=``).
TOOLS = ("trec_eval", "ir_measures", "ranx", "cwl_eval", "ndeval")


@dataclass(frozen=True)
class MeasureDef:
    """A registered measure.

    Parameters
    ----------
    name : str
        Canonical name (``"AP"``, ``"nDCG"``, ``"RBU"``).
    compute : callable
        ``compute(ctx: EvalContext, measure: Measure) -> numpy.ndarray`` of shape (G,),
        one finite float per group of ``ctx.aligned`` (NaN or inf raise an error: a cube's
        NaN means "not evaluated", never "undefined").  Must be vectorised
        across groups.  Share intermediate arrays between measures with ``ctx.memo``.
    params : mapping
        Allowed parameters: name → [`Param`][irframe.params.Param] (type, range or choices,
        default, description).  A plain value is taken as the default of an unchecked
        parameter (``Param("any", value)``); ``REQUIRED`` marks a parameter without default.
        Every value in a measure string is converted and checked against its spec by
        [`parse_measure`][irframe.parse_measure], which names the parameter and its allowed range on error.
    cutoff : {"optional", "required", "none"}
        Whether ``@k`` is allowed/required.
    aggregate : {"mean", "gmean", "sum"}
        How trec_eval summarises the measure over topics (``num_ret`` sums, ``gm_map``
        takes the geometric mean of per-topic values stored as logs).
    needs : frozenset of str
        Data requirements: ``"subtopics"`` (diversity qrels).
    options : frozenset of str
        Extra keyword options of ``evaluate`` this measure consumes (e.g. ``"reference"``).
    description : str
        One line shown by [`irframe.list_measures`][irframe.list_measures].
    family : str
        Group shown by [`irframe.list_measures`][irframe.list_measures] (e.g. ``"trec"``, ``"cwl"``).
    properties : mapping
        Free-form facts other modules may use (``cwla``); what evaluation and the analyses
        rely on has its own field below.
    lower_is_better : bool or callable
        The measure's best value is its smallest (a cost, a distance such as NDPM); a
        callable ``lower_is_better(measure) -> bool`` when it depends on the parameters
        (C/W/L's ``out=EC`` is a cost, ``out=EU`` a utility).  Read through
        [`Measure.lower_is_better`][irframe.measures.registry.Measure.lower_is_better] by
        the axiom checker (the better ranking must score lower), [`irframe.report`][irframe.report]
        (bold) and [`irframe.flips`][irframe.flips] (who is ahead); recorded in a cube's
        ``lower_is_better`` attribute.
    validate : callable, optional
        ``validate(params) -> params``: checks that involve several parameters, run after each
        parameter was checked against its spec.
    expected : callable, optional
        ``expected(ctx, measure) -> ndarray (G,)``: the measure's expected value over every
        order of the tied documents (``order="expected"``; [`irframe.measures.ties`][irframe.measures.ties]
        has the tie groups and closed forms to build it).  None: ``order="expected"`` is
        refused for this measure.
    order_safe : bool
        Sorting the tied documents by grade gives the measure's largest / smallest value
        over tie orders (a document of a higher grade moved above one of a lower grade never
        lowers it), so ``order="best"`` / ``"worst"`` are exact.
    bounds : {"exact", "exact_uncut", "approximate", "label_free", "none"}
        How ``bounds=True`` (unjudged documents labelled non-relevant / relevant,
        [`irframe.measures.unjudged`][irframe.measures.unjudged]) applies: ``"exact"`` the two labellings are the
        minimum and maximum over all labellings (monotone in every unjudged label);
        ``"exact_uncut"`` the same without ``@k`` only; ``"approximate"`` high is the
        all-relevant value, not necessarily a maximum; ``"label_free"`` the measure
        describes the judgments, not relevance (high = low); ``"none"`` no per-ranking
        bounds (refused).
    topic_local : bool
        A (system, topic) value depends on that topic's qrels and rankings alone, so a run
        frame split by topic ([`irframe.dask`][irframe.dask]) gives the same values.
    system_local : bool
        A (system, topic) value ignores the other systems' rankings (a frame split by
        system gives the same values; per-ranking bounds are defined).
    spellings : mapping
        Tool → the measure's name in that tool's spelling (keys among `TOOLS`:
        ``{"trec_eval": "map", "ir_measures": "AP", "ranx": "map"}``); each must parse to
        this measure (a test checks it).
    reference : str
        What the numbers are checked against (a tool and version, a paper's worked example).
    citation : str
        Where the measure was defined: author(s), year, venue.
    """

    name: str
    compute: Callable[[EvalContext, Measure], np.ndarray]
    params: Mapping[str, Any] = field(default_factory=dict)
    cutoff: Literal["optional", "required", "none"] = "optional"
    aggregate: Aggregate = "mean"
    needs: frozenset = frozenset()
    options: frozenset = frozenset()
    description: str = ""
    family: str = ""
    properties: Mapping[str, Any] = field(default_factory=dict)
    lower_is_better: bool | Callable[[Measure], bool] = False
    validate: Callable[[dict], dict] | None = None
    expected: Callable[[EvalContext, Measure], np.ndarray] | None = None
    order_safe: bool = False
    bounds: Bounds = "none"
    topic_local: bool = False
    system_local: bool = True
    spellings: Mapping[str, str] = field(default_factory=dict)
    reference: str = ""
    citation: str = ""

    def __post_init__(self) -> None:
        specs = {
            str(k): v if isinstance(v, Param) else Param("any", v)
            for k, v in dict(self.params).items()
        }
        object.__setattr__(self, "params", specs)
        if self.bounds not in BOUNDS_KINDS:
            raise ValueError(f"bounds={self.bounds!r} is not one of {BOUNDS_KINDS}")
        if self.bounds != "none" and not self.system_local:
            raise ValueError(
                f"measure {self.name}: per-ranking bounds need a system-local measure; "
                "declare bounds='none'"
            )
        unknown = set(self.spellings) - set(TOOLS)
        if unknown:
            raise ValueError(f"spellings of unknown tools {sorted(unknown)}; known: {TOOLS}")
        object.__setattr__(self, "spellings", dict(self.spellings))

    @property
    def defaults(self) -> dict[str, Any]:
        """Parameter name → default (``REQUIRED`` for a parameter that must be given)."""
        return {k: p.default for k, p in self.params.items()}


@dataclass(frozen=True)
class Measure:
    """A parsed measure request.

    Attributes
    ----------
    label : str
        The string exactly as the user passed it (the cube's ``measure`` coordinate).
    name : str
        Canonical measure name.
    params : tuple of (str, value)
        Parameters with defaults filled in, sorted by name.
    cutoff : int or None
    definition : MeasureDef
    """

    label: str
    name: str
    params: tuple
    cutoff: int | None
    definition: MeasureDef

    def param(self, key: str, default: Any = None) -> Any:
        """Value of parameter ``key``."""
        for k, v in self.params:
            if k == key:
                return v
        return default

    @property
    def canonical(self) -> str:
        """Canonical string, e.g. ``P(rel=2)@10``; parameters equal to defaults are omitted."""
        defaults = self.definition.defaults
        shown = [
            (k, v)
            for k, v in self.params
            if not (k in defaults and defaults[k] is not REQUIRED and _same(defaults[k], v))
        ]
        s = self.name
        if shown:
            s += "(" + ",".join(f"{k}={_fmt(v)}" for k, v in shown) + ")"
        if self.cutoff is not None:
            s += f"@{self.cutoff}"
        return s

    @property
    def lower_is_better(self) -> bool:
        """Whether this measure's best value is its smallest (its definition's
        ``lower_is_better``, decided on the parameters when that is a callable).

        Examples
        --------
        >>> parse_measure("ndpm").lower_is_better, parse_measure("AP").lower_is_better
        (True, False)
        """
        rule = self.definition.lower_is_better
        return bool(rule(self) if callable(rule) else rule)

    @property
    def key(self) -> tuple:
        """Hashable identity (name, params, cutoff) used for de-duplication and memo keys."""
        return (self.name, self.params, self.cutoff)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover
        return False


def _fmt(v: Any) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(v)
    return str(v)


class EvalContext:
    """What a kernel sees: the aligned arrays, the options, and a memo for shared arrays.

    Attributes
    ----------
    aligned : Aligned
    options : dict
        ``rel_level``, ``gains`` and any extra keyword options passed to ``evaluate``.
    """

    def __init__(self, aligned: Aligned, options: Mapping[str, Any]):
        self.aligned = aligned
        self.options = dict(options)
        self._memo: dict = {}

    def memo(self, key: Any, fn: Callable[[], Any]) -> Any:
        """Compute ``fn()`` once per evaluation for ``key`` and reuse it."""
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = fn()
            return value


_REGISTRY: dict[str, MeasureDef] = {}
_ALIASES: dict[str, str] = {}  # exact alias -> measure string
_ALIAS_PATTERNS: list[tuple[re.Pattern, Callable[[re.Match], str]]] = []


def register(
    definition: MeasureDef, *, aliases: Iterable[str] = (), replace: bool = False
) -> MeasureDef:
    """Register a measure so that measure strings can name it.

    Parameters
    ----------
    definition : MeasureDef
    aliases : iterable of str
        Other exact names that resolve to this measure (case-sensitive).
    replace : bool
        Allow replacing an existing definition of the same name.

    Returns
    -------
    MeasureDef
        The registered definition.

    Raises
    ------
    ValueError
        The name is registered already and ``replace`` is false.

    See Also
    --------
    - [`irframe.registry_scope`][irframe.registry_scope]: undo registrations at the end of a block.
    - [`irframe.unregister`][irframe.unregister]: remove a measure.
    - [`irframe.measures.MeasureDef`][irframe.measures.MeasureDef]: what a definition declares.

    Examples
    --------
    A user-defined measure: the fraction of the first k documents with grade 2 or more.

    >>> import numpy as np
    >>> from irframe.measures import MeasureDef, register
    >>> from irframe.align import segment_sum
    >>> def highly(ctx, m):
    ...     a = ctx.aligned
    ...     k = m.cutoff or 10
    ...     hit = (np.nan_to_num(a.row_rel) >= 2) & (a.row_rank <= k)
    ...     return segment_sum(hit.astype(float), a.offsets) / k
    >>> _ = register(MeasureDef("Highly", highly, description="share of grade>=2 docs in top k"), replace=True)
    >>> parse_measure("Highly@5").cutoff
    5
    >>> unregister("Highly")
    """
    aliases = list(aliases)
    with _LOCK:
        if definition.name in _REGISTRY and not replace:
            raise ValueError(
                f"measure {definition.name!r} is already registered; pass replace=True"
            )
        _set(_REGISTRY, definition.name, definition)
        for a in aliases:
            _set(_ALIASES, a, definition.name)
    return definition


def unregister(name: str) -> None:
    """Remove a measure (and the aliases pointing to it) from the registry.

    Parameters
    ----------
    name : str
        Canonical name of a registered measure.

    Raises
    ------
    irframe.errors.UnknownMeasureError
        No measure of that name.

    See Also
    --------
    - [`irframe.register`][irframe.register], [`irframe.registry_scope`][irframe.registry_scope].
    """
    _loaded()
    with _LOCK:
        if name not in _REGISTRY:
            raise UnknownMeasureError(_unknown_message(name))
        _set(_REGISTRY, name, _MISSING)
        for alias in [a for a, target in list(_ALIASES.items()) if target == name]:
            _set(_ALIASES, alias, _MISSING)


# Thread safety: every change goes through _set under _LOCK, one atomic dict operation per key,
# so a reader in another thread never sees a half-made registry (a built-in always resolves).
# A registry_scope records, per thread, the value each key had before the thread's first change
# inside it and puts back exactly those keys on exit -- never the keys other threads changed.
_LOCK = threading.RLock()
_MISSING: Any = object()
_SCOPES = threading.local()


def _set(table: dict, key: Any, value: Any) -> None:
    for undo in getattr(_SCOPES, "stack", ()):
        undo.setdefault((id(table), key), (table, key, table.get(key, _MISSING)))
    if value is _MISSING:
        table.pop(key, None)
    else:
        table[key] = value


#: loaders of definitions registered on the registry's first use (`on_first_use`)
_PENDING: list[Callable[[], None]] = []
_LOADING = threading.local()


def on_first_use(load: Callable[[], None]) -> None:
    """Run ``load`` (which registers measures) before the registry is first read (a lookup,
    a parse, the list, `unregister`, `registry_scope`) instead of now: the command line
    registers the built-in families so, and its preference measures, which name no
    registered measure, never import them (`irframe.measures`).

    `register` itself does not run the loaders: a family module imported directly registers
    its own measures, in the order the loaders would (each family imports those it builds on).
    """
    with _LOCK:
        _PENDING.append(load)


def _loaded() -> None:
    """Run the pending loaders, once, under the lock (another thread waits for them); a no-op
    inside a loader (its own registrations) and once they ran."""
    if not _PENDING or getattr(_LOADING, "active", False):
        return
    with _LOCK:
        _LOADING.active = True
        try:
            while _PENDING:
                _PENDING[0]()
                del _PENDING[0]
        finally:
            _LOADING.active = False


@contextmanager
def registry_scope() -> Iterator[None]:
    """Measures registered, replaced or unregistered inside the ``with`` block are undone at its end.

    The registry is process-wide (measure strings name measures everywhere); a scope keeps a
    user's or a test's changes from leaking: on exit every definition, alias and alias
    pattern this thread changed inside the block is put back as it was, even after an
    exception.  Thread-safe: the registry is never cleared, so every other thread resolves
    the built-ins (and its own measures) throughout, and changes made by other threads are
    left alone.

    See Also
    --------
    - [`irframe.register`][irframe.register], [`irframe.unregister`][irframe.unregister].

    Examples
    --------
    >>> import numpy as np
    >>> from irframe.measures import MeasureDef, register, registry_scope, parse_measure
    >>> with registry_scope():
    ...     _ = register(MeasureDef("AP", lambda ctx, m: np.zeros(ctx.aligned.n_groups)), replace=True)
    ...     parse_measure("AP").definition.description
    ''
    >>> parse_measure("AP").definition.description != ""
    True
    """
    _loaded()  # the built-ins are never undone by a scope
    stack = _SCOPES.__dict__.setdefault("stack", [])
    undo: dict = {}
    stack.append(undo)
    try:
        yield
    finally:
        del stack[next(i for i, u in enumerate(stack) if u is undo)]  # by identity
        with _LOCK:
            for table, key, old in reversed(list(undo.values())):
                if table is _ALIAS_PATTERNS:  # key: a pattern entry this thread added
                    if key in _ALIAS_PATTERNS:
                        _ALIAS_PATTERNS.remove(key)
                    continue
                _set(table, key, old)  # recorded in the enclosing scope too, if any


def register_alias_pattern(pattern: str, rewrite: Callable[[re.Match], str]) -> None:
    """Register a regex alias: a full match of ``pattern`` is rewritten to a measure string.

    Parameters
    ----------
    pattern : str
        A regular expression matched against the whole measure string.
    rewrite : callable
        A function of the ``re.Match`` returning the measure string.
    """
    entry = (re.compile(pattern), rewrite)
    with _LOCK:
        for undo in getattr(_SCOPES, "stack", ()):
            undo[(id(_ALIAS_PATTERNS), id(entry))] = (_ALIAS_PATTERNS, entry, None)
        _ALIAS_PATTERNS.append(entry)


def get_definition(name: str) -> MeasureDef:
    """The registered definition of ``name`` (raises [`UnknownMeasureError`][irframe.errors.UnknownMeasureError]).

    Parameters
    ----------
    name : str
        Canonical name or alias.

    Returns
    -------
    MeasureDef
    """
    _loaded()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownMeasureError(_unknown_message(name)) from None


def registered_measures() -> dict[str, MeasureDef]:
    """A copy of the registry: canonical name → definition.

    Returns
    -------
    dict of str to MeasureDef

    See Also
    --------
    - [`irframe.list_measures`][irframe.list_measures]: the same as a table.
    """
    _loaded()
    return dict(_REGISTRY)


def _unknown_message(name: str) -> str:
    known = sorted(set(_REGISTRY) | set(_ALIASES))
    lower = {k.lower(): k for k in known}
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    if name.lower() in lower and lower[name.lower()] not in close:
        close.insert(0, lower[name.lower()])
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f"unknown measure {name!r}.{hint} See irframe.list_measures() for all names."


# ------------------------------------------------------------------------- parsing
_NUM = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def _short(text: str) -> str:
    """``repr`` of a measure string for messages, shortened when very long."""
    return repr(text) if len(text) <= 80 else repr(text[:60]) + f"... ({len(text)} characters)"


def _value(text: str) -> Any:
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    if _NUM.match(t):
        if re.match(r"^[+-]?\d+$", t):
            # more digits than any accepted integer: keep the text, the spec rejects it by name
            return int(t) if len(t.lstrip("+-")) <= 20 else t
        return float(t)  # 1e400 -> inf, rejected by the spec (NaN/inf are never accepted)
    if t in ("True", "true"):
        return True
    if t in ("False", "false"):
        return False
    return t


def _split_top(text: str, sep: str) -> list[str]:
    """Split at ``sep`` outside parentheses/brackets and quotes."""
    cur: list[str]
    parts, depth, cur, quote = [], 0, [], None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth < 0:
                raise MeasureParamError(f"unbalanced parentheses in {_short(text)}")
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0 or quote:
        raise MeasureParamError(f"unbalanced parentheses or quotes in {_short(text)}")
    parts.append("".join(cur))
    return parts


def split_measure(text: str) -> tuple[str, dict, str | None]:
    """Split ``Name(params)@k`` / ``Name@k(params)`` into (name, raw params, cutoff text)."""
    s = text.strip()
    m = re.match(r"^([A-Za-z_][A-Za-z0-9_\-\.]*?)(?=$|\(|@)", s)
    if not m:
        raise MeasureParamError(
            f"cannot parse measure {_short(text)}: expected Name(param=value, ...)@cutoff"
        )
    name, rest = m.group(1), s[m.end() :]
    params: dict[str, Any] = {}
    cutoff = None
    while rest:
        if rest.startswith("@"):
            m2 = re.match(r"^@([^()@]+)", rest)
            if not m2 or cutoff is not None:
                raise MeasureParamError(f"cannot parse cutoff in measure {_short(text)}")
            cutoff, rest = m2.group(1).strip(), rest[m2.end() :]
        elif rest.startswith("("):
            depth = 0
            for i, ch in enumerate(rest):  # noqa: B007 - i is read after the loop
                depth += ch == "("
                depth -= ch == ")"
                if depth == 0:
                    break
            else:
                raise MeasureParamError(f"unbalanced parentheses in measure {_short(text)}")
            inner, rest = rest[1:i], rest[i + 1 :]
            if params:
                raise MeasureParamError(f"two parameter lists in measure {_short(text)}")
            for item in _split_top(inner, ","):
                if not item.strip():
                    continue
                kv = _split_top(item, "=")
                if len(kv) > 2:  # a value holding "=" itself (cwl_eval's INST-T=2)
                    kv = [kv[0], "=".join(kv[1:])]
                if len(kv) != 2 or not kv[0].strip():
                    raise MeasureParamError(
                        f"parameter {_short(item.strip())} of {_short(text)} is not name=value"
                    )
                key = kv[0].strip()
                if key in params:
                    raise MeasureParamError(
                        f"parameter {key!r} given twice in measure {_short(text)}"
                    )
                params[key] = _value(kv[1])
        else:
            raise MeasureParamError(f"unexpected {_short(rest)} in measure {_short(text)}")
    return name, params, cutoff


def parse_measure(text: str | Measure) -> Measure:
    """Parse one measure string into a [`Measure`][irframe.measures.Measure].

    Parameters
    ----------
    text : str
        A measure string: name, optional ``(param=value, ...)``, optional ``@k``
        (``"nDCG@10"``, ``"P(rel=2)@5"``); trec_eval, ir_measures, ranx and cwl_eval spellings
        too (``"ndcg_cut_10"``).

    Returns
    -------
    Measure
        The definition, the parameters with defaults filled in, the cutoff and the label the
        cube's ``measure`` coordinate uses.

    Raises
    ------
    UnknownMeasureError
        For a name that is not registered (with the closest suggestions).
    MeasureParamError
        For unknown/missing parameters or a bad cutoff.

    See Also
    --------
    - [`irframe.list_measures`][irframe.list_measures]: every name and its parameters.
    - The [measure catalogue](../measures.md).

    Examples
    --------
    >>> from irframe import parse_measure
    >>> m = parse_measure("nDCG@10")
    >>> m.definition.name, m.cutoff
    ('nDCG', 10)
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise MeasureParamError(
            f"a measure must be a string such as 'nDCG@10', got {type(text).__name__} {text!r:.60}"
        )
    _loaded()
    label = text
    lab = _short(label)
    s = text.strip()
    if s in _ALIASES:
        s = _ALIASES[s]
    else:
        for pat, rewrite in _ALIAS_PATTERNS:
            m = pat.fullmatch(s)
            if m:
                s = rewrite(m)
                break
    name, raw, cut = split_measure(s)
    if name not in _REGISTRY and name in _ALIASES:
        name = _ALIASES[name]
        # an alias may itself carry params/cutoff (e.g. "recip_rank" -> "RR")
        name2, raw2, cut2 = split_measure(name)
        name, raw, cut = name2, {**raw2, **raw}, cut if cut is not None else cut2
    d = get_definition(name)
    cutoff = None
    if cut is not None:
        if d.cutoff == "none":
            hint = (  # ranx's bpref@k: its own top-k variant, not trec_eval's bpref at depth k
                "; ranx's bpref@k ranks only the top k and has no counterpart here (bpref "
                "with depth=k cuts every ranking first, which differs)"
                if name == "Bpref"
                else ""
            )
            raise MeasureParamError(f"{lab}: measure {name} takes no @cutoff{hint}")
        if cut.strip() == "0" and d.cutoff == "optional":  # ranx: @0 is the whole ranking
            raise MeasureParamError(
                f"{lab}: cutoff k must be an integer in [1, 2**53], got '0' (ranx reads @0 "
                f"as the whole ranking: write {s.rsplit('@', 1)[0]!r} without @k)"
            )
        cutoff = check_cutoff_text(cut, what=repr(label), error=MeasureParamError)
    elif d.cutoff == "required":
        raise MeasureParamError(f"{lab}: measure {name} needs a cutoff, e.g. {name}@10")
    unknown = set(raw) - set(d.params)
    if unknown:
        allowed = ", ".join(sorted(d.params)) or "none"
        raise MeasureParamError(
            f"{lab}: unknown parameter(s) {sorted(unknown)} for {name}; allowed: {allowed}"
        )
    params = {}
    for k, spec in d.params.items():
        if k in raw:
            params[k] = spec.check(
                f"{lab}: {name} parameter {k}",
                raw[k],
                error=MeasureParamError,
                hint=f" ({k}: {spec.description})" if spec.description else "",
            )
        elif spec.default is REQUIRED:
            raise MeasureParamError(
                f"{lab}: measure {name} needs parameter {k}=... "
                f"({spec.allowed()}{'; ' + spec.description if spec.description else ''})"
            )
        else:
            params[k] = spec.default
    if d.validate is not None:
        try:
            params = d.validate(dict(params))
        except MeasureParamError:
            raise
        except (TypeError, ValueError) as e:
            raise MeasureParamError(f"{lab}: {e}") from None
    return Measure(
        label=label, name=name, params=tuple(sorted(params.items())), cutoff=cutoff, definition=d
    )


def _usable_alone(name: str) -> bool:
    """Whether irframe reads ``name`` alone as a measure of its own (``P``, ``ndcg``); a
    trec_eval family name it registers but needs a cutoff for (``relative_P``, ``unj``) is
    not: alone it is trec_eval's family, with its default cutoffs."""
    if name not in _REGISTRY and name not in _ALIASES:
        return False
    try:
        with warnings.catch_warnings():  # a probe: the request's own parse warns, once
            warnings.simplefilter("ignore")
            parse_measure(name)
    except MeasureParamError:
        return False
    return True


def parse_measures(measures: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse one or many measure strings; duplicate labels are an error.

    Parameters
    ----------
    measures : str or iterable of str
        Measure strings.

    Returns
    -------
    list of Measure
        In the given order.

    Raises
    ------
    irframe.errors.MeasureParamError
        No measures, or two strings giving the same label (trec_eval syntax naming one
        family twice merges instead, as pytrec_eval does: ``["P.5", "P_5", "P.10"]`` is
        ``P_5, P_10``, and a measure a nickname names too is listed once:
        ``["official", "map"]``); otherwise as [`parse_measure`][irframe.measures.parse_measure].
    irframe.errors.UnknownMeasureError
        As [`parse_measure`][irframe.measures.parse_measure].
    TypeError
        ``measures`` is neither a string nor an iterable of strings.
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    elif type(measures).__module__.split(".")[0] in ("pandas", "numpy", "dask", "pyarrow") and (
        getattr(measures, "ndim", 1) != 1 or hasattr(measures, "columns")
    ):  # a frame where the measures go: the qrels, one place too early or too late
        raise MeasureParamError(
            f"measures must be a string such as 'nDCG@10' or a list of strings, got a "
            f"{type(measures).__name__} (columns {list(getattr(measures, 'columns', []))[:6]}): "
            "did the qrels take the measures' place? The order is evaluate(runs, qrels, "
            "measures) and runs.ir.metric(measures, qrels=qrels)"
        )
    elif isinstance(measures, (bytes, Mapping)) or not isinstance(measures, Iterable):
        if type(measures).__module__.split(".")[0] == "ir_measures":  # ir_measures.nDCG@10
            one: list[Any] = [measures]  # an ir_measures object, as a list item
            return parse_measures(one)
        raise MeasureParamError(
            f"measures must be a string such as 'nDCG@10' or a list of strings, "
            f"got {type(measures).__name__} {measures!r:.60}"
        )
    from dataclasses import replace

    _loaded()
    out, grouped = [], set()
    # trec_eval syntax naming several values ("P.5,10", "all_trec", "ndcg_cut") is expanded
    # over the whole list at once, by pytrec_eval's rules (expand_list_for_api)
    for label, m in expand_list_for_api(list(measures), _usable_alone):
        out.append(parse_measure(m) if label is None else replace(parse_measure(m), label=label))
        if label is not None:
            grouped.add(label)
    if not out:
        raise MeasureParamError("no measures given; pass e.g. ['AP', 'nDCG@10']")
    labels = [m.label for m in out]
    dup = sorted({x for x in labels if labels.count(x) > 1} - grouped)
    if dup:
        raise MeasureParamError(f"measure(s) {dup} requested twice")
    # a measure a nickname also names (["official", "map"]): the union, each once at its
    # first place, as trec_eval's -m official -m map and pytrec_eval
    first: dict[str, Measure] = {}
    for m in out:
        first.setdefault(m.label, m)
    return list(first.values())
