"""Differential fuzzing of the library against the reference tools, on small hostile collections.

Each test draws tiny collections with hypothesis — ties, unjudged documents, negative, zero
and large grades, topics without relevant documents, single-document rankings, run topics
missing from the qrels and the reverse, ids as object / str / category / string[pyarrow] —
and compares every value irframe computes with the value the reference tool computes on the
same input, driven here:

* ``cwl_eval`` 1.0.12 (its Python API: ``TrecQrelHandler``, ``RankingMaker`` and the metric
  classes, as its command line uses them) for :func:`irframe.cwl.cwl` — all ten columns,
  residuals included — and for the ``CWL(C=...,out=...)`` measures of :func:`irframe.evaluate`;
* ``pyndeval`` 0.0.8 (ndeval) for the diversity measures, on tie-free scores (pyndeval breaks
  ties by docno ascending, irframe follows ndeval's own order);
* ``ir_measures`` 0.4.3 (pytrec_eval, its cwl_eval provider, its own Compat, Judged and
  Accuracy) for the ir_measures names irframe accepts.

Where the tools differ by a documented choice the comparison skips that cell and says why
(see docs/cwl.md, docs/diversity.md, docs/trec_eval.md).  Example counts are bounded so the
module runs in well under a minute; the exploration behind it ran thousands of cases per family.
"""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import reference_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe.cwl import cwl

FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ID_KINDS = ("object", "str", "category", "string[pyarrow]")


def _ids(values, kind: str) -> pd.Series:
    s = pd.Series([str(v) for v in values], dtype=object)
    if kind == "object":
        return s
    if kind == "str":
        return s.astype(str)
    return s.astype(kind)


def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=tol) or (math.isnan(a) and math.isnan(b))


# ======================================================================================= cwl_eval
CWL_COLS = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")
_CWL_MODULES = (
    "cwl_precision",
    "cwl_rbp",
    "cwl_rr",
    "cwl_ap",
    "cwl_dcg",
    "cwl_inst",
    "cwl_insq",
    "cwl_tbg",
    "cwl_bpm",
    "cwl_umeasure",
    "cwl_ift",
    "cwl_nerr",
    "cwl_npv",
    "cwl_set",
)
# metric-file lines (cwl_eval's own syntax; a parameter with a '.' is a float, else an int)
CWL_METRICS = [
    "PrecisionCWLMetric(1)",
    "PrecisionCWLMetric(3)",
    "RBPCWLMetric(0.5)",
    "RBPCWLMetric(0.95)",
    "RRCWLMetric()",
    "APCWLMetric()",
    "NDCGCWLMetric(3)",
    "INSTCWLMetric(1.0)",
    "INSTCWLMetric(2)",
    "INSQCWLMetric(0.5)",
    "TBGCWLMetric(2)",
    "BPMCWLMetric(1.0,3)",
    "BPMDCWLMetric(1.0,5,0.5,2,0.3)",
    "UMeasureCWLMetric(3)",
    "IFTGoalCWLMetric(1.0,0.9,10)",
    "IFTRateCWLMetric(0.2,0.9,10)",
    "IFTGoalRateCWLMetric(2.0,0.9,10,0.2,0.9,10)",
    "NERReq8CWLMetric(2)",
    "NERReq9CWLMetric(3)",
    "NERReq10CWLMetric(0.9)",
    "NERReq11CWLMetric(2.0)",
    "NPVCWLMetric(0.1)",
    "SETCWLMetric(0.5,3)",
]


def _cwl_classes() -> dict:
    reference_module("cwl")
    out = {}
    for name in _CWL_MODULES:
        mod = importlib.import_module(f"cwl.ruler.measures.{name}")
        out.update({c: getattr(mod, c) for c in dir(mod) if c.endswith("CWLMetric")})
    return out


def _cwl_metric(classes: dict, line: str):
    cls, _, args = line.partition("(")
    vals = [float(a) if "." in a else int(a) for a in args.rstrip(")").split(",") if a]
    return classes[cls](*vals)


