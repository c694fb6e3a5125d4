"""Several run files in one `irframe eval` call: exactly the outputs of one trec_eval call per file.

The files are read and aligned together (each file one system); every per-file rule of
trec_eval must survive that: the file's own topics, ``-c``, ``-M``, ``-J``, ``-l``, the run id
of the file's last line, errors in file order.  References: trec_eval's own expected outputs
(``tests/data/trec_eval/expected_v9.0.8``, from NIST's repository), outputs of the trec_eval
9.0.8 and 10.0 binaries kept in ``tests/data/trec_eval/generated`` (provenance in
``tests/data/trec_eval/SOURCE.txt``) and, on the Robust03 runs of ``../shared``, those of
``tests/data/trec_eval_robust03`` (PROVENANCE.txt there).  A call per file is compared too
(a property: the batch path must not change any byte).
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from irframe import cli

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "trec_eval"
EXPECTED = DATA / "expected_v9.0.8"
ROBUST = HERE / "data" / "trec_eval_robust03"


def _eval(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["eval", *map(str, argv)], out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def _ok(*argv: str) -> str:
    status, out, err = _eval(*argv)
    assert status == 0, err
    return out


@pytest.fixture
def runs(tmp_path):
    """results.test, results.trunc (2 of its 3 topics) and a gzipped copy of results.trunc."""
    trunc_gz = tmp_path / "input.trunc_copy.gz"
    trunc_gz.write_bytes(gzip.compress((DATA / "results.trunc").read_bytes()))
    return [DATA / "results.test", DATA / "results.trunc", trunc_gz]


def test_many_files_equal_trec_eval_expected_outputs(runs):
    # out.test.aq: trec_eval -m all_trec -q on results.test; out.test.aqc: -m all_trec -q -c on results.trunc
    aq, aqc = (EXPECTED / "out.test.aq").read_text(), (EXPECTED / "out.test.aqc").read_text()
    assert _ok("-q", "-m", "all_trec", DATA / "qrels.test", runs[0], runs[0]) == aq + aq
    assert _ok("-q", "-c", "-m", "all_trec", DATA / "qrels.test", *runs[1:]) == aqc + aqc
    # -c gives results.trunc's missing topic an empty ranking but must not touch results.test
    want_c = _ok("-q", "-c", "-m", "all_trec", DATA / "qrels.test", runs[0])
    assert _ok("-q", "-c", "-m", "all_trec", DATA / "qrels.test", runs[0], runs[1]) == want_c + aqc


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["-q"],
        ["-q", "-c"],
        ["-q", "-M", "100"],
        ["-q", "-J"],
        ["-q", "-l", "2"],
        ["-q", "-m", "all_trec", "-c", "-M", "50"],
        ["-n", "-q", "-m", "relstring"],
        ["-q", "-D", "0.302"],
        ["-m", "all_trec", "-N", "5000"],
    ],
)
def test_many_files_equal_one_call_per_file(runs, flags, version):
    args = ["--trec-eval-version", version, *flags, DATA / "qrels.test"]
    singles = [_eval(*args, r) for r in runs]
    status, out, err = _eval(*args, *runs)
    want_out = ""
    for s, o, e in singles:  # trec_eval stops at the first file it fails on
        want_out += o
        if s != 0:
            assert (status, err) == (s, e)
            break
    else:
        assert status == 0, err
    assert out == want_out


def test_a_file_with_two_tags_is_one_run():
    """trec_eval evaluates every line of a file as one run and prints its last line's tag."""
    gen = DATA / "generated"
    for version in ("9.0.8", "10.0"):
        out = _ok(
            "--trec-eval-version", version, "-q", DATA / "qrels.test", gen / "results.two_tags"
        )
        assert out == (gen / f"out.two_tags.q.v{version}").read_text()
    both = _ok("-q", DATA / "qrels.test", gen / "results.two_tags", DATA / "results.test")
    assert both == (gen / "out.two_tags.q.v9.0.8").read_text() + _ok(
        "-q", DATA / "qrels.test", DATA / "results.test"
    )


