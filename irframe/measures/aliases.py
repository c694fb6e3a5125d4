"""Measure names of ir_measures and ranx, with those tools' semantics, and the few new
measures they need (NumQ, Accuracy, Compat, F1).

ir_measures (MacAvaney et al. 2022, ECIR) names:

========================  ==========================================================
``SetP``, ``SetR``        precision / recall of the whole retrieved set (trec_eval set_P, set_recall)
``SetP(relative=True)``   set_relative_P, as ir_measures prints ``SetRelP``
``SetF(beta=1)``          set F (trec_eval set_F)
``SetAP``                 set_map: num_rel_ret² / (num_ret · num_rel)
``SetRelP``               set_relative_P
``NumQ``                  1 per evaluated topic, summed: the number of topics
``IPrec@0.1``             interpolated precision at recall 0.1 (= ``IPrec(recall=0.1)``)
``nDCG(dcg='exp-log2')``  nDCG with gain 2^grade − 1 (gdeval, ranx ``ndcg_burges``)
``nDCG(gains={2:3})``     nDCG with grade 2 gaining 3 (other grades: their value), irframe's
                          ``nDCG(gains='2=3')`` (trec_eval ``ndcg.2=3``)
``Accuracy@k``            share of (relevant, non-relevant) pairs of the top k where the
                          relevant one is ranked first; 0 when no relevant document is
                          retrieved (ir_measures leaves such topics out of its mean), 1
                          when no non-relevant one is (ir_measures divides by zero)
``Compat(p=0.95)``        compatibility (Clarke, Vtyurina & Smucker 2021, TOIS): rank-biased
                          overlap with the ideal ranking, normalised by the ideal's own
``Precision``             ``P``
``INST(T=1,max_rel=2)``   cwl_eval's measures as ir_measures names them (also ``INSQ``,
                          ``SDCG(max_rel=2)@10``, ``BPM(T=1,max_rel=2)@10``, ``NERR8@k``,
                          ``NERR9@k``, ``NERR10(p=0.9)``, ``NERR11(T=1)``): irframe's
                          ``CWL(C=..., gmax=max_rel, clip=true)``, gain = min(grade,
                          max_rel) / max_rel, negative grades 0 (min_rel = 0)
``NumRet(rel=k)``         retrieved documents with grade >= k: ``NumRelRet(rel=k)``
                          (ir_measures: ``NumRelRet = NumRet(rel=1)``); ``NumRet``
                          alone counts every retrieved document
========================  ==========================================================

ranx (Bassani 2022, ECIR) names, ``name@k`` and ``-lN`` (relevance level N):
``hits@k`` (relevant retrieved in the top k, NumRelRet@k), ``hit_rate@k`` (Success@k),
``precision@k``, ``recall@k``, ``f1@k`` (2·P@k·R@k / (P@k + R@k)), ``mrr@k`` (RR@k),
``r-precision`` (Rprec), ``map@k`` (AP@k), ``dcg@k`` (linear gain, trec_eval 10's dcg),
``dcg_burges@k`` (gain 2^grade − 1), ``ndcg@k``, ``ndcg_burges@k``, ``rbp.95``
(RBP(p=0.95): graded, ``(1 − p) Σ grade_i p^(i−1)``).  ``-lN`` is ``rel=N`` on the binary
ones; on ``ndcg``/``dcg`` grades below N gain 0 (``gains='1=0,...'``); the exponential-gain
and ``rbp`` forms with ``-lN`` (N > 1) are refused with the qrels change that gives them.

Where a name means something else elsewhere:

- ``rbp`` alone is trec_eval 10's (gains rescaled to [0, 1] per topic when a grade
  exceeds 1, ``p=0.9``); ranx's ``rbp.95`` and irframe's ``RBP(p=...)`` use the grade itself.
- ``ndcg_burges`` / ``dcg='exp-log2'`` use 2^grade − 1; trec_eval's ``ndcg`` and ranx's
  ``ndcg`` the grade.
- ``recall`` / ``ndcg_cut`` / ``success`` without ``@k`` are trec_eval families (several
  values); ``recall@k`` is ranx's (one value).
- ``MRR`` is irframe's and ir_measures' RR (a per-topic value averaged as every measure).
- ranx and ir_measures order tied scores by docno ascending; irframe by trec_eval's rule
  (descending, float32 scores).  Values agree on untied rankings (``order="trec_eval10"``
  matches their float64 scores).
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from ..align import segment_sum
from ..errors import ConventionWarning, MeasureParamError, warn
from ..params import REL
from . import registry as _registry
from . import trec as _trec  # noqa: F401  (registers NumRelRet, whose definition Hits reuses)
from . import trec_arrays as ta
from .registry import EvalContext, Measure, MeasureDef, Param, register, register_alias_pattern

# ------------------------------------------------------------------ ir_measures' cutoff=
_CUTOFF_ITEM = re.compile(r"(?:^|,)\s*cutoff\s*=\s*([^,()]*?)\s*(?=,|$)")


def _realias(text: str, skip) -> str:
    """``text`` rewritten by the first other alias pattern that matches it whole (as
    [`irframe.measures.parse_measure`][irframe.parse_measure] does), else unchanged."""
    for pat, rewrite in _registry._ALIAS_PATTERNS:
        if rewrite is not skip:
            m = pat.fullmatch(text)
            if m:
                return rewrite(m)
    return text


def _ir_measures_cutoff(m: re.Match) -> str:
    """ir_measures' ``cutoff=`` parameter as irframe's ``@k``: ``nDCG(dcg='exp-log2', cutoff=20)``
    → ``nDCG(dcg='exp-log2')@20``, ``Judged(cutoff=10)`` → ``Judged@10``.  As in ir_measures,
    an ``@k`` written after the parameters wins (``nDCG(cutoff=20)@10`` is ``nDCG@10``)."""
    name, inner, at = m.group(1), m.group(2), m.group(3)
    found = _CUTOFF_ITEM.search(inner)
    if found is None:  # e.g. "nDCG(p=1 cutoff=2)": no comma before cutoff= (was an AttributeError)
        raise MeasureParamError(
            f"cannot parse {m.group(0)!r}: separate the parameters with commas (cutoff=k, ...)"
        )
    rest = (inner[: found.start()] + inner[found.end() :]).strip().strip(",").strip()
    k = at[1:] if at else found.group(1)
    if not k:
        raise MeasureParamError(f"{m.group(0)!r}: cutoff= needs a number, e.g. cutoff=10")
    return _realias(f"{name}({rest})@{k}" if rest else f"{name}@{k}", _ir_measures_cutoff)


register_alias_pattern(
    r"([A-Za-z_][A-Za-z0-9_\-\.]*)\(([^()]*\bcutoff\s*=[^()]*)\)(@[^()@]+)?", _ir_measures_cutoff
)


def _bare_p(m: re.Match) -> str:
    """``P`` alone: set precision (irframe, ir_measures' ``SetP``, ranx's ``precision``), where
    trec_eval's and pytrec_eval's ``-m P`` / ``{"P"}`` mean ``P_5`` … ``P_1000``: warn."""
    warn(
        "'P' without a cutoff is precision over the whole retrieved list (irframe's and ranx's "
        "meaning: trec_eval's set_P); trec_eval's and pytrec_eval's 'P' are P_5, P_10, ... P_1000. "
        "Write 'P.5,10,15,20,30,100,200,500,1000' (or 'P@10') for those, or 'set_P' for this "
        "value without this warning.",
        ConventionWarning,
    )
    return "P()"


register_alias_pattern(r"P", _bare_p)

# ir_measures' own spelling of alpha-nDCG (its registry holds both)
register_alias_pattern(
    r"α_nDCG(\(.*\))?(@\d+)?", lambda m: "alpha_nDCG" + (m.group(1) or "") + (m.group(2) or "")
)

_RANX = {  # ranx name -> irframe measure (k filled in)
    "hits": "Hits",
    "hit_rate": "Success",
    "precision": "P",
    "recall": "R",
    "f1": "F1",
    "mrr": "RR",
    "map": "AP",
    "dcg": "dcg",
    "dcg_burges": "dcg(dcg='exp-log2')",
    "ndcg": "nDCG",
    "ndcg_burges": "nDCG(dcg='exp-log2')",
}
_RANX_REL = {"hits", "hit_rate", "precision", "recall", "f1", "mrr", "map"}  # take -lN as rel=N


def _below_level_zero(spelled: str, bare: str, level: int) -> MeasureParamError:
    """The error for ranx's graded ``-lN`` (grades below N count 0, the others their own
    gain) where no irframe parameter says it: the qrels change that does."""
    return MeasureParamError(
        f"ranx's {spelled} counts grades below {level} as 0 and the others with their own "
        f"gain; irframe has no parameter for that: evaluate {bare!r} with the qrels "
        f"qrels.assign(rel=qrels.rel.where(qrels.rel >= {level}, 0))"
    )


def _ranx(m) -> str:
    name, k, level = m.group(1), m.group(3), m.group(5)
    target = _RANX[name]
    cut = f"@{k}" if k else ""
    if level is not None and name in _RANX_REL:  # binary measures: relevant iff grade >= N
        target = f"{target}(rel={level})"
    elif level is not None and int(level) > 1:  # graded: grades below N count 0
        if name not in ("ndcg", "dcg"):  # (gains= replaces 2^grade - 1 for every grade)
            raise _below_level_zero(m.group(0), name + cut, int(level))
        zeros = ",".join(f"{g}=0" for g in range(1, int(level)))
        target = f"{target}(gains='{zeros}')"
    return target + cut  # (-l1, ranx's default level, changes nothing)


# ------------------------------------------------------------------ new measures
def _num_q(ctx: EvalContext, m: Measure) -> np.ndarray:
    return np.ones(ctx.aligned.n_groups)


def _f1(ctx: EvalContext, m: Measure) -> np.ndarray:
    level = ta.measure_rel_level(ctx, m)
    hits = ta.hits(ctx, level, m.cutoff)
    n = ctx.aligned.group_len if m.cutoff is None else np.full(ctx.aligned.n_groups, m.cutoff)
    p, r = ta.safe_div(hits, n), ta.safe_div(hits, ta.num_rel(ctx, level))
    return ta.safe_div(2 * p * r, p + r)


def _accuracy(ctx: EvalContext, m: Measure) -> np.ndarray:
    """Per topic: 1 − (non-relevant above each relevant, summed) / (relevant × non-relevant)."""
    a = ctx.aligned
    level = ta.measure_rel_level(ctx, m)
    rel = np.nan_to_num(a.row_rel, nan=-np.inf) >= level
    if m.cutoff is not None:
        keep = a.row_rank <= m.cutoff
    else:
        keep = np.ones(len(rel), bool)
    nonrel = keep & ~rel
    rows = ta.Rows(ctx, keep & rel)  # the relevant rows, and the non-relevant ones above each
    above = rows.top_sum(rows.at_or_above(nonrel).astype(np.float64), None)
    n_rel = rows.count.astype(np.float64)
    n_non = segment_sum(nonrel.astype(np.float64), a.offsets)
    value = 1.0 - ta.safe_div(above, n_rel * n_non)
    # no relevant document retrieved: 0 (ir_measures leaves the topic out of its mean);
    # nothing non-relevant among them: 1 (ir_measures divides by zero)
    return np.where(n_rel > 0, value, 0.0)


def _compat(ctx: EvalContext, m: Measure) -> np.ndarray:
    """Compatibility: RBO(p) of the ranking against the ideal one, over depth max(n, R).

    The ideal ranking lists the topic's documents with a positive grade, best grade first
    and, within a grade, in the run's order (unretrieved ones last).  With
    ``T(n) = sum_{d=1..n} p^(d-1) / d``, a document at rank r in the run and rank s in the
    ideal contributes ``T(D) - T(max(r, s) - 1)`` to the overlap sum, which is divided by
    ``sum_{d=1..D} p^(d-1)``; ``normalize`` divides by the ideal ranking's own score.
    """
    a = ctx.aligned
    p = float(m.param("p"))
    t_all = a.qrels_rel
    pos = t_all > 0
    n_ideal_t = np.bincount(a.qrels_topic[pos], minlength=len(a.topics))
    g_topic = a.group_topic
    n_ideal = n_ideal_t[g_topic]
    depth = np.maximum(a.group_len, n_ideal)
    dmax = int(depth.max(initial=0))
    d = np.arange(1, dmax + 1, dtype=np.float64)
    pw = np.cumprod(np.concatenate([[1.0], np.full(dmax, p)]))[: dmax + 1]  # p^0 .. p^dmax
    T = np.concatenate([[0.0], np.cumsum(pw[:dmax] / d)])  # T(0..dmax)
    norm = np.concatenate([[0.0], np.cumsum(pw[:dmax])])
    # ideal rank of each retrieved relevant row: docs with a higher grade, then same-grade
    # retrieved docs ranked above it (the run's order), then unretrieved same-grade docs
    grade = np.nan_to_num(a.row_rel, nan=0.0)
    relrow = grade > 0
    rows = ta.Rows(ctx, relrow)
    row_group = np.repeat(np.arange(a.n_groups), rows.count)
    g = grade[rows.pos]
    t = g_topic[row_group]
    # per topic and grade: how many positive documents have a higher grade (sorted keys)
    qt, qg = a.qrels_topic[pos], t_all[pos]
    levels = np.unique(np.concatenate([qg, g]))
    n_codes = len(levels)
    desc = n_codes - 1 - np.searchsorted(levels, qg)  # higher grade -> smaller code
    keys = np.sort(qt.astype(np.int64) * n_codes + desc)
    row_key = t.astype(np.int64) * n_codes + (n_codes - 1 - np.searchsorted(levels, g))
    topic_start = np.searchsorted(keys, np.arange(len(a.topics), dtype=np.int64) * n_codes)
    higher = np.searchsorted(keys, row_key, side="left") - topic_start[t]
    # same-grade retrieved docs above this one in the run (its order), per group
    o = np.lexsort((rows.rank, -g, row_group))
    inv = np.empty_like(o)
    inv[o] = np.arange(len(o))
    grp_g = np.stack([row_group, -g])
    change = np.ones(len(o), bool)
    if len(o):
        s = grp_g[:, o]
        change[1:] = (s[0, 1:] != s[0, :-1]) | (s[1, 1:] != s[1, :-1])
    run_start = np.maximum.accumulate(np.where(change, np.arange(len(o)), 0))
    same_above = (np.arange(len(o)) - run_start)[inv]
    s_rank = higher + same_above + 1
    r_rank = rows.rank
    mx = np.maximum(r_rank, s_rank)
    D = depth[row_group]
    contrib = T[D] - T[mx - 1]
    score = ta.safe_div(segment_sum(contrib, rows.offsets), norm[depth])
    if m.param("normalize"):
        # the ideal ranking against itself: the j-th document contributes T(D) - T(j - 1)
        j_cum = np.concatenate([[0.0], np.cumsum(T[:dmax])])  # sum_{j<n} T(j)
        best = ta.safe_div(n_ideal * T[depth] - j_cum[n_ideal], norm[depth])
        score = np.where(best > 0, ta.safe_div(score, best), score)
    return score


register(
    MeasureDef(
        "NumQ",
        _num_q,
        cutoff="none",
        aggregate="sum",
        family="ir_measures",
        bounds="approximate",
        topic_local=True,
        spellings={"ir_measures": "NumQ"},
        reference="ir_measures NumQ and pytrec_eval num_q (tests/test_aliases_ir_measures.py)",
        description="1 per evaluated topic, summed over topics: the number of topics (ir_measures)",
    ),
    # trec_eval's and pytrec_eval's num_q named on its own: pytrec_eval's per-topic value;
    # summed over topics, trec_eval's "all" line
    aliases=("num_q",),
)
register(  # NumRelRet per topic, averaged (ranx): one kernel and NumRelRet's capabilities
    dataclasses.replace(
        _registry.get_definition("NumRelRet"),
        name="Hits",
        aggregate="mean",
        family="ranx",
        spellings={"ranx": "hits@{k}"},
        description="relevant documents in the top k, averaged over topics (ranx hits; "
        "NumRelRet is the same per topic, summed)",
    )
)
register(
    MeasureDef(
        "F1",
        _f1,
        params={"rel": REL},
        family="ranx",
        bounds="approximate",
        topic_local=True,
        spellings={"ranx": "f1@{k}"},
        reference="ranx f1 (tests/test_aliases_ir_measures.py)",
        citation="van Rijsbergen 1979, Information Retrieval (2nd ed.), Butterworths, ch. 7",
        description="2 P R / (P + R) at k (ranx f1; without @k: over the retrieved set)",
    )
)
register(
    MeasureDef(
        "Accuracy",
        _accuracy,
        params={"rel": REL},
        family="ir_measures",
        bounds="approximate",
        topic_local=True,
        spellings={"ir_measures": "Accuracy@{k}"},
        reference="ir_measures Accuracy (tests/test_aliases_ir_measures.py, tests/test_peers.py)",
        description="share of (relevant, non-relevant) pairs in the top k ordered right "
        "(ir_measures Accuracy); 0 when nothing relevant is retrieved",
    )
)
register(
    MeasureDef(
        "Compat",
        _compat,
        cutoff="none",
        citation="Clarke, Vtyurina & Smucker 2021, Assessing Top-k Preferences, ACM TOIS",
        family="ir_measures",
        bounds="approximate",
        topic_local=True,
        spellings={"ir_measures": "Compat"},
        params={
            "p": Param(
                "float",
                0.95,
                low=0,
                high=1,
                low_open=True,
                high_open=True,
                description="RBO persistence",
            ),
            "normalize": Param("bool", True, description="divide by the ideal ranking's own score"),
        },
        description="compatibility with the ideal ranking (Clarke, Vtyurina & Smucker 2021, TOIS), ir_measures",
    )
)


def _set_p_relative(m) -> str:
    """ir_measures' ``SetP(relative=True)`` (how it prints ``SetRelP``) is set_relative_P; ``relative=False`` is P."""
    items = [x.strip() for x in m.group(2).split(",") if x.strip()]
    rest = [x for x in items if x.partition("=")[0].strip() != "relative"]
    value = next(
        x.partition("=")[2].strip() for x in items if x.partition("=")[0].strip() == "relative"
    )
    if value.lower() not in ("true", "false", "1", "0"):
        raise MeasureParamError(f"{m.group(0)!r}: relative must be True or False, got {value!r}")
    target = "set_relative_P" if value.lower() in ("true", "1") else "P"
    return target + (f"({','.join(rest)})" if rest else "") + (m.group(3) or "")


