"""Arriving from a peer tool (issue #32): every spelling and input form of ranx, ir_measures,
pytrec_eval, trectools and PyTerrier means what it means there, and where irframe's meaning
differs the difference is visible (a ConventionWarning naming both and the switch).

References: the peers themselves (ir_measures, pytrec_eval, ranx, pyndeval are test
dependencies) on the same inputs; the lists of spellings are taken from the peers' own
registries (ir_measures' measure registry and each measure's SUPPORTED_PARAMS), not written
out here, so a spelling they add is checked too.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import reference_module
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe.errors import (
    ConventionWarning,
    InputError,
    IrframeError,
    MeasureParamError,
    OptionError,
)
from irframe.measures import parse_measure
from irframe.measures.registry import parse_measures

# ------------------------------------------------------------------ small shared inputs
QRELS = pd.DataFrame(
    {
        "topic": ["1", "1", "1", "1", "2", "2", "3"],
        "doc": ["a", "b", "c", "d", "a", "e", "c"],
        "rel": [1, 2, 0, 1, 1, 0, 1],
    }
)
RUN = pd.DataFrame(
    {
        "topic": ["1", "1", "1", "2", "2"],
        "doc": ["a", "x", "b", "e", "a"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    }
)


def _nested(frame, value):
    out: dict = {}
    for t, d, v in frame[["topic", "doc", value]].itertuples(index=False):
        out.setdefault(t, {})[d] = v
    return out


def _ir_measures_params():
    """(measure name, ir_measures measure object) for every measure of ir_measures' registry and
    every one of its parameters set to a non-default value (ir_measures' own list)."""
    im = reference_module("ir_measures")
    values = {int: 2, float: 0.5, bool: True}
    out = []
    for name, meas in sorted(im.measures.registry.items()):
        if not name.isascii():
            continue  # α_nDCG: ir_measures' own alias of alpha_nDCG
        params = meas.SUPPORTED_PARAMS
        for p, info in params.items():
            if p in ("min_rel", "max_rel", "T", "gains", "dcg") or info.dtype not in values:
                continue
            kw = {p: values[info.dtype]}
            if p == "cutoff":
                kw[p] = 20
            if p == "recall":
                kw[p] = 0.4
            if p in ("p", "beta"):
                kw[p] = 0.8
            for q, i2 in params.items():
                if getattr(i2, "required", False) and q not in kw:
                    kw[q] = 10 if q == "cutoff" else 0.2
            out.append((name, meas(**kw), kw))
    return out


def _ir_measures_computes(m) -> bool:
    """Can ir_measures itself evaluate ``m`` (on a tiny input with subtopics)?  Its ndeval
    measures without a cutoff, or with judged_only, fail inside ir_measures."""
    im = reference_module("ir_measures")
    q = pd.DataFrame(
        {
            "query_id": ["1", "1", "1"],
            "doc_id": ["a", "b", "a"],
            "relevance": [1, 2, 1],
            "iteration": ["1", "1", "2"],
        }
    )
    r = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "c"], "score": [2.0, 1.0]})
    try:
        im.calc_aggregate([m], q, r)
    except Exception:
        return False
    return True


# ------------------------------------------------------------------ names and spellings
def test_every_ir_measures_parameter_spelling_parses():
    """Each ir_measures measure with each of its parameters, in ir_measures' printed form and
    in the keyword form (``cutoff=`` included) names the same irframe measure."""
    cases = _ir_measures_params()
    assert len(cases) > 60
    failed = []
    for name, m, kw in cases:
        call = f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + ")"
        try:
            a, b = parse_measure(str(m)), parse_measure(call)
        except IrframeError as e:
            if _ir_measures_computes(m):  # else ir_measures itself cannot evaluate it
                failed.append((str(m), call, str(e)[:100]))
            continue
        if (a.name, a.params, a.cutoff) != (b.name, b.params, b.cutoff):
            failed.append((str(m), call, "differ"))
    # ir_measures-only measures irframe does not have (ERR without cutoff is fine) are listed
    # by name; nothing else may fail
    assert failed == [], failed


@pytest.mark.shared
def test_ir_measures_spellings_give_ir_measures_values(shared_data):
    """The keyword forms (``nDCG(dcg="exp-log2", cutoff=20)``, ``Judged(cutoff=10)``,
    ``IPrec(rel=2, recall=0.4)@0.2`` where ``@`` wins as in ir_measures) against ir_measures."""
    im = reference_module("ir_measures")
    base = shared_data / "robust03"
    qrels = irf.read_qrels(base / "qrels" / "robust03_qrels.txt.gz")
    run = irf.read_run(base / "runs" / "input.pircRBa1.gz")
    from irframe.align import align

    a = align(run, qrels)
    untied = pd.DataFrame(
        {
            "query_id": np.asarray(a.topics)[a.row_topic],
            "doc_id": a.docs[a.row_doc],
            "score": 10000.0 - a.row_rank,
        }
    )
    q = pd.DataFrame(
        {
            "query_id": qrels.topic.astype(str),
            "doc_id": qrels.doc.astype(str),
            "relevance": qrels.rel.astype(int),
        }
    )
    names = [
        'nDCG(dcg="exp-log2", cutoff=20)',
        "Judged(cutoff=10)",
        "IPrec(rel=2, recall=0.4)@0.2",
        "P(rel=2, cutoff=5)",
        "AP(cutoff=100)",
        "RR(rel=2, cutoff=10)",
        "R(cutoff=50)",
        "nDCG(cutoff=20)@10",
    ]
    theirs = im.calc_aggregate([im.parse_measure(n) for n in names], q, untied)
    ours = irf.evaluate(untied, q, names).mean("topic")
    for n in names:
        tol = 1e-5 if "exp-log2" in n else 1e-12  # ir_measures' gdeval prints 5 decimals a topic
        assert float(ours.sel(measure=n).item()) == pytest.approx(
            theirs[im.parse_measure(n)], abs=tol
        ), n


@pytest.mark.shared
def test_diversity_rel_parameter_matches_ir_measures(shared_data):
    """ir_measures' ``rel=`` on ERR_IA, nERR_IA, NRBP, nNRBP, AP_IA, P_IA, StRecall,
    alpha_nDCG (through pyndeval), with its diversity qrels convention (subtopic in the
    ``iteration`` column, mapped with ``qrels_columns={"subtopic": "iteration"}``)."""
    im = reference_module("ir_measures")
    reference_module("pyndeval")
    d = shared_data / "web2012_diversity"
    if not d.is_dir():
        pytest.skip("web2012_diversity not in the shared data")
    qrels = irf.read_qrels(d / "qrels" / "qrels.diversity.txt.gz", kind="diversity")
    runs = irf.read_runs(str(d / "runs" / "*.txt.gz"))
    run = runs[runs.system == runs.system.cat.categories[0]]
    from irframe.align import align

    a = align(run, qrels)
    tf = pd.DataFrame(
        {
            "query_id": np.asarray(a.topics)[a.row_topic],
            "doc_id": a.docs[a.row_doc],
            "score": -a.row_rank.astype(float),
        }
    )
    iq = pd.DataFrame(
        {
            "query_id": qrels.topic.astype(str),
            "doc_id": qrels.doc.astype(str),
            "relevance": qrels.rel.astype(int),
            "iteration": qrels.subtopic.astype(str),
        }
    )
    names = [
        f"{n}(rel={r}){k}"
        for r in (2, 3)
        for n, k in [
            ("ERR_IA", "@20"),
            ("nERR_IA", "@10"),
            ("alpha_nDCG", "@20"),
            ("NRBP", ""),
            ("nNRBP", ""),
            ("AP_IA", ""),
            ("P_IA", "@20"),
            ("StRecall", "@10"),
        ]
    ]
    ours = irf.evaluate(tf, iq, names, qrels_columns={"subtopic": "iteration"}, order="trec_eval10")
    for r in (2, 3):  # one rel level per ir_measures call (its pyndeval invocations)
        group = [n for n in names if f"rel={r}" in n]
        theirs = im.calc_aggregate([im.parse_measure(n) for n in group], iq, tf)
        for n in group:
            got = float(ours.sel(measure=n).mean("topic").item())
            assert got == pytest.approx(theirs[im.parse_measure(n)], abs=1e-12), n
    # and rel=2 is not rel=1
    base = irf.evaluate(
        tf, iq, "ERR_IA@20", qrels_columns={"subtopic": "iteration"}, order="trec_eval10"
    )
    assert float(base.mean().item()) != pytest.approx(
        float(ours.sel(measure="ERR_IA(rel=2)@20").mean().item())
    )


