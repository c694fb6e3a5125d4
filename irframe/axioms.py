"""Axiom checker: the ten constraints of Amigó, Spina & Carrillo-de-Albornoz (SIGIR 2018, §3).

[`check`][irframe.axioms.check] builds, for each constraint, a battery of small rankings and qrels that
meet the constraint's preconditions, evaluates the measure on them with
[`irframe.evaluate`][irframe.evaluate] (so any registered measure works, including one registered by
the user with [`irframe.register`][irframe.register]), and reports per constraint

* ``satisfied``  — the required (in)equality held on every instance,
* ``violated``   — with the first counterexample (the two rankings and their scores),
* ``not applicable`` — the measure cannot express the situation (a single-aspect
  measure on a diversity constraint, a cutoff too small for the situation, or the
  measure refused the input).

The constraints (Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018, §3)
----------------------------------------------------------------------
Relevance (single aspect, "relevance contribution": an unretrieved anchor document of
grade ``anchor_grade`` makes graded gains such as (2^g − 1)/2^gmax small):

- ``Pri``: swapping d_i, d_{i+k} with r(d_{i+k}) > r(d_i) increases Q (grades 0/1/2).
- ``Deep``: with ``r(d_i)=r(d_j) < r(d_{i+1})=r(d_{j+1})``, ``i < j``: Q(swap i) > Q(swap j).
- ``DeepTh``: Q(rel, non×(2n−1)) > Q(non×n, rel×n) for every n of the grid in the upper
  half [n_max/2, n_max] ("n large enough"; the literal "∃n" is met by n = 1
  for every top-weighted measure, so the tail reading is used).
- ``CloseTh``: ∃ m in the grid: Q(rel, non×(2m−1)) < Q(non×m, rel×m).
- ``Conf``: appending a judged non-relevant document decreases Q.

Diversity (several aspects; balanced weights unless stated):

- ``AspDiv``: replacing d_i by d'_i relevant to every aspect to a higher grade increases Q
  (relevance contribution via anchors).
- ``Red``: binary, no overlap: when the ranking holds more documents relevant to t than
  to t', appending a new t'-document beats appending a new t-document.
- ``MRed``: two aspects, graded, relevance contribution: when every ranked document is
  more relevant to t than to t', appending d'(t') beats appending d(t).
- ``Sat``: no overlap: ∃ a grade G (searched over 1, 2, 4, …, 64) such that after a
  document of grade G on t (the highest of t), appending another t-document
  does not increase Q (≥).
- ``AspRel``: unequal weights w(t) < w(t') (given through the ``weights=`` option):
  replacing a first t-document by a first t'-document of equal grade increases Q.

Examples
--------
>>> from irframe.axioms import check
>>> res = check("RBU(p=0.8,e=0.03)@20")
>>> res["verdict"].value_counts().to_dict()
{'satisfied': 10}
>>> check("P@10", constraints=["Pri", "Conf"])["verdict"].tolist()
['violated', 'violated']
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .errors import OptionError
from .evaluate import evaluate
from .measures import parse_measure

__all__ = ["CONSTRAINTS", "DIVERSITY", "RELEVANCE", "check", "check_many"]

RELEVANCE = ("Pri", "Deep", "DeepTh", "CloseTh", "Conf")
DIVERSITY = ("AspDiv", "Red", "MRed", "Sat", "AspRel")
CONSTRAINTS = RELEVANCE + DIVERSITY

GRID = (1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000)
SAT_GRADES = (1, 2, 4, 8, 16, 32, 64)


# ----------------------------------------------------------------------------- instances
@dataclass
class _Instance:
    """One situation: judged docs (grade vector per aspect) and two rankings.

    The constraint requires ``Q(better) > Q(worse)`` (``op="gt"``) or ``>=`` (``"ge"``).
    """

    docs: dict  # doc id -> tuple of grades (one per aspect)
    better: list
    worse: list
    op: str = "gt"
    weights: tuple | None = None  # per aspect, or None for uniform
    tag: object = None  # grid value (n, m or G) for existential constraints
    note: str = ""


@dataclass
class _Battery:
    instances: list = field(default_factory=list)
    mode: str = "all"  # "all" | "tail" | "exists" (over tags) | "exists_group"
    na: str = ""


def _doc_ids(prefix: str, n: int) -> list:
    return [f"{prefix}{i:04d}" for i in range(n)]


def _single(grades: Sequence[int], anchor: int | None) -> tuple[dict, list]:
    ids = _doc_ids("d", len(grades))
    docs = {d: (g,) for d, g in zip(ids, grades, strict=True)}
    if anchor:
        docs["anchor"] = (anchor,)
    return docs, ids


def _window(cutoff: int | None, want: int) -> int:
    return want if cutoff is None else min(cutoff, want)


def _pri(cutoff, anchor) -> _Battery:
    L = _window(cutoff, 4)
    b = _Battery()
    if L < 2:
        b.na = f"cutoff {cutoff} leaves no room to swap two documents"
        return b
    for grades in itertools.product((0, 1, 2), repeat=L):
        docs, ids = _single(grades, anchor)
        for i in range(L):
            for j in range(i + 1, L):
                if grades[j] > grades[i]:
                    sw = list(ids)
                    sw[i], sw[j] = sw[j], sw[i]
                    b.instances.append(_Instance(docs, sw, ids, note=f"swap {i + 1}<->{j + 1}"))
    return b


def _deep(cutoff, anchor) -> _Battery:
    L = _window(cutoff, 5)
    b = _Battery()
    if L < 4:
        b.na = f"cutoff {cutoff} leaves no room for two contiguous swaps"
        return b
    for grades in itertools.product((0, 1, 2), repeat=L):
        docs, ids = _single(grades, anchor)
        for i in range(L - 1):
            for j in range(i + 2, L - 1):
                if grades[i] == grades[j] < grades[i + 1] == grades[j + 1]:
                    si, sj = list(ids), list(ids)
                    si[i], si[i + 1] = si[i + 1], si[i]
                    sj[j], sj[j + 1] = sj[j + 1], sj[j]
                    b.instances.append(
                        _Instance(docs, si, sj, note=f"swap {i + 1}<->{i + 2} vs {j + 1}<->{j + 2}")
                    )
    return b


def _threshold(n: int, anchor) -> tuple[dict, list, list]:
    grades_top = [1] + [0] * (2 * n - 1)
    ids = _doc_ids("d", 4 * n)
    docs = {}
    top = ids[: 2 * n]
    for d, g in zip(top, grades_top, strict=True):
        docs[d] = (g,)
    deep_non, deep_rel = ids[2 * n : 3 * n], ids[3 * n :]
    for d in deep_non:
        docs[d] = (0,)
    for d in deep_rel:
        docs[d] = (1,)
    if anchor:
        docs["anchor"] = (anchor,)
    return docs, top, deep_non + deep_rel


def _deepth(cutoff, anchor, grid) -> _Battery:
    b = _Battery(mode="tail")
    for n in grid:
        docs, one, many = _threshold(n, anchor)
        b.instances.append(_Instance(docs, one, many, tag=n, note=f"n={n}"))
    return b


def _closeth(cutoff, anchor, grid) -> _Battery:
    b = _Battery(mode="exists")
    for m in grid:
        docs, one, many = _threshold(m, anchor)
        b.instances.append(_Instance(docs, many, one, tag=m, note=f"m={m}"))
    return b


def _conf(cutoff, anchor) -> _Battery:
    b = _Battery()
    maxlen = 3 if cutoff is None else min(3, cutoff - 1)
    if maxlen < 1:
        b.na = f"cutoff {cutoff} leaves no room to append a document"
        return b
    for L in range(1, maxlen + 1):
        for grades in itertools.product((0, 1, 2), repeat=L):
            docs, ids = _single([*grades, 0], anchor)
            b.instances.append(
                _Instance(docs, ids[:-1], ids, note="append a non-relevant document")
            )
    return b


def _multi_docs(vectors: Sequence[tuple], prefix: str = "d") -> tuple[dict, list]:
    ids = _doc_ids(prefix, len(vectors))
    return dict(zip(ids, vectors, strict=True)), ids


def _aspdiv(cutoff, anchor) -> _Battery:
    L = _window(cutoff, 3)
    b = _Battery()
    ctx_set = [(0, 0), (1, 0), (0, 1), (1, 1)]
    pairs = [
        ((0, 0), (1, 1)),
        ((0, 0), (2, 2)),
        ((1, 0), (2, 1)),
        ((0, 1), (1, 2)),
        ((1, 1), (2, 2)),
    ]
    for i in range(L):
        for others in itertools.product(ctx_set, repeat=L - 1):
            for d, dp in pairs:
                vecs = [*others[:i], d, *others[i:], dp]
                docs, ids = _multi_docs(vecs)
                if anchor:
                    docs["anchor1"], docs["anchor2"] = (anchor, 0), (0, anchor)
                worse = ids[:L]
                better = list(worse)
                better[i] = ids[L]
                b.instances.append(
                    _Instance(docs, better, worse, note=f"replace d_{i + 1} {d} by {dp}")
                )
    return b


def _onehot(t: int | None, S: int, g: int = 1) -> tuple:
    v = [0] * S
    if t is not None:
        v[t] = g
    return tuple(v)


def _balance(vecs: list, S: int) -> list:
    """Unretrieved one-aspect documents so every aspect has as many relevant judgments."""
    cnt = [sum(1 for v in vecs if v[s] > 0) for s in range(S)]
    top = max(cnt)
    return [_onehot(s, S) for s in range(S) for _ in range(top - cnt[s])]


def _red(cutoff, anchor) -> _Battery:
    S = 3
    maxlen = 3 if cutoff is None else min(3, cutoff - 1)
    b = _Battery()
    if maxlen < 1:
        b.na = f"cutoff {cutoff} leaves no room to append a document"
        return b
    for L in range(1, maxlen + 1):
        for pref in itertools.product((None, 0, 1, 2), repeat=L):
            counts = [sum(1 for x in pref if x == t) for t in range(S)]
            for t in range(S):
                for tp in range(S):
                    if t != tp and counts[t] > counts[tp]:
                        vecs = [_onehot(x, S) for x in pref] + [_onehot(t, S), _onehot(tp, S)]
                        vecs += [
                            _onehot(s, S) for s in range(S)
                        ]  # unretrieved: every aspect judged relevant
                        vecs += _balance(vecs, S)  # same number of relevant docs per aspect
                        docs, ids = _multi_docs(vecs)
                        if anchor:  # relevance contribution: r_c small, ranked docs stay binary
                            for s in range(S):
                                docs[f"anchor{s + 1}"] = _onehot(s, S, anchor)
                        base = ids[:L]
                        b.instances.append(
                            _Instance(
                                docs,
                                [*base, ids[L + 1]],
                                [*base, ids[L]],
                                note=f"aspect counts {counts}: append t{tp + 1} vs t{t + 1}",
                            )
                        )
    return b


def _mred(cutoff, anchor) -> _Battery:
    maxlen = 2 if cutoff is None else min(2, cutoff - 1)
    b = _Battery()
    if maxlen < 1:
        b.na = f"cutoff {cutoff} leaves no room to append a document"
        return b
    dom = [(1, 0), (2, 0), (2, 1), (3, 1), (3, 2)]
    for L in range(1, maxlen + 1):
        for pref in itertools.product(dom, repeat=L):
            for flip in (False, True):
                vec = [tuple(reversed(v)) if flip else v for v in pref]
                t, tp = (1, 0) if flip else (0, 1)
                vecs = [*vec, _onehot(t, 2), _onehot(tp, 2)]
                vecs += [
                    tuple(reversed(v)) for v in vec
                ]  # unretrieved mirror: aspects judged alike
                docs, ids = _multi_docs(vecs)
                if anchor:
                    docs["anchor1"], docs["anchor2"] = (anchor, 0), (0, anchor)
                base = ids[:L]
                b.instances.append(
                    _Instance(
                        docs,
                        [*base, ids[L + 1]],
                        [*base, ids[L]],
                        note=f"every ranked doc favours t{t + 1}: append t{tp + 1} vs t{t + 1}",
                    )
                )
    return b


def _sat(cutoff) -> _Battery:
    b = _Battery(mode="exists_group")
    maxpre = 2 if cutoff is None else min(2, cutoff - 2)
    if maxpre < 0:
        b.na = f"cutoff {cutoff} leaves no room to append a document"
        return b
    for G in SAT_GRADES:
        for L in range(maxpre + 1):
            for pref in itertools.product((None, 0, 1), repeat=L):
                for t in (0, 1):
                    for g in sorted({1, G}):
                        vecs = [_onehot(x, 2) for x in pref] + [_onehot(t, 2, G), _onehot(t, 2, g)]
                        vecs += [
                            _onehot(1 - t, 2)
                        ]  # the other aspect has a relevant document (unretrieved)
                        docs, ids = _multi_docs(vecs)
                        base = ids[: L + 1]
                        b.instances.append(
                            _Instance(
                                docs,
                                base,
                                [*base, ids[L + 1]],
                                op="ge",
                                tag=G,
                                note=f"grade {G} on t{t + 1}, then grade {g} on t{t + 1}",
                            )
                        )
    return b


def _asprel(cutoff) -> _Battery:
    b = _Battery()
    L = _window(cutoff, 3)
    for w in ((0.2, 0.5, 0.3), (0.1, 0.6, 0.3), (0.45, 0.55, 0.0)):
        for i in range(L):
            for others in itertools.product((None, 2), repeat=L - 1):
                for g in (1, 2):
                    for t, tp in ((0, 1),):
                        vecs = (
                            [_onehot(x, 3) for x in others[:i]]
                            + [_onehot(t, 3, g)]
                            + [_onehot(x, 3) for x in others[i:]]
                            + [_onehot(tp, 3, g)]
                        )
                        vecs += [_onehot(s, 3) for s in range(3)]
                        docs, ids = _multi_docs(vecs)
                        worse = ids[:L]
                        better = list(worse)
                        better[i] = ids[L]
                        b.instances.append(
                            _Instance(
                                docs,
                                better,
                                worse,
                                weights=w,
                                note=f"weights {w}: t{t + 1} doc at rank {i + 1} "
                                f"replaced by t{tp + 1} doc",
                            )
                        )
    return b


# ----------------------------------------------------------------------------- evaluation
def _frames(instances: Sequence[_Instance]):
    q_t, q_s, q_d, q_r = [], [], [], []
    r_k: list[Any]
    r_s, r_t, r_d, r_k = [], [], [], []
    w_rows = []
    for n, inst in enumerate(instances):
        topic = f"q{n:05d}"
        for d, vec in inst.docs.items():
            for s, g in enumerate(vec):
                q_t.append(topic)
                q_s.append(str(s + 1))
                q_d.append(d)
                q_r.append(g)
        for sysname, ranking in (("better", inst.better), ("worse", inst.worse)):
            r_s.extend([sysname] * len(ranking))
            r_t.extend([topic] * len(ranking))
            r_d.extend(ranking)
            r_k.extend(range(1, len(ranking) + 1))
        if inst.weights is not None:
            for s, w in enumerate(inst.weights):
                w_rows.append((topic, str(s + 1), w))
    qrels = pd.DataFrame({"topic": q_t, "subtopic": q_s, "doc": q_d, "rel": q_r})
    runs = pd.DataFrame({"system": r_s, "topic": r_t, "doc": r_d, "rank": r_k})
    runs["score"] = -runs["rank"].astype(float)
    weights = pd.DataFrame(w_rows, columns=["topic", "subtopic", "weight"]) if w_rows else None
    return qrels, runs, weights


def _scores(measure: str, instances: Sequence[_Instance], takes_weights: bool, options: dict):
    qrels, runs, weights = _frames(instances)
    opts = dict(options)
    if weights is not None and takes_weights:
        opts["weights"] = weights
    cube = evaluate(runs, qrels, [measure], order="rank", complete=True, **opts)
    v = cube.isel(measure=0).transpose("system", "topic")
    topics = [f"q{n:05d}" for n in range(len(instances))]
    return (
        v.sel(system="better", topic=topics).values.astype(float),
        v.sel(system="worse", topic=topics).values.astype(float),
    )


def _holds(op: str, better: np.ndarray, worse: np.ndarray, tol: float) -> np.ndarray:
    scale = np.maximum(1.0, np.maximum(np.abs(better), np.abs(worse)))
    if op == "gt":
        return better > worse + tol * scale
    return better >= worse - tol * scale


def _fmt_ranking(ranking, docs) -> str:
    vecs = [docs[d] for d in ranking]
    if all(len(v) == 1 for v in vecs):
        s = ",".join(str(v[0]) for v in vecs)
    else:
        s = " ".join("(" + ",".join(str(x) for x in v) + ")" for v in vecs)
    if len(s) > 80:
        s = s[:77] + "..."
    return "[" + s + "]"


def _counterexample(inst: _Instance, qb: float, qw: float, lower: bool = False) -> str:
    rel = (">" if inst.op == "gt" else ">=") if not lower else ("<" if inst.op == "gt" else "<=")
    return (
        f"{inst.note}: expected Q{_fmt_ranking(inst.better, inst.docs)} {rel} "
        f"Q{_fmt_ranking(inst.worse, inst.docs)}, got {qb:.6g} vs {qw:.6g}"
    )


def _run_battery(measure, battery: _Battery, takes_weights, options, tol, lower=False):
    """Verdict, number of situations and detail of one constraint's battery; ``lower``: the
    measure's best value is its smallest (the better ranking must score lower)."""
    if battery.na:
        return "not applicable", 0, battery.na
    insts = battery.instances
    try:
        qb, qw = _scores(measure, insts, takes_weights, options)
    except Exception as e:  # the measure refused the situation (e.g. a grade above its maximum)
        if battery.mode != "exists_group":
            return "not applicable", len(insts), f"{type(e).__name__}: {e}"
        return _exists_group_safely(measure, battery, takes_weights, options, tol, lower)
    ok = np.array(
        [
            _holds(i.op, w, b, tol) if lower else _holds(i.op, b, w, tol)
            for i, b, w in zip(insts, qb, qw, strict=True)
        ],
        dtype=bool,
    )
    bad_nan = np.isnan(qb) | np.isnan(qw)
    ok &= ~bad_nan
    tags = np.array([i.tag for i in insts], dtype=object)
    if battery.mode == "all":
        if ok.all():
            return "satisfied", len(insts), ""
        k = int(np.flatnonzero(~ok)[0])
        return "violated", len(insts), _counterexample(insts[k], qb[k], qw[k], lower)
    if battery.mode == "tail":
        grid = np.array([int(t) for t in tags])
        upper = grid >= grid.max() / 2
        if ok[upper].all():
            fails = grid[~ok]
            extra = f"holds for n >= {grid[upper].min()}" + (
                f" (fails at n = {fails.max()})" if len(fails) else ""
            )
            return "satisfied", len(insts), extra
        k = int(np.flatnonzero(upper & ~ok)[-1])
        return "violated", len(insts), _counterexample(insts[k], qb[k], qw[k], lower) + " (n large)"
    if battery.mode == "exists":
        if ok.any():
            k = int(np.flatnonzero(ok)[0])
            return "satisfied", len(insts), f"holds at {insts[k].note}"
        k = len(insts) - 1
        return (
            "violated",
            len(insts),
            _counterexample(insts[k], qb[k], qw[k], lower) + " (no grid value works)",
        )
    # exists_group: some tag value for which every instance holds
    for G in dict.fromkeys(tags):
        sel = tags == G
        if ok[sel].all():
            return "satisfied", len(insts), f"holds with saturation grade {G}"
    k = int(np.flatnonzero(~ok)[-1])
    return (
        "violated",
        len(insts),
        _counterexample(insts[k], qb[k], qw[k], lower) + " (no grade in the search works)",
    )


