"""Griffe extension (mkdocstrings ``extensions:`` in mkdocs.yml): a public function decorated
with ``irframe.options.takes_options`` is documented with the signature and docstring the
decorator gives it at run time, so the options of ``irframe.options.OPTIONS`` (declared once,
in that table) appear in its rendered parameters, as they do in ``help()``."""

from __future__ import annotations

import inspect

import griffe

_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword,
}


class TakesOptions(griffe.Extension):
    def on_function_instance(self, *, node, func: griffe.Function, agent, **kwargs) -> None:
        if not any("takes_options" in str(d.value) for d in func.decorators):
            return
        obj = griffe.dynamic_import(func.path)
        static = {p.name: p for p in func.parameters}
        params = []
        for p in inspect.signature(obj).parameters.values():
            if p.name in static:  # as written (annotations stay cross-referenced)
                params.append(static[p.name])
                continue
            default = None if p.default is inspect.Parameter.empty else repr(p.default)
            params.append(griffe.Parameter(p.name, kind=_KINDS[p.kind], default=default))
        func.parameters = griffe.Parameters(*params)
        if func.docstring is not None:
            func.docstring.value = inspect.getdoc(obj) or ""
