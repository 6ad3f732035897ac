"""Lightning data modules on ``datasets`` and ``tokenizers``: translation, classification, language modelling."""

from zoo.data.base import ZooDataModule
from zoo.data.classification import ClassificationDataModule
from zoo.data.language_model import LanguageModelDataModule
from zoo.data.synthetic import ReversalDataModule
from zoo.data.translation import TranslationDataModule

__all__ = [
    "ClassificationDataModule",
    "LanguageModelDataModule",
    "ReversalDataModule",
    "TranslationDataModule",
    "ZooDataModule",
]
