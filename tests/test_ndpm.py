"""Yao's ndpm family (seed 004): worked examples, identities, brute-force pair counts.

Every expected value comes from outside the code under test: the paper's Examples 2-3,
its closed-form identities (Eq. 35, 48, 50-54, 57-58, 63-65), scipy's Kendall tau, or
an O(n^2) pair enumeration written here from the definitions (Eq. 13).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf
import irframe.measures.ndpm as nd
from irframe.ndpm import pair_counts, ranking_distance, weak_order_counts

ALL = ["dpm", "ndpm", "dpm_drf", "dpm_p", "dpm_r", "dpm_pa", "dpm_ra", "dpm_m", "dpm_e"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- brute force
def brute_counts(user, system):
    """Eq. 13 by enumerating unordered pairs; higher value = preferred / ranked higher."""
    c = {"C": 0, "C_plus": 0, "C_minus": 0, "C_u": 0, "C_s": 0, "T": 0}
    for i, j in itertools.combinations(range(len(user)), 2):
        su = np.sign(user[i] - user[j])
        ss = np.sign(system[i] - system[j])
        if su != 0:
            c["C"] += 1
            if ss == su:
                c["C_plus"] += 1
            elif ss == -su:
                c["C_minus"] += 1
            else:
                c["C_u"] += 1
        elif ss != 0:
            c["C_s"] += 1
        else:
            c["T"] += 1
    return c


def brute_measures(c):
    """The paper's formulas from the counts (Eq. 19, 23, 26, 45, 46, 55, 56, 61, 62)."""
    d = lambda a, b: a / b if b else 0.0  # noqa: E731  (documented 0/0 policy)
    dpm = 2 * c["C_minus"] + c["C_u"]
    s = c["C_plus"] + c["C_minus"] + c["C_s"]
    a = c["C"] + c["C_s"]
    inter = c["C_plus"] + c["C_s"]
    return {
        "dpm": dpm,
        "ndpm": d(dpm, 2 * c["C"]),
        "dpm_drf": 1 - 2 * d(dpm, 2 * c["C"]),
        "dpm_p": d(c["C_plus"], s),
        "dpm_r": d(c["C_plus"], c["C"]),
        "dpm_pa": d(inter, s),
        "dpm_ra": d(inter, a),
        "dpm_m": d(dpm, a + s - inter),
        "dpm_e": d(dpm, a + s),
    }


def brute_from_frames(runs, qrels, *, cutoff=None, rel=None, float32=True):
    """Per (system, topic): user/system levels built straight from the frames."""
    out = {}
    grades = qrels.groupby(["topic", "doc"])["rel"].max()
    for (s, t), g in runs.groupby(["system", "topic"]):
        judged = grades.loc[t]
        sc = g["score"].to_numpy(np.float32 if float32 else np.float64).astype(np.float64)
        order = sorted(
            range(len(g)), key=lambda i: (-sc[i], tuple(-b for b in g["doc"].iloc[i].encode()))
        )
        docs = [g["doc"].iloc[i] for i in order]
        scores = [sc[i] for i in order]
        if cutoff is not None:
            docs, scores = docs[:cutoff], scores[:cutoff]
        level = {}
        for d_, s_ in zip(docs, scores, strict=True):
            if d_ in judged.index:
                level[d_] = s_  # system level = score (ties = equal scores)
        bottom = min(level.values(), default=0.0) - 1.0
        D = list(judged.index)
        u = [judged[d_] if rel is None else float(judged[d_] >= rel) for d_ in D]
        v = [level.get(d_, bottom) for d_ in D]
        out[(s, t)] = brute_counts(np.array(u, float), np.array(v, float))
    return out


