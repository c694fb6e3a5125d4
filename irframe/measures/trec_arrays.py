"""The shared arrays of the trec_eval measures (`irframe.measures.trec`), memoised per evaluation.

Relevance per row in trec_eval's sense, the compact CSR of the relevant rows (`Rows`),
the recall base, AP's running sums, and the gain machinery of the DCG family (trec_eval's
custom ``level=gain`` gains and its ideal rankings).  Kernels of other families that follow
trec_eval's relevance (rarity, the ranx/ir_measures aliases, tie-aware orders) use these too.
"""

from __future__ import annotations

import re

import numpy as np

from ..align import range_sum, segment_cumsum
from .registry import EvalContext, Measure, MeasureParamError

__all__ = [
    "NONPOOL",
    "UNJUDGED",
    "Rows",
    "ap_cum",
    "cum_at",
    "dcg_parts",
    "gain_key",
    "gain_map",
    "gain_rows",
    "hits",
    "ideal_at",
    "ideal_cum",
    "ideal_gains",
    "is_rel",
    "measure_rel_level",
    "num_rel",
    "num_rel_topic",
    "parse_gain_pairs",
    "prec_at_rel",
    "rel_rows",
    "safe_div",
    "seq_group_sum",
    "trec_rel",
]

NONPOOL = -1.0  # retrieved, not in the qrels
UNJUDGED = -2.0  # retrieved, in the qrels with a negative grade


def measure_rel_level(ctx: EvalContext, m: Measure) -> float:
    """The measure's ``rel=``, else the evaluation's ``rel_level``."""
    rel = m.param("rel")
    return ctx.options["rel_level"] if rel is None else rel


def trec_rel(ctx: EvalContext) -> np.ndarray:
    """Per-row trec_eval relevance value: truncated grade, NONPOOL or UNJUDGED."""

    def build():  # in place on one new array (the rows are many)
        r = ctx.aligned.row_rel
        t = np.trunc(r)
        t[t < 0] = UNJUDGED  # (NaN < 0 is False)
        t[np.isnan(r)] = NONPOOL
        t += 0.0  # -0.0 -> 0.0
        return t

    return ctx.memo("trec_rel", build)


def is_rel(ctx: EvalContext, level: float) -> np.ndarray:
    """Per row: relevant in trec_eval's sense, trunc(grade) >= level and >= 0 (unjudged: no).

    One comparison on the grades: for level > 0 that is grade >= ceil(level); otherwise it is
    trunc(grade) >= 0, i.e. grade > -1.
    """
    r = ctx.aligned.row_rel
    return ctx.memo(("is_rel", level), lambda: r >= np.ceil(level) if level > 0 else r > -1)


class Rows:
    """Selected rows (e.g. the relevant ones) as a compact CSR over the groups."""

    def __init__(self, ctx: EvalContext, mask: np.ndarray):
        a = ctx.aligned
        self.pos = np.flatnonzero(mask)  # row positions, in group order
        self.offsets = np.searchsorted(self.pos, a.offsets)  # per group, into pos
        self.count = np.diff(self.offsets)
        self.rank = self.pos - np.repeat(a.offsets[:-1], self.count) + 1
        self.index = np.arange(len(self.pos)) - np.repeat(self.offsets[:-1], self.count)  # 0-based
        self._starts = a.offsets[:-1]
        self._len = a.group_len

    def at_or_above(self, mask: np.ndarray) -> np.ndarray:
        """Per selected row: rows of ``mask`` in its group at or above it (exact counts, from
        the positions of ``mask`` alone, without a pass of cumulative sums over every row).

        >>> import types
        >>> a = types.SimpleNamespace(offsets=np.array([0, 3, 5]), group_len=np.array([3, 2]))
        >>> rows = Rows(types.SimpleNamespace(aligned=a), np.array([0, 0, 1, 0, 1], bool))
        >>> rows.at_or_above(np.array([1, 1, 0, 0, 0], bool)).tolist()
        [2, 0]
        """
        hits = np.flatnonzero(mask)
        start = self.pos - self.rank + 1
        return np.searchsorted(hits, self.pos, side="right") - np.searchsorted(
            hits, start, side="left"
        )

    def within(self, k) -> np.ndarray:
        """Selected rows among the top k of each group (k scalar, per-group array or None)."""
        if k is None:
            return self.count
        return (
            np.searchsorted(self.pos, self._starts + np.minimum(self._len, k)) - self.offsets[:-1]
        )

    def top_sum(self, values: np.ndarray, k) -> np.ndarray:
        """Per group, the sum of ``values`` (one per selected row) over the top k."""
        start = self.offsets[:-1]
        return range_sum(values, start, start + self.within(k))


