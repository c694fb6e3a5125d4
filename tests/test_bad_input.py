"""One test per kind of bad input: the error type and a message naming the culprit.

The table in docs/bad_input.md lists the same kinds; each row is backed by a test here.
"""

from __future__ import annotations

import gzip
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import irframe as irf
from irframe.errors import ConventionWarning, MeasureParamError, OptionError, ShapeError
from irframe.measures import parse_measure
from irframe.params import MAX_INT, Param


@pytest.fixture(scope="module")
def sample():
    qrels, runs = irf.datasets.trec_eval_sample()
    return runs, qrels


# ----------------------------------------------------------------- measure parameters
@pytest.mark.parametrize(
    "text, param, allowed",
    [
        ("RBP(p=1.5)", "p", r"\[0, 1\)"),
        ("RBP(p=-0.1)", "p", r"\[0, 1\)"),
        ("P(rel=1e400)@10", "rel", "finite"),
        ("P(rel=nan)@10", "rel", "finite"),
        ("P(rel=-inf)@10", "rel", "finite"),
        ("Rprec(mult=1e300)", "mult", r"\(0, 1000\]"),
        ("Rprec(mult=0)", "mult", r"\(0, 1000\]"),
        ("RBP(p=True)", "p", r"\[0, 1\)"),
        ("TSE(n=true)", "n", "integer"),
        ("TSE(n=2.5)", "n", "integer"),
        ("TSE(n=0)", "n", "integer"),
        ("TSE(n=" + "9" * 5000 + ")", "n", "integer"),
        ("P(rel=" + "1" * 5000 + ")@10", "rel", "finite"),
        ("alpha_nDCG(alpha=2)@20", "alpha", r"\[0, 1\]"),
        ("alpha_nDCG(graded=2)@20", "graded", "true or false"),
        ("CWL(C=AP,out=XX)", "out", "one of EU"),
        ("TSE(n=10,e=foo)", "e", "one of AP"),
        ("IPrec(recall=1.5)", "recall", r"\[0, 1\]"),
        ("P_rare_norm(alpha=2)@10", "alpha", r"\[0, 1\]"),
        ("ERR(gmax=0)@10", "gmax", "> 0"),
    ],
)
def test_measure_parameter_out_of_range(text, param, allowed):
    with pytest.raises(MeasureParamError, match=rf"parameter {param} must be .*{allowed}") as e:
        parse_measure(text)
    assert len(str(e.value)) < 400  # a 5000-digit value is shortened, not echoed


@pytest.mark.parametrize(
    "text",
    [
        "P@10000000000000000000",
        "P@0",
        "P@-3",
        "P@1.5",
        "P@1e3",
        "P@\u0663",
        "nDCG@" + "9" * 5000,
        f"P@{MAX_INT + 1}",
    ],
)
def test_cutoff_out_of_range(text):
    with pytest.raises(MeasureParamError, match=r"cutoff k must be an integer in \[1, 2\*\*53\]"):
        parse_measure(text)


def test_cutoff_at_the_bound_is_accepted():
    assert parse_measure(f"P@{MAX_INT}").cutoff == MAX_INT


def test_duplicate_parameter():
    with pytest.raises(MeasureParamError, match="'rel' given twice"):
        parse_measure("P(rel=1,rel=2)@10")


def test_nested_c_function_parameter_is_checked():
    with pytest.raises(MeasureParamError, match=r"CWLA parameter C: .*p"):
        parse_measure("CWLA(C=RBP(p=1.5))")


@pytest.mark.parametrize("measures", [10, 1.5, None, b"AP", {"AP": 1}])
def test_measures_of_wrong_type(sample, measures):
    runs, qrels = sample
    with pytest.raises(TypeError, match="measure"):
        runs.ir.metric(measures, qrels=qrels)


# ----------------------------------------------------------------- numeric options
@pytest.mark.parametrize(
    "kw, name",
    [
        ({"depth": True}, "depth"),
        ({"depth": 0}, "depth"),
        ({"depth": 2.5}, "depth"),
        ({"depth": 10**30}, "depth"),
        ({"rel_level": True}, "rel_level"),
        ({"rel_level": math.nan}, "rel_level"),
        ({"rel_level": math.inf}, "rel_level"),
        ({"gains": {2: math.nan}}, r"gains\[2\]"),
        ({"gains": {2: math.inf}}, r"gains\[2\]"),
        ({"gains": {True: 1}}, "gains key"),
        ({"gains": [1, 2]}, "gains"),
    ],
)
def test_evaluate_numeric_options(sample, kw, name):
    runs, qrels = sample
    with pytest.raises(OptionError, match=rf"^{name}"):
        irf.evaluate(runs, qrels, "nDCG@10", **kw)


@pytest.mark.parametrize(
    "kw, name",
    [
        ({"costs": -1.0}, "costs"),
        ({"costs": {"E": -1.0}}, r"costs\['E'\]"),
        ({"costs": {"E": math.nan}}, r"costs\['E'\]"),
        ({"min_cost": -1.0}, "min_cost"),
        ({"max_cost": math.inf}, "max_cost"),
        ({"depth": True}, "depth"),
        ({"max_gain": math.nan}, "max_gain"),
        ({"min_cost": 2.0, "max_cost": 1.0}, "need min_gain"),
        ({"gains": {1: math.nan}}, r"gains\[1\]"),
    ],
)
def test_cwl_numeric_options(sample, kw, name):
    runs, qrels = sample
    with pytest.raises(OptionError, match=rf"^{name}"):
        irf.cwl.cwl(runs.assign(element_type="E"), qrels, "RBP@0.8", **kw)


def test_option_error_is_value_and_type_error():
    assert issubclass(OptionError, ValueError) and issubclass(OptionError, TypeError)
    assert issubclass(MeasureParamError, OptionError)


