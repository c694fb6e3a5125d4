"""Paired-test kernels of :func:`irframe.stats.compare` (and :func:`irframe.stats.mean_ci`'s bootstrap).

Every kernel takes ``D`` (P, n): one row of per-topic score differences per system pair, and
tests all rows at once -- Student's t (:func:`scipy.stats.ttest_1samp`), Wilcoxon's
signed-rank (:func:`scipy.stats.wilcoxon`), the paired randomization (sign-flip) test and
the bootstrap shift test, whose sign-flip / resampling matrices are shared by all pairs, so
each is one matrix product per block of at most ``_CHUNK_ELEMENTS`` pairs × samples.

The sampled randomization p-value is ``(1 + #{|mean*| >= |mean|}) / (1 + n_samples)``, the
exact one ``#{|mean*| >= |mean|} / 2**n`` over all sign vectors (the observed one included);
the bootstrap p-value is the two-sided shift test ``(1 + #{|mean* - mean| >= |mean|}) /
(1 + n_samples)``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from .errors import choose
from .options import make_rng

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "CompareOptions",
    "bootstrap_means",
    "bootstrap_p",
    "check_correction",
    "compare_options",
    "difference_summary",
    "paired_tests",
    "percentile_ci",
    "randomization_kernel",
    "t_kernel",
    "wilcoxon_kernel",
]

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh", None)
#: other spellings of the same tests and corrections (scipy's, statsmodels', ranx's names)
TEST_SYNONYMS = {
    "ttest": "t",
    "ttest_rel": "t",
    "student": "t",
    "paired_t": "t",
    "paired_ttest": "t",
    "student_t": "t",
    "signed_rank": "wilcoxon",
    "wilcoxon_signed_rank": "wilcoxon",
    "permutation": "randomization",
    "randomisation": "randomization",
    "fisher": "randomization",
    "paired_randomization": "randomization",
    "approximate_randomization": "randomization",
}
CORRECTION_SYNONYMS = {
    "holm_bonferroni": "holm",
    "bonferroni_holm": "holm",
    "benjamini_hochberg": "bh",
    "fdr_bh": "bh",
    "none": None,
}
_EXACT_MAX_TOPICS = 16
_CHUNK_ELEMENTS = 4_000_000  # pairs x samples per block (bounds memory to ~32 MB a block)


def t_kernel(D, alpha):
    res = _st.ttest_1samp(D, 0.0, axis=1)
    n = D.shape[1]
    mean = D.mean(axis=1)
    se = D.std(axis=1, ddof=1) / np.sqrt(n)
    h = _st.t.ppf(1 - alpha / 2, n - 1) * se
    return np.asarray(res.statistic, float), np.asarray(res.pvalue, float), mean - h, mean + h


def wilcoxon_kernel(D, zero_method):
    """Wilcoxon signed-rank test of every row of D, each as :func:`scipy.stats.wilcoxon` tests it alone.

    scipy's ``method="auto"`` picks the exact null distribution when a sample has no zero
    and no tied ``|d|`` (and at most 50 values), a permutation or normal approximation
    otherwise -- but given a 2-D array it decides once for the whole array, so one tied
    row would switch every row to the approximation.  Rows with and without zeros/ties
    are therefore tested in separate calls.
    """
    P = D.shape[0]
    stat = np.full(P, np.nan)
    pval = np.ones(P)
    nz = (D != 0).any(axis=1) if zero_method != "zsplit" else np.ones(P, bool)
    A = np.sort(np.abs(D), axis=1)
    plain = ~(A == 0).any(axis=1) & ~(np.diff(A, axis=1) == 0).any(axis=1)  # no zero, no tied |d|
    for rows in (nz & plain, nz & ~plain):
        if rows.any():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = _st.wilcoxon(D[rows], axis=1, zero_method=zero_method)
            stat[rows] = r.statistic
            pval[rows] = r.pvalue
    return stat, pval


def _iter_blocks(total: int, P: int):
    step = max(1, _CHUNK_ELEMENTS // max(P, 1))
    for start in range(0, total, step):
        yield start, min(total, start + step)


def randomization_kernel(D, n_samples, rng, exact):
    P, n = D.shape
    obs = D.sum(axis=1)
    tol = 1e-9 * np.maximum(np.abs(D).sum(axis=1), 1e-300)
    thresh = np.abs(obs) - tol
    count = np.zeros(P, dtype=np.int64)
    bits = np.arange(n, dtype=np.int64)
    if exact:
        total = 1 << n
        for a, b in _iter_blocks(total, P):
            k = np.arange(a, b, dtype=np.int64)
            F = (((k[:, None] >> bits) & 1) * 2 - 1).astype(np.float64)  # (B, n)
            count += (np.abs(D @ F.T) >= thresh[:, None]).sum(axis=1)
        p = count / total
    else:
        for a, b in _iter_blocks(n_samples, P):
            F = rng.integers(0, 2, size=(b - a, n)).astype(np.float64) * 2 - 1
            count += (np.abs(D @ F.T) >= thresh[:, None]).sum(axis=1)
        p = (count + 1) / (n_samples + 1)
    return obs / n, np.minimum(p, 1.0)


def bootstrap_means(D, n_samples, rng):
    """(P, B) bootstrap means of each row, resampling topics with replacement."""
    P, n = D.shape
    out = np.empty((P, n_samples))
    for a, b in _iter_blocks(n_samples, P):
        W = rng.multinomial(n, np.full(n, 1.0 / n), size=b - a).astype(np.float64)  # (B, n)
        out[:, a:b] = (D @ W.T) / n
    return out


def bootstrap_p(D, boot):
    mean = D.mean(axis=1)
    tol = 1e-9 * np.maximum(np.abs(D).mean(axis=1), 1e-300)
    count = (np.abs(boot - mean[:, None]) >= (np.abs(mean) - tol)[:, None]).sum(axis=1)
    return (count + 1) / (boot.shape[1] + 1)


def percentile_ci(boot, alpha):
    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2], axis=1)
    return lo, hi


@dataclass
class CompareOptions:
    test: str
    correction: str | None
    alpha: float
    n_samples: int
    ci: str
    exact: bool | None
    zero_method: str
    missing: str
    gen: np.random.Generator | None
    used_exact: bool = False


def check_correction(correction):
    """``correction`` as one of :data:`CORRECTIONS` (common spellings accepted), else :class:`OptionError`.

    >>> check_correction("Holm-Bonferroni"), check_correction("fdr_bh"), check_correction("none")
    ('holm', 'bh', None)
    """
    return choose("correction", correction, CORRECTIONS, CORRECTION_SYNONYMS)


def compare_options(
    test, correction, alpha, n_samples, rng, missing, ci, exact, zero_method
) -> CompareOptions:
    test = choose("test", test, TESTS, TEST_SYNONYMS)
    correction = check_correction(correction)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if int(n_samples) < 1:
        raise ValueError(f"n_samples must be positive, got {n_samples}")
    if ci is None:
        ci = "bootstrap" if test == "bootstrap" else "t"
    if ci not in ("t", "bootstrap"):
        raise ValueError(f"ci must be 't' or 'bootstrap', got {ci!r}")
    if test == "wilcoxon" and zero_method not in ("wilcox", "pratt", "zsplit"):
        raise ValueError(f"zero_method must be 'wilcox', 'pratt' or 'zsplit', got {zero_method!r}")
    gen = make_rng(rng) if (test in ("randomization", "bootstrap") or ci == "bootstrap") else None
    return CompareOptions(
        test, correction, float(alpha), int(n_samples), ci, exact, zero_method, missing, gen
    )


def paired_tests(D: np.ndarray, o: CompareOptions) -> dict[str, np.ndarray]:
    """Test every row of D (U, T; NaN = topic not shared) -> statistic, pvalue, ci_low, ci_high (U,).

    Rows with the same pattern of shared topics are tested together in one block.
    """
    U = D.shape[0]
    res = {k: np.full(U, np.nan) for k in ("statistic", "pvalue", "ci_low", "ci_high")}
    patterns, inv = np.unique(~np.isnan(D), axis=0, return_inverse=True)
    inv = np.asarray(inv).ravel()
    for g in range(patterns.shape[0]):
        rows = np.flatnonzero(inv == g)
        n = int(patterns[g].sum())
        if n < 2:
            continue
        Dg = D[np.ix_(rows, np.flatnonzero(patterns[g]))]
        boot = lo = hi = None
        if o.test == "t":
            stat, p, lo, hi = t_kernel(Dg, o.alpha)
        elif o.test == "wilcoxon":
            stat, p = wilcoxon_kernel(Dg, o.zero_method)
        elif o.test == "randomization":
            ex = (n <= _EXACT_MAX_TOPICS) if o.exact is None else bool(o.exact)
            if ex and n > 30:
                raise ValueError(
                    f"exact randomization with {n} topics would enumerate 2**{n} sign vectors"
                )
            o.used_exact = o.used_exact or ex
            stat, p = randomization_kernel(Dg, o.n_samples, o.gen, ex)
        else:  # bootstrap
            boot = bootstrap_means(Dg, o.n_samples, o.gen)
            stat, p = Dg.mean(axis=1), bootstrap_p(Dg, boot)
        if o.ci == "bootstrap":
            lo, hi = percentile_ci(
                boot if boot is not None else bootstrap_means(Dg, o.n_samples, o.gen), o.alpha
            )
        elif lo is None:
            _, _, lo, hi = t_kernel(Dg, o.alpha)
        for k, v in (("statistic", stat), ("pvalue", p), ("ci_low", lo), ("ci_high", hi)):
            res[k][rows] = v
    return res


def difference_summary(D: np.ndarray) -> dict[str, np.ndarray]:
    """Per row of D (U, T; NaN = not shared): mean, Cohen's d_z, wins/ties/losses, n_topics."""
    mask = ~np.isnan(D)
    ntop = mask.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        Dn = np.where(mask, D, 0.0)
        mean = np.where(ntop > 0, Dn.sum(axis=1) / np.maximum(ntop, 1), np.nan)
        var = np.where(
            ntop > 1,
            ((Dn - mean[:, None]) ** 2 * mask).sum(axis=1) / np.maximum(ntop - 1, 1),
            np.nan,
        )
        esize = mean / np.sqrt(var)
    return {
        "effect": mean,
        "effect_size": esize,
        "wins": (D > 0).sum(axis=1).astype(float),
        "ties": (D == 0).sum(axis=1).astype(float),
        "losses": (D < 0).sum(axis=1).astype(float),
        "n_topics": ntop.astype(float),
    }
