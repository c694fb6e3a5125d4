"""C/W/L and C/W/L/A: seed 002 worked examples, identities, cwl_eval fixture parity, errors.

Outside references used here:
* seed 002 (Moffat et al., SIGIR 2022) Tables 1 and 2 (printed to 3 decimals);
* the cwl-eval 1.0.12 outputs stored in tests/data/cwl (see SOURCE.txt), 4 decimals;
* closed forms of RBP (Moffat & Zobel), AP (Eq. 11), ERR (Eq. 14) written out naively here.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import irframe as irf
from irframe.cwl import (
    AFunction,
    CFunction,
    GainRangeError,
    Rankings,
    a_function,
    c_function,
    cwl,
    cwl_from_gains,
    cwla_from_gains,
    cwla_grid,
    degeneracy,
    user_model,
)
from irframe.errors import DegenerateMeasureWarning, MeasureParamError

DATA = Path(__file__).resolve().parent / "data" / "cwl"


# ----------------------------------------------------------------------------- helpers
def read_result(path: Path) -> pd.DataFrame:
    """cwl_eval result file: topic element_type doc rank score run (file order kept)."""
    d = pd.read_csv(
        path,
        sep=r"\s+",
        header=None,
        dtype=str,
        names=["topic", "element_type", "doc", "rank", "score", "system"],
    )
    d["score"] = d["score"].astype(float)
    d["rank"] = d["rank"].astype(int)
    return d


def read_gains(path: Path) -> pd.DataFrame:
    d = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, names=["topic", "it", "doc", "rel"])
    d["rel"] = d["rel"].astype(float)
    return d[["topic", "doc", "rel"]]


def read_metrics(path: Path) -> list[str]:
    return [line.strip() for line in open(path) if line.strip()]


def read_expected(path: Path) -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in open(path) if line.strip()]


def assert_matches_cwl_eval(ds, expected, system, cols=("EU", "ETU", "EC", "ETC", "ED")):
    """Every printed value equals ours formatted with cwl_eval's {:.4f}; names match too."""
    pos = defaultdict(int)
    assert len(expected) == ds.sizes["topic"] * ds.sizes["measure"]
    # plain arrays (topic x measure) per column: a per-value DataArray.sel costs far more
    where = {t: i for i, t in enumerate(ds.topic.values.tolist())}
    values = {c: ds[c].sel(system=system).transpose("topic", "measure").values for c in cols}
    for row in expected:
        topic, name = row[0], row[1]
        j = pos[topic]
        pos[topic] += 1
        assert str(ds.cwl_name.values[j]).strip() == name.strip()
        for col, text in zip(cols, row[2 : 2 + len(cols)], strict=True):
            got = float(values[col][where[topic], j])
            assert f"{got:.4f}" == text, (topic, name, col, got, text)


# ----------------------------------------------------------------------------- seed Table 1 / 2
TABLE_R = [0.7, 0.4, 0.0, 1.0, 0.5, 0.3]
TABLE_C = [0.8, 1.0, 1.0, 0.7, 0.4, 0.0]
# seed 002, Table 1 columns V(i), L(i), W(i), W(i)·r_i and Table 2 column A_avg(i), L(i)·A(i)
TABLE1_V = [1.000, 0.800, 0.800, 0.800, 0.560, 0.224]
TABLE1_L = [0.200, 0.000, 0.000, 0.240, 0.336, 0.224]
TABLE1_W = [0.239, 0.191, 0.191, 0.191, 0.134, 0.054]
TABLE1_WR = [0.167, 0.076, 0.000, 0.191, 0.067, 0.016]
TABLE2_AAVG = [0.700, 0.550, 0.367, 0.525, 0.520, 0.483]
TABLE2_LA = [0.140, 0.000, 0.000, 0.126, 0.175, 0.108]


def table_c():
    return CFunction("seed_table1", lambda r: np.array(TABLE_C))


