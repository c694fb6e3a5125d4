"""Synthetic collections in the shapes the field evaluates most: MS MARCO dev, TREC DL, BEIR.

Unlike ``../shared/bench/gen.py`` (pooled TREC collections: every system retrieves from a
small per-topic pool, so documents repeat across systems and topics), these runs draw their
documents from a corpus of millions, so almost every (topic, doc) pair of a run is distinct
and the judged set is tiny beside the run:

* ``msmarco`` — MS MARCO passage dev: 6,980 queries × 1,000 passages from an 8.8 M corpus,
  scores with 3 decimals (ties), about one judged relevant passage per query (binary);
* ``dl`` — TREC Deep Learning: 50–200 queries, graded qrels (0–3) with hundreds of judgments
  per query, 1,000-deep runs from the 8.8 M corpus;
* ``beir`` — a BEIR dataset: corpus 0.5–5 M, 50–10,000 queries, 1–50 judgments per query.

Runs come as a ranker writes them: topic by topic, score descending, tied passages in the
ranker's arbitrary order.  Relevant documents are ranked by a noisy skill so measures are
neither 0 nor 1.  Ids are strings of the corpus numbering (``"7067032"``) as in the datasets.

``frame(run, dtype)`` converts the id columns to ``str`` (pandas' default string dtype),
``object`` (one Python str per distinct id, as ``read_parquet`` in pandas 2.2), ``object, one
str per row`` (``astype(object)``: the worst case) or ``category``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SHAPES = ("msmarco", "dl", "beir")
DTYPES = ("str", "object", "object-per-row", "category")


def _ids(codes: np.ndarray, prefix: str = "") -> pd.Series:
    """Strings of integer codes, built by pyarrow (fast) as a pandas ``str`` column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pa.array(codes).cast(pa.string())
    if prefix:
        arr = pc.binary_join_element_wise(prefix, arr, "")
    return pd.Series(pd.array(arr, dtype=pd.StringDtype("pyarrow")))


