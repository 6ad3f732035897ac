"""The paired t-test over the seeds common to both arms of a comparison (Student 1908): its result and how runs
pair."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from scipy import stats

from zoo.compare.records import Run
from zoo.runs.identity import is_seed

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
