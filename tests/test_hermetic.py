"""Tests, docs and notebooks read nothing outside the repository, ``../shared`` and ``tmp_path``.

The one place a machine-specific path can hide is the text itself: a snippet that reads
``/tmp/bench50/runs`` passes only on the machine where that folder was once made. This test
scans every text file under ``docs/``, ``notebooks/`` (sources *and* stored outputs), ``tests/``
and ``README.md`` for absolute paths outside the repository (temporary and home folders,
this machine's work folders, Windows user folders) and for the calls that build them
(``tempfile.gettempdir()``, ``Path.home()``, ``expanduser``). Data for snippets is made by
the snippet itself (``irframe.datasets`` or files written under a temporary folder it creates).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = [ROOT / "README.md", ROOT / "docs", ROOT / "notebooks", ROOT / "tests"]
TEXT_SUFFIXES = {
    ".md",
    ".py",
    ".ipynb",
    ".txt",
    ".cfg",
    ".toml",
    ".yml",
    ".yaml",
    ".json",
    ".csv",
    ".tsv",
    "",
}

# Absolute POSIX roots that are never part of a fresh clone (a path must start after a
# non-path character, so "../shared/data" or "a/tmp/b" do not match).
_POSIX_ROOTS = (
    "tmp",
    "var/folders",
    "var/tmp",
    "private/var",
    "private/tmp",
    "work",
    "root",
    "home",
    "Users",
    "mnt",
    "scratch",
    "opt",
    "srv",
)
PATTERNS = {
    "absolute POSIX path outside the repository": re.compile(
        r"(?<![\w./~-])/(?:" + "|".join(re.escape(r) for r in _POSIX_ROOTS) + r")(?=[/\\\"'`\s)]|$)"
    ),
    "Windows absolute path": re.compile(
        r"(?<![\w])[A-Za-z]:(?:\\\\?|/)(?:Users|Temp|Windows|Documents)", re.I
    ),
    "home-relative path": re.compile(r"(?<![\w.])~/|\$HOME\b|%USERPROFILE%|%TEMP%"),
    "machine-dependent folder (use tmp_path or make the data in the snippet)": re.compile(
        r"gettempdir\s*\(|Path\.home\s*\(|expanduser\s*\("
    ),
}


def _files():
    for base in SCANNED:
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for p in paths:
            if p == Path(__file__).resolve() or "__pycache__" in p.parts:
                continue
            if p.suffix in TEXT_SUFFIXES:
                yield p


def find_absolute_paths(text: str) -> list[tuple[int, str, str]]:
    """``(line, what, excerpt)`` for every machine-specific path named in ``text``."""
    hits = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for what, pat in PATTERNS.items():
            m = pat.search(line)
            if m:
                hits.append((lineno, what, line.strip()[:160]))
    return hits


@pytest.mark.parametrize(
    "snippet",
    [
        'runs = irf.read_runs("/tmp/bench50_io/runs/*.txt")',
        "see /var/folders/xy/T/run.txt",
        "DATA = '/work/shared/data'",
        "open('/home/alice/qrels')",
        r"C:\Users\alice\runs",
        "Path(tempfile.gettempdir()) / 'bench50'",
        "~/data/qrels.txt",
    ],
)
def test_detector_flags_machine_paths(snippet):
    assert find_absolute_paths(snippet)


@pytest.mark.parametrize(
    "snippet",
    [
        "../shared/data/robust03",
        "Path(os.environ['IRFRAME_SHARED_DATA'])",
        "tmp_path / 'run.txt'",
        "docs/img/plot.png",
        "https://example.org/tmp/x",
        "a/tmp/b",
        "python -m pytest",
    ],
)
def test_detector_accepts_repo_relative_paths(snippet):
    assert not find_absolute_paths(snippet)


def test_docs_notebooks_tests_name_no_path_outside_the_repository():
    bad = []
    for p in _files():
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for lineno, what, excerpt in find_absolute_paths(text):
            bad.append(f"{p.relative_to(ROOT)}:{lineno}: {what}: {excerpt}")
    assert not bad, (
        "these files name paths that exist only on some machine; read from the repo, "
        "../shared ($IRFRAME_SHARED_DATA) or tmp_path instead:\n" + "\n".join(bad)
    )
