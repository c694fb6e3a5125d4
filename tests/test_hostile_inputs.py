"""Hostile inputs, round 2 (issue 33): records, judgment sets, qrels checks, boolean options,
report cells, small-sample statistics, bounded memory, tie groups cut by a depth, thread-safe
registry scopes and error messages in the user's spelling.

Each test states its reference: an error type and the names its message must carry, a
brute-force enumeration, or scipy.
"""

from __future__ import annotations

import re
import sys
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import irframe as irf
from irframe.errors import EmptyOverlapError, InputError

Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance"])
TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
DocFirst = namedtuple("DocFirst", ["doc_id", "query_id", "score"])


@pytest.fixture
def run():
    return pd.DataFrame(
        {"system": "s", "topic": ["1", "1", "2"], "doc": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}
    )


@pytest.fixture
def qrels():
    return pd.DataFrame({"topic": ["1", "1", "2"], "doc": ["a", "b", "c"], "rel": [1, 0, 1]})


# ---------------------------------------------------------------- records


def test_records_of_two_namedtuple_classes_are_an_error_naming_both(run):
    recs = [ScoredDoc("1", "a", 2.0), DocFirst("b", "1", 1.0)]  # same fields, other order
    with pytest.raises(InputError, match=r"ScoredDoc\(query_id, doc_id, score\).*DocFirst"):
        irf.evaluate(recs, [Qrel("1", "a", 1)], "P@1")
    with pytest.raises(InputError, match=r"Qrel\(.*\(record 0\).*TrecQrel\(.*\(record 1\)"):
        irf.evaluate(run, [Qrel("1", "a", 1), TrecQrel("1", "b", 1, "0")], "P@1")


def test_records_are_read_by_field_name(run, qrels):
    """A record class whose fields come in another order gives the frame's own result."""
    want = irf.evaluate(run, qrels, ["P@1", "AP"])
    recs = [DocFirst(d, t, s) for t, d, s in zip(run.topic, run.doc, run.score, strict=True)]
    got = irf.evaluate(recs, qrels, ["P@1", "AP"], system="s")
    np.testing.assert_array_equal(got.values, want.values)

    @dataclass
    class Judgment:
        relevance: int
        doc_id: str
        query_id: str

    js = [Judgment(r, d, t) for t, d, r in zip(qrels.topic, qrels.doc, qrels.rel, strict=True)]
    np.testing.assert_array_equal(irf.evaluate(run, js, ["P@1", "AP"]).values, want.values)


def test_records_mixed_with_plain_tuples_name_both(run):
    with pytest.raises(InputError, match=r"Qrel.*tuple"):
        irf.evaluate(run, [Qrel("1", "a", 1), ("1", "b", 0)], "P@1")


# ---------------------------------------------------------------- judgment sets


def test_judgment_set_errors_name_the_set(run, qrels):
    with pytest.raises(InputError, match=r"judgment set 'shallow' is empty"):
        irf.evaluate(run, {"full": qrels, "shallow": qrels.iloc[:0]}, "P@1")
    other = qrels.assign(topic=["8", "8", "9"])
    with pytest.raises(EmptyOverlapError, match=r"judgment set 'other': No queries"):
        irf.evaluate(run, {"full": qrels, "other": other}, "P@1")
    disjoint = qrels.assign(doc=["x", "y", "z"])
    with pytest.raises(InputError, match=r"'full', 'disjoint' share none"):
        irf.evaluate(run, {"full": qrels, "disjoint": disjoint}, "P@1", judgments="common")
    with pytest.raises(InputError, match=r"'1' maps to a dict.*'full' maps to DataFrame"):
        irf.evaluate(run, {"full": qrels, "1": {"a": 1}}, "P@1")


def test_judgment_set_given_as_records(run, qrels):
    recs = [Qrel(t, d, r) for t, d, r in zip(qrels.topic, qrels.doc, qrels.rel, strict=True)]
    got = irf.evaluate(run, {"frame": qrels, "records": recs}, "AP")
    np.testing.assert_array_equal(got.sel(qrels="frame").values, got.sel(qrels="records").values)
    bad = [Qrel("1", "a", 1), TrecQrel("1", "b", 1, "0")]
    with pytest.raises(InputError, match=r"judgment set 'records' mixes records"):
        irf.evaluate(run, {"frame": qrels, "records": bad}, "AP")


