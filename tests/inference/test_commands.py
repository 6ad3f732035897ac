"""translate, generate, attention and average on briefly trained checkpoints of the real data."""

import json
import re
import struct
from pathlib import Path

import pytest
import torch

from zoo.cli.main import main
from zoo.inference.checkpoint import load_trained


def run(args, capsys) -> tuple[int, str, str]:
    """Run ``python -m zoo ARGS`` in-process: exit status, stdout, stderr."""
    with pytest.raises(SystemExit) as done:
        main(args)
    out, err = capsys.readouterr()
    return done.value.code, out, err


def png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def german(data_dir, count):
    lines = (data_dir / "multi30k" / "test.jsonl").read_text().splitlines()[:count]
    return [json.loads(line)["de"] for line in lines]


def test_translate_a_file_one_line_per_sentence(translation_checkpoints, data_dir, tmp_path, capsys):
    source = tmp_path / "de.txt"
    source.write_text("\n".join(german(data_dir, 7)) + "\n")
    code, out, _ = run(["translate", "--ckpt_path", translation_checkpoints["last"], "--input", str(source)], capsys)
    assert code == 0 and len(out.splitlines()) == 7


def test_translate_n_best_with_scores_from_stdin(translation_checkpoints, data_dir, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(german(data_dir, 3))))
    args = ["translate", "--ckpt_path", translation_checkpoints["last"], "--beam_size", "4", "--n_best", "3"]
    code, out, _ = run(args, capsys)
    rows = [line.split("\t") for line in out.splitlines()]
    assert code == 0 and [int(r[0]) for r in rows] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    for sentence in range(3):
        scores = [float(r[1]) for r in rows if r[0] == str(sentence)]
        assert scores == sorted(scores, reverse=True) and all(s < 0 for s in scores)
        # distinct hypotheses; two token sequences of a 10-step model may decode to the same text (byte-level
        # BPE turns invalid UTF-8 into U+FFFD), so each is told by its score and text together
        assert len({(r[1], r[2]) for r in rows if r[0] == str(sentence)}) == 3


def test_generate_adds_exactly_max_new_tokens_and_a_seed_repeats(language_model_checkpoints, capsys):
    args = ["generate", "--ckpt_path", language_model_checkpoints["last"], "--prompt", "ROMEO:"]
    args += ["--max_new_tokens", "90", "--top_k", "5", "--seed", "3", "--num_samples", "2"]
    code, out, _ = run(args, capsys)
    samples = out.rstrip("\n").split("\n---\n")
    assert code == 0 and len(samples) == 2 and samples[0] != samples[1]
    assert all(s.startswith("ROMEO:") and len(s) == 6 + 90 for s in samples)  # characters: one token each
    assert run(args, capsys)[1] == out  # 90 tokens run past the 64 learned positions: the window slides


def test_attention_maps_of_a_translation_model(translation_checkpoints, tmp_path, capsys):
    out = tmp_path / "maps.png"
    args = [
        "attention",
        "--ckpt_path",
        translation_checkpoints["last"],
        "--text",
        "Ein Hund rennt .",
        "--out",
        str(out),
    ]
    code, printed, _ = run([*args, "--target", "A dog runs ."], capsys)
    # one encoder and one decoder layer: encoder self, decoder self and cross-attention, two heads each
    assert code == 0 and png_size(out) == (2 * 300, 3 * 300)
    assert re.search(r"3 attention modules x 2 heads, 600x900 pixels", printed)


def test_attention_maps_of_a_language_model(language_model_checkpoints, tmp_path, capsys):
    out = tmp_path / "maps.png"
    args = ["attention", "--ckpt_path", language_model_checkpoints["last"], "--text", "To be", "--out", str(out)]
    assert run(args, capsys)[0] == 0 and png_size(out) == (2 * 300, 1 * 300)
    code, printed, _ = run(args, capsys)  # its own maps: drawn again, and said
    assert code == 0 and printed.endswith("600x300 pixels (replacing the earlier one)\n")
    out.write_bytes(b"\x89PNG\r\n\x1a\n a picture of the user's")  # replaced without a word, once
    code, _, err = run(args, capsys)
    assert code == 2 and out.read_bytes().endswith(b"a picture of the user's")
    assert err == (
        f"zoo attention: error: --out='{out}': {out} exists and was not written by `python -m zoo attention`; "
        "remove it or name another file\n"
    )