@st.composite
def cwl_cases(draw):
    topics = draw(
        st.lists(st.sampled_from(["1", "2", "10", "301"]), min_size=1, max_size=3, unique=True)
    )
    docs = [f"d{i}" for i in range(draw(st.integers(1, 12)))]
    max_gain = draw(st.sampled_from([1.0, 1.0, 2.0]))
    gain = st.one_of(
        st.just(0.0), st.just(max_gain), st.sampled_from([0.1, 0.25, 0.5, 0.75, 0.3333])
    )
    qrels = []
    for t in topics:
        if draw(st.integers(0, 6)) == 0:
            continue  # a run topic without judgments
        for d in docs:
            if draw(st.booleans()):
                qrels.append((t, d, draw(gain)))
    if draw(st.booleans()):
        qrels.append(("999", "d0", 1.0))  # a qrels topic without a run
    run = []
    for system in ("S", "T")[: draw(st.integers(1, 2))]:  # T may miss topics
        for t in topics:
            if system == "T" and draw(st.booleans()):
                continue
            ranked = draw(st.permutations(docs))[: draw(st.integers(1, len(docs)))]
            run += [(system, t, draw(st.sampled_from("abc")), d) for d in ranked]
    costs = draw(
        st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {"a": st.sampled_from([0.0, 0.5, 2.0]), "b": st.sampled_from([1.0, 3.0])}
            ),
        )
    )
    min_cost = draw(st.sampled_from([1.0, 0.5]))
    max_cost = min_cost + draw(st.sampled_from([0.0, 1.0]))
    depth = draw(st.sampled_from([3, 5, 8, 20]))
    metrics = draw(st.lists(st.sampled_from(CWL_METRICS), min_size=1, max_size=4, unique=True))
    kinds = draw(st.tuples(st.sampled_from(ID_KINDS), st.sampled_from(ID_KINDS)))
    return {
        "qrels": qrels,
        "run": run,
        "costs": costs,
        "min_cost": min_cost,
        "max_cost": max_cost,
        "max_gain": max_gain,
        "depth": depth,
        "metrics": metrics,
        "kinds": kinds,
    }


def _cwl_eval_reference(case, tmp_path, classes):
    """{(system, topic, metric line): (printed name, 10 values) or the ValueError message}, as cwl_eval's
    main() does for each system's result file."""
    from cwl.ruler.ranking import RankingMaker
    from cwl.seeker.trec_qrel_handler import TrecQrelHandler

    gain_file = tmp_path / "gains"
    gain_file.write_text("".join(f"{t} 0 {d} {g!r}\n" for t, d, g in case["qrels"]))
    qrh = TrecQrelHandler(str(gain_file))
    qrh.validate_gains(min_gain=0.0, max_gain=case["max_gain"])
    out = {}
    for line in case["metrics"]:
        metric = _cwl_metric(classes, line)
        metric.residuals = True
        for system, t in dict.fromkeys(r[:2] for r in case["run"]):
            maker = RankingMaker(
                t,
                qrh,
                case["costs"],
                max_gain=case["max_gain"],
                max_cost=case["max_cost"],
                min_cost=case["min_cost"],
                max_n=case["depth"],
            )
            for rs, rt, et, d in case["run"]:
                if (rs, rt) == (system, t):
                    maker.add(d, et)
            try:
                with np.errstate(all="ignore"):
                    metric.measure(maker.get_ranking())
            except ValueError as e:  # INST/NERR's gain-range check
                out[(system, t, line)] = str(e)
                continue
            out[(system, t, line)] = (
                metric.name(),
                [
                    metric.expected_utility,
                    metric.expected_total_utility,
                    metric.expected_cost,
                    metric.expected_total_cost,
                    metric.expected_items,
                    metric.residual_expected_utility,
                    metric.residual_expected_total_utility,
                    metric.residual_expected_cost,
                    metric.residual_expected_total_cost,
                    metric.residual_expected_items,
                ],
            )
    return out


