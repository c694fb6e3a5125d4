"""mkdocs hooks (``hooks:`` in mkdocs.yml).

- ``measures.md``, the measure catalogue, is generated at every build from
  ``irframe.list_measures()``: every registered measure and every column the registry
  gives, so it cannot drift from the code.
- The header shows the package version.
- A page in ``docs/`` that is not in the ``nav`` is appended under "User guide › More
  pages" (it still needs a proper place in ``nav``; nothing is ever unreachable).
- An API page ``docs/api/<module>.md`` may be just ``::: irframe.x`` (mkdocstrings renders
  the module's name as the page's title) or ``# `irframe.x` ``, an introduction, then
  ``::: irframe.x``: the Markdown title is then the one title and carries the module's
  anchor, and the module is rendered without a heading of its own.
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.irframe")

CATALOGUE = "measures.md"
# columns shown first, in this order; every other column the registry adds follows
_FIRST = ("description", "family", "params", "allowed", "cutoff", "aggregate", "better")
# family → (section title, guide page); a family not listed here gets its own name
_FAMILIES = {
    "trec_eval": ("trec_eval measures", "conventions.md"),
    "ir_measures": ("ir_measures measures", "trec_eval.md"),
    "ranx": ("ranx measures", "trec_eval.md"),
    "cwl": ("C/W/L and C/W/L/A", "cwl.md"),
    "diversity": ("Diversity (ndeval, RBU)", "diversity.md"),
    "lexi": ("Lexicographic", "lexi.md"),
    "ndpm": ("NDPM (Yao 1995)", "ndpm.md"),
    "rarity": ("Rarity", "rarity.md"),
}
_TITLES = {
    "params": "parameters (defaults)",
    "allowed": "allowed values",
    "cutoff": "cutoff @k",
    "aggregate": "over topics",
    "better": "best value",
    "expected": 'order="expected"',
    "order_safe": 'order="best" / "worst"',
    "bounds": "bounds=True",
    "topic_local": "topic by topic (Dask)",
    "system_local": "system by system (Dask)",
    "reference": "checked against",
}
# columns holding a measure's spelling in another tool: shown as code
_SPELLINGS = ("trec_eval", "ir_measures", "ranx", "cwl_eval", "ndeval", "pytrec_eval")


def _nav_pages(nav) -> set[str]:
    out: set[str] = set()
    if isinstance(nav, str):
        out.add(nav)
    elif isinstance(nav, dict):
        for v in nav.values():
            out |= _nav_pages(v)
    elif isinstance(nav, list):
        for v in nav:
            out |= _nav_pages(v)
    return out


def on_config(config, **kwargs):
    from irframe import __version__

    config["site_name"] = f"irframe {__version__}"
    docs = Path(config["docs_dir"])
    listed = _nav_pages(config["nav"])
    extra = sorted(
        p.relative_to(docs).as_posix()
        for p in docs.glob("*.md")
        if p.relative_to(docs).as_posix() not in listed
    )
    if extra:
        log.info("pages not in mkdocs.yml nav, shown under User guide › More pages: %s", extra)
        for section in config["nav"]:
            if isinstance(section, dict) and "User guide" in section:
                section["User guide"].append({"More pages": extra})
                break
    return config


_TITLE_THEN_ROOT = re.compile(
    r"\A# (?P<title>[^\n]*?)[ \t]*\n(?P<intro>(?:(?!::: ).*\n)*?)"
    r"::: (?P<ident>irframe[\w.]*)[ \t]*\n(?P<options>    options:[ \t]*\n)?"
)


def _own_title(m: re.Match) -> str:
    """``# title`` + ``::: irframe.x``: the Markdown title stays the page's one title (with
    the module's anchor) and mkdocstrings renders the module without a heading of its own."""
    title = m["title"] if "{#" in m["title"] else f"{m['title']} {{#{m['ident']}}}"
    return (
        f"# {title}\n{m['intro']}::: {m['ident']}\n    options:\n"
        "      show_root_heading: false\n      show_root_toc_entry: false\n"
        "      heading_level: 2\n"
    )