def test_failures_in_file_order(runs, tmp_path):
    """The files before a failing one are printed, then trec_eval's message and status."""
    first = _ok(DATA / "qrels.test", runs[0])
    no_overlap = tmp_path / "other_topics.txt"
    no_overlap.write_text("999 Q0 d1 1 1.0 x\n")
    status, out, err = _eval(DATA / "qrels.test", runs[0], no_overlap, runs[1])
    assert (status, out, err) == (
        7,
        first,
        "trec_eval: No queries with both results and relevance info\n",
    )
    bad = tmp_path / "bad.txt"
    bad.write_text("301 Q0 d1 1\n")
    status, out, err = _eval(DATA / "qrels.test", runs[0], bad, runs[1])
    assert (
        (status, out) == (2, first)
        and "line 1" in err
        and f"trec_eval: Quit in file '{bad}'" in err
    )
    dup = tmp_path / "dup.txt"  # a file with a document twice in a topic
    dup.write_text("301 Q0 d1 1 2.0 x\n301 Q0 d1 2 1.0 x\n")
    status, out, err = _eval(DATA / "qrels.test", runs[0], dup)
    single = _eval(DATA / "qrels.test", dup)
    assert (status, out, err) == (single[0], first, single[2])
    assert _eval("--trec-eval-version", "10.0", DATA / "qrels.test", runs[0], runs[1])[0] == 4


def test_same_file_twice_and_irframe_measures(runs):
    one = _ok("-m", "map", "-m", "nDCG@10", DATA / "qrels.test", runs[1])
    assert _ok("-m", "map", "-m", "nDCG@10", DATA / "qrels.test", runs[1], runs[1]) == one + one


@pytest.mark.shared
@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize(
    "config,args",
    [
        ("q.c.l2.all_trec", ["-q", "-c", "-l", "2", "-m", "all_trec"]),
        ("q.M50.all_trec", ["-q", "-M", "50", "-m", "all_trec"]),
        pytest.param("q.J", ["-q", "-J"], marks=pytest.mark.slow),
    ],
)
def test_robust03_runs_in_one_call_equal_trec_eval(shared_data, tmp_path, version, config, args):
    """Five Robust03 runs (depths 10-12, 100, ~1000; the most tied scores) in one call print
    byte for byte the five trec_eval outputs kept in tests/data/trec_eval_robust03."""
    base = shared_data / "robust03"
    names = ["pircRBa1", "NLPR03vb10", "aplrob03a", "humR03dc", "uic0301"]
    want = "".join(
        gzip.decompress((ROBUST / version / f"{n}.{config}.txt.gz").read_bytes()).decode()
        for n in names
    )
    out = _ok(
        "--trec-eval-version",
        version,
        *args,
        base / "qrels" / "robust03_qrels.txt.gz",
        *[base / "runs" / f"input.{n}.gz" for n in names],
    )
    if out != want:
        # the outputs may differ in length too: compare the common lines
        bad = [(g, e) for g, e in zip(out.splitlines(), want.splitlines(), strict=False) if g != e]
        pytest.fail(f"{len(bad)} lines differ, e.g. {bad[:3]}")


@pytest.mark.parametrize("limit", [1, 200_000, 10**9])
def test_groups_of_files_same_output(runs, monkeypatch, limit):
    """Files are evaluated in groups of bounded size (memory); any grouping prints the same."""
    files = [runs[0], runs[1], runs[0], runs[2], runs[1]]
    want = "".join(_ok("-q", "-c", DATA / "qrels.test", f) for f in files)
    monkeypatch.setattr(cli, "BATCH_BYTES", limit)
    assert _ok("-q", "-c", DATA / "qrels.test", *files) == want


def test_many_files_take_the_one_alignment_path(runs, monkeypatch):
    """The comparisons above are not vacuous: without failures the files are evaluated
    together, never one by one."""
    want = _ok("-q", "-m", "all_trec", DATA / "qrels.test", *runs)

    def one_by_one(*args):
        raise AssertionError("evaluated file by file")

    monkeypatch.setattr(cli, "_one_by_one", one_by_one)
    assert _ok("-q", "-m", "all_trec", DATA / "qrels.test", *runs) == want
    assert _ok("-q", "-c", "--trec-eval-version", "10.0", DATA / "qrels.test", *runs)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_tables_same_from_one_alignment_and_file_by_file(runs, monkeypatch, fmt):
    args = ["-q", "-c", "-m", "all_trec", "--format", fmt, DATA / "qrels.test", *runs]
    together = _ok(*args)
    monkeypatch.setattr(cli, "BATCH_BYTES", 1)  # every file its own group: file by file
    assert _ok(*args) == together
