"""The benchmark scripts still import after refactors (their timings live in docs/performance.md).

A benchmark is not run here (no wall-clock in tests); importing it checks that every name it
takes from irframe still exists, so a refactor cannot silently break the scripts behind the
published figures.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCH.glob("bench_*.py"))


def test_there_are_benchmarks():
    assert len(SCRIPTS) >= 5


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_script_imports(script):
    spec = importlib.util.spec_from_file_location(f"_bench_{script.stem}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # module level only: main() is behind __main__
    assert callable(getattr(module, "main", None)), f"{script.name} has no main()"
