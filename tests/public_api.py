"""The public functions of irframe, enumerated once for the tests that check the whole API
(tests/test_vocabulary.py: one vocabulary; tests/test_results.py: one result constructor)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import irframe


def public_functions(accessor: bool = True) -> dict:
    """Qualified name -> function: every function in the ``__all__`` of a public module (not
    ``cli``/``__main__``; modules whose optional dependency is missing are skipped) and, with
    ``accessor``, the methods of ``df.ir``."""
    found = {}
    for info in pkgutil.walk_packages(irframe.__path__, "irframe."):
        leaf = info.name.rsplit(".", 1)[-1]
        if leaf.startswith("_") or info.name in ("irframe.cli", "irframe.__main__"):
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError:  # an optional dependency (dask) is missing
            continue
        for name in getattr(mod, "__all__", []):
            f = getattr(mod, name, None)
            if inspect.isfunction(f) and f.__module__.startswith("irframe"):
                found[f"{f.__module__}.{f.__qualname__}"] = f
    if accessor:
        for name, f in vars(irframe.IrAccessor).items():
            if inspect.isfunction(f) and not name.startswith("_"):
                found[f"irframe.accessor.IrAccessor.{name}"] = f
    return found
