"""irf.report: the results table.

On Robust03 (skips without ../shared): the markers agree with irf.stats.compare for
every pair and with an independent paired t-test (scipy.stats.ttest_rel) plus a Holm
correction written here; means, bold, wins/ties/losses and intervals are recomputed
with pandas/scipy; LaTeX, Markdown and HTML carry the same numbers.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats as sst

import irframe as irf

MEASURES = ["AP", "nDCG@10", "P@10"]
BASELINE = "pircRBa1"
NUM = r"\d+\.\d{4}"


@pytest.fixture(scope="module")
def robust03(shared_data):
    runs = irf.read_runs(str(shared_data / "robust03" / "runs" / "input.*.gz"))
    qrels = irf.read_qrels(shared_data / "robust03" / "qrels" / "robust03_qrels.txt.gz")
    return irf.evaluate(runs, qrels, MEASURES)


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values, written from the definition."""
    order = np.argsort(p)
    m = len(p)
    adj = np.empty(m)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, (m - i) * p[j])
        adj[j] = min(1.0, running)
    return adj


def _long(cube):
    return cube.to_dataframe().reset_index()[["system", "topic", "measure", "score"]]


def test_baseline_markers_against_scipy_and_compare(robust03):
    cube = robust03
    r = irf.report(cube, baseline=BASELINE, test="t", correction="holm", wins=True, ci=True)
    cmp = irf.stats.compare(cube, baseline=BASELINE, test="t", correction="holm")
    long = _long(cube)
    wide = {
        m: long[long.measure == m].pivot(index="topic", columns="system", values="score")
        for m in MEASURES
    }
    table = r.to_frame()
    n_up = n_down = 0
    for m in MEASURES:
        w = wide[m]
        others = [s for s in w.columns if s != BASELINE]
        p = np.array([sst.ttest_rel(w[s], w[BASELINE]).pvalue for s in others])
        adj = _holm(p)
        for s, pa in zip(others, adj, strict=True):
            diff = (w[s] - w[BASELINE]).mean()
            want = "↑" if pa < 0.05 and diff > 0 else "↓" if pa < 0.05 and diff < 0 else ""
            sig = bool(cmp.significant.sel(system=s, other=BASELINE, measure=m))
            eff = float(cmp.effect.sel(system=s, other=BASELINE, measure=m))
            assert want == ("↑" if sig and eff > 0 else "↓" if sig and eff < 0 else ""), (s, m)
            cell = table.loc[s, m]
            assert cell.startswith(f"{w[s].mean():.4f}{want} ["), (s, m, cell)
            n_up += want == "↑"
            n_down += want == "↓"
            d = w[s] - w[BASELINE]
            assert table.loc[s, f"{m} W/T/L"] == f"{(d > 0).sum()}/{(d == 0).sum()}/{(d < 0).sum()}"
            lo, hi = sst.t.interval(0.95, len(w) - 1, loc=w[s].mean(), scale=sst.sem(w[s]))
            assert cell.endswith(f"[{lo:.4f}, {hi:.4f}]")
    assert n_down > 0  # the test exercises both outcomes on this collection
    # the best mean (rounded) of each measure, computed by pandas, is the bold one
    md = r.to_markdown()
    for m in MEASURES:
        best = long[long.measure == m].groupby("system")["score"].mean().round(4)
        winners = set(best.index[best == best.max()])
        col = r._header().index(m)
        rows = [line.split(" | ") for line in md.splitlines()[2 : 2 + cube.sizes["system"]]]
        bold = {
            row[0].lstrip("| ").removesuffix(" (baseline)")  # the baseline row is marked
            for row in rows
            if row[col].startswith("**")
        }
        assert bold == winners


