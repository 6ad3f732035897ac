"""Each wording of jsonargparse's and argparse's messages that zoo reads (zoo/cli/library_messages.py), made by
the installed libraries: a release that rewords one fails here, not silently in a user's one-line error."""

import argparse

import pytest
import yaml

from tests.cli.helpers import CONFIGS
from zoo.cli import library_messages as library
from zoo.cli.command_line import COMMAND_LINE
from zoo.cli.parser import ZooArgumentParser
from zoo.cli.parser_only import cli_parser
from zoo.cli.tool_parser import Count, OneLineParser

QUICKSTART = str(CONFIGS / "quickstart.yaml")


@pytest.fixture(scope="module")
def parser():
    return cli_parser()


def message_of(parser, args: list[str], monkeypatch) -> str:
    """The message jsonargparse (or argparse under it) gives ``parser.error`` for ``args``."""
    said = []

    def error(self, message, ex=None):
        said.append(str(message))
        raise SystemExit(2)

    monkeypatch.setattr(ZooArgumentParser, "error", error)
    COMMAND_LINE[:] = args
    with pytest.raises(SystemExit):
        parser.parse_args(args)
    return said[0]


def config_file(tmp_path, content: dict) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(content))
    return str(path)


def test_a_missing_model_and_data(parser, monkeypatch):
    message = message_of(parser, ["fit"], monkeypatch)
    assert library.MISSING_REQUIRED.search(message).group(1) == "fit"


def test_an_unknown_key_of_a_class_and_of_the_subcommand(parser, monkeypatch, tmp_path):
    model = config_file(tmp_path, {"model": {"init_args": {"d_modle": 3}}})
    message = message_of(parser, ["fit", "-c", QUICKSTART, "-c", model], monkeypatch)
    assert library.UNKNOWN_OPTION.search(message)[1] == "d_modle"
    trainer = config_file(tmp_path, {"trainer": {"max_step": 3}})
    in_file = message_of(parser, ["fit", "-c", QUICKSTART, "-c", trainer], monkeypatch)
    typed = message_of(parser, ["fit", "-c", QUICKSTART, "--trainer.max_step=3"], monkeypatch)
    assert [library.SUBCOMMAND_OPTION.search(m)[1] for m in (in_file, typed)] == ["trainer.max_step"] * 2
    assert library.UNRECOGNIZED.match(typed)[1] == "--trainer.max_step=3"


def test_a_value_outside_a_literal_and_one_of_the_wrong_type_or_length(parser, monkeypatch):
    literal = message_of(parser, ["fit", "-c", QUICKSTART, "--model.pe=rotary"], monkeypatch)
    key, choices, value = library.LITERAL_ERROR.search(literal).groups()
    assert (key, value) == ("pe", "rotary") and "'rope'" in choices
    typed = message_of(parser, ["fit", "-c", QUICKSTART, "--model.dropout=abc"], monkeypatch)
    assert library.TYPE_ERROR.search(typed)[1] == "dropout" and library.GIVEN_VALUE.search(typed)[1] == "abc"
    assert library.EXPECTED_CLASS.findall(typed) == ["float"]
    length = message_of(parser, ["fit", "-c", QUICKSTART, "--model.betas=[0.9]"], monkeypatch)
    assert library.LENGTH_ERROR.search(length).groups() == ("betas", "2", "[0.9]")


def test_a_union_names_its_subtypes(parser, monkeypatch):
    message = message_of(parser, ["fit", "-c", QUICKSTART, "--trainer.precision=17"], monkeypatch)
    assert library.TYPE_ERROR.search(message)[1] == "trainer.precision"
    subtypes = library.SUBTYPES.search(message)[1]
    assert library.LITERAL_IN.findall(subtypes)[0] == "64, 32, 16"
    assert library.CLASS_IN.findall(subtypes) == ["NoneType"]


