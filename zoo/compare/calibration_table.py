"""The A/A calibration (:mod:`.calibration`) as a terminal table (rich), Markdown, CSV or JSON, each row a test,
a kind of split and a correction, with the share called beyond noise against what a calibrated test gives."""

from __future__ import annotations

import csv
import io
import json

from rich.table import Table

from zoo.compare.calibration import ARM, ROWS, SEED, Tally, binomial_range, expected
from zoo.compare.statistics import BOOTSTRAP_RESAMPLES, NAMES
from zoo.compare.terminal import console_for, say

TESTS = {"welch": "Welch's t", "bootstrap": "bootstrap interval", "paired": "paired t"}
HEADERS = ["test", "split", "correction", "splits", "beyond noise", "share", "calibrated", "95% range", "reading"]


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def records(tally: Tally, alpha: float) -> list[dict]:
    """One dict per row of :data:`.calibration.ROWS` that was counted: the counts, the share, the share of a
    calibrated test (``calibrated``, a bound where ``bound``), the binomial 95% range of the share around it for
    that many independent splits, and the reading: ``as expected``, ``above`` (more false positives than the
    range allows) or ``below`` (fewer: conservative; for a bound, below is as expected)."""
    out = []
    for test, split, correction in ROWS:
        count = tally.counts.get((test, split, correction))
        if count is None:
            continue
        rate, bound = expected(split, correction, alpha, tally.variations)
        low, high = binomial_range(rate, count.total)
        reading = "above" if count.share > high else "below" if count.share < low and not bound else "as expected"
        out.append(dict(test=test, split=split, correction=correction, splits=count.total, beyond=count.beyond,
                        share=count.share, calibrated=rate, bound=bound, range_low=low, range_high=high,
                        reading=reading))  # fmt: skip
    return out


def _cells(record: dict, variations: int) -> list[str]:
    split = f"{ARM} vs {ARM}" if record["split"] == "pair" else f"1 + {variations} x {ARM}"
    calibrated = ("≤ " if record["bound"] else "") + _percent(record["calibrated"])
    low, high = _percent(record["range_low"]), _percent(record["range_high"])
    interval = f"≤ {high}" if record["bound"] else f"[{low}, {high}]"
    return [TESTS[record["test"]], split, NAMES[record["correction"]], str(record["splits"]), str(record["beyond"]),
            _percent(record["share"]), calibrated, interval, record["reading"]]  # fmt: skip


def notes(tally: Tally, alpha: float, source: str, simulated: bool = False) -> list[str]:
    """What the table shows, below it (``simulated``: of :func:`.calibration.simulate`'s tables)."""
    k = tally.variations
    drawn = "values" if simulated else "splits"
    independent = (
        "The tables are independent, so the range is exact."
        if simulated
        else "Splits of one set of runs share their seeds and are not independent, so the share of real runs "
        "varies more than that: a share outside the range is a sign to look at the seeds, not a proof."
    )
    return [
        f"{source}; {drawn} drawn with numpy.random.default_rng({SEED}). Beyond noise: Welch's p (adjusted, for a "
        f"corrected family) below alpha {alpha}; the bootstrap's {1 - alpha:.0%} percentile interval "
        f"({BOOTSTRAP_RESAMPLES:,} resamples; at 1 - alpha/{k} for Bonferroni; it has no p-value, so no Holm) "
        f"excludes 0; the paired t-test's p, the seeds of either group paired in seed order.",
        f"Calibrated: the share of a test at its level: alpha for a comparison, at most alpha for a corrected "
        f"family, at most 1 - (1 - alpha)^{k} for an uncorrected family of {k} (its comparisons share a baseline).",
        f"95% range: the binomial range of the share over that many independent splits (for a bound, its top). "
        f"{independent}",
    ]


def render(tally: Tally, alpha: float, source: str, fmt: str, file, simulated: bool = False) -> None:
    """Write the calibration in ``fmt``, one of :data:`zoo.compare.arguments.FORMATS` (``simulated``: see
    :func:`notes`)."""
    rows = records(tally, alpha)
    if fmt == "json":
        whole = {"alpha": alpha, "variations": tally.variations, "source": source, "simulated": simulated}
        file.write(json.dumps({**whole, "rows": rows}, indent=2) + "\n")
    elif fmt == "csv":
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        file.write(text.getvalue())
    elif fmt == "markdown":
        lines = ["| " + " | ".join(HEADERS) + " |", "|" + " --- |" * len(HEADERS)]
        lines += ["| " + " | ".join(_cells(row, tally.variations)) + " |" for row in rows]
        file.write("\n".join(lines) + "\n\n" + "\n".join(notes(tally, alpha, source, simulated)) + "\n")
    else:
        table = Table(title=f"A/A calibration, alpha {alpha}", title_justify="left")
        for i, header in enumerate(HEADERS):
            table.add_column(header, justify="left" if i < 3 else "right")
        for row in rows:
            table.add_row(*_cells(row, tally.variations), style="red" if row["reading"] == "above" else None)
        console = console_for(file)
        console.print(table)
        for line in notes(tally, alpha, source, simulated):
            say(console, line)
