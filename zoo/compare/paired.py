"""``zoo compare --paired``: each variation against the baseline seed by seed, with the paired t-test (Student
1908; ``scipy.stats.ttest_rel``). Runs with the same seeds saw the same batches in the same order (the order is
drawn from ``data.seed`` alone: docs/compare.md, "Paired comparisons"), so the seed-to-seed spread they share
cancels in the differences; the correlation of the pairs says how much of it there was to cancel."""

from __future__ import annotations

import json
from dataclasses import asdict

from zoo.compare.arguments import CompareError
from zoo.compare.run_values import seed_key
from zoo.compare.statistics import PAIRED_TEST_NAME, PairedDifference, correct, paired
from zoo.compare.verdicts import direction, words


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