def test_param_spec_rules():
    p = Param("int", None, low=1)
    assert (
        p.check("k", 10.0) == 10 and p.check("k", np.int64(3)) == 3 and p.check("k", None) is None
    )
    for bad in (True, 0, 2.5, math.nan, math.inf, "3", 10**5000, MAX_INT + 1):
        with pytest.raises(OptionError, match=r"^k must be an integer"):
            p.check("k", bad)
    f = Param("float", 0.5, low=0, high=1, low_open=True)
    assert f.check("x", 1) == 1 and f.check("x", np.float32(0.25)) == 0.25
    for bad in (0, 1.0001, False, math.nan, -math.inf, "0.5", None):
        with pytest.raises(OptionError, match=r"^x must be a number in \(0, 1\]"):
            f.check("x", bad)
    # a float parameter takes a large int as the float it is (rel_level=10**18 was refused
    # as "not a finite number"); an int beyond the floats is not finite
    level = Param("float", 1)
    assert level.check("rel_level", 10**18) == 1e18 and level.check("rel_level", -(2**60)) == -(
        2.0**60
    )
    with pytest.raises(OptionError, match=r"^rel_level must be a finite number"):
        level.check("rel_level", 10**400)


# ----------------------------------------------------------------- ids
def _id_variants(runs: pd.DataFrame, col: str) -> dict[str, pd.DataFrame]:
    """The same run with ``col`` holding numbers in every dtype a user may end up with."""
    as_int = runs[col].astype(str).astype(int)
    mixed = runs[col].astype(str).astype(object)
    mixed.iloc[:3] = [int(x) for x in mixed.iloc[:3]]  # what pd.concat of two reads gives
    out = {
        "int64": runs.assign(**{col: as_int}),
        "float": runs.assign(**{col: as_int.astype(float)}),
        "object ints+str": runs.assign(**{col: mixed}),
        "category of int": runs.assign(**{col: as_int.astype("category")}),
        "bool": runs.assign(**{col: as_int > 301}),
    }
    try:
        import pyarrow  # noqa: F401

        out["int64[pyarrow]"] = runs.assign(**{col: as_int.astype("int64[pyarrow]")})
    except ImportError:  # pragma: no cover
        pass
    return out


@pytest.mark.parametrize("col", ["topic", "doc", "system"])
def test_non_string_ids_rejected_everywhere(sample, col):
    runs, qrels = sample
    if col == "doc":
        runs = runs.assign(doc=[str(i) for i in range(len(runs))])
    if col == "system":
        runs = runs.assign(system="7")
    for bad in _id_variants(runs, col).values():
        before = bad.copy()
        pattern = rf"run frame: column '{col}' \(dtype [^)]+\) must hold strings"
        with pytest.raises(irf.InputError, match=pattern):
            irf.evaluate(bad, qrels, "AP")
        with pytest.raises(irf.InputError, match=pattern):
            bad.ir.metric("AP", qrels=qrels)
        if col != "system":
            with pytest.raises(irf.InputError, match=pattern):  # join refuses what metric refuses
                bad.ir.join(qrels)
        pd.testing.assert_frame_equal(bad, before)


def test_mixed_id_message_names_examples(sample):
    runs, qrels = sample
    bad = _id_variants(runs, "topic")["object ints+str"]
    with pytest.raises(irf.InputError) as e:
        irf.evaluate(bad, qrels, "AP")
    msg = str(e.value)
    assert (
        "3 value(s) are int mixed with strings" in msg
        and "row 0: topic=301" in msg
        and "astype(str)" in msg
    )


def _fixed(code: str, df: pd.DataFrame) -> pd.DataFrame:
    """``df`` after the code an error message gives (``df[...] = ...`` or ``df = ...``),
    run as a user would."""
    scope = {"df": df}
    exec(code, {}, scope)
    return scope["df"]


def _float_variants(s: pd.Series) -> dict[str, pd.Series]:
    """String ids of whole numbers as the float columns users end up with."""
    f = s.astype(int).astype(float)
    mixed = s.astype(object)
    mixed.iloc[::2] = f.iloc[::2]  # pd.concat of a str frame and a float frame
    return {
        "float64": f,
        "Float64": f.astype("Float64"),
        "float with NaN": f.where(np.arange(len(f)) != 1),
        "object floats+str": mixed,
        "category of float": f.astype("category"),
    }


@pytest.mark.parametrize("col", ["topic", "doc"])
def test_float_id_fix_from_the_message_works(sample, col):
    """Float ids (whole numbers): the conversion the error suggests, run as written, gives
    back the string ids; ``.astype(str)`` would give '301.0' and silently match nothing."""
    runs, qrels = sample
    runs = runs.assign(doc=[str(i) for i in range(len(runs))])
    qrels = pd.DataFrame({"topic": runs.topic, "doc": runs.doc, "rel": np.arange(len(runs)) % 2})
    for name, bad in _float_variants(runs[col]).items():
        df = runs.assign(**{col: bad})
        with pytest.raises(irf.InputError, match=rf"column '{col}' \(dtype") as e:
            irf.evaluate(df, qrels, ["AP", "P@5"])
        msg = str(e.value)
        if name == "float with NaN":
            assert "row 1" in msg and f"df = df.dropna(subset=['{col}'])" in msg
            df = df.dropna(subset=[col])
        fix = re.search(r"convert with (df\[.*?\] = .*?) if the numbers", msg).group(1)
        df = _fixed(fix, df)  # the message's own code, run as a user would
        want = runs.drop(index=1) if name == "float with NaN" else runs
        got = irf.evaluate(df, qrels, ["AP", "P@5"])
        xr_equal = got.equals(irf.evaluate(want, qrels, ["AP", "P@5"]))
        assert xr_equal and df[col].tolist() == want[col].tolist(), (name, fix)


_RUN_D = {"301": {"a": 2.0, "b": 1.0}, "302": {"c": 1.5}}
_QRELS_D = {"301": {"a": 1, "c": 0}, "302": {"c": 2}}


def _int_keys(d: dict, which: str) -> dict:
    if which == "topic":
        return {int(t): docs for t, docs in d.items()}
    return {t: {int(k, 36): v for k, v in docs.items()} for t, docs in d.items()}


