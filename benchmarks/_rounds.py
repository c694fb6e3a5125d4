"""Alternating timing rounds for the family benchmarks (bench_cwl, bench_rarity_ndpm, bench_diversity).

The machine these figures come from is shared, so absolute times drift with the load of the
moment.  Every task is therefore timed in alternating rounds (A, B, C, A, B, C, ...) in one
process and reported as its median and as the median of its per-round ratio to a base task
measured in the same round: the ratio is what the docs quote.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable


def rounds(tasks: dict[str, Callable[[], object]], n: int) -> dict[str, list[float]]:
    """``n`` rounds, each running every task once in order; seconds per task and round."""
    times: dict[str, list[float]] = {k: [] for k in tasks}
    for _ in range(n):
        for name, fn in tasks.items():
            gc.collect()
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return times


def table(
    times: dict[str, list[float]], base: str, *, targets: dict[str, str] | None = None
) -> dict:
    """Print median seconds and the median per-round ratio to ``base``; return both per task."""
    out = {}
    print(f"  {'task':<58} {'median s':>9} {'x ' + base[:18]:>22}   rounds (s)")
    for k, v in times.items():
        ratio = statistics.median(a / b for a, b in zip(v, times[base], strict=True))
        out[k] = {"median": statistics.median(v), "ratio": ratio}
        note = f"  [{targets[k]}]" if targets and k in targets else ""
        print(
            f"  {k:<58} {out[k]['median']:9.3f} {ratio:22.2f}   {' '.join(f'{x:.2f}' for x in v)}{note}"
        )
    return out