def test_attention_without_out_draws_into_the_run_folder(language_model_checkpoints, tmp_path, monkeypatch, capsys):
    """Without --out the maps were attention.png in the folder the command ran in: a repository's root, where
    git does not ignore it. They go to the checkpoint's run folder (under runs/, ignored), or beside a loose one."""
    from zoo.inference.attention import default_out

    last = Path(language_model_checkpoints["last"])
    monkeypatch.chdir(tmp_path)
    code, printed, _ = run(["attention", "--ckpt_path", str(last), "--text", "To be"], capsys)
    drawn = last.parent.parent / "attention.png"
    try:
        assert code == 0 and printed.startswith(f"{drawn}: ") and png_size(drawn) == (2 * 300, 1 * 300)
        assert list(tmp_path.iterdir()) == []
    finally:
        drawn.unlink(missing_ok=True)
    assert default_out(Path("downloads/model.ckpt")) == Path("downloads/attention.png")


def test_attention_labels_show_whitespace_tokens_as_signs(language_model_checkpoints):
    from zoo.inference.maps import _visible, maps_of

    model = load_trained(language_model_checkpoints["last"], "cpu")
    maps = maps_of(model, "To be\nor", None)  # a character model: a tab is <unk> in Tiny Shakespeare
    assert maps[0].rows == maps[0].columns == ["T", "o", "␣", "b", "e", "↵", "o", "r"]
    assert [_visible(p) for p in ["\t", "  ", " the", "to\n", ""]] == ["⇥", "␣␣", " the", "to↵", "�"]


def test_average_of_the_last_checkpoints(translation_checkpoints, tmp_path, capsys):
    kept = translation_checkpoints["kept"]
    assert [re.search(r"step(\d+)\.ckpt$", k).group(1) for k in kept] == ["10", "5"]
    out = tmp_path / "avg.ckpt"
    assert run(["average", "--ckpt_path", *kept, "--out", str(out)], capsys)[0] == 0
    states = [torch.load(p, weights_only=True)["state_dict"] for p in (*kept, out)]
    for key, value in states[2].items():
        if value.is_floating_point():
            torch.testing.assert_close(value, (states[0][key] + states[1][key]) / 2)
    assert load_trained(str(out)).task.training is False  # it loads as a model


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"pe": "rope"}, "model.pe='rope', not 'sinusoidal'"),  # same weights and shapes, another function
        ({"norm_position": "post"}, "model.norm_position='post', not 'pre'"),
        ({"tokenizers": "other"}, "another tokenizer"),  # the same ids for other tokens
        ({"bias": "DELETE"}, "model.bias='unset', not True"),  # a checkpoint from before a knob: it was a KeyError
    ],
)
def test_average_of_another_model_is_refused(translation_checkpoints, tmp_path, capsys, change, reason):
    """Checkpoints whose weights have the same names and shapes were averaged whatever their model."""
    last = translation_checkpoints["last"]
    other = torch.load(last, weights_only=False)
    if "tokenizers" in change:
        (holder,) = [v for v in other.values() if isinstance(v, dict) and "tokenizers" in v]
        holder["tokenizers"] = {name: text.replace('"<unk>"', '"<UNK>"') for name, text in holder["tokenizers"].items()}
    elif change == {"bias": "DELETE"}:
        del other["hyper_parameters"]["bias"]
    else:
        assert {k: other["hyper_parameters"][k] for k in change} != change
        other["hyper_parameters"].update(change)
    torch.save(other, tmp_path / "other.ckpt")
    code, _, err = run(
        ["average", "--ckpt_path", last, str(tmp_path / "other.ckpt"), "--out", str(tmp_path / "a.ckpt")], capsys
    )
    assert code == 2 and f"holds another model than '{last}' ({reason}); average checkpoints of one run" in err, err
    assert not (tmp_path / "a.ckpt").exists()


