"""Statistics over seeds: mean, sample standard deviation and count per configuration, and Welch's t-test of a
variation against the baseline (Welch 1947: unequal variances, the usual choice for a few seeds a side)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from scipy import stats

TEST_NAME = "Welch's t-test (two-sided, unequal variances)"


@dataclass
class Spread:
    """Mean, sample standard deviation (``ddof=1``; ``None`` below two values, or where a value is not
    finite) and count of some values; a non-finite value (a seed that diverged) makes the mean ``inf`` or
    ``nan``, never leaves the statistics silently."""

    mean: float | None
    std: float | None
    n: int


def spread(values: list[float | None]) -> Spread:
    """The :class:`Spread` of ``values`` but ``None`` (``mean`` is ``None`` when there are none).

    Example:
        >>> spread([1.0, 2.0, 3.0])
        Spread(mean=2.0, std=1.0, n=3)
        >>> spread([1.0, float("inf"), None])
        Spread(mean=inf, std=None, n=2)
    """
    values = [v for v in values if v is not None]
    mean = statistics.fmean(values) if values else None
    finite = all(math.isfinite(v) for v in values)
    std = statistics.stdev(values) if len(values) > 1 and finite else None
    return Spread(mean, std, len(values))


@dataclass
class Difference:
    """A variation minus the baseline.

    Attributes:
        delta: difference of the means.
        se: its standard error ``sqrt(s_a^2/n_a + s_b^2/n_b)``, ``None`` when a side has fewer than two values.
        p: Welch's two-sided p-value, ``None`` when it cannot be computed.
        verdict: ``beyond noise`` (p < alpha), ``within noise``, ``n too small`` (a side with n < 2),
            ``no seed variance`` (both sides constant) or ``not finite`` (a side has an ``inf`` or ``nan``
            value: a seed diverged, and no test applies).
    """

    delta: float
    se: float | None
    p: float | None
    verdict: str


def welch(baseline: list[float], variation: list[float], alpha: float = 0.05) -> Difference:
    """Compare the seeds of a variation with those of the baseline.

    Args:
        baseline: the metric of each baseline seed.
        variation: the metric of each seed of the variation.
        alpha: the p-value below which a difference counts as beyond seed noise.

    Returns:
        The :class:`Difference`, variation minus baseline.
    """
    a, b = spread(baseline), spread(variation)
    delta = b.mean - a.mean
    if not math.isfinite(delta):
        return Difference(delta, None, None, "not finite")
    if a.n < 2 or b.n < 2:
        return Difference(delta, None, None, "n too small")
    se = math.sqrt(a.std**2 / a.n + b.std**2 / b.n)
    if se == 0:
        return Difference(delta, se, None, "no seed variance")
    p = float(stats.ttest_ind(variation, baseline, equal_var=False).pvalue)
    return Difference(delta, se, p, "beyond noise" if p < alpha else "within noise")
