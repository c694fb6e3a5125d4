"""`irframe.io.read_prefs` reads trec_eval's ``-R prefs`` file as trec_eval does, or names the bad line.

References:

* trec_eval itself: ``tests/data/trec_eval/generated/prefs.whitespace`` (CRLF and bare-CR
  whitespace, tabs, ``\\v``/``\\f`` separators, ids holding a no-break space, U+2028, U+0085
  or ``\\x1c``, levels written ``+1``, ``.5``, ``5.``, ``1E+1``, ``-0``, ``1.00000001``, no final
  newline) with the outputs of the trec_eval 9.0.8 and 10.0 binaries kept beside it
  (provenance in ``tests/data/trec_eval/SOURCE.txt``); ``irframe eval`` must print the same
  bytes.  The two versions differ there: 9.0.8 stores levels as C floats, so 1.00000001 and
  1.0 tie.
* An independent brute-force reader written here (regex field split on C's ``isspace`` bytes,
  a regex for C's decimal ``strtod`` syntax) for random hostile files: ``read_prefs`` returns
  its rows or a ``ParseError`` naming its first bad line.
"""

from __future__ import annotations

import gzip
import io
import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe import cli
from irframe.io import read_prefs

GEN = Path(__file__).parent / "data" / "trec_eval" / "generated"


def _eval(*argv) -> str:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["eval", *map(str, argv)], out=out, err=err)
    assert status == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_odd_whitespace_and_level_spellings_equal_trec_eval(version):
    got = _eval(
        "--trec-eval-version",
        version,
        "-m",
        "all_prefs",
        "-q",
        "-R",
        "prefs",
        GEN / "prefs.whitespace",
        GEN / "prefs.whitespace.run",
    )
    assert got == (GEN / f"out.prefs.whitespace.v{version}").read_text(encoding="utf-8")


def test_ids_keep_bytes_that_c_isspace_does_not_split_on():
    df = read_prefs(GEN / "prefs.whitespace")
    assert len(df) == 18  # one row per line of the file (no blank or comment line in it)
    assert "d\u00a0nb" in set(df["doc"]) and "d\u2028ls" in set(df["doc"])
    assert "u\u0085x" in set(df["jg"]) and "s\x1cfs" in set(df["jsg"])
    assert df["rel"].tolist()[:6] == [2.0, 2.0, 1.0, 1.0, 0.5, 0.0]
    assert math.copysign(1.0, df["rel"][5]) == 1.0  # '-0' is level 0, not -0.0


# ---------------------------------------------------------------------------- errors
BAD = [
    (b"q1 u s d1 2\nq1 u s d2 \xff\n", 2, "not valid UTF-8"),
    (b"q1 u s d1 2\nq1 u \xe9 d2 1\n", 2, "not valid UTF-8"),
    (b"q1 u s d1 nan\n", 1, "level 'nan' is not finite"),
    (b"q1 u s d1 2\nq1 u s d2 inf\n", 2, "level 'inf' is not finite"),
    (b"q1 u s d1 -Infinity\n", 1, "level '-Infinity' is not finite"),
    (b"q1 u s d1 1e400\n", 1, "level '1e400' is not finite"),
    (b"q1 u s d1 1_0\n", 1, "level '1_0' is not a number"),
    (b"q1 u s d1 abc\n", 1, "level 'abc' is not a number"),
    (b"q1 u s d1 0x1p1\n", 1, "level '0x1p1' is not a number"),
    (b"q1 u s d1 2x\n", 1, "level '2x' is not a number"),
    (b"q1 u s d1 -1\n", 1, "level '-1' is negative"),
    (b"q1 u s d1 2\nq1 u s d2\n", 2, "4 field(s), expected 5 fields 'topic jg jsg doc level'"),
    (b"q1 u s d1 2 extra\n", 1, "6 field(s)"),
    (b"q1 u s\xc2\xa0d1 2\n", 1, "4 field(s)"),  # a no-break space is not a separator
    (b"q1 u s d1 2\rq1 u s d2 1\n", 1, "10 field(s)"),  # a bare CR does not end a line
    (
        b"# c\n\nq1 u s d1 2\r\n  # c\nq1 u s d2\r\n",
        5,
        "4 field(s)",
    ),  # comments, blanks, CRLF counted
]


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("data,lineno,why", BAD, ids=[str(b[0])[:40] for b in BAD])
def test_malformed_line_names_file_line_and_fix(tmp_path, data, lineno, why, gz):
    p = tmp_path / ("prefs.gz" if gz else "prefs")
    p.write_bytes(gzip.compress(data) if gz else data)
    with pytest.raises(irf.ParseError, match=re.escape(f"{p}, line {lineno}: {why}")) as e:
        read_prefs(p)
    assert e.value.path == str(p) and e.value.lineno == lineno
    assert e.value.line == data.split(b"\n")[lineno - 1].rstrip(b"\r").decode(
        "utf-8", errors="replace"
    )
    assert (
        "write the level" in str(e.value)
        or "expected 5 fields" in str(e.value)
        or "re-encode" in str(e.value)
    )


@pytest.mark.parametrize("data", [b"", b"# only a comment\n\n  \n", b"\xef\xbb\xbf"])
def test_no_data_line(tmp_path, data):
    p = tmp_path / "prefs"
    p.write_bytes(data)
    with pytest.raises(irf.ParseError, match=re.escape(f"{p}: no preference lines found")):
        read_prefs(p)


