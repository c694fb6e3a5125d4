"""Agreement between judgment sets, checked against outside references:
scipy's kendalltau (tau-b), a brute-force tau-AP written from Yilmaz, Aslam & Robertson
(SIGIR 2008), a brute-force extrapolated RBO written from Webber, Moffat & Zobel (TOIS 2010,
Eq. 32), scikit-learn's cohen_kappa_score and the `krippendorff` package.

(The `rbo` package pins numpy < 2, which leaves pyarrow >= 21 unimportable in a fresh install of
the test extra: RBO is also checked against 105 outputs of `rbo` 0.1.3 generated once in a separate
environment and kept, with the script, in tests/data/rbo.)"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from conftest import reference_module  # skips, or fails with CI=true, when absent
from hypothesis import given, settings
from hypothesis import strategies as hst
from scipy import stats as st

import irframe as irf
from irframe import meta
from irframe import stats as irs

sklearn_metrics = reference_module("sklearn.metrics")
krippendorff = reference_module("krippendorff")


def rbo_ext_reference(ox, oy, p):
    """RBO_ext of two equal-length orderings (Webber, Moffat & Zobel 2010, Eq. 32), by brute force:
    (X_k / k) p^k + (1 - p) / p * sum_{d=1..k} (X_d / d) p^d, X_d = |top-d of ox & top-d of oy|."""
    k = len(ox)
    assert len(oy) == k
    agree = [len(set(ox[:d]) & set(oy[:d])) / d for d in range(1, k + 1)]
    return agree[-1] * p**k + (1 - p) / p * sum(a * p**d for d, a in enumerate(agree, 1))


labels = hst.lists(hst.integers(0, 3), min_size=4, max_size=40)


@settings(max_examples=60, deadline=None)
@given(hst.lists(hst.tuples(hst.integers(0, 4), hst.integers(0, 4)), min_size=3, max_size=25))
def test_tau_b_matches_scipy(pairs):
    x, y = np.array(pairs, float).T
    ref = st.kendalltau(x, y).statistic
    got = meta.tau_b(x, y)
    assert (np.isnan(ref) and np.isnan(got)) or got == pytest.approx(ref)


def brute_tau_ap(order_x, order_y):
    """tau_AP = 2/(n-1) sum_{i=2..n} C(i)/(i-1) - 1 for two tie-free orderings (lists of items)."""
    n = len(order_x)
    rank_y = {item: r for r, item in enumerate(order_y)}
    total = 0.0
    for i in range(1, n):
        c = sum(1 for j in range(i) if rank_y[order_x[j]] < rank_y[order_x[i]])
        total += c / i
    return 2 * total / (n - 1) - 1


def scores_from_order(order, items):
    return np.array([len(order) - order.index(it) for it in items], float)


@settings(max_examples=60, deadline=None)
@given(hst.permutations(list(range(8))), hst.permutations(list(range(8))))
def test_tau_ap_matches_brute_force(px, py):
    items = list(range(8))
    x, y = scores_from_order(px, items), scores_from_order(py, items)
    assert meta.tau_ap(x, y) == pytest.approx(brute_tau_ap(px, py))


def brute_tau_ap_ties(x, y):
    """tau_AP with ties by enumeration: every order of x's tie groups is walked with the
    formula of Yilmaz et al. (a pair tied in x or in y counts 1/2), and the results averaged."""
    x, y = list(map(float, x)), list(map(float, y))
    groups = [[i for i in range(len(x)) if x[i] == v] for v in sorted(set(x), reverse=True)]
    values = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        seq = [i for g in orders for i in g]
        total = 0.0
        for pos in range(1, len(seq)):
            e = seq[pos]
            c = sum(
                0.5 if (x[f] == x[e] or y[f] == y[e]) else float(y[f] > y[e]) for f in seq[:pos]
            )
            total += c / pos
        values.append(2 * total / (len(seq) - 1) - 1)
    return sum(values) / len(values)


@settings(max_examples=80, deadline=None)
@given(
    hst.lists(hst.tuples(hst.integers(0, 2), hst.integers(0, 3)), min_size=2, max_size=7),
    hst.randoms(),
)
def test_tau_ap_with_ties_is_the_mean_over_tie_orders_and_ignores_input_order(pairs, rnd):
    # tau_AP used to walk tied items in their input order, so reordering the systems of a
    # cube changed it (x = [2, 1, 2, 1]: 0.11 or -0.11).  Found by differential fuzzing.
    x, y = np.array(pairs, float).T
    assert meta.tau_ap(x, y) == pytest.approx(brute_tau_ap_ties(x, y), abs=1e-12)
    perm = list(range(len(x)))
    rnd.shuffle(perm)
    assert meta.tau_ap(x[perm], y[perm]) == pytest.approx(meta.tau_ap(x, y), abs=1e-12)


def test_tau_ap_worked_examples_yilmaz_2008():
    # Yilmaz et al. motivate tau_AP with a single swap: at the top it costs more than at the
    # bottom, while Kendall's tau treats both alike.  By the formula, n = 4:
    # swap at the top: C = (0, 2, 3) -> 2/3 (0 + 1 + 1) - 1 = 1/3;
    # swap at the bottom: C = (1, 2, 2) -> 2/3 (1 + 1 + 2/3) - 1 = 7/9.
    truth = np.array([4.0, 3, 2, 1])
    assert meta.tau_ap([3, 4, 2, 1], truth) == pytest.approx(1 / 3)
    assert meta.tau_ap([4, 3, 1, 2], truth) == pytest.approx(7 / 9)
    # when the ranking is identical or reversed, tau_AP equals tau (= 1 / -1)
    assert meta.tau_ap(truth, truth) == pytest.approx(1) and meta.tau_ap(
        -truth, truth
    ) == pytest.approx(-1)


@settings(max_examples=60, deadline=None)
@given(
    hst.permutations(list("abcdefghij")),
    hst.permutations(list("abcdefghij")),
    hst.sampled_from([0.5, 0.8, 0.9, 0.95]),
)
def test_rbo_matches_webber_eq32(px, py, p):
    items = sorted(px)
    x, y = scores_from_order(px, items), scores_from_order(py, items)
    ref = rbo_ext_reference(list(px), list(py), p)
    assert meta.rbo(x, y, p=p) == pytest.approx(ref)


def test_rbo_matches_the_rbo_package():
    """Outside reference: the ``rbo`` package 0.1.3 (``RankingSimilarity.rbo_ext``), its outputs
    kept in tests/data/rbo with the script that made them (the package pins numpy < 2 and cannot be
    installed beside the test extra).  105 pairs of orderings, 2 to 200 items, p from 0.5 to 0.98."""
    import json
    from pathlib import Path

    cases = json.loads(
        (Path(__file__).parent / "data" / "rbo" / "rbo_0.1.3_rbo_ext.json").read_text()
    )["cases"]
    assert len(cases) == 105
    for case in cases:
        items = sorted(case["x"])
        x, y = scores_from_order(case["x"], items), scores_from_order(case["y"], items)
        assert meta.rbo(x, y, p=case["p"]) == pytest.approx(
            case["rbo_ext"], rel=1e-12, abs=1e-12
        ), case


def test_rbo_long_orderings_agreeing_on_top_ten():
    # Two orderings of 200 items that agree on the top 10 and are unrelated below: the
    # first 10 depths alone contribute (1-p)/p sum_{d<=10} p^d = 1 - p^10 (Webber et al. 2010, Eq. 7).
    rng = np.random.default_rng(0)
    n = 200
    tail_x, tail_y = rng.permutation(np.arange(10, n)), rng.permutation(np.arange(10, n))
    ox, oy = list(range(10)) + list(tail_x), list(range(10)) + list(tail_y)
    x, y = scores_from_order(ox, list(range(n))), scores_from_order(oy, list(range(n)))
    got = meta.rbo(x, y, p=0.9)
    assert 1 - 0.9**10 < got < 1
    assert got == pytest.approx(rbo_ext_reference(ox, oy, 0.9))


@settings(max_examples=60, deadline=None)
@given(hst.data())
def test_kappa_matches_sklearn(data):
    a = data.draw(labels)
    b = data.draw(hst.lists(hst.integers(0, 3), min_size=len(a), max_size=len(a)))
    for w in (None, "linear", "quadratic"):
        with np.errstate(all="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = sklearn_metrics.cohen_kappa_score(a, b, weights=w)
        got = meta.cohen_kappa(a, b, weights=w)
        assert (np.isnan(ref) and np.isnan(got)) or got == pytest.approx(ref)


@settings(max_examples=60, deadline=None)
@given(hst.data())
def test_krippendorff_alpha_matches_package(data):
    a = data.draw(labels)
    b = data.draw(hst.lists(hst.integers(0, 3), min_size=len(a), max_size=len(a)))
    if len(set(a) | set(b)) < 2:
        return  # the package rejects a single value; ours returns NaN
    for level in ("nominal", "ordinal", "interval", "ratio"):
        ref = krippendorff.alpha(
            reliability_data=np.array([a, b], float), level_of_measurement=level
        )
        got = meta.krippendorff_alpha(a, b, level=level)
        assert (np.isnan(ref) and np.isnan(got)) or got == pytest.approx(ref, abs=1e-9)


def make_sets():
    rng = np.random.default_rng(1)
    docs = [f"d{i}" for i in range(30)]
    a = pd.DataFrame(
        {"topic": np.repeat(["1", "2"], 30), "doc": docs * 2, "rel": rng.integers(0, 3, 60)}
    )
    b = a.copy()
    flip = rng.random(60) < 0.3
    b.loc[flip, "rel"] = rng.integers(0, 3, flip.sum())
    b = b.iloc[5:]  # b did not judge five documents
    extra = pd.DataFrame({"topic": "2", "doc": ["x1", "x2"], "rel": [1, 0]})
    return a, pd.concat([b, extra], ignore_index=True)


def test_label_agreement_and_confusion_against_sklearn():
    a, b = make_sets()
    tab = meta.label_agreement({"nist": a, "llm": b})
    row = tab.loc[("nist", "llm")]
    m = a.merge(b, on=["topic", "doc"], suffixes=("_a", "_b"))
    assert row["n_common"] == len(m) == 55 and row["only_qrels"] == 5 and row["only_other"] == 2
    assert row["kappa"] == pytest.approx(sklearn_metrics.cohen_kappa_score(m.rel_a, m.rel_b))
    assert row["kappa_quadratic"] == pytest.approx(
        sklearn_metrics.cohen_kappa_score(m.rel_a, m.rel_b, weights="quadratic")
    )
    assert row["alpha"] == pytest.approx(
        krippendorff.alpha(
            reliability_data=np.array([m.rel_a, m.rel_b], float), level_of_measurement="ordinal"
        )
    )
    binary = meta.label_agreement({"nist": a, "llm": b}, rel_level=1).loc[("nist", "llm")]
    assert binary["kappa"] == pytest.approx(
        sklearn_metrics.cohen_kappa_score(m.rel_a >= 1, m.rel_b >= 1)
    )
    conf = meta.label_confusion(a, b)
    np.testing.assert_array_equal(conf.values, sklearn_metrics.confusion_matrix(m.rel_a, m.rel_b))


def test_label_confusion_is_square_over_both_sets_labels():
    # A grade only one set uses still gets its row and column, so the diagonal counts
    # agreements as in sklearn's confusion_matrix; it was a cross-tabulation whose rows and
    # columns could hold different grades.  Found by differential fuzzing.
    a = pd.DataFrame({"topic": "1", "doc": list("uvwx"), "rel": [0, 3, 3, 1]})
    b = pd.DataFrame({"topic": "1", "doc": list("uvwx"), "rel": [2, 3, 2, 2]})
    conf = meta.label_confusion(a, b)
    labels = [0, 1, 2, 3]
    np.testing.assert_array_equal(
        conf.values, sklearn_metrics.confusion_matrix(a.rel, b.rel, labels=labels)
    )
    assert list(conf.index) == labels and list(conf.columns) == labels
    binary = meta.label_confusion(a, b.assign(rel=[0, 0, 0, 0]), rel_level=1)
    np.testing.assert_array_equal(
        binary.values,
        sklearn_metrics.confusion_matrix(a.rel >= 1, [False] * 4, labels=[False, True]),
    )


@pytest.fixture(scope="module")
def sample():
    qrels, runs = irf.datasets.trec_eval_sample()
    return qrels, runs


def test_evaluate_with_qrels_mapping_equals_separate_runs(sample):
    qrels, runs = sample
    rng = np.random.default_rng(0)
    noisy = qrels.assign(
        rel=np.where(rng.random(len(qrels)) < 0.2, 1 - qrels.rel.clip(0, 1), qrels.rel)
    )
    partial = qrels[qrels.topic != qrels.topic.iloc[0]]
    sets = {"nist": qrels, "noisy": noisy, "partial": partial}
    cube = irf.evaluate(runs, sets, ["AP", "P@10"])
    assert cube.dims == ("system", "topic", "measure", "qrels")
    for name, q in sets.items():
        one = irf.evaluate(runs, q, ["AP", "P@10"])
        got = cube.sel(qrels=name).sel(topic=one.topic)
        np.testing.assert_allclose(got.values, one.values)
    assert cube.sel(qrels="partial", topic=qrels.topic.iloc[0]).isnull().all()
    # the accessor and the per-family functions take the mapping too
    via = runs.ir.metric(["AP", "P@10"], qrels=sets)
    xr.testing.assert_allclose(via, cube)
    lex = runs.ir.lexirecall(qrels=sets)
    assert "qrels" in lex.dims


def test_judgments_common_keeps_only_shared_documents(sample):
    qrels, runs = sample
    half = qrels.iloc[::2]
    common = irf.evaluate(runs, {"a": qrels, "b": half}, "P@10", judgments="common")
    # under "common" both sets judge only `half`'s documents, with their own labels
    np.testing.assert_allclose(
        common.sel(qrels="a").values, irf.evaluate(runs, half, "P@10").values
    )
    each = irf.evaluate(runs, {"a": qrels, "b": half}, "P@10")
    np.testing.assert_allclose(each.sel(qrels="a").values, irf.evaluate(runs, qrels, "P@10").values)
    with pytest.raises(ValueError, match="judgments"):
        irf.evaluate(runs, {"a": qrels}, "P@10", judgments="both")


def robust_like_cube(seed=0, S=8, T=30):
    rng = np.random.default_rng(seed)
    base = rng.uniform(size=(S, T)) * 0.3 + np.linspace(0, 0.3, S)[:, None]
    other = base + rng.normal(scale=0.05, size=(S, T))
    x = np.stack([base, other], axis=-1)[:, :, None, :]
    return xr.DataArray(
        x,
        dims=("system", "topic", "measure", "qrels"),
        coords={
            "system": [f"s{i}" for i in range(S)],
            "topic": [f"t{t}" for t in range(T)],
            "measure": ["AP"],
            "qrels": ["nist", "llm"],
        },
    )


def test_qrels_agreement_table_against_scipy_and_rbo():
    cube = robust_like_cube()
    tab = meta.qrels_agreement(cube, reference="nist")
    row = tab.loc[("AP", "llm", "nist")]
    m = cube.mean("topic").sel(measure="AP")
    x, y = m.sel(qrels="llm").values, m.sel(qrels="nist").values
    assert row["tau"] == pytest.approx(st.kendalltau(x, y).statistic)
    ox = [f"s{i}" for i in np.argsort(-x)]
    oy = [f"s{i}" for i in np.argsort(-y)]
    assert row["tau_ap"] == pytest.approx(brute_tau_ap(ox, oy))
    assert row["rbo"] == pytest.approx(rbo_ext_reference(ox, oy, 0.9))
    assert row["n_systems"] == 8 and row["n_topics"] == 30


def test_decision_flips():
    cube = robust_like_cube()
    res = irs.compare(cube, correction=None)
    flips = meta.decision_flips(res, all_pairs=True)
    assert len(flips) == 8 * 7 // 2
    sig = res.significant.sel(measure="AP")
    sign = np.sign(res.effect.sel(measure="AP"))
    for (s, o, _), row in flips.iterrows():
        for q in ("nist", "llm"):
            expect = (
                int(sign.sel(system=s, other=o, qrels=q))
                if bool(sig.sel(system=s, other=o, qrels=q))
                else 0
            )
            assert row[q] == expect
        assert row["flipped"] == (row["nist"] != row["llm"])
    only = meta.decision_flips(res)
    assert only["flipped"].all() and len(only) == int(flips["flipped"].sum())
    assert only.attrs["flip_rate"] == pytest.approx(flips["flipped"].mean())


def test_qrels_agreement_does_not_depend_on_the_order_of_the_systems():
    """Two systems tie on their mean under one judgment set: rbo broke the tie by the
    cube's order (1.0 one way, 0.5 the other); now by name, whatever the cube's order."""
    x = np.array([[0.5, 0.5], [0.5, 0.5], [0.1, 0.1]])  # a and b tie under the first set
    y = np.array([[0.6, 0.6], [0.4, 0.4], [0.1, 0.1]])
    cube = xr.concat(
        [xr.DataArray(x, dims=("system", "topic")), xr.DataArray(y, dims=("system", "topic"))],
        dim="qrels",
    ).assign_coords(qrels=["first", "second"], system=["a", "b", "c"], topic=["t1", "t2"])
    forward = meta.qrels_agreement(cube, p=0.5)
    backward = meta.qrels_agreement(cube.isel(system=[1, 0, 2]), p=0.5)
    pd.testing.assert_frame_equal(forward, backward)
    assert forward["rbo"].item() == irf.agreement.rbo([0.5, 0.5, 0.1], [0.6, 0.4, 0.1], p=0.5)
