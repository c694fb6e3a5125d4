"""``irframe eval`` reading a run file in blocks (issue #30): the output is the whole-file
reading's, byte for byte, and trec_eval's.

The block size is forced tiny (`irframe._textfile.BLOCK_BYTES`, a few lines) and every file
is streamed (`irframe.cli.STREAM_BYTES` = 0), so topics straddle blocks.  A spy on
`irframe._evalstream.evaluate_blocks` records whether the blocks gave the output (a
`TrecRun`) or sent the file to the whole-file reading (None): each test says which it
expects, so a fallback cannot hide a broken block path.

References: trec_eval 9.0.8's own test outputs (``tests/data/trec_eval/expected_v9.0.8``),
the trec_eval binary when there is one (``$IRFRAME_TREC_EVAL`` or ``trec_eval`` on the
PATH), and the whole-file reading (itself checked against trec_eval in test_cli.py and
test_trec_eval_cli.py) for the options and hostile files those do not cover.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irframe import _evalstream, _textfile, cli

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
EXPECTED = DATA / "expected_v9.0.8"
BINARY = os.environ.get("IRFRAME_TREC_EVAL") or shutil.which("trec_eval")  # 10.0


class Spy:
    """`evaluate_blocks`'s results, in call order (None: the file was read whole)."""

    def __init__(self):
        self.results: list = []

    def streamed(self) -> bool:
        return bool(self.results) and all(r is not None for r in self.results)

    def fell_back(self) -> bool:
        return bool(self.results) and all(r is None for r in self.results)


@pytest.fixture
def spy(monkeypatch) -> Spy:
    s = Spy()
    real = _evalstream.evaluate_blocks

    def spying(*args, **kwargs):
        result = real(*args, **kwargs)
        s.results.append(result)
        return result

    monkeypatch.setattr(_evalstream, "evaluate_blocks", spying)
    return s


class _Pipe(io.RawIOBase):
    """Bytes that can be read once, as from a pipe (not seekable)."""

    def __init__(self, data: bytes):
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        return self._data.readinto(b)


def _stdin(data: bytes, pipe: bool) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BufferedReader(_Pipe(data)) if pipe else io.BytesIO(data))


def _run(monkeypatch, args, block: int | None, stdin: bytes | None = None, pipe: bool = True):
    """(status, stdout, stderr) of ``irframe eval args`` in this process: read in blocks of
    ``block`` bytes (every file streamed), or whole (``block`` None; files only)."""
    if block is None:
        monkeypatch.setattr(cli, "STREAM_BYTES", 2**62)
    else:
        monkeypatch.setattr(cli, "STREAM_BYTES", 0)
        monkeypatch.setattr(_textfile, "BLOCK_BYTES", block)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", _stdin(stdin, pipe))
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status = cli.main(["eval", *map(str, args)], out=out, err=err)
    return status, out.getvalue(), err.getvalue(), [str(w.message) for w in caught]


def _both(monkeypatch, args, block: int, stdin_file: Path | None = None, pipe: bool = True):
    """The streamed and the whole-file results of the same command (``stdin_file``: the
    streamed command reads it from standard input: a pipe or a file)."""
    if stdin_file is not None:
        streamed = _run(monkeypatch, args, block, stdin=stdin_file.read_bytes(), pipe=pipe)
        whole_args = [stdin_file if a == "-" else a for a in args]
        whole = _run(monkeypatch, whole_args, None)
    else:
        streamed = _run(monkeypatch, args, block)
        whole = _run(monkeypatch, args, None)
    return streamed, whole


# ------------------------------------------------------------------ trec_eval's own outputs

QUICKTEST = [  # trec_eval's quicktest commands on trec_eval's qrels format
    ([], "results.test", "qrels.test", "out.test"),
    ([], "results.test", "qrels.test.with-comments", "out.test"),
    (["-m", "all_trec"], "results.test", "qrels.test", "out.test.a"),
    (["-m", "all_trec", "-q"], "results.test", "qrels.test", "out.test.aq"),
    (
        ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"],
        "results.test",
        "qrels.rel_level",
        "out.test.aql",
    ),
    (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20".split(),
        "results.test",
        "qrels.test",
        "out.test.meas_params",
    ),
]


