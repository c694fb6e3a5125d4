"""Tests of irframe.io: TREC run/qrels readers and writers."""

from __future__ import annotations

import copy
import gzip
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf
import irframe._ids as ids
import irframe.io as iio
from irframe._threads import map_threads
from irframe.errors import ParseError

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"


@pytest.fixture(params=["arrow", "pandas"])
def engine(request, monkeypatch):
    """Run a test with pyarrow and with the pandas fallback."""
    if request.param == "arrow":
        pytest.importorskip("pyarrow")
    else:
        monkeypatch.setattr("irframe._textfile.USE_ARROW", False)
    return request.param


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    data = text.encode() if isinstance(text, str) else text
    if name.endswith(".gz"):
        data = gzip.compress(data)
    p.write_bytes(data)
    return p


def normalised(df: pd.DataFrame) -> pd.DataFrame:
    """What reading a written frame gives: ids as categoricals with sorted categories (docs
    too when they repeat, see `categorical_docs`)."""
    out = df.copy()
    for c in out.columns:
        if c in ("system", "topic", "doc", "subtopic"):
            values = out[c].astype(str)
            out[c] = pd.Categorical(values, categories=pd.Index(sorted(set(values)), dtype=str))
    return out.reset_index(drop=True)


@pytest.fixture
def categorical_docs(monkeypatch):
    """Docs read as a categorical whatever their number (as when they repeat across rows:
    pooled runs); without it a small file's distinct docs are read as strings."""
    monkeypatch.setattr(iio, "docs_mostly_distinct", lambda s: False)


def is_str_column(s: pd.Series) -> bool:
    return pd.api.types.is_string_dtype(s.dtype) and not isinstance(s.dtype, pd.CategoricalDtype)


# ----------------------------------------------------------------------------- fixtures


def test_results_test(engine):
    run = iio.read_run(DATA / "results.test")
    assert run.shape == (1500, 5)
    assert run.columns.tolist() == ["system", "topic", "doc", "rank", "score"]
    assert run.dtypes.astype(str).tolist()[:2] == ["category", "category"]
    assert run.dtypes.astype(str).tolist()[3:] == ["int64", "float64"]
    assert is_str_column(run.doc)  # one run: each doc on one line (no dictionary of them)
    assert run.system.cat.categories.tolist() == ["STANDARD"]
    assert run.topic.cat.categories.tolist() == ["301", "302", "303"]
    assert run.groupby("topic", observed=True).size().tolist() == [500, 500, 500]
    # first line: 301\tQ0\tFR940202-2-00150\t104\t  2.129133\tSTANDARD
    assert run.iloc[0].tolist() == ["STANDARD", "301", "FR940202-2-00150", 104, 2.129133]


def test_results_trunc_ignores_trailing_fields(engine):
    run = iio.read_run(DATA / "results.trunc")
    assert len(run) == 584
    assert run.system.cat.categories.tolist() == ["STANDARD"]  # not "STANDARD more junk at"
    assert run.groupby("topic", observed=True).size().to_dict() == {"301": 500, "303": 84}
    assert run.iloc[0].tolist() == ["STANDARD", "301", "FBIS3-27619", 99, 2.138276]


def test_qrels_test(engine):
    q = iio.read_qrels(DATA / "qrels.test")
    assert q.shape == (3681, 3)
    assert q.columns.tolist() == ["topic", "doc", "rel"]
    assert q.rel.dtype == np.int64
    assert int((q.rel > 0).sum()) == 561
    assert q.topic.cat.categories.tolist() == ["301", "302", "303"]


def test_qrels_comments_and_hash_in_docno(engine):
    plain = iio.read_qrels(DATA / "qrels.test")
    commented = iio.read_qrels(DATA / "qrels.test.with-comments")
    assert len(commented) == len(plain) == 3681
    assert "CR#93E-1860" in set(commented.doc.astype(str))
    assert "CR93E-1860" not in set(commented.doc.astype(str))
    assert commented.rel.tolist() == plain.rel.tolist()


def test_qrels_rel_level_negative_grades(engine):
    q = iio.read_qrels(DATA / "qrels.rel_level")
    assert q.rel.dtype == np.int64
    assert q.rel.min() == -1 and q.rel.max() == 4


def test_ids_stay_strings(tmp_path, engine):
    p = write(tmp_path, "r", "051 Q0 007 1 1.0 t\n51 Q0 7 1 2.0 t\n")
    run = iio.read_run(p)
    assert run.topic.astype(str).tolist() == ["051", "51"]
    assert run.doc.astype(str).tolist() == ["007", "7"]
    q = iio.read_qrels(write(tmp_path, "q", "051 0 007 1\n"))
    assert q.topic.astype(str).tolist() == ["051"] and q.doc.astype(str).tolist() == ["007"]


