"""Every notebook in notebooks/ runs top to bottom (slow; run in CI).

Notebooks that read the reference collections (they mention ``shared/data`` or
``IRFRAME_SHARED_DATA``) are skipped when ``../shared/data`` is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import find_shared_data, reference_module

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _reads_shared(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return "shared/data" in text or "IRFRAME_SHARED_DATA" in text


PARAMS = [
    pytest.param(p, id=p.name, marks=[pytest.mark.shared] if _reads_shared(p) else [])
    for p in NOTEBOOKS
]


@pytest.mark.slow
@pytest.mark.parametrize("path", PARAMS)
def test_notebook_runs(path, tmp_path, monkeypatch):
    nbformat = reference_module("nbformat")
    nbclient = reference_module("nbclient")
    nb = nbformat.read(path, as_version=4)
    if _reads_shared(path):  # marked shared: skipped by conftest when the data is absent
        monkeypatch.setenv("IRFRAME_SHARED_DATA", str(find_shared_data()))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # raises CellExecutionError with the failing cell's traceback


def test_notebooks_exist():
    assert any(p.name == "quickstart.ipynb" for p in NOTEBOOKS)


def test_every_notebook_checks_what_its_text_says():
    """Each notebook asserts the numbers and claims of its text (so running it checks them)."""
    nbformat = reference_module("nbformat")
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        asserts = sum(
            line.lstrip().startswith(("assert ", "np.testing.assert"))
            for c in nb.cells
            if c.cell_type == "code"
            for line in c.source.splitlines()
        )
        assert asserts >= 2, f"{path.name} asserts nothing its text quotes"
