"""Bad input fails before training, in one line naming the field, the value and what is valid, and leaves
no run folder behind; an existing run is never overwritten."""

import json
import re
from pathlib import Path

import pytest
import torch
import yaml

from tests.cli.helpers import CONFIGS, read_run, shakespeare_args, small_copy, whole_configs
from zoo.cli.main import main
from zoo.registry import NORMS, POSITIONAL_ENCODINGS

TRANSLATION = str(CONFIGS / "encoder_decoder" / "multi30k.yaml")


def fails(capsys, args) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "--model.pe=bogus",
            "zoo: error: model.pe='bogus' is not valid; choose one of: 'none', 'sinusoidal', 'learned', 'rope'",
        ),
        (  # the value as typed, its spaces shown
            "--model.pe=none ",
            "zoo: error: model.pe='none ' is not valid; choose one of: 'none', 'sinusoidal', 'learned', 'rope'",
        ),
        (
            "--model.norm=groupnorm",
            "zoo: error: model.norm='groupnorm' is not valid; "
            "choose one of: 'layernorm', 'rmsnorm', 'batchnorm', 'powernorm'",
        ),
        (
            "--model.norm_position=middle",
            "zoo: error: model.norm_position='middle' is not valid; choose one of: 'post', 'pre'",
        ),
        (
            "--model.activation=tanh",
            "zoo: error: model.activation='tanh' is not valid; choose one of: 'relu', 'gelu', 'swiglu'",
        ),
        ("--model.n_heads=7", "zoo: error: model.d_model=256 is not divisible by model.n_heads=7"),
        (
            "--model.schedule=linear",
            "zoo: error: model.schedule='linear' is not valid; choose one of: 'inverse_sqrt', 'cosine', 'constant'",
        ),
        ("--data.src_column=fr", "zoo: error: data.src_column='fr' is not a column of data.path="),
        ("--data.tokenizer=sentencepiece", "zoo: error: data.tokenizer='sentencepiece' is not valid"),
        ("--model.bleu_batches=0", "zoo: error: model.bleu_batches=0 is not valid; it must be an integer >= 1"),
        ("--model.betas=[0.9,1.5]", "zoo: error: model.betas=1.5 is not valid; it must be in [0.0, 1.0)"),
        ("--model.min_lr_ratio=2", "zoo: error: model.min_lr_ratio=2.0 is not valid; it must be in [0.0, 1.0]"),
        ("--model.num_decoder_layers=0", "zoo: error: model.num_decoder_layers=0 is not valid"),
        ("--data.max_tokens=0", "zoo: error: data.max_tokens=0 is not valid; it must be an integer >= 1"),
        ("--model.nheads=4", "zoo: error: model.nheads is not a field; did you mean model.n_heads, model.n_kv_heads?"),
        (
            "--matmul_precision=low",
            "zoo: error: matmul_precision='low' is not valid; choose one of: 'highest', 'high', 'medium'",
        ),
        (
            "--model.activation_dropout=abc",
            "zoo: error: model.activation_dropout='abc' is not valid; it must be a number or null (unset)\n",
        ),
        ("--model.dropout=abc", "zoo: error: model.dropout='abc' is not valid; it must be a number\n"),
        ("--trainer.max_steps=x", "zoo: error: trainer.max_steps='x' is not valid; it must be an integer\n"),
        (  # int | float | None: any number (it said "an integer or a number or null")
            "--trainer.limit_val_batches=abc",
            "zoo: error: trainer.limit_val_batches='abc' is not valid; it must be a number or null (unset)\n",
        ),
        # bool fields: null was read as false (--model.bias=null built a model without biases under the default's
        # identity)
        ("--model.bias=null", "zoo: error: model.bias=null is not valid; it must be true or false\n"),
        ("--model.share_embeddings=null", "zoo: error: model.share_embeddings=null is not valid; it must be true"),
        ("--data.joint_vocabulary=null", "zoo: error: data.joint_vocabulary=null is not valid; it must be true"),
        ("--model.bias=maybe", "zoo: error: model.bias='maybe' is not valid; it must be true or false\n"),
        ("--model.bias=", "zoo: error: model.bias='' is not valid; it must be true or false\n"),
        ("--model.dropout=", "zoo: error: model.dropout='' is not valid; it must be a number\n"),
        ("--model.bias", "zoo: error: --model.bias needs a value (--model.bias=VALUE)"),
        ("--model.betas=[0.9]", "zoo: error: model.betas=[0.9] is not valid; it must be a list of 2 values\n"),
        (  # the CLI sets it from the tokenizer, and replaced a given value silently
            "--model.vocab_size=10",
            "zoo: error: model.vocab_size=10 is not valid: the CLI sets it from the data's tokenizer (8000 tokens "
            "here); leave it out, and set data.vocab_size for the size of a trained tokenizer\n",
        ),
        # a field of another task or data module: it suggested itself ("did you mean model.beam_size?")
        (
            "--model.pooling=mean",
            "zoo: error: model.pooling is not a field of this config's model; it is a field of ClassificationTask "
            "only (python -m zoo fit --model.help CLASS lists the fields of a class)\n",
        ),
        ("--data.block_size=8", "zoo: error: data.block_size is not a field of this config's data; it is a field of "),
        ("--model.src_column=de", "zoo: error: model.src_column is not a field; did you mean data.src_column?\n"),
        # a data field's bad value named model.vocab_size when typed with a space
        ("--data.vocab_size abc", "zoo: error: data.vocab_size='abc' is not valid; it must be an integer\n"),
        ("--trainer.max_steps=1e1", "zoo: error: trainer.max_steps='1e1' is not valid; it must be an integer\n"),
        # Lightning's seed_everything raised a traceback for a seed outside numpy's range; false trained unseeded
        # runs that shared a name ...-sFalse
        *(
            (f"--seed_everything={seed}", f"zoo: error: seed_everything={seed} is not valid; it must be an integer in ")
            for seed in ("-3", "4294967296", "false", "null", "abc")
        ),
        (  # each node's launcher drew its own seed
            "--seed_everything=true --trainer.num_nodes=2",
            "zoo: error: seed_everything=true draws a seed on each of the trainer.num_nodes=2 nodes, which would "
            "seed their ranks apart; give one seed, e.g. --seed_everything=1\n",
        ),
        (  # a page of allocator traceback; deeper, hours of building layers before any message
            "--model.num_encoder_layers=100000000",
            "zoo: error: model.num_encoder_layers=100000000, model.num_decoder_layers=3, model.d_model=256, "
            "model.d_ff=512 make at least ",
        ),
        (
            "--trainer.accelerator=tpu",
            "zoo: error: trainer.accelerator='tpu' needs a package that is not installed: Requirement 'torch_xla",
        ),
    ],
)
def test_bad_knob(override, message, data_dir, cli_env, capsys):
    typed = (
        override.split(" ") if override.count(" ") == 1 and not override.endswith(" ") else [override]
    )  # two words: a value after a space, or two options
    args = ["fit", "--config", TRANSLATION, f"--data.path={data_dir / 'multi30k'}", *typed]
    err = fails(capsys, args)
    assert message in err
    assert not (cli_env / "runs").exists()


