"""The trec_eval sample as a Dask frame through ``irframe.evaluate`` on a given scheduler, against trec_eval 9.0.8.

Shared by tests/test_dask.py (synchronous scheduler) and tests/test_dask_distributed.py (the
``LocalCluster``'s client), so both check the same thing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dask
import dask.dataframe as dd
import xarray as xr
from trec_ref import FIXTURES, compare, expected_counts, read_trec_eval_output

import irframe as irf

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"


def check_trec_eval_sample(scheduler: Any) -> None:
    """trec_eval 9.0.8's expected ``-q`` outputs (``out.test.aq``; ``out.test.aqcM`` with
    ``complete=True, depth=100``), per topic and summary, from the trec_eval sample split into 3
    partitions and evaluated by ``scheduler`` (a name, or a client's ``get``); and the cube is
    identical to the in-memory one."""
    for expected_name, run_name, options in [
        ("out.test.aq", "results.test", {}),
        ("out.test.aqcM", "results.trunc", {"complete": True, "depth": 100}),
    ]:
        expected = read_trec_eval_output(TREC / "expected_v9.0.8" / expected_name)
        fixture = FIXTURES[expected_name]
        names = list(fixture.measures)
        qrels = irf.read_qrels(TREC / "qrels.test")
        run = irf.read_run(TREC / run_name)
        with dask.config.set(scheduler=scheduler):
            cube = irf.evaluate(dd.from_pandas(run, npartitions=3), qrels, names, **options)
        counts, bad = compare(
            expected, cube, names, missing="zero" if options.get("complete") else "skip"
        )
        assert not bad, "\n".join(bad[:20])
        assert dict(counts) == expected_counts(fixture)
        want = irf.evaluate(run, qrels, names, **options)
        xr.testing.assert_identical(cube, want)
        assert cube.attrs == want.attrs