@pytest.mark.parametrize("block", [40, 333, 4096, 2**20])
@pytest.mark.parametrize(("opts", "run", "qrels", "expected"), QUICKTEST)
def test_quicktest_outputs_in_blocks(monkeypatch, spy, block, opts, run, qrels, expected):
    """results.test is grouped by topic: the blocks give trec_eval's output (topics straddle
    the small blocks; 2**20: one block)."""
    status, out, err, _ = _run(monkeypatch, [*opts, DATA / qrels, DATA / run], block)
    assert (status, err) == (0, "")
    assert out == (EXPECTED / expected).read_text()
    assert spy.streamed()


def test_zscores_in_blocks(monkeypatch, spy, shared_data):
    """-Z (trec_eval's zscores_file): each topic's values as z-scores, then their mean; as
    the whole file gives them."""
    test = shared_data / "trec_eval_test" / "test"
    args = ["-q", "-m", "all_trec", "-Z", test / "zscores_file", test / "qrels.test"]
    streamed, whole = _both(monkeypatch, [*args, test / "results.test"], 77)
    assert streamed == whole and streamed[0] == 0
    assert spy.results[0] is not None


def _grouped(path: Path, tmp: Path) -> Path:
    """The run file with its lines grouped by topic (stable: each topic's lines in file order)."""
    lines = path.read_bytes().splitlines(keepends=True)
    order = sorted(range(len(lines)), key=lambda i: lines[i].split()[0])
    out = tmp / (path.name + ".grouped")
    out.write_bytes(b"".join(lines[i] for i in order))
    return out


@pytest.mark.parametrize(
    ("opts", "expected"),
    [(["-c"], "out.test.aqc"), (["-c", "-M100"], "out.test.aqcM")],
)
def test_complete_on_a_run_lacking_a_topic(monkeypatch, spy, tmp_path, opts, expected):
    """-c averages over every qrels topic (results.trunc lacks 302): trec_eval's output from the
    blocks of the file grouped by topic (trec_eval orders a topic's documents by score and
    docno, so grouping the lines changes nothing it prints)."""
    run = _grouped(DATA / "results.trunc", tmp_path)
    status, out, err, _ = _run(
        monkeypatch, ["-m", "all_trec", "-q", *opts, DATA / "qrels.test", run], 64
    )
    assert (status, err) == (0, "")
    assert out == (EXPECTED / expected).read_text()
    assert spy.streamed()


def test_file_not_grouped_by_topic_is_read_whole(monkeypatch, spy):
    """results.trunc interleaves topics 301 and 303: a topic met again after its block was
    evaluated sends the file to the whole-file reading, which gives trec_eval's output."""
    args = ["-m", "all_trec", "-q", "-c", DATA / "qrels.test", DATA / "results.trunc"]
    status, out, err, _ = _run(monkeypatch, args, 100)
    assert (status, err) == (0, "")
    assert out == (EXPECTED / "out.test.aqc").read_text()
    assert spy.fell_back()


# ------------------------------------------------------------------ options and hostile files

OPTIONS = [
    [],
    ["-q"],
    ["-n", "-q"],
    ["-J", "-q", "-m", "all_trec"],
    ["-l", "2", "-m", "all_trec"],
    ["-M", "7", "-q", "-m", "all_trec"],
    ["-c", "-m", "gm_map", "-m", "num_rel", "-m", "map"],
    ["-N", "5000", "-m", "utility.1,-1,0,0", "-q"],
    ["-m", "all_trec", "--trec-eval-version", "10.0", "-q"],
    ["--order", "rank", "-m", "map", "-q"],
    ["--order", "input", "-m", "ndcg_cut.3", "-q"],
    ["--format", "csv", "-m", "map", "-q"],
    ["--format", "json", "-m", "P.5", "-q"],
]


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: " ".join(o) or "default")
def test_options_as_the_whole_file(monkeypatch, spy, opts):
    qrels = DATA / ("qrels.rel_level" if "-l" in opts else "qrels.test")
    streamed, whole = _both(monkeypatch, [*opts, qrels, DATA / "results.test"], 97)
    assert streamed == whole
    assert streamed[0] == 0
    assert spy.results[0] is not None


