"""irframe.dask on a real ``dask.distributed.LocalCluster`` (worker processes, memory limits).

References: trec_eval 9.0.8's expected outputs (tests/data/trec_eval) for the trec_eval sample
evaluated on the cluster; for every other layout the in-memory ``irframe.evaluate`` on the same
pandas frame (checked against trec_eval, cwl_eval and ndeval by the parity tests) — the cube
from the cluster must be *identical* to it.  The data are small (the cluster start-up dominates);
marked ``slow`` (CI runs it; ``-m "not slow"`` deselects it while iterating).  The out-of-core test
measures peak memory (``VmHWM``), not time.
"""

from __future__ import annotations

import os
import pickle
import warnings
from pathlib import Path

import pandas as pd
import pytest
import xarray as xr
from conftest import reference_module

dd = pytest.importorskip("dask.dataframe")
distributed = reference_module("distributed")  # part of the dask and test extras
import dask  # noqa: E402
from dask_ref import check_trec_eval_sample  # noqa: E402

import irframe as irf  # noqa: E402
import irframe.dask as idk  # noqa: E402

pytestmark = pytest.mark.slow

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "RBP(p=0.8)", "CWL(C=INST(T=2))", "Bpref"]
LARGE_GRAPH = "Sending large graph"


@pytest.fixture(scope="module")
def client():
    """Two worker processes, one thread each, 1 GiB each; the workers import the irframe under test."""
    root = str(Path(irf.__file__).resolve().parents[1])
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = root + (
        os.pathsep + old if old else ""
    )  # inherited by the worker processes
    try:
        with (
            dask.config.set({"distributed.worker.daemon": False}),
            distributed.LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                memory_limit="1GiB",
                dashboard_address=None,
                silence_logs=40,
            ) as cluster,
            distributed.Client(cluster) as c,
        ):
            yield c
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


@pytest.fixture(scope="module")
def collection():
    """4 systems × 9 topics × 40 docs; one system misses two topics, one judged topic nobody retrieved."""
    qrels, runs = irf.datasets.synthetic(4, 9, 40, rng=3)
    runs = runs[
        ~((runs.system == "sys1") & runs.topic.isin(["402", "405"])) & (runs.topic != "407")
    ]
    plain = runs.astype(dict.fromkeys(("system", "topic", "doc"), str)).reset_index(drop=True)
    return qrels, plain


def assert_same(got: xr.DataArray, want: xr.DataArray) -> None:
    xr.testing.assert_identical(got, want)
    assert got.attrs == want.attrs


def _by(runs: pd.DataFrame, col: str, groups: int) -> dd.DataFrame:
    """A Dask frame with each value of ``col`` in exactly one of ``groups`` partitions."""
    keys = sorted(runs[col].unique())
    parts = [runs[runs[col].isin(keys[i::groups])] for i in range(groups)]
    return dd.from_delayed([dask.delayed(p) for p in parts], meta=runs.iloc[:0])


def _layout(name: str, runs: pd.DataFrame, tmp_path: Path) -> tuple[dd.DataFrame, dict]:
    if name == "by-topic":
        return _by(runs, "topic", 3), {"partitioned_by": "topic"}
    if (
        name == "by-system-shuffled"
    ):  # one partition per run, re-partitioned by topic (Dask shuffle)
        return _by(runs, "system", 4), {}
    if name == "by-system-as-is":
        return _by(runs, "system", 4), {"partitioned_by": "system"}
    if name == "shuffled-rows":
        return dd.from_pandas(runs.sample(frac=1.0, random_state=1), npartitions=4), {}
    if name == "trec-files":
        for s in runs.system.unique():
            irf.io.write_run(runs[runs.system == s], tmp_path / f"input.{s}.gz")
        return idk.read_runs(str(tmp_path / "input.*.gz")), {}
    if name == "hive-parquet":  # one directory per topic; topic read back as strings (docs/dask.md)
        import pyarrow as pa

        runs.to_parquet(tmp_path / "runs", partition_cols=["topic"])
        schema = pa.schema([("topic", pa.string())])
        ddf = dd.read_parquet(
            tmp_path / "runs", dataset={"partitioning": {"flavor": "hive", "schema": schema}}
        )
        return ddf, {"partitioned_by": "topic"}
    raise AssertionError(name)


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize(
    "layout",
    [
        "by-topic",
        "by-system-shuffled",
        "by-system-as-is",
        "shuffled-rows",
        "trec-files",
        "hive-parquet",
    ],
)
def test_cluster_cube_is_the_in_memory_cube(client, collection, tmp_path, layout, complete):
    qrels, runs = collection
    ddf, opts = _layout(layout, runs, tmp_path)
    assert (
        dask.base.get_scheduler().__self__ is client
    )  # the cluster computes, not a local scheduler
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = irf.evaluate(ddf, qrels, MEASURES, complete=complete, depth=30, **opts)
    assert not [w for w in caught if LARGE_GRAPH in str(w.message)]
    want = irf.evaluate(runs, qrels, MEASURES, complete=complete, depth=30)
    assert_same(got, want)
    assert ("407" in got.topic.values) == complete


