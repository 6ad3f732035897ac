"""A ``data.seed`` left out: the run's seed for a new run, the recorded one for a run continued (a rank that did
not resolve the folder reads it from the record), and for ``--ckpt_path last`` the seed's order first, then the
order of runs recorded before issue 51 (0)."""

import json

from jsonargparse import Namespace

from zoo.runs.data_seed import EARLIER_DEFAULT, candidates, left_out, settle


def _config(seed=None, ckpt_path=None, seed_everything=3) -> Namespace:
    data = Namespace(class_path="zoo.data.LanguageModelDataModule", init_args=Namespace(path="x", seed=seed))
    return Namespace(seed_everything=seed_everything, data=data, ckpt_path=ckpt_path)


def _recorded_run(tmp_path, data_seed: int):
    run_dir = tmp_path / "runs" / "a-run"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "last.ckpt").write_bytes(b"")
    (run_dir / "summary.json").write_text("{}")
    (run_dir / "config.json").write_text(json.dumps({"data.seed": data_seed, "seed_everything": 3}))
    return run_dir


def test_a_new_run_takes_its_seed_and_a_given_data_seed_stays(tmp_path):
    config = _config()
    assert left_out(config) and candidates(config) == [3]
    settle(config, tmp_path / "a-new-folder")  # no record yet
    assert config.data.init_args.seed == 3 and not left_out(config)
    given = _config(seed=7)
    settle(given, None)
    assert given.data.init_args.seed == 7 and candidates(_config(seed_everything=0, ckpt_path="last")) == [0]


def test_a_continued_run_takes_its_recorded_data_seed(tmp_path):
    run_dir = _recorded_run(tmp_path, data_seed=EARLIER_DEFAULT)
    assert candidates(_config(ckpt_path=str(run_dir / "checkpoints" / "last.ckpt"))) == [0]
    assert candidates(_config(ckpt_path="last")) == [3, EARLIER_DEFAULT]
    config = _config()
    settle(config, run_dir)  # a DDP child rank, or a rank that was told the folder
    assert config.data.init_args.seed == 0


def test_a_data_module_without_a_seed_is_left_alone():
    config = Namespace(seed_everything=1, data=Namespace(class_path="my.Data", init_args=Namespace(path="x")))
    assert not left_out(config)
    settle(config, None)
    assert "seed" not in config.data.init_args
