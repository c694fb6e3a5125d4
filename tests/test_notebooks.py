"""Every notebook in notebooks/ runs top to bottom (slow; run in CI).

Notebooks that read the reference collections (they mention ``shared/data`` or
``IRFRAME_SHARED_DATA``) are skipped when ``../shared/data`` is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import find_shared_data

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(path, as_version=4)
    source = "\n".join(c.source for c in nb.cells)
    shared = find_shared_data()
    if ("shared/data" in source or "IRFRAME_SHARED_DATA" in source):
        if shared is None:
            pytest.skip(f"{path.name} reads ../shared/data, which is absent")
        monkeypatch.setenv("IRFRAME_SHARED_DATA", str(shared))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError with the failing cell's traceback


def test_notebooks_exist():
    assert any(p.name == "quickstart.ipynb" for p in NOTEBOOKS)