def random_collection(
    rng, *, n_sys=3, n_top=3, n_docs=30, max_grade=3, tie_prob=0.3, float_grades=False
):
    q, r = [], []
    for t in range(n_top):
        docs = [f"d{t}-{i:03d}" for i in range(n_docs)]
        judged = rng.random(n_docs) < 0.6
        for i in np.flatnonzero(judged):
            gr = rng.random() * 5 if float_grades else int(rng.integers(-1, max_grade + 1))
            q.append((str(t), docs[i], gr))
        for s in range(n_sys):
            k = int(rng.integers(0, n_docs))
            pick = rng.choice(n_docs, k, replace=False)
            score = rng.integers(0, 6, k).astype(float)
            score = np.where(rng.random(k) < tie_prob, score, score + rng.random(k))
            for i, sc in zip(pick, score, strict=True):
                r.append((f"s{s}", str(t), docs[i], sc))
    qrels = pd.DataFrame(q, columns=["topic", "doc", "rel"])
    runs = pd.DataFrame(r, columns=["system", "topic", "doc", "score"])
    return runs, qrels


# ----------------------------------------------------------------------------- worked examples
def test_example_2_distance_is_4():
    # d1 >1 d2 >1 {d3, d4};  d2 >2 {d1, d3} >2 d4   (levels: higher = ranked higher)
    assert ranking_distance([3, 2, 1, 1], [2, 3, 2, 1]) == 4
    assert ranking_distance([2, 3, 2, 1], [3, 2, 1, 1]) == 4  # Axiom 1.2 (symmetry)


def test_example_3_dpm_8_ndpm_half():
    qrels = pd.DataFrame(
        {"topic": "q", "doc": ["d1", "d2", "d3", "d4", "d5"], "rel": [2, 2, 1, 0, 0]}
    )
    run = pd.DataFrame(
        {
            "system": "s",
            "topic": "q",
            "doc": ["d1", "d5", "d2", "d4", "d3"],
            "score": [3.0, 3.0, 2.0, 2.0, 1.0],
        }
    )
    cube = irf.evaluate(run, qrels, ["dpm", "ndpm"])
    assert cube.sel(measure="dpm").item() == 8
    assert cube.sel(measure="ndpm").item() == 0.5
    # the closest acceptable ranking d1 >a d2 >a d3 >a d5 >a d4 is at Kemeny distance 8
    assert ranking_distance([5, 4, 3, 1, 2], [3, 2, 1, 2, 3]) == 8


def test_example_1_ordinal_invariance():
    # Example 1: u1 and u2 measure the same preference, so every measure agrees
    q1 = pd.DataFrame({"topic": "q", "doc": ["d1", "d2", "d3", "d4"], "rel": [0, 0, 1, 2]})
    q2 = q1.assign(rel=[-1, -1, 1, 4])
    run = pd.DataFrame(
        {"system": "s", "topic": "q", "doc": ["d2", "d4", "d1"], "score": [3.0, 2, 1]}
    )
    a = irf.evaluate(run, q1, ALL).values
    b = irf.evaluate(run, q2, ALL).values
    np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------- brute force agreement
weak_orders = st.integers(0, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-2, 4), min_size=n, max_size=n),
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
    )
)


@SETTINGS
@given(st.lists(weak_orders, min_size=1, max_size=5), st.booleans())
def test_weak_order_counts_equal_brute_force(sets, merge_path):
    user = np.concatenate([np.array(u, float) for u, _ in sets]) if sets else np.zeros(0)
    system = np.concatenate([np.array(s, float) for _, s in sets])
    offsets = np.concatenate([[0], np.cumsum([len(u) for u, _ in sets])])
    old = nd._LEVEL_LOOP_MAX
    nd._LEVEL_LOOP_MAX = -1 if merge_path else old
    try:
        got = weak_order_counts(user, system, offsets)
    finally:
        nd._LEVEL_LOOP_MAX = old
    for g, (u, s) in enumerate(sets):
        exp = brute_counts(np.array(u, float), np.array(s, float))
        for k in ("C", "C_plus", "C_minus", "C_u", "C_s", "T"):
            assert got[k][g] == exp[k], (k, u, s)


