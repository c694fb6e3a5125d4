"""The README quickstart and the conventions page run as written."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_blocks_run():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has a python quickstart"
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})


@pytest.mark.parametrize(
    "page", ["conventions.md", "uncertainty.md", "reproducibility.md", "rag.md"]
)
def test_docs_pages_doctest(page):
    result = doctest.testfile(
        str(ROOT / "docs" / page),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
    )
    assert result.attempted > 5
    assert result.failed == 0


# The topic pages' snippets assume a run frame and qrels are at hand; this prelude gives
# them small synthetic ones (the names the pages use).
PRELUDE = """
import irframe as irf
qrels, runs = irf.datasets.synthetic(4, 6, 50, rng=0)
gain_qrels = qrels.assign(rel=qrels.rel / qrels.rel.max())
first = str(runs.system.cat.categories[0])
my_run, pool_runs = runs[runs.system == first], runs[runs.system != first]
"""
PAGES = [
    "cwl.md",
    "io.md",
    "lexi.md",
    "ndpm.md",
    "rarity.md",
    "stats.md",
    "index.md",
    "coming-from.md",
    "report.md",
    "judgments.md",
    "trec_eval.md",
    "internals.md",
    "bad_input.md",
]


@pytest.mark.parametrize("page", PAGES)
def test_docs_page_snippets_run(page, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    text = (ROOT / "docs" / page).read_text()
    blocks = [
        b
        for b in re.findall(r"```python\n(.*?)```", text, flags=re.S)
        if not b.lstrip().startswith(">>>")
    ]
    assert blocks, page
    for code in blocks:
        exec(compile(PRELUDE + code, f"docs/{page}", "exec"), {"__name__": "__docs__"})
