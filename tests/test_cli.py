"""Tests of the command line: `irframe eval` must print what trec_eval 9.0.8 prints."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import irframe as irf
from irframe import cli

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
EXPECTED = DATA / "expected_v9.0.8"
REPO = Path(__file__).resolve().parents[1]

_DEFAULT_LINE = re.compile(
    r"^(runid|num_q|{}) ".format("|".join(re.escape(m) for m in cli.TREC_EVAL_DEFAULT))
)


def run_main(*argv: str) -> str:
    out = io.StringIO()
    assert cli.main(list(argv), out=out) == 0
    return out.getvalue()


def default_lines(expected: Path) -> str:
    """The lines of a `-m all_trec` output that belong to trec_eval's default measures."""
    lines = expected.read_text().splitlines(keepends=True)
    return "".join(line for line in lines if _DEFAULT_LINE.match(line))


# ----------------------------------------------------------------------------- formatting


def test_format_trec_line():
    assert cli.format_trec_line("map", "all", 0.17854506) == "map                   \tall\t0.1785"
    assert (
        cli.format_trec_line("num_rel_ret", "301", 71.0, integer=True)
        == "num_rel_ret           \t301\t71"
    )
    assert (
        cli.format_trec_line("runid", "all", "STANDARD") == "runid                 \tall\tSTANDARD"
    )
    assert cli.format_trec_line("x", "1", -0.5) == "x                     \t1\t-0.5000"


def test_default_measures_are_trec_evals():
    names = [line.split()[0] for line in (EXPECTED / "out.test").read_text().splitlines()]
    assert names[:2] == ["runid", "num_q"]
    assert tuple(names[2:]) == cli.TREC_EVAL_DEFAULT


def test_parser_getopt_semantics():
    """trec_eval's GNU getopt: options anywhere, -m takes exactly one value, attached values."""
    o = cli.parse_eval_args(
        [
            "q",
            "-m",
            "AP",
            "r1",
            "-mP.5,10",
            "r2",
            "-q",
            "-c",
            "-l2",
            "-M",
            "100",
            "-J",
            "--order",
            "rank",
            "--format",
            "csv",
            "--nosummary",
            "--level_for_rel",
            "3",
        ]
    )
    assert o["files"] == ["q", "r1", "r2"]
    assert o["measures"] == ["AP", "P.5,10"]
    assert o["per_topic"] and o["complete"] and o["judged_only"] and not o["summary"]
    assert (o["rel_level"], o["depth"], o["order"], o["format"]) == (3, 100, "rank", "csv")
    with pytest.raises(cli.UsageError):
        cli.parse_eval_args(["q", "r", "--order", "sideways"])
    with pytest.raises(cli.UsageError, match="invalid option -- 'x'"):
        cli.parse_eval_args(["-x", "q", "r"])


# ----------------------------------------------------------------------------- trec_eval outputs


def test_default_output_equals_trec_eval():
    out = run_main("eval", str(DATA / "qrels.test"), str(DATA / "results.test"))
    assert out == (EXPECTED / "out.test").read_text()


def test_obsolete_o_flag_changes_nothing():
    """trec_eval accepts -o (--Output_old_results_format) and ignores it ("obsolete, no longer
    supported"): NIST's expected output with and without it."""
    for flag in ("-o", "--Output_old_results_format=1"):  # the long form takes a value (ignored)
        out = run_main("eval", flag, str(DATA / "qrels.test"), str(DATA / "results.test"))
        assert out == (EXPECTED / "out.test").read_text()


@pytest.mark.parametrize(
    "args, qrels, run, expected",
    [
        (["-q"], "qrels.test", "results.test", "out.test.aq"),
        (["-q", "-c"], "qrels.test", "results.trunc", "out.test.aqc"),
        (["-q", "-c", "-M", "100"], "qrels.test", "results.trunc", "out.test.aqcM"),
        (["-q", "-l", "2"], "qrels.rel_level", "results.test", "out.test.aql"),
    ],
)
def test_per_topic_outputs_equal_trec_eval(args, qrels, run, expected):
    out = run_main("eval", str(DATA / qrels), str(DATA / run), *args)
    assert out == default_lines(EXPECTED / expected)


def test_qrels_with_comments_same_output():
    out = run_main("eval", str(DATA / "qrels.test.with-comments"), str(DATA / "results.test"))
    # the commented file differs in one docno (CR#93E-1860, judged 0): same numbers
    assert out == (EXPECTED / "out.test").read_text()


def test_names_printed_as_passed():
    out = run_main(
        "eval",
        str(DATA / "qrels.test"),
        str(DATA / "results.test"),
        "-m",
        "AP",
        "-m",
        "P@10",
        "-m",
        "map",
        "-m",
        "num_rel_ret",
    )
    lines = out.splitlines()
    # trec_eval's measures first (in its order), irframe strings after, as given
    assert [line.split("\t")[0].strip() for line in lines] == ["num_rel_ret", "map", "AP", "P@10"]
    assert lines[2] == "AP                    \tall\t0.1785"
    assert lines[3] == "P@10                  \tall\t0.3000"
    assert lines[0] == "num_rel_ret           \tall\t131"


