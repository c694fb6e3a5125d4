"""Shared pytest fixtures and helpers.

* ``shared_data`` finds the project's reference collections at ``<repo>/../shared/data``, or
  at ``$IRFRAME_SHARED_DATA`` when that is set (also when it names a missing folder: that is
  how CI hides the data, ``IRFRAME_SHARED_DATA=/nonexistent``). Every test that uses the
  fixture is marked ``shared`` automatically, so ``-m "not shared"`` deselects them; when the
  data is absent they skip with one clear reason, as in a user's fresh clone.
* ``reference_tool(name)`` / ``reference_module(name)`` find the reference tools (cwl-eval,
  perl, pytrec_eval, pyndeval, ir_measures, statsmodels, ...). A console script is looked
  up next to ``sys.executable`` (the virtual environment's ``bin/``) before ``PATH``. Outside
  CI a missing tool skips the test; with ``CI=true`` it fails, so a broken install can never
  pass CI by skipping the only checks of a measure.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TEST_DATA = Path(__file__).resolve().parent / "data"
SHARED_ENV = "IRFRAME_SHARED_DATA"
SHARED_MISSING = (
    "reference data ../shared/data not found (set IRFRAME_SHARED_DATA to run these tests)"
)


def find_shared_data() -> Path | None:
    """``$IRFRAME_SHARED_DATA`` if set (``None`` when it is not a folder), else ``../shared/data``."""
    env = os.environ.get(SHARED_ENV)
    path = Path(env) if env else REPO.parent / "shared" / "data"
    return path if path.is_dir() else None


def in_ci() -> bool:
    """True when the ``CI`` environment variable is set to a true value (as CI services do)."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes", "on"}


# Hypothesis: in CI the examples are derandomized (the same on every run), so a landing is
# judged on its code, not on the luck of the draw; locally each run explores new examples.
# Property/fuzz tests bound sizes instead of relying on per-example deadlines (a shared
# 2-core machine makes wall-clock deadlines flaky).
from hypothesis import HealthCheck as _HealthCheck  # noqa: E402
from hypothesis import settings as _hyp_settings  # noqa: E402

_hyp_settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[_HealthCheck.too_slow],
)
_hyp_settings.register_profile(
    "dev", deadline=None, print_blob=True, suppress_health_check=[_HealthCheck.too_slow]
)
_hyp_settings.load_profile("ci" if in_ci() else "dev")


def _missing(what: str) -> None:
    if in_ci():
        pytest.fail(
            f"{what} is missing; CI=true, so a missing reference tool is a failure, not a skip "
            '(install the test extra: python -m pip install -e ".[test]")',
            pytrace=False,
        )
    pytest.skip(f"{what} is not installed", allow_module_level=True)


def find_executable(name: str) -> str | None:
    """``name`` next to ``sys.executable`` (the venv's ``bin/`` or ``Scripts/``), else on ``PATH``."""
    here = Path(sys.executable).parent
    for cand in (here / name, here / f"{name}.exe", here / "Scripts" / f"{name}.exe"):
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    return shutil.which(name)


def reference_tool(name: str) -> str:
    """Path of the executable ``name``; skips when it is absent (fails when ``CI=true``)."""
    exe = find_executable(name)
    if exe is None:
        _missing(f"reference tool {name!r} (looked next to {sys.executable} and on PATH)")
    return exe


def reference_module(name: str):
    """``importlib.import_module(name)``; skips when it is absent (fails when ``CI=true``)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        _missing(f"reference module {name!r} ({exc})")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ../shared/data; skips when it is not there."""
    path = find_shared_data()
    if path is None:
        pytest.skip(SHARED_MISSING)
    return path


def pytest_collection_modifyitems(config, items):
    shared = find_shared_data()
    for item in items:
        if "shared_data" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.shared)
        if shared is None and item.get_closest_marker("shared") is not None:
            item.add_marker(
                pytest.mark.skip(reason=SHARED_MISSING), append=False
            )  # before any other skip
