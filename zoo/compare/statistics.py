"""The statistics of a comparison, all of them scipy's: the spread of a configuration's seeds, Welch's t-test of
a variation against the baseline (Welch 1947) with its interval (Welch's t or a percentile bootstrap), the
paired t-test over the seeds both arms share (Student 1908), the adjustment of one table's p-values for
multiple comparisons (Holm 1979), and what a row could detect (the power of Welch's test itself).

Power: for normal seeds whose standard deviations are the ones observed, the difference of the means is normal
and independent of the two sample variances, each a scaled chi-square with ``n - 1`` degrees of freedom, so

    power(delta) = E[ Phi((delta - c) / sigma) + Phi((-delta - c) / sigma) ],   c = t_{1-alpha/2, df_hat} * se_hat,

with ``sigma = sqrt(sd_a^2/n_a + sd_b^2/n_b)`` and ``se_hat``, ``df_hat`` (Welch-Satterthwaite) from the sample
variances; the expectation is a product midpoint rule on the two chi-squares' quantiles (:data:`QUADRATURE`
points each). The noncentral-t shortcut (Cohen 1988, ch. 2) takes df as known and says 80% where the test has
70% at three seeds a side; tests/compare/test_power.py checks both against a simulation.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

TEST_NAME = "Welch's t-test (two-sided, unequal variances)"
PAIRED_TEST_NAME = "paired t-test (two-sided) over the seeds common to both arms"
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 0
NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "none": "uncorrected"}  # the corrections, as printed
POWER = 0.8
MOST_SEEDS = 50  # seeds per arm beyond which a plan says "more than" instead of a number
QUADRATURE = 128


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
    """A variation minus the baseline by Welch's test; :func:`correct` and :func:`minimum_detectable_effect`
    over the whole table set the last three fields.

    Attributes:
        delta: difference of the means (variation - baseline), in the metric's units.
        se: its standard error ``sqrt(s_a^2/n_a + s_b^2/n_b)``, ``None`` when a side has fewer than two values.
        p: the two-sided p-value, ``None`` when no test applies.
        verdict: ``beyond noise`` (p, adjusted once :func:`correct` ran, below alpha), ``within noise``,
            ``n too small`` (a side with n < 2), ``no seed variance`` (both sides constant) or ``not finite``
            (a seed diverged).
        ci_low, ci_high: the ``1 - alpha`` interval of ``delta`` by ``interval``, per row (not adjusted).
        df: Welch-Satterthwaite degrees of freedom. method: ``welch``. interval: ``welch`` or ``bootstrap``.
        p_adjusted: ``p`` adjusted with the table's other p-values.
        mde: the smallest ``|delta|`` detected with 80% power at this row's n and spread.
        seeds_needed: for a row within noise, the seeds per arm that would detect its ``delta`` with 80%
            power (:func:`seeds_to_resolve`; ``None`` beyond :data:`MOST_SEEDS` or where it does not apply).
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
    """Welch's t-test of a variation's seeds against the baseline's, and the ``1 - alpha`` interval of the
    difference of means: ``interval="welch"`` is ``delta ± t_{1-alpha/2, df} * se`` (as
    ``scipy.stats.ttest_ind(..., equal_var=False).confidence_interval``), ``"bootstrap"``
    :func:`bootstrap_interval`. The verdict is from the unadjusted p, beyond noise where it is below ``alpha``."""
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
    """The percentile bootstrap interval (Efron and Tibshirani 1993, ch. 13) ``(low, high)`` of variation -
    baseline, each arm resampled on its own: ``scipy.stats.bootstrap``, ``method="percentile"``, in one
    vectorised batch from ``numpy.random.default_rng(BOOTSTRAP_SEED)``, so the same runs give the same interval.
    With three seeds an arm has 10 distinct resamples, and the interval is narrower than Welch's."""
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


