"""Shared pytest fixtures.

``shared_data`` finds the project's reference collections at ``<repo>/../shared/data``
(or ``$IRFRAME_SHARED_DATA``) and skips the test cleanly when they are absent, as in a
user's fresh clone.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TEST_DATA = Path(__file__).resolve().parent / "data"


def find_shared_data() -> Path | None:
    env = os.environ.get("IRFRAME_SHARED_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared" / "data")
    for c in candidates:
        if c.is_dir():
            return c
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ../shared/data; skips when it is not there."""
    path = find_shared_data()
    if path is None:
        pytest.skip("reference data ../shared/data not found (set IRFRAME_SHARED_DATA to run these tests)")
    return path
