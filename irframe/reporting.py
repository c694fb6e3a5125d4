"""A results table for papers: means, significance markers, the best value in bold.

[`report`][irframe.reporting.report] turns a score cube into a [`Report`][irframe.reporting.Report]: one row per system, one
column per measure, each cell the mean over topics with

* against a ``baseline``: ``↑``/``↓`` when the system is significantly better/worse
  than the baseline; without a baseline, as ranx's ``Report`` does, each system gets
  a letter (a, b, ...) and a cell lists the letters of the systems it is
  significantly better than;
* the best value of each measure (after rounding to ``digits``) in bold;
* optionally the (1 - alpha) confidence interval of the mean and, against a
  baseline, the per-topic wins/ties/losses.

The significance comes from [`irframe.stats.compare`][irframe.stats.compare] (kept as
`Report.comparison`) and the intervals from [`irframe.stats.mean_ci`][irframe.stats.mean_ci];
nothing here tests anything itself.  LaTeX (booktabs), Markdown and HTML are
written from the same cells, so they show the same content.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._lazy import xarray as xr  # imported on first use: the command line never needs it
from .cube import lower_is_better_labels, measure_dim_advice, pick_labels
from .errors import InputError, OptionError, UnknownMeasureError, UnknownSystemError
from .options import check_missing, peer_keywords
from .params import Param, check_flag

__all__ = ["Report", "report"]

_TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
}
_CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "by": "Benjamini-Yekutieli",
    "sidak": "Šidák",
    "holm-sidak": "Holm-Šidák",
    "simes-hochberg": "Hochberg",
    "hommel": "Hommel",
}
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "|": r"\textbar{}",  # pdflatex's default font prints these three as other glyphs
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "`": r"\textasciigrave{}",
}
_HTML_SPECIAL = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


@dataclass(frozen=True)
class _Cell:
    value: str  # the mean, rounded
    bold: bool  # best of its measure
    arrow: str = ""  # "up" / "down" against the baseline
    letters: str = ""  # systems this one is significantly better than (all-pairs mode)
    ci: str = ""  # "[lo, hi]"
    wtl: str = ""  # "wins/ties/losses"


_DIGITS = Param("int", 4, low=0, high=15, description="decimals shown")


def _render(c: _Cell, bold: str, up: str, down: str, letters: str) -> str:
    """One cell in one output format; ``bold`` and ``letters`` are ``str.format`` patterns."""
    v = bold.format(c.value) if c.bold else c.value
    v += {"up": up, "down": down, "": ""}[c.arrow]
    if c.letters:
        v += letters.format(c.letters)
    return v + (f" {c.ci}" if c.ci else "")


def _escape(text: str, table: dict[str, str]) -> str:
    """``text`` safe for one cell: control characters (newline, tab, ...) shown as their
    escapes (``\\n``) so that a name can never break a row, then ``table``'s replacements."""
    return "".join(table.get(ch, ch) for ch in _visible(text))


def _md_name(text: str) -> str:
    """A name as Markdown text (`_MD_SPECIAL`), but an ``_`` between two letters or digits
    left as it is: it opens no emphasis there (``all_score``), so names read as written."""
    text = _visible(text)
    return "".join(
        ch
        if ch == "_" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
        else _MD_SPECIAL.get(ch, ch)
        for i, ch in enumerate(text)
    )


def _visible(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text)


_MD_SPECIAL = {  # a name is text: no table cell break, HTML, emphasis, code or link
    "|": r"\|",
    "<": "&lt;",
    ">": "&gt;",
    "\\": "\\\\",
    "*": r"\*",
    "_": r"\_",
    "`": r"\`",
    "[": r"\[",
    "]": r"\]",
}
#: the legend's own brackets ("[lo, hi]") open no link: only its names need the rest
_MD_LEGEND = {k: v for k, v in _MD_SPECIAL.items() if k not in "[]"}