def test_categories_sorted_by_code_point(tmp_path, engine, categorical_docs):
    p = write(tmp_path, "r", "b Q0 d2 1 1 t\na Q0 D1 1 1 t\nb Q0 d10 2 0.5 t\n")
    run = iio.read_run(p)
    assert run.topic.cat.categories.tolist() == ["a", "b"]
    assert run.doc.cat.categories.tolist() == ["D1", "d10", "d2"]
    assert run.doc.astype(str).tolist() == ["d2", "D1", "d10"]  # file order kept


def test_several_tags_give_several_systems_when_asked(tmp_path, engine):
    """A file is one run (trec_eval's runid: the last line's tag, with a ConventionWarning);
    system="tag" splits it by its tag column."""
    p = write(tmp_path, "r", "1 Q0 a 1 1 x\n1 Q0 a 1 1 y\n")
    assert iio.read_run(p, system="tag").system.astype(str).tolist() == ["x", "y"]
    with pytest.warns(irf.errors.ConventionWarning, match="system='tag'"):
        assert iio.read_run(p).system.astype(str).tolist() == ["y", "y"]
    assert iio.read_run(p, system="z").system.astype(str).tolist() == ["z", "z"]


def test_mixed_whitespace_same_as_plain(tmp_path, engine):
    plain = "1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5 t\n"
    messy = "  1\t Q0\ta   1\t\t2.5 t   \n\n1 Q0\tb 2 1.5\tt extra fields\r\n"
    assert iio.read_run(write(tmp_path, "a", plain)).equals(
        iio.read_run(write(tmp_path, "b", messy))
    )


def test_comments_blank_lines_crlf(tmp_path, engine):
    text = "# header\r\n\r\n1 Q0 a 1 2.5 t\r\n   # indented comment\r\n1 Q0 b#1 2 1.5 t\r\n"
    run = iio.read_run(write(tmp_path, "r", text))
    assert run.doc.astype(str).tolist() == ["a", "b#1"]
    assert run.system.astype(str).tolist() == ["t", "t"]


def test_tab_separated_single_spaces(tmp_path, engine):
    run = iio.read_run(write(tmp_path, "r", "1\tQ0\ta\t1\t2.5\tt\n"))
    assert run.iloc[0].tolist() == ["t", "1", "a", 1, 2.5]


def test_gzip_by_magic_bytes_and_suffix(tmp_path, engine):
    text = "1 Q0 a 1 2.5 t\n"
    plain = iio.read_run(write(tmp_path, "r.txt", text))
    gz = iio.read_run(write(tmp_path, "r.gz", text))
    hidden = tmp_path / "no_suffix"
    hidden.write_bytes(gzip.compress(text.encode()))
    assert plain.equals(gz) and plain.equals(iio.read_run(hidden))


def test_file_objects(engine):
    import io

    run = iio.read_run(io.StringIO("1 Q0 a 1 2.5 t\n"))
    assert run.doc.astype(str).tolist() == ["a"]
    q = iio.read_qrels(io.BytesIO(b"1 0 a 2\n"))
    assert q.rel.tolist() == [2]


def test_float_grades_kept(tmp_path, engine):
    q = iio.read_qrels(write(tmp_path, "q", "1 0 a 1.7\n1 0 b 0\n1 0 c -1\n"))
    assert q.rel.dtype == np.float64
    assert q.rel.tolist() == [1.7, 0.0, -1.0]


def test_diversity_and_auto(tmp_path, engine):
    text = "7 1 d1 1\n7 2 d1 0\n7 2 d2 1\n"
    d = iio.read_qrels(write(tmp_path, "q", text), kind="diversity")
    assert d.columns.tolist() == ["topic", "subtopic", "doc", "rel"]
    assert d.subtopic.astype(str).tolist() == ["1", "2", "2"]
    assert d.equals(iio.read_qrels(tmp_path / "q", kind="auto"))
    t = iio.read_qrels(DATA / "qrels.test", kind="auto")
    assert t.columns.tolist() == ["topic", "doc", "rel"]
    with pytest.raises(ValueError, match="kind"):
        iio.read_qrels(tmp_path / "q", kind="ndeval")


def test_columns_renaming(tmp_path, engine):
    p = write(tmp_path, "r", "1 Q0 a 1 2.5 t\n")
    run = iio.read_run(p, columns={"doc": "docno", "system": "run"})
    assert run.columns.tolist() == ["run", "topic", "docno", "rank", "score"]
    with pytest.raises(ValueError, match="unknown role"):
        iio.read_run(p, columns={"docid": "x"})


# ----------------------------------------------------------------------------- errors


def _assert_parse_error(excinfo, path, lineno, line):
    err = excinfo.value
    assert isinstance(err, ValueError)
    msg = str(err)
    assert str(path) in msg, msg
    assert f"line {lineno}" in msg, msg
    assert repr(line) in msg, msg  # shown quoted, tabs visible as \\t
    assert err.path == str(path) and err.lineno == lineno and err.line == line


