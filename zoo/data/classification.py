"""Labelled sentences for classification (SST-2 by default), batched by a token budget."""

from __future__ import annotations

import torch

from zoo.data.framing import SENTENCE, framed
from zoo.data.padding import pack, pad, unpack
from zoo.data.sentences import SentenceDataModule


class ClassificationDataModule(SentenceDataModule):
    """Rows with a text and an integer label column. Every sequence starts with ``<bos>``, which serves as
    the ``[CLS]`` token when the model pools with ``cls`` (Devlin et al. 2019, section 3).

    Args:
        path: hub id or local folder (default ``stanfordnlp/sst2``).
        text_column: the text column.
        label_column: the label column (integers ``0 .. num_classes - 1``).
        max_len: longer sentences are truncated to this many tokens.
        tokenizer: ``wordpiece`` by default (see :class:`ZooDataModule`).
        **kwargs: ``max_tokens``, ``batch_size``, ``vocab_size``, ``num_workers``, ``cache_dir``, ``seed``
            (see :class:`zoo.data.sentences.SentenceDataModule`).
    """

    def __init__(
        self,
        path: str = "stanfordnlp/sst2",
        text_column: str = "sentence",
        label_column: str = "label",
        max_len: int = 128,
        tokenizer: str = "wordpiece",
        **kwargs,
    ) -> None:
        super().__init__(path=path, max_len=max_len, tokenizer=tokenizer, **kwargs)
        self.text_column, self.label_column = text_column, label_column

    def settings(self) -> dict:
        return {**super().settings(), "text": self.text_column, "label": self.label_column}

    def load(self):
        data = self.load_checked({"data.text_column": self.text_column, "data.label_column": self.label_column})
        for split in self.splits:
            check_labels(data[split][self.label_column], split, self.path, self.label_column)
        return data

    def tokenizer_texts(self, train) -> dict[str, list[str]]:
        return {"text": list(train[self.text_column])}

    def encode(self, split) -> dict:
        rows = framed(self.tokenizer, list(split[self.text_column]), SENTENCE, self.max_len)
        return {
            "tokens": pack(rows),
            "labels": torch.tensor(split[self.label_column], dtype=torch.long),
        }

    def num_examples(self, split: str) -> int:
        return len(self.encoded[split]["labels"])

    @property
    def num_classes(self) -> int:
        """The number of classes: one more than the largest label of any split."""
        self.prepare()
        return max(int(self.encoded[split]["labels"].max()) for split in self.splits) + 1

    batch_unit = "sentences"

    def lengths(self, split: str) -> list[int]:
        return self.encoded[split]["tokens"]["offsets"].diff().tolist()

    def collate(self, split: str, indices: list[int]) -> dict:
        """Padded ``tokens`` ``(B, S)``, their ``padding_mask``, ``labels`` ``(B,)`` and the example indices; ``S``
        padded to a multiple of ``pad_to_multiple_of``."""
        data = self.encoded[split]
        tokens, padding_mask = pad([unpack(data["tokens"], i) for i in indices], multiple=self.pad_to_multiple_of)
        return {
            "tokens": tokens,
            "padding_mask": padding_mask,
            "labels": data["labels"][indices],
            "index": torch.tensor(indices),
        }


def check_labels(labels: list, split: str, path: str, column: str) -> None:
    """Every label of a split is a class index: an integer >= 0.

    Raises:
        ValueError: naming the split, the row, the value and the field ``data.label_column``.
    """
    fractional = next((row for row, label in enumerate(labels) if isinstance(label, float) and label % 1), None)
    huge = next((row for row, label in enumerate(labels) if isinstance(label, float) and abs(label) >= 2**63), None)
    if all(isinstance(label, float) for label in labels) and labels:  # one float in the file makes every label one
        shown = f"the label {labels[fractional]!r} in row {fractional}" if fractional is not None else "a label as 1.0"
        if fractional is None and huge is not None:  # an integer past int64 is read as a float too
            shown = f"the label {labels[huge]:g} in row {huge}, beyond 64-bit integers"
        raise ValueError(
            f"the {split!r} split of data.path={path!r} has {shown}, so every label was read as a number with a "
            f"fraction; data.label_column={column!r} must hold class indices 0, 1, ... (integers)"
        )
    for row, label in enumerate(labels):
        if isinstance(label, bool) or not isinstance(label, int) or label < 0:
            raise ValueError(
                f"row {row} of the {split!r} split of data.path={path!r} has the label {label!r}; "
                f"data.label_column={column!r} must hold class indices 0, 1, ... (integers)"
            )
