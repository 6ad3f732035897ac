"""A/A calibration (``zoo compare --calibrate``): the runs of ONE configuration, split many ways into groups of
three seeds, are comparisons with no true effect, so the share of them called "beyond noise" estimates the rate
of false positives of the very tests ``zoo compare`` runs: :func:`.statistics.welch`, its bootstrap interval
(:func:`.statistics.bootstrap_interval`), :func:`.statistics.paired`, and the corrections of :func:`.statistics.adjust`.

Two kinds of split: a pair (3 seeds against 3: the per-comparison rate) and a family (a baseline and ``k``
variations of 3 seeds each, ``k = 3`` with 12 seeds: the family-wise rate, with and without a correction).
:func:`simulate` runs the same tally on independent tables of normal values instead of runs.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace

import numpy as np

from zoo.compare.arguments import SPLITS, CompareError
from zoo.compare.configurations import sort_key
from zoo.compare.statistics import adjust, bootstrap_interval, correct, paired, welch
from zoo.runs.identity import is_seed

ARM = 3  # seeds per group: what a sweep of three seeds a configuration compares
SEED = 0  # the generator of the splits (and of simulate's values): the same runs give the same table
ENUMERATE_UP_TO = 20_000  # all splits are listed (then sampled) up to this many; beyond, drawn one by one
TESTS = ("welch", "bootstrap", "paired")

Split = tuple[tuple[int, ...], ...]  # groups of seed indices, the baseline first


def split_count(n: int, groups: int) -> int:
    """The distinct splits of ``n`` seeds into ``groups`` groups of :data:`ARM`: a baseline and ``groups - 1``
    variations, the variations unordered among themselves, and a pair unordered (3 vs 3 either way round is one
    comparison: Welch's p and whether an interval holds 0 do not depend on the side).

    Example:
        >>> split_count(12, 2), split_count(12, 4)
        (9240, 61600)
    """
    variations = groups - 1
    chosen = math.comb(n - ARM, ARM * variations) * math.factorial(ARM * variations)
    chosen //= math.factorial(ARM) ** variations * math.factorial(variations)
    return math.comb(n, ARM) * chosen // (2 if groups == 2 else 1)


def _canonical(groups: list[tuple[int, ...]]) -> Split:
    base, variations = groups[0], sorted(groups[1:])
    if len(groups) == 2:
        base, variations = min(base, variations[0]), [max(base, variations[0])]
    return (base, *variations)


def _all_splits(n: int, groups: int) -> list[Split]:
    def disjoint(available: tuple[int, ...], count: int, after: tuple[int, ...]):
        if count == 0:
            yield ()
            return
        for triple in itertools.combinations(available, ARM):
            if triple > after:
                rest = tuple(i for i in available if i not in triple)
                yield from ((triple, *more) for more in disjoint(rest, count - 1, triple))

    found = {
        _canonical([base, *variations])
        for base in itertools.combinations(range(n), ARM)
        for variations in disjoint(tuple(i for i in range(n) if i not in base), groups - 1, ())
    }
    return sorted(found)


def splits(n: int, groups: int, samples: int = SPLITS, seed: int = SEED) -> list[Split]:
    """All splits (:func:`split_count`) of ``n`` seeds into ``groups`` groups of three, or ``samples`` of them
    drawn without repeats by ``numpy.random.default_rng(seed)``, sorted.

    Raises:
        ValueError: if ``n < groups * ARM``.
    """
    if n < groups * ARM:
        raise ValueError(f"{n} seeds make no {groups} groups of {ARM}")
    total = split_count(n, groups)
    rng = np.random.default_rng(seed)
    if total <= ENUMERATE_UP_TO:
        every = _all_splits(n, groups)
        return every if samples >= total else [every[i] for i in sorted(rng.choice(total, samples, replace=False))]
    found: set[Split] = set()
    while len(found) < samples:
        order = rng.permutation(n)
        found.add(_canonical([tuple(sorted(int(i) for i in order[g * ARM : (g + 1) * ARM])) for g in range(groups)]))
    return sorted(found)


@dataclass
class Count:
    """How many of ``total`` splits some test called beyond noise."""

    beyond: int = 0
    total: int = 0

    def add(self, beyond: bool) -> None:
        self.beyond += bool(beyond)
        self.total += 1

    @property
    def share(self) -> float:
        return self.beyond / self.total if self.total else math.nan


ROWS = (  # (test, split, correction): the rows of the table, in order
    ("welch", "pair", "none"),
    ("welch", "family", "none"),
    ("welch", "family", "holm"),
    ("welch", "family", "bonferroni"),
    ("bootstrap", "pair", "none"),
    ("bootstrap", "family", "none"),
    ("bootstrap", "family", "bonferroni"),
    ("paired", "pair", "none"),
    ("paired", "family", "none"),
    ("paired", "family", "holm"),
    ("paired", "family", "bonferroni"),
)


@dataclass
class Tally:
    """The counts of each row of :data:`ROWS` whose test was run, and the family size ``k``."""

    counts: dict[tuple[str, str, str], Count] = field(default_factory=dict)
    variations: int = 0

    def add(self, key: tuple[str, str, str], beyond: bool) -> None:
        self.counts.setdefault(key, Count()).add(beyond)


def _excludes_zero(low: float, high: float) -> bool:
    return low > 0 or high < 0


def _pair(tally: Tally, base: list[float], variation: list[float], alpha: float, tests: tuple[str, ...]) -> None:
    if "welch" in tests:
        tally.add(("welch", "pair", "none"), welch(base, variation, alpha).verdict == "beyond noise")
    if "bootstrap" in tests:
        tally.add(("bootstrap", "pair", "none"), _excludes_zero(*bootstrap_interval(base, variation, alpha)))
    if "paired" in tests:
        tally.add(("paired", "pair", "none"), paired(base, variation, alpha).verdict == "beyond noise")


def _family(tally: Tally, base: list[float], variations: list[list[float]], alpha: float, tests: tuple) -> None:
    m = len(variations)
    if "welch" in tests:
        differences = [welch(base, v, alpha) for v in variations]
        for method in ("none", "holm", "bonferroni"):
            corrected = [replace(d) for d in differences]
            correct(corrected, method, alpha)
            tally.add(("welch", "family", method), any(d.verdict == "beyond noise" for d in corrected))
    if "bootstrap" in tests:  # an interval, no p-value: Bonferroni's is the interval at 1 - alpha/m; no Holm
        for method, level in (("none", alpha), ("bonferroni", alpha / m)):
            beyond = any(_excludes_zero(*bootstrap_interval(base, v, level)) for v in variations)
            tally.add(("bootstrap", "family", method), beyond)
    if "paired" in tests:
        p = [q for v in variations if (q := paired(base, v, alpha).p) is not None]
        for method in ("none", "holm", "bonferroni"):
            tally.add(("paired", "family", method), any(q < alpha for q in adjust(p, method)))


def tally_splits(
    values: list[float], pairs: list[Split], families: list[Split], alpha: float = 0.05, tests: tuple = TESTS
) -> Tally:
    """Run the tests on each split of ``values`` (seed indices into them).

    "Beyond noise" is, for Welch, p (adjusted for a family) below ``alpha``; for the bootstrap, a percentile
    interval at ``1 - alpha`` (``1 - alpha/m`` for Bonferroni) that excludes 0, the reading that ``--ci
    bootstrap`` invites; for the paired t-test, its p with the seeds of each group paired in index order (an
    A/A split has no seed in both groups, so any pairing is as good, and this calibrates the test, not what
    pairing gains).
    """
    tally = Tally(variations=len(families[0]) - 1 if families else 0)
    pick = lambda group: [values[i] for i in group]  # noqa: E731
    for base, variation in pairs:
        _pair(tally, pick(base), pick(variation), alpha, tests)
    for base, *variations in families:
        _family(tally, pick(base), [pick(v) for v in variations], alpha, tests)
    return tally


def check_values(values: list[float], names: list[str]) -> None:
    """Refuse what an A/A calibration cannot use, in one line.

    Raises:
        CompareError: for fewer than ``4 * ARM`` (12) seeds, or a value that is not finite.
    """
    if len(values) < 4 * ARM:
        raise CompareError(
            f"--calibrate needs {4 * ARM} seeds or more of one configuration (a baseline and 3 variations of "
            f"{ARM} seeds each); these runs have {len(values)}: sweep more seeds (sweeps/known/aa-ed.yaml has 12)"
        )
    bad = [f"{name} ({value})" for name, value in zip(names, values, strict=True) if not math.isfinite(value)]
    if bad:
        raise CompareError(f"--calibrate needs a finite value from every seed; not finite: {', '.join(bad)}")


def calibrate(values: list[float], alpha: float = 0.05, samples: int = SPLITS, tests: tuple = TESTS) -> Tally:
    """The A/A tally of one configuration's seeds: :data:`SPLITS` pairs and as many families of a baseline and
    ``len(values) // 3 - 1`` variations (all of them where there are fewer), drawn with :data:`SEED`."""
    groups = len(values) // ARM
    pairs, families = splits(len(values), 2, samples), splits(len(values), groups, samples)
    return tally_splits(values, pairs, families, alpha, tests)


def simulate(
    tables: int, seeds: int = 4 * ARM, alpha: float = 0.05, effect: float = 0.0, seed: int = SEED, tests=TESTS
) -> Tally:
    """The tally of ``tables`` independent tables of standard normal values (``numpy.random.default_rng(seed)``):
    each table a baseline and ``seeds // 3 - 1`` variations of three seeds, every variation shifted by
    ``effect`` (in standard deviations; 0: an A/A). The pair of each table is its baseline and first variation.
    Independent tables make the binomial range of :func:`expected` exact here."""
    rng = np.random.default_rng(seed)
    groups = seeds // ARM
    family = tuple(tuple(range(g * ARM, (g + 1) * ARM)) for g in range(groups))
    tally = Tally(variations=groups - 1)
    for _ in range(tables):
        values = rng.standard_normal(groups * ARM) + np.repeat([0.0] + [effect] * (groups - 1), ARM)
        one = tally_splits([float(v) for v in values], [family[:2]], [family], alpha, tests)
        for key, count in one.counts.items():
            tally.add(key, bool(count.beyond))
    return tally


def expected(split: str, correction: str, alpha: float, variations: int) -> tuple[float, bool]:
    """The share a calibrated test gives with no effect, and whether it is a bound (``True``: at most it).

    A pair: ``alpha``. A family without a correction: at most ``1 - (1 - alpha)^k``, the rate of ``k``
    independent tests (the variations share the baseline, which makes them agree more, and the rate lower).
    A corrected family: at most ``alpha`` (Holm 1979; Bonferroni)."""
    if split == "pair":
        return alpha, False
    if correction == "none":
        return 1 - (1 - alpha) ** variations, True
    return alpha, True


def binomial_range(rate: float, total: int, level: float = 0.95) -> tuple[float, float]:
    """The central ``level`` range of the share of ``total`` independent trials at ``rate``
    (``scipy.stats.binom.interval``)."""
    from scipy import stats

    low, high = stats.binom.interval(level, total, rate)
    return float(low) / total, float(high) / total


def _seed_order(run) -> tuple:
    """Runs in the order of their seeds, numbers in numeric order (seed 2 before seed 10)."""
    return (*((k, sort_key(v)) for k, v in sorted(run.config.items()) if is_seed(k)), run.name)


def seed_values(runs: list, metric: str | None, **settings) -> tuple[str, list[float], list[str]]:
    """The metric, its value of each seed and the run names, in seed order, of runs of ONE configuration, as
    :func:`.ablation.compare` counts them (finished runs, one run a seed, ``--value``, ``--at``).

    Raises:
        CompareError: as :func:`.ablation.compare`, and for runs of several configurations (naming the knobs
            that differ), fewer than 12 seeds or a value that is not finite (:func:`check_values`).
    """
    from zoo.compare.ablation import compare
    from zoo.compare.run_values import metric_value

    comparison = compare(runs, metric, correction="none", **settings)
    if len(comparison.rows) > 1:
        raise CompareError(
            f"--calibrate takes the runs of one configuration; these are {len(comparison.rows)} configurations "
            f"(differing in {', '.join(comparison.knobs)}): name the runs of one, e.g. a glob of its sweep's runs"
        )
    kept = sorted(comparison.rows[0].runs, key=_seed_order)
    values = [metric_value(run, comparison.metric, comparison.value) for run in kept]
    names = [run.name for run in kept]
    check_values(values, names)
    return comparison.metric, values, names
