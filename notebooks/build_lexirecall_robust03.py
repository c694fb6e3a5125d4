"""Build notebooks/lexirecall_robust03.ipynb (run from the repository root or anywhere)."""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

cells = [
    new_markdown_cell("""# Lexicographic recall on TREC 2003 Robust

Seed 000 (Diaz & Mitra, *Recall as a Measure of Ranking Robustness*) on public data: the 15 TREC 2003
Robust runs × 100 topics with the NIST qrels (grades 0/1/2; relevant ⇔ grade ≥ 1).

* the full lexirecall (and lexiprecision) preference cube `system × other × topic`;
* per-pair sign (binomial) tests with Holm correction (`irframe.stats.sign_test`);
* agreement of lexirecall with the sign of metric differences (the paper's Fig. 9) and the fraction of
  tied comparisons (Fig. 10) for R@1000, Rprec, AP, nDCG, RR and nDCG@10;
* metric lexirecall at a realistic corpus size (n = 5·10⁸) in exact arithmetic vs float64.

**Data**: read from `../../shared/data/robust03` relative to this notebook's folder, or from
`$IRFRAME_SHARED_DATA/robust03` when that environment variable is set (NIST runs are not bundled)."""),
    new_code_cell("""import os
from pathlib import Path
import numpy as np, pandas as pd
import irframe as irf
from irframe import lexi

DATA = Path(os.environ.get("IRFRAME_SHARED_DATA", "../../shared/data")) / "robust03"
runs = irf.read_runs(str(DATA / "runs" / "input.*.gz"))
qrels = irf.read_qrels(DATA / "qrels" / "robust03_qrels.txt.gz")
print(f"{len(runs):,} run rows, {runs.system.nunique()} systems, {runs.topic.nunique()} topics run, "
      f"{qrels.topic.nunique()} judged topics, grades {sorted(qrels.rel.unique())}")
assert runs.system.nunique() == 15 and qrels.topic.nunique() == 100   # as the introduction says
assert sorted(qrels.rel.unique()) == [0, 1, 2]"""),
    new_markdown_cell("""## The preference cube

`+1` at `(system, other, topic)` means *system* is preferred to *other* on that topic. The relation is
antisymmetric with a zero diagonal; topics without a relevant document are dropped."""),
    new_code_cell("""import time
t = time.perf_counter()
pref = runs.ir.lexirecall(qrels=qrels)
lp = runs.ir.lexiprecision(qrels=qrels)
print(f"lexirecall + lexiprecision in {time.perf_counter() - t:.2f} s (including alignment)")
print(pref.dims, pref.shape, pref.dtype, "dropped topics:", pref.attrs["dropped_topics"])
assert (pref.values == -pref.values.transpose(1, 0, 2)).all()
pref.sel(topic=pref.topic.values[0]).to_pandas()"""),
    new_markdown_cell(
        """Mean preference over topics ((wins − losses)/topics) for every pair, systems ordered by net wins:"""
    ),
    new_code_cell("""order = lexi.order_systems(pref)               # net wins
mp = lexi.mean_preference(pref).to_pandas().loc[order.index, order.index]
mp.round(2).style.background_gradient(cmap="RdBu", vmin=-1, vmax=1)"""),
    new_code_cell("""orders = pd.DataFrame({m: lexi.order_systems(pref, method=m)["rank"] for m in
                       ("net_wins", "copeland", "borda", "markov")})
orders["AP rank"] = runs.ir.metric("AP", qrels=qrels).sel(measure="AP").mean("topic").to_pandas() \\
    .rank(ascending=False, method="min").astype(int)
orders.sort_values("net_wins")"""),
    new_markdown_cell("""## Per-pair sign tests with Holm correction

Ties are dropped; under H0 wins ~ Binomial(wins + losses, ½). The family is the 105 unordered pairs."""),
    new_code_cell("""tab = lexi.preference_table(pref, correction="holm")       # wraps irframe.stats.sign_test
assert len(tab) == 105                                     # the family: every unordered pair
print(f"{tab.significant.sum()} of {len(tab)} pairs differ at alpha = 0.05 after Holm "
      f"(lexiprecision: {lexi.preference_table(lp).significant.sum()})")
assert tab.significant.sum() == 75 and lexi.preference_table(lp).significant.sum() == 15   # docs/lexi.md
tab.sort_values("pvalue").head(12).round(4)"""),
    new_code_cell("""# for comparison: paired t-test on AP with Holm over the same 105 pairs
ap = runs.ir.metric("AP", qrels=qrels).sel(measure="AP")
from scipy.stats import ttest_rel
from irframe.stats import adjust_pvalues
sy = list(ap.system.values)
pv = np.array([ttest_rel(ap.sel(system=a), ap.sel(system=b)).pvalue for i, a in enumerate(sy) for b in sy[i + 1:]])
print("AP, paired t + Holm: significant pairs =", int((adjust_pvalues(pv, "holm") < 0.05).sum()))
assert int((adjust_pvalues(pv, "holm") < 0.05).sum()) == 65   # docs/lexi.md"""),
    new_markdown_cell("""## Agreement with metric differences (Fig. 9) and ties (Fig. 10)

Agreement: over all (pair, topic) cells where the metric differs, the share where lexirecall prefers the
ranking with the higher metric value. Tie fraction: share of (pair, topic) cells with equal values.
Metrics are computed with `complete=True`, so a topic missing from a run scores 0, like lexirecall's
worst case."""),
    new_code_cell("""measures = ["R@1000", "Rprec", "AP", "nDCG", "RR", "nDCG@10"]
cube = runs.ir.metric(measures, qrels=qrels, complete=True)
summary = pd.DataFrame({
    "agreement with lexirecall": lexi.metric_agreement(pref, cube).to_pandas(),
    "agreement with lexiprecision": lexi.metric_agreement(lp, cube).to_pandas(),
    "tied fraction": lexi.tie_fraction(cube.sel(topic=pref.topic.values)).to_pandas()})
summary.loc["lexirecall", "tied fraction"] = lexi.tie_fraction(pref)
summary.loc["lexiprecision", "tied fraction"] = lexi.tie_fraction(lp)
# the values docs/lexi.md quotes (Fig. 9 ordering and Fig. 10 ties)
quoted = {"R@1000": (1.000, 0.185), "nDCG": (0.843, 0.001), "AP": (0.785, 0.001), "Rprec": (0.759, 0.143),
          "nDCG@10": (0.647, 0.074), "RR": (0.641, 0.442)}
for m, (agree, tied) in quoted.items():
    assert round(summary.loc[m, "agreement with lexirecall"], 3) == agree, m
    assert round(summary.loc[m, "tied fraction"], 3) == tied, m
assert round(summary.loc["lexirecall", "tied fraction"], 3) == 0.001
summary.round(3)"""),
    new_code_cell("""import matplotlib.pyplot as plt
fig, ax = plt.subplots(1, 2, figsize=(10, 3.2))
summary["agreement with lexirecall"].dropna().plot.bar(ax=ax[0], title="agreement with lexirecall (Fig. 9)")
summary["tied fraction"].plot.bar(ax=ax[1], title="fraction of tied comparisons (Fig. 10)")
ax[0].set_ylim(0, 1); fig.tight_layout()"""),
    new_markdown_cell("""## Metric lexirecall at n = 5·10⁸

The paper's weighted sum (§7.3.2) orders rankings exactly like lexirecall only when computed exactly.
`representation="exact"` evaluates it with integer arithmetic (Python fractions); the float64 version
cannot separate rankings that first differ above the deepest relevant documents."""),
    new_code_cell("""n = 500_000_000
ex = lexi.metric_lexirecall(runs, qrels, n=n)                           # exact fractions
fl = lexi.metric_lexirecall(runs, qrels, n=n, representation="float")   # float64
def sign_cube(v):
    return np.vectorize(lambda x: (x > 0) - (x < 0))(v[:, None, :] - v[None, :, :])
iu = np.triu_indices(len(pref.system), 1)
exact_ok = (sign_cube(ex.values) == pref.values)[iu].mean()
float_ok = (np.sign(fl.values[:, None, :] - fl.values[None, :, :]) == pref.values)[iu].mean()
print(f"agreement with lexirecall over all (pair, topic) cells: exact {exact_ok:.4f}, float64 {float_ok:.4f}")
assert exact_ok == 1.0 and float_ok < 1.0   # only the exact sum orders rankings as lexirecall does
assert round(float_ok, 2) == 0.49 and len(iu[0]) * pref.sizes["topic"] == 10_500   # docs/lexi.md
assert ((np.sign(fl.values[:, None, :] - fl.values[None, :, :]) == 0) & (pref.values != 0))[iu].sum() == 5305
print(f"float64 ties where lexirecall does not: "
      f"{((np.sign(fl.values[:, None, :] - fl.values[None, :, :]) == 0) & (pref.values != 0))[iu].sum()}")"""),
    new_markdown_cell("""## Total search efficiency and the tie problem (§5.1)

TSE only looks at the deepest relevant document; with pessimistic imputation every run that misses a
relevant document ties at e(n)."""),
    new_code_cell("""t_ap = lexi.tse(runs, qrels, n=n, e="AP")
print(f"TSE tied fraction: {lexi.tie_fraction(t_ap.rename('TSE')):.3f}  vs lexirecall {lexi.tie_fraction(pref):.3f}")
assert lexi.tie_fraction(t_ap.rename("TSE")) > lexi.tie_fraction(pref)   # the tie problem
assert round(lexi.tie_fraction(t_ap.rename("TSE")), 3) == 0.697   # docs/lexi.md
d = t_ap.values[:, None, :] - t_ap.values[None, :, :]
print("lexirecall agrees with TSE wherever TSE differs (Thm A.1):", bool((np.sign(d[d != 0]) == pref.values[d != 0]).all()))"""),
]

nb = new_notebook(
    cells=cells,
    metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
)
nbformat.write(nb, HERE / "lexirecall_robust03.ipynb")
print("wrote", HERE / "lexirecall_robust03.ipynb")
