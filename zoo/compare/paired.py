"""``zoo compare --paired``: each variation against the baseline seed by seed, with the paired t-test (Student
1908; ``scipy.stats.ttest_rel``). Runs with the same seeds saw the same batches in the same order (the order is
drawn from ``data.seed`` alone: docs/compare.md, "Paired comparisons"), so the seed-to-seed spread they share
cancels in the differences; the correlation of the pairs says how much of it there was to cancel."""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import asdict, dataclass

from scipy import stats

from zoo.compare.correction import correct
from zoo.compare.errors import CompareError
from zoo.compare.records import Run
from zoo.compare.verdicts import direction, words
from zoo.runs.folders import is_seed

TEST_NAME = "paired t-test (two-sided) over the seeds common to both arms"


def seed_key(run: Run) -> tuple:
    """What repeats of one configuration differ in: the run's seeds (``seed_everything``, ``data.seed``), as
    sorted ``(field, repr(value))`` pairs. A rerun of one configuration and seed (a ``-2`` folder) has the key of
    the first run."""
    return tuple(sorted((k, repr(v)) for k, v in run.config.items() if is_seed(k)))


@dataclass
class PairedDifference:
    """A variation minus the baseline, seed by seed.

    Attributes:
        n: the seeds paired.
        delta: the mean of the per-seed differences (equal to the difference of the means).
        sd: the sample standard deviation of the differences (``None`` below two seeds).
        p: the paired t-test's two-sided p-value; ``None`` where it cannot be computed.
        correlation: Pearson's r between the baseline's and the variation's values over the seeds; ``None``
            below three seeds (two points are always on a line) or where a side is constant.
        verdict: ``beyond noise`` (p, or ``p_adjusted`` once set, < alpha), ``within noise``, ``n too small``
            (fewer than two seeds), ``no seed variance`` (every difference the same) or ``not finite``.
        p_adjusted: ``p`` adjusted with the table's other paired p-values (``--correction``); ``None`` until
            :func:`paired_rows` sets it, and where there is no ``p``.
    """

    n: int
    delta: float
    sd: float | None
    p: float | None
    correlation: float | None
    verdict: str
    p_adjusted: float | None = None

    @property
    def tested(self) -> bool:
        """Whether the test ran (a p-value to adjust)."""
        return self.p is not None


def paired(baseline: list[float], variation: list[float], alpha: float = 0.05) -> PairedDifference:
    """The paired test of ``variation[i]`` against ``baseline[i]`` (the same seed).

    Example:
        >>> paired([30.0, 32.0, 31.0], [31.0, 33.1, 31.9]).verdict
        'beyond noise'

    Raises:
        ValueError: if the lists differ in length.
    """
    if len(baseline) != len(variation):
        raise ValueError(f"{len(baseline)} baseline values against {len(variation)} of the variation")
    differences = [v - b for b, v in zip(baseline, variation, strict=True)]
    n = len(differences)
    delta = statistics.fmean(differences) if differences else math.nan
    if not all(math.isfinite(d) for d in differences) or not differences:
        return PairedDifference(n, delta, None, None, None, "not finite")
    if n < 2:
        return PairedDifference(n, delta, None, None, None, "n too small")
    sd = statistics.stdev(differences)
    constant = statistics.pstdev(baseline) == 0 or statistics.pstdev(variation) == 0
    r = None if n < 3 or constant else float(stats.pearsonr(baseline, variation).statistic)
    if sd == 0:
        return PairedDifference(n, delta, sd, None, r, "no seed variance")
    p = float(stats.ttest_rel(variation, baseline).pvalue)
    return PairedDifference(n, delta, sd, p, r, "beyond noise" if p < alpha else "within noise")


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
    with the comparison's ``--correction`` (as its Welch p-values: :func:`zoo.compare.correction.adjust`).

    Raises:
        CompareError: in one line, where a variation and the baseline were not run with the same seeds,
            naming the seeds each lacks.
    """
    from zoo.compare.ablation import metric_value  # ablation imports seed_key from here

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
        target["paired"] = {"test": TEST_NAME, "alpha": comparison.alpha, "correction": comparison.correction,
                            "rows": paired_rows_json}  # fmt: skip
    return json.dumps(whole, indent=2)
