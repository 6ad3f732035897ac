"""LightningModules, one per variant, sharing :class:`TaskModule` for optimisation and logging."""

from zoo.tasks.base import TaskModule
from zoo.tasks.classification import ClassificationTask
from zoo.tasks.language_model import LanguageModelTask
from zoo.tasks.translation import TranslationTask

__all__ = ["ClassificationTask", "LanguageModelTask", "TaskModule", "TranslationTask"]
