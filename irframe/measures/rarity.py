"""Registration of the rarity ("innovation") measures of seed 003; kernels in :mod:`irframe.rarity`.

=====================================  ==========================================================
measure string                         definition
=====================================  ==========================================================
``P_rare(alpha=α)@k``                  (1/k) Σ_{i<=k} Rel(d_i)(1 + α R(d_i))            (Eq. 1)
``AP_rare(alpha=α)[@k]``               (1/NR) Σ_{i<=k} Rel(d_i) P_rare@i                 (Eq. 3)
``P_rare_norm(alpha=α)@k``             (1/k) Σ_{i<=k} Rel(d_i)((1 − α) + α R'(d_i))      (Eq. 4)
``AP_rare_norm(alpha=α)[@k]``          (1/NR) Σ_{i<=k} Rel(d_i) P_rare_norm@i
=====================================  ==========================================================

``alpha`` is required (α = 0 gives P@k / AP exactly); the ``_norm`` forms need α in [0, 1].
``rel=`` overrides the evaluation's ``rel_level``.  The cutoff k is also the depth within
which a system counts as retrieving a document for S_d.  Option ``reference=`` (a run
frame) of :func:`irframe.evaluate` / ``.ir.metric`` takes S_d and S from other runs.
"""

from __future__ import annotations

import numpy as np

from .. import rarity as _rar
from .registry import REQUIRED, EvalContext, Measure, MeasureDef, parse_measure, register
from .trec import num_rel_topic


def _level(ctx: EvalContext, m: Measure) -> float:
    rel = m.param("rel")
    return ctx.options["rel_level"] if rel is None else rel


def _lookup(ctx: EvalContext, m: Measure) -> _rar.RarityLookup:
    ref = ctx.options.get("reference")
    level = _level(ctx, m)
    key = ("rarity_lookup", m.cutoff, level, id(ref) if ref is not None else None)
    return ctx.memo(key, lambda: _rar.rarity_lookup(ctx.aligned, k=m.cutoff, rel_level=level, reference=ref))


def _num_rel(ctx: EvalContext, level: float) -> np.ndarray:
    return num_rel_topic(ctx, level)[ctx.aligned.group_topic]


def _base(ctx: EvalContext, name: str, m: Measure, level: float) -> np.ndarray:
    """trec_eval's P@k / AP[@k] through its registered kernel (memoised with the context)."""
    base = parse_measure(f"{name}(rel={float(level)!r})" + ("" if m.cutoff is None else f"@{m.cutoff}"))
    return ctx.memo(("rarity_base", base.key), lambda: base.definition.compute(ctx, base))


def _p(normalized: bool):
    def compute(ctx: EvalContext, m: Measure) -> np.ndarray:
        level = _level(ctx, m)
        return _rar.p_rare(ctx.aligned, alpha=m.param("alpha"), k=m.cutoff, rel_level=level,
                           normalized=normalized, lookup=_lookup(ctx, m), base=_base(ctx, "P", m, level))
    return compute


def _ap(normalized: bool):
    def compute(ctx: EvalContext, m: Measure) -> np.ndarray:
        level = _level(ctx, m)
        return _rar.ap_rare(ctx.aligned, alpha=m.param("alpha"), k=m.cutoff, rel_level=level,
                            num_rel=_num_rel(ctx, level), normalized=normalized, lookup=_lookup(ctx, m),
                            base=_base(ctx, "AP", m, level))
    return compute


def _validate(normalized: bool):
    def check(params: dict) -> dict:
        a = params["alpha"]
        if isinstance(a, bool) or not isinstance(a, (int, float)) or not np.isfinite(a):
            raise ValueError(f"alpha must be a finite number, got {a!r}")
        if normalized and not 0 <= a <= 1:
            raise ValueError(f"alpha of the normalized rarity measures is a mixture weight in [0, 1], got {a!r}")
        params["alpha"] = float(a)
        rel = params.get("rel")
        if rel is not None and (isinstance(rel, bool) or not isinstance(rel, (int, float)) or not np.isfinite(rel)):
            raise ValueError(f"rel must be a number, got {rel!r}")
        return params
    return check


_COMMON = dict(family="rarity", options=frozenset({"reference"}))
register(MeasureDef("P_rare", _p(False), params={"alpha": REQUIRED, "rel": None}, cutoff="required",
                    validate=_validate(False), **_COMMON,
                    description="rarity-weighted precision (1/k) sum Rel(d)(1 + alpha R(d)) (Turkmen et al. Eq. 1)"))
register(MeasureDef("AP_rare", _ap(False), params={"alpha": REQUIRED, "rel": None}, cutoff="optional",
                    validate=_validate(False), **_COMMON,
                    description="rarity-weighted AP: (1/NR) sum Rel(d_i) P_rare@i (Turkmen et al. Eq. 3)"))
register(MeasureDef("P_rare_norm", _p(True), params={"alpha": REQUIRED, "rel": None}, cutoff="required",
                    validate=_validate(True), **_COMMON,
                    description="bounded mixture P'@k: (1/k) sum Rel(d)((1-alpha) + alpha R'(d)) (Eq. 4), in [0, 1]"))
register(MeasureDef("AP_rare_norm", _ap(True), params={"alpha": REQUIRED, "rel": None}, cutoff="optional",
                    validate=_validate(True), **_COMMON,
                    description="AP analogue of P_rare_norm: (1/NR) sum Rel(d_i) P_rare_norm@i, in [0, 1]"))
