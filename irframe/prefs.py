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

Everything is computed over all topics and judgment groups at once, in memory proportional
to the judgments and the run, with two exceptions trec_eval shares (it keeps an nj × nj array
per topic): the transitive closure of a group of several sub-groups holds its preference pairs,
and ``prefs_pair`` of a topic with several groups holds the distinct pairs they prefer.  A group
of one sub-group (every ``qrels_prefs`` group) is counted from its classes' sizes and one
inversion count of its retrieved documents, never pair by pair.  Per-topic sums of fractions
add in trec_eval's order (``numpy.bincount`` adds sequentially), so values match to the bit.
"""

from __future__ import annotations

from collections.abc import Sequence

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


_BIG = np.int64(1) << np.int64(32)  # composite keys: segment * _BIG + rank (ranks < 2**32)


def _ids(values) -> np.ndarray:
    """Ids as Python str objects; sorting them is trec_eval's ``strcmp`` order (code points
    compare as UTF-8 bytes do)."""
    s = pd.Series(values, copy=False) if not isinstance(values, pd.Series) else values
    if s.dtype == object and pd.api.types.infer_dtype(s, skipna=False) == "string":
        return s.to_numpy(dtype=object)  # already str: no round trip through a str dtype
    return s.astype(str).to_numpy(dtype=object)


def _sorted_arrow(names: pd.Index):
    """``names`` as an arrow string array (no copy) when they are arrow-backed strings in
    strictly increasing code point order, as irframe's readers write categories; else None."""
    arr = names.array
    if not hasattr(arr, "__arrow_array__") or not _USE_ARROW:
        return None
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:  # pragma: no cover - pyarrow is optional
        return None
    a = pa.array(arr)
    if isinstance(a, pa.ChunkedArray):
        a = a.combine_chunks()
    if not (pa.types.is_string(a.type) or pa.types.is_large_string(a.type)) or a.null_count:
        return None
    if len(a) > 1 and not pc.all(pc.less(a[:-1], a[1:])).as_py():  # (UTF-8 byte order)
        return None
    return a


def _encode(col: pd.Series) -> tuple[np.ndarray, np.ndarray | pd.Index]:
    """(codes, names): the distinct ids in str order and each row's position among them; a
    categorical column is encoded through its categories (kept as they are, an index, when
    every one is used and they are sorted arrow strings: no Python str per id)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        cc = col.cat.codes.to_numpy().astype(np.int64)
        ncat = len(col.cat.categories)
        if not (cc < 0).any():
            used = np.flatnonzero(np.bincount(cc, minlength=ncat))
            if len(used) == ncat and _sorted_arrow(col.cat.categories) is not None:
                return cc, col.cat.categories
            names = _ids(col.cat.categories)[used]
            order = np.argsort(names, kind="stable")
            remap = np.zeros(ncat, np.int64)
            remap[used[order]] = np.arange(len(used))
            return remap[cc], names[order]
    return pd.factorize(_ids(col), sort=True)


_USE_ARROW = True  # the tests turn it off to check the pandas lookup


class _Names:
    """Sorted distinct ids and the lookup of other ids among them (pyarrow's hash lookup when
    pyarrow is installed, else a pandas object index)."""

    def __init__(self, names: np.ndarray | pd.Index):
        self.names = names
        self._index: pd.Index | None = None
        self._arrow = None

    def positions(self, values) -> np.ndarray:
        """Each id's position among the names (-1 where absent)."""
        try:
            if not _USE_ARROW:
                raise ImportError
            import pyarrow as pa
            import pyarrow.compute as pc
        except ImportError:  # pyarrow is optional
            if self._index is None:
                self._index = pd.Index(self.names, dtype=object)
            return self._index.get_indexer(_ids(values))
        if self._arrow is None:
            sorted_arrow = _sorted_arrow(self.names) if isinstance(self.names, pd.Index) else None
            self._arrow = (
                pa.array(self.names, type=pa.large_string())
                if sorted_arrow is None
                else sorted_arrow.cast(pa.large_string())
            )
        arr = getattr(values, "array", None)
        if isinstance(getattr(values, "dtype", None), pd.StringDtype) and hasattr(
            arr, "__arrow_array__"
        ):  # arrow-backed str: no copy through Python objects
            ids = pa.array(arr).cast(pa.large_string())
        else:
            ids = pa.array(_ids(values), type=pa.large_string())
        found = pc.index_in(ids, value_set=self._arrow)
        return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)

    def lookup(self, col: pd.Series) -> np.ndarray:
        """Each row's position among the names (-1 where absent)."""
        if isinstance(col.dtype, pd.CategoricalDtype):
            cc = col.cat.codes.to_numpy().astype(np.int64)
            pos = np.r_[self.positions(col.cat.categories), -1]
            return pos[cc]  # a missing value (-1) maps to the appended -1
        return self.positions(col)


