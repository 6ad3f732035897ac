"""What a run records of its configuration (``config.yaml``, ``config.json``, W&B's config) given back to the CLI
as a config file or as flags, in each form a person or ``wandb agent`` writes its values, parses to the very
configuration the run had: every model, data and trainer field of every shipped config, and a command that sets
a value of each other kind (tuples, lists, lists of class specs with ``None`` inside, mappings, optional fields,
counts and fractions, floats in any notation, strings that read as numbers)."""

import json

import pytest
import yaml

from tests.cli.helpers import config_args
from tests.conftest import REPO
from zoo.cli.recorded_values import PER_INVOCATION, load_text
from zoo.runs.record import flatten
from zoo.sweep.validate import cli_parser, parse
from zoo.training.session import recorded_forms

CONFIGS = sorted((REPO / "configs").rglob("*.yaml"))
SHAKESPEARE = REPO / "configs" / "decoder_only" / "tinyshakespeare.yaml"
EARLY_STOPPING = {
    "class_path": "lightning.pytorch.callbacks.EarlyStopping",
    "init_args": {"monitor": "val_loss", "patience": 3, "min_delta": 1e-4},
}
# a value of each kind a field takes, over the Tiny Shakespeare config
EVERY_KIND = [
    "--model.betas=[0.8, 0.95]",
    "--model.eps=1e-7",
    "--model.top_k=5",
    "--model.top_p=0.9",
    "--model.activation_dropout=0.05",
    "--model.bias=false",
    f"--trainer.callbacks={json.dumps([EARLY_STOPPING])}",
    "--trainer.max_time={'minutes': 1, 'seconds': 30}",
    "--trainer.devices=[0]",
    "--trainer.limit_train_batches=1.0",
    "--trainer.limit_val_batches=2",
    "--trainer.precision=bf16-mixed",
    "--trainer.gradient_clip_val=null",
    "--trainer.deterministic=warn",
    "--trainer.max_epochs=3",
    "--run_name=1e-3",
    "--checkpoint_every_n_steps=50",
    "--seed_everything=7",
    "--data.seed=3",
]
# a run records the size the data's tokenizer gives (zoo.cli.lightning_cli.ZooCLI.before_fit); parsing alone leaves it 0
VOCAB_SIZE = 65
# what a run records of where it ran, under run. in W&B's config (zoo.runs.devices.run_devices)
DEVICES = {
    "world_size": 1,
    "num_nodes": 1,
    "devices": {"accelerator": "cpu", "count": 1, "names": ["cpu"], "cores": 2, "threads": 1},
    "precision": "32-true",
    "effective_batch": {"unit": "target tokens", "per_device": 767.5, "world_size": 1, "per_step": 767.5},
}
COMMANDS = {str(path.relative_to(REPO / "configs")): config_args(path) for path in CONFIGS}
COMMANDS["every kind of value"] = ["--config", str(SHAKESPEARE), *EVERY_KIND]


@pytest.fixture(scope="module")
def parser():
    return cli_parser()


def strict(value):
    """``value`` with the type of each part, so that 1 and 1.0, True and 1, a tuple and a list differ."""
    if isinstance(value, dict):
        return {key: strict(item) for key, item in value.items() if key not in ("config", "__path__")}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [strict(item) for item in value])
    return (type(value).__name__, value)


def recorded(parser, arguments: list[str]):
    """The namespace a run of ``fit ARGUMENTS`` records, and its three records: config.yaml's text,
    config.json's fields and W&B's config."""
    namespace = parse(parser, ["fit", *arguments])
    namespace.model.init_args.vocab_size = VOCAB_SIZE
    text, flat = recorded_forms(parser._subcommands_action._name_parser_map["fit"], namespace)
    wandb = {**flat, **flatten({"run": DEVICES})}
    return namespace, {"config.yaml": text, "config.json": flat, "wandb": wandb}


