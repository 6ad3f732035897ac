"""Sentence pairs for translation (Multi30k de-en by default), batched by a token budget."""

from __future__ import annotations

import torch
from tokenizers import Tokenizer

from zoo.data.framing import SOURCE, bare_ids, framed
from zoo.data.padding import IGNORE_INDEX, pack, pad, unpack
from zoo.data.sentences import SentenceDataModule
from zoo.data.tokenizer import BOS_ID, EOS_ID


class TranslationDataModule(SentenceDataModule):
    """Parallel text with ``src_column`` and ``tgt_column`` (``datasets`` rows such as ``{"de": .., "en": ..}``).

    A source is ``tokens + <eos>``; the decoder input is ``<bos> + tokens`` and its target ``tokens + <eos>``
    (teacher forcing, Vaswani et al. 2017, section 3.1). By default one joint vocabulary is trained on both
    sides of the train split (the paper's shared source-target BPE, section 5.1); with
    ``joint_vocabulary=False`` each side gets its own, and the model's tables take the larger size.

    Args:
        path: hub id or local folder (default ``bentrevett/multi30k``).
        src_column: the source language column.
        tgt_column: the target language column.
        joint_vocabulary: one tokenizer for both languages (else one per language).
        **kwargs: ``max_tokens``, ``batch_size``, ``max_len``, ``tokenizer``, ``vocab_size``, ``num_workers``,
            ``cache_dir``, ``seed`` (see :class:`zoo.data.sentences.SentenceDataModule`).
    """

    def __init__(
        self,
        path: str = "bentrevett/multi30k",
        src_column: str = "de",
        tgt_column: str = "en",
        joint_vocabulary: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(path=path, **kwargs)
        self.src_column, self.tgt_column, self.joint_vocabulary = src_column, tgt_column, joint_vocabulary

    def settings(self) -> dict:
        columns = {"src": self.src_column, "tgt": self.tgt_column}
        return {**super().settings(), **columns, "joint": self.joint_vocabulary}

    def load(self):
        return self.load_checked({"data.src_column": self.src_column, "data.tgt_column": self.tgt_column})

    def tokenizer_texts(self, train) -> dict[str, list[str]]:
        src, tgt = list(train[self.src_column]), list(train[self.tgt_column])
        return {"joint": src + tgt} if self.joint_vocabulary else {"src": src, "tgt": tgt}

    def use_tokenizers(self, tokenizers: dict[str, str]) -> None:
        """The base's, with the checkpoint's tokenizers checked against the layout this data is read in: ``joint``
        for ``joint_vocabulary``, else ``src`` and ``tgt``.

        Raises:
            ValueError: in one line, for a checkpoint of another layout (or of another task: ``text``).
        """
        names = ["joint"] if self.joint_vocabulary else ["src", "tgt"]
        if not set(names) <= set(tokenizers):
            raise ValueError(
                f"data.joint_vocabulary={self.joint_vocabulary} reads the {' and '.join(names)} tokenizer"
                f"{'s' * (len(names) > 1)}, but the checkpoint has the {', '.join(tokenizers) or 'no'} tokenizer"
                f"{'s' * (len(tokenizers) != 1)} (data.joint_vocabulary={not self.joint_vocabulary}, or another "
                f"task); give the data settings it was trained with"
            )
        super().use_tokenizers(tokenizers)

    @property
    def source_tokenizer(self) -> Tokenizer:
        return self.get_tokenizer("joint" if self.joint_vocabulary else "src")

    @property
    def target_tokenizer(self) -> Tokenizer:
        """Turns generated ids back into text."""
        return self.get_tokenizer("joint" if self.joint_vocabulary else "tgt")

    @property
    def separate_vocabularies(self) -> bool:
        """Whether source and target ids index two vocabularies: with ``joint_vocabulary=False``, unless the
        tokenizers a checkpoint gave number their tokens alike (a Marian checkpoint's source and target pieces,
        both numbered by its ``vocab.json``)."""
        if self.joint_vocabulary:
            return False
        given = self.tokenizers_given
        return not given or self.get_tokenizer("src").get_vocab() != self.get_tokenizer("tgt").get_vocab()

    def _ids(self, tokenizer: Tokenizer, texts: list[str]) -> list[list[int]]:
        return [ids[: self.max_len - 1] for ids in bare_ids(tokenizer, texts)]

    def encode(self, split) -> dict:
        sources = framed(self.source_tokenizer, list(split[self.src_column]), SOURCE, self.max_len)
        return {
            "src": pack(sources),
            "tgt": pack(self._ids(self.target_tokenizer, split[self.tgt_column])),
            "tgt_text": list(split[self.tgt_column]),
        }

    def num_examples(self, split: str) -> int:
        return len(self.encoded[split]["tgt_text"])

    def lengths(self, split: str) -> list[int]:
        """The longer side of each pair, in tokens (with its <bos>/<eos>)."""
        src, tgt = (self.encoded[split][k]["offsets"].diff() for k in ("src", "tgt"))
        return torch.maximum(src, tgt + 1).tolist()

    batch_unit = "target tokens"

    def batch_amount(self, split: str, indices: list[int]) -> int:
        """The target tokens of a batch that the loss is over: each target and its ``<eos>``."""
        return int((self.encoded[split]["tgt"]["offsets"].diff()[indices] + 1).sum())

    def collate(self, split: str, indices: list[int]) -> dict:
        """Padded ``src`` ``(B, S)``, ``tgt_in`` and ``tgt_out`` ``(B, T)`` (``tgt_out`` padded with
        :data:`IGNORE_INDEX`), their padding masks, the reference texts and the example indices; lengths
        padded to a multiple of ``pad_to_multiple_of``."""
        data = self.encoded[split]
        tgt = [unpack(data["tgt"], i) for i in indices]
        bos, eos = torch.tensor([BOS_ID]), torch.tensor([EOS_ID])
        multiple = self.pad_to_multiple_of
        src, src_padding_mask = pad([unpack(data["src"], i) for i in indices], multiple=multiple)
        tgt_in, tgt_padding_mask = pad([torch.cat([bos, t]) for t in tgt], multiple=multiple)
        return {
            "src": src,
            "src_padding_mask": src_padding_mask,
            "tgt_in": tgt_in,
            "tgt_out": pad([torch.cat([t, eos]) for t in tgt], IGNORE_INDEX, multiple)[0],
            "tgt_padding_mask": tgt_padding_mask,
            "tgt_text": [data["tgt_text"][i] for i in indices],
            "index": torch.tensor(indices),
        }
