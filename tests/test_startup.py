"""The command line's start-up: ``irframe eval`` imports only what the command needs, while
``import irframe`` in any other process binds every public name at once, as before.

Property tests (which modules a process imported, which objects the names are); the
outputs themselves are compared with trec_eval's in tests/test_cli.py and tests/test_prefs*.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from irframe.measures import FAMILY_MODULES

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "trec_eval"
GEN = DATA / "generated"

#: modules ``irframe eval`` (trec_eval's measures) never needs: the accessor, the reports,
#: the uncertainty tools, the qrels sets of ``evaluate``, and xarray
NEVER = ("irframe.accessor", "irframe.reporting", "irframe.uncertainty", "xarray")
#: modules the preference measures do not need either: irframe's evaluation, its cube, and
#: the measure families (they name no registered measure: irframe.measures.registry.on_first_use)
FAMILIES = tuple(
    f"irframe.measures.{m}" for m in (*FAMILY_MODULES, "cwl_functions", "diversity_kernels")
)
NOT_FOR_PREFS = ("irframe.evaluate", "irframe.cube", "irframe.qrelsets", *FAMILIES)


def _python(*args: str, **env: str) -> subprocess.CompletedProcess:
    """``python *args`` in the repository, this checkout's irframe first on the path and
    ``env`` added to the environment; the test fails when the process does."""
    r = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=str(REPO), **env),
    )
    assert r.returncode == 0, r.stderr
    return r


# A file named ``irframe`` is the command line's own process (irframe._lazy.command_line);
# it runs the command, then records what was imported and what the public names are.
_SCRIPT = """\
import json, os, sys, types
from irframe.cli import main
status = main()
modules = sorted(sys.modules)  # before the names below are resolved
import irframe
names = {}
for name in irframe.__all__:
    try:
        obj = getattr(irframe, name)
    except ImportError:  # an optional dependency
        names[name] = "ImportError"
        continue
    if isinstance(obj, types.ModuleType):
        names[name] = "module " + obj.__name__
    elif hasattr(obj, "__qualname__"):
        names[name] = obj.__module__ + "." + obj.__qualname__
    else:
        names[name] = repr(obj)
with open(os.environ["IRFRAME_TEST_REPORT"], "w") as f:
    json.dump({"status": status, "modules": modules, "names": names}, f)
"""


def _command(tmp_path: Path, *args: str) -> dict:
    script = tmp_path / "irframe"
    script.write_text(_SCRIPT)
    report = tmp_path / "report.json"
    _python(str(script), "eval", *args, IRFRAME_TEST_REPORT=str(report))
    return json.loads(report.read_text())


def _library_names(tmp_path: Path) -> dict:
    """Public name -> what it is, in a process that imports irframe as a library."""
    code = _SCRIPT.split("import irframe\n", 1)[1].replace(
        '{"status": status, "modules": modules, "names": names}', "names"
    )
    report = tmp_path / "names.json"
    _python("-c", "import json, os, types, irframe\n" + code, IRFRAME_TEST_REPORT=str(report))
    return json.loads(report.read_text())


def test_default_measures_import_only_what_they_need(tmp_path):
    got = _command(tmp_path, str(DATA / "qrels.test"), str(DATA / "results.test"))
    assert got["status"] == 0
    assert "irframe.treceval" in got["modules"]
    assert not [m for m in NEVER if m in got["modules"]]


def test_preference_measures_import_only_what_they_need(tmp_path):
    got = _command(
        tmp_path,
        "-R",
        "prefs",
        "-m",
        "all_prefs",
        "-q",
        str(GEN / "prefs.duplicates"),
        str(GEN / "prefs.duplicates.run"),
    )
    assert got["status"] == 0
    assert "irframe.prefs" in got["modules"]
    assert not [m for m in NEVER + NOT_FOR_PREFS if m in got["modules"]]


def test_public_names_are_the_same_objects_in_both_processes(tmp_path):
    """In the command's process every public name still resolves (on first use), to the
    object a library process binds at import: ``irframe.evaluate`` stays the function even
    though the submodule ``irframe.evaluate`` was imported after the package."""
    got = _command(tmp_path, str(DATA / "qrels.test"), str(DATA / "results.test"))
    assert "irframe.evaluate" in got["modules"]  # the submodule: imported by the command
    library = _library_names(tmp_path)
    assert got["names"] == library
    assert library["evaluate"] == "irframe.evaluate.evaluate"  # the function, not the module
    assert library["IrAccessor"] == "irframe.accessor.IrAccessor"
    assert library["stats"] == "module irframe.stats"


def test_library_import_binds_every_public_name():
    """``import irframe`` outside the command line imports everything as before: each public
    name is in the module's namespace (no __getattr__ on first use but for the documented
    lazy modules and readers), ``df.ir`` is registered, xarray is imported."""
    code = """
