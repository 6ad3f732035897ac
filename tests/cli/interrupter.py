"""A callback for the interruption test: presses Ctrl-C (raises ``KeyboardInterrupt``) at a given step of a
run that was not resumed."""

import os
import signal

from lightning.pytorch.callbacks import Callback


class InterruptAt(Callback):
    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if trainer.global_step == self.step and trainer.ckpt_path is None:
            raise KeyboardInterrupt


class TerminateAt(Callback):
    """Sends this process SIGTERM (as SLURM does) during a given step of a run that was not resumed."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if trainer.global_step == self.step and trainer.ckpt_path is None:
            os.kill(os.getpid(), signal.SIGTERM)


class SignalFromEnv(Callback):
    """Sends this process the signal that ``$ZOO_TEST_SIGNAL`` names (``STEP:SIGNAL``, e.g. ``8:SIGKILL``) at the
    start of that optimiser step: a kill at a point fixed in advance, with no sleeping. Without the variable it
    does nothing, so runs with and without a kill share one configuration."""

    def __init__(self) -> None:
        step, _, name = os.environ.get("ZOO_TEST_SIGNAL", ":").partition(":")
        self.step, self.signal = (int(step), getattr(signal, name)) if step else (None, None)

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if trainer.global_step == self.step:
            os.kill(os.getpid(), self.signal)


class StopFromEnv(Callback):
    """Stops the run at the end of optimiser step ``$ZOO_TEST_STOP`` (``trainer.should_stop``, as ``max_time``'s
    ``Timer`` and ``EarlyStopping`` stop one); without the variable it does nothing."""

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if str(trainer.global_step) == os.environ.get("ZOO_TEST_STOP"):
            trainer.should_stop = True
