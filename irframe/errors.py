"""Error and warning classes of irframe.

Every error subclasses the built-in type a user would naturally catch, so
``except ValueError`` keeps working, while ``except irframe.IrframeError``
catches only ours.
"""

from __future__ import annotations

__all__ = [
    "CalibrationWarning",
    "ColumnError",
    "DegenerateMeasureWarning",
    "DuplicateError",
    "EmptyOverlapError",
    "InputError",
    "IrframeError",
    "IrframeWarning",
    "MeasureParamError",
    "OptionError",
    "ParseError",
    "UnknownMeasureError",
    "plain",
    "shown",
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


class DuplicateError(InputError):
    """Duplicate (system, topic, doc) rows in a run or (topic, doc[, subtopic]) rows in qrels."""


class UnknownMeasureError(IrframeError, ValueError):
    """A measure name that is not registered; the message suggests the closest known names."""


class OptionError(IrframeError, ValueError, TypeError):
    """An option or parameter outside its declared type or range (``depth=True``, ``p=1.5``, NaN).

    Subclasses both ``ValueError`` and ``TypeError``: a wrong value and a wrong type are
    reported by the same check (:class:`irframe.params.Param`), and either ``except`` works.
    """


class MeasureParamError(OptionError):
    """A measure string with an unknown, missing or invalid parameter or cutoff."""

    # set on trec_eval-syntax refusals only (measures/trec_eval_syntax.py): trec_eval's own
    # line and the measure family, for the command line's two-line message
    trec_text: str
    trec_family: str


class EmptyOverlapError(InputError):
    """The run and the qrels have no topic in common, so nothing can be evaluated.

    trec_eval stops with "No queries with both results and relevance info"; irframe raises
    this error instead of returning an empty cube or NaN summaries.
    """


class IrframeWarning(UserWarning):
    """Base class of irframe's warnings."""


class DegenerateMeasureWarning(IrframeWarning):
    """A measure that is constant or blind to document order under the given settings."""


class CalibrationWarning(IrframeWarning):
    """A test used where its Type-I error rate is known to exceed its nominal level.

    The bootstrap shift test and percentile interval on few topics (docs/stats.md gives the
    rates measured by ``benchmarks/bench_type1.py``); the results are returned, with this warning.
    """