def rel_rows(ctx: EvalContext, level: float) -> Rows:
    return ctx.memo(("rel_rows", level), lambda: Rows(ctx, is_rel(ctx, level)))


def num_rel_topic(ctx: EvalContext, level: float) -> np.ndarray:
    """trec_eval's recall base per topic: judged docs with truncated grade >= level (and >= 0)."""

    def build():
        a = ctx.aligned
        t = np.trunc(a.qrels_rel)
        ok = (t >= level) & (t >= 0)
        return np.bincount(a.qrels_topic, weights=ok, minlength=len(a.topics)).astype(np.int64)

    return ctx.memo(("num_rel_topic", level), build)


def num_rel(ctx: EvalContext, level: float) -> np.ndarray:
    """num_rel per group."""
    return num_rel_topic(ctx, level)[ctx.aligned.group_topic]


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def hits(ctx: EvalContext, level: float, k) -> np.ndarray:
    """Relevant documents in the top ``k`` of each group."""
    return rel_rows(ctx, level).within(k).astype(np.float64)


def prec_at_rel(ctx: EvalContext, level: float) -> np.ndarray:
    """Precision at each relevant row (one value per relevant row): AP's summands."""

    def build():
        rows = rel_rows(ctx, level)
        return (rows.index + 1) / rows.rank

    return ctx.memo(("prec_at_rel", level), build)


def ap_cum(ctx: EvalContext, level: float) -> np.ndarray:
    """Per relevant row, the running sum of precisions at relevant rows, left to right within
    each ranking: trec_eval's ``sum += rel_so_far / (i + 1)``, so map and map_cut_k round as its do."""
    return ctx.memo(
        ("ap_cum", level),
        lambda: segment_cumsum(prec_at_rel(ctx, level), rel_rows(ctx, level).offsets),
    )