@pytest.mark.parametrize(
    "bad, why",
    [
        ("1 Q0 b 2 1.5", "5 field"),  # too few fields
        ("1 Q0 b two 1.5 t", "rank"),  # non-numeric rank
        ("1 Q0 b 2.5 1.5 t", "rank"),  # non-integer rank
        ("1 Q0 b 2 high t", "score"),  # non-numeric score
        ("1 Q0 b 2 nan t", "finite"),  # NaN score
        ("1 Q0 b 2 -inf t", "finite"),  # infinite score
    ],
)
@pytest.mark.parametrize("sep", [" ", "\t", " \t "])
def test_run_line_errors(tmp_path, engine, bad, why, sep):
    bad = bad.replace(" ", sep)
    text = f"# comment\n1 Q0 a 1 2.5 t\n\n{bad}\n1 Q0 c 3 0.5 t\n"
    p = write(tmp_path, "run.txt", text)
    with pytest.raises(ParseError, match=why) as excinfo:
        iio.read_run(p)
    _assert_parse_error(excinfo, p, 4, bad)


def test_run_error_in_gzip_file_names_it(tmp_path, engine):
    p = write(tmp_path, "run.gz", "1 Q0 a 1 2.5 t\n1 Q0 b x 1.5 t\n")
    with pytest.raises(ParseError) as excinfo:
        iio.read_run(p)
    _assert_parse_error(excinfo, p, 2, "1 Q0 b x 1.5 t")


def test_nan_score_fast_path_line_number(tmp_path, engine):
    lines = [f"1 Q0 d{i} {i} {1.0 / (i + 1)} t" for i in range(50)]
    lines[37] = "1 Q0 d37 37 NaN t"
    p = write(tmp_path, "run.txt", "\n".join(lines) + "\n")
    with pytest.raises(ParseError, match="finite") as excinfo:
        iio.read_run(p)
    _assert_parse_error(excinfo, p, 38, lines[37])


@pytest.mark.parametrize(
    "bad, why",
    [
        ("301 0 doc", "3 field"),
        ("301 0 doc 1 extra", "5 field"),
        ("301 0 doc yes", "relevance"),
        ("301 0 doc inf", "finite"),
    ],
)
def test_qrels_line_errors(tmp_path, engine, bad, why):
    text = f"301 0 a 1\n# c\n301 0 b 0\n{bad}\n"
    p = write(tmp_path, "qrels.txt", text)
    with pytest.raises(ParseError, match=why) as excinfo:
        iio.read_qrels(p)
    _assert_parse_error(excinfo, p, 4, bad)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n  \n"])
def test_empty_files(tmp_path, engine, text):
    p = write(tmp_path, "empty.txt", text)
    with pytest.raises(ParseError, match="empty run file"):
        iio.read_run(p)
    with pytest.raises(ParseError, match="empty qrels file"):
        iio.read_qrels(p)


def test_invalid_utf8(tmp_path, engine):
    p = write(tmp_path, "r", b"1 Q0 a 1 2 t\n1 Q0 \xff\xfe 2 1 t\n")
    with pytest.raises(ParseError, match=r"line 2.*UTF-8|UTF-8.*line 2"):
        iio.read_run(p)


def test_nul_byte_in_an_id(tmp_path, engine):
    """A NUL byte in a doc id is read as written (pyarrow, pandas 3); pandas 2's CSV parser
    would end the field there, so its reader refuses the file, naming the line and the fix
    (comment lines may hold one)."""
    p = write(tmp_path, "r", b"# note \x00\n1 Q0 a 1 2 t\n1 Q0 b\x00c 2 1 t\n")
    if engine == "pandas" and int(pd.__version__.split(".")[0]) < 3:
        with pytest.raises(ParseError, match=r"line 3 holds a NUL byte.*pip install") as e:
            iio.read_run(p)
        assert e.value.lineno == 3
        return
    assert iio.read_run(p).doc.tolist() == ["a", "b\x00c"]


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        iio.read_run("/nonexistent/run.txt")


# ----------------------------------------------------------------------------- read_runs


def _runs_dir(tmp_path: Path) -> Path:
    d = tmp_path / "runs"
    d.mkdir()
    write(d, "input.bm25.gz", "1 Q0 a 1 3.0 tagA\n2 Q0 b 1 1.0 tagA\n")
    write(d, "rm3.txt", "1 Q0 b 1 2.0 tagB\n1 Q0 a 2 1.0 tagB\n")
    write(d, "ql", "1 Q0 c 1 0.5 tagC\n")
    return d