def _letters(n: int) -> list[str]:
    """a, b, ..., z, aa, ab, ... for n systems."""
    out: list[str]
    out, width = [], 1
    while len(out) < n:
        digits = [list(string.ascii_lowercase)] * width
        for combo in np.array(np.meshgrid(*digits, indexing="ij")).reshape(width, -1).T:
            out.append("".join(combo))
            if len(out) == n:
                break
        width += 1
    return out


class Report:
    """A results table built by [`report`][irframe.reporting.report]; render it with [`to_latex`][irframe.reporting.Report.to_latex],
    [`to_markdown`][irframe.reporting.Report.to_markdown], [`to_html`][irframe.reporting.Report.to_html] or [`style`][irframe.reporting.Report.style].

    Attributes
    ----------
    means : pandas.DataFrame
        Mean per system (rows) and measure (columns), unrounded.
    comparison : xarray.Dataset
        The result of [`irframe.stats.compare`][irframe.stats.compare] the markers come from.
    ci : xarray.Dataset or None
        [`irframe.stats.mean_ci`][irframe.stats.mean_ci] when ``ci=True``.
    baseline : str or None
    letters : dict or None
        System → letter in the all-pairs mode.
    legend : str
        What the markers mean (test, correction, alpha).
    """

    def __init__(
        self,
        means: pd.DataFrame,
        comparison: xr.Dataset,
        cells: dict[tuple[str, str], _Cell],
        baseline: str | None,
        letters: dict[str, str] | None,
        ci: xr.Dataset | None,
        wins: bool,
        legend: str,
    ) -> None:
        self.means = means
        self.comparison = comparison
        self.ci = ci
        self.baseline = baseline
        self.letters = letters
        self.legend = legend
        self._cells = cells
        self._wins = wins

    # ------------------------------------------------------------------ layout
    def _header(self) -> list[str]:
        head = ["system"] if self.letters is None else ["#", "system"]
        for m in self.means.columns:
            head.append(str(m))
            if self._wins:
                head.append(f"{m} W/T/L")
        return head

    def _rows(self, cell_text, name_text, mark: bool = True) -> list[list[str]]:
        """One row per system (the baseline first, marked ``(baseline)`` unless ``mark=False``)."""
        rows = []
        for s in self.means.index:
            row = [] if self.letters is None else [self.letters[s]]
            label = f"{s} (baseline)" if mark and str(s) == str(self.baseline) else str(s)
            row.append(name_text(label))
            for m in self.means.columns:
                c = self._cells[(s, m)]
                row.append(cell_text(c))
                if self._wins:
                    row.append(c.wtl)
            rows.append(row)
        return rows

    # ------------------------------------------------------------------ renderers
    def to_frame(self) -> pd.DataFrame:
        """The table as plain strings (``↑``/``↓``, ``^ab`` for letters; no bold).

        Returns
        -------
        pandas.DataFrame
            Systems as rows, measures as columns, cells as the strings shown.

        See Also
        --------
        - [`irframe.report`][irframe.report]: makes the report.
        - [Results tables](../report.md): the guide, with rendered examples.
        """

        def text(c: _Cell) -> str:
            return _render(c, "{}", "↑", "↓", "^{}")

        rows = self._rows(text, str, mark=False)  # the index: system names as in the cube
        head = self._header()
        return pd.DataFrame(
            [r[1:] if self.letters is None else [r[0], *r[2:]] for r in rows],
            index=pd.Index([r[0 if self.letters is None else 1] for r in rows], name="system"),
            columns=[h for h in head if h != "system"],
        )

    @property
    def style(self):
        """A pandas Styler of [`to_frame`][irframe.reporting.Report.to_frame] with the best values in bold (needs jinja2)."""
        frame = self.to_frame()
        bold = pd.DataFrame(False, index=frame.index, columns=frame.columns)
        for (s, m), c in self._cells.items():
            bold.loc[str(s), str(m)] = c.bold
        return frame.style.apply(lambda _: np.where(bold, "font-weight: bold", ""), axis=None)

    def to_latex(
        self, *, caption: str | None = None, label: str | None = None, legend: bool = True
    ) -> str:
        r"""The table as LaTeX: a ``tabular`` with booktabs rules (``\usepackage{booktabs}``).

        With ``caption`` or ``label`` it is wrapped in a ``table`` environment.  The
        legend is a small-print paragraph below the ``tabular`` (it wraps at the text width,
        where a row of the table could not).

        Parameters
        ----------
        caption : str, optional
            Caption of the ``table`` environment.
        label : str, optional
            ``\\label`` of the ``table`` environment.
        legend : bool
            Add the legend line (markers, test, correction, α).

        Returns
        -------
        str

        See Also
        --------
        - [`irframe.report`][irframe.report]: makes the report.
        - [Results tables](../report.md): the guide, with rendered examples.
        """

        def cell(c: _Cell) -> str:
            return _render(
                c, r"\textbf{{{}}}", r"$^{\uparrow}$", r"$^{\downarrow}$", r"$^{{\mathrm{{{}}}}}$"
            )

        head = self._header()
        align = "l" * (1 if self.letters is None else 2) + "r" * (
            len(head) - (1 if self.letters is None else 2)
        )
        lines = [
            rf"\begin{{tabular}}{{{align}}}",
            r"\toprule",
            " & ".join(_escape(h, _LATEX_SPECIAL) for h in head) + r" \\",
            r"\midrule",
        ]
        lines += [
            " & ".join(r).replace("–", "--") + r" \\"
            for r in self._rows(cell, lambda s: _escape(s, _LATEX_SPECIAL))
        ]
        lines += [r"\bottomrule", r"\end{tabular}"]
        if check_flag("legend", legend):  # below the tabular: it wraps at the text width
            text = (
                _escape(self.legend, _LATEX_SPECIAL)
                .replace("↑", r"$\uparrow$")
                .replace("↓", r"$\downarrow$")
                .replace("α", r"$\alpha$")
            )
            lines.append(rf"\par\smallskip{{\footnotesize {text}\par}}")
        if caption is not None or label is not None:
            inner = [r"\begin{table}", r"\centering"]
            if caption is not None:
                inner.append(rf"\caption{{{_escape(caption, _LATEX_SPECIAL)}}}")
            if label is not None:
                inner.append(rf"\label{{{label}}}")
            lines = inner + lines + [r"\end{table}"]
        return "\n".join(lines) + "\n"

    def to_markdown(self, *, legend: bool = True) -> str:
        """The table as GitHub/Markdown pipe table (bold as ``**``, letters as ``<sup>``).

        Parameters
        ----------
        legend : bool
            Add the legend line (markers, test, correction, α).

        Returns
        -------
        str

        See Also
        --------
        - [`irframe.report`][irframe.report]: makes the report.
        - [Results tables](../report.md): the guide, with rendered examples.
        """

        def cell(c: _Cell) -> str:
            return _render(c, "**{}**", "↑", "↓", "<sup>{}</sup>")

        head = self._header()
        n_left = 1 if self.letters is None else 2
        lines = [
            "| " + " | ".join(_md_name(h) for h in head) + " |",
            "|" + "|".join([":---"] * n_left + ["---:"] * (len(head) - n_left)) + "|",
        ]
        lines += ["| " + " | ".join(r) + " |" for r in self._rows(cell, _md_name)]
        if check_flag("legend", legend):
            lines += ["", _escape(self.legend, _MD_LEGEND)]
        return "\n".join(lines) + "\n"

    def to_html(self, *, legend: bool = True) -> str:
        """The table as an HTML ``<table>`` (no styling library needed).

        Parameters
        ----------
        legend : bool
            Add the legend line (markers, test, correction, α).

        Returns
        -------
        str

        See Also
        --------
        - [`irframe.report`][irframe.report]: makes the report.
        - [Results tables](../report.md): the guide, with rendered examples.
        """

        def cell(c: _Cell) -> str:
            return _render(c, "<b>{}</b>", "↑", "↓", "<sup>{}</sup>")

        head = self._header()
        out = [
            '<table class="irframe-report">',
            "<thead><tr>"
            + "".join(f"<th>{_escape(h, _HTML_SPECIAL)}</th>" for h in head)
            + "</tr></thead>",
            "<tbody>",
        ]
        out += [
            "<tr>" + "".join(f"<td>{v}</td>" for v in r) + "</tr>"
            for r in self._rows(cell, lambda s: _escape(s, _HTML_SPECIAL))
        ]
        out.append("</tbody>")
        if check_flag("legend", legend):
            out.append(
                f'<caption style="caption-side: bottom">{_escape(self.legend, _HTML_SPECIAL)}</caption>'
            )
        out.append("</table>")
        return "\n".join(out) + "\n"

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return self.to_frame().to_string() + "\n" + self.legend


