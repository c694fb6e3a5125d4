"""Agreement between judgment sets (qrels): system rankings, labels, significance decisions.

Evaluate the same runs under several qrels with ``qrels={name: frame, ...}`` (the cube
gains a ``qrels`` dim, see [`irframe.evaluate`][irframe.evaluate]), then ask

* do the judgment sets rank the systems alike?  [`qrels_agreement`][irframe.agreement.qrels_agreement] (Kendall's
  tau-b, tau-AP of Yilmaz, Aslam & Robertson, SIGIR 2008, and rank-biased overlap of
  Webber, Moffat & Zobel, TOIS 2010, of the system orderings by mean score);
* do they label the documents alike?  [`label_agreement`][irframe.agreement.label_agreement] (Cohen's kappa,
  Krippendorff's alpha) and [`label_confusion`][irframe.agreement.label_confusion] on the documents both sets judged;
* would a significance test decide alike?  [`decision_flips`][irframe.agreement.decision_flips] on a
  [`irframe.stats.compare`][irframe.stats.compare] result with a ``qrels`` dim.

The rank-correlation kernels ([`tau_b`][irframe.agreement.tau_b], [`tau_ap`][irframe.agreement.tau_ap], [`rbo`][irframe.agreement.rbo]) and the
label-agreement kernels ([`cohen_kappa`][irframe.agreement.cohen_kappa], [`krippendorff_alpha`][irframe.agreement.krippendorff_alpha]) take plain
arrays.  These functions are also available from [`irframe.meta`][irframe.meta].
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
import xarray as xr

from ._scores import mask_missing, score_cube
from .errors import InputError, OptionError, ShapeError, plain, shown
from .options import check_missing
from .params import check_flag
from .schema import checked_qrels

__all__ = [
    "ALPHA_LEVELS",
    "cohen_kappa",
    "decision_flips",
    "krippendorff_alpha",
    "label_agreement",
    "label_confusion",
    "qrels_agreement",
    "rbo",
    "tau_ap",
    "tau_b",
]

ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")


# ---------------------------------------------------------------------------
# rank correlation of two score vectors (higher = better)
# ---------------------------------------------------------------------------


def tau_b(x, y) -> float:
    """Kendall's tau-b between two score vectors (ties adjusted, as Kendall 1945, Biometrika).

    ``(n_c - n_d) / sqrt((n_0 - t_x) (n_0 - t_y))`` over all pairs, with ``t_x``, ``t_y``
    the pairs tied in ``x``, ``y``; NaN when one vector is constant.

    Parameters
    ----------
    x, y : array_like
        Scores of the same items (e.g. systems' means under two measures or two judgment sets).

    Returns
    -------
    float
        In [-1, 1].

    See Also
    --------
    - [`irframe.meta.kendall_tau`][irframe.meta.kendall_tau]: tau-a, tau-b or tau-AP of two system orderings.

    Examples
    --------
    >>> tau_b([1, 2, 3, 4], [1, 3, 2, 4])
    0.6666666666666666
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    iu = np.triu_indices(x.size, 1)
    sx, sy = np.sign(x[iu[0]] - x[iu[1]]), np.sign(y[iu[0]] - y[iu[1]])
    den = np.sqrt(float((sx != 0).sum()) * float((sy != 0).sum()))
    return float((sx * sy).sum() / den) if den > 0 else float("nan")


def tau_ap(x, y) -> float:
    """tau-AP of the ordering by ``x`` against the reference ordering by ``y``.

    Yilmaz, Aslam & Robertson (SIGIR 2008): walking ``x``'s ordering from the top,
    ``tau_AP = 2/(n-1) * sum_{i=2..n} C(i)/(i-1) - 1`` where ``C(i)`` counts the items
    above position ``i`` that ``y`` also ranks above it; a pair tied in either vector
    counts 1/2.  Items tied in ``x`` have no order of their own: the result is the mean
    over every order of each tie group (so it does not depend on the input order), in
    closed form -- an item of a group occupying positions ``p..q`` (0-based) is at each
    of them with probability ``1/(q-p+1)``.

    Parameters
    ----------
    x : array_like
        Scores giving the ordering evaluated.
    y : array_like
        Scores giving the reference ordering.

    Returns
    -------
    float
        In [-1, 1]; not symmetric in ``x`` and ``y``.

    Examples
    --------
    >>> round(tau_ap([3, 4, 2, 1], [4, 3, 2, 1]), 4)   # a swap at the top costs most
    0.3333
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = x.size
    above = x[None, :] > x[:, None]  # [e, f]: f strictly above e in x
    # C from the items of higher x groups (1, or 1/2 when tied in y)
    A = (above * ((y[None, :] > y[:, None]) + 0.5 * (y[None, :] == y[:, None]))).sum(axis=1)
    p = above.sum(axis=1)  # first position of e's tie group
    g = (x[None, :] == x[:, None]).sum(axis=1)  # size of e's tie group
    q = p + g - 1  # last position
    harm = np.concatenate(
        [[0.0], np.cumsum(1.0 / np.arange(1, max(n, 1)))]
    )  # harm[k] = sum_{i<=k} 1/i
    lo = np.maximum(p, 1)  # position 0 contributes no term
    H = harm[q] - harm[lo - 1]  # sum_{i=lo..q} 1/i
    within = (q - lo + 1) - p * H  # sum_{i=lo..q} (i - p)/i: tied items above count 1/2
    total = ((A * H + 0.5 * within) / g).sum()
    return float(2.0 * total / (n - 1) - 1.0)


def rbo(x, y, *, p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of the orderings by ``x`` and by ``y``.

    Webber, Moffat & Zobel (TOIS 2010), Eq. 32 for two complete orderings of the same
    ``n`` items: ``RBO_ext = (1-p)/p * sum_{d=1..n} A_d p^d + A_n p^n`` with ``A_d`` the
    fraction of the top ``d`` items the orderings share (``A_n = 1``).  Items are
    ordered by score, highest first; tied scores keep their input order.

    Parameters
    ----------
    x, y : array_like
        Scores of the same items (e.g. systems' means under two measures or two judgment sets).
    p : float
        Persistence in (0, 1): the weight of the top of the orderings.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> rbo([3, 2, 1], [3, 2, 1])
    1.0
    >>> round(rbo([3, 2, 1], [2, 3, 1], p=0.5), 4)
    0.5
    """
    if not 0 < p < 1:
        raise OptionError(f"p must be in (0, 1), got {p}")
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = x.size
    pos_x = np.empty(n, np.int64)
    pos_y = np.empty(n, np.int64)
    pos_x[np.argsort(-x, kind="stable")] = np.arange(n)
    pos_y[np.argsort(-y, kind="stable")] = np.arange(n)
    X = np.cumsum(np.bincount(np.maximum(pos_x, pos_y), minlength=n))  # overlap at depth d = 1..n
    d = np.arange(1, n + 1)
    A = X / d
    return float((1 - p) / p * (A * p**d).sum() + A[-1] * p**n)


# ---------------------------------------------------------------------------
# label agreement of two label vectors on the same units
# ---------------------------------------------------------------------------


def _cross_counts(a, b) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct labels, counts[i, j] of units labelled i by a and j by b)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError("a and b must be 1-D label vectors of the same length")
    vals, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    counts = np.zeros((len(vals), len(vals)))
    np.add.at(counts, (inv[: a.size], inv[a.size :]), 1.0)
    return vals, counts


