"""No training step makes the host wait for the device outside the steps that log: the token count, the
non-finite guard, the gradient norm, the metrics and the progress bar stay on the device until then, so that on
a GPU the host can queue steps ahead (:mod:`tests.training.host_reads` counts the reads)."""

import functools

import lightning.pytorch as pl
import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, VARIANTS
from tests.training.host_reads import CountReads, ReadCounter
from zoo.cli.main import main

STEPS = 12


class CountingWithBoundaries(CountReads):
    """Also notes the steps after which validation ran or a checkpoint was saved: reading there is allowed."""

    def __init__(self) -> None:
        super().__init__()
        self.boundaries: set[int] = {STEPS - 1}

    def on_validation_start(self, trainer, pl_module) -> None:
        self.boundaries.add(trainer.global_step - 1)
        super().on_validation_start(trainer, pl_module)

    def on_save_checkpoint(self, trainer, pl_module, checkpoint) -> None:
        self.boundaries.add(trainer.global_step - 1)


@pytest.fixture
def counted(monkeypatch):
    """A :class:`CountingWithBoundaries` added to the trainer that ``main`` builds."""
    counter, init = CountingWithBoundaries(), pl.Trainer.__init__

    @functools.wraps(init)  # the CLI reads the trainer's arguments from its signature
    def with_counter(self, *args, **kwargs):
        init(self, *args, **{**kwargs, "callbacks": [*(kwargs.get("callbacks") or []), counter]})

    monkeypatch.setattr(pl.Trainer, "__init__", with_counter)
    return counter


@pytest.mark.parametrize(
    ("variant", "precision"),
    [
        ("encoder_decoder", "32-true"),
        ("encoder_only", "32-true"),
        ("decoder_only", "32-true"),
        ("decoder_only", "bf16-mixed"),
    ],
)
def test_no_step_reads_the_device_outside_the_steps_that_log(data_dir, cli_env, counted, variant, precision):
    config, folder, extra, _ = VARIANTS[variant]
    args = [f"--trainer.max_steps={STEPS}", "--trainer.log_every_n_steps=5", "--trainer.val_check_interval=6"]
    main([
        "fit", "--config", str(CONFIGS / config), f"--data.path={data_dir / folder}", *TINY_MODEL, *extra, *args,
        "--trainer.limit_val_batches=1", f"--trainer.precision={precision}", "--trainer.enable_model_summary=false",
    ])  # fmt: skip
    assert counted.logging_steps == {4, 9}
    reads = {step: dict(counts) for step, counts in counted.counter.reads.items()}
    quiet = {step: count for step, count in reads.items() if step not in counted.logging_steps | counted.boundaries}
    assert quiet == {}, f"device-to-host reads at steps that do not log: {quiet}"
    assert reads.keys() >= {4, 9}  # the counter sees the reads of the steps that log


def test_the_counter_sees_each_kind_of_read():
    import torch

    x = torch.arange(4.0)
    with ReadCounter() as counter:
        counter.step = 0
        x.sum().item(), bool(x[0]), int(x[1]), float(x[2]), x.tolist(), x.cpu(), x[x > 1], f"{x[0]}"
    assert counter.reads[0] == {
        "item": 1, "__bool__": 1, "__int__": 1, "__float__": 1, "tolist": 1, "cpu": 1, "__getitem__": 1,
        "__format__": 1,
    }  # fmt: skip
