"""xarray imported on first use, so that the command line stays light.

``irframe eval`` never builds an xarray cube: importing xarray would cost it ~0.1 s and
~13 MB of its ~200 MB (measured with ``benchmarks/bench_cli.py``).  Everywhere else the
first evaluation builds a cube, and importing xarray inside it made the first call ~2×
slower than the next ones, so ``import irframe`` imports xarray at once unless the process
is the command line (`command_line`).  There, ``irframe/__init__`` also leaves the modules
of the public names (`irframe.evaluate`, `irframe.report` ...) to be imported on first use
(`keep_functions`).
"""

from __future__ import annotations

import importlib
import types
from typing import TYPE_CHECKING, Any

from ._process import command_line  # noqa: F401  (here for irframe/__init__)


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


if TYPE_CHECKING:  # type checkers see the module itself
    import xarray
else:
    xarray = LazyModule("xarray")


class _Package(types.ModuleType):
    """The ``irframe`` package of a command-line process (`keep_functions`)."""

    def __setattr__(self, name: str, value: Any) -> None:
        # the import system binds a submodule to its package's attribute of the same name
        # once imported: ``irframe.evaluate`` stays the function, looked up in __getattr__
        if isinstance(value, types.ModuleType) and name in self.__dict__.get("_FUNCTIONS", ()):
            return
        super().__setattr__(name, value)


def keep_functions(package: types.ModuleType, api: dict[str, str]) -> None:
    """Keep ``package``'s public names that are also the names of its submodules
    (``irframe.evaluate``: the function, in the module ``irframe.evaluate``) bound to what
    ``api`` (public name → submodule) says, although the submodule is imported after the
    package (the command line imports them on first use).

    >>> import types
    >>> pkg = types.ModuleType("pkg")
    >>> keep_functions(pkg, {"evaluate": "evaluate", "join": "accessor"})
    >>> pkg.evaluate = types.ModuleType("pkg.evaluate")  # what importing the submodule does
    >>> "evaluate" in vars(pkg)
    False
    """
    package._FUNCTIONS = frozenset(k for k, v in api.items() if k == v)  # type: ignore[attr-defined]
    package.__class__ = _Package
