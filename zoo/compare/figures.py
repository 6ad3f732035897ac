"""The charts of the HTML report (plotly): learning curves with a band over seeds, and the metric by knob value
with every seed as a point. Data go in as plain lists so that the report's JSON holds readable numbers."""

from __future__ import annotations

import statistics

import plotly.graph_objects as go
from plotly.colors import qualitative

from zoo.compare.ablation import Comparison, Row
from zoo.compare.caption import curve_points
from zoo.compare.cells import label, level, short_knob
from zoo.compare.notes import INTERVAL_NAMES
from zoo.compare.run_values import metric_value
from zoo.compare.statistics import Spread, spread
from zoo.compare.verdicts import words

COLOURS = qualitative.Plotly


def _band(row: Row, metric: str) -> tuple[list, list, list]:
    """Steps, mean and sample standard deviation (``statistics.stdev``, n - 1; 0 for one seed) of ``metric`` over
    the seeds of ``row``."""
    by_step: dict[int, list[float]] = {}
    for run in row.runs:
        for step, value in run.history.get(metric, []):
            by_step.setdefault(step, []).append(value)
    steps = sorted(by_step)
    means = [statistics.fmean(by_step[s]) for s in steps]
    stds = [statistics.stdev(by_step[s]) if len(by_step[s]) > 1 else 0.0 for s in steps]
    return steps, means, stds


def _rgba(hex_colour: str, alpha: float) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def learning_curves(comparison: Comparison) -> go.Figure:
    """``comparison.metric`` against step, one line (the mean over seeds) per configuration, a band of mean ±
    sample standard deviation at each step (at the last, the table's final value ± its sd)."""
    figure = go.Figure()
    for i, row in enumerate(comparison.rows):
        colour, name = COLOURS[i % len(COLOURS)], label(row)
        steps, means, stds = _band(row, comparison.metric)
        upper = [m + s for m, s in zip(means, stds, strict=True)]
        lower = [m - s for m, s in zip(means, stds, strict=True)]
        band = dict(legendgroup=name, showlegend=False, hoverinfo="skip", line=dict(width=0))
        figure.add_trace(go.Scatter(x=steps, y=upper, mode="lines", **band))
        figure.add_trace(go.Scatter(x=steps, y=lower, mode="lines", fill="tonexty", fillcolor=_rgba(colour, 0.2),
                                    **band))  # fmt: skip
        figure.add_trace(go.Scatter(x=steps, y=means, mode="lines+markers", name=f"{name} (n={len(row.runs)})",
                                    legendgroup=name, line=dict(color=colour), customdata=stds,
                                    hovertemplate="step %{x}: mean %{y:.4g} ± %{customdata:.3g} (sample sd)"
                                    "<extra>%{fullData.name}</extra>"))  # fmt: skip
    points = curve_points(comparison)
    few = f" ({points} point{'s' * (points != 1)} a curve)" if points else ""
    figure.update_layout(
        title=f"{comparison.metric} during training: mean over seeds, band ± 1 {SAMPLE_SD}{few}",
        xaxis_title="step",
        yaxis_title=comparison.metric,
        height=480,
        template="plotly_white",
    )
    return figure


SAMPLE_SD = "sample standard deviation (n - 1), as the table's ±"
POOLED_SD = "sample standard deviation (n - 1) of the runs of each value, pooled over the other knobs"


def _offsets(count: int, centre: float, width: float = 0.2) -> list[float]:
    """``count`` x positions spread evenly over ``width`` around ``centre``: the points of one value side by
    side, the same on every draw (no random jitter)."""
    if count == 1:
        return [centre]
    return [centre - width / 2 + width * i / (count - 1) for i in range(count)]


def _mean_and_sd(x: float, s: Spread, colour: str, name: str) -> go.Scatter:
    """A mark at the mean of ``s`` with error bars of its sample standard deviation (none for one value)."""
    sd = s.std if s.std is not None else 0.0
    return go.Scatter(x=[x], y=[s.mean], mode="markers", name=f"{name}: mean ± sample sd",
                      marker=dict(color=colour, size=12, symbol="diamond"),
                      error_y=dict(type="data", array=[sd], visible=s.std is not None, thickness=2, width=8),
                      hovertemplate=f"{name}: mean %{{y:.4g}} ± {sd:.4g} ({SAMPLE_SD}, n={s.n})"
                      "<extra></extra>")  # fmt: skip


