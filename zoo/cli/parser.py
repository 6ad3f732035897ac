"""The parser of ``python -m zoo``: jsonargparse's errors turned into one line that names the field, the value
and what would be valid (``model.dropout='abc' is not valid; it must be a number``)."""

from __future__ import annotations

import os
import sys
import traceback

from jsonargparse import ActionConfigFile
from jsonargparse._actions import _ActionConfigLoad
from jsonargparse._typehints import ActionTypeHint
from lightning.pytorch.cli import LightningArgumentParser

from zoo.cli import library_messages as library
from zoo.cli.command_line import COMMAND_LINE, TRAINING, flag_values
from zoo.cli.config_files import missing_model_and_data
from zoo.cli.knobs import TASKS, accepted_fields, data_modules, field_names, field_owners
from zoo.cli.recorded_values import given_back, unchosen_lines
from zoo.cli.typed_values import CONFIG_FLAGS, replaced_flag
from zoo.cli.unknown_fields import unknown_field_message, unknown_key_message
from zoo.cli.value_errors import (
    _bad_choice,
    _bad_length,
    _bad_type,
    _either,
    _foreign_class,
    _missing_value,
    _unknown_class_help,
    _zoo_classes,
)


class ZooArgumentParser(LightningArgumentParser):
    """Parse errors in a few lines (the field and what is wrong), not the whole usage text."""

    def format_help(self) -> str:
        """The help, with the epilog (the knob table of :func:`zoo.cli.knobs.knob_help`) kept as laid out."""
        epilog, self.epilog = self.epilog, None
        try:
            text = super().format_help()
        finally:
            self.epilog = epilog
        return text if not epilog else f"{text}\n{epilog}\n"

    def parse_args(self, args=None, namespace=None, **kwargs):
        """Parse a command line left to right, refusing a flag that a config file after it would replace
        (:func:`zoo.cli.typed_values.replaced_flag`); it may hold a run's record as flags
        (:func:`zoo.cli.recorded_values.given_back`: a ``wandb agent`` restarting a trial passes its logged config)."""
        action = getattr(self, "_subcommands_action", None)
        if action is None:
            return super().parse_args(args, namespace, **kwargs)
        args = sys.argv[1:] if args is None else list(args)  # the top parser: the whole command line
        unchosen_lines([])  # forget what earlier parses left out
        refusal = replaced_flag(args, tuple(action._name_parser_map), self._reads_files(args))  # reads the files
        if refusal:
            sys.stderr.write(f"zoo: error: {refusal}\n")
            self.exit(2)
        args, facts = given_back(args)
        lines = [f"zoo: left out {', '.join(facts)}: where the run ran, recorded, not a setting"] * bool(facts)
        sys.stderr.write("".join(f"{line}\n" for line in [*unchosen_lines(args), *lines]))
        return super().parse_args(args, namespace, **kwargs)

    def _reads_files(self, args: list[str]):
        """Whether an option of the subcommand in ``args`` takes a config file of its group (``--trainer t.yaml``,
        ``--model m.yaml``, ``--data d.yaml``)."""
        parsers = self._subcommands_action._name_parser_map
        parser = next((parsers[arg] for arg in args if arg in parsers), None)

        def reads_files(option: str) -> bool:
            action = parser._option_string_actions.get(option) if parser is not None else None
            return isinstance(action, (ActionConfigFile, _ActionConfigLoad)) or (
                isinstance(action, ActionTypeHint) and ActionTypeHint.is_subclass_typehint(action)
            )

        return reads_files

    def _fields(self) -> list[str]:
        """The dotted fields of this parser (``trainer.max_steps``, ``seed_everything``), without the dashes."""
        action = getattr(self, "_subcommands_action", None)  # the top parser: the fields of its subcommands
        parsers = [self, *(action._name_parser_map.values() if action is not None else [])]
        return sorted({o[2:] for p in parsers for o in p._option_string_actions if o.startswith("--")})

    def error(self, message: str, ex: Exception | None = None):
        if ex is not None and os.environ.get("ZOO_DEBUG"):  # where the parser refused it, for a contributor
            traceback.print_exception(ex, file=sys.stderr)
        text = str(message)
        choice = (
            _foreign_class("\n".join([text, *_causes(ex)]))
            or _bad_choice(text)
            or _misplaced_fields(text)
            or _unaccepted_option(text, self._fields())
            or _unknown_option(text)
            or _bad_type(text)
            or _bad_length(text)
            or _missing_value(text)
            or _unknown_class_help(text)
            or _missing_model_or_data(text)
        )
        if choice:
            sys.stderr.write(f"zoo: error: {choice}\n")
            self.exit(2)
        lines = [line for line in map(str.strip, text.splitlines()) if line and not line.startswith("Given value")]
        shown = " ".join(lines[:6]) or "the command line is not valid"  # one line, jsonargparse's key and reason
        command = next((a for a in COMMAND_LINE[:1] if a in TRAINING), "fit")
        sys.stderr.write(f"zoo: error: {shown} (python -m zoo {command} --help lists every field and its type)\n")
        self.exit(2)


def _causes(ex: BaseException | None) -> list[str]:
    """The messages of the exceptions that caused ``ex`` (where jsonargparse keeps what was wrong with a
    ``class_path``: ``Import path torch.nn.Linear does not correspond to a subclass of TaskModule``)."""
    found: list[str] = []
    while ex is not None and len(found) < 8:
        ex = ex.__cause__ or ex.__context__
        if ex is not None:
            found.append(str(ex))
    return found