def test_letters_agree_with_compare_for_every_pair(robust03):
    cube = robust03
    r = irf.report(cube, test="t", correction="holm")
    cmp = irf.stats.compare(cube, test="t", correction="holm")
    table = r.to_frame()
    systems = [str(s) for s in cube.system.values]
    assert list(r.letters) == systems and len(set(r.letters.values())) == len(systems)
    for m in MEASURES:
        for s in systems:
            cell = table.loc[s, m]
            letters = set(cell.split("^")[1]) if "^" in cell else set()
            for o in systems:
                if o == s:
                    continue
                better = (
                    bool(cmp.significant.sel(system=s, other=o, measure=m))
                    and float(cmp.effect.sel(system=s, other=o, measure=m)) > 0
                )
                assert (r.letters[o] in letters) == better, (s, o, m)
    # all-pairs t-test + Holm over the 105 pairs, independently, for one measure
    w = _long(cube).query("measure == 'AP'").pivot(index="topic", columns="system", values="score")
    pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1 :]]
    adj = _holm(np.array([sst.ttest_rel(w[a], w[b]).pvalue for a, b in pairs]))
    for (a, b), pa in zip(pairs, adj, strict=True):
        hi, lo = (a, b) if w[a].mean() > w[b].mean() else (b, a)
        assert (r.letters[lo] in table.loc[hi, "AP"].partition("^")[2]) == (pa < 0.05), (a, b)


def _numbers(text: str) -> list[str]:
    return re.findall(NUM, text)


def test_latex_structure_and_same_numbers_everywhere(robust03):
    r = irf.report(robust03, baseline=BASELINE, wins=True)
    tex = r.to_latex(caption="Robust03 runs (test_collection)", label="tab:robust03")
    lines = tex.splitlines()
    assert lines[0] == r"\begin{table}" and lines[-1] == r"\end{table}"
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert lines.count(rule) == 1
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    assert tex.count(r"\begin{tabular}") == tex.count(r"\end{tabular}") == 1
    depth = 0
    for ch in tex.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    spec = re.search(r"\\begin\{tabular\}\{([lrc]+)\}", tex).group(1)
    body = lines[lines.index(r"\toprule") + 1 : lines.index(r"\bottomrule")]
    body = [x for x in body if x != r"\midrule"]
    assert len(body) == 1 + robust03.sizes["system"]
    for row in body:
        assert row.endswith(r" \\")
        assert len(re.split(r"(?<!\\)&", row)) == len(spec)
    assert "test\\_collection" in tex  # escaped
    assert tex.count(r"\textbf{") == len(MEASURES)  # one best per measure here
    md, html = r.to_markdown(), r.to_html()
    assert _numbers(tex) == _numbers(md) == _numbers(html)
    flat = r.to_frame()
    assert _numbers(" ".join(flat[MEASURES].to_numpy().ravel())) == _numbers(
        " ".join(" ".join(row.split(" & ")[1::2]) for row in body[1:])
    )
    assert (
        r.to_markdown(legend=False).count("↓")
        == tex.count(r"$^{\downarrow}$")
        == r.to_html(legend=False).count("↓")
        > 0
    )
    assert "--" in tex and "–" not in tex
    assert md.count("**") == 2 * len(MEASURES) and html.count("<b>") == len(MEASURES)


def test_report_small_cases():
    qrels, runs = irf.datasets.synthetic(4, 12, 30, rng=3)
    cube = irf.evaluate(runs, qrels, ["AP", "P@5"])
    r = irf.report(cube, baseline="sys1", digits=2, measures=["P@5"])
    assert list(r.means.columns) == ["P@5"]
    assert _numbers(r.to_markdown()) == []  # 2 digits: NUM matches 4
    assert all(re.fullmatch(r"\d\.\d{2}[↑↓]?", v) for v in r.to_frame()["P@5"])
    low = irf.report(cube, lower_is_better=["AP"])
    assert "**" + f"{r.means['P@5'].min():.2f}" not in low.to_markdown()
    best_low = low.means["AP"].round(4).min()
    assert f"**{best_low:.4f}**" in low.to_markdown()
    with pytest.raises(ValueError, match="baseline 'nope'"):
        irf.report(cube, baseline="nope")
    with pytest.raises(ValueError, match="wins=True"):
        irf.report(cube, wins=True)
    with pytest.raises(ValueError, match="dims"):
        irf.report(cube.sel(measure="AP"))
    pytest.importorskip("jinja2")
    html = r.style.to_html()
    assert "font-weight: bold" in html


