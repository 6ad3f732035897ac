"""What the user typed is what runs: the command line reads left to right, and a flag that a later config file
(``--config``, ``-c``, several of them, a group's own file) would replace is refused in one line; a config file
never chooses what one command did (the checkpoint it started from or evaluated, the folder it wrote), and a
run's config.yaml no longer records it."""

import shutil

import pytest
import yaml

from tests.cli.helpers import CONFIGS, read_run, shakespeare_args
from tests.cli.test_wandb_agent_env import agent_arguments, wandb_settings_of_this_test  # noqa: F401
from zoo.cli.main import main

QUICKSTART = str(CONFIGS / "quickstart.yaml")
SHAKESPEARE = str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml")
TYPED = ["--seed_everything=7", "--model.d_model=32"]


def printed_config(args: list[str], capsys) -> dict:
    """The config ``--print_config`` shows for a run command."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main([*args, "--print_config"])
    assert done.value.code == 0
    return yaml.safe_load(capsys.readouterr().out)


def refused(args: list[str], capsys) -> str:
    """The one line a refused command says (exit status 2)."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(args)
    assert done.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    return line


def test_flags_after_the_config_file_win(cli_env, capsys):
    printed = printed_config(["fit", "--config", QUICKSTART, *TYPED, "--trainer.max_steps=2"], capsys)
    assert (printed["seed_everything"], printed["model"]["init_args"]["d_model"]) == (7, 32)
    assert printed["trainer"]["max_steps"] == 2


@pytest.mark.parametrize(
    ("order", "flag", "file", "field"),
    [
        ([*TYPED, "--config", QUICKSTART], TYPED[0], f"--config {QUICKSTART}", "seed_everything"),  # the issue's
        (["--trainer.max_steps=2", TYPED[1], f"--config={QUICKSTART}"], "--trainer.max_steps=2",
         f"--config={QUICKSTART}", "trainer.max_steps"),
        (["--config", QUICKSTART, TYPED[1], "-c", QUICKSTART], TYPED[1], f"-c {QUICKSTART}", "model.d_model"),
    ],  # fmt: skip
    ids=["flags-first", "config-last-with-equals", "short-c-after"],
)
def test_a_flag_that_a_later_config_file_would_replace_is_refused_in_one_line(order, flag, file, field, cli_env,
                                                                               capsys):  # fmt: skip
    """jsonargparse reads a command line left to right: the config after the flags trained seed 1, d_model 64."""
    assert refused(["fit", *order, "--trainer.max_steps=2"], capsys) == (
        f"zoo: error: {flag} stands before {file}, which sets {field} and would replace it; put it after (a "
        f"command line is read left to right)"
    )
    assert not (cli_env / "runs").exists()


def test_a_group_file_replaces_what_its_group_was_given_before_it(cli_env, capsys, tmp_path):
    trainer = tmp_path / "trainer.yaml"
    trainer.write_text(yaml.safe_dump({"max_steps": 9, "max_time": {"minutes": 1}}))
    line = refused(["fit", "--config", QUICKSTART, "--trainer.max_time=00:00:02:00", "--trainer", str(trainer)], capsys)
    assert line.startswith(f"zoo: error: --trainer.max_time=00:00:02:00 stands before --trainer {trainer}, which sets ")
    assert "trainer.max_time.minutes and would replace it" in line


def test_config_files_apply_in_their_order_and_a_flag_before_a_file_that_leaves_it_stands(cli_env, capsys, tmp_path):
    later = tmp_path / "later.yaml"
    later.write_text(yaml.safe_dump({"seed_everything": 3, "model": {"init_args": {"d_model": 48, "n_heads": 2}}}))
    model = tmp_path / "model.yaml"
    model.write_text(yaml.safe_dump({"class_path": "zoo.tasks.TranslationTask", "init_args": {"d_ff": 96}}))
    trainer = tmp_path / "trainer.yaml"
    trainer.write_text(yaml.safe_dump({"val_check_interval": 3}))
    args = ["fit", "--config", QUICKSTART, "--model.d_model=32", "--trainer.max_steps=2", "--config", str(later)]
    with pytest.raises(SystemExit):  # later.yaml sets d_model
        main(args)
    args = ["fit", "--config", QUICKSTART, "--trainer.max_steps=2", "--config", str(later), *TYPED]
    printed = printed_config([*args, "--model", str(model), "--model.d_ff=64", "--trainer", str(trainer)], capsys)
    init_args = printed["model"]["init_args"]
    assert (printed["seed_everything"], init_args["d_model"], init_args["d_ff"]) == (7, 32, 64)  # typed
    assert init_args["n_heads"] == 2 and printed["trainer"]["val_check_interval"] == 3  # the later file's
    assert printed["trainer"]["max_steps"] == 2 and init_args["pe"] == "sinusoidal"  # typed; the first file's