def _missing_model_or_data(message: str) -> str | None:
    """A command with no ``--config`` (nor ``--model`` and ``--data``): which configs there are to pass, and for
    ``validate``, ``test`` and ``predict`` that a checkpoint alone will do (its run's ``config.yaml`` is read:
    :func:`zoo.cli.evaluation_args.with_run_config`)."""
    match = library.MISSING_REQUIRED.search(message)
    if match is None:
        return None
    return missing_model_and_data(match.group(1))


def _configured_class(group: str) -> type | None:
    """The task (``group="model"``) or data module (``"data"``) that this command line configures: the
    last ``class_path`` that a ``--config`` file or a ``--model CLASS`` / ``--data CLASS`` sets, read left to
    right; ``None`` where that is not a class of the zoo's."""
    from zoo.cli.yaml_files import load_yaml

    path = None
    pairs = [(flag.partition("=")[0], flag.partition("=")[2] if "=" in flag else value)
             for flag, value in zip(COMMAND_LINE, [*COMMAND_LINE[1:], ""], strict=False)]  # fmt: skip
    for flag, value in pairs:
        if flag in CONFIG_FLAGS:
            try:
                section = (load_yaml(value) or {}).get(group)
            except (OSError, ValueError, AttributeError):
                continue
            path = section.get("class_path", path) if isinstance(section, dict) else section or path
        elif flag in (f"--{group}", f"--{group}.class_path"):
            path = value
    name = str(path).rpartition(".")[2]
    classes = TASKS if group == "model" else data_modules()
    return next((cls for cls in classes if cls.__name__ == name), None)


def _config_sections(group: str) -> list[dict]:
    """The ``group`` section (``model``, ``data``) of each of this command line's ``--config`` files that has one."""
    from zoo.cli.yaml_files import load_yaml

    sections = []
    for path in flag_values(COMMAND_LINE, "--config"):
        try:
            config = load_yaml(path) or {}
        except (OSError, ValueError):
            continue
        section = config.get(group) if isinstance(config, dict) else None
        sections += [section] if isinstance(section, dict) else []
    return sections


def _misplaced_fields(message: str) -> str | None:
    """The line for a config's ``model`` or ``data`` whose fields sit beside ``class_path`` instead of under
    ``init_args``, or that has fields but no ``class_path``; ``None`` for any other ``message``."""
    match = library.UNKNOWN_OPTION.search(message.strip())
    if match is None:
        return None
    name = match.group(1)
    typed = any(a.startswith(("--model", "--data")) for a in COMMAND_LINE)
    for group in ("model", "data"):
        sections = _config_sections(group)
        named = any("class_path" in section for section in sections)  # a later file may set only init_args
        for section in sections:
            beside = sorted(key for key in section if key not in ("class_path", "init_args", "dict_kwargs"))
            if "class_path" in section and beside and name in ("class_path", *beside):
                return (
                    f"{group}: {', '.join(beside)} sit beside class_path in the config; put them under "
                    f"{group}.init_args ({group}: {{class_path: {section['class_path']}, init_args: "
                    f"{{{beside[0]}: ...}}}})"
                )
            fields = {*section, *(section.get("init_args") or {})}
            if not named and name in fields and not typed:
                kind = "task" if group == "model" else "data module"
                classes = ", ".join(_zoo_classes(group))
                return (
                    f"{group} has no class_path in the config; name its {kind} ({group}: {{class_path: CLASS, "
                    f"init_args: {{{name}: ...}}}}); the {kind}s: {classes}"
                )
    return None


def _config_groups_with(name: str) -> list[str]:
    """The sections (``model``, ``data``) of this command line's ``--config`` files that set the field ``name``,
    under ``init_args`` or beside ``class_path``: where a mistyped field of a config file is reported."""
    return [
        group
        for group in ("model", "data")
        if any(name in {**section, **(section.get("init_args") or {})} for section in _config_sections(group))
    ]


def _unaccepted_option(message: str, options: list[str]) -> str | None:
    """jsonargparse's message for an unknown key outside ``model`` and ``data`` (``trainer.max_step`` in a
    config file, ``--trainer.max_step=3`` on the command line), in one line with the nearest of ``options``
    (the parser's fields: ``trainer.max_steps``, ``seed_everything``)."""
    match = library.SUBCOMMAND_OPTION.search(message.strip())
    if match is None or match.group(1).startswith(("model.", "data.")):
        return None
    return unknown_key_message(match.group(1), options, {group: field_names(group) for group in ("model", "data")})


def _unknown_option(message: str) -> str | None:
    """jsonargparse's message for an unknown model or data field, with the group and the nearest valid names."""
    match = library.UNKNOWN_OPTION.search(message.strip())
    if match is None:
        return None
    name = match.group(1)
    typed = [g for g in ("model", "data") if any(a.startswith(f"--{g}.{name}") for a in COMMAND_LINE)]
    groups = typed or _config_groups_with(name) or ["model"]
    refusing = [g for g in groups if name not in accepted_fields(_configured_class(g) or object)]
    groups = refusing or groups  # --model.max_len=16 --data.max_len=16 where only the model takes max_len
    owners = field_owners(groups[0], name)
    if owners:  # a field of other tasks or data modules than the config's
        return (
            f"{groups[0]}.{name} is not a field of this config's {groups[0]}; it is a field of "
            f"{_either(owners).replace(' or ', ' and ')} only (python -m zoo fit --{groups[0]}.help CLASS lists "
            f"the fields of a class)"
        )
    return unknown_field_message(groups[0], name, {group: field_names(group) for group in ("model", "data")})
