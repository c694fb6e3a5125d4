"""Rarity ("innovation") of relevant documents and the rarity-weighted measures (Turkmen et al., ECIR 2023).

Türkmen, Lease & Kutlu, *New Metrics to Encourage Innovation and Diversity in Information
Retrieval Approaches* (ECIR 2023, doi:10.1007/978-3-031-28238-6_16).
For a relevant document d of a topic:

* ``S_d`` — the number of systems that retrieve d **within their top k** (the same
  cutoff as the measure, as in the authors' code), ``S`` — the number of systems in the
  frame (or in the ``reference=`` frame, see below);
* rarity ``R(d) = 1 − S_d/S`` (Eq. 2) and the normalised ``R'(d) = 1 − (S_d − 1)/(S − 1)``
  (§5.2), clipped to [0, 1].  ``R'`` is 1 for a document only one system found and 0
  for one every system found (the paper's "maximized when S_d = S" is a slip: that is
  where it is minimised); with a single system ``R' = 1``.

A relevant document no system retrieved within k has ``S_d = 0``: its rarity is
``R = 1`` (and ``R' = 1``).  It cannot affect a system in the frame, but it does when
the rarity comes from a ``reference=`` frame and the evaluated run finds what no
reference system found — then ``P_rare`` can reach 2 at α = 1 (closed bound).

Measures (registered in `irframe.measures.rarity`), with ``Rel`` = trec_eval
relevance (truncated grade >= ``rel``/``rel_level``):

* ``P_rare(alpha=α)@k = (1/k) Σ_{i<=k} Rel(d_i)(1 + α R(d_i))`` (Eq. 1) — divides by
  k even for runs shorter than k;
* ``AP_rare(alpha=α)@k = (1/NR) Σ_{i<=k} Rel(d_i) P_rare@i`` (Eq. 3), NR = relevant
  documents of the topic in the qrels; the rarity inside ``P_rare@i`` is the one of
  cutoff k.  Without ``@k`` the whole ranking is used (S_d counts any depth);
* ``P_rare_norm(alpha=α)@k = (1/k) Σ Rel(d_i)((1 − α) + α R'(d_i))`` (Eq. 4 with R',
  α ∈ [0, 1], value in [0, 1]) and its AP analogue ``AP_rare_norm``.

With α = 0 they equal ``P@k`` and ``AP@k`` (``AP`` without cutoff) bit for bit.

The measures follow the contract of every family -- align → kernel → result: measure
strings through [`irframe.evaluate`][irframe.evaluate] (of frames, or of arrays aligned once for the
table too).  [`p_rare`][irframe.rarity.p_rare] and [`ap_rare`][irframe.rarity.ap_rare], re-exported here,
are the kernels: per-group arrays from explicit inputs (the S_d ``lookup`` and the
``base`` P@k / AP), building no evaluation of their own.

``reference=`` (a run frame with the default column names) takes ``S_d`` and ``S``
from other runs — e.g. the pool's runs of a campaign when scoring a new run (the
reusability question of §5.4).  The reference is ordered and truncated with the same
``order``/``depth``/``judged_only`` as the evaluated runs.

Examples
--------
>>> import pandas as pd, irframe as irf
>>> qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b", "c"], "rel": [1, 1, 0]})
>>> runs = pd.DataFrame({"system": ["s1", "s1", "s2", "s2"], "topic": "1",
...                      "doc": ["a", "b", "a", "c"], "score": [2.0, 1.0, 2.0, 1.0]})
>>> rarity(runs, qrels, k=2)
  topic doc  rel  S_d  S  rarity  rarity_norm
0     1   a  1.0    2  2     0.0          0.0
1     1   b  1.0    1  2     0.5          1.0
>>> cube = irf.evaluate(runs, qrels, ["P@2", "P_rare(alpha=1)@2"])
>>> cube.sel(topic="1").values.tolist()   # systems s1, s2 x measures P@2, P_rare
[[1.0, 1.25], [0.5, 0.5]]
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._backend import by_backend
from .align import Aligned, align
from .errors import InputError, OptionError
from .measures.rarity import (
    RarityLookup,
    ap_rare,
    check_k,
    p_rare,
    rarity_lookup,
    relevant_mask,
    retrieved_relevant_rows,
)
from .options import Options, check_rel_level, takes_options
from .qrelsets import over_qrels

__all__ = [
    "RarityLookup",
    "ap_rare",
    "p_rare",
    "rare_finds",
    "rarity",
    "rarity_lookup",
]


# --------------------------------------------------------------------------- tables
def _rarity_table(
    aligned: Aligned,
    *,
    k: int | None = 100,
    rel_level: float = 1,
    reference: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """[`rarity`][irframe.rarity.rarity] of aligned arrays (one row per relevant judged document)."""
    a = aligned
    look = rarity_lookup(a, k=k, rel_level=rel_level, reference=reference)
    q = np.flatnonzero(relevant_mask(a.qrels_rel, check_rel_level(rel_level)))
    t, d = a.qrels_topic[q], a.qrels_doc[q]
    o = np.lexsort((d, t))  # topic, then doc code (first-seen order of the ids)
    q, t, d = q[o], t[o], d[o]
    s_d = look.s_d(t, d)
    out = pd.DataFrame(
        {
            "topic": a.topics[t].to_numpy(),
            "doc": a.judged_docs[d],
            "rel": a.qrels_rel[q],
            "S_d": s_d,
            "S": np.full(len(q), look.n_systems, dtype=np.int64),
            "rarity": look.rarity(s_d),
            "rarity_norm": look.rarity_norm(s_d),
        }
    )
    return out.sort_values(["topic", "doc"], kind="stable", ignore_index=True)


@by_backend
@takes_options("align", "rel_level")
def rarity(
    runs: pd.DataFrame | Aligned,
    qrels: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None,
    *,
    k: int | None = 100,
    reference: pd.DataFrame | None = None,
    judgments: str = "each",
    opts: Options,
) -> pd.DataFrame:
    """Rarity of every relevant document: how many systems found it in their top k.

    Parameters
    ----------
    runs : pandas.DataFrame or Aligned
        Long run frame ``system, topic, doc, score[, rank]``, or arrays aligned with their
        qrels ([`irframe.align.align`][irframe.align.align]; ``qrels`` None, the alignment options its own).
    qrels : pandas.DataFrame or mapping of str to pandas.DataFrame
        ``topic, doc, rel``; or several judgment sets ``{name: frame}``: each set is used
        on its own and the tables are stacked with a leading ``qrels`` column.
    k : int or None, default 100
        A system *retrieves* d when d is in its top k; None = at any depth.
    reference : pandas.DataFrame, optional
        Take S_d and S from these runs instead (default column names).
    judgments : {"each", "common"}, default "each"
        With several judgment sets: the policy for documents judged in only some of them
        (see [`irframe.qrelsets`][irframe.qrelsets]).

    Returns
    -------
    pandas.DataFrame
        One row per relevant document of each evaluated topic, sorted by (topic, doc):
        ``topic, doc, rel, S_d, S, rarity, rarity_norm``; ``S_d = 0`` (rarity 1) for a
        relevant document no system retrieved within k.  With several judgment sets, a
        leading ``qrels`` column and the sets in the mapping's order.

    See Also
    --------
    - [`df.ir.rarity`][irframe.IrAccessor.rarity]: the accessor form.
    - [`irframe.dask`][irframe.dask]: ``runs`` may be a Dask frame (the same table).
    - [`rare_finds`][irframe.rarity.rare_finds]: the rare documents each system found.
    - [`evaluate`][irframe.evaluate] with ``"P_rare(alpha=...)@k"``, ``"AP_rare"``: rarity-weighted measures.
    - [Rarity](../rarity.md): the guide.

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b", "z"], "rel": [1, 2, 1]})
    >>> runs = pd.DataFrame({"system": ["s1", "s2", "s2"], "topic": "1", "doc": ["a", "a", "b"],
    ...                      "score": [1.0, 2.0, 1.0]})
    >>> rarity(runs, qrels, k=10)[["doc", "S_d", "rarity"]].values.tolist()
    [['a', 2, 0.0], ['b', 1, 0.5], ['z', 0, 1.0]]
    >>> two = rarity(runs, {"full": qrels, "no_b": qrels[qrels.doc != "b"]}, k=10)
    >>> two[["qrels", "doc", "S_d"]].values.tolist()
    [['full', 'a', 2], ['full', 'b', 1], ['full', 'z', 0], ['no_b', 'a', 2], ['no_b', 'z', 0]]
    """
    rel_level = opts.rel_level

    def one(q: pd.DataFrame) -> pd.DataFrame:
        a = _given(runs, q, opts)
        return _rarity_table(a, k=k, rel_level=rel_level, reference=reference)

    return over_qrels(one, qrels, judgments=judgments, columns=opts.qrels_columns)


def _rare_finds_table(
    aligned: Aligned,
    *,
    k: int | None = 100,
    rel_level: float = 1,
    max_systems: int | None = 1,
    reference: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """[`rare_finds`][irframe.rarity.rare_finds] of aligned arrays."""
    a = aligned
    if max_systems is not None and (
        isinstance(max_systems, bool)
        or not isinstance(max_systems, (int, np.integer))
        or max_systems < 0
    ):
        raise OptionError(
            f"max_systems must be a non-negative integer or None, got {max_systems!r}"
        )
    look = rarity_lookup(a, k=k, rel_level=rel_level, reference=reference)
    rows, _ = retrieved_relevant_rows(a, check_k(k), check_rel_level(rel_level))
    s_d = look.s_d(a.row_topic[rows], a.row_judged_doc[rows])
    if max_systems is not None:
        keep = s_d <= max_systems
        rows, s_d = rows[keep], s_d[keep]
    g = a.row_group[rows]
    return pd.DataFrame(
        {
            "system": a.systems[a.group_system[g]].to_numpy(),
            "topic": a.topics[a.group_topic[g]].to_numpy(),
            "doc": a.judged_docs[a.row_judged_doc[rows]],
            "rank": a.row_rank[rows],
            "rel": a.row_rel[rows],
            "S_d": s_d,
            "S": np.full(len(rows), look.n_systems, dtype=np.int64),
            "rarity": look.rarity(s_d),
            "rarity_norm": look.rarity_norm(s_d),
        }
    )


@by_backend
@takes_options("align", "rel_level")
def rare_finds(
    runs: pd.DataFrame | Aligned,
    qrels: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None,
    *,
    k: int | None = 100,
    max_systems: int | None = 1,
    reference: pd.DataFrame | None = None,
    judgments: str = "each",
    opts: Options,
) -> pd.DataFrame:
    """The relevant documents each system found in its top k that (almost) nobody else did.

    Parameters
    ----------
    runs : pandas.DataFrame
        The run frame (``system, topic, doc, score``), as for
        [`irframe.evaluate`][irframe.evaluate].
    max_systems : int or None, default 1
        Keep documents with ``S_d <= max_systems``: 1 = found by this system only
        (with ``reference=``: by at most one reference system; 0 = by none of them);
        None keeps every relevant document retrieved within k.
    k, reference
        As in [`rarity`][irframe.rarity.rarity] (``complete`` adds only empty rankings, which find nothing).
    qrels, judgments
        As in [`rarity`][irframe.rarity.rarity]: several judgment sets give a leading ``qrels`` column.

    Returns
    -------
    pandas.DataFrame
        Tidy, one row per (system, topic, doc), in (system, topic, rank) order:
        ``system, topic, doc, rank, rel, S_d, S, rarity, rarity_norm``.
        ``df.groupby("system").size()`` counts each system's unique finds.

    See Also
    --------
    - [`rarity`][irframe.rarity.rarity]: the table it reads.
    - [`irframe.dask`][irframe.dask]: ``runs`` may be a Dask frame (the same table).

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"topic": "1", "doc": ["a", "b", "c"], "rel": [1, 1, 1]})
    >>> runs = pd.DataFrame({"system": ["s1", "s1", "s2", "s2"], "topic": "1",
    ...                      "doc": ["a", "b", "a", "c"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> rare_finds(runs, qrels, k=10)[["system", "doc", "rank", "S_d"]].values.tolist()
    [['s1', 'b', 2, 1], ['s2', 'c', 2, 1]]
    """
    rel_level = opts.rel_level

    def one(q: pd.DataFrame) -> pd.DataFrame:
        return _rare_finds_table(
            _given(runs, q, opts),
            k=k,
            rel_level=rel_level,
            max_systems=max_systems,
            reference=reference,
        )

    return over_qrels(one, qrels, judgments=judgments, columns=opts.qrels_columns)


def _given(runs: pd.DataFrame | Aligned, qrels, opts) -> Aligned:
    """``runs`` aligned with ``qrels`` under ``opts``, or the arrays as given."""
    if not isinstance(runs, Aligned):
        if qrels is None:
            raise InputError("qrels are needed: pass qrels=... (a frame topic, doc, rel)")
        return align(runs, qrels, opts=opts)
    if qrels is not None or opts.changed("align"):
        raise OptionError(
            "qrels and alignment options cannot be combined with an already aligned input "
            "(the arrays carry their qrels and alignment options)"
        )
    return runs