def by_knob(comparison: Comparison, knob: str) -> go.Figure:
    """The ``best``/``final`` metric of every run (a point each) by the value of ``knob``, pooled over the
    other knobs, and beside the points the mean ± sample standard deviation of each value's runs
    (:func:`zoo.compare.statistics.spread`, the table's ± where ``knob`` is the only knob)."""
    values: dict[str, list[tuple[float, str]]] = {}
    for row in comparison.rows:
        for run in row.runs:
            value = metric_value(run, comparison.metric, comparison.value)
            values.setdefault(str(row.knobs[knob]), []).append((value, run.name))
    figure = go.Figure()
    for i, (knob_value, points) in enumerate(values.items()):
        colour = COLOURS[i % len(COLOURS)]
        figure.add_trace(go.Scatter(x=_offsets(len(points), i - 0.12), y=[p[0] for p in points], mode="markers",
                                    text=[p[1] for p in points], name=knob_value, marker=dict(color=colour, size=8),
                                    hovertemplate="%{text}: %{y:.4g}<extra></extra>"))  # fmt: skip
        figure.add_trace(_mean_and_sd(i + 0.15, spread([p[0] for p in points]), colour, knob_value))
    spread_words = SAMPLE_SD if len(comparison.knobs) == 1 else POOLED_SD
    figure.update_xaxes(tickvals=list(range(len(values))), ticktext=list(values), range=[-0.6, len(values) - 0.4])
    figure.update_layout(
        title=f"{comparison.value} {comparison.metric} by {short_knob(knob)}: each point a run; diamond and bars: "
        f"mean ± {spread_words}",
        xaxis_title=short_knob(knob),
        yaxis_title=comparison.metric,
        height=380,
        showlegend=False,
        template="plotly_white",
    )
    return figure


def axis_range(lows: list[float], highs: list[float], margin: float = 0.08) -> list[float]:
    """The forest plot's x range: every interval and 0 (the zero line), padded on both sides by ``margin`` of
    the span, so that neither the zero line nor an interval's end sits on the plot's edge.

    Example:
        >>> axis_range([1.0], [3.0])
        [-0.24, 3.24]
    """
    low, high = min([0.0, *lows]), max([0.0, *highs])
    pad = margin * ((high - low) or 1.0)
    return [low - pad, high + pad]


def forest(comparison: Comparison) -> go.Figure:
    """Each variation's Δ against the baseline with its interval, one line per row (the baseline at 0), against
    a zero line: an interval that crosses it is a difference the seeds do not resolve (Agarwal et al. 2021 ask
    for intervals beside point estimates). Rows beyond noise in the verdict's colour."""
    rows = [row for row in comparison.rows if row.difference is not None and row.difference.ci_low is not None]
    figure = go.Figure(_forest_points(comparison, rows))
    figure.add_vline(x=0, line=dict(color="#444", dash="dash"))
    figure.update_xaxes(
        range=axis_range([row.difference.ci_low for row in rows], [row.difference.ci_high for row in rows])
    )
    better = "lower" if comparison.lower_is_better else "higher"
    figure.update_layout(
        title=f"Δ {comparison.value} {comparison.metric} against {label(comparison.rows[0])}: "
        f"{level(comparison)} interval, {INTERVAL_NAMES[comparison.interval].split(' (')[0]} ({better} is better; "
        "red: beyond noise)",
        xaxis_title=f"Δ {comparison.metric}",
        yaxis=dict(autorange="reversed"),
        height=160 + 40 * len(rows),
        margin=dict(pad=8),  # the row labels off the axis
        showlegend=False,
        template="plotly_white",
    )
    return figure


def _forest_points(comparison: Comparison, rows: list) -> go.Scatter:
    """The forest plot's points: each row's Δ with its interval as error bars, beyond noise in red."""
    beyond = [row.difference.verdict == "beyond noise" for row in rows]
    return go.Scatter(
        x=[row.difference.delta for row in rows],
        y=[label(row) for row in rows],
        mode="markers",
        marker=dict(size=10, color=[COLOURS[1] if b else COLOURS[0] for b in beyond]),
        error_x=dict(
            type="data",
            symmetric=False,
            array=[row.difference.ci_high - row.difference.delta for row in rows],
            arrayminus=[row.difference.delta - row.difference.ci_low for row in rows],
            thickness=2,
            width=6,
        ),
        customdata=[[row.difference.ci_low, row.difference.ci_high] for row in rows],
        text=[words(comparison, row.knobs, row.difference.delta, row.difference.verdict, True) for row in rows],
        hovertemplate=f"%{{y}}: Δ %{{x:.4g}}, {level(comparison)} interval [%{{customdata[0]:.4g}}, "
        "%{customdata[1]:.4g}]: %{text}<extra></extra>",
    )
