"""The comparison itself: one row per configuration, seeds aggregated, each variation against the baseline, in
the layout of Table 3 of Vaswani et al. 2017 (the baseline first, then the variations, one knob at a time)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from zoo.compare.arguments import CompareError
from zoo.compare.at_point import Point, ended_before, run_at
from zoo.compare.baseline_choice import baseline_reason
from zoo.compare.configurations import (
    Configuration,
    default_baseline,
    differing_knobs,
    group_by_configuration,
    parse_baseline,
    sort_key,
)
from zoo.compare.metrics import check_metric
from zoo.compare.records import Run
from zoo.compare.run_values import _exclusion, _one_run_per_seed, _tokens_per_sec, metric_value
from zoo.compare.statistics import (
    Difference,
    Spread,
    correct,
    minimum_detectable_effect,
    seeds_to_resolve,
    spread,
    welch,
)
from zoo.runs.partial_evaluations import base_metric
from zoo.runs.record import lower_is_better


@dataclass
class Row:
    """One configuration: its knob values, its runs (seeds) and their statistics.

    Attributes:
        knobs: knob -> value.
        runs: the runs of this configuration.
        is_baseline: whether it is the baseline.
        final, best: the metric's last and best value, over seeds.
        parameters, tokens_per_sec, wall_time_s: over seeds (tokens per second: each run's mean over its
            logged training steps).
        difference: against the baseline (of ``best`` or ``final``, as the comparison says); ``None`` for the
            baseline, and for a configuration with no run left in the statistics.
        left_out: the runs of this configuration left out of the statistics (failed, unfinished, ...): a
            configuration all of whose runs failed is a row of none, so that the table still shows it.
    """

    knobs: dict
    runs: list[Run]
    is_baseline: bool
    final: Spread
    best: Spread
    parameters: Spread
    tokens_per_sec: Spread
    wall_time_s: Spread
    difference: Difference | None
    left_out: list[str] = field(default_factory=list)

    @property
    def unfinished(self) -> list[str]:
        """The runs of the row that did not finish (counted with ``--include_unfinished``): their values are
        from where they stopped, not from the end of their budget."""
        return [run.name for run in self.runs if run.status != "finished"]


@dataclass
class Comparison:
    """Everything ``zoo compare`` prints: the metric, which value of it is compared (``best`` or ``final``),
    its direction, the test's threshold, the knobs, the rows (baseline first), the runs left out with why, and
    how the intervals were computed (``welch`` or ``bootstrap``, :func:`.statistics.welch`) and the correction
    of the p-values for the table's several comparisons (:func:`.statistics.correct`); with ``--at``, the point
    and, per run name, the ``(step, position)`` of the evaluation compared (:mod:`.at_point`)."""

    metric: str
    value: str
    lower_is_better: bool
    alpha: float
    knobs: list[str]
    rows: list[Row]
    excluded: list[tuple[str, str]]
    interval: str = "welch"
    correction: str = "holm"
    at: Point | None = None
    points: dict[str, tuple[int, float]] = field(default_factory=dict)
    ended: list[str] = field(default_factory=list)  # with --at: the runs whose last evaluation is before it
    baseline_reason: str = ""  # why the baseline is the baseline (zoo.compare.baseline_choice)
    all_pairs: object = None  # --all_pairs KNOB: zoo.compare.all_pairs.AllPairs

    @property
    def last_test(self) -> bool:
        """Whether the metric is a test metric, whose one value is the last test (no best: choosing the best
        of several tests would choose on the test set)."""
        return base_metric(self.metric).startswith("test_")


def _row(
    config: Configuration,
    runs: list[Run],
    knobs: list[str],
    metric: str,
    baseline: list[float] | None,
    which: str,
    alpha: float,
    interval: str,
) -> Row:
    values = [metric_value(run, metric, which) for run in runs]
    return Row(
        knobs=dict(zip(knobs, config, strict=True)),
        runs=runs,
        is_baseline=baseline is None,
        final=spread([metric_value(run, metric, "final") for run in runs]),
        best=spread([metric_value(run, metric, "best") for run in runs]),
        parameters=spread([run.final.get("parameters") for run in runs]),
        tokens_per_sec=spread([_tokens_per_sec(run) for run in runs]),
        wall_time_s=spread([run.wall_time_s for run in runs]),
        difference=None if baseline is None or not runs else welch(baseline, values, alpha, interval),
    )


def detection_level(rows: list[Row], alpha: float, correction: str) -> float:
    """The per-row level that power is computed at: ``alpha``, or with a correction ``alpha / m`` for a family of
    ``m`` tests (Bonferroni's; Holm's test rejects at least what it rejects, so seeds enough for it are enough
    for Holm's)."""
    family = sum(1 for row in rows if row.difference is not None and row.difference.tested)
    return alpha if correction == "none" else alpha / max(1, family)


def _add_power(rows: list[Row], which: str, level: float) -> None:
    """Each tested row's minimum detectable effect at its seeds, and for one within noise the seeds per arm
    that would resolve its observed Δ (:func:`.statistics.seeds_to_resolve`), at the per-row ``level``."""
    base = getattr(rows[0], which)
    for row in rows:
        d, own = row.difference, getattr(row, which)
        if d is None or not d.tested:
            continue
        d.mde = minimum_detectable_effect(base.std, base.n, own.std, own.n, level)
        if d.verdict == "within noise":
            d.seeds_needed = seeds_to_resolve(d.delta, base.std, own.std, level)


def _table3_order(configs: list[Configuration], base: Configuration) -> list[Configuration]:
    """Baseline first; then variations of one knob (grouped by knob, as rows (A), (B), ... of Table 3), then of
    two knobs, and so on."""

    def key(config):
        changed = [i for i, (a, b) in enumerate(zip(config, base, strict=True)) if a != b]
        return (len(changed), changed, tuple(sort_key(v) for v in config))

    return sorted(configs, key=key)


def _check_one_task(runs: list[Run]) -> None:
    """Refuse runs of more than one task (``model.class_path``): their metrics measure different things, so a
    difference between them is no ablation result."""
    tasks = Counter(path.rpartition(".")[2] for run in runs if (path := run.config.get("model.class_path")))
    if len(tasks) > 1:
        found = ", ".join(f"{task}: {n} run{'s' * (n > 1)}" for task, n in sorted(tasks.items()))
        raise CompareError(
            f"the runs are of {len(tasks)} tasks ({found}); compare the runs of one task, e.g. a glob of their "
            f"names ('runs/do-*') or a sweep"
        )


def _baseline(text: str | None, groups: dict, left_out: dict, knobs: list[str]) -> Configuration:
    """The baseline configuration (:func:`.configurations.parse_baseline`, or the default); a ``--baseline``
    that names a configuration whose runs are all left out is told so, not as one that matches no configuration."""
    if not text:
        return default_baseline(groups, knobs)
    try:
        return parse_baseline(text, groups, knobs)
    except CompareError:
        named = parse_baseline(text, {**left_out, **groups}, knobs)  # its error lists the values of every run
    names = ", ".join(run.name for run in left_out[named])
    raise CompareError(
        f"--baseline {text!r} names a configuration none of whose runs is counted ({names}: see the runs left "
        f"out); choose another, or count unfinished runs too with --include_unfinished"
    )


def _counted(runs: list[Run], metric: str, include_unfinished: bool) -> tuple[list[Run], list[tuple[str, str]]]:
    """The runs the statistics count, and the others with the reason each is left out.

    Raises:
        CompareError: when no run is counted.
    """
    excluded = [(run.name, reason) for run in runs if (reason := _exclusion(run, metric, include_unfinished))]
    kept = [run for run in runs if not _exclusion(run, metric, include_unfinished)]
    if not kept:
        reasons = ", ".join(f"{name} ({reason})" for name, reason in excluded)
        raise CompareError(f"no finished run with {metric} to compare; left out: {reasons}")
    return kept, excluded


def compare(
    runs: list[Run],
    metric: str | None = None,
    baseline: str | None = None,
    which: str = "best",
    alpha: float = 0.05,
    include_unfinished: bool = False,
    interval: str = "welch",
    correction: str = "holm",
    at: Point | None = None,
) -> Comparison:
    """Compare runs.

    Args:
        runs: the runs, from :mod:`.records` or :mod:`.wandb_runs`.
        metric: the metric; by default the task's (:func:`.metrics.task_metric`).
        baseline: ``KEY=VALUE[,KEY=VALUE]`` (see :func:`.configurations.parse_baseline`); by default
            :func:`.configurations.default_baseline`.
        which: ``best`` or ``final``: the value of each run that the test compares.
        alpha: p-values below it mark a difference beyond seed noise; the intervals are ``1 - alpha``.
        include_unfinished: count running, failed and interrupted runs in the statistics too.
        interval: ``welch`` (Welch's t) or ``bootstrap`` (percentile, :func:`.statistics.bootstrap_interval`).
        correction: how the p-values of the table's comparisons are adjusted together, one of
            :data:`.choices.CORRECTIONS`; the verdicts are of the adjusted p-values.
        at: compare each run at its last evaluation at or before this point (:func:`.at_point.run_at`): its
            ``final`` is that evaluation's value, its ``best`` the best until then.

    Returns:
        The :class:`Comparison`.

    Raises:
        CompareError: for an unknown metric, a bad baseline, runs of more than one task, or when no run is
            left to compare.
    """
    _check_one_task(runs)
    metric = check_metric(metric, runs)
    which = "final" if base_metric(metric).startswith("test_") else which  # a test metric: its last test
    kept, excluded = _counted(runs, metric, include_unfinished)
    counted = {id(run) for run in kept}
    kept, points, ended = _at(kept, metric, at)
    # the knobs of every run with a config: an lr sweep whose lr=1e30 runs all failed still shows its lr column
    knobs = differing_knobs([run for run in runs if run.config])
    groups = group_by_configuration(kept, knobs)
    for config, members in groups.items():
        groups[config], reruns = _one_run_per_seed(members)
        excluded += reruns
    left_out = group_by_configuration([run for run in runs if run.config and id(run) not in counted], knobs)
    base = _baseline(baseline, groups, left_out, knobs)
    base_values = [metric_value(run, metric, which) for run in groups[base]]
    rows = []
    for config in _table3_order(list({**groups, **left_out}), base):
        baseline_values = None if config == base else base_values
        row = _row(config, groups.get(config, []), knobs, metric, baseline_values, which, alpha, interval)
        row.left_out = [run.name for run in left_out.get(config, [])]
        rows.append(row)
    correct([row.difference for row in rows if row.difference], correction, alpha)
    _add_power(rows, which, detection_level(rows, alpha, correction))
    reason = baseline_reason(groups, knobs, base, baseline)
    return Comparison(
        metric, which, lower_is_better(metric), alpha, knobs, rows, excluded, interval, correction, at, points, ended,
        reason,
    )


def _at(runs: list[Run], metric: str, at: Point | None) -> tuple[list[Run], dict[str, tuple[int, float]], list]:
    """The runs cut at ``at`` (:func:`.at_point.run_at`), the evaluation each is compared at and the names of
    those that ended before it (:func:`.at_point.ended_before`); as they are without a point.

    Raises:
        CompareError: as :func:`.at_point.run_at` and :func:`.at_point.ended_before`, and for a test metric,
            which has one value (the last test).
    """
    if at is None:
        return runs, {}, []
    if base_metric(metric).startswith("test_"):
        raise CompareError(f"--at {at}: {metric} is a test metric, measured once at the end; compare a val_ metric")
    cut = [run_at(run, metric, at) for run in runs]
    ended = ended_before(runs, at)
    return [run for run, _ in cut], {run.name: point for run, point in cut}, ended