def test_a_restarted_agent_trial_whose_command_puts_args_before_the_config_is_refused(cli_env, capsys):
    """A sweep's ``command: [..., fit, ${args}, --config, X]`` restarted by ``wandb agent`` (the whole logged config
    as flags): the config file replaced every logged value (tinyshakespeare.yaml has pe learned)."""
    line = refused(["fit", *agent_arguments("args", restart=True), "--config", SHAKESPEARE], capsys)
    assert f"stands before --config {SHAKESPEARE}, which sets " in line and "put it after" in line


def last_validation(run_dir) -> float:
    return [line["val_loss"] for line in read_run(run_dir)["metrics"] if "val_loss" in line][-1]


def recorded_before(run_dir, **fields) -> str:
    """A copy of ``run_dir``'s config.yaml as runs recorded it before what one command did was left out
    (``ckpt_path``, ``run_name``)."""
    written = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert not set(written) & {"ckpt_path", "run_name", "weights_only"}
    old = run_dir / "config-before.yaml"
    old.write_text(yaml.safe_dump({**written, **fields}, sort_keys=False))
    return str(old)


def test_a_recorded_config_never_chooses_the_checkpoint(data_dir, cli_env, capsys):
    """After a resume, runs/<a>/config.yaml recorded ckpt_path: .../last.ckpt; `validate --ckpt_path <b's>
    --config runs/<a>/config.yaml` validated a's checkpoint and wrote the number into a's folder."""
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=3"]
    main(args)
    main([*shakespeare_args(data_dir), "--trainer.max_steps=6", "--ckpt_path=last"])  # a resumed run
    (resumed,) = (cli_env / "runs").iterdir()
    recorded = f"runs/{resumed.name}/checkpoints/last.ckpt"
    config = recorded_before(resumed, ckpt_path=recorded)
    main([*args, "--seed_everything=2"])
    (other,) = [folder for folder in (cli_env / "runs").iterdir() if folder != resumed]
    before = (resumed / "metrics.jsonl").read_text()
    main(["validate", "--ckpt_path", str(other / "checkpoints" / "last.ckpt")])  # its own config
    alone = last_validation(other)
    capsys.readouterr()
    main(["validate", f"--config={config}", "--ckpt_path", str(other / "checkpoints" / "last.ckpt")])
    assert last_validation(other) == alone and (resumed / "metrics.jsonl").read_text() == before
    main(["validate", "--ckpt_path", str(other / "checkpoints" / "last.ckpt"), f"--config={config}"])  # not set
    assert last_validation(other) == alone and (resumed / "metrics.jsonl").read_text() == before

    with pytest.raises(SystemExit) as refused:  # no checkpoint named: none is chosen for the user
        main(["validate", "--config", config])
    assert refused.value.code == 2
    said, error = capsys.readouterr().err.strip().splitlines()
    assert said == (
        f"zoo: {config} sets ckpt_path={recorded!r}, the checkpoint one command started from or evaluated, which "
        f"a config file does not choose: left out (name it with --ckpt_path)"
    )
    assert error.startswith("zoo: error: validate needs a trained model: pass --ckpt_path")
    assert (resumed / "metrics.jsonl").read_text() == before


def test_a_run_made_from_a_recorded_config_is_a_new_run_under_its_own_name(data_dir, cli_env, capsys):
    """A sweep trial's config.yaml recorded its run_name, a resumed run's its ckpt_path: `fit --config` of it
    continued the old run (a changed flag was refused), or took the trial's name with `-2`."""
    main([*shakespeare_args(data_dir), "--trainer.max_steps=3", "--run_name=trial-a"])
    main([*shakespeare_args(data_dir), "--trainer.max_steps=4", "--run_name=trial-a", "--ckpt_path=last"])
    trial = cli_env / "runs" / "trial-a"
    old = recorded_before(trial, ckpt_path=str(trial / "checkpoints" / "last.ckpt"), run_name="trial-a")
    shutil.copy(old, cli_env / "trial-a.yaml")  # a copy, out of the run folder
    main(["fit", "--config", str(cli_env / "trial-a.yaml"), "--model.lr=0.002", "--trainer.max_steps=2"])
    (new,) = [folder for folder in (cli_env / "runs").iterdir() if folder.name != "trial-a"]
    assert not new.name.startswith("trial-a") and read_run(new)["config"]["model.lr"] == 0.002
    assert [line["step"] for line in read_run(new)["metrics"] if "train_loss" in line] == [0, 1]
    assert "run_name" not in read_run(new)["config"]
    err = capsys.readouterr().err
    assert "sets run_name='trial-a', the run folder one command wrote, which a config file does not choose" in err