# ---------------------------------------------------------------- one check for every qrels


def _evaluate_error(run, q):
    with pytest.raises(InputError) as e:
        irf.evaluate(run, q, "P@1")
    return e.value


@pytest.mark.parametrize(
    "bad",
    [
        lambda q: q.assign(rel=[1.0, np.nan, 1.0]),  # NaN grade
        lambda q: q.assign(topic=[1, 1, 2]),  # integer topic ids that never match
        lambda q: q.assign(doc=[None, "b", "c"]),  # a missing doc id
        lambda q: q.assign(rel=["1", "x", "0"]),  # a grade that is not a number
    ],
    ids=["nan-grade", "int-topics", "missing-doc", "text-grade"],
)
def test_functions_taking_qrels_check_them_as_evaluate_does(run, qrels, bad):
    """label_agreement, label_confusion, degrade_qrels and join raise evaluate's own error."""
    from irframe import meta

    q = bad(qrels)
    want = _evaluate_error(run, q)
    core = str(want).split(": column", 1)[1]  # the message after the frame's name
    calls = {
        "label_agreement": lambda: meta.label_agreement({"nist": qrels, "llm": q}),
        "label_confusion": lambda: meta.label_confusion(qrels, q),
        "degrade_qrels": lambda: meta.degrade_qrels(q, 0.5, rng=0),
        "join": lambda: irf.join(run, q),
    }
    for name, call in calls.items():
        with pytest.raises(type(want)) as got:
            call()
        assert core in str(got.value), name
    with pytest.raises(InputError, match=r"judgment set 'llm'"):
        meta.label_agreement({"nist": qrels, "llm": q})


def test_join_and_tie_sensitivity_given_judgment_sets(run, qrels):
    with pytest.raises(InputError, match=r"join attaches one qrels frame.*'a', 'b'"):
        irf.join(run, {"a": qrels, "b": qrels})
    both = irf.tie_sensitivity(run, {"a": qrels, "b": qrels.assign(rel=[0, 1, 1])}, ["RR"])
    one = irf.tie_sensitivity(run, qrels, ["RR"])
    got = both[both.qrels == "a"].drop(columns="qrels").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, one)
    assert set(both.qrels) == {"a", "b"}


# ---------------------------------------------------------------- resampling memory


def _peak(fn):
    import tracemalloc

    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_block_rows_bound_pairs_samples_and_topics():
    """A block holds B x n resamples and P x B products: B (P + n) <= the block budget, at the
    declared maxima (n_samples up to params.DRAWS.high, any number of pairs and topics)."""
    from irframe import _paired
    from irframe.params import DRAWS

    budget = _paired._CHUNK_ELEMENTS
    for P in (1, 2, 1225, 10**5, 10**7):
        for n in (2, 30, 100, 10**4, 10**6):
            b = _paired.block_rows(P, n)
            assert b >= 1
            assert b == 1 or b * (P + n) <= budget
            assert min(b, DRAWS.high) * (P + n) <= max(budget, P + n)


