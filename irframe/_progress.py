"""Optional progress bars (the ``progress`` extra: tqdm) for loops that call user code or
re-evaluate many times."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(
    iterable: Iterable[T], *, enabled: bool, total: int | None = None, desc: str | None = None
) -> Iterator[T] | Iterable[T]:
    """``iterable`` wrapped in a tqdm bar when ``enabled`` (tqdm must then be installed).

    >>> list(progress(range(3), enabled=False))
    [0, 1, 2]
    """
    if not enabled:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "progress=True needs tqdm: pip install 'irframe[progress]' (or pip install tqdm)"
        ) from None
    return tqdm(iterable, total=total, desc=desc)