@peer_keywords
def report(
    cube: xr.DataArray,
    baseline: str | None = None,
    *,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    digits: int = 4,
    missing: str = "skip",
    ci: bool = False,
    wins: bool = False,
    measures: Sequence[str] | None = None,
    lower_is_better: str | Iterable[str] | None = None,
    n_samples: int = 10_000,
    rng=None,
    systems: Sequence[str] | None = None,
) -> Report:
    """A results table of a score cube: means, significance markers, best in bold.

    Parameters
    ----------
    cube : xarray.DataArray
        Scores with dims ``(system, topic, measure)`` (from [`irframe.evaluate`][irframe.evaluate]).
    baseline : str, optional
        Compare every system with this one (``↑``/``↓``).  None: every pair, with
        letters as ranx's ``Report``.
    test, correction, alpha, n_samples, rng
        Passed to [`irframe.stats.compare`][irframe.stats.compare] (and ``alpha`` to
        [`irframe.stats.mean_ci`][irframe.stats.mean_ci]).  The correction family is, per measure, every
        pair compared.
    digits : int, default 4
        Decimals shown; the best value is decided on the rounded values (ties all bold).
    missing : {"skip", "common", "zero"}
        Topics a system was not evaluated on (NaN), one meaning for the means and the tests
        (`irframe.options.MISSING`): ``"skip"`` (default): each mean over the system's
        own topics, each test over the topics both systems have; ``"common"``: only topics
        every system was evaluated on; ``"zero"`` counts them as 0 everywhere.
    ci : bool
        Show the (1 - alpha) t interval of each mean ([`irframe.stats.mean_ci`][irframe.stats.mean_ci]).
    wins : bool
        With a baseline: add a ``W/T/L`` column per measure, the topics where the
        system is better than / equal to / worse than the baseline (above / equal / below;
        below / equal / above for a lower-is-better measure).
    measures : list of str, optional
        Measures (columns) to show, in this order; default all of the cube.
    lower_is_better : list of str, optional
        Measures whose best value is the smallest.  Default: those the cube records
        (``ndpm``, C/W/L's costs ``EC`` and ``ETC``; each measure declares it, see
        [`irframe.cube.lower_is_better_labels`][irframe.cube.lower_is_better_labels]); a
        label that names no measure (renamed) is taken as higher-is-better, with a warning.
    systems : list of str, optional
        Systems (rows) to show and compare, in this order; default every system in the
        cube's order ([irframe.evaluate][] keeps the order of a dict or list of runs, and
        sorts the systems of one long frame by code point).  The baseline is always the
        first row, marked ``(baseline)`` in the rendered tables.

    Returns
    -------
    Report

    See Also
    --------
    - [`irframe.summarize`][irframe.summarize]: the plain means.
    - [`irframe.stats.compare`][irframe.stats.compare]: the tests behind the markers.
    - [Results tables](../report.md): the guide.

    Examples
    --------
    >>> import irframe as irf
    >>> qrels, runs = irf.datasets.synthetic(3, 20, 50, rng=1)
    >>> cube = irf.evaluate(runs, qrels, ["AP", "nDCG@10"])
    >>> r = irf.report(cube, baseline="sys0", digits=3)
    >>> print(r.to_markdown(), end="")
    | system | AP | nDCG@10 |
    |:---|---:|---:|
    | sys0 (baseline) | 0.091 | 0.149 |
    | sys1 | 0.537↑ | 0.718↑ |
    | sys2 | **0.825**↑ | **0.943**↑ |
    <BLANKLINE>
    ↑/↓: significantly better/worse than sys0 (paired t-test, Holm correction, α = 0.05). Best value per measure in bold.
    >>> bool(r.comparison.significant.sel(system="sys2", measure="AP").item())
    True
    """
    ci = check_flag("ci", ci)
    wins = check_flag("wins", wins)
    from . import stats
    from ._paired import check_correction, check_test
    from .cube import summarize

    test = check_test(test)  # "student", "t-test" ... as "t"
    correction = check_correction(correction)
    cube, systems, baseline, lower = _report_input(
        cube, baseline, missing, digits, wins, measures, lower_is_better, systems
    )
    cmp = stats.compare(
        cube,
        baseline,
        test=test,
        correction=correction,
        alpha=alpha,
        missing=missing,
        n_samples=n_samples,
        rng=rng,
    )
    baseline = None if baseline is None else str(baseline)  # the table's spelling
    means = summarize(cube, missing=missing)
    means.index = means.index.astype(str)
    means.columns = means.columns.astype(str)
    intervals = stats.mean_ci(cube, alpha=alpha, missing=missing) if ci else None
    letters = (
        None if baseline is not None else dict(zip(systems, _letters(len(systems)), strict=True))
    )
    cells = _report_cells(means, cmp, intervals, systems, baseline, letters, lower, int(digits))
    legend = (
        _report_legend(test, correction, alpha, baseline, ci, wins)
        + (" Best value per measure in bold." if cells else "")
        + _topics_note(cube, missing)
    )
    return Report(means, cmp, cells, baseline, letters, intervals, bool(wins), legend)