@FUZZ
@given(case=cwl_cases())
def test_cwl_matches_cwl_eval(case, tmp_path_factory):
    classes = _cwl_classes()
    ref = _cwl_eval_reference(case, tmp_path_factory.mktemp("cwl"), classes)
    run = pd.DataFrame(case["run"], columns=["system", "topic", "element_type", "doc"])
    run["score"] = -np.arange(len(run), dtype=float)  # order="input" keeps the file order anyway
    qrels = pd.DataFrame(case["qrels"], columns=["topic", "doc", "rel"])
    for c in ("topic", "doc", "system"):
        run[c] = _ids(run[c], case["kinds"][0])
    for c in ("topic", "doc"):
        qrels[c] = _ids(qrels[c], case["kinds"][1])
    judged = {t for t, _, _ in case["qrels"]}
    compared = [
        k for k in ref if k[1] in judged
    ]  # documented: run topics without judgments dropped
    if not compared:
        return
    kw = {
        "order": "input",
        "depth": case["depth"],
        "costs": case["costs"],
        "max_gain": case["max_gain"],
        "min_cost": case["min_cost"],
        "max_cost": case["max_cost"],
    }
    if any(isinstance(ref[k], str) for k in compared):
        # cwl_eval refuses the gains of that metric (its command line stops there): so does irframe
        with pytest.raises(ValueError, match="gain"):
            cwl(run, qrels, case["metrics"], **kw)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = cwl(run, qrels, case["metrics"], **kw)
    for system, t, line in compared:
        name, values = ref[(system, t, line)]
        j = case["metrics"].index(line)
        assert str(ds.cwl_name.values[j]).strip() == name.strip()
        for col, want in zip(CWL_COLS, values, strict=True):
            got = float(ds[col].sel(system=system, topic=t).values[j])
            assert _close(got, want), (system, t, line, col, got, want)
    if (
        case["costs"] is None
        and case["min_cost"] == case["max_cost"] == 1.0
        and case["max_gain"] == 1.0
    ):
        # the same outputs as .ir.metric measures (their gains: grades in [0, 1] kept as they are)
        names = {
            (line, col): f"CWL(C='{line}',out={col})@{case['depth']}"
            for line in case["metrics"]
            for col in CWL_COLS[:5]
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cube = irf.evaluate(run, qrels, list(names.values()), order="input")
        for system, t, line in compared:
            for col, want in zip(CWL_COLS[:5], ref[(system, t, line)][1][:5], strict=True):
                got = float(cube.sel(system=system, topic=t, measure=names[(line, col)]))
                assert _close(got, want), (system, t, line, col, got, want)


# ======================================================================================= pyndeval
NDEVAL_K = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec")


@st.composite
def diversity_cases(draw):
    topics = draw(
        st.lists(st.sampled_from(["1", "2", "10", "q5"]), min_size=1, max_size=3, unique=True)
    )
    docs = [
        draw(st.sampled_from(["d", "D", "x-"])) + str(i) for i in range(draw(st.integers(1, 24)))
    ]
    grade = st.sampled_from([-2, 0, 0, 1, 1, 2, 5])
    qrels = []
    for t in topics:
        if draw(st.integers(0, 6)) == 0:
            continue
        for s in range(1, draw(st.integers(1, 4)) + 1):
            only_nonrel = draw(st.integers(0, 6)) == 0  # a subtopic without a relevant document
            for d in docs:
                if draw(st.booleans()):
                    qrels.append(
                        (
                            t,
                            str(s),
                            d,
                            draw(st.sampled_from([0, -1])) if only_nonrel else draw(grade),
                        )
                    )
    if draw(st.booleans()):
        qrels.append(("999", "1", "d0", 1))
    run = []
    for system in ("S", "T")[: draw(st.integers(1, 2))]:
        for t in topics:
            if system == "T" and draw(st.booleans()):
                continue
            ranked = draw(st.permutations([*docs, "u0", "u1"]))[
                : draw(st.integers(1, len(docs) + 2))
            ]
            run += [
                (system, t, d, float(len(ranked) - i)) for i, d in enumerate(ranked)
            ]  # distinct scores
    ks = draw(st.lists(st.sampled_from([1, 2, 3, 5, 10, 20]), min_size=1, max_size=3, unique=True))
    alpha = draw(st.sampled_from([0.5, 0.1, 0.75, 1.0, 0.0]))
    beta = draw(st.sampled_from([0.5, 0.3, 0.99, 1.0]))
    level = draw(st.sampled_from([1, 1, 2]))
    kinds = draw(st.tuples(st.sampled_from(ID_KINDS), st.sampled_from(ID_KINDS)))
    return {
        "qrels": qrels,
        "run": run,
        "ks": sorted(ks),
        "alpha": alpha,
        "beta": beta,
        "level": level,
        "kinds": kinds,
    }


@FUZZ
@given(case=diversity_cases())
def test_diversity_matches_pyndeval(case):
    pyndeval = reference_module("pyndeval")
    a, b = case["alpha"], case["beta"]
    # ndeval leaves ERR-IA@1 and alpha-DCG@1 unnormalised (test_pyndeval_cutoff_one_quirk)
    theirs = [
        f"{n}@{k}"
        for k in case["ks"]
        for n in NDEVAL_K
        if not (k == 1 and n in ("ERR-IA", "alpha-DCG"))
    ]
    theirs += ["NRBP", "nNRBP", "MAP-IA"]
    ours = [
        f"{n.split('@')[0]}(alpha={a})@{n.split('@')[1]}"
        if n.split("@")[0] in NDEVAL_K[:4]
        else f"{n}(alpha={a},beta={b})"
        if n in ("NRBP", "nNRBP")
        else n
        for n in theirs
    ]
    if not case["qrels"] or not ({q[0] for q in case["qrels"]} & {r[1] for r in case["run"]}):
        return  # irframe refuses a collection without common topics
    ev = pyndeval.RelevanceEvaluator(
        case["qrels"], theirs, relevance_level=case["level"], alpha=a, beta=b
    )
    refs = {
        system: ev.evaluate(
            sorted([r[1:] for r in case["run"] if r[0] == system], key=lambda r: r[0])
        )
        for system in dict.fromkeys(r[0] for r in case["run"])
    }
    run = pd.DataFrame(case["run"], columns=["system", "topic", "doc", "score"])
    qrels = pd.DataFrame(case["qrels"], columns=["topic", "subtopic", "doc", "rel"])
    for c in ("topic", "doc", "system"):
        run[c] = _ids(run[c], case["kinds"][0])
    for c in ("topic", "subtopic", "doc"):
        qrels[c] = _ids(qrels[c], case["kinds"][1])
    cube = irf.evaluate(run, qrels, ours, order="trec_eval10", rel_level=case["level"])
    for system, ref in refs.items():
        evaluated = cube.sel(system=system).isel(measure=0).to_series().dropna().index
        assert set(ref) == {str(t) for t in evaluated}
        for t, vals in ref.items():
            for n, o in zip(theirs, ours, strict=True):
                want, got = float(vals[n]), float(cube.sel(system=system, topic=t, measure=o))
                if n == "nNRBP" and math.isnan(want):
                    # ndeval divides 0 by 0 when the topic has no relevant aspect (or the ideal NRBP
                    # is 0: alpha = 0, beta = 1); irframe scores 0 (docs/diversity.md)
                    assert got == 0.0
                    continue
                assert _close(got, want, 1e-12), (system, t, n, got, want)


# ===================================================================================== ir_measures
IRM_NAMES = [
    "P@3",
    "P(rel=2)@5",
    "P(judged_only=True)@3",
    "R@5",
    "AP",
    "AP(rel=2)@5",
    "AP(judged_only=True)",
    "RR",
    "RR(rel=2)",
    "nDCG",
    "nDCG@3",
    "nDCG(judged_only=True)@5",
    "Rprec",
    "Bpref",
    "infAP",
    "NumRet",
    "NumRet(rel=1)",
    "NumRet(rel=2)",
    "NumRelRet",
    "NumRel",
    "NumQ",
    "Success@2",
    "IPrec@0.5",
    "SetP",
    "SetP(relative=True)",
    "SetP(relative=True,rel=2)",
    "nDCG(gains={0:0,1:3,2:1})@5",
    "nDCG(gains={2:10})",
    "SetR",
    "SetF(beta=0.5)",
    "SetAP",
    "SetRelP",
    "Judged@5",
    "RBP(p=0.5,rel=1)",
    "Compat(p=0.8)",
    "Accuracy@5",
    "INST(T=1.0,max_rel=2)",
    "INSQ(T=2.0,max_rel=3)",
    "SDCG(max_rel=2)@5",
    "BPM(T=1.0,max_rel=2)@5",
    "NERR8(max_rel=2)@3",
    "NERR9(max_rel=2)@3",
    "NERR10(p=0.9,max_rel=2)",
    "NERR11(T=1.0,max_rel=2)",
]


@st.composite
def adhoc_cases(draw):
    topics = draw(
        st.lists(st.sampled_from(["1", "2", "10", "q5"]), min_size=1, max_size=3, unique=True)
    )
    docs = [
        draw(st.sampled_from(["d", "D", "x-"])) + str(i) for i in range(draw(st.integers(1, 12)))
    ]
    grades = draw(st.sampled_from([[0, 1], [0, 1, 2], [-1, 0, 1, 2, 3], [-2, 0, 4], [0]]))
    qrels = []
    for t in topics:
        if draw(st.integers(0, 6)) == 0:
            continue
        judged = [(t, d, draw(st.sampled_from(grades))) for d in docs if draw(st.booleans())]
        # pytrec_eval (and trec_eval) fail on a topic whose judgments are all negative
        # (trec_eval: "Can't calculate measure"; pytrec_eval: zeros or a crash), so every
        # judged topic here has a judgment >= 0
        qrels += judged + ([(t, "j0", 0)] if judged and max(g for _, _, g in judged) < 0 else [])
    if draw(st.booleans()):
        qrels.append(("999", "d0", 1))
    run = []
    for system in ("S", "T")[: draw(st.integers(1, 2))]:
        for t in topics:
            if system == "T" and draw(st.booleans()):
                continue
            ranked = draw(st.permutations([*docs, "u0"]))[: draw(st.integers(1, len(docs) + 1))]
            run += [
                (system, t, d, 100.0 - 1.5 * i) for i, d in enumerate(ranked)
            ]  # untied: every provider's order
    names = draw(st.lists(st.sampled_from(IRM_NAMES), min_size=1, max_size=4, unique=True))
    kinds = draw(st.tuples(st.sampled_from(ID_KINDS), st.sampled_from(ID_KINDS)))
    return {"qrels": qrels, "run": run, "names": names, "kinds": kinds}


def _ir_measures_values(ir_measures, name, qrels, run):
    q = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            m.query_id: m.value
            for m in ir_measures.iter_calc([ir_measures.parse_measure(name)], q, r)
        }