def test_pytrec_eval_underscore_lists():
    """pytrec_eval's/ir_measures' ``P_5,10`` and ``ndcg_cut_20,4`` (values and labels as
    pytrec_eval prints them)."""
    pytrec_eval = reference_module("pytrec_eval")
    ours = irf.evaluate(RUN, QRELS, ["P_5,10", "ndcg_cut_20,4"])
    assert list(ours.measure.values) == ["P_5", "P_10", "ndcg_cut_4", "ndcg_cut_20"]
    ev = pytrec_eval.RelevanceEvaluator(_nested(QRELS, "rel"), {"P_5,10", "ndcg_cut_20,4"})
    res = ev.evaluate(_nested(RUN, "score"))
    for t, vals in res.items():
        for name, v in vals.items():
            assert float(ours.sel(system="run", topic=t, measure=name)) == pytest.approx(v)


@pytest.mark.parametrize(
    "request_",
    ["iprec_at_recall_0.1", "Rprec_mult_0.2", "P_05", "P_5.0", "recall_010", "ndcg_cut_5.0", "P_5"],
)
def test_pytrec_eval_underscore_spellings_get_its_labels(request_):
    """pytrec_eval reads ``X_params`` as trec_eval's ``X.params`` and prints trec_eval's
    label (``P_05`` is ``P_5``); irframe labelled them as written, so a lookup by
    pytrec_eval's key failed. Alone and in a list with other measures."""
    pytrec_eval = reference_module("pytrec_eval")
    ref = pytrec_eval.RelevanceEvaluator(_PT_QRELS, {request_}).evaluate(_PT_RUN)
    (key,) = ref["q1"]
    for request in ([request_], ["AP", request_, "RR"]):
        cube = irf.evaluate(_PT_RUN, _PT_QRELS, request)
        assert key in cube.measure.values, (request, list(cube.measure.values))
        for t in ("q1", "q2"):
            assert float(cube.sel(topic=t, measure=key).squeeze()) == pytest.approx(
                ref[t][key], abs=1e-12
            )


def test_set_f_and_11pt_avg_underscore_spellings_are_read():
    """``set_F_0.5`` (pytrec_eval: beta 0.5) was 'unknown measure, did you mean set_F'
    (beta 1), ``11pt_avg_0.0,0.5,1.0`` could not be parsed: now pytrec_eval's values."""
    pytrec_eval = reference_module("pytrec_eval")
    for request, label in (
        ("set_F_0.5", "set_F_0.5"),
        ("11pt_avg_0.0,0.5,1.0", "11pt_avg_0.0,0.5,1.0"),
    ):
        ref = pytrec_eval.RelevanceEvaluator(_PT_QRELS, {request}).evaluate(_PT_RUN)
        cube = irf.evaluate(_PT_RUN, _PT_QRELS, [request])
        for t in ("q1", "q2"):
            (theirs,) = ref[t].values()
            assert float(cube.sel(topic=t, measure=label).squeeze()) == pytest.approx(
                theirs, abs=1e-12
            )


def test_overlapping_nicknames_take_the_union_like_trec_eval():
    from irframe.measures.trec_eval_syntax import expand

    assert len({m.label for m in parse_measures(["map", "all_trec", "binG"])}) == len(
        parse_measures(["all_trec"])
    )  # all_trec names map and binG already (trec_eval 10's all_trec: with rbp, unj)
    got = [m.label for m in parse_measures(["official", "set", "ndcg"])]
    want = [v.name for v in expand(["official", "set"], version="10.0")]
    want = [w for w in want if w not in ("runid", "num_q")] + ["ndcg"]
    assert got == want
    assert len(got) == len(set(got))


# pytrec_eval's requests naming one cutoff family several times; every value of it against
# pytrec_eval's own (`_pytrec_requests` draws more)
_MERGED_REQUESTS = [
    ["ndcg_cut", "ndcg_cut.1,4"],
    ["recall.5", "recall"],
    ["P.5,10", "P.20"],
    ["P.5", "P.10"],
    ["P.10", "P.5"],
    ["P.5", "P_5"],
    ["P.5,5"],
    ["ndcg_cut", "ndcg_cut_15"],
    ["official", "P_7"],
    # a measure a nickname also names: the union (["official", "map"] was refused as twice)
    ["official", "map"],
    ["map", "official", "set_P", "set", "ndcg_cut_10", "ndcg_cut"],
    # pytrec_eval's own tests/pytrec_eval_tests.py, test_measure_params (bare "P" left
    # out: alone it is irframe's set precision, tested in test_bare_p_warns_with_both_conventions)
    ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15", "recall.1000"],
]
_PT_QRELS = {
    "q1": {"d1": 0, "d2": 1, "d3": 0, "d5": 2},
    "q2": {"d2": 1, "d3": 1, "d4": 0},
}
_PT_RUN = {
    "q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5, "d4": 0.5, "d5": -1.0},
    "q2": {"d1": 1.0, "d2": 3.0, "d3": 0.2, "d6": 0.1},
}


def _against_pytrec_eval(request) -> None:
    """irframe's labels and values for ``request`` are pytrec_eval's (runid and num_q, which
    a cube does not hold, left out), whatever the order of the request."""
    pytrec_eval = reference_module("pytrec_eval")
    ref = pytrec_eval.RelevanceEvaluator(_PT_QRELS, set(request)).evaluate(_PT_RUN)
    for order in (list(request), list(reversed(request))):
        cube = irf.evaluate(_PT_RUN, _PT_QRELS, order)
        labels = [str(m) for m in cube.measure.values]
        assert len(labels) == len(set(labels)), order
        assert set(labels) == set(ref["q1"]) - {"runid", "num_q"}, order
        for t in ("q1", "q2"):
            for m in labels:
                got = float(cube.sel(topic=t, measure=m).squeeze())
                assert got == pytest.approx(ref[t][m], abs=1e-12), (order, t, m)


@pytest.mark.parametrize("request_", _MERGED_REQUESTS, ids=lambda r: "+".join(r))
def test_a_family_named_twice_takes_every_cutoff_as_pytrec_eval(request_):
    """pytrec_eval computes every cutoff a request list gives a family, each once, and a bare
    family next to its cutoffs adds none of its defaults; irframe the same, in any order (a
    set has none).  trec_eval's own command line keeps its first list only (below)."""
    _against_pytrec_eval(request_)


_CUT_FAMILIES = ("recall", "ndcg_cut", "map_cut", "success", "relative_P", "P")


@st.composite
def _pytrec_requests(draw):
    """A list of pytrec_eval measure strings over cutoff families: bare (not ``P``, which
    irframe reads as set precision), ``fam.a,b``, ``fam_a,b``, ``fam_a``, and ``official``."""
    out = []
    for _ in range(draw(st.integers(1, 5))):
        fam = draw(st.sampled_from(_CUT_FAMILIES))
        cuts = draw(st.lists(st.sampled_from([1, 2, 3, 5, 10, 20]), min_size=1, max_size=3))
        text = ",".join(map(str, cuts))
        form = draw(st.sampled_from(["bare", "dot", "underscore", "official"]))
        if form == "bare" and fam != "P":
            out.append(fam)
        elif form == "official":
            out.append("official")
        elif form == "underscore" and (len(cuts) == 1 or len(set(cuts)) == len(cuts)):
            out.append(f"{fam}_{text}")
        else:
            out.append(f"{fam}.{text}")
    return list(dict.fromkeys(out))  # pytrec_eval takes a set


@settings(max_examples=60, deadline=None)
@given(_pytrec_requests())
def test_random_requests_name_pytrec_evals_values(request_):
    """Property test against pytrec_eval: random request lists over cutoff families."""
    _against_pytrec_eval(request_)


def test_command_line_keeps_trec_evals_first_parameter_list():
    """trec_eval 10.0 (f4253652) prints ``P_5`` alone for ``-m P.5 -m P.10`` (the first -m
    giving a family parameters wins); ``irframe eval`` the same, while Python takes both."""
    from irframe.measures.trec_eval_syntax import expand

    assert [v.name for v in expand(["P.5", "P.10"], version="10.0")] == ["P_5"]
    assert [v.name for v in expand(["P.5", "P.10"], version="10.0", union=True)] == ["P_5", "P_10"]