@pytest.mark.parametrize(
    "model",
    [
        ["--config", str(CONFIGS / "encoder_decoder" / "recurrent" / "bahdanau.yaml")],  # laid over another, alone
        ["--model", "zoo.tasks.TranslationTask"],
    ],
)
def test_a_run_whose_config_names_no_data_module_is_one_line(model, data_dir, cli_env, capsys):
    """The base ``ZooDataModule`` stood in for the missing data class and said ``zoo: error: `` and nothing more."""
    err = fails(capsys, ["fit", *model, f"--data.path={data_dir / 'multi30k'}", "--trainer.max_steps=1"])
    assert err.startswith("zoo: error: no data module is named") and err.count("\n") == 1, err
    assert "zoo.data.TranslationDataModule" in err and "goes after that one's --config" in err
    assert not (cli_env / "runs").exists()


@pytest.mark.parametrize(("content", "held"), [("", "nothing"), ("- model\n", "a list"), ("just text\n", "a str")])
def test_a_config_file_that_holds_no_fields(content, held, data_dir, cli_env, capsys):
    path = cli_env / "empty.yaml"  # jsonargparse said "Unexpected config: " and nothing more
    path.write_text(content)
    err = fails(capsys, ["fit", "--config", TRANSLATION, "--config", str(path), f"--data.path={data_dir / 'multi30k'}"])
    assert err == (
        f"zoo: error: --config {path} holds {held}, not a mapping of fields (e.g. `model:`, `data:`, `trainer:`); "
        "python -m zoo fit --print_config shows one\n"
    )


@pytest.mark.parametrize(
    ("flag", "name", "classes"),
    [
        ("--model.help", "zoo.tasks.Foo", "zoo.tasks.ClassificationTask, zoo.tasks.LanguageModelTask, zoo.tasks"),
        ("--data.help", "Foo", "zoo.data.ClassificationDataModule, zoo.data.LanguageModelDataModule, zoo.data"),
    ],
)
def test_help_of_an_unknown_class_lists_the_classes(flag, name, classes, cli_env, capsys):
    err = fails(capsys, ["fit", flag, name])
    assert err.startswith(f"zoo: error: {flag}: ") and f"; choose one of: {classes}" in err and err.count("\n") == 1


def test_an_option_without_its_value_before_another_is_named(data_dir, cli_env, capsys):
    args = ["--data.batch_size", "--model.pe=rope"]
    err = fails(capsys, ["fit", "--config", TRANSLATION, f"--data.path={data_dir / 'multi30k'}", *args])
    assert "zoo: error: --data.batch_size needs a value (--data.batch_size=VALUE)" in err


