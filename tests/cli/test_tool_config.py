"""A tool's options from a file: ``--print_config`` writes what was given as YAML, ``--config FILE`` reads it back
(the same options, the flags after it over the file's), and a file that cannot be what the user meant is one line:
a flag before it that it would replace, a key that is no option, a value its type refuses, no mapping at all.
``sweep`` has no ``--config`` of its own: its FILE is its configuration, and a ``--config`` is ``fit``'s."""

import pytest
import yaml

from tests.cli.test_every_command import run
from zoo.inference.errors import InferenceError
from zoo.inference.generate import arguments
from zoo.inference.translate import arguments as translate_arguments


def test_print_config_then_config_is_the_same_options(capsys, cli_env, tmp_path):
    given = ["--ckpt_path", "x.ckpt", "--prompt", "ROMEO:", "--top_k", "50", "--temperature", "0.8", "--seed", "3"]
    code, out, err = run(capsys, ["generate", *given, "--print_config"])
    assert (code, err) == (0, "")
    written = yaml.safe_load(out)
    assert {k: written[k] for k in ("ckpt_path", "prompt", "top_k", "temperature", "seed")} == {
        "ckpt_path": "x.ckpt", "prompt": "ROMEO:", "top_k": 50, "temperature": 0.8, "seed": 3,
    }  # fmt: skip
    (tmp_path / "g.yaml").write_text(out)
    again = arguments().parse_args(["--config", str(tmp_path / "g.yaml")])
    typed = arguments().parse_args(given)
    assert {**vars(again), "config": None} == {**vars(typed), "config": None}
    over = arguments().parse_args(["--config", str(tmp_path / "g.yaml"), "--top_k", "5"])
    assert (over.top_k, over.prompt) == (5, "ROMEO:")  # after the file: the flag


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("top_k: 3\n", ["--top_k", "5", "--config", "FILE"],
         "--top_k stands before --config FILE, which sets top_k and would replace it; put it after (a command line "
         "is read left to right)"),
        ("top_kk: 3\n", ["--config", "FILE"], "top_kk in --config is not an option of generate; did you mean --top_k, "
         "--top_p?"),
        ("beam_size: 0\n", ["--config", "FILE"], "beam_size: 0 (in --config) is not valid; it must be positive"),
        ("temperature: hot\n", ["--config", "FILE"],
         "temperature: 'hot' (in --config) is not valid; it must be a number"),
        # YAML's other kinds where an option takes text, a null where it has a value: never a traceback
        ("prompt: 5\n", ["--config", "FILE"], "prompt: 5 (in --config) is not valid; it must be text (quote it in the "
         "file)"),
        ("prompt: [a]\n", ["--config", "FILE"], "prompt: ['a'] (in --config) is not valid; it must be text (quote it "
         "in the file)"),
        ("num_samples: null\n", ["--config", "FILE"], "num_samples: null (in --config) is not valid; leave it out for "
         "its default (1)"),
        ("- a\n", ["--config", "FILE"], "--config holds no options of generate; give a YAML mapping of option: value "
         "(--print_config)"),
        (None, ["--config", "FILE"], "--config: File does not exist: 'FILE'"),
    ],
)  # fmt: skip
def test_a_config_file_that_cannot_be_meant_is_one_line(capsys, cli_env, tmp_path, content, args, message):
    path = tmp_path / "g.yaml"
    if content is not None:
        path.write_text(content)
    args = [str(path) if arg == "FILE" else arg for arg in args]
    code, out, err = run(capsys, ["generate", "--ckpt_path", "x.ckpt", *args])
    assert (code, out, err) == (2, "", f"zoo generate: error: {message.replace('FILE', str(path))}\n")


def test_a_count_and_a_number_that_a_tool_refuses_say_what_is_valid():
    """Counts are jsonargparse's restricted numbers: the bound that failed is what the line says."""
    parser = translate_arguments()
    for value, valid in (("0", "it must be positive"), (str(2**31), "it must be at most 2147483647")):
        with pytest.raises(InferenceError, match=rf"^--beam_size={value} is not valid; {valid}$"):
            parser.parse_args(["--ckpt_path", "x", "--beam_size", value])
    with pytest.raises(InferenceError, match=r"^--max_len_a='inf' is not valid; it must be a finite number$"):
        parser.parse_args(["--ckpt_path", "x", "--max_len_a", "inf"])