def test_several_runs_one_block_each(tmp_path):
    second = tmp_path / "input.other.gz"
    import gzip

    second.write_bytes(gzip.compress((DATA / "results.trunc").read_bytes()))
    out = run_main(
        "eval",
        str(DATA / "qrels.test"),
        str(DATA / "results.test"),
        str(second),
        "-m",
        "map",
        "-m",
        "runid",
        "-m",
        "num_q",
    )
    assert out == (
        "runid                 \tall\tSTANDARD\nnum_q                 \tall\t3\n"
        "map                   \tall\t0.1785\n"
        "runid                 \tall\tSTANDARD\nnum_q                 \tall\t2\n"
        "map                   \tall\t0.1523\n"
    )
    # (0.0324 + 0.2723) / 2: the per-topic values of trec_eval's out.test.aqc, 2 topics without -c


@pytest.mark.parametrize("bad", [None, 1, 4])
def test_large_groups_run_as_two_halves_in_file_order(tmp_path, monkeypatch, capsys, bad):
    """Files evaluated as two halves on two threads (forced here by a 0-byte threshold) print
    trec_eval 9.0.8's own output for each file (expected_v9.0.8/out.test), in file order;
    a malformed file stops the command there, as a series of trec_eval calls would stop,
    whichever half it is in (nothing of the files after it is printed)."""
    import irframe.treceval as tv

    monkeypatch.setattr(cli, "HALVES_BYTES", 0)
    parts = []
    real = tv.trec_eval_runs
    monkeypatch.setattr(
        tv,
        "trec_eval_runs",
        lambda runs, q, *a, **k: parts.append(runs.system.nunique()) or real(runs, q, *a, **k),
    )
    files = []
    for i in range(6):
        f = tmp_path / f"run{i}.txt"
        f.write_bytes(b"301 Q0 doc 1\n" if i == bad else (DATA / "results.test").read_bytes())
        files.append(str(f))
    out = io.StringIO()
    status = cli.main(["eval", str(DATA / "qrels.test"), *files], out=out)
    assert sorted(parts) == ([3, 3] if bad is None else [1] * bad)  # (else file by file)
    expected = (EXPECTED / "out.test").read_text()
    if bad is None:
        assert status == 0 and out.getvalue() == expected * 6
    else:
        assert status == 2 and out.getvalue() == expected * bad
        assert f"trec_eval: Quit in file '{files[bad]}'" in capsys.readouterr().err


def test_halves_split_by_text_size():
    sizes = (
        [10 << 20] * 4,
        [1, 1, 1, 30 << 20],
        [30 << 20, 1, 1, 1],
        [1 << 20] * 3,
        [10 << 20] * 5,
        [1 << 20] * 10,
    )
    assert [cli._cut(s) for s in sizes] == [2, 2, 2, None, 2, 5]


def test_csv_and_json(tmp_path):
    args = [
        "eval",
        str(DATA / "qrels.test"),
        str(DATA / "results.test"),
        "-m",
        "AP",
        "-m",
        "num_ret",
        "-m",
        "num_q",
        "-q",
    ]
    df = pd.read_csv(io.StringIO(run_main(*args, "--format", "csv")), dtype={"topic": str})
    assert df.columns.tolist() == ["run", "topic", "measure", "value"]
    assert len(df) == 3 * 2 + 3  # per topic + num_q + 2 summaries
    summary = df[df.topic == "all"].set_index("measure")["value"]
    assert summary["num_q"] == 3 and summary["num_ret"] == 1500
    assert summary["AP"] == pytest.approx(0.178545, abs=1e-6)
    rows = json.loads(run_main(*args, "--format", "json"))
    assert {tuple(r) for r in rows} == {("run", "topic", "measure", "value")}
    assert [r["value"] for r in rows if r["topic"] == "all" and r["measure"] == "num_ret"] == [1500]
    assert len(rows) == len(df)