def test_read_runs_glob_dir_list(tmp_path, engine):
    d = _runs_dir(tmp_path)
    by_dir = iio.read_runs(d)
    assert by_dir.system.astype(str).tolist() == ["bm25", "bm25", "ql", "rm3", "rm3"]
    assert by_dir.system.cat.categories.tolist() == ["bm25", "ql", "rm3"]
    assert by_dir.doc.tolist() == ["a", "b", "c", "b", "a"]
    assert is_str_column(by_dir.doc)  # 3 docs in 5 rows: mostly distinct
    assert by_dir["rank"].dtype == np.int64 and by_dir["score"].dtype == np.float64
    assert by_dir.score.tolist() == [3.0, 1.0, 0.5, 2.0, 1.0]
    assert iio.read_runs(str(d / "*")).equals(by_dir)
    listed = iio.read_runs([d / "rm3.txt", d / "input.bm25.gz"])
    assert listed.system.astype(str).tolist() == ["rm3", "rm3", "bm25", "bm25"]


def test_read_runs_tag_and_callable(tmp_path, engine):
    d = _runs_dir(tmp_path)
    tags = iio.read_runs(d, system="tag")
    assert tags.system.astype(str).tolist() == ["tagA", "tagA", "tagC", "tagB", "tagB"]
    named = iio.read_runs(d, system=lambda p: Path(p).name.upper())
    assert set(named.system.astype(str)) == {"INPUT.BM25.GZ", "RM3.TXT", "QL"}


def _file_fields(paths) -> list[tuple[str, str]]:
    """(topic, doc) of every line, by a plain Python split (the reference)."""
    return [
        tuple(line.split()[::2][:2]) for p in paths for line in Path(p).read_text().splitlines()
    ]


def test_doc_column_by_how_often_docs_repeat(tmp_path, engine):
    """The doc column is a string column when most rows hold a doc of their own (one run, a
    corpus of millions) and a categorical with sorted categories when docs repeat across
    rows (pooled runs: 8 systems over the same 12 docs per topic); either way every row
    holds the file's own doc, and both readers agree."""
    rng = np.random.default_rng(7)
    pooled, single = [], []
    for s in range(8):
        lines = []
        for t in ("301", "302", "7"):
            docs = rng.permutation([f"{t}-d{i}" for i in range(12)])
            lines += [f"{t} Q0 {d} {r} {-r} s{s}" for r, d in enumerate(docs, 1)]
        pooled.append(write(tmp_path, f"s{s}", "\n".join(lines) + "\n"))
    lines = [f"{t} Q0 {t}-doc{i} {i} {-i} one" for t in ("301", "302") for i in range(50)]
    single.append(write(tmp_path, "one", "\n".join(lines) + "\n"))

    runs = iio.read_runs(pooled)
    assert isinstance(runs.doc.dtype, pd.CategoricalDtype)
    cats = runs.doc.cat.categories.tolist()
    assert cats == sorted({d for _, d in _file_fields(pooled)}, key=str.encode)
    assert list(zip(runs.topic.astype(str), runs.doc.astype(str), strict=True)) == _file_fields(
        pooled
    )

    one = iio.read_runs(single)
    assert is_str_column(one.doc)
    assert list(zip(one.topic.astype(str), one.doc, strict=True)) == _file_fields(single)
    pd.testing.assert_frame_equal(iio.read_run(single[0], system="file"), one)