def _collection(rng, n_topics=12, depth=30, corpus=60, tag="tagA"):
    """qrels and run text (grouped by topic), scores rounded so that ties occur."""
    qrels, run = [], []
    for t in range(n_topics):
        for d in rng.choice(corpus, 15, replace=False):
            qrels.append(f"q{t} 0 d{d} {rng.integers(0, 3)}\n")
        for r, d in enumerate(rng.choice(corpus, depth, replace=False)):
            run.append(f"q{t} Q0 d{d} {r + 1} {rng.integers(0, 6) / 2} {tag}\n")
    return "".join(qrels).encode(), run


def _write(tmp: Path, qrels: bytes, run: bytes, name="run") -> tuple[Path, Path]:
    (tmp / "qrels").write_bytes(qrels)
    (tmp / name).write_bytes(run)
    return tmp / "qrels", tmp / name


HOSTILE = {
    "no final newline": lambda lines: "".join(lines).rstrip("\n"),
    "CRLF": lambda lines: "".join(lines).replace("\n", "\r\n"),
    "byte order mark": lambda lines: "\ufeff" + "".join(lines),
    "blank lines": lambda lines: "\n\n".join(lines) + "\n\n\n",
    "tabs and spaces": lambda lines: "".join(x.replace(" ", " \t ", 2) for x in lines),
    "comment lines": lambda lines: "# head\n" + "# note\n".join(lines) + "# tail\n",
    "leading spaces": lambda lines: "".join("  " + x for x in lines),
    "several tags": lambda lines: "".join(
        x.replace("tagA", f"tag{i % 3}") for i, x in enumerate(lines)
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
@pytest.mark.parametrize("block", [50, 700])
def test_hostile_text_as_the_whole_file(monkeypatch, spy, tmp_path, case, block):
    """Same stdout, stderr, exit status and warnings; the blocks give the output except where
    a line inside a topic hides where it ends (leading spaces: read whole)."""
    qrels, lines = _collection(np.random.default_rng(1))
    q, r = _write(tmp_path, qrels, HOSTILE[case](lines).encode())
    streamed, whole = _both(monkeypatch, ["-q", "-m", "all_trec", q, r], block)
    assert streamed == whole
    assert streamed[0] == 0
    if case != "leading spaces":
        assert spy.streamed()
    if case == "several tags":  # one run, silently, as trec_eval reads it (the API warns)
        assert streamed[2] == "" and not any("tag column" in w for w in streamed[3])


def test_gzip_file(monkeypatch, spy, tmp_path):
    qrels, lines = _collection(np.random.default_rng(2))
    q, r = _write(tmp_path, qrels, gzip.compress("".join(lines).encode()), "run.gz")
    streamed, whole = _both(monkeypatch, ["-q", q, r], 120)
    assert streamed == whole and streamed[0] == 0
    assert spy.streamed()


@pytest.mark.parametrize("pipe", [True, False], ids=["pipe", "file"])
@pytest.mark.parametrize("compress", [False, True], ids=["text", "gzip"])
def test_standard_input(monkeypatch, spy, tmp_path, compress, pipe):
    qrels, lines = _collection(np.random.default_rng(3))
    text = "".join(lines).encode()
    q, r = _write(tmp_path, qrels, gzip.compress(text) if compress else text)
    streamed, whole = _both(monkeypatch, ["-q", q, "-"], 90, stdin_file=r, pipe=pipe)
    assert streamed == whole and streamed[0] == 0
    assert spy.results[0] is not None


@pytest.mark.parametrize("pipe", [True, False], ids=["pipe", "file"])
@pytest.mark.parametrize("compress", [False, True], ids=["text", "gzip"])
def test_standard_input_read_whole_after_blocks(monkeypatch, spy, tmp_path, compress, pipe):
    """Standard input that must be read whole (not grouped by topic) is read again from the
    copy the blocks kept (a pipe) or from where it started (a file): the file's output."""
    qrels, lines = _collection(np.random.default_rng(4))
    text = "".join([*lines, lines[0]]).encode()
    q, r = _write(tmp_path, qrels, gzip.compress(text) if compress else text)
    streamed, whole = _both(monkeypatch, ["-q", q, "-"], 90, stdin_file=r, pipe=pipe)
    assert streamed[:3] == whole[:3]
    assert spy.fell_back()


ERRORS = {
    "duplicate doc": lambda lines: [*lines[:40], lines[35], *lines[40:]],
    "duplicate doc, last topic": lambda lines: [*lines, lines[-1]],
    "empty file": lambda lines: [],
    "comments only": lambda lines: ["# nothing\n", "\n"],
    "bad score": lambda lines: [*lines[:100], "q3 Q0 dx 1 abc tagA\n", *lines[100:]],
    "short line": lambda lines: [*lines[:200], "q6 Q0 dx\n", *lines[200:]],
    "no judged topic": lambda lines: [x.replace("q", "z", 1) for x in lines],
}


@pytest.mark.parametrize("case", list(ERRORS))
@pytest.mark.parametrize("opts", [[], ["-q"], ["--trec-eval-version", "10.0", "-q"]])
def test_errors_as_the_whole_file(monkeypatch, spy, tmp_path, case, opts):
    """trec_eval's messages, what it printed before them and its exit status, unchanged: the
    whole file is read again."""
    qrels, lines = _collection(np.random.default_rng(5))
    q, r = _write(tmp_path, qrels, "".join(ERRORS[case](lines)).encode())
    streamed, whole = _both(monkeypatch, [*opts, q, r], 150)
    assert streamed == whole
    assert streamed[0] != 0
    assert spy.fell_back()


@pytest.mark.parametrize(
    ("opts", "streams"), [(["-q"], False), (["-q", "-c"], True), ([], False), (["-c"], True)]
)
def test_qrels_topic_missing_from_the_run_10(monkeypatch, spy, tmp_path, opts, streams):
    """10.0 stops on a qrels topic the run lacks: the whole-file reading prints that.  With -c
    it evaluates a stand-in ranking for it: the blocks give the whole file's output."""
    qrels, lines = _collection(np.random.default_rng(6))
    q, r = _write(tmp_path, qrels, "".join(x for x in lines if not x.startswith("q4 ")).encode())
    streamed, whole = _both(monkeypatch, ["--trec-eval-version", "10.0", *opts, q, r], 120)
    assert streamed == whole
    assert spy.streamed() if streams else spy.fell_back()


def test_many_files_some_streamed(monkeypatch, spy, tmp_path):
    """Files above STREAM_BYTES are read in blocks, the others together: the output is each
    file's own, in order."""
    rng = np.random.default_rng(7)
    qrels, _ = _collection(np.random.default_rng(0))
    (tmp_path / "qrels").write_bytes(qrels)
    paths = []
    for i, n in enumerate([3, 12, 2, 12, 4]):
        _, lines = _collection(np.random.default_rng(0), n_topics=n, tag=f"run{i}")
        rng.shuffle(lines) if i == 3 else None  # one large file not grouped: read whole
        (tmp_path / f"r{i}").write_text("".join(lines))
        paths.append(tmp_path / f"r{i}")
    want = "".join(_run(monkeypatch, ["-q", tmp_path / "qrels", p], None)[1] for p in paths)
    monkeypatch.setattr(_textfile, "BLOCK_BYTES", 200)
    monkeypatch.setattr(cli, "STREAM_BYTES", 5000)  # r1 and r3
    out = io.StringIO()
    assert cli.main(["eval", "-q", str(tmp_path / "qrels"), *map(str, paths)], out=out) == 0
    assert out.getvalue() == want
    assert [r is not None for r in spy.results] == [True, False]


# ------------------------------------------------------------------ property test


@st.composite
def _runs(draw):
    n_topics = draw(st.integers(1, 6))
    topics = draw(
        st.lists(
            st.sampled_from(["1", "2", "10", "07", "a", "B", "é", "z9"]),
            min_size=n_topics,
            max_size=n_topics,
            unique=True,
        )
    )
    lines = []
    for t in topics:
        n = draw(st.integers(1, 9))
        docs = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n, unique=True))
        for r, d in enumerate(docs):
            score = draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]))
            lines.append(f"{t} Q0 D{d} {r + 1} {score} run{t}\n")
    if draw(st.booleans()):  # a file not grouped by topic
        lines = draw(st.permutations(lines))
    qrels = [
        f"{t} 0 D{d} {draw(st.integers(0, 2))}\n"
        for t in ["1", "2", "07", "a", "é", "x"]
        for d in draw(st.lists(st.integers(0, 12), min_size=1, max_size=5, unique=True))
    ]
    return "".join(qrels), "".join(lines)


