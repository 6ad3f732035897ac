"""A run's identity is its whole configuration; every run ends with an evaluation at its true step; an
interrupted run says so (issue: every number an ablation reports can be trusted)."""

import json
import os
import shlex
import signal
from pathlib import Path

import pytest
import torch

from tests.cli.helpers import CONFIGS, read_run, shakespeare_args
from zoo.cli.main import main
from zoo.runs.folders import new_run_dir
from zoo.runs.identity import ADDED_FIELDS, config_hash, differences, identity, shown, with_added_fields


def only_run(runs):
    (run_dir,) = runs.iterdir()
    return run_dir


def test_config_hash_ignores_only_budget_and_bookkeeping():
    base = {"model.lr": 0.001, "trainer.max_steps": 100, "run_name": None, "seed_everything": 1}
    assert config_hash(base) == config_hash({**base, "trainer.max_steps": 900, "run_name": "x", "runs_dir": "y"})
    assert config_hash(base) == config_hash({**base, "matmul_precision": "medium"})
    assert config_hash(base) != config_hash({**base, "model.lr": 0.003})
    assert config_hash(base) != config_hash({**base, "seed_everything": 2})
    assert differences(base, {**base, "model.lr": 0.003}) == ["model.lr=0.003 (the run has 0.001)"]


def test_a_field_added_later_and_unset_leaves_older_runs_their_identity():
    """A run recorded before ``model.activation_dropout`` existed is the same configuration as a command that
    leaves it unset (``None``), and keeps its name's hash; setting it makes another configuration."""
    recorded = {"model.lr": 0.001, "model.dropout": 0.1, "seed_everything": 1}
    now = {**recorded, "model.activation_dropout": None, "model.compile": True}
    assert differences(recorded, now) == [] and config_hash(recorded) == config_hash(now)
    assert differences(recorded, {**now, "model.activation_dropout": 0.0}) == [
        "model.activation_dropout=0.0 (the run has unset)"
    ]


def test_model_bias_added_later_leaves_older_runs_their_identity_at_true():
    """Runs recorded before ``model.bias`` existed trained with biases: ``model.bias=true`` is their
    configuration (same hash, nothing differs), ``false`` another one; compare reads them as ``true``."""
    recorded = {"model.lr": 0.001, "seed_everything": 1}
    now = {**recorded, "model.bias": True}
    assert differences(recorded, now) == [] and config_hash(recorded) == config_hash(now)
    assert differences(recorded, {**now, "model.bias": False}) == ["model.bias=false (the run has true)"]
    assert config_hash(recorded) != config_hash({**now, "model.bias": False})
    assert with_added_fields(recorded) == {**now, **ADDED_FIELDS, "trainer.precision": "32-true"}
    assert with_added_fields({}) == {}


@pytest.mark.parametrize("field", sorted(ADDED_FIELDS))
def test_a_field_added_later_leaves_older_runs_their_identity_at_its_value(field):
    """A run recorded before the field existed is the run at the field's added value (same hash, nothing
    differs, so it resumes); at any other value it is another run."""
    recorded = {"model.lr": 0.001, "seed_everything": 1}
    now = {**recorded, field: ADDED_FIELDS[field]}
    assert differences(recorded, now) == [] and config_hash(recorded) == config_hash(now)
    assert config_hash(recorded) != config_hash({**now, field: "other"})


def test_aliases_of_one_precision_are_one_run():
    """Lightning runs unset, ``32``, ``"32"`` and ``"32-true"`` as one float32 computation, ``16`` as
    ``16-mixed`` and ``bf16`` as ``bf16-mixed``: one identity and one name each; other precisions differ."""
    base = {"model.lr": 0.001, "seed_everything": 1}
    float32 = [base, *({**base, "trainer.precision": value} for value in (None, 32, "32", "32-true"))]
    assert len({config_hash(config) for config in float32}) == 1
    assert all(differences(base, config) == [] for config in float32)
    for alias, value in ((16, "16-mixed"), ("bf16", "bf16-mixed"), ("64", "64-true")):
        assert config_hash({**base, "trainer.precision": alias}) == config_hash({**base, "trainer.precision": value})
    hashes = {config_hash({**base, "trainer.precision": value}) for value in ("16-mixed", "bf16-mixed", "bf16-true")}
    assert len(hashes | {config_hash(base)}) == 4
    assert differences(base, {**base, "trainer.precision": "bf16"}) == [
        "trainer.precision='bf16-mixed' (the run has '32-true')"
    ]
    recorded = with_added_fields({**base, "trainer.precision": 16})  # compare reads each in its one form
    assert recorded["trainer.precision"] == "16-mixed"
    assert with_added_fields({**base, "trainer.precision": None})["trainer.precision"] == "32-true"


