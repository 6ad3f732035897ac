"""The ``--paired`` results as text, in the Welch table's words: the same knob names and decimals, the same
correction named in the header and the verdict; a rich table in ``--format table``, Markdown in ``markdown``,
and the same cells in the HTML report."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from zoo.compare.ablation import Comparison
from zoo.compare.cells import decimals_for, short_knob
from zoo.compare.statistics import NAMES, PAIRED_TEST_NAME, PairedDifference
from zoo.compare.terminal import console_for, say
from zoo.compare.verdicts import words

Results = list[tuple[dict, PairedDifference]]


def title(comparison: Comparison, results: Results) -> str:
    """The line above the table: the metric, the test, alpha and how the p-values were adjusted."""
    tested = sum(d.tested for _, d in results)
    if comparison.correction == "none":
        adjusted = "each paired p alone (--correction none)"
    else:
        family = f"{tested} variation{'s' * (tested != 1)}"
        adjusted = f"{NAMES[comparison.correction]} p: the paired p-values adjusted together for the table's {family}"
    return f"{comparison.metric} ({comparison.value}), {PAIRED_TEST_NAME}, alpha {comparison.alpha:g}; {adjusted}:"


def headers(comparison: Comparison) -> list[str]:
    corrected = [f"{NAMES[comparison.correction]} p"] if comparison.correction != "none" else []
    return [*map(short_knob, comparison.knobs), "n", f"Δ {comparison.value}", "sd of Δ", "paired p", *corrected,
            "r", "verdict"]  # fmt: skip


R_NOTE = (
    "r: Pearson correlation of the two arms' values over their common seeds (three or more); near 1, pairing "
    "cancels the noise the arms share and the paired test is the more sensitive; near 0 or below, pairing gains "
    "nothing. docs/compare.md, paired comparisons."
)


def cells(comparison: Comparison, knobs: dict, d: PairedDifference, short: bool = False) -> list[str]:
    """One variation's cells, in the order of :func:`headers`; Δ and its sd with the Welch table's decimals,
    knob cells blank where the variation has the baseline's value; the verdict says which arm is better
    (:func:`zoo.compare.verdicts.words`, ``short`` in the terminal)."""
    base = comparison.rows[0]
    decimals = decimals_for(getattr(base, comparison.value).mean)
    p = ["—" if d.p is None else f"{d.p:.3g}"]
    p += ["—" if d.p_adjusted is None else f"{d.p_adjusted:.3g}"] if comparison.correction != "none" else []
    return [
        *("" if value == base.knobs[knob] else str(value) for knob, value in knobs.items()),
        str(d.n),
        f"{d.delta:+.{decimals}f}",
        "—" if d.sd is None else f"{d.sd:.{decimals}f}",
        *p,
        "—" if d.correlation is None else f"{d.correlation:.2f}",
        words(comparison, knobs, d.delta, d.verdict, d.tested, short),
    ]


def print_paired(comparison: Comparison, results: Results, file, wide: bool = False) -> None:
    """The rich table under the comparison's, variations beyond noise in colour (as in the Welch table), and
    what ``r`` is."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    for i, header in enumerate(headers(comparison)):
        justify = "left" if i < len(comparison.knobs) or header == "verdict" else "right"
        table.add_column(Text(header, overflow="fold", justify=justify), justify=justify, overflow="fold")
    for knobs, d in results:
        row = cells(comparison, knobs, d, short=not wide)
        table.add_row(*map(Text, row), style="cyan" if d.verdict == "beyond noise" else None)
    console = console_for(file)
    say(console, title(comparison, results))
    console_for(file, table if wide else None).print(table)
    say(console, R_NOTE)


def paired_markdown(comparison: Comparison, results: Results) -> str:
    """The paired results as a Markdown table under :func:`title` (printed after the comparison's table)."""
    lines = [title(comparison, results), "", "| " + " | ".join(headers(comparison)) + " |"]
    lines += ["|" + " --- |" * len(headers(comparison))]
    lines += ["| " + " | ".join(cells(comparison, knobs, d)) + " |" for knobs, d in results]
    return "\n" + "\n".join([*lines, "", R_NOTE]) + "\n"


def write_paired(comparison: Comparison, results: Results, fmt: str, file, wide: bool = False) -> None:
    """The paired table in ``fmt``: ``table`` (rich; ``wide``: verdicts in full) or ``markdown``."""
    if fmt == "table":
        file.write("\n")
        print_paired(comparison, results, file, wide)
    else:
        file.write(paired_markdown(comparison, results))
