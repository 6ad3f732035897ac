"""``fit --init_weights`` and the evaluations of a checkpoint refuse, in one line and before any run folder is
made, a checkpoint whose weights or tokenizers this run cannot take: another task (whose weights would fill the
embeddings alone, and whose tokenizer would read this data), another layout of a translation's vocabularies, or
no file at all (``--init_weights=``)."""

from pathlib import Path

import pytest

from tests.cli.helpers import CONFIGS, FEW_STEPS, TINY_MODEL, config_args, shakespeare_args, small_copy
from zoo.cli.empty_values import OPTIONS
from zoo.cli.main import main
from zoo.cli.options import add_zoo_options

TINY_TRANSLATION = [*config_args(CONFIGS / "encoder_decoder" / "multi30k.yaml"), *TINY_MODEL, *FEW_STEPS,
                    "--trainer.max_steps=1", "--trainer.val_check_interval=1", "--model.num_encoder_layers=1",
                    "--model.num_decoder_layers=1", "--model.bleu_batches=1", "--data.vocab_size=300"]  # fmt: skip


def refused(capsys, args: list[str]) -> str:
    """The one line of a command refused with exit status 2."""
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1 and err.startswith("zoo: error: "), err
    return err.removeprefix("zoo: error: ").rstrip("\n")


def trained(cli_env: Path, args: list[str]) -> Path:
    """The ``last.ckpt`` of the one run ``args`` trains."""
    main(args)
    (run_dir,) = (cli_env / "runs").iterdir()
    return run_dir / "checkpoints" / "last.ckpt"


@pytest.mark.parametrize(
    ("config", "data", "task"),
    [("quickstart.yaml", None, "TranslationTask"), ("encoder_only/sst2.yaml", "sst2", "ClassificationTask")],
)
def test_a_checkpoint_of_another_task_is_one_line_before_anything_is_made(config, data, task, data_dir, cli_env,
                                                                          capsys):  # fmt: skip
    """A language model's checkpoint under a classifier trained with only its token embedding loaded and the
    text read by its character tokenizer; under a translation, it ended in a ``KeyError: 'joint'`` traceback."""
    last = trained(cli_env, [*shakespeare_args(data_dir), "--trainer.max_steps=1"])
    before = sorted((cli_env / "runs").iterdir())
    data_path = [f"--data.path={data_dir / data}"] if data else []
    line = refused(capsys, ["fit", "--config", str(CONFIGS / config), *data_path, f"--init_weights={last}"])
    assert line == (
        f"init_weights={str(last)!r} holds a LanguageModelTask, not a {task}: start from a checkpoint of this task "
        f"(a run of its, or one `python -m zoo import` wrote for it)"
    )
    assert sorted((cli_env / "runs").iterdir()) == before


@pytest.mark.parametrize("command", ["fit --init_weights", "validate --ckpt_path"])
def test_a_translation_of_a_joint_vocabulary_read_with_two_is_one_line(command, data_dir, cli_env, capsys):
    """A joint vocabulary's checkpoint with ``--data.joint_vocabulary=false`` ended in ``KeyError: 'src'``."""
    pairs = small_copy(data_dir, "multi30k", cli_env / "pairs", {"train": 64, "validation": 16})
    args = [*TINY_TRANSLATION, f"--data.path={pairs}"]
    last = trained(cli_env, ["fit", *args])
    subcommand, option = command.split()
    line = refused(capsys, [subcommand, *args, f"{option}={last}", "--data.joint_vocabulary=false"])
    assert line == (
        "data.joint_vocabulary=False reads the src and tgt tokenizers, but the checkpoint has the joint tokenizer "
        "(data.joint_vocabulary=True, or another task); give the data settings it was trained with"
    )
    assert len(list((cli_env / "runs").iterdir())) == 1


def test_a_checkpoint_of_the_other_architecture_names_it_alone(data_dir, cli_env, capsys):
    """A recurrent language model's checkpoint under the Transformer's config: ``--init_weights`` said only "none
    of this model's weights", and an evaluation listed nine knobs an RNN does not use before the architecture."""
    rnn = [*shakespeare_args(data_dir), "--model.architecture=rnn", "--trainer.max_steps=1"]
    last = trained(cli_env, rnn)
    transformer = [*shakespeare_args(data_dir), "--trainer.max_steps=1"]
    assert refused(capsys, [*transformer, f"--init_weights={last}"]) == (
        f"init_weights={str(last)!r} holds a network of model.architecture='rnn', not 'transformer': start from a "
        f"checkpoint of this architecture, or set model.architecture to its"
    )
    line = refused(capsys, ["validate", *transformer[1:], f"--ckpt_path={last}"])
    assert line.startswith(
        f"ckpt_path={str(last)!r} was trained with another configuration: model.architecture='transformer' (the "
        f"checkpoint has 'rnn'); "
    ), line
    assert len(list((cli_env / "runs").iterdir())) == 1


def test_an_empty_init_weights_is_refused_where_it_trained_from_scratch(data_dir, cli_env, capsys):
    line = refused(capsys, ["fit", *TINY_TRANSLATION, f"--data.path={data_dir / 'multi30k'}", "--init_weights="])
    assert line == f"init_weights='' names no checkpoint; give one ({OPTIONS['init_weights']})"
    assert not (cli_env / "runs").exists()


def test_every_text_option_of_the_run_commands_is_refused_empty():
    """Each option zoo adds to the run commands that takes text names something, and an empty one names nothing:
    each is one that :data:`zoo.cli.empty_values.OPTIONS` refuses (``--init_weights=`` was not)."""

    class Options:
        def __init__(self) -> None:
            self.text: list[str] = []

        def add_argument(self, flag: str, type=None, **kwargs) -> None:
            self.text += [flag.removeprefix("--")] if type in (str, str | None) else []

    options = Options()
    add_zoo_options(options)
    assert options.text and set(options.text) <= set(OPTIONS), options.text
