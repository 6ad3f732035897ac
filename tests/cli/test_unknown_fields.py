"""A mistyped field of ``fit``/``validate``/``test``/``predict`` is told before Lightning loads
(:mod:`zoo.cli.unknown_fields`), in the full parser's words, from an index the first run command writes into
the cache; no valid command line is refused there."""

import json
import os
import subprocess
import sys

import pytest
import yaml

from tests.conftest import REPO
from zoo.cli import field_index, unknown_fields
from zoo.cli.config_files import missing_model_and_data
from zoo.cli.knobs import TASKS, accepted_fields, data_modules
from zoo.cli.main import main
from zoo.cli.parser_only import cli_parser
from zoo.cli.unknown_fields import refused_before_imports

SHAKESPEARE = str(REPO / "configs" / "decoder_only" / "tinyshakespeare.yaml")
MULTI30K = str(REPO / "configs" / "encoder_decoder" / "multi30k.yaml")


@pytest.fixture(autouse=True)
def index(zoo_cache, monkeypatch):
    """The session's cache, with the index the first run command writes there."""
    monkeypatch.setenv("ZOO_CACHE", str(zoo_cache))
    field_index.write_index()
    return unknown_fields.index_path()


MISTYPED = [
    ["fit", "--model.n_head=3"],
    ["fit", "--confg", "x.yaml"],
    ["fit", f"--config={SHAKESPEARE}", "--trainer.max_step=3"],
    ["fit", f"--config={SHAKESPEARE}", "--modle.lr=3"],
    ["fit", f"--config={MULTI30K}", "--model.src_column=de"],
    ["fit", f"--config={MULTI30K}", "--data.lr=0.1"],
    ["validate", f"--config={SHAKESPEARE}", "--data.pth=x"],
    ["test", f"--config={SHAKESPEARE}", "--model.init_args.n_layer=2"],
    ["predict", f"--config={SHAKESPEARE}", "--seed=3"],
    ["fit", f"--config={SHAKESPEARE}", "--trainer.callbacks+=EarlyStopping", "--trainer.devics=1"],
    ["fit", f"--config={SHAKESPEARE}", "--model.zzzzzz=1"],  # nothing near: where the fields are listed
]


@pytest.mark.parametrize("args", MISTYPED, ids=lambda args: args[-1])
def test_a_mistyped_field_is_told_first_in_the_full_parsers_words(args, capsys, cli_env):
    told = refused_before_imports(args)
    with pytest.raises(SystemExit) as exit_:
        main(args)  # in-process: the full parser
    assert exit_.value.code == 2
    assert told is not None and capsys.readouterr().err.strip() == f"zoo: error: {told}"


def field_flags() -> list[str]:
    """Every field of every task and data module, in both forms a command line gives it."""
    groups = (("model", TASKS), ("data", data_modules()))
    names = [(group, name) for group, classes in groups for cls in classes for name in sorted(accepted_fields(cls))]
    return [flag for group, name in names for flag in (f"--{group}.{name}=1", f"--{group}.init_args.{name}=1")]


@pytest.mark.parametrize("command", ["fit", "validate", "test", "predict"])
def test_no_field_of_any_task_data_module_or_the_command_is_refused_first(command):
    actions = cli_parser()._subcommands_action._name_parser_map[command]._option_string_actions
    options = sorted(option[2:] for option in actions if option.startswith("--"))
    flags = [*field_flags(), *(f"--{option}=1" for option in options)]
    assert len(flags) > 150
    assert [flag for flag in flags if refused_before_imports([command, flag])] == []


@pytest.mark.parametrize(
    "args",
    [
        ["fit", f"--config={SHAKESPEARE}", "--trainer.callbacks.monitor=val_loss", "--trainer.strategy.init_args.x=1"],
        ["fit", f"--config={SHAKESPEARE}", "--_wandb={}", "--run.world_size=1", "--wandb_version=1"],  # an agent's
        ["fit", "--model=my_package.MyTask", "--model.my_knob=3"],  # a class of the user's: its fields are its own
        ["fit", "--model.class_path=my_package.MyTask", "--model.init_args.my_knob=3"],
        ["fit", "-c", "own.yaml", "--data.my_column=x"],
        ["fit", f"--config={SHAKESPEARE}", "--", "--not_a_field"],
        ["sweep", "--not_a_field"],  # the other commands check their own
    ],
)
def test_what_the_full_parser_may_accept_is_left_to_it(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "own.yaml").write_text(yaml.safe_dump({"data": {"class_path": "my_package.MyData"}}))
    assert refused_before_imports(args) is None


