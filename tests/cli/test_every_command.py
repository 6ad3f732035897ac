"""Every command of ``python -m zoo``, as its parsers list them, answers a malformed command line in one line
and an exit status (never a traceback), and a mistyped option with the nearest ones."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from zoo.cli.command_line import TOOLS, did_you_mean, flag_values
from zoo.cli.lightning_cli import ZooCLI
from zoo.cli.main import main

REPO = Path(__file__).resolve().parents[2]
COMMANDS = [*ZooCLI.subcommands(), *TOOLS]  # LightningCLI's own, then the zoo's


def run(capsys, args: list[str]) -> tuple[int, str, str]:
    """``python -m zoo ARGS`` in-process: exit status, stdout, stderr; any exception but SystemExit fails."""
    try:
        main(args)
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else int(done.code is not None)
    out, err = capsys.readouterr()
    return code, out, err


def test_bare_command_lists_every_command_and_what_it_does(capsys, cli_env):
    """It ended in a traceback (``zip() argument 2 is longer than argument 1``, from ``flag_values``)."""
    code, out, err = run(capsys, [])
    listed = re.findall(r"^  (\w+)  +\S", out, re.M)
    assert (code, err, listed) == (0, "", COMMANDS)


def test_bare_command_from_the_shell_lists_the_commands():
    """``python -m zoo`` itself (``zoo/__main__.py``): the list, and no traceback."""
    done = subprocess.run([sys.executable, "-m", "zoo"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert (done.returncode, done.stderr) == (0, "") and "compare" in done.stdout


def _first_option(capsys, command: str) -> str:
    """The first option but ``--help`` that ``<command> --help`` lists: the command's own parser's."""
    code, out, _ = run(capsys, [command, "--help"])
    assert code == 0
    return next(o for o in re.findall(r"(--[\w.]+)", out) if o != "--help")


MALFORMED = {
    "nothing": [],
    "stray word": ["stray"],
    "= without a value (field)": ["--model.lr="],
    "= without a value (config)": ["--config="],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("malformed", [*MALFORMED, "a flag twice"])
def test_a_malformed_command_line_is_one_line_and_exit_2(capsys, cli_env, command, malformed):
    args = MALFORMED.get(malformed)
    if args is None:
        flag = _first_option(capsys, command)
        args = [flag, "1", flag, "2"]
    code, _, err = run(capsys, [command, *args])
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert code in (1, 2) and len(lines) == 1 and re.match(rf"zoo( {command})?: error: \S", lines[0]), err
    assert not (cli_env / "runs").exists() or not any((cli_env / "runs").iterdir())


def _value_options(capsys, command: str) -> list[str]:
    """The options that ``<command> --help`` lists with a value (``--cache_dir CACHE_DIR``, ``--report
    [FILE.html]``), each once."""
    code, out, _ = run(capsys, [command, "--help"])
    assert code == 0
    return list(dict.fromkeys(re.findall(r"^  (--\w+)(?:, --[\w-]+)? (?! )\S", out, re.M)))


EMPTY_MEANS_SOMETHING = {("generate", "--prompt")}  # no text: generate starts from <bos>
# the options of the run commands that name a folder, a file or a name (their --help lists some 200 fields)
RUN_COMMAND_NAMES = ["--runs_dir", "--run_name", "--wandb_project", "--ckpt_path", "--init_weights", "--data.path",
                     "--data.cache_dir", "--data.name"]  # fmt: skip
RUNS_DIR, CACHE = "--runs_dir= names no folder; give one (default: runs)", "default: $ZOO_CACHE or ~/.cache/zoo"
QUICKSTART = str(REPO / "configs" / "quickstart.yaml")
SHAKESPEARE = ["--config", str(REPO / "configs" / "decoder_only" / "tinyshakespeare.yaml"), "--data.path=x"]


@pytest.mark.parametrize("command", TOOLS)
def test_an_empty_value_of_any_option_of_a_tool_is_refused_naming_it(capsys, cli_env, command):
    """``cache clear --cache_dir=`` cleared the default cache, ``compare --report=`` wrote the default report,
    ``attention --out=`` the default file:
    every option with a value, given ``=`` and nothing, exits 2 in one line that names it, and writes nothing;
    but ``generate --prompt=`` (no text) is accepted."""
    options = _value_options(capsys, command)
    assert len(options) >= 2 and (command != "compare" or "--report" in options)
    positional = ["list"] if command == "cache" else []
    for option in options:
        code, _, err = run(capsys, [command, *positional, f"{option}="])
        if (command, option) in EMPTY_MEANS_SOMETHING or option == "--print_config":  # no flags: the whole config
            assert option not in err, err
            continue
        assert code == 2 and re.fullmatch(rf"zoo {command}: error: .*{option}\b.*\n", err), (option, err)
    assert list(cli_env.iterdir()) == []


@pytest.mark.parametrize("command", ZooCLI.subcommands())
@pytest.mark.parametrize("option", RUN_COMMAND_NAMES)
def test_an_empty_name_of_a_run_command_is_refused_before_anything_runs(capsys, cli_env, command, option):
    """``fit --runs_dir=`` trained a run with its folder in the working folder; ``--data.cache_dir=`` used the
    default cache; ``--wandb_project=`` logged to a W&B project named ``""``."""
    code, _, err = run(capsys, [command, *SHAKESPEARE, f"{option}="])
    field = option.removeprefix("--")
    assert code == 2 and re.fullmatch(rf"zoo: error: {field}='' names no [\w &]+; give one \(.+\)\n", err), err
    assert list(cli_env.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fit", "--config", QUICKSTART, "--runs_dir="], "runs_dir='' names no folder; give one (default: runs)"),
        (["sweep", str(REPO / "sweeps" / "do-pe.yaml"), "--runs_dir="], RUNS_DIR),
        (["compare", "runs", "--runs_dir", ""], RUNS_DIR),
        (["cache", "clear", "--cache_dir="], f"--cache_dir= names no folder; give one ({CACHE})"),
        (["compare", "runs", "--report="],
         "--report= names no file; give one (FILE.html), or --report alone for its default"),
        (["attention", "--ckpt_path=x", "--text=a", "--out="], "--out= names no file; give one (default: attention.png "
         "in the checkpoint's run folder, runs/<name>/attention.png)"),
        (["cache", "prune", "--older_than="], "--older_than= gives no value; give one (30d, 12h; a number: days)"),
        (["sweep", ""], "'' names no file; give a W&B sweep YAML file (sweeps/*.yaml)"),
        (["compare", "runs", ""],
         "'' names no run; give run folders, folders of runs, globs (quote them), or sweep names"),
        (["fit", *SHAKESPEARE, "--data.cache_dir="], f"data.cache_dir='' names no folder; give one ({CACHE})"),
        (["validate", "--ckpt_path="], "ckpt_path='' names no checkpoint; give one (a .ckpt file written by fit; fit "
         "also takes last, to resume)"),
    ],
)  # fmt: skip
def test_an_empty_name_says_what_it_names_and_its_default(capsys, cli_env, args, message):
    code, _, err = run(capsys, [*args, "--trainer.max_steps=1"] if args[0] == "fit" else args)
    prefix = "zoo" if args[0] in ZooCLI.subcommands() else f"zoo {args[0]}"
    assert (code, err) == (2, f"{prefix}: error: {message}\n")
    assert list(cli_env.iterdir()) == []


def test_cache_clear_with_an_empty_cache_dir_clears_nothing(capsys, cli_env, monkeypatch, tmp_path_factory):
    """It cleared the default cache (``$ZOO_CACHE`` here: a folder of this test's)."""
    cache = tmp_path_factory.mktemp("cache")
    (cache / "tokenizers").mkdir()
    (cache / "tokenizers" / "entry.json").write_text("{}")
    monkeypatch.setenv("ZOO_CACHE", str(cache))
    code, _, _ = run(capsys, ["cache", "clear", "--cache_dir="])
    assert code == 2 and (cache / "tokenizers" / "entry.json").read_text() == "{}"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_of_every_command(capsys, cli_env, command):
    code, out, err = run(capsys, [command, "-h"])
    assert (code, err) == (0, "") and out.startswith("usage: python -m zoo")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["sweep", "--paralel", "2"],
            "zoo sweep: error: --paralel is not an option of sweep; did you mean --parallel?",
        ),
        (["compare", "--pairred"], "zoo compare: error: --pairred is not an option of compare; did you mean --paired?"),
        (  # an abbreviation sets no field silently (as fit's)
            ["translate", "--ckpt_path", "x", "--beam", "2"],
            "zoo translate: error: --beam is not an option of translate; did you mean --beam_size?",
        ),
        (  # the unknown option before the missing required one: --beam is what the user must change
            ["translate", "--beam", "2"],
            "zoo translate: error: --beam is not an option of translate; did you mean --beam_size?",
        ),
        (["generate", "--x="], "zoo generate: error: --x is not an option of generate; python -m zoo generate "
         "--help lists its options"),  # fmt: skip
        (  # an invalid choice: argparse's words, then the nearest choices
            ["cache", "lst"],
            "zoo cache: error: argument action: invalid choice: 'lst' (choose from 'list', 'prune', 'clear'); did you "
            "mean list?",
        ),
        (
            ["compare", "runs", "--correction", "hlm"],
            "zoo compare: error: argument --correction: invalid choice: 'hlm' (choose from 'holm', 'bonferroni', "
            "'none'); did you mean holm?",
        ),
        (  # a word that is no argument before a missing required option: the word is what the user must change
            ["generate", "To be"],
            "zoo generate: error: 'To be' is not an argument of generate; the text to continue goes in --prompt TEXT",
        ),
        (
            ["translate", "--ckpt_path", "x", "Ein Hund."],
            "zoo translate: error: 'Ein Hund.' is not an argument of translate; the sentences come from stdin or "
            "--input FILE, one a line (echo 'Ein Hund.' | python -m zoo ...)",
        ),
        (
            ["attention", "hello"],
            "zoo attention: error: 'hello' is not an argument of attention; the text goes in --text TEXT",
        ),
        (
            ["average", "a.ckpt", "b.ckpt"],
            "zoo average: error: 'a.ckpt b.ckpt' is not an argument of average; python -m zoo average --help lists "
            "its arguments",
        ),
        (["fit", "--modle.lr=1"], "zoo: error: modle.lr is not a field; did you mean model.lr?"),
        # only groups that have the field: not help.d_model (no group) nor data.d_model (no data module's field)
        (["fit", "--modle.d_model=32"], "zoo: error: modle.d_model is not a field; did you mean model.d_model?"),
        (["fit", "--dta.src_column=de"], "zoo: error: dta.src_column is not a field; did you mean data.src_column?"),
        (
            ["fit", "--modle.nonsense=3"],
            "zoo: error: modle.nonsense is not a field; python -m zoo fit --help lists every field",
        ),
        (["fit", "--seed_everythin=1"], "zoo: error: seed_everythin is not a field; did you mean seed_everything?"),
        (["swep"], f"zoo: error: 'swep' is not a command; choose one of: {', '.join(COMMANDS)}; did you mean sweep?"),
    ],
)
def test_a_mistyped_option_gets_the_nearest_of_every_command(capsys, cli_env, args, message):
    """``sweep --paralel 2`` and ``compare --pairred`` said only ``unrecognized arguments``; ``translate --beam 2``
    and ``generate 'To be'`` said only that a required option is missing."""
    code, _, err = run(capsys, args)
    assert (code, err.strip()) == (2, message)


