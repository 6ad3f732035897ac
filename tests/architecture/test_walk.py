"""docs/architecture.md's walk of ``--model.pe=rope`` from the command line to the positional encoding: at most 10
files, each one that building the model really goes through."""

import re
import sys
from pathlib import Path

from tests.conftest import REPO

HEADING = "## `fit --config configs/decoder_only/tinyshakespeare.yaml --model.pe=rope`"
STEP = re.compile(r"^\d+\. `(zoo/[\w/]+\.py)`", re.M)


def walk() -> list[str]:
    """The files of the walk's numbered steps, in their order."""
    text = (REPO / "docs" / "architecture.md").read_text()
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    return STEP.findall(section)


def test_the_walk_names_at_most_10_files_each_once_and_each_there():
    files = walk()
    assert 3 <= len(files) <= 10, files
    assert len(set(files)) == len(files), files
    assert all((REPO / file).is_file() for file in files), files


def test_the_command_line_steps_hand_on_to_the_next_file():
    """The first three steps, each of which calls into the next."""
    files = walk()
    assert files[:3] == ["zoo/__main__.py", "zoo/cli/main.py", "zoo/cli/lightning_cli.py"]
    assert "from zoo.cli.main import main" in (REPO / files[0]).read_text()
    assert "ZooCLI(" in (REPO / files[1]).read_text()
    cli = (REPO / files[2]).read_text()
    assert "TaskModule,\n" in cli and "subclass_mode_model=True" in cli


def test_building_the_task_goes_through_every_model_file_of_the_walk_and_ends_at_rope():
    from zoo.nn.positional import RotaryPositionalEncoding
    from zoo.tasks import LanguageModelTask

    visited: set[Path] = set()

    def profile(frame, event, arg) -> None:
        if event == "call":
            visited.add(Path(frame.f_code.co_filename).resolve())

    sys.setprofile(profile)
    try:
        task = LanguageModelTask(vocab_size=65, pe="rope", d_model=32, n_heads=4, d_ff=64, num_layers=1, max_len=16)
    finally:
        sys.setprofile(None)
    model_files = walk()[3:]  # from the task on
    assert model_files[-1] == "zoo/nn/positional.py"
    assert not {REPO / file for file in model_files} - visited
    assert isinstance(task.network.embed.pe, RotaryPositionalEncoding)
