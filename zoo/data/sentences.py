"""The shared base of data modules over sentences (single or paired): truncated to ``max_len`` tokens and
batched by a token budget."""

from __future__ import annotations

from zoo.data.base import ZooDataModule
from zoo.data.batching import TokenBudgetBatchSampler
from zoo.data.tokenizer import DEFAULT_VOCAB_SIZE
from zoo.messages import check_at_least


class SentenceDataModule(ZooDataModule):
    """Sentences batched by a token budget (fairseq-style length bucketing) and cut to ``max_len`` tokens.

    Args:
        path: a Hugging Face hub id or a local folder.
        max_tokens: the token budget of a training batch, padding included.
        batch_size: an optional cap on sentences per batch.
        max_len: longer sentences are truncated to this many tokens (special tokens included).
        pad_to_multiple_of: a batch's sequences are padded to a multiple of this many tokens (Hugging Face's
            collators' ``pad_to_multiple_of``): 8 keeps ``model.compile`` on a GPU to one graph (Inductor guards
            on the length modulo 8) and serves Tensor Cores. Masked, it changes no loss or metric; the batches
            are formed before it (``max_tokens`` counts the unrounded lengths).
        tokenizer, vocab_size, num_workers, cache_dir, seed: see :class:`ZooDataModule`.

    Raises:
        ValueError: for ``max_tokens < 1``, ``batch_size < 1``, ``max_len < 2`` or ``pad_to_multiple_of < 1``,
            naming the field.
    """

    def __init__(
        self,
        path: str,
        max_tokens: int = 4096,
        batch_size: int | None = None,
        max_len: int = 256,
        pad_to_multiple_of: int = 1,
        tokenizer: str = "bpe",
        vocab_size: int = DEFAULT_VOCAB_SIZE,
        num_workers: int | None = None,
        cache_dir: str | None = None,
        seed: int | None = None,
    ) -> None:
        check_at_least("data.max_tokens", max_tokens, 1)
        check_at_least("data.batch_size", batch_size, 1, optional=True)
        check_at_least("data.max_len", max_len, 2)
        check_at_least("data.pad_to_multiple_of", pad_to_multiple_of, 1)
        super().__init__(path, tokenizer, vocab_size, num_workers, cache_dir, seed)
        self.max_tokens, self.batch_size, self.max_len = max_tokens, batch_size, max_len
        self.pad_to_multiple_of = pad_to_multiple_of

    def settings(self) -> dict:
        return {**super().settings(), "max_len": self.max_len}

    @property
    def longest_sequence(self) -> tuple[int, str]:
        """The most tokens a sequence can have, and the field that sets it."""
        return self.max_len, "data.max_len"

    def check_batches(self, world_size: int) -> None:
        """As :meth:`ZooDataModule.check_batches`, and every example of every split fits in ``max_tokens``.

        Raises:
            ValueError: naming ``data.max_tokens``, the longest example and the split.
        """
        super().check_batches(world_size)
        for split in self.splits:
            longest = max(self.lengths(split), default=0)
            if longest > self.max_tokens:
                raise ValueError(
                    f"data.max_tokens={self.max_tokens} is smaller than the longest example of the {split!r} split "
                    f"({longest} tokens); raise data.max_tokens to at least {longest}, or lower data.max_len"
                )

    def lengths(self, split: str) -> list[int]:
        """The padded length each example needs, in tokens."""
        raise NotImplementedError

    def batch_sampler(self, split: str, train: bool) -> TokenBudgetBatchSampler:
        """Length-bucketed batches within ``max_tokens`` (and ``batch_size``): this rank's share."""
        world, rank = self._rank()
        return TokenBudgetBatchSampler(
            self.lengths(split),
            self.max_tokens,
            self.batch_size,
            shuffle=train,
            seed=self.seed,
            num_replicas=world,
            rank=rank,
        )
