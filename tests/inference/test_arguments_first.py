"""The commands on a trained model check their arguments before the model's modules load: every argument error
(and ``--help``) of ``translate``, ``generate``, ``attention``, ``average`` and ``cache`` is told with torch,
Lightning, datasets, tokenizers and ``zoo.tasks`` not imported (each took about 5 s to appear, imports first).

Each command's cases run in one fresh ``python`` through ``python -m zoo``'s own entry (``zoo/__main__.py``);
the checkpoint named is an empty file, which only its loading (after the imports) would refuse."""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO
from zoo.runs.checkpoint_file import CHECKPOINT_FILE

HEAVY = ["torch", "lightning", "datasets", "tokenizers", "zoo.tasks", "zoo.data", "matplotlib"]

# Runs ``python -m zoo <command> ARGS`` for each ARGS of argv[1] (JSON) in this one process; prints, for each,
# the exit status, stderr, and the modules of HEAVY loaded by then.
SCRIPT = """
import contextlib, io, json, runpy, sys
heavy, results = json.loads(sys.argv[2]), []
for args in json.loads(sys.argv[1]):
    sys.argv, err = ["zoo", *args], io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            runpy.run_module("zoo", run_name="__main__")
            code = 0
        except SystemExit as done:
            code = done.code
    results.append([code, err.getvalue(), [name for name in heavy if name in sys.modules]])
print(json.dumps(results))
"""

CKPT = "model.ckpt"  # an empty file: the commands check that it exists, and read it only after the imports
WITH = ["--ckpt_path", CKPT]
COUNT = "it must be at most 2147483647"
CASES = {
    "translate": [
        (["--beam", "2"], "--beam is not an option of translate; did you mean --beam_size?"),
        ([], "the following arguments are required: --ckpt_path"),
        ([*WITH, "--beam_size", "x"], "--beam_size='x' is not valid; it must be an integer"),
        ([*WITH, "--max_len_a", "y"], "--max_len_a='y' is not valid; it must be a number"),
        ([*WITH, "--beam_size", "0"], "--beam_size=0 is not valid; it must be positive"),
        ([*WITH, "--n_best", "-1"], "--n_best=-1 is not valid; it must be positive"),
        ([*WITH, "--batch_size", "0"], "--batch_size=0 is not valid; it must be positive"),
        ([*WITH, "--batch_size", str(2**31)], f"--batch_size=2147483648 is not valid; {COUNT}"),
        ([*WITH, "--length_penalty", "-1"], "--length_penalty=-1.0 is not valid; it must be in [0.0, inf)"),
        ([*WITH, "--max_len_a", "-0.5"], "--max_len_a=-0.5 is not valid; it must be in [0.0, inf)"),
        ([*WITH, "--max_len_b", "-1"], "--max_len_b=-1 is not valid; it must be an integer >= 0 (or null)"),
        (
            [*WITH, "--max_len_a", "0", "--max_len_b", "0"],
            "--max_len_a=0 with --max_len_b=0 allows no target token (at most max_len_a * source length + max_len_b); "
            "raise either",
        ),
        ([*WITH, "--beam_size", "2", "--n_best", "3"], "--n_best=3 is not valid; it must be at most --beam_size=2"),
        (["--ckpt_path", "missing.ckpt"], f"ckpt_path='missing.ckpt' is not a file; {CHECKPOINT_FILE}"),
        ([*WITH, "--input", "missing.txt"], "--input='missing.txt' is not a file"),
    ],
    "generate": [
        ([*WITH, "--top_kk", "5"], "--top_kk is not an option of generate; did you mean --top_k, --top_p?"),
        (["--prompt", "a"], "the following arguments are required: --ckpt_path"),
        ([*WITH, "--temperature", "hot"], "--temperature='hot' is not valid; it must be a number"),
        ([*WITH, "--max_new_tokens", "0"], "--max_new_tokens=0 is not valid; it must be positive"),
        ([*WITH, "--num_samples", "0"], "--num_samples=0 is not valid; it must be positive"),
        ([*WITH, "--seed", "-1"], "--seed=-1 is not valid; it must be an integer in [0, 4294967295]"),
        ([*WITH, "--temperature", "-1"], "--temperature=-1.0 is not valid; it must be >= 0 (0: greedy)"),
        ([*WITH, "--top_k", "0"], "--top_k=0 is not valid; it must be positive"),
        ([*WITH, "--top_p", "1.5"], "--top_p=1.5 is not valid; it must be in (0, 1]"),
        ([*WITH, "--length_penalty", "-1"], "--length_penalty=-1.0 is not valid; it must be in [0.0, inf)"),
        (
            [*WITH, "--beam_size", "2", "--top_p", "0.9"],
            "--top_p set with --beam_size=2: beam search does not sample; leave it out, or sample with --beam_size 1",
        ),
        (
            [*WITH, "--beam_size", "2", "--num_samples", "3"],
            "--num_samples=3 is not valid with beam search; at most --beam_size",
        ),
        (
            [*WITH, "--prompt", "a\udce4"],
            "--prompt is not UTF-8 text (character 1: byte 0xe4); zoo reads text as UTF-8",
        ),
        (["--ckpt_path", "missing.ckpt"], f"ckpt_path='missing.ckpt' is not a file; {CHECKPOINT_FILE}"),
    ],
    "attention": [
        (["--foo"], "--foo is not an option of attention; python -m zoo attention --help lists its options"),
        (WITH, "the following arguments are required: --text"),
        (
            [*WITH, "--text", "a", "--out", "maps.txt"],
            "--out='maps.txt' is not valid; name a .png file, e.g. --out maps.png",
        ),
        ([*WITH, "--text", "a", "--out", "no/maps.png"], "--out='no/maps.png': the folder 'no' does not exist"),
        ([*WITH, "--text", "a\udc80"], "--text is not UTF-8 text (character 1: byte 0x80); zoo reads text as UTF-8"),
        (["--ckpt_path", "missing.ckpt", "--text", "a"], f"ckpt_path='missing.ckpt' is not a file; {CHECKPOINT_FILE}"),
    ],
    "average": [
        ([], "the following arguments are required: --ckpt_path, --out"),
        ([*WITH, "--out", "a.ckpt"], "--ckpt_path needs two or more checkpoints to average, got 1"),
        ([*WITH, CKPT, "--out", "a.ckpt"], "--ckpt_path lists 'model.ckpt' twice; each checkpoint is averaged once"),
        ([*WITH, "missing.ckpt", "--out", "a.ckpt"], f"--ckpt_path='missing.ckpt' is not a file; {CHECKPOINT_FILE}"),
        (
            [*WITH, "b.ckpt", "--out", CKPT],
            "--out='model.ckpt' is one of the checkpoints averaged; write the average elsewhere",
        ),
    ],
    "cache": [
        (["lst"], "argument action: invalid choice: 'lst' (choose from 'list', 'prune', 'clear'); did you mean list?"),
        (["list", "--older"], "--older is not an option of cache; did you mean --older_than?"),
        (["prune"], "prune needs --older_than (e.g. 30d), --max_size (e.g. 2G) or both"),
        (["list", "--max_size", "2G"], "--older_than and --max_size are options of `prune`, not of `list`"),
        (["prune", "--max_size", "2X"], "--max_size='2X' is not valid; it must be a size such as 500M, 2G or 1000000"),
        (
            ["prune", "--older_than", "soon"],
            "--older_than='soon' is not valid; it must be an age such as 30d, 12h or 7 (days)",
        ),
        (
            ["clear", "--cache_dir", "nowhere"],
            "--cache_dir='nowhere' is not a folder; name the cache (e.g. $ZOO_CACHE)",
        ),
    ],
}