@pytest.mark.parametrize("cache", [0, 2**20], ids=["replay", "cached"])
@pytest.mark.parametrize("kind", ["bootstrap", "randomization", "bootstrap-ci-only"])
def test_resampling_memory_is_bounded_and_blocks_change_nothing(monkeypatch, kind, cache):
    """Peak memory (tracemalloc) with a small block budget stays within a few blocks, far below
    the unblocked P x n_samples (bootstrap) or n_samples x n (randomization) arrays, and the
    p-values and intervals equal the one-block computation with the same seed."""
    from irframe import _paired

    rng = np.random.default_rng(3)
    if kind == "randomization":
        P, n, B = 1, 100, 20_000  # unblocked: a 20,000 x 100 sign matrix (16 MB)
    else:
        P, n, B = 60, 30, 5_000  # unblocked: 60 x 5,000 bootstrap means (2.4 MB)
    D = rng.normal(size=(P, n))

    def run():
        if kind == "randomization":
            return _paired.randomization_kernel(D, B, np.random.default_rng(1), False)
        want_p = kind == "bootstrap"
        return _paired.bootstrap_test(
            D, B, np.random.default_rng(1), 0.05, want_p=want_p, want_ci=True
        )

    whole, _ = _peak(run)
    monkeypatch.setattr(_paired, "_CHUNK_ELEMENTS", 10_000)  # 80 kB blocks
    monkeypatch.setattr(_paired, "_CACHE_BYTES", cache)  # resamples drawn again, or kept
    blocked, peak = _peak(run)
    unblocked_bytes = 8 * (P * B if kind != "randomization" else B * n)
    assert peak < 12 * 8 * 10_000 + 8 * B + 2 * min(cache, B * n) < unblocked_bytes, peak
    for a, b in zip(whole, blocked, strict=True):
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cache", [0, 2**20], ids=["replay", "cached"])
def test_grouped_bootstrap_leaves_rng_where_one_pass_would(monkeypatch, cache):
    from irframe import _paired

    D = np.random.default_rng(0).normal(size=(9, 12))
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    one = _paired.bootstrap_test(D, 3000, g1, 0.05, want_p=True, want_ci=True)
    monkeypatch.setattr(_paired, "_CHUNK_ELEMENTS", 7_000)
    monkeypatch.setattr(_paired, "_CACHE_BYTES", cache)
    grouped = _paired.bootstrap_test(D, 3000, g2, 0.05, want_p=True, want_ci=True)
    for a, b in zip(one, grouped, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    assert g1.integers(1 << 60) == g2.integers(1 << 60)


def test_compare_at_many_samples_and_systems_stays_in_blocks(monkeypatch):
    """stats.compare itself (all pairs of 8 systems, bootstrap test and CI) within blocks."""
    import xarray as xr

    from irframe import _paired
    from irframe import stats as irs

    rng = np.random.default_rng(1)
    x = rng.uniform(size=(8, 40))
    cube = xr.DataArray(x, dims=("system", "topic"), coords={"system": [f"s{i}" for i in range(8)]})
    monkeypatch.setattr(_paired, "_CHUNK_ELEMENTS", 16_000)
    res, peak = _peak(lambda: irs.compare(cube, test="bootstrap", n_samples=8_000, rng=0))
    assert peak < 8 * (28 * 8_000) / 2, peak  # half of the 28 pairs x 8,000 bootstrap means
    assert res.pvalue.notnull().sum() == 8 * 7


# ---------------------------------------------------------------- small samples


def _pair_cube(d):
    import xarray as xr

    d = np.asarray(d, float)
    x = np.stack([0.5 + d / 2, 0.5 - d / 2])
    return xr.DataArray(
        x,
        dims=("system", "topic"),
        coords={"system": ["a", "b"], "topic": [f"t{i}" for i in range(len(d))]},
    )


@pytest.mark.parametrize("n", [2, 3, 5, 10, 29])
def test_bootstrap_on_few_topics_warns(n):
    from irframe import stats as irs
    from irframe.errors import CalibrationWarning

    cube = _pair_cube(np.linspace(0.1, 0.2, n))  # n same-sign differences
    with pytest.warns(CalibrationWarning, match=rf"on {n} topics.*randomization"):
        irs.compare(cube, test="bootstrap", n_samples=200, rng=0)
    with pytest.warns(CalibrationWarning):
        irs.compare(cube, test="t", ci="bootstrap", n_samples=200, rng=0)
    with pytest.warns(CalibrationWarning):
        irs.mean_ci(cube, method="bootstrap", n_samples=200, rng=0)


def test_bootstrap_on_enough_topics_and_other_tests_do_not_warn():
    import warnings

    from irframe import stats as irs

    cube = _pair_cube(np.linspace(-0.1, 0.2, 30))
    small = _pair_cube([0.1, 0.2, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        irs.compare(cube, test="bootstrap", n_samples=200, rng=0)
        for test in ("t", "wilcoxon", "randomization"):
            irs.compare(small, test=test, rng=0)


def test_discriminative_power_on_an_uncalibrated_test_warns():
    from irframe import meta
    from irframe.errors import CalibrationWarning

    cube = _pair_cube([0.1, 0.2, 0.3, 0.1, 0.2])
    with pytest.warns(CalibrationWarning):
        meta.discriminative_power(cube, test="bootstrap", n_samples=200, rng=0)


@pytest.mark.parametrize("n", [2, 3, 5, 7])
def test_exact_randomization_type_one_error_is_at_most_alpha(n):
    """Brute force: under the null every sign vector of |d| is equally likely, so the exact
    test's rejection rate is (# of the 2**n sign vectors it rejects) / 2**n, which must be
    <= alpha (for n <= 5 it can never reject at 0.05: its smallest p-value is 2 / 2**n)."""
    import xarray as xr

    from irframe import stats as irs

    mags = np.arange(1, n + 1) / (n + 1)
    signs = np.array([[1 if (k >> i) & 1 else -1 for i in range(n)] for k in range(2**n)])
    d = signs * mags  # (2**n, n)
    x = np.stack([0.5 + d.T / 2, 0.5 - d.T / 2])  # (2, n, 2**n)
    cube = xr.DataArray(x, dims=("system", "topic", "measure"))
    for alpha in (0.05, 0.1, 0.25):
        res = irs.compare(cube, test="randomization", correction=None, alpha=alpha)
        rate = float(res.significant.isel(system=0, other=1).mean())
        assert rate <= alpha
        assert res.attrs["exact"]


# ---------------------------------------------------------------- boolean options


def _flag_calls(run, qrels):
    import xarray as xr

    from irframe import meta
    from irframe import stats as irs

    cube = irf.evaluate(
        pd.concat([run, run.assign(system="t", score=run.score[::-1].to_numpy())]),
        qrels,
        ["P@1", "AP"],
    )
    x = xr.DataArray(np.random.default_rng(0).uniform(size=(3, 6)), dims=("system", "topic"))
    x = x.assign_coords(system=["a", "b", "c"])
    two = xr.concat([cube, cube], dim="qrels").assign_coords(qrels=["q1", "q2"])
    return {
        "bounds": lambda v: irf.evaluate(run, qrels, "P@1", bounds=v),
        "complete": lambda v: irf.evaluate(run, qrels, "P@1", complete=v),
        "judged_only": lambda v: irf.evaluate(run, qrels, "P@1", judged_only=v),
        "ci": lambda v: irf.report(cube, ci=v),
        "wins": lambda v: irf.report(cube, wins=v),
        "exact": lambda v: irs.compare(x, test="randomization", exact=v),
        "two_way": lambda v: irs.tukey_hsd(x, two_way=v),
        "per_pair": lambda v: meta.stability(x, per_pair=v, n_trials=5, rng=0),
        "symmetric": lambda v: meta.kendall_tau([1, 2, 3], [1, 3, 2], symmetric=v),
        "all_pairs": lambda v: meta.decision_flips(irs.compare(two), all_pairs=v),
        "graded": lambda v: irf.datasets.synthetic(2, 2, 5, graded=v, rng=0),
        "exact ": lambda v: irf.lexi_theory.tie_probability("LR", n=5, m=2, exact=v),
    }


@pytest.mark.parametrize("bad", ["False", "no", "yes", 0, 1, 2.0, [True]], ids=repr)
def test_boolean_options_take_a_bool_or_raise(run, qrels, bad):
    from irframe.errors import OptionError

    for name, call in _flag_calls(run, qrels).items():
        with pytest.raises(OptionError, match=rf"^{name.strip()} must be True or False \(a bool\)"):
            call(bad)


def test_boolean_options_take_numpy_bools(run, qrels):
    for call in _flag_calls(run, qrels).values():
        call(np.bool_(False))
        call(False)


# ---------------------------------------------------------------- report


def _report_cube(systems, measures=("AP", "EC")):
    import xarray as xr

    x = np.random.default_rng(0).uniform(size=(len(systems), 8, len(measures)))
    return xr.DataArray(
        x,
        dims=("system", "topic", "measure"),
        coords={"system": list(systems), "measure": list(measures)},
    )


def test_report_rows_survive_newlines_and_markup_in_names():
    from html.parser import HTMLParser

    names = ["a\nb", "c|d", "e\r\n\nf", "<b>g", "h\\", "i\x00&_%$#{}~^"]
    r = irf.report(_report_cube(names))
    md = r.to_markdown(legend=False).splitlines()
    assert len(md) == 2 + len(names)
    for line in md:
        cells = re.split(r"(?<!\\)\|", line)[1:-1]
        assert len(cells) == 4  # letter, system, AP, EC
    tex = r.to_latex(legend=False)
    assert "\n\n" not in tex
    body = tex.splitlines()[4:-2]
    assert len(body) == len(names)
    assert all(len(re.split(r"(?<!\\)&", row)) == 4 for row in body)

    class Count(HTMLParser):
        rows = cells = 0

        def handle_starttag(self, tag, attrs):
            self.rows += tag == "tr"
            self.cells += tag == "td"

    p = Count()
    p.feed(r.to_html())
    assert (p.rows, p.cells) == (1 + len(names), 4 * len(names))


def test_report_measures_lower_is_better_and_integer_systems():
    from irframe.errors import IrframeError, UnknownMeasureError

    cube = _report_cube([0, 1, 2])
    with pytest.raises(UnknownMeasureError, match=r"'APP'.*Did you mean 'AP'"):
        irf.report(cube, measures=["AP", "APP"])
    with pytest.raises(UnknownMeasureError, match=r"'E'.*Did you mean 'EC'"):
        irf.report(cube, lower_is_better="E")
    one = irf.report(cube, lower_is_better="EC")  # one name, not its letters
    assert f"**{one.means['EC'].min():.4f}**" in one.to_markdown()
    want = irf.stats.compare(cube, 0)
    for spelling in (0, np.int64(0), "0"):
        r = irf.report(cube, baseline=spelling)
        np.testing.assert_array_equal(r.comparison.pvalue.values, want.pvalue.values)
        assert "worse than 0 (" in r.legend
    with pytest.raises(
        IrframeError, match=r"baseline '7' is not a system of the cube.*'0', '1', '2'"
    ):
        irf.report(cube, baseline=7)


# ---------------------------------------------------------------- depth cuts a tie group

TIE_MEASURES = [
    "P@2",
    "P@5",
    "R@5",
    "AP",
    "RR",
    "nDCG",
    "nDCG@4",
    "Success@2",
    "Rprec",
    "NumRet",
    "NumRelRet",
    "Judged@5",
    "RBP(p=0.8)",
]


def _brute_force(docs_before, tied, docs_after, qrels, depth, measures):
    """Every order of the tied documents as its own strictly ordered run, cut at depth by the
    plain trec_eval path -> (mean, min, max) per measure over the orders."""
    import itertools

    vals = []
    for perm in itertools.permutations(tied):
        order = [*docs_before, *perm, *docs_after]
        run = pd.DataFrame(
            {
                "system": "s",
                "topic": "1",
                "doc": order,
                "score": np.arange(len(order), 0, -1, dtype=float),
            }
        )
        vals.append(irf.evaluate(run, qrels, measures, depth=depth).values.ravel())
    v = np.array(vals)
    return v.mean(axis=0), v.min(axis=0), v.max(axis=0)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6])
def test_tie_orders_see_the_tie_group_a_depth_cuts(depth):
    before, tied, after = ["a"], ["b", "c", "d", "e"], ["g"]
    scores = [3.0] + [2.0] * len(tied) + [1.0]
    run = pd.DataFrame({"system": "s", "topic": "1", "doc": before + tied + after, "score": scores})
    qrels = pd.DataFrame(
        {"topic": "1", "doc": ["a", "c", "e", "g", "z"], "rel": [0, 2, 1, 1, 1]}
    )  # b, d unjudged; z relevant, not retrieved
    mean, lo, hi = _brute_force(before, tied, after, qrels, depth, TIE_MEASURES)
    exp = irf.evaluate(run, qrels, TIE_MEASURES, order="expected", depth=depth).values.ravel()
    np.testing.assert_allclose(exp, mean, rtol=0, atol=1e-12)
    ranged = [i for i, m in enumerate(TIE_MEASURES) if not m.startswith("Judged")]
    names = [TIE_MEASURES[i] for i in ranged]
    for o, want in (("worst", lo[ranged]), ("best", hi[ranged])):
        got = irf.evaluate(run, qrels, names, order=o, depth=depth).values.ravel()
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    ts = irf.tie_sensitivity(run, qrels, names, depth=depth)
    spread = ts.set_index("measure")["spread"]
    labels = irf.evaluate(run, qrels, names).measure.values
    np.testing.assert_allclose(
        spread.loc[labels].to_numpy(), hi[ranged] - lo[ranged], rtol=0, atol=1e-12
    )
    if 1 < depth < 5:  # the depth cuts the tie group: there is a spread to see
        assert (spread > 0).any()


# ---------------------------------------------------------------- thread-safe registry scopes


def test_registry_scope_in_one_thread_never_hides_builtins_from_others():
    """One thread enters and exits scopes (registering, replacing and unregistering measures)
    in a loop while others resolve built-ins; every resolution succeeds, and on exit the
    registry holds exactly what it held before."""
    import threading

    from irframe.measures import (
        MeasureDef,
        get_definition,
        parse_measure,
        register,
        registered_measures,
        registry_scope,
        unregister,
    )

    before = registered_measures()
    stop = threading.Event()
    errors: list[BaseException] = []

    def scoper():
        i = 0
        try:
            while not stop.is_set():
                i += 1
                with registry_scope():
                    register(MeasureDef(f"Tmp{i}", lambda ctx, m: 0.0), aliases=[f"tmp{i}"])
                    register(MeasureDef("AP", lambda ctx, m: 0.0), replace=True)
                    unregister("Bpref")
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    def reader():
        try:
            for i in range(10_000):
                for name in ("nDCG", "RR", "R", "P"):  # not touched by the scoper
                    get_definition(name)
                parse_measure(f"nDCG@{i + 1}")  # a new string each time: no cache involved
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=scoper)] + [
        threading.Thread(target=reader) for _ in range(3)
    ]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, so a cleared registry would be seen
    try:
        for t in threads:
            t.start()
        for t in threads[1:]:
            t.join()
        stop.set()
        threads[0].join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[0]
    assert registered_measures() == before


