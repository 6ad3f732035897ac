"""Batch samplers: token budgets, full coverage, disjoint rank shares, epoch reshuffling."""

import random

import pytest

from zoo.data.batching import FixedSizeBatchSampler, TokenBudgetBatchSampler

_RNG = random.Random(0)
LENGTHS = [_RNG.randint(3, 40) for _ in range(1000)]


def test_token_budget_is_respected_and_every_example_is_used_once():
    sampler = TokenBudgetBatchSampler(LENGTHS, max_tokens=256, shuffle=True, seed=3)
    batches = list(sampler)
    assert all(max(LENGTHS[i] for i in b) * len(b) <= 256 for b in batches)
    assert sorted(i for b in batches for i in b) == list(range(len(LENGTHS)))


def test_length_bucketing_keeps_padding_small():
    batches = TokenBudgetBatchSampler(LENGTHS, max_tokens=512, shuffle=True).batches()
    padded = sum(max(LENGTHS[i] for i in b) * len(b) for b in batches)
    assert padded < 1.1 * sum(LENGTHS)


def test_max_sentences_caps_batches():
    assert max(len(b) for b in TokenBudgetBatchSampler(LENGTHS, 4096, max_sentences=16)) == 16


def test_budget_below_the_longest_example_is_an_error():
    with pytest.raises(ValueError, match=r"data.max_tokens=10 is smaller than the longest example \(40 tokens\)"):
        TokenBudgetBatchSampler(LENGTHS, max_tokens=10)


@pytest.mark.parametrize(
    "make",
    [
        lambda rank: TokenBudgetBatchSampler(LENGTHS, 256, shuffle=True, seed=1, num_replicas=2, rank=rank),
        lambda rank: FixedSizeBatchSampler(1000, 32, shuffle=True, seed=1, num_replicas=2, rank=rank),
    ],
    ids=["token_budget", "fixed_size"],
)
def test_ranks_get_disjoint_equal_shares(make):
    rank0, rank1 = make(0), make(1)
    a, b = [i for x in rank0 for i in x], [i for x in rank1 for i in x]
    assert len(rank0) == len(rank1)
    assert not set(a) & set(b)
    assert len(set(a) | set(b)) > 0.9 * 1000


def test_epochs_reshuffle_deterministically():
    sampler = FixedSizeBatchSampler(100, 10, shuffle=True, seed=5)
    first = sampler.batches()
    sampler.set_epoch(1)
    assert sampler.batches() != first
    sampler.set_epoch(0)
    assert sampler.batches() == first


def test_evaluation_order_is_fixed_and_complete_across_ranks():
    shares = [TokenBudgetBatchSampler(LENGTHS, 256, shuffle=False, num_replicas=3, rank=r) for r in range(3)]
    seen = sorted(i for s in shares for b in s for i in b)
    assert seen == list(range(len(LENGTHS)))


@pytest.mark.parametrize(
    "make",
    [lambda: TokenBudgetBatchSampler(LENGTHS, 256, seed=2), lambda: FixedSizeBatchSampler(1000, 32, seed=2)],
    ids=["token_budget", "fixed_size"],
)
def test_each_iteration_is_the_next_epoch(make):
    sampler = make()  # Lightning calls set_epoch on a loader's sampler, never on its batch sampler
    assert [list(sampler), list(sampler)] == [make().batches(0), make().batches(1)]
    assert make().batches(0) != make().batches(1)


@pytest.mark.parametrize(
    "make",
    [lambda: TokenBudgetBatchSampler(LENGTHS, 256, seed=2), lambda: FixedSizeBatchSampler(1000, 32, seed=2)],
    ids=["token_budget", "fixed_size"],
)
def test_the_position_is_what_training_took_and_a_restored_sampler_continues_it(make):
    sampler = make()
    iterator = iter(sampler)
    for _ in range(5):  # a loader fetches ahead of training ...
        next(iterator)
    for _ in range(3):  # ... which took three batches
        sampler.advance()
    assert sampler.state_dict() == {"epoch": 0, "batches": 3}
    restored = make()
    restored.load_state_dict(sampler.state_dict())
    assert list(restored) == make().batches(0)[3:]
    assert list(restored) == make().batches(1)  # and the next iteration is the next epoch, whole
    for _ in restored:  # epoch 2, which training takes whole
        restored.advance()
    assert restored.state_dict() == {"epoch": 3, "batches": 0}  # an epoch taken whole: the next one's start


@pytest.mark.parametrize(
    "make",
    [lambda: TokenBudgetBatchSampler(LENGTHS, 256, seed=2), lambda: FixedSizeBatchSampler(1000, 32, seed=2)],
    ids=["token_budget", "fixed_size"],
)
def test_an_epoch_shortened_by_a_limit_is_whole_once_training_took_the_limit(make):
    sampler = make()
    assert len(sampler) > 3
    for batch, expected in zip(sampler, make().batches(0)[:3], strict=False):  # limit_train_batches=3
        assert batch == expected
        sampler.advance(epoch_batches=3)
    assert sampler.state_dict() == {"epoch": 1, "batches": 0}
    assert next(iter(sampler)) == make().batches(1)[0]  # the next epoch from its start, not epoch 0's 4th batch