def test_bad_input_exit_status(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("301 Q0 doc 1\n")
    # trec_eval: "Quit in file" and exit status 2 for an unreadable file; irframe names the line
    assert cli.main(["eval", str(DATA / "qrels.test"), str(bad)], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.startswith("irframe: error:") and "line 1" in err and str(bad) in err
    assert f"trec_eval: Quit in file '{bad}'" in err
    assert (
        cli.main(
            ["eval", str(DATA / "qrels.test"), str(DATA / "results.test"), "-m", "NoSuchMeasure"],
            out=io.StringIO(),
        )
        == 1
    )
    assert "trec_eval: illegal measure 'NoSuchMeasure'" in capsys.readouterr().err


def test_python_dash_m():
    """`python -m irframe eval ...` works and prints trec_eval's out.test."""
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "irframe",
            "eval",
            str(DATA / "qrels.test"),
            str(DATA / "results.test"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == (EXPECTED / "out.test").read_text()


@pytest.mark.shared
def test_robust03_matches_trec_eval_908(shared_data):
    """A real run: per-topic default measures equal trec_eval 9.0.8's output."""
    base = shared_data / "robust03"
    run = base / "runs" / "input.pircRBa1.gz"
    expected = base / "expected" / "trec_eval_9.0.8" / "pircRBa1.all_trec.q.txt.gz"
    qrels = base / "qrels" / "robust03_qrels.txt.gz"
    if not (run.exists() and expected.exists() and qrels.exists()):
        pytest.skip("robust03 files not in shared data")
    import gzip

    text = gzip.decompress(expected.read_bytes()).decode()
    want = "".join(line for line in text.splitlines(keepends=True) if _DEFAULT_LINE.match(line))
    out = run_main("eval", str(qrels), str(run), "-q")
    assert out == want


# ----------------------------------------------------------------------------- trec_eval's command line


def test_run_from_standard_input(monkeypatch):
    """`-` reads the run from standard input (trec_eval 10.0's help), same output as the file."""
    data = (DATA / "results.test").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert run_main("eval", str(DATA / "qrels.test"), "-") == (EXPECTED / "out.test").read_text()


def test_no_common_topic_exit_status_7(tmp_path, capsys):
    """trec_eval: 'No queries with both results and relevance info', exit status 7."""
    run = tmp_path / "run.txt"
    run.write_text("999 Q0 doc1 1 1.0 tag\n")
    status = cli.main(["eval", str(DATA / "qrels.test"), str(run)], out=io.StringIO())
    assert status == 7
    assert capsys.readouterr().err == "trec_eval: No queries with both results and relevance info\n"


def test_version_10_stops_on_missing_topic(capsys):
    """trec_eval 10.0 (built from its source) exits 4 with this message when a qrels topic has no
    results and -c is not given; 9.0.8 evaluates the run's topics."""
    status = cli.main(
        [
            "eval",
            "--trec-eval-version",
            "10.0",
            str(DATA / "qrels.test"),
            str(DATA / "results.trunc"),
        ],
        out=io.StringIO(),
    )
    assert status == 4
    assert capsys.readouterr().err == "trec_eval: result qid '302' not found in qrels\n"
    assert (
        run_main("eval", str(DATA / "qrels.test"), str(DATA / "results.trunc"), "-m", "num_q")
        == "num_q                 \tall\t2\n"
    )


def test_measure_syntax_errors_exit_like_trec_eval(capsys):
    args = [str(DATA / "qrels.test"), str(DATA / "results.test")]
    assert cli.main(["eval", "-m", "P.", *args], out=io.StringIO()) == 1  # improper measure
    assert "trec_eval: improper measure in parameter 'P'" in capsys.readouterr().err
    assert cli.main(["eval", "-m", "P.0", *args], out=io.StringIO()) == 2  # trec_eval: exit 2
    assert "Negative cutoff" in capsys.readouterr().err
    assert cli.main(["eval", "-m", "P.5,5", *args], out=io.StringIO()) == 2
    assert "duplicate cutoffs" in capsys.readouterr().err
    assert cli.main(["eval", args[0]], out=io.StringIO()) == 1  # one file: usage
    assert capsys.readouterr().err.startswith("Usage: trec_eval")


def test_json_is_strict_and_keeps_trec_values():
    out = run_main(
        "eval",
        str(DATA / "qrels.test"),
        str(DATA / "results.test"),
        "-q",
        "-m",
        "all_trec",
        "--format",
        "json",
    )
    rows = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    by = {(r["topic"], r["measure"]): r["value"] for r in rows}
    assert by[("all", "num_q")] == 3 and by[("301", "relstring")] == "0000011000"
    trec = run_main(
        "eval", str(DATA / "qrels.test"), str(DATA / "results.test"), "-q", "-m", "all_trec"
    )
    assert trec == (EXPECTED / "out.test.aq").read_text()  # the trec format unchanged by the extras


def test_parameter_lists_expand_in_python():
    import irframe as irf

    qrels, runs = irf.read_qrels(DATA / "qrels.test"), irf.read_run(DATA / "results.test")
    cube = irf.evaluate(runs, qrels, ["P.5,10", "ndcg_cut.3", "map"])
    assert cube.measure.values.tolist() == ["P_5", "P_10", "ndcg_cut_3", "map"]
    # the same numbers as the trec_eval names one by one
    single = irf.evaluate(runs, qrels, ["P_5", "P_10", "ndcg_cut_3", "map"])
    assert (cube.values == single.values).all()
    with pytest.raises(ValueError, match="relstring"):
        irf.evaluate(runs, qrels, ["relstring"])
    assert irf.evaluate(runs, qrels, "success").measure.values.tolist() == [
        "success_1",
        "success_5",
        "success_10",
    ]


@pytest.mark.parametrize("how", ["-m", "script"])
def test_command_line_does_not_import_xarray(tmp_path, how):
    """`irframe eval` builds no cube: xarray (~0.1 s, ~13 MB) stays unimported (docs/performance.md),
    whether run as ``python -m irframe`` or as the ``irframe`` script (a file of that name)."""
    args = ["eval", "-q", "-m", "all_trec", str(DATA / "qrels.test"), str(DATA / "results.test")]
    if how == "-m":
        cmd = [sys.executable, "-X", "importtime", "-m", "irframe", *args]
    else:
        script = tmp_path / "irframe"
        script.write_text("import sys\nfrom irframe.cli import main\nsys.exit(main())\n")
        cmd = [sys.executable, "-X", "importtime", str(script), *args]
    r = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert r.returncode == 0, r.stderr
    assert "irframe.cli" in r.stderr  # -X importtime lists every module imported
    assert not [line for line in r.stderr.splitlines() if line.rstrip().endswith(" xarray")]


def test_library_imports_xarray_at_import():
    """Outside the command line ``import irframe`` imports xarray, so that the first evaluation
    does not (its first call would be ~2× a warm one).  Property test."""
    r = subprocess.run(
        [sys.executable, "-c", "import sys, irframe; assert 'xarray' in sys.modules"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr


# --------------------------------------- -J leaving no document, 10.0's -c and -q stops
_GEN = DATA / "generated"
_JUDGED_OUT = {
    v: [line.split("\t") for line in (_GEN / f"status.judged_out.v{v}").read_text().splitlines()]
    for v in ("9.0.8", "10.0")
}
_JUDGED_OUT_ARGS = {
    "q.J": "-q -J -m all_trec qrels.judged_out run.judged_out",
    "q.J.c": "-q -J -c -m all_trec qrels.judged_out run.judged_out",
    "J.c": "-J -c -m all_trec qrels.judged_out run.judged_out",
    "q.J.c.params": "-q -J -c -m iprec_at_recall.0.05,0.3,0.6 -m 11pt_avg.0.25,0.5 qrels.judged_out run.judged_out",
    "q.J.l2": "-q -J -l 2 -m iprec_at_recall -m 11pt_avg -m map qrels.judged_out run.judged_out",
    "q": "-q -m map -m P.5 qrels.judged_out run.judged_out",
    "c.nocommon": "-c -m all_trec qrels.judged_out run.no_common",
    "q.J.c.nocommon": "-q -J -c -m all_trec qrels.judged_out run.no_common",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_JUDGED_OUT_ARGS))
def test_judged_out_topics_and_stops_equal_trec_eval(version, case):
    """Outputs of the trec_eval 9.0.8 and 10.0 binaries (tests/data/trec_eval/SOURCE.txt):
    -J leaving a retrieved topic without a document (iprec_at_recall/11pt_avg: C's 0.0/0.0,
    printed -nan, where a cutoff is 0 relevant documents); 10.0 -c with no run topic in the
    qrels (every topic evaluated with an empty ranking; 9.0.8 exits 7); 10.0 -q printing the
    topics before the qrels topic the run lacks, then exiting 4."""
    status_line = {name: (int(st), err) for name, st, err in _JUDGED_OUT[version]}[case]
    args = [str(_GEN / a) if (_GEN / a).is_file() else a for a in _JUDGED_OUT_ARGS[case].split()]
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["eval", "--trec-eval-version", version, *args], out=out, err=err)
    assert (status, err.getvalue()) == (
        status_line[0],
        status_line[1] + "\n" if status_line[1] else "",
    )
    assert out.getvalue() == (_GEN / f"out.judged_out.{case}.v{version}").read_text()


def test_zero_by_zero_cells_are_trec_evals_nan_and_zero_in_the_cube():
    """The groups iprec_zero_by_zero flags are the topics trec_eval 10.0 prints -nan for; the
    cube holds 0.0 there (finite: NaN in a cube means not evaluated)."""
    import irframe as irf
    from irframe.align import align
    from irframe.measures.trec import iprec_zero_by_zero

    qrels = irf.read_qrels(_GEN / "qrels.judged_out")
    run = irf.read_run(_GEN / "run.judged_out")
    text = (_GEN / "out.judged_out.q.J.c.v10.0").read_text().splitlines()
    nan_topics = sorted(
        {
            line.split("\t")[1]
            for line in text
            if line.startswith("iprec_at_recall_0.00")
            and line.endswith("-nan")
            and "\tall\t" not in line
        }
    )
    a = align(run, qrels, judged_only=True, complete=True, order="trec_eval10")
    flagged = iprec_zero_by_zero(a, "IPrec(recall=0.0)", 1)
    assert sorted(str(a.topics[t]) for t in a.group_topic[flagged]) == nan_topics == ["1", "3", "4"]
    cube = irf.evaluate(
        run, qrels, "IPrec(recall=0.0)", judged_only=True, complete=True, order="trec_eval10"
    )
    assert (cube.sel(topic=nan_topics).values == 0.0).all()


@pytest.mark.parametrize(("version", "order"), [("9.0.8", "trec_eval"), ("10.0", "trec_eval10")])
def test_rndcg_zero_by_zero_groups_are_the_topics_trec_eval_prints_nan_for(version, order):
    """rndcg_zero_by_zero flags exactly the topics each binary prints -nan for with -q -c -l 0:
    10.0 evaluates topic 4 (not in the run) with its stand-in ranking, 9.0.8 does not evaluate
    it at all (it adds 0 to the average), so it is not flagged there."""
    import irframe as irf
    from irframe.align import align
    from irframe.measures.trec import rndcg_zero_by_zero

    qrels = irf.read_qrels(_GEN / "qrels.rndcg")
    run = irf.read_run(_GEN / "run.rndcg")
    text = (_GEN / f"out.rndcg.l0.c.v{version}").read_text().splitlines()
    nan_topics = sorted(
        line.split("\t")[1]
        for line in text
        if line.startswith("Rndcg ") and line.endswith("-nan") and "\tall\t" not in line
    )
    a = align(run, qrels, complete=True, order=order)
    flagged = rndcg_zero_by_zero(a, "Rndcg", 0)
    assert sorted(str(a.topics[t]) for t in a.group_topic[flagged]) == nan_topics


# ------------------------------------- cases found by differential fuzzing against trec_eval
def _binary_case(name: str, case: str, args: str, version: str) -> None:
    """``irframe eval`` equals the trec_eval binary's stdout, stderr and exit status kept in
    generated/out.<name>.<case>.v<version> and generated/status.<name>.v<version> (case, status,
    stderr; or case, status and the stderr in err.<name>.<case>.v<version>); provenance in
    tests/data/trec_eval/SOURCE.txt."""
    rows = [
        line.split("\t") for line in (_GEN / f"status.{name}.v{version}").read_text().splitlines()
    ]
    st, msg = {r[0]: (int(r[1]), r[2] if len(r) > 2 else None) for r in rows}[case]
    argv = [str(_GEN / a) if (_GEN / a).is_file() else a for a in args.split()]
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["eval", "--trec-eval-version", version, *argv], out=out, err=err)
    if msg is None:  # stderr kept byte for byte in its own file
        # a file trec_eval names is kept as @GEN@/<name>
        expected_err = (
            (_GEN / f"err.{name}.{case}.v{version}").read_text().replace("@GEN@", str(_GEN))
        )
    else:
        expected_err = msg + "\n" if msg else ""
    assert status == st
    # an unknown measure: irframe may add its hint lines after trec_eval's message (documented)
    assert err.getvalue() == expected_err or (st == 1 and err.getvalue().startswith(expected_err))
    assert out.getvalue() == (_GEN / f"out.{name}.{case}.v{version}").read_text()


_GAIN_WALK_ARGS = {
    "ndcg": "-q -m ndcg.1=0.5,2=2 -m ndcg_rel.1=0.5,2=2 -m G.1=0.5,2=2 qrels.gain_walk run.gain_walk",
    "ndcg0": "-q -m ndcg.0=1,1=2,2=4 -m ndcg_rel.0=1,1=2,2=4 qrels.gain_walk run.gain_walk",
    "ndcg3": "-q -m ndcg.1=3,2=0.5,3=0 -m G.1=3,2=0.5,3=0 qrels.gain_walk run.gain_walk",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_GAIN_WALK_ARGS))
def test_custom_gain_ideal_walk_equals_trec_eval(version, case):
    """Custom gains: trec_eval's ideal ranking skips the gain levels without documents in the
    topic, whatever their gain, and stops at the first level holding documents whose gain is
    not positive (``1=0.5,2=2``: level 0 sorts between 1 and 2; it stops the walk only in
    topics with grade-0 documents)."""
    _binary_case("gain_walk", case, _GAIN_WALK_ARGS[case], version)


_GAIN_OVERFLOW_ARGS = {
    "big": "-q -m ndcg.1=3e9 -m ndcg_rel.1=3e9 qrels.gain_walk run.gain_walk",
    "apart": "-q -m ndcg.1=1e9,2=3e9 -m ndcg_rel.1=1e9,2=3e9 qrels.gain_walk run.gain_walk",
    "huge": "-q -m ndcg.1=1e308,2=-1e308 qrels.gain_walk run.gain_walk",
    "level": "-q -m ndcg.9999999999=1 -m ndcg.2=2 qrels.gain_walk run.gain_walk",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_GAIN_OVERFLOW_ARGS))
