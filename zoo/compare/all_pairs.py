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
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from zoo.compare.ablation import Comparison
from zoo.compare.arguments import CompareError
from zoo.compare.configurations import knob_named, sort_key
from zoo.compare.records import NOT_APPLYING
from zoo.compare.run_values import metric_value

TEST_NAME = "Tukey's HSD (all pairs, simultaneous intervals)"
EVERY_ROW = "configurations"  # --all_pairs configurations: every row of the table, whatever knobs it differs in
UNEQUAL_SPREAD = 2.0  # a largest/smallest standard deviation above this is said: Tukey's HSD pools them


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
            f"baseline's ({', '.join(map(str, values))}); all pairs need 3 or more (the table compares two)"
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
