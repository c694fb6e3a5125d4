"""ndeval 4.5 parity on the TREC 2012 Web diversity runs, and pyndeval on other α, β, k.

Reference outputs: ../shared/data/web2012_diversity/expected/ndeval_{traditional,default}
(ndeval 4.5 run by the data curator, see its SOURCE.txt).  Every printed value (per
topic and the amean row, 6 decimals) must be reproduced exactly as printed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import reference_module

import irframe as irf
from irframe.align import align

NDEVAL_COLS = [
    "ERR-IA@5",
    "ERR-IA@10",
    "ERR-IA@20",
    "nERR-IA@5",
    "nERR-IA@10",
    "nERR-IA@20",
    "alpha-DCG@5",
    "alpha-DCG@10",
    "alpha-DCG@20",
    "alpha-nDCG@5",
    "alpha-nDCG@10",
    "alpha-nDCG@20",
    "NRBP",
    "nNRBP",
    "MAP-IA",
    "P-IA@5",
    "P-IA@10",
    "P-IA@20",
    "strec@5",
    "strec@10",
    "strec@20",
]


@pytest.fixture(scope="module")
def web2012(shared_data):
    d = shared_data / "web2012_diversity"
    if not d.is_dir():
        pytest.skip("web2012_diversity not in the shared data")
    qrels = irf.read_qrels(d / "qrels" / "qrels-for-ndeval.txt.gz", kind="diversity")
    runs = irf.read_runs(str(d / "runs" / "*.txt.gz"), system="file")
    return d, qrels, runs


def _mismatches(cube, expected_dir):
    bad, total = [], 0
    for f in sorted(expected_dir.glob("*.csv")):
        exp = pd.read_csv(f, dtype=str).set_index("topic")
        got = cube.sel(system=f.stem).to_pandas()
        for t in exp.index:
            vals = got[NDEVAL_COLS].mean() if t == "amean" else got.loc[t, NDEVAL_COLS]
            for c in NDEVAL_COLS:
                total += 1
                if f"{vals[c]:.6f}" != exp.loc[t, c]:
                    bad.append((f.stem, t, c, vals[c], exp.loc[t, c]))
    return bad, total


@pytest.mark.parametrize(
    "mode,order",
    [("traditional", "trec_eval"), ("traditional", "trec_eval10"), ("default", "rank")],
)
def test_ndeval_printed_values(web2012, mode, order):
    d, qrels, runs = web2012
    cube = irf.evaluate(runs, qrels, NDEVAL_COLS, order=order)
    bad, total = _mismatches(cube, d / "expected" / f"ndeval_{mode}")
    assert total == 8 * 51 * 21
    assert bad == []


def test_ndeval_raw_diversity_qrels(web2012):
    """The NIST qrels.diversity (spam = -2, subtopics without relevant docs) give the same
    numbers: negatives are non-relevant, unjudged-relevant subtopics are not counted."""
    d, _, runs = web2012
    qrels = irf.read_qrels(d / "qrels" / "qrels.diversity.txt.gz", kind="diversity")
    assert (qrels.rel < 0).any()
    cube = irf.evaluate(runs, qrels, NDEVAL_COLS, order="trec_eval")
    bad, _ = _mismatches(cube, d / "expected" / "ndeval_traditional")
    assert bad == []


def _tie_free(runs, qrels):
    """The trec_eval order as explicit distinct scores (pyndeval breaks ties by docno ascending)."""
    a = align(runs, qrels)
    return pd.DataFrame(
        {
            "system": np.asarray(a.systems)[a.group_system[a.row_group]],
            "topic": np.asarray(a.topics)[a.row_topic],
            "doc": a.docs[a.row_doc],
            "score": -a.row_rank.astype(float),
        }
    )


@pytest.mark.parametrize(
    "alpha,beta,ks",
    [(0.25, 0.8, [2, 3, 7, 15]), (0.75, 0.3, [4, 11, 20]), (0.1, 0.99, [6]), (1.0, 1.0, [9])],
)
def test_pyndeval_other_parameters(web2012, alpha, beta, ks):
    pyndeval = reference_module("pyndeval")
    _d, qrels, runs = web2012
    two = runs[runs.system.isin(["indri-ql-catb", "indri-rm-cata-filtered"])]
    run = _tie_free(two, qrels)
    names = ["ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec"]
    theirs = [f"{n}@{k}" for k in ks for n in names] + ["NRBP", "nNRBP", "MAP-IA"]
    ours = [
        f"{n}(alpha={alpha})@{k}" if n in names[:4] else f"{n}@{k}" for k in ks for n in names
    ] + [f"NRBP(alpha={alpha},beta={beta})", f"nNRBP(alpha={alpha},beta={beta})", "MAP-IA"]
    cube = irf.evaluate(run, qrels, ours, order="trec_eval10")
    qr = [
        (str(t), str(s), str(doc), int(r))
        for t, s, doc, r in qrels[["topic", "subtopic", "doc", "rel"]].itertuples(index=False)
    ]
    for system in cube.system.values:
        sub = run[run.system == system]
        res = pyndeval.ndeval(
            qr,
            list(sub[["topic", "doc", "score"]].itertuples(index=False, name=None)),
            measures=theirs,
            alpha=alpha,
            beta=beta,
        )
        got = cube.sel(system=system).to_pandas()
        exp = pd.DataFrame(res).T.loc[got.index, theirs].astype(float)
        np.testing.assert_allclose(got[ours].to_numpy(), exp.to_numpy(), rtol=0, atol=1e-12)


def test_pyndeval_cutoff_one_quirk(web2012):
    """ndeval leaves ERR-IA@1 and alpha-DCG@1 un-normalised (its loop starts at rank 2):
    there it prints N × our value.  irframe normalises every cutoff the same way."""
    pyndeval = reference_module("pyndeval")
    _d, qrels, runs = web2012
    run = _tie_free(runs[runs.system == "indri-ql-catb"], qrels)
    cube = irf.evaluate(run, qrels, ["ERR-IA@1", "alpha-DCG@1"], order="trec_eval10")
    qr = [
        (str(t), str(s), str(doc), int(r))
        for t, s, doc, r in qrels[["topic", "subtopic", "doc", "rel"]].itertuples(index=False)
    ]
    res = pd.DataFrame(
        pyndeval.ndeval(
            qr,
            list(run[["topic", "doc", "score"]].itertuples(index=False, name=None)),
            measures=["ERR-IA@1", "alpha-DCG@1"],
        )
    ).T.astype(float)
    n_aspects = qrels[qrels.rel > 0].groupby("topic", observed=True).subtopic.nunique()
    got = cube.isel(system=0).to_pandas()
    np.testing.assert_allclose(
        got["ERR-IA@1"] * n_aspects[got.index].to_numpy(),
        res.loc[got.index, "ERR-IA@1"],
        atol=1e-12,
    )
    np.testing.assert_allclose(
        got["alpha-DCG@1"] * n_aspects[got.index].to_numpy(),
        res.loc[got.index, "alpha-DCG@1"],
        atol=1e-12,
    )


def test_weights_uniform_equal_default(web2012):
    _d, qrels, runs = web2012
    pos = qrels[qrels.rel > 0][["topic", "subtopic"]].drop_duplicates()
    w = pos.assign(weight=3.0)  # any constant: renormalised per topic
    ms = ["ERR-IA@20", "nERR-IA@20", "MAP-IA", "P-IA@20", "RBU(p=0.8,e=0.01)@20"]
    a = irf.evaluate(runs, qrels, ms)
    b = irf.evaluate(runs, qrels, ms, weights=w)
    np.testing.assert_allclose(a.values, b.values, rtol=1e-12, atol=1e-15)
