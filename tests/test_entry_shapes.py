"""Several judgment sets (``qrels={name: frame}``) work the same way in every family, through
the function and through ``df.ir``: each slice of the ``qrels`` dim (or each block of a table's
``qrels`` column) is what the family gives under that set alone, and ``judgments="common"``
is that on the (topic, doc) judgments every set shares, filtered here independently."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import irframe as irf
from irframe import cwl as cwl_mod
from irframe import lexi, rarity

QRELS, RUNS = irf.datasets.synthetic(3, 4, 15, rng=7)
OTHER = QRELS.sample(frac=0.7, random_state=1).assign(rel=lambda q: (q.rel + 1) % 3)
SETS = {"full": QRELS, "other": OTHER}

CASES = {
    "evaluate": (lambda r, q, **kw: irf.evaluate(r, q, ["AP", "P@5"], **kw), None),
    "cwl": (lambda r, q, **kw: cwl_mod.cwl(r, q, ["RBP@0.8"], gains="auto", **kw), "cwl"),
    "cwla_grid": (
        lambda r, q, **kw: cwl_mod.cwla_grid(r, q, ["RBP(p=0.8)"], ["ERG"], gains="auto", **kw),
        None,
    ),
    "lexirecall": (lambda r, q, **kw: lexi.lexirecall(r, q, **kw), "lexirecall"),
    "lexiprecision": (lambda r, q, **kw: lexi.lexiprecision(r, q, **kw), "lexiprecision"),
    "rarity": (lambda r, q, **kw: rarity.rarity(r, q, k=10, **kw), "rarity"),
    "rare_finds": (lambda r, q, **kw: rarity.rare_finds(r, q, k=10, **kw), None),
}


def _common(sets):
    keys = None
    for q in sets.values():
        k = set(zip(q.topic.astype(str), q.doc.astype(str), strict=True))
        keys = k if keys is None else keys & k
    return {
        n: q[[(t, d) in keys for t, d in zip(q.topic.astype(str), q.doc.astype(str), strict=True)]]
        for n, q in sets.items()
    }


def _slice(res, name):
    if isinstance(res, pd.DataFrame):
        part = res[res.qrels == name].drop(columns="qrels").reset_index(drop=True)
        return part
    return res.sel(qrels=name, drop=True)


def _same(got, want):
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want.reset_index(drop=True), check_dtype=False)
    else:
        got, want = xr.align(got, want, join="outer")
        if isinstance(want, xr.Dataset):
            for v in want.data_vars:
                np.testing.assert_array_equal(got[v].values, want[v].values)
        else:
            np.testing.assert_array_equal(got.values, want.values)


@pytest.mark.filterwarnings("ignore::irframe.errors.DegenerateMeasureWarning")
@pytest.mark.parametrize("family", sorted(CASES))
@pytest.mark.parametrize("judgments", ["each", "common"])
def test_every_family_takes_judgment_sets(family, judgments):
    fn, method = CASES[family]
    sets = SETS if judgments == "each" else _common(SETS)
    got = fn(RUNS, SETS, judgments=judgments)
    for name, q in sets.items():
        _same(_slice(got, name), fn(RUNS, q))
    if method is not None:  # the accessor hands the mapping to the same mechanism
        acc = {
            "cwl": lambda: RUNS.ir.cwl(["RBP@0.8"], SETS, gains="auto", judgments=judgments),
            "lexirecall": lambda: RUNS.ir.lexirecall(SETS, judgments=judgments),
            "lexiprecision": lambda: RUNS.ir.lexiprecision(SETS, judgments=judgments),
            "rarity": lambda: RUNS.ir.rarity(SETS, k=10, judgments=judgments),
        }[method]()
        _same(acc, got)
    assert got.attrs["judgments"] == judgments


ALIGNED_CASES = {
    "evaluate": lambda x, **kw: irf.evaluate(x, measures=["AP", "P@5", "nDCG@10"], **kw),
    "lexirecall": lexi.lexirecall,
    "lexiprecision": lexi.lexiprecision,
    "rrlp": lexi.rrlp,
    "rarity": lambda x, q=None, **kw: rarity.rarity(x, q, k=10, **kw),
    "rare_finds": lambda x, q=None, **kw: rarity.rare_finds(x, q, k=10, **kw),
    "pair_counts": irf.ndpm.pair_counts,
}


@pytest.mark.parametrize("family", sorted(ALIGNED_CASES))
def test_a_frame_or_aligned_arrays_one_function(family):
    """Every entry point takes a run frame with its qrels, or arrays aligned once (no
    ``*_aligned`` twin); alignment options cannot be combined with aligned arrays."""
    from irframe.align import align

    fn = ALIGNED_CASES[family]
    aligned = align(RUNS, QRELS)
    from_frames = fn(RUNS, QRELS) if family != "evaluate" else fn(RUNS, qrels=QRELS)
    _same(fn(aligned), from_frames)
    with pytest.raises(TypeError, match="aligned"):
        fn(aligned, QRELS) if family != "evaluate" else fn(aligned, qrels=QRELS)
    with pytest.raises(TypeError, match="aligned"):
        fn(aligned, depth=5)


def test_cwl_eval_names_are_an_explicit_dialect():
    """``RBP@0.8`` is p = 0.8 in cwl_eval's spelling (cwl()'s default dialect, CWL(C=...)) and a
    cutoff in irframe's grammar, where the cwl_eval spelling is refused with its irframe one."""
    from irframe.errors import MeasureParamError

    ds = cwl_mod.cwl(RUNS, QRELS, ["RBP@0.8", "INST-T=2"], gains="auto")
    same = cwl_mod.cwl(RUNS, QRELS, ["RBP(p=0.8)", "INST(T=2)"], gains="auto", dialect="irframe")
    np.testing.assert_array_equal(ds.EU.values, same.EU.values)
    with pytest.raises(MeasureParamError, match=r"write RBP\(p=0\.8\)"):
        cwl_mod.cwl(RUNS, QRELS, ["RBP@0.8"], gains="auto", dialect="irframe")
    with pytest.raises(MeasureParamError, match=r"write INST\(T=2\)"):
        irf.evaluate(RUNS, QRELS, "CWLA(C=INST-T=2,A=fin)")
    with pytest.raises(MeasureParamError, match=r"write RBP\(p=0\.8\)"):
        irf.evaluate(RUNS, QRELS, "CWLA(C=RBP@0.8,A=fin)")
    cube = irf.evaluate(RUNS, QRELS, ["CWL(C=RBP@0.8)", "CWL(C=RBP(p=0.8))"])
    np.testing.assert_array_equal(cube[..., 0].values, cube[..., 1].values)


