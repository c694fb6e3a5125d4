"""Build notebooks/judgment_sets_robust03.ipynb (run from the repository root)."""

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb = nbf.v4.new_notebook()
nb.cells = [
    md("""# Several judgment sets, seeds and topic-set size on TREC 2003 Robust

TREC now compares human judgments with LLM-made ones; neural runs come in several seeds;
and nobody says how many topics a claim needs.  irframe answers all three with more
named dimensions on the same cube:

* `qrels={name: frame, ...}` evaluates the runs under every judgment set at once (a
  `qrels` dim); `irf.meta.qrels_agreement`, `label_agreement`, `label_confusion` and
  `decision_flips` compare the sets;
* a run frame with a replicate column (`columns={"replicate": "seed"}`) gives a
  `replicate` dim, and `irf.stats.compare(..., replicates="replicate")` fits the mixed
  model with topic and seed effects;
* `irf.stats.power_table`, `topic_set_size` and `min_detectable_effect` give the power
  of the topic set at hand (Sakai, IRJ 2016; Webber, Moffat & Zobel, CIKM 2008).

No external judgments are needed: the alternative qrels are made from the NIST ones.
14 full-depth participant runs × 100 topics, read from `../shared/data` (or
`$IRFRAME_SHARED_DATA`); they are not shipped with irframe.  Every number quoted in the
text is asserted in the cell after it."""),
    code("""import os, pathlib
import numpy as np, pandas as pd
import irframe as irf
from irframe import stats, meta

data = pathlib.Path(os.environ.get("IRFRAME_SHARED_DATA", "../../shared/data"))
nist = irf.read_qrels(data / "robust03/qrels/robust03_qrels.txt.gz")
runs = irf.read_runs(sorted((data / "robust03/runs").glob("input.*.gz")), system="tag")
runs = runs[runs.system != "NLPR03vb10"]   # a depth-10 run; keep the 14 full-depth ones
nist.rel.value_counts().sort_index()"""),
    md("""## Four judgment sets

* `nist`: the official qrels, graded 0/1/2 — 128,796 judged documents, 6,074 of them relevant;
* `degraded`: half of every topic's relevant judgments removed uniformly at random
  (`meta.degrade_qrels`; the removed documents become unjudged);
* `binary`: grade 2 mapped to 1;
* `noisy`: a simulated second assessor who relabels 20 % of the documents with a
  uniformly random grade.

Documents a set did not judge count as non-relevant under it (`judgments="each"`, the
default); `judgments="common"` would keep only the documents every set judged."""),
    code("""assert len(nist) == 128_796 and int((nist.rel >= 1).sum()) == 6_074
rng = np.random.default_rng(2003)
degraded = meta.degrade_qrels(nist, 0.5, rng=rng)
binary = nist.assign(rel=(nist.rel >= 1).astype(int))
relabel = rng.random(len(nist)) < 0.2
noisy = nist.assign(rel=np.where(relabel, rng.integers(0, 3, len(nist)), nist.rel))
sets = {"nist": nist, "degraded": degraded, "binary": binary, "noisy": noisy}
cube = runs.ir.metric(["AP", "nDCG@10", "P@10"], qrels=sets)
print(cube.dims, cube.shape)
cube.mean("topic").sel(measure="AP").to_pandas().sort_values("nist", ascending=False).round(4)"""),
    md("""## Do the sets rank the systems alike?

Kendall's τ (tau-b), τ_AP (Yilmaz, Aslam & Robertson 2008: swaps near the top cost more)
and rank-biased overlap (p = 0.9) of each set's system ordering against NIST's.
Binarising does not change the ordering by AP, P@10 or even nDCG@10 (τ = 1).  Halving the
relevant judgments keeps τ = {tau_deg_ap} for AP, but the top of the nDCG@10 ordering is
far less stable than τ suggests: τ = {tau_deg_ndcg} yet τ_AP = {tauap_deg_ndcg}.  The noisy
assessor is worst on nDCG@10 (τ_AP = {tauap_noisy_ndcg})."""),
    code("""ra = meta.qrels_agreement(cube, reference="nist")
assert (ra.xs("binary", level="qrels")["tau"] == 1).all()
assert round(ra.loc[("AP", "degraded", "nist"), "tau"], 3) == {tau_deg_ap}
assert round(ra.loc[("nDCG@10", "degraded", "nist"), "tau"], 3) == {tau_deg_ndcg}
assert round(ra.loc[("nDCG@10", "degraded", "nist"), "tau_ap"], 3) == {tauap_deg_ndcg}
assert round(ra.loc[("nDCG@10", "noisy", "nist"), "tau_ap"], 3) == {tauap_noisy_ndcg}
ra.round(3)"""),
    md("""## Do they label the documents alike?

On the documents both sets judged: Cohen's κ (unweighted and quadratic-weighted) and
Krippendorff's α (ordinal).  The degraded set agrees perfectly on what it kept (it lost
{only_deg} judgments); the binary set disagrees only on the 407 grade-2 documents; the
noisy assessor gives the NIST label to {agree_noisy} of the documents, yet κ = {kappa_noisy}:
almost all documents are non-relevant, so chance alone would agree on most of them."""),
    code("""la = meta.label_agreement(sets, reference="nist")
assert la.loc[("degraded", "nist"), "kappa"] == 1 and la.loc[("degraded", "nist"), "only_other"] == {only_deg}
assert (meta.label_confusion(binary, nist).loc[1.0, 2.0]) == 407
assert round(la.loc[("noisy", "nist"), "kappa"], 3) == {kappa_noisy}
assert round(la.loc[("noisy", "nist"), "agreement"], 3) == {agree_noisy}
la.round(3)"""),
    code("""meta.label_confusion(noisy, nist)   # rows: noisy grade, columns: NIST grade"""),
    md("""## Would a significance test decide alike?

Paired t-tests over all 91 pairs, Holm-corrected per measure *and per judgment set*
(`compare` broadcasts over the `qrels` dim).  `decision_flips` lists the pairs whose
decision (significantly better / worse / not significant) differs from the NIST one.
On AP, {flips_deg_ap} of 91 decisions flip under the degraded set and {flips_noisy_ap}
under the noisy one, none under the binary one; on nDCG@10 even binarising the grades
flips {flips_bin_ndcg}."""),
    code("""res = stats.compare(cube, test="t", correction="holm")
flips = meta.decision_flips(res, reference="nist", all_pairs=True)
changed = {q: (flips[q] != flips["nist"]).groupby(level="measure").sum() for q in sets if q != "nist"}
changed = pd.DataFrame(changed)
assert changed.loc["AP"].tolist() == [{flips_deg_ap}, 0, {flips_noisy_ap}]
assert changed.loc["nDCG@10", "binary"] == {flips_bin_ndcg}
changed"""),
    code("""meta.decision_flips(res, reference="nist").xs("AP", level="measure").head(10)"""),
    md("""## Seeds: three systems, five synthetic replicates each

To mimic neural runs trained with several seeds, each of three systems gets five
replicate runs: its document scores plus Gaussian noise whose size is drawn per
(system, seed) — some seeds train well, some badly.  The run frame has a `seed` column;
`columns={"replicate": "seed"}` turns it into a `replicate` dim.

The usual shortcut averages the seeds and runs a paired t-test over topics.  It ignores
that the seed-to-seed variation of a system's mean does not shrink with more topics, and
calls aplrob03a better than pircRBa1 (Holm-adjusted p = {p_naive}).  The mixed model
(`replicates="replicate"`: topic, system × topic and seed effects) does not
(p = {p_aware}, with {df_aware} Satterthwaite degrees of freedom); both agree that
uwmtCR0 is worse than the other two."""),
    code("""pick = ["pircRBa1", "aplrob03a", "uwmtCR0"]
rng = np.random.default_rng(7)
sub = runs[runs.system.isin(pick)]
sd = sub.groupby("system", observed=True)["score"].transform("std").to_numpy()
parts = []
for seed in range(5):
    scale = pd.Series(rng.uniform(0.0, 1.5, size=len(pick)), index=pick)   # per (system, seed)
    noise = rng.normal(size=len(sub)) * sd * scale.loc[sub.system.astype(str)].to_numpy()
    parts.append(sub.assign(score=sub.score + noise, seed=seed))
seeds = pd.concat(parts, ignore_index=True)
rc = seeds.ir.metric("AP", qrels=nist, columns={"replicate": "seed"})
print(rc.dims)
rc.mean("topic").sel(measure="AP").to_pandas().round(4)"""),
    code("""aware = stats.compare(rc, replicates="replicate").sel(measure="AP")
naive = stats.compare(rc.mean("replicate")).sel(measure="AP")
cell = dict(system="aplrob03a", other="pircRBa1")
assert round(float(naive.pvalue_adjusted.sel(**cell)), 4) == {p_naive} and bool(naive.significant.sel(**cell))
assert round(float(aware.pvalue_adjusted.sel(**cell)), 3) == {p_aware} and not bool(aware.significant.sel(**cell))
assert round(float(aware.df.sel(**cell)), 1) == {df_aware}
assert bool(aware.significant.sel(system="uwmtCR0", other="pircRBa1")) and bool(naive.significant.sel(system="uwmtCR0", other="pircRBa1"))
pd.DataFrame({"effect": aware.effect.to_series(), "p (mixed model)": aware.pvalue_adjusted.to_series(),
              "p (seed-averaged t)": naive.pvalue_adjusted.to_series()}).dropna().round(4)"""),
    md("""## How many topics?

From the NIST cube: the variance of a per-topic difference between two systems is
estimated as twice the residual mean square of the two-way ANOVA (σ_d² = {vd_ap} for AP).
With the 100 Robust03 topics a paired t-test detects an AP difference of
{mde_ap} with 80 % power; a 0.02 difference would need {n02_ap} topics.  The
graded, shallow nDCG@10 is noisier: {n05_ndcg} topics for a 0.05 difference.  Sakai's
ANOVA-based design for all 14 systems (minimum detectable range 0.05 in AP, within-system
variance {vw_ap}) asks for {n_anova} topics."""),
    code("""vc = stats.variance_components(cube.sel(qrels="nist"))
pt = stats.power_table(cube.sel(qrels="nist"), [0.02, 0.05])
assert round(vc.loc["AP", "var_diff"], 4) == {vd_ap}
assert round(pt.loc[("AP", 0.05), "min_detectable_effect"], 3) == {mde_ap}
assert pt.loc[("AP", 0.02), "topics_needed"] == {n02_ap} and pt.loc[("nDCG@10", 0.05), "topics_needed"] == {n05_ndcg}
assert round(vc.loc["AP", "var_within"], 4) == {vw_ap}
n_anova = stats.topic_set_size(0.05, variance=vc.loc["AP", "var_within"], design="anova", n_systems=14)
assert n_anova == {n_anova}
pt.round(3)"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}

# The numbers the text quotes, read off one run of the cells; every one is asserted in the notebook,
# so a change of behaviour fails tests/test_notebooks.py instead of leaving stale text.
VALUES = {
    "tau_deg_ap": 0.934,
    "tau_deg_ndcg": 0.89,
    "tauap_deg_ndcg": 0.615,
    "tauap_noisy_ndcg": 0.561,
    "only_deg": 3059,
    "kappa_noisy": 0.351,
    "agree_noisy": 0.867,
    "flips_deg_ap": 10,
    "flips_noisy_ap": 11,
    "flips_bin_ndcg": 5,
    "p_naive": 0.0099,
    "p_aware": 0.375,
    "df_aware": 10.1,
    "vd_ap": 0.0181,
    "mde_ap": 0.038,
    "n02_ap": 357,
    "n05_ndcg": 168,
    "vw_ap": 0.0439,
    "n_anova": 628,
}


def build(values):
    import re

    out = nbf.from_dict(nb)
    for c in out.cells:
        c.source = re.sub(
            r"\{(\w+)\}",
            lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0),
            c.source,
        )
    return out


if __name__ == "__main__":  # writes the notebook and runs it in place (needs ../shared/data)
    from nbclient import NotebookClient

    out = build(VALUES)
    NotebookClient(
        out, timeout=600, kernel_name="python3", resources={"metadata": {"path": "notebooks"}}
    ).execute()
    nbf.write(out, "notebooks/judgment_sets_robust03.ipynb")