def seq_group_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per group, the left-to-right sum of ``values`` (trec_eval's ``sum += ...`` loop)."""
    cs = segment_cumsum(np.asarray(values, dtype=np.float64), offsets)
    ends = offsets[1:]
    out = np.zeros(len(ends))
    ok = ends > offsets[:-1]
    out[ok] = cs[ends[ok] - 1]
    return out


def cum_at(cum: np.ndarray, start: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``cum[start + n - 1]`` where n > 0, else 0 (a CSR cumulative sum read at n items)."""
    n = np.asarray(n)
    if len(cum) == 0:
        return np.zeros(np.broadcast(start, n).shape)
    return np.where(n > 0, cum[np.clip(start + n - 1, 0, len(cum) - 1)], 0.0)


def parse_gain_pairs(text: str) -> dict:
    """trec_eval's ``level=gain,...`` text → {level: gain}; non-integer names (``p=``) are skipped."""
    from .trec_eval_syntax import c_atof, c_atol

    out: dict = {}
    for item in text.split(","):
        name, eq, value = item.partition("=")
        if not eq:
            continue
        if re.fullmatch(r"[+-]?\d+", name):
            out.setdefault(c_atol(name), c_atof(value))
    return out


def gain_map(ctx: EvalContext, m: Measure | None = None) -> dict:
    """Grade → gain: the measure's ``gains=`` (trec_eval ``ndcg.1=3,2=9``), else the option."""
    gains = m.param("gains") if m is not None else None
    if isinstance(gains, str):
        return parse_gain_pairs(gains)
    if m is not None and m.param("dcg") == "exp-log2":  # gain 2^grade - 1 (gdeval, ranx burges)
        grades = ctx.aligned.qrels_grades_all
        top = int(np.nanmax(np.trunc(grades))) if grades is not None and len(grades) else 0
        return {lev: 2.0**lev - 1.0 for lev in range(1, top + 1)}
    gains = gains or ctx.options.get("gains") or {}
    out = {}
    for k, v in gains.items():
        kf = float(k)
        if not kf.is_integer():
            raise MeasureParamError(
                f"gains= keys must be integer grades (trec_eval levels), got {k!r}"
            )
        out[int(kf)] = float(v)
    return out


def gain_key(ctx: EvalContext, m: Measure | None) -> tuple:
    return tuple(sorted(gain_map(ctx, m).items()))


def gain_rows(ctx: EvalContext, m: Measure | None = None) -> tuple[Rows, np.ndarray]:
    """Rows with a non-zero nDCG gain (compact CSR) and their gains.

    Gain = truncated grade for judged documents (trec_eval), or ``gains[grade]`` when given;
    unjudged and negatively judged documents gain 0 unless ``gains`` maps their level.
    """
    mapping = gain_map(ctx, m)

    def build():
        if not mapping:
            r = ctx.aligned.row_rel
            rows = Rows(ctx, r >= 1)
            return rows, np.trunc(r[rows.pos])
        tr = trec_rel(ctx)
        g = np.where(tr >= 0, tr, 0.0)
        for level, gain in mapping.items():
            g = np.where(tr == level, gain, g)
        rows = Rows(ctx, g != 0)
        return rows, g[rows.pos]

    return ctx.memo(("ndcg_gain_rows", tuple(sorted(mapping.items()))), build)


def _glibc_msort(items: list, cmp) -> list:
    """glibc's qsort for small arrays (a top-down merge sort taking the left item when cmp <= 0)."""
    n = len(items)
    if n <= 1:
        return list(items)
    left, right = _glibc_msort(items[: n // 2], cmp), _glibc_msort(items[n // 2 :], cmp)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _trec_level_order(pairs: dict, max_level: int) -> list[tuple[int, float]]:
    """trec_eval's list of (grade, gain) for custom gains, in the order its ideal ranking walks it.

    trec_eval (``setup_gains``) lists the ``level=gain`` parameters in the order given, then
    the topic's other grades 0..max with gain = grade, and sorts the list with ``qsort`` and a
    comparator returning ``(int)(gain1 - gain2)`` — differences below 1 compare equal, so
    fractional gains keep their list order.  This returns that list from its end (glibc's
    merge sort, reversed): the ideal ranking starts at its first entry (nothing when that gain
    is not positive), skips the entries without documents in the topic, whatever their gain,
    and stops at the first entry holding documents with a gain that is not positive.  E.g.
    with ``1=0.5,2=2`` the list is grade 1 (0.5), grade 0 (0), grade 2 (2) — the comparator
    ties 0.5 with 0 — so the walk meets grade 0 before grade 1, and stops there only when the
    topic has grade-0 documents.
    """
    items = list(pairs.items()) + [
        (lev, float(lev)) for lev in range(max_level + 1) if lev not in pairs
    ]
    return list(reversed(_glibc_msort(items, lambda a, b: _c_int(a[1] - b[1]))))


def _c_int(x: float) -> int:
    """C's ``(int)`` of a double as x86-64 computes it (``cvttsd2si``): truncated toward zero,
    and INT_MIN for NaN or a value outside the int range (C leaves those undefined; trec_eval
    built with gcc on x86-64 gets INT_MIN, so ``1=inf`` or gains 2^31 apart sort as there).

    >>> _c_int(1.9), _c_int(-0.5), _c_int(float("inf")), _c_int(3e9), _c_int(float("nan"))
    (1, 0, -2147483648, -2147483648, -2147483648)
    """
    if not (-2147483649.0 < x < 2147483648.0):  # NaN fails both comparisons
        return -(2**31)
    return int(x)


def ideal_gains(ctx: EvalContext, m: Measure | None = None):
    """Per topic: the gains of trec_eval's ideal ranking, best first, in CSR layout.

    Judged documents with a positive gain, by decreasing gain; with trec_eval-syntax gains
    (``gains='1=0.5,2=1'``) in the order trec_eval's own sort gives (see ``_trec_level_order``).
    """
    mapping = gain_map(ctx, m)
    text = isinstance(m.param("gains") if m is not None else None, str)

    def build():
        a = ctx.aligned
        t = np.trunc(a.qrels_rel)
        judged = t >= 0
        g = np.where(judged, t, 0.0)
        for level, gain in mapping.items():
            g = np.where(judged & (t == level), gain, g)
        if text and mapping:
            maxlev = np.full(len(a.topics), -1, dtype=np.int64)
            np.maximum.at(maxlev, a.qrels_topic[judged], t[judged].astype(np.int64))
            lev = np.where(judged, t, 0).astype(np.int64)
            row_max = maxlev[a.qrels_topic]
            key = np.zeros(len(t), dtype=np.int64)  # the row's level's place in its topic's walk
            top_stops = np.zeros(len(a.topics), dtype=bool)  # the walk's first gain is not positive
            for L in np.unique(maxlev):  # one walk per topic maximum grade (a few)
                walk = _trec_level_order(mapping, int(L))
                top_stops[maxlev == L] = bool(walk) and walk[0][1] <= 0
                levels = np.array([wl for wl, _ in walk], dtype=np.int64)
                by_level = np.argsort(levels, kind="stable")
                rows = np.flatnonzero(row_max == L)
                at = np.minimum(np.searchsorted(levels[by_level], lev[rows]), len(levels) - 1)
                found = levels[by_level][at] == lev[rows] if len(levels) else np.zeros(0, bool)
                key[rows] = np.where(found, by_level[at], 0) if len(levels) else 0
            # the walk stops at the first level holding documents whose gain is not positive
            cut = np.where(top_stops, 0, np.iinfo(np.int64).max)
            stop = judged & (g <= 0)
            np.minimum.at(cut, a.qrels_topic[stop], key[stop])
            keep = judged & (g > 0) & (key < cut[a.qrels_topic])
            topic, gains, key = a.qrels_topic[keep], g[keep], key[keep]
            order = np.lexsort((key, topic))
        else:
            keep = g > 0
            topic, gains = a.qrels_topic[keep], g[keep]
            order = np.lexsort((-gains, topic))
        topic, gains = topic[order], gains[order]
        offs = np.searchsorted(topic, np.arange(len(a.topics) + 1))
        return offs, gains

    return ctx.memo(("ideal_gains", tuple(sorted(mapping.items())), text), build)


def ideal_cum(ctx: EvalContext, m: Measure | None = None):
    """Per topic: discounted ideal gains (CSR) and their left-to-right cumulative sums."""

    def build():
        offs, gains = ideal_gains(ctx, m)
        rank = np.arange(1, len(gains) + 1) - np.repeat(offs[:-1], np.diff(offs))
        disc = gains / np.log2(rank + 1.0)
        return offs, disc, segment_cumsum(disc, offs)

    text = isinstance(m.param("gains") if m is not None else None, str)
    return ctx.memo(("ndcg_ideal", gain_key(ctx, m), text), build)


def dcg_parts(ctx: EvalContext, m: Measure):
    """(dcg, ideal dcg) per group, both summed left to right over ranks as trec_eval does."""
    a = ctx.aligned
    rows, gains = gain_rows(ctx, m)
    key = gain_key(ctx, m)
    contrib = ctx.memo(("dcg_contrib", key), lambda: gains / np.log2(rows.rank + 1.0))
    cum = ctx.memo(("dcg_cum", key), lambda: segment_cumsum(contrib, rows.offsets))
    n = rows.within(m.cutoff)
    start = rows.offsets[:-1]
    dcg = np.where(n > 0, cum[np.maximum(start + n - 1, 0)] if len(cum) else 0.0, 0.0)
    offs, _, icum = ideal_cum(ctx, m)
    cnt = np.diff(offs) if m.cutoff is None else np.minimum(np.diff(offs), m.cutoff)
    ideal_t = np.where(cnt > 0, icum[np.maximum(offs[:-1] + cnt - 1, 0)] if len(icum) else 0.0, 0.0)
    return dcg, ideal_t[a.group_topic]


def ideal_at(ctx: EvalContext, m: Measure, topic: np.ndarray, r) -> np.ndarray:
    """Ideal DCG of the first r positions of each topic (r capped at its positive gains)."""
    offs, _, icum = ideal_cum(ctx, m)
    n = np.minimum(np.diff(offs)[topic], r)
    return cum_at(icum, offs[:-1][topic], n)
