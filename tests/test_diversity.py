"""Diversity measures and RBU: hand-computed cases, seed 001 §5 identities, errors.

Expected numbers are worked out by hand in the comments (the definitions of seed 001
and DESIGN.md §3), or come from a plain-Python transcription of the formula
(``_rbu_reference``) that shares no code with irframe.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe as irf
import irframe.measures.diversity_kernels as dk


def _q(rows):
    return pd.DataFrame(rows, columns=["topic", "subtopic", "doc", "rel"])


def _run(docs, system="s", topic="1"):
    return pd.DataFrame(
        {
            "system": system,
            "topic": topic,
            "doc": list(docs),
            "score": np.arange(len(docs), 0, -1, dtype=float),
        }
    )


def _val(run, qrels, m, **kw):
    return float(irf.evaluate(run, qrels, [m], **kw).isel(measure=0, system=0, topic=0))


# ------------------------------------------------------------------ RBU hand cases
Q1 = _q(
    [
        ("1", "a", "r1", 1),
        ("1", "a", "r2", 1),
        ("1", "a", "n1", 0),
        ("1", "a", "n2", 0),
        ("1", "a", "n3", 0),
    ]
)


def test_rbu_binary_r_is_half():
    # r = (2^1 - 1)/2^1 = 0.5; [rel, non, rel], p = 0.8:
    # 0.2*0.5 + 0.2*0.8^2*0.5*(1-0.5) = 0.1 + 0.032 = 0.132
    assert _val(_run(["r1", "n1", "r2"]), Q1, "RBU(p=0.8,e=0)") == pytest.approx(0.132, abs=1e-15)


def test_rbu_graded():
    # aspect gmax = 2: r(1) = 1/4, r(2) = 3/4; ranking [g1, g2]:
    # 0.2*0.25 + 0.2*0.8*0.75*(1-0.25) = 0.05 + 0.09 = 0.14
    q = _q([("1", "a", "g1", 1), ("1", "a", "g2", 2)])
    assert _val(_run(["g1", "g2"]), q, "RBU(p=0.8,e=0)") == pytest.approx(0.14, abs=1e-15)


def test_rbu_multi_aspect():
    # w = 1/2 each; A relevant to a and b, B to a (binary, r = 0.5):
    # rank 1: 0.2*(0.5*0.5 + 0.5*0.5) = 0.1 ; rank 2: 0.2*0.8*0.5*0.5*(1-0.5) = 0.02
    q = _q([("1", "a", "A", 1), ("1", "b", "A", 1), ("1", "a", "B", 1)])
    assert _val(_run(["A", "B"]), q, "RBU(p=0.8,e=0)") == pytest.approx(0.12, abs=1e-15)
    # the ndeval-style grade 3 on B changes nothing in r when gmax_a = 3?  No: r(B) = 7/8,
    # r(A on a) = 1/8: rank 1: 0.2*(0.5*1/8 + 0.5*0.5) = 0.0625; rank 2: 0.16*0.5*7/8*7/8 = 0.06125
    q3 = _q([("1", "a", "A", 1), ("1", "b", "A", 1), ("1", "a", "B", 3)])
    assert _val(_run(["A", "B"]), q3, "RBU(p=0.8,e=0)") == pytest.approx(
        0.0625 + 0.06125, abs=1e-15
    )


def test_rbu_effort_makes_junk_negative_and_cutoff_truncates_first():
    # three judged non-relevant docs, e = 0.03: -0.03 * (1 - 0.8^3) = -0.01464
    assert _val(_run(["n1", "n2", "n3"]), Q1, "RBU(p=0.8,e=0.03)") == pytest.approx(
        -0.01464, abs=1e-15
    )
    # @2 truncates first: [rel, non] -> 0.1 - 0.1*(1 - 0.64) = 0.064
    assert _val(_run(["r1", "n1", "r2"]), Q1, "RBU(p=0.8,e=0.1)@2") == pytest.approx(
        0.064, abs=1e-15
    )
    # unjudged documents cost the same effort
    assert _val(_run(["x", "y"]), Q1, "RBU(p=0.5,e=1)") == pytest.approx(-0.75, abs=1e-15)


def test_rbu_user_weights():
    # w_a = 0.8, w_b = 0.2 (renormalised from 4 and 1); A relevant to b only, r = 0.5:
    q = _q([("1", "a", "A", 0), ("1", "b", "A", 1), ("1", "a", "B", 1)])
    w = pd.DataFrame({"topic": ["1", "1"], "subtopic": ["a", "b"], "weight": [4.0, 1.0]})
    assert _val(_run(["A"]), q, "RBU(p=0.8,e=0)", weights=w) == pytest.approx(
        0.2 * 0.2 * 0.5, abs=1e-15
    )
    bad = pd.DataFrame({"topic": ["1"], "subtopic": ["b"], "weight": [1.0]})
    with pytest.raises(ValueError, match="subtopic 'a'"):
        _val(_run(["A"]), q, "RBU(p=0.8,e=0)", weights=bad)
    with pytest.raises(ValueError, match="missing column"):
        _val(_run(["A"]), q, "RBU", weights=w.drop(columns="weight"))


# ------------------------------------------------------------------ other measures, by hand
QD = _q(
    [
        ("1", "a", "A", 1),
        ("1", "b", "A", 1),
        ("1", "a", "B", 1),
        ("1", "c", "C", 2),
        ("1", "c", "N", 0),
        ("1", "d", "N", 0),
    ]
)
RUN_D = _run(["B", "N", "A", "C"])  # aspects a, b, c relevant (d never): N = 3


def test_intent_aware_by_hand():
    third = 1 / 3
    # S-recall@2: only a covered -> 1/3 ; @3: a, b -> 2/3 ; @4: all
    assert _val(RUN_D, QD, "StRecall@2") == pytest.approx(third)
    assert _val(RUN_D, QD, "StRecall@4") == pytest.approx(1.0)
    # S-RR: all covered at rank 4 -> 1/4; S_RR@3 -> 0
    assert _val(RUN_D, QD, "S_RR") == pytest.approx(0.25)
    assert _val(RUN_D, QD, "S_RR@3") == 0.0
    # RR-IA = (1/1 [a] + 1/3 [b] + 1/4 [c]) / 3
    assert _val(RUN_D, QD, "RR_IA") == pytest.approx((1 + 1 / 3 + 1 / 4) / 3)
    # P-IA@4: pairs (B,a), (A,a), (A,b), (C,c) = 4 / (4*3)
    assert _val(RUN_D, QD, "P_IA@4") == pytest.approx(4 / 12)
    # AP-IA: a: rel at 1 and 3 -> (1/1 + 2/3)/2 ; b: (1/3)/1 ; c: (1/4)/1
    assert _val(RUN_D, QD, "AP_IA") == pytest.approx(((1 + 2 / 3) / 2 + 1 / 3 + 1 / 4) / 3)
    # nDCG-IA@4 (gain = grade): a: (1 + 1/log2 4)/(1 + 1/log2 3); b: (1/2)/1; c: (2/log2 5)/2
    l2 = math.log2
    exp = ((1 + 1 / l2(4)) / (1 + 1 / l2(3)) + 0.5 + (2 / l2(5)) / 2) / 3
    assert _val(RUN_D, QD, "nDCG_IA@4") == pytest.approx(exp)


def test_alpha_family_by_hand():
    l2 = math.log2
    # binary gains, alpha = 0.5: rank1 B:a -> 1; rank3 A: a (seen once) 0.5 + b 1; rank4 C:c 1
    dcg = 1 + 1.5 / l2(4) + 1 / l2(5)
    # greedy ideal: A (a+b = 2), then B vs C: B gives 0.5, C gives 1 -> C, then B 0.5
    ideal = 2 + 1 / l2(3) + 0.5 / l2(4)
    assert _val(RUN_D, QD, "alpha_nDCG@4") == pytest.approx(dcg / ideal)
    # ndeval alpha-DCG@4 divides by N * sum_i 0.5^(i-1)/log2(i+1)
    ii = sum(0.5 ** (i - 1) / l2(i + 1) for i in range(1, 5))
    assert _val(RUN_D, QD, "alpha_DCG@4") == pytest.approx(dcg / (3 * ii))
    # NRBP(beta=0.5) = (1 - 0.5*0.5)/3 * (1 + 1.5*0.25 + 1*0.125)
    assert _val(RUN_D, QD, "NRBP") == pytest.approx(0.75 / 3 * (1 + 0.375 + 0.125))
    # graded alpha-nDCG: r = g/gmax_t; c has gmax 2 so C still gives 1 -> same as binary here
    assert _val(RUN_D, QD, "alpha_nDCG(graded=true)@4") == pytest.approx(dcg / ideal)


def test_eu_ct_dsharp_by_hand():
    l2 = math.log2
    w = 1 / 3
    # EU(alpha=0.5, e=0.1): per rank (w * sum r (1-a)^c - e) / (1 + log2 i)
    gains = [w * 1, 0, w * (0.5 + 1), w * 1]
    exp = sum((g - 0.1) / (1 + l2(i)) for i, g in enumerate(gains, 1))
    assert _val(RUN_D, QD, "EU(alpha=0.5,e=0.1)") == pytest.approx(exp)
    # CT@4 (sat = 1): aspect a is saturated after B (r = 1), so A adds only b
    exp_ct = w * 1 / 1 + w * 1 / 3 + w * 1 / 4
    assert _val(RUN_D, QD, "CT@4") == pytest.approx(exp_ct)
    # D#@4 = 0.5 I-rec@4 + 0.5 D-nDCG@4; GG = w*sum grades: B 1/3, A 2/3, C 2/3
    dcg = w / 1 + 2 * w / l2(4) + 2 * w / l2(5)
    idcg = 2 * w / 1 + 2 * w / l2(3) + w / l2(4)
    assert _val(RUN_D, QD, "Dsharp(lam=0.5)@4") == pytest.approx(0.5 * 1 + 0.5 * dcg / idcg)


def test_negative_judgments_are_non_relevant_and_empty_topics_score_zero():
    q = _q([("1", "a", "A", -2), ("1", "a", "B", 1), ("2", "a", "X", 0)])
    run = pd.concat([_run(["A", "B"]), _run(["X"], topic="2")])
    cube = irf.evaluate(run, q, ["alpha_nDCG@5", "ERR_IA@5", "nNRBP", "RBU(p=0.8,e=0)", "AP_IA"])
    t1 = cube.sel(system="s", topic="1")
    assert float(t1.sel(measure="AP_IA")) == pytest.approx(0.5)  # B at rank 2, 1 relevant
    assert np.all(cube.sel(system="s", topic="2").values == 0.0)  # no relevant aspect: 0, not NaN


def test_errors():
    q = pd.DataFrame({"topic": "1", "doc": ["a"], "rel": [1]})
    with pytest.raises(ValueError, match="subtopic"):
        irf.evaluate(_run(["a"]), q, ["alpha_nDCG@20"])
    with pytest.raises(ValueError, match="alpha"):
        irf.evaluate(_run(["A"]), QD, ["alpha_nDCG(alpha=2)@20"])
    with pytest.raises(ValueError, match="p must"):
        irf.evaluate(_run(["A"]), QD, ["RBU(p=1)"])
    with pytest.raises(ValueError, match="needs a cutoff"):
        irf.evaluate(_run(["A"]), QD, ["alpha_nDCG"])
    with pytest.raises(TypeError, match="weights"):  # an unweighted measure does not take weights=
        irf.evaluate(_run(["A"]), QD, ["NRBP"], weights=pd.DataFrame())


def test_caller_frames_untouched():
    q, r = QD.copy(), RUN_D.copy()
    irf.evaluate(r, q, ["RBU(p=0.8,e=0.03)@20", "alpha_nDCG@20", "nERR_IA@20"])
    pd.testing.assert_frame_equal(q, QD)
    pd.testing.assert_frame_equal(r, RUN_D)


# ------------------------------------------------------------------ RBU reference & identities
def _rbu_reference(ranking, judg, p, e, k=None):
    """Plain transcription of DESIGN §3 / seed Eq. 11 (authors' conventions)."""
    if k is not None:
        ranking = ranking[:k]
    aspects = sorted({t for (t, _d) in judg})
    gmax = {t: max(g for (tt, _d), g in judg.items() if tt == t) for t in aspects}
    rel_aspects = [t for t in aspects if gmax[t] > 0]
    w = {t: 1 / len(rel_aspects) for t in rel_aspects}
    total = 0.0
    for t in rel_aspects:
        stay = 1.0
        for i, d in enumerate(ranking, 1):
            g = judg.get((t, d), 0)
            r = max(0.0, (2**g - 1) / 2 ** gmax[t])
            total += w[t] * (1 - p) * p ** (i - 1) * r * stay
            stay *= 1 - r
    return total - e * (1 - p) * sum(p ** (i - 1) for i in range(1, len(ranking) + 1))


_cases = st.fixed_dictionaries(
    {
        "grades": st.lists(
            st.lists(st.integers(-1, 3), min_size=3, max_size=3), min_size=1, max_size=8
        ),
        "order": st.randoms(use_true_random=False),
        "depth": st.integers(1, 8),
        "p": st.floats(0.05, 0.95),
        "e": st.floats(0, 0.5),
        "k": st.one_of(st.none(), st.integers(1, 8)),
    }
)


def _build(case):
    docs = [f"d{i}" for i in range(len(case["grades"]))]
    judg = {
        (t, d): g
        for d, gs in zip(docs, case["grades"], strict=True)
        for t, g in zip("abc", gs, strict=True)
    }
    ranking = [*list(docs), "u1", "u2"]
    case["order"].shuffle(ranking)
    ranking = ranking[: case["depth"]]
    q = _q([("1", t, d, g) for (t, d), g in judg.items()])
    return q, ranking, judg


@settings(max_examples=40, deadline=None)
@given(_cases)
def test_rbu_matches_reference_and_identities(case):
    q, ranking, judg = _build(case)
    p, e, k = case["p"], case["e"], case["k"]
    cut = "" if k is None else f"@{k}"
    run = _run(ranking)
    if not any(g > 0 for g in judg.values()):
        return
    cube = irf.evaluate(
        run, q, [f"RBU(p={p!r},e={e!r}){cut}", f"RBU(p={p!r},e=0){cut}", f"RBP_IA(p={p!r}){cut}"]
    )
    rbu, rbu0, rbpia = cube.isel(system=0, topic=0).values
    assert rbu == pytest.approx(_rbu_reference(ranking, judg, p, e, k), abs=1e-12)
    # exact: the effort term is e (1 - p^min(n, k))
    n = len(ranking) if k is None else min(len(ranking), k)
    assert rbu - rbu0 == pytest.approx(-e * (1 - p**n), abs=1e-12)
    # e = 0: RBU <= RBP-IA (cascade factors <= 1); equality when no aspect has two gains
    assert rbu0 <= rbpia + 1e-15
    top = ranking if k is None else ranking[:k]
    if all(sum(judg.get((t, d), 0) > 0 for d in top) <= 1 for t in "abc"):
        assert rbu0 == pytest.approx(rbpia, abs=1e-15)


def test_rbu_small_r_limit_is_rbp_ia():
    # relevance contribution r << 1: an unretrieved anchor of grade 40 per aspect makes
    # r(grade 1) = 2^-40; RBU(e=0)/RBP-IA -> 1 (difference O(r^2))
    rows = [("1", t, f"d{i}", 1) for i in range(6) for t in ("a", "b") if (i + (t == "b")) % 2 == 0]
    rows += [("1", "a", "anc_a", 40), ("1", "b", "anc_b", 40)]
    q = _q(rows)
    run = _run([f"d{i}" for i in range(6)])
    cube = irf.evaluate(run, q, ["RBU(p=0.9,e=0)", "RBP_IA(p=0.9)"])
    rbu, rbp = cube.isel(system=0, topic=0).values
    assert rbu < rbp
    assert rbu / rbp == pytest.approx(1.0, abs=1e-10)


def test_rbu_p_to_one_and_err_ia():
    # exact at k = 1: RBU@1(e=0) / (1 - p) = ERR-IA@1 (graded, 1/i = 1 at rank 1)
    cube = irf.evaluate(RUN_D, QD, ["RBU(p=0.7,e=0)@1", "ERR_IA(graded=true)@1"])
    rbu, err = cube.isel(system=0, topic=0).values
    assert rbu / 0.3 == pytest.approx(err, abs=1e-15)
    # p -> 1: RBU(e=0)@k / (1 - p) -> sum_t w(t) (1 - prod_{i<=k} (1 - r(d_i, t))) (telescoping);
    # with r = 0.5 (binary): a seen twice (1 - 0.25), b once (0.5), c once (r = 3/4 as gmax_c = 2)
    lim = (0.75 + 0.5 + 0.75) / 3
    p = 1 - 1e-7
    v = _val(RUN_D, QD, f"RBU(p={p!r},e=0)@4")
    assert v / (1 - p) == pytest.approx(lim, rel=1e-6)
    # ...which is not ERR-IA@4 (the seed's p = 1 identity drops ERR's 1/i discount)
    assert _val(RUN_D, QD, "ERR_IA(graded=true)@4") < lim - 0.1


def _greedy_ideal_brute_force(
    qrels: pd.DataFrame, alpha: float, level: float = 1
) -> dict[str, list[float]]:
    """ndeval's idealResult written as its loops: per rank, every unplaced document's score
    sum_s g(d, s) * (subGain[s] * 1) over subtopics in ascending order; the best score wins,
    ties to the larger docno; the rank's gain sums g * subGain over the winner's subtopics."""
    out = {}
    for topic, q in qrels.groupby("topic", sort=True):
        rel = q[(q.rel >= level) & (q.rel > 0)]
        subs = sorted(set(q.subtopic), key=int)
        judged = {(d, s) for d, s in zip(rel.doc, rel.subtopic, strict=True)}
        docs = sorted(set(rel.doc), key=lambda x: x.encode(), reverse=True)
        sub_gain = dict.fromkeys(subs, 1.0)
        placed, gains = set(), []
        while len(placed) < len(docs):
            best, best_score = None, -math.inf
            for d in docs:  # docno descending: the first maximum is the largest
                if d in placed:
                    continue
                score = 0.0
                for s in subs:
                    if (d, s) in judged:
                        score += 1.0 * (sub_gain[s] * 1.0)
                if score > best_score:
                    best, best_score = d, score
            gain = 0.0
            for s in subs:
                if (best, s) in judged:
                    gain += 1.0 * sub_gain[s] * 1.0
                    sub_gain[s] *= 1.0 - alpha
            placed.add(best)
            gains.append(gain)
        out[str(topic)] = gains
    return out


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from("12"),
            st.sampled_from([f"d{i}" for i in range(9)]),
            st.integers(1, 12),
            st.integers(-1, 2),
        ),
        min_size=1,
        max_size=60,
        unique_by=lambda x: x[:3],
    ),
    st.sampled_from([0.0, 0.3, 0.5, 1.0]),
)
def test_greedy_ideal_equals_brute_force(rows, alpha):
    from irframe.align import align
    from irframe.measures.diversity_kernels import ideal_alpha_gains
    from irframe.measures.registry import EvalContext

    qrels = pd.DataFrame(rows, columns=["topic", "doc", "subtopic", "rel"]).astype(
        {"subtopic": str}
    )
    runs = pd.DataFrame(
        {"system": "s", "topic": sorted(set(qrels.topic)), "doc": "zz", "score": 1.0}
    )
    want = _greedy_ideal_brute_force(qrels, alpha)
    for cells in (dk._DENSE_MAX_CELLS, 0):  # the dense form, then the sparse one
        ctx = EvalContext(align(runs, qrels), {"rel_level": 1})
        with mock.patch.object(dk, "_DENSE_MAX_CELLS", cells):
            offs, gains = ideal_alpha_gains(ctx, alpha, False, False, None)
        for i, t in enumerate(ctx.aligned.topics):
            assert gains[offs[i] : offs[i + 1]].tolist() == want.get(str(t), [])  # bit for bit


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.0, 0.25, 0.5, 1.0]),
    st.booleans(),
    st.booleans(),
    st.sampled_from([None, 1, 3, 20]),
    st.sampled_from([None, 0.5, 0.9]),
)
def test_greedy_ideal_dense_and_sparse_forms_agree(seed, alpha, graded, weighted, depth, beta):
    """The two forms of the greedy ideal (dense block for few subtopics, sparse beyond
    _DENSE_MAX_CELLS) give the same gains bit for bit, graded/weighted/truncated alike."""
    from irframe.align import align
    from irframe.measures.diversity_kernels import ideal_alpha_gains
    from irframe.measures.registry import EvalContext

    qrels, runs = irf.datasets.synthetic(2, 3, 30, rng=seed, diversity=True)
    got = []
    for cells in (dk._DENSE_MAX_CELLS, 0):
        ctx = EvalContext(align(runs, qrels), {"rel_level": 1})
        with mock.patch.object(dk, "_DENSE_MAX_CELLS", cells):
            got.append(ideal_alpha_gains(ctx, alpha, graded, weighted, depth, beta))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])
