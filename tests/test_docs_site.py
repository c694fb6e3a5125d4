"""The documentation site builds with ``mkdocs build --strict`` (broken links, unresolved
cross-references and docstring problems fail) and the built HTML is checked for what a
strict build does not see: raw Sphinx roles, garbled summary tables, notebook pages that
plot without an image, a registered measure missing from the measure catalogue.  The
landing page's printed output is checked against what its code prints.

Needs the ``docs`` extra (also part of the ``test`` extra); skips without mkdocs, fails
with ``CI=true`` (see ``conftest.reference_module``).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
from conftest import reference_module

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
API_PAGES = sorted(p.stem for p in (ROOT / "docs" / "api").glob("*.md") if p.stem != "index")

# a Sphinx role as it reaches the HTML: ":func:" followed by the backticked (code) target
RAW_ROLE = re.compile(
    r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|const|ref|doc|term):(?:`|<code)"
)
# a notebook cell that draws a figure
DRAWS = re.compile(r"plt\.subplots|plt\.figure|\bplot\.\w+\(|\.plot\(|\.plot\.\w+\(")
NOTEBOOK_IMAGE = re.compile(r'<img[^>]*src="data:image/(?:png|svg\+xml)')


def build_site(site: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            ROOT / "mkdocs.yml",
            "-d",
            site,
        ],
        cwd=site.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    for module in (
        "mkdocs",
        "material",
        "mkdocstrings",
        "mkdocstrings_handlers.python",
        "mkdocs_jupyter",
    ):
        reference_module(module)
    site = tmp_path_factory.mktemp("docs") / "site"
    proc = build_site(site)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return site


def _page(site: Path, name: str) -> str:
    return (site / f"{name}.html").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.docs
def test_mkdocs_build_strict(site):
    # the API reference is generated from the docstrings
    assert {"irframe", "stats", "reporting", "schema", "io"} <= set(API_PAGES)
    for name in API_PAGES:
        html = _page(site, f"api/{name}")
        assert "doc-heading" in html, f"api/{name}: no rendered object"
        # one title per page, no object rendered twice
        assert html.count("<h1") == 1, f"api/{name}: {html.count('<h1')} <h1> headings"
        ids = re.findall(r'<h[1-6] id="([^"]+)"', html)
        assert len(ids) == len(set(ids)), f"api/{name}: headings repeated"
    core = _page(site, "api/irframe")
    for text in ("rel_level", "Evaluate every system of", "A results table of a score cube"):
        assert text in core
    # public import paths in signatures, not the defining module's
    assert 'id="irframe.evaluate"' in core
    signatures = re.sub(r"<[^>]+>", "", core)
    assert "irframe.evaluate(" in signatures and "irframe.evaluate.evaluate(" not in signatures
    assert "df.ir.metric(" in signatures
    # every notebook and every page is rendered
    for nb in NOTEBOOKS:
        assert (site / "notebooks" / f"{nb.stem}.html").is_file(), nb.name
    for page in (ROOT / "docs").glob("*.md"):
        assert (site / f"{page.stem}.html").is_file(), page.name
    # opened from files: search works offline and links end in .html
    index = _page(site, "index")
    assert 'href="measures.html"' in index
    assert (site / "search" / "search_index.js").is_file() or "search_index" in index


@pytest.mark.slow
@pytest.mark.docs
def test_no_raw_sphinx_role_in_the_built_pages(site):
    """Docstrings use mkdocstrings cross-references (``[x][irframe.x]``), not Sphinx roles."""
    bad = {}
    for page in site.rglob("*.html"):
        found = RAW_ROLE.findall(page.read_text(encoding="utf-8"))
        if found:
            bad[str(page.relative_to(site))] = found[:3]
    assert not bad, f"raw Sphinx roles in the built site: {bad}"


def _tables(html: str):
    bs4 = reference_module("bs4")
    soup = bs4.BeautifulSoup(html, "html.parser")
    for table in soup.select("div.doc-contents table"):
        head = [th.get_text(" ", strip=True) for th in table.select("thead th")]
        rows = [
            [td.get_text(" ", strip=True) for td in tr.find_all("td")]
            for tr in table.select("tbody tr")
        ]
        yield head, rows


@pytest.mark.slow
@pytest.mark.docs
def test_api_summary_tables_are_clean(site):
    """Every table of the API pages (summaries, parameters, returns, raises) has a name
    (one identifier) in its first column and text in another: a prose line or a
    "name  description" pair crammed into the first cell is a garbled table."""
    one = r"\**[A-Za-z_][\w.]*(?:\(\))?"
    name = re.compile(rf"^{one}(?:, {one})*$")  # numpydoc allows "a, b : type"
    checked = 0
    for page in API_PAGES:
        for head, rows in _tables(_page(site, f"api/{page}")):
            if not head or head[0] != "Name":
                continue
            for row in rows:
                checked += 1
                assert name.match(row[0]), f"api/{page}: garbled {head} row {row}"
                assert any(cell for cell in row[1:]), f"api/{page}: empty row {row}"
    assert checked > 200
    # doctest lines outside an "Examples" section render as nested quotes, not code
    for page in API_PAGES:
        quoted = re.findall(
            r"<blockquote>\s*<blockquote>\s*<blockquote>", _page(site, f"api/{page}")
        )
        assert not quoted, f"api/{page}: '>>>' lines outside an Examples section"
    # a module page opens with one summary table per kind and one heading for the module
    stats = _page(site, "api/stats")
    assert stats.count('id="irframe.stats"') == 1
    assert ">compare<" in stats and "Functions:" in stats


def _object(path: str):
    """The Python object an API heading id names (``irframe.stats.compare``), or None."""
    import importlib

    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            obj = getattr(obj, part, None)
        return obj
    return None


@pytest.mark.slow
@pytest.mark.docs
def test_parameter_tables_show_the_signatures_defaults(site):
    """Every Default cell of an API parameter table is the signature's default: griffe gave
    every name of a numpydoc group ``a, b, c : type`` the first one's default, and took the
    first value of a choice set ``{"b", "a"}`` for the default (docs/griffe_options.py's
    SignatureDefaults corrects both)."""
    import inspect

    bs4 = reference_module("bs4")
    checked, wrong = 0, []
    for page in API_PAGES:
        soup = bs4.BeautifulSoup(_page(site, f"api/{page}"), "html.parser")
        for heading in soup.find_all(id=re.compile(r"^irframe[\w.]*$")):
            obj = _object(heading["id"])
            try:
                sig = inspect.signature(obj) if callable(obj) else None
            except (TypeError, ValueError):
                sig = None
            block = heading.find_next("div", class_="doc-contents")
            if sig is None or block is None:
                continue
            for table in block.find_all("table", recursive=True):
                title = table.find_previous("span", class_="doc-section-title")
                if title is None or title.get_text(strip=True) != "Parameters:":
                    continue
                if table.find_previous(id=re.compile(r"^irframe")) is not heading:
                    break  # a nested object's table
                for tr in table.select("tbody tr"):
                    cells = [td.get_text(" ", strip=True) for td in tr.find_all("td")]
                    name = cells[0].lstrip("*")
                    p = sig.parameters.get(name)
                    if p is None or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                        continue
                    if repr(p.default) == "<factory>":  # a dataclass field's default_factory
                        continue
                    checked += 1
                    shown = cells[-1]
                    if p.default is inspect.Parameter.empty:
                        ok = shown == "required"
                    else:
                        try:
                            ok = eval(shown, {"dict": dict}) == p.default  # our own page's text
                        except Exception:  # e.g. Fraction(1, 2): compare the text
                            ok = shown.replace(" ", "") == repr(p.default).replace(" ", "")
                    if not ok:
                        wrong.append((page, heading["id"], name, shown, repr(p.default)))
    assert checked > 500
    assert not wrong, wrong[:10]


@pytest.mark.slow
@pytest.mark.docs
def test_notebook_pages_show_their_plots(site):
    """A notebook cell that draws keeps its image (stored in the notebook: the site
    does not execute notebooks), and the notebook's page shows it."""
    nbformat = reference_module("nbformat")
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        drawing = [c for c in nb.cells if c.cell_type == "code" and DRAWS.search(c.source)]
        for cell in drawing:
            images = [
                o
                for o in cell.get("outputs", [])
                if any(k in o.get("data", {}) for k in ("image/png", "image/svg+xml"))
            ]
            assert images, (
                f"{path.name}: a cell draws but stores no image ({cell.source[:60]!r}); "
                "execute the notebook with the inline backend (not MPLBACKEND=Agg) and save it"
            )
        shown = len(NOTEBOOK_IMAGE.findall(_page(site, f"notebooks/{path.stem}")))
        assert shown >= len(drawing), (
            f"{path.name}: {len(drawing)} plots, {shown} images on its page"
        )


