"""Packaging metadata: one version, SPDX licence, typed package, data files in the wheel.

The build itself (sdist + wheel with no warnings, ``twine check``, the wheel installed into a
fresh virtual environment, a smoke evaluation and ``irframe eval`` run from it) is a step of
``.ci/run``; these are the cheap static checks behind it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import irframe as irf

ROOT = Path(__file__).resolve().parents[1]
tomllib = pytest.importorskip("tomllib")


@pytest.fixture(scope="module")
def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_has_one_source(pyproject):
    project = pyproject["project"]
    assert "version" not in project and "version" in project["dynamic"]
    attr = pyproject["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "irframe._version.__version__"
    # setuptools reads the attribute statically: it must stay a literal assignment
    tree = ast.parse((ROOT / "irframe" / "_version.py").read_text(encoding="utf-8"))
    literal = [
        n.value.value
        for n in tree.body
        if isinstance(n, ast.Assign)
        and [t.id for t in n.targets if isinstance(t, ast.Name)] == ["__version__"]
        and isinstance(n.value, ast.Constant)
    ]
    assert literal == [irf.__version__]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{irf.__version__}]" in changelog


def test_licence_is_an_spdx_expression_with_its_files(pyproject):
    project = pyproject["project"]
    assert isinstance(project["license"], str)
    packaging_licenses = pytest.importorskip("packaging.licenses")
    canonical = packaging_licenses.canonicalize_license_expression(project["license"])
    assert canonical == project["license"]
    assert not any(c.startswith("License ::") for c in project["classifiers"])
    for name in project["license-files"]:
        assert (ROOT / name).is_file(), name
    assert "BSD 3-Clause" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_wheel_ships_py_typed_and_data(pyproject):
    data = pyproject["tool"]["setuptools"]["package-data"]["irframe"]
    assert "py.typed" in data and "data/*" in data
    assert (ROOT / "irframe" / "py.typed").is_file()
    assert "Typing :: Typed" in pyproject["project"]["classifiers"]
    requires = pyproject["build-system"]["requires"]
    assert any(r.replace(" ", "").startswith("setuptools>=") for r in requires)


@pytest.mark.slow
def test_a_type_checker_sees_the_lazily_imported_names(tmp_path):
    """``irf.read_qrels``, ``irf.stats`` ... are imported on first use (``__getattr__``);
    a type checker sees them as what they are, and a misspelt name is an error."""
    import subprocess
    import sys

    pytest.importorskip("mypy")
    user = tmp_path / "user.py"
    user.write_text(
        "import irframe as irf\n\nreveal_type(irf.read_qrels)\nreveal_type(irf.stats)\nirf.evalute\n"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--ignore-missing-imports",
            "--follow-imports=silent",
            str(user),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"MYPYPATH": str(Path(irf.__file__).parents[1]), "PATH": ""},
    ).stdout
    assert 'Module has no attribute "evalute"; maybe "evaluate"?' in out
    assert "def (path: " in out  # read_qrels' own signature, not Any
    assert 'Revealed type is "types.ModuleType"' in out