def test_registry_scopes_in_two_threads_undo_only_their_own_changes():
    import threading

    from irframe.measures import MeasureDef, parse_measure, register, registry_scope, unregister

    inside, exited = threading.Event(), threading.Event()
    seen = {}

    def other():
        with registry_scope():
            register(MeasureDef("Mine", lambda ctx, m: 0.0))
            inside.set()
            exited.wait()  # the main thread's scope has exited meanwhile
            seen["mine"] = parse_measure("Mine").name
        seen["after"] = "Mine" in __import__("irframe").measures.registered_measures()

    t = threading.Thread(target=other)
    with registry_scope():
        register(MeasureDef("Theirs", lambda ctx, m: 0.0))
        t.start()
        inside.wait()
    exited.set()
    t.join()
    assert seen == {"mine": "Mine", "after": False}
    with pytest.raises(irf.UnknownMeasureError):
        parse_measure("Theirs")
    with registry_scope():  # nesting: the inner scope's changes go, the outer's stay
        register(MeasureDef("Outer", lambda ctx, m: 0.0))
        with registry_scope():
            register(MeasureDef("Inner", lambda ctx, m: 0.0))
            unregister("Outer")
        assert parse_measure("Outer").name == "Outer"
        with pytest.raises(irf.UnknownMeasureError):
            parse_measure("Inner")
    with pytest.raises(irf.UnknownMeasureError):
        parse_measure("Outer")