def cohen_kappa(a, b, *, weights: str | None = None) -> float:
    """Cohen's kappa between two raters' labels of the same documents.

    ``1 - sum(w * O) / sum(w * E)`` over the confusion matrix ``O`` of the labels and
    its chance expectation ``E`` (outer product of the marginals); ``w`` is 0/1
    (unweighted, Cohen 1960, Educational and Psychological Measurement), ``|i - j|`` (``"linear"``) or ``(i - j)**2``
    (``"quadratic"``, Cohen 1968, Psychological Bulletin) over the indices of the sorted label values.

    Parameters
    ----------
    a, b : array_like
        The two raters' labels, one pair per document.
    weights : {None, "linear", "quadratic"}
        Disagreement weights.

    Returns
    -------
    float

    Examples
    --------
    >>> cohen_kappa([0, 1, 1, 2], [0, 1, 2, 2])
    0.6363636363636364
    """
    _, O = _cross_counts(a, b)  # noqa: E741 - O/E: observed/expected, as in the docstring
    k = len(O)
    E = np.outer(O.sum(axis=1), O.sum(axis=0)) / O.sum()
    i, j = np.indices((k, k))
    if weights is None:
        w = (i != j).astype(float)
    elif weights == "linear":
        w = np.abs(i - j).astype(float)
    elif weights == "quadratic":
        w = ((i - j) ** 2).astype(float)
    else:
        raise OptionError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    den = (w * E).sum()
    return float(1 - (w * O).sum() / den) if den > 0 else float("nan")