def test_wrong_type_is_named_by_its_own_field_beside_a_similar_name(data_dir, cli_env, capsys):
    args = ["--model.activation_dropout=0.1", "--model.dropout=abc"]
    err = fails(capsys, ["fit", "--config", TRANSLATION, f"--data.path={data_dir / 'multi30k'}", *args])
    assert "zoo: error: model.dropout='abc' is not valid; it must be a number\n" in err


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("--model.temperature=-1", "model.temperature=-1.0 is not valid; it must be >= 0 (0: greedy)"),
        ("--model.top_k=0", "model.top_k=0 is not valid; it must be positive"),
        ("--model.top_p=1.5", "model.top_p=1.5 is not valid; it must be in (0, 1]"),
        ("--model.max_new_tokens=0", "model.max_new_tokens=0 is not valid; it must be an integer >= 1"),
        (  # ignored by char, yet another run configuration (another name, another row in compare)
            "--data.vocab_size=500",
            "data.vocab_size=500 is not used by data.tokenizer='char' (its vocabulary is every character of the "
            "train split); leave data.vocab_size out",
        ),
        ("--data.num_workers=-1", "data.num_workers=-1 is not valid; it must be an integer >= 0 (or null)"),
        ("--data.cache_dir=/proc/x", "data.cache_dir='/proc/x': the tokenizer cache cannot be made there (No such"),
    ],
)
def test_bad_generation_or_data_knob_of_the_language_model(override, message, data_dir, cli_env, capsys):
    assert f"zoo: error: {message}" in fails(capsys, [*shakespeare_args(data_dir), override])
    assert not (cli_env / "runs").exists()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("--trainer.max_steps=-5", "trainer.max_steps=-5 is not valid; it must be a positive number of steps, or -1"),
        (
            "--trainer.val_check_interval=0",
            "trainer.val_check_interval=0 is not valid; it must be a positive number of training batches (steps, but "
            "with trainer.accumulate_grad_batches), a fraction of an epoch in (0, 1] with "
            "trainer.check_val_every_n_epoch set, or a duration DD:HH:MM:SS",
        ),
        (
            "--trainer.limit_val_batches=-1",
            "trainer.limit_val_batches=-1 is not valid; it must be a number of batches (an integer >= 0) or a "
            "fraction of them in [0.0, 1.0]",
        ),
        ("--trainer.limit_train_batches=1.5", "trainer.limit_train_batches=1.5 is not valid; it must be a number"),
        ("--trainer.max_time=abc", "trainer.max_time='abc' is not valid; it must be a duration DD:HH:MM:SS"),
        ("--trainer.val_check_interval=abc", "trainer.val_check_interval='abc' is not valid; it must be a positive"),
        (
            "--trainer.logger=false",  # was silently ignored: the W&B run was made all the same
            "trainer.logger is set by zoo, not from the command line or a config; every run logs to W&B and to its "
            "run record; WANDB_MODE=disabled turns W&B off",
        ),
        ("--trainer.default_root_dir=elsewhere", "trainer.default_root_dir is set by zoo"),
        ("--trainer.devices=abc", "`devices` selected with `CPUAccelerator` should be an int > 0."),
        (
            "--trainer.accumulate_grad_batches=0",
            "trainer.accumulate_grad_batches=0 is not valid; it must be an integer >= 1 (batches per optimiser step)",
        ),
        ("--trainer.accumulate_grad_batches=-1", "trainer.accumulate_grad_batches=-1 is not valid"),
        (
            "--trainer.check_val_every_n_epoch=0",
            "trainer.check_val_every_n_epoch=0 is not valid; it must be an integer >= 1, or null",
        ),
        (
            "--trainer.gradient_clip_val=-1",
            "trainer.gradient_clip_val=-1 is not valid; it must be a number >= 0 (0 or null: no clipping)",
        ),
        (
            "--trainer.precision=BF16-MIXED",
            "trainer.precision='BF16-MIXED' is not valid; choose one of: 64, 32, 16, 'transformer-engine', "
            "'transformer-engine-float16', '16-true', '16-mixed', 'bf16-true', 'bf16-mixed', '32-true', '64-true', "
            "'bf16', or null (unset)",
        ),
        (
            "--trainer.deterministic=foo",
            "trainer.deterministic='foo' is not valid; choose one of: 'warn', or true or false, or null (unset)",
        ),
        (  # it was Lightning's "`MPSAccelerator` can not run on your system since ..." (and for gpu, "No
            # supported gpu backend found!"): an accelerator this Linux machine cannot have, CI or not
            "--trainer.accelerator=mps",
            "trainer.accelerator='mps' is not available on this machine (no such device is visible to torch); "
            "valid here: 'cpu'",
        ),
        # each was taken by Lightning: a "finished" run of no step, no training metric logged, a meaningless
        # minimum, a traceback at the first validation after 250 steps, a note printed before Lightning's error
        (
            "--trainer.max_steps=0",
            "trainer.max_steps=0: fit would train nothing; it must be a positive number of steps, or -1 (no step "
            "limit) (to evaluate a checkpoint without training, use `zoo validate` or `zoo test` with --ckpt_path)",
        ),
        ("--trainer.max_epochs=0", "trainer.max_epochs=0: fit would train nothing"),
        ("--trainer.limit_train_batches=0", "trainer.limit_train_batches=0: fit would train nothing"),
        ("--trainer.limit_train_batches=0.0", "trainer.limit_train_batches=0.0: fit would train nothing"),
        (
            "--trainer.log_every_n_steps=0",
            "trainer.log_every_n_steps=0 is not valid; it must be an integer >= 1 (optimiser steps between logged "
            "training metrics)",
        ),
        ("--trainer.min_steps=-3", "trainer.min_steps=-3 is not valid; it must be an integer >= 0, or null"),
        (
            "--trainer.min_steps=50",
            "trainer.min_steps=50 is above trainer.max_steps=6; it must be at most max_steps",
        ),
        ("--trainer.fast_dev_run=-1", "trainer.fast_dev_run=-1 is not valid; it must be true, false or a number"),
        (
            '--trainer.callbacks=[{"class_path": "lightning.pytorch.callbacks.EarlyStopping", '
            '"init_args": {"monitor": "val_accuracy"}}]',
            "trainer.callbacks: EarlyStopping(monitor='val_accuracy') monitors a metric that LanguageModelTask does "
            "not log; it logs: train_loss, lr, tokens_per_sec, grad_norm, parameters, train_tokens, val_loss, val_ppl, "
            "val_bpc",
        ),
        (
            "--run_name=../elsewhere",
            "run_name='../elsewhere' is not valid; it must be a folder name of at most 200 letters, digits, '.', "
            "'_' and '-'",
        ),
        # Lightning's own words named no valid value (or no field), or blamed runs_dir
        (f"--run_name={'r' * 300}", f"run_name='{'r' * 60}...' is not valid; it must be a folder name of at most 200"),
        ("--trainer.devices=0", "trainer.devices=0 is not valid; it must be a positive number of devices, -1 or "),
        ("--trainer.val_check_interval=nan", "trainer.val_check_interval='nan' is not valid; it must be a positive "),
        (
            "--trainer.val_check_interval=0.5",
            "trainer.val_check_interval=0.5 is a fraction of an epoch, which Lightning takes only with "
            "trainer.check_val_every_n_epoch set",
        ),
        ("--trainer.max_steps=-2", "trainer.max_steps=-2 is not valid; it must be a positive number of steps, or -1"),
    ],
)
def test_bad_trainer_value_or_run_name_stops_in_one_line_and_leaves_no_folder(
    override, message, data_dir, cli_env, capsys
):
    err = fails(capsys, [*shakespeare_args(data_dir), override])
    assert f"zoo: error: {message}" in err and "Traceback" not in err and "fast_dev_run is a smoke" not in err
    assert not (cli_env / "runs").exists() and not (cli_env / "elsewhere").exists()


def test_runs_dir_that_is_a_file(data_dir, cli_env, capsys):
    (cli_env / "afile").write_text("x")
    err = fails(capsys, [*shakespeare_args(data_dir), f"--runs_dir={cli_env / 'afile'}"])
    assert f"zoo: error: runs_dir='{cli_env / 'afile'}': no run folder can be made there (File exists)" in err


def test_token_budget_smaller_than_an_example_is_refused_before_training(data_dir, cli_env, capsys):
    args = ["fit", "--config", TRANSLATION, f"--data.path={data_dir / 'multi30k'}", "--data.max_tokens=20"]
    err = fails(capsys, args)
    assert "zoo: error: data.max_tokens=20 is smaller than the longest example of the 'train' split" in err
    assert not (cli_env / "runs").exists()


def test_missing_data_path(cli_env, capsys):
    err = fails(capsys, ["fit", "--config", TRANSLATION, "--data.path=./no/such/folder"])
    assert "zoo: error: data.path='./no/such/folder' is not a folder" in err


def test_missing_and_empty_split(cli_env, capsys):
    folder = cli_env / "pairs"
    folder.mkdir()
    (folder / "train.jsonl").write_text(json.dumps({"de": "ein Hund", "en": "a dog"}) + "\n")
    err = fails(capsys, ["fit", "--config", TRANSLATION, f"--data.path={folder}"])
    assert f"zoo: error: data.path='{folder}' has no split 'validation'; it has: train" in err
    (folder / "validation.jsonl").write_text("")
    (folder / "test.jsonl").write_text(json.dumps({"de": "ein Hund", "en": "a dog"}) + "\n")
    err = fails(capsys, ["fit", "--config", TRANSLATION, f"--data.path={folder}"])
    assert f"zoo: error: data.path='{folder}': validation.jsonl is empty; every split file needs data" in err


def test_resume_without_a_checkpoint(data_dir, cli_env, capsys):
    err = fails(capsys, ["fit", "--config", TRANSLATION, f"--data.path={data_dir / 'multi30k'}", "--ckpt_path=last"])
    assert "zoo: error: ckpt_path='last': no runs/ed-multi30k-sinusoidal-layernorm-pre-h8-s1-" in err


def test_second_run_never_overwrites_the_first(data_dir, cli_env):
    args = [
        *shakespeare_args(data_dir),
        "--trainer.max_steps=2",
    ]
    main(args)
    main(args)
    names = sorted(p.name for p in (cli_env / "runs").iterdir())
    assert len(names) == 2 and names[1] == names[0] + "-2"
    assert re.fullmatch(r"do-tinyshakespeare-learned-layernorm-pre-h2-s1-[0-9a-f]{6}", names[0])