def test_corrupt_gzip_names_the_file(tmp_path):
    p = tmp_path / "prefs.gz"
    p.write_bytes(gzip.compress(b"q1 u s d1 2\n" * 50)[:-12])
    with pytest.raises(irf.ParseError, match=re.escape(f"{p}: corrupt gzip file")):
        read_prefs(p)


def test_cli_reports_the_bad_line(tmp_path):
    p = tmp_path / "prefs"
    p.write_bytes(b"q1 u s d1 2\nq1 u s d2 1_0\n")
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(
        ["eval", "-m", "all_prefs", "-R", "prefs", str(p), str(GEN / "prefs.whitespace.run")],
        out=out,
        err=err,
    )
    assert status != 0 and out.getvalue() == ""
    assert f"{p}, line 2: level '1_0' is not a number" in err.getvalue()


# ---------------------------------------------------------------------------- accepted
def test_bom_comments_blank_lines_crlf_gzip_and_text_streams(tmp_path):
    body = b"\xef\xbb\xbf# judged by u1\r\n\r\nq1\tu1  s1 d1 +2\r\n   # indented comment\nq1 u1 s1 d2 .5\x0c\n \t\n"
    want = [["q1", "u1", "s1", "d1", 2.0], ["q1", "u1", "s1", "d2", 0.5]]
    p = tmp_path / "prefs.gz"
    p.write_bytes(gzip.compress(body))
    assert read_prefs(p).values.tolist() == want
    assert read_prefs(io.BytesIO(body)).values.tolist() == want
    assert read_prefs(io.StringIO(body.decode("utf-8"))).values.tolist() == want
    df = read_prefs(io.BytesIO(body))
    assert (
        list(df.columns) == ["topic", "jg", "jsg", "doc", "rel"]
        and str(df["rel"].dtype) == "float64"
    )


# ---------------------------------------------------------------------------- fuzz
_WS = b" \t\r\x0b\x0c"  # C's isspace() besides '\n'
_DECIMAL = re.compile(
    rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
)  # strtod, decimal only


def _brute_force(data: bytes):
    """Rows, or the 1-based number of the first bad line, or 0 for a file without data lines."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    rows = []
    for lineno, line in enumerate(data.split(b"\n"), 1):
        fields = [f for f in re.split(b"[" + re.escape(_WS) + b"]+", line) if f]
        if not fields or fields[0][:1] == b"#":
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return lineno
        if len(fields) != 5 or not _DECIMAL.fullmatch(fields[4]):
            return lineno
        level = float(fields[4].decode("ascii"))
        if not math.isfinite(level) or level < 0:
            return lineno
        rows.append([f.decode("utf-8") for f in fields[:4]] + [abs(level)])
    return rows or 0


_TOKENS = [
    b"q1",
    b"q2",
    b"u1",
    b"s1",
    b"d1",
    b"d2",
    b"#",
    b"#x",
    b"0",
    b"1",
    b"2.5",
    b"+1",
    b".5",
    b"5.",
    b"-0",
    b"1e3",
    b"1E+1",
    b"-1",
    b"nan",
    b"inf",
    b"-inf",
    b"1_0",
    b"0x1p1",
    b"1e400",
    b"1e",
    b"abc",
    b"\xff",
    b"\xc2\xa0",
    b"d\xc2\xa0x",
    b"\xc2\x85",
    b"\x1c",
    b"\x00",
    b"\xe2\x80\xa8",
    b"\xef\xbb\xbf",
]
_SEPS = [b" ", b"\t", b"  ", b"\x0b", b"\x0c", b" \r ", b"\xc2\xa0"]


@st.composite
def _prefs_files(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 7))):
        if draw(st.booleans()):
            f = [
                draw(st.sampled_from([b"q1", b"q2"])),
                b"u1",
                draw(st.sampled_from([b"s1", b"s2"])),
                draw(st.sampled_from([b"d1", b"d2", b"d3"])),
                str(draw(st.integers(0, 4))).encode(),
            ]
            if draw(st.integers(0, 3)) == 0:
                f[draw(st.integers(0, 4))] = draw(st.sampled_from(_TOKENS))
        else:
            f = draw(st.lists(st.sampled_from(_TOKENS), max_size=7))
        lead = draw(st.sampled_from([b"", b" ", b"\t"]))
        lines.append(
            lead + draw(st.sampled_from(_SEPS)).join(f) + draw(st.sampled_from([b"", b"\r", b" "]))
        )
    data = b"\n".join(lines) + draw(st.sampled_from([b"", b"\n", b"\r\n"]))
    return (b"\xef\xbb\xbf" if draw(st.integers(0, 6)) == 0 else b"") + data


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=_prefs_files(), gz=st.booleans())
def test_random_files_read_as_the_brute_force_reader(tmp_path, data, gz):
    p = tmp_path / "prefs"
    p.write_bytes(gzip.compress(data) if gz else data)
    want = _brute_force(data)
    if isinstance(want, list):
        assert read_prefs(p).values.tolist() == want
        return
    with pytest.raises(irf.ParseError) as e:
        read_prefs(p)
    if want == 0:
        assert e.value.lineno is None and "no preference lines found" in str(e.value)
    else:
        assert e.value.lineno == want and str(e.value).startswith(f"{p}, line {want}: ")