@settings(max_examples=40)
@given(
    data=_runs(),
    block=st.integers(1, 400),
    opts=st.sampled_from(
        [[], ["-q"], ["-q", "-c"], ["-q", "-M", "3"], ["-q", "-J", "-m", "all_trec"]]
    ),
    version=st.sampled_from(["9.0.8", "10.0"]),
)
def test_property_blocks_give_the_whole_file_output(tmp_path_factory, data, block, opts, version):
    """Property: random small runs (grouped by topic or not, with ties, topics the qrels lack,
    qrels topics the run lacks) read in blocks of a random size give the whole-file output,
    exit status and messages."""
    tmp = tmp_path_factory.mktemp("prop")
    q, r = _write(tmp, data[0].encode(), data[1].encode())
    args = ["--trec-eval-version", version, *opts, q, r]
    with pytest.MonkeyPatch.context() as mp:
        streamed, whole = _both(mp, args, block)
    assert streamed[:3] == whole[:3]


# ------------------------------------------------------------------ the reader


def _topics(text: bytes) -> set[bytes]:
    """The topics (first fields) of the data lines of ``text``."""
    return {f[0] for f in (line.split() for line in text.splitlines()) if f and f[0][:1] != b"#"}


@settings(max_examples=150)
@given(
    sizes=st.lists(st.integers(1, 30), min_size=1, max_size=12),
    block=st.integers(1, 200),
    gz=st.booleans(),
    eol=st.sampled_from([b"\n", b"\r\n"]),
    extras=st.lists(st.tuples(st.integers(0, 400), st.sampled_from([b"", b"# c", b"#"]))),
    final_eol=st.booleans(),
)
def test_property_topic_blocks_hold_whole_topics(sizes, block, gz, eol, extras, final_eol):
    """Property: the blocks put together are the file; no topic is in two blocks (empty and
    comment lines anywhere, CRLF, a last line without a line break); a block is at most the
    block size plus the longest topic (memory bounded by the longest topic)."""
    lines = [b"t%d Q0 d%d %d 1.0 r" % (i, j, j) for i, n in enumerate(sizes) for j in range(n)]
    for pos, extra in sorted(extras, reverse=True):
        lines.insert(min(pos, len(lines)), extra)
    text = eol.join(lines) + (eol if final_eol else b"")
    src = io.BytesIO(gzip.compress(text) if gz else text)
    blocks = [bytes(b) for b in _textfile.topic_blocks(src, block)]
    assert b"".join(blocks) == text
    assert sum(len(_topics(b)) for b in blocks) == len(sizes)
    longest = max(n * 25 for n in sizes) + sum(len(x) + 2 for _, x in extras)
    assert all(len(b) <= block + 2 * longest for b in blocks)