@pytest.mark.slow
@pytest.mark.docs
def test_gallery_shows_every_plot_function_with_its_code(site):
    from irframe import plot

    html = _page(site, "gallery")
    text = unescape(re.sub(r"<[^>]+>", "", html))
    assert "--8<--" not in text, "a snippet of docs/make_plots.py was not included"
    for name in plot.__all__:
        assert f"plot.{name}(" in text, f"gallery: no code calling plot.{name}"
        assert f'src="img/{name}.png"' in html, f"gallery: no image of plot.{name}"
        assert (ROOT / "docs" / "img" / f"{name}.png").is_file()


@pytest.mark.slow
@pytest.mark.docs
def test_catalogue_lists_every_registered_measure(site):
    import irframe as irf

    table = irf.list_measures()
    html = _page(site, "measures")
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    missing = [n for n in table.index if f'id="measure-{n}"' not in html]
    assert not missing, f"registered measures missing from the catalogue: {missing}"
    for name, row in table.iterrows():  # every value the registry gives is shown
        for column, value in row.items():
            words = str(value).split()[:3] if isinstance(value, str) else []
            assert all(w in text for w in words), (name, column, words)


def _landing_blocks() -> tuple[str, str]:
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    m = re.search(r"## In ten lines\n\n```python\n(.*?)```\n.*?```text\n(.*?)```", text, re.S)
    assert m, "docs/index.md: a python block followed by a text block of its output"
    return m.group(1), m.group(2)