def _suggested(msg: str):
    """The conversion the message suggests, as a function of the dict it names ``x``."""
    expr = re.search(r"with (\{.*\}) if the numbers", msg).group(1)
    return lambda x: eval(expr, {}, {"x": x})  # the message's own code, run as a user would


@pytest.mark.parametrize("which", ["topic", "doc"])
@pytest.mark.parametrize("side", ["run", "qrels", "several runs"])
def test_dict_with_number_keys_gets_advice_that_works(which, side):
    """A pytrec_eval-style dict with int keys: the error speaks of the dict (not a column)
    and its suggested conversion, run as written, gives a dict that evaluates."""
    run, qrels = dict(_RUN_D), dict(_QRELS_D)
    if side == "run":
        run = _int_keys(run, which)
    elif side == "qrels":
        qrels = _int_keys(qrels, which)
    else:
        run = {"bm25": _int_keys(run, which), "dense": _int_keys(run, which)}
    with pytest.raises(irf.InputError, match=rf"the dict's {which} keys must be strings") as e:
        irf.evaluate(run, qrels, "AP")
    fix = _suggested(str(e.value))
    if side == "run":
        run = fix(run)
    elif side == "qrels":
        qrels = fix(qrels)
    else:
        assert "each run's dict" in str(e.value)
        run = {name: fix(r) for name, r in run.items()}
    cube = irf.evaluate(run, qrels, "AP")
    assert cube.notnull().all()


def test_non_string_qrels_ids_rejected(sample):
    runs, qrels = sample
    bad = qrels.assign(topic=qrels.topic.astype(str).astype(int))
    for call in (lambda: irf.evaluate(runs, bad, "AP"), lambda: runs.ir.join(bad)):
        with pytest.raises(
            irf.InputError, match=r"qrels frame: column 'topic' \(dtype int64\) must hold strings"
        ):
            call()


def test_string_id_dtypes_accepted(sample):
    runs, qrels = sample
    want = irf.evaluate(runs, qrels, "AP").values
    kinds = [object, "category", "string"]
    try:
        import pyarrow  # noqa: F401

        kinds.append("string[pyarrow]")
    except ImportError:  # pragma: no cover
        pass
    for kind in kinds:
        r = runs.assign(**{c: runs[c].astype(str).astype(kind) for c in ("system", "topic", "doc")})
        np.testing.assert_array_equal(irf.evaluate(r, qrels, "AP").values, want)


def test_join_checks_grades_like_metric(sample):
    runs, qrels = sample
    with pytest.raises(irf.InputError, match="column 'rel' has 1 NaN"):
        runs.ir.join(qrels.assign(rel=qrels.rel.where(qrels.index != 0, np.nan)))


# ----------------------------------------------------------------- empty overlap
@pytest.mark.parametrize("complete", [False, True])
def test_no_common_topic_is_an_error(sample, complete):
    runs, qrels = sample
    other = qrels.assign(topic="9" + qrels.topic.astype(str))
    with pytest.raises(
        irf.EmptyOverlapError, match="No queries with both results and relevance info"
    ):
        irf.evaluate(runs, other, "AP", complete=complete)
    with pytest.raises(irf.EmptyOverlapError, match="'9301'"):
        runs.ir.metric("AP", qrels=other)
    assert issubclass(irf.EmptyOverlapError, irf.InputError)


# ----------------------------------------------------------------- NaN values in cubes
def test_summarize_refuses_nan_beside_values(sample):
    runs, qrels = sample
    cube = irf.evaluate(runs, qrels, ["AP", "P@10"])
    cube[0, 1, 0] = np.nan  # an undefined value, not a missing ranking
    with pytest.raises(
        irf.InputError, match=r"NaN for measure\(s\) \['AP'\] at system 'STANDARD', topic '302'"
    ):
        irf.summarize(cube)
    cube[0, 1, :] = np.nan  # the whole cell: "not evaluated"
    skip = irf.summarize(cube)
    # brute force: the mean of the other two topics
    expect = np.mean([cube.values[0, t, 0] for t in (0, 2)])
    assert skip["AP"].iloc[0] == pytest.approx(expect)


def test_kernel_returning_nan_is_an_error(sample):
    runs, qrels = sample
    from irframe.measures import MeasureDef, register, unregister

    register(MeasureDef("NaNy", lambda ctx, m: np.full(ctx.aligned.n_groups, np.nan)), replace=True)
    try:
        with pytest.raises(irf.InputError, match="'NaNy' gave 3 non-finite value"):
            irf.evaluate(runs, qrels, "NaNy")
    finally:
        unregister("NaNy")


def test_summarize_cwl_dataset_and_wrong_types(sample):
    runs, qrels = sample
    ds = irf.cwl.cwl(runs, qrels, ["RBP@0.8"])
    table = irf.summarize(ds)
    assert table[("EU", "RBP@0.8")].iloc[0] == pytest.approx(float(ds["EU"].mean("topic").item()))
    for bad in (ds["EU"].values, runs, None):
        with pytest.raises(ShapeError, match="summarize needs an xarray cube"):
            irf.summarize(bad)


# ----------------------------------------------------------------- files
_RUN = b"301 Q0 d1 1 2.5 sys\n301 Q0 d2 2 1.5 sys\n"
_QRELS = b"301 0 d1 1\n301 0 d2 0\n"


# mtime=0 everywhere here: the bytes are in the test ids, which must be the same in every
# pytest-xdist worker (gzip otherwise writes the current time into the header)
def _gz_bad_crc() -> bytes:
    g = gzip.compress(_RUN, mtime=0)
    return g[:-8] + b"\0\0\0\0" + g[-4:]