def make(
    shape: str = "msmarco",
    *,
    queries: int | None = None,
    depth: int = 1000,
    corpus: int | None = None,
    systems: int = 1,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run) frames of one shape (module docstring), ids as pandas ``str``.

    ``queries``, ``corpus`` default to the shape's real sizes (msmarco 6,980 / 8.8 M; dl 200 /
    8.8 M; beir 1,000 / 2 M); ``systems`` runs of one shape share the qrels.
    """
    pairs = list(
        iter_runs(shape, queries=queries, depth=depth, corpus=corpus, systems=systems, seed=seed)
    )
    qrels, runs = pairs[0][0], [run for _, run in pairs]
    run = pd.concat(runs, ignore_index=True) if len(runs) > 1 else runs[0]
    run["system"] = run["system"].astype(pd.StringDtype("pyarrow"))
    return qrels, run


def iter_runs(
    shape: str = "msmarco",
    *,
    queries: int | None = None,
    depth: int = 1000,
    corpus: int | None = None,
    systems: int = 1,
    seed: int = 0,
):
    """[`make`][]'s (qrels, run) one system at a time (the same rows): a collection larger
    than memory is written run by run.  Yields the same qrels frame with every run."""
    rng = np.random.default_rng(seed)
    q, c = {"msmarco": (6980, 8_841_823), "dl": (200, 8_841_823), "beir": (1000, 2_000_000)}[shape]
    queries, corpus = queries or q, corpus or c
    # ---- qrels ---------------------------------------------------------------------------
    if shape == "msmarco":
        n_j = 1 + (rng.random(queries) < 0.06).astype(np.int64)  # ~1.06 relevant per query
    elif shape == "dl":
        n_j = rng.integers(100, 400, queries)  # hundreds of graded judgments
    else:
        n_j = rng.integers(1, 51, queries)
    q_topic = np.repeat(np.arange(queries), n_j)
    q_doc = rng.integers(0, corpus, len(q_topic))
    if shape == "dl":
        q_rel = rng.choice([0, 0, 0, 1, 1, 2, 3], len(q_topic))
    elif shape == "beir":
        q_rel = rng.choice([1, 1, 1, 2], len(q_topic))
    else:
        q_rel = np.ones(len(q_topic), np.int64)
    qrels = pd.DataFrame({"topic": q_topic, "doc": q_doc, "rel": q_rel})
    qrels = qrels.drop_duplicates(["topic", "doc"], ignore_index=True)
    rel_t, rel_d = qrels.topic.to_numpy(), qrels.doc.to_numpy()
    gr = qrels.rel.to_numpy()
    out_qrels = qrels.copy()
    out_qrels["topic"] = _ids(rel_t + 1_000)
    out_qrels["doc"] = _ids(rel_d)
    # ---- runs: per query, the judged relevant docs ranked by a noisy skill among random docs
    for s in range(systems):
        n = queries * depth
        topic = np.repeat(np.arange(queries), depth)
        doc = rng.integers(0, corpus, n)
        score = rng.normal(size=n)
        # plant judged documents: each judged doc is retrieved with a probability that grows
        # with the system's skill and its grade, at a score raised by it
        hit = rng.random(len(rel_t)) < 0.5 + 0.1 * s / max(1, systems - 1) + 0.1 * gr
        slot = rel_t * depth + rng.integers(0, depth, len(rel_t))
        slot, first = np.unique(slot[hit], return_index=True)
        doc[slot] = rel_d[hit][first]
        score[slot] += (1.0 + gr[hit][first]) * rng.random(len(slot)) * 2
        score = np.round(score, 3)
        # a ranker writes each query's list score descending (ties in its own order)
        o = np.lexsort((-score, topic))
        topic, doc, score = topic[o], doc[o], score[o]
        # duplicate (topic, doc) pairs inside a list are rare but possible: replace them
        key = topic.astype(np.int64) * corpus + doc
        _, first_of = np.unique(key, return_index=True)
        dup = np.ones(n, bool)
        dup[first_of] = False
        while dup.any():
            doc[dup] = rng.integers(0, corpus, int(dup.sum()))
            key = topic.astype(np.int64) * corpus + doc
            _, first_of = np.unique(key, return_index=True)
            dup = np.ones(n, bool)
            dup[first_of] = False
        del key, first_of, dup
        rank = np.tile(np.arange(1, depth + 1), queries)
        run = pd.DataFrame(
            {
                "system": f"run{s}",
                "topic": _ids(topic + 1_000),
                "doc": _ids(doc),
                "score": score,
                "rank": rank,
            }
        )
        run["system"] = run["system"].astype(pd.StringDtype("pyarrow"))
        yield out_qrels, run


def frame(df: pd.DataFrame, dtype: str, cols=("system", "topic", "doc")) -> pd.DataFrame:
    """``df`` with its id columns as ``dtype`` (one of :data:`DTYPES`)."""
    out = df.copy()
    for c in cols:
        if c not in out:
            continue
        s = out[c]
        if dtype == "str":
            out[c] = s.astype("str")
        elif dtype == "category":
            out[c] = s.astype("category")
        elif dtype == "object-per-row":
            out[c] = s.astype(object)
        elif dtype == "object":  # one Python str per distinct id, shared by its rows
            codes, uniques = pd.factorize(s)
            out[c] = pd.Series(np.asarray(uniques, dtype=object)[codes], dtype=object)
        else:
            raise ValueError(dtype)
    return out


def _three_decimals(x: np.ndarray):
    """``"%.3f"`` of every value, built by pyarrow (np.char.mod takes seconds per million)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    milli = np.round(x * 1000).astype(np.int64)
    whole, frac = np.divmod(np.abs(milli), 1000)
    sign = pa.array(np.where(milli < 0, "-", ""))
    frac = pc.utf8_lpad(pa.array(frac).cast(pa.string()), 3, "0")
    return pc.binary_join_element_wise(sign, pa.array(whole).cast(pa.string()), ".", frac, "")


def write_trec(run: pd.DataFrame, qrels: pd.DataFrame, run_path, qrels_path) -> None:
    """TREC run and qrels files (``topic Q0 doc rank score tag`` / ``topic 0 doc rel``),
    scores printed with 3 decimals as the rankers of this shape print them."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    t = pa.table(
        {
            "topic": pa.array(run["topic"].astype(str)),
            "q0": pa.array(np.full(len(run), "Q0")),
            "doc": pa.array(run["doc"].astype(str)),
            "rank": pa.array(run["rank"].to_numpy()),
            "score": _three_decimals(run["score"].to_numpy()),
            "tag": pa.array(run["system"].astype(str)),
        }
    )
    pacsv.write_csv(
        t,
        str(run_path),
        pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )
    qt = pa.table(
        {
            "topic": pa.array(qrels["topic"].astype(str)),
            "it": pa.array(np.full(len(qrels), "0")),
            "doc": pa.array(qrels["doc"].astype(str)),
            "rel": pa.array(qrels["rel"].to_numpy()),
        }
    )
    pacsv.write_csv(
        qt,
        str(qrels_path),
        pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )
