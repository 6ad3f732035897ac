"""A comparison as a terminal table (rich), Markdown (for docs/ablations.md), CSV or JSON."""

from __future__ import annotations

import csv
import io
import json

from rich import box
from rich.table import Table
from rich.text import Text

from zoo.compare import caption
from zoo.compare.ablation import Comparison, Row
from zoo.compare.all_pairs import all_pairs_json, all_pairs_markdown, csv_columns, print_all_pairs
from zoo.compare.cells import NOT_TESTED_FOR_NOISE, cells, headers, narrow_columns, seeds_to_resolve_value
from zoo.compare.notes import notes
from zoo.compare.plan import seed_plan
from zoo.compare.seeds_varied import seeds_varied
from zoo.compare.several import disagreement_lines, disagreements
from zoo.compare.statistics import POWER, TEST_NAME, Spread
from zoo.compare.terminal import console_for, say
from zoo.compare.verdicts import direction, words


def print_table(comparison: Comparison, file, command: str | None = None, wide: bool = False) -> None:
    """The terminal table, baseline in bold, differences beyond seed noise in colour, then what it shows
    (:func:`zoo.compare.caption.lines`) and the notes; the columns of
    :func:`zoo.compare.cells.narrow_columns` unless ``wide``."""
    count = len(comparison.rows)
    table = Table(title=f"{comparison.metric}: {count} configuration{'s' * (count != 1)}", title_justify="left",
                  box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)  # fmt: skip
    every = headers(comparison)
    shown = range(len(every)) if wide else narrow_columns(comparison)
    for i in shown:
        # a narrow terminal folds a cell over lines, not cut (trainer.li…, 31.…)
        justify = "left" if i <= len(comparison.knobs) or every[i] == "verdict" else "right"
        table.add_column(Text(every[i], overflow="fold", justify=justify), justify=justify, overflow="fold")
    for row in comparison.rows:
        beyond = row.difference is not None and row.difference.verdict == "beyond noise"
        row_cells = cells(comparison, row, short=not wide)
        # Text, not markup: an interval "[-0.05, +6.39]" is text, whatever rich would make of brackets
        table.add_row(
            *(Text(row_cells[i]) for i in shown), style="bold" if row.is_baseline else "cyan" if beyond else None
        )
    console = console_for(file, table if wide else None)
    console.print(table)
    console = console_for(file)  # the notes wrap at the terminal's edge
    for line in [*caption.lines(comparison, command), *notes(comparison, wide)]:
        say(console, line)


def markdown(comparison: Comparison, command: str | None = None) -> str:
    """A GitHub Markdown table, what it shows and the notes below it."""
    lines = ["| " + " | ".join(headers(comparison)) + " |", "|" + " --- |" * len(headers(comparison))]
    lines += ["| " + " | ".join(cells(comparison, row)) + " |" for row in comparison.rows]
    below = [*caption.lines(comparison, command), *notes(comparison)]
    return "\n".join(lines) + "\n\n" + "\n".join(below) + "\n"


def _numbers(name: str, s: Spread) -> dict:
    return {f"{name}_mean": s.mean, f"{name}_std": s.std}


def record(comparison: Comparison, row: Row) -> dict:
    """One row as flat raw numbers (the CSV columns; the JSON rows)."""
    d = row.difference
    return {
        **row.knobs,
        "metric": comparison.metric,
        "baseline": row.is_baseline,
        "n": len(row.runs),
        "unfinished": len(row.unfinished),
        **({} if comparison.last_test else _numbers(f"{comparison.metric}_best", row.best)),
        **_numbers(f"{comparison.metric}_final", row.final),
        "delta": None if d is None else d.delta,
        "delta_se": None if d is None else d.se,
        "delta_ci_low": None if d is None else d.ci_low,
        "delta_ci_high": None if d is None else d.ci_high,
        "df": None if d is None else d.df,
        "p_value": None if d is None else d.p,
        "p_adjusted": None if d is None else d.p_adjusted,
        "verdict": None if d is None else d.verdict,
        "direction": None if d is None else direction(comparison, d.delta, d.verdict),
        "finding": None if d is None else words(comparison, row.knobs, d.delta, d.verdict, d.tested),
        "mde": None if d is None else d.mde,
        "seeds_to_resolve": None if d is None else seeds_to_resolve_value(d),
        **_numbers("parameters", row.parameters),
        **_numbers("tokens_per_sec", row.tokens_per_sec),
        **_numbers("wall_time_s", row.wall_time_s),
        **({} if comparison.at is None else {"at_steps": [comparison.points[run.name][0] for run in row.runs]}),
        "runs": [run.name for run in row.runs],
        "left_out": row.left_out,
    }


