"""trec_eval's preference measures (``-R prefs`` and ``-R qrels_prefs``).

Preference judgments say that one document is better than another for a user.  In
trec_eval's ``prefs`` format each line ``topic jg jsg doc level`` places a document in a
judgment sub-group (JSG) of a judgment group (JG, one user's information need): within a
JSG every document with a higher level is preferred to every document with a lower one;
the preferences of the JSGs of a JG are merged and closed transitively.  ``qrels_prefs``
reads an ordinary qrels file as preferences (one JG per value of the second field).

For one ranking, a preference A ≻ B is *fulfilled* when A is ranked above B, counting a
retrieved document as above every unretrieved one; a pair with neither document
retrieved is never fulfilled.  The measures (trec_eval's names):

- ``prefs_simp`` = fulfilled / possible over all preferences of all JGs;
  ``_ret`` only pairs with both documents retrieved; ``_imp`` pairs with at least one;
- ``prefs_pair``: per document pair, the share of the JGs preferring it that the ranking
  agrees with, averaged over pairs (``_ret`` / ``_imp`` as above);
- ``prefs_avgjg``: fulfilled / possible per JG, averaged over JGs (``_ret``, ``_imp``);
- ``prefs_avgjg_Rnonrel``: as ``prefs_avgjg`` with the number of non-relevant (level 0)
  documents of each JG set to R, its number of relevant ones (``_ret``: retrieved ones);
- ``prefs_num_prefs_poss``, ``prefs_num_prefs_ful``, ``prefs_num_prefs_ful_ret``: counts.

The documents are ranked by score descending, ties by docno *ascending* (trec_eval's
``form_prefs_counts`` sorts so, unlike its other measures).  Relation to irframe's other
preference-based evaluation: see docs/trec_eval.md (ndpm, lexicographic preferences).

The computation loops over topics and judgment groups in Python with small boolean
matrices per group (preference files are small); it is not a vectorised kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import pandas as pd

from .errors import InputError

__all__ = ["PREFS_MEASURES", "Judgments", "prefs_values"]

PREFS_MEASURES = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)


class _JG:
    """One judgment group of one topic: its preference matrix and counts."""

    def __init__(self, lines: pd.DataFrame, rank: dict, nj: int, njr: int):
        where = f"topic {lines['topic'].iloc[0]!r}, judgment group {lines['jg'].iloc[0]!r}"
        lines = lines.assign(_r=[rank[d] for d in lines["doc"]])
        lines = lines.sort_values(["_r"]).sort_values(["rel"], ascending=False, kind="stable")
        lines = lines.sort_values(["jsg"], kind="stable")
        self.nj, self.njr = nj, njr
        jsgs = lines["jsg"].tolist()
        levels = lines["rel"].to_numpy(dtype=np.float64)
        ranks = lines["_r"].to_numpy(dtype=np.int64)
        self.ec = len(set(jsgs)) == 1
        a = np.zeros((nj, nj), dtype=np.int64)
        if self.ec:  # equivalence classes by level, best first; pairs counted with multiplicity
            self.ecs = []
            for lev in pd.unique(levels):
                self.ecs.append((lev, np.sort(ranks[levels == lev])))
            ranked = np.concatenate([np.unique(r) for _, r in self.ecs])
            if len(np.unique(ranked)) < len(ranked):  # a document at two levels of the one JSG
                two_levels = lines.groupby("doc", sort=False)["rel"].transform("nunique") > 1
                d = lines["doc"][two_levels].iloc[0]
                two = sorted(set(lines.loc[lines["doc"] == d, "rel"]), reverse=True)[:2]
                raise InputError(
                    f"{where}, sub-group {jsgs[0]!r}: document {d!r} has two levels ({two[0]:g} "
                    f"and {two[1]:g}); give it one level per sub-group (trec_eval stops: 'occurs "
                    f"with different rel_level in same jsg')"
                )
            for x, (_, r1) in enumerate(self.ecs):
                for _, r2 in self.ecs[x + 1 :]:
                    np.add.at(a, (np.repeat(r1, len(r2)), np.tile(r2, len(r1))), 1)
            self.rel = np.full(nj, -1.0)
            for lev, r in self.ecs:
                self.rel[r] = lev
        else:  # partial order: per JSG, higher level ≻ lower level, closed transitively
            zero, pos = lines.loc[levels == 0, "doc"], lines.loc[levels > 0, "doc"]
            both0 = zero[zero.isin(pos)]
            if len(both0):
                raise InputError(
                    f"{where}: document {both0.iloc[0]!r} is non-relevant (level 0) in one sub-group "
                    f"and relevant (level > 0) in another; a judgment group must agree on which "
                    f"documents are non-relevant (trec_eval stops: 'has both 0 and non-0 rel_level')"
                )
            self.rel = np.full(nj, -1.0)
            n = len(ranks)
            for i in range(n):
                self.rel[ranks[i]] = levels[i]
                j = i + 1
                while j < n and jsgs[j] == jsgs[i] and levels[j] == levels[i]:
                    j += 1
                while j < n and jsgs[j] == jsgs[i]:
                    a[ranks[i], ranks[j]] = 1
                    j += 1
            b = a.astype(bool) | np.eye(nj, dtype=bool)
            while True:
                c = (b.astype(np.int64) @ b.astype(np.int64)) > 0
                if (c == b).all():
                    break
                b = c
            np.fill_diagonal(b, False)
            if (b & b.T).any():
                i, j = (int(x[0]) for x in np.nonzero(b & b.T))
                doc = {r: d for d, r in rank.items()}
                raise InputError(
                    f"{where}: its sub-groups prefer {doc[i]!r} to {doc[j]!r} and {doc[j]!r} to "
                    f"{doc[i]!r} (directly or through others); preferences within a judgment group "
                    f"must not contradict (trec_eval stops: 'Pref inconsistency found')"
                )
            a = b.astype(np.int64)
        self.a = a
        ret = np.arange(nj) < njr
        upper = np.triu(np.ones((nj, nj), bool), 1)
        both, one, none = np.outer(ret, ret), np.outer(ret, ~ret), np.outer(~ret, ~ret)
        self.ful_ret = int(a[both & upper].sum())
        self.poss_ret = int(a[both].sum())
        self.ful_imp = int(a[one].sum())
        self.poss_imp = self.ful_imp + int(a[np.outer(~ret, ret)].sum())
        self.notoccur = int(a[none].sum())
        if (
            self.ec
        ):  # counted per line, as trec_eval counts its equivalence classes (a repeated line twice)
            self.num_rel = sum(len(r) for lev, r in self.ecs if lev > 0)
            self.num_nonrel = sum(len(r) for lev, r in self.ecs if not lev > 0)
            self.num_rel_ret = sum(int((r < njr).sum()) for lev, r in self.ecs if lev > 0)
            self.num_nonrel_ret = sum(int((r < njr).sum()) for lev, r in self.ecs if not lev > 0)
        else:
            self.num_rel = int((self.rel > 0).sum())
            self.num_nonrel = int((self.rel == 0).sum())
            self.num_rel_ret = int((self.rel[:njr] > 0).sum())
            self.num_nonrel_ret = int((self.rel[:njr] == 0).sum())

    # -- prefs_avgjg_Rnonrel: recount with only R non-relevant documents -------------------
    def recount(self, ret_only: bool) -> tuple[int, int]:
        njr, ful, poss = self.njr, 0, 0
        if self.ec:
            keep = self.num_rel_ret if ret_only else self.num_rel
            new_nonrel = self.ecs[-1][1][:keep]
            lim = (lambda r: r[r < njr]) if ret_only else (lambda r: r)
            groups = [
                (r1, r2) for x, (_, r1) in enumerate(self.ecs) for _, r2 in self.ecs[x + 1 : -1]
            ]
            groups += [(r1, new_nonrel) for _, r1 in self.ecs]
            for r1, r2 in groups:
                r1, r2 = lim(r1), lim(r2)
                ok = r1[:, None] < r2[None, :]
                if not ret_only:
                    ok &= (r1 < njr)[:, None]
                f = int(ok.sum())
                ful += f
                poss += r1.size * r2.size - f
            return ful, poss + ful
        seen, first_discarded = 0, (self.njr if ret_only else self.nj)
        for i in range(self.njr if ret_only else self.nj):
            if self.rel[i] == 0.0:
                seen += 1
                if seen == self.num_rel + 1:
                    first_discarded = i
                    break
        idx = np.arange(self.nj)
        keep = ~((idx >= first_discarded) & (self.rel == 0.0))
        a = self.a * np.outer(keep, keep)
        ret = idx < njr
        lower = np.tril(np.ones((self.nj, self.nj), bool), -1)
        upper = lower.T
        ful = int(a[np.outer(ret, ret) & upper].sum())
        poss = int(a[np.outer(ret, ret) & lower].sum())
        if not ret_only:
            ful += int(a[np.outer(ret, ~ret)].sum())
            poss += int(a[np.outer(~ret, np.ones(self.nj, bool))].sum())
        return ful, poss + ful


def _topic_values(jgs: list[_JG], nj: int, njr: int) -> dict[str, float]:
    v = dict.fromkeys(PREFS_MEASURES, 0.0)
    fr = sum(j.ful_ret for j in jgs)
    fi = sum(j.ful_imp for j in jgs)
    pr = sum(j.poss_ret for j in jgs)
    pi = sum(j.poss_imp for j in jgs)
    no = sum(j.notoccur for j in jgs)
    v["prefs_num_prefs_poss"] = float(pr + pi + no)
    v["prefs_num_prefs_ful"] = float(fr + fi)
    v["prefs_num_prefs_ful_ret"] = float(fr)
    if pr + pi + no:
        v["prefs_simp"] = (fr + fi) / (pr + pi + no)
    if pr:
        v["prefs_simp_ret"] = fr / pr
    if pr + pi:
        v["prefs_simp_imp"] = (fr + fi) / (pr + pi)
    c = cast(np.ndarray, sum(j.a for j in jgs)) if jgs else np.zeros((nj, nj), np.int64)
    both = c + c.T  # JGs preferring either document of the pair
    share = np.divide(
        c, both, out=np.zeros((nj, nj)), where=both > 0
    )  # of them, those preferring the row's
    ret = np.arange(nj) < njr
    upper = np.triu(np.ones((nj, nj), bool), 1)
    blocks = {
        "rr": upper & np.outer(ret, ret),
        "ru": np.outer(ret, ~ret),
        "uu": upper & np.outer(~ret, ~ret),
    }
    for name, used in (
        ("prefs_pair", ("rr", "ru", "uu")),
        ("prefs_pair_ret", ("rr",)),
        ("prefs_pair_imp", ("rr", "ru")),
    ):
        pairs = sum(int((both[blocks[b]] > 0).sum()) for b in used)
        if pairs:  # a sequential sum in row order, rr then ru, as pair by pair (uu pairs add 0)
            total = np.cumsum(np.concatenate([share[blocks[b]] for b in used if b != "uu"]))
            v[name] = (float(total[-1]) if len(total) else 0.0) / pairs
    for name, f in (
        ("prefs_avgjg", lambda j: (j.ful_ret + j.ful_imp, j.poss_ret + j.poss_imp + j.notoccur)),
        ("prefs_avgjg_ret", lambda j: (j.ful_ret, j.poss_ret)),
        ("prefs_avgjg_imp", lambda j: (j.ful_ret + j.ful_imp, j.poss_ret + j.poss_imp)),
    ):
        s = 0.0
        for j in jgs:
            ful, poss = f(j)
            if poss:
                s += ful / poss
        if s > 0.0:
            v[name] = s / len(jgs)
    for name, ret_only in (("prefs_avgjg_Rnonrel", False), ("prefs_avgjg_Rnonrel_ret", True)):
        s = 0.0
        for j in jgs:
            R, N = (j.num_rel_ret, j.num_nonrel_ret) if ret_only else (j.num_rel, j.num_nonrel)
            if R >= N:
                if ret_only:
                    ful, poss = j.ful_ret, j.poss_ret
                else:
                    ful, poss = j.ful_ret + j.ful_imp, j.poss_ret + j.poss_imp + j.notoccur
                ful += j.num_rel_ret * (R - N)
                poss += j.num_rel * (R - N)
            else:
                ful, poss = j.recount(ret_only)
            s += ful / poss if poss else float("nan")
        if s > 0.0:
            v[name] = s / len(jgs)
    return v


class Judgments:
    """Preference judgments prepared once for evaluating any number of runs.

    Per topic: its judged documents in docno order and its judgment groups in name order
    (trec_eval compares ids with ``strcmp``; Python's str order is the same as the order of
    their UTF-8 bytes).

    Parameters
    ----------
    prefs : pandas.DataFrame
        Columns ``topic, jg, jsg, doc, rel`` (:func:`irframe.io.read_prefs`).
    float32 : bool
        Compare scores and levels as float32 (trec_eval 9.0.8) rather than float64 (10.0).

    Examples
    --------
    >>> import pandas as pd
    >>> prefs = pd.DataFrame({"topic": ["q1"] * 3, "jg": ["u"] * 3, "jsg": ["s"] * 3,
    ...                       "doc": ["d1", "d2", "d3"], "rel": [2.0, 1.0, 0.0]})
    >>> run = pd.DataFrame({"topic": ["q1"] * 2, "doc": ["d2", "d1"], "score": [2.0, 1.0]})
    >>> Judgments(prefs).values(run, ["q1"])["q1"]["prefs_simp"]  # d2 > d1 wrong, the rest right
    0.6666666666666666
    """

    def __init__(self, prefs: pd.DataFrame, float32: bool = True):
        rel = prefs["rel"].to_numpy(np.float64)
        if float32:  # trec_eval 9.0.8 stores levels as C floats: 1.00000001 and 1.0 are one level
            rel = rel.astype(np.float32).astype(np.float64)
        pt = prefs.assign(
            topic=prefs["topic"].astype(str),
            jg=prefs["jg"].astype(str),
            jsg=prefs["jsg"].astype(str),
            doc=prefs["doc"].astype(str),
            rel=rel,
        )
        self.float32 = float32
        self.topics: dict[str, tuple[list[str], list[pd.DataFrame]]] = {}
        for t, p in pt.groupby("topic", sort=False):
            jgs = [g for _, g in sorted(p.groupby("jg", sort=False), key=lambda kv: kv[0])]
            self.topics[t] = (sorted(set(p["doc"])), jgs)

    def values(
        self, run: pd.DataFrame, topics: Sequence[str], *, depth: int | None = None
    ) -> dict[str, dict[str, float]]:
        """Per topic of ``topics`` with judgments, every preference measure of one system's run.

        ``run`` has columns ``topic, doc, score``; ``depth`` keeps the top ``depth`` documents
        (``-M``).  Documents are ranked by score descending, ties by docno ascending."""
        out = {}
        rt = run.assign(topic=run["topic"].astype(str), doc=run["doc"].astype(str))
        by_topic_r = dict(tuple(rt.groupby("topic", sort=False)))
        for t in topics:
            if t not in self.topics:
                continue
            judged, jg_lines = self.topics[t]
            r = by_topic_r.get(t)
            ranked = []
            if r is not None:
                score = (
                    r["score"]
                    .to_numpy(np.float32 if self.float32 else np.float64)
                    .astype(np.float64)
                )
                docs = r["doc"].to_numpy(dtype=object)
                doc_order = pd.factorize(docs, sort=True)[0]
                order = np.lexsort((doc_order, -score))[:depth]
                jset = set(judged)
                ranked = [d for d in docs[order] if d in jset]
            rank = {d: i for i, d in enumerate(ranked)}
            njr = len(ranked)
            for d in judged:
                if d not in rank:
                    rank[d] = len(rank)
            nj = len(judged)
            out[t] = _topic_values([_JG(g, rank, nj, njr) for g in jg_lines], nj, njr)
        return out


def prefs_values(
    prefs: pd.DataFrame,
    run: pd.DataFrame,
    topics: Sequence[str],
    *,
    float32: bool = True,
    depth: int | None = None,
) -> dict[str, dict[str, float]]:
    """Per topic, every trec_eval preference measure: {topic: {measure: value}}.

    For several runs, prepare the judgments once with :class:`Judgments`.

    Parameters
    ----------
    prefs : pandas.DataFrame
        Columns ``topic, jg, jsg, doc, rel`` (:func:`irframe.io.read_prefs`).
    run : pandas.DataFrame
        One system's ``topic, doc, score``.
    topics : sequence of str
        Topics to evaluate.
    float32 : bool
        Compare scores and levels as float32 (trec_eval 9.0.8) rather than float64 (10.0).
    depth : int, optional
        Keep the top ``depth`` documents (``-M``).

    Examples
    --------
    >>> import pandas as pd
    >>> prefs = pd.DataFrame({"topic": ["q1"] * 2, "jg": ["u"] * 2, "jsg": ["s"] * 2,
    ...                       "doc": ["d1", "d2"], "rel": [2.0, 1.0]})
    >>> run = pd.DataFrame({"topic": ["q1"], "doc": ["d1"], "score": [1.0]})
    >>> prefs_values(prefs, run, ["q1"])["q1"]["prefs_num_prefs_ful"]
    1.0
    """
    return Judgments(prefs, float32=float32).values(run, topics, depth=depth)
