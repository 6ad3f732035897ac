"""A knob the run cannot honour is refused, or said in one line before training and recorded as used
(``summary.json``'s ``adjusted``; the model's ``vocab_size`` in its config): never overridden silently.

``data.tokenizer=bpe`` with ``data.vocab_size=100`` trained a 260-token vocabulary while the run recorded 100 for
the data and 260 for the model.
"""

import json
from types import SimpleNamespace

import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, read_run, small_copy
from zoo.cli.main import main
from zoo.compare.records import NOT_APPLYING, load_run_folder
from zoo.data import ClassificationDataModule
from zoo.data.tokenizer import train_tokenizer
from zoo.training.adjusted_knobs import adjusted_knobs, say

WIKITEXT = str(CONFIGS / "decoder_only" / "wikitext2.yaml")
TRAINER = SimpleNamespace(num_devices=1, num_nodes=1, max_steps=100, precision="32-true")
STEPS = ["--trainer.max_steps=2", "--trainer.limit_val_batches=1", "--trainer.enable_progress_bar=false"]


def _small_wikitext(data_dir, folder, lines: int = 60):
    folder.mkdir()
    for split in ("train", "validation"):
        text = (data_dir / "wikitext2" / f"{split}.txt").read_text(encoding="utf-8").splitlines(keepends=True)
        (folder / f"{split}.txt").write_text("".join(text[:lines]), encoding="utf-8")
    return folder


