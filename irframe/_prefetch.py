"""The command line's run files, read while pandas is imported.

``irframe eval`` spends ~0.3 s importing pandas (and the rest of irframe, built on it) on
one core before it can read its first file.  `start`, called by ``irframe/__init__``
in the command's own process before those imports, reads the run files named on the
command line meanwhile, on a second thread, into the columns the reader keeps
(`irframe._textfile._load_run`, mostly pyarrow's CSV reader, which releases the GIL).
The reader then takes each file's columns with `take` instead of reading it again.
A file the thread did not reach, could not read or read with other options is read by the
reader as usual, which also reports every error: only the time depends on this module.

This module imports neither pandas nor the rest of irframe (only the pandas-free
`irframe._textfile` and `irframe._cliargs`), and the thread must never wait for
pandas' import: pyarrow's ``Array.to_numpy`` imports pandas, so the reader takes numbers
from the arrow buffers (`irframe._textfile._numbers`).  Measured on 50 runs of
``../shared/bench/gen.py`` (docs/performance.md): ~18 of the 50 files are read when the
imports end, and the command takes ~3 % less time.

>>> take("no-such-run.txt", (False, True, False)) is None  # nothing read in a notebook
True
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from ._cliargs import BATCH_BYTES, STREAM_BYTES, UsageError, parse_eval_args, reads_ranks
from ._textfile import _load_run, _read_bytes, is_stream, pa

__all__ = ["reading", "start", "stop", "take", "use_system_allocator"]

_QUEUED, _READING = "queued", "reading"
_cond = threading.Condition()
#: run file → _QUEUED, _READING, its columns once read, or None: read it yourself
_state: dict[str, Any] = {}
_options: tuple[bool, bool, bool] = (
    False,
    False,
    True,
)  # _load_run's (want_tag, want_rank, last_tag)
_generation = 0  # one per start(); a thread stops when its generation is over
_thread: threading.Thread | None = None


def start(argv: Sequence[str]) -> bool:
    """Start reading the run files of the command line ``argv`` (``eval [options] QRELS RUN...``)
    on a thread; False (nothing started) when the command reads no run files as a batch:
    another command, bad usage, help, fewer than two run files, standard input, or a
    judgment or results format other than trec_eval's default.  Sets pyarrow's system
    allocator first (`use_system_allocator`)."""
    global _options, _generation, _thread
    if pa is None or (os.cpu_count() or 1) < 2 or not argv or argv[0] != "eval":
        return False
    try:
        o = parse_eval_args(argv[1:])
    except UsageError:
        return False
    paths = list(dict.fromkeys(o["files"][1:]))
    if (
        any(is_stream(p) for p in paths)  # read once, by the reader only (irframe.cli)
        or o["help"]
        or o["version"]
        or len(paths) < 2
        or "-" in paths
        or o["rel_format"] != "qrels"
        or o["results_format"] != "trec_results"
    ):
        return False
    use_system_allocator()
    with _cond:
        _generation += 1
        _state.clear()
        _state.update(dict.fromkeys(paths, _QUEUED))
        _options = (False, reads_ranks(o), True)  # as irframe.cli reads them (one system per file)
        generation = _generation
    _thread = threading.Thread(
        target=_work, args=(paths, generation), name="irframe-prefetch", daemon=True
    )
    _thread.start()
    return True


def reading() -> bool:
    """Whether the thread is still reading files (the reader then needs no other thread)."""
    return _thread is not None and _thread.is_alive()


def use_system_allocator() -> None:
    """In the command's own process: pyarrow's default allocator (mimalloc) keeps the memory
    it frees, the system allocator hands it back (about 50 MB less peak memory per run)."""
    if pa is not None:
        pa.set_memory_pool(pa.system_memory_pool())


def _work(paths: list[str], generation: int) -> None:
    want_tag, want_rank, last_tag = _options
    total = 0
    for path in paths:
        with _cond:
            if (
                generation != _generation or total > BATCH_BYTES
            ):  # the command's first batch at most (memory)
                return
            if _state.get(path) != _QUEUED:  # the reader took it first
                continue
            _state[path] = _READING
        if _large(path):  # read in blocks by the reader (irframe._evalstream), never whole here
            with _cond:
                _state[path] = None
                _cond.notify_all()
            continue
        try:
            data = _read_bytes(path)
            total += len(data)
            result = _load_run(data, path, want_tag, want_rank, last_tag, threads=False)
        except Exception:
            result = None
        with _cond:
            if generation == _generation:
                _state[path] = result
            _cond.notify_all()


def _large(path: str) -> bool:
    """Whether the file has at least ``STREAM_BYTES`` of text (gzip counted 5×, as the reader
    counts it)."""
    try:
        with open(path, "rb") as f:
            return (
                os.fstat(f.fileno()).st_size * (5 if f.read(2) == b"\x1f\x8b" else 1)
                >= STREAM_BYTES
            )
    except OSError:
        return False


def take(path: str, options: tuple[bool, bool, bool]) -> dict[str, Any] | None:
    """The columns of the run file ``path`` read by the thread (then forgotten), waiting
    while the thread reads it; None: read it yourself (not a file of the command line, not
    reached by the thread, which will now skip it, not readable, or read with other
    ``options``: `irframe._textfile._load_run`'s ``(want_tag, want_rank, last_tag)``)."""
    with _cond:
        state = _state.get(path)
        while state == _READING:
            _cond.wait()
            state = _state.get(path)
        if state is None:
            return None
        _state[path] = None
        return None if state == _QUEUED or tuple(options) != _options else state


def stop() -> None:
    """Stop the thread after its current file and forget what it read and nobody took."""
    global _generation
    with _cond:
        _generation += 1
        _state.clear()
        _cond.notify_all()
