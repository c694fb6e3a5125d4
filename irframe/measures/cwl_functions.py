"""C and A functions of the C/W/L framework, vectorised over a ``G × depth`` rank matrix.

The framework is Moffat, Bailey, Scholer & Thomas, "INST: an adaptive metric for information
retrieval evaluation", ADCS 2015, and its C/W/L/A extension, Moffat, Mackenzie, Thomas &
Azzopardi, "A flexible framework for offline effectiveness metrics", SIGIR 2022
(doi:10.1145/3477495.3531924).  A *continuation function* C(i) is the probability that a user
who has examined rank i goes on to rank i + 1 (SIGIR 2022, Eqs. 1–5 give V, V+, W and L);
an *aggregation function* A(i) (Eqs. 16–24) is what a user leaving at rank i takes away.

This module holds the functions, their string syntax (irframe's, cwl_eval's printed names
and its metric-file lines) and [`Rankings`][irframe.cwl.Rankings] / [`user_model`][irframe.cwl.user_model].  The scores built on
them (EU, ETU, … and CWLA) live in `irframe.measures.cwl`; the frame-level entry points
in [`irframe.cwl`][irframe.cwl].
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from ..errors import InputError, MeasureParamError
from ..params import check_cutoff_text
from .registry import split_measure

__all__ = [
    "A_FUNCTIONS",
    "C_FUNCTIONS",
    "DEFAULT_CWL_METRICS",
    "TABLE3_A",
    "TABLE3_C",
    "AFunction",
    "CFunction",
    "GainRangeError",
    "Rankings",
    "UserModel",
    "a_function",
    "c_function",
    "user_model",
]


class GainRangeError(InputError):
    """A gain outside the allowed range (cwl_eval's ``--min_gain``/``--max_gain`` check)."""


# =====================================================================================
# the rank matrix
# =====================================================================================
@dataclass(eq=False)
class Rankings:
    """Gains and costs of G rankings on a dense ``G × depth`` grid (rank 1 in column 0).

    A user-supplied C or A function receives this object.  Cached helpers: ``rank``
    (1..D as float, shape (D,)), ``cum_gain``, ``cum_cost``.

    Attributes
    ----------
    gain : numpy.ndarray
        (G, D) float64 gains; unjudged documents and padding already resolved
        (worst case: 0; best case: ``max_gain``).
    cost : numpy.ndarray
        (G, D) float64 costs (unknown/padding: ``max_cost`` worst case, ``min_cost`` best case).
    length : numpy.ndarray
        (G,) number of real (retrieved) documents in each row, at most D.
    """

    gain: np.ndarray
    cost: np.ndarray
    length: np.ndarray
    unit_cost: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        """(G, D)."""
        return self.gain.shape

    @property
    def depth(self) -> int:
        """D, the number of rank positions."""
        return self.gain.shape[1]

    @cached_property
    def rank(self) -> np.ndarray:
        """Ranks 1..D as float64, shape (D,) (broadcasts against (G, D))."""
        return np.arange(1, self.depth + 1, dtype=np.float64)

    @cached_property
    def cum_gain(self) -> np.ndarray:
        """Running total of gains along the ranking, (G, D)."""
        return np.cumsum(self.gain, axis=1)

    @cached_property
    def cum_cost(self) -> np.ndarray:
        """Running total of costs along the ranking, (G, D)."""
        if self.unit_cost:  # every cost is 1: the running total is the rank
            return np.broadcast_to(self.rank, self.shape)
        return np.cumsum(self.cost, axis=1)

    @classmethod
    def from_gains(cls, gains: Any, costs: Any = None) -> Rankings:
        """Rankings from a plain gain matrix (1-D input = one ranking); costs default to 1."""
        g = np.atleast_2d(np.asarray(gains, dtype=np.float64))
        c = (
            np.ones_like(g)
            if costs is None
            else np.broadcast_to(np.atleast_2d(np.asarray(costs, dtype=np.float64)), g.shape).copy()
        )
        return cls(g, c, np.full(g.shape[0], g.shape[1], dtype=np.int64), unit_cost=costs is None)


@dataclass(eq=False)
class UserModel:
    """The C/W/L user model of a C function on some rankings, all (G, D) except ``vplus``.

    ``C`` continuation, ``V`` viewing probability (Eq. 1), ``W`` attention (Eq. 3),
    ``L`` last-document probability (Eq. 5), ``vplus`` = V+ (Eq. 2, truncated at D),
    ``tail`` = V(D + 1), the share of users who would read beyond the depth cut.
    """

    C: np.ndarray
    V: np.ndarray
    W: np.ndarray
    L: np.ndarray
    vplus: np.ndarray
    tail: np.ndarray


def user_model(C: np.ndarray) -> UserModel:
    """V, W, L, V+ from a (G, D) continuation matrix, following cwl_eval's conventions.

    V is the running product of C(1..i-1) (``numpy.cumprod``, as cwl_eval), W = V · (1/V+),
    L(i) = V(i)(1 - C(i)) with C(D) used as given (mass beyond the depth cut is the ``tail``).

    Parameters
    ----------
    C : numpy.ndarray
        (G, D) continuation probabilities.

    Returns
    -------
    UserModel
    """
    C = np.asarray(C, dtype=np.float64)
    G, D = C.shape
    V = np.empty((G, D))
    V[:, 0] = 1.0
    if D > 1:
        np.cumprod(C[:, :-1], axis=1, out=V[:, 1:])
    vplus = V.sum(axis=1)
    w1 = 1.0 / vplus
    W = V * w1[:, None]
    L = V * (1.0 - C)
    tail = V[:, -1] * C[:, -1]
    return UserModel(C=C, V=V, W=W, L=L, vplus=vplus, tail=tail)


# =====================================================================================
# C functions
# =====================================================================================
@dataclass(frozen=True, eq=False)
class CFunction:
    """A conditional continuation function C(i), vectorised over rankings.

    Parameters
    ----------
    name : str
        Display name (e.g. ``"RBP(p=0.8)"``).
    fn : callable
        ``fn(r: Rankings) -> array`` of shape (G, D) (or (D,) / (1, D) for a static
        function), the continuation probability at each rank.  It must not modify ``r``.
    cwl_name : str, optional
        The name cwl_eval prints for it (``"RBP@0.8"``).
    gain_range : (float, float), optional
        Gains the function accepts; cwl_eval's INST and NERR raise outside [0, 1].
    kind : str
        ``"static"``, ``"adaptive"`` (depends on gains already seen), ``"clairvoyant"``
        (depends on later gains) or ``"cost"`` (depends on costs) — documentation only;
        degenerate combinations are detected by probing (see `degeneracy`).

    Examples
    --------
    A user-defined C function: a patient user who stops after the second relevant document.

    >>> import numpy as np
    >>> from irframe.cwl import CFunction, cwl_from_gains
    >>> two = CFunction("two_rel", lambda r: (np.cumsum(r.gain > 0, axis=1) < 2).astype(float))
    >>> float(cwl_from_gains([[1, 0, 1, 1]], two)["ED"][0])
    3.0
    """

    name: str
    fn: Callable[[Rankings], np.ndarray]
    cwl_name: str | None = None
    gain_range: tuple[float, float] | None = None
    kind: str = "static"
    builtin: bool = False

    def __call__(self, r: Rankings) -> np.ndarray:
        out = np.asarray(self.fn(r), dtype=np.float64)
        if out.ndim == 1:
            out = out[None, :]
        if out.shape != r.shape:
            out = np.broadcast_to(out, r.shape)
        return out

    def __repr__(self) -> str:
        return f"CFunction({self.name!r})"


def _fmt_num(v: Any) -> str:
    return str(v)


def _c_prec(k: int) -> CFunction:
    def fn(r):
        return (r.rank < k).astype(np.float64)

    return CFunction(f"P@{k}", fn, cwl_name=f"P@{k}")


def _c_rbp(p: float) -> CFunction:
    def fn(r):
        return np.full(r.depth, float(p))

    return CFunction(f"RBP(p={_fmt_num(p)})", fn, cwl_name=f"RBP@{_fmt_num(p)}")


def _c_npv(rate: float) -> CFunction:
    def fn(r):
        return np.full(r.depth, 1.0 / (1.0 + rate))

    return CFunction(f"NPV(rate={_fmt_num(rate)})", fn, cwl_name=f"NPV-r@{_fmt_num(rate)}")


def _c_dcg(k: int) -> CFunction:
    def fn(r):
        # math.log(x, 2) as cwl_eval, for identical rounding
        c = [
            math.log(i + 1, 2.0) / math.log(i + 2, 2.0) if i < k else 0.0
            for i in range(1, r.depth + 1)
        ]
        return np.array(c)

    return CFunction(f"DCG@{k}", fn, cwl_name=f"NDCG-k@{k}")


def _c_set(k: int, beta: float) -> CFunction:
    def w(i):
        return math.pow(i + 1, beta) - math.pow(i, beta)

    def fn(r):
        return np.array([w(i + 1) / w(i) if i < k else 0.0 for i in range(1, r.depth + 1)])

    return CFunction(
        f"SET(beta={_fmt_num(beta)})@{k}", fn, cwl_name=f"SET-k@{k}-b@{_fmt_num(beta)}"
    )


def _suffix_ratio(x: np.ndarray) -> np.ndarray:
    """C(i) = S(i+1)/S(i) with S(i) = sum_{j>=i} x_j; 0 where S(i+1) <= 0 and at the last rank."""
    S = np.cumsum(x[:, ::-1], axis=1)[:, ::-1]  # exact zeros after the last positive entry
    C = np.zeros_like(S)
    top, bot = S[:, 1:], S[:, :-1]
    np.divide(top, bot, out=C[:, :-1], where=top > 0.0)
    return C


def _c_ap1(r: Rankings) -> np.ndarray:
    return _suffix_ratio(r.gain / r.rank)


def _c_ap2(r: Rankings) -> np.ndarray:
    return _suffix_ratio(r.gain)


def _c_rr(binary: bool) -> CFunction:
    if binary:

        def fn(r):
            return 1.0 - np.maximum.accumulate(r.gain > 0.0, axis=1)

        return CFunction("RR(binary=1)", fn, cwl_name="RR", kind="adaptive")

    def fn_g(r):
        return 1.0 - r.gain

    return CFunction("RR", fn_g, cwl_name=None, gain_range=(0.0, 1.0), kind="adaptive")


def _c_inst(T: float) -> CFunction:
    def fn(r):
        Ti = T - r.cum_gain
        return ((r.rank + T + Ti - 1.0) / (r.rank + T + Ti)) ** 2.0

    return CFunction(
        f"INST(T={_fmt_num(T)})",
        fn,
        cwl_name=f"INST-T={_fmt_num(T)}",
        gain_range=(0.0, 1.0),
        kind="adaptive",
    )


def _c_insq(T: float) -> CFunction:
    def fn(r):
        return ((r.rank + 2.0 * T - 1.0) / (r.rank + 2.0 * T)) ** 2.0

    return CFunction(f"INSQ(T={_fmt_num(T)})", fn, cwl_name=f"INSQ-T={_fmt_num(T)}")


def _ratio_c(w: np.ndarray) -> np.ndarray:
    """C(i) = w(i+1)/w(i) where w(i) > 0, else 0; C(D) = 0 (cwl_eval's TBG/U-measure)."""
    C = np.zeros_like(w)
    np.divide(w[:, 1:], w[:, :-1], out=C[:, :-1], where=w[:, :-1] > 0.0)
    return C


def _c_tbg(H: float) -> CFunction:
    ln2 = math.log(2.0, math.e)

    def fn(r):
        start = np.zeros(r.shape)
        start[:, 1:] = r.cum_cost[:, :-1]
        w = (H * (2.0 ** (-start / H))) / ln2
        return _ratio_c(w)

    return CFunction(f"TBG(H={_fmt_num(H)})", fn, cwl_name=f"TBG-H@{_fmt_num(H)}", kind="cost")


def _c_umeasure(L: float) -> CFunction:
    def fn(r):
        start = np.zeros(r.shape)
        start[:, 1:] = r.cum_cost[:, :-1]
        w = np.maximum(0.0, 1.0 - start / L)
        w[:, -1] = 0.0
        return _ratio_c(w)

    return CFunction(f"U(L={_fmt_num(L)})", fn, cwl_name=f"U-L@{_fmt_num(L)}", kind="cost")


def _c_bpm(T: float, K: float) -> CFunction:
    def fn(r):
        ok = np.logical_and.accumulate(r.cum_gain < T, axis=1)
        ok &= np.logical_and.accumulate(r.cum_cost < K, axis=1)
        return ok.astype(np.float64)

    return CFunction(
        f"BPM(T={_fmt_num(T)},K={_fmt_num(K)})",
        fn,
        cwl_name=f"BPM-Static-T={_fmt_num(T)}-K={_fmt_num(K)}",
        kind="adaptive",
    )


def _c_bpmd(T: float, K: float, hb: float, hc: float, med: float) -> CFunction:
    def fn(r):
        G, D = r.shape
        # T_0 = T, T_{i+1} = T_i + hb (g_i - med): sequential sums, as cwl_eval's loop
        steps = np.empty((G, D))
        steps[:, 0] = T
        steps[:, 1:] = hb * (r.gain[:, :-1] - med)
        Ti = np.cumsum(steps, axis=1)
        ok = np.logical_and.accumulate(r.cum_gain < Ti, axis=1)
        # cwl_eval 1.0.12 updates T (not K) in its cost loop, so K stays fixed; reproduced.
        ok &= np.logical_and.accumulate(r.cum_cost < K, axis=1)
        return ok.astype(np.float64)

    return CFunction(
        f"BPMD(T={_fmt_num(T)},K={_fmt_num(K)},hb={_fmt_num(hb)},hc={_fmt_num(hc)})",
        fn,
        cwl_name=f"BPM-Dynamic-T={_fmt_num(T)}-K={_fmt_num(K)}-hb={_fmt_num(hb)}-hc={_fmt_num(hc)}",
        kind="adaptive",
    )


def _ift_c1(r, T, b1, R1):
    with np.errstate(over="ignore"):
        return 1.0 - 1.0 / (1.0 + b1 * np.exp((T - r.cum_gain) * R1))


def _ift_c2(r, A, b2, R2):
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return 1.0 / (1.0 + b2 * np.exp((A - r.cum_gain / r.cum_cost) * R2))


def _c_ift(T=None, b1=None, R1=None, A=None, b2=None, R2=None) -> CFunction:
    goal = T is not None
    rate = A is not None
    f = _fmt_num
    if goal and rate:

        def fn(r):
            return _ift_c1(r, T, b1, R1) * _ift_c2(r, A, b2, R2)

        return CFunction(
            f"IFT(T={f(T)},b1={f(b1)},R1={f(R1)},A={f(A)},b2={f(b2)},R2={f(R2)})",
            fn,
            cwl_name=f"IFT-C1-C2-T={f(T)}-b1={f(b1)}-R1={f(R1)}-A={f(A)}-b2={f(b2)}-R2={f(R2)}",
            kind="adaptive",
        )
    if goal:
        return CFunction(
            f"IFT(T={f(T)},b1={f(b1)},R1={f(R1)})",
            lambda r: _ift_c1(r, T, b1, R1),
            cwl_name=f"IFT-C1-T={f(T)}-b1={f(b1)}-R1={f(R1)}",
            kind="adaptive",
        )
    return CFunction(
        f"IFT(A={f(A)},b2={f(b2)},R2={f(R2)})",
        lambda r: _ift_c2(r, A, b2, R2),
        cwl_name=f"IFT-C2-A={f(A)}-b2={f(b2)}-R2={f(R2)}",
        kind="adaptive",
    )


def _c_nerr(eq: int, value: float) -> CFunction:
    v = value

    def fn(r):
        g1 = 1.0 - r.gain
        if eq == 8:
            return np.where(r.rank < v, g1, 0.0)
        if eq == 9:
            return np.where(r.rank < v, (r.rank / (r.rank + 1.0)) * g1, 0.0)
        if eq == 10:
            return v * g1
        return (((r.rank + 2.0 * v - 1.0) / (r.rank + 2.0 * v)) ** 2.0) * g1

    label = {
        8: f"NERR8@{v}",
        9: f"NERR9@{v}",
        10: f"NERR10(phi={_fmt_num(v)})",
        11: f"NERR11(T={_fmt_num(v)})",
    }[eq]
    cname = {
        8: f"NERR-EQ8@k={v}",
        9: f"NERR-EQ9@k={v}",
        10: f"NERR-EQ10@phi={_fmt_num(v)}",
        11: f"NERR-EQ11@T={_fmt_num(v)}",
    }[eq]
    return CFunction(label, fn, cwl_name=cname, gain_range=(0.0, 1.0), kind="adaptive")


def _user_c(fn: Callable, name: str | None = None) -> CFunction:
    return CFunction(str(name or getattr(fn, "__name__", "C")), fn, kind="user")


C_AP1 = CFunction("AP1", _c_ap1, cwl_name="AP", kind="clairvoyant")
C_AP2 = CFunction("AP2", _c_ap2, cwl_name=None, kind="clairvoyant")

#: irframe-syntax C names: name → (factory(params, cutoff), allowed params with defaults, cutoff rule)
_REQ = object()


def _num(v: Any, what: str) -> float | int:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise MeasureParamError(f"{what} must be a number, got {v!r}")
    return v


def _prob(v: Any, what: str) -> float:
    v = _num(v, what)
    if not 0.0 <= v <= 1.0:
        raise MeasureParamError(f"{what} must lie in [0, 1], got {v!r}")
    return v


def _pos_int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise MeasureParamError(f"{what} must be a positive integer, got {v!r}")
    return int(v)


_C_SPECS: dict[str, tuple[Callable[[dict, int | None], CFunction], dict, str]] = {
    "P": (lambda p, k: _c_prec(_pos_int(k, "P@k cutoff")), {}, "required"),
    "RBP": (lambda p, k: _c_rbp(_prob(p["p"], "RBP p")), {"p": 0.8}, "none"),
    "NPV": (lambda p, k: _c_npv(_num(p["rate"], "NPV rate")), {"rate": 0.1}, "none"),
    "DCG": (lambda p, k: _c_dcg(_pos_int(k, "DCG@k cutoff")), {}, "required"),
    "SET": (
        lambda p, k: _c_set(_pos_int(k, "SET@k cutoff"), _num(p["beta"], "SET beta")),
        {"beta": 0.5},
        "required",
    ),
    "AP1": (lambda p, k: C_AP1, {}, "none"),
    "AP2": (lambda p, k: C_AP2, {}, "none"),
    "RR": (lambda p, k: _c_rr(bool(p["binary"])), {"binary": 0}, "none"),
    "INST": (lambda p, k: _c_inst(_num(p["T"], "INST T")), {"T": 1.0}, "none"),
    "INSQ": (lambda p, k: _c_insq(_num(p["T"], "INSQ T")), {"T": 1.0}, "none"),
    "TBG": (lambda p, k: _c_tbg(_num(p["H"], "TBG H")), {"H": 224}, "none"),
    "U": (lambda p, k: _c_umeasure(_num(p["L"], "U L")), {"L": 1000}, "none"),
    "BPM": (
        lambda p, k: _c_bpm(_num(p["T"], "BPM T"), _num(p["K"], "BPM K")),
        {"T": 1.0, "K": 10},
        "none",
    ),
    "BPMD": (
        lambda p, k: _c_bpmd(
            _num(p["T"], "BPMD T"),
            _num(p["K"], "BPMD K"),
            _num(p["hb"], "hb"),
            _num(p["hc"], "hc"),
            _num(p["med"], "med"),
        ),
        {"T": 1.0, "K": 10, "hb": 1.0, "hc": 1.0, "med": 0.5},
        "none",
    ),
    "IFT": (
        lambda p, k: _ift_from(p),
        {"T": None, "b1": 0.9, "R1": 10, "A": None, "b2": 0.9, "R2": 10},
        "none",
    ),
    "NERR8": (lambda p, k: _c_nerr(8, _pos_int(k, "NERR8@k cutoff")), {}, "required"),
    "NERR9": (lambda p, k: _c_nerr(9, _pos_int(k, "NERR9@k cutoff")), {}, "required"),
    "NERR10": (lambda p, k: _c_nerr(10, _prob(p["phi"], "NERR10 phi")), {"phi": 0.9}, "none"),
    "NERR11": (lambda p, k: _c_nerr(11, _num(p["T"], "NERR11 T")), {"T": 1.0}, "none"),
}
_C_ALIASES = {
    "Prec": "P",
    "SDCG": "DCG",
    "AP": "AP1",
    "UMeasure": "U",
    "U-measure": "U",
    "INST@T": "INST",
    "ERRC": "RR",
}

#: the C functions Moffat et al., SIGIR 2022 define (Table 3 rows), with the Table 4 parameters
TABLE3_C = ("P@5", "RBP(p=0.8)", "DCG@5", "AP1", "RR", "INST(T=2.25)", "AP2")
#: the A functions of Table 3 / 4 (columns)
TABLE3_A = ("ETG", "ERG", "ERR", "avg", "max", "fin", "fig(delta=0.8)", "PE(beta=0.5)")
C_FUNCTIONS = tuple(sorted(_C_SPECS))


def _ift_from(p: dict) -> CFunction:
    if p["T"] is None and p["A"] is None:
        raise MeasureParamError("IFT needs a goal T=... (IFT-C1), a rate A=... (IFT-C2), or both")
    T = None if p["T"] is None else _num(p["T"], "IFT T")
    A = None if p["A"] is None else _num(p["A"], "IFT A")
    return _c_ift(
        T=T,
        b1=_num(p["b1"], "b1"),
        R1=_num(p["R1"], "R1"),
        A=A,
        b2=_num(p["b2"], "b2"),
        R2=_num(p["R2"], "R2"),
    )


# ---- cwl_eval names ------------------------------------------------------------------------
_NUMRE = r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"


def _cast(text: str) -> int | float:
    """cwl_eval's metric-file cast: float when the text has a '.', else int."""
    t = text.strip()
    return float(t) if "." in t or "e" in t.lower() else int(t)


_CWL_PRINTED: list[tuple[re.Pattern, Callable[..., CFunction]]] = [
    (re.compile(rf"P@{_NUMRE}"), lambda k: _c_prec(int(_cast(k)))),
    (re.compile(rf"RBP@{_NUMRE}"), lambda p: _c_rbp(_cast(p))),
    (re.compile(rf"NPV-r@{_NUMRE}"), lambda p: _c_npv(_cast(p))),
    (re.compile(rf"NDCG-k@{_NUMRE}"), lambda k: _c_dcg(int(_cast(k)))),
    (re.compile(rf"SET-k@{_NUMRE}-b@{_NUMRE}"), lambda k, b: _c_set(int(_cast(k)), _cast(b))),
    (re.compile(r"RR"), lambda: _c_rr(True)),
    (re.compile(r"AP"), lambda: C_AP1),
    (re.compile(rf"INST-T={_NUMRE}"), lambda T: _c_inst(_cast(T))),
    (re.compile(rf"INSQ-T={_NUMRE}"), lambda T: _c_insq(_cast(T))),
    (re.compile(rf"TBG-H@{_NUMRE}"), lambda H: _c_tbg(_cast(H))),
    (re.compile(rf"U-L@{_NUMRE}"), lambda L: _c_umeasure(_cast(L))),
    (re.compile(rf"BPM-Static-T={_NUMRE}-K={_NUMRE}"), lambda T, K: _c_bpm(_cast(T), _cast(K))),
    (
        re.compile(rf"BPM-Dynamic-T={_NUMRE}-K={_NUMRE}-hb={_NUMRE}-hc={_NUMRE}"),
        lambda T, K, hb, hc: _c_bpmd(_cast(T), _cast(K), _cast(hb), _cast(hc), 0.5),
    ),
    (
        re.compile(
            rf"IFT-C1-C2-T={_NUMRE}-b1={_NUMRE}-R1={_NUMRE}-A={_NUMRE}-b2={_NUMRE}-R2={_NUMRE}"
        ),
        lambda *a: _c_ift(*(_cast(x) for x in a)),
    ),
    (
        re.compile(rf"IFT-C1-T={_NUMRE}-b1={_NUMRE}-R1={_NUMRE}"),
        lambda T, b1, R1: _c_ift(T=_cast(T), b1=_cast(b1), R1=_cast(R1)),
    ),
    (
        re.compile(rf"IFT-C2-A={_NUMRE}-b2={_NUMRE}-R2={_NUMRE}"),
        lambda A, b2, R2: _c_ift(A=_cast(A), b2=_cast(b2), R2=_cast(R2)),
    ),
    (re.compile(rf"NERR-EQ8@k={_NUMRE}"), lambda k: _c_nerr(8, int(_cast(k)))),
    (re.compile(rf"NERR-EQ9@k={_NUMRE}"), lambda k: _c_nerr(9, int(_cast(k)))),
    (re.compile(rf"NERR-EQ10@phi={_NUMRE}"), lambda p: _c_nerr(10, _cast(p))),
    (re.compile(rf"NERR-EQ11@T={_NUMRE}"), lambda T: _c_nerr(11, _cast(T))),
]

_CWL_CLASSES: dict[str, Callable[..., CFunction]] = {
    "PrecisionCWLMetric": lambda k=10: _c_prec(int(k)),
    "RBPCWLMetric": lambda theta=0.9: _c_rbp(theta),
    "NPVCWLMetric": lambda rate=0.1: _c_npv(rate),
    "NDCGCWLMetric": lambda k: _c_dcg(int(k)),
    "SETCWLMetric": lambda beta=0.5, k=10: _c_set(int(k), beta),
    "RRCWLMetric": lambda: _c_rr(True),
    "APCWLMetric": lambda: C_AP1,
    "INSTCWLMetric": lambda T=1.0: _c_inst(T),
    "INSQCWLMetric": lambda T=1.0: _c_insq(T),
    "TBGCWLMetric": lambda halflife=224: _c_tbg(halflife),
    "UMeasureCWLMetric": lambda L=1000: _c_umeasure(L),
    "BPMCWLMetric": lambda T=1.0, K=10: _c_bpm(T, K),
    "BPMDCWLMetric": lambda T=1, K=10, hb=1.0, hc=1.0, gain_med=0.5: _c_bpmd(
        T, K, hb, hc, gain_med
    ),
    "IFTGoalCWLMetric": lambda T, b1, R1: _c_ift(T=T, b1=b1, R1=R1),
    "IFTRateCWLMetric": lambda A, b2, R2: _c_ift(A=A, b2=b2, R2=R2),
    "IFTGoalRateCWLMetric": lambda T, b1, R1, A, b2, R2: _c_ift(T, b1, R1, A, b2, R2),
    "NERReq8CWLMetric": lambda k: _c_nerr(8, int(k)),
    "NERReq9CWLMetric": lambda k: _c_nerr(9, int(k)),
    "NERReq10CWLMetric": lambda phi=0.9: _c_nerr(10, phi),
    "NERReq11CWLMetric": lambda T=1.0: _c_nerr(11, T),
}

#: cwl_eval's default metric list (used when ``measures=None``), in its printed names
DEFAULT_CWL_METRICS = (
    "P@1",
    "P@2",
    "P@3",
    "P@4",
    "P@5",
    "P@10",
    "RBP@0.2",
    "RBP@0.4",
    "RBP@0.8",
    "NDCG-k@5",
    "NDCG-k@10",
    "RR",
    "AP",
    "INST-T=1.0",
    "INST-T=2.0",
    "INST-T=3.0",
)


#: the two spellings of C functions: irframe's measure grammar, and cwl_eval's printed names
DIALECTS = ("irframe", "cwl_eval")


def _printed(s: str) -> CFunction | None:
    """The C function cwl_eval prints as ``s`` (``RBP@0.8``, ``INST-T=2``, ``RR`` …), or None."""
    for pat, make in _CWL_PRINTED:
        mm = pat.fullmatch(s)
        if mm:
            return replace(make(*mm.groups()), builtin=True)
    return None


def c_function(spec: str | CFunction | Callable, *, dialect: str = "irframe") -> CFunction:
    """Resolve a C-function specification.

    Accepted forms
    --------------
    * irframe syntax: ``"P@10"``, ``"RBP(p=0.8)"``, ``"DCG@10"`` (= ``SDCG@10``), ``"AP1"``
      (= ``"AP"``), ``"AP2"``, ``"RR"``, ``"INST(T=2)"``, ``"INSQ(T=2)"``, ``"TBG(H=224)"``,
      ``"U(L=1000)"``, ``"BPM(T=1,K=10)"``, ``"BPMD(T=1,K=10,hb=1,hc=1,med=0.5)"``,
      ``"IFT(T=2,b1=0.9,R1=10)"`` / ``"IFT(A=0.2,b2=0.9,R2=10)"`` / both, ``"NERR8@10"``,
      ``"NERR9@10"``, ``"NERR10(phi=0.9)"``, ``"NERR11(T=1)"``, ``"NPV(rate=0.1)"``, ``"SET(beta=0.5)@10"``;
    * with ``dialect="cwl_eval"`` (what [`irframe.cwl.cwl`][irframe.cwl.cwl] and ``CWL(C=...)`` use),
      cwl_eval's printed names: ``"RBP@0.8"`` (p = 0.8), ``"INST-T=2"``, ``"NDCG-k@10"``,
      ``"U-L@50"``, ``"BPM-Static-T=1-K=1000"``, ``"NERR-EQ10@phi=0.9"`` …; in irframe's
      grammar ``@`` is a cutoff, so these are refused there with their irframe spelling;
    * cwl_eval's metric-file lines: ``"RBPCWLMetric(0.9)"``, ``"INSTCWLMetric(1)"`` …;
    * a [`CFunction`][irframe.cwl.CFunction] or a callable ``fn(r: Rankings) -> (G, D) array``.

    ``RR`` is Eq. 12 of Moffat et al., SIGIR 2022, C(i) = 1 - r_i (the cascade behind ERR); cwl_eval's RR
    (continue until the first document with a positive gain) is ``RR(binary=1)``.  The two
    agree on binary gains.  In the cwl_eval dialect a bare ``"RR"`` means cwl_eval's RR (and
    ``"AP"`` its AP1), so cwl_eval's metric names keep cwl_eval's meaning.

    Parameters
    ----------
    spec : str, CFunction or callable
        The specification (forms above).
    dialect : {"irframe", "cwl_eval"}
        Read names in irframe's grammar or as cwl_eval prints them (a bare ``"RR"`` is then
        cwl_eval's RR).

    Returns
    -------
    CFunction

    Raises
    ------
    irframe.errors.MeasureParamError
        An unknown name or a parameter out of its range.

    Examples
    --------
    >>> from irframe.cwl import c_function
    >>> c_function("RBP@0.8", dialect="cwl_eval").name, c_function("INSTCWLMetric(2)").cwl_name
    ('RBP(p=0.8)', 'INST-T=2')
    >>> c_function("RBP@0.8")
    Traceback (most recent call last):
    ...
    irframe.errors.MeasureParamError: 'RBP@0.8' is cwl_eval's spelling of RBP(p=0.8); in irframe's measure grammar @ is a cutoff: write RBP(p=0.8), or use the cwl_eval dialect (irframe.cwl.cwl, CWL(C=...))
    """
    if isinstance(spec, CFunction):
        return spec
    if callable(spec):
        return _user_c(spec)
    if not isinstance(spec, str):
        raise TypeError(
            f"a C function must be a string such as 'RBP(p=0.8)' or a callable, got "
            f"{type(spec).__name__}"
        )
    s = spec.strip()
    if s.startswith("C_"):
        s = s[2:]
    m = re.fullmatch(r"(\w+CWLMetric)\((.*)\)", s)
    if m:
        cls = _CWL_CLASSES.get(m.group(1))
        if cls is None:
            raise MeasureParamError(
                f"unknown cwl_eval metric class {m.group(1)!r}; known: "
                f"{', '.join(sorted(_CWL_CLASSES))}"
            )
        args = [_cast(a) for a in m.group(2).split(",") if a.strip()]
        try:
            return replace(cls(*args), builtin=True)
        except TypeError as e:
            raise MeasureParamError(f"{spec!r}: {e}") from None
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {DIALECTS}, got {dialect!r}")
    if dialect == "cwl_eval":
        printed = _printed(s)
        if printed is not None:
            return printed
    elif "-" in s or (re.fullmatch(rf"RBP@{_NUMRE}", s) and not re.fullmatch(r"RBP@\d+", s)):
        printed = _printed(s)
        if printed is not None:
            raise MeasureParamError(
                f"{spec!r} is cwl_eval's spelling of {printed.name}; in irframe's measure grammar "
                f"@ is a cutoff: write {printed.name}, or use the cwl_eval dialect "
                "(irframe.cwl.cwl, CWL(C=...))"
            )
    try:
        name, raw, cut = split_measure(s)
    except MeasureParamError as e:
        raise MeasureParamError(f"cannot parse C function {spec!r}: {e}") from None
    name = _C_ALIASES.get(name, name)
    if name not in _C_SPECS:
        close = difflib.get_close_matches(name, list(_C_SPECS) + list(_C_ALIASES), n=3, cutoff=0.4)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise MeasureParamError(
            f"unknown C function {spec!r}.{hint} Known: {', '.join(C_FUNCTIONS)} "
            f"(or cwl_eval names such as 'RBP@0.8', 'INST-T=2', 'RBPCWLMetric(0.8)')"
        )
    make, defaults, cutrule = _C_SPECS[name]
    unknown = set(raw) - set(defaults)
    if unknown:
        raise MeasureParamError(
            f"{spec!r}: unknown parameter(s) {sorted(unknown)} for C function {name}; "
            f"allowed: {', '.join(sorted(defaults)) or 'none'}"
        )
    if cutrule == "required" and cut is None:
        raise MeasureParamError(f"{spec!r}: C function {name} needs a depth, e.g. {name}@10")
    if cutrule == "none" and cut is not None:
        raise MeasureParamError(f"{spec!r}: C function {name} takes no @k")
    k = (
        None
        if cut is None
        else check_cutoff_text(cut, what=f"C function {spec!r}", error=MeasureParamError)
    )
    return replace(make({**defaults, **raw}, k), builtin=True)


# =====================================================================================
# A functions
# =====================================================================================
@dataclass(frozen=True, eq=False)
class AFunction:
    """An aggregation function A(i): what a user who leaves after rank i takes away.

    ``fn(r: Rankings, m: UserModel) -> (G, D)`` array of A(1..D) (``m`` gives V+, for A_ERG).

    Examples
    --------
    A user who remembers only the best of the first three documents they saw:

    >>> import numpy as np
    >>> from irframe.cwl import AFunction, cwla_from_gains
    >>> best3 = AFunction("best3", lambda r, m: np.maximum.accumulate(
    ...     np.where(r.rank <= 3, r.gain, 0.0), axis=1))
    >>> float(cwla_from_gains([[0.2, 0.9, 0.1, 1.0]], "P@4", best3)[0])
    0.9
    """

    name: str
    fn: Callable[[Rankings, UserModel], np.ndarray]
    direction: str = ""
    builtin: bool = False

    def __call__(self, r: Rankings, m: UserModel) -> np.ndarray:
        out = np.asarray(self.fn(r, m), dtype=np.float64)
        return np.broadcast_to(out if out.ndim == 2 else out[None, :], r.shape)

    def __repr__(self) -> str:
        return f"AFunction({self.name!r})"


def _a_fig(delta: float) -> AFunction:
    d = _prob(delta, "fig delta")

    def fn(r, m):
        if d == 0.0:
            return r.gain
        if d == 1.0:
            return r.cum_gain
        from scipy.signal import lfilter  # A(i+1) = delta A(i) + r_{i+1}, along ranks

        return lfilter([1.0], [1.0, -d], r.gain, axis=1)

    return AFunction(f"fig(delta={_fmt_num(delta)})", fn, builtin=True)


def _a_pe(beta: float) -> AFunction:
    b = _prob(beta, "PE beta")

    def fn(r, m):
        return b * np.maximum.accumulate(r.gain, axis=1) + (1.0 - b) * r.gain

    return AFunction(f"PE(beta={_fmt_num(beta)})", fn, builtin=True)


A_ETG = AFunction("ETG", lambda r, m: r.cum_gain, "non-decreasing", builtin=True)
A_ERG = AFunction("ERG", lambda r, m: r.cum_gain / m.vplus[:, None], "non-decreasing", builtin=True)
A_ERR = AFunction("ERR", lambda r, m: 1.0 / r.rank, "non-increasing", builtin=True)
A_AVG = AFunction("avg", lambda r, m: r.cum_gain / r.rank, "", builtin=True)
A_MAX = AFunction(
    "max", lambda r, m: np.maximum.accumulate(r.gain, axis=1), "non-decreasing", builtin=True
)
A_FIN = AFunction("fin", lambda r, m: r.gain, "", builtin=True)

_A_SIMPLE = {"ETG": A_ETG, "ERG": A_ERG, "ERR": A_ERR, "avg": A_AVG, "max": A_MAX, "fin": A_FIN}
_A_PARAM = {"fig": (_a_fig, "delta", 0.8), "PE": (_a_pe, "beta", 0.5)}
A_FUNCTIONS = tuple(_A_SIMPLE) + tuple(_A_PARAM)


def a_function(spec: str | AFunction | Callable) -> AFunction:
    """Resolve an A-function specification: ``"ETG"``, ``"ERG"``, ``"ERR"``, ``"avg"``, ``"max"``,
    ``"fin"``, ``"fig(delta=0.8)"``, ``"PE(beta=0.5)"`` (an ``A_`` prefix is allowed, names are
    case-insensitive), an [`AFunction`][irframe.cwl.AFunction], or a callable ``fn(r, m) -> (G, D)``.

    Parameters
    ----------
    spec : str, AFunction or callable
        The specification.

    Returns
    -------
    AFunction

    Examples
    --------
    >>> from irframe.cwl import a_function
    >>> a_function("A_fig(delta=0.5)").name
    'fig(delta=0.5)'
    """
    if isinstance(spec, AFunction):
        return spec
    if callable(spec):
        return AFunction(getattr(spec, "__name__", "A"), spec)
    if not isinstance(spec, str):
        raise TypeError(
            f"an A function must be a string such as 'max' or a callable, got {type(spec).__name__}"
        )
    s = spec.strip()
    if s[:2] in ("A_", "a_"):
        s = s[2:]
    name, raw, cut = split_measure(s)
    lower = {k.lower(): k for k in list(_A_SIMPLE) + list(_A_PARAM)}
    key = lower.get(name.lower())
    if key is None:
        raise MeasureParamError(
            f"unknown A function {spec!r}; known: {', '.join(A_FUNCTIONS)} "
            f"(e.g. 'max', 'fig(delta=0.8)', 'PE(beta=0.5)')"
        )
    if cut is not None:
        raise MeasureParamError(f"{spec!r}: A functions take no @k")
    if key in _A_SIMPLE:
        if raw:
            raise MeasureParamError(f"{spec!r}: A_{key} takes no parameters")
        return _A_SIMPLE[key]
    make, pname, default = _A_PARAM[key]
    extra = set(raw) - {pname}
    if extra:
        raise MeasureParamError(
            f"{spec!r}: unknown parameter(s) {sorted(extra)}; A_{key} takes {pname}="
        )
    return make(raw.get(pname, default))
