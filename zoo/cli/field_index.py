"""The index of the fields of ``fit``, ``validate``, ``test`` and ``predict`` that :mod:`zoo.cli.unknown_fields`
checks a command line against before Lightning is imported, written into the cache by the first run command of
code or libraries it was not written from (:func:`write_index`)."""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

from zoo.cli.parser_only import cli_parser
from zoo.cli.unknown_fields import ZOO, digest, index_path, libraries, load_index


def _class_names(classes) -> list[str]:
    """Every way a command line names each class: ``TranslationTask``, ``zoo.tasks.TranslationTask`` and its
    module's path."""
    names = set()
    for cls in classes:
        package = cls.__module__.rpartition(".")[0]
        names |= {cls.__name__, f"{package}.{cls.__name__}", f"{cls.__module__}.{cls.__name__}"}
    return sorted(names)


def _class_files(classes) -> list[str]:
    """The files (relative to ``zoo/``) of ``classes`` and of their zoo bases: where their fields are written."""
    files = {
        inspect.getsourcefile(klass) for cls in classes for klass in cls.__mro__ if klass.__module__.startswith("zoo.")
    }
    return sorted(Path(file).resolve().relative_to(ZOO).as_posix() for file in files)


def build() -> dict:
    """The index: each command's options (``trainer.max_steps``, ``ckpt_path``), the fields of every task and
    data module, the names of those classes, and the keys a run's record or ``wandb agent`` adds that are no
    field (the full parser leaves them out)."""
    from zoo.cli.knobs import TASKS, data_modules, field_names
    from zoo.cli.recorded_values import RUN_FACTS, WANDB_KEYS
    from zoo.runs.wandb_agent import AGENT_KEYS, AGENT_PREFIXES
    from zoo.tasks import TaskModule

    subcommands = cli_parser()._subcommands_action._name_parser_map
    return {
        "digest": digest(sources := _class_files((TaskModule, *TASKS, *data_modules()))),
        "sources": sources,
        "libraries": libraries(),
        "options": {
            name: sorted(o[2:] for o in sub._option_string_actions if o.startswith("--"))
            for name, sub in subcommands.items()
        },
        "fields": {group: field_names(group) for group in ("model", "data")},
        "classes": {"model": _class_names((TaskModule, *TASKS)), "data": _class_names(data_modules())},
        "ignored_keys": sorted({*AGENT_KEYS, *WANDB_KEYS}),
        "ignored_prefixes": sorted({*AGENT_PREFIXES, *RUN_FACTS}),
    }


def write_index() -> None:
    """Write the index into the cache where none of this code and these libraries is there (atomically: commands
    side by side may write it at once); a cache that cannot be written is no error (the full parser decides)."""
    if load_index() is not None:
        return
    path = index_path()
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part.write_text(json.dumps(build(), indent=1, sort_keys=True) + "\n")
        part.replace(path)
    except OSError:
        part.unlink(missing_ok=True)