def krippendorff_alpha(a, b, *, level: str = "ordinal") -> float:
    """Krippendorff's alpha for two coders who both labelled every unit.

    ``alpha = 1 - (n - 1) * sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck`` over the
    coincidence matrix ``o`` of the values (each unit adds its pair both ways), the
    value totals ``n_c`` and ``n = 2 * units`` (Krippendorff, *Content Analysis*, 2004,
    ch. 11), with the difference ``d2`` of the ``level`` of measurement:
    nominal ``[c != k]``, ordinal ``(sum_{g=c..k} n_g - (n_c + n_k)/2)**2``, interval
    ``(c - k)**2``, ratio ``((c - k)/(c + k))**2``.

    Parameters
    ----------
    a, b : array_like
        The two raters' labels, one pair per document.
    level : {"nominal", "ordinal", "interval", "ratio"}
        Level of measurement.

    Returns
    -------
    float

    Examples
    --------
    >>> round(krippendorff_alpha([0, 1, 1, 2], [0, 1, 2, 2], level="interval"), 4)
    0.8205
    """
    if level not in ALPHA_LEVELS:
        raise OptionError(f"level must be one of {ALPHA_LEVELS}, got {level!r}")
    vals, counts = _cross_counts(np.asarray(a, float), np.asarray(b, float))
    k = len(vals)
    o = counts + counts.T  # coincidences: each unit's pair counted both ways
    nc = o.sum(axis=1)
    n = nc.sum()
    c, kk = np.meshgrid(vals, vals, indexing="ij")
    if level == "nominal":
        d2 = (c != kk).astype(float)
    elif level == "interval":
        d2 = (c - kk) ** 2
    elif level == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            d2 = np.where(c + kk == 0, 0.0, ((c - kk) / (c + kk)) ** 2)
    else:
        cum = np.concatenate([[0.0], np.cumsum(nc)])
        i, j = np.indices((k, k))
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        d2 = (cum[hi + 1] - cum[lo] - (nc[i] + nc[j]) / 2) ** 2
    den = (np.outer(nc, nc) * d2).sum()
    return float(1 - (n - 1) * (o * d2).sum() / den) if den > 0 else float("nan")


# ---------------------------------------------------------------------------
# tables over a qrels dim / mapping
# ---------------------------------------------------------------------------


class _UnknownSetError(InputError, KeyError):
    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0]) if self.args else ""


def _unknown_set(reference, names) -> Exception:
    import difflib

    close = difflib.get_close_matches(str(reference), [str(n) for n in names], n=2, cutoff=0.5)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    return _UnknownSetError(
        f"reference {shown(reference)} is not a judgment set.{hint} Available: "
        f"{shown([plain(n) for n in names], 400)}"
    )


def _set_pairs(names: list, reference) -> list[tuple]:
    if reference is None:
        return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    if reference not in names:
        raise _unknown_set(reference, names)
    return [(n, reference) for n in names if n != reference]