def test_separate_vocabularies_cannot_share_embeddings(data_dir, cli_env, capsys):
    err = fails(
        capsys,
        [
            "fit",
            "--config",
            TRANSLATION,
            f"--data.path={data_dir / 'multi30k'}",
            "--data.joint_vocabulary=false",
            "--data.vocab_size=500",
        ],
    )
    assert "zoo: error: model.share_embeddings=true needs one vocabulary, but data.joint_vocabulary=false" in err


def test_too_few_classes(data_dir, cli_env, capsys):
    args = ["fit", "--config", str(CONFIGS / "encoder_only" / "sst2.yaml"), f"--data.path={data_dir / 'sst2'}"]
    err = fails(capsys, [*args, "--model.num_classes=1"])
    assert "zoo: error: model.num_classes=1 is not valid; it must be at least 2" in err


def test_learned_positions_shorter_than_the_data(data_dir, cli_env, capsys):
    args = [
        *shakespeare_args(data_dir, tiny=False),
        "--model.max_len=32",
    ]
    err = fails(capsys, args)
    assert (
        "zoo: error: model.max_len=32 is shorter than the 64-token sequences that data.block_size allows, "
        "and model.pe='learned' has no position beyond max_len"
    ) in err


def test_block_size_larger_than_a_split(data_dir, cli_env, capsys):
    args = [
        *shakespeare_args(data_dir, tiny=False),
        "--model.pe=rope",
        "--data.block_size=200000",
    ]
    err = fails(capsys, args)
    assert "zoo: error: the 'validation' split of data.path=" in err and "lower data.block_size" in err


def test_evaluation_needs_a_checkpoint(data_dir, cli_env, capsys):
    for command in ("validate", "test"):
        err = fails(capsys, [command, "--config", TRANSLATION, f"--data.path={data_dir / 'multi30k'}"])
        assert f"zoo: error: {command} needs a trained model: pass --ckpt_path" in err


def test_resume_with_another_architecture_is_refused(data_dir, cli_env, capsys):
    args = [
        *shakespeare_args(data_dir),
        "--trainer.max_steps=2",
    ]
    main(args)
    err = fails(capsys, [*args, "--model.d_ff=128", "--ckpt_path=last"])
    assert "was trained with another configuration: model.d_ff=128 (the run has 64)" in err
    main(["validate", *args[1:], "--ckpt_path=last"])  # `last` finds the run for evaluation too
    record = read_run((cli_env / "runs").iterdir().__next__())
    assert record["summary"]["status"] == "finished"
    assert [line["step"] for line in record["metrics"] if "val_loss" in line] == [2, 2]


@pytest.mark.parametrize("command", ["fit", "validate"])
def test_a_checkpoint_of_another_architecture_names_its_own_config(command, data_dir, cli_env, capsys):
    """An evaluation was told to "start a new run without --ckpt_path", which no evaluation can."""
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2"]
    main(args)
    run_dir = next((cli_env / "runs").iterdir()).resolve()
    last = run_dir / "checkpoints" / "last.ckpt"
    err = fails(capsys, [command, *args[1:], "--model.d_ff=128", f"--ckpt_path={last}"])
    tail = ", or start a new run without --ckpt_path" if command == "fit" else ""
    assert err == (
        f"zoo: error: ckpt_path='{last}' was trained with another configuration: model.d_ff=128 (the checkpoint "
        f"has 64); pass the values it was trained with (--config {run_dir / 'config.yaml'}){tail}\n"
    )


@pytest.mark.parametrize("subcommand", ["fit", "test"])
def test_help_lists_every_knob_and_its_choices(subcommand, capsys):
    with pytest.raises(SystemExit):
        main([subcommand, "--help"])
    out = capsys.readouterr().out
    assert out.startswith(f"usage: python -m zoo [options] {subcommand} ")  # the command to type, not __main__.py
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip().startswith("--model.")}
    assert rows["--model.norm"].split()[1:] == [f"{{{','.join(NORMS.names())}}}", "default:", "layernorm"]
    assert rows["--model.pe"].split()[1] == f"{{{','.join(POSITIONAL_ENCODINGS.names())}}}"
    assert len({row.index("default:") for row in rows.values() if "default:" in row}) == 1  # one column
    for knob in ("num_encoder_layers", "pooling", "label_smoothing", "warmup_steps", "n_heads", "d_ff"):
        assert f"--model.{knob} " in out
    said = " ".join(out.split())  # the defaults listed are the classes', not the config a user will pass
    assert (
        "The defaults below are the classes' own (the task, the data module, Lightning's Trainer), not a config "
        f"file's: --config configs/<variant>/<data>.yaml sets its own values over them, and `python -m zoo "
        f"{subcommand} --config <file> --print_config` shows the values a command runs with."
    ) in said
    assert "the defaults are the classes', and a config file's values replace them):" in said


def test_top_level_help_names_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "fit, validate, test, predict" in out
    assert (
        "sweep, compare, translate, generate, attention, average, cache, import, export "
        "(python -m zoo <command> --help)"
        in out
    )


