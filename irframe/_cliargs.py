"""``irframe eval``'s command line parsed as trec_eval parses it (GNU getopt), without pandas.

`irframe._prefetch` reads the run files named on the command line while pandas is being
imported, so the parsing lives here, in a module that imports neither pandas nor the rest of
irframe.  `irframe.cli` re-exports these names.

>>> parse_eval_args(["-q", "qrels", "run"])["files"]
['qrels', 'run']
"""

from __future__ import annotations

import getopt
import math
import re
from collections.abc import Sequence
from typing import Any, cast

from ._textfile import c_atol
from .options import ORDERS  # (pandas-free, as this module must be)

__all__ = [
    "BATCH_BYTES",
    "FORMATS",
    "ORDERS",
    "STREAM_BYTES",
    "USAGE",
    "VERSION_TEXT",
    "UsageError",
    "parse_eval_args",
    "reads_ranks",
]

USAGE = (
    "Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file\n"
    "   -h: Give full help information, including other options\n"
    "   -q: In addition to summary evaluation, give evaluation for each query\n"
    "   -m: calculate and print measures indicated by 'measure'\n"
    "       ('-m all_qrels' prints all qrels measures, '-m official' is default)\n"
)

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = {  # trec_eval's long options → short letter (None: irframe's own)
    "help": "h",
    "version": "v",
    "query_eval_wanted": "q",
    "measure=": "m",
    "complete_rel_info_wanted": "c",
    "level_for_rel=": "l",
    "nosummary": "n",
    "Debug_level=": "D",
    "Judged_docs_only": "J",
    "Number_docs_in_coll=": "N",
    "Max_retrieved_per_topic=": "M",
    "Rel_info_format=": "R",
    "Results_format=": "T",
    "Output_old_results_format=": "o",
    "Zscore=": "Z",
    "format=": None,
    "order=": None,
    "trec-eval-version=": None,
}
FORMATS = ("trec", "csv", "json")
VERSION_TEXT = {"9.0.8": "9.0.7", "10.0": "10.0-rc3"}  # what each release's binary prints for -v


class UsageError(Exception):
    """A command line trec_eval would reject with its usage message (exit 1)."""


def _flag(value: bool):
    return lambda _text: value


def _whole(letter: str):
    """trec_eval reads ``-l``, ``-M``, ``-N`` with C's ``atol`` (``-M abc`` is 0, ``-l 1e1``
    is 1); irframe takes the same value when the text is a number whose integer part is
    ``atol``'s (``2``, ``-1``, ``2.5`` is 2, as documented) and refuses any other text,
    which trec_eval would silently read as another number."""

    def convert(text: str) -> int | None:
        value = c_atol(text)  # saturated to a C long, as atol is
        if not re.fullmatch(r"\s*[+-]?\d+", text):  # a whole number is read as it is
            try:
                number = float(text) if "_" not in text else None
            except ValueError:
                number = None
            if number is None or not math.isfinite(number) or int(number) != value:
                raise UsageError(
                    f"irframe: -{letter} takes a number (its integer part is used), got "
                    f"{text!r} (trec_eval would silently read it as {value})\n"
                )
        if letter == "M" and value < 1:
            raise UsageError(
                f"irframe: -M takes a number >= 1, got {text!r} (trec_eval would evaluate "
                "every ranking as empty)\n"
            )
        if letter == "M" and value > 2**53:  # deeper than any ranking in memory: no cut
            return None
        return value

    return convert


def _debug(text: str) -> tuple[int, str | None]:
    """``-D level[.qid]`` → (level, qid or None)."""
    level, dot, qid = text.partition(".")
    return c_atol(level), (qid if dot else None)