def test_custom_gains_beyond_c_int_sort_as_trec_eval(version, case):
    """trec_eval sorts custom gain levels with a comparator returning ``(int)(g1 - g2)``:
    differences outside C's int range (3e9, 1e308 - -1e308) come out as x86-64's INT_MIN, and
    irframe sorts them so (it raised OverflowError on the infinite difference); a level of
    10^10 is one entry of the walk, not an array that large (it ran out of memory)."""
    _binary_case("gain_overflow", case, _GAIN_OVERFLOW_ARGS[case], version)


def test_non_finite_gains_are_refused_naming_the_parameter():
    """``ndcg.1=inf`` or ``nan``: trec_eval prints inf / nan for the topics holding the level;
    a measure's value is a finite number here, so the gain is refused as the parameter it is
    (it was an OverflowError traceback)."""
    from irframe.errors import MeasureParamError

    qrels, run = _GEN / "qrels.gain_walk", _GEN / "run.gain_walk"
    for gains in ("1=inf", "1=1e400", "1=nan", "2=2,1=-inf"):
        out, err = io.StringIO(), io.StringIO()
        status = cli.main(["eval", "-m", f"ndcg.{gains}", str(qrels), str(run)], out=out, err=err)
        assert status == 1 and "not a finite number" in err.getvalue() and not out.getvalue()
        assert "Traceback" not in err.getvalue()
        with pytest.raises(MeasureParamError, match="gains: the gain of level"):
            irf.evaluate(irf.read_run(run), irf.read_qrels(qrels), [f"nDCG(gains='{gains}')"])