def test_an_exported_w_and_b_project_is_the_runs_unless_a_flag_names_another(data_dir, cli_env, monkeypatch):
    """``--wandb_project`` defaulted to ``zoo``, which ``wandb.init`` takes over W&B's own ``$WANDB_PROJECT``."""
    monkeypatch.setenv("WANDB_PROJECT", "ablations")
    main([*shakespeare_args(data_dir), "--trainer.max_steps=1", "--trainer.val_check_interval=1"])
    main([*shakespeare_args(data_dir), "--trainer.max_steps=1", "--trainer.val_check_interval=1", "--model.lr=0.002",
          "--wandb_project=typed"])  # fmt: skip
    projects = sorted(read_run(folder)["config"]["wandb_project"] for folder in (cli_env / "runs").iterdir())
    assert projects == ["ablations", "typed"]


def test_a_project_w_and_b_would_ignore_under_a_sweep_is_refused_before_anything_runs(data_dir, cli_env, monkeypatch,
                                                                                      capsys):  # fmt: skip
    """Under ``wandb agent`` W&B logs to the sweep's project whatever ``init`` is given: the record said another."""
    monkeypatch.setenv("WANDB_SWEEP_ID", "sweep42")
    monkeypatch.setenv("WANDB_PROJECT", "ablations")
    with pytest.raises(SystemExit) as refused:
        main([*shakespeare_args(data_dir), "--wandb_project=mine"])
    assert refused.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "zoo: error: wandb_project='mine' is not the project of the W&B sweep this run joins (WANDB_SWEEP_ID, "
        "WANDB_PROJECT='ablations'), where W&B would log it instead; leave --wandb_project out, or pass "
        "--wandb_project=ablations where a config file sets it"
    )
    assert not (cli_env / "runs").exists() or not any((cli_env / "runs").iterdir())


def test_an_exported_w_and_b_name_names_the_run_in_w_and_b_unless_run_name_is_typed(data_dir, cli_env, monkeypatch):
    """The W&B run was always named after the run folder, over W&B's own ``$WANDB_NAME``; the folder still is."""
    import zoo.training.session as session

    names, make = [], session.make_wandb_logger
    monkeypatch.setattr(session, "make_wandb_logger", lambda *a, **k: names.append(a[1]) or make(*a, **k))
    monkeypatch.setenv("WANDB_NAME", "exported")
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=1", "--trainer.val_check_interval=1"]
    main(args)
    main([*args, "--run_name=typed"])
    monkeypatch.delenv("WANDB_NAME")
    main([*args, "--model.lr=0.002"])
    folders = sorted(folder.name for folder in (cli_env / "runs").iterdir())
    assert names[:2] == ["exported", "typed"] and names[2] in folders and "typed" in folders and len(folders) == 3


def test_a_command_that_continues_a_runs_w_and_b_run_keeps_its_project_or_says_why_not(
    data_dir, cli_env, monkeypatch, capsys
):
    """A resume took the default project (or another typed one) over the one the run logged to, and rewrote its
    record: one W&B run id split between projects, without a word. Evaluations of its checkpoint continue the
    same W&B run: the same rule."""
    args = [*shakespeare_args(data_dir), "--trainer.val_check_interval=1"]
    monkeypatch.setenv("WANDB_PROJECT", "envproj")
    main([*args, "--trainer.max_steps=1"])
    (run_dir,) = (cli_env / "runs").iterdir()
    recorded = (run_dir / "config.yaml").read_text()
    monkeypatch.delenv("WANDB_PROJECT")
    main([*args, "--trainer.max_steps=2", "--ckpt_path=last"])  # nothing names a project: the run's own
    assert read_run(run_dir)["config"]["wandb_project"] == "envproj"
    assert [line["step"] for line in read_run(run_dir)["metrics"] if "train_loss" in line] == [0, 1]
    recorded, run_id = (run_dir / "config.yaml").read_text(), (run_dir / "wandb_id").read_text()
    capsys.readouterr()
    resume, checkpoint = [*args, "--trainer.max_steps=3", "--ckpt_path=last"], run_dir / "checkpoints" / "last.ckpt"
    flag = ("wandb_project='otherproj'", "leave --wandb_project out")
    exported = ("WANDB_PROJECT='another'", "unset WANDB_PROJECT")
    refusals = [
        ([*resume, "--wandb_project=otherproj"], {}, *flag),
        (resume, {"WANDB_PROJECT": "another"}, *exported),
    ]
    for command, environment, named, change in refusals:
        for key, value in environment.items():
            monkeypatch.setenv(key, value)
        with pytest.raises(SystemExit) as refused:
            main(command)
        for key in environment:
            monkeypatch.delenv(key)
        assert refused.value.code == 2
        assert capsys.readouterr().err.strip() == (
            f"zoo: error: {named} is not the W&B project of {run_dir.relative_to(cli_env)} ('envproj', "
            f"W&B run {run_id}), which this command continues: one W&B run would be split between two projects; "
            f"{change} to continue it in 'envproj', or start a new run (fit without --ckpt_path)"
        )
    assert (run_dir / "config.yaml").read_text() == recorded and (run_dir / "wandb_id").read_text() == run_id
    assert [line["step"] for line in read_run(run_dir)["metrics"] if "train_loss" in line] == [0, 1]
    import zoo.training.session as session  # an evaluation reads the run's config.yaml: its project wins

    projects, make = [], session.make_wandb_logger
    monkeypatch.setattr(session, "make_wandb_logger", lambda *a, **k: projects.append(a[2]) or make(*a, **k))
    monkeypatch.setenv("WANDB_PROJECT", "another")
    main(["validate", f"--ckpt_path={checkpoint}"])
    assert projects == ["envproj"]