def _report_input(cube, baseline, missing, digits, wins, measures, lower_is_better, order=None):
    """Validate [`report`][irframe.reporting.report]'s arguments → (cube with the chosen measures, system names, lower-is-better set)."""
    if not isinstance(cube, xr.DataArray) or set(cube.dims) != {"system", "topic", "measure"}:
        got = tuple(cube.dims) if isinstance(cube, xr.DataArray) else type(cube).__name__
        fix = (
            isinstance(cube, xr.DataArray) and measure_dim_advice(cube)
        ) or "select the other dimensions first (e.g. cube.sel(qrels=...))"
        raise InputError(
            f"report needs a cube with dims (system, topic, measure), got {got}; {fix}"
        )
    check_missing(missing, ("skip", "common", "zero"))
    _DIGITS.check("digits", digits)
    if measures is not None:
        measures = [measures] if isinstance(measures, str) else list(measures)
        cube = cube.sel(
            measure=pick_labels(measures, cube.measure.values, "measure", UnknownMeasureError)
        )
    systems = [str(s) for s in cube.system.values]
    if baseline is not None:  # as compare() spells it, or as the table shows it (str)
        from .stats import numbered_system_hint

        baseline = pick_labels(
            [baseline], cube.system.values, "baseline", UnknownSystemError, numbered_system_hint
        )[0]
    chosen = systems
    if order is not None:  # the rows asked for, in that order
        from .stats import unknown_system_error

        chosen = [order] if isinstance(order, str) else [str(s) for s in order]
        unknown = [s for s in chosen if s not in systems]
        if unknown:
            raise unknown_system_error("systems= lists", unknown[0], systems)
    if baseline is not None:  # the baseline first
        chosen = [str(baseline)] + [s for s in chosen if s != str(baseline)]
    if chosen != systems:
        at = {s: i for i, s in enumerate(systems)}
        cube = cube.isel(system=[at[s] for s in chosen])
        systems = chosen
    if wins and baseline is None:
        raise OptionError("wins=True counts wins/ties/losses against a baseline; pass baseline=...")
    return cube, systems, baseline, lower_is_better_labels(cube, lower_is_better)