_CORNER_ARGS = {
    "utility2": "-m utility.1,1 qrels.gain_walk run.gain_walk",
    "utility5": "-q -m map -m utility.1,2,3,4,5 qrels.gain_walk run.gain_walk",
    "Mhuge": "-M 99999999999999999999 -m P.5 qrels.gain_walk run.gain_walk",
    "Nhuge": "-c -N 99999999999999999999 -m P.5 qrels.gain_walk run.gain_walk",
    "lhuge": "-l 99999999999999999999 -m P.5 -m map qrels.gain_walk run.gain_walk",
    "rbp": "-m rbp qrels.gain_walk run.gain_walk",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_CORNER_ARGS))
def test_command_line_corners_equal_trec_eval(version, case):
    """utility with other than 4 coefficients stops at the first topic (exit 4, two lines; it
    was exit 1); -M/-N/-l beyond a C long are atol's LONG_MAX (they were refused); rbp is
    10.0's, an illegal measure for 9.0.8 (it was evaluated as 10.0's)."""
    _binary_case("corners", case, _CORNER_ARGS[case], version)


_ZLOOKUP_ARGS = {
    "dup": "-q -c -m map -Z zscores.dup qrels.gain_walk run.gain_walk",
    "next": "-q -m map -m P.5 -Z zscores.next qrels.gain_walk run.gain_walk",
    "dup4": "-q -m map -Z zscores.dup4 qrels.gain_walk run.gain_walk",
    "empty": "-m map -Z zscores.empty qrels.gain_walk run.gain_walk",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_ZLOOKUP_ARGS))