BASE = {"model.lr": 0.001, "seed_everything": 1}


@pytest.mark.parametrize("key", [f"trainer.limit_{split}_batches" for split in ("train", "val", "test", "predict")])
def test_unset_and_the_value_lightning_gives_it_are_one_run(key):
    """``--trainer.limit_train_batches=1.0`` is what leaving it out does (Lightning's default): one identity and
    one name; ``1`` is one batch, another run, and messages say which is which."""
    assert config_hash({**BASE, key: 1.0}) == config_hash({**BASE, key: None}) == config_hash(BASE)
    assert differences(BASE, {**BASE, key: 1.0}) == [] == differences({**BASE, key: 1.0}, {**BASE, key: None})
    one_batch = {**BASE, key: 1}
    assert config_hash(one_batch) != config_hash(BASE)
    assert differences(BASE, one_batch) == [f"{key}=1 (the run has 1.0)"]
    assert differences(one_batch, {**BASE, key: 1.0}) == [f"{key}=1.0 (the run has 1)"]
    assert with_added_fields({**BASE, key: None})[key] == 1.0  # as compare reads it


def test_other_trainer_defaults_written_out_are_one_run():
    spelt = {
        "trainer.val_check_interval": 1.0,
        "trainer.num_sanity_val_steps": 2,
        "trainer.enable_checkpointing": True,
        "trainer.gradient_clip_algorithm": "norm",
    }
    assert config_hash({**BASE, **spelt}) == config_hash(BASE) and differences(BASE, {**BASE, **spelt}) == []
    assert differences(BASE, {**BASE, "trainer.num_sanity_val_steps": 0}) == [
        "trainer.num_sanity_val_steps=0 (the run has 2)"
    ]


def test_a_data_folder_written_another_way_is_the_same_run(tmp_path, monkeypatch):
    """A trailing ``/`` (shell completion adds one), ``.`` and ``..``, a link, or the absolute path of the same
    folder (what a run's config.yaml records): one run, and one name; a hub id is left as it is."""
    (tmp_path / "data" / "shakespeare").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    spellings = ["data/shakespeare", "data/shakespeare/", "./data/../data/shakespeare", "elsewhere/../data/shakespeare"]
    spellings += ["link/shakespeare", str(tmp_path / "data" / "shakespeare")]
    configs = [{**BASE, "data.path": path} for path in spellings]
    assert all(differences(configs[0], config) == [] for config in configs)
    assert len({config_hash(config) for config in configs}) == 1
    assert config_hash({**BASE, "data.path": "data/shakespeare"}) == config_hash(
        {**BASE, "data.path": "data//shakespeare"}
    )
    (difference,) = differences(configs[0], {**BASE, "data.path": "data/wikitext"})
    assert difference.startswith("data.path='data/wikitext' (the run has ") and "shakespeare" in difference
    assert identity({**BASE, "data.path": "karpathy/tiny_shakespeare"})["data.path"] == "karpathy/tiny_shakespeare"


def test_a_field_at_the_value_it_takes_from_another_is_unset():
    """``model.activation_dropout`` unset is ``model.dropout``'s value."""
    base = {**BASE, "model.dropout": 0.1, "model.activation_dropout": None}
    assert differences(base, {**base, "model.activation_dropout": 0.1}) == []
    assert config_hash(base) == config_hash({**base, "model.activation_dropout": 0.1})
    assert differences(base, {**base, "model.activation_dropout": 0.0}) == [
        "model.activation_dropout=0.0 (the run has unset)"
    ]


def test_a_field_at_its_default_is_shown_as_its_value_not_unset():
    assert shown({}, "model.bias") == "true" and shown({}, "trainer.precision") == "'32-true'"
    assert shown({}, "model.activation_dropout") == "unset" and shown({"model.lr": 0.1}, "model.lr") == "0.1"


def test_new_run_dir_creates_each_folder_once(tmp_path):
    made = [new_run_dir(tmp_path, "run") for _ in range(3)]
    assert [p.name for p in made] == ["run", "run-2", "run-3"] and all(p.is_dir() for p in made)