def test_task_help_shows_the_choices(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--model.help", "zoo.tasks.ClassificationTask"])
    out = capsys.readouterr().out
    assert "--model.pooling {mean,cls,final}" in out and "--model.norm_position {post,pre}" in out


def test_fast_dev_run_leaves_nothing_a_later_command_picks_up(data_dir, cli_env, capsys):
    args = shakespeare_args(data_dir)
    main([*args, "--trainer.fast_dev_run=true"])
    out = capsys.readouterr()
    assert not (cli_env / "runs").exists() and "wandb sync" not in out.out + out.err
    err = fails(capsys, [*args, "--ckpt_path=last"])
    assert "zoo: error: ckpt_path='last': no runs/do-tinyshakespeare-learned-layernorm-pre-h2-s1-" in err


def test_training_without_checkpoints_says_so_in_the_record(data_dir, cli_env, caplog):
    main([*shakespeare_args(data_dir), "--trainer.max_steps=3", "--trainer.enable_checkpointing=false"])
    (run_dir,) = (cli_env / "runs").iterdir()
    summary = read_run(run_dir)["summary"]
    assert (summary["status"], summary["checkpointing"], summary["checkpoints"]) == ("finished", False, {})
    assert "val_loss" in summary["best"] and not (run_dir / "checkpoints").exists()
    # the closing line lists what the folder has
    assert f"zoo: run folder runs/{run_dir.name} (config, metrics.jsonl, summary.json)\n" in caplog.text


def test_a_callback_monitoring_a_logged_metric_trains(data_dir, cli_env):
    stopper = '[{"class_path": "lightning.pytorch.callbacks.EarlyStopping", "init_args": {"monitor": "val_loss"}}]'
    main([*shakespeare_args(data_dir), f"--trainer.callbacks={stopper}"])
    (run_dir,) = (cli_env / "runs").iterdir()
    assert read_run(run_dir)["summary"]["status"] == "finished"


def test_wandb_online_without_an_api_key_fails_before_anything_is_made(data_dir, cli_env, capsys, monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "online")
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    monkeypatch.setenv("NETRC", str(cli_env / "no-netrc"))
    monkeypatch.setenv("HOME", str(cli_env))
    err = fails(capsys, shakespeare_args(data_dir))
    assert "zoo: error: WANDB_MODE=online but no W&B API key is configured: run `wandb login`" in err
    assert len([line for line in err.splitlines() if "wandb" in line.lower()]) == 1
    assert not (cli_env / "runs").exists()


def test_a_file_that_is_not_a_checkpoint_is_one_line(data_dir, cli_env, capsys):
    (cli_env / "random.ckpt").write_bytes(bytes(range(256)) * 4)
    err = fails(capsys, [*shakespeare_args(data_dir), "--ckpt_path=random.ckpt"])
    assert "zoo: error: ckpt_path='random.ckpt' is not a checkpoint (not a file written by torch.save)" in err
    assert "Traceback" not in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
@pytest.mark.parametrize("accelerator", ["gpu", "cuda"])
def test_a_gpu_accelerator_without_a_gpu_is_one_line_that_names_what_is_here(data_dir, cli_env, capsys, accelerator):
    err = fails(capsys, [*shakespeare_args(data_dir), f"--trainer.accelerator={accelerator}", "--trainer.devices=2"])
    assert err.splitlines()[-1] == (
        f"zoo: error: trainer.accelerator={accelerator!r} is not available on this machine (no such device is "
        "visible to torch); valid here: 'cpu', 'auto'"
    )
    assert not (cli_env / "runs").exists() or not any((cli_env / "runs").iterdir())


def test_a_checkpoint_cut_short_is_one_line_and_its_run_is_kept(data_dir, cli_env, capsys):
    """A checkpoint copied while it was being written has the zip file's first bytes but no end record."""
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2"])
    (last,) = (cli_env / "runs").glob("*/checkpoints/last.ckpt")
    runs_before = sorted(path.name for path in (cli_env / "runs").iterdir())
    (cli_env / "cut.ckpt").write_bytes(last.read_bytes()[: last.stat().st_size // 2])
    err = fails(capsys, [*shakespeare_args(data_dir), "--ckpt_path=cut.ckpt"])
    assert "zoo: error: ckpt_path='cut.ckpt' is a damaged or truncated checkpoint (a zip file with no end" in err
    assert "Traceback" not in err and sorted(path.name for path in (cli_env / "runs").iterdir()) == runs_before


def test_checkpoints_load_with_weights_only(data_dir, cli_env):
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2"])
    for checkpoint in (cli_env / "runs").glob("*/checkpoints/*.ckpt"):
        assert torch.load(checkpoint, weights_only=True)["global_step"] == 2


def test_a_yaml_syntax_error_names_the_file_line_and_column(cli_env, capsys):
    (cli_env / "bad.yaml").write_text("model:\n  init_args: {d_model: 32\n   n_heads: [\n")
    err = fails(capsys, ["fit", "--config", "bad.yaml"])
    assert "zoo: error: bad.yaml is not valid YAML: expected ',' or '}', but got ':' at line 3, column 11" in err


def test_a_config_that_is_not_utf8_text_is_one_line(cli_env, capsys):
    """It was a UnicodeDecodeError traceback, for fit and for a sweep file."""
    from zoo.sweep import main as sweep

    (cli_env / "bin.yaml").write_bytes(b"model:\n  \xff\xfe bad\n")
    message = "bin.yaml is not a UTF-8 text file: byte 0xff at position 9 cannot be read; YAML files are UTF-8 text\n"
    assert fails(capsys, ["fit", "--config", "bin.yaml"]) == f"zoo: error: {message}"
    assert sweep(["bin.yaml", "--dry-run"]) == 2 and capsys.readouterr().err == f"zoo sweep: error: {message}"


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "--model.norm_postion=pre",
            "model.norm_postion is not a field; did you mean model.norm_position, model.norm_eps?",
        ),
        ("--data.pth=x", "data.pth is not a field; did you mean data.path?"),
    ],
)
def test_a_typo_in_a_field_suggests_the_nearest(override, message, cli_env, capsys):
    config = str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml")
    assert f"zoo: error: {message}" in fails(capsys, ["fit", "--config", config, override])


def test_a_shortened_key_sets_nothing(cli_env, capsys):
    config = str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml")
    err = fails(capsys, ["fit", "--config", config, "--trainer.max_step=7"])
    assert err == (  # allow_abbrev=False: it is refused, not taken for trainer.max_steps
        "zoo: error: trainer.max_step is not a field; did you mean trainer.max_steps, trainer.max_time, "
        "trainer.min_steps?\n"
    )


@pytest.mark.parametrize(
    ("config", "data", "train", "added"),
    [
        ("decoder_only/tinyshakespeare.yaml", "tinyshakespeare", "train.txt", "Café au lait for the naïve.\n"),
        ("encoder_only/sst2.yaml", "sst2", "train.jsonl", '{"idx": -1, "sentence": "a naïve café ", "label": 1}\n'),
        ("encoder_decoder/multi30k.yaml", "multi30k", "train.jsonl", None),  # German: umlauts on line 1
    ],
)
def test_a_data_file_that_is_not_utf8_is_one_line(config, data, train, added, data_dir, cli_env, capsys):
    folder = cli_env / data
    folder.mkdir()
    lines = (data_dir / data / train).read_text(encoding="utf-8").splitlines(keepends=True)[:200]
    lines[2:2] = [added] if added else []
    (folder / train).write_bytes("".join(lines).encode("latin-1"))  # a file saved by an editor set to Latin-1
    (folder / "validation.txt" if train.endswith(".txt") else folder / "validation.jsonl").write_text(lines[-1])
    number, line = next((n, line) for n, line in enumerate(lines, start=1) if not line.isascii())
    column, char = next((c, ch) for c, ch in enumerate(line, start=1) if not ch.isascii())
    err = fails(capsys, ["fit", "--config", str(CONFIGS / config), f"--data.path={folder}"])
    assert err.splitlines()[-1] == (
        f"zoo: error: data.path='{folder}': {train} is not UTF-8 text (line {number}, column {column}: "
        f"byte 0x{ord(char):02x}); zoo reads data files as UTF-8, so convert it first, e.g. iconv -f latin1 -t utf-8"
    )
    assert "Traceback" not in err and not (cli_env / "runs").exists()