def test_zscores_are_looked_up_as_trec_eval_looks_them_up(version, case):
    """-Z: of a (qid, measure) given several times trec_eval's binary search finds one (the
    middle of three, here), and a measure a qid lacks can be found among the next qid's
    lines (its search reads one entry past the qid's); an empty file is refused (exit 255).
    irframe took the first line and said nothing of an empty file."""
    _binary_case("zlookup", case, _ZLOOKUP_ARGS[case], version)


_JG_DUP_ARGS = {
    "dup": "-R qrels_jg -m map_avgjg qrels.jg_dup run.jg_dup",
    "dup.q": "-q -R qrels_jg -m runid qrels.jg_dup run.jg_dup",
    "twogroups": "-q -R qrels_jg -m map_avgjg -m P_avgjg.1,2 qrels.jg_twogroups run.jg_dup",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_JG_DUP_ARGS))
def test_qrels_jg_duplicate_judgment_stops_as_trec_eval(version, case):
    """-R qrels_jg: a document judged twice for a topic by one judgment group (whatever the
    grades) stops trec_eval on reading, naming the first such document in (topic, group,
    document) order, exit 2; the same document in two groups is fine."""
    _binary_case("jg_dup", case, _JG_DUP_ARGS[case], version)


_FORMAT_STOP_ARGS = {
    "refuse.missing": "-R qrels_jg -m map -m map_avgjg qrels.jg_twogroups run.jg_only2",
    "refuse.none": "-q -R qrels_jg qrels.jg_twogroups run.jg_other",
    "refuse.qp": "-q -R qrels_prefs -m num_ret -m prefs_simp qrels.jg_twogroups run.jg_only2",
    "refuse.first": "-q -R qrels_jg -m P.1 qrels.jg_twogroups run.jg_dup",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_FORMAT_STOP_ARGS))
def test_format_refusal_stops_on_the_first_topic_evaluated(version, case):
    """A family whose ranking form refuses -R's format stops trec_eval on the first topic it
    evaluates: a run sharing no topic with the judgments stops before (9.0.8: "No queries
    with both ...", exit 7), and 10.0 stops first on a first judged topic the run lacks."""
    _binary_case("jg_dup", case, _FORMAT_STOP_ARGS[case], version)


_JG_APART_ARGS = {
    "apart": "-q -R qrels_jg -m map_avgjg -m P_avgjg.1 qrels.jg_apart run.jg_apart",
    "apart.c": "-q -c -R qrels_jg -m map_avgjg -m Rprec_mult_avgjg qrels.jg_apart run.jg_apart",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_JG_APART_ARGS))
def test_avgjg_with_a_group_judging_only_topics_the_run_lacks(version, case):
    """-R qrels_jg: a judgment group whose topics the run does not retrieve is evaluated as
    trec_eval does (nothing retrieved, 0 for -c), not refused as sharing no topic with the run."""
    _binary_case("jg_dup", case, _JG_APART_ARGS[case], version)


_ZC_ARGS = {
    "c": "-c -m num_rel -m map -Z zscores.zc qrels.zc run.zc",
    "q.c": "-q -c -m num_rel -Z zscores.zc qrels.zc run.zc",
    "noc": "-m num_rel -m map -Z zscores.zc qrels.zc run.zc",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_ZC_ARGS))
def test_zscores_with_complete_num_rel_is_the_raw_count(version, case):
    """-c -Z: trec_eval's all line of num_rel is recomputed from every qrels topic (relevant
    lines counted, no z-score), not the sum of the topics' z-scores (which it is without -c)."""
    _binary_case("zc", case, _ZC_ARGS[case], version)


_RNDCG_ARGS = {
    "l0.c": "-q -c -l 0 -m Rndcg -m ndcg qrels.rndcg run.rndcg",
    "gains.c": "-q -c -m Rndcg.1=0,2=2 qrels.rndcg run.rndcg",
    "l0": "-l 0 -m Rndcg -m map qrels.rndcg run.rndcg",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_RNDCG_ARGS))
def test_rndcg_without_ideal_ranking_is_trec_evals_nan(version, case):
    """Rndcg of a topic with relevant documents and an empty ideal ranking (``-l 0`` and only
    grade 0, or no positive custom gain) is C's 0.0/0.0: trec_eval prints ``-nan``, and so
    does its ``all`` line."""
    _binary_case("rndcg", case, _RNDCG_ARGS[case], version)