def test_landing_page_output_is_what_the_code_prints():
    code, shown = _landing_blocks()
    assert len(code.strip().splitlines()) <= 12, "the landing example stays about ten lines"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/index.md", "exec"), {"__name__": "__docs__"})

    def lines(s: str) -> list[str]:
        return [line.rstrip() for line in s.strip("\n").splitlines()]

    assert lines(out.getvalue()) == lines(shown), (
        "docs/index.md shows output the code does not print; replace the text block with:\n"
        + out.getvalue()
    )


# modules documented on api/irframe.md (the top-level functions) or internal to the CLI
_ON_THE_CORE_PAGE = {"accessor", "cube", "evaluate", "cli"}


def test_every_public_module_has_an_api_page():
    """A new module needs docs/api/<module>.md (``::: irframe.<module>``) and a nav entry."""
    modules = {p.stem for p in (ROOT / "irframe").glob("*.py") if not p.stem.startswith("_")}
    pages = {p.stem for p in (ROOT / "docs" / "api").glob("*.md")} - {"index"}
    missing = sorted(modules - pages - _ON_THE_CORE_PAGE)
    assert not missing, (
        f"no API page for {missing}: add docs/api/<name>.md and a line under 'API' in mkdocs.yml"
    )
    nav = (ROOT / "mkdocs.yml").read_text()
    assert all(f"api/{p}.md" in nav for p in pages), "every docs/api page is in the mkdocs.yml nav"
    overview = (ROOT / "docs" / "api" / "index.md").read_text()
    unlisted = sorted(p for p in pages if f"({p}.md)" not in overview)
    assert not unlisted, f"docs/api/index.md: add a row for {unlisted}"


def test_test_extra_includes_the_docs_extra():
    """CI installs only ``.[test]``: the site build must not be skipped there."""
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert set(extras["docs"]) <= set(extras["test"])
