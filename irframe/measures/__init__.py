"""Measure registry, parser and the measure families.

Importing this package registers every built-in family.  See
:mod:`irframe.measures.registry` for the kernel contract and how to add a measure.
"""

from .registry import (REQUIRED, EvalContext, Measure, MeasureDef, Param, get_definition, parse_measure,
                       parse_measures, register, register_alias_pattern, registered_measures,
                       registry_scope, unregister)
from ..errors import MeasureParamError, UnknownMeasureError

# each import registers one family's measures
from . import trec  # noqa: E402,F401
from . import cwl  # noqa: E402,F401
from . import diversity  # noqa: E402,F401
from . import lexi  # noqa: E402,F401
from . import rarity  # noqa: E402,F401
from . import ndpm  # noqa: E402,F401
from . import aliases  # noqa: E402,F401

__all__ = ["REQUIRED", "EvalContext", "Measure", "MeasureDef", "Param", "get_definition", "parse_measure",
           "parse_measures", "register", "register_alias_pattern", "registered_measures", "registry_scope",
           "unregister",
           "MeasureParamError", "UnknownMeasureError"]
