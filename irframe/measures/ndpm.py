"""Registration of Yao's distance-based measures (seed 004); kernels in :mod:`irframe.ndpm`.

Measures (lower is better for the distances, higher for the others):

==========  ===========================================================  =========
name        definition                                                    range
==========  ===========================================================  =========
dpm         2C⁻ + Cᵘ, distance to the closest acceptable ranking (Eq. 19)  [0, 2C]
ndpm        dpm / 2C (Eq. 23)                                            [0, 1]
dpm_drf     distance reduction factor 1 − 2·ndpm (Eq. 26)                [−1, 1]
dpm_p       ranking-based precision C⁺/|≻s| (Eq. 55)                     [0, 1]
dpm_r       ranking-based recall C⁺/C (Eq. 56)                           [0, 1]
dpm_pa      acceptable-ranking precision |≻a∩≻s|/|≻s| (Eq. 61)           [0, 1]
dpm_ra      acceptable-ranking recall |≻a∩≻s|/|≻a| (Eq. 62)              [0, 1]
dpm_m       Marczewski–Steinhaus distance dpm/|≻a∪≻s| (Eq. 45)           [0, 1]
dpm_e       van Rijsbergen's distance dpm/(|≻a|+|≻s|) (Eq. 46, 64)       [0, 1]
==========  ===========================================================  =========

``@k`` treats only the first k documents as retrieved (the rest of the judged documents
tie at the bottom); ``rel=`` binarises the user ranking (grade >= rel vs the rest).
All measures of one evaluation share one pair count per (cutoff, rel).
"""

from __future__ import annotations

import numpy as np

from ..ndpm import measures_from_counts, pair_counts_aligned
from .registry import EvalContext, Measure, MeasureDef, register


def _counts(ctx: EvalContext, m: Measure) -> dict[str, np.ndarray]:
    rel = m.param("rel")
    key = ("dpm_measures", m.cutoff, rel)
    return ctx.memo(key, lambda: measures_from_counts(pair_counts_aligned(ctx.aligned, cutoff=m.cutoff, rel=rel)))


def _kernel(field: str):
    def compute(ctx: EvalContext, m: Measure) -> np.ndarray:
        return _counts(ctx, m)[field]
    compute.__name__ = f"_{field}"
    return compute


def _check(params: dict) -> dict:
    rel = params.get("rel")
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, (int, float)) or not np.isfinite(rel)):
        raise ValueError(f"rel must be a number (binarise grades at rel) or omitted, got {rel!r}")
    return params


_DEFS = {
    "ndpm": "Yao's normalized distance-based performance measure (2C- + Cu)/2C; lower is better",
    "dpm": "Yao's distance-based performance measure 2C- + Cu (pairs of judged documents)",
    "dpm_drf": "distance reduction factor 1 - 2*ndpm (Yao Eq. 26); 1 best, 0 random, -1 worst",
    "dpm_p": "ranking-based precision C+/|>s| (Yao Eq. 55)",
    "dpm_r": "ranking-based recall C+/C (Yao Eq. 56)",
    "dpm_pa": "ranking-based precision w.r.t. the closest acceptable ranking (Yao Eq. 61)",
    "dpm_ra": "ranking-based recall w.r.t. the closest acceptable ranking (Yao Eq. 62)",
    "dpm_m": "Marczewski-Steinhaus distance between acceptable and system rankings (Yao Eq. 45)",
    "dpm_e": "van Rijsbergen's normalized symmetric distance dpm/(|>a|+|>s|) (Yao Eq. 46)",
}
_ALIASES = {"ndpm": ("NDPM",), "dpm_drf": ("DRF",)}

for _name, _desc in _DEFS.items():
    register(MeasureDef(name=_name, compute=_kernel(_name), params={"rel": None}, cutoff="optional",
                        description=_desc, family="ndpm", validate=_check,
                        properties={"lower_is_better": _name in ("ndpm", "dpm", "dpm_m", "dpm_e")}),
             aliases=_ALIASES.get(_name, ()))
