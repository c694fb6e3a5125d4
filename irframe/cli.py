"""Command line: ``irframe eval [trec_eval options] QRELS RUN [RUN...]`` — trec_eval's output.

``irframe eval`` takes trec_eval's command line and prints what trec_eval prints, byte
for byte: the same options (``-q -c -n -J -v -h``, ``-m measure[.params]`` once per
measure and repeatable, ``-l N``, ``-M N``, ``-N N``, ``-D level[.qid]``, ``-R format``,
``-T format``, ``-Z file``, ``-o`` and the long forms ``--query_eval_wanted``,
``--measure``, ``--complete_rel_info_wanted``, ``--level_for_rel``, ``--nosummary``,
``--Debug_level``, ``--Judged_docs_only``, ``--Number_docs_in_coll``,
``--Max_retrieved_per_topic``, ``--Rel_info_format``, ``--Results_format``, ``--Zscore``),
options anywhere on the line (GNU getopt), ``-`` for a run read from standard input,
trec_eval's measure syntax and nicknames (see `irframe.measures.trec_eval_syntax`),
its print order and ``%-22s\\t%s\\t%6.4f`` lines, its error messages and exit statuses.
``--trec-eval-version 10.0`` reproduces 10.0 instead of 9.0.8 (the default).

irframe's extras, which never change the trec_eval-compatible output:

- several RUN files: printed in turn, as separate trec_eval calls would print them, but read
  and aligned once (each file one system; file by file for ``-`` , ``-R`` other than
  ``qrels`` and irframe measure strings, some of which depend on the other runs);
- ``-m`` with an irframe measure string (``-m nDCG@10``, ``-m "RBP(p=0.8)"``): printed as
  given, after trec_eval's measures;
- ``--format csv`` / ``--format json``: tidy rows ``run, topic, measure, value`` (JSON is
  strict: numbers, never NaN);
- ``--order {trec_eval,trec_eval10,rank,input}``: another document order;
- a large run file (``STREAM_BYTES``), standard input or a pipe is read in blocks, its topics
  evaluated as they arrive (`irframe._evalstream`): memory bounded by a block and the longest
  topic, the same output (the file is read again whole when it is not grouped by topic).

Examples
--------
::

    irframe eval qrels.txt run.gz
    irframe eval -q -m map -m P.5,10 qrels.txt run.gz
    irframe eval qrels.txt runs/*.gz -m ndcg_cut.10 --format csv > results.csv
    zcat run.gz | irframe eval -m all_trec qrels.txt -
"""

from __future__ import annotations

import json
import math
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

from . import _prefetch
from ._cliargs import (
    BATCH_BYTES,
    STREAM_BYTES,
    USAGE,
    VERSION_TEXT,
    UsageError,
    parse_eval_args,
    reads_ranks,
)
from ._textfile import is_stream
from .treceval import (
    REL_FORMATS,
    format_trec_line,  # re-exported: the output line format
)

__all__ = ["TREC_EVAL_DEFAULT", "USAGE", "format_trec_line", "main", "parse_eval_args"]

#: trec_eval's default (``official``) values after ``runid`` and ``num_q``, in its print order.
TREC_EVAL_DEFAULT: tuple[str, ...] = (
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    *(f"iprec_at_recall_{k / 10:.2f}" for k in range(11)),
    *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
)

HELP = f"""irframe eval: trec_eval's command line on irframe's measures.

{USAGE}
Options (trec_eval's): -q per-topic values; -m measure[.params] (repeat it; nicknames
official, all_trec, set); -c average over every qrels topic; -l N relevance level; -n no
summary; -M N keep the top N documents; -J judged documents only; -N N documents in the
collection (utility); -D level[.qid] evaluate one topic; -R qrels|qrels_jg|prefs|qrels_prefs; -T trec_results;
-Z file z-scores; -v version; -h this help. A RUN of '-' is read from standard input.

irframe's options: several RUN files; -m with irframe measures (nDCG@10, RBP(p=0.8));
--format trec|csv|json; --order trec_eval|trec_eval10|rank|input;
--trec-eval-version 9.0.8|10.0 (default 9.0.8).
"""