@pytest.mark.parametrize("merge_path", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_evaluate_equals_brute_force_from_frames(seed, merge_path, monkeypatch):
    if merge_path:
        monkeypatch.setattr(nd, "_LEVEL_LOOP_MAX", -1)
    rng = np.random.default_rng(seed)
    runs, qrels = random_collection(rng, float_grades=seed == 3)
    for cutoff, rel in [(None, None), (7, None), (None, 1)]:
        suffix = (f"(rel={rel})" if rel is not None else "") + (f"@{cutoff}" if cutoff else "")
        cube = irf.evaluate(runs, qrels, [m + suffix for m in ALL])
        brute = brute_from_frames(runs, qrels, cutoff=cutoff, rel=rel)
        for (s, t), c in brute.items():
            exp = brute_measures(c)
            for m in ALL:
                assert cube.sel(system=s, topic=t, measure=m + suffix).item() == pytest.approx(
                    exp[m], abs=1e-12
                ), (s, t, m, cutoff, rel)


def test_many_float_grades_use_merge_path_and_agree():
    rng = np.random.default_rng(11)
    runs, qrels = random_collection(rng, n_sys=2, n_top=2, n_docs=120, float_grades=True)
    assert qrels.rel.nunique() > nd._LEVEL_LOOP_MAX
    got = pair_counts(runs, qrels)
    brute = brute_from_frames(runs, qrels)
    for row in got.itertuples():
        exp = brute[(row.system, row.topic)]
        assert (row.C, row.C_plus, row.C_minus, row.C_u, row.C_s) == (
            exp["C"],
            exp["C_plus"],
            exp["C_minus"],
            exp["C_u"],
            exp["C_s"],
        )


# ----------------------------------------------------------------------------- identities of §5-6
@SETTINGS
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=2, max_size=40))
def test_two_level_ndpm_is_half_one_plus_fallout_minus_recall(cells):
    """Eq. 35: X = relevant, Y = retrieved; ndpm = (1 + F - R)/2; Eq. 57-58: p = P P', r = R R'."""
    rel = np.array([c[0] for c in cells])
    ret = np.array([c[1] for c in cells])
    if rel.all() or not rel.any():
        return  # R or F undefined
    docs = [f"d{i}" for i in range(len(cells))]
    qrels = pd.DataFrame({"topic": "q", "doc": docs, "rel": rel.astype(int)})
    run = pd.DataFrame(
        {
            "system": "s",
            "topic": "q",
            "doc": [d for d, r in zip(docs, ret, strict=True) if r],
            "score": 1.0,
        }
    )  # one tie class: a two-level system ranking
    if run.empty:
        run = pd.DataFrame({"system": "s", "topic": "q", "doc": ["unjudged"], "score": [1.0]})
    cube = irf.evaluate(run, qrels, ["ndpm", "dpm_p", "dpm_r", "dpm_drf"]).isel(system=0, topic=0)
    X, Y = rel, ret
    R = (X & Y).sum() / X.sum()
    F = (~X & Y).sum() / (~X).sum()
    assert cube.sel(measure="ndpm").item() == pytest.approx((1 + F - R) / 2, abs=1e-12)
    assert cube.sel(measure="dpm_drf").item() == pytest.approx(R - F, abs=1e-12)  # Goffman-Newill
    P = (X & Y).sum() / Y.sum() if Y.any() else 0.0
    Pn = (~X & ~Y).sum() / (~Y).sum() if (~Y).any() else 0.0
    Rn = (~X & ~Y).sum() / (~X).sum()
    assert cube.sel(measure="dpm_p").item() == pytest.approx(
        P * Pn if Y.any() and (~Y).any() else 0.0, abs=1e-12
    )
    assert cube.sel(measure="dpm_r").item() == pytest.approx(R * Rn, abs=1e-12)