def test_registry_scope_exit_touches_only_the_keys_changed_inside(monkeypatch):
    """Deterministic form of the race above: exiting a scope never clears the registry nor
    removes or rewrites a key that was not changed inside it."""
    from irframe.measures import MeasureDef, register, registry, registry_scope, unregister

    log = []

    class Guard(dict):
        def clear(self):
            log.append(("clear", None))
            super().clear()

        def __delitem__(self, key):
            log.append(("del", key))
            super().__delitem__(key)

        def pop(self, key, *default):
            log.append(("del", key))
            return super().pop(key, *default)

        def __setitem__(self, key, value):
            log.append(("set", key))
            super().__setitem__(key, value)

        def update(self, *a, **k):
            log.append(("update", None))
            super().update(*a, **k)

    for name in ("_REGISTRY", "_ALIASES"):
        monkeypatch.setattr(registry, name, Guard(getattr(registry, name)))
    with registry_scope():
        register(MeasureDef("Tmp", lambda ctx, m: 0.0), aliases=["tmp"])
        register(MeasureDef("AP", lambda ctx, m: 0.0), replace=True)
        unregister("Bpref")
        changed = {k for _, k in log}
        log.clear()
    assert {k for _, k in log} <= changed
    assert not any(op in ("clear", "update") for op, _ in log)