def test_two_parameter_lists_of_another_family_are_refused():
    with pytest.raises(MeasureParamError, match=r"two parameter lists.*keep one"):
        parse_measures(["ndcg.1=0,2=1", "ndcg.1=1"])
    same = parse_measures(["ndcg.1=0,2=1", "ndcg.1=0,2=1", "P.5"])  # the same list twice: once
    assert [m.label for m in same] == ["P_5", "ndcg_1=0,2=1"]  # in trec_eval's order


def test_ir_measures_objects_are_measures():
    im = reference_module("ir_measures")
    cube = irf.evaluate(RUN, QRELS, [im.nDCG @ 10, im.AP, im.P(rel=2) @ 5])
    assert list(cube.measure.values) == ["nDCG@10", "AP", "P(rel=2)@5"]
    ref = irf.evaluate(RUN, QRELS, ["nDCG@10", "AP", "P(rel=2)@5"])
    np.testing.assert_array_equal(cube.values, ref.values)
    one = irf.evaluate(RUN, QRELS, im.nDCG @ 10)
    assert list(one.measure.values) == ["nDCG@10"]
    with pytest.raises(MeasureParamError, match="must be a string"):
        parse_measure(3)


def test_bare_p_warns_with_both_conventions():
    with pytest.warns(ConventionWarning, match="set_P.*P_5"):
        cube = irf.evaluate(RUN, QRELS, "P")
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="'P' without", category=ConventionWarning)
        same = irf.evaluate(RUN, QRELS, "set_P")  # the explicit spelling: no warning
    np.testing.assert_array_equal(cube.values, same.values)


# ------------------------------------------------------------------ option spellings
@pytest.mark.parametrize(
    "kw,value",
    [
        ({"test": "ttest"}, "t"),
        ({"test": "t-test"}, "t"),
        ({"test": "permutation"}, "randomization"),
        ({"correction": "holm-bonferroni"}, "holm"),
        ({"correction": "Benjamini-Hochberg"}, "bh"),
        ({"correction": "fdr_bh"}, "bh"),
        ({"correction": "none"}, None),
    ],
)
def test_compare_accepts_common_spellings(kw, value):
    cube = irf.evaluate(
        pd.concat([RUN.assign(system="a"), RUN.assign(system="b", score=RUN.score[::-1].values)]),
        QRELS,
        ["AP", "P@5"],
    )
    res = irf.stats.compare(cube, **kw, rng=0, n_samples=99)
    key = next(iter(kw))
    assert res.attrs[key] == ("none" if value is None else value)  # attrs keep text


@pytest.mark.parametrize(
    "kw,hint",
    [({"test": "wilcox"}, "wilcoxon"), ({"correction": "holmes"}, "holm")],
)
def test_unknown_option_values_are_option_errors_with_did_you_mean(kw, hint):
    cube = irf.evaluate(RUN.assign(system="a"), QRELS, "AP")
    with pytest.raises(OptionError, match=f"Did you mean '{hint}'"):
        irf.stats.compare(cube, **kw)


_TWO = pd.concat([RUN.assign(system="a"), RUN.assign(system="b", score=-RUN.score)])
_PEER_CALLS = {  # each function called on a small cube or frame, with the keywords given
    "evaluate": lambda **kw: irf.evaluate(_TWO, QRELS, **{"measures": "AP", **kw}),
    "metric": lambda **kw: _TWO.ir.metric(**{"measures": "AP", "qrels": QRELS, **kw}),
    "report": lambda **kw: irf.report(irf.evaluate(_TWO, QRELS, "AP", complete=True), **kw),
    "compare": lambda **kw: irf.stats.compare(irf.evaluate(_TWO, QRELS, "AP", complete=True), **kw),
}
_NAMED = {
    "irframe.evaluate": "evaluate",
    "irframe.report": "report",
    "irframe.stats.compare": "compare",
}
_PEER_VALUES = {  # a value each peer's keyword could be given, and its value in irframe
    "relevance_level": 2,
    "judged_docs_only_flag": True,
    "removeUnjudged": True,
    "make_comparable": True,
    "metrics": ["AP"],
    "eval_metrics": ["AP"],
    "max_p": 0.01,
    "stat_test": "student",
    "rounding_digits": 3,
    "round": 3,
    "test": "student",
    "correction": "bonferroni",
    "n_permutations": 99,
    "random_seed": 0,
}


@pytest.mark.parametrize("call", list(_PEER_CALLS))
@pytest.mark.parametrize("peer_kw", list(_PEER_VALUES))
def test_a_peers_keyword_is_refused_with_advice_that_works(call, peer_kw):
    """pytrec_eval's, ranx's, trectools' and PyTerrier's keyword names, on every entry
    point: either the function takes the keyword itself, or an OptionError names what to
    write; that keyword, with the same value, is accepted where the advice says (this
    function, or the one it names)."""
    value = _PEER_VALUES[peer_kw]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConventionWarning)
        try:
            _PEER_CALLS[call](**{peer_kw: value})
            return  # irframe's own keyword on this function (test=, correction= on report)
        except OptionError as e:
            msg = str(e)
        if "cube.sel(measure=" in msg:  # measures named to a function of a cube
            cube = irf.evaluate(_TWO, QRELS, ["AP", "P@5"], complete=True)
            code = re.search(r"(cube\.sel\(measure=\[.*?\]\))", msg).group(1)
            assert eval(code, {}, {"cube": cube}).measure.values.tolist() == ["AP"]
            return
        said = re.search(rf"{peer_kw}= is \S+ keyword: [^;]*?write (\w+)=\S*(?: on ([\w.]+))?", msg)
        assert said, msg
        ours, where = said.groups()
        _PEER_CALLS[_NAMED[where] if where else call](**{ours: value})


@pytest.mark.parametrize("call", list(_PEER_CALLS))
@pytest.mark.parametrize(
    "peer_kw",
    [
        "baseline",
        "perquery",
        "per_query",
        "filter_by_qrels",
        "trec_eval",
        "names",
        "return_mean",
        "return_std",
        "threads",
    ],
)
def test_keywords_of_another_step_say_where_they_belong(call, peer_kw):
    """PyTerrier's Experiment and ranx's evaluate keywords: an OptionError that says where
    the same thing is done (report/compare on the cube, summarize, or nothing at all)."""
    value = {"baseline": "a", "names": ["x", "y"]}.get(peer_kw, True)
    if call in ("report", "compare") and peer_kw == "baseline":
        return  # their own keyword
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConventionWarning)
        with pytest.raises(
            OptionError, match=rf"{peer_kw}= is (PyTerrier's|trectools'|ranx') keyword: "
        ) as e:
            _PEER_CALLS[call](**{peer_kw: value})
    if peer_kw == "baseline":
        assert "irframe.report(cube, ...)" in str(e.value)
        irf.report(irf.evaluate(_TWO, QRELS, "AP", complete=True), baseline="a")
    if peer_kw == "names" and call in ("report", "compare"):
        code = re.search(r"(cube\.assign_coords\(.*?\))\)", str(e.value)).group(1)
        cube = irf.evaluate(_TWO, QRELS, "AP", complete=True)
        renamed = eval(code.replace("['BM25', ...]", "['x', 'y']"), {}, {"cube": cube})
        assert renamed.system.values.tolist() == ["x", "y"]
        irf.report(renamed, baseline="x")


def test_measures_and_names_given_as_peers_name_them():
    with pytest.raises(OptionError, match="metrics= is ranx' keyword: write measures="):
        irf.evaluate(RUN, QRELS, metrics=["AP"])
    with pytest.raises(OptionError, match="eval_metrics= is PyTerrier's keyword"):
        irf.evaluate(RUN, QRELS, eval_metrics=["AP"])
    with pytest.raises(
        OptionError, match=r"names= is PyTerrier's keyword: write the runs as a dict"
    ):
        irf.evaluate([RUN], QRELS, "AP", names=["BM25"])
    for baseline in (0, np.int64(1)):  # PyTerrier's baseline is an index into its systems
        cube = irf.evaluate(_TWO, QRELS, "AP", complete=True)
        name = ["a", "b"][int(baseline)]
        for f in (irf.report, irf.stats.compare):
            with pytest.raises(IrframeError, match=rf"baseline={name!r} is system {baseline}"):
                f(cube, baseline=baseline)
            f(cube, baseline=name)


