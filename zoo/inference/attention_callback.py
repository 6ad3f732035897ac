"""The callback that draws the attention maps of the first validation example at each validation (as ``python -m zoo
attention`` draws them)."""

from __future__ import annotations

from pathlib import Path

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Callback

from zoo.inference.checkpoint import TrainedModel
from zoo.inference.maps import draw_example, example_text


class AttentionMaps(Callback):
    """At each validation, the attention maps of the first validation example, every layer and head (as
    ``python -m zoo attention`` draws them), to ``<run folder>/attention/step<S>.png`` and to W&B as the image
    ``attention``: ``--trainer.callbacks+=zoo.inference.attention_callback.AttentionMaps`` (or, as before the
    package restructure, ``zoo.callbacks.AttentionMaps``)."""

    def on_validation_end(self, trainer: pl.Trainer, pl_module) -> None:
        if trainer.sanity_checking or trainer.global_rank != 0:
            return
        model = TrainedModel(pl_module, trainer.datamodule.tokenizers, path="")
        out = Path(trainer.default_root_dir) / "attention" / f"step{trainer.global_step}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        training = pl_module.training
        pl_module.eval()
        try:
            draw_example(model, example_text(model, trainer.datamodule), out)
        finally:
            pl_module.train(training)
        for logger in trainer.loggers:
            if hasattr(logger, "log_image"):
                logger.log_image(key="attention", images=[str(out)], step=trainer.global_step)
