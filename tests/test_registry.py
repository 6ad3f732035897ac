"""A registry takes only names a run folder, the CLI and YAML carry as they are, and names both components
that claim one name."""

import pytest

from zoo.registry import Registry


class First:
    pass


class Second:
    pass


@pytest.mark.parametrize("name", ["log/bias", "1e3", "yes", "Off", "two words", "a=b", "", "_x", "Rope"])
def test_a_name_the_cli_yaml_or_a_run_folder_would_change_is_refused(name):
    """``log/bias`` made a run folder inside a folder that does not exist (an error naming runs_dir), ``1e3``
    was read as 1000.0 and ``yes`` as true, so neither could be chosen."""
    with pytest.raises(ValueError) as error:
        Registry("model.pe", "zoo.nn").register(name)
    assert str(error.value).startswith(f"model.pe: {name!r} is not a valid name to register; use lowercase letters")


def test_a_name_registered_twice_names_both_components():
    registry = Registry("model.norm", "zoo.nn")
    registry.register("scalenorm")(First)
    with pytest.raises(ValueError) as error:
        registry.register("scalenorm")(Second)
    assert str(error.value) == (
        f"model.norm: 'scalenorm' is registered twice: by {__name__}.Second, and before by {__name__}.First"
    )
    assert registry.register("scale_norm2")(Second) is Second