def test_fewer_validation_examples_than_ranks_is_refused_before_training(data_dir, cli_env, capsys):
    folder = small_copy(data_dir, "sst2", cli_env / "sst2", {"train": 200, "validation": 3})
    args = ["fit", "--config", str(CONFIGS / "encoder_only" / "sst2.yaml"), f"--data.path={folder}"]
    ddp = ["--data.vocab_size=300", "--trainer.accelerator=cpu", "--trainer.devices=4", "--trainer.strategy=ddp"]
    err = fails(capsys, [*args, *ddp])
    assert err.splitlines()[-1] == (
        f"zoo: error: the 'validation' split of data.path='{folder}' has 3 examples, fewer than the 4 ranks "
        "(trainer.devices x trainer.num_nodes); every rank needs at least one: use fewer devices or more data"
    )
    assert not (cli_env / "runs").exists()


def test_only_lightnings_own_type_errors_become_one_line():
    from lightning.pytorch.accelerators import CPUAccelerator

    from zoo.cli.lightning_errors import _raised_in_lightning

    with pytest.raises(TypeError) as lightning_error:
        CPUAccelerator.parse_devices("abc")
    with pytest.raises(TypeError) as zoo_error:
        sorted([1, "a"])  # a bug of the zoo's keeps its traceback
    assert _raised_in_lightning(lightning_error.value) and not _raised_in_lightning(zoo_error.value)


def test_a_val_check_interval_beyond_an_epoch_is_refused_before_the_run_folder(data_dir, cli_env, capsys):
    """Lightning refuses it once fit has started, which left a failed run folder behind."""
    args = [*shakespeare_args(data_dir), "--trainer.check_val_every_n_epoch=1", "--trainer.val_check_interval=100000"]
    err = fails(capsys, args)
    assert err.splitlines()[-1].startswith(
        "zoo: error: trainer.val_check_interval=100000 is more than the 1308 training batches of an epoch "
        "(validation is by epoch: trainer.check_val_every_n_epoch=1); lower it, or set "
    )
    assert "Traceback" not in err and not (cli_env / "runs").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--trainer.max_steps", "abc"], "trainer.max_steps='abc' is not valid; it must be an integer"),
        (
            ["--trainer.callbacks+=nowhere.Callback"],
            "trainer.callbacks: class_path 'nowhere.Callback' cannot be imported (No module named 'nowhere')",
        ),
    ],
)
def test_the_message_shows_the_value_that_failed(data_dir, cli_env, capsys, args, message):
    # shakespeare_args sets --trainer.max_steps=6 before: the message must name the later, bad value
    assert f"zoo: error: {message}\n" in fails(capsys, [*shakespeare_args(data_dir), *args])


TASKS = "zoo.tasks.ClassificationTask, zoo.tasks.LanguageModelTask, zoo.tasks.TranslationTask"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (  # it was "model.model=... is not valid; it must be null (unset)"
            ["--model=torch.nn.Linear"],
            f"model.class_path='torch.nn.Linear' is not a zoo task (a subclass of zoo.tasks.TaskModule); "
            f"choose one of: {TASKS}",
        ),
        (
            ["--data=torch.nn.Linear"],
            "data.class_path='torch.nn.Linear' is not a zoo data module (a subclass of zoo.data.ZooDataModule); "
            "choose one of: zoo.data.",
        ),
        (
            ["--model=zoo.tasks.Nope"],
            f"model: class_path 'zoo.tasks.Nope' cannot be imported (module 'zoo.tasks' has no attribute 'Nope'); "
            f"choose one of: {TASKS}",
        ),
    ],
)
def test_a_class_path_that_is_no_zoo_class_names_the_zoo_classes(data_dir, cli_env, capsys, args, message):
    err = fails(capsys, [*shakespeare_args(data_dir), *args])
    assert err.startswith(f"zoo: error: {message}") and len(err.splitlines()) == 1
    assert not (cli_env / "runs").exists()


def test_a_config_file_with_a_foreign_task_names_the_zoo_tasks(data_dir, cli_env, capsys):
    config = cli_env / "foreign.yaml"
    config.write_text("model:\n  class_path: torch.nn.Linear\n  init_args:\n    in_features: 2\n    out_features: 3\n")
    args = shakespeare_args(data_dir)
    err = fails(capsys, [*args[:3], "--config", str(config), *args[3:]])  # flags after it: they would not stand
    assert err == (
        "zoo: error: model.class_path='torch.nn.Linear' is not a zoo task (a subclass of zoo.tasks.TaskModule); "
        f"choose one of: {TASKS}\n"
    )


def test_an_unknown_command_names_every_command_and_the_nearest(cli_env, capsys):
    err = fails(capsys, ["swep", "sweeps/do-pe.yaml"])  # argparse listed only fit, validate, test, predict
    assert err == (
        "zoo: error: 'swep' is not a command; choose one of: fit, validate, test, predict, sweep, compare, "
        "translate, generate, attention, average, cache, import, export; did you mean sweep?\n"
    )


def test_fit_without_a_config_names_the_shipped_ones_and_one_that_downloads_nothing(cli_env, capsys):
    """jsonargparse said "the following arguments are required: fit.data, fit.model"; then the example was
    configs/decoder_only/tinyshakespeare.yaml, whose data.path is a hub id: it failed offline."""
    err = fails(capsys, ["fit"])
    shipped = ", ".join(str(path.relative_to(CONFIGS.parent)) for path in whole_configs())
    assert err == (
        f"zoo: error: fit needs a model and its data: pass --config with a config file ({shipped}), e.g. "
        "`python -m zoo fit --config configs/quickstart.yaml`, or --model CLASS and --data CLASS\n"
    )
    example = yaml.safe_load((CONFIGS / "quickstart.yaml").read_text())["data"]
    assert example["class_path"] == "zoo.data.ReversalDataModule" and "path" not in example["init_args"]


@pytest.mark.parametrize("command", ["validate", "test", "predict"])
def test_an_evaluation_without_a_config_says_a_checkpoint_alone_will_do(command, cli_env, capsys):
    """It said only that it needs --config, while ``validate --ckpt_path X`` alone reads the run's config.yaml."""
    err = fails(capsys, [command])
    shipped = ", ".join(str(path.relative_to(CONFIGS.parent)) for path in whole_configs())
    assert err == (
        f"zoo: error: {command} needs a model and its data: pass a run's checkpoint alone, whose run's config.yaml "
        f"is read (`python -m zoo {command} --ckpt_path runs/<name>/checkpoints/last.ckpt`), or --config with a "
        f"config file ({shipped}) and --ckpt_path, or --model CLASS and --data CLASS\n"
    )


