"""`irframe eval` against the trec_eval binaries on random hostile collections.

Reference: ``tests/data/trec_eval/generated/differential.json.gz``, 300 small collections
drawn by ``make_differential.py`` beside it (topic ids with leading zeros, non-ASCII and
punctuation; pooled ones, where the run's docs are read as a categorical; negative, zero and
large grades; topics only in the run or only in the qrels; tabs, runs of spaces, CRLF, no
final newline; scores with exponents, signs, ``-0`` and ties; lines out of topic order;
documents twice; random ``-q -c -n -l -M -J -N`` and measure sets) with the exit status,
stdout and stderr of trec_eval 9.0.8 and 10.0 built from NIST's source (provenance in
``tests/data/trec_eval/SOURCE.txt``).  irframe must print the same bytes and exit with the
same status for both ``--trec-eval-version`` values; its stderr holds trec_eval's message
(irframe may name the file and line before it).
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from irframe import cli

_CORPUS = Path(__file__).resolve().parent / "data" / "trec_eval" / "generated"
CASES = json.loads(gzip.decompress((_CORPUS / "differential.json.gz").read_bytes()))


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", CASES, ids=[f"seed{c['seed']}" for c in CASES])
def test_eval_prints_what_trec_eval_prints(tmp_path, case, version):
    """One stored collection: the binary's stdout and exit status, and its message at the
    end of stderr (all of stderr when it exits with 0)."""
    want = case["binaries"][version]
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(case["qrels"].encode())
    run.write_bytes(case["run"].encode())
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(
        ["eval", "--trec-eval-version", version, *case["args"], str(qrels), str(run)],
        out=out,
        err=err,
    )
    expected_err = want["stderr"].replace("@QRELS@", str(qrels)).replace("@RUN@", str(run))
    assert status == want["status"]
    assert out.getvalue() == want["stdout"]
    assert err.getvalue().endswith(expected_err)
    assert status != 0 or err.getvalue() == expected_err
