"""Rarity ("innovation") metrics of seed 003.

Expected values come from outside the code under test: a direct re-derivation of the
paper's Eq. 1-4 written here with plain Python loops over sorted rankings (following the
conventions of the authors' procedure: S_d counts systems retrieving d in their top k,
S = number of systems, P divides by k, AP by all relevant documents), the identity
α = 0 → P@k / AP, closed-form bounds, and pytrec_eval for α = 0.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from conftest import reference_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe.align import align
from irframe.rarity import rare_finds, rarity

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- brute force
def ranked(runs, float32=True):
    """{(system, topic): [doc, ...]} sorted by score desc, then docno desc (trec_eval)."""
    out = {}
    for (s, t), g in runs.groupby(["system", "topic"]):
        rows = list(zip(g["doc"], g["score"], strict=True))
        rows.sort(key=lambda r: r[0].encode(), reverse=True)  # docno descending
        conv = (lambda x: float(np.float32(x))) if float32 else float
        rows.sort(key=lambda r: -conv(r[1]))  # stable: score descending
        out[(s, t)] = [d for d, _ in rows]
    return out


def relevant_sets(qrels, level=1):
    rel = {}
    for t, d, r in zip(qrels["topic"], qrels["doc"], qrels["rel"], strict=True):
        rel.setdefault(t, set())
        if int(r) >= level and int(r) >= 0:  # trec_eval: truncated grade
            rel[t].add(d)
    return rel


def brute_sd(rank, rel, k):
    cnt = Counter()
    for (_s, t), docs in rank.items():
        for d in docs[:k] if k else docs:
            if d in rel.get(t, ()):
                cnt[(t, d)] += 1
    return cnt


def brute_scores(runs, qrels, alpha, k, *, level=1, reference=None, normalized=False):
    """Eq. 1 and Eq. 3 (or Eq. 4 with R' and its AP analogue) per (system, topic)."""
    rank = ranked(runs)
    rel = relevant_sets(qrels, level)
    ref_rank = rank if reference is None else ranked(reference)
    S = len(set(runs["system"])) if reference is None else len(set(reference["system"]))
    sd = brute_sd(ref_rank, rel, k)

    def w(t, d):
        s_d = sd[(t, d)]
        if not normalized:
            return 1 + alpha * (1 - s_d / S)
        r_norm = 1.0 if S == 1 else min(1.0, 1 - (s_d - 1) / (S - 1))
        return (1 - alpha) + alpha * r_norm

    P, AP = {}, {}
    for (s, t), docs in rank.items():
        top = docs[:k] if k else docs
        p_sum, cum, ap = 0.0, 0.0, 0.0
        for i, d in enumerate(top, start=1):
            if d in rel[t]:
                cum += w(t, d)
                ap += cum / i
        p_sum = cum
        P[(s, t)] = p_sum / k if k else np.nan
        AP[(s, t)] = ap / len(rel[t]) if rel[t] else 0.0
    return P, AP


def random_collection(rng, *, n_sys=4, n_top=3, n_docs=40, depth=25, ties=True):
    q, r = [], []
    for t in range(n_top):
        docs = [f"D{t}-{i:03d}" for i in range(n_docs)]
        grade = rng.integers(-1, 4, n_docs)
        judged = rng.random(n_docs) < 0.7
        q += [(str(t), docs[i], int(grade[i])) for i in np.flatnonzero(judged)]
        for s in range(n_sys):
            m = int(rng.integers(1, depth + 1))
            pick = rng.choice(n_docs, m, replace=False)
            sc = rng.integers(0, 8, m) + (0 if ties else rng.random(m))
            r += [(f"s{s}", str(t), docs[i], float(x)) for i, x in zip(pick, sc, strict=True)]
    return (
        pd.DataFrame(r, columns=["system", "topic", "doc", "score"]),
        pd.DataFrame(q, columns=["topic", "doc", "rel"]),
    )


# ----------------------------------------------------------------------------- rarity table
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [5, 20, None])
def test_rarity_table_equals_brute_force(seed, k):
    runs, qrels = random_collection(np.random.default_rng(seed))
    got = rarity(runs, qrels, k=k)
    rel = relevant_sets(qrels)
    sd = brute_sd(ranked(runs), rel, k)
    S = runs.system.nunique()
    exp = sorted((t, d, sd[(t, d)]) for t in rel for d in rel[t] if t in set(runs.topic))
    assert list(zip(got.topic, got.doc, got.S_d, strict=True)) == exp
    assert (got.S == S).all()
    np.testing.assert_allclose(got.rarity, [1 - x / S for _, _, x in exp])
    np.testing.assert_allclose(
        got.rarity_norm, [min(1.0, 1 - (x - 1) / (S - 1)) for _, _, x in exp]
    )
    assert list(got.columns[:5]) == ["topic", "doc", "rel", "S_d", "S"]