def test_another_tokenizer_size_than_a_run_config_records_names_data_vocab_size(data_dir, cli_env, capsys):
    """A run's config.yaml holds model.vocab_size; evaluating it with another data.vocab_size is the mistake."""
    config = cli_env / "config.yaml"
    config.write_text(Path(TRANSLATION).read_text().replace("  init_args:\n", "  init_args:\n    vocab_size: 500\n", 1))
    args = ["fit", "--config", str(config), f"--data.path={data_dir / 'multi30k'}", "--data.vocab_size=300"]
    assert fails(capsys, args).strip().splitlines()[-1] == (
        "zoo: error: data.vocab_size=300 gives a 300-token tokenizer, but the config has model.vocab_size=500 (a "
        "run's config.yaml records the size it trained with); leave data.vocab_size out to use that run's, or "
        "model.vocab_size out of the config for a new run"
    )
    assert not (cli_env / "runs").exists()


@pytest.mark.parametrize(
    ("budget", "named"),
    [
        (["--trainer.max_steps=-1", "--trainer.max_time=00:00:00:05"], "trainer.max_time='00:00:00:05' alone"),
        (["--trainer.max_steps=-1", "--trainer.max_epochs=-1"], "trainer.max_epochs=-1"),
    ],
)
def test_a_cosine_schedule_needs_a_last_step(budget, named, data_dir, cli_env, capsys):
    """A time budget has no last step to decay to: it was a traceback (float infinity) after the run folder."""
    err = fails(capsys, [*shakespeare_args(data_dir), *budget])  # the config's schedule: cosine
    assert err == (
        f"zoo: error: model.schedule='cosine' decays over the run's steps, but {named} gives no last step; set "
        "trainer.max_steps (or trainer.max_epochs), or use a schedule without an end: inverse_sqrt, constant\n"
    )
    assert not (cli_env / "runs").exists()


def test_a_time_budget_trains_with_a_schedule_without_an_end(data_dir, cli_env):
    budget = ["--trainer.max_steps=-1", "--trainer.max_time=00:00:00:02", "--model.schedule=constant"]
    main([*shakespeare_args(data_dir), *budget, "--run_name=timed"])
    run = read_run(cli_env / "runs" / "timed")
    assert run["summary"]["status"] == "finished"
    last = max(line["step"] for line in run["metrics"] if "train_loss" in line)
    assert any("val_loss" in line and line["step"] == last + 1 for line in run["metrics"])  # validated at its end


def test_a_utf16_data_file_is_named_with_the_conversion_it_needs(data_dir, cli_env, capsys):
    folder = cli_env / "shakespeare"
    folder.mkdir()
    text = (data_dir / "tinyshakespeare" / "validation.txt").read_text(encoding="utf-8")[:3000]
    (folder / "train.txt").write_bytes(text.encode("utf-16"))  # with its byte-order mark, as Windows tools save it
    (folder / "validation.txt").write_text(text)
    err = fails(
        capsys, ["fit", "--config", str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml"), f"--data.path={folder}"]
    )
    assert err.splitlines()[-1].endswith("so convert it first, e.g. iconv -f utf-16 -t utf-8")


def test_a_bug_in_a_component_keeps_its_traceback_and_a_check_can_show_its_own(data_dir, cli_env, capsys, monkeypatch):
    """Every ValueError while the model was built became one line: a new norm's `groups, size = [d_model]`
    was "zoo: error: not enough values to unpack (expected 2, got 1)", with no file or line."""
    from zoo.nn.norm import LayerNorm

    args = [*shakespeare_args(data_dir), "--trainer.max_steps=1"]

    def broken(self, d_model, *rest, **kwargs):
        self.groups, self.size = [d_model]

    with monkeypatch.context() as patched:
        patched.setattr(LayerNorm, "__init__", broken)
        with pytest.raises(ValueError, match=r"not enough values to unpack"):
            main(args)
    assert not (cli_env / "runs").exists()
    monkeypatch.setenv("ZOO_DEBUG", "1")  # a check's message stays one line, after the traceback of its raise
    err = fails(capsys, [*args, "--model.dropout=2"])
    assert err.startswith("Traceback (most recent call last):") and "raise ValueError" in err
    assert err.endswith("zoo: error: model.dropout=2.0 is not valid; it must be in [0, 1)\n")


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        (  # the quickstart's module takes no **kwargs: its base's max_len is no field of it
            ["--data.max_len=16"],
            "zoo: error: data.max_len is not a field of this config's data; it is a field of ClassificationDataModule "
            "and TranslationDataModule only",
        ),
        (  # the model's max_len is valid: the refused one is the data's
            ["--model.pe=learned", "--model.max_len=16", "--data.max_len=16"],
            "zoo: error: data.max_len is not a field of this config's data;",
        ),
        (  # the advice named data.max_len, which this data module cannot set
            ["--model.pe=learned", "--model.max_len=16"],
            "zoo: error: model.max_len=16 is shorter than the 20-token sequences that data.max_length allows, and "
            "model.pe='learned' has no position beyond max_len; raise model.max_len to 20, lower data.max_length, ",
        ),
    ],
)
def test_the_quickstarts_fields_are_its_own(typed, message, cli_env, capsys):
    err = fails(capsys, ["fit", "--config", str(CONFIGS / "quickstart.yaml"), *typed])
    assert err.startswith(message), err
    assert not (cli_env / "runs").exists()


FOREIGN = {
    "a dict": ({"a": 1}, "is not a Lightning checkpoint (no state_dict of weights)"),
    "no weights": ({"state_dict": {}}, "is not a Lightning checkpoint (no state_dict of weights)"),
    "a tensor": (None, "is not a Lightning checkpoint (it holds a Tensor)"),
    "not Lightning's": ({"state_dict": {"w": 1}}, "is not a checkpoint that Lightning wrote (no "),
    "not the zoo's": (
        {"state_dict": {"w": 1}, "pytorch-lightning_version": "2.5", "hyper_parameters": {}},
        "is not a zoo checkpoint (no task class in its hyper_parameters)",
    ),
}


@pytest.mark.parametrize("command", ["fit", "validate", "test", "predict"])
@pytest.mark.parametrize("kind", FOREIGN)
def test_a_file_that_is_no_zoo_checkpoint_is_one_line(command, kind, data_dir, cli_env, capsys):
    """test, validate and predict gave Lightning's KeyError: 'pytorch-lightning_version' (or an AttributeError
    for a tensor); fit said the file held 'weights only', an average to evaluate with validate or test."""
    import torch

    content, reason = FOREIGN[kind]
    path = cli_env / "foreign.ckpt"
    torch.save(torch.zeros(3) if content is None else content, path)
    args = [command, "--config", TRANSLATION, f"--data.path={data_dir / 'multi30k'}", f"--ckpt_path={path}"]
    err = fails(capsys, args)
    assert err == f"zoo: error: ckpt_path={str(path)!r} {reason}" + err.partition(reason)[2], err
    assert err.count("\n") == 1 and not (cli_env / "runs").exists()