# ---------------------------------------------------------------- messages in the user's spelling


def test_messages_show_values_as_the_user_wrote_them(run, qrels):
    """No numpy reprs (np.int64(130), np.str_('s0')) in messages: row labels, values, systems."""
    import xarray as xr

    bad = run.assign(score=[1.0, np.nan, 2.0])
    bad.index = pd.Index(np.array([128, 129, 130]))
    with pytest.raises(InputError) as e:
        irf.evaluate(bad, qrels, "P@1")
    assert "row 129: score=nan" in str(e.value) and "np." not in str(e.value)
    dup = pd.concat([run, run])
    dup.index = pd.Index(np.arange(6, dtype=np.int64) + 100)
    with pytest.raises(InputError) as e:
        irf.evaluate(dup, qrels, "P@1")
    assert "row 100: system='s'" in str(e.value) and "np." not in str(e.value)
    cube = xr.DataArray(
        np.array([[[0.1, np.nan]], [[0.2, 0.3]]]),
        dims=("system", "topic", "measure"),
        coords={"system": np.array(["s0", "s1"]), "topic": ["1"], "measure": ["AP", "P@1"]},
    )
    with pytest.raises(InputError) as e:
        irf.summarize(cube)
    assert "system 's0', topic '1'" in str(e.value) and "np." not in str(e.value)


