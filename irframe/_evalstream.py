"""``irframe eval`` on a large run file in bounded memory: the file read in blocks, each
block's complete topics evaluated as they arrive.

A TREC run file lists its topics one after the other.  `evaluate_blocks` reads the text
`irframe._textfile.BLOCK_BYTES` at a time (`irframe._textfile.topic_blocks`: whole lines,
gzip decompressed as it is read), cuts each block before the lines of its last topic
(`irframe._textfile.last_topic_start`), which may go on in the next block and is carried
over, parses the rest with the whole-file parser and evaluates its topics with
[`trec_eval_runs`][irframe.treceval.trec_eval_runs] against their own judgments.  Only the
small per-topic values are kept; [`combine_trec_runs`][irframe.treceval.combine_trec_runs]
puts them in trec_eval's topic order and adds them up in that order, so the output is the
whole-file evaluation's, byte for byte.  Memory: one block evaluated and the next one
parsed (`READ_AHEAD`), each a few times its text, plus the longest topic, whatever the size
of the file.

It returns None — the caller then reads and evaluates the file whole, which also prints
trec_eval's errors in their order — whenever one evaluation of the whole file could differ
from the blocks' or stop:

- a topic whose lines are not all together (it turns up in a later block after its block was
  evaluated): the file is not grouped by topic;
- any error: unreadable or malformed lines (their line numbers are the whole file's), a block
  trec_eval would stop on (duplicate documents, grades all below 0 on the first topic, a
  measure error), no topic with both results and judgments, an empty file;
- trec_eval 10.0 without ``-c`` and a qrels topic the run lacks (10.0 stops there; with
  ``-c`` the last block evaluated is evaluated again at the end, with the stand-in rankings
  of the topics the run lacks);
- one of irframe's warnings while evaluating a block (the whole file's evaluation gives its
  own, once; other libraries' warnings are passed on, once each).
"""

from __future__ import annotations

import os
import queue
import threading
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import _textfile
from .errors import IrframeWarning
from .io import (
    categorical_ids,
    constant_categorical,
    doc_string_column,
    run_frame_of,
    unique_strings,
    warn_tags,
)
from .treceval import TrecEvalError, TrecRun, combine_trec_runs, trec_eval_runs

__all__ = ["READ_AHEAD", "evaluate_blocks"]

#: read and parse the next block on a second thread while this one evaluates (when the
#: machine has a second core): faster, one more parsed block in memory
READ_AHEAD = (os.cpu_count() or 1) > 1


class _WholeFile(Exception):
    """The blocks cannot give the whole file's output: read the file whole."""


class _Blocks:
    """The state of one file's evaluation, block after block."""

    def __init__(self, qrels, name, measures, options, ranks):
        self.qrels, self.name, self.measures = qrels, name, measures
        self.options, self.ranks = options, ranks
        self.q_topic = qrels["topic"].astype(str).to_numpy()
        self.qrels_topics = set(self.q_topic.tolist())
        self.parts: list[TrecRun] = []
        self.seen: set[str] = set()  # topics evaluated (or read, when not in the qrels)
        self.tags: set[str] = set()
        self.run_id: str | None = None
        # 10.0 -c: the last block evaluated, kept to be evaluated again at the end with the
        # qrels topics the run lacks (their stand-in rankings; one block more in memory)
        self.keep_last = options.get("version") == "10.0" and bool(options.get("complete"))
        self.last: tuple[pd.DataFrame, list[str]] | None = None

    def parse(self, data: Any) -> tuple | None:
        """``data`` (whole lines: bytes or bytearray) parsed: ``(frame, topics, tags, last tag)``,
        None without data lines.  (On the reading thread: no state is touched.)"""
        if not data or not _textfile.has_data_fast(data):
            return None
        cols = _textfile.read_run_columns(data, self.name, want_tag=True, want_rank=self.ranks)
        del data
        topic = categorical_ids([cols["topic"]])
        frame = run_frame_of(
            constant_categorical("run", cols["n"]),
            topic,
            doc_string_column(cols["doc"]),
            _textfile.concat_chunks(cols["rank"], np.int64) if self.ranks else None,
            _textfile.concat_chunks(cols["score"], np.float64),
            None,
        )
        topics = [str(t) for t in topic.categories]
        return frame, topics, unique_strings(cols["tag"]), _textfile.last_string(cols["tag"])

    def add(self, parsed: tuple | None) -> None:
        """Evaluate the topics of a parsed block."""
        if parsed is None:
            return
        frame, topics, tags, last_tag = parsed
        del parsed
        if not self.seen.isdisjoint(topics):  # a topic met again: the file is not grouped
            raise _WholeFile
        self.seen.update(topics)
        self.tags.update(tags)
        self.run_id = last_tag
        wanted = [t for t in topics if t in self.qrels_topics]
        if not wanted:
            return
        self.parts.append(self._evaluate(frame, wanted))
        if self.keep_last:
            self.last = (frame, wanted)

    def _evaluate(self, frame: pd.DataFrame, topics: list[str]) -> TrecRun:
        """``frame`` evaluated against the judgments of ``topics``; 10.0 -c evaluates the
        judged topics ``frame`` lacks with its stand-in ranking, as for the whole file."""
        judged = self.qrels[pd.Index(self.q_topic).isin(topics)]
        if isinstance(judged["topic"].dtype, pd.CategoricalDtype):  # the block's topics only
            judged = judged.assign(topic=judged["topic"].cat.remove_unused_categories())
        ((_, result),) = trec_eval_runs(
            frame, judged, self.measures, run_ids={"run": "run"}, **self.options
        )
        if isinstance(result, TrecEvalError):
            raise _WholeFile
        return result

    def result(self) -> TrecRun:
        if not self.parts or self.run_id is None:  # nothing evaluated: trec_eval's error
            raise _WholeFile
        lacking = self.qrels_topics - self.seen
        if self.options.get("version") == "10.0" and lacking:
            if self.last is None:  # 10.0 without -c stops: the whole file prints that
                raise _WholeFile
            frame, wanted = self.last  # evaluated again, with the topics the run lacks
            self.parts[-1] = self._evaluate(frame, [*wanted, *sorted(lacking)])
        return combine_trec_runs(self.parts, self.qrels, self.run_id)