def test_report_with_unevaluated_topics():
    """A system without a ranking for a topic: means over the topics every system has."""
    qrels, runs = irf.datasets.synthetic(3, 10, 20, rng=5)
    drop = (runs.system == "sys1") & (runs.topic == runs.topic.astype(str).min())
    cube = irf.evaluate(runs[~drop], qrels, ["AP"])
    assert int(cube.isnull().sum()) == 1
    r = irf.report(cube, baseline="sys0", ci=True, wins=True, missing="common")
    ap = cube.dropna("topic").sel(measure="AP").to_pandas()
    assert [float(x) for x in r.means["AP"]] == pytest.approx(list(ap.mean(axis=1)), abs=1e-15)
    d = ap.loc["sys2"] - ap.loc["sys0"]
    assert (
        r.to_frame().loc["sys2", "AP W/T/L"] == f"{(d > 0).sum()}/{(d == 0).sum()}/{(d < 0).sum()}"
    )
    own = irf.report(cube, baseline="sys0", wins=True)  # default "skip": each system's own topics
    full = cube.sel(measure="AP").to_pandas()
    assert [float(x) for x in own.means["AP"]] == pytest.approx(list(full.mean(axis=1)), abs=1e-15)
    d = full.loc["sys1"] - full.loc["sys0"]  # the pair's common topics (NaN compares False)
    assert (
        own.to_frame().loc["sys1", "AP W/T/L"]
        == f"{(d > 0).sum()}/{(d == 0).sum()}/{(d < 0).sum()}"
    )
    assert (d > 0).sum() + (d == 0).sum() + (d < 0).sum() == 9
    zero = irf.report(cube, missing="zero")
    assert float(zero.means.loc["sys1", "AP"]) == pytest.approx(
        float(cube.sel(system="sys1").fillna(0).mean())
    )


def _cube(values, systems, measure="AP"):
    """A (system, topic, measure) cube of the given per-topic values."""
    import xarray as xr

    v = np.asarray(values, float)
    return xr.DataArray(
        v[:, :, None],
        dims=("system", "topic", "measure"),
        coords={
            "system": systems,
            "topic": [f"t{i}" for i in range(v.shape[1])],
            "measure": [measure],
        },
    )


def test_intervals_with_systems_that_are_not_strings():
    rng = np.random.default_rng(0)
    cube = _cube(rng.uniform(size=(3, 12)), [10, 20, 30])
    md = irf.report(cube, ci=True).to_markdown()
    for i, s in enumerate([10, 20, 30]):  # the t interval, recomputed with scipy
        x = cube.values[i, :, 0]
        lo, hi = sst.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sst.sem(x))
        assert f"[{lo:.4f}, {hi:.4f}]" in md.splitlines()[2 + i], s


def test_letters_of_more_than_26_systems_stay_apart():
    # 28 systems; the last is far ahead of the others on every topic
    rng = np.random.default_rng(1)
    vals = rng.uniform(0, 0.2, size=(28, 30))
    vals[-1] += 0.7
    systems = [f"s{i:02d}" for i in range(28)]
    r = irf.report(_cube(vals, systems), correction=None)
    row = r.to_markdown().splitlines()[2 + 27]
    sup = re.search(r"<sup>(.*)</sup>", row).group(1)
    assert sup.split(",") == [chr(97 + i) for i in range(26)] + ["aa"]  # a..z, aa (not 'ab')
    # 26 systems or fewer: one letter each, run together as ranx prints them
    small = irf.report(_cube(vals[-3:], systems[-3:]), correction=None).to_markdown()
    assert "<sup>ab</sup>" in small