def test_accessor_and_unretrieved_relevant_document():
    qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b", "z"], "rel": [1, 2, 1]})
    runs = pd.DataFrame(
        {"system": ["s1", "s2", "s2"], "topic": "1", "doc": ["a", "a", "b"], "score": [1.0, 2, 1]}
    )
    df = runs.ir.rarity(qrels=qrels, k=10)
    assert {"topic", "doc", "S_d", "S", "rarity"} <= set(df.columns)
    z = df.set_index("doc").loc["z"]
    assert (z.S_d, z.rarity, z.rarity_norm) == (0, 1.0, 1.0)
    # bounds of Eq. 2 for retrieved documents: R in [0, (S-1)/S]
    assert df.set_index("doc").loc["b"].rarity == pytest.approx(1 / 2)


# ----------------------------------------------------------------------------- measures vs brute force
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.5])
def test_measures_equal_brute_force(seed, alpha):
    runs, qrels = random_collection(np.random.default_rng(10 + seed))
    k = 10
    cube = irf.evaluate(
        runs,
        qrels,
        [f"P_rare(alpha={alpha})@{k}", f"AP_rare(alpha={alpha})@{k}", f"AP_rare(alpha={alpha})"],
    )
    P, AP = brute_scores(runs, qrels, alpha, k)
    _, AP_full = brute_scores(runs, qrels, alpha, None)
    for (s, t), v in P.items():
        c = cube.sel(system=s, topic=t)
        assert c.sel(measure=f"P_rare(alpha={alpha})@{k}").item() == pytest.approx(v, abs=1e-12)
        assert c.sel(measure=f"AP_rare(alpha={alpha})@{k}").item() == pytest.approx(
            AP[(s, t)], abs=1e-12
        )
        assert c.sel(measure=f"AP_rare(alpha={alpha})").item() == pytest.approx(
            AP_full[(s, t)], abs=1e-12
        )


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
def test_normalized_measures_equal_brute_force(alpha):
    runs, qrels = random_collection(np.random.default_rng(7))
    cube = irf.evaluate(
        runs, qrels, [f"P_rare_norm(alpha={alpha})@10", f"AP_rare_norm(alpha={alpha})@10"]
    )
    P, AP = brute_scores(runs, qrels, alpha, 10, normalized=True)
    for (s, t), v in P.items():
        assert cube.sel(
            system=s, topic=t, measure=f"P_rare_norm(alpha={alpha})@10"
        ).item() == pytest.approx(v, abs=1e-12)
        assert cube.sel(
            system=s, topic=t, measure=f"AP_rare_norm(alpha={alpha})@10"
        ).item() == pytest.approx(AP[(s, t)], abs=1e-12)


def test_rel_parameter_and_rel_level():
    runs, qrels = random_collection(np.random.default_rng(3))
    cube = irf.evaluate(
        runs, qrels, ["P_rare(alpha=1,rel=2)@10", "AP_rare(alpha=1)@10"], rel_level=3
    )
    P2, _ = brute_scores(runs, qrels, 1.0, 10, level=2)
    _, AP3 = brute_scores(runs, qrels, 1.0, 10, level=3)
    for (s, t), v in P2.items():
        assert cube.sel(
            system=s, topic=t, measure="P_rare(alpha=1,rel=2)@10"
        ).item() == pytest.approx(v)
        assert cube.sel(system=s, topic=t, measure="AP_rare(alpha=1)@10").item() == pytest.approx(
            AP3[(s, t)]
        )


# ----------------------------------------------------------------------------- identities and bounds
collections = st.tuples(
    st.integers(0, 2**32 - 1),
    st.integers(1, 6),
    st.integers(1, 4),
    st.integers(1, 30),
    st.booleans(),
)


