"""The HTML report: one self-contained file (plotly.js inlined, no network needed to open it) with the
comparison table, a forest plot of the differences and their intervals, the learning curves and a chart per
knob."""

from __future__ import annotations

import html
from pathlib import Path

import plotly.io
import plotly.offline

from zoo.compare import all_pairs, caption, paired
from zoo.compare.ablation import Comparison
from zoo.compare.cells import cells, headers
from zoo.compare.figures import by_knob, forest, learning_curves
from zoo.compare.notes import notes
from zoo.compare.several import disagreement_lines
from zoo.runs.output_files import mark

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
div.table { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 6px; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }
th, td.wrap { white-space: normal; }
td.wrap { min-width: 9em; }
th { background: #f4f4f4; }
td.knob, th.knob { text-align: left; }
tr.base { font-weight: bold; }
tr.beyond td { background: #e8f4ff; }
p.note { font-size: 13px; color: #555; margin: 0.3em 0; }
p.shows { font-size: 15px; margin: 0.3em 0 1em; }
h3 { font-size: 15px; margin: 1.2em 0 0.4em; }
"""


def _cell(tag: str, text: str, knob: bool, wrap: bool = False) -> str:
    """One ``<td>``/``<th>``: knob columns left-aligned; a long cell (a verdict) may wrap, so the table fits."""
    css = " ".join(c for c, on in (("knob", knob), ("wrap", wrap)) if on)
    return f"<{tag}{f' class={css!r}' if css else ''}>{html.escape(text)}</{tag}>"


def _html_table(head: list[str], rows: list[tuple[str, list[str]]], knobs: int) -> str:
    """``head`` and ``(css class, cells)`` rows as a table in a container that scrolls rather than widen the
    page; the first ``knobs`` columns left-aligned, the verdict's column wrapping."""
    wrap = head.index("verdict") if "verdict" in head else -1
    head_html = "".join(_cell("th", h, i < knobs) for i, h in enumerate(head))
    body = "".join(
        f'<tr class="{css}">' + "".join(_cell("td", c, i < knobs, i == wrap) for i, c in enumerate(cells)) + "</tr>"
        for css, cells in rows
    )
    return f'<div class="table"><table><tr>{head_html}</tr>{body}</table></div>'


def _notes(lines: list[str]) -> str:
    return "".join(f'<p class="note">{html.escape(line)}</p>' for line in lines)


def _table(comparison: Comparison, command: str | None, said: list[str]) -> str:
    """The comparison's table and its notes; the lines of :func:`zoo.compare.caption.lines` only where they are
    not the title block's ``said`` (each is said once)."""
    rows = []
    for row in comparison.rows:
        beyond = row.difference is not None and row.difference.verdict == "beyond noise"
        rows.append(("base" if row.is_baseline else "beyond" if beyond else "", cells(comparison, row)))
    table = _html_table(headers(comparison), rows, len(comparison.knobs) + 1)
    shows = [line for line in caption.lines(comparison, command) if line not in said]
    return table + _notes([*shows, *notes(comparison)])


def _paired(comparison: Comparison, results: paired.Results) -> str:
    """The ``--paired`` table, as in the terminal (:mod:`zoo.compare.paired`)."""
    rows = [("beyond" if d.verdict == "beyond noise" else "", paired.cells(comparison, knobs, d))
            for knobs, d in results]  # fmt: skip
    title = f"<h3>{html.escape(paired.title(comparison, results))}</h3>"
    table = _html_table(paired.headers(comparison), rows, len(comparison.knobs))
    return title + table + _notes([paired.R_NOTE])


def _all_pairs(comparison: Comparison) -> str:
    """``--all_pairs``: the pairs' table and the best line, as in the terminal (:mod:`zoo.compare.all_pairs`)."""
    result = comparison.all_pairs
    if result is None:
        return ""
    pairs = all_pairs.rows(comparison, result)
    rows = [("beyond" if cells[-1] == "beyond noise" else "", cells) for cells in pairs]
    title = f"<h3>{html.escape(all_pairs.title(comparison, result))}</h3>"
    table = _html_table(all_pairs.HEADERS, rows, 1)
    return title + table + _notes([all_pairs.best_line(comparison, result)])


def _section(comparison: Comparison, command: str | None, said: list[str], paired: paired.Results | None,
             plan: list[str]) -> str:  # fmt: skip
    """One metric's table, its paired table and plan where asked for, then its charts."""
    figures = [forest(comparison), learning_curves(comparison)]
    figures += [by_knob(comparison, knob) for knob in comparison.knobs]
    charts = "".join(plotly.io.to_html(f, include_plotlyjs=False, full_html=False) for f in figures)
    extra = (_paired(comparison, paired) if paired is not None else "") + _all_pairs(comparison) + _notes(plan)
    return f"{_table(comparison, command, said)}{extra}{charts}"


def report_html(
    comparisons: list[Comparison],
    command: str | None = None,
    paired: list[paired.Results] | None = None,
    plans: list[list[str]] | None = None,
) -> str:
    """The report as one HTML document: a title block saying what it shows (sweep, data, budget, the command
    that made it), then per metric its table with the same line under it, the ``--paired`` table and the
    ``--plan`` lines where asked for, forest plot, learning curves and a chart per knob; with several metrics,
    the rows whose metrics disagree in direction.

    Args:
        comparisons: from :func:`zoo.compare.ablation.compare`, one per metric.
        command: the command line that made it (:func:`zoo.compare.caption.compare_command`).
        paired: per comparison, :func:`zoo.compare.paired.paired_rows` (``--paired``); ``None`` without it.
        plans: per comparison, :func:`zoo.compare.plan.plan_lines` (``--plan``); ``None`` or empty without it.

    Returns:
        HTML with plotly.js inlined once and every chart's data embedded.
    """
    first = comparisons[0]
    sweeps = sorted({run.group for row in first.rows for run in row.runs if run.group})
    metrics = ", ".join(c.metric for c in comparisons)
    title = html.escape(f"zoo compare: {metrics}" + (f" of {', '.join(sweeps)}" if sweeps else ""))
    said = caption.lines(first, command)
    shows = "".join(f'<p class="shows">{html.escape(line)}</p>' for line in said)
    extras = list(zip(paired or [None] * len(comparisons), plans or [[]] * len(comparisons), strict=True))
    if len(comparisons) == 1:
        body = _section(first, command, said, *extras[0])
    else:
        body = "".join(f"<h2>{html.escape(c.metric)}</h2>{_section(c, command, said, *extra)}"
                       for c, extra in zip(comparisons, extras, strict=True))  # fmt: skip
        body += _notes(disagreement_lines(comparisons))
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="generator" content="{mark("compare")}">'
        f"<title>{title}</title><style>{STYLE}</style>"
        f"<script>{plotly.offline.get_plotlyjs()}</script></head><body><h1>{title}</h1>{shows}{body}</body></html>"
    )


def write_report(
    comparisons: list[Comparison],
    path: Path,
    command: str | None = None,
    paired: list[paired.Results] | None = None,
    plans: list[list[str]] | None = None,
) -> None:
    """Write :func:`report_html` to ``path``, whose folder exists (checked by the command before any run is read)."""
    path.write_text(report_html(comparisons, command, paired, plans), encoding="utf-8")
