"""Statistics over seeds: mean, sample standard deviation and count per configuration, and Welch's t-test of a
variation against the baseline (Welch 1947: unequal variances, the usual choice for a few seeds a side)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np
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


BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 0


@dataclass
class Difference:
    """A variation minus the baseline, with its interval, its test and (set by :mod:`.correction` and
    :mod:`.power` over the whole table) its adjusted p-value and what the test could detect.

    Attributes:
        delta: difference of the means (variation - baseline), in the metric's units.
        se: its standard error ``sqrt(s_a^2/n_a + s_b^2/n_b)``, ``None`` when a side has fewer than two values.
        p: the test's two-sided p-value, ``None`` when it cannot be computed.
        verdict: ``beyond noise`` (p, adjusted where a correction applies, below alpha), ``within noise``,
            ``n too small`` (a side with n < 2), ``no seed variance`` (both sides constant) or ``not finite``
            (a side has an ``inf`` or ``nan`` value: a seed diverged, and no test applies).
        ci_low, ci_high: the ``1 - alpha`` confidence interval of ``delta`` (``None`` where there is no test);
            per row, not adjusted for the other rows.
        df: the test's degrees of freedom (Welch-Satterthwaite), ``None`` where there is no test.
        method: the test, ``welch`` (a paired test would be another).
        interval: how the interval was computed, ``welch`` (Welch's t) or ``bootstrap`` (percentile).
        p_adjusted: ``p`` adjusted for the table's other comparisons (:mod:`.correction`), ``None`` before
            that or where ``p`` is.
        mde: the smallest ``|delta|`` the test detects with 80% power at this row's n and spread
            (:mod:`.power`), ``None`` where there is no test.
        seeds_needed: for a row within noise, the seeds per arm at which the test would detect its observed
            ``delta`` with 80% power; ``None`` for more than :data:`zoo.compare.power.MOST_SEEDS`, or where
            it does not apply (see :attr:`resolvable`).
    """

    delta: float
    se: float | None
    p: float | None
    verdict: str
    ci_low: float | None = None
    ci_high: float | None = None
    df: float | None = None
    method: str = "welch"
    interval: str = "welch"
    p_adjusted: float | None = None
    mde: float | None = None
    seeds_needed: int | None = None

    @property
    def tested(self) -> bool:
        """Whether a test applies (both sides with two finite values or more, and some seed variance)."""
        return self.p is not None


def welch(baseline: list[float], variation: list[float], alpha: float = 0.05, interval: str = "welch") -> Difference:
    """Compare the seeds of a variation with those of the baseline: Welch's t-test (Welch 1947) and the
    ``1 - alpha`` interval of the difference of means.

    Args:
        baseline: the metric of each baseline seed.
        variation: the metric of each seed of the variation.
        alpha: the p-value below which a difference counts as beyond seed noise; the interval's level is
            ``1 - alpha``.
        interval: ``welch`` (``delta ± t_{1-alpha/2, df} * se``, df by Welch-Satterthwaite, as
            ``scipy.stats.ttest_ind(..., equal_var=False).confidence_interval``) or ``bootstrap``
            (:func:`bootstrap_interval`).

    Returns:
        The :class:`Difference`, variation minus baseline, its verdict from the unadjusted p.
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
    result = stats.ttest_ind(variation, baseline, equal_var=False)
    p = float(result.pvalue)
    if interval == "bootstrap":
        low, high = bootstrap_interval(baseline, variation, alpha)
    else:
        low, high = map(float, result.confidence_interval(confidence_level=1 - alpha))
    verdict = "beyond noise" if p < alpha else "within noise"
    return Difference(delta, se, p, verdict, low, high, float(result.df), "welch", interval)


def bootstrap_interval(
    baseline: list[float], variation: list[float], alpha: float = 0.05, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float]:
    """The percentile bootstrap interval (Efron and Tibshirani 1993, ch. 13) of the difference of means,
    each arm resampled on its own (stratified: a resample keeps each arm's number of seeds).

    ``scipy.stats.bootstrap`` with ``method="percentile"``, ``resamples`` resamples and the fixed generator
    ``numpy.random.default_rng(BOOTSTRAP_SEED)``: the same runs give the same interval. With three seeds an
    arm has 10 distinct resamples, and the percentile interval is narrower than Welch's (it ignores that
    the spread itself is estimated from three values).

    Args:
        baseline, variation: the metric of each seed of either arm.
        alpha: the interval is ``1 - alpha``.
        resamples: resamples drawn (vectorised, in one batch).

    Returns:
        ``(low, high)`` of variation - baseline.
    """
    result = stats.bootstrap(
        (np.asarray(variation, float), np.asarray(baseline, float)),
        lambda v, b, axis: v.mean(axis=axis) - b.mean(axis=axis),
        n_resamples=resamples,
        vectorized=True,
        confidence_level=1 - alpha,
        method="percentile",
        rng=np.random.default_rng(BOOTSTRAP_SEED),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)
