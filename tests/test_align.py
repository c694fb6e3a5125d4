"""The aligned arrays: (topic, doc) cell numbering on each of its three paths, and segment helpers,
checked against brute-force Python."""

from __future__ import annotations

import numpy as np
import pytest

import irframe.align as A


@pytest.mark.parametrize("one_topic_per_doc", [True, False])
@pytest.mark.parametrize("dense", [True, False])
def test_cells_number_each_topic_doc_pair_once(monkeypatch, one_topic_per_doc, dense):
    monkeypatch.setattr(A, "_DENSE_LOOKUP_MAX", 10**9 if dense else 1)
    rng = np.random.default_rng(7)
    T, D = 6, 50
    topic = rng.integers(0, T, 400)
    doc = topic * 8 + rng.integers(0, 8, 400) if one_topic_per_doc else rng.integers(0, D, 400)
    qkeys = np.unique(rng.integers(0, T, 80) * D + rng.integers(0, D, 80))
    cell, n_cells, q_cell = A._cells(topic, doc, D, T * D, qkeys)
    ids: dict = {}
    for pair, c in zip(zip(topic.tolist(), doc.tolist()), cell.tolist()):
        assert ids.setdefault(pair, c) == c          # one id per pair
    assert len(set(ids.values())) == len(ids)        # distinct pairs, distinct ids
    assert max(ids.values()) < n_cells
    for key, c in zip(qkeys.tolist(), q_cell.tolist()):
        assert c == ids.get(divmod(key, D), -1)      # qrels cells find the same ids, -1 if absent


def test_segment_helpers_against_python():
    rng = np.random.default_rng(3)
    lens = rng.integers(0, 6, 30)
    offsets = np.concatenate([[0], np.cumsum(lens)])
    x = rng.random(offsets[-1])
    segs = [x[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    np.testing.assert_allclose(A.segment_sum(x, offsets), [sum(s.tolist()) for s in segs], rtol=0, atol=1e-14)
    np.testing.assert_array_equal(A.segment_cumsum(x, offsets),
                                  np.concatenate([np.cumsum(s) for s in segs]))
    np.testing.assert_array_equal(A.segment_suffix_max(x, offsets),
                                  np.concatenate([np.maximum.accumulate(s[::-1])[::-1] for s in segs]))
    np.testing.assert_array_equal(A.segment_max(x, offsets, empty=-1.0),
                                  [s.max() if len(s) else -1.0 for s in segs])