_STAND_IN_ARGS = {
    "q.c": "-q -c -m num_ret -m utility -m utility.1,-1,0,0 -m relstring -m relstring.3 -m unj -m rbp_resid "
    "-m rbp_resid.p=0.5 -m P.1 -m num_nonrel_judged_ret -m num_rel_ret -m map -m recip_rank -m success.1 "
    "qrels.stand_in run.stand_in",
    "q.c.plain": "-q -c -m relstring -m utility -m rbp_resid -m num_ret -m unj.2 qrels.stand_in run.stand_in",
    "q.c.gain": "-q -c -m ndcg.-1=1 -m ndcg_rel -m bpref -m infAP qrels.stand_in run.stand_in",
    "q.c.J": "-q -c -J -m num_ret -m utility.1,-1,0,0 -m relstring.3 -m P.1 -m map qrels.stand_in run.stand_in",
    "c.all": "-c -m all_trec qrels.stand_in run.stand_in",
}


@pytest.mark.parametrize(
    ("case", "version"),
    [
        (c, v)
        for c in _STAND_IN_ARGS
        for v in ("9.0.8", "10.0")
        # 9.0.8 has no rbp_resid: irframe's own measure there
        if (c, v) != ("q.c.plain", "9.0.8")
    ],
)
def test_complete_stand_in_ranking_equals_trec_eval(case, version):
    """10.0 -c evaluates a qrels topic the run lacks with a stand-in ranking of one document,
    'ceci_nest_pas_un_docno' (unjudged, or judged where the qrels name it: topic 3), then
    resets the printed names num_ret, utility, relstring, unj* and rbp_resid only
    (utility_1,-1,0,0 keeps -1, relstring_3 '-', ndcg.-1=1 counts the unjudged gain);
    9.0.8 counts such a topic as 0 in the averages."""
    _binary_case("stand_in", case, _STAND_IN_ARGS[case], version)


_BELOW_ZERO_ARGS = {
    "q": "-q qrels.below_zero run.below_zero",
    "q.later": "-q -m map -m P.2 -m num_rel qrels.below_zero run.below_zero_later",
    "q.c.later": "-q -c -m map -m num_rel qrels.below_zero run.below_zero_later",
    "relstring": "-q -m relstring -m runid qrels.below_zero run.below_zero",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_BELOW_ZERO_ARGS))
def test_first_topic_judged_below_zero_stops_as_trec_eval(version, case):
    """When the first topic trec_eval evaluates has only grades below 0 it stops with "Can't
    calculate measure" (the first requested family in its table order) and exit 4; a later
    such topic is evaluated (9.0.8 q.later); 10.0 meets it before a qrels topic the run lacks
    (and with -c evaluates that topic first, with its stand-in ranking)."""
    _binary_case("below_zero", case, _BELOW_ZERO_ARGS[case], version)


_DEBUG_QUERY_ARGS = {
    "c.D": "-q -c -D 0.2 -m map -m num_rel -m gm_map -m P.1 -m relative_P.2 qrels.judged_out run.judged_out",
    "D": "-D 0.2 -m map -m num_rel -m gm_map qrels.judged_out run.judged_out",
    "c.D.absent": "-c -D 0.3 -m map -m num_rel qrels.judged_out run.judged_out",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_DEBUG_QUERY_ARGS))
def test_complete_with_one_debug_topic_averages_over_every_qrels_topic(version, case):
    """-D L.qid evaluates that topic only, but -c still averages over every qrels topic
    (num_q, the means, gm_map's log(1e-5) per topic left out) and counts num_rel over the
    whole qrels file; 10.0 -c evaluates a debug topic the run lacks with its stand-in."""
    _binary_case("debug_query", case, _DEBUG_QUERY_ARGS[case], version)


_DUPS_ARGS = {
    "q": "-q -m map -m P.2 qrels.dups run.dups",
    "M2": "-q -M 2 -m map -m P.2 qrels.dups run.dups",
    "c.clean": "-q -c -m map qrels.dups run.dups_clean",
    "M2.c": "-c -M 2 -m num_rel -m map qrels.dups run.dups",
    "noq": "-m map qrels.dups run.dups",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_DUPS_ARGS))
def test_duplicate_docs_stop_where_trec_eval_evaluates_them(version, case):
    """A docno twice in a ranking (among its top -M documents) or in a topic's qrels stops
    trec_eval when it evaluates that topic (exit 4, "duplicate docs <smallest docno>", the
    ranking's message without a newline), after printing the topics before it (-q); a
    duplicate below -M, or in qrels of a topic it does not evaluate, changes nothing."""
    _binary_case("dups", case, _DUPS_ARGS[case], version)


_PARAMS_ARGS = {
    "P0": "-m P.0 qrels.gain_walk run.gain_walk",
    "P55": "-m map -m P.5,5 qrels.gain_walk run.gain_walk",
    "Pdot": "-m P. qrels.gain_walk run.gain_walk",
    "ndcg1": "-m ndcg.1 qrels.gain_walk run.gain_walk",
    "Pcomma": "-m P., qrels.gain_walk run.gain_walk",
    "iprec": "-m iprec_at_recall.0.1,0.1 qrels.gain_walk run.gain_walk",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_PARAMS_ARGS))
def test_rejected_parameters_print_trec_evals_lines(version, case):
    """Parameters trec_eval refuses: its own line ("Negative cutoff detected", "duplicate
    cutoffs detected", "malformed pair parameters in '1'") then "Cannot initialize measure
    'P'" (exit 2); an empty parameter: "improper measure in parameter 'P'" then "illegal
    measure 'P'" (exit 1)."""
    _binary_case("params", case, _PARAMS_ARGS[case], version)