def test_doc_column_dtype_does_not_change_the_cube(tmp_path):
    """Pooled runs with tied scores, read as a categorical of docs and with the docs as
    strings (alignment by lookup), evaluate as pytrec_eval (trec_eval's C code) does from
    the same files with its own readers."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(3)
    paths, qrels = [], []
    for t in ("1", "2", "3"):
        qrels += [f"{t} 0 {t}d{i} {rng.integers(0, 3)}" for i in range(0, 30, 2)]
    q = write(tmp_path, "qrels", "\n".join(qrels) + "\n")
    for s in range(8):
        lines = []
        for t in ("1", "2", "3"):
            docs = rng.choice([f"{t}d{i}" for i in range(30)], 20, replace=False)
            scores = rng.integers(0, 5, 20)  # ties: the docno order decides
            lines += [f"{t} Q0 {d} 0 {sc} s{s}" for d, sc in zip(docs, scores, strict=True)]
        paths.append(write(tmp_path, f"s{s}", "\n".join(lines) + "\n"))
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "RR": "recip_rank"}
    as_read = iio.read_runs(paths)
    assert isinstance(as_read.doc.dtype, pd.CategoricalDtype)  # 8 runs over 30 docs a topic
    with open(q) as f:
        ev = pytrec_eval.RelevanceEvaluator(
            pytrec_eval.parse_qrel(f), {"map", "ndcg_cut.10", "P.5", "recip_rank"}
        )
    for runs in (as_read, as_read.assign(doc=as_read.doc.astype(str))):
        cube = irf.evaluate(runs, iio.read_qrels(q), list(names))
        for p in paths:
            with open(p) as f:
                res = ev.evaluate(pytrec_eval.parse_run(f))
            for t, vals in res.items():
                mine = cube.sel(system=p.name, topic=t, measure=list(names)).values
                np.testing.assert_allclose(mine, [vals[m] for m in names.values()], atol=1e-12)


def test_read_runs_matches_read_run(tmp_path, engine):
    d = _runs_dir(tmp_path)
    many = iio.read_runs([d / "rm3.txt"], system="tag")
    assert many.equals(iio.read_run(d / "rm3.txt"))


def test_read_runs_duplicate_names(tmp_path, engine):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    write(a, "run.txt", "1 Q0 a 1 1 same\n")
    write(b, "run.txt.gz", "1 Q0 a 1 1 same\n")
    with pytest.raises(ValueError, match="both give system name 'run'") as e:
        iio.read_runs([a / "run.txt", b / "run.txt.gz"])
    assert "a/run.txt" in str(e.value) and "b/run.txt.gz" in str(e.value)
    with pytest.raises(ValueError, match="both hold run tag 'same'"):
        iio.read_runs([a / "run.txt", b / "run.txt.gz"], system="tag")


def test_read_runs_no_match(tmp_path):
    with pytest.raises(FileNotFoundError, match="no file matches"):
        iio.read_runs(str(tmp_path / "*.gz"))
    with pytest.raises(ValueError, match="system must be"):
        iio.read_runs(str(DATA / "results.test"), system="name")


def test_read_runs_error_names_the_file(tmp_path, engine):
    d = _runs_dir(tmp_path)
    write(d, "zz_bad.txt", "1 Q0 a 1 2 t\n1 Q0 b 2\n")
    with pytest.raises(ParseError) as excinfo:
        iio.read_runs(d)
    _assert_parse_error(excinfo, d / "zz_bad.txt", 2, "1 Q0 b 2")


def test_file_system_name():
    assert iio._file_system_name("x/input.uic0301.gz") == "uic0301"
    assert iio._file_system_name("bm25.txt.gz") == "bm25"
    assert iio._file_system_name("input.gz") == "input"
    assert iio._file_system_name("run.v2") == "run.v2"


# ----------------------------------------------------------------------------- writers


def _run_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "system": ["b", "b", "a", "a"],
            "topic": ["051", "051", "051", "7"],
            "doc": ["D-1", "d#2", "D-1", "x"],
            "rank": [1, 2, 1, 1],
            "score": [0.1 + 0.2, 1 / 3, -1e-300, 12345678.901234567],
        }
    )


@pytest.mark.parametrize("name", ["run.txt", "run.txt.gz"])
def test_write_read_run_roundtrip(tmp_path, engine, name, categorical_docs):
    df = _run_frame()
    before = df.copy(deep=True)
    iio.write_run(df, tmp_path / name)
    pd.testing.assert_frame_equal(df, before)  # caller's frame untouched
    back = iio.read_run(tmp_path / name, system="tag")  # several systems in one file
    pd.testing.assert_frame_equal(back, normalised(df), check_exact=True)
    if name.endswith(".gz"):
        assert (tmp_path / name).read_bytes()[:2] == b"\x1f\x8b"


def test_write_run_categorical_input_untouched(tmp_path, categorical_docs):
    df = normalised(_run_frame())
    before = copy.deepcopy(df)
    iio.write_run(df, tmp_path / "r")
    pd.testing.assert_frame_equal(df, before)
    pd.testing.assert_frame_equal(iio.read_run(tmp_path / "r", system="tag"), df)


def test_format_run_tag_and_missing_rank_or_score():
    df = pd.DataFrame({"topic": ["1", "1", "2"], "doc": ["a", "b", "c"], "score": [1.0, 2.0, 0.5]})
    text = iio.format_run(df, tag="mine")
    assert text == "1 Q0 a 2 1.0 mine\n1 Q0 b 1 2.0 mine\n2 Q0 c 1 0.5 mine\n"
    ranks = pd.DataFrame({"system": "s", "topic": ["1", "1"], "doc": ["a", "b"], "rank": [1, 2]})
    assert iio.format_run(ranks) == "1 Q0 a 1 -1.0 s\n1 Q0 b 2 -2.0 s\n"


def test_write_run_errors(tmp_path):
    df = _run_frame()
    with pytest.raises(ValueError, match="whitespace"):
        iio.write_run(df.assign(doc=["a b", "c", "d", "e"]), tmp_path / "r")
    with pytest.raises(ValueError, match="NaN/infinite"):
        iio.write_run(df.assign(score=[np.nan, 1, 2, 3]), tmp_path / "r")
    with pytest.raises(KeyError, match="missing column"):
        iio.write_run(df.drop(columns=["system"]), tmp_path / "r")
    with pytest.raises(ValueError, match="comment"):
        iio.write_run(df.assign(topic="#1"), tmp_path / "r")
    with pytest.raises(ValueError, match="numbers"):
        iio.write_run(df.assign(topic=[1, 2, 3, 4]), tmp_path / "r")


@pytest.mark.parametrize("rel", [[2, 0, -1], [1.5, 0.0, 1.0]])
@pytest.mark.parametrize("name", ["q.txt", "q.gz"])
def test_write_read_qrels_roundtrip(tmp_path, engine, rel, name):
    df = pd.DataFrame({"topic": ["051", "051", "3"], "doc": ["a", "b", "a"], "rel": rel})
    before = df.copy(deep=True)
    iio.write_qrels(df, tmp_path / name)
    pd.testing.assert_frame_equal(df, before)
    back = iio.read_qrels(tmp_path / name)
    pd.testing.assert_frame_equal(back, normalised(df), check_exact=True)


def test_write_read_diversity_qrels_roundtrip(tmp_path, engine):
    df = pd.DataFrame(
        {
            "topic": ["1", "1", "2"],
            "subtopic": ["1", "2", "1"],
            "doc": ["a", "a", "b"],
            "rel": [1, 0, 1],
        }
    )
    iio.write_qrels(df, tmp_path / "q")
    pd.testing.assert_frame_equal(iio.read_qrels(tmp_path / "q", kind="diversity"), normalised(df))


def test_fixture_roundtrip(tmp_path, engine):
    run = iio.read_run(DATA / "results.test")
    iio.write_run(run, tmp_path / "r.gz")
    pd.testing.assert_frame_equal(iio.read_run(tmp_path / "r.gz"), run)
    q = iio.read_qrels(DATA / "qrels.rel_level")
    iio.write_qrels(q, tmp_path / "q")
    pd.testing.assert_frame_equal(iio.read_qrels(tmp_path / "q"), q)


_ID = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FF, blacklist_characters="#"),
    min_size=1,
    max_size=8,
)
_SCORE = st.floats(allow_nan=False, allow_infinity=False)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(
        st.tuples(_ID, _ID, _ID, st.integers(-(10**12), 10**12), _SCORE), min_size=1, max_size=30
    )
)
def test_roundtrip_property(tmp_path, categorical_docs, rows):
    df = pd.DataFrame(rows, columns=["system", "topic", "doc", "rank", "score"])
    twice = df.duplicated(["system", "topic", "doc"], keep=False)
    if twice.any():  # a document twice in one ranking: trec_eval stops on such a file
        with pytest.raises(irf.DuplicateError, match="twice in one ranking"):
            iio.write_run(df, tmp_path / "dup.txt")
        df = df.drop_duplicates(["system", "topic", "doc"])
    path = tmp_path / "prop.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", irf.errors.ConventionWarning)  # several systems in one file
        iio.write_run(df, path)
    pd.testing.assert_frame_equal(
        iio.read_run(path, system="tag"), normalised(df), check_exact=True
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(st.tuples(_ID, _ID, st.one_of(st.integers(-100, 100))), min_size=1, max_size=20),
    floats=st.booleans(),
)
def test_qrels_roundtrip_property(tmp_path, rows, floats):
    df = pd.DataFrame(rows, columns=["topic", "doc", "rel"])
    if floats:
        df["rel"] = df["rel"] / 7
    iio.write_qrels(df, tmp_path / "q")
    pd.testing.assert_frame_equal(iio.read_qrels(tmp_path / "q"), normalised(df), check_exact=True)


# ----------------------------------------------------------------------------- shared data


@pytest.mark.shared
def test_robust03_runs(shared_data):
    runs_dir = shared_data / "robust03" / "runs"
    if not runs_dir.is_dir():
        pytest.skip("robust03 runs not in shared data")
    runs = iio.read_runs(runs_dir)
    names = sorted(p.name for p in runs_dir.iterdir() if not p.name.startswith("."))
    assert runs.system.cat.categories.tolist() == sorted(
        n[len("input.") : -len(".gz")] for n in names
    )
    assert runs.score.notna().all() and len(runs) > 1_000_000
    tags = iio.read_runs(runs_dir, system="tag")
    assert tags.system.cat.categories.tolist() == runs.system.cat.categories.tolist()


@pytest.mark.shared
def test_comment_collection(shared_data):
    test = shared_data / "trec_eval_test" / "test"
    run = iio.read_run(test / "results.comment.test")
    q = iio.read_qrels(test / "qrels.comment.test")
    assert len(run) == 30100 and len(q) == 5890
    assert run.doc.astype(str).str.contains("#").all()


@pytest.mark.shared
def test_diversity_qrels(shared_data):
    p = shared_data / "web2012_diversity" / "qrels" / "qrels-for-ndeval.txt.gz"
    if not p.exists():
        pytest.skip("web2012 qrels not in shared data")
    q = iio.read_qrels(p, kind="auto")
    assert q.columns.tolist() == ["topic", "subtopic", "doc", "rel"]
    assert q.topic.nunique() == 50


_GRADES_AGREE = ["2", "+3", "-2", "007", "1.5", ".5", "-1.5", "1e0", "2E0", "-1e0", "0e5", "1.9e0"]
_GRADES_DIFFER = ["1e1", "0x10", "0X1f", ".5e1", "5e-1", "1.5e1", "2e-3"]


@pytest.mark.parametrize("kind", ["trec", "diversity"])
def test_grades_read_as_trec_evals_atol(engine, tmp_path, kind):
    """trec_eval (get_qrels.c) and ndeval read a grade with C's atol, its leading integer.  A
    grade whose number truncates to the same integer is read (the float kept); one that
    does not (exponents, hexadecimal) is refused, naming the line.  Reference: the C
    library's own atol (ctypes), not a rewrite of it."""
    import ctypes
    import ctypes.util

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.atol.restype = ctypes.c_long
    second = "0" if kind == "trec" else "s1"
    for g in _GRADES_AGREE:
        q = iio.read_qrels(
            write(tmp_path, "q.txt", f"1 {second} a {g}\n1 {second} b 1\n"), kind=kind
        )
        assert int(np.trunc(q.rel.iloc[0])) == libc.atol(g.encode()), g
    for g in _GRADES_DIFFER:
        assert int(np.trunc(float(g) if "x" not in g.lower() else int(g, 16))) != libc.atol(
            g.encode()
        )
        # (the pandas reader refuses hexadecimal as no number at all)
        with pytest.raises(
            ParseError,
            match=rf"line 2: (grade '{g}' is .* but {libc.atol(g.encode())} to trec_eval"
            rf"|relevance '{g}' is not a number)",
        ):
            iio.read_qrels(
                write(tmp_path, "q.txt", f"1 {second} b 1\n1 {second} a {g}\n"), kind=kind
            )


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    values=st.lists(
        st.one_of(
            st.sampled_from(["", "a", "ab", "b", "é", "\U0001f600", "FBIS3-10", "FBIS3-1001"]),
            st.text(st.characters(exclude_categories=("Cs",)), max_size=6),
        ),
        max_size=60,
    )
)
def test_sort_order_split_in_two_is_the_stable_byte_order(monkeypatch, values):
    """Property test against Python's stable sort by UTF-8 bytes (trec_eval's strcmp order):
    with the split in two forced (no size threshold, two cores), `sort_order` gives the
    same positions, equal strings in their input order, whichever side the pivot puts them."""
    pa = pytest.importorskip("pyarrow")
    monkeypatch.setattr(ids, "_SPLIT_SORT_MIN", 0)
    monkeypatch.setattr(ids.os, "cpu_count", lambda: 2)
    got = ids.sort_order(pa.array(values, pa.string()))
    want = sorted(range(len(values)), key=lambda i: values[i].encode("utf-8"))
    assert got.tolist() == want


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_read_runs_doc_ids_by_topic_groups_are_the_files_ids(
    tmp_path_factory, monkeypatch, categorical_docs, data
):
    """Property test against a plain Python reader: with the doc encoding by topic groups
    forced (no size thresholds: a group per topic), every row's topic and
    doc are the file's own fields, whatever the topic order inside the files (one topic
    block after another, interleaved, topics only some files have, groups left empty), and
    when slices are too short (``min_slice``) and the docs are encoded whole instead."""
    monkeypatch.setattr(ids, "_GROUPS_MIN_ROWS", 0)
    monkeypatch.setattr(ids, "_GROUP_ROWS", 1)
    min_slice = data.draw(st.sampled_from([0, 0, 2]), "min_slice")
    monkeypatch.setattr(ids, "_MIN_SLICE_ROWS", min_slice)
    grouped = []
    encode = iio._encode_by_topic
    monkeypatch.setattr(
        iio, "_encode_by_topic", lambda *a: grouped.append(encode(*a)) or grouped[-1]
    )
    monkeypatch.setattr(ids.os, "cpu_count", lambda: 2)
    d = tmp_path_factory.mktemp("halves")
    topics = data.draw(
        st.lists(st.sampled_from(["1", "2", "10", "301", "b"]), min_size=1, max_size=30), "topics"
    )
    paths, want = [], []
    for i in range(data.draw(st.integers(1, 4), "files")):
        ts = data.draw(st.permutations(topics), f"order{i}") if i else topics
        docs = data.draw(
            st.lists(
                st.sampled_from(["d1", "d2", "D3", "é", "d10", "x" * 40]),
                min_size=len(ts),
                max_size=len(ts),
            ),
            f"docs{i}",
        )
        lines = [
            f"{t} Q0 {doc} {r} {-r}.5 tag"
            for r, (t, doc) in enumerate(zip(ts, docs, strict=True), 1)
        ]
        p = d / f"s{i}.txt"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(p)
        want += [tuple(line.split()[::2][:2]) for line in lines]
    runs = iio.read_runs(paths)
    assert list(zip(runs.topic.astype(str), runs.doc.astype(str), strict=True)) == want
    assert list(runs.doc.cat.categories) == sorted(
        {doc for _, doc in want}, key=lambda x: x.encode()
    )
    if min_slice == 0:  # the groups were used (two topics or more)
        assert (grouped[0] is not None) == (len(set(topics)) > 1)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("bad", [(), (5,), (3, 7), (0, 9)])