@SETTINGS
@given(st.lists(st.integers(0, 3), min_size=2, max_size=40), st.randoms(use_true_random=False))
def test_linear_system_order_ndpm_is_one_minus_rnorm(grades, rnd):
    """Eq. 50-51 (two-level user) and Eq. 52-54 (any user weak order)."""
    n_docs = len(grades)
    perm = list(range(n_docs))
    rnd.shuffle(perm)
    docs = [f"d{i}" for i in range(n_docs)]
    qrels = pd.DataFrame({"topic": "q", "doc": docs, "rel": grades})
    # every judged document retrieved with a distinct score, plus unjudged ones in between
    rows = [(docs[i], float(2 * n_docs - 2 * pos)) for pos, i in enumerate(perm)]
    rows += [(f"u{j}", float(2 * n_docs - 2 * j - 1)) for j in range(0, n_docs, 3)]
    run = pd.DataFrame(rows, columns=["doc", "score"]).assign(system="s", topic="q")
    cube = irf.evaluate(run, qrels, ["ndpm", "ndpm(rel=1)"]).isel(system=0, topic=0)
    g = np.array(grades)
    ranked = g[perm]  # grades in system order
    # generalized R_norm (Bollmann et al., Eq. 52) from enumerated pairs
    c = brute_counts(g[perm].astype(float), -np.arange(n_docs, dtype=float))
    if c["C"]:
        rnorm_g = 0.5 * (1 + (c["C_plus"] - c["C_minus"]) / c["C"])
        assert cube.sel(measure="ndpm").item() == pytest.approx(1 - rnorm_g, abs=1e-12)
    # Rocchio's R_norm (Eq. 50) for relevant = grade >= 1
    relv = ranked >= 1
    n, N = int(relv.sum()), n_docs
    if 0 < n < N:
        li = np.flatnonzero(relv) + 1  # levels of the relevant documents
        rnorm = 1 - (li - np.arange(1, n + 1)).sum() / (n * (N - n))
        assert cube.sel(measure="ndpm(rel=1)").item() == pytest.approx(1 - rnorm, abs=1e-12)