def _accuracy_case(seed: int):
    """A small graded collection where some rankings retrieve nothing relevant at level 2."""
    rng = np.random.default_rng(seed)
    q, r = [], []
    for t in range(8):
        judged = rng.choice(12, size=6, replace=False)
        q += [(str(t), f"d{d}", int(rng.integers(0, 3))) for d in judged]
        docs = [f"d{d}" for d in rng.choice(12, size=int(rng.integers(2, 8)), replace=False)]
        # rank 2 is non-relevant (ir_measures divides by zero without one), and half the
        # topics rank a relevant document first: every case has rankings of both kinds
        if t % 2 == 0:
            q.append((str(t), "best", 2))
            docs.insert(0, "best")
        docs.insert(1, "unjudged")
        r += [(str(t), d, float(len(docs) - i)) for i, d in enumerate(docs)]
    return (
        pd.DataFrame(q, columns=["topic", "doc", "rel"]),
        pd.DataFrame(r, columns=["topic", "doc", "score"]),
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("measure", ["Accuracy(rel=2)", "Accuracy(rel=1)@2"])
def test_accuracy_warns_where_ir_measures_averages_otherwise_and_the_switch_matches(seed, measure):
    """ir_measures' Accuracy provider (its tests/test_accuracy.py case shape) leaves a ranking
    that retrieves nothing relevant out of its mean; irframe scores it 0, warns, and the
    warning's switch gives ir_measures' mean and per-topic values."""
    im = reference_module("ir_measures")
    qrels, run = _accuracy_case(seed)
    m = im.parse_measure(measure)
    ref = {
        r.query_id: r.value
        for r in im.accuracy.iter_calc([m], _records(im, qrels), _records(im, run, True))
    }
    count = "NumRelRet(" + measure.split("(")[1]  # the same rel= and @k
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cube = irf.evaluate(run, qrels, [measure, count])
    said = [str(w.message) for w in caught if issubclass(w.category, ConventionWarning)]
    acc = cube.sel(measure=measure).squeeze(drop=True)
    missing = int((cube.sel(measure=count) == 0).sum())
    assert missing > 0 and len(ref) == len(acc) - missing > 0  # the cases test the difference
    assert any(f"{measure}: {missing} of" in w and count in w for w in said), said
    switch = eval(re.search(r"(cube\.sel\(.*\.mean\('topic'\))", said[0]).group(1))
    assert float(switch.squeeze()) == pytest.approx(np.mean(list(ref.values())), abs=1e-12)
    for t, v in ref.items():
        assert float(acc.sel(topic=t)) == pytest.approx(v, abs=1e-12)


def _records(im, frame, run=False):
    if run:
        return [im.ScoredDoc(t, d, s) for t, d, s in frame.itertuples(index=False)]
    return [im.Qrel(t, d, int(g)) for t, d, g in frame.itertuples(index=False)]


# ------------------------------------------------------------------ inputs as peers give them
def test_empty_ranking_in_a_dict_run_scores_zero_like_the_peers():
    """``{topic: {}}``: the topic is present and retrieved nothing (pytrec_eval, ir_measures and
    ranx score it 0); topics the dict does not name stay out, as before."""
    pytrec_eval = reference_module("pytrec_eval")
    im = reference_module("ir_measures")
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}, "q3": {"c": 1}}
    run = {"q1": {"a": 2.0, "x": 1.0}, "q2": {}}
    cube = irf.evaluate(run, qrels, ["AP", "nDCG@10", "P@5", "RR"])
    assert cube.topic.values.tolist() == ["q1", "q2"]
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10", "P_5", "recip_rank"})
    ref = ev.evaluate(run)
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "RR": "recip_rank"}
    for t in ("q1", "q2"):
        for ours, theirs in names.items():
            assert float(cube.sel(topic=t, measure=ours).item()) == pytest.approx(ref[t][theirs])
    per = {
        (m.query_id, str(m.measure)): m.value
        for m in im.iter_calc([im.AP, im.nDCG @ 10], qrels, run)
    }
    assert per[("q2", "AP")] == 0.0 == float(cube.sel(topic="q2", measure="AP").item())
    assert float(cube.sel(measure="AP").mean().item()) == pytest.approx(
        np.mean([per[("q1", "AP")], per[("q2", "AP")]])
    )


def test_a_run_that_retrieves_nothing_at_all_is_refused_by_name():
    """pytrec_eval scores a run of only ``{}`` rankings 0 everywhere; a system without a row
    has no place in a cube, so irframe refuses it by name rather than drop it silently, and
    the advice (leave it out) works."""
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    with pytest.raises(IrframeError, match=r"every ranking of the run\(s\) is empty"):
        irf.evaluate({"q1": {}, "q2": {}}, qrels, "AP")
    runs = {"a": {"q1": {}}, "b": {"q2": {"d2": 1.0}}}
    with pytest.raises(IrframeError, match=r"run\(s\) \['a'\] retrieve nothing.*Leave it out"):
        irf.evaluate(runs, qrels, "AP")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConventionWarning)
        cube = irf.evaluate({"b": runs["b"]}, qrels, "AP")
    assert list(cube.system.values) == ["b"]


def test_several_runs_as_a_dict_or_a_list_of_frames():
    run_a = RUN.rename(columns={"topic": "qid", "doc": "docno"})  # PyTerrier's names
    run_b = RUN.assign(score=RUN.score[::-1].to_numpy())
    both = pd.concat([RUN.assign(system="bm25"), run_b.assign(system="dense")])
    ref = irf.evaluate(both, QRELS, ["AP", "nDCG@10"])
    by_dict = irf.evaluate({"bm25": run_a, "dense": run_b}, QRELS, ["AP", "nDCG@10"])
    np.testing.assert_array_equal(by_dict.values, ref.values)
    assert by_dict.system.values.tolist() == ["bm25", "dense"]
    by_list = irf.evaluate(
        [RUN.assign(system="bm25"), run_b.assign(system="dense")], QRELS, ["AP", "nDCG@10"]
    )
    np.testing.assert_array_equal(by_list.values, ref.values)
    unnamed = irf.evaluate([RUN, run_b], QRELS, "AP")
    assert unnamed.system.values.tolist() == ["run0", "run1"]
    nested = irf.evaluate(
        {"bm25": _nested(RUN, "score"), "dense": _nested(run_b, "score")}, QRELS, "AP"
    )
    np.testing.assert_array_equal(nested.values, ref.sel(measure=["AP"]).values)
    # a frame's own system column must agree with its key
    with pytest.raises(IrframeError, match="names each run by its key"):
        irf.evaluate({"bm25": RUN.assign(system="other")}, QRELS, "AP")


def test_ranx_compare_inputs_give_ranx_values():
    ranx = reference_module("ranx")
    run_b = RUN.assign(score=[1.0, 2.0, 3.0, 1.0, 2.0])  # no tied scores (tools break ties apart)
    qrels = _nested(QRELS, "rel")
    runs = {"bm25": _nested(RUN, "score"), "dense": _nested(run_b, "score")}
    q = {t: {d: int(v) for d, v in docs.items()} for t, docs in qrels.items()}
    q = {t: d for t, d in q.items() if t in ("1", "2")}  # ranx needs the same topics
    cube = irf.evaluate(runs, q, ["AP", "nDCG@10"])
    for name, run in runs.items():
        r = ranx.evaluate(ranx.Qrels(q), ranx.Run(run, name=name), ["map", "ndcg@10"])
        assert float(cube.sel(system=name, measure="AP").mean()) == pytest.approx(r["map"])
        assert float(cube.sel(system=name, measure="nDCG@10").mean()) == pytest.approx(r["ndcg@10"])