def test_seed_table1_columns_and_sums():
    r = Rankings.from_gains(TABLE_R)
    m = user_model(table_c()(r))
    np.testing.assert_array_equal(np.round(m.V[0], 3), TABLE1_V)
    np.testing.assert_array_equal(np.round(m.L[0], 3), TABLE1_L)
    np.testing.assert_array_equal(np.round(m.W[0], 3), TABLE1_W)
    np.testing.assert_array_equal(np.round(m.W[0] * np.array(TABLE_R), 3), TABLE1_WR)
    assert round(float(m.vplus[0]), 3) == 4.184  # V+
    assert round(float(m.L[0].sum()), 3) == 1.000
    assert round(float(m.W[0].sum()), 3) == 1.000
    out = cwl_from_gains(TABLE_R, table_c())
    assert round(float(out["EU"][0]), 3) == 0.518  # ERG
    assert round(float(out["ED"][0]), 3) == 4.184


def test_seed_table2_aavg():
    r = Rankings.from_gains(TABLE_R)
    m = user_model(table_c()(r))
    A = a_function("avg")(r, m)[0]
    np.testing.assert_array_equal(np.round(A, 3), TABLE2_AAVG)
    np.testing.assert_array_equal(np.round(m.L[0] * A, 3), TABLE2_LA)
    assert round(float(cwla_from_gains(TABLE_R, table_c(), "avg")[0]), 3) == 0.549


def test_seed_expected_exit_rank_is_vplus():
    # sum_i i L(i) = V+ (the derivation under Eq. 5), for the Table 1 model
    m = user_model(table_c()(Rankings.from_gains(TABLE_R)))
    assert np.isclose((np.arange(1, 7) * m.L[0]).sum(), m.vplus[0])


# ----------------------------------------------------------------------------- identities (hypothesis)
gain_rows = arrays(
    np.float64,
    st.integers(1, 40),
    elements=st.one_of(st.just(0.0), st.just(1.0), st.floats(0, 1, allow_nan=False)),
)
binary_rows = arrays(np.float64, st.integers(1, 40), elements=st.sampled_from([0.0, 1.0]))


def pad(g, D=400):
    out = np.zeros(D)
    out[: len(g)] = g
    return out


def rbp_closed(g, p):
    return (1 - p) * sum(p**i * x for i, x in enumerate(g))


def ap_closed(g):  # Eq. 11 with R = relevant documents in the ranking
    R = sum(g)
    if R == 0:
        return 0.0
    hits, s = 0, 0.0
    for i, x in enumerate(g, 1):
        if x:
            hits += 1
            s += hits / i
    return s / R


def err_closed(g):  # Eq. 14
    s, keep = 0.0, 1.0
    for i, x in enumerate(g, 1):
        s += x / i * keep
        keep *= 1 - x
    return s


