"""Tie-aware orders (irframe.measures.ties) against outside references.

* brute force: every order of every tie group is written as its own system with distinct
  scores and evaluated by the plain (trec_eval-verified) evaluator; ``order="expected"`` equals
  the mean over those orders, ``"best"``/``"worst"`` the maximum/minimum;
* scikit-learn's ``ndcg_score(ignore_ties=False)`` (McSherry & Najork's tie-averaged DCG) for nDCG@k.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import reference_module  # skips, or fails with CI=true, when absent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe.errors import MeasureParamError

EXPECTED = [
    "P@1",
    "P@2",
    "P@4",
    "P",
    "R@3",
    "R",
    "RR",
    "RR@2",
    "AP",
    "AP@3",
    "nDCG",
    "nDCG@3",
    "Success@1",
    "Success@3",
    "Rprec",
    "Rprec(mult=2)",
    "NumRelRet@3",
    "Judged@3",
    "RBP(p=0.7)",
    "RBP(p=0.7,rel=2)",
    "RBP(p=0.5)@3",
    "NumRet",
    "NumRel",
    "P(rel=2)@3",
    "AP(rel=2)",
    "RR(rel=2)",
]
RANGE = [m for m in EXPECTED if not m.startswith("Judged")] + [
    "gm_map",
    "Bpref",
    "IPrec(recall=0.5)",
    "IPrecAvg",
    "ERR@4",
    "ERR",
]


@st.composite
def tied_ranking(draw):
    n = draw(st.integers(1, 7))
    scores = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=n, max_size=n))
    labels = draw(st.lists(st.sampled_from([None, 0, 0, 1, 2]), min_size=n, max_size=n))
    extra = draw(st.lists(st.sampled_from([0, 1, 2]), max_size=2))
    return scores, labels, extra


def _qrels(labels, extra):
    q = [(f"d{i}", g) for i, g in enumerate(labels) if g is not None] + [
        (f"x{j}", g) for j, g in enumerate(extra)
    ]
    if not q:
        q = [("x", 1)]
    return pd.DataFrame(q, columns=["doc", "rel"]).assign(topic="t")[["topic", "doc", "rel"]]


def _all_orders(scores):
    """Every order of the documents consistent with the scores (ties permuted), as doc-index lists."""
    groups = [
        sorted(i for i, s in enumerate(scores) if s == v) for v in sorted(set(scores), reverse=True)
    ]
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for grp in combo for i in grp]


def _brute(scores, labels, extra, measures):
    rows = []
    for j, order in enumerate(_all_orders(scores)):
        for pos, i in enumerate(order):
            rows.append((f"o{j:04d}", "t", f"d{i}", float(len(order) - pos)))
    run = pd.DataFrame(rows, columns=["system", "topic", "doc", "score"])
    return (
        irf.evaluate(run, _qrels(labels, extra), measures).sel(topic="t").values
    )  # orders × measures


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(tied_ranking())
def test_expected_best_worst_equal_mean_max_min_over_tie_orders(case):
    scores, labels, extra = case
    run = pd.DataFrame(
        {"system": "s", "topic": "t", "doc": [f"d{i}" for i in range(len(scores))], "score": scores}
    )
    qrels = _qrels(labels, extra)
    allv = _brute(scores, labels, extra, RANGE)
    exp = irf.evaluate(run, qrels, EXPECTED, order="expected").sel(system="s", topic="t").values
    best = irf.evaluate(run, qrels, RANGE, order="best").sel(system="s", topic="t").values
    worst = irf.evaluate(run, qrels, RANGE, order="worst").sel(system="s", topic="t").values
    for j, m in enumerate(EXPECTED):
        if m.startswith("Judged"):
            continue
        assert exp[j] == pytest.approx(allv[:, RANGE.index(m)].mean(), rel=1e-9, abs=1e-12), m
    np.testing.assert_allclose(best, allv.max(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(worst, allv.min(axis=0), rtol=1e-12, atol=1e-12)


@SETTINGS
@given(tied_ranking())
def test_expected_judged_is_the_mean_over_tie_orders(case):
    scores, labels, extra = case
    run = pd.DataFrame(
        {"system": "s", "topic": "t", "doc": [f"d{i}" for i in range(len(scores))], "score": scores}
    )
    allv = _brute(scores, labels, extra, ["Judged@3", "Judged@1"])
    exp = irf.evaluate(run, _qrels(labels, extra), ["Judged@3", "Judged@1"], order="expected")
    np.testing.assert_allclose(exp.sel(system="s", topic="t").values, allv.mean(axis=0), rtol=1e-12)


def test_ties_are_float32_equal_scores():
    # 1.0 and 1.0 + 1e-9 are one float32 value: tied as trec_eval ties them
    run = pd.DataFrame({"system": "s", "topic": "t", "doc": ["a", "b"], "score": [1.0, 1.0 + 1e-9]})
    qrels = pd.DataFrame({"topic": "t", "doc": ["a"], "rel": [1]})
    assert irf.evaluate(run, qrels, "RR", order="expected").item() == pytest.approx(0.75)
    assert irf.evaluate(run, qrels, "RR", order="trec_eval10").item() == 0.5  # float64: b first


def test_unsupported_measures_raise_naming_them():
    qrels, runs = irf.datasets.trec_eval_sample()
    with pytest.raises(MeasureParamError, match=r"'infAP'.*expected"):
        irf.evaluate(runs, qrels, ["AP", "infAP"], order="expected")
    with pytest.raises(MeasureParamError, match=r"'Judged@10'"):
        irf.evaluate(runs, qrels, ["Judged@10"], order="best")
    with pytest.raises(MeasureParamError, match="gains"):
        irf.evaluate(runs, qrels, ["nDCG"], order="worst", gains={1: 5, 2: 1})


def test_tie_sensitivity_report():
    run = pd.DataFrame(
        {
            "system": ["a", "a", "b", "b"],
            "topic": "t",
            "doc": ["x", "y", "x", "y"],
            "score": [1.0, 1.0, 2.0, 1.0],
        }
    )
    qrels = pd.DataFrame({"topic": "t", "doc": ["y"], "rel": [1]})
    rep = irf.tie_sensitivity(run, qrels, ["RR", "P@1"])
    top = rep.iloc[0]
    assert (top.system, top.worst, top.best, top.spread, top.tied_docs) == ("a", 0.0, 1.0, 1.0, 2.0)
    b = rep[rep.system == "b"]
    assert (b.spread == 0).all() and (b.tied_docs == 0).all()


# --------------------------------------------------------------------------- scikit-learn
sklearn_metrics = reference_module("sklearn.metrics")


@SETTINGS
@given(tied_ranking(), st.integers(1, 8))
def test_ndcg_expected_equals_sklearn_ignore_ties_false(case, k):
    scores, labels, _ = case
    labels = [0 if g is None else g for g in labels]  # every judged document is retrieved
    if not any(labels):
        labels[0] = 1
    run = pd.DataFrame(
        {"system": "s", "topic": "t", "doc": [f"d{i}" for i in range(len(scores))], "score": scores}
    )
    ours = irf.evaluate(run, _qrels(labels, []), f"nDCG@{k}", order="expected").item()
    ref = (
        sklearn_metrics.ndcg_score([labels], [scores], k=k, ignore_ties=False)
        if len(scores) > 1
        else None
    )
    if ref is not None:
        assert ours == pytest.approx(ref, rel=1e-12, abs=1e-12)


def test_ndcg_expected_equals_sklearn_on_robust03(shared_data):
    runs = irf.read_run(shared_data / "robust03" / "runs" / "input.uic0301.gz")
    qrels = irf.read_qrels(shared_data / "robust03" / "qrels" / "robust03_qrels.txt.gz")
    k = 20
    cube = irf.evaluate(runs, qrels, [f"nDCG@{k}"], order="expected").sel(measure=f"nDCG@{k}")
    q = qrels.assign(topic=qrels.topic.astype(str), doc=qrels.doc.astype(str))
    r = runs.assign(topic=runs.topic.astype(str), doc=runs.doc.astype(str))
    checked = 0
    for topic, grp in r.groupby("topic", sort=True):
        judged = q[q.topic == topic]
        if (judged.rel > 0).sum() == 0 or len(grp) < k:
            continue
        grade = judged.set_index("doc").rel
        y_true = grade.reindex(grp.doc).fillna(0).clip(lower=0).to_numpy()
        # judged documents the run did not retrieve: below every retrieved one (beyond k)
        missing = judged[~judged.doc.isin(grp.doc)]
        y_true = np.concatenate([y_true, missing.rel.clip(lower=0).to_numpy()])
        s32 = (
            grp.score.to_numpy().astype(np.float32).astype(np.float64)
        )  # trec_eval's ties: float32
        y_score = np.concatenate([s32, np.full(len(missing), s32.min() - 1.0)])
        ref = sklearn_metrics.ndcg_score([y_true], [y_score], k=k, ignore_ties=False)
        assert cube.sel(topic=topic).item() == pytest.approx(ref, rel=1e-10), topic
        checked += 1
    assert checked > 40


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tied_ranking(), min_size=2, max_size=5))
def test_many_rankings_at_once_equal_one_at_a_time(cases):
    # property test: the vectorised kernels do not mix up rankings (and complete=True adds
    # empty rankings); each (system, topic) alone gives the same value
    runs, qrels = [], []
    for j, (scores, labels, extra) in enumerate(cases):
        sys_, topic = f"s{j % 2}", f"t{j}"
        runs.append(
            pd.DataFrame(
                {
                    "system": sys_,
                    "topic": topic,
                    "doc": [f"d{i}" for i in range(len(scores))],
                    "score": scores,
                }
            )
        )
        qrels.append(_qrels(labels, extra).assign(topic=topic))
    run, qrel = pd.concat(runs), pd.concat(qrels)
    for order, ms in (("expected", EXPECTED), ("best", RANGE), ("worst", RANGE)):
        allv = irf.evaluate(run, qrel, ms, order=order, complete=True)
        for j in range(len(cases)):
            sys_, topic = f"s{j % 2}", f"t{j}"
            one = (
                irf.evaluate(runs[j], qrels[j], ms, order=order)
                .sel(system=sys_, topic=topic)
                .values
            )
            np.testing.assert_allclose(
                allv.sel(system=sys_, topic=topic).values, one, rtol=1e-12, atol=1e-15
            )
        # the other system did not retrieve for these topics: complete=True scores an empty ranking
        assert np.isfinite(allv.values).all()


def test_depth_truncates_after_the_tie_order():
    run = pd.DataFrame(
        {"system": "s", "topic": "t", "doc": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]}
    )
    qrels = pd.DataFrame({"topic": "t", "doc": ["a"], "rel": [1]})
    # trec_eval -M 2 keeps c, b (docno descending) and drops a; a tie-aware order sees the
    # whole tie group first and the depth cuts after it (brute force over the 3! orders:
    # tests/test_hostile_inputs.py::test_tie_orders_see_the_tie_group_a_depth_cuts)
    assert irf.evaluate(run, qrels, "RR", depth=2).item() == 0.0
    assert irf.evaluate(run, qrels, "RR", order="best", depth=2).item() == 1.0
    assert irf.evaluate(run, qrels, "RR", order="worst", depth=2).item() == 0.0
    assert irf.evaluate(run, qrels, "RR", order="expected", depth=2).item() == pytest.approx(
        (1 + 1 / 2) / 3
    )
    assert irf.evaluate(run, qrels, "RR", order="expected").item() == pytest.approx(
        (1 + 1 / 2 + 1 / 3) / 3
    )


def _declared(kind: str) -> list[str]:
    """Every registered measure declaring ``expected=`` (kind "expected") or ``order_safe``
    (kind "safe"), with its default parameters, without and with ``@3``: a new
    measure's declaration is checked here without being listed by hand."""
    from irframe.measures.registry import REQUIRED, registered_measures

    out = []
    for name, d in sorted(registered_measures().items()):
        if d.needs or d.options or not d.system_local:
            continue  # diversity qrels, extra evaluate options, other systems' rankings
        if any(v is REQUIRED for v in d.defaults.values()):
            continue
        if (kind == "expected" and d.expected is None) or (kind == "safe" and not d.order_safe):
            continue
        if d.cutoff != "required":
            out.append(name)
        if d.cutoff != "none":
            out.append(f"{name}@3")
    return out