def test_order_lists_every_valid_order(run, qrels):
    from irframe.errors import OptionError

    with pytest.raises(
        OptionError, match=r"'trec_eval'.*'expected', 'best', 'worst'; did you mean 'expected'"
    ):
        irf.evaluate(run, qrels, "P@1", order="Expected")


def test_dask_with_replicates_names_the_column_and_a_working_fix(qrels):
    dd = pytest.importorskip("dask.dataframe")

    base = irf.datasets.trec_eval_sample()
    q, r = base
    seeds = pd.concat([r.assign(seed=s) for s in (1, 2)], ignore_index=True)
    ddf = dd.from_pandas(seeds, npartitions=2)
    for frame, kw, col in (
        (ddf, {"columns": {"replicate": "seed"}}, "seed"),
        (ddf.rename(columns={"seed": "replicate"}), {}, "replicate"),
    ):
        with pytest.raises(InputError, match=rf"no replicate role.*column '{col}'") as e:
            irf.evaluate(frame, q, "AP", **kw)
        assert f"columns={{'replicate': '{col}'}}" in str(e.value)
        cube = irf.evaluate(frame.compute(), q, "AP", columns={"replicate": col})  # the fix works
        assert cube.sizes["replicate"] == 2


def test_label_agreement_on_sets_without_a_shared_judgment_names_them(qrels):
    from irframe import meta

    other = qrels.assign(topic=["7", "7", "8"])
    with pytest.raises(InputError, match=r"judgment set 'nist' and judgment set 'llm' share no"):
        meta.label_agreement({"nist": qrels, "llm": other})
    with pytest.raises(InputError, match=r"share no judged \(topic, doc\)"):
        meta.label_confusion(qrels, other)


