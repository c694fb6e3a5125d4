"""Error and warning classes of irframe.

Every error subclasses the built-in type a user would naturally catch, so
``except ValueError`` keeps working, while ``except irframe.IrframeError``
catches only ours.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "CalibrationWarning",
    "ColumnError",
    "ConventionWarning",
    "DegenerateMeasureWarning",
    "DuplicateError",
    "EmptyOverlapError",
    "InputError",
    "IrframeError",
    "IrframeWarning",
    "MeasureParamError",
    "OptionError",
    "ParseError",
    "PerformanceHint",
    "ShapeError",
    "UnknownMeasureError",
    "UnknownSystemError",
    "choose",
    "plain",
    "shown",
    "warn",
]


def plain(value):
    """``value`` as the plain Python object a user wrote: numpy scalars (``np.int64(130)``,
    ``np.str_('s0')``, ``np.float32(0.5)``) become ``130``, ``'s0'``, ``0.5``; containers of
    them (list, tuple) are converted element by element.  Used before putting a value into
    a message."""
    if (
        type(value).__module__ == "numpy"
        and hasattr(value, "item")
        and getattr(value, "ndim", 1) == 0
    ):
        return value.item()
    if isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        return type(value)(plain(v) for v in value)
    return value


def shown(value, limit: int = 60) -> str:
    """``repr`` of [plain][irframe.errors.plain]`(value)` for a message, shortened past ``limit`` characters.

    Examples
    --------
    >>> import numpy as np
    >>> shown(np.int64(130)), shown(np.str_("s0")), shown([np.str_("a"), np.int64(1)])
    ('130', "'s0'", "['a', 1]")
    """
    text = repr(plain(value))
    return text if len(text) <= limit else text[: limit - 20] + f"... ({len(text)} characters)"


class IrframeError(Exception):
    """Base class of every error raised by irframe."""


class InputError(IrframeError, ValueError):
    """Bad data in a run or qrels frame (NaN scores, non-numeric grades, empty frames, ...)."""


class ParseError(InputError):
    """A malformed line in a TREC file; the message names the file, line number and line.

    Attributes
    ----------
    path : str or None
        File being read.
    lineno : int or None
        1-based line number of the first offending line.
    line : str or None
        The offending line, as read.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        lineno: int | None = None,
        line: str | None = None,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.lineno = lineno
        self.line = line


class ColumnError(InputError, KeyError):
    """A required column is missing; the message lists what is missing and what was found."""

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0]) if self.args else ""


class ShapeError(InputError, TypeError):
    """A run or qrels of a shape irframe does not read (a list of tuples, a dict nested too
    deep); both a ``ValueError`` and a ``TypeError``."""


class DuplicateError(InputError):
    """Duplicate (system, topic, doc) rows in a run or (topic, doc[, subtopic]) rows in qrels."""


class UnknownMeasureError(IrframeError, ValueError):
    """A measure name that is not registered; the message suggests the closest known names."""


class OptionError(IrframeError, ValueError, TypeError):
    """An option or parameter outside its declared type or range (``depth=True``, ``p=1.5``, NaN).

    Subclasses both ``ValueError`` and ``TypeError``: a wrong value and a wrong type are
    reported by the same check ([`irframe.params.Param`][irframe.params.Param]), and either ``except`` works.
    """


class MeasureParamError(OptionError):
    """A measure string with an unknown, missing or invalid parameter or cutoff."""

    # set on trec_eval-syntax refusals only (measures/trec_eval_syntax.py): trec_eval's own
    # line and the measure family, for the command line's two-line message
    trec_text: str
    trec_family: str


class UnknownSystemError(InputError, KeyError):
    """A system name (``baseline=``, ``systems=``) that is not in the cube; the message
    suggests the closest names.  Both a ``KeyError`` and a ``ValueError``."""

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0]) if self.args else ""


class EmptyOverlapError(InputError):
    """The run and the qrels have no topic in common, so nothing can be evaluated.

    trec_eval stops with "No queries with both results and relevance info"; irframe raises
    this error instead of returning an empty cube or NaN summaries.
    """


def _fold(text: str) -> str:
    """Spelling-insensitive key: case, ``-``/``_``/space/``.`` removed (``"Holm-Bonferroni"`` → ``"holmbonferroni"``)."""
    return "".join(ch for ch in text.lower() if ch not in "-_ .")


def choose(
    what: str,
    value: object,
    allowed: tuple | list,
    synonyms: Mapping[str, object] | None = None,
) -> Any:  # one of ``allowed`` (or a synonym's value)
    """``value`` if it is one of ``allowed``, else its unambiguous synonym, else an [`OptionError`][irframe.errors.OptionError].

    ``synonyms`` maps other common spellings of the same thing to an allowed value; case,
    ``-``, ``_``, ``.`` and spaces do not matter in them (``"Holm-Bonferroni"``, ``"t-test"``).
    An unknown value gets a did-you-mean with the closest allowed spellings.

    Examples
    --------
    >>> choose("correction", "holm-bonferroni", ("holm", "bonferroni", None), {"holmbonferroni": "holm"})
    'holm'
    >>> choose("test", "wilcox", ("t", "wilcoxon"))
    Traceback (most recent call last):
    ...
    irframe.errors.OptionError: test must be one of 't', 'wilcoxon', got 'wilcox'. Did you mean 'wilcoxon'?
    """
    if any(value is a or (type(value) is type(a) and value == a) for a in allowed):
        return value
    if isinstance(value, str):
        folded = _fold(value)
        for a in allowed:
            if isinstance(a, str) and _fold(a) == folded:
                return a
        for k, v in (synonyms or {}).items():
            if _fold(k) == folded:
                return v
    import difflib

    names = [a for a in allowed if isinstance(a, str)]
    close = (
        difflib.get_close_matches(value, names, n=2, cutoff=0.5) if isinstance(value, str) else []
    )
    if isinstance(value, str) and not close:
        close = list(
            dict.fromkeys(
                v
                for k, v in (synonyms or {}).items()
                if isinstance(v, str)
                and difflib.get_close_matches(_fold(value), [_fold(k)], n=1, cutoff=0.6)
            )
        )[:2]
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    return _raise(
        OptionError(f"{what} must be one of {', '.join(map(repr, allowed))}, got {value!r}.{hint}")
    )


def _raise(e: Exception):
    raise e


def warn(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the caller's first frame outside irframe (the user's
    line, however deep inside irframe the warning is found)."""
    import os
    import sys
    import types
    import warnings

    here = os.path.dirname(os.path.abspath(__file__))
    frame: types.FrameType | None
    level, frame = 2, sys._getframe(1)  # stacklevel 2: the caller of warn()
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


class IrframeWarning(UserWarning):
    """Base class of irframe's warnings."""


class ConventionWarning(IrframeWarning):
    """A spelling or input that another tool (trec_eval, pytrec_eval, ir_measures, ranx,
    trectools, PyTerrier) reads differently: the message names both conventions and the
    switch that chooses the other one (docs/coming-from.md lists them all).  Silence it with
    ``warnings.filterwarnings("ignore", category=irframe.errors.ConventionWarning)``."""


class PerformanceHint(IrframeWarning):
    """Something took long for a reason the user can remove (an optional dependency missing)."""


class DegenerateMeasureWarning(IrframeWarning):
    """A measure that is constant or blind to document order under the given settings."""


class CalibrationWarning(IrframeWarning):
    """A test used where its Type-I error rate is known to exceed its nominal level.

    The bootstrap shift test and percentile interval on few topics (docs/stats.md gives the
    rates measured by ``benchmarks/bench_type1.py``); the results are returned, with this warning.
    """