@pytest.mark.parametrize(
    "make",
    [lambda: TokenBudgetBatchSampler(LENGTHS, 256, seed=2), lambda: FixedSizeBatchSampler(1000, 32, seed=2)],
    ids=["token_budget", "fixed_size"],
)
def test_an_iteration_made_and_dropped_leaves_the_position_and_an_ending_epoch_gives_nothing(make):
    sampler = make()
    sampler.load_state_dict({"epoch": 1, "batches": 2})
    next(iter(sampler))  # Lightning makes an iterator when it sets up and prefetches, then may make another
    assert list(sampler) == make().batches(1)[2:]
    ending = make()
    ending.load_state_dict({"epoch": 1, "batches": 0, "ending": True})  # saved at epoch 0's last step
    assert list(ending) == []  # the iteration that ends epoch 0 on resume takes nothing of epoch 1
    assert list(ending) == make().batches(1)
    unread = make()
    unread.load_state_dict({"epoch": 1, "batches": 0, "ending": True})
    iter(unread)  # a DataLoader with workers makes an iterator it never reads, then the one it reads
    assert list(unread) == []
    assert list(unread) == make().batches(1)


@pytest.mark.parametrize(
    "make",
    [
        lambda ranks, rank: TokenBudgetBatchSampler([9] * 8, 1024, shuffle=False, num_replicas=ranks, rank=rank),
        lambda ranks, rank: FixedSizeBatchSampler(8, 12, shuffle=False, num_replicas=ranks, rank=rank),
        lambda ranks, rank: TokenBudgetBatchSampler([9] * 8, 1024, shuffle=True, num_replicas=ranks, rank=rank),
    ],
    ids=["token_budget", "fixed_size", "training"],
)
@pytest.mark.parametrize("ranks", [2, 3, 8])
def test_a_split_of_one_batch_gives_every_rank_a_batch_and_no_example_twice(make, ranks):
    """8 rows (one batch) on several ranks: a rank without a batch would skip the metric sync the others wait in."""
    shares = [[i for batch in make(ranks, rank) for i in batch] for rank in range(ranks)]
    assert all(len(share) > 0 for share in shares)
    seen = sorted(i for share in shares for i in share)
    assert seen == sorted(set(seen))  # no example counted twice
    if not make(ranks, 0).shuffle:  # evaluation sees every example; training may drop a remainder
        assert seen == list(range(8))


def test_fewer_examples_than_ranks_is_an_error():
    with pytest.raises(ValueError, match=r"^3 examples cannot give each of 4 ranks a batch$"):
        FixedSizeBatchSampler(3, 12, shuffle=False, num_replicas=4, rank=0).batches()


def test_an_epochs_batches_are_made_once_however_often_training_asks_its_length():
    """Training asks the sampler's length at every step (:meth:`advance`): made anew each time, an SST-2 epoch's
    batches cost 77 ms a step (``benchmarks/overhead.py``); the batches stay those the epoch's seed makes."""
    sampler = TokenBudgetBatchSampler(LENGTHS, max_tokens=512, shuffle=True, seed=3)
    made = []
    build = sampler.all_batches
    sampler.all_batches = lambda rng: made.append(1) or build(rng)
    first = sampler.batches()
    for _ in range(5):
        sampler.advance()
    assert (len(made), sampler.batches(0)) == (1, first)
    sampler.set_epoch(1)
    assert sampler.batches() != first and len(made) == 2
    assert sampler.batches(0) == TokenBudgetBatchSampler(LENGTHS, max_tokens=512, shuffle=True, seed=3).batches(0)


@pytest.mark.parametrize(
    "make",
    [lambda: TokenBudgetBatchSampler(LENGTHS, 256, seed=2), lambda: FixedSizeBatchSampler(1000, 32, seed=2)],
    ids=["token_budget", "fixed_size"],
)
def test_the_sampler_training_follows_keeps_its_epoch_when_workers_read_it_to_the_end_first(make):
    """A run resumed two batches before an epoch's end with ``data.num_workers=2``: the workers read both before
    training took either, and the epoch counted as read moved the position to the next epoch's start."""
    sampler = make()
    sampler.follow_training()
    sampler.load_state_dict({"epoch": 0, "batches": len(sampler) - 2})
    assert list(sampler) == make().batches(0)[-2:]  # read ahead, to the end ...
    assert sampler.state_dict() == {"epoch": 0, "batches": len(sampler) - 2}  # ... and not taken yet
    sampler.advance()
    sampler.advance()
    assert sampler.state_dict() == {"epoch": 1, "batches": 0}
    assert list(sampler) == make().batches(1)  # the next epoch, whole
