"""What a task keeps in its checkpoints besides Lightning's: the training tokens seen up to it, and the record
``zoo import`` made of the published model it came from (carried into every run fine-tuned from it, so that
``zoo export`` writes the model back in that checkpoint's own ids)."""

from __future__ import annotations

from zoo.tasks.train_tokens import TrainTokens

TRAIN_TOKENS_KEY = "zoo_train_tokens"  # in a checkpoint: the training tokens seen up to it
IMPORTED_KEY = "zoo_imported"  # in a checkpoint: what `zoo import` recorded of the published model it came from


class CheckpointExtras:
    """Lightning's checkpoint hooks for a task's own entries (``_train_tokens``, ``imported``)."""

    imported: dict | None = None  # zoo import's record of a published checkpoint

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        self.imported = checkpoint.get(IMPORTED_KEY, self.imported)
        self._checkpoint_step = checkpoint.get("global_step")
        self._train_tokens = TrainTokens(checkpoint.get(TRAIN_TOKENS_KEY))  # None: saved before they were counted

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        checkpoint[TRAIN_TOKENS_KEY] = self._train_tokens.read()
        if self.imported is not None:
            checkpoint[IMPORTED_KEY] = self.imported
