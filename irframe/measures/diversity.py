"""Registration of the diversity measure family (Amigó et al., SIGIR 2018; ndeval 4.5 conventions).

The kernels live in `irframe.diversity`.  Every measure here needs qrels with a
``subtopic`` column.  Measures that use aspect weights accept the evaluate option
``weights=`` (a frame ``topic, subtopic, weight``).

ndeval's column names are accepted as aliases (``alpha-nDCG@20``, ``ERR-IA@20``,
``nERR-IA@20``, ``MAP-IA``, ``P-IA@20``, ``strec@20``), so its CSV headers can be
passed straight to [`irframe.evaluate`][irframe.evaluate].
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import diversity_kernels as D
from .registry import EvalContext, MeasureDef, Param, register
from .trec import JUDGED_ONLY

_SUB = frozenset({"subtopics"})
_W = frozenset({"weights"})


_UNIT: dict[str, Any] = {"low": 0, "high": 1}
_SPECS = {
    "alpha": Param(
        "float",
        0.5,
        **_UNIT,
        description="novelty penalty: a subtopic seen c times gains (1-alpha)^c",
    ),
    "beta": Param("float", 0.5, **_UNIT, description="NRBP persistence"),
    "lam": Param("float", 0.5, **_UNIT, description="weight of StRecall in D#-nDCG"),
    "p": Param(
        "float", 0.8, low=0, high=1, low_open=True, high_open=True, description="RBP persistence"
    ),
    "e": Param("float", 0.0, low=0, description="effort (cost) per document"),
    "sat": Param("float", 1.0, low=0, description="Cube Test saturation level"),
    "graded": Param("bool", False, description="use graded subtopic gains r = g/gmax"),
    "rel": Param(
        "float",
        None,
        description="relevance threshold: a subtopic judgment is relevant iff grade >= rel and "
        "> 0 (ir_measures' and ndeval's rel; default: the evaluation's rel_level)",
    ),
}


def _with_rel(fn):
    """``fn`` evaluated with the measure's own ``rel=`` as the relevance level (ir_measures'
    ``ERR_IA(rel=2)@20``, ndeval's ``-relevance`` level): a context whose ``rel_level`` is
    ``rel``, shared by every measure of the call that asks for the same level."""

    def compute(ctx, m):
        rel = m.param("rel")
        if rel is None or rel == ctx.options.get("rel_level", 1):
            return fn(ctx, m)
        sub = ctx.memo(
            ("diversity_rel_context", float(rel)),
            lambda: EvalContext(ctx.aligned, {**ctx.options, "rel_level": rel}),
        )
        return fn(sub, m)

    compute.__doc__ = fn.__doc__
    return compute


def _params(defaults: dict) -> dict:
    """Specs of the given parameters with the given defaults (each name's spec from ``_SPECS``)."""
    return {k: replace(_SPECS[k], default=v) for k, v in defaults.items()}


NDEVAL = "ndeval 4.5 (TREC 2012 Web diversity runs, data/web2012_diversity)"


def _reg(
    name,
    fn,
    desc,
    *,
    params=None,
    cutoff="optional",
    weighted=True,
    aliases=(),
    rel=False,
    reference=NDEVAL,
    **capabilities,
):
    """Register a diversity measure: topic- and system-local, bounds by labelling unjudged
    documents relevant to every subtopic (approximate unless declared otherwise);
    ``rel=True`` gives it ir_measures' ``rel=`` and ``judged_only=`` parameters."""
    params = _params(params or {})
    if rel:
        params["rel"] = _SPECS["rel"]
        params["judged_only"] = JUDGED_ONLY
        fn = _with_rel(fn)
    register(
        MeasureDef(
            name=name,
            compute=fn,
            params=params,
            cutoff=cutoff,
            needs=_SUB,
            options=_W if weighted else frozenset(),
            description=desc,
            family="diversity",
            bounds="approximate",
            topic_local=True,
            reference=reference,
            **capabilities,
        ),
        aliases=aliases,
    )


# ---------------------------------------------------------------- kernels (measure -> array)
def _alpha_dcg(ctx, m):
    return D.alpha_dcg(ctx, m.param("alpha"), m.param("graded"), m.cutoff)


def _alpha_ndcg(ctx, m):
    return D.alpha_ndcg(ctx, m.param("alpha"), m.param("graded"), m.cutoff)


def _err_ia(ctx, m):
    if m.param("graded"):
        return D.err_ia_graded(ctx, m.cutoff)
    return D.err_ia(ctx, m.param("alpha"), m.cutoff, normalize="ideal_ideal")


def _nerr_ia(ctx, m):
    return D.err_ia(ctx, m.param("alpha"), m.cutoff, normalize="ideal")


def _nrbp(ctx, m):
    return D.nrbp(ctx, m.param("alpha"), m.param("beta"), m.param("graded"), normalized=False)


def _nnrbp(ctx, m):
    return D.nrbp(ctx, m.param("alpha"), m.param("beta"), m.param("graded"), normalized=True)


def _dsharp(ctx, m):
    lam = m.param("lam")
    return lam * D.st_recall(ctx, m.cutoff) + (1 - lam) * D.d_ndcg(ctx, m.cutoff)


_A = {"alpha": 0.5, "graded": False}

_reg(
    "alpha_DCG",
    _alpha_dcg,
    "alpha-DCG@k as ndeval prints it (divided by the 'ideal ideal' "
    "N·Σ(1−α)^(i−1)/log2(i+1)); graded=true uses r = g/gmax",
    params=_A,
    cutoff="required",
    weighted=False,
    aliases=("alpha-DCG", "aDCG"),
    spellings={"ndeval": "alpha-DCG@{k}"},
    citation="Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher & MacKinnon 2008, SIGIR",
    rel=True,
)
_reg(
    "alpha_nDCG",
    _alpha_ndcg,
    "alpha-nDCG@k (Clarke et al. 2008), greedy ideal as ndeval; graded=true uses r = g/gmax",
    params=_A,
    cutoff="required",
    weighted=False,
    aliases=("alpha-nDCG", "a-nDCG", "alpha_ndcg"),
    spellings={"ndeval": "alpha-nDCG@{k}", "ir_measures": "alpha_nDCG@{k}"},
    citation="Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher & MacKinnon 2008, SIGIR",
    rel=True,
)
_reg(
    "ERR_IA",
    _err_ia,
    "intent-aware ERR@k; default ndeval (binary, stop prob. alpha, 'ideal "
    "ideal' normalised); graded=true: Σ_t w(t) ERR_t@k with r = (2^g−1)/2^gmax, unnormalised",
    params=_A,
    cutoff="required",
    aliases=("ERR-IA",),
    spellings={"ndeval": "ERR-IA@{k}", "ir_measures": "ERR_IA@{k}"},
    citation="Chapelle, Ji, Liao, Velipasaoglu, Lai & Wu 2011, Intent-based diversity metrics, Information Retrieval",
    rel=True,
)
_reg(
    "nERR_IA",
    _nerr_ia,
    "ERR-IA@k normalised by the greedy ideal ranking (ndeval nERR-IA)",
    params={"alpha": 0.5},
    cutoff="required",
    aliases=("nERR-IA",),
    spellings={"ndeval": "nERR-IA@{k}", "ir_measures": "nERR_IA@{k}"},
    citation="Chapelle, Ji, Liao, Velipasaoglu, Lai & Wu 2011, Intent-based diversity metrics, Information Retrieval",
    rel=True,
)
_reg(
    "NRBP",
    _nrbp,
    "novelty- and rank-biased precision (Clarke et al. 2009), ndeval",
    params={"alpha": 0.5, "beta": 0.5, "graded": False},
    cutoff="none",
    weighted=False,
    spellings={"ndeval": "NRBP", "ir_measures": "NRBP"},
    citation="Clarke, Kolla & Vechtomova 2009, ICTIR",
    rel=True,
)
_reg(
    "nNRBP",
    _nnrbp,
    "NRBP normalised by the greedy ideal ranking (ndeval nNRBP)",
    params={"alpha": 0.5, "beta": 0.5, "graded": False},
    cutoff="none",
    weighted=False,
    spellings={"ndeval": "nNRBP", "ir_measures": "nNRBP"},
    citation="Clarke, Kolla & Vechtomova 2009, ICTIR",
    rel=True,
)
_reg(
    "AP_IA",
    lambda c, m: D.ap_ia(c, m.cutoff),
    "intent-aware average precision (ndeval MAP-IA)",
    aliases=("MAP-IA", "MAP_IA", "AP-IA"),
    spellings={"ndeval": "MAP-IA", "ir_measures": "AP_IA"},
    citation="Agrawal, Gollapudi, Halverson & Ieong 2009, Diversifying search results, WSDM",
    rel=True,
)
_reg(
    "P_IA",
    lambda c, m: D.p_ia(c, m.cutoff),
    "intent-aware precision@k (ndeval P-IA)",
    cutoff="required",
    aliases=("P-IA",),
    spellings={"ndeval": "P-IA@{k}", "ir_measures": "P_IA@{k}"},
    citation="Agrawal, Gollapudi, Halverson & Ieong 2009, Diversifying search results, WSDM",
    rel=True,
)
_reg(
    "StRecall",
    lambda c, m: D.st_recall(c, m.cutoff),
    "subtopic recall@k (Zhai et al. 2003; ndeval strec)",
    cutoff="required",
    weighted=False,
    aliases=("strec", "S_recall", "S-recall", "I_rec", "I-rec"),
    spellings={"ndeval": "strec@{k}", "ir_measures": "StRecall@{k}"},
    citation="Zhai, Cohen & Lafferty 2003, SIGIR",
    rel=True,
)
_reg(
    "S_RR",
    lambda c, m: D.s_rr(c, m.cutoff),
    "S-RR@100%: 1/(rank at which every relevant subtopic is covered), 0 if never",
    weighted=False,
    citation="Zhai, Cohen & Lafferty 2003, Beyond independent relevance, SIGIR",
    aliases=("S-RR",),
)
_reg(
    "RR_IA",
    lambda c, m: D.rr_ia(c, m.cutoff),
    "intent-aware reciprocal rank",
    aliases=("RR-IA", "MRR_IA"),
    citation="Agrawal, Gollapudi, Halverson & Ieong 2009, Diversifying search results, WSDM",
)
_reg(
    "nDCG_IA",
    lambda c, m: D.ndcg_ia(c, m.cutoff),
    "intent-aware nDCG@k: Σ_t w(t) nDCG_t@k, gain = grade",
    aliases=("nDCG-IA",),
    citation="Agrawal, Gollapudi, Halverson & Ieong 2009, Diversifying search results, WSDM",
)
_reg(
    "RBP_IA",
    lambda c, m: D.rbp_ia(c, m.param("p"), m.cutoff),
    "intent-aware RBP: Σ_t w(t) Σ_i (1−p)p^(i−1) r, r = (2^g−1)/2^gmax",
    params={"p": 0.8},
    aliases=("RBP-IA",),
    citation="Agrawal, Gollapudi, Halverson & Ieong 2009, Diversifying search results, WSDM",
)
_reg(
    "RBU",
    lambda c, m: D.rbu(c, m.param("p"), m.param("e"), m.cutoff),
    "Rank-Biased Utility (Amigó et al. 2018, Eq. 11; authors' conventions): RBP weights, "
    "ERR-IA cascade, effort e per document; unnormalised",
    params={"p": 0.8, "e": 0.0},
    reference="the formula of Amigó et al. 2018 with the authors' conventions (docs/diversity.md)",
    citation="Amigó, Spina & Carrillo-de-Albornoz 2018, An axiomatic analysis of diversity evaluation metrics, SIGIR",
)
_reg(
    "EU",
    lambda c, m: D.eu(c, m.param("alpha"), m.param("e"), m.param("graded"), m.cutoff),
    "expected utility (Amigó et al., SIGIR 2018): Σ_i (Σ_t w r (1−α)^c − e)/(1 + log2 i)",
    params={"alpha": 0.5, "e": 0.05, "graded": True},
    citation="Amigó, Spina & Carrillo-de-Albornoz 2018, An axiomatic analysis of diversity evaluation metrics, SIGIR",
)
_reg(
    "CT",
    lambda c, m: D.ct(c, m.param("alpha"), m.param("sat"), m.param("graded"), m.cutoff),
    "Cube Test (Amigó et al., SIGIR 2018): Σ_i (1/i) Σ_t w r (1−α)^c f_sat, f_sat = [Σ_{j<i} r < sat]",
    params={"alpha": 0.5, "sat": 1.0, "graded": True},
    cutoff="required",
    citation="Amigó, Spina & Carrillo-de-Albornoz 2018, An axiomatic analysis of diversity evaluation metrics, SIGIR",
)
_reg(
    "D_nDCG",
    lambda c, m: D.d_ndcg(c, m.cutoff),
    "D-nDCG@k (Sakai et al. 2010): global gain Σ_t w(t) g(d,t)",
    cutoff="required",
    aliases=("D-nDCG",),
    citation="Sakai, Craswell, Song, Robertson, Dou & Lin 2010, EVIA",
)
_reg(
    "Dsharp",
    _dsharp,
    "D#-nDCG@k (Sakai & Song 2011) = lam·StRecall@k + (1−lam)·D-nDCG@k",
    params={"lam": 0.5},
    cutoff="required",
    aliases=("DSharp", "Dsharp_nDCG", "D#-nDCG"),
    citation="Sakai & Song 2011, SIGIR",
)