# ------------------------------------------------------------------ the trec_eval binary


@pytest.mark.skipif(BINARY is None, reason="no trec_eval binary ($IRFRAME_TREC_EVAL or PATH)")
@pytest.mark.parametrize(
    ("opts", "lacking"),
    [
        ([], False),
        (["-q"], False),
        (["-m", "recip_rank", "-m", "recall.1000", "-m", "ndcg_cut.10", "-m", "map"], False),
        (["-q", "-c", "-M", "50", "-m", "all_trec"], False),
        (["-q", "-c", "-m", "all_trec"], True),
        (["-c"], True),
    ],
    ids=["default", "q", "four", "all_trec-q-c-M50", "all_trec-q-c-lacking", "c-lacking"],
)
def test_msmarco_shaped_file_against_trec_eval(monkeypatch, spy, tmp_path, opts, lacking):
    """An MS MARCO-shaped run (sparse judgments: about one relevant document per query, a
    corpus of millions, 100 documents per query with tied scores) read in blocks of 20 KB
    gives the binary's output (NIST's 10.0 source, as the other tests of the binary).
    ``lacking``: every 13th judged query is left out of the run, which -c evaluates with
    10.0's stand-in ranking."""
    rng = np.random.default_rng(11)
    n_q, depth = 300, 100
    qrels, run = [], []
    for i in range(n_q):
        t = str(1000 + 7 * i)
        if i % 10:  # some queries unjudged
            for d in rng.choice(8_000_000, rng.integers(1, 3), replace=False):
                qrels.append(f"{t} 0 {d} 1\n")
        docs = rng.choice(8_000_000, depth, replace=False)
        if i % 3 == 0 and qrels:
            docs[rng.integers(depth)] = int(qrels[-1].split()[2])
        scores = np.sort(np.round(rng.gamma(2.0, 1.0, depth), 1))[::-1]
        if lacking and i % 13 == 1:
            continue
        run += [
            f"{t} Q0 {d} {r + 1} {s:.3f} bm25\n"
            for r, (d, s) in enumerate(zip(docs, scores, strict=True))
        ]
    q, r = _write(tmp_path, "".join(qrels).encode(), "".join(run).encode())
    want = subprocess.run([BINARY, *opts, str(q), str(r)], capture_output=True, check=True)
    status, out, err, _ = _run(monkeypatch, ["--trec-eval-version", "10.0", *opts, q, r], 20_000)
    assert (status, err) == (0, "")
    assert out == want.stdout.decode()
    assert spy.streamed()