# --------------------------------------------------------------------------------------
# tables (--format csv / json)
# --------------------------------------------------------------------------------------


def _json_value(line) -> Any:
    if isinstance(line.value, str):
        return line.value
    v = float(line.value)
    if not math.isfinite(v):
        return None
    if line.kind in ("long", "extra_long") and not line.zscore:
        return math.trunc(v)  # C's (long) x
    return v


# --------------------------------------------------------------------------------------
# the eval command
# --------------------------------------------------------------------------------------


def _read_run(path: str, ranks: bool, spool=None):
    """The run file ``path`` read whole; ``spool``: a file holding the bytes of ``path``, a
    stream that `_streamed` read already."""
    import io

    from .io import read_run_text

    if spool is not None:
        spool.seek(0)
        source = io.BytesIO(spool.read())
        if path != "-":
            source.name = path  # the name the path's errors give
        return read_run_text(source, ranks=ranks, doc_strings=True)
    if path == "-":
        data = sys.stdin.buffer.read()
        return read_run_text(io.BytesIO(data), ranks=ranks, doc_strings=True)
    return read_run_text(path, ranks=ranks, doc_strings=True)


def _streamable(o: dict[str, Any]) -> bool:
    """Whether the command's run files may be read in blocks (`irframe._evalstream`): trec_eval's
    measures on trec_eval's qrels, every topic (no ``-D`` topic)."""
    from .measures.trec_eval_syntax import is_trec_request

    return (
        o["rel_format"] == "qrels"
        and o["debug_query"] is None
        and all(is_trec_request(m, o["trec_eval_version"]) for m in o["measures"])
    )


def _streams(path: str, o: dict[str, Any]) -> bool:
    """Whether the run file ``path`` is read in blocks: a stream (read once: standard input, a
    pipe) or a file of at least `STREAM_BYTES` of text, when the command allows it."""
    return (is_stream(path) or _size(path) >= STREAM_BYTES) and _streamable(o)


def _streamed(qrels, path: str, o: dict[str, Any], zscores):
    """``(TrecRun or None, spool)``: the run file ``path`` evaluated block by block
    (`irframe._evalstream`), None when it must be evaluated whole; ``spool`` (streams only:
    standard input, pipes) then holds every byte of it, for that second reading (standard
    input redirected from a file is read again from where it started instead).  Raises
    ``OSError`` when a stream cannot be read to its end."""
    import tempfile

    from ._evalstream import evaluate_blocks
    from ._textfile import Tee

    name = "<stream>" if path == "-" else path
    try:
        raw = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError:  # the whole-file reading reports it
        return None, None
    start = raw.tell() if path == "-" and raw.seekable() else None  # stdin from a file
    spool = tempfile.TemporaryFile() if is_stream(path) and start is None else None
    try:
        source = raw if spool is None else Tee(raw, spool)
        result = evaluate_blocks(
            qrels, source, name, o["measures"], _options(o, zscores), reads_ranks(o)
        )
        if result is None and spool is not None:
            while source.read(2**24):  # the rest of the stream, for the second reading
                pass
        if result is None and start is not None:
            raw.seek(start)  # read again from where it started
    except BaseException:
        if spool is not None:
            spool.close()
        raise
    finally:
        if raw is not sys.stdin.buffer:
            raw.close()
    if result is not None and spool is not None:
        spool.close()
        spool = None
    return result, spool