def test_wins_count_the_better_topics_of_a_lower_is_better_measure():
    base = np.full(10, 0.5)
    cheap = base - np.linspace(0.05, 0.2, 10)  # lower cost on every topic
    cube = _cube([base, cheap], ["base", "cheap"], measure="ndpm")
    r = irf.report(cube, baseline="base", wins=True)
    row = r.to_markdown().splitlines()[3]
    assert "**" in row and "↑" in row and "| 10/0/0 |" in row
    assert "better than/equal to/worse than base" in r.legend
    up = irf.report(_cube([base, cheap], ["base", "cheap"]), baseline="base", wins=True)
    assert "| 0/0/10 |" in up.to_markdown().splitlines()[3]  # AP: lower is worse


def test_names_are_text_in_every_format():
    rng = np.random.default_rng(2)
    names = ["ColBERT*v2*", "_base_", "a`b`", "bm25|rm3", "k<10", "[x](y)"]
    r = irf.report(_cube(rng.uniform(size=(6, 8)), names), baseline="_base_")
    md = r.to_markdown()
    markdown = pytest.importorskip("markdown")  # Python-Markdown, as the docs site renders
    html = markdown.markdown(md, extensions=["tables"])
    import html as _html

    cells = [_html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", html)]
    for name in names:  # each name shown as it is, in its own cell: no emphasis, code or link
        assert any(c == name or c == f"{name} (baseline)" for c in cells), name
    tex = r.to_latex()
    assert r"bm25\textbar{}rm3" in tex and r"k\textless{}10" in tex and r"\_base\_" in tex
    # the legend follows the tabular as a paragraph, which wraps
    assert tex.index(r"\end{tabular}") < tex.index(r"\footnotesize")


def test_tukey_named_with_its_function():
    cube = _cube(np.random.default_rng(3).uniform(size=(3, 8)), ["a", "b", "c"])
    with pytest.raises(irf.errors.OptionError, match=r"irframe\.stats\.tukey_hsd"):
        irf.report(cube, test="tukey")


def test_one_selected_measure_gets_advice_that_works():
    qrels, runs = irf.datasets.synthetic(3, 6, 10, rng=0)
    one = irf.evaluate(runs, qrels, ["AP", "num_ret"]).sel(measure="num_ret")
    for fn in (irf.summarize, irf.report):
        with pytest.raises(irf.errors.IrframeError, match="expand_dims") as e:
            fn(one)
        fix = re.search(r"cube\.expand_dims\(.*\)$", str(e.value)).group(0)
        fn(eval(fix, {"cube": one}))  # the advice, applied literally
    # num_ret is summed over topics (its aggregate survives the selection)
    means = irf.summarize(one.expand_dims(measure=["num_ret"], axis=-1))
    assert (means["num_ret"] == 60).all()  # 6 topics x 10 documents


def test_legend_says_which_means_cover_fewer_topics():
    """missing="skip" averages each system over its own topics: the legend names the systems
    with fewer (it said nothing, so such means looked comparable)."""
    import warnings

    qrels, runs = irf.datasets.synthetic(3, 8, 20, rng=0)
    gone = runs.topic.iloc[0]
    runs = runs[~((runs.system == "sys1") & (runs.topic == gone))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cube = irf.evaluate(runs, qrels, ["AP"])
    counts = cube.sel(measure="AP").notnull().sum("topic").to_pandas()
    assert counts["sys1"] == 7 and counts["sys0"] == 8
    assert "sys1: 7 of 8 topics" in irf.report(cube).legend
    assert "own topics" not in irf.report(cube, missing="common").legend
    assert "own topics" not in irf.report(cube.sel(system=["sys0", "sys2"])).legend