def test_runs_of_other_configs_get_other_names(data_dir, cli_env):
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2"]
    main(args)
    main([*args, "--model.lr=0.003"])
    try:
        main([*args, "--matmul_precision=medium"])  # how matmuls round is recorded, not part of the identity
        assert torch.get_float32_matmul_precision() == "medium"
    finally:
        torch.set_float32_matmul_precision("highest")
    names = sorted(p.name for p in (cli_env / "runs").iterdir())
    assert len(names) == 3
    hashes = {name.split("-s1-")[1].split("-")[0] for name in names}
    assert len(hashes) == 2  # two configurations; the third run is "-2" of the first
    (again,) = [name for name in names if name.endswith("-2")]
    assert json.loads((cli_env / "runs" / again / "config.json").read_text())["matmul_precision"] == "medium"


def test_resume_refuses_another_config_and_leaves_its_record_alone(data_dir, cli_env, capsys):
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2"]
    main([*args, "--model.lr=0.003", "--run_name=mine"])
    run_dir = only_run(cli_env / "runs")
    before = (run_dir / "config.json").read_bytes(), (run_dir / "summary.json").read_bytes()
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--run_name=mine", "--ckpt_path=last"])  # the config file's lr, 1e-3
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "was trained with another configuration: model.lr=0.001 (the run has 0.003)" in err
    assert ((run_dir / "config.json").read_bytes(), (run_dir / "summary.json").read_bytes()) == before
    assert json.loads(before[0])["model.lr"] == 0.003


def test_resume_with_a_longer_budget_continues_the_same_run(data_dir, cli_env):
    args = shakespeare_args(data_dir)
    main([*args, "--trainer.max_steps=2"])
    main([*args, "--trainer.max_steps=4", "--ckpt_path=last"])
    run_dir = only_run(cli_env / "runs")
    assert read_run(run_dir)["config"]["trainer.max_steps"] == 4


def test_resume_finds_a_run_recorded_under_another_hash_of_its_identity(data_dir, cli_env):
    """A run whose name has an older hash of the same identity (runs recorded with ``precision: 32-true``
    before aliases were one identity) is resumed, not refused with an empty list of differences."""
    args = shakespeare_args(data_dir)
    main([*args, "--trainer.max_steps=2", "--trainer.precision=32-true"])
    recorded = only_run(cli_env / "runs")
    older = recorded.rename(recorded.with_name(recorded.name.rsplit("-", 1)[0] + "-abc123"))
    main([*args, "--trainer.max_steps=4", "--ckpt_path=last"])  # precision unset: float32 as well
    assert only_run(cli_env / "runs") == older
    assert [line["step"] for line in read_run(older)["metrics"] if "val_loss" in line][-1] == 4


def test_a_run_shorter_than_val_check_interval_ends_with_a_validation(data_dir, cli_env):
    main([*shakespeare_args(data_dir), "--trainer.max_steps=5", "--trainer.val_check_interval=250"])
    record = read_run(only_run(cli_env / "runs"))
    validations = [line for line in record["metrics"] if "val_loss" in line]
    assert [line["step"] for line in validations] == [5]
    assert record["summary"]["best"]["val_loss"]["step"] == 5
    assert record["summary"]["checkpoints"]["best"].endswith("best-step5.ckpt")


def test_the_final_validation_is_not_repeated_when_due_anyway(data_dir, cli_env):
    main([*shakespeare_args(data_dir), "--trainer.max_steps=6", "--trainer.val_check_interval=3"])
    record = read_run(only_run(cli_env / "runs"))
    assert [line["step"] for line in record["metrics"] if "val_loss" in line] == [3, 6]


def test_a_run_ends_with_a_validation_in_an_epoch_that_check_val_every_n_epoch_skips(data_dir, cli_env):
    main([*shakespeare_args(data_dir), "--trainer.max_steps=4", "--trainer.check_val_every_n_epoch=2"])
    record = read_run(only_run(cli_env / "runs"))  # 4 steps of epoch 0, which it would not validate
    assert [line["step"] for line in record["metrics"] if "val_loss" in line] == [4]