@dataclass
class PairedDifference:
    """A variation minus the baseline, seed by seed.

    Attributes:
        n: the seeds paired. delta: the mean of the per-seed differences (the difference of the means).
        sd: the differences' sample standard deviation (``None`` below two seeds).
        p: the paired t-test's two-sided p-value; ``None`` where it cannot be computed.
        correlation: Pearson's r between the arms over the seeds; ``None`` below three seeds (two points are
            always on a line) or where a side is constant.
        verdict: as :class:`Difference`'s (``no seed variance``: every difference the same).
        p_adjusted: ``p`` adjusted with the table's other paired p-values (:func:`correct`).
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


def adjust(p_values: list[float], method: str = "holm") -> list[float]:
    """The family's p-values adjusted, in the order given, each at most 1: ``holm`` (step-down: the i-th smallest
    of m times ``m - i + 1``, made non-decreasing; the family-wise error rate is at most alpha, and never fewer
    rows are found than by ``bonferroni``), ``bonferroni`` (each times m) or ``none``."""
    m = len(p_values)
    if method == "none":
        return list(p_values)
    if method == "bonferroni":
        return [min(1.0, m * p) for p in p_values]
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def correct(differences: list[Difference] | list[PairedDifference], method: str, alpha: float) -> None:
    """Set ``p_adjusted`` and the verdict of each tested difference of one family: one table's differences to
    its baseline, of one metric (at alpha 0.05, 16 variations that change nothing expect 0.8 rows beyond noise
    unadjusted). ``method`` is one of :data:`NAMES`."""
    tested = [d for d in differences if d.tested]
    for difference, p in zip(tested, adjust([d.p for d in tested], method), strict=True):
        difference.p_adjusted = p
        difference.verdict = "beyond noise" if p < alpha else "within noise"


def welch_df(sd_a: float, n_a: int, sd_b: float, n_b: int) -> float:
    """Welch-Satterthwaite degrees of freedom of two arms with these standard deviations and counts."""
    va, vb = sd_a**2 / n_a, sd_b**2 / n_b
    return (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))


def _critical(sd_a: float, n_a: int, sd_b: float, n_b: int, alpha: float) -> tuple[np.ndarray, float]:
    """``c`` on the quadrature grid of the two sample variances, shape ``(QUADRATURE, QUADRATURE)``, and
    ``sigma``, the true standard deviation of the difference of means."""
    u = (np.arange(QUADRATURE) + 0.5) / QUADRATURE
    qa = sd_a**2 * stats.chi2.ppf(u, n_a - 1) / (n_a - 1) / n_a  # s_a^2 / n_a at each quantile
    qb = sd_b**2 * stats.chi2.ppf(u, n_b - 1) / (n_b - 1) / n_b
    qa, qb = qa[:, None], qb[None, :]
    df = (qa + qb) ** 2 / (qa**2 / (n_a - 1) + qb**2 / (n_b - 1))
    return stats.t.ppf(1 - alpha / 2, df) * np.sqrt(qa + qb), math.sqrt(sd_a**2 / n_a + sd_b**2 / n_b)


def _power(delta: float, critical: np.ndarray, sigma: float) -> float:
    delta = abs(delta)
    return float(np.mean(stats.norm.cdf((delta - critical) / sigma) + stats.norm.cdf((-delta - critical) / sigma)))


def welch_power(delta: float, sd_a: float, n_a: int, sd_b: float, n_b: int, alpha: float = 0.05) -> float:
    """The probability, in ``[alpha, 1]`` (to about 1e-3 of itself), that Welch's two-sided test at level
    ``alpha`` rejects against a true difference ``delta`` (the metric's units), for arms of these standard
    deviations and seed counts (n >= 2, some sd > 0)."""
    return _power(delta, *_critical(sd_a, n_a, sd_b, n_b, alpha))


def minimum_detectable_effect(
    sd_a: float, n_a: int, sd_b: float, n_b: int, alpha: float = 0.05, power: float = POWER
) -> float:
    """The smallest ``|delta|`` (> 0, the metric's units) that Welch's test detects with probability ``power``:
    the root of :func:`welch_power` ``= power`` by Brent's method."""
    critical, sigma = _critical(sd_a, n_a, sd_b, n_b, alpha)
    high = sigma * (float(np.max(critical)) / sigma + stats.norm.ppf(power) + 1)  # its power is above ``power``
    return float(optimize.brentq(lambda d: _power(d, critical, sigma) - power, 0.0, high, xtol=1e-12 * high))


def seeds_to_resolve(
    delta: float, sd_a: float, sd_b: float, alpha: float = 0.05, power: float = POWER, most: int = MOST_SEEDS
) -> int | None:
    """The smallest number of seeds per arm, 2 to ``most`` (the same in both, as a sweep's seed list gives
    them), at which Welch's test detects a true ``delta`` with probability ``power`` at the arms' observed
    spread; ``None`` if even ``most`` is not enough or ``delta`` is 0."""
    if delta == 0 or welch_power(delta, sd_a, most, sd_b, most, alpha) < power:
        return None
    low, high = 1, most  # the power grows with n: bisect for the first n whose power is enough
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if welch_power(delta, sd_a, middle, sd_b, middle, alpha) >= power else (middle, high)
    return high