def _report_cells(means, cmp, intervals, systems, baseline, letters, lower, digits) -> dict:
    """One `_Cell` per (system, measure): the mean, bold when best, markers, CI and W/T/L."""
    rounded = means.round(digits)
    best = {m: (rounded[m].min() if m in lower else rounded[m].max()) for m in rounded.columns}
    sig = cmp["significant"].transpose("system", "other", "measure")
    effect = cmp["effect"].transpose("system", "other", "measure")
    cells: dict[tuple[str, str], _Cell] = {}
    if intervals is not None:  # by position: systems and measures in the cube's order
        ci_low = intervals["ci_low"].transpose("system", "measure").values
        ci_high = intervals["ci_high"].transpose("system", "measure").values
    wtl_keys = ("wins", "ties", "losses")
    sep = "," if len(systems) > 26 else ""  # letters of two characters ("aa") stay apart
    for j, m in enumerate(means.columns):
        better = (effect.values[:, :, j] < 0) if m in lower else (effect.values[:, :, j] > 0)
        up = sig.values[:, :, j] & better
        down = sig.values[:, :, j] & ~better & (effect.values[:, :, j] != 0)
        for i, s in enumerate(systems):
            v = means.iloc[i, j]
            text = "–" if np.isnan(v) else f"{v:.{digits}f}"
            arrow = lett = ci_text = wtl = ""
            if baseline is not None:
                if s != baseline:
                    arrow = "up" if up[i, 0] else ("down" if down[i, 0] else "")
                    w = [
                        int(cmp[k].values[i, 0, j])
                        for k in (wtl_keys[::-1] if m in lower else wtl_keys)  # W: better
                        if not np.isnan(cmp[k].values[i, 0, j])
                    ]
                    wtl = "/".join(map(str, w)) if len(w) == 3 else "–"
                else:
                    wtl = "–"
            else:
                lett = sep.join(letters[systems[o]] for o in np.flatnonzero(up[i]))
            if intervals is not None:
                lo, hi = float(ci_low[i, j]), float(ci_high[i, j])
                if not (np.isnan(lo) or np.isnan(hi)):
                    ci_text = f"[{lo:.{digits}f}, {hi:.{digits}f}]"
            cells[(s, m)] = _Cell(
                text,
                bool(not np.isnan(v) and rounded.iloc[i, j] == best[m]),
                arrow,
                lett,
                ci_text,
                wtl,
            )
    return cells