@SETTINGS
@given(collections, st.integers(1, 30))
def test_alpha_zero_is_p_and_ap_exactly(params, k):
    seed, n_sys, n_top, depth, ties = params
    runs, qrels = random_collection(
        np.random.default_rng(seed), n_sys=n_sys, n_top=n_top, depth=depth, ties=ties
    )
    ms = [
        f"P_rare(alpha=0)@{k}",
        f"P@{k}",
        f"AP_rare(alpha=0)@{k}",
        f"AP@{k}",
        "AP_rare(alpha=0)",
        "AP",
        f"P_rare_norm(alpha=0)@{k}",
        f"AP_rare_norm(alpha=0)@{k}",
    ]
    c = irf.evaluate(runs, qrels, ms)
    v = {m: c.sel(measure=m).values for m in ms}
    np.testing.assert_array_equal(v[f"P_rare(alpha=0)@{k}"], v[f"P@{k}"])
    np.testing.assert_array_equal(v[f"AP_rare(alpha=0)@{k}"], v[f"AP@{k}"])
    np.testing.assert_array_equal(v["AP_rare(alpha=0)"], v["AP"])
    np.testing.assert_array_equal(v[f"P_rare_norm(alpha=0)@{k}"], v[f"P@{k}"])
    np.testing.assert_array_equal(v[f"AP_rare_norm(alpha=0)@{k}"], v[f"AP@{k}"])


@SETTINGS
@given(collections, st.integers(1, 30), st.floats(0, 1))
def test_bounds(params, k, alpha):
    seed, n_sys, n_top, depth, ties = params
    runs, qrels = random_collection(
        np.random.default_rng(seed), n_sys=n_sys, n_top=n_top, depth=depth, ties=ties
    )
    ms = [
        f"P_rare(alpha={alpha!r})@{k}",
        f"AP_rare(alpha={alpha!r})@{k}",
        f"P_rare_norm(alpha={alpha!r})@{k}",
        f"AP_rare_norm(alpha={alpha!r})@{k}",
        f"P@{k}",
        f"AP@{k}",
    ]
    c = irf.evaluate(runs, qrels, ms)
    v = {m: c.sel(measure=m).values for m in ms}
    S = n_sys
    for m in ms[:2]:
        assert np.all(v[m] >= 0) and np.all(v[m] < 2)
        assert np.all(v[m] <= 1 + alpha * (S - 1) / S + 1e-12)  # P_rare <= 1 + (S-1)/S at alpha = 1
    for m in ms[2:4]:
        assert np.all(v[m] >= 0) and np.all(v[m] <= 1 + 1e-12)
    # mixtures: between alpha-weighted rarity-only part and the base measure
    assert np.all(v[ms[0]] >= v[f"P@{k}"] - 1e-12)
    assert np.all(v[ms[2]] <= v[f"P@{k}"] + 1e-12)


@pytest.mark.parametrize("n_sys", [1, 2, 5])
def test_upper_bound_reached_by_unique_relevant_documents(n_sys):
    """Every retrieved document relevant and found by this system only: P_rare = 1 + α(S-1)/S."""
    k = 4
    q = pd.DataFrame(
        {"topic": "t", "doc": [f"d{s}-{i}" for s in range(n_sys) for i in range(k)], "rel": 1}
    )
    runs = pd.DataFrame(
        {
            "system": [f"s{s}" for s in range(n_sys) for _ in range(k)],
            "topic": "t",
            "doc": q.doc,
            "score": np.tile(np.arange(k, 0, -1.0), n_sys),
        }
    )
    c = irf.evaluate(runs, q, ["P_rare(alpha=1)@4", "P_rare_norm(alpha=1)@4", "AP_rare(alpha=1)@4"])
    # Eq. 1 gives 1 + (S-1)/S = (2S-1)/S; the paper's text says "2(S-1)/S", an arithmetic slip
    np.testing.assert_allclose(c.sel(measure="P_rare(alpha=1)@4"), 1 + (n_sys - 1) / n_sys)
    np.testing.assert_allclose(c.sel(measure="P_rare_norm(alpha=1)@4"), 1.0)
    # AP_rare: relevant documents of other systems count in NR (all relevant in qrels)
    np.testing.assert_allclose(
        c.sel(measure="AP_rare(alpha=1)@4"), (1 + (n_sys - 1) / n_sys) * k / (k * n_sys)
    )


