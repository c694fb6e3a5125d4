"""Paired-test kernels of [`irframe.stats.compare`][irframe.stats.compare] (and [`irframe.stats.mean_ci`][irframe.stats.mean_ci]'s bootstrap).

Every kernel takes ``D`` (P, n): one row of per-topic score differences per system pair, and
tests all rows at once -- Student's t (`scipy.stats.ttest_1samp`), Wilcoxon's
signed-rank (`scipy.stats.wilcoxon`), the paired randomization (sign-flip) test and
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
from typing import Any

import numpy as np
from scipy import stats as _st

from .errors import CalibrationWarning, OptionError, _fold, choose
from .options import make_rng
from .params import ALPHA, DRAWS, check_flag

__all__ = [
    "BOOTSTRAP_MIN_TOPICS",
    "CORRECTIONS",
    "TESTS",
    "CompareOptions",
    "block_rows",
    "bootstrap_means",
    "bootstrap_p",
    "bootstrap_test",
    "check_correction",
    "compare_options",
    "difference_summary",
    "paired_tests",
    "percentile_ci",
    "randomization_kernel",
    "t_kernel",
    "warn_bootstrap",
    "wilcoxon_kernel",
]

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
#: the corrections: Holm, Bonferroni, Benjamini-Hochberg, and statsmodels' other
#: ``multipletests`` methods whose adjusted p-values do not depend on alpha
CORRECTIONS = (
    "holm",
    "bonferroni",
    "bh",
    "by",
    "sidak",
    "holm-sidak",
    "simes-hochberg",
    "hommel",
    None,
)
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
    "none": None,
    # statsmodels' multipletests names and aliases (PyTerrier passes its correction there)
    "h": "holm",
    "b": "bonferroni",
    "bonf": "bonferroni",
    "s": "sidak",
    "hs": "holm-sidak",
    "sh": "simes-hochberg",
    "hochberg": "simes-hochberg",
    "ho": "hommel",
    "fdr_bh": "bh",
    "fdr_i": "bh",
    "fdr_p": "bh",
    "fdr_by": "by",
    "fdr_n": "by",
    "fdr_c": "by",
    "fdrcorr": "by",
    "benjamini_yekutieli": "by",
}
#: statsmodels' methods whose adjusted p-values depend on alpha (two-stage, adaptive) or on
#: a density estimate: irframe corrects p-values once, for any alpha
_NOT_CORRECTIONS = (
    "fdr_tsbh",
    "fdr_2sbh",
    "fdr_tsbky",
    "fdr_2sbky",
    "fdr_twostage",
    "fdr_gbs",
    "lfdr",
    "lfdr_sl",
)
_EXACT_MAX_TOPICS = 16
#: Fewer topics than this and the bootstrap (shift test, percentile CI) is not calibrated:
#: at alpha = 0.05 its measured Type-I rate is 0.42-0.47 on 2 topics, 0.25-0.30 on 3, 0.16-0.18
#: on 5, 0.09-0.11 on 10 and 0.06-0.08 on 20 (0.05-0.06 from 30 on; benchmarks/bench_type1.py,
#: docs/stats.md); two same-sign differences give p = 1 / (n_samples + 1).  compare() and
#: mean_ci() warn (CalibrationWarning) below it.
BOOTSTRAP_MIN_TOPICS = 30
_CHUNK_ELEMENTS = 4_000_000  # pairs x samples per block (bounds memory to ~32 MB a block)
#: bootstrap resamples (as small integer counts) kept for the next group of pairs up to this
#: size; larger ones are drawn again from a replay of the generator
_CACHE_BYTES = 64 * 2**20


def t_kernel(D, alpha):
    """Paired t test of every row of D (scipy's ``ttest_1samp`` against 0), and its CI.

    A row of zero differences (two identical systems) has t = 0/0, which scipy reports as
    NaN; its p-value is 1 here, as the other tests give it, so that it stays in the
    correction family (a NaN p-value is left out of it, which changes every other pair's
    adjusted p-value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 of identical rows
        res = _st.ttest_1samp(D, 0.0, axis=1)
    n = D.shape[1]
    mean = D.mean(axis=1)
    se = D.std(axis=1, ddof=1) / np.sqrt(n)
    h = _st.t.ppf(1 - alpha / 2, n - 1) * se
    pvalue = np.asarray(res.pvalue, float)
    pvalue = np.where((D == 0).all(axis=1), 1.0, pvalue)
    return np.asarray(res.statistic, float), pvalue, mean - h, mean + h


def wilcoxon_kernel(D, zero_method):
    """Wilcoxon signed-rank test of every row of D, each as `scipy.stats.wilcoxon` tests it alone.

    scipy's ``method="auto"`` picks the exact null distribution when a sample has no zero
    and no tied ``|d|`` (and at most 50 values), a permutation or normal approximation
    otherwise -- but given a 2-D array it decides once for the whole array, so one tied
    row would switch every row to the approximation.  Rows with and without zeros/ties
    are therefore tested in separate calls.
    """
    P = D.shape[0]
    stat = np.zeros(P)  # a row of zero differences: statistic 0 and p = 1, as scipy gives
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


def block_rows(P: int, n: int) -> int:
    """Rows (samples) per block so that a block's arrays stay within ``_CHUNK_ELEMENTS``.

    A block of B samples holds the resampling matrix (B, n) and the product with the
    differences (P, B), so B (P + n) elements are bounded -- by the number of pairs *and* the
    number of topics.
    """
    return max(1, _CHUNK_ELEMENTS // (max(P, 1) + max(n, 1)))


def _iter_blocks(total: int, P: int, n: int):
    step = block_rows(P, n)
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
        for a, b in _iter_blocks(total, P, n):
            k = np.arange(a, b, dtype=np.int64)
            F = (((k[:, None] >> bits) & 1) * 2 - 1).astype(np.float64)  # (B, n)
            count += (np.abs(D @ F.T) >= thresh[:, None]).sum(axis=1)
        p = count / total
    else:
        for a, b in _iter_blocks(n_samples, P, n):
            F = rng.integers(0, 2, size=(b - a, n)).astype(np.float64) * 2 - 1
            count += (np.abs(D @ F.T) >= thresh[:, None]).sum(axis=1)
        p = (count + 1) / (n_samples + 1)
    return obs / n, np.minimum(p, 1.0)


def _resamples(n: int, n_samples: int, rng, rows: int):
    """Yield (a, b, W): multinomial resample counts (b - a, n) of blocks of samples."""
    for a, b in _iter_blocks(n_samples, rows, n):
        yield a, b, rng.multinomial(n, np.full(n, 1.0 / n), size=b - a)


def _bootstrap_blocks(D, n_samples, rng, rows: int):
    """Yield (a, b, means (P, b - a)): bootstrap means of every row of D, block by block."""
    n = D.shape[1]
    for a, b, W in _resamples(n, n_samples, rng, rows):
        yield a, b, (D @ W.T.astype(np.float64)) / n


def bootstrap_means(D, n_samples, rng):
    """(P, B) bootstrap means of each row, resampling topics with replacement."""
    P = D.shape[0]
    out = np.empty((P, n_samples))
    for a, b, m in _bootstrap_blocks(D, n_samples, rng, P):
        out[:, a:b] = m
    return out


def _replay(rng: np.random.Generator, state) -> np.random.Generator:
    g = np.random.Generator(type(rng.bit_generator)())
    g.bit_generator.state = state
    return g


def bootstrap_test(D, n_samples, rng, alpha, *, want_p: bool, want_ci: bool):
    """Bootstrap shift-test p-values and/or percentile CIs of the mean of every row of D.

    Memory is bounded whatever the number of pairs P, samples and topics: the p-value count
    is accumulated block by block; the CI needs all ``n_samples`` means of a row, so rows are
    taken in groups of ``_CHUNK_ELEMENTS // n_samples``, and every group sees the same
    resamples: kept as 1- or 2-byte counts when they fit ``_CACHE_BYTES``, else drawn again
    from a replay of the generator (exactly as in one pass; ``rng`` ends where one pass would
    leave it).
    """
    P = D.shape[0]
    mean = D.mean(axis=1)
    tol = 1e-9 * np.maximum(np.abs(D).mean(axis=1), 1e-300)
    thresh = np.abs(mean) - tol
    count = np.zeros(P, dtype=np.int64)
    lo, hi = np.full(P, np.nan), np.full(P, np.nan)
    n = D.shape[1]
    group = P if not want_ci else max(1, min(P, _CHUNK_ELEMENTS // max(n_samples, 1)))
    # several groups: keep the resamples as small counts when they fit the cache budget,
    # else draw them again from a replay of the generator for every group
    small = np.uint8 if n < 256 else np.uint16 if n < 65536 else np.int64
    cache: list[tuple[int, int, np.ndarray]] | None = (
        [] if group < P and n_samples * n * np.dtype(small).itemsize <= _CACHE_BYTES else None
    )
    state = rng.bit_generator.state
    g = rng
    for r0 in range(0, P, group):
        r1 = min(P, r0 + group)
        Dg = D[r0:r1]
        if r0 == 0:
            blocks = _resamples(n, n_samples, rng, group)
        elif cache is not None:
            blocks = iter(cache)
        else:
            g = _replay(rng, state)
            blocks = _resamples(n, n_samples, g, group)
        out = np.empty((r1 - r0, n_samples)) if want_ci else None
        for a, b, W in blocks:
            if r0 == 0 and cache is not None:
                cache.append((a, b, W.astype(small)))
            m = (Dg @ W.T.astype(np.float64)) / n
            if want_p:
                count[r0:r1] += (np.abs(m - mean[r0:r1, None]) >= thresh[r0:r1, None]).sum(axis=1)
            if out is not None:
                out[:, a:b] = m
        if out is not None:
            lo[r0:r1], hi[r0:r1] = percentile_ci(out, alpha)
            del out
    if g is not rng:
        rng.bit_generator.state = g.bit_generator.state
    p = (count + 1) / (n_samples + 1) if want_p else None
    return p, lo, hi


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
    #: smallest number of topics a bootstrap was used on (None: no bootstrap)
    bootstrap_topics: int | None = None


def check_correction(correction):
    """``correction`` as one of `CORRECTIONS` (common spellings accepted), else [`OptionError`][irframe.errors.OptionError].

    >>> check_correction("Holm-Bonferroni"), check_correction("fdr_bh"), check_correction("none")
    ('holm', 'bh', None)
    """
    if isinstance(correction, str) and _fold(correction) in {_fold(n) for n in _NOT_CORRECTIONS}:
        raise OptionError(
            f"correction={correction!r} is a statsmodels procedure whose adjusted p-values "
            "depend on alpha (two-stage or adaptive FDR) or on a density estimate; irframe "
            "corrects the p-values once, for every alpha. Use 'bh' or 'by' (FDR), or 'holm'."
        )
    return choose("correction", correction, CORRECTIONS, CORRECTION_SYNONYMS)


def check_test(test: Any) -> str:
    """A paired test's name (`TESTS`; peers' spellings such as ``"student"`` accepted), or an
    `OptionError` that lists them; Tukey's HSD is named with the function that runs it.

    >>> check_test("student"), check_test("Wilcoxon")
    ('t', 'wilcoxon')
    """
    if isinstance(test, str) and _fold(test) in ("tukey", "tukeyhsd", "hsd"):
        raise OptionError(
            f"test={test!r}: Tukey's HSD compares every pair at once, on all systems' scores: "
            "irframe.stats.tukey_hsd(cube) (two_way=False is scipy's one-way test, which "
            "ranx's compare(stat_test='tukey') runs)"
        )
    return choose("test", test, TESTS, TEST_SYNONYMS)


def compare_options(
    test, correction, alpha, n_samples, rng, missing, ci, exact, zero_method
) -> CompareOptions:
    test = check_test(test)
    correction = check_correction(correction)
    alpha = ALPHA.check("alpha", alpha)
    n_samples = DRAWS.check("n_samples", n_samples)
    exact = check_flag("exact", exact, allow_none=True)
    if ci is None:
        ci = "bootstrap" if test == "bootstrap" else "t"
    if ci not in ("t", "bootstrap"):
        raise OptionError(f"ci must be 't' or 'bootstrap', got {ci!r}")
    if test == "wilcoxon" and zero_method not in ("wilcox", "pratt", "zsplit"):
        raise OptionError(f"zero_method must be 'wilcox', 'pratt' or 'zsplit', got {zero_method!r}")
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
        lo = hi = None
        if o.test == "t":
            stat, p, lo, hi = t_kernel(Dg, o.alpha)
        elif o.test == "wilcoxon":
            stat, p = wilcoxon_kernel(Dg, o.zero_method)
        elif o.test == "randomization":
            ex = (n <= _EXACT_MAX_TOPICS) if o.exact is None else bool(o.exact)
            if ex and n > 30:
                raise OptionError(
                    f"exact randomization with {n} topics would enumerate 2**{n} sign vectors"
                )
            o.used_exact = o.used_exact or ex
            stat, p = randomization_kernel(Dg, o.n_samples, o.gen, ex)
        else:  # bootstrap
            stat = Dg.mean(axis=1)
            p, blo, bhi = bootstrap_test(
                Dg, o.n_samples, o.gen, o.alpha, want_p=True, want_ci=o.ci == "bootstrap"
            )
            if o.ci == "bootstrap":
                lo, hi = blo, bhi
        if o.test == "bootstrap" or o.ci == "bootstrap":
            o.bootstrap_topics = n if o.bootstrap_topics is None else min(n, o.bootstrap_topics)
        if o.ci == "bootstrap" and o.test != "bootstrap":
            _, lo, hi = bootstrap_test(Dg, o.n_samples, o.gen, o.alpha, want_p=False, want_ci=True)
        elif lo is None:
            _, _, lo, hi = t_kernel(Dg, o.alpha)
        for k, v in (("statistic", stat), ("pvalue", p), ("ci_low", lo), ("ci_high", hi)):
            res[k][rows] = v
    return res


def warn_bootstrap(n: int | None, what: str, stacklevel: int = 3) -> None:
    """Warn ([CalibrationWarning][irframe.errors.CalibrationWarning]) for a bootstrap on too few topics."""
    if n is None or n >= BOOTSTRAP_MIN_TOPICS:
        return
    warnings.warn(
        f"{what} on {n} topics: below {BOOTSTRAP_MIN_TOPICS} topics the bootstrap is not "
        f"calibrated (measured Type-I rate at alpha = 0.05: 0.42-0.47 on 2 topics, 0.16-0.18 "
        f"on 5, 0.09-0.11 on 10, 0.06-0.08 on 20; docs/stats.md). Use test='randomization' (exact sign-flip test "
        f"up to 16 topics), 't' or 'wilcoxon', and ci='t'.",
        CalibrationWarning,
        stacklevel=stacklevel,
    )


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