def test_evaluation_records_the_checkpoint_step(data_dir, cli_env):
    args = shakespeare_args(data_dir)  # `test` at the checkpoint's step: tests/cli/test_end_to_end.py
    main([*args, "--trainer.max_steps=4"])
    run_dir = only_run(cli_env / "runs")
    trained_for = read_run(run_dir)["summary"]["wall_time_s"]
    main(["validate", *args[1:], f"--ckpt_path={run_dir / 'checkpoints' / 'last.ckpt'}"])
    lines = [line for line in read_run(run_dir)["metrics"] if "val_loss" in line]
    assert [line["step"] for line in lines] == [3, 4, 4]  # during fit at 3 and 4, then validate at 4
    assert read_run(run_dir)["summary"]["wall_time_s"] == trained_for  # fit's time only


def test_an_interrupted_run_says_so_and_how_to_resume(data_dir, cli_env, capsys, ctrl_c_reaches_this_process):
    callback = '--trainer.callbacks=[{"class_path": "tests.cli.interrupter.InterruptAt", "init_args": {"step": 4}}]'
    with pytest.raises(SystemExit) as stopped:
        main([*shakespeare_args(data_dir), "--trainer.max_steps=6", callback])
    assert stopped.value.code == 128 + signal.SIGINT  # not 1, a failure
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not Lightning's SIG_IGN after one
    run_dir = only_run(cli_env / "runs")
    summary = read_run(run_dir)["summary"]
    assert summary["status"] == "interrupted"
    folder = run_dir.resolve() / "checkpoints"  # keyed as a finished run's record keys them
    assert summary["checkpoints"] == {"last": str(folder / "last.ckpt"), "best": str(folder / "best-step3.ckpt")}
    err = capsys.readouterr().err
    # a KeyboardInterrupt mid-step (a second Ctrl-C) keeps the checkpoint of the validation before it
    line = f"zoo: run interrupted at step 4; runs/{run_dir.name}/checkpoints/last.ckpt holds step 3 (steps after 3 "
    command = err.split(line + "are lost); resume it with: ")[1].splitlines()[0]
    assert command == f"python -m zoo fit --config runs/{run_dir.name}/config.yaml --ckpt_path last"
    (run_dir / "summary.json").write_text(json.dumps({**summary, "exit_code": -9}))  # as a sweep closes a kill
    main(shlex.split(command)[3:])  # the printed command continues the same run to its end
    record = read_run(run_dir)
    assert record["summary"]["status"] == "finished" and record["summary"]["best"]["val_loss"]["step"] == 6
    assert "exit_code" not in record["summary"]  # how the earlier attempt ended is not the run's end


def test_sigterm_saves_the_step_and_resume_continues_it(data_dir, cli_env, capsys):
    callback = '--trainer.callbacks=[{"class_path": "tests.cli.interrupter.TerminateAt", "init_args": {"step": 4}}]'
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=6", callback]
    with pytest.raises(SystemExit) as stopped:
        main(args)
    assert stopped.value.code == 128 + signal.SIGTERM  # not 0: a scheduler must not take it for a finished run
    run_dir = only_run(cli_env / "runs")
    summary = read_run(run_dir)["summary"]
    assert summary["status"] == "interrupted"
    assert torch.load(run_dir / "checkpoints" / "last.ckpt", weights_only=False)["global_step"] == 5
    assert f"zoo: run interrupted at step 5; runs/{run_dir.name}/checkpoints/last.ckpt holds step 5; resume" in (
        capsys.readouterr().err
    )
    main([*args, "--ckpt_path=last"])
    record = read_run(run_dir)
    steps = [line["step"] for line in record["metrics"] if "train_loss" in line]
    assert steps == list(range(6)) and record["summary"]["status"] == "finished"


def test_sigterm_while_the_model_is_built_leaves_no_run_folder(data_dir, cli_env, monkeypatch):
    """Python's default handler ended the process at once, before Lightning's handler was in place, and left
    the empty run folder behind (Ctrl-C removed it)."""
    from zoo.tasks import LanguageModelTask

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(LanguageModelTask, "check_data", lambda self, data: os.kill(os.getpid(), signal.SIGTERM))
    with pytest.raises(SystemExit) as stopped:
        main([*shakespeare_args(data_dir), "--trainer.max_steps=2"])
    assert stopped.value.code == 128 + signal.SIGTERM
    assert not (cli_env / "runs").exists()
    assert signal.getsignal(signal.SIGTERM) is before  # put back for what runs next in this process