@pytest.mark.parametrize(
    ("command", "extra", "message"),
    [
        ("generate", [], "generate needs a LanguageModelTask checkpoint, but ckpt_path="),
        ("generate", [], "holds a TranslationTask; use `python -m zoo translate` for a translation model"),
        ("translate", ["--device", "foo"], "--device='foo' is not valid; name a device: cpu, cuda, cuda:N or mps"),
        ("translate", ["--length_penalty", "-1"], "--length_penalty=-1.0 is not valid; it must be in [0.0, inf)"),
        ("translate", ["--max_len_a", "-0.5"], "--max_len_a=-0.5 is not valid; it must be in [0.0, inf)"),
        ("translate", ["--max_len_b", "-1"], "--max_len_b=-1 is not valid; it must be an integer >= 0"),
        ("translate", ["--n_best", "2"], "--n_best=2 is not valid; it must be at most --beam_size=1"),
        ("translate", ["--input", "missing.txt"], "--input='missing.txt' is not a file"),
        (  # it was a traceback from deep in the decoder, or 'Overflow when unpacking long long'
            "translate",
            ["--max_len_b", str(10**20)],
            f"--max_len_b={10**20} is not valid; it must be at most 2147483647",
        ),  # noqa: E501
        ("translate", ["--beam_size", "0"], "--beam_size=0 is not valid; it must be positive"),
        ("translate", ["--beam_size", "-2"], "--beam_size=-2 is not valid; it must be positive"),
        ("translate", ["--input", "binary.txt"], "--input='binary.txt' is not UTF-8 text (byte 1: 0x80)"),
        ("translate", ["--device", "cuda"], "--device='cuda' is not available here (no CUDA GPU); use --device cpu"),
        ("attention", ["--text", "ein Hund", "--out", "."], "--out='.' is not valid; name a .png file"),
        ("attention", ["--text", "ein Hund", "--out", "maps"], "--out='maps' is not valid; name a .png file"),
        ("average", ["--out", "LAST"], "is one of the checkpoints averaged; write the average elsewhere"),
        ("average", ["--out", "binary.txt"], "--out='binary.txt' exists; name a new file (an average never"),
        ("average", ["--ckpt_path", "LAST", "LAST", "--out", "a.ckpt"], "twice; each checkpoint is averaged once"),
        ("translate", ["--max_len_a", "0", "--max_len_b", "0"], "--max_len_a=0 with --max_len_b=0 allows no target"),
        ("attention", ["--text", "ein \udce4 Hund"], "--text is not UTF-8 text (character 4: byte 0xe4)"),
        ("attention", ["--text", "ein", "--target", "a \udc80"], "--target is not UTF-8 text (character 2: byte 0x80)"),
    ],
)
def test_bad_input_is_one_line(translation_checkpoints, capsys, command, extra, message, tmp_path, monkeypatch):
    if torch.cuda.is_available() and "cuda" in extra:
        pytest.skip("this machine has a GPU")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "binary.txt").write_bytes(b"a\x80b\n")
    last = translation_checkpoints["last"]
    paths = [last, *translation_checkpoints["kept"]] if command == "average" else [last]
    extra = [last if part == "LAST" else part for part in extra]
    code, _, err = run([command, "--ckpt_path", *paths, *extra], capsys)
    assert code == 2 and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "is not a checkpoint (not a file written by torch.save)"),
        (b"garbage", "is not a checkpoint (not a file written by torch.save)"),
        (None, "is not a Lightning checkpoint (no state_dict of weights)"),  # torch.save of something else
        ("TRUNCATED", "is a damaged or truncated checkpoint (a zip file with no end record"),
        ("FLIPPED", "is a damaged checkpoint (Bad CRC-32 for file "),  # a byte inside a tensor: it loads as is
    ],
)
def test_average_of_a_damaged_checkpoint_is_one_line(translation_checkpoints, capsys, tmp_path, content, reason):
    damaged = tmp_path / "damaged.ckpt"
    last = translation_checkpoints["last"]
    if content is None:
        torch.save({"weights": torch.zeros(2)}, damaged)
    elif content == "TRUNCATED":
        damaged.write_bytes(Path(last).read_bytes()[:5000])
    elif content == "FLIPPED":
        flipped = bytearray(Path(last).read_bytes())
        flipped[len(flipped) // 2] ^= 0xFF
        damaged.write_bytes(bytes(flipped))
    else:
        damaged.write_bytes(content)
    code, _, err = run(["average", "--ckpt_path", last, str(damaged), "--out", str(tmp_path / "a.ckpt")], capsys)
    assert code == 2 and err.count("\n") == 1 and f"--ckpt_path='{damaged}' {reason}" in err, err
    assert not (tmp_path / "a.ckpt").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--beam_size", "0"], "--beam_size=0 is not valid; it must be positive"),
        (["--temperature", "inf"], "--temperature='inf' is not valid; it must be a finite number"),
        (["--temperature", "nan"], "--temperature='nan' is not valid; it must be a finite number"),
        (["--beam_size", "4", "--top_k", "5"], "--top_k set with --beam_size=4: beam search does not sample"),
        (["--prompt", "a\udce4b"], "--prompt is not UTF-8 text (character 1: byte 0xe4)"),
        (["--max_new_tokens", str(10**23)], f"--max_new_tokens={10**23} is not valid; it must be at most 2147483647"),
        (["--num_samples", str(2**31)], "--num_samples=2147483648 is not valid; it must be at most 2147483647"),
        (["--seed", "-1"], "--seed=-1 is not valid; it must be an integer in [0, 4294967295]"),
        (["--seed", str(10**23)], f"--seed={10**23} is not valid; it must be an integer in [0, 4294967295]"),
    ],
)
def test_bad_generation_input_is_one_line(language_model_checkpoints, capsys, extra, message):
    code, _, err = run(["generate", "--ckpt_path", language_model_checkpoints["last"], *extra], capsys)
    assert code == 2 and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("checkpoints", ["translation_checkpoints", "language_model_checkpoints"])
