"""`irframe eval` prints byte for byte what trec_eval 9.0.8 and 10.0 print on real runs.

Reference: outputs of the trec_eval binaries built from NIST's public source (9.0.8 and 10.0)
on the TREC 2003 Robust runs of ``../shared/data/robust03``, kept compressed in
``tests/data/trec_eval_robust03/<version>/<run>.<config>.txt.gz``; the exact commands,
versions and commits are in that folder's PROVENANCE.txt.  ``-q -m all_trec`` without
other options is compared with ``../shared/data/robust03/expected`` (all 15 runs).  The runs
and qrels are read from ``../shared`` (skipped cleanly when absent); nothing here was
produced by irframe.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from irframe import cli

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "data" / "trec_eval_robust03"

PARAMS = (
    "-m P.3,7,12 -m ndcg_cut.3,7 -m map_cut.7,13 -m Rprec_mult.0.5,2.0 -m iprec_at_recall.0.15,0.85 "
    "-m 11pt_avg.0.0,0.25,1.0 -m success.2,5,20 -m recall.20,2000 -m ndcg.1=0.5,2=1,3=3,4=7 "
    "-m relative_P.3,50 -m utility.2,-1,-0.5,0 -m set_F.0.5 -m G.1=2,2=5 -m Rndcg.1=1,2=4 "
    "-m ndcg_rel.1=3,2=1 -m relstring.15"
).split()
CONFIGS = {  # config -> (arguments before the files, per version extras)
    "q.c.l2.all_trec": ("-q -c -l 2 -m all_trec".split(), {}),
    "q.M50.all_trec": ("-q -M 50 -m all_trec".split(), {}),
    "q.J": (["-q", "-J"], {}),
    "q.params": (["-q", *PARAMS], {"10.0": "-m rbp.p=0.8 -m rbp_resid.p=0.8 -m unj.3,50".split()}),
    "q.dcg": ("-q -m dcg.1=2,2=5".split(), {}),
    "q.ideal_dcg": ("-q -m ideal_dcg".split(), {}),
}
QUICK_RUN = "pircRBa1"  # the run with the most tied scores: checked in the fast suite


def _cases():
    out = []
    for f in sorted(EXPECTED.glob("*/*.txt.gz")):
        version = f.parent.name
        run, _, config = f.name[: -len(".txt.gz")].partition(".")
        marks = () if run == QUICK_RUN else (pytest.mark.slow,)
        out.append(
            pytest.param(version, config, run, f, marks=marks, id=f"{version}-{config}-{run}")
        )
    return out


def _eval(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["eval", *args], out=out, err=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.shared
@pytest.mark.parametrize("version,config,run,expected", _cases())
def test_robust03_output_equals_trec_eval(shared_data, version, config, run, expected):
    base = shared_data / "robust03"
    args, extra = CONFIGS[config]
    status, out, err = _eval(
        [
            "--trec-eval-version",
            version,
            *args,
            *extra.get(version, []),
            str(base / "qrels" / "robust03_qrels.txt.gz"),
            str(base / "runs" / f"input.{run}.gz"),
        ]
    )
    assert status == 0, err
    want = gzip.decompress(expected.read_bytes()).decode()
    if out != want:
        got, exp = out.splitlines(), want.splitlines()
        bad = [(g, e) for g, e in zip(got, exp, strict=False) if g != e]  # lengths may differ
        pytest.fail(f"{len(bad)} lines differ (of {len(exp)}; got {len(got)}), e.g. {bad[:5]}")


def _shared_all_trec():
    from conftest import find_shared_data

    d = find_shared_data()
    if d is None:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="../shared/data not found"))]
    out = []
    for version in ("9.0.8", "10.0"):
        for f in sorted(
            (d / "robust03" / "expected" / f"trec_eval_{version}").glob("*.all_trec.q.txt.gz")
        ):
            run = f.name.split(".all_trec")[0]
            marks = () if run == QUICK_RUN else (pytest.mark.slow,)
            out.append(pytest.param(version, f, marks=marks, id=f"{version}-{run}"))
    return out


@pytest.mark.shared
@pytest.mark.parametrize("version,expected", _shared_all_trec())
def test_robust03_all_trec_equals_trec_eval(shared_data, version, expected):
    """`-q -m all_trec`: every line of trec_eval's output, 15 runs, both versions."""
    base = shared_data / "robust03"
    run = expected.name.split(".all_trec")[0]
    status, out, err = _eval(
        [
            "--trec-eval-version",
            version,
            "-q",
            "-m",
            "all_trec",
            str(base / "qrels" / "robust03_qrels.txt.gz"),
            str(base / "runs" / f"input.{run}.gz"),
        ]
    )
    assert status == 0, err
    assert out == gzip.decompress(expected.read_bytes()).decode()


def test_expected_files_are_bundled():
    """The comparison above is not vacuous: the bundled expected outputs are present."""
    files = list(EXPECTED.glob("*/*.txt.gz"))
    assert {f.parent.name for f in files} == {"9.0.8", "10.0"}
    assert len(files) >= 60