def on_page_markdown(markdown, page, **kwargs):
    src = page.file.src_uri
    if src.startswith("api/") and src not in ("api/index.md", "api/irframe.md"):
        return _TITLE_THEN_ROOT.sub(_own_title, markdown, count=1)
    return markdown


def _cell(value) -> str:
    """One value of the registry table as Markdown table-cell text."""
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        value = value.item()  # numpy scalars
    if value is None or (isinstance(value, float) and value != value) or str(value) == "<NA>":
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(_code(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_cell(v)}" for k, v in value.items())
    return _text(value)


# Markdown would read these as emphasis, code, links or table cells
_MD = str.maketrans({c: f"&#{ord(c)};" for c in "|*_`[]{}\\~^"})


def _text(value) -> str:
    """Registry text shown as it is: HTML-escaped, Markdown syntax neutralised."""
    return html.escape(str(value)).translate(_MD).replace("\n", " ")


def _code(value) -> str:
    text = _text(value)
    return f"<code>{text}</code>" if text else ""


def _anchor(name: str) -> str:
    return "measure-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in name)


def catalogue_markdown() -> str:
    import irframe as irf

    table = irf.list_measures()
    columns = [c for c in _FIRST if c in table.columns]
    columns += [c for c in table.columns if c not in columns]
    lines = [
        "# Measure catalogue",
        "",
        f"Every measure registered in irframe {irf.__version__} ({len(table)} measures), "
        "generated from [`irframe.list_measures()`][irframe.list_measures] when this site "
        "is built. A measure string is the name, optional parameters in parentheses and "
        "an optional cutoff: `nDCG@10`, `P(rel=2)@5`, `RBP(p=0.8)`; trec_eval, "
        "ir_measures, ranx and cwl_eval spellings are accepted too "
        "([measure syntax](trec_eval.md)). Register your own with "
        "[`irframe.register`][irframe.register].",
        "",
        "## At a glance",
        "",
        '<div class="irframe-catalogue" markdown>',
        "",
        "| measure | family | cutoff | description |",
        "|---|---|---|---|",
    ]
    for name, row in table.iterrows():
        lines.append(
            f"| [{_code(name)}](#{_anchor(name)}) | {_cell(row.get('family'))} | "
            f"{_cell(row.get('cutoff'))} | {_cell(row.get('description'))} |"
        )
    lines += [""]
    families = list(dict.fromkeys(table["family"])) if "family" in table else [None]
    for family in sorted(families, key=str):
        part = table if family is None else table[table["family"] == family]
        title, guide = _FAMILIES.get(family, (family or "Measures", None))
        lines += [f"## {title} {{#{family or 'measures'}}}", ""]
        if guide:
            lines += [f"The guide: [{title}]({guide}).", ""]
        for name, row in part.iterrows():
            lines += [f'<h3 id="{_anchor(name)}"><code>{html.escape(name)}</code></h3>', ""]
            for col in columns:
                if col == "family":
                    continue
                text = _cell(row[col])
                if not text:
                    continue
                if col == "description":
                    lines += [text, ""]
                elif col in _SPELLINGS and isinstance(row[col], str):
                    title = _text(f"{col} spelling")
                    lines.append(f"- **{title}**: {_code(row[col])}")
                else:
                    lines.append(f"- **{_text(_TITLES.get(col, col))}**: {text}")
            lines.append("")
    lines += ["</div>", ""]
    return "\n".join(lines) + "\n"


def on_files(files, config, **kwargs):
    from mkdocs.structure.files import File

    existing = files.get_file_from_path(CATALOGUE)
    if existing is not None:
        files.remove(existing)
    files.append(File.generated(config, CATALOGUE, content=catalogue_markdown()))
    return files
