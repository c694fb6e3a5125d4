"""irframe: offline information-retrieval evaluation on pandas frames, results as xarray cubes.

Examples
--------
>>> import irframe as irf
>>> qrels, runs = irf.datasets.trec_eval_sample()
>>> cube = runs.ir.metric(["AP", "nDCG@10", "P@10"], qrels=qrels)
>>> irf.summarize(cube).round(4).values.tolist()
[[0.1785, 0.3016, 0.3]]
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing
from typing import TYPE_CHECKING

from . import _lazy
from ._version import __version__

if TYPE_CHECKING:  # what `__getattr__` imports on first use, as type checkers should see it
    from . import (  # noqa: F401
        axioms,
        cli,
        cwl,
        dask,
        datasets,
        io,
        lexi,
        lexi_theory,
        measures,
        meta,
        ndpm,
        options,
        plot,
        rag,
        rarity,
        stats,
    )
    from .io import read_qrels, read_run, read_runs, write_qrels, write_run  # noqa: F401

if _lazy.command_line():  # the command's own process: read the run files while pandas is imported
    import gc
    import os
    import sys

    # pyarrow's C++ default pool, set before pyarrow is imported: its conversions to numpy
    # (``to_numpy`` of a chunked array) take their memory there whatever ``pa.set_memory_pool``
    # says (_prefetch.use_system_allocator), and mimalloc would reserve its arena and keep
    # ~4 MB of 2 MB pages for them; a value the user set is kept
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    from . import _prefetch

    gc.disable()  # no cyclic garbage collection during the imports (~10 % of their time): enabled below
    _prefetch.start(sys.argv[1:])

from . import errors
from .errors import (
    ColumnError,
    DuplicateError,
    EmptyOverlapError,
    InputError,
    IrframeError,
    MeasureParamError,
    OptionError,
    ParseError,
    UnknownMeasureError,
)

#: public name → the module defining it; bound at import, except in the command line's own
#: process, where `__getattr__` imports each module on first use (``irframe eval`` needs
#: neither the accessor, the reports nor the uncertainty tools; its preference measures
#: not even irframe's evaluation and cube: tests/test_startup.py)
_API = {
    "IrAccessor": "accessor",
    "join": "accessor",
    "Aligned": "align",
    "summarize": "cube",
    "evaluate": "evaluate",
    "list_measures": "evaluate",
    "MeasureDef": "measures",
    "parse_measure": "measures",
    "register": "measures",
    "registry_scope": "measures",
    "unregister": "measures",
    "Report": "reporting",
    "report": "reporting",
    "flips": "uncertainty",
    "tie_sensitivity": "uncertainty",
}

if not _lazy.command_line():
    from .accessor import IrAccessor, join
    from .align import Aligned
    from .cube import summarize
    from .evaluate import evaluate, list_measures
    from .measures import MeasureDef, parse_measure, register, registry_scope, unregister
    from .reporting import Report, report
    from .uncertainty import flips, tie_sensitivity

    # the first cube would otherwise pay xarray's import (see _lazy)
    _importlib.import_module("xarray")  # not bound here: irframe.xarray is no public name
else:
    _lazy.keep_functions(sys.modules[__name__], _API)
    # what every `irframe eval` reads, aligns and prints with (pandas with them): imported
    # while the collector is off, and frozen with the rest (imported later, when the command
    # first used them, they cost a small command ~10 % more CPU: collections during their
    # imports, and a longer exit over their unfrozen objects)
    from . import align, io, treceval  # noqa: F401

    gc.freeze()  # the imported modules' objects: never scanned again by the collector
    gc.enable()

_IO = ("read_run", "read_runs", "read_qrels", "write_run", "write_qrels")
_LAZY = (
    "io",
    "datasets",
    "stats",
    "meta",
    "plot",
    "cli",
    "cwl",
    "lexi",
    "rarity",
    "axioms",
    "ndpm",
    "dask",
    "options",
    "lexi_theory",
    "rag",
)

__all__ = [
    "__version__",
    "evaluate",
    "summarize",
    "list_measures",
    "join",
    "flips",
    "tie_sensitivity",
    "Aligned",
    "IrAccessor",
    "MeasureDef",
    "parse_measure",
    "register",
    "registry_scope",
    "unregister",
    "errors",
    "IrframeError",
    "InputError",
    "ParseError",
    "ColumnError",
    "DuplicateError",
    "UnknownMeasureError",
    "MeasureParamError",
    "OptionError",
    "EmptyOverlapError",
    "report",
    "Report",
    *_IO,
    *_LAZY,
]


if not TYPE_CHECKING:  # a checker sees the names above, so that a misspelt one is an error

    def __getattr__(name: str) -> _typing.Any:
        if name in _API:  # the command line's process: imported on first use
            value = getattr(_importlib.import_module(f".{_API[name]}", __name__), name)
            globals()[name] = value
            return value
        if name in _IO:
            return getattr(_importlib.import_module(".io", __name__), name)
        if name in _LAZY or name == "measures":  # (measures: bound at import but by the command)
            return _importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module 'irframe' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names, the lazily imported ones included (``read_runs``, ``stats``, ``meta``,
    ``datasets`` ...), so that tab completion offers them; no ``annotations``/``importlib``."""
    return sorted({*__all__, "measures"})


del annotations, TYPE_CHECKING
