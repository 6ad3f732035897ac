"""What may change between two runs of one sweep: the values of a grid or random search may grow, nothing else; each
change refused names the key."""

from __future__ import annotations

import json

from zoo.sweep.spec import SEED_KEY, SweepError
from zoo.sweep.validate import cli_parser, parse


def base_config(command_for) -> dict:
    """The resolved configuration every trial starts from (the sweep's command without its parameters), flat."""
    from zoo.runs.record import flatten
    from zoo.sweep.command import zoo_arguments

    return flatten(parse(cli_parser(), zoo_arguments(command_for({}))).as_dict())


def sweep_definition(config: dict, command_for) -> dict:
    """What makes the trials of a sweep one experiment, as its state records it: the search (``method``,
    ``metric``, ``parameters``) and the resolved configuration every trial starts from (the config file, the
    extra arguments after ``--``; the training budget included, bookkeeping left out), JSON-plain.

    Returns:
        ``{"method": ..., "metric": ..., "parameters": {...}, "base": {dotted key: value}}``.
    """
    from zoo.runs.identity import BUDGET_FIELDS, identity

    flat = base_config(command_for)
    base = {**identity(flat), **{key: flat.get(key) for key in BUDGET_FIELDS}}
    definition = {"method": config["method"], "metric": config.get("metric"), "parameters": config["parameters"]}
    return json.loads(json.dumps({**definition, "base": base}, default=str))


EXTENSIBLE_METHODS = ("grid", "random")  # searches whose trials do not depend on each other's results


def _values_only(then: dict, now: dict) -> bool:
    """Whether two parameter specs differ at most in their list of ``values``."""
    rest = [{key: value for key, value in spec.items() if key != "values"} for spec in (then, now)]
    return (
        isinstance(then, dict)
        and isinstance(now, dict)
        and "values" in then
        and "values" in now
        and (rest[0] == rest[1])
    )


def _one_form(spec: object) -> object:
    """A parameter spec in one spelling: ``value: x`` as ``values: [x]`` (one trial either way) and without
    ``distribution: categorical`` beside its ``values``, which W&B assumes."""
    if isinstance(spec, dict) and "value" in spec and "values" not in spec:
        spec = {**{key: value for key, value in spec.items() if key != "value"}, "values": [spec["value"]]}
    if isinstance(spec, dict) and "values" in spec and spec.get("distribution") == "categorical":
        return {key: value for key, value in spec.items() if key != "distribution"}
    return spec


def _newly_varied(key: str, then: dict, now: dict) -> bool:
    """Whether a parameter that had one value now has several: the names of the trials run so far do not say
    its value (only varied knobs and the seed are in a trial's name), so extending it would rename them; so
    would another single value, which the record would list beside the first."""
    known = {json.dumps(value, sort_keys=True) for value in then["values"]}
    added = any(json.dumps(value, sort_keys=True) not in known for value in now["values"])
    return key != SEED_KEY and len(then["values"]) == 1 and added


def extended(recorded: dict | None, current: dict) -> dict:
    """``current`` (a :func:`sweep_definition`) as the sweep records it after running it beside ``recorded``:
    a grid or random search may list the values of its parameters in another order, add values (more seeds,
    another learning rate) or leave some out, since each trial is named by its values and the others are kept;
    the record lists every value either had, the recorded ones first, and trials are named as by the record
    (a parameter narrowed to one value stays in their names). A parameter that had one value may not get
    more (but for the seed): :func:`definition_changes` names it."""
    if not recorded or recorded.get("method") != current["method"] or current["method"] not in EXTENSIBLE_METHODS:
        return current
    parameters = {key: _one_form(spec) for key, spec in current["parameters"].items()}
    for key, spec in recorded.get("parameters", {}).items():
        now, spec = parameters.get(key), _one_form(spec)
        if now is not None and _values_only(spec, now):
            known = [json.dumps(value, sort_keys=True) for value in spec["values"]]
            added = [value for value in now["values"] if json.dumps(value, sort_keys=True) not in known]
            parameters[key] = {**now, "values": [*spec["values"], *added]}
    return {**current, "parameters": parameters}


def definition_changes(recorded: dict, current: dict) -> list[str]:
    """``field=<now> (the sweep has <then>)`` for each field of two :func:`sweep_definition` results that
    differs (``parameters.model.pe``, ``trainer.max_steps``, ``method``), sorted. The spellings of one setting
    are one (:func:`zoo.runs.identity.identity`: ``limit_train_batches`` unset and ``1.0``, a data folder with
    and without its trailing ``/``), and the ``values`` of a grid or random search may change
    (:func:`extended`)."""
    from zoo.runs.identity import BUDGET_FIELDS, changed_fields, identity, shown

    def flat(definition: dict, form=_one_form) -> dict:
        parameters = {f"parameters.{key}": form(spec) for key, spec in definition.get("parameters", {}).items()}
        search = {key: definition.get(key) for key in ("method", "metric")}
        base = definition.get("base", {})
        budget = {key: base[key] for key in BUDGET_FIELDS if key in base}
        return {**search, **parameters, **identity(base), **budget}

    then, now = flat(recorded), flat(current)
    for key in [key for key in then if key.startswith("parameters.")]:
        if key in now and recorded.get("method") in EXTENSIBLE_METHODS and _values_only(then[key], now[key]):
            if not _newly_varied(key.removeprefix("parameters."), then[key], now[key]):
                now[key] = then[key]
    written = [flat(definition, lambda spec: spec) for definition in (recorded, current)]  # as the files spell them
    return [
        f"{key}={shown(written[1], key)} (the sweep has {shown(written[0], key)})" for key in changed_fields(then, now)
    ]


def check_same_sweep(recorded: dict | None, current: dict, name: str, where) -> None:
    """Refuse to add trials to a sweep recorded with another definition (another sweep file of the same
    ``name``, other extra arguments, another budget): its table would mix two experiments.

    Args:
        recorded: the definition in the sweep's state, or ``None`` for a new sweep (or one recorded before
            definitions were).
        current: :func:`sweep_definition` of this command.
        name: the sweep's name.
        where: the sweep's state file (for the message).

    Raises:
        SweepError: naming the fields that differ, and what to do instead.
    """
    changes = definition_changes(recorded, current) if recorded else []
    if changes:
        more = f" and {len(changes) - 4} more" if len(changes) > 4 else ""
        raise SweepError(
            f"sweep {name!r} in {where} was run with another definition: {', '.join(changes[:4])}{more}; the "
            f"trials of one sweep share one definition: give this one another name (name: in its file) or pass "
            f"another --runs_dir"
        )
