"""Running the trials of a sweep: each its own process, ``parallel`` at once, one progress line per event.

Each trial's output goes to its own log file; its environment names its W&B group (the sweep) and job type
(the varied knobs), and gives it ``cores // parallel`` threads, since trainings that together ask for more
threads than there are cores each run several times slower; on a machine with GPUs it names the trial's GPU
(:mod:`zoo.sweep.placement`). Ctrl-C (or SIGTERM) stops every running trial
through its process group, so that Lightning shuts down cleanly, and records them as interrupted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from zoo.runs.lock import in_use
from zoo.sweep.placement import Placement
from zoo.sweep.signals import _raise_interrupt, _signal_group, _stop_with_the_sweep
from zoo.sweep.spec import Trial
from zoo.sweep.state import SweepState, close_record, metric_of, run_summary

POLL_S = 0.5  # how often finished processes are looked for
GRACE_S = 60.0  # how long an interrupted trial may take to shut down before it is killed
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


# variables of the shell that name one run, which every trial would share: each trial gets its own
NOT_PASSED = ("WANDB_RUN_ID", "ZOO_RUN_DIR", "WANDB_NAME")


def names_not_passed() -> str | None:
    """The line a sweep says (and ``--dry-run``) where the shell exports ``$WANDB_NAME``: it would name every
    trial alike in W&B, so each trial is named after its run folder instead; ``None`` where it is not set."""
    name = os.environ.get("WANDB_NAME")
    if not name:
        return None
    return (
        f"WANDB_NAME={name!r} is not passed to the trials (every trial would have that name in W&B): each is "
        f"named after its run folder; unset it, or name single runs with fit --run_name"
    )


@dataclass
class Running:
    trial: Trial
    process: subprocess.Popen
    log: object
    started: float
    device: str


def trial_command_line(command_for, trial: Trial, runs_dir: Path) -> list[str]:
    """A trial's full command: the sweep's, its own run name and runs folder, and ``--ckpt_path last`` where an
    earlier attempt left a checkpoint to continue from."""
    command = [*command_for(trial.params), f"--run_name={trial.name}", f"--runs_dir={runs_dir}"]
    if (runs_dir / trial.name / "checkpoints" / "last.ckpt").is_file():
        command.append("--ckpt_path=last")
    return command


class Runner:
    """Starts trials, watches them, and records what happened.

    Args:
        state: the sweep's state file.
        runs_dir: where the trials' run folders go (``--runs_dir``).
        command_for: ``params -> argument list`` of a trial, without run name and folder.
        metric: the sweep's metric name (shown in progress lines), or ``None``.
        parallel: how many trials at once.
        threads: threads per trial (``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``).
        console: where progress lines go.
        gpus: the GPUs trials are placed on (``CUDA_VISIBLE_DEVICES`` entries); none: on the CPU.
        cpu_reason: why there are none (:class:`zoo.sweep.placement.Placement`).
    """

    def __init__(
        self,
        state: SweepState,
        runs_dir: Path,
        command_for: Callable[[dict], list[str]],
        metric: str | None,
        parallel: int,
        threads: int,
        console: Console,
        gpus: list[str] = (),
        cpu_reason: str | None = None,
    ) -> None:
        self.state, self.runs_dir, self.command_for = state, Path(runs_dir), command_for
        self.metric, self.parallel, self.threads, self.console = metric, parallel, threads, console
        self.placement = Placement(list(gpus), parallel, cpu_reason)
        self.running: list[Running] = []
        self.counts = dict.fromkeys(EVENTS, 0)

    # -- one trial -----------------------------------------------------------------------------
    def command(self, trial: Trial) -> list[str]:
        """The trial's full command: its own run name and runs folder, and ``--ckpt_path last`` where an
        earlier attempt left a checkpoint to continue from."""
        return trial_command_line(self.command_for, trial, self.runs_dir)

    def environment(self, trial: Trial, device: str) -> dict:
        env = {key: value for key, value in os.environ.items() if key not in NOT_PASSED}
        env.update(WANDB_RUN_GROUP=self.state.data["name"], WANDB_JOB_TYPE=trial.job_type)
        env.update({name: str(self.threads) for name in THREAD_VARIABLES})
        env.update(Placement.environment(device))
        return env

    def start(self, trial: Trial, number: str) -> None:
        run_dir = self.runs_dir / trial.name
        if in_use(run_dir):  # a fit of the same name still training: neither set it aside nor run beside it
            self.refuse(
                trial, number, f"its run folder {run_dir} is in use by another command; rerun the sweep after it"
            )
            return
        self._clear_unresumable(run_dir)
        log_path = self.state.log_path(trial.name)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(log_path, "a")
        command, device = self.command(trial), self.placement.take()
        placed = "".join(f"{key}={value} " for key, value in Placement.environment(device).items())
        log.write(f"$ {placed}{' '.join(command)}\n")
        log.flush()
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=self.environment(trial, device),
            start_new_session=True,
            preexec_fn=_stop_with_the_sweep,
        )
        self.running.append(Running(trial, process, log, time.monotonic(), device))
        attempts = self.state.trials.get(trial.name, {}).get("attempts", 0) + 1
        self.state.update(
            trial.name,
            params=trial.params,
            job_type=trial.job_type or None,  # as the run record has it (no varied knob: none)
            status="running",
            log=str(log_path),
            attempts=attempts,
            run_dir=str(run_dir),
            device=device,
            error=None,  # an earlier attempt's
        )
        resumed = " (continues from last.ckpt)" if command[-1] == "--ckpt_path=last" else ""
        self.say(number, "start", trial, f"{trial.job_type or 'seed only'} on {device}{resumed}")

    def _clear_unresumable(self, run_dir) -> None:
        """Remove an empty folder (an attempt stopped before it wrote anything); set aside one without a
        ``last.ckpt`` to resume from."""
        if run_dir.is_dir() and not any(run_dir.iterdir()):
            run_dir.rmdir()
        elif run_dir.is_dir() and not (run_dir / "checkpoints" / "last.ckpt").is_file():
            self.state.set_aside(run_dir)

    def refuse(self, trial: Trial, number: str, reason: str) -> None:
        """Record a trial that cannot start as failed, with the reason."""
        attempts = self.state.trials.get(trial.name, {}).get("attempts", 0) + 1
        self.state.update(
            trial.name,
            params=trial.params,
            job_type=trial.job_type or None,
            status="failed",
            exit_code=None,
            error=reason,
            attempts=attempts,
            metric=None,
        )
        self.counts["failed"] += 1
        self.say(number, EVENTS["failed"], trial, reason)

    def finish(self, running: Running, interrupted: bool = False) -> str:
        """Record a trial whose process ended; returns its status."""
        running.log.close()
        self.placement.give_back(running.device)
        trial, code = running.trial, running.process.returncode
        run_dir = self.runs_dir / trial.name
        wall = round(time.monotonic() - running.started, 1)
        close_record(run_dir, code)
        summary = run_summary(run_dir)
        status = _status(summary, code, interrupted)
        value = None if code == REFUSED else metric_of(summary, self.metric)  # refused: the record is not its
        before = self.state.trials.get(trial.name, {}).get("wall_time_s") or 0.0  # of its earlier attempts
        total = round(before + wall, 1)
        self.state.update(trial.name, status=status, exit_code=code, wall_time_s=total, metric=value)
        self.counts[status] += 1
        detail = f"{_metric_text(self.metric, value)}  {wall:.0f} s"
        if status != "finished":
            detail = f"exit {code}  {wall:.0f} s  log: {self.state.log_path(trial.name)}  {_last_line(running)}"
        self.say("", EVENTS[status], trial, detail)
        return status

    def say(self, number: str, event: str, trial: Trial, detail: str) -> None:
        style = {"done": "green", "FAIL": "bold red", "KILL": "bold red", "stop": "yellow", "skip": "dim"}
        style = style.get(event, "cyan")
        stamp = time.strftime("%H:%M:%S")
        self.console.print(f"{stamp} {number:>9} [{style}]{event:<5}[/] {trial.name}  {escape(detail)}")

    # -- the loop ------------------------------------------------------------------------------
    def run(self, next_trial: Callable[[], tuple[Trial, str] | None]) -> None:
        """Start trials from ``next_trial`` (``None`` when there are no more) until all have ended.

        Raises:
            KeyboardInterrupt: after stopping and recording the running trials (Ctrl-C; :class:`Terminated` for
                SIGTERM).
        """
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            self._loop(next_trial)
        except KeyboardInterrupt:
            self.stop_all()
            raise
        finally:
            signal.signal(signal.SIGTERM, previous)

    def _loop(self, next_trial) -> None:
        exhausted = False
        while self.running or not exhausted:
            while not exhausted and len(self.running) < self.parallel:
                following = next_trial()
                if following is None:
                    exhausted = True
                else:
                    self.start(*following)
            for running in [r for r in self.running if r.process.poll() is not None]:
                self.running.remove(running)
                self.finish(running)
            if self.running:
                time.sleep(POLL_S)

    def stop_all(self) -> None:
        """SIGTERM to every running trial's process group (``fit`` saves ``last.ckpt`` and records the run as
        interrupted, as on Ctrl-C; SIGINT would not do: a sweep started in the background with ``&`` or
        ``nohup`` starts its trials with SIGINT ignored), SIGKILL after ``GRACE_S``; each is recorded as
        interrupted unless it had finished."""
        for running in self.running:
            _signal_group(running.process, signal.SIGTERM)
        deadline = time.monotonic() + GRACE_S
        for running in self.running:
            while running.process.poll() is None and time.monotonic() < deadline:
                try:
                    running.process.wait(timeout=max(0.1, deadline - time.monotonic()))
                except (subprocess.TimeoutExpired, KeyboardInterrupt):
                    pass
            if running.process.poll() is None:
                _signal_group(running.process, signal.SIGKILL)
                running.process.wait()
            self.finish(running, interrupted=True)
        self.running.clear()


REFUSED = 2  # the exit status of `zoo fit` refusing its configuration in one line, before it writes any record

# How a trial ended, as sweep.json and its run record say it, and the word of its progress line.
EVENTS = {"finished": "done", "failed": "FAIL", "killed": "KILL", "interrupted": "stop"}


def _status(summary: dict | None, exit_code: int, interrupted: bool) -> str:
    """How a trial ended: ``finished`` only when its process exited 0 with its record saying so; otherwise as
    its record says where that is a way of stopping (``interrupted`` by SIGTERM or Ctrl-C, ``killed`` by a
    signal it could not handle), so that ``sweep.json`` and ``summary.json`` agree; else ``interrupted`` when
    the sweep stopped it, ``killed`` for a signal, ``failed``. A process refused before it wrote anything (exit
    2) is ``failed``: the record it left as it was (a ``finished`` one of another command) says nothing of it."""
    recorded = (summary or {}).get("status")
    if exit_code == REFUSED:
        return "failed"
    if exit_code == 0 and recorded == "finished":
        return "finished"
    if recorded in ("interrupted", "killed"):
        return recorded
    return "interrupted" if interrupted else "killed" if exit_code < 0 else "failed"


def _metric_text(metric: str | None, value: dict | None) -> str:
    if value is None:
        return f"{metric} not logged" if metric else ""
    step = f" at step {value['step']}" if value.get("step") is not None else ""
    return f"{value['kind']} {metric} {value['value']:.4g}{step}"


def _last_line(running: Running) -> str:
    """The last line of a trial's log, which for a crash is the error; nothing for a trial that wrote nothing
    after its command (the log's first line, ``$ ...``, which is no reason)."""
    try:
        lines = [line for line in Path(running.log.name).read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    lines = lines[1:] if lines and lines[0].startswith("$ ") else lines
    return f"| {lines[-1].strip()[:200]}" if lines else ""