@settings(max_examples=60, deadline=None)
@given(gain_rows, st.floats(0.05, 0.95))
def test_rbp_identities(g, p):
    G = pad(g, 1000)  # the ERG form differs from RBP by RBP * p^D / (1 - p^D): ~1e-22 here
    C = f"RBP(p={p!r})"
    want = rbp_closed(g, p)
    # A_fin: exact at any depth; A_ERG: up to p^D (negligible at D = 400)
    assert np.isclose(cwla_from_gains(G, C, "fin")[0], want, rtol=0, atol=1e-12)
    assert np.isclose(cwla_from_gains(G, C, "ERG")[0], want, rtol=0, atol=1e-9)
    assert np.isclose(cwl_from_gains(G, C)["EU"][0], want, rtol=0, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(binary_rows)
def test_ap_identities(g):
    G = pad(g, 60)
    want = ap_closed(g)
    assert np.isclose(cwla_from_gains(G, "AP1", "ERG")[0], want, atol=1e-12)
    assert np.isclose(cwla_from_gains(G, "AP2", "avg")[0], want, atol=1e-12)
    # and cwl_eval's AP name resolves to the same C function
    assert np.isclose(cwl_from_gains(G, "APCWLMetric()")["EU"][0], want, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(gain_rows)
def test_graded_ap_two_forms_agree(g):
    # seed §3: CWLA(C_AP1, A_ERG) = CWLA(C_AP2, A_avg) also for gains in [0, 1] (grAP)
    G = pad(g, 60)
    assert np.isclose(
        cwla_from_gains(G, "AP1", "ERG")[0], cwla_from_gains(G, "AP2", "avg")[0], atol=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(gain_rows)
def test_err_identity(g):
    G = pad(g, 60)
    assert np.isclose(cwla_from_gains(G, "RR", "ERR")[0], err_closed(g), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(binary_rows)
def test_rr_binary_forms(g):
    G = pad(g, 60)
    first = next((1 / i for i, x in enumerate(g, 1) if x), 0.0)
    for C in ("RR", "RR(binary=1)"):
        for A in ("ERR", "ERG", "avg"):  # Table 3: RR* in the ERG, ERR and avg cells
            assert np.isclose(cwla_from_gains(G, C, A)[0], first, atol=1e-12), (C, A)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 30).flatmap(
        lambda n: st.tuples(
            arrays(np.float64, n, elements=st.floats(0, 1)),
            arrays(np.float64, n, elements=st.floats(0, 1)),
        )
    )
)
def test_etg_equals_vplus_times_erg_for_any_c(gc):
    g, c = gc
    cf = CFunction("random", lambda r, c=c: c)
    out = cwl_from_gains(g, cf)
    # finite-depth form: ETU = V+ EU - V(D+1) sum(g); exactly V+ EU when C(D) = 0
    assert np.isclose(
        out["ETU"][0], out["ED"][0] * out["EU"][0] - out["Tail"][0] * g.sum(), atol=1e-9
    )
    c0 = c.copy()
    c0[-1] = 0.0
    out0 = cwl_from_gains(g, CFunction("random0", lambda r, c=c0: c))
    assert np.isclose(out0["ETU"][0], out0["ED"][0] * out0["EU"][0], atol=1e-9)
    assert np.isclose(
        out0["ETU"][0], cwla_from_gains(g, CFunction("r0", lambda r, c=c0: c), "ETG")[0]
    )
    assert np.isclose(
        out0["EU"][0], cwla_from_gains(g, CFunction("r0", lambda r, c=c0: c), "ERG")[0]
    )


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (3, 25), elements=st.floats(0, 1)))
def test_a_function_endpoints(g):
    r = Rankings.from_gains(g)
    m = user_model(c_function("INST(T=2)")(r))
    np.testing.assert_array_equal(a_function("fig(delta=0)")(r, m), a_function("fin")(r, m))
    np.testing.assert_allclose(
        a_function("fig(delta=1)")(r, m), a_function("ETG")(r, m), atol=1e-12
    )
    np.testing.assert_allclose(a_function("PE(beta=1)")(r, m), a_function("max")(r, m), atol=0)
    np.testing.assert_allclose(a_function("PE(beta=0)")(r, m), a_function("fin")(r, m), atol=0)
    # Eq. 23 recursion for an interior delta, written out
    d = 0.5
    want = np.zeros_like(g)
    for i in range(g.shape[1]):
        want[:, i] = g[:, i] + (d * want[:, i - 1] if i else 0.0)
    np.testing.assert_allclose(a_function("fig(delta=0.5)")(r, m), want, atol=1e-12)


def test_fig_worked_example():
    # seed §3: delta = 0.5 gives A(4) = r1/8 + r2/4 + r3/2 + r4
    g = np.array([[0.8, 0.4, 0.2, 1.0]])
    r = Rankings.from_gains(g)
    A = a_function("fig(delta=0.5)")(r, user_model(np.ones((1, 4))))
    assert np.isclose(A[0, 3], 0.8 / 8 + 0.4 / 4 + 0.2 / 2 + 1.0)


@settings(max_examples=30, deadline=None)
@given(binary_rows, st.integers(1, 12))
def test_prec_succ_relret(g, k):
    G = pad(g, 60)
    top = G[:k]
    assert np.isclose(cwla_from_gains(G, f"P@{k}", "ERG")[0], top.sum() / k)  # Prec@k
    assert np.isclose(cwla_from_gains(G, f"P@{k}", "avg")[0], top.sum() / k)
    assert np.isclose(cwla_from_gains(G, f"P@{k}", "ETG")[0], top.sum())  # RelRet@k
    assert np.isclose(cwla_from_gains(G, f"P@{k}", "max")[0], float(top.max()))  # Succ@k


