"""gzip run files read the same with Python's zlib and with python-isal (the ``fast`` extra).

The reference for every read here is the plain text of the same file (read by the same
reader without gzip) or Python's own ``gzip.decompress``: property tests, with random
texts split into random gzip members.
"""

from __future__ import annotations

import gzip
import io
import itertools
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe import _textfile

try:
    from isal import igzip
    from isal.isal_zlib import error as isal_error
except ImportError:  # pragma: no cover - the test extra installs it
    igzip = None

BACKENDS = {
    "zlib": (gzip, (OSError, EOFError, zlib.error)),
    "isal": (igzip, (OSError, EOFError, zlib.error, isal_error)) if igzip is not None else None,
}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request, monkeypatch):
    """The reader with each gzip implementation in turn."""
    chosen = BACKENDS[request.param]
    if chosen is None:  # pragma: no cover - the test extra installs isal
        pytest.skip("python-isal is not installed (pip install 'irframe[fast]')")
    monkeypatch.setattr(_textfile, "GZIP", chosen[0])
    monkeypatch.setattr(_textfile, "GZIP_ERRORS", chosen[1])
    return request.param


def test_the_installed_reader_is_isal_when_isal_is_installed():
    assert (_textfile.GZIP is igzip) == (igzip is not None)


_LINES = st.lists(
    st.tuples(
        st.integers(0, 5),
        st.text("abcXYZ-_.0123456789", min_size=1, max_size=12),
        st.integers(-3, 3),
    ),
    min_size=1,
    max_size=60,
    unique_by=lambda t: (t[0], t[1]),
)


def _run_text(lines) -> bytes:
    return b"".join(
        f"{t} Q0 {d} {r} {s / 4} tag\n".encode() for r, (t, d, s) in enumerate(lines, 1)
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=_LINES, cuts=st.lists(st.integers(0, 10**6), max_size=3), level=st.integers(0, 9))
def test_a_gzip_run_reads_as_its_plain_text(tmp_path, backend, lines, cuts, level):
    text = _run_text(lines)
    # several gzip members (what `cat a.gz b.gz` gives): both readers read them all
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    data = b"".join(
        gzip.compress(text[a:b], compresslevel=level, mtime=0)
        for a, b in itertools.pairwise(bounds)
    )
    plain, packed = tmp_path / "run.txt", tmp_path / "run.txt.gz"
    plain.write_bytes(text)
    packed.write_bytes(data)
    assert _textfile.read_bytes(packed) == gzip.decompress(data) == text
    expected = irf.read_run(plain, system="r")
    got = irf.read_run(packed, system="r")
    assert got.equals(expected)
    # the command line's blocks (irframe eval on large files) hold the same text
    blocks = _textfile.topic_blocks(io.BytesIO(data), 64)
    assert b"".join(bytes(b) for b in blocks) == text


_RUN = b"".join(b"%d Q0 d%d %d %d.5 tag\n" % (t, d, d, 100 - d) for t in (1, 2) for d in range(50))


def _bad_crc() -> bytes:
    g = gzip.compress(_RUN, mtime=0)
    return g[:-8] + b"\0\0\0\0" + g[-4:]


@pytest.mark.parametrize(
    "data",
    [
        gzip.compress(_RUN, mtime=0)[:10] + b"garbage" * 5,  # bad deflate data
        gzip.compress(_RUN * 100, mtime=0)[:-20],  # truncated
        _bad_crc(),
        gzip.compress(_RUN, mtime=0) + b"junk",  # trailing bytes that are no gzip member
        b"\x1f\x8b" + b"x" * 40,  # gzip's magic, then no gzip header
    ],
    ids=["deflate", "truncated", "crc", "trailing", "header"],
)
def test_a_corrupt_gzip_file_is_a_parse_error_naming_it(tmp_path, backend, data):
    p = tmp_path / "bad.gz"
    p.write_bytes(data)
    with pytest.raises(irf.ParseError, match="corrupt gzip file") as e:
        irf.read_run(p)
    assert e.value.path == str(p) and str(p) in str(e.value)
