"""The options and fields of ``fit``, ``validate``, ``test`` and ``predict`` that name a folder, a file or a name,
refused empty before anything runs, in one line that names the field and its default (an empty value names no
folder, file or name). The tools refuse
theirs by one rule (:meth:`zoo.cli.tool_parser.OneLineParser._get_values`); the words are shared
(:func:`zoo.cli.command_line.names_nothing`)."""

from __future__ import annotations

import inspect

from jsonargparse import Namespace

from zoo.cli.command_line import names_nothing, noun
from zoo.runs.checkpoint_file import import_class

RUNS_DIR = "runs"  # --runs_dir's default
WANDB_PROJECT = "zoo"  # --wandb_project's default where $WANDB_PROJECT is not set

# the command's own options that name something, and what each is when not given
OPTIONS = {
    "runs_dir": f"default: {RUNS_DIR}",
    "run_name": "default: made of what differs between runs",
    "wandb_project": f"default: $WANDB_PROJECT, else {WANDB_PROJECT}",
    "ckpt_path": "a .ckpt file written by fit; fit also takes last, to resume",
    "init_weights": "a .ckpt file: a zoo run's, or the one `python -m zoo import` wrote",
}
# what a data or model field whose default is None is when not given
UNSET = {"cache_dir": "default: $ZOO_CACHE or ~/.cache/zoo", "name": "default: none, the data set's own"}


def empty_value_problem(config: Namespace) -> str | None:
    """The line for the first option of :data:`OPTIONS`, or field of the model or the data that names a folder, a
    file or a name (:func:`zoo.cli.command_line.noun`: ``data.path``, ``data.cache_dir``, ``data.name``), whose
    value is ``""`` while its default is not; ``None`` when there is none."""
    for option, hint in OPTIONS.items():
        if config.get(option) == "":
            return names_nothing(f"{option}=''", option, hint)
    for group in ("model", "data"):
        section = config.get(group)
        init_args = section.get("init_args") if isinstance(section, Namespace) else None
        if not isinstance(init_args, Namespace):
            continue
        for field, value in init_args.items():
            if value == "" and noun(field) and (default := _default(section.get("class_path"), field)) != "":
                hint = f"default: {default}" if isinstance(default, str) else UNSET.get(field, "")
                return names_nothing(f"{group}.{field}=''", field, hint)
    return None


def _default(class_path: object, field: str) -> object:
    """The default of ``field`` in the ``__init__`` of the class ``class_path`` or of the first class above it
    that has the parameter (``cache_dir`` of ``TranslationDataModule`` comes through ``**kwargs``);
    ``inspect.Parameter.empty`` where it has none."""
    if not isinstance(class_path, str):
        return inspect.Parameter.empty
    for cls in import_class(class_path).__mro__:
        parameter = inspect.signature(cls.__init__).parameters.get(field)
        if parameter is not None and parameter.kind is not inspect.Parameter.VAR_KEYWORD:
            return parameter.default
    return inspect.Parameter.empty
