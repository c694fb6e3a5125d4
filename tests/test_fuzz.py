"""Fuzz tests: hostile files, frames and measure strings thrown at the public API.

Every call must end in one of two ways: a documented exception (an
:class:`irframe.IrframeError`, an ``OSError`` for files, a ``TypeError`` for a wrong
argument type) or a result that checks out — files against an independent line-by-line
parser written here, cubes finite and within each measure's range.  The caller's frames are
never modified.  Time and memory are bounded by the sizes drawn (a few hundred bytes or rows
per example), not by wall-clock asserts.
"""

from __future__ import annotations

import gzip
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe.errors import IrframeError

FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# ------------------------------------------------------------------------------ files
_TOKENS = [
    b"301",
    b"302",
    b"Q0",
    b"0",
    b"d1",
    b"d2",
    b"CR#93",
    b"1",
    b"2",
    b"-1",
    b"0.5",
    b"1e400",
    b"nan",
    b"99999999999999999999",
    b"-3.25",
    b"x",
    b"\xff",
    b"\xc3\xa9",
    b"\x00",
    b"#",
    b"\xef\xbb\xbf",
    b"sys",
    b"run1",
    b"1.0",
    b"+2",
    b"inf",
    b"1_0",
    b"+1.5",
    b" -0",
]
_SEPS = [
    b" ",
    b"\t",
    b"  ",
    b" \t",
    b"\x0b",
    b"\t\x0b",
    b"\x0c ",
    b"\r ",
]  # C isspace: \v, \f, a CR inside a line
_ENDS = [b"\n", b"\r\n", b"\n\n", b""]


@st.composite
def file_bytes(draw, kind: str) -> bytes:
    """Mostly well-formed lines with corruption mixed in (wrong field counts, bad numbers, bytes)."""
    n = draw(st.integers(0, 8))
    lines = []
    for _ in range(n):
        if draw(st.booleans()):  # a plausible line
            if kind == "run":
                f = [
                    draw(st.sampled_from([b"301", b"302"])),
                    b"Q0",
                    draw(st.sampled_from([b"d1", b"d2", b"d3"])),
                    str(draw(st.integers(-2, 5))).encode(),
                    repr(draw(st.floats(-5, 5))).encode(),
                    b"sys",
                ]
            else:
                f = [
                    draw(st.sampled_from([b"301", b"302"])),
                    b"0",
                    draw(st.sampled_from([b"d1", b"d2", b"d3"])),
                    str(draw(st.integers(-1, 3))).encode(),
                ]
            if draw(st.integers(0, 4)) == 0:  # corrupt one field
                f[draw(st.integers(0, len(f) - 1))] = draw(st.sampled_from(_TOKENS))
        else:
            f = draw(st.lists(st.sampled_from(_TOKENS), min_size=0, max_size=8))
        if draw(st.integers(0, 6)) == 0:
            f = [b"#", *f]
        line = draw(st.sampled_from(_SEPS)).join(f)
        lines.append(line + draw(st.sampled_from(_ENDS[:3])))
    data = b"".join(lines)
    if draw(st.integers(0, 8)) == 0:
        data = (
            b"\xef\xbb\xbf" * draw(st.integers(1, 2)) + data
        )  # a second one is U+FEFF in the first id
    return data


