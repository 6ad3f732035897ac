"""Arms of an ablation with the same seeds see the same training batches, in the same order: the order is
drawn from ``data.seed`` alone (:class:`zoo.data.batching.ShardedBatchSampler`), never from the global RNG that
initialisation consumes (a wider, deeper model draws more numbers before the first batch). So a paired test
over seeds pairs runs that saw identical data (docs/compare.md, "Paired comparisons"). ``data.seed`` left out
is the run's ``seed_everything``: two seeds of one configuration see two orders unless ``data.seed`` is given."""

import json

import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, small_copy
from zoo.cli.main import main
from zoo.compare import main as compare

STEPS = ["--trainer.max_steps=5", "--trainer.limit_val_batches=1", "--model.max_len_b=2"]


@pytest.mark.slow
def test_same_seeds_same_batches_whatever_the_model(data_dir, cli_env, tmp_path, capsys):
    data = small_copy(data_dir, "multi30k", tmp_path / "multi30k", {"train": 400, "validation": 8})
    callbacks = tmp_path / "callbacks.yaml"
    callbacks.write_text(
        "trainer:\n  callbacks:\n    - class_path: tests.cli.shard_recorder.RecordShards\n"
        "      init_args:\n        folder: shards\n"
    )
    arms = {
        "small": [],
        "wide_deep_learned": ["--model.d_model=64", "--model.n_heads=4", "--model.num_encoder_layers=2",
                              "--model.pe=learned", "--model.norm_position=post"],
        "seed_2": ["--seed_everything=2"],
        "seed_2_data_seed_1": ["--seed_everything=2", "--data.seed=1"],
        "data_seed_0": ["--data.seed=0"],
        "small_again": [],  # a rerun of the first: its own folder, ...-2
    }  # fmt: skip
    batches = {}
    for arm, knobs in arms.items():
        main(
            [
                "fit",
                "--config",
                str(CONFIGS / "encoder_decoder" / "multi30k.yaml"),
                "--config",
                str(callbacks),
                f"--data.path={data}",
                *TINY_MODEL,
                "--model.num_encoder_layers=1",
                "--model.num_decoder_layers=1",
                "--data.vocab_size=300",
                "--data.max_tokens=256",
                *STEPS,
                "--trainer.enable_progress_bar=false",
                *knobs,
            ]
        )
        batches[arm] = (cli_env / "shards" / "rank0.txt").read_text().splitlines()
        (cli_env / "shards" / "rank0.txt").unlink()
    assert len(batches["small"]) == 5 and len(set(batches["small"])) == 5
    assert batches["wide_deep_learned"] == batches["small"]  # other model knobs, same seeds: the same batches
    assert batches["seed_2"] != batches["small"]  # another seed, data.seed left out: another order
    assert batches["seed_2_data_seed_1"] == batches["small"]  # data.seed given: the order is its, whatever the seed
    assert batches["data_seed_0"] != batches["small"]
    recorded = [json.loads((cli_env / "runs" / name / "config.json").read_text()) for name in sorted(
        path.name for path in (cli_env / "runs").iterdir())]  # fmt: skip
    assert sorted((run["seed_everything"], run["data.seed"]) for run in recorded) == [
        (1, 0), (1, 1), (1, 1), (1, 1), (2, 1), (2, 2)]  # fmt: skip
    assert batches["small_again"] == batches["small"]

    # the rerun is no other seed: the small arm has 4 seeds (its rerun left out), the other arm 1, so --paired
    # refuses; the real run records read back as the made-up ones of tests/compare do
    runs = sorted(path.name for path in (cli_env / "runs").iterdir())
    (rerun,) = [name for name in runs if name.endswith("-2")]
    capsys.readouterr()
    assert compare([str(cli_env / "runs"), "--format", "json", "--baseline", "d_model=32"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [row["n"] for row in result["rows"]] == [4, 1]
    assert result["excluded"] == [{"run": rerun, "reason": f"rerun of the seed of {rerun.removesuffix('-2')}"}]
    assert compare([str(cli_env / "runs"), "--paired", "--baseline", "d_model=32"]) == 2
    assert capsys.readouterr().err.endswith(
        "lacks (data.seed=0, seed_everything=1), (data.seed=1, seed_everything=2), (data.seed=2, seed_everything=2)\n"
    )