def test_map_keeps_item_order_and_raises_the_first_error(threads, bad):
    """map_threads (this thread and more each taking the next item): results in item order and,
    of several failing items, the first one's error, whichever finished first."""
    import time

    def f(i):
        if i in bad:
            time.sleep(0.01 * (10 - i))  # later failures finish first
            raise ValueError(f"item {i}")
        return i * i

    if bad:
        with pytest.raises(ValueError, match=f"item {min(bad)}$"):
            map_threads(f, range(10), threads)
        return
    assert map_threads(f, range(10), threads) == [i * i for i in range(10)]


def test_writers_refuse_what_no_reader_reads_back(tmp_path):
    """Found by a review: ids with a NUL (trec_eval aborts) or a byte-order mark (a reader
    strips it on the first line only: one topic became two), a document twice in one
    ranking (trec_eval stops), ranks beyond 64 bits (written negative) or missing, and a
    tag with whitespace (a plain ValueError) are refused by name."""
    base = pd.DataFrame(
        {"system": "s", "topic": ["1", "1", "2"], "doc": ["a", "b", "a"], "score": [2.0, 1, 1]}
    )
    for col, bad in (("doc", "a\x00z"), ("topic", "\ufeff1")):
        df = base.copy()
        df.loc[0, col] = bad
        with pytest.raises(irf.InputError, match="NUL or a byte-order mark"):
            iio.write_run(df, tmp_path / "r.txt")
    with pytest.raises(
        irf.DuplicateError,
        match=r"twice in one ranking \(row 0: system='s', topic='1', doc='a'; row 1: system='s', topic='1', doc='a'\)",
    ):
        iio.write_run(base.assign(doc=["a", "a", "a"]), tmp_path / "r.txt")
    with pytest.raises(irf.InputError, match="beyond a 64-bit integer"):
        iio.write_run(base.assign(rank=[1.0, 1e20, 1.0]), tmp_path / "r.txt")
    with pytest.raises(irf.InputError, match="rank column has missing values: row 1: rank=<NA>"):
        iio.write_run(base.assign(rank=pd.array([1, None, 1], dtype="Int64")), tmp_path / "r.txt")
    with pytest.raises(irf.OptionError, match="tag must be a non-empty str"):
        iio.write_run(base, tmp_path / "r.txt", tag="a b")
    with pytest.warns(irf.errors.ConventionWarning, match=r"system='tag'\) reads them apart"):
        iio.write_run(base.assign(system=["s", "t", "s"]), tmp_path / "two.txt")
    back = iio.read_run(tmp_path / "two.txt", system="tag")
    assert sorted(back.system.astype(str).unique()) == ["s", "t"]