def test_prefetch_leaves_large_files_to_the_blocks(monkeypatch, tmp_path):
    """The thread that reads run files while pandas is imported skips a file of at least
    STREAM_BYTES (it would hold the whole file in memory): the reader streams it."""
    import time

    from irframe import _prefetch

    big = tmp_path / "big.gz"
    big.write_bytes(gzip.compress((DATA / "results.test").read_bytes()))
    small = DATA / "results.test"
    monkeypatch.setattr(_prefetch, "STREAM_BYTES", 5 * big.stat().st_size)  # gzip counted 5×
    try:
        assert _prefetch.start(["eval", str(DATA / "qrels.test"), str(big), str(small)])
        deadline = time.monotonic() + 60
        while _prefetch.reading():
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert _prefetch._state[str(big)] is None
        assert isinstance(_prefetch._state[str(small)], dict)
    finally:
        _prefetch.stop()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-m", "all_trec", "-q", DATA / "qrels.test", DATA / "results.test"], "out.test.aq"),
        (
            ["-m", "all_trec", "-q", "-c", DATA / "qrels.test", DATA / "results.trunc"],
            "out.test.aqc",
        ),
    ],
)
def test_without_reading_ahead(monkeypatch, spy, args, expected):
    """One thread (READ_AHEAD off, as on a one-core machine): the same outputs."""
    monkeypatch.setattr(_evalstream, "READ_AHEAD", False)
    status, out, err, _ = _run(monkeypatch, args, 100)
    assert (status, out, err) == (0, (EXPECTED / expected).read_text(), "")
    grouped = str(args[-1]).endswith("results.test")
    assert spy.streamed() if grouped else spy.fell_back()