def _read_rel_info(o: dict[str, Any], err: TextIO):
    """The qrels (or preferences) and z-scores files; None after writing the error."""
    from .errors import IrframeError
    from .io import read_qrels
    from .treceval import TrecEvalError, read_zscores

    path = o["files"][0]
    try:
        if o["rel_format"] == "prefs":
            from .io import read_prefs

            qrels = read_prefs(path)
        else:
            qrels = read_qrels(path, kind="trec" if o["rel_format"] == "qrels" else "jg")
    except (IrframeError, ValueError, OSError) as e:
        err.write(f"irframe: error: {e}\ntrec_eval: Quit in file '{path}'\n")
        return None
    if o["rel_format"] == "qrels_jg":
        # trec_eval's get_qrels_jg.c refuses a (topic, jg, doc) judged twice, naming the
        # first one in its (strcmp) order of topic, jg, doc, whatever the two grades are
        dup = qrels[qrels.duplicated(["topic", "jg", "doc"], keep=False)]
        if len(dup):
            first = min(
                zip(
                    dup["topic"].astype(str),
                    dup["jg"].astype(str),
                    dup["doc"].astype(str),
                    strict=True,
                ),
                key=lambda k: tuple(f.encode() for f in k),
            )
            err.write(
                f"trec_eval.get_qrels: duplicate docs {first[2]}\ntrec_eval: Quit in file '{path}'\n"
            )
            return None
    zscores = None
    if o["zscores"] is not None:  # trec_eval's refusals of a -Z file exit with 255
        # (9.0.8 names the routine get_prefs in "Cannot read", its own slip)
        cannot = "get_prefs" if o["trec_eval_version"] == "9.0.8" else "get_zscores"
        try:
            zscores = read_zscores(o["zscores"])
        except TrecEvalError as e:
            err.write(f"{str(e).replace('get_zscores: Cannot', f'{cannot}: Cannot')}\n")
            return e.status
        except OSError as e:  # trec_eval's words, then the reason
            err.write(
                f"trec_eval.{cannot}: Cannot read zscores file '{o['zscores']}'\n"
                f"irframe: error: {e}\n"
            )
            return 255
    return qrels, zscores


def _options(o: dict[str, Any], zscores) -> dict[str, Any]:
    """Keyword arguments of [`irframe.treceval.trec_eval_runs`][irframe.treceval.trec_eval_runs] from the parsed command line."""
    return {
        "version": o["trec_eval_version"],
        "per_topic": o["per_topic"],
        "complete": o["complete"],
        "rel_level": o["rel_level"],
        "depth": o["depth"],
        "judged_only": o["judged_only"],
        "num_docs_in_coll": o["num_docs"],
        "summary": o["summary"],
        "debug_query": o["debug_query"],
        "zscores": zscores,
        "order": o["order"],
        "rel_format": o["rel_format"],
    }


def _one_by_one(qrels, paths: Sequence[str], o: dict[str, Any], zscores):
    """Yield ``(run id, TrecRun)`` per run file, each read and evaluated on its own; on a
    failure yield ``(None, (message, exit status, text printed before it))`` and stop."""
    from .errors import IrframeError
    from .treceval import TrecEvalError, trec_eval_run

    for path in paths:
        spool = streamed = None
        try:
            if _streams(path, o):  # read in blocks; None: read it whole after all
                streamed, spool = _streamed(qrels, path, o, zscores)
            if streamed is None:
                run = _read_run(path, reads_ranks(o), spool)
        except (IrframeError, ValueError, OSError) as e:
            yield None, (f"irframe: error: {e}\ntrec_eval: Quit in file '{path}'\n", 2, "")
            return
        finally:
            if spool is not None:
                spool.close()
        if streamed is not None:
            yield streamed.run_id, streamed
            continue
        try:
            result = trec_eval_run(run, qrels, o["measures"], **_options(o, zscores))
        except TrecEvalError as e:
            yield None, (f"{e}\n", e.status, e.printed)
            return
        except (IrframeError, ValueError, KeyError, TypeError) as e:
            msg = str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
            yield None, (f"irframe: error: {msg}\n", 1, "")
            return
        yield result.run_id, result