def _reference_parse(data: bytes, kind: str):
    """An independent reader of the documented format: returns rows or (line number, reason)."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    rows = []
    for lineno, line in enumerate(data.split(b"\n"), 1):
        f = line.split()
        if not f or f[0].startswith(b"#"):
            continue
        try:  # ids must be UTF-8; ignored fields (Q0, iter) may hold any bytes, as in trec_eval
            for i in (0, 2, 5) if kind == "run" else (0, 2):
                if i < len(f):
                    f[i].decode("utf-8")
        except UnicodeDecodeError:
            return lineno
        if kind == "run":
            if len(f) < 6:
                return lineno
            try:
                rank = int(f[3]) if f[3].lstrip(b"+-").isdigit() else int("x")
                score = float(f[4]) if b"_" not in f[4] else float("x")
            except ValueError:
                return lineno
            if not -(2**63) <= rank < 2**63 or not math.isfinite(score):
                return lineno
            rows.append((f[5].decode(), f[0].decode(), f[2].decode(), rank, score))
        else:
            if len(f) != 4:
                return lineno
            try:
                rel = float(f[3]) if b"_" not in f[3] else float("x")
            except ValueError:
                return lineno
            if not math.isfinite(rel):
                return lineno
            rows.append((f[0].decode(), f[2].decode(), rel))
    return rows if rows else 0  # 0: no data lines


@pytest.fixture(params=["arrow", "pandas"])
def reader(request, monkeypatch):
    """Both parsing back ends: pyarrow's CSV reader and pandas.read_csv."""
    import irframe.io as iio

    if request.param == "arrow" and iio.pa is None:  # pragma: no cover
        pytest.skip("pyarrow is not installed")
    monkeypatch.setattr("irframe._textfile._USE_ARROW", request.param == "arrow")
    return request.param


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("gz", [False, True])
@FUZZ
@given(data=st.data())
def test_random_files(tmp_path, reader, kind, gz, data):
    raw = data.draw(file_bytes(kind))
    blob = gzip.compress(raw) if gz else raw
    if gz and data.draw(st.integers(0, 4)) == 0:  # a damaged archive
        cut = data.draw(st.integers(0, max(len(blob) - 1, 0)))
        blob = blob[:cut] + data.draw(st.binary(max_size=8))
    path = tmp_path / ("f.gz" if gz else "f")
    path.write_bytes(blob)
    read = irf.read_run if kind == "run" else irf.read_qrels
    text, corrupt = blob, False  # what the reader should see after decompression
    if blob[:2] == b"\x1f\x8b":
        try:
            text = gzip.decompress(blob)
        except Exception:
            corrupt = True
    try:
        got = read(path)
    except irf.ParseError as e:
        assert str(path) in str(e)
        if corrupt:
            assert "corrupt gzip" in str(e)
            return
        want = _reference_parse(text, kind)
        assert not isinstance(want, list), f"reader refused a valid file: {e}"
        if want == 0:
            assert "no data lines" in str(e)
        else:
            assert e.lineno == want, (str(e), want)
        return
    assert not corrupt, "reader accepted a corrupt gzip file"
    want = _reference_parse(text, kind)
    assert isinstance(want, list), f"reader accepted a file the reference refuses at line {want}"
    if kind == "run":
        rows = list(
            zip(
                got.system.astype(str),
                got.topic.astype(str),
                got.doc.astype(str),
                got["rank"].tolist(),
                got.score.tolist(),
                strict=True,
            )
        )
    else:
        rows = list(
            zip(
                got.topic.astype(str),
                got.doc.astype(str),
                got.rel.astype(float).tolist(),
                strict=True,
            )
        )
    assert rows == want


EMPTY_FIELD_CASES = [  # a separator doubled, leading or trailing: trec_eval's whitespace split sees no field there
    ("qrels", b" 0 d1 0\n"),
    ("qrels", b"\xef\xbb\xbf 0 d1 0\n\n"),
    ("qrels", b"1  d1 0\n"),
    ("qrels", b"1 0 d1 \n"),
    ("qrels", b"1 0 d1 0 \n"),
    ("qrels", b"1\t\td1\t0\n"),
    ("qrels", b"\t0\td1\t0\n"),
    ("qrels", b"1\t0\td1\t\n"),
    ("qrels", b"1\t \td1\t0\n"),
    ("qrels", b"1\t0\td1\t0\r\n1\t  \td2\t1\r\n"),
    ("qrels", b"1 0 d1 1\n2 0 d2 1 \r\n"),
    ("run", b"1  d1 1 0.5 r\n"),
    ("run", b"1 Q0 d1 1 0.5 \n"),
    ("run", b" Q0 d1 1 0.5 r\n"),
    ("run", b"1\tQ0\td1\t1\t0.5\t\n"),
    ("run", b"1\t\td1\t1\t0.5\tr\n"),
]


C_WHITESPACE_CASES = [  # found by review: C's isspace splits on them, the CSV parsers did not
    ("qrels", b"q1 0 d1 1\rq1 0 d2 1\n"),
    ("qrels", b"q1\t0\td1\x0b\t1\n"),
    ("qrels", b"q1\t0\td1\t1\x0c\n"),
    ("run", b"1 Q0 d1 1 0.5 r\r1 Q0 d2 2 0.4 r\n"),
    ("run", b"1\tQ0\td1\x0b\t1\t0.5\tr\n"),
    # after a second BOM (U+FEFF starting the first id) the empty-field and space checks still run
    ("qrels", b"\xef\xbb\xbf\xef\xbb\xbfq1  d1 1\n"),
    ("qrels", b"\xef\xbb\xbf\xef\xbb\xbfq1\t0\td1 x\t1\n"),
    ("qrels", b"\xef\xbb\xbf\xef\xbb\xbfq1\t \td1\t1\n"),
]