def test_the_literal_text_of_special_tokens_is_ordinary_text_after_loading(checkpoints, request):
    """As in training (``zoo.data.tokenizer``): ``<eos>`` typed in a prompt or a sentence is five characters,
    never the id that ends a sequence."""
    model = load_trained(request.getfixturevalue(checkpoints)["last"])
    for tokenizer in model.tokenizers.values():
        ids = tokenizer.encode("a <eos> b <pad> <bos> <unk>").ids
        assert not set(ids) & {0, 1, 2}, ids  # <unk> (3) only for characters the tokenizer never saw


def test_translate_reads_stdin_bytes_without_a_byte_order_mark_and_refuses_other_bytes(
    translation_checkpoints, data_dir, capsys, monkeypatch
):
    import io

    sentence = german(data_dir, 1)[0]
    outputs = []
    for data in (sentence.encode(), b"\xef\xbb\xbf" + sentence.encode()):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
        outputs.append(run(["translate", "--ckpt_path", translation_checkpoints["last"]], capsys)[1])
    # one line each (a tiny model's translation may be bytes of no whole character, which decode to nothing)
    assert outputs[0] == outputs[1] and len(outputs[0].splitlines()) == 1
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"Ein M\xe4dchen .\n")))
    code, _, err = run(["translate", "--ckpt_path", translation_checkpoints["last"]], capsys)
    assert (
        code == 2 and err == "zoo translate: error: stdin is not UTF-8 text (byte 5: 0xe4); zoo reads text as UTF-8\n"
    )


def test_translate_n_best_1_prints_the_score_too(translation_checkpoints, data_dir, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(german(data_dir, 1)[0]))
    out = run(["translate", "--ckpt_path", translation_checkpoints["last"], "--n_best", "1"], capsys)[1]
    (row,) = [line.split("\t") for line in out.splitlines()]
    assert row[0] == "0" and len(row) == 3


def test_every_task_has_a_command_named_for_its_checkpoints():
    from zoo.inference.checkpoint import COMMAND_FOR
    from zoo.tasks import TaskModule

    assert set(COMMAND_FOR) == {task.__name__ for task in TaskModule.__subclasses__()}


def test_evaluation_translates_with_the_configured_decoder(translation_checkpoints, data_dir):
    from zoo.inference.text import translate_texts

    model = load_trained(translation_checkpoints["last"])
    texts = german(data_dir, 2)
    greedy = translate_texts(model, texts)
    assert all(score != score for ((_, score),) in greedy)  # NaN: greedy search adds no scores up
    model.task.hparams.beam_size = 3
    searched = translate_texts(model, texts)
    assert all(score < 0 for ((_, score),) in searched)
    assert [t for ((t, _),) in translate_texts(model, texts, beam_size=1)] == [t for ((t, _),) in greedy]


