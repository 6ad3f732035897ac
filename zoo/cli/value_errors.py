"""The parser's one-line errors for a bad value: a type, a choice, a tuple's length, a class that is not the zoo's;
each names the field, the value and what is valid."""

from __future__ import annotations

from zoo.cli import library_messages as library
from zoo.cli.command_line import COMMAND_LINE
from zoo.cli.config_checks import VALID_SEED
from zoo.cli.knobs import field_names
from zoo.messages import meant

# the Literal options of the command itself, not of the model
TOP_LEVEL_CHOICES = ("nonfinite_loss", "matmul_precision")


_TYPE_WORDS = {
    "float": "a number",
    "int": "an integer",
    "str": "a string",
    "bool": "true or false",
    "NoneType": "null (unset)",
    "PositiveInt": "a positive integer",  # jsonargparse.typing's restricted types
    "NonNegativeInt": "an integer >= 0",
}


def _typed(key: str) -> tuple[str, str | None]:
    """The field a parser key (``dropout``) is, as typed on the command line (``model.dropout``), and the
    value typed there (``None`` when it came from a config file)."""
    args = [*COMMAND_LINE, "--"]
    named = [  # in command-line order, the last one counting: --model.num_classes 3 --model.num_classes=three
        a.split("=", 1) if "=" in a else [a, after]  # --data.vocab_size=abc, --data.vocab_size abc
        for a, after in zip(args, args[1:], strict=False)
        if a.startswith("--") and _names(a.split("=")[0].lstrip("-"), key)
    ]
    if named:
        return named[-1][0].lstrip("-"), named[-1][1]
    if "." in key or key in ("model", "data") or key not in {*field_names("model"), *field_names("data")}:
        return key, None  # a top-level option (keep_last) is its own field
    group = "data" if key in field_names("data") and key not in field_names("model") else "model"
    return f"{group}.{key}", None


def _bad_length(message: str) -> str | None:
    """jsonargparse's message for a tuple of the wrong length (``--model.betas=[0.9]``), in one line."""
    match = library.LENGTH_ERROR.search(message.strip())
    if match is None:
        return None
    field, _ = _typed(match.group(1))
    value = match.group(3).strip().splitlines()[0]
    return f"{field}={value} is not valid; it must be a list of {match.group(2)} values"


def _zoo_classes(group: str) -> list[str]:
    """The importable names of the zoo's tasks (``group="model"``) or data modules (``"data"``)."""
    from zoo.data import ZooDataModule
    from zoo.tasks import TaskModule

    base = TaskModule if group == "model" else ZooDataModule
    return sorted(f"{c.__module__.rsplit('.', 1)[0]}.{c.__name__}" for c in _subclasses(base))


def _foreign_class(message: str) -> str | None:
    """A ``model`` or ``data`` ``class_path`` that imports but is no zoo task or data module
    (``model: {class_path: torch.nn.Linear}``): the value, and the classes there are."""
    match = library.FOREIGN_CLASS.search(message)
    if match is None:
        return None
    group = "model" if match.group(2) == "TaskModule" else "data"
    kind = {
        "model": "a zoo task (a subclass of zoo.tasks.TaskModule)",
        "data": "a zoo data module (a subclass of zoo.data.ZooDataModule)",
    }[group]
    return f"{group}.class_path={match.group(1)!r} is not {kind}; choose one of: {', '.join(_zoo_classes(group))}"


def _unknown_class_help(message: str) -> str | None:
    """``--model.help NAME`` of a class that is not there: the message, and the classes there are."""
    match = library.CLASS_HELP.search(message.strip())
    if match is None:
        return None
    return (
        f"--{match.group(1)}.help: {match.group(2).strip()}; choose one of: {', '.join(_zoo_classes(match.group(1)))}"
    )


def _subclasses(cls: type) -> list[type]:
    return [sub for direct in cls.__subclasses__() for sub in (direct, *_subclasses(direct))]