def test_a_class_path_that_does_not_import_or_is_no_zoo_task(parser, monkeypatch, tmp_path):
    message = message_of(parser, ["fit", "-c", QUICKSTART, "--trainer.callbacks+=foo.Bar"], monkeypatch)
    assert library.CLASS_PATH_PROBLEM.search(message).groups() == ("foo.Bar", "No module named 'foo'")
    foreign = config_file(tmp_path, {"model": {"class_path": "torch.nn.Linear"}})
    message = message_of(parser, ["fit", "-c", QUICKSTART, "-c", foreign], monkeypatch)
    assert library.FOREIGN_CLASS.search(message).groups() == ("torch.nn.Linear", "TaskModule")
    assert library.CLASS_HELP.search(message_of(parser, ["fit", "--model.help", "Nope"], monkeypatch))[1] == "model"


def test_an_option_without_its_value(parser, monkeypatch):
    message = message_of(parser, ["fit", "-c", QUICKSTART, "--model.bias"], monkeypatch)
    assert library.MISSING_VALUE.search(message)[1] == "model"


def test_argparses_invalid_choice():
    class Told(argparse.ArgumentParser):
        def error(self, message):
            raise LookupError(message)

    told = Told()
    told.add_argument("action", choices=["list", "show"])
    with pytest.raises(LookupError) as error:
        told.parse_args(["lst"])
    assert library.INVALID_CHOICE.match(str(error.value)).groups() == ("action", "lst")


def test_a_tools_bad_number_restricted_count_and_missing_option():
    """The messages of a tool's parser (jsonargparse's, as fit's): a number that is no number, a count outside
    its bounds, a required option left out, a --config that is no mapping, no file, or holds an unknown key."""
    said = []

    class Told(OneLineParser):
        def error(self, message, ex=None):
            said.append(str(message))
            raise LookupError(message)

    told = Told()
    told.add_argument("--top_p", type=float)
    told.add_argument("--beam_size", type=Count)
    told.add_argument("--ckpt_path", required=True)
    cases = [["--ckpt_path=x", "--top_p=abc"], ["--ckpt_path=x", "--beam_size", "0"], [],
             ["--ckpt_path=x", "--config", "[a]"], ["--ckpt_path=x", "--config", "missing.yaml"],
             ["--ckpt_path=x", "--config", "{top_pp: 1}"]]  # fmt: skip
    for args in cases:
        with pytest.raises(LookupError):
            told.parse_args(args)
    number, count, required, no_mapping, no_file, unknown = said
    assert library.UNEXPECTED_CONFIG.match(no_mapping) and library.UNKNOWN_OPTION.match(unknown)[1] == "top_pp"
    key, reason = library.PARSER_KEY.match(no_file).groups()
    assert key == "config" and reason.startswith("File does not exist: ") and reason.endswith("missing.yaml'")
    assert library.TYPE_ERROR.search(number)[1] == "top_p" and library.EXPECTED_CLASS.findall(number) == ["float"]
    assert library.RESTRICTION.search(count).groups() == ("Count", "0", "v>0 and v<=2147483647")
    assert library.BOUND.findall(count) == [(">", "0"), ("<=", "2147483647")]
    assert library.REQUIRED.match(required)[1] == "ckpt_path"


def test_a_value_outside_a_restricted_type(parser, monkeypatch):
    """zoo's options typed with jsonargparse's restricted types (``--keep_last``: ``NonNegativeInt``)."""
    alone = message_of(parser, ["fit", "-c", QUICKSTART, "--keep_last=-1"], monkeypatch)
    in_union = message_of(parser, ["fit", "-c", QUICKSTART, "--checkpoint_every_n_steps=0"], monkeypatch)
    assert library.TYPE_ERROR.search(alone)[1] == "keep_last" and library.EXPECTED_CLASS.findall(alone) == [
        "NonNegativeInt"
    ]
    assert library.EXPECTED_CLASS.findall(in_union) == ["PositiveInt", "NoneType"]
    assert library.RESTRICTED_VALUE.search(alone)[1] == "-1"
