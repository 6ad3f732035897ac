"""``--all_pairs KNOB``: every pair of one knob's values compared at once, with Tukey's honestly significant
difference test (Tukey 1953; ``scipy.stats.tukey_hsd``), and which values cannot be told from the best.

The table compares each variation with one baseline; "how many heads?" asks which of 2, 4 and 8 is best, a
question of every pair. Tukey's HSD tests all k(k-1)/2 pairs with the studentized range distribution, which
bounds the chance of any false "beyond noise" among them at alpha, and gives intervals that hold together
(simultaneous) at 1 - alpha. It pools the seeds' variance over the knob's values: at three seeds a value, k values
give it 2k degrees of freedom (6 for three values), against 2 to 4 for one Welch test of two values. It assumes
the values' spreads are alike; a note says when the largest standard deviation is more than twice the smallest
(docs/compare.md, "All pairs of one knob").

The values compared are the rows that differ from the baseline in this knob alone (the other knobs at the
baseline's values), each with its seeds' values of the table's metric (best or final, at ``--at`` where given).
``--all_pairs configurations`` compares every row of the table instead, each named by its knobs' values: the arms
of an ablation that differ in several knobs at once (the recurrent systems and the Transformer of
``sweeps/ed-architecture.yaml``).

As text, under the comparison's table: a rich table in ``--format table``, Markdown in ``markdown``, the same
cells in the HTML report, and the raw numbers in JSON (``all_pairs``) and CSV (each row of the knob's values:
``all_pairs_best`` and ``all_pairs_p_vs_best``); in every format the line that names the best value and those
that cannot be told from it."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from rich import box
from rich.table import Table
from rich.text import Text

from zoo.compare.ablation import Comparison, Row
from zoo.compare.arguments import CompareError
from zoo.compare.cells import decimals_for, level, short_knob
from zoo.compare.configurations import knob_named, sort_key
from zoo.compare.records import NOT_APPLYING
from zoo.compare.run_values import metric_value
from zoo.compare.terminal import console_for, say
from zoo.compare.verdicts import BEYOND

TEST_NAME = "Tukey's HSD (all pairs, simultaneous intervals)"
EVERY_ROW = "configurations"  # --all_pairs configurations: every row of the table, whatever knobs it differs in
UNEQUAL_SPREAD = 2.0  # a largest/smallest standard deviation above this is said: Tukey's HSD pools them
HEADERS = ["pair", "Δ (second - first)", "simultaneous CI", "Tukey p", "verdict"]


@dataclass
class Pair:
    """Values ``a`` and ``b`` of the knob: ``delta`` = mean of ``b`` - mean of ``a``, its simultaneous interval and
    Tukey's adjusted p-value (``scipy.stats.tukey_hsd(...).pvalue[a, b]``)."""

    a: object
    b: object
    delta: float
    ci_low: float
    ci_high: float
    p: float


@dataclass
class AllPairs:
    """The all-pairs comparison of one knob: its values (sorted as the table), their seeds' values, the pairs,
    the best value (by mean, in the metric's direction) and the values whose pair with it is within noise."""

    knob: str
    values: list
    samples: list[list[float]]
    pairs: list[Pair]
    best: object
    tied: list
    alpha: float

    def pair(self, a: object, b: object) -> Pair:
        """The pair of values ``a`` and ``b``, in either order (``delta`` then is ``b`` - ``a``)."""
        for pair in self.pairs:
            if (pair.a, pair.b) == (a, b):
                return pair
            if (pair.b, pair.a) == (a, b):
                return Pair(a, b, -pair.delta, -pair.ci_high, -pair.ci_low, pair.p)
        raise KeyError((a, b))

    def spread_ratio(self) -> float:
        """The largest standard deviation of a value's seeds over the smallest (``inf`` where one is 0)."""
        sds = [statistics.stdev(sample) for sample in self.samples]
        return max(sds) / min(sds) if min(sds) > 0 else math.inf


def _samples(comparison: Comparison, knob: str) -> tuple[list, list[list[float]]]:
    """The knob's values among the rows that differ from the baseline in it alone (sorted: numbers in numeric
    order), and their seeds' values.

    Raises:
        CompareError: fewer than three such values, a value with fewer than two seeds, or a value not finite.
    """
    base = comparison.rows[0].knobs
    if knob == EVERY_ROW:
        rows = [row for row in comparison.rows if row.runs]
        values = [configuration_name(row.knobs) for row in rows]
    else:
        rows = sorted((row for row in comparison.rows
                       if row.runs and all(row.knobs[k] == base[k] for k in comparison.knobs if k != knob)),
                      key=lambda row: sort_key(row.knobs[knob]))  # fmt: skip
        values = [row.knobs[knob] for row in rows]
    samples = [[metric_value(run, comparison.metric, comparison.value) for run in row.runs] for row in rows]
    name = knob.removeprefix("model.")
    if len(rows) < 3:
        raise CompareError(
            f"--all_pairs {name}: {len(rows)} value{'s' * (len(rows) != 1)} of {name} with the other knobs at the "
            f"baseline's ({', '.join(map(str, values))}); all pairs need 3 or more"
            + (" (the table compares two)" if len(rows) == 2 else "")
        )
    for value, sample in zip(values, samples, strict=True):
        if len(sample) < 2 or not all(x is not None and math.isfinite(x) for x in sample):
            raise CompareError(
                f"--all_pairs {name}: {name}={value} has {len(sample)} seed value{'s' * (len(sample) != 1)}"
                f"{'' if len(sample) < 2 else ', not all finite'}; every value needs two finite ones or more"
            )
    return values, samples


def all_pairs(comparison: Comparison, key: str) -> AllPairs:
    """Tukey's HSD over the values of knob ``key`` (``n_heads`` or ``model.n_heads``) in ``comparison``.

    Raises:
        CompareError: ``key`` is no knob of the table, or :func:`_samples` refuses its values.
    """
    from scipy.stats import tukey_hsd

    knob = knob_named(key, comparison.knobs, "--all_pairs", also=(EVERY_ROW,))
    values, samples = _samples(comparison, knob)
    result = tukey_hsd(*samples)
    interval = result.confidence_interval(1 - comparison.alpha)
    pairs = [
        # scipy's statistic[i, j] is mean_i - mean_j; delta is b - a
        Pair(values[i], values[j], -result.statistic[i, j], -interval.high[i, j], -interval.low[i, j],
             float(result.pvalue[i, j]))
        for i in range(len(values)) for j in range(i + 1, len(values))
    ]  # fmt: skip
    means = [statistics.fmean(sample) for sample in samples]
    best = values[(min if comparison.lower_is_better else max)(range(len(values)), key=means.__getitem__)]
    tied = [v for v in values if v != best and _p(pairs, best, v) >= comparison.alpha]
    return AllPairs(knob, values, samples, pairs, best, tied, comparison.alpha)


def configuration_name(knobs: dict) -> str:
    """A row's name among every row's (``--all_pairs configurations``): its knobs' values, those that do not apply
    left out (``architecture=rnn, rnn_attention=none, rnn_cell=lstm``)."""
    return ", ".join(f"{k.removeprefix('model.')}={v}" for k, v in knobs.items() if v != NOT_APPLYING)


def _p(pairs: list[Pair], a: object, b: object) -> float:
    return next(pair.p for pair in pairs if {repr(pair.a), repr(pair.b)} == {repr(a), repr(b)})


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
