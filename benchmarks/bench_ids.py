"""Encoding ``object`` id columns as pandas reads them: irframe's identity-first encoding
against pandas' ``factorize`` on the values (irframe's previous encoding), in one process.

Usage::

    python benchmarks/bench_ids.py [--systems 50 --topics 50 --depth 1000] [--rounds 5]

Run it under pandas 2.2 (whose ``read_parquet`` and ``read_csv`` give ``object`` id columns)
as well as pandas 3 (where ``object`` frames come from ``astype(object)``).  The collection
is ``../shared/bench/gen.py``'s, written to parquet and CSV and read back with pandas; for
every id column it prints how many Python objects the column holds against its distinct
ids, whether irframe encodes it by identity first, and the median CPU time of alternating
rounds of both encoders (system and topic by runs, as ``evaluate`` does).  Both encoders'
codes are checked to be equal before timing.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from irframe import _ids

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import collection_args, load_gen


def by_value(values: np.ndarray, runs: bool):
    """pandas' factorize on the values; runs from comparing neighbouring values."""
    if runs:
        heads = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
        codes, uniques = pd.factorize(values[heads])
        return np.repeat(codes, np.diff(np.append(heads, len(values)))), uniques
    return pd.factorize(values)


def frames(runs: pd.DataFrame, work: Path) -> dict[str, pd.DataFrame]:
    runs.to_parquet(work / "runs.parquet")
    runs.to_csv(work / "runs.csv", index=False)
    out = {
        "read_parquet": pd.read_parquet(work / "runs.parquet"),
        "read_csv": pd.read_csv(work / "runs.csv", dtype={"topic": str}),
    }
    out = {k: v for k, v in out.items() if v.doc.dtype == object}
    if not out:  # pandas 3: str ids; object columns only from astype(object)
        out["read_parquet + astype(object)"] = pd.read_parquet(work / "runs.parquet").astype(
            dict.fromkeys(("system", "topic", "doc"), object)
        )
    return out


def main(argv=None) -> int:
    args = collection_args(argparse.ArgumentParser(description=__doc__.split("\n")[0])).parse_args(
        argv
    )
    _, runs = load_gen().make(args.systems, args.topics, args.depth, seed=0)
    runs = runs[["system", "topic", "doc", "score"]]
    print(f"pandas {pd.__version__}, numpy {np.__version__}; {len(runs):,} rows")
    with tempfile.TemporaryDirectory() as tmp:
        for how, df in frames(runs, Path(tmp)).items():
            print(f"\n{how}")
            for col in ("system", "topic", "doc"):
                values, is_runs = df[col].to_numpy(), col != "doc"
                new = _ids._object_encode(values, is_runs)
                old = by_value(values, is_runs)
                if not (np.array_equal(new[0], old[0]) and list(new[1]) == list(old[1])):
                    sys.exit(f"{how} {col}: the two encoders disagree; not timing")
                shared = _ids._shared_objects(np.asarray(_ids._Addresses(values)))
                times: dict[str, list[float]] = {"by value": [], "irframe": []}
                for _ in range(args.rounds):
                    for name, fn in (("by value", by_value), ("irframe", _ids._object_encode)):
                        gc.collect()
                        t = time.process_time()
                        fn(values, is_runs)
                        times[name].append(time.process_time() - t)
                old_t, new_t = (statistics.median(times[k]) for k in ("by value", "irframe"))
                print(
                    f"  {col:<6} {len({id(x) for x in values}):>9,} objects for {df[col].nunique():>7,} ids; "
                    f"identity first (non-runs): {shared!s:<5}  factorize by value {old_t * 1e3:6.1f} ms, "
                    f"irframe {new_t * 1e3:6.1f} ms, ratio {old_t / new_t:5.2f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