@pytest.mark.parametrize(
    "name, data, why",
    [
        (
            "deflate.gz",
            gzip.compress(_RUN, mtime=0)[:10] + b"garbage" * 5,
            "corrupt gzip file",
        ),  # zlib.error
        ("trunc.gz", gzip.compress(_RUN * 100, mtime=0)[:-20], "corrupt gzip file"),  # EOFError
        ("crc.gz", _gz_bad_crc(), "corrupt gzip file"),  # BadGzipFile
        ("trailing.gz", gzip.compress(_RUN, mtime=0) + b"junk", "corrupt gzip file"),
    ],
)
def test_corrupt_gzip_is_a_parse_error_naming_the_file(tmp_path, name, data, why):
    p = tmp_path / name
    p.write_bytes(data)
    with pytest.raises(irf.ParseError, match=why) as e:
        irf.read_run(p)
    assert str(p) in str(e.value) and e.value.path == str(p)


@pytest.mark.parametrize(
    "data, lineno, why",
    [
        (b"301 Q0 d\xff1 1 2.5 sys\n", 1, "not valid UTF-8"),
        (
            gzip.compress(b"301 Q0 d1 1 2.5 sys\n301 Q0 d\xff1 2 2.5 sys\n", mtime=0),
            2,
            "not valid UTF-8",
        ),
        ("301 Q0 d1 1 2.5 s\n".encode("utf-16"), 1, "not valid UTF-8"),
        (b"301 Q0 d1 99999999999999999999 2.5 sys\n", 1, "does not fit a 64-bit integer"),
        (b"301 Q0 d1 1 1e400 sys\n", 1, "score is inf"),
        (b"301 Q0 d1 1 nan sys\n", 1, "score is nan"),
        (b"#c\n301 Q0 d1 1.0 2.5 sys\n", 2, "rank '1.0' is not an integer"),
        (b"301 Q0 " + b"x" * 3_000_000 + b" 1 2.5 sys\r\n301 Q0 d3 x 1 s\r\n", 2, "rank 'x'"),
        (b"301 Q0 d1 1 2.5\n", 1, "5 field"),
        (b"301 Q0 d1 1_0 2.5 sys\n", 1, "rank '1_0' is not an integer"),
        (b"301 Q0 d1 1 2_5 sys\n", 1, "score '2_5' is not a number"),
    ],
)
def test_bad_run_lines_name_file_and_line(tmp_path, data, lineno, why):
    p = tmp_path / "run.txt"
    p.write_bytes(data)
    with pytest.raises(irf.ParseError, match=why) as e:
        irf.read_run(p)
    assert str(e.value).startswith(f"{p}, line {lineno}:") and e.value.lineno == lineno


def test_text_mode_file_that_cannot_decode(tmp_path):
    p = tmp_path / "latin1.txt"
    p.write_bytes(b"301 Q0 d\xe91 1 2.5 sys\n")
    with (
        open(p, encoding="utf-8") as fh,
        pytest.raises(irf.ParseError, match="cannot decode the file as text"),
    ):
        irf.read_run(fh)


@pytest.mark.parametrize(
    "prefix", [b"\xef\xbb\xbf", b"\xef\xbb\xbf# exported by a tool\n", b"# c\r\n\r\n"]
)
@pytest.mark.parametrize("crlf", [False, True])
def test_bom_comments_crlf_are_read(tmp_path, prefix, crlf):
    run, qrels = _RUN, _QRELS
    if crlf:
        run, qrels = run.replace(b"\n", b"\r\n"), qrels.replace(b"\n", b"\r\n")
    (tmp_path / "r").write_bytes(prefix + run)
    (tmp_path / "q").write_bytes(prefix + qrels)
    r, q = irf.read_run(tmp_path / "r"), irf.read_qrels(tmp_path / "q")
    assert r.topic.astype(str).tolist() == ["301", "301"] and r.doc.astype(str).tolist() == [
        "d1",
        "d2",
    ]
    assert r.system.astype(str).tolist() == ["sys", "sys"]
    assert q.rel.tolist() == [1, 0] and q.doc.astype(str).tolist() == ["d1", "d2"]


@pytest.mark.parametrize("arrow", [True, False])
def test_ten_megabyte_docno(tmp_path, monkeypatch, arrow):
    import irframe.io as iio

    monkeypatch.setattr("irframe._textfile.USE_ARROW", arrow and iio.pa is not None)
    long_doc = "x" * 10_000_000
    (tmp_path / "r").write_bytes(f"301 Q0 {long_doc} 1 2.5 sys\n".encode() + _RUN)
    (tmp_path / "q").write_bytes(f"301 0 {long_doc} 1\n".encode() + _QRELS)
    r, q = irf.read_run(tmp_path / "r"), irf.read_qrels(tmp_path / "q")
    assert r.doc.astype(str).tolist()[0] == long_doc and q.doc.astype(str).tolist()[0] == long_doc
    cube = irf.evaluate(r, q, "P@1")
    assert cube.item() == 1.0  # the long docno is the relevant one, retrieved first


def test_cost_file_errors(tmp_path):
    p = tmp_path / "costs"
    p.write_bytes(b"E1 1\nE2 -1\n")
    with pytest.raises(
        irf.ParseError, match=rf"{p}, line 2: cost '-1' is not a finite number >= 0"
    ):
        irf.io.read_cost_file(p)


# ----------------------------------------------------------------- memory follows the input
def test_cwl_huge_depth_is_refused_quickly(sample):
    runs, qrels = sample
    tiny = runs[runs["rank"] <= 3]
    with pytest.raises(
        OptionError, match=r"depth 1000000000 pads every ranking .* longest ranking has 3"
    ):
        irf.cwl.cwl(tiny, qrels, "RBP@0.8", depth=10**9)
    with pytest.raises(OptionError, match="depth 1000000000 pads"):
        irf.evaluate(tiny, qrels, "CWLA(C=RBP(p=0.8))@1000000000")
    # kernels that need no padding clamp to the longest ranking: same value as at depth 3
    big = irf.evaluate(tiny, qrels, ["ERR@1000000000", "RBP(p=0.8)@1000000000", "P@1000000000"])
    small = irf.evaluate(tiny, qrels, ["ERR@3", "RBP(p=0.8)@3", "P@3"])
    np.testing.assert_array_equal(
        big.sel(measure=big.measure.values[:2]).values,
        small.sel(measure=small.measure.values[:2]).values,
    )
    # P@k divides by k (trec_eval): 3 hits at most out of 1e9
    assert float(big.sel(measure="P@1000000000").max()) <= 3e-9


