"""The documentation site builds with ``mkdocs build --strict`` (broken links, missing
references and docstring problems fail) and contains the API reference and the notebooks.

Needs the ``docs`` extra (also part of the ``test`` extra); skips without mkdocs, fails
with ``CI=true`` (see ``conftest.reference_module``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import reference_module

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.docs
def test_mkdocs_build_strict(tmp_path):
    for module in (
        "mkdocs",
        "material",
        "mkdocstrings",
        "mkdocstrings_handlers.python",
        "mkdocs_jupyter",
    ):
        reference_module(module)
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    site = tmp_path / "site"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(site),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    # the API reference is generated from the docstrings
    api_pages = sorted(p.stem for p in (ROOT / "docs" / "api").glob("*.md") if p.stem != "index")
    assert {"irframe", "stats", "reporting", "schema", "io"} <= set(api_pages)
    for name in api_pages:
        html = (site / "api" / f"{name}.html").read_text(encoding="utf-8")
        assert "doc-heading" in html, f"api/{name}: no rendered object"
    core = (site / "api" / "irframe.html").read_text(encoding="utf-8")
    for text in ("rel_level", "Evaluate every system of", "A results table of a score cube"):
        assert text in core
    # every notebook and every page is rendered
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        assert (site / "notebooks" / f"{nb.stem}.html").is_file(), nb.name
    for page in (ROOT / "docs").glob("*.md"):
        want = site / f"{page.stem}.html"
        assert want.is_file(), page.name


# modules documented on api/irframe.md (the top-level functions) or internal to the CLI
_ON_THE_CORE_PAGE = {"accessor", "cube", "evaluate", "cli"}


def test_every_public_module_has_an_api_page():
    """A new module needs docs/api/<module>.md (``::: irframe.<module>``) and a nav entry."""
    modules = {p.stem for p in (ROOT / "irframe").glob("*.py") if not p.stem.startswith("_")}
    pages = {p.stem for p in (ROOT / "docs" / "api").glob("*.md")}
    missing = sorted(modules - pages - _ON_THE_CORE_PAGE)
    assert not missing, (
        f"no API page for {missing}: add docs/api/<name>.md and a line under 'API reference' in mkdocs.yml"
    )
    nav = (ROOT / "mkdocs.yml").read_text()
    assert all(f"api/{p}.md" in nav for p in pages), "every docs/api page is in the mkdocs.yml nav"


def test_test_extra_includes_the_docs_extra():
    """CI installs only ``.[test]``: the site build must not be skipped there."""
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert set(extras["docs"]) <= set(extras["test"])