@SETTINGS
@given(st.integers(2, 40), st.randoms(use_true_random=False))
def test_linear_both_e_is_half_one_minus_kendall_tau(n_docs, rnd):
    """Eq. 48-49: both rankings linear, e = (1 - tau)/2 with Kendall's tau (scipy)."""
    grades = list(range(n_docs))
    rnd.shuffle(grades)
    perm = list(range(n_docs))
    rnd.shuffle(perm)
    docs = [f"d{i}" for i in range(n_docs)]
    qrels = pd.DataFrame({"topic": "q", "doc": docs, "rel": grades})
    run = pd.DataFrame(
        {
            "system": "s",
            "topic": "q",
            "doc": [docs[i] for i in perm],
            "score": np.arange(n_docs, 0, -1, dtype=float),
        }
    )
    cube = irf.evaluate(run, qrels, ["dpm_e", "dpm_drf", "ndpm"]).isel(system=0, topic=0)
    sys_pos = np.empty(n_docs)
    sys_pos[perm] = np.arange(n_docs)
    tau = scipy.stats.kendalltau(grades, -sys_pos).statistic
    assert cube.sel(measure="dpm_e").item() == pytest.approx((1 - tau) / 2, abs=1e-12)
    # tau is the distance reduction factor for linear orders; here ndpm = e
    assert cube.sel(measure="dpm_drf").item() == pytest.approx(tau, abs=1e-12)
    assert cube.sel(measure="ndpm").item() == pytest.approx((1 - tau) / 2, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_composite_forms_eq_63_to_65(seed):
    rng = np.random.default_rng(100 + seed)
    runs, qrels = random_collection(rng, n_sys=4, n_top=4, n_docs=40)
    cnt = pair_counts(runs, qrels)
    ok = (cnt.dpm_pa > 0) & (cnt.dpm_ra > 0)
    c = cnt[ok]
    inv = 1 / c.dpm_pa + 1 / c.dpm_ra
    np.testing.assert_allclose(c.dpm_m, 1 - 1 / (inv - 1), atol=1e-12)  # Eq. 63
    np.testing.assert_allclose(c.dpm_e, 1 - 2 / inv, atol=1e-12)  # Eq. 64
    A = c.C + c.C_s
    S = c.C_plus + c.C_minus + c.C_s
    np.testing.assert_allclose(c.ndpm, (1 - 2 / inv) * (A + S) / (2 * c.C), atol=1e-12)  # Eq. 65
    # Eq. 41: |>u| = C+ + C- + Cu
    assert (cnt.C == cnt.C_plus + cnt.C_minus + cnt.C_u).all()
    assert len(c) > 5


# ----------------------------------------------------------------------------- conventions
def test_empty_ranking_is_random_retrieval():
    """Eq. 25: the one-level ranking has dpm = |>u| = C, ndpm = 1/2, drf = 0."""
    qrels = pd.DataFrame(
        {"topic": ["a"] * 4 + ["b"] * 3, "doc": list("wxyzwxy"), "rel": [2, 1, 1, 0, 1, 0, 0]}
    )
    run = pd.DataFrame({"system": "s", "topic": "a", "doc": ["w"], "score": [1.0]})
    cube = irf.evaluate(run, qrels, ["dpm", "ndpm", "dpm_drf"], complete=True).sel(
        system="s", topic="b"
    )
    assert cube.values.tolist() == [2.0, 0.5, 0.0]


def test_unjudged_documents_take_no_part_and_float32_ties():
    qrels = pd.DataFrame({"topic": "q", "doc": ["a", "b", "c"], "rel": [0, 1, 2]})
    base = pd.DataFrame(
        {"system": "s", "topic": "q", "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]}
    )
    noisy = pd.concat(
        [base, pd.DataFrame({"system": "s", "topic": "q", "doc": ["x", "y"], "score": [5.0, 1.5]})]
    )
    assert (
        irf.evaluate(base, qrels, ALL).values.tolist()
        == irf.evaluate(noisy, qrels, ALL).values.tolist()
    )
    # scores equal in float32 tie under trec_eval order, differ under trec_eval10
    close = pd.DataFrame(
        {"system": "s", "topic": "q", "doc": ["a", "c"], "score": [1.0 + 1e-12, 1.0]}
    )
    tied = irf.evaluate(close, qrels, "dpm").item()
    strict = irf.evaluate(close, qrels, "dpm", order="trec_eval10").item()
    # tied: (a,b) contradicting, (a,c) compatible, (b,c) agreeing -> 3; strict a > c: 4
    b_tied = brute_counts(np.array([0.0, 1, 2]), np.array([1.0, 0, 1]))
    b_strict = brute_counts(np.array([0.0, 1, 2]), np.array([2.0, 0, 1]))
    assert tied == 2 * b_tied["C_minus"] + b_tied["C_u"]
    assert strict == 2 * b_strict["C_minus"] + b_strict["C_u"]
    assert (tied, strict) == (3.0, 4.0)


def test_no_preference_topic_follows_zero_over_zero_policy():
    qrels = pd.DataFrame({"topic": "q", "doc": ["a", "b"], "rel": [1, 1]})
    run = pd.DataFrame({"system": "s", "topic": "q", "doc": ["b", "x"], "score": [2.0, 1.0]})
    v = irf.evaluate(run, qrels, ALL).isel(system=0, topic=0).to_series()
    assert not v.isna().any()
    assert v["dpm"] == 0 and v["ndpm"] == 0 and v["dpm_drf"] == 1


def test_bad_rel_parameter_and_aliases():
    with pytest.raises(ValueError, match="rel"):
        irf.parse_measure("ndpm(rel=abc)")
    assert irf.parse_measure("NDPM").name == "ndpm"
    assert irf.parse_measure("DRF@10").name == "dpm_drf"


def test_caller_frames_unchanged():
    rng = np.random.default_rng(5)
    runs, qrels = random_collection(rng)
    r0, q0 = runs.copy(), qrels.copy()
    irf.evaluate(runs, qrels, ALL)
    pd.testing.assert_frame_equal(runs, r0)
    pd.testing.assert_frame_equal(qrels, q0)