def test_lexi_and_rarity_on_the_cluster(client, collection, tmp_path):
    """The preference cube and the rarity table computed by the worker processes are the in-memory
    ones; rarity's reference= runs (larger than the large-graph threshold here) travel to the
    workers once, not inside the graph (the runs are read from parquet by the workers)."""
    qrels, runs = collection
    runs.sample(frac=1.0, random_state=2).to_parquet(tmp_path / "runs.parquet", row_group_size=150)
    ddf = dd.read_parquet(tmp_path / "runs.parquet", split_row_groups=True)
    assert_same(
        irf.lexi.lexirecall(ddf, qrels, complete=True),
        irf.lexi.lexirecall(runs, qrels, complete=True),
    )
    ref = runs[runs.system.isin(["sys0", "sys2"])]
    with (
        dask.config.set(
            {"distributed.admin.large-graph-warning-threshold": len(pickle.dumps(ref)) // 2}
        ),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        got = irf.rarity.rarity(ddf, qrels, k=10, reference=ref)
    assert not [w for w in caught if LARGE_GRAPH in str(w.message)], [
        str(w.message) for w in caught
    ]
    pd.testing.assert_frame_equal(got, irf.rarity.rarity(runs, qrels, k=10, reference=ref))


def test_hive_parquet_without_the_string_schema_is_not_ids(collection, tmp_path):
    """Why the recipe is needed: dask reads a hive partition key as a category of int32."""
    qrels, runs = collection
    runs.to_parquet(tmp_path / "runs", partition_cols=["topic"])
    ddf = dd.read_parquet(tmp_path / "runs")
    assert isinstance(ddf.dtypes["topic"], pd.CategoricalDtype)
    assert ddf.dtypes["topic"].categories.dtype.kind == "i"
    with pytest.raises(irf.errors.InputError, match="strings"):
        irf.evaluate(ddf, qrels, "AP", partitioned_by="topic")


def test_trec_eval_sample_on_the_cluster(client):
    """trec_eval 9.0.8's expected per-topic and summary values, computed by the worker processes."""
    check_trec_eval_sample(client.get)


def test_qrels_are_scattered_not_embedded_in_the_graph(client, tmp_path):
    """With the large-graph threshold below the qrels' size, evaluating runs read from files does
    not warn, while a graph that embeds the same qrels does (the control: the check can fail)."""
    qrels, runs = irf.datasets.synthetic(3, 60, 30, rng=4)
    runs = runs.astype(dict.fromkeys(("system", "topic", "doc"), str))
    runs.to_parquet(tmp_path / "runs.parquet", row_group_size=1000)
    threshold = len(pickle.dumps(qrels)) // 2
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": threshold}):
        with pytest.warns(UserWarning, match=LARGE_GRAPH):
            client.compute(dask.delayed(len)(qrels)).result()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = irf.evaluate(
                dd.read_parquet(tmp_path / "runs.parquet", split_row_groups=True),
                qrels,
                ["AP", "P@10"],
            )
    assert not [w for w in caught if LARGE_GRAPH in str(w.message)], [
        str(w.message) for w in caught
    ]
    assert_same(got, irf.evaluate(runs, qrels, ["AP", "P@10"]))


def test_split_topic_is_detected_before_any_partition_is_evaluated(collection, monkeypatch):
    """The cheap id pass finds a topic in two partitions; no partition is evaluated (synchronous
    scheduler, so that the spy sees every call)."""
    qrels, runs = collection
    calls = []
    monkeypatch.setattr(idk, "_evaluate_partition", lambda *a, **k: calls.append(1))
    with dask.config.set(scheduler="synchronous"):
        for opts in [{"partitioned_by": "topic"}, {"partitioned_by": "system"}]:
            with pytest.raises(idk.NotPartitionedError, match="more than one partition"):
                irf.evaluate(dd.from_pandas(runs, npartitions=3), qrels, "AP", **opts)
    assert not calls


def test_errors_come_back_with_their_type(client, collection):
    """An error raised on a worker (no common topic, found in the shuffle's graph; a NaN score
    inside a partition) reaches the caller as the in-memory error class."""
    qrels, runs = collection
    with pytest.raises(irf.errors.EmptyOverlapError, match="none in common"):
        irf.evaluate(
            dd.from_pandas(runs, npartitions=2),
            qrels.assign(topic=qrels.topic.astype(str) + "x"),
            "AP",
        )
    bad = runs.assign(score=runs.score.where(runs.index != 3))
    with pytest.raises(irf.errors.InputError, match="score"):
        irf.evaluate(dd.from_pandas(bad, npartitions=2), qrels, "AP")


IN_MEMORY = r"""
import pickle, sys, pandas as pd, pyarrow as pa, pyarrow.dataset as ds, irframe as irf
runs = pd.read_parquet(sys.argv[1], partitioning=ds.partitioning(pa.schema([("topic", pa.string())]), flavor="hive"))
cube = irf.evaluate(runs, pd.read_parquet(sys.argv[2]), sys.argv[3].split(","))
open(sys.argv[4], "wb").write(pickle.dumps(cube))
print([int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:")][0] * 1024)
"""


def _peak_bytes() -> int:
    """This process's peak resident set (VmHWM, Linux)."""
    return (
        next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:")) * 1024
    )


@pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="peak memory is read from /proc (Linux)"
)
def test_out_of_core_under_a_limit_the_in_memory_path_exceeds(tmp_path):
    """The small twin of benchmarks/bench_dask.py's 27.5 M-row run: 3 M rows (60 systems × 50 topics
    × 1000, string ids, tied scores) as hive parquet by topic. The in-memory path (read + evaluate,
    in a fresh process) peaks above 512 MiB; a LocalCluster whose workers are limited to 512 MiB each
    (the nanny restarts a worker above 95 % of it; none is restarted) evaluates the same files, every
    worker's peak stays under the limit, and the cube is identical."""
    import subprocess
    import sys

    limit = 512 * 2**20
    ms = ["AP", "nDCG@10", "P@10", "Rprec"]
    qrels, runs = irf.datasets.synthetic(60, 50, 1000, rng=0)
    runs.astype(dict.fromkeys(("system", "topic", "doc"), str)).to_parquet(
        tmp_path / "runs", partition_cols=["topic"]
    )
    qrels.astype(dict.fromkeys(("topic", "doc"), str)).to_parquet(tmp_path / "qrels.parquet")
    del runs
    env = {**os.environ, "PYTHONPATH": str(Path(irf.__file__).resolve().parents[1])}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            IN_MEMORY,
            str(tmp_path / "runs"),
            str(tmp_path / "qrels.parquet"),
            ",".join(ms),
            str(tmp_path / "cube.pkl"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    in_memory_peak = int(out.stdout.split()[-1])
    assert in_memory_peak > limit, f"the in-memory path peaked at {in_memory_peak / 2**20:.0f} MiB"

    import pyarrow as pa

    schema = pa.schema([("topic", pa.string())])
    ddf = dd.read_parquet(
        tmp_path / "runs", dataset={"partitioning": {"flavor": "hive", "schema": schema}}
    )
    with (
        dask.config.set({"distributed.worker.daemon": False}),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=limit,
            dashboard_address=":0",
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        c.run(lambda: __import__("irframe.dask"))
        pids = c.run(os.getpid)
        with dask.config.set(scheduler=c.get):
            got = irf.evaluate(
                ddf, pd.read_parquet(tmp_path / "qrels.parquet"), ms, partitioned_by="topic"
            )
        assert c.run(os.getpid) == pids  # no worker was restarted for its memory
        peaks = c.run(_peak_bytes)
    assert max(peaks.values()) < limit, {a: p / 2**20 for a, p in peaks.items()}
    assert_same(got, pickle.loads((tmp_path / "cube.pkl").read_bytes()))