@pytest.mark.parametrize("where", ["doc", "topic", "system"])
def test_one_ten_megabyte_id_costs_memory_of_the_order_of_the_input(where):
    import tracemalloc

    long_id = "x" * 10_000_000
    docs = [f"d{i}" for i in range(119)] + ["r"]
    runs = pd.DataFrame({"system": "s", "topic": "1", "doc": docs, "score": np.arange(120.0)[::-1]})
    qrels = pd.DataFrame({"topic": "1", "doc": ["r", "d3"], "rel": [1, 1]})
    if where == "doc":
        runs.loc[119, "doc"] = qrels.loc[0, "doc"] = long_id
    elif where == "topic":
        runs["topic"] = qrels["topic"] = long_id
    else:
        runs["system"] = long_id
    tracemalloc.start()
    try:
        cube = irf.evaluate(runs, qrels, ["AP", "P@10", "nDCG@10"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # brute force AP: relevant at ranks 4 (d3) and 120
    assert cube.sel(measure="AP").item() == pytest.approx((1 / 4 + 2 / 120) / 2)
    assert peak < 8 * 10_000_000, (
        f"peak {peak / 1e6:.0f} MB for a 10 MB id"
    )  # fixed-width ids needed 4.5 GB


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda c, v: irf.stats.mean_ci(c, alpha=v), "alpha"),
        (lambda c, v: irf.stats.mean_ci(c, n_samples=v), "n_samples"),
        (lambda c, v: irf.meta.discriminative_power(c, alpha=v), "alpha"),
        (lambda c, v: irf.meta.stability(c, n_trials=v), "n_trials"),
        (lambda c, v: irf.meta.swap_rate(c, fuzziness=v), "fuzziness"),
    ],
)
@pytest.mark.parametrize("value", [True, math.nan, math.inf, -1, 10**30])
def test_stats_numeric_options(sample, call, name, value):
    runs, qrels = sample
    cube = irf.evaluate(runs, qrels, ["AP", "P@10"])
    if name == "fuzziness" and value == 10**30:  # a number >= 0 without a bound: 1e30 is
        value = 10**400  # legal (every difference a tie); an int beyond the floats is not
    with pytest.raises(OptionError, match=rf"^{name} must be"):
        call(cube, value)


def test_diversity_huge_cutoff_is_small_and_exact():
    qrels, runs = irf.datasets.synthetic(2, 3, 5, diversity=True, rng=1)
    big = irf.evaluate(runs, qrels, ["alpha_DCG@1000000000000", "ERR_IA@1000000000000"])
    # brute force: the normalising "ideal ideal" sum has no visible term beyond a few thousand ranks
    small = irf.evaluate(runs, qrels, ["alpha_DCG@5000", "ERR_IA@5000"])
    np.testing.assert_array_equal(big.values, small.values)
    from irframe.measures.diversity_kernels import _ideal_ideal, _log2_disc

    s = 0.0
    for i in range(1, 5001):  # the C loop of ndeval, in Python floats
        s += 0.5 ** (i - 1) * (math.log(2) / math.log(i + 1))
    assert _ideal_ideal(0.5, 10**12, _log2_disc) == pytest.approx(s, rel=1e-15)
    with pytest.raises(MeasureParamError, match="does not converge"):
        irf.evaluate(runs, qrels, "alpha_DCG(alpha=0)@1000000000000")


@pytest.mark.parametrize("arrow", [True, False])
def test_c_number_syntax_and_ignored_fields(tmp_path, monkeypatch, arrow):
    import irframe.io as iio

    monkeypatch.setattr("irframe._textfile.USE_ARROW", arrow and iio.pa is not None)
    p = tmp_path / "run"
    p.write_bytes(
        b"301 Q\xff d1 +2 -.5 s\n301 Q0 d2 3 1e3 s\n"
    )  # a non-UTF-8 Q0 is ignored, as in trec_eval
    r = irf.read_run(p)
    assert r["rank"].tolist() == [2, 3] and r.score.tolist() == [-0.5, 1000.0]


def _ap_by_rank(run: pd.DataFrame, qrels: pd.DataFrame) -> dict[tuple[str, str], float]:
    """AP written out from the rank column (trec_eval's definition), for the test below."""
    rel = {(t, d) for t, d, g in qrels[["topic", "doc", "rel"]].itertuples(index=False) if g > 0}
    n_rel = qrels[qrels.rel > 0].groupby("topic").size()
    out = {}
    for (s, t), g in run.sort_values("rank").groupby(["system", "topic"]):
        hits = [(t, d) in rel for d in g.doc]
        prec = [sum(hits[: i + 1]) / (i + 1) for i, h in enumerate(hits) if h]
        out[(s, t)] = sum(prec) / n_rel.get(t, 0) if n_rel.get(t, 0) else 0.0
    return out


@pytest.mark.parametrize("systems", [1, 12])
@pytest.mark.parametrize("order", ["rank", "input"])
def test_run_without_a_score_column_follows_the_advice(systems, order):
    """A run with ranks but no score: the message's advice (order='rank' or 'input') works,
    whether the docs are mostly distinct (one system: looked up among the judged docs) or
    repeat across systems (encoded)."""
    rng = np.random.default_rng(7)
    rows = []
    for s in range(systems):
        for t in ("1", "2", "3"):
            docs = rng.permutation(40)[:25]
            rows += [(f"s{s}", t, f"d{d}", r + 1) for r, d in enumerate(docs)]
    run = pd.DataFrame(rows, columns=["system", "topic", "doc", "rank"])
    qrels = pd.DataFrame(
        [(t, f"d{d}", int(d % 3 == 0)) for t in ("1", "2", "3") for d in range(40)],
        columns=["topic", "doc", "rel"],
    )
    shuffled = run.sample(frac=1, random_state=1) if order == "rank" else run
    with pytest.raises(irf.InputError, match="order='rank' or order='input'"):
        irf.evaluate(shuffled, qrels, "AP")  # the default order needs scores
    got = irf.evaluate(shuffled, qrels, "AP", order=order).sel(measure="AP")
    for (s, t), want in _ap_by_rank(run, qrels).items():
        assert got.sel(system=s, topic=t).item() == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("name", ["SYSTEM", "System", "run_id", "tag", "model"])
