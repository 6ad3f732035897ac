"""What a comparison could detect: the power of Welch's two-sided t-test, the minimum detectable effect of a
row at its seeds and spread, and the seeds per arm that would resolve a difference the test left within noise.

The power is that of Welch's test itself, degrees of freedom estimated from the samples, for normal seeds whose
standard deviations are the ones observed: the difference of the means is normal and independent of the two
sample variances, and each sample variance is a scaled chi-square with ``n - 1`` degrees of freedom, so

    power(delta) = E[ Phi((delta - c) / sigma) + Phi((-delta - c) / sigma) ],   c = t_{1-alpha/2, df_hat} * se_hat,

with ``sigma = sqrt(sd_a^2/n_a + sd_b^2/n_b)`` and ``se_hat``, ``df_hat`` (Welch-Satterthwaite) from the two
sample variances; the expectation over the two chi-squares is a product midpoint rule on their quantiles
(:data:`QUADRATURE` points each). The shortcut of a noncentral t with the df computed from the observed
standard deviations (Cohen 1988, ch. 2) says 80% where the test has 70% at three seeds a side (it takes df as
known); both agree from about 20 seeds (tests/compare/test_power.py checks both, and a simulation).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

POWER = 0.8
MOST_SEEDS = 50  # seeds per arm beyond which a plan says "more than" instead of a number
QUADRATURE = 128


def welch_df(sd_a: float, n_a: int, sd_b: float, n_b: int) -> float:
    """Welch-Satterthwaite degrees of freedom of two arms with these standard deviations and counts."""
    va, vb = sd_a**2 / n_a, sd_b**2 / n_b
    return (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))


def _critical(sd_a: float, n_a: int, sd_b: float, n_b: int, alpha: float) -> tuple[np.ndarray, float]:
    """``c = t_{1-alpha/2, df_hat} * se_hat`` on the quadrature grid of the two sample variances, shape
    ``(QUADRATURE, QUADRATURE)``, and ``sigma``, the true standard deviation of the difference of means."""
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
    """Power of Welch's two-sided t-test at level ``alpha`` against a true difference ``delta``.

    Args:
        delta: the true difference of means, in the metric's units.
        sd_a, n_a, sd_b, n_b: standard deviation and number of seeds of either arm (n >= 2, some sd > 0).
        alpha: the test's level.

    Returns:
        The probability that the test rejects, in ``[alpha, 1]`` (to about 1e-3 of itself: the quadrature).
    """
    return _power(delta, *_critical(sd_a, n_a, sd_b, n_b, alpha))


def minimum_detectable_effect(
    sd_a: float, n_a: int, sd_b: float, n_b: int, alpha: float = 0.05, power: float = POWER
) -> float:
    """The smallest ``|delta|`` that Welch's test detects with probability ``power`` (the root of
    :func:`welch_power` ``= power``, by Brent's method).

    Args:
        sd_a, n_a, sd_b, n_b: standard deviation and number of seeds of either arm (n >= 2, some sd > 0).
        alpha: the test's level.
        power: the probability of detection.

    Returns:
        The minimum detectable effect, in the metric's units (> 0).
    """
    critical, sigma = _critical(sd_a, n_a, sd_b, n_b, alpha)
    high = sigma * (float(np.max(critical)) / sigma + stats.norm.ppf(power) + 1)  # its power is above ``power``
    return float(optimize.brentq(lambda d: _power(d, critical, sigma) - power, 0.0, high, xtol=1e-12 * high))


def seeds_to_resolve(
    delta: float, sd_a: float, sd_b: float, alpha: float = 0.05, power: float = POWER, most: int = MOST_SEEDS
) -> int | None:
    """The seeds per arm (the same in both, as a sweep's seed list gives them) at which Welch's test detects a
    true difference ``delta`` with probability ``power``, with the arms' spread as observed.

    Returns:
        The smallest such number from 2 to ``most``, or ``None`` if even ``most`` is not enough (or
        ``delta`` is 0).
    """
    if delta == 0 or welch_power(delta, sd_a, most, sd_b, most, alpha) < power:
        return None
    low, high = 1, most  # the power grows with n: bisect for the first n whose power is enough
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if welch_power(delta, sd_a, middle, sd_b, middle, alpha) >= power else (middle, high)
    return high
