"""Measure registry, parser and the measure families.

Importing this package registers every built-in family.  See
`irframe.measures.registry` for the kernel contract and how to add a measure.
"""

from ..errors import MeasureParamError, UnknownMeasureError

# each import registers one family's measures
from . import (
    aliases,  # noqa: F401
    cwl,  # noqa: F401
    diversity,  # noqa: F401
    lexi,  # noqa: F401
    ndpm,  # noqa: F401
    rarity,  # noqa: F401
    trec,  # noqa: F401
)
from .registry import (
    REQUIRED,
    EvalContext,
    Measure,
    MeasureDef,
    Param,
    get_definition,
    parse_measure,
    parse_measures,
    register,
    register_alias_pattern,
    registered_measures,
    registry_scope,
    unregister,
)

__all__ = [
    "REQUIRED",
    "EvalContext",
    "Measure",
    "MeasureDef",
    "MeasureParamError",
    "Param",
    "UnknownMeasureError",
    "get_definition",
    "parse_measure",
    "parse_measures",
    "register",
    "register_alias_pattern",
    "registered_measures",
    "registry_scope",
    "unregister",
]