def qrels_agreement(
    cube,
    reference=None,
    *,
    dim: str = "qrels",
    topic_dim: str = "topic",
    p: float = 0.9,
    missing: str = "skip",
) -> pd.DataFrame:
    """How alike the judgment sets of a cube order the systems (by mean score).

    Parameters
    ----------
    cube : xarray.DataArray
        Scores with dims ``system``, ``topic_dim``, ``dim`` and optionally others
        (``measure``, ...), e.g. ``runs.ir.metric(["AP", "nDCG@10"], qrels={...})``.
    reference : str, optional
        Compare every set with this one (the tau-AP reference); default every pair.
    dim : str
        The judgment-set dim.
    p : float
        Persistence of rank-biased overlap.
    missing : {"skip", "common", "zero"}
        ``"common"``: system means use, per measure, only the topics every
        system was evaluated on under *both* sets of the pair (a topic that one set
        does not judge is left out); ``"skip"`` (default): each mean over its own topics;
        ``"zero"``: NaN counts as 0.
    topic_dim : str, default "topic"
        The dim of ``cube`` holding the topics.

    Returns
    -------
    pandas.DataFrame
        One row per (other broadcast labels..., ``qrels``, ``other_qrels``) with
        ``tau`` (tau-b), ``tau_ap`` (of the ``qrels`` ordering against the
        ``other_qrels`` one), ``rbo`` (systems with tied means ordered by name),
        ``n_systems``, ``n_topics``.

    See Also
    --------
    - [`irframe.agreement.label_agreement`][irframe.agreement.label_agreement]: agreement on the labels themselves.
    - [`irframe.agreement.decision_flips`][irframe.agreement.decision_flips]: significance decisions that change.
    - [Judgment sets, replicates, power](../judgments.md): the guide.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.meta import qrels_agreement
    >>> x = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    >>> cube = xr.concat([xr.DataArray(x, dims=("system", "topic")), xr.DataArray(x[::-1], dims=("system", "topic"))],
    ...                  dim="qrels").assign_coords(qrels=["a", "b"])
    >>> qrels_agreement(cube)[["tau", "tau_ap"]].values.tolist()
    [[-1.0, -1.0]]
    """
    check_missing(missing, ("skip", "common", "zero"))
    if not isinstance(cube, xr.DataArray) or dim not in cube.dims:
        raise ShapeError(
            f"cube must be an xarray.DataArray with a {dim!r} dim (evaluate with qrels={{name: frame}})"
        )
    c, layout = score_cube(cube, dim=topic_dim, keep=(dim,))
    # systems by name: rbo breaks tied means by the order it is given, which is then the
    # names' and not the cube's (reordering the systems changed rbo)
    c = c.isel(system=np.argsort(np.asarray(c.indexes["system"].astype(str)), kind="stable"))
    names = list(c.indexes[dim])
    pairs = _set_pairs(names, reference)
    rows = []
    for k, label in enumerate(c.indexes["measure"]):
        for a, b in pairs:
            X = c.sel({dim: [a, b]}).values[:, :, :, k]  # (S, T, 2)
            if missing == "common":
                X = np.where(np.isnan(X).any(axis=(0, 2), keepdims=True), np.nan, X)
            X = mask_missing(X, "zero" if missing == "zero" else "skip")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                m = np.nanmean(X, axis=1)  # (S, 2)
            ok = ~np.isnan(m).any(axis=1)
            x, y = m[ok, 0], m[ok, 1]
            n_top = int((~np.isnan(X).any(axis=(0, 2))).sum())
            keys = (label if isinstance(label, tuple) else (label,)) if layout.has_measure else ()
            rows.append(
                (
                    *keys,
                    a,
                    b,
                    tau_b(x, y) if x.size > 1 else np.nan,
                    tau_ap(x, y) if x.size > 1 else np.nan,
                    rbo(x, y, p=p) if x.size else np.nan,
                    int(x.size),
                    n_top,
                )
            )
    lead = list(layout.batch_dims) if layout.has_measure else []
    cols = [*lead, "qrels", "other_qrels", "tau", "tau_ap", "rbo", "n_systems", "n_topics"]
    return pd.DataFrame(rows, columns=cols).set_index([*lead, "qrels", "other_qrels"])


def _labels(qrels: pd.DataFrame, what: str) -> pd.Series:
    """Each judged (topic, doc)'s grade (max over subtopic rows), qrels checked as evaluate does."""
    df, qc, grades = checked_qrels(qrels, what=what)
    key = [df[qc.topic].astype(str).to_numpy(), df[qc.doc].astype(str).to_numpy()]
    return pd.Series(grades).groupby(key, sort=True).max().rename_axis(["topic", "doc"])


def _common_labels(
    qa: pd.DataFrame, qb: pd.DataFrame, rel_level, names
) -> tuple[np.ndarray, np.ndarray, int, int]:
    la, lb = _labels(qa, names[0]), _labels(qb, names[1])
    both = la.index.intersection(lb.index)
    if len(both) == 0:

        def some(idx) -> str:
            shown = ", ".join(f"({t!r}, {d!r})" for t, d in list(idx[:2]))
            return shown + (f" ... ({len(idx)} judgments)" if len(idx) > 2 else "")

        raise InputError(
            f"{names[0]} and {names[1]} share no judged (topic, doc): {names[0]} has "
            f"{some(la.index)}, {names[1]} has {some(lb.index)}. Labels can only be compared "
            f"on documents both judged; check that the two judge the same topics and spell "
            f"ids alike"
        )
    a, b = la.loc[both].to_numpy(float), lb.loc[both].to_numpy(float)
    if rel_level is not None:
        a, b = (a >= rel_level).astype(float), (b >= rel_level).astype(float)
    return a, b, len(la) - len(both), len(lb) - len(both)


