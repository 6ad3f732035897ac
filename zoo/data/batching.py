"""Batch samplers that shard by rank: batches by a token budget (fairseq-style length bucketing) and batches
of a fixed number of examples. Each rank draws a disjoint share of every epoch's batches, and a sampler knows
where training stands in its stream of batches, so that a run resumed mid-epoch continues it exactly."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence


class ShardedBatchSampler:
    """Base: subclasses build an epoch's batches; this class shuffles, shards and iterates them.

    Its position is ``(epoch, batches)``: where training stands, the next iteration yielding epoch ``epoch``
    (shuffled with ``seed + epoch``) from its batch ``batches`` on. Training reports each batch it takes
    (:meth:`advance`), and the position moves to the next epoch's start once training has taken the batches
    an epoch has (fewer than all under Lightning's ``limit_train_batches``); an iteration read to its end
    with no batch taken (a plain ``list(sampler)``) moves it there too, so that each such iteration is the next
    epoch, except for the sampler training follows (:meth:`follow_training`). A loader that prefetches batches,
    and an iterator that Lightning makes and drops when it resumes at an epoch's end, run ahead of training
    without moving the position: what a checkpoint saves
    (:meth:`state_dict`) is what training took. The sampler counts epochs itself, because Lightning calls
    ``set_epoch`` on a loader's sampler but not on its batch sampler.

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
        self._epoch_batches: tuple[int | None, list[list[int]]] = (None, [])  # the last epoch's batches, made once
        self.follows_training = False
        self.load_state_dict({"epoch": 0, "batches": 0})

    def follow_training(self) -> ShardedBatchSampler:
        """Let only :meth:`advance` (training's count of the batches it takes) move the position, not an iteration
        read to its end: a DataLoader's workers read the sampler ahead of training (two batches each), and may read
        an iteration to its end before training takes a batch of it. Returns this sampler."""
        self.follows_training = True
        return self

    @property
    def epoch(self) -> int:
        """The epoch of the position: the one the next iteration yields."""
        return self.position[0]

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
        epoch = self.epoch if epoch is None else epoch
        if self._epoch_batches[0] != epoch:  # kept: training asks its length each step (advance)
            self._epoch_batches = (epoch, self._build(epoch))
        return list(self._epoch_batches[1])

    def _build(self, epoch: int) -> list[list[int]]:
        """This rank's batches of ``epoch``, made anew (see :meth:`batches`)."""
        rng = random.Random(self.seed + epoch)
        batches = split_to_at_least(self.all_batches(rng), self.num_replicas)
        if self.shuffle:
            rng.shuffle(batches)
        if self.num_replicas > 1:
            usable = len(batches) - len(batches) % self.num_replicas if self.shuffle else len(batches)
            batches = batches[self.rank : usable : self.num_replicas]
        return batches

    def __iter__(self) -> Iterator[list[int]]:
        if self.ending:  # Lightning's iteration that ends the epoch a checkpoint was saved in: nothing is left
            return self._ended()
        return self._iterate(*self.position)

    def _ended(self) -> Iterator[list[int]]:
        """No batch, and the epoch counted ended once it is read, not when it is made: a DataLoader with workers
        makes an iterator it never reads before the one it reads (``_MultiProcessingDataLoaderIter``)."""
        self.ending = False
        yield from ()

    def _iterate(self, epoch: int, start: int) -> Iterator[list[int]]:
        yield from self.batches(epoch)[start:]
        if not self.follows_training and self.position == [epoch, start]:  # read to the end, none of it taken
            self.position = [epoch + 1, 0]

    def __len__(self) -> int:
        """The number of batches of a whole epoch (the same for every epoch)."""
        return len(self.batches())

    def advance(self, epoch_batches: int | None = None) -> None:
        """Count one batch of the position's epoch as taken by training.

        Args:
            epoch_batches: the batches an epoch of training takes, where it takes fewer than :meth:`__len__`
                (Lightning's ``limit_train_batches``); by default all of them.
        """
        epoch, batches = self.position
        whole = len(self) if epoch_batches is None else min(epoch_batches, len(self))
        self.position = [epoch + 1, 0] if batches + 1 >= whole else [epoch, batches + 1]

    def state_dict(self) -> dict[str, int]:
        """Where training stands: ``{"epoch": e, "batches": b}`` when it has taken the first ``b`` batches of
        epoch ``e`` (``b = 0`` of the next epoch after a whole one)."""
        return {"epoch": self.position[0], "batches": self.position[1]}

    def load_state_dict(self, state: dict[str, int]) -> None:
        """Continue from a :meth:`state_dict`: the next iteration yields the batches training has not taken.
        With ``"ending": True`` (a checkpoint saved once training had taken an epoch's batches, before
        Lightning ended that epoch), the next iteration yields nothing: Lightning's resumed run iterates once
        to end that epoch, which takes no batch of the next epoch into it."""
        self.position = [state["epoch"], state["batches"]]
        self.ending = bool(state.get("ending"))


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