#: trec_eval's options: letter → (key(s) of the parsed dict, converter of the option's text)
_OPTIONS: dict[str, tuple[str | tuple[str, str], Any]] = {
    "h": ("help", _flag(True)),
    "v": ("version", _flag(True)),
    "q": ("per_topic", _flag(True)),
    "m": ("measures", None),  # repeatable: appended
    "c": ("complete", _flag(True)),
    "l": ("rel_level", _whole("l")),
    "n": ("summary", _flag(False)),
    "D": (("debug_level", "debug_query"), _debug),
    "J": ("judged_only", _flag(True)),
    "N": ("num_docs", _whole("N")),
    "M": ("depth", _whole("M")),
    "R": ("rel_format", str),
    "T": ("results_format", str),
    "o": ("old_format", _flag(True)),
    "Z": ("zscores", str),
}  # -o is obsolete in trec_eval too (it sets a flag nothing reads): accepted, no effect
#: irframe's own long options: name → (key, allowed values, message when the value is not allowed)
_OWN: dict[str, tuple[str, tuple[str, ...], str]] = {
    "format": ("format", FORMATS, f"--format must be one of {', '.join(FORMATS)}"),
    "order": ("order", ORDERS, f"--order must be one of {', '.join(ORDERS)}"),
    "trec-eval-version": (
        "trec_eval_version",
        tuple(VERSION_TEXT),
        "--trec-eval-version must be 9.0.8 or 10.0",
    ),
}


def parse_eval_args(argv: Sequence[str]) -> dict[str, Any]:
    """Parse ``irframe eval``'s arguments with trec_eval's GNU getopt semantics.

    Returns a dict of options; raises `UsageError` (message for stderr) on bad usage.

    Examples
    --------
    >>> o = parse_eval_args(["-q", "qrels", "-m", "map", "run", "-l2", "--nosummary"])
    >>> o["files"], o["measures"], o["per_topic"], o["rel_level"], o["summary"]
    (['qrels', 'run'], ['map'], True, 2, False)
    """
    try:
        opts, files = getopt.gnu_getopt(list(argv), _SHORT, list(_LONG))
    except getopt.GetoptError as e:
        opt = e.opt
        if opt and len(opt) == 1:
            msg = (
                f"irframe: invalid option -- '{opt}'\n"
                if "not recognized" in e.msg
                else f"irframe: option requires an argument -- '{opt}'\n"
            )
        else:
            msg = f"irframe: {e.msg}\n"
        raise UsageError(msg + USAGE) from None
    o: dict[str, Any] = {
        "help": False,
        "version": False,
        "per_topic": False,
        "measures": [],
        "complete": False,
        "rel_level": 1,
        "summary": True,
        "debug_level": 0,
        "debug_query": None,
        "judged_only": False,
        "num_docs": 0,
        "depth": None,
        "rel_format": "qrels",
        "results_format": "trec_results",
        "old_format": False,
        "zscores": None,
        "format": "trec",
        "order": None,
        "trec_eval_version": "9.0.8",
        "files": files,
    }
    for flag, val in opts:
        name = flag.lstrip("-")
        if name in _OWN:
            key, allowed, message = _OWN[name]
            if val not in allowed:
                raise UsageError(f"irframe: {message}\n")
            o[key] = val
            continue
        letter = name if len(name) == 1 else _LONG.get(name, _LONG.get(name + "="))
        key, convert = cast("tuple[Any, Any]", _OPTIONS[cast(str, letter)])  # a known flag
        if convert is None:
            o[key].append(val)
        elif isinstance(key, tuple):
            o.update(zip(key, convert(val), strict=True))
        else:
            o[key] = convert(val)
    return o


def reads_ranks(o: dict[str, Any]) -> bool:
    """Whether the run files' rank column is read: only ``--order rank`` uses it; trec_eval
    skips the field, so it may hold any text otherwise."""
    return o["order"] == "rank"


#: run files evaluated together hold at most this much text (gzip counted 5×): the
#: command's memory stays bounded, whatever the number of files (~6× the text at peak)
BATCH_BYTES = 256 * 2**20

#: a run file with at least this much text (gzip counted 5×) is read in blocks and evaluated
#: topic by topic as they arrive (irframe._evalstream): its memory no longer grows with the
#: file; smaller files are read whole (and several of them together), which is faster
STREAM_BYTES = 64 * 2**20
