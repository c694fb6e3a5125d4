"""Declarative parameter specs: one code path that checks every numeric option and measure parameter.

A [`Param`][irframe.params.Param] declares a value's type, its allowed range or choices, its default and a
one-line description.  [`Param.check`][irframe.params.Param.check] converts and validates a value against the spec and
raises an error naming the parameter and its allowed range.  The measure registry declares
every measure parameter this way; public functions check their numeric options
(``depth=``, ``rel_level=``, ``gains=``, costs ...) with the same specs.

Rules shared by every spec:

* ``bool`` is not a number (``depth=True`` is rejected), and a number is not a ``bool``;
* NaN and ±inf are rejected for every numeric type;
* integers (cutoffs, depths, sizes) are bounded by `MAX_INT` = 2**53, the largest integer
  that float64 represents exactly, so every integer parameter survives any arithmetic a kernel
  does in float64 or int64;
* a float written with more digits than float64 can hold (``1e400``) is rejected, not rounded
  to infinity.

Examples
--------
>>> from irframe.params import Param
>>> Param("float", 0.8, low=0, high=1, high_open=True).check("p", 0.5)
0.5
>>> Param("float", 0.8, low=0, high=1, high_open=True).check("p", 1.5)
Traceback (most recent call last):
...
irframe.errors.OptionError: p must be a number in [0, 1), got 1.5
>>> Param("int", None, low=1).check("depth", True)
Traceback (most recent call last):
...
irframe.errors.OptionError: depth must be an integer in [1, 2**53], got True (a bool)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from .errors import OptionError, plain

__all__ = [
    "ALPHA",
    "COST",
    "COUNT",
    "DEPTH",
    "DRAWS",
    "FLAG",
    "FUZZINESS",
    "GAIN_BOUND",
    "MAX_INT",
    "REL",
    "REL_LEVEL",
    "REQUIRED",
    "Param",
    "check_costs",
    "check_cutoff_text",
    "check_flag",
    "check_gains",
]

#: Largest accepted integer (cutoffs, depths, corpus sizes): exactly representable in float64.
MAX_INT = 2**53


class _Required:
    def __repr__(self) -> str:  # pragma: no cover - shown in list_measures only through the name
        return "REQUIRED"


REQUIRED: Any = _Required()  # marker for a parameter without default

Kind = Literal["int", "float", "bool", "flag", "str", "any"]


def _fmt_bound(x: float) -> str:
    if x == MAX_INT:
        return "2**53"
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:g}" if isinstance(x, float) else str(x)


def _show(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(plain(value))
    if len(text) > 60:
        text = text[:40] + f"... ({len(text)} characters)"
    if isinstance(value, bool):
        text += " (a bool)"
    return text


@dataclass(frozen=True)
class Param:
    """Spec of one parameter.

    Parameters
    ----------
    kind : {"int", "float", "bool", "str", "any"}
        ``"flag"``: a Python or numpy bool and nothing else (a boolean option: ``"False"``,
        ``"no"``, 0 or None would otherwise be read by truthiness);
        ``"int"``: an integer (an integral float such as ``10.0`` is accepted);
        ``"float"``: any real number (an integer stays an integer); ``"bool"``: ``True``/``False`` (also the
        words true/false/yes/no and the integers 0/1); ``"str"``: a string, optionally one of
        ``choices``; ``"any"``: not checked (user-registered measures with plain defaults).
    default : object
        Default value, ``REQUIRED`` when the parameter must be given, ``None`` when omitting it
        has a meaning of its own (e.g. ``rel=`` falls back to the evaluation's ``rel_level``).
    low, high : float, optional
        Allowed range (inclusive unless ``low_open``/``high_open``).  Integers are always
        bounded by `MAX_INT` in absolute value.
    choices : tuple of str, optional
        Allowed strings (matched case-insensitively, returned in the spelling given here).
    description : str
        One line for [`irframe.list_measures`][irframe.list_measures] and error messages.
    check_fn : callable, optional
        Extra conversion/check of a ``"str"`` value (e.g. parsing a nested C function); may
        raise ``ValueError``/``TypeError``, reported with the parameter's name.
    allowed_text : str, optional
        The allowed values in words when [`allowed`][irframe.params.Param.allowed] cannot derive them.
    """

    kind: Kind = "any"
    default: Any = REQUIRED
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple | None = None
    description: str = ""
    check_fn: Callable[[Any], Any] | None = None
    allowed_text: str = ""

    # ---------------------------------------------------------------- description
    def allowed(self) -> str:
        """The allowed values in words, e.g. ``"a number in [0, 1)"``."""
        if self.allowed_text:
            return self.allowed_text
        if self.kind == "bool":
            return "true or false"
        if self.kind == "flag":
            return "True or False (a bool)"
        if self.kind == "str":
            if self.choices:
                return "one of " + ", ".join(map(str, self.choices))
            return "a string"
        if self.kind == "any":
            return "any value"
        noun = "an integer" if self.kind == "int" else "a number"
        if self.kind == "float" and (self.low is None or self.high is None):
            noun = "a finite number"
        lo, hi = self.low, self.high
        if self.kind == "int":
            lo = -MAX_INT if lo is None else lo
            hi = MAX_INT if hi is None else min(hi, MAX_INT)
        if lo is None and hi is None:
            return "a finite number"
        if hi is None:
            assert lo is not None  # (both None returned above)
            op = ">" if self.low_open else ">="
            return f"{noun} {op} {_fmt_bound(lo)}"
        if lo is None:
            op = "<" if self.high_open else "<="
            return f"{noun} {op} {_fmt_bound(hi)}"
        return (
            f"{noun} in {'(' if self.low_open else '['}{_fmt_bound(lo)}, "
            f"{_fmt_bound(hi)}{')' if self.high_open else ']'}"
        )

    # ---------------------------------------------------------------- checking
    def check(
        self, name: str, value: Any, *, error: type[Exception] = OptionError, hint: str = ""
    ) -> Any:
        """Convert ``value`` to the declared type and check it, or raise ``error``.

        ``None`` is returned unchanged when the default is ``None`` (the parameter is optional).
        ``hint`` is appended to the message (e.g. what the parameter means).
        """
        if value is None and self.default is None:
            return None
        if self.kind == "any":
            return value

        def fail() -> Exception:
            return error(f"{name} must be {self.allowed()}, got {_show(value)}{hint}")

        if self.kind == "flag":
            if isinstance(value, bool):
                return value
            if (
                getattr(value, "dtype", None) is not None
                and value.dtype.kind == "b"
                and value.ndim == 0
            ):
                return bool(value)  # numpy bool
            raise fail()
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, numbers.Integral) and value in (0, 1):
                return bool(value)
            if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no"):
                return value.lower() in ("true", "yes")
            raise fail()
        if self.kind == "str":
            if not isinstance(value, str):
                raise fail()
            if self.choices:
                lower = {str(c).lower(): c for c in self.choices}
                if value.lower() not in lower:
                    raise fail()
                value = lower[value.lower()]
            if self.check_fn is not None:
                try:
                    out = self.check_fn(value)
                except (TypeError, ValueError) as e:
                    raise error(f"{name}: {e}{hint}") from None
                return value if out is None else out
            return value
        # numbers
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise fail()
        x: Any
        if isinstance(value, numbers.Integral):
            x = int(value)
            if abs(x) > MAX_INT:  # a float parameter takes a large int as the float it is
                if self.kind != "float" or abs(x) >= 2**1024:
                    raise fail()
                x = float(x)
        else:
            x = float(value)
            if not math.isfinite(x):
                raise fail()
        if self.kind == "int":
            if isinstance(x, float):
                if not x.is_integer() or abs(x) > MAX_INT:
                    raise fail()
                x = int(x)
            if abs(x) > MAX_INT:
                raise fail()
        lo, hi = self.low, self.high
        if lo is not None and (x < lo or (self.low_open and x == lo)):
            raise fail()
        if hi is not None and (x > hi or (self.high_open and x == hi)):
            raise fail()
        return x


def check_cutoff_text(text: str, *, what: str, error: type[Exception] = OptionError) -> int:
    """Parse the ``k`` of ``Name@k``: ASCII digits only, 1 <= k <= 2**53."""
    t = text.strip()
    if not t.isascii() or not t.isdigit() or len(t) > 20 or not 1 <= int(t) <= MAX_INT:
        shown = t if len(t) <= 40 else t[:20] + f"... ({len(t)} characters)"
        raise error(f"{what}: cutoff k must be an integer in [1, 2**53], got {shown!r}")
    return int(t)


_GAIN = Param("float", description="gain of a grade")

#: Shared specs of the numeric options of the public functions.
DEPTH = Param("int", None, low=1, description="truncate every ranking to its first depth documents")
REL_LEVEL = Param("float", 1, description="relevance threshold: relevant iff grade >= rel_level")
#: a measure's own relevance threshold (``P(rel=2)@10``), the evaluation's rel_level otherwise
REL = Param(
    "float",
    None,
    description="relevance threshold: relevant iff grade >= rel (default: the evaluation's rel_level)",
)
COST = Param("float", 1.0, low=0, description="cost of examining one document (cwl_eval costs)")
GAIN_BOUND = Param("float", 0.0, description="bound of the allowed gains")
ALPHA = Param(
    "float", 0.05, low=0, high=1, low_open=True, high_open=True, description="significance level"
)
COUNT = Param("int", None, low=1, description="a positive count (topics, partitions)")
DRAWS = Param(
    "int", 1000, low=1, high=10**7, description="number of random draws (samples, trials, splits)"
)
#: Every boolean option of the public functions (``bounds=``, ``complete=``, ``ci=``, ``wins=``,
#: ``exact=``, ``two_way=`` ...): a bool or an OptionError, never a truthy string.
FLAG = Param("flag", False, description="a switch: True or False")
FUZZINESS = Param("float", 0.0, low=0, description="score differences up to this count as ties")


def check_flag(name: str, value: Any, *, allow_none: bool = False) -> Any:
    """A boolean option by ``FLAG``: ``True``/``False`` (numpy bools too), else OptionError.

    Examples
    --------
    >>> check_flag("bounds", "False")
    Traceback (most recent call last):
    ...
    irframe.errors.OptionError: bounds must be True or False (a bool), got 'False'
    """
    if value is None and allow_none:
        return None
    return FLAG.check(name, value)


def check_gains(gains: Any, *, name: str = "gains") -> dict | None:
    """Validate a grade → gain mapping: finite numeric keys and values (bools rejected).

    Examples
    --------
    >>> check_gains({2: 3, 1: 1.5})
    {2: 3.0, 1: 1.5}
    """
    if gains is None:
        return None
    if not hasattr(gains, "items"):
        raise OptionError(
            f"{name} must be a mapping grade -> gain such as {{1: 1, 2: 3}}, "
            f"got {type(gains).__name__}"
        )
    out = {}
    for k, v in gains.items():
        key = _GAIN.check(f"{name} key (a grade)", k)
        key = int(key) if float(key).is_integer() else key
        out[key] = float(_GAIN.check(f"{name}[{k!r}]", v))
    return out


def check_costs(costs: Any, *, name: str = "costs") -> dict:
    """Validate an element type → cost mapping: finite, non-negative costs.

    Examples
    --------
    >>> check_costs({"E1": 1, "E2": 2.5})
    {'E1': 1, 'E2': 2.5}
    """
    return {str(k): COST.check(f"{name}[{k!r}]", v) for k, v in costs.items()}