@pytest.mark.filterwarnings("ignore::irframe.errors.DegenerateMeasureWarning")
@pytest.mark.parametrize("family", ["evaluate", "cwl", "cwla_grid"])
def test_replicate_runs_add_a_replicate_dim_in_every_cube_family(family):
    """A run frame with a replicate column (seeds): the ``replicate`` slice of each system is
    what the family gives on that seed's runs alone; with judgment sets as well, both dims."""
    fn = CASES[family][0]
    seeds = pd.concat(
        [RUNS.assign(seed=1), RUNS.assign(seed=2, score=lambda r: r.score[::-1].to_numpy())]
    )
    got = fn(seeds, QRELS, columns={"replicate": "seed"})

    def dims(x):  # a DataArray's, or a Dataset's (of its first variable)
        return x.dims if isinstance(x, xr.DataArray) else x[next(iter(x.data_vars))].dims

    assert dims(got)[:3] == ("system", "replicate", "topic")
    for seed, part in seeds.groupby("seed"):
        _same(got.sel(replicate=seed, drop=True), fn(part.drop(columns="seed"), QRELS))
    both = fn(seeds, SETS, columns={"replicate": "seed"})
    assert dims(both)[:3] == ("system", "replicate", "topic") and dims(both)[-1] == "qrels"
    _same(both.sel(qrels="other", drop=True), fn(seeds, OTHER, columns={"replicate": "seed"}))
