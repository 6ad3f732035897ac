"""Plain text for language modelling (Tiny Shakespeare, WikiText-2), cut into contiguous blocks."""

from __future__ import annotations

import torch

from zoo.data.base import ZooDataModule
from zoo.data.batching import FixedSizeBatchSampler
from zoo.data.framing import TEXT, bare_ids, template_of
from zoo.data.tokenizer import DEFAULT_VOCAB_SIZE
from zoo.messages import check_at_least


class LanguageModelDataModule(ZooDataModule):
    """A text column, read with its line breaks and concatenated into one token stream per split, cut into
    non-overlapping blocks of ``block_size + 1`` tokens (inputs and next-token targets overlap by one). Plain
    text (``.txt``) is read line by line, line breaks kept; the rows of JSON lines, CSV or Parquet files are
    documents, concatenated as they are (end each with a line break to keep documents apart).

    Args:
        path: hub id or local folder (default ``karpathy/tiny_shakespeare``).
        name: the hub configuration name (e.g. ``wikitext-2-v1``), if any; not used for a local folder.
        text_column: the text column.
        block_size: tokens per training sequence (the context length).
        batch_size: sequences per batch.
        tokenizer: ``char`` (default), ``bpe`` or ``wordpiece``.
        vocab_size, num_workers, cache_dir, seed: see :class:`ZooDataModule`.
    """

    def __init__(
        self,
        path: str = "karpathy/tiny_shakespeare",
        name: str | None = None,
        text_column: str = "text",
        block_size: int = 64,
        batch_size: int = 12,
        tokenizer: str = "char",
        vocab_size: int = DEFAULT_VOCAB_SIZE,
        num_workers: int | None = None,
        cache_dir: str | None = None,
        seed: int | None = None,
    ) -> None:
        check_at_least("data.batch_size", batch_size, 1)
        super().__init__(path, tokenizer, vocab_size, num_workers, cache_dir, seed)
        if block_size <= 0:
            raise ValueError(f"data.block_size={block_size} is not valid; it must be a positive integer")
        self.hub_name, self.text_column, self.block_size, self.batch_size = name, text_column, block_size, batch_size

    def load(self):
        columns = {"data.text_column": self.text_column}
        return self.load_checked(columns, self.hub_name, text_options={"keep_linebreaks": True})

    def tokenizer_texts(self, train) -> dict[str, list[str]]:
        return {"text": list(train[self.text_column])}

    def encode(self, split) -> dict:
        stream = [i for row in bare_ids(self.tokenizer, list(split[self.text_column])) for i in row]
        framing = template_of(self.tokenizer) or TEXT  # a checkpoint's template, once around the split
        ids = torch.tensor(framing.frame(stream), dtype=torch.int32)
        return {"ids": ids, "characters": sum(len(t) for t in split[self.text_column])}

    @property
    def longest_sequence(self) -> tuple[int, str]:
        """The most tokens a sequence can have, and the field that sets it."""
        return self.block_size, "data.block_size"

    def prepare(self) -> None:
        """Prepare as every module does, then check that each split holds at least one block."""
        super().prepare()
        for split in self.splits:
            if self.num_examples(split) == 0:
                raise ValueError(
                    f"the {split!r} split of data.path={self.path!r} has {len(self.encoded[split]['ids'])} tokens, "
                    f"fewer than data.block_size + 1 = {self.block_size + 1}; lower data.block_size"
                )

    def num_examples(self, split: str) -> int:
        return max(0, (len(self.encoded[split]["ids"]) - 1) // self.block_size)

    def characters_per_token(self, split: str) -> float | None:
        """Characters per token of ``split`` (``validation``, ``test``), to turn its nats per token into bits per
        character; ``None`` for a split the data does not have."""
        self.prepare()
        data = self.encoded.get(split)
        return data["characters"] / len(data["ids"]) if data is not None and len(data["ids"]) else None

    def batch_sampler(self, split: str, train: bool) -> FixedSizeBatchSampler:
        world, rank = self._rank()
        return FixedSizeBatchSampler(
            self.num_examples(split), self.batch_size, shuffle=train, seed=self.seed, num_replicas=world, rank=rank
        )

    batch_unit = "target tokens"

    def batch_amount(self, split: str, indices: list[int]) -> int:
        """The target tokens of a batch: ``block_size`` a block."""
        return len(indices) * self.block_size

    def collate(self, split: str, indices: list[int]) -> dict:
        ids, size = self.encoded[split]["ids"], self.block_size
        blocks = torch.stack([ids[i * size : i * size + size + 1].long() for i in indices])
        return {"tokens": blocks[:, :-1], "targets": blocks[:, 1:], "index": torch.tensor(indices)}
