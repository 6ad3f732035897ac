"""The mistakes of a sweep file written from docs/sweeps.md get the key a newcomer meant: ``seed:`` the seed
every shipped sweep varies, ``value: [a, b]`` ``values:``, ``paramters:`` the key it misspells."""

import yaml

from tests.conftest import REPO
from tests.sweep.test_sweep_errors import SHAKESPEARE, run_sweep  # noqa: F401 (a fixture)
from zoo.sweep.spec import SEED_KEY
from zoo.sweep.validate import SEED_FIELDS

SWEEPS = sorted((REPO / "sweeps").glob("*.yaml"))


def test_every_shipped_sweep_seeds_with_the_key_a_mistyped_seed_is_sent_to():
    """The suggestion for ``seed:`` is what the shipped sweeps use (it suggested ``data.seed`` alone)."""
    seeded = [path.name for path in SWEEPS if SEED_KEY in yaml.safe_load(path.read_text())["parameters"]]
    assert SWEEPS and seeded == [path.name for path in SWEEPS]


def test_seed_suggests_the_training_seed_first_and_says_what_each_seeds(run_sweep):  # noqa: F811
    message = run_sweep(parameters={"seed": {"values": [1, 2]}})
    meanings = "; ".join(f"{name}: {text}" for name, text in SEED_FIELDS.items())
    assert message == (
        f"parameter 'seed' is not a field of `zoo fit --config {SHAKESPEARE}`; did you mean seed_everything, "
        f"data.seed? ({meanings})"
    )


def test_a_list_under_value_says_values(run_sweep):  # noqa: F811
    message = run_sweep(parameters={"model.pe": {"value": ["rope", "learned"]}})
    assert message.endswith(
        "is not valid; choose one of: 'none', 'sinusoidal', 'learned', 'rope', 'alibi', 'sinusoidal_concat', 't5'; "
        "value: takes one "
        "value (this list); one trial each is values: ['rope', 'learned']"
    )


def test_a_misspelt_top_level_key_is_named(run_sweep, tmp_path):  # noqa: F811
    """It said ``'parameters' is missing or empty`` without naming ``paramters``."""
    message = run_sweep(paramters={"model.pe": {"values": ["rope"]}})
    assert message == f"{tmp_path / 'sweep.yaml'}: 'paramters' is not a key of a sweep file; did you mean parameters?"