def test_ctrl_c_while_wandb_starts_leaves_no_run_folder(data_dir, cli_env, monkeypatch, capsys):
    """The folder was left with only wandb_id and wandb/ (no record), taking the run's name, after a traceback."""
    from zoo.training.session import RunSession

    def interrupted(self, trainer, config, config_text, devices=None):
        (self.run_dir / "wandb" / "offline-run-1").mkdir(parents=True)
        (self.run_dir / "wandb_id").write_text("abc")
        raise KeyboardInterrupt

    monkeypatch.setattr(RunSession, "record_config", interrupted)
    with pytest.raises(SystemExit) as stopped:
        main([*shakespeare_args(data_dir), "--trainer.max_steps=2"])
    assert stopped.value.code == 128 + signal.SIGINT
    assert not (cli_env / "runs").exists()
    assert capsys.readouterr().err.endswith("zoo: interrupted before training started\n")


def test_a_checkpoint_of_another_task_is_named_as_such(data_dir, cli_env, capsys):
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2"])
    last = only_run(cli_env / "runs") / "checkpoints" / "last.ckpt"
    config = str(CONFIGS / "encoder_decoder" / "multi30k.yaml")
    with pytest.raises(SystemExit):
        main(["validate", "--config", config, f"--data.path={data_dir / 'multi30k'}", f"--ckpt_path={last}"])
    err = capsys.readouterr().err
    assert f"ckpt_path='{last}' holds a LanguageModelTask, not a TranslationTask; pass the config it was" in err


def test_a_checkpoint_file_of_a_run_refuses_another_config_too(data_dir, cli_env, capsys):
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2"]
    main(args)
    run_dir = only_run(cli_env / "runs")
    before = (run_dir / "config.json").read_bytes()
    last = f"--ckpt_path={run_dir / 'checkpoints' / 'last.ckpt'}"
    for budget in ("--trainer.max_steps=4", "--trainer.max_steps=2"):  # the other config first, budget spent or not
        with pytest.raises(SystemExit):
            main([*shakespeare_args(data_dir), budget, "--model.lr=0.01", last])
        err = capsys.readouterr().err
        assert "was trained with another configuration: model.lr=0.01 (the run has 0.001)" in err
    assert (run_dir / "config.json").read_bytes() == before


def test_resume_refuses_a_budget_already_spent(data_dir, cli_env, capsys):
    args = shakespeare_args(data_dir)
    main([*args, "--trainer.max_steps=4"])
    run_dir = only_run(cli_env / "runs")
    before = (run_dir / "config.json").read_bytes(), (run_dir / "summary.json").read_bytes()
    with pytest.raises(SystemExit):
        main([*args, "--trainer.max_steps=3", "--ckpt_path=last"])
    assert "is already at step 4 >= trainer.max_steps=3; pass a larger --trainer.max_steps" in capsys.readouterr().err
    assert ((run_dir / "config.json").read_bytes(), (run_dir / "summary.json").read_bytes()) == before


def test_a_checkpoint_may_be_evaluated_with_another_decoder():
    from zoo.runs.identity import differences

    recorded = {"model.beam_size": 1, "model.length_penalty": 0.6, "model.d_model": 32}
    current = {"model.beam_size": 5, "model.length_penalty": 1.0, "model.d_model": 32}
    assert differences(recorded, current, prefix="model.") == []  # validate/test compare the model's fields
    assert differences(recorded, current) == [
        "model.beam_size=5 (the run has 1)",
        "model.length_penalty=1.0 (the run has 0.6)",
    ]  # but a resumed run trains with what it was started with


def test_a_users_model_checkpoint_leaves_the_runs_own_best_and_last(data_dir, cli_env):
    """Lightning's trainer.checkpoint_callback is the first ModelCheckpoint, which was the user's: the record's
    best pointed to its file, outside checkpoints/."""
    extra = ["--trainer.callbacks+=ModelCheckpoint", "--trainer.callbacks.monitor=val_loss"]
    main([*shakespeare_args(data_dir), "--trainer.max_steps=4", "--trainer.val_check_interval=2", *extra])
    run_dir = only_run(cli_env / "runs")
    checkpoints = read_run(run_dir)["summary"]["checkpoints"]
    folder = run_dir / "checkpoints"
    assert Path(checkpoints["best"]).parent == folder and Path(checkpoints["best"]).name.startswith("best-step")
    assert Path(checkpoints["last"]) == folder / "last.ckpt"