def as_flags(record: dict | str, notation: str) -> list[str]:
    """``record`` (flat, or config.yaml's text) as the flags of one notation: ``python`` as ``wandb agent`` writes them
    (``--model.betas=(0.9, 0.98)``, ``--trainer.max_steps=None``), ``json`` (``null``, ``true``, ``[0.9, 0.98]``),
    ``exponent`` (every float as ``1.000000e-03``) and ``separate`` (``--model.lr 0.001``), keys sorted as W&B
    sorts them (``--model.activation`` before ``--model.class_path``)."""
    nested = yaml.safe_load(record) if isinstance(record, str) else record
    flat = flatten({key: value for key, value in nested.items() if key != "ckpt_path"})
    if notation == "separate":
        return [part for key, value in sorted(flat.items()) for part in (f"--{key}", str(value))]
    write = {
        "python": str,
        "json": lambda value: value if isinstance(value, str) else json.dumps(value),
        "exponent": lambda value: f"{value:e}" if isinstance(value, float) else str(value),
    }[notation]
    return [f"--{key}={write(value)}" for key, value in sorted(flat.items())]


def as_file(record: dict | str, form: str, folder) -> str:
    """``record`` written to a file as the run writes it (``config.json``: sorted JSON) or as W&B gives its
    config back (``wandb``: the content of W&B's ``config.yaml``, ``{key: {desc: null, value: V}}``, as JSON,
    which is YAML)."""
    path = folder / f"{form}.{'json' if form == 'config.json' else 'yaml'}"
    if form == "config.json":
        path.write_text(json.dumps(record, indent=2, sort_keys=True))
    elif form == "wandb":
        wrapped = {"wandb_version": 1, **{key: {"desc": None, "value": value} for key, value in record.items()}}
        path.write_text(json.dumps(wrapped, indent=2))
    else:
        path.write_text(record)
    return str(path)


# each record's flag notations: W&B's config in every notation a person or an agent writes a value in
NOTATIONS = {
    "config.yaml": ("python",),
    "config.json": ("python",),
    "wandb": ("python", "json", "exponent", "separate"),
}


@pytest.mark.parametrize("command", list(COMMANDS), ids=list(COMMANDS))
def test_records_given_back_as_files_and_flags_parse_to_the_run(command, parser, tmp_path):
    namespace, records = recorded(parser, COMMANDS[command])
    expected = strict(namespace.as_dict())
    # what one command did (run_name: the folder it wrote) is not recorded (zoo.cli.recorded_values)
    expected = {**expected, **{field: strict(None) for field in PER_INVOCATION if field in expected}}
    for form, notations in NOTATIONS.items():
        given = ["fit", "--config", as_file(records[form], form, tmp_path)]
        assert strict(parse(parser, given).as_dict()) == expected, (form, "file")
        for notation in notations:
            given = ["fit", *as_flags(records[form], notation)]
            assert strict(parse(parser, given).as_dict()) == expected, (form, notation)


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("(0.9, 0.98)", [0.9, 0.98]),
        ("[0.9, 0.98]", [0.9, 0.98]),
        ("None", None),
        ("True", True),
        ("1e-3", 0.001),
        ("[None, (1, 2)]", [None, [1, 2]]),
        ("{'a': None, 'b': (1,)}", {"a": None, "b": [1]}),
        ("abc", "abc"),
        ("'None'", "None"),
        ("2024-01-01", "2024-01-01"),  # YAML would read a date: jsonargparse's YAML does not
    ],
)
def test_a_value_reads_as_python_and_yaml_write_it(typed, value):
    assert load_text(typed) == value


def test_a_flat_record_file_is_the_nested_config_it_stands_for():
    flat = {"model.class_path": "T", "model.lr": 0.1, "trainer.max_time.minutes": 1, "run.world_size": 2, "_wandb": {}}
    assert load_text(json.dumps(flat), path="config.json") == {
        "model": {"class_path": "T", "init_args": {"lr": 0.1}},
        "trainer": {"max_time": {"minutes": 1}},
    }


def test_a_value_is_not_taken_for_a_record():
    assert load_text(json.dumps({"model.lr": 0.1})) == {"model.lr": 0.1}  # a flag's mapping keeps its keys