def label_agreement(
    qrels: Mapping[str, pd.DataFrame],
    reference=None,
    *,
    level: str = "ordinal",
    rel_level: float | None = None,
) -> pd.DataFrame:
    """Agreement of the labels of the documents two judgment sets both judged.

    A document's label is its grade (the maximum over subtopic rows); documents only
    one set judged are counted (``only_qrels``, ``only_other``) but not compared.

    Parameters
    ----------
    qrels : mapping of str to pandas.DataFrame
        Judgment sets ``{name: qrels frame}`` (columns ``topic, doc, rel``).
    reference : str, optional
        Compare every set with this one; default every pair.
    level : {"nominal", "ordinal", "interval", "ratio"}
        Level of measurement for Krippendorff's alpha.
    rel_level : float, optional
        Binarise the labels first (relevant = grade >= rel_level).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``(qrels, other_qrels)``: ``n_common``, ``only_qrels``,
        ``only_other``, ``agreement`` (fraction of equal labels), ``kappa`` (Cohen),
        ``kappa_quadratic`` (quadratic-weighted), ``alpha`` (Krippendorff).

    See Also
    --------
    - [`irframe.agreement.label_confusion`][irframe.agreement.label_confusion]: the confusion matrix.
    - [`irframe.agreement.qrels_agreement`][irframe.agreement.qrels_agreement]: agreement on the system ranking.

    Examples
    --------
    >>> import pandas as pd
    >>> from irframe.meta import label_agreement
    >>> a = pd.DataFrame({"topic": "1", "doc": list("wxyz"), "rel": [0, 1, 1, 2]})
    >>> b = pd.DataFrame({"topic": "1", "doc": list("wxyv"), "rel": [0, 1, 2, 1]})
    >>> label_agreement({"nist": a, "llm": b}).loc[("nist", "llm"), ["n_common", "only_qrels"]].tolist()
    [3.0, 1.0]
    """
    if not isinstance(qrels, Mapping) or isinstance(qrels, pd.DataFrame) or len(qrels) < 2:
        got = (
            f"a mapping with {len(qrels)} set(s)"
            if isinstance(qrels, Mapping) and not isinstance(qrels, pd.DataFrame)
            else type(qrels).__name__
        )
        raise InputError(
            "qrels must be a mapping {name: qrels frame} with at least two judgment sets, "
            f"got {got}; to compare two frames use label_confusion(qrels, other)"
        )
    rows = []
    for x, y in _set_pairs(list(qrels), reference):
        a, b, only_a, only_b = _common_labels(
            qrels[x], qrels[y], rel_level, (f"judgment set {x!r}", f"judgment set {y!r}")
        )
        n = a.size
        rows.append(
            (
                x,
                y,
                n,
                only_a,
                only_b,
                float((a == b).mean()) if n else np.nan,
                cohen_kappa(a, b) if n else np.nan,
                cohen_kappa(a, b, weights="quadratic") if n else np.nan,
                krippendorff_alpha(a, b, level=level) if n else np.nan,
            )
        )
    return (
        pd.DataFrame(
            rows,
            columns=[
                "qrels",
                "other_qrels",
                "n_common",
                "only_qrels",
                "only_other",
                "agreement",
                "kappa",
                "kappa_quadratic",
                "alpha",
            ],
        )
        .astype({"n_common": float, "only_qrels": float, "only_other": float})
        .set_index(["qrels", "other_qrels"])
    )


