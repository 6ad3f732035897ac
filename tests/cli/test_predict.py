"""``predict`` writes one JSON line per input example of the split, in the split's order, into the run folder."""

import json
import shutil

import pytest
import torch

from tests.cli.helpers import CONFIGS, FEW_STEPS, TINY_MODEL, VARIANTS, read_run, small_copy
from zoo.cli.main import main
from zoo.data import ClassificationDataModule, LanguageModelDataModule
from zoo.data.tokenizer import EOS_ID, PAD_ID
from zoo.decoding import generate_ids
from zoo.tasks import ClassificationTask, LanguageModelTask


def fit_and_predict(config, path, extra, cli_env, predict_extra=()):
    common = ["--config", str(CONFIGS / config), f"--data.path={path}", *TINY_MODEL, *extra, *FEW_STEPS]
    main(["fit", *common])
    (run_dir,) = (cli_env / "runs").iterdir()
    main(["predict", *common, *predict_extra, f"--ckpt_path={run_dir / 'checkpoints' / 'last.ckpt'}"])
    assert list((cli_env / "runs").iterdir()) == [run_dir]
    return run_dir


def read_predictions(run_dir, split, apart: str | None = None, made_by: str = "last-step6"):
    """The predictions of ``split``; ``apart``: those made with other settings than the run's (``beam_size=2``)."""
    path = run_dir / ".".join(["predictions", split, *([apart] if apart else []), made_by, "jsonl"])
    key = f"{apart}/{split}" if apart else split
    assert read_run(run_dir)["summary"]["predictions"][key] == str(path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [line["index"] for line in lines] == list(range(len(lines)))
    return [line["prediction"] for line in lines]


def test_language_model_continues_every_block_in_order_as_generate_does(data_dir, cli_env, zoo_cache):
    config, name, extra, _ = VARIANTS["decoder_only"]
    run_dir = fit_and_predict(config, data_dir / name, extra, cli_env, ["--model.max_new_tokens=3"])
    # Tiny Shakespeare has no test split; 3 new tokens, where the run has 64: predictions of their own
    predictions = read_predictions(run_dir, "validation", "max_new_tokens=3")
    assert len(predictions) == 1742 and not (run_dir / "predictions.validation.last-step6.jsonl").exists()

    data = LanguageModelDataModule(path=str(data_dir / name), cache_dir=str(zoo_cache))
    data.prepare()
    task = LanguageModelTask.load_from_checkpoint(run_dir / "checkpoints" / "last.ckpt", map_location="cpu").eval()
    for index in (0, 1, 977, 1741):
        block = data.collate("validation", [index])["tokens"][0]
        (continuation,) = generate_ids(task.network, block, 3, EOS_ID, PAD_ID, window=task.hparams.max_len)
        assert predictions[index] == data.tokenizer.decode(continuation), index


def test_classifier_predicts_a_label_per_sentence_in_order(data_dir, cli_env, zoo_cache):
    config, name, extra, _ = VARIANTS["encoder_only"]
    path = small_copy(data_dir, name, cli_env / "sst2", {"train": 300, "validation": 40})
    run_dir = fit_and_predict(config, path, [*extra, "--data.vocab_size=200"], cli_env)
    predictions = read_predictions(run_dir, "validation")

    data = ClassificationDataModule(path=str(path), vocab_size=200, cache_dir=str(zoo_cache))
    data.prepare()
    batch = data.collate("validation", list(range(40)))
    task = ClassificationTask.load_from_checkpoint(run_dir / "checkpoints" / "last.ckpt", map_location="cpu").eval()
    with torch.no_grad():
        assert predictions == task(batch["tokens"], batch["padding_mask"]).argmax(dim=-1).tolist()


@pytest.mark.parametrize("splits", [("validation",), ("validation", "test")])
def test_translation_writes_one_greedy_translation_per_source(splits, data_dir, cli_env):
    config, name, extra, _ = VARIANTS["encoder_decoder"]
    counts = {"train": 300, "validation": 30, "test": 20}
    path = small_copy(data_dir, name, cli_env / "pairs", {s: counts[s] for s in ("train", *splits)})
    run_dir = fit_and_predict(config, path, [*extra, "--data.vocab_size=300"], cli_env)
    predictions = read_predictions(run_dir, splits[-1])  # the test split where there is one
    assert len(predictions) == counts[splits[-1]] and all(isinstance(p, str) for p in predictions)


def test_predictions_with_another_decoder_go_to_a_file_of_their_own(data_dir, cli_env):
    """A beam search's translations never replace the run's own (greedy) predictions, and each is recorded."""
    config, name, extra, _ = VARIANTS["encoder_decoder"]
    path = small_copy(data_dir, name, cli_env / "pairs", {"train": 300, "validation": 30, "test": 20})
    run_dir = fit_and_predict(config, path, [*extra, "--data.vocab_size=300"], cli_env)
    greedy = (run_dir / "predictions.test.last-step6.jsonl").read_text()
    args = ["--config", str(CONFIGS / config), f"--data.path={path}", *TINY_MODEL, *extra, *FEW_STEPS]
    last = run_dir / "checkpoints" / "last.ckpt"
    main(["predict", *args, "--data.vocab_size=300", "--model.beam_size=2", f"--ckpt_path={last}"])
    assert (run_dir / "predictions.test.last-step6.jsonl").read_text() == greedy
    assert len(read_predictions(run_dir, "test", "beam_size=2")) == 20
    assert sorted(read_run(run_dir)["summary"]["predictions"]) == ["beam_size=2/test", "test"]
    main(["predict", *args, "--data.vocab_size=300", "--trainer.limit_predict_batches=1", f"--ckpt_path={last}"])
    assert (run_dir / "predictions.test.last-step6.jsonl").read_text() == greedy  # a partial predict is apart too
    partial = run_dir / "predictions.test.partial.last-step6.jsonl"  # one batch: some examples, in the split's order
    assert read_run(run_dir)["summary"]["predictions"]["partial/test"] == str(partial)
    indices = [json.loads(line)["index"] for line in partial.read_text().splitlines()]
    assert 0 < len(indices) < 20 and indices == sorted(set(indices))


def test_predictions_beside_a_checkpoint_outside_a_run_never_replace_older_ones(data_dir, cli_env, zoo_cache):
    """Outside a run folder no record says which settings an older file had: each predict replaced the last."""
    name = "sst2"
    path = small_copy(data_dir, name, cli_env / "sst2", {"train": 300, "validation": 40})
    run_dir = fit_and_predict("encoder_only/sst2.yaml", path, ["--data.vocab_size=200"], cli_env)
    outside = cli_env / "outside"
    outside.mkdir()
    shutil.copy(run_dir / "checkpoints" / "last.ckpt", outside / "model.ckpt")
    args = ["--config", str(CONFIGS / "encoder_only" / "sst2.yaml"), f"--data.path={path}", *TINY_MODEL, *FEW_STEPS]
    for _ in range(2):
        main(["predict", *args, "--data.vocab_size=200", f"--ckpt_path={outside / 'model.ckpt'}"])
    files = sorted(p.name for p in outside.glob("predictions.*"))
    assert files == ["predictions.validation.model-step6-2.jsonl", "predictions.validation.model-step6.jsonl"]