def _all_at_once(qrels, group: list[tuple[str, int]], o: dict[str, Any], zscores):
    """The results of `_one_by_one` from one read and one alignment of every file of
    ``group`` (paths with their sizes; each file one system), or None when that is not
    possible: fewer than two files, or a file fails (the caller then goes file by file,
    which reports the failure in trec_eval's order).  A large group is read once and
    evaluated as two halves of its files at once, one per thread (each file is its own
    trec_eval call, so only the time depends on the cut)."""
    import numpy as np

    from ._threads import map_threads
    from .errors import IrframeError
    from .io import read_runs_tagged
    from .treceval import TrecEvalError, trec_eval_runs

    sizes = dict(group)
    files = list(sizes)
    if len(files) < 2:
        return None
    width = len(str(len(files)))
    name = {f: f"{i:0{width}d}" for i, f in enumerate(files)}  # sorted names = file order
    try:
        runs, tags = read_runs_tagged(
            files, system=name.__getitem__, last_tags=True, ranks=reads_ranks(o)
        )
        run_ids = dict(zip(name.values(), tags, strict=True))
        cut = _cut([sizes[f] for f in files])
        parts = [runs]
        if cut is not None:  # the files' rows follow one another: the halves are two row slices
            row = int(np.searchsorted(np.asarray(runs["system"].cat.codes), cut))
            parts = [runs.iloc[:row], runs.iloc[row:]]
        lists = map_threads(
            lambda part: trec_eval_runs(
                part, qrels, o["measures"], run_ids=run_ids, **_options(o, zscores)
            ),
            parts,
            2,
        )  # this thread and one more
        results = dict(x for lst in lists for x in lst)
    except (IrframeError, ValueError, OSError, KeyError, TypeError):
        return None
    out = []
    for path, _ in group:
        result = results[name[path]]
        if isinstance(result, TrecEvalError):
            out.append((None, (f"{result}\n", result.status, result.printed)))
            break
        out.append((result.run_id, result))
    return out


#: a group with at least this much text is evaluated as two halves on two threads
HALVES_BYTES = 8 * 2**20


def _size(path: str) -> int:
    """Text bytes of a file (gzip counted 5×); 0 when it cannot be sized (the reader reports it)
    or is read only once (`irframe._textfile.is_stream`: never opened here)."""
    if is_stream(path):
        return 0
    try:
        with open(path, "rb") as f:
            return os.fstat(f.fileno()).st_size * (5 if f.read(2) == b"\x1f\x8b" else 1)
    except OSError:
        return 0


def _chunks(paths: Sequence[str]) -> list[list[tuple[str, int]]]:
    """Consecutive groups of run files (with their sizes) of at most ``BATCH_BYTES`` of text each;
    a file of at least ``STREAM_BYTES`` alone (read in blocks)."""
    out: list[list[tuple[str, int]]] = [[]]
    total = 0
    for path in paths:
        size = _size(path)
        if out[-1] and (total + size > BATCH_BYTES or size >= STREAM_BYTES):
            out.append([])
            total = 0
        out[-1].append((path, size))
        total += size if size < STREAM_BYTES else BATCH_BYTES + 1  # alone: read in blocks
    return out


def _cut(sizes: list[int]) -> int | None:
    """Where to cut a group's files into two halves of about equal text, evaluated on two
    threads: when the group is large enough to pay for a second thread (and the machine
    has a second core), else None."""
    total = sum(sizes)
    if len(sizes) < 4 or total < HALVES_BYTES or (os.cpu_count() or 1) < 2:
        return None
    before = 0
    for i, n in enumerate(sizes):  # noqa: B007 - i is read after the loop: where it broke
        if before + n / 2 >= total / 2:
            break
        before += n
    return min(max(i, 2), len(sizes) - 2)  # each half has two files or more


def _results(qrels, paths: Sequence[str], o: dict[str, Any], zscores):
    """``(run id, TrecRun)`` per run file in order, then ``(None, (message, status, printed))`` at the
    first failure: groups of files read and aligned together when possible (not for standard
    input, for measures that depend on the other runs, i.e. irframe's measure strings, or on
    the judgment format, ``-R`` other than qrels)."""
    from .measures.trec_eval_syntax import is_trec_request

    if (
        any(is_stream(p) for p in paths)  # read each once, in order: no batch to fall back from
        or o["rel_format"] != "qrels"
        or not all(is_trec_request(m, o["trec_eval_version"]) for m in o["measures"])
    ):
        _prefetch.stop()
        yield from _one_by_one(qrels, paths, o, zscores)
        return
    for group in _chunks(paths):
        batch = _all_at_once(qrels, group, o, zscores)
        _prefetch.stop()  # the files read while pandas was imported were the first group's
        for run_id, result in (
            batch if batch is not None else _one_by_one(qrels, [p for p, _ in group], o, zscores)
        ):
            yield run_id, result
            if run_id is None:
                return


