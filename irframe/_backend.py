"""Where a run frame is evaluated: in memory, or by the Dask backend ([`irframe.dask`][irframe.dask]).

The public functions that take a run frame (``irframe.evaluate``, ``irframe.lexi.lexirecall``,
``irframe.lexi.lexiprecision``, ``irframe.rarity.rarity``, ``irframe.rarity.rare_finds``) are
decorated with [`by_backend`][irframe._backend.by_backend]: a ``dask.dataframe.DataFrame`` as
``runs`` goes to ``irframe.dask._run``, which evaluates it partition by partition with the same
in-memory function; any other input runs the function itself.

Dask is never imported here: a Dask frame exists only once ``dask.dataframe`` is imported, so
`for_runs` looks the module up in ``sys.modules``, and ``import irframe`` stays free of Dask.
The backend module is imported by name (`importlib`), the one place where a lower layer
hands work to a higher one (docs/internals.md, "Layers").
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar, cast

__all__ = ["by_backend", "for_runs"]

F = TypeVar("F", bound=Callable[..., Any])


def for_runs(runs: Any) -> ModuleType | None:
    """The backend module for ``runs``: ``irframe.dask`` for a Dask DataFrame, None otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> for_runs(pd.DataFrame()) is None
    True
    """
    dd = sys.modules.get("dask.dataframe")
    if dd is None or not isinstance(runs, dd.DataFrame):
        return None
    return importlib.import_module("irframe.dask")


def by_backend(fn: F) -> F:
    """Decorator of a public function ``fn(runs, qrels, ...)``: a Dask frame as ``runs`` is
    evaluated by ``irframe.dask._run(fn, runs, qrels, ...)``, anything else by ``fn``."""

    @functools.wraps(fn)
    def wrapper(runs: Any, *args: Any, **kwargs: Any) -> Any:
        backend = for_runs(runs)
        if backend is None:
            return fn(runs, *args, **kwargs)
        if "opts" in kwargs:  # Options a caller checked already (the accessor): as keywords
            kwargs = {**kwargs.pop("opts").changed(), **kwargs}
        return backend._run(fn, runs, *args, **kwargs)

    return cast(F, wrapper)
