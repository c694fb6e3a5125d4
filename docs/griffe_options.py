"""Griffe extension (mkdocstrings ``extensions:`` in mkdocs.yml): a public function decorated
with ``irframe.options.takes_options`` is documented with the signature and docstring the
decorator gives it at run time, so the options of ``irframe.options.OPTIONS`` (declared once,
in that table) appear in its rendered parameters, as they do in ``help()``."""

from __future__ import annotations

import inspect
import re

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


_SECTION = re.compile(r"^(\s*)(Parameters|Other Parameters)\n\1-{3,}\n", re.M)
_GROUP = re.compile(r"^(?P<indent>\s*)(?P<names>\*{0,2}\w+(?:, \*{0,2}\w+)+)(?P<rest>\s*:.*)?$")


def _split_groups(text: str) -> str:
    """Numpydoc's ``a, b, c : type`` items, one item a name: griffe gives every name of a
    group the first one's default (and, without a type, its annotation)."""
    lines, out, i = text.split("\n"), [], 0
    in_section, item_indent = False, None
    while i < len(lines):
        line = lines[i]
        header = _SECTION.match(line + "\n" + (lines[i + 1] if i + 1 < len(lines) else "") + "\n")
        if header:
            in_section, item_indent = True, header.group(1)
            out += lines[i : i + 2]
            i += 2
            continue
        if in_section and i + 1 < len(lines) and re.match(r"^\s*-{3,}$", lines[i + 1]):
            in_section = False  # the next section's header
        m = _GROUP.match(line) if in_section else None
        if m and m.group("indent") == item_indent:
            body = []
            j = i + 1
            while j < len(lines) and (
                not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > len(item_indent)
            ):
                if not lines[j].strip() and (
                    j + 1 >= len(lines)
                    or len(lines[j + 1]) - len(lines[j + 1].lstrip()) <= len(item_indent)
                ):
                    break
                body.append(lines[j])
                j += 1
            names = m.group("names").split(", ")
            inner = next(
                (b[: len(b) - len(b.lstrip())] for b in body if b.strip()), item_indent + "    "
            )
            for k, name in enumerate(names):
                out.append(f"{item_indent}{name}{m.group('rest') or ''}")
                out += body if k == 0 else [f"{inner}As ``{names[0]}``."]
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class SignatureDefaults(griffe.Extension):
    """Parameter tables whose Default column is the signature's: numpydoc's choice sets
    ``{"b", "a"}`` make griffe take the first choice for the default, and a group
    ``a, b : type`` gives every name the first one's default; both are split or corrected
    here, from the function's own signature."""

    def _fix(self, obj) -> None:
        doc = obj.docstring
        if doc is None or not doc.value:
            return
        doc.value = _split_groups(doc.value)
        try:
            params = {p.name: p for p in obj.parameters}
        except (AttributeError, TypeError):  # a class without an __init__ signature
            return
        sections = doc.parse("numpy", ignore_init_summary=True)
        for section in sections:
            if section.kind.value not in ("parameters", "other parameters"):
                continue
            for item in section.value:
                p = params.get(item.name.lstrip("*"))
                if p is not None and p.kind not in (
                    griffe.ParameterKind.var_positional,
                    griffe.ParameterKind.var_keyword,
                ):
                    item.value = p.default
        doc.__dict__["parsed"] = sections

    def on_function(self, *, func: griffe.Function, **kwargs) -> None:
        self._fix(func)

    def on_class(self, *, cls: griffe.Class, **kwargs) -> None:
        self._fix(cls)