def test_translate_says_which_sentences_a_learned_position_table_cuts(capsys):
    from zoo.data.tokenizer import train_tokenizer
    from zoo.inference.checkpoint import TrainedModel
    from zoo.inference.translate import _warn_of_cut_sentences
    from zoo.tasks import TranslationTask

    tokenizer = train_tokenizer("char", ["abcdefgh "], 0)
    task = TranslationTask(
        vocab_size=tokenizer.get_vocab_size(), d_model=16, n_heads=2, d_ff=32, pe="learned", max_len=8
    )
    model = TrainedModel(task.eval(), {"joint": tokenizer}, "model.ckpt")
    _warn_of_cut_sentences(model, ["abc", "abcdefgh", "abcdefg"])  # 7 tokens and <eos>: the 8 positions
    assert capsys.readouterr().err == (
        "zoo translate: warning: 1 sentence (line 2) is longer than the 7 tokens the model's learned positions "
        "hold (model.max_len=8); only its first 7 tokens are translated\n"
    )
    _warn_of_cut_sentences(model, ["abcdefgh", "abc", "abcdefghh"])
    assert capsys.readouterr().err == (
        "zoo translate: warning: 2 sentences (lines 1, 3) are longer than the 7 tokens the model's learned "
        "positions hold (model.max_len=8); only their first 7 tokens are translated\n"
    )
    task.hparams.pe = "sinusoidal"  # a position for any length: nothing is cut
    _warn_of_cut_sentences(model, ["abcdefgh" * 10])
    assert capsys.readouterr().err == ""


def test_fit_refuses_an_average_before_touching_any_run_folder(language_model_checkpoints, tmp_path, capsys):
    """An average holds weights only: Lightning failed on it mid-way, after the run's later checkpoints had
    been set aside and its record marked failed."""
    kept = language_model_checkpoints["kept"]
    run_dir = Path(kept[0]).parent.parent
    before = sorted(path.name for path in run_dir.rglob("*"))
    for out in (tmp_path / "avg.ckpt", run_dir / "checkpoints" / "avg.ckpt"):
        assert run(["average", "--ckpt_path", *kept, "--out", str(out)], capsys)[0] == 0
        args = ["fit", "--config", str(run_dir / "config.yaml"), f"--ckpt_path={out}", "--trainer.max_steps=20"]
        code, _, err = run([*args, f"--runs_dir={tmp_path / 'runs'}"], capsys)
        assert code == 2 and f"zoo: error: ckpt_path='{out}' holds weights only (no optimiser or loop state" in err
        assert not (tmp_path / "runs").exists()
        out.unlink()
    assert sorted(path.name for path in run_dir.rglob("*")) == before


def test_generate_says_which_prompt_characters_the_tokenizer_never_saw(language_model_checkpoints, capsys):
    args = ["generate", "--ckpt_path", language_model_checkpoints["last"], "--max_new_tokens", "2", "--seed", "1"]
    code, _, err = run([*args, "--prompt", "ROMEO: 日本 ☃日"], capsys)
    assert code == 0 and err.splitlines()[-1] == (
        "zoo generate: warning: the prompt has 3 characters the tokenizer never saw in training (日 本 ☃): each "
        "is <unk>, which decodes to nothing"
    )
    assert run([*args, "--prompt", "ROMEO:"], capsys)[2] == ""
    assert run([*args, "--prompt", "ROMEO: ☃"], capsys)[2].splitlines()[-1] == (
        "zoo generate: warning: the prompt has 1 character the tokenizer never saw in training (☃): it is <unk>, "
        "which decodes to nothing"
    )


def test_translate_says_which_input_characters_a_character_tokenizer_never_saw(language_model_checkpoints, capsys):
    """translate dropped them from the translation without a word (generate said so of its prompt); the check is
    one function for both (a byte-level BPE, as the Multi30k model's, has no unseen character)."""
    from zoo.inference.command import warn_of_unseen_characters

    tokenizer = load_trained(language_model_checkpoints["last"]).source_tokenizer
    warn_of_unseen_characters("translate", tokenizer, "".join(["Ein Hund 日本", "rennt ☃ ."]), "the input")
    assert capsys.readouterr().err == (
        "zoo translate: warning: the input has 3 characters the tokenizer never saw in training (日 本 ☃): each "
        "is <unk>, which decodes to nothing\n"
    )