def test_short_runs_divide_by_k():
    q = pd.DataFrame({"topic": "t", "doc": ["a", "b"], "rel": 1})
    runs = pd.DataFrame({"system": ["x", "y"], "topic": "t", "doc": ["a", "b"], "score": 1.0})
    c = irf.evaluate(runs, q, ["P_rare(alpha=1)@100"])
    np.testing.assert_allclose(c.values.ravel(), [1.5 / 100, 1.5 / 100])


# ----------------------------------------------------------------------------- reference frame
def test_reference_frame():
    runs, qrels = random_collection(np.random.default_rng(21), n_sys=5)
    pool, new = runs[runs.system != "s4"], runs[runs.system == "s4"]
    # reference = the frame itself changes nothing
    ms = ["P_rare(alpha=1)@10", "AP_rare(alpha=0.5)@10", "P_rare_norm(alpha=0.5)@10"]
    a = irf.evaluate(runs, qrels, ms)
    b = irf.evaluate(runs, qrels, ms, reference=runs)
    np.testing.assert_array_equal(a.values, b.values)
    # a new run scored against the pool's rarity
    c = irf.evaluate(new, qrels, ms, reference=pool)
    P, _AP = brute_scores(new, qrels, 1.0, 10, reference=pool)
    for (s, t), v in P.items():
        assert c.sel(system=s, topic=t, measure=ms[0]).item() == pytest.approx(v)
    tab = rarity(new, qrels, k=10, reference=pool)
    assert (tab.S == 4).all()
    sd = brute_sd(ranked(pool), relevant_sets(qrels), 10)
    assert list(tab.S_d) == [sd[(t, d)] for t, d in zip(tab.topic, tab.doc, strict=True)]


def test_reference_find_nobody_made_reaches_two():
    q = pd.DataFrame({"topic": "t", "doc": ["a", "b"], "rel": 1})
    pool = pd.DataFrame({"system": "old", "topic": "t", "doc": ["a"], "score": [1.0]})
    new = pd.DataFrame({"system": "new", "topic": "t", "doc": ["b"], "score": [1.0]})
    assert irf.evaluate(new, q, "P_rare(alpha=1)@1", reference=pool).item() == 2.0
    f = rare_finds(new, q, k=1, max_systems=0, reference=pool)
    assert f[["system", "doc", "S_d", "rarity"]].values.tolist() == [["new", "b", 0, 1.0]]


# ----------------------------------------------------------------------------- per-document view
@pytest.mark.parametrize("max_systems", [1, 2, None])
def test_rare_finds_brute_force(max_systems):
    runs, qrels = random_collection(np.random.default_rng(4), n_sys=5)
    k = 10
    got = rare_finds(runs, qrels, k=k, max_systems=max_systems)
    rank = ranked(runs)
    rel = relevant_sets(qrels)
    sd = brute_sd(rank, rel, k)
    exp = []
    for (s, t), docs in sorted(rank.items()):
        for i, d in enumerate(docs[:k], start=1):
            if d in rel[t] and (max_systems is None or sd[(t, d)] <= max_systems):
                exp.append((s, t, d, i, sd[(t, d)]))
    assert list(zip(got.system, got.topic, got.doc, got["rank"], got.S_d, strict=True)) == exp
    assert len(exp) > 0


# ----------------------------------------------------------------------------- errors, purity
@pytest.mark.parametrize(
    "measure, match",
    [
        ("P_rare@10", "alpha"),
        ("P_rare(alpha=0.5)", "cutoff"),
        ("P_rare_norm(alpha=1.5)@10", r"\[0, 1\]"),
        ("AP_rare(alpha=x)", "alpha"),
        ("AP_rare(alpha=0.5, beta=1)", "beta"),
    ],
)
def test_bad_measure_strings(measure, match):
    with pytest.raises(ValueError, match=match):
        irf.parse_measure(measure)


def test_bad_options():
    runs, qrels = random_collection(np.random.default_rng(0))
    with pytest.raises(ValueError, match="k must be"):
        rarity(runs, qrels, k=0)
    with pytest.raises(ValueError, match="rel_level"):
        rarity(runs, qrels, rel_level=float("nan"))
    with pytest.raises(TypeError, match="reference"):
        irf.evaluate(runs, qrels, "P_rare(alpha=1)@5", reference=[1, 2])
    with pytest.raises(KeyError, match="reference"):
        irf.evaluate(
            runs, qrels, "P_rare(alpha=1)@5", reference=runs.rename(columns={"doc": "document"})
        )
    with pytest.raises(TypeError, match="reference"):
        irf.evaluate(runs, qrels, "P@5", reference=runs)  # option not consumed by P