def test_zoo_debug_shows_where_the_parser_refused_a_value(data_dir, cli_env, capsys, monkeypatch):
    """The example of docs/configuration.md (a norm that is no choice) printed no traceback under ZOO_DEBUG=1."""
    monkeypatch.setenv("ZOO_DEBUG", "1")
    err = fails(capsys, ["fit", "--config", TRANSLATION, "--model.norm=groupnorm"])
    assert err.startswith("Traceback (most recent call last):"), err
    assert err.endswith("zoo: error: model.norm='groupnorm' is not valid; choose one of: " + err.rpartition("of: ")[2])


@pytest.mark.parametrize(
    ("variant", "task", "data_module"),
    [
        ("encoder_decoder", "ClassificationTask", "TranslationDataModule"),
        ("encoder_only", "LanguageModelTask", "ClassificationDataModule"),
        ("decoder_only", "TranslationTask", "LanguageModelDataModule"),
    ],
)
def test_a_task_on_the_data_of_another_is_one_line_and_leaves_no_folder(
    variant, task, data_module, data_dir, cli_env, capsys
):
    """A classifier on translation data failed at its first batch with ``KeyError: 'tokens'``, and left a run
    folder marked failed."""
    from tests.cli.helpers import FEW_STEPS, TINY_MODEL, VARIANTS

    config, data, extra, _ = VARIANTS[variant]
    args = ["fit", "--config", str(CONFIGS / config), f"--data.path={data_dir / data}", *extra, *FEW_STEPS]
    err = fails(capsys, [*args, "--model", f"zoo.tasks.{task}", *TINY_MODEL])
    assert err.startswith(
        f"zoo: error: model.class_path={task} does not go with data.class_path={data_module}: it trains on "
    )
    assert "TranslationTask with TranslationDataModule" in err and "Traceback" not in err
    assert not (cli_env / "runs").exists() or not any((cli_env / "runs").iterdir())


def test_a_resume_whose_weights_do_not_fit_is_refused_before_the_record_changes(data_dir, cli_env, capsys, tmp_path):
    """Data files that changed since the run (a new character) give its tokenizer another size: the resume failed
    only once fit had started, after the record was rewritten with the other vocabulary and marked failed."""
    import shutil

    data = tmp_path / "shakespeare"
    shutil.copytree(data_dir / "tinyshakespeare", data)
    args = [*shakespeare_args(data_dir), f"--data.path={data}", "--trainer.max_steps=2"]
    main(args)
    (run_dir,) = (cli_env / "runs").iterdir()
    before = {name: (run_dir / name).read_bytes() for name in ("config.yaml", "config.json", "summary.json")}
    with (data / "train.txt").open("a") as file:
        file.write("A line with a character the run never saw: ✨\n")
    err = fails(capsys, [*args, "--ckpt_path=last", "--trainer.max_steps=4"])
    assert "its weights do not fit the network of this command (size mismatch for network.embed.tokens.weight" in err
    assert "changed data files" in err and "Traceback" not in err
    assert {name: (run_dir / name).read_bytes() for name in before} == before
    assert json.loads(before["summary.json"])["status"] == "finished"


SST2_CLASSES = {"class_path": "zoo.tasks.ClassificationTask", "init_args": {"d_model": 32, "n_heads": 2}}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (  # a typo under data in a config file was reported as model.text_colum
            {"model": SST2_CLASSES, "data": {"class_path": "zoo.data.ClassificationDataModule",
                                             "init_args": {"path": "x", "text_colum": "body"}}},
            "data.text_colum is not a field; did you mean data.text_column",
        ),
        (  # jsonargparse said "model.class_path is not a field"
            {"model": {"class_path": "zoo.tasks.ClassificationTask", "d_model": 32, "n_heads": 2}},
            "model: d_model, n_heads sit beside class_path in the config; put them under model.init_args (model: "
            "{class_path: zoo.tasks.ClassificationTask, init_args: {d_model: ...}})",
        ),
        (  # it said "model.text_column is not a field; did you mean data.text_column?"
            {"model": SST2_CLASSES, "data": {"path": "x", "text_column": "body"}},
            "data has no class_path in the config; name its data module (data: {class_path: CLASS, init_args: "
            "{text_column: ...}}); the data modules: zoo.data.ClassificationDataModule,",
        ),
    ],
)  # fmt: skip
def test_a_misplaced_field_in_a_config_file_names_its_section(config, message, cli_env, capsys):
    import yaml

    (cli_env / "mine.yaml").write_text(yaml.safe_dump(config))
    err = fails(capsys, ["fit", "--config", "mine.yaml"])
    assert err.startswith(f"zoo: error: {message}"), err


def test_a_later_config_file_of_init_args_alone_is_no_missing_class_path(cli_env, capsys):
    """A second --config that sets only init_args (the first names the class) is common; its typo is a typo."""
    import yaml

    (cli_env / "override.yaml").write_text(yaml.safe_dump({"model": {"init_args": {"n_head": 2}}}))
    err = fails(capsys, ["fit", "--config", str(CONFIGS / "encoder_only/sst2.yaml"), "--config", "override.yaml"])
    assert err == "zoo: error: model.n_head is not a field; did you mean model.n_heads, model.n_kv_heads?\n"


def test_a_field_given_twice_is_quoted_with_its_last_value(cli_env, capsys):
    """A script's base flags then an override: the message quoted the first, valid, value ('3')."""
    config = ["fit", "--config", str(CONFIGS / "encoder_only/sst2.yaml")]
    for given in (
        ["--model.num_classes", "3", "--model.num_classes=three"],
        ["--model.num_classes=3", "--model.num_classes", "three"],
    ):
        err = fails(capsys, [*config, *given])
        assert err == "zoo: error: model.num_classes='three' is not valid; it must be an integer\n"


@pytest.mark.parametrize("where", ["config file", "command line"])
def test_a_trainer_or_top_level_typo_is_one_line_with_the_nearest_fields(where, cli_env, capsys):
    """It was two lines (Subcommand 'fit' does not accept option 'trainer.max_step', then the --help hint),
    with no suggestion."""
    sst2 = ["fit", "--config", str(CONFIGS / "encoder_only/sst2.yaml")]
    (cli_env / "typo.yaml").write_text("trainer:\n  max_step: 10\n")
    (cli_env / "top.yaml").write_text("seed_everythin: 3\n")
    typos = {"config file": (["--config", "typo.yaml"], ["--config", "top.yaml"]),
             "command line": (["--trainer.max_step=10"], ["--seed_everythin", "3"])}[where]  # fmt: skip
    assert fails(capsys, [*sst2, *typos[0]]) == (
        "zoo: error: trainer.max_step is not a field; did you mean trainer.max_steps, trainer.max_time, "
        "trainer.min_steps?\n"
    )
    assert (
        fails(capsys, [*sst2, *typos[1]])
        == "zoo: error: seed_everythin is not a field; did you mean seed_everything?\n"
    )