@pytest.mark.parametrize("size", [5, 100, 259])
def test_bpe_vocabulary_below_its_byte_alphabet_is_refused(size, data_dir, cli_env, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", "--config", WIKITEXT, f"--data.path={data_dir / 'wikitext2'}", f"--data.vocab_size={size}"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        f"zoo: error: data.vocab_size={size} is not valid for data.tokenizer='bpe'; it must be at least 260 (the 4 "
        "special tokens and the 256 bytes of its byte-level alphabet)\n"
    )
    assert not (cli_env / "runs").exists()


def test_bpe_at_its_smallest_vocabulary_trains_exactly_that_many_tokens(data_dir):
    lines = (data_dir / "wikitext2" / "train.txt").read_text(encoding="utf-8").splitlines()[:200]
    assert train_tokenizer("bpe", lines, 260).get_vocab_size() == 260


def test_knobs_the_data_or_the_machine_cannot_honour_are_said_and_recorded(data_dir, cli_env, caplog):
    """A train split too small for ``data.vocab_size`` and ``data.batch_size``, and ``16-mixed`` on a CPU."""
    path = _small_wikitext(data_dir, cli_env / "small")
    args = [f"--data.path={path}", "--data.vocab_size=5000", "--data.block_size=32", "--data.batch_size=500"]
    precision = ["--trainer.precision=16-mixed", "--trainer.accelerator=cpu"]
    main(["fit", "--config", WIKITEXT, *args, *TINY_MODEL, "--model.num_layers=1", *STEPS, *precision])
    run_dir = next((cli_env / "runs").iterdir())
    run = read_run(run_dir)
    adjusted, used = run["summary"]["adjusted"], run["config"]["model.vocab_size"]
    assert run["config"]["data.vocab_size"] == 5000 and used < 5000  # the config as given, the record as used
    assert adjusted["data.vocab_size"] == {
        "given": 5000,
        "used": used,
        "why": f"the train split has no more pieces to merge into a bpe vocabulary; model.vocab_size={used}",
    }
    blocks = adjusted["data.batch_size"]["used"]
    assert adjusted["data.batch_size"]["given"] == 500 and 0 < blocks < 500
    assert adjusted["trainer.precision"] == {
        "given": "16-mixed",
        "used": "bf16-mixed",
        "why": "Lightning has no float16 autocast on a CPU and runs it as bf16-mixed",
    }
    for line in say(adjusted):  # each said once, before training
        assert caplog.text.count(line) == 1 and caplog.text.index(line) < caplog.text.index("zoo: best checkpoint")
    assert (
        f"zoo: data.batch_size=500 is run as {blocks}: the train split has {blocks} blocks of data.block_size=32 "
        "tokens, so no batch holds more" in caplog.text
    )


def test_knobs_that_another_knobs_value_leaves_unread_are_said_and_recorded(data_dir, cli_env, caplog):
    """``model.rope_theta`` under ALiBi and ``model.min_lr_ratio`` under a constant schedule trained nothing."""
    path = _small_wikitext(data_dir, cli_env / "small", lines=200)
    args = [f"--data.path={path}", "--data.vocab_size=300", "--data.block_size=16", "--data.batch_size=4"]
    unread = ["--model.pe=alibi", "--model.rope_theta=500000", "--model.schedule=constant", "--model.min_lr_ratio=0.5"]
    main(["fit", "--config", WIKITEXT, *args, *TINY_MODEL, "--model.num_layers=1", *STEPS, *unread])
    run_dir = next((cli_env / "runs").iterdir())
    summary = read_run(run_dir)["summary"]
    assert summary["not_applying"] == ["model.rope_theta", "model.min_lr_ratio"]
    said = "trained without, recorded as not applying (summary.json's not_applying), and never a variation in compare"
    for line in (
        f"zoo: model.pe='alibi' does not use model.rope_theta=500000.0: {said}",
        f"zoo: model.schedule='constant' does not use model.min_lr_ratio=0.5: {said}",
    ):
        assert caplog.text.count(line) == 1 and caplog.text.index(line) < caplog.text.index("zoo: best checkpoint")
    run = load_run_folder(run_dir)
    assert run.config["model.rope_theta"] == run.config["model.min_lr_ratio"] == NOT_APPLYING


def test_a_run_that_honours_every_knob_records_no_adjustment(data_dir, cli_env, caplog):
    path = _small_wikitext(data_dir, cli_env / "small", lines=200)
    args = [f"--data.path={path}", "--data.vocab_size=300", "--data.block_size=16", "--data.batch_size=4"]
    main(["fit", "--config", WIKITEXT, *args, *TINY_MODEL, "--model.num_layers=1", *STEPS])
    summary = json.loads((next((cli_env / "runs").iterdir()) / "summary.json").read_text())
    assert "adjusted" not in summary and " is run as " not in caplog.text
    assert "not_applying" not in summary and " does not use " not in caplog.text


def test_a_wordpiece_alphabet_above_the_vocabulary_size_is_adjusted(data_dir, cli_env, zoo_cache):
    path = small_copy(data_dir, "sst2", cli_env / "sst2", {"train": 200, "validation": 20})
    data = ClassificationDataModule(path=str(path), vocab_size=20, cache_dir=str(zoo_cache))
    data.prepare()
    used = data.num_tokens
    assert used > 20
    hparams = SimpleNamespace(lr=1e-3, schedule="cosine", warmup_steps=10, min_lr_ratio=0.1)
    assert adjusted_knobs(data, hparams, TRAINER, None) == {
        "data.vocab_size": {
            "given": 20,
            "used": used,
            "why": "the characters of the train split (and their continuation pieces) alone take more tokens; "
            f"model.vocab_size={used}",
        }
    }


@pytest.mark.parametrize(
    ("schedule", "max_steps", "peak"),
    [("cosine", 100, 100 / 400), ("inverse_sqrt", 40, 40 / 400), ("constant", 399, 399 / 400), ("cosine", 400, None)],
)
def test_a_run_shorter_than_its_warmup_says_the_learning_rate_it_reaches(schedule, max_steps, peak):
    """``model.lr`` is the schedule's peak, reached at ``model.warmup_steps`` (the linear warm-up: step s of w
    trains at (s + 1) / w of it)."""
    hparams = SimpleNamespace(lr=2e-3, schedule=schedule, warmup_steps=400, min_lr_ratio=0.1)
    data = SimpleNamespace(tokenizers_given=True, batch_size=None)
    found = adjusted_knobs(data, hparams, SimpleNamespace(**{**vars(TRAINER), "max_steps": max_steps}), None)
    if peak is None:
        assert found == {}
        return
    assert found == {
        "model.lr": {
            "given": 2e-3,
            "used": pytest.approx(2e-3 * peak, rel=1e-12),
            "why": f"trainer.max_steps={max_steps} ends before model.warmup_steps=400, so the learning rate peaks "
            f"at {peak:.1%} of it",
        }
    }
