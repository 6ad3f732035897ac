"""The HTML report: one self-contained file (plotly.js inlined, no network needed to open it) with the
comparison table, a forest plot of the differences and their intervals, the learning curves and a chart per
knob."""

from __future__ import annotations

import html
from pathlib import Path

import plotly.io
import plotly.offline

from zoo.compare import caption
from zoo.compare.ablation import Comparison
from zoo.compare.cells import cells, headers, notes
from zoo.compare.figures import by_knob, forest, learning_curves
from zoo.compare.several import disagreement_lines
from zoo.output_files import mark

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; font-size: 14px; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; }
td.knob, th.knob { text-align: left; }
tr.base { font-weight: bold; }
tr.beyond td { background: #e8f4ff; }
p.note { font-size: 13px; color: #555; margin: 0.3em 0; }
p.shows { font-size: 15px; margin: 0.3em 0 1em; }
"""


def _table(comparison: Comparison, command: str | None) -> str:
    head = "".join(
        f"<th{' class=knob' if i <= len(comparison.knobs) else ''}>{html.escape(h)}</th>"
        for i, h in enumerate(headers(comparison))
    )
    rows = []
    for row in comparison.rows:
        beyond = row.difference is not None and row.difference.verdict == "beyond noise"
        css = "base" if row.is_baseline else "beyond" if beyond else ""
        tds = "".join(
            f"<td{' class=knob' if i <= len(comparison.knobs) else ''}>{html.escape(c)}</td>"
            for i, c in enumerate(cells(comparison, row))
        )
        rows.append(f'<tr class="{css}">{tds}</tr>')
    below = [*caption.lines(comparison, command), *notes(comparison)]
    notes_html = "".join(f'<p class="note">{html.escape(line)}</p>' for line in below)
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>{notes_html}"


def _section(comparison: Comparison, command: str | None) -> str:
    figures = [forest(comparison), learning_curves(comparison)]
    figures += [by_knob(comparison, knob) for knob in comparison.knobs]
    charts = "".join(plotly.io.to_html(f, include_plotlyjs=False, full_html=False) for f in figures)
    return f"{_table(comparison, command)}{charts}"


def report_html(comparisons: list[Comparison], command: str | None = None) -> str:
    """The report as one HTML document: a title block saying what it shows (sweep, data, budget, the command
    that made it), then per metric its table with the same line under it, forest plot, learning curves and a
    chart per knob; with several metrics, the rows whose metrics disagree in direction.

    Args:
        comparisons: from :func:`zoo.compare.ablation.compare`, one per metric.
        command: the command line that made it (:func:`zoo.compare.caption.compare_command`).

    Returns:
        HTML with plotly.js inlined once and every chart's data embedded.
    """
    first = comparisons[0]
    sweeps = sorted({run.group for row in first.rows for run in row.runs if run.group})
    metrics = ", ".join(c.metric for c in comparisons)
    title = html.escape(f"zoo compare: {metrics}" + (f" of {', '.join(sweeps)}" if sweeps else ""))
    shows = "".join(f'<p class="shows">{html.escape(line)}</p>' for line in caption.lines(first, command))
    if len(comparisons) == 1:
        body = _section(first, command)
    else:
        body = "".join(f"<h2>{html.escape(c.metric)}</h2>{_section(c, command)}" for c in comparisons)
        body += "".join(f'<p class="note">{html.escape(line)}</p>' for line in disagreement_lines(comparisons))
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="generator" content="{mark("compare")}">'
        f"<title>{title}</title><style>{STYLE}</style>"
        f"<script>{plotly.offline.get_plotlyjs()}</script></head><body><h1>{title}</h1>{shows}{body}</body></html>"
    )


def write_report(comparisons: list[Comparison], path: Path, command: str | None = None) -> None:
    """Write :func:`report_html` to ``path``, whose folder exists (checked by the command before any run is read)."""
    path.write_text(report_html(comparisons, command), encoding="utf-8")