@settings(max_examples=30, deadline=None)
@given(gain_rows, st.integers(1, 12))
def test_dcg_and_sdcg(g, k):
    G = pad(g, 60)
    disc = 1 / np.log2(np.arange(2, k + 2))
    dcg = float((G[:k] * disc).sum())
    assert np.isclose(cwla_from_gains(G, f"DCG@{k}", "ETG")[0], dcg)  # DCG@k
    assert np.isclose(cwla_from_gains(G, f"SDCG@{k}", "ERG")[0], dcg / disc.sum())  # SDCG@k


# ----------------------------------------------------------------------------- Table 3 X / XX
def test_table3_flags_detected_by_probing():
    with pytest.warns(DegenerateMeasureWarning):
        grid = cwla_grid(*_tiny(), depth=50, gains="auto")
    flags = grid.flag.to_pandas()
    X = {(c, a) for c in flags.index for a in flags.columns if flags.loc[c, a] == "X"}
    XX = {(c, a) for c in flags.index for a in flags.columns if flags.loc[c, a] == "XX"}
    # Table 3: the three static C functions with A_ERR are constant
    assert X == {("P@5", "ERR"), ("RBP(p=0.8)", "ERR"), ("DCG@5", "ERR")}
    # Table 3's XX cells (AP2 with ETG and fin), plus RR with ETG: with C(i) = 1 - r_i,
    # sum_i L(i) sum_{j<=i} r_j = 1 - P - P sum(r), P = prod(1 - r_j) (no order) — see docs/cwl.md
    assert XX == {("AP2", "ETG"), ("AP2", "fin"), ("RR", "ETG")}


def test_flags_come_from_behaviour_not_names():
    # a user's static C (a name irframe has never seen) with A_ERR is still constant
    mine = CFunction("my_static", lambda r: np.where(r.rank < 3, 0.9, 0.0))
    assert degeneracy(mine, "ERR", depth=20) == "X"
    assert degeneracy(mine, "max", depth=20) == ""
    # and a user's A that ignores order
    total = AFunction("total", lambda r, m: np.broadcast_to(r.cum_gain[:, -1:], r.shape))
    assert degeneracy("RBP(p=0.5)", total, depth=20) == "XX"
    # constant X detection also for the C/W/L/A values, numerically
    vals = cwla_from_gains(np.random.default_rng(1).random((5, 20)), mine, "ERR")
    assert np.ptp(vals) < 1e-12


