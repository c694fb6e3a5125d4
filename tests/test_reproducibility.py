"""irframe.meta.reproducibility against repro_eval 0.5.0 (Breuer et al., SIGIR 2020) itself.

The original experiment is four TREC 2003 Robust runs; the reproduced one is made here from
them: every ranking re-scored with noise (documents move) and about a tenth of its
documents replaced by documents other runs retrieved for the topic (the union of the two
rankings is larger than either).  repro_eval gets the same runs as the ``{topic: {doc:
score}}`` dicts it works on (score descending, ties in docno *ascending* order so that its
``break_ties`` has work to do) and evaluates them itself (``repro_eval.util.evaluate_run``,
ir_measures / pytrec_eval); every value irframe returns is compared with repro_eval's.
The scores are not rounded: repro_eval orders the rankings it compares by the float64
score and pytrec_eval scores them in float32 order, and irframe follows both conventions.

KTU and RBO are also checked against a brute-force computation of their definitions written
here (hypothesis, small random rankings).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from conftest import reference_module
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe as irf
from irframe.errors import InputError
from irframe.reproducibility import ktu_rbo

SYSTEMS = ["InexpC2", "SABIR03BASE", "UIUC03Rd1", "aplrob03a"]
MEASURES = ["AP", "P@10", "nDCG@10"]
N_TOPICS = 12


def _perturb(runs: pd.DataFrame, rng: np.random.Generator, swap: float = 0.1) -> pd.DataFrame:
    """Re-scored rankings, ~``swap`` of each replaced by documents other runs found."""
    pool = runs.groupby("topic", observed=True)["doc"].unique()
    parts = []
    for (s, t), g in runs.groupby(["system", "topic"], observed=True):
        docs = g.doc.to_numpy(object).copy()
        other = np.setdiff1d(pool[t].astype(str), docs.astype(str))
        k = min(int(swap * len(docs)), len(other))
        pos = rng.choice(len(docs), size=k, replace=False)
        docs[pos] = rng.choice(other, size=k, replace=False)
        sc = g.score.to_numpy()
        score = sc + rng.normal(0, 0.05 * (sc.std() + 1e-9), len(sc))
        parts.append(pd.DataFrame({"system": s, "topic": t, "doc": docs, "score": score}))
    return pd.concat(parts, ignore_index=True)


def _as_dict(run: pd.DataFrame) -> dict:
    """{system: {topic: {doc: score}}}, score descending, ties by docno ascending."""
    run = run.assign(doc=run.doc.astype(str), topic=run.topic.astype(str))
    run = run.sort_values(["system", "topic", "score", "doc"], ascending=[True, True, False, True])
    out: dict = {}
    for s, t, d, sc in zip(run.system, run.topic, run.doc, run.score, strict=True):
        out.setdefault(s, {}).setdefault(t, {})[d] = float(sc)
    return out


@pytest.fixture(scope="module")
def robust(shared_data):
    base = shared_data / "robust03"
    qrels = irf.read_qrels(base / "qrels" / "robust03_qrels.txt.gz")
    runs = irf.read_runs([base / "runs" / f"input.{s}.gz" for s in SYSTEMS], system="tag")
    runs = runs.assign(
        system=lambda d: d.system.astype(str),
        topic=lambda d: d.topic.astype(str),
        doc=lambda d: d.doc.astype(str),
    )
    topics = sorted(runs.topic.unique())
    runs = runs[["system", "topic", "doc", "score"]]
    first = runs[runs.topic.isin(topics[:N_TOPICS])].reset_index(drop=True)
    second = runs[runs.topic.isin(topics[N_TOPICS : 2 * N_TOPICS])].reset_index(drop=True)
    rng = np.random.default_rng(2020)
    return {
        "qrels": qrels,
        "orig": first,
        "rep": _perturb(first, rng),
        "rep2": _perturb(first, rng, swap=0.3),
        "rpl": _perturb(second, rng),  # replicability: other topics
    }


@pytest.fixture(scope="module")
def rpe():
    reference_module("repro_eval")
    import ir_measures
    from repro_eval.measure import document_order, effectiveness, overall_effects, statistics
    from repro_eval.util import evaluate_run

    return {
        "KTU": document_order.KTU,
        "RBO": document_order.RBO,
        "RMSE": effectiveness.RMSE,
        "nRMSE": effectiveness.nRMSE,
        "ER": overall_effects.ER,
        "DRI": overall_effects.DRI,
        "ttest": statistics.ttest,
        "evaluate": evaluate_run,
        "measures": [ir_measures.parse_measure(m) for m in MEASURES],
    }


def _qrels_dict(qrels):
    out: dict = {}
    for t, d, r in zip(qrels.topic.astype(str), qrels.doc.astype(str), qrels.rel, strict=True):
        out.setdefault(t, {})[d] = int(r)
    return out


def _scores(rpe, qrels, run_dict):
    q = _qrels_dict(qrels)
    return {s: rpe["evaluate"](rpe["measures"], q, r) for s, r in run_dict.items()}


def _close(a, b, tol=1e-12):
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol) or (math.isnan(a) and math.isnan(b))


def test_reproducibility_matches_repro_eval(robust, rpe):
    orig, rep, qrels = robust["orig"], robust["rep"], robust["qrels"]
    od, rd = _as_dict(orig), _as_dict(rep)
    os_, rs = _scores(rpe, qrels, od), _scores(rpe, qrels, rd)
    base = "InexpC2"
    # repro_eval scores through ir_measures, which scores every qrels topic (0 where a run
    # has nothing: trec_eval -c); complete=True is that convention
    ds = irf.meta.reproducibility(orig, rep, qrels, measures=MEASURES, baseline=base, complete=True)
    assert set(ds.system.values) == set(SYSTEMS) and ds.sizes["topic"] == 100
    assert int(ds.ktu_topic.notnull().sum("topic").min()) == N_TOPICS
    for s in SYSTEMS:
        ktu = rpe["KTU"](od[s], rd[s], per_topic=True)
        rbo = rpe["RBO"](od[s], rd[s], p=0.95, depth=1000, pbar=False, per_topic=True)
        for t in ktu:
            assert _close(ds.ktu_topic.sel(system=s, topic=t).item(), ktu[t]), (s, t)
            assert _close(ds.rbo_topic.sel(system=s, topic=t).item(), rbo[t]), (s, t)
        assert _close(ds.ktu.sel(system=s).item(), float(np.mean(list(ktu.values()))))
        assert _close(ds.rbo.sel(system=s).item(), float(np.mean(list(rbo.values()))))
        rmse, nrmse = rpe["RMSE"](os_[s], rs[s]), rpe["nRMSE"](os_[s], rs[s])
        pv = rpe["ttest"](os_[s], rs[s], rpd=True)
        for m in MEASURES:
            cell = ds.sel(system=s, measure=m)
            assert _close(cell.rmse.item(), rmse[m]), (s, m)
            assert _close(cell.nrmse.item(), nrmse[m]), (s, m)
            assert _close(cell.pvalue.item(), pv[m], 1e-9), (s, m)
        if s == base:
            assert np.isnan(ds.er.sel(system=s)).all() and np.isnan(ds.delta_ri.sel(system=s)).all()
            continue
        kw = {"orig_score_b": os_[base], "orig_score_a": os_[s]}
        kw.update(rep_score_b=rs[base], rep_score_a=rs[s])
        er, dri = rpe["ER"](**kw), rpe["DRI"](**kw)
        for m in MEASURES:
            assert _close(ds.er.sel(system=s, measure=m).item(), er[m]), (s, m)
            assert _close(ds.delta_ri.sel(system=s, measure=m).item(), dri[m]), (s, m)
    # the values are not trivial: the perturbation moved documents and scores
    assert 0.0 < float(ds.ktu.min()) < 0.9 and 0.0 < float(ds.rmse.min())


def test_depth_and_p_as_repro_eval(robust, rpe):
    orig, rep, qrels = robust["orig"], robust["rep2"], robust["qrels"]
    od, rd = _as_dict(orig), _as_dict(rep)
    ds = irf.meta.reproducibility(orig, rep, qrels, measures=["AP"], depth=100, p=0.8)
    for s in SYSTEMS[:2]:
        ktu = rpe["KTU"](od[s], rd[s], trim_thresh=100, per_topic=True)
        rbo = rpe["RBO"](od[s], rd[s], p=0.8, depth=100, pbar=False, per_topic=True)
        for t in ktu:
            assert _close(ds.ktu_topic.sel(system=s, topic=t).item(), ktu[t]), (s, t)
            assert _close(ds.rbo_topic.sel(system=s, topic=t).item(), rbo[t]), (s, t)


def test_replicates_are_versions(robust, rpe):
    """Two reproduced versions in one frame (a replicate column) = two separate calls."""
    orig, qrels = robust["orig"], robust["qrels"]
    both = pd.concat(
        [robust["rep"].assign(replicate="v1"), robust["rep2"].assign(replicate="v2")],
        ignore_index=True,
    )
    ds = irf.meta.reproducibility(orig, both, qrels, measures=MEASURES, baseline="InexpC2")
    assert ds.ktu_topic.dims == ("system", "replicate", "topic")
    named = irf.meta.reproducibility(
        orig,
        both.rename(columns={"replicate": "version"}),
        qrels,
        measures=MEASURES,
        baseline="InexpC2",
        columns={"replicate": "version"},
    )
    xr.testing.assert_identical(named.drop_attrs(), ds.drop_attrs())
    for v, rep in (("v1", robust["rep"]), ("v2", robust["rep2"])):
        one = irf.meta.reproducibility(orig, rep, qrels, measures=MEASURES, baseline="InexpC2")
        for var in one.data_vars:
            np.testing.assert_allclose(
                ds[var].sel(replicate=v).transpose(*one[var].dims).values,
                one[var].values,
                rtol=1e-13,
                atol=1e-15,
                err_msg=var,
            )


def test_replicability_matches_repro_eval(robust, rpe):
    """Other topics: unpaired t-test, ER and ΔRI (repro_eval's RplEvaluator measures)."""
    orig, rpl, qrels = robust["orig"], robust["rpl"], robust["qrels"]
    q_o = qrels[qrels.topic.astype(str).isin(set(orig.topic))]  # two test collections
    q_r = qrels[qrels.topic.astype(str).isin(set(rpl.topic))]
    os_, rs = _scores(rpe, q_o, _as_dict(orig)), _scores(rpe, q_r, _as_dict(rpl))
    base = "SABIR03BASE"
    ds = irf.meta.reproducibility(
        orig, rpl, q_o, measures=MEASURES, baseline=base, paired=False, qrels_reproduced=q_r
    )
    assert "ktu" not in ds and "rmse" not in ds and ds.attrs["test"] == "ttest_ind"
    for s in SYSTEMS:
        pv = rpe["ttest"](os_[s], rs[s], rpd=False)
        for m in MEASURES:
            assert _close(ds.pvalue.sel(system=s, measure=m).item(), pv[m], 1e-9), (s, m)
        if s == base:
            continue
        kw = {"orig_score_b": os_[base], "orig_score_a": os_[s]}
        kw.update(rep_score_b=rs[base], rep_score_a=rs[s])
        er, dri = rpe["ER"](**kw), rpe["DRI"](**kw)
        for m in MEASURES:
            assert _close(ds.er.sel(system=s, measure=m).item(), er[m]), (s, m)
            assert _close(ds.delta_ri.sel(system=s, measure=m).item(), dri[m]), (s, m)


def test_cubes_give_the_score_measures(robust):
    orig, rep, qrels = robust["orig"], robust["rep"], robust["qrels"]
    runs_ds = irf.meta.reproducibility(orig, rep, qrels, measures=MEASURES, baseline="InexpC2")
    co, cr = irf.evaluate(orig, qrels, MEASURES), irf.evaluate(rep, qrels, MEASURES)
    cube_ds = irf.meta.reproducibility(co, cr, baseline="InexpC2")
    assert "ktu" not in cube_ds
    for var in cube_ds.data_vars:
        np.testing.assert_array_equal(cube_ds[var].values, runs_ds[var].values, err_msg=var)


def test_identical_runs():
    qrels, runs = irf.datasets.synthetic(systems=3, topics=8, depth=30, rng=5)
    ds = irf.meta.reproducibility(runs, runs, qrels, measures=["AP", "P@5"], baseline="sys0")
    np.testing.assert_array_equal(ds.ktu_topic.values, 1.0)
    lens = runs.groupby(["system", "topic"], observed=True).size()
    assert (lens == 30).all()
    np.testing.assert_allclose(ds.rbo_topic.values, 1 - _rbo_deficit(30, 1000, 0.95), rtol=1e-12)
    np.testing.assert_array_equal(ds.rmse.values, 0.0)
    np.testing.assert_array_equal(ds.pvalue.values, 1.0)  # t = 0/0: identical samples
    np.testing.assert_array_equal(ds.delta_ri.sel(system=["sys1", "sys2"]).values, 0.0)
    np.testing.assert_array_equal(ds.er.sel(system=["sys1", "sys2"]).values, 1.0)


def _rbo_deficit(n, depth, p):
    """1 - RBO of a ranking of n documents with itself, truncated at depth (closed form)."""
    i = np.arange(depth)
    w = p**i
    return float((w * (1 - np.minimum(i + 1, n) / (i + 1))).sum() / w.sum())


def test_errors():
    qrels, runs = irf.datasets.synthetic(systems=2, topics=4, depth=10, rng=1)
    other = runs.assign(system=runs.system.astype(str).str.replace("sys1", "zz"))
    with pytest.raises(InputError, match=r"'zz'.*no original run"):
        irf.meta.reproducibility(runs, other, qrels, measures="AP")
    with pytest.raises(InputError, match="measures="):
        irf.meta.reproducibility(runs, runs, qrels)
    with pytest.raises(InputError, match="qrels="):
        irf.meta.reproducibility(runs, runs, measures="AP")
    with pytest.raises(InputError, match="baseline 'x'"):
        irf.meta.reproducibility(runs, runs, qrels, measures="AP", baseline="x")
    with pytest.raises(irf.errors.OptionError, match="p must be"):
        irf.meta.reproducibility(runs, runs, qrels, measures="AP", p=1.0)


# ---------------------------------------------------------------------------
# KTU and RBO against brute force (property tests of the definitions)
# ---------------------------------------------------------------------------


def _brute_ktu(a: list[str], b: list[str]) -> float:
    n = min(len(a), len(b))
    union = sorted(set(a) | set(b))
    x = [union.index(d) for d in a[:n]]
    y = [union.index(d) for d in b[:n]]
    if n < 2:
        return math.nan
    s = sum(
        (1 if (x[i] - x[j]) * (y[i] - y[j]) > 0 else -1) for i in range(n) for j in range(i + 1, n)
    )
    return s / (n * (n - 1) / 2)


def _brute_rbo(a: list[str], b: list[str], p: float, depth: int) -> float:
    num = sum(p**d * len(set(a[: d + 1]) & set(b[: d + 1])) / (d + 1) for d in range(depth))
    return num / sum(p**d for d in range(depth))


rankings = st.lists(st.sampled_from([f"d{i:02d}" for i in range(25)]), unique=True, max_size=14)


@settings(max_examples=150)
@given(
    st.lists(st.tuples(rankings, rankings), min_size=1, max_size=6),
    st.integers(1, 16),
    st.floats(0.05, 0.99),
)
def test_ktu_rbo_brute_force(pairs, depth, p):
    docs = np.array(sorted({d for a, b in pairs for d in a + b}) or ["x"], dtype=object)
    code = {d: i for i, d in enumerate(docs)}
    rng = np.random.default_rng(len(pairs))
    perm = rng.permutation(len(docs))  # codes need not follow the docno order
    docs_p = docs[np.argsort(perm)]

    def csr(lists):
        off = np.concatenate([[0], np.cumsum([len(x) for x in lists])])
        flat = np.array([perm[code[d]] for x in lists for d in x], dtype=np.int64)
        return off, flat

    ktu, rbo = ktu_rbo(
        csr([a for a, _ in pairs]), csr([b for _, b in pairs]), docs_p, depth=depth, p=p
    )
    for k, (a, b) in enumerate(pairs):
        want = _brute_ktu(a[:depth], b[:depth])
        assert _close(ktu[k], want, 1e-12), (a, b, depth)
        assert _close(rbo[k], _brute_rbo(a[:depth], b[:depth], p, depth), 1e-12), (a, b, depth, p)


# ---------------------------------------------------------------------------
# topics one side lacks, advanced=, id dtypes, the caller's frames
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small():
    qrels, runs = irf.datasets.synthetic(systems=3, topics=12, depth=40, rng=11)
    runs = runs.assign(system=runs.system.astype(str), topic=runs.topic.astype(str))
    rng = np.random.default_rng(3)
    rep = runs.assign(score=runs.score + rng.normal(0, 0.3, len(runs)))
    topics = sorted(runs.topic.unique())
    # the reproduction lost two topics of sys1 and one of every system
    lost = ((rep.system == "sys1") & rep.topic.isin(topics[:2])) | (rep.topic == topics[-1])
    return qrels, runs, rep[~lost].reset_index(drop=True)


def test_missing_topics_policies(small):
    qrels, runs, rep = small
    o = irf.evaluate(runs, qrels, ["AP"]).sel(measure="AP")
    r = irf.evaluate(rep, qrels, ["AP"]).sel(measure="AP").reindex(topic=o.topic)
    skip = irf.meta.reproducibility(runs, rep, qrels, measures="AP", baseline="sys0")
    zero = irf.meta.reproducibility(
        runs, rep, qrels, measures="AP", baseline="sys0", missing="zero"
    )
    common = irf.meta.reproducibility(
        runs, rep, qrels, measures="AP", baseline="sys0", missing="common"
    )
    keep = r.notnull().all("system") & o.notnull().all("system")
    for s in ["sys0", "sys1", "sys2"]:
        x, y = o.sel(system=s).values, r.sel(system=s).values
        both = ~np.isnan(x) & ~np.isnan(y)
        assert skip.rmse.sel(system=s, measure="AP").item() == pytest.approx(
            np.sqrt(np.mean((x[both] - y[both]) ** 2)), rel=1e-12
        )
        z = np.nan_to_num(y)
        assert zero.rmse.sel(system=s, measure="AP").item() == pytest.approx(
            np.sqrt(np.mean((np.nan_to_num(x) - z) ** 2)), rel=1e-12
        )
        k = keep.values
        assert common.rmse.sel(system=s, measure="AP").item() == pytest.approx(
            np.sqrt(np.mean((x[k] - y[k]) ** 2)), rel=1e-12
        )
        # KTU / RBO: only topics both rankings exist for
        assert int(skip.ktu_topic.sel(system=s).notnull().sum()) == int(both.sum())
    # ER over the topics both the advanced and the baseline have, per experiment
    a, b = "sys2", "sys0"
    d_o = (o.sel(system=a) - o.sel(system=b)).values
    d_r = (r.sel(system=a) - r.sel(system=b)).values
    assert skip.er.sel(system=a, measure="AP").item() == pytest.approx(
        np.nanmean(d_r) / np.nanmean(d_o), rel=1e-12
    )
    # RI (and so delta RI) on the same topics as ER: those both systems have (it averaged
    # each system over its own topics, so ER and delta RI of one row used different topics)
    for name, x in (("ri_original", o), ("ri_reproduced", r)):
        xa, xb = x.sel(system=a).values, x.sel(system=b).values
        both = ~np.isnan(xa) & ~np.isnan(xb)
        want = (xa[both].mean() - xb[both].mean()) / xb[both].mean()
        assert skip[name].sel(system=a, measure="AP").item() == pytest.approx(want, rel=1e-12)
    assert common.sizes["topic"] == int(keep.sum())


def test_advanced_subset_and_caller_frames(small):
    qrels, runs, rep = small
    before_o, before_r = runs.copy(), rep.copy()
    ds = irf.meta.reproducibility(
        runs, rep, qrels, measures=["AP"], baseline="sys0", advanced=["sys2"]
    )
    pd.testing.assert_frame_equal(runs, before_o)
    pd.testing.assert_frame_equal(rep, before_r)
    er = ds.er.sel(measure="AP").to_series()
    assert er.notna().tolist() == [False, False, True]
    with pytest.raises(InputError, match="advanced systems"):
        irf.meta.reproducibility(runs, rep, qrels, measures="AP", baseline="sys0", advanced="sys0")


@pytest.mark.parametrize("dtype", ["category", "string[pyarrow]", "object"])
def test_id_dtypes(small, dtype):
    qrels, runs, rep = small
    want = irf.meta.reproducibility(runs, rep, qrels, measures="AP")
    conv = {c: rep[c].astype(dtype) for c in ("system", "topic", "doc")}
    got = irf.meta.reproducibility(
        runs.astype({"doc": dtype}), rep.assign(**conv), qrels, measures="AP"
    )
    for v in want.data_vars:
        np.testing.assert_array_equal(got[v].values, want[v].values, err_msg=v)


def _write_run(run: pd.DataFrame, path) -> None:
    """A TREC run file, score descending, ties by docno ascending (repro_eval breaks them)."""
    run = run.sort_values(["topic", "score", "doc"], ascending=[True, False, True])
    with open(path, "w") as fh:
        for t, d, sc, s in zip(run.topic, run.doc, run.score, run.system, strict=True):
            fh.write(f"{t} Q0 {d} 0 {float(sc)!r} {s}\n")


def test_rpd_evaluator_end_to_end(robust, rpe, tmp_path):
    """repro_eval's own RpdEvaluator reading TREC files: trim(), evaluate(), then its measures."""
    from repro_eval.Evaluator import RpdEvaluator

    orig, rep, qrels = robust["orig"], robust["rep"], robust["qrels"]
    b, a = "SABIR03BASE", "aplrob03a"
    q = qrels[qrels.topic.astype(str).isin(set(orig.topic))]
    _write_qrels(q, tmp_path / "qrels")
    paths = {}
    for name, frame in (("bo", orig), ("ao", orig), ("br", rep), ("ar", rep)):
        sys_ = b if name[0] == "b" else a
        paths[name] = tmp_path / name
        _write_run(frame[frame.system == sys_], paths[name])
    ev = RpdEvaluator(
        qrels_orig_path=str(tmp_path / "qrels"),
        run_b_orig_path=str(paths["bo"]),
        run_a_orig_path=str(paths["ao"]),
        run_b_rep_path=str(paths["br"]),
        run_a_rep_path=str(paths["ar"]),
    )
    ev.trim()
    ev.evaluate()
    ds = irf.meta.reproducibility(
        orig[orig.system.isin([a, b])],
        rep[rep.system.isin([a, b])],
        q,
        measures=MEASURES,
        baseline=b,
        complete=True,
    )
    ktu, rbo = ev.ktu(per_topic=True), ev.rbo(per_topic=True)
    rmse, nrmse, pv = ev.rmse(), ev.nrmse(), ev.ttest()
    er, dri = ev.er(), ev.dri()
    for role, s in (("baseline", b), ("advanced", a)):
        for t, v in ktu[role].items():
            assert _close(ds.ktu_topic.sel(system=s, topic=t).item(), v), (s, t)
        for t, v in rbo[role].items():
            assert _close(ds.rbo_topic.sel(system=s, topic=t).item(), v), (s, t)
        for m in MEASURES:
            assert _close(ds.rmse.sel(system=s, measure=m).item(), rmse[role][m]), (s, m)
            assert _close(ds.nrmse.sel(system=s, measure=m).item(), nrmse[role][m]), (s, m)
            assert _close(ds.pvalue.sel(system=s, measure=m).item(), pv[role][m], 1e-9), (s, m)
    for m in MEASURES:
        assert _close(ds.er.sel(system=a, measure=m).item(), er[m]), m
        assert _close(ds.delta_ri.sel(system=a, measure=m).item(), dri[m]), m


def _write_qrels(q: pd.DataFrame, path) -> None:
    with open(path, "w") as fh:
        for t, d, r in zip(q.topic, q.doc, q.rel, strict=True):
            fh.write(f"{t} 0 {d} {int(r)}\n")


def test_rpl_evaluator_end_to_end(robust, rpe, tmp_path):
    """repro_eval's RplEvaluator (other topics, other qrels): ER, ΔRI, unpaired t-tests."""
    from repro_eval.Evaluator import RplEvaluator

    orig, rpl, qrels = robust["orig"], robust["rpl"], robust["qrels"]
    b, a = "UIUC03Rd1", "aplrob03a"
    q_o = qrels[qrels.topic.astype(str).isin(set(orig.topic))]
    q_r = qrels[qrels.topic.astype(str).isin(set(rpl.topic))]
    _write_qrels(q_o, tmp_path / "qrels_o")
    _write_qrels(q_r, tmp_path / "qrels_r")
    for name, frame, s in (("bo", orig, b), ("ao", orig, a), ("br", rpl, b), ("ar", rpl, a)):
        _write_run(frame[frame.system == s], tmp_path / name)
    ev = RplEvaluator(
        qrels_orig_path=str(tmp_path / "qrels_o"),
        qrels_rpl_path=str(tmp_path / "qrels_r"),
        **{
            f"run_{k[0]}_{'orig' if k[1] == 'o' else 'rep'}_path": str(tmp_path / k)
            for k in ("bo", "ao", "br", "ar")
        },
    )
    ev.trim()
    ev.evaluate()
    ds = irf.meta.reproducibility(
        orig[orig.system.isin([a, b])],
        rpl[rpl.system.isin([a, b])],
        q_o,
        measures=MEASURES,
        baseline=b,
        paired=False,
        qrels_reproduced=q_r,
        complete=True,
    )
    pv, er, dri = ev.ttest(), ev.er(), ev.dri()
    for role, s in (("baseline", b), ("advanced", a)):
        for m in MEASURES:
            assert _close(ds.pvalue.sel(system=s, measure=m).item(), pv[role][m], 1e-9), (s, m)
    for m in MEASURES:
        assert _close(ds.er.sel(system=a, measure=m).item(), er[m]), m
        assert _close(ds.delta_ri.sel(system=a, measure=m).item(), dri[m]), m


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 2.0))
def test_swapping_the_experiments(seed, noise):
    """Property: KTU, RBO, RMSE and the paired p-value are symmetric; ER inverts; ΔRI negates."""
    qrels, runs = irf.datasets.synthetic(systems=3, topics=6, depth=15, rng=seed)
    rng = np.random.default_rng(seed)
    rep = runs.assign(score=runs.score + noise * rng.normal(size=len(runs)))
    ab = irf.meta.reproducibility(runs, rep, qrels, measures=["AP", "P@5"], baseline="sys0")
    ba = irf.meta.reproducibility(rep, runs, qrels, measures=["AP", "P@5"], baseline="sys0")
    for v in ("ktu_topic", "rbo_topic", "rmse", "pvalue"):
        np.testing.assert_allclose(ab[v].values, ba[v].values, rtol=1e-12, atol=1e-15, err_msg=v)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_allclose(ab.er.values, 1 / ba.er.values, rtol=1e-12)
    np.testing.assert_allclose(ab.delta_ri.values, -ba.delta_ri.values, rtol=1e-12, atol=1e-15)
