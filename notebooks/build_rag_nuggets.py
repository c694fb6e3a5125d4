"""Build notebooks/rag_nuggets.ipynb and run it in place (from the repository root)."""

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb = nbf.v4.new_notebook()
nb.cells = [
    md("""# RAG answers scored by nuggets and citation support, in the same cube

TREC RAG 2024/2025 judge a generated answer by *nuggets* (facts a good answer holds, `vital`
or `okay`, each assigned `support` / `partial_support` / `not_support` to the answer) and by
*citation support* (does each cited passage support the sentence citing it: full / partial /
no support). `irframe.rag` turns both kinds of judgment into ordinary `(system, topic,
measure)` cubes, so `irf.summarize`, `stats.compare`, `irf.report` and the judgment-set dim
work on them as on retrieval measures.

This notebook uses a small synthetic set made here (no real TREC RAG judgments ship with
irframe): 5 systems × 30 topics, 3-12 nuggets per topic, about 40 % vital, three topics
without any vital nugget, two empty answers; the nugget assignments of a "human" assessor
and of a more lenient "LLM" assessor; and citation-support judgments."""),
    code("""%matplotlib inline
import json, pathlib, tempfile
import numpy as np, pandas as pd, xarray as xr
import matplotlib.pyplot as plt
import irframe as irf
from irframe import rag, stats, meta, plot

rng = np.random.default_rng(24)
systems = {"rag_a": 0.35, "rag_b": 0.45, "rag_c": 0.55, "rag_d": 0.65, "rag_e": 0.75}  # quality
topics = [f"t{i:02d}" for i in range(30)]
n_nuggets = rng.integers(3, 13, len(topics))
vital = {t: rng.random(n) < 0.4 for t, n in zip(topics, n_nuggets)}
for t in topics[:3]:
    vital[t][:] = False                      # three topics without a vital nugget
rows = []
for s, q in systems.items():
    for t in topics:
        for i, v in enumerate(vital[t]):
            p_sup = min(0.95, q + (0.1 if v else 0.0))   # vital facts are covered more often
            u = rng.random()
            label = "support" if u < p_sup else ("partial_support" if u < p_sup + 0.15 else "not_support")
            rows.append((s, t, i, "vital" if v else "okay", label))
human = pd.DataFrame(rows, columns=["system", "topic", "nugget", "importance", "assignment"])
empty = (human.system == "rag_a") & human.topic.isin(["t10", "t11"])
human.loc[empty, "assignment"] = "not_support"          # two empty answers: nothing supported
# the LLM assessor: lenient -- a fifth of the non-supports become partial, of partials support
up = rng.random(len(human)) < 0.2
llm = human.assign(assignment=human.assignment.mask(
    up & (human.assignment == "partial_support"), "support").mask(
    up & (human.assignment == "not_support"), "partial_support"))
human.head()"""),
    md("""## nuggetizer's JSON lines, read back

`rag.read_nuggets` reads nuggetizer's assignment output (one answer per line: `qid`, `run_id`,
`nuggets: [{text, importance, assignment}]`); a malformed line raises `irframe.ParseError`
naming the file, line and field."""),
    code("""tmp = pathlib.Path(tempfile.mkdtemp())
with open(tmp / "assignments.jsonl", "w") as fh:
    for (s, t), g in human.groupby(["system", "topic"]):
        fh.write(json.dumps({"qid": t, "run_id": s, "answer_text": "...", "nuggets": [
            {"text": f"fact {i}", "importance": imp, "assignment": a}
            for i, imp, a in zip(g.nugget, g.importance, g.assignment)]}) + "\\n")
back = rag.read_nuggets(tmp / "assignments.jsonl")
assert back[["system", "topic", "importance", "assignment"]].equals(
    human[["system", "topic", "importance", "assignment"]])
back.head(3)"""),
    md("""## The cube: four nugget scores per answer, two judgment sets

`nugget_scores` follows nuggetizer's `calculate_nugget_scores` exactly (names included):
strict = supported / nuggets, non-strict counts a partial support as 0.5; the vital scores
use the vital nuggets only and are 0 for a topic without one. A mapping of judgment sets adds
a `qrels` dim, as for `irf.evaluate`."""),
    code("""cube = rag.nugget_scores({"human": human, "llm": llm})
assert cube.dims == ("system", "topic", "measure", "qrels")
# a topic without vital nuggets scores 0 on both vital scores
assert (cube.sel(topic=topics[:3], measure=["strict_vital_score", "vital_score"]) == 0).all()
# one answer by hand: rag_c on t05, human assignments
g = human[(human.system == "rag_c") & (human.topic == "t05")]
v = g[g.importance == "vital"]
credit = lambda a: (a == "support") + 0.5 * (a == "partial_support")
want = [(v.assignment == "support").mean(), (g.assignment == "support").mean(),
        credit(v.assignment).mean(), credit(g.assignment).mean()]
np.testing.assert_allclose(cube.sel(system="rag_c", topic="t05", qrels="human").values, want)
irf.summarize(cube.sel(qrels="human")).round(4)"""),
    md("""## Significance and a results table, as for retrieval measures

Every system against the weakest one (`rag_a`), paired t-test over the 30 topics with Holm's
correction; the report marks significant improvements with ↑."""),
    code("""human_cube = cube.sel(qrels="human", drop=True)
res = stats.compare(human_cube, "rag_a", test="t", correction="holm")
sig = res.significant.sel(other="rag_a", measure="all_score").to_pandas()
assert not sig["rag_a"] and sig[["rag_c", "rag_d", "rag_e"]].all()
res[["effect", "pvalue_adjusted"]].sel(other="rag_a", measure="all_score").to_dataframe().round(4)"""),
    code("""irf.report(human_cube, "rag_a")"""),
    md("""## Human against LLM assignments

The lenient LLM scores every system higher, but does it order the systems the same way?
`meta.qrels_agreement` compares the judgment sets' system orderings (Kendall's τ-b, τ-AP,
RBO) per measure."""),
    code("""agree = meta.qrels_agreement(cube, reference="human")
means = cube.mean("topic")
assert (means.sel(qrels="llm") >= means.sel(qrels="human")).all()
assert (agree["tau"] == 1.0).all()
agree.round(3)"""),
    code("""fig, ax = plt.subplots(figsize=(5, 4))
for m in ["vital_score", "all_score"]:
    ax.scatter(means.sel(qrels="human", measure=m), means.sel(qrels="llm", measure=m), label=m)
lim = [0.2, 1.0]
ax.plot(lim, lim, color="grey", ls="--", lw=1)
ax.set_xlabel("human assignments"); ax.set_ylabel("LLM assignments")
ax.set_title("mean nugget score per system"); ax.legend(); fig.tight_layout()"""),
    md("""## Citation support next to the nugget scores

Per answer sentence, each citation is judged full / partial / no support. Support precision
is the weighted fraction of citations that support their sentence, support recall the
weighted fraction of sentences supported by their best citation (Thakur et al., SIGIR 2025;
full 1, partial 0.5). Concatenated along `measure`, the two cubes are one cube."""),
    code("""srows = []
for s, q in systems.items():
    for t in topics:
        for j in range(int(rng.integers(2, 7))):
            cites = rng.choice(20, size=int(rng.integers(0, 4)), replace=False)
            if len(cites) == 0:
                srows.append((s, t, j, None, None))
            for c in cites:
                u = rng.random()
                lvl = "full_support" if u < q else ("partial_support" if u < q + 0.15 else "no_support")
                srows.append((s, t, j, f"seg{c}", lvl))
support = pd.DataFrame(srows, columns=["system", "topic", "sentence", "citation", "support"])
both = xr.concat([human_cube, rag.support_scores(support)], dim="measure")
assert both.sizes["measure"] == 6 and not both.isnull().any()
table = irf.summarize(both)
assert table["support_precision"].is_monotonic_increasing  # by construction: quality rises a -> e
table.round(4)"""),
    code("""ax = plot.system_means(both, measure="support_recall", rng=0)
ax.figure.tight_layout()"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}

if __name__ == "__main__":
    from nbclient import NotebookClient

    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": "notebooks"}}
    ).execute()
    nbf.write(nb, "notebooks/rag_nuggets.ipynb")