def test_ranx_run_and_qrels_objects_are_read_as_ranx_reads_them():
    """ranx's own objects: a named Run is that system, unnamed runs in a list are named as
    ranx's ``compare`` names them (``run_2``), and the values are ranx's (untied scores)."""
    ranx = reference_module("ranx")
    run_b = RUN.assign(score=[1.0, 2.0, 3.0, 1.0, 2.0])
    q = {t: d for t, d in _nested(QRELS, "rel").items() if t in ("1", "2")}
    qrels = ranx.Qrels({t: {d: int(v) for d, v in docs.items()} for t, docs in q.items()})
    named = ranx.Run(_nested(RUN, "score"), name="bm25")
    unnamed = ranx.Run(_nested(run_b, "score"))
    names = ["map@10", "ndcg@10", "mrr", "precision@2"]
    one = irf.evaluate(named, qrels, names)
    assert list(one.system.values) == ["bm25"]
    both = irf.evaluate([named, unnamed], qrels, names)
    report = ranx.compare(qrels, [named, unnamed], metrics=names)
    assert list(both.system.values) == list(report.model_names) == ["bm25", "run_2"]
    for system, run in (("bm25", named), ("run_2", unnamed)):
        ref = ranx.evaluate(qrels, run, names)
        for m in names:
            got = float(both.sel(system=system, measure=m).mean())
            assert got == pytest.approx(ref[m], abs=1e-12), (system, m)
    keyed = irf.evaluate({"x": named, "y": unnamed}, qrels, names)
    np.testing.assert_array_equal(keyed.values, both.values)
    assert list(keyed.system.values) == ["x", "y"]


def _tied_trec_files(tmp_path, seed: int):
    """A run with many tied scores and graded qrels as TREC files (trectools reads files)."""
    rng = np.random.default_rng(seed)
    run_lines, qrels_lines = [], []
    for t in range(1, 13):
        docs = rng.choice(60, size=30, replace=False)
        scores = rng.integers(0, 6, size=30).astype(float) / 2  # 6 values: ties
        for i, (d, sc) in enumerate(sorted(zip(docs, scores, strict=True), key=lambda x: -x[1])):
            run_lines.append(f"{t} Q0 D{d:03d} {i + 1} {sc} tied")
        for d in rng.choice(60, size=25, replace=False):
            qrels_lines.append(f"{t} 0 D{d:03d} {rng.integers(0, 3)}")
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_path.write_text("\n".join(run_lines) + "\n")
    qrels_path.write_text("\n".join(qrels_lines) + "\n")
    return run_path, qrels_path


def _per_topic(frame) -> pd.Series:
    """trectools' per-query frame as a Series by topic (its topics without a value dropped)."""
    s = frame.iloc[:, 0]
    s.index = s.index.astype(str)
    return s.dropna()


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside trectools, pandas 3.1
@pytest.mark.parametrize("seed", [0, 1])
def test_trectools_objects_and_orders_give_trectools_values(tmp_path, seed):
    """trectools (test dependency) on tied runs: its TrecRun/TrecQrel objects are read as
    they are, and each of its conventions has the switch docs/coming-from.md names."""
    trectools = reference_module("trectools")
    run_path, qrels_path = _tied_trec_files(tmp_path, seed)
    run, qrels = trectools.TrecRun(str(run_path)), trectools.TrecQrel(str(qrels_path))
    before = run.run_data.copy()
    te = trectools.TrecEval(run, qrels)
    # trec_eval=True measures: score descending, docid descending, in float64
    cube = irf.evaluate(run, qrels, ["AP@1000", "P@10", "RR", "R@1000"], order="trec_eval10")
    assert list(cube.system.values) == ["tied"]
    assert run.run_data.equals(before)  # the caller's frame is not modified
    for ref, m in (
        (te.get_map(depth=1000, per_query=True), "AP@1000"),
        (te.get_precision(depth=10, per_query=True), "P@10"),
        (te.get_reciprocal_rank(per_query=True), "RR"),
        (te.get_recall(depth=1000, per_query=True), "R@1000"),
    ):
        ref = _per_topic(ref)
        got = cube.sel(measure=m).squeeze(drop=True).to_series()[ref.index]
        np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12, err_msg=m)
    judged = irf.evaluate(run, qrels, ["P@10"], order="trec_eval10", judged_only=True)
    ref = _per_topic(te.get_precision(depth=10, per_query=True, removeUnjudged=True))
    got = judged.squeeze(drop=True).to_series()[ref.index]
    np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12)
    # get_ndcg keeps TrecRun's order (score descending, docid ascending): order="input"
    frame = irf.read_run(run_path)
    frame = frame.assign(topic=frame.topic.astype(str), doc=frame.doc.astype(str))
    frame = frame.sort_values(["topic", "score", "doc"], ascending=[True, False, True])
    ndcg = irf.evaluate(frame, qrels, ["nDCG@10", "nDCG(dcg='exp-log2')@10"], order="input")
    for ref, m in (
        (te.get_ndcg(depth=10, per_query=True), "nDCG@10"),
        (te.get_ndcg(depth=10, per_query=True, trec_eval=False), "nDCG(dcg='exp-log2')@10"),
    ):
        ref = _per_topic(ref)
        got = ndcg.sel(measure=m).squeeze(drop=True).to_series()[ref.index]
        np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12, err_msg=m)
    # get_bpref(depth=k) keeps the top k *judged* documents: filter the joined frame to the
    # judged rows (the recall base stays the qrels'), then depth=k
    j = irf.read_run(run_path).ir.join(irf.read_qrels(qrels_path))
    for k in (5, 10):
        bpref = j[j.rel.notna()].ir.metric("bpref", depth=k, order="trec_eval10")
        ref = _per_topic(te.get_bpref(depth=k, per_query=True))
        got = bpref.squeeze(drop=True).to_series()[ref.index]
        np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12)
    # the default order (trec_eval's) differs from get_ndcg's on these ties
    default = irf.evaluate(run, qrels, ["nDCG@10"]).squeeze(drop=True).to_series()
    ref = _per_topic(te.get_ndcg(depth=10, per_query=True))
    assert not np.allclose(default[ref.index].to_numpy(), ref.to_numpy())


def test_report_letters_are_ranx_compare_significance():
    """ranx's ``compare(stat_test="student", max_p=0.01)`` (paired t test, no correction):
    a system's superscript letters in irf.report with ``test="student", alpha=0.01,
    correction=None`` are exactly the systems ranx finds it significantly better than."""
    ranx = reference_module("ranx")
    rng = np.random.default_rng(11)
    qrels = {f"q{t}": {f"d{d}": int(rng.integers(0, 3)) for d in range(20)} for t in range(30)}
    skill = {"bm25": 0.0, "rm3": 0.15, "dense": 0.3, "mono": 0.6}
    runs = {  # untied scores: ranx's tie order is its sort's (docs/coming-from.md)
        name: {
            t: {d: float(g * shift + rng.normal() + i * 1e-6) for i, (d, g) in enumerate(j.items())}
            for t, j in qrels.items()
        }
        for name, shift in skill.items()
    }
    metrics = ["map@10", "ndcg@10", "precision@5"]
    ref = ranx.compare(
        ranx.Qrels(qrels),
        [ranx.Run(r, name=n) for n, r in runs.items()],
        metrics=metrics,
        stat_test="student",
        max_p=0.01,
    ).to_dict()
    report = irf.report(
        irf.evaluate(runs, qrels, metrics), test="student", alpha=0.01, correction=None
    )
    table = report.to_frame()
    found = 0
    for s in runs:
        for m in metrics:
            better = {
                o
                for o in runs
                if o != s
                and ref[s]["comparisons"][o][m] <= 0.01
                and ref[s]["scores"][m] > ref[o]["scores"][m]
            }
            cell = table.loc[s, m]
            mine = {o for o in runs if o != s and report.letters[o] in cell.partition("^")[2]}
            assert mine == better, (s, m, cell)
            found += len(better)
    assert 0 < found < len(runs) * (len(runs) - 1) * len(metrics) / 2  # both kinds of pair
    p = [ref[s]["comparisons"][o][m] for s in runs for o in runs if s != o for m in metrics]
    assert any(0.01 < x < 0.05 for x in p)  # alpha=0.05 would mark more: the test tells


def test_qrels_topics_missing_from_a_run_warn_and_complete_matches_ir_measures():
    im = reference_module("ir_measures")
    with pytest.warns(ConventionWarning, match="ir_measures scores them 0.*complete=True"):
        skipped = irf.evaluate(RUN, QRELS, ["AP", "nDCG@10"])
    assert "3" not in skipped.topic.values  # trec_eval's and pytrec_eval's convention
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConventionWarning)
        full = irf.evaluate(RUN, QRELS, ["AP", "nDCG@10"], complete=True)
    q = QRELS.rename(columns={"topic": "query_id", "doc": "doc_id", "rel": "relevance"})
    r = RUN.rename(columns={"topic": "query_id", "doc": "doc_id"})
    agg = im.calc_aggregate([im.AP, im.nDCG @ 10], q, r)
    assert float(full.sel(measure="AP").mean()) == pytest.approx(agg[im.AP])
    assert float(full.sel(measure="nDCG@10").mean()) == pytest.approx(agg[im.nDCG @ 10])


