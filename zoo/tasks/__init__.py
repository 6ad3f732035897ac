"""LightningModules, one per variant, sharing :class:`TaskModule` for optimisation and logging.

- ``base``: ``TaskModule`` and the knobs' types; ``translation``, ``classification``, ``language_model``: the
  three tasks
- ``recurrence``: ``model.architecture`` (Transformer or recurrent) and the knobs that do not apply to it
- ``network_size``: whether a network fits in memory; ``data_checks``: the checks of the data module;
  ``compiling``: ``model.compile``, one graph per mode for a whole run
- ``optimizer``, ``schedules``, ``gradients``: AdamW, the learning-rate schedules, the gradient norm and clipping
- ``train_tokens``: the training tokens seen, counted on the device; ``checkpoint_extras``: what a task keeps
  in its checkpoints (those tokens, the record of an imported model)
- ``metric_states``, ``corpus_scores``: evaluation metrics kept exact under every precision; corpus BLEU
- ``pending_text``: generated ids left on the device until the epoch ends, then read as text
"""

from zoo.tasks.base import TaskModule
from zoo.tasks.classification import ClassificationTask
from zoo.tasks.language_model import LanguageModelTask
from zoo.tasks.translation import TranslationTask

__all__ = ["ClassificationTask", "LanguageModelTask", "TaskModule", "TranslationTask"]