@pytest.mark.parametrize("kind,raw", EMPTY_FIELD_CASES + C_WHITESPACE_CASES)
def test_empty_fields_are_not_fields(tmp_path, reader, kind, raw):
    """Regression (found by test_random_files and by review): a line split on single spaces or
    tabs had an empty field where trec_eval's whitespace split has none, and a 3-field qrels line
    was read as topic ''; a vertical tab, form feed or a CR inside a line is whitespace to
    trec_eval.  Outside reference: the independent parser above."""
    path = tmp_path / "f"
    path.write_bytes(raw)
    want = _reference_parse(raw, kind)
    read = irf.read_run if kind == "run" else irf.read_qrels
    if isinstance(want, list):
        got = read(path)
        cols = ["system", "topic", "doc"] if kind == "run" else ["topic", "doc"]
        assert [tuple(map(str, r)) for r in got[cols].itertuples(index=False)] == [
            tuple(w[: len(cols)]) for w in want
        ]
    else:
        with pytest.raises(irf.ParseError) as e:
            read(path)
        assert e.value.lineno == want


# ------------------------------------------------------------------------------ frames
_ID_KINDS = ["str", "category", "int", "mixed", "nan", "float", "bytes", "bool"]


def _ids(values: list[str], kind: str, rng: np.random.Generator) -> pd.Series:
    s = pd.Series(values, dtype=object)
    if kind == "category":
        return s.astype("category")
    if kind == "int":
        return pd.Series([int(v[1:]) for v in values])
    if kind == "float":
        return pd.Series([float(v[1:]) for v in values])
    if kind == "bool":
        return pd.Series([v.endswith("1") for v in values])
    if kind == "bytes":
        return pd.Series([v.encode() for v in values], dtype=object)
    if kind == "mixed" and len(s):
        s.iloc[int(rng.integers(len(s)))] = int(values[0][1:])
    if kind == "nan" and len(s):
        s.iloc[int(rng.integers(len(s)))] = None
    return s


@st.composite
def frames(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 30))
    runs = pd.DataFrame(
        {
            "system": _ids(
                [f"s{rng.integers(2)}" for _ in range(n)],
                draw(st.sampled_from(_ID_KINDS[:2] * 4 + _ID_KINDS)),
                rng,
            ),
            "topic": _ids(
                [f"t{rng.integers(3)}" for _ in range(n)],
                draw(st.sampled_from(_ID_KINDS[:2] * 4 + _ID_KINDS)),
                rng,
            ),
            "doc": _ids(
                [f"d{rng.integers(8)}" for _ in range(n)],
                draw(st.sampled_from(_ID_KINDS[:2] * 4 + _ID_KINDS)),
                rng,
            ),
            "score": rng.normal(size=n).round(1),
        }
    )
    special = draw(st.sampled_from(["none", "none", "nan", "inf", "text", "dupes"]))
    if special == "nan":
        runs.loc[runs.index[0], "score"] = np.nan
    elif special == "inf":
        runs.loc[runs.index[-1], "score"] = -np.inf
    elif special == "text":
        runs["score"] = runs["score"].astype(object)
        runs.loc[runs.index[0], "score"] = "high"
    m = draw(st.integers(1, 20))
    qrels = pd.DataFrame(
        {
            "topic": _ids(
                [f"t{rng.integers(4)}" for _ in range(m)],
                draw(st.sampled_from(_ID_KINDS[:2] * 4 + _ID_KINDS)),
                rng,
            ),
            "doc": _ids(
                [f"d{rng.integers(8)}" for _ in range(m)],
                draw(st.sampled_from(_ID_KINDS[:2] * 4 + _ID_KINDS)),
                rng,
            ),
            "rel": rng.integers(-1, 4, size=m).astype(
                draw(st.sampled_from(["int64", "float64", "object"]))
            ),
        }
    )
    if draw(st.integers(0, 5)) == 0:
        qrels["rel"] = qrels["rel"].astype(object)
        qrels.loc[qrels.index[0], "rel"] = draw(st.sampled_from([np.nan, np.inf, "x", None]))
    return runs, qrels


_BOUNDED = {
    "AP": (0, 1),
    "nDCG@10": (0, 1),
    "P@5": (0, 1),
    "RR": (0, 1),
    "Bpref": (0, 1),
    "RBP(p=0.5)": (0, 3),
    "NumRet": (0, 30),
    "ERR@5": (0, 1),
    "ndpm": (0, 1),
    "Judged@5": (0, 1),
}