def test_caller_frames_unchanged():
    runs, qrels = random_collection(np.random.default_rng(1))
    r0, q0 = runs.copy(), qrels.copy()
    rarity(runs, qrels, k=5, reference=runs)
    rare_finds(runs, qrels)
    irf.evaluate(runs, qrels, ["P_rare(alpha=1)@5", "AP_rare(alpha=1)"], reference=runs)
    pd.testing.assert_frame_equal(runs, r0)
    pd.testing.assert_frame_equal(qrels, q0)


# ----------------------------------------------------------------------------- outside references
def test_alpha_zero_matches_pytrec_eval():
    pytrec_eval = reference_module("pytrec_eval")
    runs, qrels = random_collection(np.random.default_rng(8), ties=False, depth=30)
    qd = {
        t: {d: int(r) for d, r in zip(g.doc, g.rel, strict=True)} for t, g in qrels.groupby("topic")
    }
    ev = pytrec_eval.RelevanceEvaluator(qd, {"P_10", "map_cut_10", "map"})
    cube = irf.evaluate(
        runs, qrels, ["P_rare(alpha=0)@10", "AP_rare(alpha=0)@10", "AP_rare(alpha=0)"]
    )
    for s, g in runs.groupby("system"):
        res = ev.evaluate(
            {t: dict(zip(h.doc, h.score, strict=True)) for t, h in g.groupby("topic")}
        )
        for t, r in res.items():
            c = cube.sel(system=s, topic=t)
            assert c.sel(measure="P_rare(alpha=0)@10").item() == pytest.approx(r["P_10"], abs=1e-12)
            assert c.sel(measure="AP_rare(alpha=0)@10").item() == pytest.approx(
                r["map_cut_10"], abs=1e-12
            )
            assert c.sel(measure="AP_rare(alpha=0)").item() == pytest.approx(r["map"], abs=1e-12)


@pytest.mark.slow
def test_robust03_against_authors_procedure(shared_data):
    """Robust03 runs: rarity from the full 15-run frame vs the re-derived procedure on 5 topics."""
    d = shared_data / "robust03"
    runs = irf.read_runs(str(d / "runs" / "input.*.gz"))
    qrels = irf.read_qrels(str(d / "qrels" / "robust03_qrels.txt.gz"))
    topics = sorted(qrels.topic.unique())[:5]
    sub = runs[runs.topic.isin(topics)]
    k, alpha = 100, 1.0
    tab = rarity(runs, qrels, k=k).set_index(["topic", "doc"])
    cube = irf.evaluate(sub, qrels, [f"P_rare(alpha={alpha})@{k}", f"AP_rare(alpha={alpha})@{k}"])
    P, AP = brute_scores(sub, qrels, alpha, k)
    sd = brute_sd(ranked(sub), relevant_sets(qrels), k)
    assert sub.system.nunique() == 15
    for (t, doc), v in sd.items():
        assert tab.loc[(t, doc), "S_d"] == v
    for (s, t), v in P.items():
        assert cube.sel(
            system=s, topic=t, measure=f"P_rare(alpha={alpha})@{k}"
        ).item() == pytest.approx(v, abs=1e-12)
        assert cube.sel(
            system=s, topic=t, measure=f"AP_rare(alpha={alpha})@{k}"
        ).item() == pytest.approx(AP[(s, t)], abs=1e-12)


@SETTINGS
@given(collections, st.integers(1, 30), st.floats(0, 3))
def test_rows_below_k_do_not_matter(params, k, alpha):
    """@k measures only see the top k: a frame truncated at k gives the same numbers.

    (Equal up to the last ulp: the per-group sum, shared with AP, is numpy's pairwise
    ``add.reduceat`` over all rows, so extra zero rows may regroup the additions.)"""
    seed, n_sys, n_top, depth, ties = params
    runs, qrels = random_collection(
        np.random.default_rng(seed), n_sys=n_sys, n_top=n_top, depth=depth, ties=ties
    )
    ms = [
        f"P_rare(alpha={alpha!r})@{k}",
        f"AP_rare(alpha={alpha!r})@{k}",
        f"P_rare_norm(alpha={min(alpha, 1)!r})@{k}",
    ]
    full = irf.evaluate(runs, qrels, ms)
    a = align(runs, qrels, depth=k)
    cut = irf.evaluate(runs.iloc[a.row_source], qrels, ms)
    np.testing.assert_allclose(full.values, cut.values, rtol=1e-14, atol=0)