register_alias_pattern(r"(SetP|SetRelP)\(([^()]*\brelative\s*=[^()]*)\)(@\d+)?", _set_p_relative)


def _ndcg_gains_dict(m) -> str:
    """ir_measures' ``nDCG(gains={0:0,1:1,2:3})`` → irframe's ``nDCG(gains='0=0,1=1,2=3')``.

    ir_measures maps the qrels grades through the dict (unlisted grades keep their value)
    before pytrec_eval's ndcg; irframe's ``gains=`` has the same meaning (trec_eval's
    ``ndcg.0=0,1=1,2=3``).
    """
    pairs = [x.strip() for x in m.group(2).split(",") if x.strip()]
    if not all(p.count(":") == 1 for p in pairs):
        raise MeasureParamError(f"{m.group(0)!r}: gains must be a mapping such as {{0:0,1:1,2:3}}")
    mapping = ",".join("=".join(y.strip() for y in p.split(":")) for p in pairs)
    return f"nDCG({m.group(1)}gains='{mapping}'{m.group(3)})" + (m.group(4) or "")


register_alias_pattern(
    r"nDCG\(([^{}()]*?)gains\s*=\s*\{([^{}()]*)\}([^{}()]*)\)(@\d+)?", _ndcg_gains_dict
)

for _name, _target in {
    "SetP": "P",
    "SetR": "R",
    "SetF": "set_F",
    "SetAP": "set_map",
    "SetRelP": "set_relative_P",
    "Precision": "P",
    "r-precision": "Rprec",
    "r_precision": "Rprec",
}.items():
    register_alias_pattern(
        rf"{_name}(\(.*\))?(@\d+)?",
        lambda m, t=_target: t + (m.group(1) or "") + (m.group(2) or ""),  # type: ignore[misc]  # mypy cannot type a lambda with a bound default
    )
