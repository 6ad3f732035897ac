"""Labelled sentences for classification (SST-2 by default), batched by a token budget."""

from __future__ import annotations

import torch

from zoo.data.base import ZooDataModule, pack, pad, unpack
from zoo.data.batching import TokenBudgetBatchSampler
from zoo.data.loading import check_columns, load_splits
from zoo.data.tokenizer import BOS_ID
from zoo.nn.registry import check_at_least


class ClassificationDataModule(ZooDataModule):
    """Rows with a text and an integer label column. Every sequence starts with ``<bos>``, which serves as
    the ``[CLS]`` token when the model pools with ``cls`` (Devlin et al. 2019, section 3).

    Args:
        path: hub id or local folder (default ``stanfordnlp/sst2``).
        text_column: the text column.
        label_column: the label column (integers ``0 .. num_classes - 1``).
        max_tokens: the token budget of a training batch.
        batch_size: an optional cap on sentences per batch.
        max_len: longer sentences are truncated to this many tokens.
        tokenizer, vocab_size, num_workers, cache_dir, seed: see :class:`ZooDataModule`.
    """

    def __init__(
        self,
        path: str = "stanfordnlp/sst2",
        text_column: str = "sentence",
        label_column: str = "label",
        max_tokens: int = 4096,
        batch_size: int | None = None,
        max_len: int = 128,
        tokenizer: str = "wordpiece",
        vocab_size: int = 8000,
        num_workers: int = 0,
        cache_dir: str | None = None,
        seed: int = 0,
    ) -> None:
        check_at_least("data.max_tokens", max_tokens, 1)
        check_at_least("data.batch_size", batch_size, 1, optional=True)
        check_at_least("data.max_len", max_len, 2)
        super().__init__(path, tokenizer, vocab_size, num_workers, cache_dir, seed)
        self.text_column, self.label_column = text_column, label_column
        self.max_tokens, self.batch_size, self.max_len = max_tokens, batch_size, max_len

    def settings(self) -> dict:
        return {**super().settings(), "text": self.text_column, "label": self.label_column, "max_len": self.max_len}

    def load(self):
        data = load_splits(self.path, list(self.splits))
        for split in self.splits:
            check_columns(
                data[split], {"data.text_column": self.text_column, "data.label_column": self.label_column}, self.path
            )
        return data

    def tokenizer_texts(self, train) -> dict[str, list[str]]:
        return {"text": list(train[self.text_column])}

    def encode(self, split) -> dict:
        encodings = self.tokenizer.encode_batch(list(split[self.text_column]))
        return {
            "tokens": pack([[BOS_ID] + e.ids[: self.max_len - 1] for e in encodings]),
            "labels": torch.tensor(split[self.label_column], dtype=torch.long),
        }

    @property
    def longest_sequence(self) -> tuple[int, str]:
        """The most tokens a sequence can have, and the field that sets it."""
        return self.max_len, "data.max_len"

    def num_examples(self, split: str) -> int:
        return len(self.encoded[split]["labels"])

    @property
    def num_classes(self) -> int:
        """The number of classes: one more than the largest train label."""
        self.prepare()
        return int(self.encoded["train"]["labels"].max()) + 1

    def batch_sampler(self, split: str, train: bool) -> TokenBudgetBatchSampler:
        return self.token_budget_sampler(self.encoded[split]["tokens"]["offsets"].diff().tolist(), train)

    def collate(self, split: str, indices: list[int]) -> dict:
        data = self.encoded[split]
        return {
            "tokens": pad([unpack(data["tokens"], i) for i in indices]),
            "labels": data["labels"][indices],
            "index": torch.tensor(indices),
        }
