"""One source of truth for the architecture knobs: the flat ``model.*`` fields of every task, the CLI's check of
a checkpoint's architecture, and run names all derive from :class:`zoo.nn.TransformerConfig`."""

import dataclasses
import inspect
import typing

import pytest

from zoo.cli.knobs import TASKS
from zoo.knobs import TRANSFORMER, name_forms
from zoo.nn import ARCHITECTURE_KNOBS, TransformerConfig
from zoo.registry import ACTIVATIONS, NORMS, POOLINGS, POSITIONAL_ENCODINGS, SCHEDULES
from zoo.tasks import ClassificationTask, TaskModule

CONFIG_FIELDS = {field.name: field for field in dataclasses.fields(TransformerConfig)}


def parameters(cls) -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(cls.__init__).parameters)


def test_every_config_field_is_a_task_knob_with_the_config_default():
    knobs = parameters(TaskModule)
    missing = sorted(set(CONFIG_FIELDS) - set(knobs))
    assert not missing, f"TaskModule.__init__ lacks TransformerConfig fields {missing}"
    for name, field in CONFIG_FIELDS.items():
        assert knobs[name].default == field.default, name


@pytest.mark.parametrize(
    ("cls", "knob", "registry"),
    [
        (TaskModule, "pe", POSITIONAL_ENCODINGS),
        (TaskModule, "norm", NORMS),
        (TaskModule, "activation", ACTIVATIONS),
        (TaskModule, "schedule", SCHEDULES),
        (ClassificationTask, "pooling", POOLINGS),
    ],
)
def test_the_cli_choices_of_a_switch_are_its_registry(cls, knob, registry):
    annotation = typing.get_type_hints(cls.__init__)[knob]
    assert list(typing.get_args(annotation)) == registry.names()
    assert registry.field == f"model.{knob}"


def test_architecture_knobs_are_the_config_fields_but_dropout():
    assert set(ARCHITECTURE_KNOBS) == set(CONFIG_FIELDS) - {"dropout", "activation_dropout", "attention_dropout"}


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.__name__)
def test_a_tasks_architecture_names_its_own_knobs(task):
    knobs = set(parameters(task)) | set(parameters(TaskModule))
    assert set(task.architecture) <= knobs
    assert set(ARCHITECTURE_KNOBS) <= set(task.architecture)


def test_run_name_knobs_are_config_fields():
    assert set(name_forms(TRANSFORMER)) <= set(CONFIG_FIELDS)


def test_every_exported_task_and_data_module_is_known_to_the_help():
    """``--help`` and the typo suggestions read the packages' exports: a new task needs no list of its own."""
    from zoo.cli.knobs import data_modules
    from zoo.data import ClassificationDataModule, LanguageModelDataModule, TranslationDataModule
    from zoo.tasks import ClassificationTask, LanguageModelTask, TranslationTask

    assert set(TASKS) == {ClassificationTask, LanguageModelTask, TranslationTask}
    assert {ClassificationDataModule, LanguageModelDataModule, TranslationDataModule} <= set(data_modules())


def test_a_task_monitoring_a_metric_it_does_not_log_is_refused_when_defined():
    """Its monitor was reported as not logged by sweeps and EarlyStopping, though log_stage logged it."""
    with pytest.raises(TypeError) as error:
        type("LastTokenTask", (TaskModule,), {"monitor": "val_acc"})
    assert str(error.value) == (
        "LastTokenTask.monitor='val_acc' is not a metric it logs (train_loss, lr, tokens_per_sec, grad_norm, "
        "parameters, train_tokens, val_loss); add 'acc' to its evaluation_metrics (now ('loss',)), the metrics its "
        "log_stage logs with a val_ (test_) prefix"
    )
    fixed = type("LastTokenTask", (TaskModule,), {"monitor": "val_acc", "evaluation_metrics": ("loss", "acc")})
    assert fixed.logged_metrics()[-2:] == ["val_loss", "val_acc"]
