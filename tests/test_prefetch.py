"""The command line's run files read while pandas is imported (irframe._prefetch).

Only the time may depend on the prefetch: the outputs are checked against trec_eval 9.0.8's
own (tests/data/trec_eval/expected_v9.0.8), with a spy showing that the files read by the
thread were used (and not read again) or, when the thread read them with other options, read
again.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import irframe._textfile as tf
import irframe.io as iio
from irframe import _prefetch, cli

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
EXPECTED = DATA / "expected_v9.0.8"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _forget():
    yield
    _prefetch.stop()


def _runs(tmp_path: Path) -> list[str]:
    """results.test as written (tab-separated, spaces before the scores), results.trunc
    re-spaced with single spaces (without the text some of its lines have after the 6th
    field, which trec_eval ignores), and results.test gzipped."""
    trunc = (DATA / "results.trunc").read_bytes()
    spaced = tmp_path / "spaced.txt"
    spaced.write_bytes(
        b"\n".join(b" ".join(line.split()[:6]) for line in trunc.splitlines()) + b"\n"
    )
    zipped = tmp_path / "zipped.gz"
    zipped.write_bytes(gzip.compress((DATA / "results.test").read_bytes()))
    return [str(DATA / "results.test"), str(spaced), str(zipped)]


#: trec_eval 9.0.8's ``-q -c -m all_trec`` output for the files of :func:`_runs`
def _expected() -> str:
    aq, aqc = ((EXPECTED / name).read_text() for name in ("out.test.aq", "out.test.aqc"))
    return aq + aqc + aq


def _wait(paths: list[str]) -> None:
    deadline = time.monotonic() + 60
    while any(_prefetch._state.get(p) in (_prefetch._QUEUED, _prefetch._READING) for p in paths):
        assert time.monotonic() < deadline, "the prefetch thread did not finish"
        time.sleep(0.01)


def _spy(monkeypatch) -> dict[str, int]:
    """Counts of files taken from the thread and of files the reader parsed itself."""
    counts = {"taken": 0, "parsed": 0}
    take, parse = _prefetch.take, tf._arrow_table

    def spy_take(path, options):
        got = take(path, options)
        counts["taken"] += got is not None
        return got

    def spy_parse(*a, **k):
        counts["parsed"] += 1
        return parse(*a, **k)

    monkeypatch.setattr(_prefetch, "take", spy_take)
    monkeypatch.setattr(tf, "_arrow_table", spy_parse)
    return counts


def test_files_read_while_importing_give_trec_eval_output(tmp_path, monkeypatch):
    runs = _runs(tmp_path)
    argv = ["eval", "-q", "-c", "-m", "all_trec", str(DATA / "qrels.test"), *runs]
    assert _prefetch.start(argv)
    _wait(runs)
    counts = _spy(monkeypatch)
    out = io.StringIO()
    assert cli.main(argv, out=out) == 0
    assert out.getvalue() == _expected()
    assert counts == {"taken": 3, "parsed": 1}  # the qrels file only
    assert _prefetch._state == {}  # forgotten once the first batch is read


def test_files_read_with_other_options_are_read_again(tmp_path, monkeypatch):
    """A reader that wants the rank column (``--order rank``) or the tags does not use the
    thread's columns (read without them)."""
    runs = _runs(tmp_path)
    assert _prefetch.start(["eval", str(DATA / "qrels.test"), *runs])
    _wait(runs)
    assert _prefetch.take(runs[0], (False, True, True)) is None  # want_rank
    assert _prefetch.take(runs[0], (False, False, True)) is None  # forgotten once asked for
    assert _prefetch.take(runs[1], (True, False, True)) is None  # want_tag
    cols = _prefetch.take(runs[2], (False, False, True))
    assert cols["n"] == 1500 and cols["last_tag"] == "STANDARD" and "rank" not in cols  # gunzipped


def test_unreadable_files_are_reported_by_the_reader(tmp_path, monkeypatch, capsys):
    """A malformed second file: the thread's failure is silent; the reader reports it as
    trec_eval would, after printing the first file's output."""
    runs = _runs(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"301 Q0 doc 1\n")
    argv = ["eval", str(DATA / "qrels.test"), runs[0], str(bad), runs[2]]
    assert _prefetch.start(argv)
    _wait([runs[0], str(bad), runs[2]])
    out = io.StringIO()
    assert cli.main(argv, out=out) == 2
    assert out.getvalue() == (EXPECTED / "out.test").read_text()
    assert f"trec_eval: Quit in file '{bad}'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["help"],
        ["eval"],
        ["eval", "-x", "q", "a", "b"],
        ["eval", "-h", "q", "a", "b"],
        ["eval", "q", "a"],
        ["eval", "q", "a", "-"],
        ["eval", "-R", "prefs", "q", "a", "b"],
        ["eval", "-T", "other", "q", "a", "b"],
    ],
)
def test_nothing_read_for_other_commands(argv):
    assert not _prefetch.start(argv)
    assert _prefetch._state == {}


