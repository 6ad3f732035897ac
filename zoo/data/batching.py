"""Batch samplers that shard by rank: batches by a token budget (fairseq-style length bucketing) and batches
of a fixed number of examples. Each rank draws a disjoint share of every epoch's batches, and a sampler knows
where training stands in its stream of batches, so that a run resumed mid-epoch continues it exactly."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence


class ShardedBatchSampler:
    """Base: subclasses build an epoch's batches; this class shuffles, shards and iterates them.

    Each ``iter()`` yields one epoch, the next one each time (epoch ``e`` is shuffled with ``seed + e``): the
    sampler counts epochs itself, because Lightning calls ``set_epoch`` on a loader's sampler but not on its
    batch sampler. Its position is ``(epoch, batches)``: the next iteration yields epoch ``epoch`` from its batch
    ``batches`` on. Training reports each batch it takes (:meth:`advance`); a loader that prefetches batches
    runs ahead of that count, so the count, not the number of batches yielded, is what :meth:`state_dict` saves.

    Args:
        shuffle: shuffle the batches (and, in subclasses, the examples) at each epoch.
        seed: the shuffling seed; epoch ``e`` uses ``seed + e``.
        num_replicas: the number of ranks sharing the data (world size).
        rank: this rank, in ``[0, num_replicas)``.
    """

    def __init__(self, shuffle: bool, seed: int = 0, num_replicas: int = 1, rank: int = 0) -> None:
        if not 0 <= rank < num_replicas:
            raise ValueError(f"rank={rank} must be in [0, num_replicas={num_replicas})")
        self.shuffle, self.seed, self.num_replicas, self.rank = shuffle, seed, num_replicas, rank
        self.load_state_dict({"epoch": 0, "batches": 0})

    def set_epoch(self, epoch: int) -> None:
        """Make the next iteration yield epoch ``epoch`` from its start."""
        self.load_state_dict({"epoch": epoch, "batches": 0})

    def all_batches(self, rng: random.Random) -> list[list[int]]:
        """Every batch of the epoch, for all ranks."""
        raise NotImplementedError

    def batches(self, epoch: int | None = None) -> list[list[int]]:
        """This rank's batches for ``epoch`` (by default the one the next iteration yields). Every rank gets at
        least one batch (batches are split when there are fewer than ranks), so that every rank reaches the end of an
        evaluation and its metric synchronisation; in training every rank gets the same number of batches
        (the remainder is dropped) so that DDP ranks stay in step. No example is repeated, so metrics summed
        over ranks count each example once."""
        rng = random.Random(self.seed + (self.epoch if epoch is None else epoch))
        batches = split_to_at_least(self.all_batches(rng), self.num_replicas)
        if self.shuffle:
            rng.shuffle(batches)
        if self.num_replicas > 1:
            usable = len(batches) - len(batches) % self.num_replicas if self.shuffle else len(batches)
            batches = batches[self.rank : usable : self.num_replicas]
        return batches

    def __iter__(self) -> Iterator[list[int]]:
        epoch, start = self.epoch, self.start
        self.epoch, self.start = epoch + 1, 0
        self.taken = [epoch, start]
        return iter(self.batches(epoch)[start:])

    def __len__(self) -> int:
        """The number of batches of a whole epoch (the same for every epoch)."""
        return len(self.batches())

    def advance(self) -> None:
        """Count one batch of the current iteration as taken by training."""
        self.taken[1] += 1

    def state_dict(self) -> dict[str, int]:
        """Where training stands: ``{"epoch": e, "batches": b}`` when it has taken the first ``b`` batches of
        epoch ``e`` (``b = 0`` of the next epoch after a whole one)."""
        epoch, batches = self.taken
        return {"epoch": epoch + 1, "batches": 0} if batches >= len(self) else {"epoch": epoch, "batches": batches}

    def load_state_dict(self, state: dict[str, int]) -> None:
        """Continue from a :meth:`state_dict`: the next iteration yields the batches training has not taken."""
        self.epoch, self.start = state["epoch"], state["batches"]
        self.taken = [self.epoch, self.start]


def split_to_at_least(batches: list[list[int]], count: int) -> list[list[int]]:
    """Halve the largest batch until there are at least ``count`` batches (a split batch stays in place).

    Raises:
        ValueError: if there are fewer than ``count`` examples.
    """
    total = sum(len(batch) for batch in batches)
    if total < count:
        raise ValueError(f"{total} examples cannot give each of {count} ranks a batch")
    batches = list(batches)
    while len(batches) < count:
        largest = max(range(len(batches)), key=lambda i: len(batches[i]))
        batch = batches[largest]
        batches[largest : largest + 1] = [batch[: len(batch) // 2], batch[len(batch) // 2 :]]
    return batches


class TokenBudgetBatchSampler(ShardedBatchSampler):
    """Batches of examples of similar length whose padded size ``max length x count`` stays within
    ``max_tokens`` (Ott et al. 2019, fairseq), so padding is small.

    Args:
        lengths: the length of each example, in tokens (the longer side for a pair).
        max_tokens: the token budget per batch (padding included).
        max_sentences: an optional cap on examples per batch.
        shuffle, seed, num_replicas, rank: see :class:`ShardedBatchSampler`.

    Raises:
        ValueError: if ``max_tokens`` is smaller than the longest example.
    """

    def __init__(
        self,
        lengths: Sequence[int],
        max_tokens: int,
        max_sentences: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        num_replicas: int = 1,
        rank: int = 0,
    ) -> None:
        super().__init__(shuffle, seed, num_replicas, rank)
        longest = max(lengths)
        if max_tokens < longest:
            raise ValueError(f"data.max_tokens={max_tokens} is smaller than the longest example ({longest} tokens)")
        self.lengths, self.max_tokens, self.max_sentences = list(lengths), max_tokens, max_sentences

    def all_batches(self, rng: random.Random) -> list[list[int]]:
        noise = [rng.random() for _ in self.lengths] if self.shuffle else [0.0] * len(self.lengths)
        order = sorted(range(len(self.lengths)), key=lambda i: (self.lengths[i], noise[i]))
        batches, batch, longest = [], [], 0
        for i in order:
            longest_if_added = max(longest, self.lengths[i])
            full = self.max_sentences is not None and len(batch) >= self.max_sentences
            if batch and (longest_if_added * (len(batch) + 1) > self.max_tokens or full):
                batches.append(batch)
                batch, longest_if_added = [], self.lengths[i]
            batch.append(i)
            longest = longest_if_added
        if batch:
            batches.append(batch)
        return batches


class FixedSizeBatchSampler(ShardedBatchSampler):
    """Batches of ``batch_size`` examples, shuffled at each epoch when ``shuffle``.

    Args:
        num_examples: the data set size.
        batch_size: examples per batch.
        shuffle, seed, num_replicas, rank: see :class:`ShardedBatchSampler`.
    """

    def __init__(
        self,
        num_examples: int,
        batch_size: int,
        shuffle: bool = True,
        seed: int = 0,
        num_replicas: int = 1,
        rank: int = 0,
    ) -> None:
        super().__init__(shuffle, seed, num_replicas, rank)
        if batch_size <= 0:
            raise ValueError(f"data.batch_size={batch_size} is not valid; it must be a positive integer")
        self.num_examples, self.batch_size = num_examples, batch_size

    def all_batches(self, rng: random.Random) -> list[list[int]]:
        order = list(range(self.num_examples))
        if self.shuffle:
            rng.shuffle(order)
        return [order[i : i + self.batch_size] for i in range(0, self.num_examples, self.batch_size)]