def test_missing_file_as_the_whole_file(monkeypatch, spy, tmp_path):
    """A run file that cannot be opened: the whole-file reading's message and status."""
    args = ["-q", DATA / "qrels.test", tmp_path / "no-such-run"]
    streamed, whole = _both(monkeypatch, args, 100)
    assert streamed == whole
    assert streamed[0] == 2 and "no-such-run" in streamed[2]


@pytest.mark.parametrize(
    ("category", "streams"), [("ConventionWarning", False), ("FutureWarning", True)]
)
def test_warnings_while_evaluating_a_block(monkeypatch, spy, category, streams):
    """One of irframe's warnings in a block sends the file to the whole-file reading (whose
    warning, a ConventionWarning, the command line does not print: it is trec_eval's
    reading); another library's warning is printed once, as one line."""
    from irframe import errors

    real = _evalstream.trec_eval_runs
    cls = getattr(errors, category, None) or FutureWarning

    def warning(*args, **kwargs):
        warnings.warn("a block's warning", cls, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_evalstream, "trec_eval_runs", warning)
    status, out, err, caught = _run(monkeypatch, [DATA / "qrels.test", DATA / "results.test"], 200)
    shown = "irframe: warning: a block's warning\n" if streams else ""
    assert (status, out, err) == (0, (EXPECTED / "out.test").read_text(), shown)
    assert spy.streamed() is streams
    assert caught.count("a block's warning") == 0  # printed by the command, not re-raised


@pytest.mark.parametrize("case", ["grouped", "duplicate doc"])
def test_standard_input_of_the_command(tmp_path, case):
    """The command itself (a child process) with standard input redirected from a file and
    from a pipe: the output, messages and status of the file named on the command line (a
    duplicate document: the blocks stop, the input is read again from where it started, or
    from the copy of the pipe's bytes)."""
    qrels, lines = _collection(np.random.default_rng(8))
    if case != "grouped":
        lines = ERRORS[case](lines)
    q, r = _write(tmp_path, qrels, "".join(lines).encode())
    cmd = [sys.executable, "-m", "irframe", "eval", "-q", str(q)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    want = subprocess.run([*cmd, str(r)], capture_output=True, env=env, timeout=120)
    with open(r, "rb") as f:
        from_file = subprocess.run([*cmd, "-"], stdin=f, capture_output=True, env=env, timeout=120)
    from_pipe = subprocess.run(
        [*cmd, "-"], input=r.read_bytes(), capture_output=True, env=env, timeout=120
    )
    for got in (from_file, from_pipe):
        assert got.returncode == want.returncode
        assert got.stdout == want.stdout
        assert got.stderr == want.stderr.replace(str(r).encode(), b"<stream>").replace(
            b"Quit in file '<stream>'", b"Quit in file '-'"
        )
    assert (want.returncode == 0) is (case == "grouped")


def test_without_pyarrow(monkeypatch, spy):
    """The pandas reader (no pyarrow) parses the blocks: trec_eval's output."""
    monkeypatch.setattr(_textfile, "USE_ARROW", False)
    args = ["-m", "all_trec", "-q", DATA / "qrels.test", DATA / "results.test"]
    status, out, err, _ = _run(monkeypatch, args, 300)
    assert (status, out, err) == (0, (EXPECTED / "out.test.aq").read_text(), "")
    assert spy.streamed()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a" * 40, "a" * 40 + "b", "a" * 39, "a" * 16, "a" * 17, "ab", "a"]),
        min_size=1,
        max_size=30,
    )
)
def test_last_topic_start_with_long_topic_ids(topics):
    """Property (brute force written here): where a block's last topic begins, for topic ids
    of up to 41 bytes that share long prefixes (a long id is compared whole past its first
    16 bytes: the loop over every byte took seconds for ids of 100 KB)."""
    from irframe._textfile import last_topic_start

    lines = [f"{t} Q0 d{i} {i} 1 r\n".encode() for i, t in enumerate(topics)]
    data = b"".join(lines)
    last = topics[-1]
    k = len(topics) - 1
    while k > 0 and topics[k - 1] == last:
        k -= 1
    assert last_topic_start(data) == (sum(map(len, lines[:k])), last.encode())
