"""The recurrent knobs through the CLI: bad values are one line before training (a mistyped architecture with
the nearest name), --help lists them, and every knob is either shared or one architecture's own."""

import dataclasses
import inspect

import pytest

from tests.cli.helpers import CONFIGS
from zoo.cli.knobs import knob_help
from zoo.cli.main import main
from zoo.knobs import KNOBS, RNN, TRANSFORMER, knobs_of, not_applying
from zoo.nn import TransformerConfig
from zoo.registry import POSITIONAL_ENCODINGS, SCHEDULES
from zoo.tasks import TaskModule, TranslationTask

RNN_CONFIG = str(CONFIGS / "encoder_decoder" / "multi30k-rnn.yaml")
REGISTRIES = {"pe": POSITIONAL_ENCODINGS, "schedule": SCHEDULES}


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("--model.architecture=rnnn", "zoo: error: model.architecture='rnnn' is not valid; choose one of: "),
        ("--model.rnn_cell=lstmm", "zoo: error: model.rnn_cell='lstmm' is not valid; choose one of: "),
        (
            "--model.rnn_attention=bahdanau",
            "zoo: error: model.rnn_attention='bahdanau' is not valid; choose one of: 'none', 'context', 'additive', "
            "'dot', 'general', 'concat'",
        ),
        (
            "--model.input_feeding=true",
            "zoo: error: model.input_feeding=true feeds Luong et al.'s attentional vector; "
            "model.rnn_attention='additive' has none (use dot, general, concat)\n",
        ),
        (
            "--model.teacher_forcing=1.5",
            "zoo: error: model.teacher_forcing=1.5 is not valid; it must be in [0.0, 1.0]\n",
        ),
        (
            "--model.rnn_hidden=0",
            "zoo: error: model.rnn_hidden=0 is not valid; it must be an integer >= 1 (or null)\n",
        ),
    ],
)
def test_a_bad_recurrent_knob_is_one_line_before_training(override, message, data_dir, cli_env, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", "--config", RNN_CONFIG, f"--data.path={data_dir / 'multi30k'}", override])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not (cli_env / "runs").exists()


def test_a_refused_run_keeps_the_users_own_empty_runs_dir(data_dir, cli_env, capsys):
    """A refusal after the run folder was made (the model's own check) removes that folder, and the runs folder
    only where the command made it: the user's own, empty, stays."""
    own = cli_env / "mine"
    own.mkdir()
    with pytest.raises(SystemExit):
        main(["fit", "--config", RNN_CONFIG, f"--data.path={data_dir / 'multi30k'}", "--model.input_feeding=true",
              f"--runs_dir={own}"])  # fmt: skip
    assert "model.input_feeding=true feeds" in capsys.readouterr().err
    assert own.is_dir() and not any(own.iterdir())


def test_an_rnn_ignores_the_transformer_checks():
    """d_model 30 is not divisible by n_heads 8, which only a Transformer has: an RNN of that width is built."""
    task = TranslationTask(vocab_size=50, architecture="rnn", d_model=30, rnn_hidden=20)
    assert task.config is None and task.recurrent.d_embed == 30 and task.recurrent.hidden_size == 20
    with pytest.raises(ValueError, match=r"^model.d_model=30 is not divisible by model.n_heads=8"):
        TranslationTask(vocab_size=50, d_model=30)


def test_help_lists_the_recurrent_knobs():
    text = knob_help()
    for line in ("--model.architecture", "{transformer,rnn}", "--model.rnn_attention", "{lstm,gru}"):
        assert line in text


def test_every_knob_is_shared_or_one_architectures():
    """A new Transformer knob (a field of TransformerConfig) must be declared in zoo.knobs.KNOBS as the
    Transformer's, or an RNN would silently ignore it without saying so; every declared knob is a task's."""
    shared = {"d_model", "dropout"}
    transformer = {field.name for field in dataclasses.fields(TransformerConfig)} - shared
    assert transformer <= set(knobs_of(TRANSFORMER)), transformer - set(knobs_of(TRANSFORMER))
    assert not set(knobs_of(TRANSFORMER)) & set(knobs_of(RNN))
    tasks = (TaskModule, *TaskModule.__subclasses__())
    assert set(KNOBS) <= {name for task in tasks for name in inspect.signature(task.__init__).parameters}
    assert {"architecture", "rnn_cell", "rnn_hidden", "bidirectional"} <= set(TaskModule.architecture)


def test_not_applying_per_task():
    fields = {"pe": "rope", "tie_embeddings": True, "bidirectional": True, "rnn_attention": "dot", "d_model": 8}
    rnn, transformer = {**fields, "architecture": "rnn"}, {**fields, "architecture": "transformer"}
    assert list(not_applying("TranslationTask", rnn)) == ["pe", "tie_embeddings"]
    assert list(not_applying("LanguageModelTask", rnn)) == ["pe", "bidirectional"]
    assert list(not_applying("ClassificationTask", transformer)) == ["bidirectional", "rnn_attention"]
    assert set(not_applying("ClassificationTask", transformer).values()) == {"architecture"}


READ_UNDER = {name: knob.read_under for name, knob in KNOBS.items() if knob.read_under}


@pytest.mark.parametrize(("knob", "other"), list(READ_UNDER.items()))
def test_a_knob_read_under_some_values_of_another_applies_under_those_only(knob, other):
    """``model.rope_theta`` is read by rope only: under sinusoidal it trained nothing (the knob-that-does-not-apply
    rule, as for an architecture's knobs)."""
    name, readers = other
    every = REGISTRIES[name].names()
    assert set(readers) <= set(every)
    for value in every:
        found = not_applying("LanguageModelTask", {name: value, knob: 1.0})
        assert found == ({} if value in readers else {knob: name})
    assert not_applying("LanguageModelTask", {knob: 1.0}) == {}  # an old record without the other knob
    under_rnn = not_applying("LanguageModelTask", {"architecture": "rnn", name: readers[0], knob: 1.0})
    assert under_rnn.get(knob) == ("architecture" if knob in knobs_of(TRANSFORMER) else None)


@pytest.mark.parametrize("bidirectional", ["true", "false"])
def test_a_recurrent_classifier_is_refused_the_first_token_pooling(bidirectional, data_dir, cli_env, capsys):
    """Position 0 of a recurrent encoder's forward direction has read only <bos>: the same vector for every
    sentence (the whole pooled vector when unidirectional), so `cls` is one line naming what works."""
    config = str(CONFIGS / "encoder_only" / "sst2-rnn.yaml")
    args = ["fit", "--config", config, f"--data.path={data_dir / 'sst2'}", "--model.pooling=cls",
            f"--model.bidirectional={bidirectional}"]  # fmt: skip
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith(
        "zoo: error: model.pooling='cls' pools position 0, where a recurrent encoder's forward direction has "
        "read only <bos> (the same vector for every sentence); use model.pooling=final (each direction's final "
        "state) or mean"
    ), err
    assert not (cli_env / "runs").exists()