def test_metric_warns_on_degenerate():
    run, qrels = _tiny()
    with pytest.warns(DegenerateMeasureWarning, match="constant"):
        irf.evaluate(run, qrels, "CWLA(C=P@5,A=ERR)")
    with pytest.warns(DegenerateMeasureWarning, match="order"):
        irf.evaluate(run, qrels, "CWLA(C=AP2,A=fin)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        irf.evaluate(run, qrels, "CWLA(C=RBP(p=0.8),A=max)")


def _tiny():
    run = pd.DataFrame(
        {
            "system": ["a"] * 4 + ["b"] * 4,
            "topic": "1",
            "doc": list("wxyz") * 2,
            "score": [4.0, 3, 2, 1, 1, 2, 3, 4],
        }
    )
    qrels = pd.DataFrame({"topic": "1", "doc": ["x", "z", "q"], "rel": [2, 1, 2]})
    return run, qrels


# ----------------------------------------------------------------------------- cwl_eval fixtures
CASES = [
    ("qrel_file", None, None, {}, "qrel_file.result_file.default.tsv"),
    ("qrel_file", None, "metrics_file", {}, "qrel_file.result_file.metrics_file.tsv"),
    ("gain_file", None, None, {}, "gain_file.result_file.default.tsv"),
    ("gain_file", "cost_file", None, {}, "gain_file.result_file.cost_file.default.tsv"),
    (
        "gain_file",
        "cost_file",
        "metrics_file",
        {},
        "gain_file.result_file.cost_file.metrics_file.tsv",
    ),
    (
        "gain_file",
        None,
        "dcg_precision_metrics_file",
        {},
        "gain_file.result_file.dcg_precision_metrics_file.tsv",
    ),
    (
        "big_gain_file",
        None,
        "dcg_precision_metrics_file",
        {"max_gain": 2.0},
        "big_gain_file.result_file.maxgain2.dcg_precision_metrics_file.tsv",
    ),
    (
        "neg_gain_file",
        None,
        "dcg_precision_metrics_file",
        {"min_gain": -1.0},
        "neg_gain_file.result_file.mingain-1.dcg_precision_metrics_file.tsv",
    ),
]


@pytest.mark.parametrize("gainf,costf,metricsf,kw,expected", CASES, ids=[c[-1] for c in CASES])
def test_cwl_eval_fixture_parity(gainf, costf, metricsf, kw, expected):
    run = read_result(DATA / "result_file")
    qrels = read_gains(DATA / gainf)
    measures = read_metrics(DATA / metricsf) if metricsf else None
    ds = cwl(run, qrels, measures, costs=DATA / costf if costf else None, **kw)
    assert_matches_cwl_eval(ds, read_expected(DATA / expected), "R1")
    # the measure coordinate holds what was passed
    if measures:
        assert list(ds.measure.values) == measures


def test_cwl_eval_printed_names_and_irframe_syntax_agree():
    run = read_result(DATA / "result_file")
    qrels = read_gains(DATA / "gain_file")
    names = ["RBP@0.9", "INST-T=1", "NDCG-k@10", "U-L@50", "TBG-H@22", "BPM-Static-T=1.2-K=10"]
    ours = ["RBP(p=0.9)", "INST(T=1)", "SDCG@10", "U(L=50)", "TBG(H=22)", "BPM(T=1.2,K=10)"]
    files = [
        "RBPCWLMetric(0.9)",
        "INSTCWLMetric(1)",
        "NDCGCWLMetric(10)",
        "UMeasureCWLMetric(50)",
        "TBGCWLMetric(22)",
        "BPMCWLMetric(1.2,10)",
    ]
    a, b, c = (cwl(run, qrels, x, costs=DATA / "cost_file") for x in (names, ours, files))
    for v in ("EU", "ETU", "EC", "ETC", "ED", "ResEU"):
        np.testing.assert_array_equal(a[v].values, b[v].values)
        np.testing.assert_array_equal(a[v].values, c[v].values)
    assert list(b.measure.values) == ours


@pytest.mark.parametrize(
    "gainf,msg",
    [
        ("big_gain_file", r"\(2.0\)\s+greater than the maximum \(1.0\)"),
        ("neg_gain_file", r"\(-1.0\) less than the minimum \(0.0\)"),
    ],
)
def test_cwl_eval_expected_errors(gainf, msg):
    # cwl_eval refuses these files with its defaults (EXPECTED_ERROR.txt); so does irframe
    expected = (DATA / f"{gainf}.result_file.default.EXPECTED_ERROR.txt").read_text()
    assert "ValueError" in expected
    with pytest.raises(GainRangeError, match=msg) as e:
        cwl(read_result(DATA / "result_file"), read_gains(DATA / gainf))
    assert isinstance(e.value, ValueError)
    assert "gains=" in str(e.value)  # says how to fix it


def test_inst_refuses_gain_above_one_like_cwl_eval():
    # cwl_eval's INST checks its gain vector; with --max_gain 2 the best case pads with 2.0
    run = read_result(DATA / "result_file")
    qrels = read_gains(DATA / "big_gain_file")
    with pytest.raises(GainRangeError, match="INST"):
        cwl(run, qrels, "INST-T=1", max_gain=2.0)
    cwl(run, qrels, "P@5", max_gain=2.0)  # metrics without a range of their own are fine


def test_gains_mapping_callable_and_auto():
    run = read_result(DATA / "result_file")
    qrels = read_gains(DATA / "big_gain_file")
    by_map = cwl(
        run,
        qrels,
        ["RBP@0.8", "INST-T=2"],
        gains={2.0: 1.0, 1.0: 0.5, 0.4: 0.2, 0.2: 0.1, 0.8: 0.4},
    )
    by_fn = cwl(run, qrels, ["RBP@0.8", "INST-T=2"], gains=lambda g: g / 2)
    by_auto = cwl(run, qrels, ["RBP@0.8", "INST-T=2"], gains="auto")
    for v in ("EU", "ETU", "ResEU"):
        np.testing.assert_allclose(by_map[v].values, by_fn[v].values)
        np.testing.assert_allclose(by_auto[v].values, by_fn[v].values)
    with pytest.raises(GainRangeError, match="greater than the maximum"):
        cwl(run, qrels, "P@5", gains={2.0: 3.0})


def test_costs_need_element_types():
    run = read_result(DATA / "result_file").drop(columns="element_type")
    with pytest.raises(ValueError, match="element_type"):
        cwl(run, read_gains(DATA / "gain_file"), "P@5", costs={"E1": 1.0})


def test_costs_per_row_column_equals_cost_file():
    run = read_result(DATA / "result_file")
    table = {"E1": 1.0, "E2": 2.0, "E3": 5.0}
    run2 = run.assign(c=run.element_type.map(table))
    a = cwl(run, read_gains(DATA / "gain_file"), ["TBG-H@22", "P@5"], costs=DATA / "cost_file")
    b = cwl(run2, read_gains(DATA / "gain_file"), ["TBG-H@22", "P@5"], cost_column="c")
    for v in ("EC", "ETC", "EU", "ResETC"):
        np.testing.assert_allclose(a[v].values, b[v].values)


def test_cwl_does_not_modify_inputs_and_handles_many_systems():
    run = read_result(DATA / "result_file")
    run2 = pd.concat([run, run.assign(system="R2", doc=run.doc.iloc[::-1].values)])
    qrels = read_gains(DATA / "gain_file")
    before = run2.copy(), qrels.copy()
    ds = cwl(run2, qrels, ["AP", "RR"])
    pd.testing.assert_frame_equal(run2, before[0])
    pd.testing.assert_frame_equal(qrels, before[1])
    assert ds.EU.dims == ("system", "topic", "measure")
    one = cwl(run, qrels, ["AP", "RR"])
    np.testing.assert_array_equal(ds.EU.sel(system="R1").values, one.EU.sel(system="R1").values)


def test_depth_and_tail():
    run = read_result(DATA / "result_file")
    qrels = read_gains(DATA / "qrel_file")
    d10 = cwl(run, qrels, ["RBP@0.9", "P@5"], depth=10, residuals=False)
    # RBP(0.9) cut at 10 leaves 0.9^10 of the users reading on; P@5 leaves none
    assert np.allclose(d10.Tail.sel(measure="RBP@0.9").values, 0.9**10)
    assert np.allclose(d10.Tail.sel(measure="P@5").values, 0.0)
    assert np.allclose(d10.ED.sel(measure="RBP@0.9").values, (1 - 0.9**10) / 0.1)


def test_user_callables_in_cwl_and_grid():
    run = read_result(DATA / "result_file")
    qrels = read_gains(DATA / "gain_file")

    def half_patient(r):  # a user-defined static C: RBP(0.5) written by hand
        return np.full(r.shape, 0.5)

    a = cwl(run, qrels, [half_patient, "RBP@0.5"])
    np.testing.assert_allclose(
        a.EU.sel(measure="half_patient").values, a.EU.sel(measure="RBP@0.5").values
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateMeasureWarning)
        g = cwla_grid(run, qrels, [half_patient], ["fin", lambda r, m: r.gain], order="input")
    np.testing.assert_allclose(g.isel(A=0).values, g.isel(A=1).values)


def test_bad_specs_raise_clear_errors():
    with pytest.raises(MeasureParamError, match="Did you mean"):
        c_function("RPB(p=0.8)")
    with pytest.raises(MeasureParamError, match="needs a depth"):
        c_function("P")
    with pytest.raises(MeasureParamError, match=r"\[0, 1\]"):
        c_function("RBP(p=1.5)")
    with pytest.raises(MeasureParamError, match="known"):
        a_function("median")
    with pytest.raises(MeasureParamError, match="cwl_eval metric class"):
        c_function("FooCWLMetric(1)")
    run, qrels = _tiny()
    with pytest.raises(ValueError, match="requested twice"):
        cwl(run, qrels, ["P@5", "P@5"], gains="auto")
    with pytest.raises(ValueError, match="depth"):
        cwl(run, qrels, "P@5", depth=0, gains="auto")
    with pytest.raises(ValueError):
        irf.evaluate(run, qrels, "CWLA(C=Nope,A=max)")


def test_metric_namespace_measures():
    run, qrels = _tiny()
    cube = irf.evaluate(
        run,
        qrels,
        ["RBP(p=0.5)", "RBP(p=0.5,rel=2)", "ERR@3", "CWL(C=AP)", "CWLA(C=RBP(p=0.5),A=fin)", "AP"],
    )
    a = cube.sel(system="a", topic="1")
    # system a ranks w x y z: x has grade 2, z grade 1
    assert a.sel(measure="RBP(p=0.5)") == pytest.approx(0.5 * (0.5 * 2 + 0.125 * 1))
    assert a.sel(measure="RBP(p=0.5,rel=2)") == pytest.approx(0.5 * 0.5)
    r2 = 3 / 16  # gdeval: (2^g - 1) / 2^4 with g = 2 (z, g = 1, is below the cutoff)
    assert a.sel(measure="ERR@3") == pytest.approx(r2 / 2)
    # CWLA(C=RBP, A=fin) = RBP on gains grade/2 ("auto")
    assert a.sel(measure="CWLA(C=RBP(p=0.5),A=fin)") == pytest.approx(0.5 * (0.5 * 1 + 0.125 * 0.5))
    # cwl_eval's AP (divides by relevant retrieved) differs from trec_eval's AP (all relevant: q too)
    assert a.sel(measure="CWL(C=AP)") != pytest.approx(float(a.sel(measure="AP")))
    assert next(iter(cube.measure.values)) == "RBP(p=0.5)"


def test_auto_gains_do_not_depend_on_which_topics_a_run_covers():
    """gains='auto' scales by the qrels' largest grade over all topics, so a topic's value is the
    same whether the run covers one topic or all of them (found by the Dask partition check)."""
    import irframe as irf

    qrels = pd.DataFrame({"topic": ["1", "1", "2"], "doc": ["a", "b", "c"], "rel": [1, 0, 2]})
    runs = pd.DataFrame(
        {"system": "s", "topic": ["1", "1", "2"], "doc": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}
    )
    ms = ["CWLA(C=RBP(p=0.8),A=max)", "CWL(C=RBP(p=0.8),out=EU)"]
    full = irf.evaluate(runs, qrels, ms)
    alone = irf.evaluate(runs[runs.topic == "1"], qrels, ms)
    np.testing.assert_array_equal(alone.sel(topic="1").values, full.sel(topic="1").values)
    # grade 1 of 2 on the collection's scale: gain 0.5
    assert full.sel(system="s", topic="1", measure=ms[0]).item() == pytest.approx(0.5, abs=1e-12)


def test_many_short_rankings_are_computed_in_bounded_chunks(monkeypatch):
    """C/W/L pads every ranking to the depth (1000 by default, cwl_eval's): 100,000 rankings
    of 5 documents took 4-9 GB as one matrix; they are computed a chunk of rankings at a
    time.  Property: the measure path (evaluate) and the frame path (cwl, itself checked
    against cwl_eval in test_cwl_reference.py, chunked or not) give the same values with
    chunks of one ranking."""
    import irframe as irf

    qrels, runs = irf.datasets.synthetic(systems=3, topics=7, depth=12, rng=4)
    ms = ["CWL(C=RBP(p=0.8),out=EU)", "CWL(C=INST(T=2),out=ETC)", "CWLA(C=RBP(p=0.8),A=max)"]
    whole = irf.evaluate(runs, qrels, ms)
    monkeypatch.setattr("irframe.measures.cwl.CHUNK_CELLS", 1)
    chunked = irf.evaluate(runs, qrels, ms)
    np.testing.assert_array_equal(chunked.values, whole.values)
    frame = irf.cwl.cwl(runs, qrels, ["RBP(p=0.8)"], gains="auto")
    np.testing.assert_allclose(
        chunked.sel(measure=ms[0]).values, frame["EU"].sel(measure="RBP(p=0.8)").values, rtol=1e-12
    )
