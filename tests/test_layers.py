"""The import layers of docs/internals.md, checked by import-linter (contracts in pyproject.toml).

The second test copies the package, adds one import that goes up a layer and checks that the
contracts catch it, so the first test cannot pass because the contracts check nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")

ROOT = Path(__file__).resolve().parents[1]


def _lint(package_parent: Path, config: Path) -> subprocess.CompletedProcess:
    code = (
        "import sys; from importlinter.cli import lint_imports; "
        f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True, no_logo=True))"
    )
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=package_parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_import_contracts_hold():
    out = _lint(ROOT, ROOT / "pyproject.toml")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def test_import_contracts_catch_an_upward_import(tmp_path):
    shutil.copytree(
        ROOT / "irframe", tmp_path / "irframe", ignore=shutil.ignore_patterns("__pycache__", "data")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    kernel = tmp_path / "irframe" / "measures" / "cwl.py"
    text = kernel.read_text()
    anchor = "from ..align import segment_sum\n"
    assert anchor in text
    kernel.write_text(
        text.replace(anchor, anchor + "from ..cwl import cwl as _upward  # noqa: F401\n", 1)
    )
    out = _lint(tmp_path, tmp_path / "pyproject.toml")
    assert out.returncode != 0
    assert "irframe.measures is not allowed to import irframe.cwl" in out.stdout


def test_every_module_has_its_layer_in_the_contract_and_the_docs_table():
    """Each module of the package is in one layer of the contract, and docs/internals.md's
    table names each of them in the contract's order (they had drifted: prefs and _lazy in
    neither, stats drawn above the families that import it)."""
    import re

    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    contract = [m.strip() for layer in layers for m in layer.split("|")]
    modules = sorted(
        p.stem if p.name != "__init__.py" else p.parent.name
        for p in (ROOT / "irframe").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    )
    assert sorted(contract) == modules
    text = (ROOT / "docs" / "internals.md").read_text()
    table = text[text.index("| layer (top to bottom)") : text.index("The contracts live in")]
    named = [m.rstrip("/") for m in re.findall(r"`(_?[a-z_]+(?:\.py|/))`", table)]
    named = [m[:-3] if m.endswith(".py") else m for m in named]
    assert sorted(set(named)) == modules
    first = {m: named.index(m) for m in modules}
    assert contract == sorted(contract, key=lambda m: first[m]), "table order"
