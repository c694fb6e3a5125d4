"""trec_eval's measure syntax: nicknames, parameter lists, custom gains, family names.

trec_eval names a measure *family* (``P``, ``ndcg_cut``, ``iprec_at_recall``, ...)
and takes its parameters after a dot: ``P.5,10,20``, ``Rprec_mult.0.5,2.0``,
``ndcg.1=0.5,2=1,3=3,4=7``, ``utility.2,-1,0,0``.  Nicknames (``official``,
``all_trec``, ``set``, ``prefs``, ``all_prefs``, ``qrels_jg``) name several families.
This module expands such a request into the individual values trec_eval prints,
each paired with the irframe measure string that computes it:

>>> [(v.name, v.measure) for v in expand(["P.5,10"])]
[('P_5', 'P@5'), ('P_10', 'P@10')]
>>> [v.name for v in expand(["ndcg.1=0.5,2=1"])]
['ndcg_1=0.5,2=1']
>>> [v.name for v in expand(["Rprec_mult.2.0,0.5"])]
['Rprec_mult_0.50', 'Rprec_mult_2.00']

The rules are trec_eval's (``trec_eval.c``, ``meas_init.c``): the text before the
first dot is the family, the rest its comma-separated parameters; cutoffs are parsed
with C's ``atol``/``atof`` (``ndcg_cut.23.4`` is ``ndcg_cut_23``), sorted and must be
positive and distinct; the first ``-m`` that gives a family parameters wins; output
follows trec_eval's fixed measure order, not the order of the request; a family
without parameters takes trec_eval's defaults (``P`` → ``P_5`` … ``P_1000``).

A Python request list follows pytrec_eval instead where the two differ: every cutoff
requested for a family is computed (``["P.5", "P.10"]`` is ``P_5, P_10``, where
``trec_eval -m P.5 -m P.10`` prints ``P_5`` alone), whatever the order of the list or set,
and a cutoff requested twice is computed once (`expand_list_for_api`).

``df.ir.metric("P.5,10")`` and [`irframe.evaluate`][irframe.evaluate] accept the same syntax: a
string with trec_eval parameters, a nickname or a family name that is not also an
irframe name expands into several measures, labelled with the names trec_eval prints
(``P_5``, ``P_10``).  Family names that irframe already uses keep irframe's meaning
there (``P`` alone is set precision, ``ndcg`` is nDCG); the command line
(``irframe eval -m P``) follows trec_eval.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._textfile import c_atol  # C's atol, shared with the readers (re-exported here)
from ..errors import ConventionWarning, MeasureParamError, warn
from ..prefs import PREFS_MEASURES

__all__ = [
    "FAMILIES",
    "NICKNAMES",
    "VERSIONS",
    "TrecValue",
    "c_atof",
    "c_atol",
    "expand",
    "expand_list_for_api",
    "is_trec_request",
]

VERSIONS = ("9.0.8", "10.0")

_LONG = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALLS = tuple(round(0.1 * i, 1) for i in range(11))
_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@dataclass(frozen=True)
class _Family:
    name: str
    kind: str  # single | long | gm | cut_long | cut_double | p_double | p_pair | runid | num_q | relstring
    defaults: tuple = ()
    since: str = "9.0.8"
    measure: str = ""  # irframe measure (template) computing it
    needs: str = "qrels"  # rel-info format: qrels | prefs | qrels_jg


def _f(name, kind="single", defaults=(), since="9.0.8", measure="", needs="qrels"):
    return _Family(name, kind, tuple(defaults), since, measure or name, needs)


#: trec_eval 10.0's measure table, in its print order (9.0.8: the same without the 10.0 ones).
FAMILIES: tuple[_Family, ...] = (
    _f("runid", "runid"),
    _f("num_q", "num_q"),
    _f("num_ret", "long"),
    _f("num_rel", "long"),
    _f("num_rel_ret", "long"),
    _f("map"),
    _f("gm_map", "gm"),
    _f("Rprec"),
    _f("bpref"),
    _f("recip_rank"),
    _f("iprec_at_recall", "cut_double", _RECALLS, measure="IPrec(recall={x!r})"),
    _f("P", "cut_long", _LONG, measure="P@{k}"),
    _f("relstring", "relstring", (10.0,)),
    _f("recall", "cut_long", _LONG, measure="R@{k}"),
    _f("infAP"),
    _f("gm_bpref", "gm"),
    _f("Rprec_mult", "cut_double", _MULTS, measure="Rprec(mult={x!r})"),
    _f("utility", "p_double", (1.0, -1.0, 0.0, 0.0), measure="utility(coef={p!r})"),
    _f("11pt_avg", "p_double", _RECALLS, measure="IPrecAvg(recalls={p!r})"),
    _f("binG"),
    _f("G", "p_pair", measure="G(gains={p!r})"),
    _f("dcg", "p_pair", since="10.0", measure="dcg(gains={p!r})"),
    _f("ideal_dcg", "p_pair", since="10.0", measure="ideal_dcg(gains={p!r})"),
    _f("ndcg", "p_pair", measure="nDCG(gains={p!r})"),
    _f("ndcg_rel", "p_pair", measure="ndcg_rel(gains={p!r})"),
    _f("Rndcg", "p_pair", measure="Rndcg(gains={p!r})"),
    _f("ndcg_cut", "cut_long", _LONG, measure="nDCG@{k}"),
    _f("map_cut", "cut_long", _LONG, measure="AP@{k}"),
    _f("relative_P", "cut_long", _LONG, measure="relative_P@{k}"),
    _f("success", "cut_long", (1, 5, 10), measure="Success@{k}"),
    _f("set_P"),
    _f("set_relative_P"),
    _f("set_recall"),
    _f("set_map"),
    _f("set_F", "p_double", (1.0,), measure="set_F(beta={x!r})"),
    _f("num_nonrel_judged_ret", "long"),
    _f("prefs_num_prefs_poss", "long", needs="prefs"),
    _f("prefs_num_prefs_ful", "long", needs="prefs"),
    _f("prefs_num_prefs_ful_ret", "long", needs="prefs"),
    _f("prefs_simp", needs="prefs"),
    _f("prefs_pair", needs="prefs"),
    _f("prefs_avgjg", needs="prefs"),
    _f("prefs_avgjg_Rnonrel", needs="prefs"),
    _f("prefs_simp_ret", needs="prefs"),
    _f("prefs_pair_ret", needs="prefs"),
    _f("prefs_avgjg_ret", needs="prefs"),
    _f("prefs_avgjg_Rnonrel_ret", needs="prefs"),
    _f("prefs_simp_imp", needs="prefs"),
    _f("prefs_pair_imp", needs="prefs"),
    _f("prefs_avgjg_imp", needs="prefs"),
    _f("map_avgjg", measure="AP", needs="qrels_jg"),
    _f("P_avgjg", "cut_long", _LONG, measure="P@{k}", needs="qrels_jg"),
    _f("Rprec_mult_avgjg", "cut_double", _MULTS, measure="Rprec(mult={x!r})", needs="qrels_jg"),
    _f("yaap"),
    _f("rbp", "p_pair", since="10.0", measure="rbp(params={p!r})"),
    _f("rbp_resid", "p_pair", since="10.0", measure="rbp_resid(params={p!r})"),
    _f("unj", "cut_long", (5, 10, 20), since="10.0", measure="unj@{k}"),
)
_BY_NAME = {f.name: f for f in FAMILIES}

_OFFICIAL = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
_ALL_TREC = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "unj",
    "rbp",
    "rbp_resid",
    "infAP",
    "gm_bpref",
    "utility",
    "11pt_avg",
    "ndcg",
    "relative_P",
    "Rprec_mult",
    "success",
    "map_cut",
    "ndcg_cut",
    "ndcg_rel",
    "Rndcg",
    "binG",
    "G",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
)
_PREFS_ALL = ("runid", "num_q", *PREFS_MEASURES)  # trec_eval's order

#: trec_eval's nicknames (``-m official`` is its default).  10.0's ``all_trec`` adds unj, rbp, rbp_resid.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
    "all_trec": _ALL_TREC,
    "all_prefs": _PREFS_ALL,
    "prefs": _PREFS_ALL[:8],
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


@dataclass(frozen=True)
class TrecValue:
    """One value trec_eval prints for a requested measure.

    Attributes
    ----------
    name : str
        The name trec_eval prints (``P_10``, ``iprec_at_recall_0.10``, ``ndcg_1=3,2=9``).
    measure : str
        The irframe measure string that computes it (``P@10``); ``""`` for runid/num_q.
    kind : str
        ``"float"`` (``%6.4f``), ``"long"`` (``%ld``, summed over topics), ``"gm"``
        (geometric mean, printed in the summary only), ``"runid"``, ``"num_q"`` or
        ``"relstring"`` (a per-topic string).
    family : str
        The trec_eval measure family (``P``).
    needs : str
        The relevance-information format it needs: ``qrels``, ``prefs`` or ``qrels_jg``.
    """

    name: str
    measure: str
    kind: str
    family: str
    needs: str = "qrels"


_SPECIAL_PREFIX = re.compile(r"^\s*([+-]?)(nan|inf)", re.IGNORECASE)
_FLOAT_PREFIX = re.compile(r"^\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)")


def c_atof(text: str) -> float:
    """C's ``atof``: the leading decimal number of ``text``, 0.0 when there is none.

    >>> c_atof(".25"), c_atof("5.0x"), c_atof(""), c_atof("  nan")
    (0.25, 5.0, 0.0, nan)
    """
    m = _FLOAT_PREFIX.match(text)
    if m:
        return float(m.group(0))
    m = _SPECIAL_PREFIX.match(text)
    return float(m.group(1) + m.group(2)) if m else 0.0


def _families(version: str) -> list[_Family]:
    if version not in VERSIONS:
        raise MeasureParamError(f"trec_eval version must be one of {VERSIONS}, got {version!r}")
    return [f for f in FAMILIES if version == "10.0" or f.since == "9.0.8"]


def split_request(text: str) -> tuple[str, str | None]:
    """``"P.5,10"`` → ``("P", "5,10")``; ``"map"`` → ``("map", None)`` (trec_eval's first-dot rule)."""
    name, dot, params = text.partition(".")
    return name, (params if dot else None)


def is_trec_request(text: str, version: str = "10.0") -> bool:
    """True when ``text`` names a trec_eval measure family or nickname (with or without parameters)."""
    name, _ = split_request(text)
    return name in NICKNAMES or name in {f.name for f in _families(version)}


def _param_error(trec_text: str, family: str, request: str) -> MeasureParamError:
    """trec_eval's refusal of a family's parameters: the message names the request; the
    attributes ``trec_text`` (trec_eval's own line) and ``trec_family`` let the command line
    print trec_eval's two lines (``trec_eval: Cannot initialize measure 'P'``)."""
    e = MeasureParamError(f"{trec_text} in '{request}'")
    e.trec_text, e.trec_family = trec_text, family
    return e


def _cut_longs(family: str, params: str, distinct: bool = True) -> list[int]:
    """trec_eval's cutoffs of ``family.params``, sorted; ``distinct``: refuse one given twice."""
    ks = sorted(c_atol(p) for p in params.split(","))
    if ks[0] <= 0:
        raise _param_error("trec_eval: Negative cutoff detected", family, f"{family}.{params}")
    if distinct and len(set(ks)) != len(ks):
        raise _param_error("trec_eval: duplicate cutoffs detected", family, f"{family}.{params}")
    return ks


def _cut_doubles(family: str, params: str, distinct: bool = True) -> list[float]:
    """As `_cut_longs`, for the fractional cutoffs of ``iprec_at_recall`` and ``Rprec_mult``."""
    xs = sorted(c_atof(p) for p in params.split(","))
    if distinct and len(set(xs)) != len(xs):
        raise _param_error("trec_eval: duplicate cutoffs detected", family, f"{family}.{params}")
    return xs


def _pairs(family: str, params: str) -> str:
    """Validate ``name=value,...`` as trec_eval's get_param_pairs does; returns the text."""
    last = ","
    for ch in params:
        if ch == ",":
            if last == ",":
                break
            last = ","
        elif ch == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if last != "=":
        e = MeasureParamError(f"trec_eval: malformed pair parameters in '{params}'")
        e.trec_text, e.trec_family = str(e), family
        raise e
    return params


def _values(fam: _Family, params: str | None) -> list[TrecValue]:
    v = lambda name, measure, kind="float": TrecValue(name, measure, kind, fam.name, fam.needs)  # noqa: E731
    if fam.kind in ("runid", "num_q"):
        return [v(fam.name, "", fam.kind)]
    if fam.kind in ("single", "long", "gm"):
        return [v(fam.name, fam.measure, "float" if fam.kind == "single" else fam.kind)]
    if fam.kind == "cut_long":
        ks = list(fam.defaults) if params is None else _cut_longs(fam.name, params)
        return [v(f"{fam.name}_{k}", fam.measure.format(k=k)) for k in ks]
    if fam.kind == "cut_double":
        xs = list(fam.defaults) if params is None else _cut_doubles(fam.name, params)
        return [v(f"{fam.name}_{x:3.2f}", fam.measure.format(x=float(x))) for x in xs]
    name = fam.name if params is None else f"{fam.name}_{params}"
    if fam.kind == "relstring":
        n = int(fam.defaults[0] if params is None else c_atof(params.split(",")[0]))
        return [v(name, f"relstring@{max(n, 1)}" if n > 0 else "relstring", "relstring")]
    if fam.kind == "p_double":
        xs = list(fam.defaults) if params is None else [c_atof(p) for p in params.split(",")]
        p = " ".join(repr(float(x)) for x in xs)
        return [v(name, fam.measure.format(p=p, x=float(xs[0])))]
    # p_pair
    if params is None:
        return [v(name, fam.measure.partition("(")[0])]
    return [v(name, fam.measure.format(p=_pairs(fam.name, params)))]


def expand(
    requests: Sequence[str] | str, version: str = "9.0.8", union: bool = False
) -> list[TrecValue]:
    """Expand trec_eval ``-m`` arguments into the values trec_eval prints, in its order.

    Parameters
    ----------
    requests : str or sequence of str
        ``-m`` arguments as trec_eval takes them: ``"official"``, ``"P.5,10"``,
        ``"ndcg_cut"``, ``"ndcg.1=3,2=9"``.  An empty sequence means ``official``.
    version : {"9.0.8", "10.0"}
        Whose measure table and nicknames to use.
    union : bool, default False
        pytrec_eval's rule for a Python request list instead of trec_eval's first-wins:
        a cutoff family takes every cutoff any request gives it, each once
        (``["P.5,10", "P.20", "P.5"]`` is ``P_5, P_10, P_20``); any other family given
        two different parameter lists is an error (`_union_params`).

    Returns
    -------
    list of TrecValue

    Raises
    ------
    irframe.errors.UnknownMeasureError
        ``trec_eval: illegal measure '...'`` for a name that is neither a family nor a nickname.
    irframe.errors.MeasureParamError
        For parameters trec_eval rejects (negative or duplicate cutoffs, malformed pairs).

    Examples
    --------
    >>> [v.name for v in expand(["success"])]
    ['success_1', 'success_5', 'success_10']
    >>> [v.name for v in expand(["map", "P.5", "num_q"])]
    ['num_q', 'map', 'P_5']
    >>> [v.name for v in expand(["unj"], version="10.0")]
    ['unj_5', 'unj_10', 'unj_20']
    """
    from ..errors import UnknownMeasureError

    if isinstance(requests, str):
        requests = [requests]
    table = _families(version)
    known = {f.name for f in table}
    marked: set[str] = set()
    given: dict[str, list[str]] = {}  # every parameter list of a family, in request order
    for req in list(requests) or ["official"]:
        name, p = split_request(req)
        if p is not None:
            if p == "":
                raise MeasureParamError(f"trec_eval: improper measure in parameter '{name}'")
            given.setdefault(name, []).append(p)
        if name in NICKNAMES:
            names = NICKNAMES[name]
            marked.update(n for n in names if n in known)
        elif name in known:
            marked.add(name)
        else:
            raise UnknownMeasureError(f"trec_eval: illegal measure '{name}'")
    params = {  # trec_eval: the first -m giving parameters wins; union: all of them
        name: _union_params(_BY_NAME[name], lists) if union else lists[0]
        for name, lists in given.items()
        if name in _BY_NAME
    }
    out: list[TrecValue] = []
    for fam in table:
        if fam.name in marked:
            out.extend(_values(fam, params.get(fam.name)))
    return out


def _union_params(fam: _Family, lists: list[str]) -> str:
    """One parameter list for ``fam`` from every list a request gives it (`expand`'s
    ``union``): a cutoff family's cutoffs, each once, in trec_eval's text; another family's
    one list, given once or more.

    >>> _union_params(_BY_NAME["P"], ["20,5", "5", "10"])
    '5,10,20'
    >>> _union_params(_BY_NAME["iprec_at_recall"], ["0.1", "0.10,0.5"])
    '0.1,0.5'
    """
    if fam.kind == "cut_long":
        ks = sorted({k for p in lists for k in _cut_longs(fam.name, p, distinct=False)})
        return ",".join(map(str, ks))
    if fam.kind == "cut_double":
        xs = sorted({x for p in lists for x in _cut_doubles(fam.name, p, distinct=False)})
        return ",".join(map(repr, xs))
    distinct = list(dict.fromkeys(lists))
    if len(distinct) > 1:
        shown = " and ".join(f"'{fam.name}.{p}'" for p in distinct)
        raise MeasureParamError(
            f"{shown} give measure family {fam.name!r} two parameter lists; only cutoff "
            f"families (P, ndcg_cut, ...) merge their lists: keep one of them"
        )
    return distinct[0]


def expand_for_api(text: str, registered=lambda name: False) -> list[tuple[str, str]] | None:
    """``(label, irframe measure)`` pairs when ``text`` is trec_eval syntax that names several
    values or needs a parameter list (``P.5,10``, ``all_trec``, ``ndcg_cut``); else ``None``.

    Family names irframe registers itself (``P``, ``ndcg``, ``map`` ...) are left to the
    registry (``None``), so existing irframe meanings never change.  Values irframe cannot
    compute in a cube (runid, num_q, relstring, preference and judgment-group measures) are
    left out of nicknames.

    ``registered(name)`` tells whether irframe itself knows ``name``.

    >>> expand_for_api("P.5,10")
    [('P_5', 'P@5'), ('P_10', 'P@10')]
    >>> expand_for_api("nDCG@10") is None
    True
    """
    name, p = split_request(text)
    if name not in NICKNAMES and name not in _BY_NAME:
        return None
    if p is None and name not in NICKNAMES and registered(name):
        return None
    if p is not None and not p:
        return None
    try:
        vals = expand([text], version="10.0", union=True)
    except MeasureParamError:
        return None  # not valid trec_eval parameters: maybe another tool's name (ranx "rbp.95")
    out = [
        (v.name, v.measure)
        for v in vals
        if v.kind not in ("runid", "num_q", "relstring") and v.needs == "qrels"
    ]
    if not out:
        raise MeasureParamError(
            f"{text!r} has no value irframe can put in a cube: runid and relstring are printed by "
            "`irframe eval` (relstring per topic: irframe.measures.trec.relstrings), the prefs_* and *_avgjg "
            "measures need preference or judgment-group files (irframe eval -R prefs / -R qrels_jg)"
        )
    return out


#: trec_eval measures that print text, not a number (pytrec_eval gives 0.0 for them)
_NO_NUMBER = ("runid", "relstring")
_UNDERSCORE = re.compile(r"^([A-Za-z0-9]+(?:_[A-Za-z]+)*)_([0-9.]+(?:,[0-9.]+)*)$")


def _underscore_list(text: str, single: bool = False) -> str:
    """pytrec_eval's and ir_measures' ``P_5,10`` / ``ndcg_cut_20,4`` as trec_eval's
    ``P.5,10`` / ``ndcg_cut.20,4`` (a cutoff family, then a comma-separated list); with
    ``single``, one cutoff too (``P_5`` as ``P.5``), which irframe otherwise reads as a
    measure name of its own.

    >>> _underscore_list("P_5,10"), _underscore_list("ndcg_cut_20,4"), _underscore_list("P_5")
    ('P.5,10', 'ndcg_cut.20,4', 'P_5')
    >>> _underscore_list("P_5", single=True), _underscore_list("iprec_at_recall_0.10", single=True)
    ('P.5', 'iprec_at_recall.0.10')
    """
    m = _UNDERSCORE.match(text.strip())
    if (
        m
        and (single or "," in m.group(2))
        and m.group(1) in _BY_NAME
        and _BY_NAME[m.group(1)].kind in ("cut_long", "cut_double", "p_double")
    ):
        return f"{m.group(1)}.{m.group(2)}"
    return text


def _families_named(text: str) -> set[str]:
    """The trec_eval families a request names: its own, or its nickname's."""
    name, _ = split_request(text)
    return set(NICKNAMES.get(name, (name,)))


def _peer_measure(item):
    """An ir_measures measure object (``ir_measures.nDCG@10``) as its measure string
    (``"nDCG@10"``, ir_measures' own spelling, which irframe reads with ir_measures' meaning);
    anything else unchanged.  ir_measures is never imported here."""
    module = type(item).__module__ or ""
    if module.split(".")[0] == "ir_measures" and hasattr(item, "NAME"):
        return str(item)
    return item


def expand_list_for_api(items: Sequence, registered=lambda name: False) -> list[tuple]:
    """``(label, measure)`` for every measure of a Python request list, trec_eval syntax
    expanded *together* (``label`` is ``None`` for an item that is parsed as it is).

    Together means pytrec_eval's rules over the whole list (its ``RelevanceEvaluator``
    reads a list or set of such strings): overlapping nicknames take their union
    (``["official", "set"]`` lists ``num_ret`` once); a family given parameters anywhere
    takes only those, but all of them, each once (``["ndcg_cut", "ndcg_cut.1,4"]`` is
    ``ndcg_cut_1, ndcg_cut_4``; ``["P.5", "P.10", "P_5"]`` is ``P_5, P_10``), so the result
    does not depend on the order of a set; the values come in trec_eval's order at the
    place of the first trec_eval item.  pytrec_eval's ``P_5,10`` is ``P.5,10``, and its
    ``P_5`` joins the other items naming ``P`` (alone, it is irframe's own name for
    P@5); ir_measures measure objects are read as their strings.  The command line keeps
    trec_eval's rule, where the first ``-m`` giving a family parameters wins.

    >>> [lab for lab, _ in expand_list_for_api(["official", "set"])][:6]
    ['num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map', 'Rprec']
    >>> expand_list_for_api(["AP", "ndcg_cut", "ndcg_cut.1,4"])
    [(None, 'AP'), ('ndcg_cut_1', 'nDCG@1'), ('ndcg_cut_4', 'nDCG@4')]
    >>> [lab for lab, _ in expand_list_for_api(["P.10", "P_5", "P.5,20"])]
    ['P_5', 'P_10', 'P_20']
    """
    items = [_peer_measure(m) for m in items]
    items = [_underscore_list(m) if isinstance(m, str) else m for m in items]
    blank = [m for m in items if isinstance(m, str) and m in _NO_NUMBER]
    if blank and len(blank) < len(items):  # pytrec_eval.supported_measures lists them
        warn(
            f"{' and '.join(dict.fromkeys(blank))} left out: they are not numbers (pytrec_eval "
            "gives 0.0 for them; `irframe eval` prints them, and "
            "irframe.measures.trec.relstrings gives the relstring of each topic)",
            ConventionWarning,
        )
        items = [m for m in items if not (isinstance(m, str) and m in _NO_NUMBER)]
    for m in items:  # one value taken from a list: trec_eval's rule, not the peers'
        if isinstance(m, str) and (f := re.match(r"^set_F[._]([^,]+),", m)):
            warn(
                f"{m!r}: set_F takes one β; trec_eval reads the first ({f.group(1)}), "
                "pytrec_eval returns one 'set_F' of another β and ir_measures makes one "
                "measure per value. Ask for each: "
                + repr([f"set_F(beta={b})" for b in m[6:].split(",")]),
                ConventionWarning,
            )
    trec = [i for i, m in enumerate(items) if isinstance(m, str) and expand_for_api(m, registered)]
    # pytrec_eval's "P_5" joins the other requests naming P ("P_10", "P.20", "official")
    singles = {
        i: dotted
        for i, m in enumerate(items)
        if i not in trec
        and isinstance(m, str)
        and (dotted := _underscore_list(m, single=True)) != m
    }
    named = Counter(f for i in trec for f in _families_named(items[i]))
    named.update(split_request(dotted)[0] for dotted in singles.values())
    for i, dotted in singles.items():
        if named[split_request(dotted)[0]] > 1:
            items[i] = dotted
            trec.append(i)
    trec.sort()

    def alone(i: int, m: Any) -> list[tuple]:
        """An item expanded on its own: a single underscore request as its dotted form
        (trec_eval's label, which pytrec_eval prints: P_05 is P_5, iprec_at_recall_0.1
        is iprec_at_recall_0.10), else trec_eval syntax, else the item as it is."""
        text = singles.get(i, m)
        expanded = expand_for_api(text, registered) if isinstance(text, str) else None
        return [(None, m)] if expanded is None else expanded

    if len(trec) <= 1:
        return [pair for i, m in enumerate(items) for pair in alone(i, m)]
    joint = expand_for_api_many([items[i] for i in trec])
    out: list[tuple] = []
    for i, m in enumerate(items):
        if i == trec[0]:
            out.extend(joint)
        elif i not in trec:
            out.extend(alone(i, m))
    return out


def expand_for_api_many(texts: Sequence[str]) -> list[tuple[str, str]]:
    """``(label, measure)`` pairs of several trec_eval requests expanded together (see
    `expand_list_for_api`; each text is one `expand_for_api` would expand)."""
    vals = expand(list(texts), version="10.0", union=True)
    return [
        (v.name, v.measure)
        for v in vals
        if v.kind not in ("runid", "num_q", "relstring") and v.needs == "qrels"
    ]