@FUZZ
@given(case=adhoc_cases())
def test_ir_measures_names_match(case):
    ir_measures = reference_module("ir_measures")
    import logging

    logging.getLogger("ir_measures").setLevel(logging.ERROR)  # cwl_eval provider's max_rel notes
    if not ({q[0] for q in case["qrels"]} & {r[1] for r in case["run"]}):
        return  # irframe (as trec_eval) stops: no common topic
    run = pd.DataFrame(case["run"], columns=["system", "topic", "doc", "score"])
    qrels = pd.DataFrame(case["qrels"], columns=["topic", "doc", "rel"])
    for c in ("topic", "doc", "system"):
        run[c] = _ids(run[c], case["kinds"][0])
    for c in ("topic", "doc"):
        qrels[c] = _ids(qrels[c], case["kinds"][1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cube = irf.evaluate(run, qrels, case["names"])
    for system in dict.fromkeys(r[0] for r in case["run"]):
        one = [r[1:] for r in case["run"] if r[0] == system]
        run_topics = {r[0] for r in one}
        for name in case["names"]:
            try:
                ref = _ir_measures_values(ir_measures, name, case["qrels"], one)
            except ZeroDivisionError:
                assert name.startswith("Accuracy")  # documented: irframe gives 1 there
                continue
            for t, want in ref.items():
                if t not in run_topics:
                    assert want == 0  # ir_measures fills a topic the run lacks with 0
                    continue
                got = float(cube.sel(system=system, topic=t, measure=name))
                assert _close(got, want), (system, name, t, got, want)


@st.composite
def gdeval_cases(draw):
    """Numeric topics and grades -1..4 (gdeval refuses others), tied and near-tied scores."""
    topics = draw(st.lists(st.sampled_from(["1", "2", "10"]), min_size=1, max_size=2, unique=True))
    docs = [
        draw(st.sampled_from(["d", "D", "x"])) + str(i) for i in range(draw(st.integers(1, 10)))
    ]
    qrels = [(t, d, draw(st.integers(-1, 4))) for t in topics for d in docs if draw(st.booleans())]
    run = []
    for t in topics:
        ranked = draw(st.permutations(docs))[: draw(st.integers(1, len(docs)))]
        run += [(t, d, draw(st.sampled_from([0.0, 1.0, 2.0, 1.0 + 1e-9]))) for d in ranked]
    return {"qrels": qrels, "run": run, "k": draw(st.sampled_from([1, 3, 10]))}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=gdeval_cases())
def test_gdeval_ties_follow_order_trec_eval10(case):
    """gdeval (ir_measures' provider of ERR@k and nDCG(dcg='exp-log2')@k, perl) sorts by score as a
    double, ties by docno descending: irframe's order="trec_eval10"; values to its 5 printed decimals."""
    ir_measures = reference_module("ir_measures")
    from conftest import reference_tool

    reference_tool("perl")
    if not ({q[0] for q in case["qrels"]} & {r[0] for r in case["run"]}):
        return
    names = [f"ERR@{case['k']}", f"nDCG(dcg='exp-log2')@{case['k']}"]
    cube = irf.evaluate(
        pd.DataFrame(case["run"], columns=["topic", "doc", "score"]).assign(system="S"),
        pd.DataFrame(case["qrels"], columns=["topic", "doc", "rel"]),
        names,
        order="trec_eval10",
    )
    run_topics = {r[0] for r in case["run"]}
    for name in names:
        for t, want in _ir_measures_values(ir_measures, name, case["qrels"], case["run"]).items():
            if t in run_topics:
                assert abs(float(cube.sel(system="S", topic=t, measure=name)) - want) <= 5.1e-6, (
                    name,
                    t,
                    want,
                )


# ================================================================= regressions found by the fuzzing
def _assert_matches_ir_measures(names, qrels, run):
    """irframe's value of each name equals ir_measures' on every topic it reports; returns the cube."""
    ir_measures = reference_module("ir_measures")
    cube = irf.evaluate(
        pd.DataFrame(run, columns=["topic", "doc", "score"]).assign(system="S"),
        pd.DataFrame(qrels, columns=["topic", "doc", "rel"]),
        names,
    )
    for name in names:
        ref = _ir_measures_values(ir_measures, name, qrels, run)
        assert set(ref) == {t for t, _, _ in run}
        for t, want in ref.items():
            assert _close(float(cube.sel(system="S", topic=t, measure=name)), want), (name, t, want)
    return cube


def test_num_ret_rel_counts_documents_at_the_level():
    """ir_measures' NumRet(rel=k) is the number of retrieved documents with grade >= k
    (its NumRelRet is NumRet(rel=1)); irframe used to ignore rel and count them all."""
    qrels = [("1", "a", 2), ("1", "b", 1), ("1", "c", 0), ("2", "a", 1), ("2", "z", 3)]
    run = [("1", d, s) for d, s in zip("abcde", [5.0, 4, 3, 2, 1], strict=True)] + [
        ("2", d, s) for d, s in zip("ab", [2.0, 1], strict=True)
    ]
    cube = _assert_matches_ir_measures(["NumRet(rel=1)", "NumRet(rel=2)", "NumRet"], qrels, run)
    # judged_only (not an ir_measures parameter of NumRet) removes unjudged documents first:
    # the relevant ones stay
    judged = irf.evaluate(
        pd.DataFrame(run, columns=["topic", "doc", "score"]).assign(system="S"),
        pd.DataFrame(qrels, columns=["topic", "doc", "rel"]),
        "NumRet(judged_only=True,rel=1)",
    )
    assert (
        judged.values.ravel().tolist() == cube.sel(measure="NumRet(rel=1)").values.ravel().tolist()
    )


def test_set_p_relative_is_set_relative_p():
    """``SetP(relative=True)`` is how ir_measures prints SetRelP (set_relative_P); irframe refused it."""
    ir_measures = reference_module("ir_measures")
    assert str(ir_measures.parse_measure("SetRelP")) == "SetP(relative=True)"
    qrels = [
        ("1", "a", 2),
        ("1", "b", 1),
        ("1", "x", 1),
        ("1", "y", 1),
        ("2", "a", 1),
        ("2", "c", 0),
    ]
    run = [("1", d, s) for d, s in zip("abcde", [5.0, 4, 3, 2, 1], strict=True)] + [
        ("2", d, s) for d, s in zip("ab", [2.0, 1], strict=True)
    ]
    _assert_matches_ir_measures(
        ["SetP(relative=True)", "SetP(relative=True,rel=2)", "SetP(relative=False)"], qrels, run
    )


def test_ndcg_gains_dict_as_ir_measures_writes_it():
    """ir_measures' ``nDCG(gains={grade: gain})`` (its qrels remapped before pytrec_eval's ndcg)
    is irframe's ``nDCG(gains='grade=gain')``; irframe could not parse the dict."""
    qrels = [
        ("1", "a", 2),
        ("1", "b", 1),
        ("1", "c", 0),
        ("1", "y", 3),
        ("2", "a", 1),
        ("2", "c", 2),
    ]
    run = [("1", d, s) for d, s in zip("abcde", [5.0, 4, 3, 2, 1], strict=True)] + [
        ("2", d, s) for d, s in zip("cab", [3.0, 2, 1], strict=True)
    ]
    _assert_matches_ir_measures(
        [
            "nDCG(gains={0:0,1:1,2:3})@3",
            "nDCG(gains={3:1, 2:5})",
            "nDCG(gains={1:0},judged_only=True)@5",
        ],
        qrels,
        run,
    )


@pytest.mark.parametrize(
    "name",
    [
        "INST(T=1.0,max_rel=2)",
        "INSQ(T=2.0,max_rel=2)",
        "SDCG(max_rel=2)@5",
        "BPM(T=1.0,max_rel=2)@5",
        "NERR8(max_rel=2)@3",
        "NERR9(max_rel=2)@3",
        "NERR10(p=0.9,max_rel=2)",
        "NERR11(T=1.0,max_rel=2)",
    ],
)
def test_ir_measures_cwl_names_clip_grades_above_max_rel(name):
    """ir_measures' cwl_eval provider clips grades into [0, max_rel] before scaling them
    (a grade above max_rel counts as max_rel); irframe used to refuse such grades."""
    import logging

    logging.getLogger("ir_measures").setLevel(logging.ERROR)  # its notes on grades above max_rel
    qrels = [
        ("1", "a", 4),
        ("1", "b", 1),
        ("1", "c", -1),
        ("1", "d", 2),
        ("2", "a", 3),
        ("2", "b", 0),
    ]
    run = [("1", d, s) for d, s in zip("eabcd", [5.0, 4, 3, 2, 1], strict=True)] + [
        ("2", d, s) for d, s in zip("ba", [2.0, 1], strict=True)
    ]
    _assert_matches_ir_measures([name], qrels, run)