def test_print_config_quotes_text_that_yaml_reads_as_a_number(capsys, cli_env, tmp_path):
    """``--prompt 1e3`` was written bare, and read back as the number 1000.0."""
    code, out, _ = run(capsys, ["generate", "--ckpt_path", "x.ckpt", "--prompt", "1e3", "--print_config"])
    (tmp_path / "g.yaml").write_text(out)
    assert code == 0 and arguments().parse_args(["--config", str(tmp_path / "g.yaml")]).prompt == "1e3"


def test_positional_arguments_and_lists_come_from_a_config(tmp_path):
    """``compare --config`` of a file with its runs said no runs were named; ``average``'s one checkpoint in a
    file was read letter by letter; ``cache``'s action from a file was required on the command line."""
    from zoo.compare.arguments import parser as compare_parser
    from zoo.inference.average import arguments as average_arguments
    from zoo.inference.cache_command import arguments as cache_arguments

    assert compare_parser().parse_args(["--config", "{runs: [a, b]}"]).runs == ["a", "b"]
    assert compare_parser().parse_args(["c", "--config", "{metric: val_bleu}"]).runs == ["c"]
    assert compare_parser().parse_args(["--plan", "--config", "{runs: [a]}", "c"]).runs == ["c"]  # after: the word
    with pytest.raises(ValueError, match=r"^'c d' stands before --config \{runs: \[a\]\}, which sets runs and would "
                                         r"replace it; put it after"):  # fmt: skip
        compare_parser().parse_args(["c", "d", "--plan", "--config", "{runs: [a]}"])
    assert average_arguments().parse_args(["--config", "{ckpt_path: a.ckpt, out: b.ckpt}"]).ckpt_path == ["a.ckpt"]
    assert cache_arguments().parse_args(["--config", "{action: list}"]).action == "list"
    with pytest.raises(InferenceError, match="^the following arguments are required: action$"):
        cache_arguments().parse_args([])


def test_sweep_takes_no_config_of_its_own(capsys, cli_env):
    code, _, err = run(capsys, ["sweep", "sweeps/do-pe.yaml", "--config", "configs/quickstart.yaml"])
    assert code == 2 and err.startswith("zoo sweep: error: --config configs/quickstart.yaml: arguments for fit go "
                                        "after --"), err  # fmt: skip


def test_cache_prune_takes_ages_and_sizes_as_text_or_bare_numbers():
    """A bare number from a file (``older_than: 7``) is days, as on the command line; 0 prunes whatever is unused
    now, not 'prune needs --older_than'."""
    from zoo.inference.cache_command import checked_arguments

    assert checked_arguments(["prune", "--older_than", "0"]).older_than == 0.0
    assert checked_arguments(["--config", "{action: prune, older_than: 7}"]).older_than == 7 * 86400
    assert checked_arguments(["prune", "--max_size", "1e12"]).max_size == 10**12
    assert checked_arguments(["prune", "--older_than", "12h", "--max_size", "2G"]).max_size == 2 * 10**9


TRUE_OR_FALSE = "(in --config) is not valid; it must be true or false"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "--config", "{runs: [r], plan: 5}"], f"plan: 5 {TRUE_OR_FALSE}"),
        (["compare", "--config", "{runs: [r], wide: null}"], f"wide: null {TRUE_OR_FALSE}"),
        (["attention", "--ckpt_path", "x.ckpt", "--config", "{text: ''}"],
         "text: '' (in --config) names nothing; give one, or leave it out"),
    ],
)  # fmt: skip
def test_a_flag_or_a_name_from_a_file_is_of_its_kind(capsys, cli_env, args, message):
    """``plan: 5`` and ``wide: null`` ran; ``text: ''`` drew the maps of no text, where ``--text=`` is refused."""
    code, _, err = run(capsys, args)
    assert (code, err) == (2, f"zoo {args[0]}: error: {message}\n")


def test_print_config_anywhere_prints_every_option_with_the_files_positionals(capsys, cli_env):
    """Before a --config it printed what the file set alone; a positional argument from a file printed as null."""
    code, out, _ = run(capsys, ["translate", "--print_config", "--config", "{ckpt_path: a.ckpt}", "--beam_size", "4"])
    assert code == 0 and yaml.safe_load(out) | {"beam_size": 4} == yaml.safe_load(out) and "batch_size: 64" in out
    code, out, _ = run(capsys, ["cache", "--config", "{action: list}", "--print_config"])
    assert code == 0 and yaml.safe_load(out)["action"] == "list"
