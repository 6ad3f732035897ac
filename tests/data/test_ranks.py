"""Every rank gets at least one batch of every split: the shipped configs at 8 ranks, on the real data."""

import random

import pytest
import yaml

from tests.cli.helpers import CONFIGS
from zoo.runs.checkpoint_file import import_class as _import


def shipped_data_module(config: str, path, cache_dir):
    """The data module of a shipped config, reading the local copy of its data."""
    section = yaml.safe_load((CONFIGS / config).read_text())["data"]
    init_args = {**section["init_args"], "path": str(path), "cache_dir": str(cache_dir)}
    return _import(section["class_path"])(**init_args)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("config", "data", "batches"),
    [("encoder_decoder/multi30k.yaml", "multi30k", 6), ("encoder_only/sst2.yaml", "sst2", 5)],
)
def test_shipped_configs_give_each_of_8_ranks_validation_batches(config, data, batches, data_dir, zoo_cache):
    module = shipped_data_module(config, data_dir / data, zoo_cache)
    module.prepare()
    assert len(module.batch_sampler("validation", train=False).all_batches(random.Random(0))) == batches  # < 8
    shares = []
    for rank in range(8):
        module._rank = lambda rank=rank: (8, rank)  # what the trainer says on that rank
        shares.append([i for batch in module.batch_sampler("validation", train=False) for i in batch])
    assert all(shares)
    assert sorted(i for share in shares for i in share) == list(range(module.num_examples("validation")))