@FUZZ
@given(frames(), st.booleans(), st.sampled_from([None, 3]), st.sampled_from(["error", "first"]))
def test_random_frames(fr, complete, depth, duplicates):
    runs, qrels = fr
    before_r, before_q = runs.copy(deep=True), qrels.copy(deep=True)
    try:
        cube = irf.evaluate(
            runs, qrels, list(_BOUNDED), complete=complete, depth=depth, duplicates=duplicates
        )
    except IrframeError:
        cube = None
    pd.testing.assert_frame_equal(runs, before_r)
    pd.testing.assert_frame_equal(qrels, before_q)
    if cube is not None:
        v = cube.values
        nan = np.isnan(v)
        assert (nan.all(axis=2) | ~nan.any(axis=2)).all()  # NaN only as whole "not evaluated" cells
        for j, m in enumerate(cube.measure.values):
            lo, hi = _BOUNDED[m]
            vals = v[:, :, j][~nan[:, :, j]]
            assert (
                np.isfinite(vals).all()
                and (vals >= lo - 1e-12).all()
                and (vals <= hi + 1e-12).all()
            ), m
        irf.summarize(cube)
    # join applies the same rules as evaluate: it refuses exactly what evaluate refuses for ids/grades
    try:
        j = runs.ir.join(qrels)
    except IrframeError:
        return
    finally:
        pd.testing.assert_frame_equal(runs, before_r)
    assert len(j) == len(runs) and j["rel"].dtype == np.float64


# ------------------------------------------------------------------------------ measure strings
_NAMES = [
    "AP",
    "P",
    "nDCG",
    "RBP",
    "ERR",
    "Rprec",
    "IPrec",
    "TSE",
    "LR",
    "CWLA",
    "CWL",
    "alpha_nDCG",
    "ndpm",
    "P_rare",
    "map",
    "P_10",
    "ndcg_cut_5",
    "iprec_at_recall_0.50",
    "Rprec_mult_2.0",
    "Foo",
    "",
    "ap",
]
_PARAMS = [
    "p",
    "rel",
    "mult",
    "recall",
    "n",
    "e",
    "k",
    "C",
    "A",
    "out",
    "gmax",
    "alpha",
    "graded",
    "eps",
    "zz",
]
_VALUES = [
    "0.5",
    "1.5",
    "-1",
    "0",
    "1",
    "2",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "true",
    "False",
    "9" * 40,
    "RBP(p=0.8)",
    "RBP(p=2)",
    "max",
    "EU",
    "XX",
    "'q'",
    '"AP"',
    "(",
    ")",
    "",
    "1e-300",
    "3.0",
    "AP",
    "P@3",
]
_CUTS = [
    "",
    "@1",
    "@5",
    "@0",
    "@-2",
    "@1.5",
    "@1e3",
    "@" + "9" * 30,
    "@x",
    "@",
    "@10@10",
    "@\u0663",
]


@st.composite
def measure_strings(draw):
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=30))
    name = draw(st.sampled_from(_NAMES))
    params = draw(
        st.lists(st.tuples(st.sampled_from(_PARAMS), st.sampled_from(_VALUES)), max_size=3)
    )
    body = ",".join(f"{k}={v}" for k, v in params)
    s = name + (f"({body})" if params or draw(st.booleans()) else "")
    return s + draw(st.sampled_from(_CUTS))


@pytest.fixture(scope="module")
def tiny():
    qrels = pd.DataFrame({"topic": ["1", "1", "2"], "doc": ["a", "b", "c"], "rel": [2, 1, 1]})
    runs = pd.DataFrame(
        {"system": "s", "topic": ["1", "1", "2"], "doc": ["a", "x", "c"], "score": [3.0, 2, 1]}
    )
    return runs, qrels


@FUZZ
@given(measure_strings())
def test_random_measure_strings(tiny, text):
    from irframe.measures import parse_measure

    try:
        m = parse_measure(text)
    except IrframeError as e:
        assert isinstance(e, ValueError) and len(str(e)) < 1000
        return
    assert m.cutoff is None or 1 <= m.cutoff <= 2**53
    for _, v in m.params:
        assert not (isinstance(v, float) and not math.isfinite(v))
    runs, qrels = tiny
    assume(not m.definition.needs)  # diversity measures need subtopic qrels (their own error)
    try:
        cube = irf.evaluate(runs, qrels, [text])
    except IrframeError:
        return
    assert np.isfinite(cube.values[~np.isnan(cube.values)]).all()


@FUZZ
@given(
    st.one_of(
        st.integers(),
        st.floats(allow_nan=True),
        st.booleans(),
        st.none(),
        st.binary(max_size=4),
        st.lists(st.integers(), max_size=2),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    )
)
def test_wrong_types_for_measures_and_options(tiny, value):
    runs, qrels = tiny
    with pytest.raises((TypeError, IrframeError)):
        irf.evaluate(runs, qrels, value)
    for option in ("depth", "rel_level", "gains"):
        try:
            irf.evaluate(runs, qrels, "AP", **{option: value})
        except (TypeError, IrframeError):
            continue
        # accepted: only values that are valid for the option
        if option == "depth":
            assert value is None or (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and float(value).is_integer()
                and 1 <= value <= 2**53
            )  # 10.0 is 10
        elif option == "rel_level":
            assert (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
            )
        else:
            assert value is None or (isinstance(value, dict) and not value) or value == {}
