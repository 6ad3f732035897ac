"""A Trainer field typed ``int | float`` reads ``1`` as the integer (one batch), whatever was imported before; one
typed ``list[int] | str | int`` reads a flag's ``1`` as the integer, as a config file's."""

import subprocess
import sys
import typing

from tests.conftest import REPO
from zoo.cli.int_or_float import numbers_first

# W&B's sweep engine imports sklearn.gaussian_process, after which typing hands out Union[float, int, None] for
# Trainer's Optional[Union[int, float]]; the command is parsed in a fresh process so that nothing before it counts
PARSE_AFTER = """
import sklearn.gaussian_process
from zoo.cli.lightning_cli import ZooCLI

class Parsed(ZooCLI):
    def instantiate_classes(self):
        pass

config = Parsed(args={args!r}, run=False).config["trainer"]
print(*(repr(config[key]) for key in {keys!r}))
"""


def test_int_comes_first_in_a_union_and_other_annotations_stay():
    def function(a, b=None, c=None, d=1, e=None, f=None):
        pass

    unions = typing.Union  # what Lightning writes (Optional[Union[...]]), not the a | b that typing leaves alone
    function.__annotations__.update(a=unions[float, int, None], b=unions[float, str, int], c=unions[int, float], d=int)
    function.__annotations__.update(e=unions[list[int], str, int], f=unions[int, bool])
    numbers_first(function)
    numbers_first(function)  # twice is once
    assert typing.get_args(function.__annotations__["a"]) == (int, float, type(None))
    assert typing.get_args(function.__annotations__["b"]) == (int, float, str)
    assert typing.get_args(function.__annotations__["c"]) == (int, float)
    assert function.__annotations__["d"] is int
    assert typing.get_args(function.__annotations__["e"]) == (int, list[int], str)
    assert typing.get_args(function.__annotations__["f"]) == (int, bool)


def test_a_batch_limit_of_one_is_one_batch_after_an_import_that_reorders_typing_unions():
    """``--trainer.devices=1`` was the string ``'1'``, and a batch limit of 1 the float 1.0 (every batch)."""
    args = [
        "--config",
        str(REPO / "configs/decoder_only/tinyshakespeare.yaml"),
        "--trainer.limit_val_batches=1",
        "--trainer.limit_train_batches=0.5",
        "--trainer.gradient_clip_val=1",
        "--trainer.val_check_interval=1",
        "--trainer.devices=1",
    ]
    keys = ["limit_val_batches", "limit_train_batches", "gradient_clip_val", "val_check_interval", "devices"]
    script = PARSE_AFTER.format(args=args, keys=keys)
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["1", "0.5", "1", "1", "1"]