def test_rel_level_above_every_grade_warns():
    binary = QRELS.assign(rel=(QRELS.rel > 0).astype(int))
    with pytest.warns(irf.errors.DegenerateMeasureWarning, match=r"P\(rel=2\)@10.*\(0, 1\)"):
        cube = irf.evaluate(RUN, binary, ["P(rel=2)@10", "P@10"], complete=True)
    assert float(cube.sel(measure="P(rel=2)@10").max()) == 0.0
    with pytest.warns(irf.errors.DegenerateMeasureWarning, match="rel_level=3"):
        irf.evaluate(RUN, binary, "AP", rel_level=3, complete=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", irf.errors.DegenerateMeasureWarning)
        irf.evaluate(RUN, QRELS, "P(rel=2)@10", complete=True)  # grade 2 exists: no warning


def test_map_at_k_is_ranx_map_at_k_and_trec_eval_map_cut():
    """``map@10`` (ranx's spelling) = ranx's map@10 = pytrec_eval's map_cut_10 = ir_measures'
    AP@10: the peers agree (AP over the top k divided by all relevant documents)."""
    ranx = reference_module("ranx")
    pytrec_eval = reference_module("pytrec_eval")
    qrels = {"q1": {"a": 1, "b": 1, "c": 1, "d": 1}, "q2": {"a": 1}}
    run = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"y": 2.0, "a": 1.0}}
    cube = irf.evaluate(run, qrels, ["map@2", "map_cut_2", "AP@2"])
    r = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "map@2", return_mean=False)
    p = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut_2"}).evaluate(run)
    np.testing.assert_allclose(cube.sel(measure="map@2").values.ravel(), r)
    np.testing.assert_allclose(
        cube.sel(measure="map_cut_2").values.ravel(), [p["q1"]["map_cut_2"], p["q2"]["map_cut_2"]]
    )
    np.testing.assert_array_equal(cube.sel(measure="map@2").values, cube.sel(measure="AP@2").values)


# ------------------------------------------------------------------ one reader rule for systems
TWO_TAGS = "1 Q0 a 1 3.0 bm25\n1 Q0 x 2 2.0 rm3\n1 Q0 b 3 1.0 rm3\n2 Q0 e 1 2.0 bm25\n"


