"""``--all_pairs KNOB`` as text, under the comparison's table: a rich table in ``--format table``, Markdown in
``markdown``, the same cells in the HTML report, and the raw numbers in JSON (``all_pairs``) and CSV (each row
of the knob's values: ``all_pairs_best`` and ``all_pairs_p_vs_best``); in every format the line that names the
best value and those that cannot be told from it."""

from __future__ import annotations

import math
import statistics

from rich import box
from rich.table import Table
from rich.text import Text

from zoo.compare.ablation import Comparison, Row
from zoo.compare.all_pairs import EVERY_ROW, TEST_NAME, UNEQUAL_SPREAD, AllPairs, configuration_name
from zoo.compare.cells import decimals_for, level, short_knob
from zoo.compare.terminal import console_for, say
from zoo.compare.verdicts import BEYOND

HEADERS = ["pair", "Δ (second - first)", "simultaneous CI", "Tukey p", "verdict"]


def title(comparison: Comparison, result: AllPairs) -> str:
    """The line above the table: the knob, the metric and value, the test and alpha."""
    what = (
        f"the table's {len(result.values)} configurations" if result.knob == EVERY_ROW
        else f"{short_knob(result.knob)} ({len(result.values)} values, the other knobs at the baseline's)"
    )  # fmt: skip
    return f"All pairs of {what}: {comparison.metric} {comparison.value}, {TEST_NAME}, alpha {result.alpha:g}:"


def shown(result: AllPairs, value: object) -> str:
    """A value as the pairs name it: ``n_heads=4``; a configuration by its knobs' values."""
    return str(value) if result.knob == EVERY_ROW else f"{short_knob(result.knob)}={value}"


def rows(comparison: Comparison, result: AllPairs) -> list[list[str]]:
    """One row of cells a pair, in the order of :data:`HEADERS`, with the comparison's decimals."""
    decimals = decimals_for(getattr(comparison.rows[0], comparison.value).mean)
    return [
        [f"{shown(result, pair.a)} vs {pair.b if result.knob != EVERY_ROW else shown(result, pair.b)}",
         f"{pair.delta:+.{decimals}f}",
         f"[{pair.ci_low:+.{decimals}f}, {pair.ci_high:+.{decimals}f}] ({level(comparison)})", f"{pair.p:.3g}",
         BEYOND if pair.p < result.alpha else "within noise"]
        for pair in result.pairs
    ]  # fmt: skip


def best_line(comparison: Comparison, result: AllPairs) -> str:
    """``Best: n_heads=4 (lowest mean val_loss, 2.381); cannot be told from it (Tukey p >= 0.05): n_heads=8
    (p 0.22); told from it: n_heads=2 (p 0.003).``, and the spreads' caveat where they differ much."""
    direction = "lowest" if comparison.lower_is_better else "highest"
    decimals = decimals_for(getattr(comparison.rows[0], comparison.value).mean)
    mean = statistics.fmean(result.samples[result.values.index(result.best)])
    others = [v for v in result.values if v != result.best]
    said = lambda values: ", ".join(f"{shown(result, v)} (p {result.pair(result.best, v).p:.3g})" for v in values)  # noqa: E731
    told = [v for v in others if v not in result.tied]
    line = f"Best: {shown(result, result.best)} ({direction} mean {comparison.metric}, {mean:.{decimals}f}); "
    line += (f"cannot be told from it (Tukey p >= {result.alpha:g}): {said(result.tied)}" if result.tied
             else f"every other value is told from it (Tukey p < {result.alpha:g})")  # fmt: skip
    line += f"; told from it: {said(told)}." if result.tied and told else "."
    ratio = result.spread_ratio()
    if ratio > UNEQUAL_SPREAD:
        line += (
            f" The values' standard deviations {_differ(ratio)}: Tukey's HSD pools them, so read a pair by "
            f"its own Welch test too (the table, with --baseline {_one_of_the_pair(result)})."
        )
    return line


def _differ(ratio: float) -> str:
    """``differ 2.79-fold``; where one is 0 (its seeds gave one value), that it is."""
    return "differ: one is 0 (its seeds agree exactly)" if math.isinf(ratio) else f"differ {ratio:.3g}-fold"


def _one_of_the_pair(result: AllPairs) -> str:
    return shown(result, "<one of the pair>") if result.knob != EVERY_ROW else "<the knobs of one of the pair>"


def print_all_pairs(comparison: Comparison, result: AllPairs, file) -> None:
    """The rich table under the comparison's, pairs beyond noise in colour, and the best line."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    for i, header in enumerate(HEADERS):
        justify = "left" if i in (0, len(HEADERS) - 1) else "right"
        table.add_column(Text(header, overflow="fold", justify=justify), justify=justify, overflow="fold")
    for cells in rows(comparison, result):
        table.add_row(*map(Text, cells), style="cyan" if cells[-1] == BEYOND else None)
    console = console_for(file)
    file.write("\n")
    say(console, title(comparison, result))
    console.print(table)
    say(console, best_line(comparison, result))


def all_pairs_markdown(comparison: Comparison, result: AllPairs) -> str:
    """The pairs as a Markdown table under :func:`title`, then :func:`best_line`."""
    lines = [title(comparison, result), "", "| " + " | ".join(HEADERS) + " |", "|" + " --- |" * len(HEADERS)]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows(comparison, result)]
    return "\n" + "\n".join([*lines, "", best_line(comparison, result)]) + "\n"


def all_pairs_json(comparison: Comparison, result: AllPairs) -> dict:
    """The raw numbers: the knob, test, alpha, best value, the values within noise of it, the best line, and each
    pair's ``a``, ``b``, ``delta`` (b - a), simultaneous interval and Tukey p."""
    return {
        "knob": result.knob,
        "test": TEST_NAME,
        "alpha": result.alpha,
        "values": result.values,
        "best": result.best,
        "cannot_be_told_from_best": result.tied,
        "finding": best_line(comparison, result),
        "pairs": [vars(pair) for pair in result.pairs],
    }


def csv_columns(comparison: Comparison, row: Row) -> dict:
    """The CSV columns of ``row`` with ``--all_pairs``: whether its value is the best, and Tukey's p against the
    best (empty for the best itself and for rows outside the knob's values); nothing without the option."""
    result = comparison.all_pairs
    if result is None:
        return {}
    base = comparison.rows[0].knobs
    every = result.knob == EVERY_ROW
    inside = row.runs and (every or all(row.knobs[k] == base[k] for k in comparison.knobs if k != result.knob))
    value = configuration_name(row.knobs) if every else row.knobs[result.knob]
    if not inside or value not in result.values:
        return {"all_pairs_best": None, "all_pairs_p_vs_best": None}
    best = value == result.best
    return {"all_pairs_best": best, "all_pairs_p_vs_best": None if best else result.pair(result.best, value).p}
