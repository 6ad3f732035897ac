"""Every shipped config parses through the CLI without data: ``fit --config FILE --print_config`` prints a
config that parses back to the same fields. (Every sweep file's command and parameter values go through the
same parser in ``tests/sweep/test_shipped_sweeps.py``, by ``zoo sweep --dry-run``.)"""

import pytest
import yaml

from tests.cli.helpers import LAID_OVER, config_args
from tests.conftest import REPO
from zoo.cli.config_files import shipped_configs
from zoo.cli.main import main
from zoo.runs.record import flatten
from zoo.sweep.validate import cli_parser, parse

CONFIGS = sorted((REPO / "configs").rglob("*.yaml"))


def fields(arguments: list[str]) -> dict:
    flat = flatten(parse(cli_parser(), arguments).as_dict())
    return {key: value for key, value in flat.items() if key != "config"}




def test_every_config_without_data_is_laid_over_a_base():
    """A file that names no data is only read over another config: it is listed in :data:`LAID_OVER`, and
    ``fit``'s list of configs to start from leaves it out."""
    partial = {path for path in CONFIGS if "data" not in (yaml.safe_load(path.read_text()) or {})}
    assert partial == {path for path in CONFIGS if path.parent in LAID_OVER}
    whole = {str(path.relative_to(REPO)) for path in CONFIGS if path not in partial}
    assert set(shipped_configs(whole=True)) == whole and set(shipped_configs()) >= whole


@pytest.mark.parametrize("path", CONFIGS, ids=[str(path.relative_to(REPO / "configs")) for path in CONFIGS])
def test_config_prints_and_parses_back(path, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main(["fit", *config_args(path), "--print_config"])
    assert exit_.value.code in (0, None)
    printed = tmp_path / "printed.yaml"
    printed.write_text(capsys.readouterr().out)
    original = fields(["fit", *config_args(path)])
    assert original["model.class_path"].startswith("zoo.tasks.")
    assert fields(["fit", "--config", str(printed)]) == original
