"""Every command reports a refused input the same way: one line, the traceback above it under ZOO_DEBUG=1,
and a bug's own traceback kept."""

import pytest
import torch

from zoo.compare.command import main as compare_main
from zoo.inference.command import main_of
from zoo.sweep.main import main as sweep_main


def refuse(argv: list[str]) -> None:
    raise ValueError("--beam_size=0 is not valid; it must be >= 1")


def bug(argv: list[str]) -> None:
    int(argv[0])  # a ValueError that no check raised


COMMANDS = {
    "compare": (compare_main, ["no-such-runs"], "zoo compare: error: "),
    "sweep": (sweep_main, ["no-such-sweep.yaml"], "zoo sweep: error: "),
    "inference": (main_of("generate", refuse), [], "zoo generate: error: --beam_size=0 is not valid"),
}


@pytest.mark.parametrize("name", COMMANDS)
def test_a_refusal_is_one_line_and_zoo_debug_shows_where_it_was_raised(name, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    command, argv, line = COMMANDS[name]
    assert command(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(line) and err.count("\n") == 1, err
    monkeypatch.setenv("ZOO_DEBUG", "1")
    assert command(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):") and "raise " in err, err
    assert err.splitlines()[-1].startswith(line), err


def test_a_bug_in_an_inference_command_keeps_its_traceback():
    """A ValueError from an operation (not a check's raise) is not a user's mistake: one line would hide where."""
    with pytest.raises(ValueError, match="invalid literal for int"):
        main_of("generate", bug)(["x"])


@pytest.mark.parametrize(
    "error",
    [
        RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 768 GB"),
        MemoryError(),
        torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB"),  # known by its kind alone
    ],
)
def test_an_inference_out_of_memory_is_one_line_naming_what_to_lower(error, capsys):
    """--num_samples 100000000 was the allocator's traceback; another RuntimeError (a bug) keeps its own."""

    def allocate(argv):
        raise error

    assert main_of("generate", allocate)([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zoo generate: error: not enough memory for these settings (") and err.count("\n") == 1
    assert err.endswith("); lower --beam_size, --num_samples, --batch_size or --max_new_tokens\n")

    def broken(argv):
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied")

    with pytest.raises(RuntimeError, match="shapes cannot be multiplied"):
        main_of("generate", broken)([])


def test_a_parser_message_no_reader_knows_is_still_one_line(capsys):
    """A jsonargparse message that none of zoo's readers words (a release's new one) kept its lines, indented;
    it is one line, the library's key and reason first."""
    from zoo.cli.command_line import COMMAND_LINE
    from zoo.cli.parser_only import cli_parser

    COMMAND_LINE[:] = ["fit"]
    with pytest.raises(SystemExit) as done:
        cli_parser().error('Parser key "trainer.widget":\n  Something new went wrong.\n  Given value: x\n  More.')
    assert done.value.code == 2
    assert capsys.readouterr().err == (
        'zoo: error: Parser key "trainer.widget": Something new went wrong. More. (python -m zoo fit --help lists '
        "every field and its type)\n"
    )