def test_an_index_of_other_code_is_not_used(monkeypatch):
    monkeypatch.setattr(unknown_fields, "digest", lambda sources: "another")
    assert unknown_fields.load_index() is None
    assert refused_before_imports(["fit", "--model.n_head=3"]) is None


def test_the_first_run_command_writes_the_index_of_this_code_into_the_cache(cli_env, monkeypatch, capsys):
    monkeypatch.setenv("ZOO_CACHE", str(cli_env / "cache"))
    assert refused_before_imports(["fit", "--model.n_head=3"]) is None  # no index: the full parser decides
    with pytest.raises(SystemExit):
        main(["fit", "--model.n_head=3"])
    assert "model.n_head is not a field" in capsys.readouterr().err
    assert unknown_fields.load_index() == json.loads(json.dumps(field_index.build()))
    assert unknown_fields.index_path() == cli_env / "cache" / "cli-fields.json"
    stale = json.loads(unknown_fields.index_path().read_text()) | {"digest": "of other code"}
    unknown_fields.index_path().write_text(json.dumps(stale))
    assert unknown_fields.load_index() is None
    field_index.write_index()
    assert unknown_fields.load_index() == json.loads(json.dumps(field_index.build()))


@pytest.mark.parametrize(
    ("args", "told"),
    [
        (["fit", "--model.n_head=3"], "model.n_head is not a field; did you mean model.n_heads, model.n_kv_heads?"),
        (["fit", "--config", "configs/quickstart.yml"], "--config configs/quickstart.yml: no such file; did you mean"),
        (["test", "--config=README.md"], "README.md is not valid YAML: "),
        (["validate", "--ckpt_path", "runs/x/checkpoints/lats.ckpt"], "ckpt_path='runs/x/checkpoints/lats.ckpt' is"),
        (["fit"], "fit needs a model and its data: pass --config with a config file (configs/"),
        (["predict"], "predict needs a model and its data: pass a run's checkpoint alone"),
    ],
)
def test_python_m_zoo_tells_it_before_importing_torch_or_lightning(args, told, zoo_cache):
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "zoo", *args],
        capture_output=True, text=True, cwd=REPO, timeout=120, env={**os.environ, "ZOO_CACHE": str(zoo_cache)},
    )  # fmt: skip
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and lines[-1].startswith(f"zoo: error: {told}"), lines[-1]
    imported = {line.split("|")[-1].strip().split(".")[0] for line in lines if line.startswith("import time:")}
    assert imported.isdisjoint({"torch", "lightning", "jsonargparse", "datasets", "numpy"}), imported


@pytest.mark.parametrize("command", ["fit", "validate", "test", "predict"])
def test_a_mistyped_checkpoint_names_the_nearest_before_a_missing_config(command, tmp_path, capsys, cli_env):
    """`validate --ckpt_path runs/x/checkpoints/lats.ckpt` said that validate needs a --config."""
    (tmp_path / "last.ckpt").write_bytes(b"")
    with pytest.raises(SystemExit) as exit_:
        main([command, f"--ckpt_path={tmp_path / 'lats.ckpt'}"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"zoo: error: ckpt_path='{tmp_path / 'lats.ckpt'}' is not a file; did you mean {tmp_path / 'last.ckpt'}?\n"
    )


@pytest.mark.parametrize("command", ["fit", "validate"])
def test_a_run_command_alone_is_told_as_the_full_parser_tells_it(command, capsys, cli_env):
    with pytest.raises(SystemExit):
        main([command])
    assert capsys.readouterr().err == f"zoo: error: {missing_model_and_data(command)}\n"
