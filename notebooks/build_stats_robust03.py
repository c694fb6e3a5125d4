"""Build notebooks/stats_robust03.ipynb (run from the repository root)."""

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb = nbf.v4.new_notebook()
nb.cells = [
    md("""# Which differences are real? Statistics and meta-evaluation on TREC 2003 Robust

15 participant runs × 100 topics, NIST qrels (graded 0/1/2); the depth-10 run NLPR03vb10 is
left out, so 14 runs (91 pairs) are compared. The runs are read from
`../shared/data` (or `$IRFRAME_SHARED_DATA`); they are not shipped with irframe.

Every function below takes the cubes `irframe.evaluate` returns and gives back xarray /
pandas objects; randomness is seeded through `rng=`."""),
    code("""import os, pathlib
import numpy as np, pandas as pd, matplotlib
import matplotlib.pyplot as plt
import irframe as irf
from irframe import stats, meta, plot

data = pathlib.Path(os.environ.get("IRFRAME_SHARED_DATA", "../../shared/data"))
qrels = irf.read_qrels(data / "robust03/qrels/robust03_qrels.txt.gz")
runs = irf.read_runs(sorted((data / "robust03/runs").glob("input.*.gz")), system="tag")
runs = runs[runs.system != "NLPR03vb10"]   # a depth-10 run; keep the 14 full-depth ones
cube = runs.ir.metric(["AP", "nDCG", "P@10", "R@1000"], qrels=qrels)
assert runs.system.nunique() == 14 and cube.sizes["topic"] == 100   # as the introduction says
irf.summarize(cube).sort_values("AP", ascending=False).round(4)"""),
    md("""## All pairs on AP: paired t-test and randomization test, Holm-corrected"""),
    code("""ap = cube.sel(measure=["AP"])
t = stats.compare(ap, test="t", correction="holm")
r = stats.compare(ap, test="randomization", correction="holm", n_samples=10000, rng=42)
pairs = int(np.isfinite(t.pvalue).sum()) // 2
assert pairs == 91
print(f"{pairs} system pairs; significant at 0.05 after Holm: "
      f"t-test {int(t.significant.sum()) // 2}, randomization {int(r.significant.sum()) // 2}")
assert int(t.significant.sum()) // 2 == int(r.significant.sum()) // 2 == 52   # docs/stats.md
r[["effect", "pvalue", "pvalue_adjusted"]].sel(measure="AP").to_dataframe().dropna().sort_values("pvalue").head(8)"""),
    code("""order = irf.summarize(cube)["AP"].sort_values(ascending=False).index.tolist()
ax = plot.significance_matrix(r, systems=order)
ax.figure.set_size_inches(9, 7); ax.figure.tight_layout()"""),
    code("""best, second = order[0], order[1]
ax = plot.topic_differences(cube, best, second, measure="AP")
ax.figure.set_size_inches(10, 3.5); ax.figure.tight_layout()"""),
    code("""ax = plot.system_means(cube, measure="AP", rng=0)
ax.figure.tight_layout()"""),
    md("""## Discriminative power (Tukey HSD on the two-way system × topic design)

Fraction of system pairs whose difference is significant at 95 % — as in seeds 000 and
003. For lexirecall (a preference, not a score) the per-pair sign test with Holm is used."""),
    code("""dp = meta.discriminative_power(cube, test="tukey", alpha=0.05)
pref = runs.ir.lexirecall(qrels=qrels)
dp_lr = meta.discriminative_power(pref, alpha=0.05)
# docs/stats.md: 0.48 AP, 0.54 nDCG, 0.40 P@10, 0.58 R@1000, 0.67 lexirecall
assert dp["significant"].to_dict() == {"AP": 44, "nDCG": 49, "P@10": 36, "R@1000": 53}
assert dp_lr["significant"].iloc[0] == 61 and (dp["pairs"] == 91).all()
dp, dp_lr"""),
    code("""lr_tests = stats.sign_test(pref, correction="holm")
lr_tests[["wins", "losses", "ties", "pvalue_adjusted"]].to_dataframe().dropna().head()"""),
    md("""## Stability under topic resampling (Buckley–Voorhees swap rates / topic halves)"""),
    code("""meta.stability(cube, n_trials=500, rng=7)"""),
    md("""## How much do the measures agree on the system ordering?"""),
    code("""corr = meta.correlation_matrix(cube, method="kendall")
ax = plot.correlation_heatmap(corr)
ax.figure.tight_layout()
corr.to_pandas().round(3)"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(nb, "notebooks/stats_robust03.ipynb")