def test_a_mistyped_config_lists_the_shipped_configs(capsys, cli_env):
    """jsonargparse said ``Parser key "config": File does not exist: '<absolute path>'``."""
    code, _, err = run(capsys, ["fit", "--config", "configs/quickstrt.yaml"])
    shipped = sorted(str(p.relative_to(REPO)) for p in (REPO / "configs").glob("**/*.yaml"))
    assert (code, err.strip()) == (
        2,
        f"zoo: error: --config configs/quickstrt.yaml: no such file; did you mean configs/quickstart.yaml?; the "
        f"shipped configs: {', '.join(shipped)}",
    )


def test_an_empty_config_lists_the_shipped_configs(capsys, cli_env):
    """``--config=`` said jsonargparse's ``Unexpected config:`` and nothing more."""
    code, _, err = run(capsys, ["fit", "--config="])
    assert code == 2 and err.startswith("zoo: error: --config= names no file; the shipped configs: configs/")


def test_flag_values_of_no_arguments_and_of_an_empty_value():
    assert flag_values([], "--config") == []
    assert flag_values(["--config=", "a.yaml"], "--config") == [""]
    assert flag_values(["--config", "a.yaml", "--config=b"], "--config") == ["a.yaml", "b"]


def test_did_you_mean_takes_a_prefix_first_and_nothing_far():
    assert did_you_mean("--beam", ["--batch_size", "--beam_size"]) == " did you mean --beam_size?"
    assert did_you_mean("--zzz", ["--beam_size"]) == ""


