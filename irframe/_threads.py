"""Work on both cores: a list mapped by this thread and more (pyarrow and numpy release the
GIL in the calls the readers and the id encoding make).

Its own module, importing nothing of irframe, so that any layer may use it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["map_threads"]


def map_threads(f: Callable[[Any], Any], items: Sequence[Any], threads: int) -> list[Any]:
    """``[f(x) for x in items]`` on this thread and ``threads - 1`` more, each taking the next
    item (this thread works too: one allocator arena less to fill with fresh memory, which
    costs more on some machines than a thread saves); the first item's error in item order
    is raised once every item is done."""
    items = list(items)
    threads = max(1, min(threads, len(items)))
    if threads == 1:
        return [f(x) for x in items]
    out: list[Any] = [None] * len(items)
    errors: dict[int, BaseException] = {}
    nxt = iter(range(len(items)))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                i = next(nxt, None)
            if i is None:
                return
            try:
                out[i] = f(items[i])
            except BaseException as e:
                errors[i] = e

    with ThreadPoolExecutor(threads - 1) as pool:
        for _ in range(threads - 1):
            pool.submit(work)
        work()
    if errors:
        raise errors[min(errors)]
    return out