def run_in_one_process(command: str, cases: list[list[str]], folder) -> list:
    """``[status, stderr, heavy modules loaded]`` of ``python -m zoo <command> ARGS`` for each ARGS of ``cases``,
    all in one fresh process run in ``folder``."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [json.dumps([[command, *args] for args in cases]), json.dumps(HEAVY)]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv], capture_output=True, text=True, cwd=folder, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("command", CASES)
def test_every_argument_error_comes_before_the_heavy_imports(command, tmp_path):
    (tmp_path / CKPT).touch()
    (tmp_path / "b.ckpt").touch()
    cases = [args for args, _ in CASES[command]]
    found = run_in_one_process(command, [*cases, ["--help"]], tmp_path)
    expected = [[2, f"zoo {command}: error: {message}\n", []] for _, message in CASES[command]]
    assert found == [*expected, [0, "", []]]


def test_the_cases_cover_every_command_on_a_trained_model():
    from zoo.cli.command_line import TOOLS

    assert sorted(CASES) == sorted(name for name, module in TOOLS.items() if module.startswith("zoo.inference"))


def test_the_error_keeps_its_old_import_path():
    from zoo.inference.checkpoint import InferenceError
    from zoo.inference.errors import InferenceError as light

    assert InferenceError is light


@pytest.mark.parametrize("command", ["attention", "average"])
def test_an_out_file_under_a_file_is_one_line(command, tmp_path, capsys):
    (tmp_path / "a_file").write_text("")
    out = str(tmp_path / "a_file" / ("maps.png" if command == "attention" else "avg.ckpt"))
    args = ["--ckpt_path", str(tmp_path / "x.ckpt"), *([] if command == "attention" else [str(tmp_path / "y.ckpt")])]
    module = __import__(f"zoo.inference.{command}", fromlist=["main"])
    assert module.main([*args, *(["--text", "a"] if command == "attention" else []), "--out", out]) == 2
    assert capsys.readouterr().err == f"zoo {command}: error: --out={out!r}: {str(tmp_path / 'a_file')!r} is a file\n"