def _exists_group_safely(measure, battery, takes_weights, options, tol, lower=False):
    last = None
    errors = []
    for G in dict.fromkeys(i.tag for i in battery.instances):
        sub = _Battery([i for i in battery.instances if i.tag == G], mode="all")
        try:
            verdict, _n, detail = _run_battery(measure, sub, takes_weights, options, tol, lower)
        except Exception as e:  # pragma: no cover - defensive
            verdict, detail = "not applicable", str(e)
        if verdict == "satisfied":
            return "satisfied", len(battery.instances), f"holds with saturation grade {G}"
        if verdict == "violated":
            last = detail
        else:
            errors.append(detail)
    if last is not None:
        return "violated", len(battery.instances), last + " (no grade in the search works)"
    return "not applicable", len(battery.instances), errors[0] if errors else ""


def _probe_anchor(measure: str, options: dict) -> int:
    inst = _Instance({"d0000": (1,), "anchor": (16,)}, ["d0000"], ["d0000"])
    try:
        _scores(measure, [inst], False, options)
        return 16
    except Exception:
        return 4


def check(
    measure: str,
    *,
    constraints: Iterable[str] | None = None,
    n_max: int = 1000,
    anchor_grade: int | str | None = "auto",
    single_aspect: str = "not applicable",
    tol: float = 1e-12,
    **options,
) -> pd.DataFrame:
    """Check a measure against the ten constraints of Amigó et al. (SIGIR 2018, §3).

    Parameters
    ----------
    measure : str
        A measure string (``"RBU(p=0.8,e=0.03)@20"``, ``"nDCG@10"``, a user's own name).
    constraints : iterable of str, optional
        Subset of `CONSTRAINTS` (default all ten).
    n_max : int
        Largest n (and m) of the DeepTh/CloseTh grid (rankings of up to 4·n_max docs).
    anchor_grade : int, "auto" or None
        Grade of the unretrieved "anchor" documents that implement Amigó et al., SIGIR 2018's
        *relevance contribution* condition r(d) ≪ 1 (gains scaled by the aspect's
        highest grade, such as (2^g − 1)/2^gmax or g/gmax, become small).  ``"auto"``:
        16, or 4 when the measure refuses grade 16 (gdeval's ERR has gmax = 4).
        ``None`` disables anchors.
    single_aspect : {"not applicable", "evaluate"}
        What to report on diversity constraints for a measure that does not declare
        ``needs={"subtopics"}`` (Amigó et al., SIGIR 2018 count single-aspect metrics as not
        satisfying them); ``"evaluate"`` runs them anyway (relevance = max over aspects).
    tol : float
        Relative tolerance of the strict inequalities.
    **options
        Passed to [`irframe.evaluate`][irframe.evaluate] (e.g. ``rel_level``).

    Returns
    -------
    pandas.DataFrame
        Indexed by constraint: ``kind`` (relevance/diversity), ``verdict``,
        ``instances`` (situations evaluated) and ``detail`` (the counterexample of a
        violation, the reason for "not applicable", or where an existential holds).

    See Also
    --------
    - [`check_many`][irframe.axioms.check_many]: several measures as one table.
    """
    m = parse_measure(measure)
    names = list(CONSTRAINTS if constraints is None else constraints)
    unknown = [c for c in names if c not in CONSTRAINTS]
    if unknown:
        raise OptionError(f"unknown constraint(s) {unknown}; choose from {list(CONSTRAINTS)}")
    if single_aspect not in ("not applicable", "evaluate"):
        raise OptionError("single_aspect must be 'not applicable' or 'evaluate'")
    grid = tuple(n for n in GRID if n <= n_max) or (1,)
    if anchor_grade == "auto":
        anchor_grade = _probe_anchor(m.label, options)
    cutoff = m.cutoff
    multi = "subtopics" in m.definition.needs
    takes_weights = "weights" in m.definition.options
    builders = {
        "Pri": lambda: _pri(cutoff, anchor_grade),
        "Deep": lambda: _deep(cutoff, anchor_grade),
        "DeepTh": lambda: _deepth(cutoff, anchor_grade, grid),
        "CloseTh": lambda: _closeth(cutoff, anchor_grade, grid),
        "Conf": lambda: _conf(cutoff, anchor_grade),
        "AspDiv": lambda: _aspdiv(cutoff, anchor_grade),
        "Red": lambda: _red(cutoff, anchor_grade),
        "MRed": lambda: _mred(cutoff, anchor_grade),
        "Sat": lambda: _sat(cutoff),
        "AspRel": lambda: _asprel(cutoff),
    }
    rows = []
    for c in names:
        kind = "relevance" if c in RELEVANCE else "diversity"
        if kind == "diversity" and not multi and single_aspect == "not applicable":
            rows.append(
                (
                    c,
                    kind,
                    "not applicable",
                    0,
                    "single-aspect measure (it does not declare "
                    "needs={'subtopics'}); Amigó et al. (SIGIR 2018) count this as not satisfied",
                )
            )
            continue
        verdict, n, detail = _run_battery(
            m.label, builders[c](), takes_weights, options, tol, m.lower_is_better
        )
        if c == "AspRel" and not takes_weights and verdict == "violated":
            detail += " — the measure takes no aspect weights (no weights= option)"
        rows.append((c, kind, verdict, n, detail))
    out = pd.DataFrame(rows, columns=["constraint", "kind", "verdict", "instances", "detail"])
    out.attrs = {}
    return out.set_index("constraint")


def check_many(measures: Iterable[str], **kwargs) -> pd.DataFrame:
    """Verdicts of several measures as a table: rows = measures, columns = constraints.

    Cells are ``"●"`` (satisfied), ``"○"`` (violated) or ``"–"`` (not applicable).

    Parameters
    ----------
    measures : iterable of str
        Measure strings.
    **kwargs
        As for [`check`][irframe.axioms.check].

    Returns
    -------
    pandas.DataFrame

    See Also
    --------
    - [Axioms](../axioms.md): the guide, with the table for the measures of the paper.
    """
    sym = {"satisfied": "●", "violated": "○", "not applicable": "–"}
    rows = {}
    for m in measures:
        r = check(m, **kwargs)
        rows[m] = [sym[v] for v in r["verdict"]]
        cols = list(r.index)
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols)