def _starts(seg: np.ndarray, n: int) -> np.ndarray:
    """Index of the first element of each of ``n`` segments of the sorted ``seg``."""
    return np.searchsorted(seg, np.arange(n))


def _sums(seg: np.ndarray, weights, n: int) -> np.ndarray:
    """Per segment, the sum of ``weights`` added one by one in array order (``bincount`` adds
    sequentially, as trec_eval's loops do; exact for integer counts below 2**53)."""
    return np.bincount(seg, weights=np.asarray(weights, np.float64), minlength=n)


def _unique_inverse(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` of keys in ``[0, size)``: by counting when
    ``size`` is no larger than the number of keys (a few groups of many lines), else by sorting."""
    if size > len(keys):
        return np.unique(keys, return_inverse=True)
    present = np.bincount(keys, minlength=size) > 0
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present).astype(np.int64), rank[keys].astype(np.int64)


def _in_order(*keys: np.ndarray) -> bool:
    """Whether the rows are already in ``np.lexsort(keys)`` order (the last key first): then
    the stable sort would leave them as they are.  NaN never compares in order."""
    if len(keys[-1]) < 2:
        return True
    ok = np.zeros(len(keys[-1]) - 1, bool)  # rows i, i + 1 ordered by the keys seen so far
    tied = np.ones(len(ok), bool)
    for k in reversed(keys):
        a, b = k[:-1], k[1:]
        ok |= tied & (a < b)
        tied &= a == b
    return bool((ok | tied).all())


def _change(*keys: np.ndarray) -> np.ndarray:
    """Where a run of equal ``keys`` (sorted rows) starts."""
    new = np.ones(len(keys[0]), bool)
    if len(new) > 1:
        new[1:] = np.any([k[1:] != k[:-1] for k in keys], axis=0)
    return new


def _expand(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every i, each j in ``range(lo[i], hi[i])``: the pairs (i, j) as two arrays."""
    cnt = np.maximum(hi - lo, 0)
    src = np.repeat(np.arange(len(lo)), cnt)
    off = np.cumsum(cnt) - cnt
    return src, np.arange(int(cnt.sum())) - np.repeat(off - lo, cnt)


def _class_pairs(c: _Classes) -> tuple[np.ndarray, np.ndarray]:
    """Every (better, worse) pair of lines of one group's classes, as document ids."""
    if not c.ncls:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    cls_end = np.r_[_starts(c.cls, c.ncls)[1:], len(c.cls)]
    group_end = cls_end[np.flatnonzero(c.last)][np.cumsum(_change(c.cgroup)) - 1]
    src, tgt = _expand(cls_end[c.cls], group_end[c.cls])
    return c.jid[src], c.jid[tgt]


def _pair_counts(a: np.ndarray, b: np.ndarray, J: int) -> tuple[np.ndarray, ...]:
    """Distinct document pairs (lo < hi) and how many preferences say lo > hi, hi > lo."""
    ok = a != b
    a, b = a[ok], b[ok]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keys, inv = np.unique(lo * np.int64(J) + hi, return_inverse=True)
    fwd = np.bincount(inv, weights=a == lo, minlength=len(keys))
    bwd = np.bincount(inv, weights=a != lo, minlength=len(keys))
    return keys // max(J, 1), keys % max(J, 1), fwd, bwd


def _inversions(vals: np.ndarray, seg: np.ndarray, nseg: int) -> np.ndarray:
    """Per segment (``seg`` sorted), the pairs of positions i < j with ``vals[i] > vals[j]``:
    a bottom-up merge sort over every segment at once (log2 of the longest segment passes)."""
    out = np.zeros(nseg, np.int64)
    if len(vals) < 2:
        return out
    segstart = _starts(seg, nseg)[seg]
    pos = np.arange(len(vals)) - segstart
    longest = int(pos.max()) + 1
    v = vals.astype(np.int64)
    w = 1
    while w < longest:  # v is sorted within blocks of width w
        blk = pos // w
        pid = segstart + (blk >> 1) * (2 * w)  # the block pair's first position
        left = (blk & 1) == 0
        kl = pid[left] * _BIG + v[left]
        pr, vr = pid[~left], v[~left]
        lo = np.searchsorted(kl, pr * _BIG, "left")
        hi = np.searchsorted(kl, (pr + 1) * _BIG, "left")
        above = (hi - lo) - (np.searchsorted(kl, pr * _BIG + vr, "right") - lo)
        out += _sums(seg[~left], above, nseg).astype(np.int64)
        v = np.sort(pid * _BIG + v, kind="stable") - pid * _BIG  # merge the pairs
        w *= 2
    return out


def _inversions_by_class(
    r: np.ndarray, c: np.ndarray, g: np.ndarray, cfirst: np.ndarray, nseg: int
) -> np.ndarray:
    """`_inversions` of ranks ``r`` listed by class, then rank (``c`` the class of each, ``g``
    its group, ``cfirst`` per class the first class of its group): per group, the pairs of a
    line of a better class ranked below one of a worse class.  One pass per class above
    another (a vectorised search among the better class's sorted ranks), so fewer passes than
    the merge sort's when the groups have few classes (grades), as qrels' groups do."""
    out = np.zeros(nseg, np.int64)
    if not len(r):
        return out
    key = c.astype(np.int64) * _BIG + r  # sorted: by class, then rank
    depth = c - cfirst[c]  # how many better classes the line's group has
    for d in range(1, int(depth.max()) + 1):
        m = depth >= d
        better = c[m].astype(np.int64) - d
        ranked_below = np.searchsorted(key, (better + 1) * _BIG, "left") - np.searchsorted(
            key, better * _BIG + r[m], "right"
        )
        out += _sums(g[m], ranked_below, nseg).astype(np.int64)
    return out


class _Classes:
    """Lines of equivalence-class judgment groups (one sub-group each), numbered class by class:
    classes group by group, best level first.  ``count`` gives, for one ranking, every count
    trec_eval's ``add_ec_pref_to_jg`` (and ``prefs_avgjg_Rnonrel``'s recount) forms."""

    def __init__(self, g, jid, level, ngroups: int):
        o = np.lexsort((-level, g))
        g, jid, level = g[o], jid[o], level[o]
        new = _change(g, level)
        self.cls = np.cumsum(new) - 1
        self.jid, self.level = jid, level
        ncls = int(self.cls[-1]) + 1 if len(g) else 0
        self.ncls, self.ngroups = ncls, ngroups
        self.cgroup = g[new]  # group of each class
        self.crel = level[new] > 0
        self.n = np.bincount(self.cls, minlength=ncls)
        first = _change(self.cgroup)
        self.cfirst = np.maximum.accumulate(np.where(first, np.arange(ncls), 0))
        self.last = np.r_[first[1:], True] if ncls else first
        self.nb = self._before(self.n)

    def _before(self, x: np.ndarray) -> np.ndarray:
        """Per class, the sum of ``x`` over the better classes of its group."""
        b = np.cumsum(x) - x
        return b - b[self.cfirst]

    def _by_group(self, x) -> np.ndarray:
        return _sums(self.cgroup, x, self.ngroups).astype(np.int64)

    def count(self, rank: np.ndarray, njr_of_group: np.ndarray, recount: bool = False) -> dict:
        G = self.ngroups
        if not self.ncls:
            z = np.zeros(G, np.int64)
            return dict.fromkeys(
                ("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur", "num_rel",
                 "num_nonrel", "num_rel_ret", "num_nonrel_ret", "rc_ful", "rc_poss",
                 "rc_ful_ret", "rc_poss_ret"), z)  # fmt: skip
        r = rank[self.jid]
        o = np.lexsort((r, self.cls))  # by class, then rank
        c, r = self.cls[o], r[o]
        g = self.cgroup[c]
        ret = r < njr_of_group[g]
        R = np.bincount(c, weights=ret, minlength=self.ncls).astype(np.int64)
        U = self.n - R
        Rb, Ub = self._before(R), self._before(U)
        k: dict[str, np.ndarray] = {}
        k["poss_ret"] = self._by_group(R * Rb)
        k["ful_imp"] = self._by_group(U * Rb)
        k["poss_imp"] = k["ful_imp"] + self._by_group(R * Ub)
        k["notoccur"] = self._by_group(U * Ub)
        # retrieved pairs a worse class ranks above: one pass per class offset when the
        # groups have fewer classes than the merge sort has passes (log2 of the longest group)
        passes = int((c - self.cfirst[c]).max(initial=0))
        if passes < int(np.bincount(g[ret], minlength=1).max()).bit_length():
            inv = _inversions_by_class(r[ret], c[ret], g[ret], self.cfirst, G)
        else:
            inv = _inversions(r[ret], g[ret], G)
        k["ful_ret"] = k["poss_ret"] - inv
        k["num_rel"] = self._by_group(self.n * self.crel)
        k["num_nonrel"] = self._by_group(self.n * ~self.crel)
        k["num_rel_ret"] = self._by_group(R * self.crel)
        k["num_nonrel_ret"] = self._by_group(R * ~self.crel)
        if not recount:
            return k
        # prefs_avgjg_Rnonrel: the last class cut to its first R lines in rank order (New)
        in_last = self.last[c]
        pos_last = np.arange(len(c)) - _starts(c, self.ncls)[c]
        new = in_last & (pos_last < k["num_rel"][g])
        new_ret = in_last & ret & (pos_last < k["num_rel_ret"][g])

        # only groups with more nonrelevant than relevant lines are recounted
        need = ((k["num_rel"] < k["num_nonrel"]) | (k["num_rel_ret"] < k["num_nonrel_ret"]))[g]

        def above(member: np.ndarray, who: np.ndarray) -> np.ndarray:
            """Per group: over lines ``who`` retrieved, lines of ``member`` ranked below."""
            member = member & need
            kt = g[member] * _BIG + r[member]
            p = who & ret & need
            kp = g[p] * _BIG
            n = np.searchsorted(kt, kp + _BIG) - np.searchsorted(kt, kp + r[p], "right")
            return _sums(g[p], n, G).astype(np.int64)

        nonlast = ~in_last
        lastc = np.flatnonzero(self.last)  # one per group that has classes
        glast = self.cgroup[lastc]
        nL = np.zeros(G, np.int64)
        nL[glast] = self.n[lastc]
        RL = np.zeros(G, np.int64)
        RL[glast] = R[lastc]
        pairs_nonlast_L = np.zeros(G, np.int64)
        pairs_nonlast_L[glast] = self.n[lastc] * self.nb[lastc]
        Rpairs_nonlast_L = np.zeros(G, np.int64)
        Rpairs_nonlast_L[glast] = R[lastc] * Rb[lastc]
        ntot = self._by_group(self.n)
        Rtot = self._by_group(R)
        n_new = np.minimum(k["num_rel"], nL)
        n_new_ret = np.minimum(k["num_rel_ret"], RL)
        all_lines = np.ones(len(c), bool)
        k["rc_ful"] = k["ful_ret"] + k["ful_imp"] - above(in_last, nonlast) + above(new, all_lines)
        k["rc_poss"] = self._by_group(self.n * self.nb) - pairs_nonlast_L + ntot * n_new
        k["rc_ful_ret"] = k["ful_ret"] - above(in_last & ret, nonlast) + above(new_ret, all_lines)
        k["rc_poss_ret"] = k["poss_ret"] - Rpairs_nonlast_L + Rtot * n_new_ret
        return k


class Judgments:
    """Preference judgments prepared once for evaluating any number of runs.

    Everything that does not depend on a ranking is formed here, for all topics at once:
    judged documents per topic in docno order, judgment groups in name order (trec_eval compares
    ids with ``strcmp``; Python's str order is the order of their UTF-8 bytes), the equivalence
    classes of the groups of one sub-group, the transitive closure of the groups of several
    (sparse boolean matrix squaring over all of them together), the preference counts per
    document pair of topics with several groups (``prefs_pair``), and the inconsistencies
    trec_eval stops on (raised when such a topic is evaluated, as trec_eval does).

    Parameters
    ----------
    prefs : pandas.DataFrame
        Columns ``topic, jg, jsg, doc, rel`` ([irframe.io.read_prefs][]).
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
        self.float32 = float32
        tcode, self.topic_names = _encode(prefs["topic"])
        gname_code, gnames = _encode(prefs["jg"])
        scode, snames = _encode(prefs["jsg"])
        dcode, self.doc_names = _encode(prefs["doc"])
        T, D = len(self.topic_names), max(len(self.doc_names), 1)
        self._topics = _Names(self.topic_names)
        self._docs = _Names(self.doc_names)
        # judged documents: (topic, doc) in docno order within topic
        jkeys, jid = np.unique(tcode * np.int64(D) + dcode, return_inverse=True)
        self.J = len(jkeys)
        self.j_topic, self.j_doc = jkeys // D, jkeys % D
        self.nj = np.bincount(self.j_topic, minlength=T)
        self._jkeys = jkeys
        # judgment groups: (topic, jg name) in name order within topic
        gkeys, g = _unique_inverse(tcode * np.int64(len(gnames)) + gname_code, T * len(gnames))
        G = len(gkeys)
        self.G = G
        self.g_topic = gkeys // len(gnames) if G else gkeys
        self.ngroups_of_topic = np.bincount(self.g_topic, minlength=T)
        gsub = _unique_inverse(g * np.int64(len(snames)) + scode, G * len(snames))[0]
        nsub = np.bincount(gsub // len(snames), minlength=G)  # sub-groups per group
        ec = (nsub == 1)[g]
        errors: dict[int, str] = {}  # group -> what trec_eval stops on

        def where(gi: int) -> str:
            return (
                f"topic {self.topic_names[self.g_topic[gi]]!r}, "
                f"judgment group {gnames[gkeys[gi] % len(gnames)]!r}"
            )

        # -- equivalence-class groups (one sub-group) --------------------------------------
        self.ec = _Classes(g[ec], jid[ec], rel[ec], G)
        u = None
        if ec.any():  # distinct (group, document, level), by group and document
            eg, ej, el = g[ec], jid[ec], rel[ec]
            o = np.lexsort((el, ej, eg))
            eg, ej, el = eg[o], ej[o], el[o]
            d = _change(eg, ej, el)
            u = [eg[d], ej[d], el[d]]
            ugj = u[0].astype(np.int64) * self.J + u[1].astype(np.int64)
            two = np.flatnonzero(np.r_[ugj[1:] == ugj[:-1], False])  # a doc at two levels
            for i in two:
                gi, dj = int(u[0][i]), int(u[1][i])
                if gi in errors:
                    continue
                levels = sorted(set(u[2][ugj == ugj[i]].tolist()), reverse=True)[:2]
                sub = snames[scode[ec][g[ec] == gi][0]]
                errors[gi] = (
                    f"{where(gi)}, sub-group {sub!r}: document "
                    f"{self.doc_names[self.j_doc[dj]]!r} has two levels ({levels[0]:g} and "
                    f"{levels[1]:g}); give it one level per sub-group (trec_eval stops: "
                    f"'occurs with different rel_level in same jsg')"
                )
            # prefs_pair of a topic of one such group: each document once
            # (the lines themselves when no line repeats, as in every qrels_prefs file)
            repeats = len(u[0]) < int(ec.sum())
            self.ec_docs = _Classes(u[0], u[1], u[2], G) if repeats else self.ec
        else:
            self.ec_docs = self.ec
        # -- partial-order groups (several sub-groups): transitive closure ----------------
        po = ~ec
        pg, pj, ps, pl = g[po], jid[po], scode[po], rel[po]
        o = np.lexsort((-pl, ps, pg))
        pg, pj, ps, pl = pg[o], pj[o], ps[o], pl[o]
        nkeys, node = np.unique(pg * np.int64(self.J) + pj, return_inverse=True)
        N = len(nkeys)
        self.node_g = nkeys // self.J if N else nkeys
        self.node_jid = nkeys % self.J if N else nkeys
        last = len(node) - 1 - np.unique(node[::-1], return_index=True)[1]
        self.node_rel = pl[last] if N else pl
        has0 = np.bincount(node, weights=pl == 0, minlength=N) > 0
        haspos = np.bincount(node, weights=pl > 0, minlength=N) > 0
        for i in np.flatnonzero(has0 & haspos):
            gi = int(self.node_g[i])
            if gi not in errors:
                errors[gi] = (
                    f"{where(gi)}: document {self.doc_names[self.j_doc[self.node_jid[i]]]!r} is "
                    f"non-relevant (level 0) in one sub-group and relevant (level > 0) in "
                    f"another; a judgment group must agree on which documents are non-relevant "
                    f"(trec_eval stops: 'has both 0 and non-0 rel_level')"
                )
        self.pa_a = self.pa_b = np.zeros(0, np.int64)
        if N:
            seg = _change(pg, ps)
            run = seg | _change(pl)
            idx = np.arange(len(pg))
            seg_end = np.r_[idx[seg][1:], len(pg)][np.cumsum(seg) - 1]
            run_end = np.r_[idx[run][1:], len(pg)][np.cumsum(run) - 1]
            src, tgt = _expand(run_end, seg_end)  # higher level -> lower level, per sub-group
            import scipy.sparse as sp  # only judgment groups of several sub-groups need it

            a = sp.csr_matrix(
                (np.ones(len(src), np.int32), (node[src], node[tgt])), shape=(N, N)
            ) + sp.identity(N, dtype=np.int32, format="csr")
            a.data[:] = 1
            while True:  # reachability by squaring until nothing changes
                b = a @ a
                b.data[:] = 1
                if b.nnz == a.nnz:
                    break
                a = b
            a = a.tocoo()
            off = a.row != a.col
            pa, pb = a.row[off].astype(np.int64), a.col[off].astype(np.int64)
            both = np.isin(pa * N + pb, pb * N + pa)
            for i in np.flatnonzero(both & (self.node_jid[pa] < self.node_jid[pb])):
                gi = int(self.node_g[pa[i]])
                if gi not in errors:
                    d1, d2 = (self.doc_names[self.j_doc[self.node_jid[x[i]]]] for x in (pa, pb))
                    errors[gi] = (
                        f"{where(gi)}: its sub-groups prefer {d1!r} to {d2!r} and {d2!r} to "
                        f"{d1!r} (directly or through others); preferences within a judgment "
                        f"group must not contradict (trec_eval stops: 'Pref inconsistency found')"
                    )
            self.pa_a, self.pa_b = pa, pb
        self.errors: dict[
            int, str
        ] = {}  # topic -> the message of its first group (name order) in error
        for gi in sorted(errors):
            self.errors.setdefault(int(self.g_topic[gi]), errors[gi])
        # -- prefs_pair: per distinct document pair, the groups preferring it -------------
        # A pair with a document only one group of its topic judges is preferred by that
        # group alone (share 0 or 1): counted from the group's classes over distinct
        # documents.  Pairs of documents several groups judge ("shared") are formed; a topic
        # where groups disagree on one has fractional shares, which trec_eval adds pair by
        # pair in rank order, so all its pairs are formed (trec_eval: an nj x nj array).
        gj = np.sort(g * np.int64(self.J) + jid)
        gj = gj[_change(gj)]  # distinct (group, document)
        shared = np.bincount(gj % max(self.J, 1), minlength=self.J) >= 2
        e = self.ec
        po_a, po_b = self.node_jid[self.pa_a], self.node_jid[self.pa_b]

        def lines_of(mask: np.ndarray) -> _Classes:
            return _Classes(e.cgroup[e.cls][mask], e.jid[mask], e.level[mask], G)

        a, b = _class_pairs(lines_of(shared[e.jid]))
        lo, hi, fwd, bwd = _pair_counts(np.r_[a, po_a], np.r_[b, po_b], self.J)
        self.conflict = np.zeros(T, bool)
        self.conflict[self.j_topic[lo[(fwd > 0) & (bwd > 0)]]] = True
        keep = ~self.conflict[self.j_topic[lo]]
        self.ps_lo, self.ps_hi, self.ps_fwd = lo[keep], hi[keep], fwd[keep] > 0
        # all pairs of those topics: the formed ones, and those with a document one group
        # alone judges (distinct documents: one group prefers each such pair, one way)
        a = b = np.zeros(0, np.int64)
        if u is not None:
            m = self.conflict[self.j_topic[u[1]]]
            a, b = _class_pairs(_Classes(u[0][m], u[1][m], u[2][m], G))
            one = ~(shared[a] & shared[b])
            a, b = a[one], b[one]
        lo2, hi2 = np.minimum(a, b), np.maximum(a, b)
        cf = ~keep
        self.pf_lo, self.pf_hi = np.r_[lo[cf], lo2], np.r_[hi[cf], hi2]
        self.pf_fwd = np.r_[fwd[cf], (a == lo2).astype(np.float64)]
        self.pf_bwd = np.r_[bwd[cf], (a != lo2).astype(np.float64)]
        if u is not None:
            us = shared[u[1]]
            self.ec_shared = _Classes(u[0][us], u[1][us], u[2][us], G)
        else:
            self.ec_shared = self.ec

    def _ranks(self, run: pd.DataFrame, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Per judged document its rank among the topic's judged documents (retrieved ones by
        score descending, docno ascending; then the unretrieved ones in docno order) and per
        topic the number of judged documents retrieved."""
        T, J = len(self.topic_names), self.J
        t = self._topics.lookup(run["topic"])
        d = self._docs.lookup(run["doc"])
        score = run["score"].to_numpy(np.float32 if self.float32 else np.float64)
        score = score.astype(np.float64)
        if depth is not None:  # the cut counts unjudged documents too: order them all
            rt = _encode(run["topic"])[0]
            rd = _encode(run["doc"])[0]
            o = np.lexsort((rd, -score, rt))
            rt_o = rt[o]
            pos = np.arange(len(o)) - _starts(rt_o, int(rt.max()) + 1 if len(rt) else 0)[rt_o]
            o = o[pos < depth]
        else:
            o = np.arange(len(t))
        o = o[(t[o] >= 0) & (d[o] >= 0)]
        key = t[o] * np.int64(len(self.doc_names)) + d[o]
        j = np.searchsorted(self._jkeys, key)
        j[j >= J] = 0
        o, j = o[self._jkeys[j] == key] if J else o[:0], j[self._jkeys[j] == key] if J else j[:0]
        keys = (d[o], -score[o], t[o])  # (topic, score desc, docno) by code order
        if not _in_order(*keys):  # (run files are mostly written so already)
            j = j[np.lexsort(keys)]
        if depth is not None:
            j = j[np.lexsort((np.arange(len(j)), self.j_topic[j]))]  # o kept the cut's order
        _, first = np.unique(j, return_index=True)  # a document listed twice: its first place
        j = j[np.sort(first)]
        jt = self.j_topic[j]
        njr = np.bincount(jt, minlength=T)
        rank = np.full(J, -1, np.int64)
        rank[j] = np.arange(len(j)) - _starts(jt, T)[jt]
        un = np.flatnonzero(rank < 0)
        ut = self.j_topic[un]
        rank[un] = njr[ut] + np.arange(len(un)) - _starts(ut, T)[ut]
        return rank, njr

    def values(
        self, run: pd.DataFrame, topics: Sequence[str], *, depth: int | None = None
    ) -> dict[str, dict[str, float]]:
        """Per topic of ``topics`` with judgments, every preference measure of one system's run.

        ``run`` has columns ``topic, doc, score``; ``depth`` keeps the top ``depth`` documents
        (``-M``).  Documents are ranked by score descending, ties by docno ascending."""
        want = self._topics.positions([str(t) for t in topics])
        want = want[want >= 0]
        for ti in want:
            if int(ti) in self.errors:
                raise InputError(self.errors[int(ti)])
        v = self._measures(*self._ranks(run, depth))
        names = self.topic_names
        cols = {m: v[m].tolist() for m in PREFS_MEASURES}
        return {names[ti]: {m: cols[m][ti] for m in PREFS_MEASURES} for ti in want}

    def _measures(self, rank: np.ndarray, njr: np.ndarray) -> dict[str, np.ndarray]:
        T, G = len(self.topic_names), self.G
        njr_g = njr[self.g_topic]
        k = self.ec.count(rank, njr_g, recount=True)
        k_ec = dict(k)  # the classes' own counts (the partial-order groups' are added to k)
        # partial-order groups: their closure's pairs and documents
        pg = self.node_g[self.pa_a]
        ra, rb = rank[self.node_jid[self.pa_a]], rank[self.node_jid[self.pa_b]]
        reta, retb = ra < njr_g[pg], rb < njr_g[pg]
        both = reta & retb
        rn = rank[self.node_jid]
        retn = rn < njr_g[self.node_g]
        nrel, nnon = self.node_rel > 0, self.node_rel == 0

        def add(name, seg, w):
            k[name] = k[name] + _sums(seg, w, G).astype(np.int64)

        add("ful_ret", pg, both & (ra < rb))
        add("poss_ret", pg, both)
        add("ful_imp", pg, reta & ~retb)
        add("poss_imp", pg, (reta & ~retb) | (~reta & retb))
        add("notoccur", pg, ~reta & ~retb)
        add("num_rel", self.node_g, nrel)
        add("num_nonrel", self.node_g, nnon)
        add("num_rel_ret", self.node_g, nrel & retn)
        add("num_nonrel_ret", self.node_g, nnon & retn)
        # prefs_avgjg_Rnonrel's recount: nonrelevant documents after the (R+1)-th dropped
        z = np.flatnonzero(nnon)
        z = z[np.lexsort((rn[z], self.node_g[z]))]
        zg = self.node_g[z]
        zpos = np.arange(len(z)) - _starts(zg, G)[zg]
        cut = np.full(G, np.iinfo(np.int64).max)
        hit = zpos == k["num_rel"][zg]
        cut[zg[hit]] = rn[z[hit]]
        kept = ~(nnon & (rn >= cut[self.node_g]))
        kp = kept[self.pa_a] & kept[self.pa_b]
        ful = kp & ((both & (ra < rb)) | (reta & ~retb))
        add("rc_ful", pg, ful)
        add("rc_poss", pg, ful | (kp & ((both & (ra > rb)) | ~reta)))
        add("rc_ful_ret", pg, kp & both & (ra < rb))
        add("rc_poss_ret", pg, kp & both)

        v: dict[str, np.ndarray] = {}
        tg = self.g_topic

        def tsum(x):
            return _sums(tg, x, T)

        fr, fi = tsum(k["ful_ret"]), tsum(k["ful_imp"])
        pr, pi, no = tsum(k["poss_ret"]), tsum(k["poss_imp"]), tsum(k["notoccur"])
        with np.errstate(divide="ignore", invalid="ignore"):

            def ratio(a, b):
                return np.where(b > 0, a / np.where(b > 0, b, 1), 0.0)

            v["prefs_num_prefs_poss"] = pr + pi + no
            v["prefs_num_prefs_ful"] = fr + fi
            v["prefs_num_prefs_ful_ret"] = fr
            v["prefs_simp"] = ratio(fr + fi, pr + pi + no)
            v["prefs_simp_ret"] = ratio(fr, pr)
            v["prefs_simp_imp"] = ratio(fr + fi, pr + pi)
            v.update(self._pairs(rank, njr, k_ec))
            ng = self.ngroups_of_topic

            def avg(per_group):  # summed group by group in name order, as trec_eval does
                s = tsum(per_group)
                return np.where(s > 0.0, s / np.maximum(ng, 1), 0.0)

            f, p = k["ful_ret"] + k["ful_imp"], k["poss_ret"] + k["poss_imp"] + k["notoccur"]
            v["prefs_avgjg"] = avg(ratio(f, p))
            v["prefs_avgjg_ret"] = avg(ratio(k["ful_ret"], k["poss_ret"]))
            v["prefs_avgjg_imp"] = avg(
                ratio(k["ful_ret"] + k["ful_imp"], k["poss_ret"] + k["poss_imp"])
            )
            R, N = k["num_rel"], k["num_nonrel"]
            fa = np.where(R >= N, f + k["num_rel_ret"] * (R - N), k["rc_ful"])
            pa = np.where(R >= N, p + k["num_rel"] * (R - N), k["rc_poss"])
            v["prefs_avgjg_Rnonrel"] = avg(fa / pa)
            R, N = k["num_rel_ret"], k["num_nonrel_ret"]
            fa = np.where(R >= N, k["ful_ret"] + k["num_rel_ret"] * (R - N), k["rc_ful_ret"])
            pa = np.where(R >= N, k["poss_ret"] + k["num_rel"] * (R - N), k["rc_poss_ret"])
            v["prefs_avgjg_Rnonrel_ret"] = avg(fa / pa)
        return v

    def _pairs(self, rank: np.ndarray, njr: np.ndarray, k: dict) -> dict[str, np.ndarray]:
        """``prefs_pair`` (``_ret``, ``_imp``): per distinct document pair the share of the
        groups preferring it that the ranking agrees with, averaged over pairs."""
        T = len(self.topic_names)
        tg, njr_g = self.g_topic, njr[self.g_topic]
        keys = ("poss_ret", "ful_ret", "poss_imp", "ful_imp", "notoccur")
        # topics where no two groups disagree: shares 0 or 1, the sums are counts -- the
        # classes' pairs over all documents, less those of shared documents, plus the
        # formed pairs (shared documents, and groups of several sub-groups)
        c_all = k if self.ec_docs is self.ec else self.ec_docs.count(rank, njr_g)
        c_sh = self.ec_shared.count(rank, njr_g)
        n = {k: _sums(tg, c_all[k], T) - _sums(tg, c_sh[k], T) for k in keys}
        rl, rh = rank[self.ps_lo], rank[self.ps_hi]
        t = self.j_topic[self.ps_lo]
        rp, rq = np.where(self.ps_fwd, rl, rh), np.where(self.ps_fwd, rh, rl)  # p preferred
        pret, qret = rp < njr[t], rq < njr[t]
        n["poss_ret"] += _sums(t, pret & qret, T)
        n["ful_ret"] += _sums(t, pret & qret & (rp < rq), T)
        n["poss_imp"] += _sums(t, pret != qret, T)
        n["ful_imp"] += _sums(t, pret & ~qret, T)
        n["notoccur"] += _sums(t, ~pret & ~qret, T)
        rr, rr_ful, ru, ru_ful, uu = (n[k] for k in keys)
        # topics where groups disagree on a pair: every pair's share, added in trec_eval's
        # order (both retrieved by rank, then one retrieved by rank)
        rl, rh = rank[self.pf_lo], rank[self.pf_hi]
        t = self.j_topic[self.pf_lo]
        first = np.minimum(rl, rh)
        second = np.maximum(rl, rh)
        block = (first >= njr[t]).astype(np.int64) + (second >= njr[t])  # 0 rr, 1 ru, 2 uu
        share = np.where(rl < rh, self.pf_fwd, self.pf_bwd) / (self.pf_fwd + self.pf_bwd)
        o = np.lexsort((second, first, block, t))
        t, block, share = t[o], block[o], share[o]
        s_ret = _sums(t[block == 0], share[block == 0], T)
        s_imp = _sums(t[block < 2], share[block < 2], T)
        n_rr = _sums(t, block == 0, T)
        n_ri = _sums(t, block < 2, T)
        n_all = _sums(t, np.ones(len(t)), T)
        out = {}
        for name, s, m, s1, m1 in (
            ("prefs_pair", s_imp, n_all, rr_ful + ru_ful, rr + ru + uu),
            ("prefs_pair_ret", s_ret, n_rr, rr_ful, rr),
            ("prefs_pair_imp", s_imp, n_ri, rr_ful + ru_ful, rr + ru),
        ):
            s, m = np.where(self.conflict, s, s1), np.where(self.conflict, m, m1)
            out[name] = np.where(m > 0, s / np.maximum(m, 1), 0.0)
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

    For several runs, prepare the judgments once with [`Judgments`][irframe.prefs.Judgments].

    Parameters
    ----------
    prefs : pandas.DataFrame
        Columns ``topic, jg, jsg, doc, rel`` ([`irframe.io.read_prefs`][irframe.io.read_prefs]).
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
