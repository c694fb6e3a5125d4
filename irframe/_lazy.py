"""Modules imported on first use, so that ``import irframe`` and the command line stay light.

``irframe eval`` never builds an xarray cube: importing xarray would cost it ~0.1 s and
~13 MB of its ~200 MB (measured with ``benchmarks/bench_cli.py``).
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for a module and imports it on the first attribute access.

    >>> m = LazyModule("json")
    >>> m.dumps([1])
    '[1]'
    """

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r} (imported on first use)>"


xarray = LazyModule("xarray")