def test_a_system_column_under_another_name_is_not_merged(name):
    """A frame whose systems sit in a column irframe does not recognise: the systems were
    merged into one ranking named 'run' without a word. Now refused, and both fixes the
    message offers work: naming the column (each system's own AP, brute force), or
    declaring the frame one run."""
    qrels = pd.DataFrame({"topic": "1", "doc": list("abc"), "rel": [1, 0, 1]})
    runs = pd.DataFrame(
        {
            name: ["s1"] * 3 + ["s2"] * 3,
            "topic": "1",
            "doc": list("abxcyz"),
            "score": [3.0, 2, 1] * 2,
        }
    )
    if name == "SYSTEM":  # every column in capitals: the advice names all four
        runs = runs.rename(columns=str.upper)
    before = runs.copy()
    with pytest.raises(irf.ColumnError, match=rf"'{name}'") as e:
        irf.evaluate(runs, qrels, "AP")
    fix = eval(re.search(r"Pass columns=(\{.*?\}) if", str(e.value)).group(1))
    assert fix["system"] == name
    cube = irf.evaluate(runs, qrels, "AP", columns=fix).sel(measure="AP")
    # s1 ranks a (rel), b, x: AP = (1/1)/2; s2 ranks c (rel), y, z: AP = (1/1)/2
    assert cube.sel(system="s1").item() == 0.5 and cube.sel(system="s2").item() == 0.5
    if name != "SYSTEM":
        assert "or system='my_run' if the frame is one run" in str(e.value)
        one = irf.evaluate(runs, qrels, "AP", system="my_run").sel(measure="AP")
        assert one.system.values.tolist() == ["my_run"]  # a, c tie at 3.0 first: AP 1
        assert one.item() == 1.0
    pd.testing.assert_frame_equal(runs, before)
    one_value = runs.assign(**{runs.columns[0]: "s1"})  # one value: one run, as before
    if name != "SYSTEM":
        assert irf.evaluate(one_value, qrels, "AP").system.values.tolist() == ["run"]


@pytest.mark.parametrize("grades", [[1, 0], [0, 1]])
def test_join_refuses_a_judgment_given_twice_as_metric_does(grades):
    """join took the max of two grades for one (topic, doc) without a word, where metric
    refuses them; now both raise the same DuplicateError (it names the grades and does not
    take the grade column for a subtopic column), and duplicates='first' keeps the first
    row's grade in both (AP by hand: a then b, one or two relevant)."""
    runs = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"topic": "1", "doc": ["a", "a", "b"], "rel": [*grades, 1]})
    for call in (
        lambda **kw: runs.ir.join(qrels, **kw),
        lambda **kw: irf.evaluate(runs, qrels, "AP", **kw),
    ):
        with pytest.raises(irf.DuplicateError, match="Their grades differ") as e:
            call()
        assert "rel=1" in str(e.value) and "rel=0" in str(e.value)
        assert "subtopic" not in str(e.value)
    want = 1.0 if grades[0] == 1 else 0.5  # a relevant: 1/1, 2/2; else only b at rank 2: 1/2
    joined = runs.ir.join(qrels, duplicates="first")
    assert joined.rel.tolist() == [float(grades[0]), 1.0]
    assert joined.ir.metric("AP").item() == want
    assert irf.evaluate(runs, qrels, "AP", duplicates="first").item() == want


def test_rows_with_one_index_label_are_told_apart_by_position():
    qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b"], "rel": [1, 1]})
    twice = pd.concat([qrels.iloc[:1], qrels])  # index 0, 0, 1
    runs = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a"], "score": [1.0]})
    with pytest.raises(irf.DuplicateError, match=r"row 0 \(position 0\): .*; row 0 \(position 1\)"):
        irf.evaluate(runs, twice, "AP")


def _timestamps(n: int) -> pd.Series:
    return pd.Series(pd.date_range("2020-01-01", periods=n, freq="D")[::-1])


@pytest.mark.parametrize(
    "kind, make",
    [
        ("complex", lambda s: s.astype(complex)),
        ("timedelta", lambda s: pd.to_timedelta(s, unit="s")),
        ("datetime", lambda s: _timestamps(len(s)).set_axis(s.index)),
        ("datetime UTC", lambda s: _timestamps(len(s)).dt.tz_localize("UTC").set_axis(s.index)),
    ],
)
def test_scores_that_are_not_real_numbers_are_refused_and_the_fix_works(kind, make):
    """Complex, timedelta and datetime scores were evaluated as numbers (the real part,
    nanoseconds) without a word. Refused now; the conversion the message gives, run as
    written, ranks as the original scores (descending scores, descending times)."""
    runs = pd.DataFrame({"system": "s", "topic": "1", "doc": list("abcd"), "score": [4.0, 3, 2, 1]})
    qrels = pd.DataFrame({"topic": "1", "doc": ["b", "d"], "rel": [1, 1]})
    df = runs.assign(score=make(runs.score))
    with pytest.raises(
        irf.InputError, match=r"column 'score' has dtype .*; expected real numbers"
    ) as e:
        irf.evaluate(df, qrels, "AP")
    fix = re.search(r"e\.g\. (df\['score'\] = .*?)(?: for .*)?\.$", str(e.value)).group(1)
    df = _fixed(fix, df)
    assert irf.evaluate(df, qrels, "AP").item() == pytest.approx((1 / 2 + 2 / 4) / 2)


