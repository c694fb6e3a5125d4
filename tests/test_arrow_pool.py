"""irframe's arrow buffers come from its own pool (irframe._arrow.POOL, the system allocator).

Property tests of where memory comes from (no number to check against a reference): the
pool's allocated bytes grow by at least the size of the buffers irframe keeps.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")

from irframe import _ids, _textfile  # noqa: E402
from irframe._arrow import POOL  # noqa: E402


def test_the_pool_is_the_system_allocator():
    assert POOL.backend_name == "system"


def test_run_reader_columns_live_in_the_pool():
    n = 20_000
    data = "".join(
        f"{i // 1000} Q0 doc{i} {i % 1000 + 1} {1.0 / (i + 1)!r} tag\n" for i in range(n)
    ).encode()
    before = POOL.bytes_allocated()
    cols = _textfile.read_run_columns(data, "run.txt", want_tag=False, threads=False)
    held = POOL.bytes_allocated() - before
    # the score and rank columns alone are 8 bytes per row each, plus the doc strings
    assert held >= 16 * n, held
    assert cols["n"] == n


def test_id_encoding_lives_in_the_pool():
    n = 50_000
    ids = pd.Series([f"document-{i:07d}" for i in range(n)], dtype="string[pyarrow]")
    before = POOL.bytes_allocated()
    codes, uniques = _ids._encode_one(ids, runs=False)
    held = POOL.bytes_allocated() - before
    assert held >= 16 * n, held  # the dictionary of n distinct 16-byte ids
    np.testing.assert_array_equal(codes, np.arange(n))
    assert uniques[0].as_py() == "document-0000000"