_RECALL_ITEM = re.compile(r"(?:^|,)\s*recall\s*=\s*[^,()]*?\s*(?=,|$)")


def _iprec_at(m: re.Match) -> str:
    """``IPrec@0.1`` (ir_measures) is ``IPrec(recall=0.1)``; as in ir_measures the ``@`` wins
    over a ``recall=`` in the parameters (``IPrec(rel=2, recall=0.4)@0.2`` is recall 0.2)."""
    inner = _RECALL_ITEM.sub("", m.group(1)[1:-1] if m.group(1) else "").strip().strip(",")
    return f"IPrec(recall={m.group(2)}" + (f",{inner})" if inner.strip() else ")")


register_alias_pattern(r"IPrec(\((?:[^()]*)\))?@([0-9]*\.[0-9]+|[01])", _iprec_at)
register_alias_pattern(
    r"(hits|hit_rate|precision|recall|f1|mrr|map|dcg|dcg_burges|ndcg|ndcg_burges)"
    r"(@(\d+))?(-l(\d+))?",
    _ranx,
)
register_alias_pattern(r"rbp\.(\d+)", lambda m: f"RBP(p=0.{m.group(1)})")


def _ranx_rbp_level(m: re.Match) -> str:
    if int(m.group(2)) <= 1:
        return f"RBP(p=0.{m.group(1)})"
    raise _below_level_zero(m.group(0), f"rbp.{m.group(1)}", int(m.group(2)))


