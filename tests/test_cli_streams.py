"""``irframe eval`` reads a path once: pipes, named pipes (FIFOs), ``/dev/stdin`` and process
substitution give exactly the regular file's output (issue #33).

The gzip sniffing used to open a path, read a block, and open it again: on a pipe the first
block was lost (topics missing, exit 0) and a named pipe hung.  Each case here runs the
command in a child process (with a timeout: a hang fails the test) and compares its output,
byte for byte, with the same command on regular files.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes (POSIX)")

TIMEOUT = 120


def _collection(tmp: Path, seed: int = 0, tag: str = "runA") -> tuple[bytes, bytes]:
    """A qrels file and a run of ~300 KB (many pipe buffers and read blocks) with ties."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(30):
        for d in rng.choice(5000, 40, replace=False):
            qrels.append(f"{t + 1} 0 D{d} {rng.integers(0, 3)}\n")
        for r, d in enumerate(rng.choice(5000, 300, replace=False)):
            run.append(f"{t + 1} Q0 D{d} {r + 1} {round(float(rng.normal()), 2)} {tag}\n")
    return "".join(qrels).encode(), "".join(run).encode()


def _eval(args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "irframe", "eval", *args],
        input=stdin,
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )


def _fifo(path: Path, data: bytes) -> threading.Thread:
    """A named pipe at ``path`` fed ``data`` by a thread (the write blocks until the reader
    opens it, as a real producer would)."""
    os.mkfifo(path)

    def feed():
        try:
            with open(path, "wb") as f:
                f.write(data)
        except BrokenPipeError:  # the reader gave up: the test fails on its output
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    return t


@pytest.fixture
def files(tmp_path):
    q, r = _collection(tmp_path)
    (tmp_path / "qrels").write_bytes(q)
    (tmp_path / "run").write_bytes(r)
    (tmp_path / "run.gz").write_bytes(gzip.compress(r))
    want = _eval(["-q", str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert want.returncode == 0 and want.stdout.count(b"\n") > 30 * 10
    return tmp_path, q, r, want.stdout


@pytest.mark.parametrize("compress", [False, True], ids=["text", "gzip"])
def test_named_pipe_run(files, compress):
    tmp, _, r, want = files
    fifo = tmp / "run.fifo"
    feeder = _fifo(fifo, gzip.compress(r) if compress else r)
    got = _eval(["-q", str(tmp / "qrels"), str(fifo)])
    feeder.join(5)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == want


def test_named_pipe_qrels(files):
    tmp, q, _, want = files
    fifo = tmp / "qrels.fifo"
    feeder = _fifo(fifo, q)
    got = _eval(["-q", str(fifo), str(tmp / "run")])
    feeder.join(5)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == want


@pytest.mark.parametrize("compress", [False, True], ids=["text", "gzip"])
def test_dev_stdin(files, compress):
    tmp, _, r, want = files
    got = _eval(["-q", str(tmp / "qrels"), "/dev/stdin"], stdin=gzip.compress(r) if compress else r)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == want


def test_dash_is_standard_input(files):
    tmp, _, r, want = files
    got = _eval(["-q", str(tmp / "qrels"), "-"], stdin=r)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == want


def test_pipes_among_many_runs(files):
    """Several runs, some through named pipes: the output is the regular files' (the batch
    reader is not used with pipes, so nothing is read twice when a file fails)."""
    tmp, _, r, _ = files
    _, r2 = _collection(tmp, seed=1, tag="runB")
    (tmp / "run2").write_bytes(r2)
    want = _eval(["-q", str(tmp / "qrels"), str(tmp / "run"), str(tmp / "run2"), str(tmp / "run")])
    assert want.returncode == 0
    feeders = [_fifo(tmp / "a.fifo", r), _fifo(tmp / "b.fifo", gzip.compress(r2))]
    got = _eval(
        ["-q", str(tmp / "qrels"), str(tmp / "a.fifo"), str(tmp / "b.fifo"), str(tmp / "run")]
    )
    for f in feeders:
        f.join(5)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == want.stdout


def test_error_in_a_pipe_is_reported_once(files):
    """A bad line in a piped run: the error names it, and nothing hangs re-reading the pipe."""
    tmp, _, r, _ = files
    bad = r + b"31 Q0 D1 1 not-a-score runA\n"
    fifo = tmp / "bad.fifo"
    feeder = _fifo(fifo, bad)
    got = _eval([str(tmp / "qrels"), str(fifo), str(tmp / "run")])
    feeder.join(5)
    assert got.returncode != 0
    assert b"not-a-score" in got.stderr and str(fifo).encode() in got.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for <(...)")
def test_process_substitution(files):
    tmp, _, _, want = files
    cmd = (
        f"{sys.executable} -m irframe eval -q {tmp / 'qrels'} <(gzip -dc {tmp / 'run.gz'})"
        if shutil.which("gzip")
        else f"{sys.executable} -m irframe eval -q {tmp / 'qrels'} <(cat {tmp / 'run'})"
    )
    got = subprocess.run(
        ["bash", "-c", cmd],
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == want