@pytest.mark.parametrize("grade", [1e16, 1e-5, 2.5e-7, 123456789.125])
def test_float_grades_are_written_without_an_exponent(tmp_path, grade):
    """write_qrels wrote 1e+16, which its own reader refused and trec_eval's atol reads as
    1; the digits read back to the same float64, and their integer part is atol's."""
    q = pd.DataFrame({"topic": "1", "doc": ["a", "b"], "rel": [grade, 1.0]})
    iio.write_qrels(q, tmp_path / "q.txt")
    text = (tmp_path / "q.txt").read_text()
    field = text.split("\n")[0].split()[3]
    assert "e" not in field.lower() and float(field) == grade
    assert int(field.split(".")[0]) == int(grade)  # what C's atol reads
    back = iio.read_qrels(tmp_path / "q.txt")
    assert back.rel.tolist() == [grade, 1.0]


def test_writer_refusals_name_the_rows_and_their_fix_works(tmp_path):
    """Ids a TREC file cannot hold: the refusal names the rows (index labels) and gives code
    that, applied as written, makes the frame writable (it named neither)."""
    import re

    runs = pd.DataFrame(
        {
            "system": "s",
            "topic": "t",
            "doc": ["a b", "z", "c\td", "e\x00"],
            "score": [4.0, 3, 2, 1],
        },
        index=[10, 11, 12, 13],
    )
    path = tmp_path / "run.txt"
    fixes = []
    for _ in range(3):
        try:
            irf.write_run(runs, path)
            break
        except irf.InputError as e:
            assert "row 10" in str(e) or "row 13" in str(e)
            fix = re.search(r"e\.g\. (df\[.*?regex=True\))", str(e)).group(1)
            fixes.append(fix)
            exec(fix, {"df": runs})
    assert len(fixes) == 2
    assert irf.read_run(path).doc.tolist() == ["a_b", "z", "c_d", "e"]