def test_reader_takes_files_the_thread_has_not_reached(tmp_path, monkeypatch):
    """Files still queued are read by the reader; the thread then skips them."""
    runs = _runs(tmp_path)
    monkeypatch.setattr(
        _prefetch, "_work", lambda paths, generation: None
    )  # a thread that never starts
    assert _prefetch.start(["eval", str(DATA / "qrels.test"), *runs])
    counts = _spy(monkeypatch)
    frame = iio.read_runs(runs)
    assert counts == {"taken": 0, "parsed": 3}
    assert len(frame) == len((DATA / "results.trunc").read_bytes().splitlines()) + 2 * 1500
    assert all(_prefetch._state[p] is None for p in runs)


def test_command_output_with_prefetch(tmp_path):
    """The command itself (``python -m irframe``, which starts the thread in ``irframe/__init__``)."""
    runs = _runs(tmp_path)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "irframe",
            "eval",
            "-q",
            "-c",
            "-m",
            "all_trec",
            str(DATA / "qrels.test"),
            *runs,
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == _expected()


def test_reader_reads_back_from_the_last_file_while_the_thread_reads(tmp_path, monkeypatch):
    """While the thread is at work the reader reads on its own thread from the last file
    back (the thread from the first on); here the thread waits until the reader is done, so
    the reader reads every file itself, in reverse, and the output is still trec_eval's."""
    import threading

    test, trunc, zipped = _runs(tmp_path)
    runs = [test, zipped, trunc]  # not symmetric: reading them back must be undone
    go = threading.Event()
    work = _prefetch._work
    monkeypatch.setattr(
        _prefetch, "_work", lambda paths, generation: go.wait(60) and work(paths, generation)
    )
    argv = ["eval", "-q", "-c", "-m", "all_trec", str(DATA / "qrels.test"), *runs]
    assert _prefetch.start(argv)
    assert _prefetch.reading()
    order = []
    load = iio.load_run
    monkeypatch.setattr(
        iio,
        "load_run",
        lambda data, path, *a, **k: order.append(path) or load(data, path, *a, **k),
    )
    out = io.StringIO()
    try:
        assert cli.main(argv, out=out) == 0
    finally:
        go.set()
    assert order == runs[::-1]
    aq, aqc = ((EXPECTED / name).read_text() for name in ("out.test.aq", "out.test.aqc"))
    assert out.getvalue() == aq + aq + aqc


def _python(tmp_path: Path, code: str, command: bool, env) -> list[str]:
    """The words ``code`` prints in a new Python process: irframe's command's own process
    (a script named like the console script, called as ``irframe eval -h``) or, when not
    ``command``, a library process (``python -c``)."""
    if command:
        script = tmp_path / "irframe"  # the console script's name: irframe's own process
        script.write_text(code)
        cmd = [sys.executable, str(script), "eval", "-h"]
    else:
        cmd = [sys.executable, "-c", code]
    r = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env=dict(env, PYTHONPATH=str(REPO)),
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


@pytest.mark.parametrize("command", [True, False])
def test_garbage_collector_paused_for_the_command_imports_only(tmp_path, command):
    """The command's process pauses the cyclic garbage collector while irframe imports pandas
    and freezes the imported objects; it is enabled again once ``import irframe`` returns.  A
    library process keeps the collector as it was.  Property test."""
    out = _python(
        tmp_path,
        "import gc, irframe; print(gc.isenabled(), gc.get_freeze_count() > 0)\n",
        command,
        os.environ,
    )
    assert out == ["True", "True" if command else "False"]


@pytest.mark.parametrize("command, user_pool", [(True, None), (True, "mimalloc"), (False, None)])
def test_the_command_sets_pyarrows_cpp_default_pool(tmp_path, command, user_pool):
    """The command's own process makes pyarrow's C++ default pool the system allocator before
    pyarrow is imported (``ARROW_DEFAULT_MEMORY_POOL``): pyarrow's conversions to numpy take
    their memory there whatever ``pa.set_memory_pool`` says, so mimalloc never starts; a pool
    the user chose is kept, and a library process keeps pyarrow's own default (that of a
    process without irframe).  Property test of where memory comes from."""
    pa = pytest.importorskip("pyarrow")
    if "mimalloc" not in pa.supported_memory_backends():
        pytest.skip("this pyarrow has no mimalloc: nothing to tell apart")
    probe = (
        "import pyarrow as pa, pyarrow.compute as pc\n"
        "backend = pa.default_memory_pool().backend_name\n"
        "pa.set_memory_pool(pa.system_memory_pool())\n"
        "pc.equal(pa.chunked_array([[1] * 100_000, [2]]), 1).to_numpy(zero_copy_only=False)\n"
        "print(backend, pa.mimalloc_memory_pool().max_memory() > 0)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if user_pool:
        env["ARROW_DEFAULT_MEMORY_POOL"] = user_pool
    out = _python(tmp_path, "import irframe\n" + probe, command, env)
    if command and not user_pool:
        assert out == ["system", "False"]
    elif command:
        assert out == ["mimalloc", "True"]
    else:
        assert out == _python(tmp_path, probe, False, env)  # pyarrow's default, untouched