def test_string_view_ids_are_read_as_strings():
    pa = pytest.importorskip("pyarrow")
    runs = pd.DataFrame({"system": "s", "topic": "1", "doc": list("abc"), "score": [3.0, 2, 1]})
    qrels = pd.DataFrame({"topic": "1", "doc": list("ac"), "rel": [1, 1]})
    view = pd.ArrowDtype(pa.string_view())
    got = irf.evaluate(runs.astype({"doc": view, "topic": view}), qrels.astype({"doc": view}), "AP")
    assert got.item() == pytest.approx((1 + 2 / 3) / 2)
    # the qrels' topic column too (it raised pyarrow's ArrowNotImplementedError)
    both = irf.evaluate(runs.astype({"topic": view}), qrels.astype({"topic": view}), "AP")
    assert both.item() == pytest.approx((1 + 2 / 3) / 2)


@pytest.mark.parametrize("frame, col", [("run", "score"), ("run", "doc"), ("qrels", "rel")])
def test_a_column_name_given_twice_is_a_column_error_whose_fix_works(frame, col):
    """A frame with a column name twice (pd.concat along columns) crashed with pandas'
    AttributeError in evaluate, join and the writers; now a ColumnError whose code works."""
    runs = pd.DataFrame({"system": "s", "topic": "1", "doc": list("abc"), "score": [3.0, 2, 1]})
    qrels = pd.DataFrame({"topic": "1", "doc": list("ac"), "rel": [1, 1]})
    frames = {"run": runs, "qrels": qrels}
    frames[frame] = pd.concat([frames[frame], frames[frame][[col]]], axis=1)
    calls = [lambda r, q: irf.evaluate(r, q, "AP"), lambda r, q: r.ir.join(q)]
    for call in calls:
        with pytest.raises(irf.ColumnError, match=rf"column name\(s\) twice: '{col}'") as e:
            call(frames["run"], frames["qrels"])
    code = re.search(r"e\.g\. (df = .*?) \(the first\)", str(e.value)).group(1)
    frames[frame] = _fixed(code, frames[frame])
    assert irf.evaluate(frames["run"], frames["qrels"], "AP").item() == pytest.approx(
        (1 + 2 / 3) / 2
    )


@pytest.mark.parametrize("bad", ["x\udcff", "\ud800"])
def test_ids_with_lone_surrogates_are_named_and_the_fix_works(bad):
    """Ids that are not valid Unicode (lone surrogates) crashed in pyarrow with a
    UnicodeEncodeError naming no row; now an InputError naming it, whose code works."""
    runs = pd.DataFrame({"system": "s", "topic": "1", "doc": list("abc"), "score": [3.0, 2, 1]})
    runs["doc"] = pd.Series(["a", bad, "c"], dtype=object)
    qrels = pd.DataFrame({"topic": "1", "doc": list("ac"), "rel": [1, 1]})
    with pytest.raises(
        irf.InputError, match=r"1 id\(s\) that are not valid Unicode text.*row 1"
    ) as e:
        irf.evaluate(runs, qrels, "AP")
    code = re.search(r"\): (df\['doc'\] = .*)\.$", str(e.value)).group(1)
    fixed = _fixed(code, runs.copy())
    assert fixed.doc.iloc[1] == bad.encode("utf-8", "backslashreplace").decode()
    assert irf.evaluate(fixed, qrels, "AP").item() == pytest.approx((1 + 2 / 3) / 2)


def test_scores_beyond_a_c_float_tie_with_a_warning():
    """trec_eval 9.0.8 compares scores as C floats: beyond 3.4e38 they are infinite and
    tie (docno descending decides: b first). numpy's raw 'overflow encountered in cast'
    was all the user saw; now a ConventionWarning names the switch, which compares the
    scores as they are (a first)."""
    qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b"], "rel": [1, 0]})
    runs = pd.DataFrame({"system": "s", "topic": "1", "doc": ["a", "b"], "score": [1e300, 9e299]})
    with pytest.warns(ConventionWarning, match=r"2 score\(s\) lie beyond the range of a C float"):
        assert irf.evaluate(runs, qrels, "RR").item() == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert irf.evaluate(runs, qrels, "RR", order="trec_eval10").item() == 1.0


def test_a_run_frame_given_as_the_qrels_is_refused():
    """'score' is ranx's name for a grade, so a run passed as the qrels was read as
    judgments (every AP 1.0 for one system; for several, advice to take 'system' for the
    subtopic). A qrels frame whose grades would come from 'score' beside a run's column
    (system, rank, Q0) is refused; naming the grade column explicitly still works."""
    _, runs = irf.datasets.synthetic(systems=2, topics=3, depth=10, rng=0)
    pt = (
        runs[runs.system == "sys0"]
        .drop(columns="system")
        .rename(columns={"topic": "qid", "doc": "docno"})
    )
    pt = pt.assign(rank=pt.groupby("qid").cumcount())
    for run_frame in (runs, runs[runs.system == "sys0"], pt):
        with pytest.raises(irf.IrframeError, match="qrels frame looks like a run"):
            irf.evaluate(run_frame, run_frame, "AP")
    judged = pd.DataFrame(
        {"system": "pool", "topic": ["1", "1"], "doc": ["a", "b"], "score": [1, 0]}
    )
    one = pd.DataFrame({"system": "s", "topic": "1", "doc": ["b", "a"], "score": [2.0, 1.0]})
    assert irf.evaluate(one, judged, "AP", qrels_columns={"rel": "score"}).item() == 0.5


