"""Measure registry, parser and the measure families.

Importing this package registers every built-in family (in the command line's own process:
when the registry is first used, `irframe.measures.registry.on_first_use`, so that the
preference measures of ``irframe eval -R prefs``, which name no registered measure, never
import the families).  See `irframe.measures.registry` for the kernel contract and how to
add a measure.
"""

from .._process import command_line
from ..errors import MeasureParamError, UnknownMeasureError
from .registry import (
    REQUIRED,
    EvalContext,
    Measure,
    MeasureDef,
    Param,
    get_definition,
    on_first_use,
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


#: the modules whose import registers a family's measures (a new family's module goes here)
FAMILY_MODULES = ("aliases", "cwl", "diversity", "lexi", "ndpm", "rarity", "trec")


def _register_families() -> None:
    import importlib

    for name in FAMILY_MODULES:  # each import registers one family's measures
        importlib.import_module(f"{__name__}.{name}")


if command_line():
    on_first_use(_register_families)
else:
    _register_families()
