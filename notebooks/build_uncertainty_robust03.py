"""Build notebooks/uncertainty_robust03.ipynb (run from the repository root)."""

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb = nbf.v4.new_notebook()
nb.cells = [
    md("""# How much do tied scores and unjudged documents matter? TREC 2003 Robust

15 participant runs × 100 topics, NIST qrels (grades 0/1/2), read from `../shared/data`
(or `$IRFRAME_SHARED_DATA`); they are not shipped with irframe.

Two sources of doubt sit in every score:

* **ties** — trec_eval orders documents with equal (float32) scores by docno, an arbitrary
  choice; `order="expected"` gives the mean over all orders of the tied documents,
  `order="worst"`/`"best"` the range (see docs/uncertainty.md);
* **unjudged documents** — counted as non-relevant; `bounds=True` adds the value when every
  unjudged retrieved document is relevant, and the residual.

Every number quoted in the text is asserted in the code cell next to it."""),
    code("""import os, pathlib
import numpy as np, pandas as pd, matplotlib
import matplotlib.pyplot as plt
import irframe as irf

data = pathlib.Path(os.environ.get("IRFRAME_SHARED_DATA", "../../shared/data"))
qrels = irf.read_qrels(data / "robust03/qrels/robust03_qrels.txt.gz")
runs = irf.read_runs(sorted((data / "robust03/runs").glob("input.*.gz")), system="tag")
runs.system.nunique(), runs.topic.nunique(), len(runs)"""),
    md("""## Ties: how many documents share their score?

`tie_sensitivity` evaluates every measure under trec_eval's tie-break, the worst and the
best order of the tied documents and the expected value, on one alignment. `tied_docs` counts
the documents of a ranking that share their float32 score with another one."""),
    code("""M = ["AP", "nDCG@10", "P@10", "RR"]
rep = irf.tie_sensitivity(runs, qrels, M)
retrieved = runs.groupby("system", observed=True).size()
tied_share = (rep[rep.measure == "AP"].groupby("system").tied_docs.sum() / retrieved).sort_values(ascending=False)
assert tied_share.index[0] == "pircRBa1" and round(tied_share.iloc[0], 3) == 0.162
assert tied_share.index[1] == "aplrob03a" and round(tied_share.iloc[1], 3) == 0.127
assert (tied_share == 0).sum() == 2
tied_share.round(3)"""),
    md("""pircRBa1 ties 16.2 % of its retrieved documents and aplrob03a 12.7 %; two runs have no ties
at all. Which (system, topic, measure) cells move most with the tie order?"""),
    code("""top = rep.head(6)
first = top.iloc[0]
assert (first.system, first.topic, first.measure) == ("aplrob03a", "622", "P@10")
assert round(first.worst, 3) == 0.5 and round(first.best, 3) == 0.6 and round(first.trec_eval, 3) == 0.5
assert round(first.expected, 4) == 0.55
top.round(4)"""),
    md("""The largest single change: P@10 of aplrob03a on topic 622 is 0.5 under trec_eval's
tie-break, 0.55 in expectation and anywhere from 0.5 to 0.6 depending on the order of
its 257 tied documents. Per measure, how many cells can move at all?"""),
    code("""moved = rep.assign(moves=rep.spread > 0).groupby("measure").agg(cells=("moves", "size"), moving=("moves", "sum"),
                                                              max_spread=("spread", "max"))
assert moved.loc["AP", "moving"] == 245 and moved.loc["P@10", "moving"] == 1
moved.round(4)"""),
    md("""245 of the 1500 AP cells depend on the tie order, but by little (at most 0.0013).
Averaged over topics, does the official ranking of the runs change?"""),
    code("""means = rep.groupby(["measure", "system"])[["trec_eval", "worst", "expected", "best"]].mean()
changes = {}
for m in M:
    ranks = means.loc[m].rank(ascending=False, method="min")
    changes[m] = int((ranks.nunique(axis=1) > 1).sum())
assert changes == {m: 0 for m in M}
spread_by_system = rep.groupby(["system", "measure"]).spread.mean().unstack()
assert spread_by_system["AP"].idxmax() == "aplrob03a"
changes, spread_by_system.round(5).sort_values("AP", ascending=False).head()"""),
    md("""No run changes its rank on any of the four measures, whatever the order of the tied
documents: on Robust03 ties are a per-topic nuisance (aplrob03a moves most), not a threat
to the official ranking.

## Unjudged documents: bounds and residuals

`bounds=True` adds a `bound` dimension. `low` is today's value (unjudged = non-relevant);
`high` labels every unjudged retrieved document relevant at grade 2, the largest grade.
For P@10, RR and RBP (`bound_exact` is True) these are the exact minimum and maximum
over every labelling."""),
    code("""B = ["P@10", "RR", "RBP(p=0.8,rel=1)", "AP", "nDCG@10"]
b = runs.ir.metric(B, qrels=qrels, bounds=True)
assert b.bound_exact.values.tolist() == [True, True, True, False, False]
low = irf.summarize(b.sel(bound="low", drop=True))
high = irf.summarize(b.sel(bound="high", drop=True))
res = (high - low)
assert res["P@10"].idxmax() == "SABIR03BASE" and round(res["P@10"].max(), 3) == 0.036
assert res["RBP(p=0.8,rel=1)"].idxmax() == "NLPR03vb10" and round(res["RBP(p=0.8,rel=1)"].max(), 4) == 0.1173
pd.concat({"low": low, "high": high}, axis=1).round(4)"""),
    md("""The runs were pooled, so little of their top 10 is unjudged: the largest mean P@10
residual is 0.036 (SABIR03BASE). RBP(p=0.8) also counts the unseen positions after the end
of a ranking: its largest residual, 0.1173, belongs to NLPR03vb10, a run of only 10
documents per topic.

Which pairs of runs could swap places if the unjudged documents were judged? `irf.flips`
compares the smallest possible lead (mean low of the leader − mean high of the other)."""),
    code("""f = irf.flips(b)
counts = f.groupby("measure").could_flip.agg(["sum", "size"])
assert counts.loc["P@10", "sum"] == 9 and counts.loc["P@10", "size"] == 105
assert counts.loc["RBP(p=0.8,rel=1)", "sum"] == 17
counts"""),
    code(
        """f[(f.measure == "P@10") & f.could_flip].sort_values("lead")[["system", "other", "lead", "min_lead"]].round(4)"""
    ),
    md("""9 of the 105 pairs on P@10 and 17 on RBP could flip — all between runs whose means were
already close. For AP and nDCG@10 `high` is not guaranteed to be a maximum: every
unjudged document of a 1000-document ranking joins the recall base (and the ideal ranking)
at grade 2. For nDCG@10 the all-relevant value is mostly *lower* than today's:"""),
    code("""lower = int((high["nDCG@10"] < low["nDCG@10"]).sum())
assert lower == 14
lower"""),
    md("""For 14 of the 15 runs nDCG@10 drops when everything unjudged is relevant: the ideal
ranking fills with grade-2 documents. That is why `bound_exact` is False for these
measures; read their `high` as one labelling, not as an upper bound.

A picture of the exact bounds for P@10:"""),
    code("""order = low["P@10"].sort_values().index
fig, ax = plt.subplots(figsize=(8, 4))
y = np.arange(len(order))
ax.hlines(y, low.loc[order, "P@10"], high.loc[order, "P@10"], lw=6, color="tab:orange", label="unjudged → relevant")
ax.plot(low.loc[order, "P@10"], y, "k|", ms=12, label="today (unjudged = non-relevant)")
ax.set_yticks(y, order); ax.set_xlabel("mean P@10"); ax.legend(loc="lower right"); fig.tight_layout()"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(nb, "notebooks/uncertainty_robust03.ipynb")
