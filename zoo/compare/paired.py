"""``zoo compare --paired``: each variation against the baseline seed by seed, with the paired t-test (Student
1908; ``scipy.stats.ttest_rel``). Runs with the same seeds saw the same batches in the same order (the order is
drawn from ``data.seed`` alone: docs/compare.md, "Paired comparisons"), so the seed-to-seed spread they share
cancels in the differences; the correlation of the pairs says how much of it there was to cancel.

The results as text are in the Welch table's words (the same knob names and decimals, the same correction named
in the header and the verdict): a rich table in ``--format table``, Markdown in ``markdown``, and the same cells
in the HTML report."""

from __future__ import annotations

import json
from dataclasses import asdict

from rich import box
from rich.table import Table
from rich.text import Text

from zoo.compare.ablation import Comparison
from zoo.compare.arguments import CompareError
from zoo.compare.cells import decimals_for, short_knob
from zoo.compare.run_values import seed_key
from zoo.compare.statistics import NAMES, PAIRED_TEST_NAME, PairedDifference, correct, paired
from zoo.compare.terminal import console_for, say
from zoo.compare.verdicts import direction, words

Results = list[tuple[dict, PairedDifference]]


def _varying_fields(keys: list[tuple]) -> set[str]:
    """The seed fields whose values differ between runs (those that name a seed in a message), else all."""
    fields = {field for key in keys for field, _ in key}
    varying = {f for f in fields if len({value for key in keys for field, value in key if field == f}) > 1}
    return varying or fields


def _shown(keys: set[tuple], varying: set[str]) -> str:
    """``seed_everything=3, seed_everything=7``; a seed of several fields in parentheses."""
    parts = [[f"{field}={value}" for field, value in key if field in varying] for key in sorted(keys)]
    return ", ".join(fields[0] if len(fields) == 1 else f"({', '.join(fields)})" for fields in parts)


def paired_rows(comparison) -> list[tuple[dict, PairedDifference]]:
    """``(knobs, difference)`` of each variation of a :class:`zoo.compare.ablation.Comparison` with runs, paired
    with the baseline by :func:`seed_key`; the paired p-values of the table are one family, adjusted together
    with the comparison's ``--correction`` (as its Welch p-values: :func:`zoo.compare.statistics.adjust`).

    Raises:
        CompareError: in one line, where a variation and the baseline were not run with the same seeds,
            naming the seeds each lacks.
    """
    from zoo.compare.run_values import metric_value

    base = comparison.rows[0]
    keyed = {id(row): {seed_key(run): run for run in row.runs} for row in comparison.rows}
    varying = _varying_fields([seed_key(run) for row in comparison.rows for run in row.runs])
    results = []
    for row in comparison.rows[1:]:
        if not row.runs:
            continue
        mine, theirs = set(keyed[id(row)]), set(keyed[id(base)])
        if mine != theirs:
            label = ",".join(f"{k}={v}" for k, v in row.knobs.items() if base.knobs.get(k) != v)
            lacks = [f"{label} lacks {_shown(theirs - mine, varying)}"] if theirs - mine else []
            lacks += [f"the baseline lacks {_shown(mine - theirs, varying)}"] if mine - theirs else []
            raise CompareError(f"--paired needs the baseline's seeds in every variation: {'; '.join(lacks)}")
        seeds = sorted(mine)
        value = comparison.value
        pairs = [(metric_value(keyed[id(base)][s], comparison.metric, value),
                  metric_value(keyed[id(row)][s], comparison.metric, value)) for s in seeds]  # fmt: skip
        results.append((row.knobs, paired([b for b, _ in pairs], [v for _, v in pairs], comparison.alpha)))
    correct([d for _, d in results], comparison.correction, comparison.alpha)
    return results


def paired_json(comparisons: list, results: list[list[tuple[dict, PairedDifference]]], text: str) -> str:
    """``text``, the comparisons as JSON (:func:`zoo.compare.render.to_json`), with each one's paired results
    under the key ``paired`` (of the whole object for one metric, of each of ``comparisons`` for several), each
    row with its ``direction`` and ``finding`` as the Welch rows (:mod:`zoo.compare.verdicts`)."""
    whole = json.loads(text)
    objects = whole["comparisons"] if len(comparisons) > 1 else [whole]
    for target, comparison, rows in zip(objects, comparisons, results, strict=True):
        paired_rows_json = [{**knobs, **asdict(d), "direction": direction(comparison, d.delta, d.verdict),
                             "finding": words(comparison, knobs, d.delta, d.verdict, d.tested)}
                            for knobs, d in rows]  # fmt: skip
        target["paired"] = {"test": PAIRED_TEST_NAME, "alpha": comparison.alpha, "correction": comparison.correction,
                            "rows": paired_rows_json}  # fmt: skip
    return json.dumps(whole, indent=2)


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