def test_a_file_is_one_run_for_every_reader(tmp_path):
    """read_run, read_runs and ``irframe eval`` read a file holding two tags as one run;
    system="tag" splits it, in both readers.  trec_eval: one file, one run, run id = last tag."""
    import io
    import subprocess
    import sys

    path = tmp_path / "mixed.txt"
    path.write_text(TWO_TAGS)
    qpath = tmp_path / "qrels.txt"
    qpath.write_text("1 0 a 1\n1 0 b 1\n2 0 e 1\n")
    qrels = irf.read_qrels(qpath)
    with pytest.warns(ConventionWarning, match="system='tag'"):
        one = irf.read_run(path)
    assert one.system.unique().tolist() == ["bm25"]  # the tag of the last line
    many = irf.read_runs([path])
    assert many.system.unique().tolist() == ["mixed"]
    a = irf.evaluate(one, qrels, ["map", "P_5"])
    b = irf.evaluate(many, qrels, ["map", "P_5"])
    np.testing.assert_array_equal(a.values, b.values)
    out = subprocess.run(
        [sys.executable, "-m", "irframe", "eval", "-m", "map", "-m", "P.5", str(qpath), str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    printed = {line.split()[0]: float(line.split()[2]) for line in out.splitlines()}
    assert printed["map"] == pytest.approx(float(a.sel(measure="map").mean()), abs=5e-5)
    assert printed["P_5"] == pytest.approx(float(a.sel(measure="P_5").mean()), abs=5e-5)
    # split only when asked, the same way in both readers
    split_one = irf.read_run(io.StringIO(TWO_TAGS), system="tag")
    split_many = irf.read_runs([path], system="tag")
    assert (
        sorted(split_one.system.unique())
        == sorted(split_many.system.unique())
        == [
            "bm25",
            "rm3",
        ]
    )
    assert irf.read_run(path, system="file").system.unique().tolist() == ["mixed"]


def test_slow_read_without_pyarrow_hints_at_the_arrow_extra(tmp_path, monkeypatch):
    from irframe import _textfile
    from irframe import io as iio

    (tmp_path / "a.txt").write_text(TWO_TAGS)
    monkeypatch.setattr(iio, "_SLOW_READ_SECONDS", -1.0)  # every read counts as slow here
    with pytest.warns(irf.errors.PerformanceHint, match=r"irframe\[arrow\]"):
        monkeypatch.setattr(_textfile, "USE_ARROW", False)
        irf.read_runs([tmp_path / "a.txt"])
    monkeypatch.setattr(_textfile, "USE_ARROW", _textfile.pa is not None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", irf.errors.PerformanceHint)
        if _textfile.pa is not None:
            irf.read_runs([tmp_path / "a.txt"])  # with pyarrow: no hint


def test_progress_bar_over_files(tmp_path, capsys):
    pytest.importorskip("tqdm")
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.txt").write_text(TWO_TAGS)
    runs = irf.read_runs(tmp_path, progress=True)
    assert runs.system.unique().tolist() == ["a", "b", "c"]
    assert "3/3" in capsys.readouterr().err


# ------------------------------------------------------------------ results as a user expects
def _cube_of(names):
    runs = pd.concat(
        [
            RUN.assign(system=n, score=RUN.score * (i + 1) + i * (RUN.doc == "b"))
            for i, n in enumerate(names)
        ]
    )
    return irf.evaluate(runs, QRELS, ["AP", "P@5"], complete=True)


def test_report_order_baseline_first_and_marked():
    cube = _cube_of(["bm25_rm3", "ColBERT#2", "a"])
    order = ["bm25_rm3", "ColBERT#2", "a"]
    r = irf.report(cube.sel(system=order))  # the cube's order is kept
    assert r.to_frame().index.tolist() == order
    r = irf.report(cube, baseline="a", systems=["bm25_rm3", "ColBERT#2"])
    assert r.to_frame().index.tolist() == ["a", "bm25_rm3", "ColBERT#2"]
    md = r.to_markdown()
    assert md.splitlines()[2].startswith("| a (baseline) |")
    with pytest.raises(irf.errors.UnknownSystemError, match="Did you mean 'bm25_rm3'"):
        irf.report(cube, systems=["bm25_rm"])
    # a dict of runs keeps its order through evaluate
    by_dict = irf.evaluate({"z": RUN, "b": RUN, "m": RUN}, QRELS, "AP", complete=True)
    assert by_dict.system.values.tolist() == ["z", "b", "m"]


def test_compare_coordinates_and_counts_have_the_expected_types():
    cube = _cube_of(["x", "y", "z"])
    res = irf.stats.compare(cube, baseline="x")
    assert res.other.dtype == res.system.dtype == object
    for k in ("wins", "ties", "losses"):
        assert res[k].dtype == np.int64
    d = cube.sel(measure="AP")
    for s in ("y", "z"):
        diff = d.sel(system=s).values - d.sel(system="x").values  # brute force
        got = res.sel(system=s, other="x", measure="AP")
        assert int(got.wins) == int((diff > 0).sum())
        assert int(got.ties) == int((diff == 0).sum())
        assert int(got.losses) == int((diff < 0).sum())
    # a system against itself ties on every topic
    assert int(res.sel(system="x", other="x", measure="AP").ties) == cube.sizes["topic"]


def test_dir_lists_the_lazy_names():
    names = dir(irf)
    for lazy in ("read_runs", "read_run", "stats", "meta", "datasets", "plot", "evaluate"):
        assert lazy in names
    assert "annotations" not in names and "importlib" not in names
    for name in names:
        getattr(irf, name)  # every listed name resolves


def test_slow_sampled_tests_hint_at_their_precision(monkeypatch):
    from irframe import stats

    cube = _cube_of(["x", "y"])
    monkeypatch.setattr(stats, "_SLOW_SECONDS", -1.0)  # every call counts as slow here
    with pytest.warns(irf.errors.PerformanceHint, match=r"standard error of at most 0\.0500"):
        stats.compare(cube, test="randomization", n_samples=100, exact=False, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", irf.errors.PerformanceHint)
        stats.compare(cube, test="t")  # no sampling: nothing to say


@pytest.mark.parametrize("form", ["frame", "dict", "namedtuples", "generator", "ranx", "trectools"])
def test_missing_topic_warning_whatever_shape_the_qrels_come_in(form):
    """A qrels topic the run lacks: ir_measures scores it 0, irframe leaves it out; the
    ConventionWarning says so for qrels in every accepted shape (it once fired only for
    frames and dicts), and complete=True then gives ir_measures' mean."""
    im = reference_module("ir_measures")
    rows = [("1", "a", 1), ("1", "c", 0), ("2", "b", 1)]
    run_rows = [("1", "c", 2.0), ("1", "a", 1.0), ("3", "b", 1.0)]
    qrels = {
        "frame": lambda: pd.DataFrame(rows, columns=["topic", "doc", "rel"]),
        "dict": lambda: {"1": {"a": 1, "c": 0}, "2": {"b": 1}},
        "namedtuples": lambda: [im.Qrel(*r) for r in rows],
        "generator": lambda: (im.Qrel(*r) for r in rows),
        "ranx": lambda: reference_module("ranx").Qrels.from_dict(
            {"1": {"a": 1, "c": 0}, "2": {"b": 1}}
        ),
        "trectools": lambda: reference_module("trectools").TrecQrel(),
    }[form]
    q = qrels()
    if form == "trectools":
        q.qrels_data = pd.DataFrame(rows, columns=["query", "docid", "rel"]).assign(q0="0")
    run = [im.ScoredDoc(*r) for r in run_rows]
    with pytest.warns(
        ConventionWarning, match=r"1 \(system, qrels topic\) pair\(s\) have no ranking"
    ):
        assert irf.summarize(irf.evaluate(run, q, "RR"))["RR"].item() == 0.5  # topic 1 alone
    q = qrels()
    if form == "trectools":
        q.qrels_data = pd.DataFrame(rows, columns=["query", "docid", "rel"]).assign(q0="0")
    want = im.calc_aggregate([im.RR], [im.Qrel(*r) for r in rows], run)[im.RR]
    assert irf.summarize(irf.evaluate(run, q, "RR", complete=True))["RR"].item() == want == 0.25


def test_qrels_first_as_ranx_and_ir_measures_take_them_is_caught():
    """ranx.evaluate(qrels, run) and ir_measures' calc_aggregate(measures, qrels, run) take
    the qrels first, irframe the runs: their typed objects in the wrong place are refused,
    and plain dicts with whole-number 'scores' and fractional 'grades' get a warning."""
    ranx = reference_module("ranx")
    im = reference_module("ir_measures")
    qd = {"q1": {"d1": 1, "d2": 2, "d3": 0}, "q2": {"d3": 1}}
    rd = {"q1": {"d1": 1.2, "d2": 0.4, "d9": 0.1}, "q2": {"d3": 0.9, "d4": 0.3}}
    Q, R = ranx.Qrels.from_dict(qd), ranx.Run.from_dict(rd)
    with pytest.raises(
        IrframeError, match="a ranx Qrels was given as the runs: irframe takes the runs first"
    ):
        irf.evaluate(Q, R, "ndcg@10")
    with pytest.raises(IrframeError, match="a ranx Run was given as the qrels"):
        irf.evaluate(R, R, "ndcg@10")
    qrels = [im.Qrel(t, d, g) for t, docs in qd.items() for d, g in docs.items()]
    run = [im.ScoredDoc(t, d, s) for t, docs in rd.items() for d, s in docs.items()]
    with pytest.raises(
        IrframeError,
        match=r"records with a 'relevance' field \(ir_measures' Qrel\) were given as the runs",
    ):
        irf.evaluate(qrels, qrels, "nDCG@10")
    with pytest.raises(
        IrframeError,
        match=r"records with a 'score' field \(ir_measures' ScoredDoc\) were given as the qrels",
    ):
        irf.evaluate(run, run, "nDCG@10")
    with pytest.warns(ConventionWarning, match="were the arguments swapped"):
        irf.evaluate(qd, rd, "ndcg@10")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConventionWarning)
        cube = irf.evaluate(R, Q, "ndcg@10")  # the right order: ranx's values, no warning
    want = ranx.evaluate(Q, R, "ndcg@10", return_mean=False)
    np.testing.assert_allclose(cube.sel(measure="ndcg@10").values.ravel(), want, rtol=1e-12)
    assert irf.summarize(irf.evaluate(run, qrels, "nDCG@10"))["nDCG@10"].item() == pytest.approx(
        im.calc_aggregate([im.nDCG @ 10], qrels, run)[im.nDCG @ 10], abs=1e-12
    )


def test_pytrec_evals_supported_measures_list_evaluates_as_there():
    """pytrec_eval's README idiom, every measure it supports: irframe gives its labels and
    values, num_q included (1 a topic); runid and relstring, which pytrec_eval fills with
    0.0, are left out with a warning. Bare "P" is irframe's set precision (its own test)."""
    pytrec_eval = reference_module("pytrec_eval")
    request = sorted(set(pytrec_eval.supported_measures) - {"P"})
    ref = pytrec_eval.RelevanceEvaluator(_PT_QRELS, set(request)).evaluate(_PT_RUN)
    with pytest.warns(
        ConventionWarning, match="relstring and runid left out: they are not numbers"
    ):
        cube = irf.evaluate(_PT_RUN, _PT_QRELS, request)
    labels = [str(m) for m in cube.measure.values]
    assert set(labels) == set(ref["q1"]) - {"runid", "relstring"}
    for t in ("q1", "q2"):
        for m in labels:
            got = float(cube.sel(topic=t, measure=m).squeeze())
            assert got == pytest.approx(ref[t][m], abs=1e-12), (t, m)
    with pytest.raises(MeasureParamError, match="'runid' has no value"):
        irf.evaluate(_PT_RUN, _PT_QRELS, "runid")  # alone: nothing to evaluate


@pytest.mark.parametrize(
    "name",
    [
        "ndcg@10-l1",
        "ndcg@10-l2",
        "dcg@10-l3",
        "ndcg-l2",
        "ndcg_burges@10-l1",
        "r-precision-l2",
        "ndcg_burges@10-l2",
        "dcg_burges@10-l3",
        "rbp.95-l2",
        "rbp.8-l1",
    ],
)
def test_ranx_level_spellings_give_ranx_values(name):
    """ranx's -lN: binary measures take rel=N (tested with the others); graded ones count
    grades below N as 0 and keep the others' gains. ndcg/dcg: gains='1=0,...' (they were
    refused); r-precision-lN is Rprec(rel=N) (was 'did you mean R-prec'); -l1 is ranx's
    default; the exponential-gain and rbp forms have no parameter: their error's qrels
    change, applied as written, gives ranx's values."""
    ranx = reference_module("ranx")
    rng = np.random.default_rng(3)
    qd = {
        f"q{t}": {f"d{d}": int(rng.integers(0, 5)) for d in rng.choice(40, 15, replace=False)}
        for t in range(12)
    }
    rd = {f"q{t}": {f"d{d}": float(rng.normal()) for d in range(40)} for t in range(12)}
    Q, R = ranx.Qrels.from_dict(qd), ranx.Run.from_dict(rd)
    want = ranx.evaluate(Q, R, name, return_mean=False)
    qrels = pd.DataFrame(
        [(t, d, g) for t, x in qd.items() for d, g in x.items()], columns=["topic", "doc", "rel"]
    )
    try:
        got = irf.evaluate(R, Q, name)
    except MeasureParamError as e:
        assert name.startswith(("ndcg_burges", "dcg_burges", "rbp")) and "-l1" not in name
        bare = re.search(r"evaluate '([^']+)'", str(e)).group(1)
        changed = eval(
            re.search(r"qrels (qrels\.assign\(.*\))$", str(e)).group(1), {}, {"qrels": qrels}
        )
        got = irf.evaluate(R, changed, bare)
    np.testing.assert_allclose(got.squeeze(drop=True).to_numpy(), want, rtol=1e-12, atol=1e-12)


def test_bare_p_warns_once_a_call():
    """'P' alone (set precision here, P_5 ... P_1000 in trec_eval) warned three times in one
    call: a probe of the name parsed it twice before the request itself."""
    for call in (
        lambda: irf.evaluate(RUN, QRELS, ["P"]),
        lambda: RUN.ir.metric(["P"], qrels=QRELS),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        said = [w for w in caught if "'P' without a cutoff" in str(w.message)]
        assert len(said) == 1


def test_two_ranx_runs_of_one_name_are_refused():
    """ranx's compare keeps the last of two runs with one name; irframe dropped one the
    same way, silently. Refused now, and the renaming the message gives works."""
    ranx = reference_module("ranx")
    qrels = ranx.Qrels.from_dict({"q1": {"d1": 1}})
    a = ranx.Run.from_dict({"q1": {"d1": 1.0, "d2": 0.5}}, name="bm25")
    b = ranx.Run.from_dict({"q1": {"d2": 1.0, "d1": 0.5}}, name="bm25")
    with pytest.raises(IrframeError, match="ranx runs named 'bm25' twice"):
        irf.evaluate([a, b], qrels, "mrr")
    b.name = "other"
    cube = irf.evaluate([a, b], qrels, "mrr").squeeze(drop=True)
    assert cube.sel(system="bm25").item() == 1.0 and cube.sel(system="other").item() == 0.5


def test_bpref_with_negative_grades_is_trec_evals_not_ranx():
    """docs/coming-from.md: ranx's bpref counts a negative grade as judged non-relevant and
    is NaN on a topic without one; irframe gives trec_eval's values (pytrec_eval's), and
    ranx's first rule with the negative grades set to 0."""
    ranx = reference_module("ranx")
    pytrec_eval = reference_module("pytrec_eval")
    qd = {"q1": {"a": 1, "b": 1, "n": 0, "m": -1}, "q2": {"a": 1, "b": 1}}
    rd = {"q1": {"a": 3.0, "n": 2.0, "b": 1.0, "m": 0.5}, "q2": {"a": 2.0, "x": 1.5, "b": 1.0}}
    ours = irf.evaluate(rd, qd, "bpref").squeeze(drop=True)
    ref = pytrec_eval.RelevanceEvaluator(qd, {"bpref"}).evaluate(rd)
    for t in ("q1", "q2"):
        assert ours.sel(topic=t).item() == pytest.approx(ref[t]["bpref"], abs=1e-12)
    theirs = ranx.evaluate(
        ranx.Qrels.from_dict(qd), ranx.Run.from_dict(rd), "bpref", return_mean=False
    )
    assert theirs[0] != ours.sel(topic="q1").item() and np.isnan(theirs[1])
    zeroed = {t: {d: max(g, 0) for d, g in x.items()} for t, x in qd.items()}
    assert irf.evaluate(rd, zeroed, "bpref").squeeze(drop=True).sel(topic="q1").item() == theirs[0]


def test_ir_measures_alpha_spelling_is_read():
    """ir_measures' registry also spells alpha-nDCG 'α_nDCG' (it parsed; irframe could not)."""
    im = reference_module("ir_measures")
    qrels, runs = irf.datasets.synthetic(systems=2, topics=4, depth=20, rng=0, diversity=True)
    assert str(im.parse_measure("α_nDCG@20")) == "alpha_nDCG@20"
    ours = irf.evaluate(runs, qrels, ["α_nDCG@20", "alpha_nDCG@20"])
    np.testing.assert_array_equal(
        ours.sel(measure="α_nDCG@20").values, ours.sel(measure="alpha_nDCG@20").values
    )


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside trectools, pandas 3.1
def test_trectools_run_with_several_tags_is_one_run(tmp_path):
    """trectools' own test runs put R / NR in the tag column; TrecEval evaluates the file as
    one run (named by get_runid()). irframe did split it into two systems, silently."""
    trectools = reference_module("trectools")
    run_path, qrels_path = _tied_trec_files(tmp_path, 0)
    lines = run_path.read_text().splitlines()
    tagged = [ln.rsplit(" ", 1)[0] + (" R" if i % 3 else " NR") for i, ln in enumerate(lines)]
    run_path.write_text("\n".join(tagged) + "\n")
    run, qrels = trectools.TrecRun(str(run_path)), trectools.TrecQrel(str(qrels_path))
    te = trectools.TrecEval(run, qrels)
    name = run.get_runid()
    with pytest.warns(ConventionWarning, match=f"read as one run named '{name}'"):
        cube = irf.evaluate(run, qrels, ["AP@1000", "P@10"], order="trec_eval10")
    assert list(cube.system.values) == [name]
    means = irf.summarize(cube).loc[name]
    assert means["AP@1000"] == pytest.approx(te.get_map(depth=1000, trec_eval=True), abs=1e-12)
    assert means["P@10"] == pytest.approx(te.get_precision(depth=10, trec_eval=True), abs=1e-12)
    # the warning's advice (one system per tag) works as written
    split = irf.evaluate(run.run_data, qrels, ["P@10"], columns={"topic": "query", "doc": "docid"})
    assert sorted(split.system.values) == ["NR", "R"]
    # several TrecRuns: named by a dict's keys (two of one tag are refused with that advice)
    with pytest.raises(InputError, match=r"\{name: run, \.\.\.\}"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConventionWarning)
        irf.evaluate([run, run], qrels, ["P@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConventionWarning)
        keyed = irf.evaluate({"a": run, "b": run}, qrels, ["P@10"], order="trec_eval10")
    assert list(keyed.system.values) == ["a", "b"]
    np.testing.assert_array_equal(keyed.values[0], keyed.values[1])


def test_set_f_parameter_list_warns_and_its_advice_works():
    """ir_measures' test_parse_trec_measure spells 'set_F.1.0,0.5,2.4': trec_eval reads the
    first beta, pytrec_eval returns one value of another, ir_measures three measures."""
    pytrec_eval = reference_module("pytrec_eval")
    qd = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0}}
    rd = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1}}
    with pytest.warns(ConventionWarning, match="set_F takes one β") as w:
        one = irf.evaluate(rd, qd, ["set_F.1.0,0.5,2.4"])
    ref = pytrec_eval.RelevanceEvaluator(qd, {"set_F.1.0"}).evaluate(rd)["0"]["set_F"]
    assert one.values.item() == pytest.approx(ref, abs=1e-12)  # the first beta, as trec_eval
    advice = eval(re.search(r"Ask for each: (\[.*\])", str(w[0].message)).group(1))
    each = irf.evaluate(rd, qd, advice)
    for b, label in zip(["1.0", "0.5", "2.4"], advice, strict=True):
        ref = pytrec_eval.RelevanceEvaluator(qd, {f"set_F.{b}"}).evaluate(rd)["0"]["set_F"]
        assert each.sel(measure=label).item() == pytest.approx(ref, abs=1e-12)


def test_ranx_at_zero_and_bpref_at_k_get_advice_that_works():
    """ranx reads ``precision@0`` as the whole ranking (its metrics_test) and has a top-k
    ``bpref@k`` (its bpref_test): irframe refuses both, saying what to write; the advice for
    @0 gives ranx's value."""
    ranx = reference_module("ranx")
    q = {"q1": {"d2": 1, "d5": 1, "d1": 0, "d4": 0}, "q2": {"d1": 1}}
    r = {"q1": {"d1": 10.0, "d2": 9.0, "d3": 8.0, "d4": 7.0}, "q2": {"d3": 2.0, "d1": 1.0}}
    for spelled in ("precision@0", "recall@0", "ndcg@0"):
        with pytest.raises(MeasureParamError, match="ranx reads @0 as the whole ranking") as e:
            irf.evaluate(r, q, spelled)
        advice = re.search(r"write '([^']+)' without @k", str(e.value)).group(1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConventionWarning)
            got = irf.evaluate(r, q, advice).mean("topic").item()
        want = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), spelled)
        assert got == pytest.approx(want, abs=1e-12), spelled
    with pytest.raises(MeasureParamError, match="ranx's bpref@k ranks only the top k"):
        irf.evaluate(r, q, "bpref@3")
