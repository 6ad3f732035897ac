"""W&B is a copy of the run record, never a reason to stop training: a W&B failure in the middle of a run (its
service process dies, its folder's disk is full) turns W&B off for the rest of the run, in one line."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from lightning.pytorch.loggers import WandbLogger
from lightning.pytorch.utilities import rank_zero_only

from zoo.runs.partial_evaluations import Apart, mark_apart


class GuardedWandbLogger(WandbLogger):
    """A ``WandbLogger`` whose every call is guarded: the first exception is reported in one line on stderr and
    to ``on_failure``, W&B is torn down, and every later call does nothing. The local run record
    (:class:`zoo.runs.record.RunRecord`, a separate logger) is written either way.

    Args:
        *args, **kwargs: those of ``WandbLogger``.
        on_failure: called once with the one-line message (the CLI records it in ``summary.json``).

    Attributes:
        apart: set when an evaluation is recorded apart from the run's (:mod:`zoo.runs.partial_evaluations`).
        command: ``validate`` or ``test`` in such a command (``None`` in ``fit``): logged as ``command`` beside its
            metrics, as in ``metrics.jsonl``, so that ``zoo compare --wandb`` keeps them out of training's curves.
    """

    def __init__(self, *args, on_failure: Callable[[str], None] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.on_failure = on_failure
        self.failure: str | None = None
        self.apart: Apart | None = None
        self.command: str | None = None

    def safely(self, what: str, function: Callable[[], Any]) -> Any:
        """``function()``, or ``None`` once W&B has failed (now or before). ``what`` names the call in the
        message."""
        if self.failure is not None:
            return None
        try:
            return function()
        except Exception as error:  # wandb raises many kinds: ConnectionResetError, OSError, wandb.Error, ...
            self._fail(what, error)
            return None

    def _fail(self, what: str, error: Exception) -> None:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        self.failure = f"W&B failed ({what}: {type(error).__name__}: {reason}); it is off for the rest of this run"
        _warn(f"zoo: {self.failure}; training goes on and the run folder's record is complete")
        if self.on_failure is not None:
            self.on_failure(self.failure)
        self._abandon()

    def _abandon(self) -> None:
        """Leave W&B as after a finished run: finish this one if W&B still can, forget it (a later
        ``WandbLogger`` in this process would reuse ``wandb.run``), and close the service connection (else
        W&B's exit hook prints the failure again as a traceback)."""
        import wandb

        run = self._experiment
        for close in (lambda: run is not None and run.finish(exit_code=1), wandb.teardown):
            try:
                close()
            except Exception:  # the service may be gone: nothing more to do for it
                pass
        if wandb.run is run:
            wandb.run = None

    @property
    def experiment(self) -> Any:
        """The W&B run, started on first use (Lightning starts it before ``setup``); after a failure, an object
        whose every method does nothing."""
        if self.failure is None:
            run = self.safely("wandb.init", lambda: WandbLogger.experiment.fget(self))
            if run is not None:
                return run
        return _Off()

    @rank_zero_only
    def log_hyperparams(self, params, *args, **kwargs) -> None:
        log = super().log_hyperparams
        self.safely("log_hyperparams", lambda: log(params, *args, **kwargs))

    @rank_zero_only
    def log_metrics(self, metrics, step=None) -> None:
        log, metrics = super().log_metrics, mark_apart(metrics, self.apart)
        if self.command is not None:
            metrics = {**metrics, "command": self.command}
        self.safely("log_metrics", lambda: log(metrics, step))

    @rank_zero_only
    def log_image(self, key: str, images: list, step: int | None = None, **kwargs) -> None:
        log = super().log_image
        self.safely("log_image", lambda: log(key, images, step, **kwargs))

    def after_save_checkpoint(self, checkpoint_callback) -> None:
        save = super().after_save_checkpoint
        self.safely("after_save_checkpoint", lambda: save(checkpoint_callback))

    @rank_zero_only
    def finalize(self, status: str) -> None:
        finalize = super().finalize
        self.safely("finalize", lambda: finalize(status))

    def finish(self) -> None:
        """End this process's W&B run (one W&B run per command, even when several run in one process)."""
        self.safely("finish", lambda: self.experiment.finish())


class _Off:
    """Stands for the W&B run once W&B is off: every method call does nothing."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


@rank_zero_only
def _warn(message: str) -> None:
    print(message, file=sys.stderr)