def test_a_run_named_by_run_name_resumes_from_its_own_config_yaml(data_dir, cli_env):
    """``run_name`` is never taken from a config file, so a sweep trial's folder (named by ``--run_name``) was no
    longer found by ``--config runs/<trial>/config.yaml --ckpt_path last``: refused with an empty list of
    differences. The run whose config.yaml is given is a candidate whatever its name."""
    main([*shakespeare_args(data_dir), "--trainer.max_steps=1", "--trainer.val_check_interval=1", "--run_name=trial-b"])
    trial = cli_env / "runs" / "trial-b"
    main(["fit", "--config", str(trial / "config.yaml"), "--ckpt_path=last", "--trainer.max_steps=2"])
    assert [folder.name for folder in (cli_env / "runs").iterdir()] == ["trial-b"]
    assert [line["step"] for line in read_run(trial)["metrics"] if "train_loss" in line] == [0, 1]


def overlay(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_every_spelling_of_a_replaced_flag_is_refused(cli_env, capsys, tmp_path):
    """``init_args`` in the flag, ``-cPATH``, a bare flag before ``-c``, a later file of another class (whose
    fields jsonargparse drops), a group's file named by path in a config: each let a later file replace a typed
    value without a word."""
    other_class = overlay(tmp_path, "cls.yaml", "data:\n  class_path: zoo.data.LanguageModelDataModule\n")
    steps = overlay(tmp_path, "t.yaml", "max_steps: 3\n")
    by_path = overlay(tmp_path, "nest.yaml", f"trainer: {steps}\n")
    cases = {
        ("--model.init_args.d_model=32", "--config", QUICKSTART): "model.d_model",
        ("--seed_everything=7", f"-c{QUICKSTART}"): "seed_everything",
        ("--seed_everything=7", "--print_config", "-c", QUICKSTART): "seed_everything",
        ("--config", QUICKSTART, "--data.num_train=100", "--config", other_class): "data.class_path",
        ("--config", QUICKSTART, "--model", "zoo.tasks.LanguageModelTask", "--config", QUICKSTART): "model.class_path",
        ("--config", QUICKSTART, "--trainer.max_steps=5", "--config", by_path): "trainer.max_steps",
    }
    for args, field in cases.items():
        assert f", which sets {field} and would replace it; put it after" in refused(["fit", *args], capsys), args


def test_a_flag_that_a_later_file_leaves_alone_stands(cli_env, capsys, tmp_path):
    """A class typed before a file of only ``init_args``, an empty mapping, a group's file of other fields, the
    same class again, a negative value given as its own word: nothing replaced, nothing refused."""
    width = overlay(tmp_path, "d32.yaml", "model:\n  init_args:\n    d_model: 32\n")
    empty = overlay(tmp_path, "empty.yaml", "trainer: {}\n")
    by_path = overlay(tmp_path, "nest.yaml", f"trainer: {overlay(tmp_path, 't.yaml', 'max_steps: 3')}\n")
    same = overlay(tmp_path, "same.yaml", "model: {class_path: zoo.tasks.TranslationTask, init_args: {n_heads: 2}}")
    base = ["fit", "--config", QUICKSTART]
    printed = printed_config([*base, "--model", "zoo.tasks.LanguageModelTask", "--config", width], capsys)
    assert printed["model"]["class_path"].endswith("LanguageModelTask")
    assert printed["model"]["init_args"]["d_model"] == 32
    printed = printed_config([*base, "--trainer.max_steps=4", "--config", empty], capsys)
    assert printed["trainer"]["max_steps"] == 4
    printed = printed_config([*base, "--trainer.gradient_clip_val=0.5", "--config", by_path], capsys)
    assert (printed["trainer"]["gradient_clip_val"], printed["trainer"]["max_steps"]) == (0.5, 3)
    printed = printed_config([*base, "--model.d_model=16", "--config", same, "--trainer.max_steps", "-1"], capsys)
    assert (printed["model"]["init_args"]["d_model"], printed["model"]["init_args"]["n_heads"]) == (16, 2)
    assert printed["trainer"]["max_steps"] == -1