def to_csv(comparisons: list[Comparison], command: str | None = None) -> str:
    """One line per configuration (and metric), raw numbers; the runs of a row separated by ``;``; with several
    metrics, each line has its own metric's columns and leaves the others' empty; the last columns name the
    columns not tested for noise (:data:`zoo.compare.cells.NOT_TESTED_FOR_NOISE`), what the seeds varied
    (:func:`zoo.compare.seeds_varied.seeds_varied`) and why the baseline is the baseline, the lines the other
    formats say under the table."""
    untested = ";".join(NOT_TESTED_FOR_NOISE)  # what the other formats mark with a dagger and a note
    rows = [
        {**record(comparison, row), **csv_columns(comparison, row), "seeds_vary": seeds_varied(comparison),
         "baseline_reason": comparison.baseline_reason, "not_tested_for_noise": untested}
        for comparison in comparisons
        for row in comparison.rows
    ]  # fmt: skip
    fields = list(dict.fromkeys(key for r in rows for key in r))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows({**r, "runs": ";".join(r["runs"]), "left_out": ";".join(r["left_out"])} for r in rows)
    return out.getvalue()


def _json_object(comparison: Comparison, command: str | None) -> dict:
    return {
        "shows": caption.caption(comparison, command),
        "baseline_reason": comparison.baseline_reason,
        "seeds_vary": seeds_varied(comparison),
        "command": command,
        "curve_points": caption.curve_points(comparison),
        "metric": comparison.metric,
        "value": "last test" if comparison.last_test else comparison.value,
        "lower_is_better": comparison.lower_is_better,
        "test": TEST_NAME,
        "alpha": comparison.alpha,
        "interval": comparison.interval,
        "confidence_level": 1 - comparison.alpha,
        "correction": comparison.correction,
        "power": POWER,
        "at": None if comparison.at is None else str(comparison.at),
        "knobs": comparison.knobs,
        "baseline": comparison.rows[0].knobs,
        "rows": [record(comparison, row) for row in comparison.rows],
        "not_tested_for_noise": list(NOT_TESTED_FOR_NOISE),
        "excluded": [{"run": name, "reason": reason} for name, reason in comparison.excluded],
        "notes": [*filter(None, [caption.curve_note(comparison)]), *notes(comparison)],
        "plan": seed_plan(comparison),
        **({} if comparison.all_pairs is None else {"all_pairs": all_pairs_json(comparison, comparison.all_pairs)}),
    }


def to_json(comparisons: list[Comparison], command: str | None = None) -> str:
    """The comparison, its settings, what it shows and the left-out runs, as one JSON object; with several
    metrics, ``{"comparisons": [one such object per metric], "disagreements": [...]}``
    (:func:`.several.disagreements`)."""
    if len(comparisons) == 1:
        return json.dumps(_json_object(comparisons[0], command), indent=2)
    every = {
        "comparisons": [_json_object(c, command) for c in comparisons],
        "disagreements": disagreements(comparisons),
    }
    return json.dumps(every, indent=2)


def render(comparisons: list[Comparison], fmt: str, file, command: str | None = None, wide: bool = False) -> None:
    """Write ``comparisons`` (one per metric) to ``file`` in ``fmt``, one of :data:`.choices.FORMATS`; tables
    (terminal or Markdown) one after the other, then, with several metrics, the rows whose metrics disagree in
    direction; ``command`` is the command line that made them (:func:`zoo.compare.caption.compare_command`), said with
    what each table shows; ``wide``: the terminal table with every column (:func:`print_table`)."""
    if fmt in ("csv", "json"):
        file.write({"csv": to_csv, "json": to_json}[fmt](comparisons, command))
        return
    for i, comparison in enumerate(comparisons):
        if i:
            file.write("\n")
        if fmt == "table":
            print_table(comparison, file, command, wide)
        else:
            file.write(markdown(comparison, command))
        if comparison.all_pairs is not None:
            if fmt == "table":
                print_all_pairs(comparison, comparison.all_pairs, file)
            else:
                file.write(all_pairs_markdown(comparison, comparison.all_pairs))
    if len(comparisons) > 1:
        file.write("\n" + "\n".join(disagreement_lines(comparisons)) + "\n")