def _topics_note(cube: xr.DataArray, missing: str) -> str:
    """With ``missing="skip"``, the systems whose means cover fewer topics than the others
    (each mean is over the system's own topics, so such means are not over one topic set)."""
    if missing != "skip" or not cube.sizes.get("topic"):
        return ""
    n = cube.notnull().sum("topic").min("measure").to_pandas()
    most = int(n.max())
    fewer = {str(s): int(k) for s, k in n.items() if k < most}
    if not fewer:
        return ""
    shown_ = ", ".join(f"{s}: {k}" for s, k in list(fewer.items())[:5]) + (
        " ..." if len(fewer) > 5 else ""
    )
    return (
        f" Means over each system's own topics: {shown_} of {most} topics "
        "(missing='common' compares all on the topics every system has)."
    )


def _report_legend(test, correction, alpha, baseline, ci, wins) -> str:
    how = (
        f"{_TEST_NAMES[test]}, "
        + (f"{_CORRECTION_NAMES[correction]} correction" if correction else "no correction")
        + f", α = {alpha:g}"
    )
    if baseline is not None:
        legend = f"↑/↓: significantly better/worse than {baseline} ({how})."
    else:
        legend = f"Letters: significantly better than the system with that letter ({how})."
    if ci:
        legend += f" [lo, hi]: {1 - alpha:.0%} t confidence interval of the mean."
    if wins:
        legend += f" W/T/L: topics better than/equal to/worse than {baseline}."
    return legend
