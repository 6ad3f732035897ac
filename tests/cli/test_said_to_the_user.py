"""What a line says to the user: another name of a valid value points to it (``rotary``: ``rope``) in every
registry; a number without its binary noise; a folder given for a checkpoint lists its checkpoints; a resume
given its own run's config is told what to drop, not to use the config it already uses."""

import json
import os
from types import SimpleNamespace

import pytest

from tests.cli.helpers import CONFIGS
from zoo.cli.main import main
from zoo.messages import SYNONYMS, check_choice, said
from zoo.nn.config import NORM_POSITIONS
from zoo.registry import ACTIVATIONS, NORMS, POOLINGS, POSITIONAL_ENCODINGS, SCHEDULES, TOKENIZERS
from zoo.runs.folders import RunFolderError, find_resumable
from zoo.training.adjusted_knobs import adjusted_knobs, say

REGISTRIES = [NORMS, POSITIONAL_ENCODINGS, ACTIVATIONS, POOLINGS, SCHEDULES, TOKENIZERS]


@pytest.mark.parametrize("registry", REGISTRIES, ids=lambda registry: registry.field)
def test_every_registry_points_the_common_other_names_to_its_own(registry):
    names = registry.names()
    synonyms = SYNONYMS[registry.field]
    assert set(synonyms.values()) == set(names)  # each component has at least one other name
    for synonym, name in synonyms.items():
        assert synonym not in names
        with pytest.raises(ValueError) as refused:
            registry.check(synonym)
        assert str(refused.value).endswith(f"; did you mean {name!r}?")


def test_the_norm_position_points_pre_ln_to_pre():
    with pytest.raises(ValueError) as refused:
        check_choice("model.norm_position", "pre_ln", NORM_POSITIONS)
    assert str(refused.value) == (
        "model.norm_position='pre_ln' is not valid; choose one of: 'post', 'pre'; did you mean 'pre'?"
    )


@pytest.mark.parametrize(
    ("flag", "line"),
    [
        (
            "--model.pe=rotary",
            "model.pe='rotary' is not valid; choose one of: 'none', 'sinusoidal', 'learned', 'rope', 'alibi', "
            "'sinusoidal_concat', 't5'; "
            "did you mean 'rope'?",
        ),
        (
            "--model.norm=groupnorm",
            "model.norm='groupnorm' is not valid; choose one of: 'layernorm', 'rmsnorm', 'batchnorm', 'powernorm'",
        ),  # fmt: skip
        (
            "--model.schedule=noam",
            "model.schedule='noam' is not valid; choose one of: 'inverse_sqrt', 'cosine', "
            "'constant'; did you mean 'inverse_sqrt'?",
        ),  # fmt: skip
    ],
)
def test_a_refused_value_of_the_command_line_is_pointed_to_the_zoos_name(flag, line, cli_env, capsys):
    with pytest.raises(SystemExit) as refused:
        main(["fit", "--config", str(CONFIGS / "quickstart.yaml"), flag])
    assert refused.value.code == 2
    assert capsys.readouterr().err.strip() == f"zoo: error: {line}"


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0.001 * 0.225, "0.000225"), (1e-4, "0.0001"), (0.1 + 0.2, "0.3"), (0.123456789, "0.123456789"), (2, "2"),
     ("1e-3", "'1e-3'"), ([0.9, 0.98], "[0.9, 0.98]"), (float("nan"), "nan"), (None, "null")],
)  # fmt: skip
def test_a_number_is_said_without_its_binary_noise(value, shown):
    assert said(value) == shown


def test_the_adjusted_learning_rate_is_said_as_a_number_a_person_reads():
    """It said ``model.lr=0.001 is run as 0.00022500000000000002``."""
    hparams = SimpleNamespace(lr=1e-3, schedule="constant", warmup_steps=400, min_lr_ratio=0.1)
    trainer = SimpleNamespace(num_devices=1, num_nodes=1, max_steps=90, precision="32-true")
    data = SimpleNamespace(tokenizers_given=True, batch_size=None)
    assert say(adjusted_knobs(data, hparams, trainer, None)) == [
        "zoo: model.lr=0.001 is run as 0.000225: trainer.max_steps=90 ends before model.warmup_steps=400, so the "
        "learning rate peaks at 22.5% of it"
    ]


@pytest.mark.parametrize("where", ["run", "checkpoints"])
def test_a_folder_given_for_a_checkpoint_lists_its_checkpoints(where, cli_env, capsys):
    folder = cli_env / "runs" / "lm-x"
    (folder / "checkpoints").mkdir(parents=True)
    for age, name in enumerate(("last.ckpt", "best-step3.ckpt")):
        (folder / "checkpoints" / name).write_bytes(b"")  # listed before any is read
        os.utime(folder / "checkpoints" / name, (1e9 - age, 1e9 - age))  # last.ckpt the newest
    given = folder if where == "run" else folder / "checkpoints"
    with pytest.raises(SystemExit) as refused:
        main(["validate", "--ckpt_path", str(given)])
    assert refused.value.code == 2
    listed = ", ".join(str(folder / "checkpoints" / name) for name in ("last.ckpt", "best-step3.ckpt"))
    assert capsys.readouterr().err.strip() == (
        f"zoo: error: ckpt_path={str(given)!r} is a folder, not a checkpoint file; give one of its checkpoints: "
        f"{listed}"
    )


@pytest.mark.parametrize("flag", ["--config", "-c"])  # -c: LightningCLI's short form, checked alike
def test_a_folder_given_for_a_config_names_its_config_file(flag, cli_env, capsys):
    folder = cli_env / "runs" / "lm-x"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text("seed_everything: 1\n")
    with pytest.raises(SystemExit) as refused:
        main(["fit", flag, str(folder)])
    assert refused.value.code == 2
    assert capsys.readouterr().err.strip() == (
        f"zoo: error: --config {folder} is a folder, not a config file; the run's config is {folder / 'config.yaml'}"
    )


def test_a_resume_given_its_own_config_is_told_to_drop_the_changed_flag(tmp_path):
    """``fit --config runs/<name>/config.yaml --model.n_heads=8 --ckpt_path last`` was told to resume it with its
    own config (--config runs/<name>/config.yaml): the one it was given."""
    run = tmp_path / "runs" / "lm-x-rope-layernorm-pre-h4-s1-aaaaaa"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "last.ckpt").write_bytes(b"")
    record = {"model.class_path": "zoo.tasks.LanguageModelTask", "data.class_path": "zoo.data.TextDataModule",
              "data.path": "x", "model.n_heads": 4, "seed_everything": 1}  # fmt: skip
    (run / "config.json").write_text(json.dumps(record))
    with pytest.raises(RunFolderError) as error:
        find_resumable(run.parent, "lm-x-h8", {**record, "model.n_heads": 8}, "lm-x-h8", given=(run,))
    assert str(error.value) == (
        f"ckpt_path='last': no run of this configuration; the nearest, {run}, was trained with another "
        f"configuration: model.n_heads=8 (the run has 4); {run / 'config.yaml'} is this command's config (given, "
        f"or read from the checkpoint's run): drop what sets model.n_heads (a flag, or a later --config) to resume "
        f"it, or start a new run without --ckpt_path"
    )