def test_unknown_reference_set_names_the_sets():
    import xarray as xr

    from irframe import meta

    x = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    cube = xr.concat(
        [
            xr.DataArray(x, dims=("system", "topic")),
            xr.DataArray(x[::-1], dims=("system", "topic")),
        ],
        dim="qrels",
    ).assign_coords(qrels=np.array(["nist", "llm"]))
    with pytest.raises(
        InputError,
        match=r"'nits' is not a judgment set. Did you mean 'nist'\? Available: \['nist', 'llm'\]",
    ):
        meta.qrels_agreement(cube, reference="nits")
    with pytest.raises(KeyError):  # also a KeyError, as before
        meta.qrels_agreement(cube, reference="nits")


@pytest.mark.parametrize("fn", ["stability", "swap_rate"])
def test_topic_subsampling_memory_is_bounded_and_blocks_change_nothing(monkeypatch, fn):
    """meta.stability / swap_rate draw their topic subsets in blocks of trials: with a tiny
    block budget the numbers are those of one block, and the traced peak stays far below
    the unblocked trials x topics keys and weights."""
    import xarray as xr

    from irframe import meta

    x = np.random.default_rng(0).uniform(size=(6, 40, 2))
    cube = xr.DataArray(x, dims=("system", "topic", "measure"), coords={"system": list("abcdef")})
    kw = {"n_trials": 20_000} if fn == "stability" else {"n_splits": 20_000}
    call = lambda: getattr(meta, fn)(cube, rng=1, **kw)  # noqa: E731
    whole = call()
    monkeypatch.setattr(meta, "_TRIAL_ELEMENTS", 20_000)
    blocked, peak = _peak(call)
    pd.testing.assert_frame_equal(whole, blocked)
    unblocked = 8 * 20_000 * 40 * 2  # keys and one weight matrix
    assert peak < unblocked / 4, (peak, unblocked)


def test_dask_takes_records_and_judgment_sets():
    dd = pytest.importorskip("dask.dataframe")

    q, r = irf.datasets.trec_eval_sample()
    ddf = dd.from_pandas(r, npartitions=2)
    recs = [Qrel(*t) for t in q[["topic", "doc", "rel"]].itertuples(index=False, name=None)]
    np.testing.assert_array_equal(
        irf.evaluate(ddf, recs, "AP").values, irf.evaluate(r, q, "AP").values
    )
    sets = {"nist": q, "llm": q[q.rel > 0]}  # several judgment sets: one pass each, as in memory
    assert irf.evaluate(ddf, sets, "AP").identical(irf.evaluate(r, sets, "AP"))


@pytest.mark.parametrize("order", ["expected", "best", "worst"])
def test_tie_orders_with_depth_and_judged_only_are_refused_not_cut_in_trec_eval_order(order):
    """A tie-aware order, depth= and judged-only rankings together: no single answer exists
    (trec_eval cuts at -M before dropping unjudged documents at -J), so the call raises an
    OptionError naming both options; each way out it suggests then succeeds."""
    run = pd.DataFrame(
        {"system": "s", "topic": "1", "doc": list("abcde"), "score": [3.0, 2.0, 2.0, 2.0, 1.0]}
    )
    qrels = pd.DataFrame({"topic": "1", "doc": ["a", "c", "e"], "rel": [0, 1, 1]})
    for call in (
        lambda **kw: irf.evaluate(run, qrels, ["P@2"], order=order, **kw),
        lambda **kw: irf.evaluate(
            run, qrels, ["P(judged_only=True)@2"], order=order, depth=kw["depth"]
        ),
    ):
        with pytest.raises(irf.OptionError, match=r"depth=.*judged_only=True"):
            call(depth=2, judged_only=True)
    with pytest.raises(irf.OptionError, match="tie_sensitivity"):
        irf.tie_sensitivity(run, qrels, ["P@2"], depth=2, judged_only=True)
    # the suggested ways out
    assert irf.evaluate(run, qrels, ["P@2"], order=order, judged_only=True).size == 1
    assert irf.evaluate(run, qrels, ["P@2"], order=order, depth=2).size == 1
    assert len(irf.tie_sensitivity(run, qrels, ["P@2"], judged_only=True)) == 1
