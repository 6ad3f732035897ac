"""Lightning data modules on ``datasets`` and ``tokenizers``: translation, classification, language modelling.

- ``base``: ``ZooDataModule``, shared by all; ``translation``, ``classification``, ``language_model``,
  ``synthetic``: one per task (``synthetic``: the quickstart's digit reversal); ``sentences``: sentence data sets
- ``loading``, ``file_checks``: reading a local folder or a hub data set, and the checks of its files
- ``tokenizer``: training and loading tokenizers; ``detokenize``: ids back to text for any id sequence;
  ``framing``: the special tokens around a text (an imported tokenizer's template, else the task's)
- ``cache``: where tokenised data is kept; ``cache_entries``: its entries, to list and prune them
- ``batching``: token-budget batches shared across ranks; ``padding``: packing and padding sequences
- ``loader_options``: worker processes and pinned memory for the device a run trains on
"""

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