@SETTINGS
@given(tied_ranking())
def test_every_declared_tie_order_capability_holds(case):
    """Property, against brute force over every order of the tied documents: for each
    registered measure that declares it, order="expected" is the mean over tie orders and
    order="best" / "worst" the maximum / minimum (test_ties' own lists were kept by hand)."""
    scores, labels, extra = case
    run = pd.DataFrame(
        {"system": "s", "topic": "t", "doc": [f"d{i}" for i in range(len(scores))], "score": scores}
    )
    qrels = _qrels(labels, extra)
    expected, safe = _declared("expected"), _declared("safe")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        allv = _brute(scores, labels, extra, sorted(set(expected) | set(safe)))
        cols = sorted(set(expected) | set(safe))
        exp = irf.evaluate(run, qrels, expected, order="expected").sel(system="s", topic="t")
        best = irf.evaluate(run, qrels, safe, order="best").sel(system="s", topic="t")
        worst = irf.evaluate(run, qrels, safe, order="worst").sel(system="s", topic="t")
    for m in expected:
        want = allv[:, cols.index(m)].mean()
        assert exp.sel(measure=m).item() == pytest.approx(want, rel=1e-9, abs=1e-12), m
    for m in safe:
        col = allv[:, cols.index(m)]
        assert best.sel(measure=m).item() == pytest.approx(col.max(), rel=1e-12, abs=1e-12), m
        assert worst.sel(measure=m).item() == pytest.approx(col.min(), rel=1e-12, abs=1e-12), m
