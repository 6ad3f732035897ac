"""A sweep parameter's distribution (``min``/``max`` and the like), checked against W&B's own sweep schema with
messages that name the field and say what is valid: the schema alone says "is not valid under any of the given
schemas" for an ``int_uniform`` bound of 1.5."""

from __future__ import annotations

from collections.abc import Iterator

from zoo.sweep.engine import SweepError, sweeps_engine

BOUNDS = {"exclusiveMinimum": ">", "minimum": ">=", "exclusiveMaximum": "<", "maximum": "<="}


def distribution_names() -> list[str]:
    """W&B's sweep distributions (``beta``, ``categorical``, ``constant``, ``int_uniform``...), sorted."""
    return sorted({name for schema in _parameter_schemas() for name in _distributions_of(schema)})


def check_distribution(spec: dict, where: str) -> None:
    """Raise ``SweepError`` for a parameter whose distribution is unknown, lacks a field, has a field it does not
    read, or has a bound of the wrong type or sign. ``where`` names the parameter (``sweep.yaml: parameters.x``).
    A parameter of ``value`` or ``values`` passes."""
    if "value" in spec or "values" in spec:
        return
    distribution = distribution_of(spec, where)
    names = distribution_names()
    if distribution not in names:
        raise SweepError(f"{where}.distribution={distribution!r} is not valid; choose one of: {', '.join(names)}")
    errors = [_errors(schema, spec) for schema in _parameter_schemas() if distribution in _distributions_of(schema)]
    if all(errors):
        raise SweepError(_message(min(errors, key=len)[0], spec, distribution, where))


def distribution_of(spec: dict, where: str) -> str:
    """The distribution of a parameter with no ``value(s)``: its ``distribution``, or W&B's reading of its bounds
    (two integers are ``int_uniform``, two floats ``uniform``).

    Raises:
        SweepError: bounds that do not say which (an integer and a float), or no bounds and no distribution.
    """
    if spec.get("distribution"):
        return spec["distribution"]
    low, high = spec.get("min"), spec.get("max")
    if low is None and high is None:
        fields = ", ".join(sorted(map(str, spec))) or "no field"
        hint = "distribution: normal, for mu and sigma" if {"mu", "sigma"} & {*spec} else "values: [...]"
        raise SweepError(
            f"{where} has {fields} but no distribution, value or values; name one ({hint}); the distributions: "
            f"{', '.join(distribution_names())}"
        )
    if isinstance(low, int) and isinstance(high, int) and not isinstance(low, bool) and not isinstance(high, bool):
        return "int_uniform"
    if isinstance(low, float) and isinstance(high, float):
        return "uniform"
    raise SweepError(
        f"{where}: min={low!r} and max={high!r} do not say which distribution they bound; give two integers "
        f"(int_uniform), two floats such as 1.0 and 2.5 (uniform), or name it (distribution: uniform)"
    )


def _message(error, spec: dict, distribution: str, where: str) -> str:
    """One line for the first error of the closest schema of ``distribution``."""
    fields = sorted(error.schema.get("properties", {})) if error.validator == "additionalProperties" else []
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in spec]
        return f"{where}: distribution {distribution} needs {' and '.join(missing)}"
    if error.validator == "additionalProperties":
        extra = [name for name in spec if name not in fields]
        return f"{where}.{extra[0]} is not a field of distribution {distribution}; its fields are: {', '.join(fields)}"
    if error.validator in ("type", "format") and error.path:
        name = error.path[-1]
        kind = "an integer" if error.validator_value == "integer" else "a number"
        hint = " (for real values, use distribution: uniform)" if distribution == "int_uniform" else ""
        if error.validator_value == "float":
            kind, hint = "a float", f" (write {spec[name]!r}.0, or use distribution: int_uniform for integers)"
        return f"{where}.{name}={spec[name]!r} is not valid for distribution {distribution}; it must be {kind}{hint}"
    if error.validator in BOUNDS and error.path:  # log_uniform_values: min > 0, its logarithm is drawn
        name = error.path[-1]
        bound = f"{BOUNDS[error.validator]} {error.validator_value}"
        return f"{where}.{name}={spec[name]!r} is not valid for distribution {distribution}; it must be {bound}"
    return f"{where}: {error.message}"


def _errors(schema: dict, spec: dict) -> list:
    import jsonschema

    checker = sweeps_engine().config.schema.format_checker
    return list(jsonschema.Draft7Validator(schema, format_checker=checker).iter_errors(spec))


def _parameter_schemas() -> Iterator[dict]:
    """Each schema a parameter may match in W&B's sweep schema, its ``anyOf`` alternatives flattened."""
    schema = sweeps_engine().config.schema
    definitions = schema.dereferenced_sweep_config_jsonschema["definitions"]
    for reference in schema.sweep_config_jsonschema["definitions"]["parameter"]["anyOf"]:
        definition = definitions[reference["$ref"].rsplit("/", 1)[-1]]
        yield from definition.get("anyOf", [definition])


def _distributions_of(schema: dict) -> list[str]:
    return schema.get("properties", {}).get("distribution", {}).get("enum", [])