_FORMAT_ARGS = {
    "jg_map": "-R qrels_jg -m map qrels.gain_walk run.gain_walk",
    "q_avgjg": "-m P_avgjg qrels.gain_walk run.gain_walk",
    "q_prefs": "-m prefs_simp -m map qrels.gain_walk run.gain_walk",
    "prefs_map": "-R prefs -m map -m prefs_simp prefs.duplicates prefs.duplicates.run",
    "qp_avgjg": "-R qrels_prefs -m P_avgjg qrels.gain_walk run.gain_walk",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_FORMAT_ARGS))
def test_measure_needing_another_rel_format_fails_as_trec_eval(version, case):
    """A measure whose relevance format is not -R's: the refusal of its ranking form
    (form_res_qrels, form_res_rels_jg or form_prefs_info) then "Can't calculate measure"
    with the family name, exit 4."""
    _binary_case("format", case, _FORMAT_ARGS[case], version)


_RANK_TEXT_ARGS = {
    "q": "-q -m all_trec qrels.rank_text run.rank_text",
    "two": "-m map -m runid qrels.rank_text run.rank_text run.rank_text2",
}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", list(_RANK_TEXT_ARGS))
def test_rank_field_may_hold_any_text_as_in_trec_eval(version, case):
    """trec_eval skips the rank field (get_trec_results.c): ranks such as ``abc``, ``-``,
    ``2.5`` or ``NaN`` change nothing.  One run file, and two in one command (read together),
    against the binaries' outputs."""
    _binary_case("rank_text", case, _RANK_TEXT_ARGS[case], version)


def test_order_rank_still_needs_integer_ranks(capsys):
    args = ["eval", "--order", "rank", str(_GEN / "qrels.rank_text"), str(_GEN / "run.rank_text")]
    assert cli.main(args, out=io.StringIO()) == 2
    assert "rank 'abc' is not an integer" in capsys.readouterr().err


def test_a_run_file_with_two_tags_prints_no_python_warning(tmp_path):
    """trec_eval reads a run file with two tags as one run, silently; so does irframe eval
    (the Python API's ConventionWarning, with a Python keyword as its advice, printed
    Python's two-line warning with a source line of the console script)."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "two.txt").write_text("1 Q0 a 1 1.5 r\n1 Q0 b 2 1.5 s\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "irframe",
            "eval",
            "-q",
            str(tmp_path / "q.txt"),
            str(tmp_path / "two.txt"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stderr == ""
    assert "runid                 \tall\ts\n" in proc.stdout  # the last line's tag, as trec_eval


def test_warnings_on_the_command_line_are_one_line(capsys):
    import warnings

    err = io.StringIO()
    with warnings.catch_warnings():
        cli._one_line_warnings(err)
        warnings.warn("something to know", UserWarning, stacklevel=1)
        from irframe.errors import ConventionWarning

        warnings.warn("the API's convention", ConventionWarning, stacklevel=1)
    assert err.getvalue() == "irframe: warning: something to know\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["-M", "abc"],
            "-M takes a number (its integer part is used), got 'abc' (trec_eval would silently read it as 0)",
        ),
        (
            ["-M", "5x"],
            "-M takes a number (its integer part is used), got '5x' (trec_eval would silently read it as 5)",
        ),
        (
            ["-l", "1e1"],
            "-l takes a number (its integer part is used), got '1e1' (trec_eval would silently read it as 1)",
        ),
        (["-N", "abc"], "-N takes a number"),
        (["-M", "0"], "-M takes a number >= 1, got '0'"),
    ],
)
def test_numeric_options_trec_eval_would_misread_are_refused(tmp_path, args, message):
    """trec_eval reads -l, -M, -N with C's atol: text that is not a number, or whose number
    atol reads as another, is read silently as something else. irframe refuses it; numbers
    keep trec_eval's reading (-l 2.5 is 2, -l -1 is -1)."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 2\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n")
    files = [str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]
    err = io.StringIO()
    assert cli.main(["eval", *args, "-m", "map", *files], out=io.StringIO(), err=err) == 1
    assert message in err.getvalue()
    out = io.StringIO()
    assert cli.main(["eval", "-l", "2.5", "-m", "map", *files], out=out) == 0
    assert out.getvalue() == "map                   \tall\t0.5000\n"  # -l 2: only b, at rank 2


@pytest.mark.parametrize(("version", "routine"), [("9.0.8", "get_prefs"), ("10.0", "get_zscores")])
def test_an_unreadable_zscores_file_is_named(tmp_path, version, routine):
    """-Z with a missing file: trec_eval's message naming the file (9.0.8 names the routine
    get_prefs there) and its exit status 255, then the reason (it was Python's bare
    '[Errno 2] ...' alone, exit 2)."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 1.5 r\n")
    missing = str(tmp_path / "nope.txt")
    err = io.StringIO()
    rc = cli.main(
        [
            "eval",
            "--trec-eval-version",
            version,
            "-Z",
            missing,
            str(tmp_path / "q.txt"),
            str(tmp_path / "r.txt"),
        ],
        out=io.StringIO(),
        err=err,
    )
    assert rc == 255
    first, second = err.getvalue().splitlines()
    assert first == f"trec_eval.{routine}: Cannot read zscores file '{missing}'"
    assert second.startswith("irframe: error: ") and "No such file" in second