def label_confusion(
    qrels: pd.DataFrame, other: pd.DataFrame, *, rel_level: float | None = None
) -> pd.DataFrame:
    """Confusion matrix of the grades two judgment sets gave the documents both judged.

    Rows (``qrels``) and columns (``other``) are the same sorted labels -- every grade
    either set gave -- so the diagonal counts agreements, as in
    `sklearn.metrics.confusion_matrix`.

    Parameters
    ----------
    qrels, other : pandas.DataFrame
        Two judgment sets (``topic, doc, rel``).
    rel_level : float, optional
        Binarise both at grade >= rel_level first.

    Returns
    -------
    pandas.DataFrame
        Counts; rows the grades of ``qrels``, columns those of ``other``.

    See Also
    --------
    - [`irframe.agreement.label_agreement`][irframe.agreement.label_agreement]: kappa and alpha over the same documents.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"topic": "1", "doc": list("wxy"), "rel": [0, 1, 1]})
    >>> b = pd.DataFrame({"topic": "1", "doc": list("wxy"), "rel": [0, 1, 0]})
    >>> label_confusion(a, b).values.tolist()
    [[1, 0], [1, 1]]
    >>> label_confusion(a, b.assign(rel=[2, 1, 1])).values.tolist()   # grade 2 only in b
    [[0, 0, 1], [0, 2, 0], [0, 0, 0]]
    """
    a, b, _, _ = _common_labels(
        qrels, other, rel_level, ("qrels frame (qrels=)", "qrels frame (other=)")
    )
    vals, counts = _cross_counts(a, b)
    return pd.DataFrame(
        counts.astype(np.int64),
        index=pd.Index(vals, name="qrels"),
        columns=pd.Index(vals, name="other"),
    )


def decision_flips(
    result: xr.Dataset, *, dim: str = "qrels", reference=None, all_pairs: bool = False
) -> pd.DataFrame:
    """Where significance decisions differ between judgment sets.

    Parameters
    ----------
    result : xarray.Dataset
        A [`irframe.stats.compare`][irframe.stats.compare] (or [`tukey_hsd`][irframe.stats.tukey_hsd]) result with
        a ``dim`` dim, e.g. ``compare(runs.ir.metric("AP", qrels={...}))``.
    reference : str, optional
        A row is a flip when a set's decision differs from this set's; default: when
        the sets do not all agree.
    all_pairs : bool
        Return every pair, not only the flipped ones.
    dim : str, default "qrels"
        The judgment-set dim of ``result`` (its pairs of judgment sets are compared).

    Returns
    -------
    pandas.DataFrame
        One row per distinct unordered pair (and label of the other broadcast dims),
        one column per judgment set holding the decision: ``+1`` (``system``
        significantly better than ``other``), ``-1`` (significantly worse) or ``0``
        (not significant); and ``flipped``.  ``attrs["flip_rate"]`` is the fraction of
        pairs flipped.

    See Also
    --------
    - [`irframe.stats.compare`][irframe.stats.compare]: the tests whose decisions are compared.
    - [`irframe.agreement.qrels_agreement`][irframe.agreement.qrels_agreement]: agreement on the system ranking.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from irframe.stats import compare
    >>> from irframe.meta import decision_flips
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(2, 30)) + np.array([[0.0], [1.0]])
    >>> cube = xr.concat([xr.DataArray(x, dims=("system", "topic")),
    ...                   xr.DataArray(x * [[1.0], [0.0]], dims=("system", "topic"))], dim="qrels")
    >>> flips = decision_flips(compare(cube.assign_coords(qrels=["full", "shallow"])))
    >>> flips[["full", "shallow"]].values.tolist()
    [[-1, 0]]
    """
    all_pairs = check_flag("all_pairs", all_pairs)
    if not isinstance(result, xr.Dataset) or "significant" not in result or dim not in result.dims:
        raise ShapeError(f"result must be a compare() Dataset with a {dim!r} dim")
    sig, eff = result["significant"], result["effect"]
    dec = xr.where(sig, np.sign(eff), 0).fillna(0).astype(int)
    systems, others = list(result.indexes["system"]), list(result.indexes["other"])
    keep = [
        (s, o)
        for s in systems
        for o in others
        if s != o and not (o in systems and s in others and systems.index(o) < systems.index(s))
    ]
    lead = [d for d in dec.dims if d not in ("system", "other", dim)]
    frame = dec.to_series().unstack(dim)
    frame = frame.reorder_levels(["system", "other", *lead]) if lead else frame
    kept = set(keep)
    frame = frame.loc[[(t[0], t[1]) in kept for t in frame.index]]
    names = list(result.indexes[dim])
    if reference is not None:
        if reference not in names:
            raise _unknown_set(reference, names)
        flipped = frame.ne(frame[reference], axis=0).any(axis=1)
    else:
        flipped = frame.nunique(axis=1) > 1
    frame = frame.assign(flipped=flipped.to_numpy())
    frame.columns.name = None
    rate = float(flipped.mean()) if len(flipped) else float("nan")
    out = frame if all_pairs else frame[frame["flipped"]]
    out.attrs["flip_rate"] = rate
    return out
