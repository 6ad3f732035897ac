"""Where the next trial comes from: a fixed list (grid, random), or W&B's Bayesian search, which proposes each
trial from the results of those before it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from zoo.sweep.spec import NEWER_KEYS, Trial, sweeps_engine, trial_of
from zoo.sweep.state import SweepState, metric_of, run_summary

Source = Callable[[], "tuple[Trial, str] | None"]
RUN_STATES = {
    "pending": "pending",
    "running": "running",
    "finished": "finished",
    "failed": "failed",
    "interrupted": "killed",
    "killed": "killed",
}


def list_source(trials: list[Trial], total: int, done: int) -> Source:
    """Trials from a list, each with its number in the sweep (``[3/12]``).

    Args:
        trials: the trials to run, in order.
        total: the sweep's number of trials.
        done: how many finished earlier (the numbering starts after them).
    """
    queue, started = list(trials), [done]

    def next_trial():
        if not queue:
            return None
        started[0] += 1
        return queue.pop(0), f"[{started[0]}/{total}]"

    return next_trial


PROPOSALS = 20  # proposals of existing trials in a row after which a Bayesian search has run out of new ones


class BayesSource:
    """First the trials an earlier ``zoo sweep`` proposed and did not finish, then new proposals of W&B's
    Bayesian search (``sweeps.next_run``), given every trial so far, until ``count`` trials exist.

    The engine may propose a point that is already a trial (finished, failed, or running now: a finite space
    smaller than ``count``, or a value that rounds to an existing trial's name); such a proposal is drawn again,
    and after :data:`PROPOSALS` of them in a row the search stops, with :attr:`exhausted` saying why.

    Args:
        config: the sweep configuration (method bayes, with a metric).
        state: the sweep's state: the trials so far, their status and metric.
        retries: the unfinished trials of earlier runs.
        count: how many trials the sweep has in all.
        seed: seeds numpy's generator, which the Gaussian-process search draws from.
    """

    def __init__(self, config: dict, state: SweepState, retries: Source, count: int, seed: int) -> None:
        import numpy as np

        self.engine, self.config, self.state, self.retries, self.count = sweeps_engine(), config, state, retries, count
        self.checked = {key: value for key, value in config.items() if key not in NEWER_KEYS}
        self.exhausted: str | None = None
        np.random.seed(seed)

    def __call__(self) -> tuple[Trial, str] | None:
        retry = self.retries()
        if retry is not None:
            return retry
        for _ in range(PROPOSALS):
            if len(self.state.trials) >= self.count:
                return None
            trial = trial_of(self.config, self.engine.next_run(self.checked, _history(self.config, self.state)))
            if trial.name not in self.state.trials:
                self.state.update(trial.name, params=trial.params, job_type=trial.job_type or None, status="pending")
                return trial, f"[{len(self.state.trials)}/{self.count}]"
        self.exhausted = (
            f"the Bayesian search proposed only existing trials ({PROPOSALS} in a row): its space holds no other "
            f"than the {len(self.state.trials)} so far, fewer than the {self.count} asked for"
        )
        return None


def _history(config: dict, state: SweepState) -> list:
    """The trials so far as the sweep engine's ``SweepRun``s, with the metric from each run record."""
    engine, metric = sweeps_engine(), config["metric"]["name"]
    runs = []
    for entry in state.trials.values():
        summary = run_summary(Path(entry["run_dir"])) if entry.get("run_dir") else None
        value = metric_of(summary, metric)
        runs.append(
            engine.SweepRun(
                config={key: {"value": value} for key, value in entry["params"].items()},
                state=RUN_STATES.get(entry.get("status"), "failed"),
                summaryMetrics={metric: value["value"]} if value else {},
            )
        )
    return runs