register_alias_pattern(r"rbp\.(\d+)-l(\d+)", _ranx_rbp_level)
register_alias_pattern(r"r[-_]precision-l(\d+)", lambda m: f"Rprec(rel={m.group(1)})")
# ir_measures' NumRet(rel=k) counts the retrieved documents with grade >= k (its NumRelRet is
# NumRet(rel=1)); without rel it counts them all
register_alias_pattern(
    r"NumRet\(((?:[^()]*,)?\s*rel\s*=[^()]*)\)(@\d+)?",
    lambda m: f"NumRelRet({m.group(1)})" + (m.group(2) or ""),
)


def _ir_measures_cwl(m) -> str:
    """ir_measures' cwl_eval measures → irframe's ``CWL(C=...,gmax=max_rel)`` (gain = grade / max_rel)."""
    name, inner, k = m.group(1), m.group(2) or "", m.group(4)
    params = {}
    for item in filter(None, (x.strip() for x in inner.split(","))):
        key, _, value = item.partition("=")
        params[key.strip()] = value.strip()
    if float(params.pop("min_rel", 0) or 0) != 0:
        raise MeasureParamError(
            f"{name}: min_rel other than 0 is not supported (irframe scales gains as grade / max_rel)"
        )
    gmax = params.pop("max_rel", None)
    c: str | None
    if name == "INST" or name == "INSQ" or name == "NERR11":
        c = f"{name}(T={params.pop('T', '1.0')})"
    elif name == "NERR10":
        c = f"NERR10(phi={params.pop('p', '0.9')})"
    elif name == "BPM":
        c = f"BPM(T={params.pop('T', '1.0')},K={k})" if k else None
        k = None
    else:  # SDCG, NERR8, NERR9: a cutoff
        c = f"{name}@{k}" if k else None
        k = None
    if c is None or params or k:
        raise MeasureParamError(
            f"{m.group(0)!r}: not a measure of ir_measures' cwl_eval provider "
            f"(SDCG, BPM, NERR8 and NERR9 need @k; INST, INSQ, NERR10, NERR11 take none)"
        )
    # ir_measures clips grades into [min_rel, max_rel] before scaling (a grade above max_rel
    # counts as max_rel, with a warning), so the alias clips too
    return f"CWL(C={c}" + (f",gmax={gmax},clip=true)" if gmax is not None else ")")


register_alias_pattern(
    r"(INST|INSQ|SDCG|BPM|NERR8|NERR9|NERR10|NERR11)(?:\((.*)\))?(@(\d+))?", _ir_measures_cwl
)