def _bad_type(message: str) -> str | None:
    """jsonargparse's message for a value of the wrong type (``--model.dropout=abc``; several lines for a
    field that may also be unset), as one line with the field, the value and what is valid."""
    match = library.TYPE_ERROR.search(message.strip())
    if match is None:
        return None
    field, typed = _typed(match.group(1))
    got = library.GIVEN_VALUE.search(message.strip()) or library.RESTRICTED_VALUE.search(message)
    value = typed if typed is not None else got.group(1).strip() if got else ""  # as typed: 1e1, not 10.0
    if typed is None and not value:  # no value in the message
        value = "?"
    problem = library.CLASS_PATH_PROBLEM.search(message)
    if problem:  # a class that cannot be imported (--trainer.callbacks+=foo.Bar)
        why = f"{field}: class_path {problem.group(1)!r} cannot be imported ({problem.group(2).strip()})"
        return why + (f"; choose one of: {', '.join(_zoo_classes(field))}" if field in ("model", "data") else "")
    if field == "seed_everything":  # its type allows false, which zoo refuses
        return f"seed_everything={value} is not valid; {VALID_SEED}"
    return f"{field}={value!r} is not valid; {_valid_values(message)}"


def _either(words: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 2 else words)


def _valid_values(message: str) -> str:
    """What a type error's field accepts: the values of its ``Literal`` subtypes where it has some
    (``trainer.precision``: ``Literal[64, 32, 16] | Literal['16-mixed', ...] | ... | None``), otherwise its
    types in words (``it must be a number or null (unset)``)."""
    subtypes = library.SUBTYPES.search(message)
    literals = library.LITERAL_IN.findall(subtypes.group(1)) if subtypes else []
    classes = library.CLASS_IN.findall(subtypes.group(1) if subtypes else message)
    if not literals:
        kinds = list(dict.fromkeys(_TYPE_WORDS.get(t, t) for t in library.EXPECTED_CLASS.findall(message)))
        if "a number" in kinds and "an integer" in kinds:  # int | float: any number
            kinds.remove("an integer")
        return f"it must be {_either(kinds)}"
    choices: dict[str, str] = {}  # 16 and '16' once
    for value in (v.strip() for group in literals for v in group.split(",")):
        choices.setdefault(value.strip("'\""), value)
    others = [_TYPE_WORDS.get(t, t) for t in dict.fromkeys(classes)]
    return f"choose one of: {', '.join(choices.values())}" + "".join(f", or {o}" for o in others)


def _missing_value(message: str) -> str | None:
    """argparse's message for an option given without its value (``--model.bias`` at the end of the command,
    or followed by another option), which names only the group (``--model``): the option as typed."""
    match = library.MISSING_VALUE.search(message.strip())
    if match is None:
        return None
    group, args = match.group(1), [*COMMAND_LINE, "--"]
    bare = [
        a.lstrip("-")
        for a, after in zip(args, args[1:], strict=False)
        if (a == f"--{group}" or a.startswith(f"--{group}.")) and "=" not in a and after.startswith("--")
    ]
    option = bare[-1] if bare else group
    return f"--{option} needs a value (--{option}=VALUE); python -m zoo fit --help lists every field and its type"


def _names(option: str, key: str) -> bool:
    """Whether the command-line option ``option`` (``model.dropout``) sets the parser key ``key`` (``dropout``)."""
    return option == key or option.endswith(f".{key}")


def _bad_choice(message: str) -> str | None:
    """jsonargparse's message for a value outside a ``Literal`` knob, in the project's one-line form (the
    ``Literal`` knobs are the model's: pe, norm, norm_position, activation, schedule, pooling)."""
    match = library.LITERAL_ERROR.search(message.rstrip("\r\n"))  # the value last, with its own spaces ('none ')
    if match is None:
        return None
    key, choices, value = match.groups()
    field = key if key in TOP_LEVEL_CHOICES else f"model.{key}"
    valid = [choice.strip().strip("'\"") for choice in choices.split(",")]
    return f"{field}={value!r} is not valid; choose one of: {choices}{meant(field, value, valid)}"