@pytest.mark.parametrize(
    "args",
    [["sweep", "--paralel", "2"], ["sweep", "x.yaml"], ["swep"], ["compare", "runs", "--pairred"], ["compare"],
     ["compare", "runs", "--alpha=2"], ["compare", "runs", "--format", "csv", "--paired"],
     ["compare", "runs", "--baseline", "pre"]],
)  # fmt: skip
def test_a_tool_checks_its_arguments_before_lightning_is_imported(args):
    """Every argument error took about 5 s to appear: ``zoo.cli.lightning_cli`` (Lightning, torch) was imported
    first."""
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['zoo', *{args!r}]\n"
        "try:\n    runpy.run_module('zoo', run_name='__main__')\n"
        "except SystemExit as done:\n    print(done.code, 'lightning' in sys.modules, 'torch' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert done.stdout.split() == ["2", "False", "False"], done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["generate", "--ckpt_path=x", "--top_p=a"], "generate: error: --top_p='a' is not valid; it must be a number"),
        (["sweep", "x.yaml", "--parallel", "2x"], "sweep: error: --parallel='2x' is not valid; it must be an integer"),
        (["compare", "runs", "--alpha=0,05"], "compare: error: --alpha='0,05' is not valid; it must be a number"),
    ],
)  # fmt: skip
def test_a_tools_number_that_is_no_number_is_one_line_in_the_zoos_words(capsys, cli_env, args, message):
    """argparse's own ``argument --top_p: invalid float value: 'abc'`` reached the user."""
    code, _, err = run(capsys, args)
    assert (code, err) == (2, f"zoo {message}\n")