def test_a_runs_own_config_yaml_is_the_same_configuration_and_loading_settings_are_not(data_dir, cli_env):
    """The record holds the data folder's absolute path: its config.yaml made a run of another name family than
    the command's relative path (`...-404004-2` beside `...-a21b9b`). How data is loaded (data.num_workers) is
    not what a run is: a resume with other loader processes was refused."""
    (cli_env / "data").symlink_to(data_dir)  # a relative path, as users type it
    (cli_env / "shakespeare").symlink_to(data_dir / "tinyshakespeare")  # a link of another name
    args = [*shakespeare_args(data_dir), "--data.path=data/tinyshakespeare", "--trainer.max_steps=2"]
    main(args)
    first = only_run(cli_env / "runs")
    main(["fit", f"--config={first / 'config.yaml'}"])
    main([*args, "--data.path=shakespeare/"])
    main([*args, "--data.name=wikitext-2-v1"])  # a hub configuration's name: a local folder has one, unused
    names = sorted(path.name for path in (cli_env / "runs").iterdir())
    assert names == [first.name, f"{first.name}-2", f"{first.name}-3", f"{first.name}-4"]
    main([*args, "--trainer.max_steps=4", "--data.num_workers=1", f"--ckpt_path={first / 'checkpoints' / 'last.ckpt'}"])
    assert [line["step"] for line in read_run(first)["metrics"] if "val_loss" in line][-1] == 4


def test_an_evaluation_with_ckpt_path_last_takes_the_run_nearest_its_config(data_dir, cli_env):
    """Evaluation settings may differ from the run's, so every run of the family with the same model is a
    candidate: the latest one (another block size) was evaluated in place of the run whose config.yaml was
    given."""
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2"]
    main(args)
    (given,) = (cli_env / "runs").iterdir()
    main([*args, "--data.block_size=16"])  # a newer run of the family, of the same model
    (newer,) = {*(cli_env / "runs").iterdir()} - {given}
    main(["validate", f"--config={given / 'config.yaml'}", "--ckpt_path=last", "--data.batch_size=4"])
    metrics = {run: read_run(run)["metrics"] for run in (given, newer)}
    evaluated = {run: any("batch_size=4/val_loss" in line for line in lines) for run, lines in metrics.items()}
    assert evaluated == {given: True, newer: False}


def test_seed_everything_true_draws_a_seed_for_each_run_and_records_it(data_dir, cli_env):
    """Lightning's seed_everything() without a seed seeds 0: two "random" runs were one run twice (-s0, -s0-2)."""
    for _ in range(2):
        main([*shakespeare_args(data_dir), "--trainer.max_steps=1", "--seed_everything=true"])
    runs = list((cli_env / "runs").iterdir())
    seeds = {json.loads((run / "config.json").read_text())["seed_everything"] for run in runs}
    assert len(seeds) == 2 and all(isinstance(seed, int) for seed in seeds)
    assert {run.name.split("-s")[-1].split("-")[0] for run in runs} == {str(seed) for seed in seeds}


def test_an_evaluation_on_other_data_takes_the_given_run_and_never_chooses_between_two(data_dir, cli_env, capsys):
    """Runs of one model trained on two other data sets are as near to a third: the newest was taken, silently."""
    folders = {}
    for name, start in (("first", 0), ("second", 3000), ("third", 6000)):
        folders[name] = cli_env / name
        folders[name].mkdir()
        text = (data_dir / "tinyshakespeare" / "train.txt").read_text()[start : start + 3000]
        for split in ("train", "validation"):
            (folders[name] / f"{split}.txt").write_text(text)
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2", "--data.block_size=16", "--model.max_len=16"]
    for name in ("first", "second"):
        main([*args, f"--data.path={folders[name]}"])
    first = next(run for run in (cli_env / "runs").iterdir() if run.name.startswith("do-first-"))
    evaluate = [f"--data.path={folders['third']}", "--ckpt_path=last"]
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["validate", *args[1:], *evaluate])
    err = capsys.readouterr().err
    assert "zoo: error: ckpt_path='last': 2 runs of this model differ from this command as much, each in " in err
    assert "pass --ckpt_path with the checkpoint of one" in err
    main(["validate", f"--config={first / 'config.yaml'}", *evaluate])  # its config.yaml names the run
    out = capsys.readouterr().out
    assert f"zoo: --ckpt_path last is the run {first.name}, trained on other data: data.path=" in out
    assert any("path=third@" in key for key in read_run(first)["summary"]["settings_evaluations"])