# ----------------------------------------------------------------------------- several judgment sets
def test_qrels_mapping_against_brute_force_per_set():
    runs, qrels = random_collection(np.random.default_rng(7), n_sys=4)
    rng = np.random.default_rng(8)
    other = qrels.assign(rel=rng.permutation(qrels["rel"].to_numpy()))  # same docs, other labels
    shallow = qrels.iloc[rng.permutation(len(qrels))[: len(qrels) // 2]]  # half the judgments
    sets = {"nist": qrels, "shuffled": other, "shallow": shallow}
    k = 10
    got = rarity(runs, sets, k=k)
    assert list(got.columns[:3]) == ["qrels", "topic", "doc"]
    assert list(dict.fromkeys(got["qrels"])) == list(sets)
    rank = ranked(runs)
    for name, q in sets.items():
        rel = relevant_sets(q)
        sd = brute_sd(rank, rel, k)
        exp = sorted(
            (t, d, sd[(t, d)]) for t in sorted(set(runs.topic) & set(q.topic)) for d in rel[t]
        )
        part = got[got["qrels"] == name]
        assert list(zip(part.topic, part.doc, part.S_d, strict=True)) == exp
        assert (part.S == 4).all()
    finds = rare_finds(runs, sets, k=k, max_systems=None)
    for name, q in sets.items():
        alone = rare_finds(runs, q, k=k, max_systems=None)
        pd.testing.assert_frame_equal(
            finds[finds["qrels"] == name].drop(columns="qrels").reset_index(drop=True), alone
        )


def test_qrels_mapping_common_policy_and_accessor():
    qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b", "c"], "rel": [1, 1, 1]})
    other = pd.DataFrame({"topic": "1", "doc": ["a", "c", "d"], "rel": [1, 0, 1]})
    runs = pd.DataFrame(
        {
            "system": ["s1", "s1", "s2", "s2"],
            "topic": "1",
            "doc": ["a", "b", "a", "d"],
            "score": [2.0, 1.0, 2.0, 1.0],
        }
    )
    each = runs.ir.rarity(qrels={"x": qrels, "y": other}, k=10)
    assert list(zip(each.qrels, each.doc, each.S_d, strict=True)) == [
        ("x", "a", 2),
        ("x", "b", 1),
        ("x", "c", 0),
        ("y", "a", 2),
        ("y", "d", 1),
    ]
    common = runs.ir.rarity(
        qrels={"x": qrels, "y": other}, k=10, judgments="common"
    )  # a and c judged by both
    assert list(zip(common.qrels, common.doc, common.S_d, strict=True)) == [
        ("x", "a", 2),
        ("x", "c", 0),
        ("y", "a", 2),
    ]


def test_kernels_take_explicit_inputs():
    """p_rare / ap_rare are kernels: lookup and base are inputs (no evaluation of their own);
    with the S_d lookup and trec_eval's P@k / AP as base they give the brute-force Eq. 1 / Eq. 3."""
    from irframe.rarity import ap_rare, p_rare, rarity_lookup

    runs, qrels = random_collection(np.random.default_rng(12))
    a = align(runs, qrels)
    base = irf.evaluate(a, None, ["P@10", "AP@10"])
    vals = base.values[a.group_system, a.group_topic]
    look = rarity_lookup(a, k=10)
    got_p = p_rare(a, alpha=1.5, k=10, lookup=look, base=vals[:, 0])
    got_ap = ap_rare(a, alpha=1.5, k=10, lookup=look, base=vals[:, 1])
    P, AP = brute_scores(runs, qrels, 1.5, 10)
    for g in range(a.n_groups):
        key = (a.systems[a.group_system[g]], a.topics[a.group_topic[g]])
        assert got_p[g] == pytest.approx(P[key], abs=1e-12)
        assert got_ap[g] == pytest.approx(AP[key], abs=1e-12)
    with pytest.raises(TypeError):
        p_rare(a, alpha=1.0, k=10)  # base and lookup are required