@pytest.mark.parametrize("side", ["run", "qrels"])
def test_dict_with_number_keys_at_both_levels_is_fixed_in_one_step(side):
    """pytrec_eval-style dicts whose topic and doc keys are both numbers: the conversion
    the error gives converts both levels (it converted the topics, and the next call
    failed on the docs)."""
    as_numbers = {
        "run": {int(t): {int(k, 36): v for k, v in d.items()} for t, d in _RUN_D.items()},
        "qrels": {int(t): {int(k, 36): v for k, v in d.items()} for t, d in _QRELS_D.items()},
    }
    as_text = {  # the same ids written as strings
        name: {str(t): {str(k): v for k, v in d.items()} for t, d in x.items()}
        for name, x in as_numbers.items()
    }
    given = {**as_text, side: as_numbers[side]}
    with pytest.raises(irf.InputError, match="the dict's topic keys must be strings") as e:
        irf.evaluate(given["run"], given["qrels"], "AP")
    given[side] = _suggested(str(e.value))(given[side])
    assert given[side] == as_text[side]
    assert irf.evaluate(given["run"], given["qrels"], "AP").notnull().all()


def test_columns_of_several_levels_get_a_fix_that_works():
    """pd.concat({...}, axis=1) gives MultiIndex columns: the error listed them beside a
    system column irframe had added (and pandas warned); now the flattening to write."""
    qrels = pd.DataFrame({"topic": "1", "doc": list("abc"), "rel": [1, 0, 1]})
    runs = pd.DataFrame({"topic": "1", "doc": list("abc"), "score": [3.0, 2, 1]})
    for which in ("runs", "qrels"):
        frames = {"runs": runs, "qrels": qrels}
        frames[which] = pd.concat({"a": frames[which]}, axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(irf.ColumnError, match="has columns of 2 levels") as e:
                irf.evaluate(frames["runs"], frames["qrels"], "AP")
        code = re.search(r"e\.g\. (df = .*?), or name", str(e.value)).group(1)
        frames[which] = _fixed(code, frames[which])
        assert irf.evaluate(frames["runs"], frames["qrels"], "AP").item() == pytest.approx(
            (1 + 2 / 3) / 2
        )


def test_counts_of_topics_and_digits_are_not_truncated():
    """stability(n_topics=2.5) ran with 2, swap_rate(topic_set_size=2.7) with 2 and
    report(digits=True) printed one decimal; each is refused now."""
    qrels, runs = irf.datasets.synthetic(systems=3, topics=12, depth=20, rng=0)
    cube = irf.evaluate(runs, qrels, ["AP", "P@10"])
    with pytest.raises(OptionError, match="n_topics must be an integer"):
        irf.meta.stability(cube, n_topics=2.5)
    with pytest.raises(OptionError, match="topic_set_size must be an integer"):
        irf.meta.swap_rate(cube, topic_set_size=2.7)
    with pytest.raises(OptionError, match="digits must be an integer"):
        irf.report(cube, digits=True)


def test_a_cube_with_nan_for_some_measures_of_a_cell_gets_fixes_that_work():
    """summarize/report refuse a NaN beside values in one (system, topic) cell; each of the
    message's fixes, run as written, gives a cube they take (and the first keeps every
    measure's value where the cell is whole)."""
    cube = xr.DataArray(
        np.array([[[0.5, 0.2], [0.3, np.nan]], [[0.1, 0.2], [0.4, 0.5]]]),
        dims=("system", "topic", "measure"),
        coords={"system": ["a", "b"], "topic": ["t1", "t2"], "measure": ["AP", "X"]},
    )
    with pytest.raises(irf.InputError, match="while other measures of the same cell") as e:
        irf.summarize(cube)
    fixes = re.findall(r"\((cube = .*?)\)(?:,| or)", str(e.value))
    assert len(fixes) == 2
    for code in fixes:
        scope = {"cube": cube}
        exec(code, {}, scope)
        means = irf.summarize(scope["cube"])
        irf.report(scope["cube"], baseline="a")
        assert means.loc["b", "AP"] == pytest.approx(0.25)
    assert irf.summarize(cube.sel(measure=["X"])).loc["a", "X"] == pytest.approx(0.2)


def test_bounds_options_are_irframe_errors():
    qrels, runs = irf.datasets.synthetic(systems=2, topics=3, depth=10, rng=0)
    for value in (True, "2", math.nan):
        with pytest.raises(OptionError, match="unjudged_grade must be a finite number"):
            irf.evaluate(runs, qrels, "AP", bounds=True, unjudged_grade=value)
    with pytest.raises(
        irf.IrframeError, match=r"needs a cube from evaluate\(\.\.\., bounds=True\)"
    ):
        irf.flips(irf.evaluate(runs, qrels, "AP"))


def test_qrels_in_the_place_of_the_measures():
    qrels, runs = irf.datasets.synthetic(2, 3, 10, rng=0)
    for call in (lambda: runs.ir.metric(qrels, "AP"), lambda: irf.evaluate(runs, qrels, qrels)):
        with pytest.raises(MeasureParamError, match=r"did the qrels take the measures' place"):
            call()
    # a Series of measure strings is a list of measures
    cube = irf.evaluate(runs, qrels, pd.Series(["AP", "P@5"]))
    assert list(cube.measure.values) == ["AP", "P@5"]


def test_grades_beyond_float64_whole_numbers_refused_with_a_fix_that_works():
    """A grade of 2**60: G came out -0.0 with numpy's divide-by-zero warning (2 + cost - gain
    cancels in float64); refused naming the row, and the advice, applied, evaluates."""
    import re

    runs = pd.DataFrame({"system": "s", "topic": "t", "doc": ["a", "b", "c"], "score": [3.0, 2, 1]})
    qrels = pd.DataFrame({"topic": "t", "doc": ["a", "b", "c"], "rel": [2**60, 0, 2]})
    with pytest.raises(irf.InputError, match=r"beyond 2\*\*53.*row 0") as e:
        irf.evaluate(runs, qrels, "G")
    exec(re.search(r"e\.g\. (qrels\[.*\))\.$", str(e.value)).group(1), {"qrels": qrels})
    assert qrels.rel.tolist() == [3, 0, 2]
    # nDCG written out: DCG = 3/log2(2) + 0 + 2/log2(4), ideal 3/log2(2) + 2/log2(3)
    want = (3 + 2 / np.log2(4)) / (3 + 2 / np.log2(3))
    assert irf.evaluate(runs, qrels, "nDCG").item() == pytest.approx(want, abs=1e-12)