import sys, irframe, pandas as pd
lazy = set(irframe._LAZY) | set(irframe._IO)
unbound = [n for n in irframe.__all__ if n not in vars(irframe) and n not in lazy]
assert not unbound, unbound
assert callable(irframe.evaluate) and irframe.evaluate.__name__ == "evaluate"
assert hasattr(pd.DataFrame(), "ir")
for m in ("irframe.accessor", "irframe.reporting", "irframe.uncertainty", "xarray"):
    assert m in sys.modules, m
assert set(dir(irframe)) >= set(irframe.__all__)
"""
    _python("-c", code)


@pytest.mark.parametrize("how", ["-m", "script"])
def test_command_exit_status_and_output(tmp_path, how):
    """``python -m irframe`` and the console script (`irframe.__main__.run`) end the process
    with main's status once the output is flushed: nothing written is lost."""
    if how == "-m":
        cmd = [sys.executable, "-m", "irframe"]
    else:
        script = tmp_path / "irframe"
        script.write_text("from irframe.__main__ import run\nrun()\n")
        cmd = [sys.executable, str(script)]
    env = dict(os.environ, PYTHONPATH=str(REPO))

    def command(*args: str) -> subprocess.CompletedProcess:
        files = [str(DATA / "qrels.test"), str(DATA / "results.test")]
        return subprocess.run(
            [*cmd, "eval", *args, *files], capture_output=True, cwd=REPO, timeout=120, env=env
        )

    ok = command("-q", "-m", "all_trec")
    assert ok.returncode == 0
    expected = (DATA / "expected_v9.0.8" / "out.test.aq").read_bytes()
    assert ok.stdout == expected
    bad = command("-m", "no_such_measure")
    assert bad.returncode == 1
    assert b"illegal measure" in bad.stderr


# In the command's process the built-in families register on the registry's first use
# (irframe.measures.registry.on_first_use); whatever that first use is, the registry ends
# up as a library process has it.
_REGISTRY_STATE = """
import json, os, sys, threading
FIRST = os.environ["IRFRAME_TEST_FIRST"]
from irframe._process import command_line
from irframe.measures import registry as r
if FIRST == "scope":  # a scope's undo must not take the built-ins away
    with r.registry_scope():
        r.parse_measure("AP")
elif FIRST == "family":  # a family imported directly, before any lookup
    import irframe.measures.trec  # noqa: F401
elif FIRST == "threads":  # two threads looking up at once both see every measure
    found = []
    ts = [threading.Thread(target=lambda: found.append(r.parse_measure("nDCG@10").name))
          for _ in range(2)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert found == ["nDCG", "nDCG"], found
state = {
    "measures": list(r.registered_measures()),
    "aliases": sorted(r._ALIASES.items()),
    "patterns": [p.pattern for p, _ in r._ALIAS_PATTERNS],
    "command_line": command_line(),
}
with open(os.environ["IRFRAME_TEST_REPORT"], "w") as f:
    json.dump(state, f)
"""


def _registry_state(tmp_path: Path, first: str, command_line: bool) -> dict:
    script = tmp_path / ("irframe" if command_line else "library.py")
    script.write_text(_REGISTRY_STATE)
    report = tmp_path / f"registry-{first}-{command_line}.json"
    _python(str(script), IRFRAME_TEST_REPORT=str(report), IRFRAME_TEST_FIRST=first)
    return json.loads(report.read_text())


@pytest.mark.parametrize("first", ["lookup", "scope", "family", "threads"])
def test_command_line_registry_is_the_library_registry(tmp_path, first):
    library = _registry_state(tmp_path, "lookup", command_line=False)
    command = _registry_state(tmp_path, first, command_line=True)
    assert (library["command_line"], command["command_line"]) == (False, True)
    assert len(library["measures"]) > 50
    for key in ("measures", "aliases", "patterns"):  # same entries, same order
        assert command[key] == library[key], key


def test_command_line_package_resolves_every_name_before_any_command(tmp_path):
    """In the command's process, before any command ran, every public name (and
    ``irframe.measures``, which ``dir(irframe)`` lists) resolves, and ``df.ir`` is registered
    once the accessor's module is imported by its first use."""
    script = tmp_path / "irframe"
    script.write_text(
        "import irframe, sys\n"
        "assert 'irframe.accessor' not in sys.modules\n"
        "for name in sorted(set(dir(irframe)) - {'plot', 'dask'}):\n"
        "    getattr(irframe, name)\n"
        "import pandas as pd\n"
        "assert hasattr(pd.DataFrame(), 'ir')\n"
        "assert irframe.measures.parse_measure('P@5').cutoff == 5\n"
    )
    _python(str(script))