def test_attention_on_a_text_longer_than_the_learned_positions_says_to_shorten_it(language_model_checkpoints, capsys):
    args = ["attention", "--ckpt_path", language_model_checkpoints["last"], "--text", "a" * 65]
    code, _, err = run([*args, "--out", "maps.png"], capsys)
    assert code == 2 and err == (
        "zoo attention: error: --text (or its translation) is 65 tokens, more than the 64 learned positions of "
        "the model (model.max_len); shorten --text or --target\n"
    )


def test_a_checkpoint_whose_weights_were_changed_is_one_line(language_model_checkpoints, tmp_path, capsys):
    """A weight re-shaped or missing in a copy of a checkpoint gave load_state_dict's traceback."""
    checkpoint = torch.load(language_model_checkpoints["last"], weights_only=True)
    name = next(key for key in checkpoint["state_dict"] if key.endswith("in_proj.weight"))
    checkpoint["state_dict"][name] = checkpoint["state_dict"][name][:1]
    damaged = tmp_path / "damaged.ckpt"
    torch.save(checkpoint, damaged)
    code, _, err = run(["generate", "--ckpt_path", str(damaged), "--max_new_tokens", "2"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(
        f"zoo generate: error: ckpt_path='{damaged}' holds weights that do not fit the model its hyperparameters "
        f"describe (size mismatch for {name}"
    ), err
    assert err.endswith("; the file was changed after training\n")


@pytest.mark.parametrize(
    ("knob", "reason"),
    [
        (True, "model.d_ff=128, not 64"),  # it was "other weights or shapes", naming nothing
        (False, "weight {key} of shape (128, 32), not (64, 32)"),  # a shape no knob of the record explains
    ],
)
def test_average_of_a_model_of_other_shapes_names_the_knob(translation_checkpoints, tmp_path, capsys, knob, reason):
    last = translation_checkpoints["last"]
    other = torch.load(last, weights_only=False)
    key = next(k for k, v in other["state_dict"].items() if v.shape == (64, 32))  # d_ff x d_model of TINY_MODEL
    other["state_dict"][key] = torch.zeros(128, 32)
    if knob:
        other["hyper_parameters"]["d_ff"] = 128
    torch.save(other, tmp_path / "other.ckpt")
    code, _, err = run(
        ["average", "--ckpt_path", last, str(tmp_path / "other.ckpt"), "--out", str(tmp_path / "a.ckpt")], capsys
    )
    expected = reason.format(key=key)
    assert code == 2 and f"holds another model than '{last}' ({expected}); average checkpoints of one run" in err, err


def test_attention_maps_have_a_colour_bar_and_the_text_as_title(translation_checkpoints, tmp_path, monkeypatch):
    """The figure said neither what the colours mean nor which translation it was drawn on."""
    from matplotlib.figure import Figure

    from zoo.inference import attention, maps

    drawn = []
    save = Figure.savefig
    monkeypatch.setattr(
        Figure, "savefig", lambda figure, *args, **kwargs: (drawn.append(figure), save(figure, *args, **kwargs))
    )
    model = load_trained(translation_checkpoints["last"], "cpu")
    own = maps.own_translation(model, "Ein Hund rennt .")
    maps.draw_example(model, "Ein Hund rennt .", tmp_path / "own.png")
    attention.run(["--ckpt_path", translation_checkpoints["last"], "--text", "Ein Hund rennt .", "--target",
                   "A dog runs .", "--out", str(tmp_path / "given.png")])  # fmt: skip
    titles = [figure.get_suptitle() for figure in drawn]
    assert titles == [f"'Ein Hund rennt .' → {own!r} (the model's own translation)",
                      "'Ein Hund rennt .' → 'A dog runs .' (--target)"]  # fmt: skip
    for figure in drawn:
        (bar,) = [ax for ax in figure.axes if ax.get_label() == "<colorbar>"]
        assert bar.get_ylabel() == "attention weight" and bar.get_ylim() == (0.0, 1.0)
    assert maps.map_title("To be") == "'To be'"
