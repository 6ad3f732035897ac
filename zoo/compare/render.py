"""A comparison as a terminal table (rich), Markdown (for docs/ablations.md), CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import shutil

from rich.console import Console
from rich.table import Table
from rich.text import Text

from zoo.compare import caption
from zoo.compare.ablation import Comparison, Row
from zoo.compare.cells import NOT_TESTED_FOR_NOISE, cells, headers, notes
from zoo.compare.statistics import TEST_NAME, Spread

FORMATS = ("table", "markdown", "csv", "json")


def print_table(comparison: Comparison, file, command: str | None = None) -> None:
    """The terminal table, baseline in bold, differences beyond seed noise in colour, then what it shows
    (:func:`zoo.compare.caption.lines`) and the notes."""
    count = len(comparison.rows)
    table = Table(title=f"{comparison.metric}: {count} configuration{'s' * (count != 1)}", title_justify="left")
    for i, header in enumerate(headers(comparison)):
        # a narrow terminal folds a cell over lines: cut, a knob was trainer.li… and a number 31.…
        justify = "left" if i <= len(comparison.knobs) else "right"
        table.add_column(Text(header, overflow="fold", justify=justify), justify=justify, overflow="fold")
    for row in comparison.rows:
        beyond = row.difference is not None and row.difference.verdict == "beyond noise"
        table.add_row(*cells(comparison, row), style="bold" if row.is_baseline else "cyan" if beyond else None)
    console = Console(file=file, width=shutil.get_terminal_size((220, 24)).columns)
    console.print(table)
    for line in [*caption.lines(comparison, command), *notes(comparison)]:
        console.print(line, highlight=False, soft_wrap=True)


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
        "baseline": row.is_baseline,
        "n": len(row.runs),
        "unfinished": len(row.unfinished),
        **({} if comparison.last_test else _numbers(f"{comparison.metric}_best", row.best)),
        **_numbers(f"{comparison.metric}_final", row.final),
        "delta": None if d is None else d.delta,
        "delta_se": None if d is None else d.se,
        "p_value": None if d is None else d.p,
        "verdict": None if d is None else d.verdict,
        **_numbers("parameters", row.parameters),
        **_numbers("tokens_per_sec", row.tokens_per_sec),
        **_numbers("wall_time_s", row.wall_time_s),
        "runs": [run.name for run in row.runs],
        "left_out": row.left_out,
    }


def to_csv(comparison: Comparison, command: str | None = None) -> str:
    """One line per configuration, raw numbers; the runs of a row separated by ``;``; the last column names the
    columns not tested for noise (:data:`zoo.compare.cells.NOT_TESTED_FOR_NOISE`)."""
    untested = ";".join(NOT_TESTED_FOR_NOISE)  # what the other formats mark with a dagger and a note
    rows = [{**record(comparison, row), "not_tested_for_noise": untested} for row in comparison.rows]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({**r, "runs": ";".join(r["runs"]), "left_out": ";".join(r["left_out"])} for r in rows)
    return out.getvalue()


def to_json(comparison: Comparison, command: str | None = None) -> str:
    """The comparison, its settings, what it shows and the left-out runs, as one JSON object."""
    return json.dumps(
        {
            "shows": caption.caption(comparison, command),
            "command": command,
            "curve_points": caption.curve_points(comparison),
            "metric": comparison.metric,
            "value": "last test" if comparison.last_test else comparison.value,
            "lower_is_better": comparison.lower_is_better,
            "test": TEST_NAME,
            "alpha": comparison.alpha,
            "knobs": comparison.knobs,
            "baseline": comparison.rows[0].knobs,
            "rows": [record(comparison, row) for row in comparison.rows],
            "not_tested_for_noise": list(NOT_TESTED_FOR_NOISE),
            "excluded": [{"run": name, "reason": reason} for name, reason in comparison.excluded],
            "notes": [*filter(None, [caption.curve_note(comparison)]), *notes(comparison)],
        },
        indent=2,
    )


def render(comparison: Comparison, fmt: str, file, command: str | None = None) -> None:
    """Write ``comparison`` to ``file`` in ``fmt``, one of :data:`FORMATS`; ``command`` is the command line
    that made it (:func:`zoo.compare.caption.compare_command`), said with what the table shows."""
    if fmt == "table":
        print_table(comparison, file, command)
    else:
        file.write({"markdown": markdown, "csv": to_csv, "json": to_json}[fmt](comparison, command))
