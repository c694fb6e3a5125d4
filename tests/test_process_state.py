"""No process-wide state a user can trip over: joined frames and measure registration.

Expected numbers come from evaluating with the qrels passed explicitly (``qrels=``), which
does not involve the joined-frame machinery under test; these are property tests.
"""

from __future__ import annotations

import copy
import gc
import pickle
import weakref

import numpy as np
import pandas as pd
import pytest

import irframe as irf
from irframe.accessor import JoinedQrels
from irframe.errors import InputError
from irframe.measures import (
    MeasureDef,
    parse_measure,
    register,
    registered_measures,
    registry_scope,
    unregister,
)


def _frames(seed: int = 0):
    rng = np.random.default_rng(seed)
    runs = pd.DataFrame(
        {
            "system": np.repeat(["a", "b"], 20),
            "topic": np.tile(np.repeat(["1", "2"], 10), 2),
            "doc": [f"d{i}" for i in rng.integers(0, 30, 40)],
            "score": rng.random(40),
        }
    )
    runs = runs.drop_duplicates(["system", "topic", "doc"], ignore_index=True)
    qrels = pd.DataFrame(
        {
            "topic": np.repeat(["1", "2"], 15),
            "doc": [f"d{i}" for i in range(15)] * 2,
            "rel": rng.integers(0, 3, 30),
        }
    )
    return runs, qrels


def test_first_of_200_joined_frames_stays_usable_and_memory_is_freed():
    runs, qrels = _frames()
    first = runs.ir.join(qrels)
    held = weakref.ref(first.attrs["irframe.qrels"])
    expected = runs.ir.metric(["AP", "R@5"], qrels=qrels)
    others = []
    for i in range(200):
        q = qrels.assign(rel=(qrels.rel + i) % 3)
        others.append(
            weakref.ref(runs.ir.join(q).attrs["irframe.qrels"])
        )  # the joined frame is dropped
    gc.collect()
    assert sum(r() is not None for r in others) == 0  # nothing kept beyond the frames' lifetime
    got = first.ir.metric(["AP", "R@5"])
    np.testing.assert_array_equal(got.values, expected.values)
    # a filtered frame shares (does not copy) the remembered qrels and keeps the full recall base
    sub = first[first.system == "a"]
    assert sub.attrs["irframe.qrels"] is first.attrs["irframe.qrels"]
    np.testing.assert_array_equal(
        sub.ir.metric(["AP", "R@5"]).values, expected.sel(system=["a"]).values
    )
    del first, sub, got
    gc.collect()
    assert held() is None


def test_joined_qrels_survive_copies_and_pickling_but_not_json_attrs(tmp_path):
    runs, qrels = _frames(1)
    j = runs.ir.join(qrels)
    token = j.attrs["irframe.qrels"]
    assert isinstance(token, JoinedQrels) and isinstance(token, str)
    assert copy.deepcopy(j).attrs["irframe.qrels"] is token
    back = pickle.loads(pickle.dumps(j))
    np.testing.assert_array_equal(
        back.ir.metric("AP").values, runs.ir.metric("AP", qrels=qrels).values
    )
    pytest.importorskip("pyarrow")
    path = tmp_path / "j.parquet"
    j.to_parquet(path)
    loaded = pd.read_parquet(path)
    with pytest.raises(InputError, match="pass qrels="):
        loaded.ir.metric("AP")
    np.testing.assert_array_equal(
        loaded.ir.metric("AP", qrels=qrels).values, runs.ir.metric("AP", qrels=qrels).values
    )


def _zeros(ctx, m):
    return np.zeros(ctx.aligned.n_groups)


def test_registry_scope_restores_replaced_builtin_and_new_measures():
    before = registered_measures()
    ap = parse_measure("AP").definition
    with registry_scope():
        register(MeasureDef("AP", _zeros, description="zero"), replace=True)
        register(MeasureDef("Zero", _zeros), aliases=["zero_alias"])
        assert parse_measure("zero_alias").name == "Zero"
        assert parse_measure("AP").definition.compute is _zeros
    assert parse_measure("AP").definition is ap
    assert registered_measures() == before
    with pytest.raises(irf.UnknownMeasureError):
        parse_measure("zero_alias")


def test_registry_scope_restores_after_an_exception():
    before = registered_measures()
    with pytest.raises(RuntimeError), registry_scope():
        unregister("AP")
        raise RuntimeError("boom")
    assert registered_measures() == before


def test_unregister_removes_aliases_without_calling_anything():
    with registry_scope():
        register(MeasureDef("Zero2", _zeros), aliases=["z2", "zz2"])
        unregister("Zero2")
        for name in ("Zero2", "z2", "zz2"):
            with pytest.raises(irf.UnknownMeasureError):
                parse_measure(name)
