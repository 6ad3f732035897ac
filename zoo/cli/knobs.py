"""The model knobs of every task, with their types, valid values and defaults, for ``python -m zoo fit --help``
(LightningCLI's subclass mode shows them only under ``--model.help CLASS``)."""

from __future__ import annotations

import importlib
import inspect
import typing

from zoo.tasks import TaskModule


def exported_subclasses(package: str, base: type) -> tuple[type, ...]:
    """The subclasses of ``base`` that ``package`` exports (its ``__all__``), in that order: a new task or data
    module is known to ``--help`` and the typo suggestions once its package exports it."""
    module = importlib.import_module(package)
    found = (getattr(module, name) for name in module.__all__)
    return tuple(cls for cls in found if isinstance(cls, type) and issubclass(cls, base) and cls is not base)


TASKS = exported_subclasses("zoo.tasks", TaskModule)


def _type_text(annotation: object) -> str:
    if typing.get_origin(annotation) is typing.Literal:
        return "{" + ",".join(str(choice) for choice in typing.get_args(annotation)) + "}"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _knobs(cls: type) -> list[tuple[str, str, object]]:
    """``(name, type text, default)`` of the constructor arguments ``cls`` adds to its base."""
    hints = typing.get_type_hints(cls.__init__)
    parameters = inspect.signature(cls.__init__).parameters.values()
    return [
        (p.name, _type_text(hints.get(p.name, p.annotation)), p.default)
        for p in parameters
        if p.name not in ("self", "vocab_size") and p.kind is p.POSITIONAL_OR_KEYWORD
    ]


def _lines(title: str, knobs: list[tuple[str, str, object]], width: int) -> list[str]:
    return [f"  {title}:"] + [
        f"    --model.{name:<20} {kind:<{width}} default: {default}" for name, kind, default in knobs
    ]


def knob_help() -> str:
    """The epilog of ``fit``/``validate``/``test``/``predict --help``: every model knob of every task, its type
    or choices in one column (as wide as the longest list of choices) and its default in the next."""
    sections = {"every task": _knobs(TaskModule)}
    sections |= {f"{task.__module__.rsplit('.', 1)[0]}.{task.__name__}": _knobs(task) for task in TASKS}
    width = max(len(kind) for knobs in sections.values() for _, kind, _ in knobs)
    lines = [
        "model knobs (--model.KNOB=VALUE; the config's model.class_path picks the task;",
        "python -m zoo fit --model.help zoo.tasks.TranslationTask explains each;",
        "the defaults are the classes', and a config file's values replace them):",
    ]
    for title, knobs in sections.items():
        lines += _lines(title, knobs, width)
    return "\n".join(lines)


def data_modules() -> tuple[type, ...]:
    from zoo.data import ZooDataModule

    return exported_subclasses("zoo.data", ZooDataModule)


def field_names(group: str) -> list[str]:
    """Every constructor argument of the tasks (``group="model"``) or data modules (``"data"``), for
    suggestions after a typo."""
    classes = (TaskModule, *TASKS) if group == "model" else data_modules()
    names = {p.name for cls in classes for p in inspect.signature(cls.__init__).parameters.values()}
    return sorted(names - {"self", "kwargs", "args"})


def field_owners(group: str, name: str) -> list[str]:
    """The tasks (``group="model"``) or data modules (``"data"``) that take the field ``name``, by class name;
    every one of them when it is a field of their base."""
    classes = TASKS if group == "model" else data_modules()
    return [cls.__name__ for cls in classes if name in accepted_fields(cls)]


def _init_classes(cls: type):
    """The zoo classes whose ``__init__`` arguments ``cls`` takes, as the CLI reads them: its own, then its
    bases' for as long as each passes its ``**kwargs`` on (a class whose ``__init__`` takes none stops there)."""
    for klass in cls.__mro__:
        if "__init__" not in vars(klass) or not klass.__module__.startswith("zoo."):
            continue
        yield klass
        if not any(p.kind is p.VAR_KEYWORD for p in inspect.signature(klass.__init__).parameters.values()):
            return


def accepted_fields(cls: type) -> set[str]:
    """The constructor arguments of ``cls`` and of the zoo bases it passes its ``**kwargs`` to."""
    names = {p.name for klass in _init_classes(cls) for p in inspect.signature(klass.__init__).parameters.values()}
    return names - {"self", "kwargs", "args"}


def bool_fields(cls: type) -> list[str]:
    """The constructor arguments of ``cls`` and of the bases it passes them to typed ``bool`` (``bias``,
    ``tie_embeddings``, ...)."""
    names = []
    for klass in _init_classes(cls):
        hints = typing.get_type_hints(klass.__init__)
        names += [name for name, hint in hints.items() if hint is bool and name not in names]
    return names