def _eval(argv: Sequence[str], out: TextIO, err: TextIO) -> int:
    try:
        o = parse_eval_args(argv)
    except UsageError as e:
        err.write(str(e))
        return 1
    if o["version"]:
        err.write(f"trec_eval version {VERSION_TEXT[o['trec_eval_version']]}\n")
        return 0
    if o["help"]:
        out.write(HELP)
        return 0
    if len(o["files"]) < 2:
        err.write(USAGE)
        return 1
    if o["rel_format"] not in REL_FORMATS:
        err.write(f"trec_eval: Illegal rel_format '{o['rel_format']}'\n")
        return 2
    if o["results_format"] != "trec_results":
        err.write(f"trec_eval: Illegal retrieval results format '{o['results_format']}'\n")
        return 2
    rel_info = _read_rel_info(o, err)
    if rel_info is None:
        return 2
    if isinstance(rel_info, int):  # the -Z file's exit status
        return rel_info
    qrels, zscores = rel_info
    run_paths = o["files"][1:]
    results = _results(qrels, run_paths, o, zscores)
    rows: list[dict[str, Any]] = []
    for run_id, result in results:
        if run_id is None:  # a failure: (message, exit status, what trec_eval printed before it)
            if o["format"] == "trec":
                out.write(result[2])
            err.write(result[0])
            return result[1]
        if o["format"] == "trec":
            out.write(result.text())
        else:
            rows.extend(
                {"run": run_id, "topic": x.topic, "measure": x.name, "value": _json_value(x)}
                for x in result.lines()
                if x.kind != "runid"
            )
    _write_table(rows, o["format"], out)
    return 0


def _write_table(rows: list[dict[str, Any]], fmt: str, out: TextIO) -> None:
    """``--format csv`` / ``json``: the tidy rows (nothing for ``trec``)."""
    if fmt == "csv":
        import csv

        w = csv.writer(out, lineterminator="\n")
        w.writerow(["run", "topic", "measure", "value"])
        for r in rows:
            v = r["value"]
            w.writerow(
                [
                    r["run"],
                    r["topic"],
                    r["measure"],
                    "" if v is None else (repr(v) if isinstance(v, float) else v),
                ]
            )
    elif fmt == "json":
        json.dump(rows, out, indent=1, allow_nan=False)
        out.write("\n")


def main(
    argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Entry point of the ``irframe`` console script (and ``python -m irframe``).

    Returns the exit status: 0 on success; otherwise trec_eval's status for the same
    failure (1: usage or unknown measure, 2: unreadable input or bad measure parameters,
    4: 10.0 and a qrels topic missing from the run, 7: no topic with both results and
    relevance information).
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if argv is None:  # the command itself, not a call from Python code
        _prefetch.use_system_allocator()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        out.write("usage: irframe eval [trec_eval options] QRELS RUN [RUN...]\n\n" + HELP)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command != "eval":
        err.write(f"irframe: unknown command {command!r}; try 'irframe eval -h'\n")
        return 2
    try:
        with warnings.catch_warnings():
            _one_line_warnings(err)
            return _eval(rest, out, err)
    except BrokenPipeError:  # pragma: no cover - e.g. `irframe eval ... | head`
        return 0


def _one_line_warnings(err: TextIO) -> None:
    """Warnings as one ``irframe: warning:`` line each on ``err`` (Python's form names a
    source line of the console script).  ConventionWarnings are not shown: they say where
    the Python API's convention differs from trec_eval's, and the command line is
    trec_eval's (a run file with several tags is one run, as there)."""
    from .errors import ConventionWarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        err.write(f"irframe: warning: {message}\n")

    warnings.showwarning = show
    warnings.simplefilter("ignore", ConventionWarning)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