def evaluate_blocks(
    qrels: pd.DataFrame,
    source: Any,
    name: str,
    measures: Sequence[str],
    options: Mapping[str, Any],
    ranks: bool,
    block_bytes: int | None = None,
) -> TrecRun | None:
    """The [`TrecRun`][irframe.treceval.TrecRun] of the run file read from the binary file
    object ``source`` in blocks of ``block_bytes`` (default
    `irframe._textfile.BLOCK_BYTES`), or None: evaluate the file whole (see the module).

    Parameters
    ----------
    qrels : pandas.DataFrame
        The judgments (``read_qrels``).
    source : binary file object
        The run file, read once from its current position.
    name : str
        The file's name, for the tag warning (`irframe.io.read_run`'s).
    measures, options
        As for [`trec_eval_runs`][irframe.treceval.trec_eval_runs] (no ``debug_query``,
        ``rel_format`` qrels, trec_eval's measures only).
    ranks : bool
        Read the rank field (``--order rank``).
    block_bytes : int, optional
        Text read at a time.

    Returns
    -------
    TrecRun or None
    """
    size = _textfile.BLOCK_BYTES if block_bytes is None else block_bytes
    blocks = _Blocks(qrels, name, list(measures), dict(options), ranks)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _feed(blocks, source, size)
            result = blocks.result()
        if any(issubclass(w.category, IrframeWarning) for w in caught):
            return None  # irframe's own warnings: the whole file's are about the whole file
    except Exception:
        return None
    for message, category in dict.fromkeys((str(w.message), w.category) for w in caught):
        warnings.warn(message, category, stacklevel=3)  # a library's, once each
    if len(blocks.tags) > 1:  # as read_run warns for the whole file
        warn_tags(name, sorted(blocks.tags), result.run_id)
    return result


def _feed(blocks: _Blocks, source: Any, size: int) -> None:
    """Evaluate ``source`` block by block: a second thread reads and parses the next block
    (pyarrow's parser, gzip and file reads release the GIL) while this one evaluates, one
    parsed block waiting at most.  The reading thread has ended when this returns or raises."""
    if not READ_AHEAD:
        for block in _textfile.topic_blocks(source, size):
            parsed = blocks.parse(block)
            del block
            blocks.add(parsed)
            del parsed
        return
    ready: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def read() -> None:
        try:
            for block in _textfile.topic_blocks(source, size):
                parsed = blocks.parse(block)
                del block
                if not put(("block", parsed)):
                    return
                del parsed
            put(("end", None))
        except BaseException as e:
            put(("error", e))

    thread = threading.Thread(target=read, name="irframe-blocks", daemon=True)
    thread.start()
    try:
        while True:
            kind, item = ready.get()
            if kind == "end":
                return
            if kind == "error":
                raise item
            blocks.add(item)
            del item
    finally:
        stop.set()
        while thread.is_alive():
            try:
                ready.get_nowait()
            except queue.Empty:
                thread.join(0.05)
