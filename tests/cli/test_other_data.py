"""A checkpoint evaluated on other data reads it with its own tokenizers (the ids its model learned), so a folder
that holds only the split evaluated is enough; each such evaluation is recorded apart, under its folder."""

import math

import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, read_run
from zoo.cli.main import main
from zoo.data import LanguageModelDataModule

SST2 = str(CONFIGS / "encoder_only" / "sst2.yaml")


def rows(data_dir, split: str, start: int, count: int) -> str:
    return "".join((data_dir / "sst2" / f"{split}.jsonl").read_text().splitlines(keepends=True)[start : start + count])


@pytest.fixture
def trained(data_dir, cli_env):
    folder = cli_env / "sst2-small"
    folder.mkdir()
    (folder / "train.jsonl").write_text(rows(data_dir, "train", 0, 300))
    (folder / "validation.jsonl").write_text(rows(data_dir, "validation", 0, 60))
    args = ["--config", SST2, f"--data.path={folder}", *TINY_MODEL, "--data.vocab_size=200"]
    main(["fit", *args, "--trainer.max_steps=3"])
    (run_dir,) = (cli_env / "runs").iterdir()
    return run_dir


def test_a_folder_of_the_test_split_alone_is_tested_with_the_checkpoints_tokenizer(trained, data_dir, cli_env, capsys):
    other = cli_env / "elsewhere" / "sst2-small"  # one name, another folder: recorded apart from the first
    other.mkdir(parents=True)
    (other / "test.jsonl").write_text(rows(data_dir, "train", 300, 50))
    checkpoint = trained / "checkpoints" / "last.ckpt"
    main(["test", f"--config={trained / 'config.yaml'}", f"--data.path={other}", f"--ckpt_path={checkpoint}"])
    summary = read_run(trained)["summary"]
    (key,) = [key for key in summary["settings_evaluations"] if key.endswith("/test_acc")]
    assert key.startswith("path=sst2-small@")
    negative = cli_env / "negative"  # a test set of one class: the model's other class is not in the data
    negative.mkdir()
    (negative / "test.jsonl").write_text(
        "".join(r + "\n" for r in rows(data_dir, "train", 0, 400).splitlines() if '"label": 0' in r)
    )
    main(["test", f"--config={trained / 'config.yaml'}", f"--data.path={negative}", f"--ckpt_path={checkpoint}"])
    assert any(key.startswith("path=negative@") for key in read_run(trained)["summary"]["settings_evaluations"])
    extra = cli_env / "three-classes"
    extra.mkdir()
    (extra / "test.jsonl").write_text(rows(data_dir, "train", 300, 20) + '{"idx": 0, "sentence": "meh", "label": 2}\n')
    capsys.readouterr()
    with pytest.raises(SystemExit):  # the advice was to set model.num_classes=3, which the checkpoint refuses
        main(["test", f"--config={trained / 'config.yaml'}", f"--data.path={extra}", f"--ckpt_path={checkpoint}"])
    assert capsys.readouterr().err == (
        f"zoo: error: data.path={str(extra)!r} has the label 2, which this checkpoint cannot predict: it was trained "
        "with model.num_classes=2 (labels 0 ... 1)\n"
    )
    # a folder whose train split would train another tokenizer (it was "model.vocab_size=... is not valid")
    bigger = cli_env / "bigger"
    bigger.mkdir()
    (bigger / "train.jsonl").write_text(rows(data_dir, "train", 1000, 2000))
    (bigger / "validation.jsonl").write_text(rows(data_dir, "validation", 60, 60))
    # --ckpt_path last: the run of this model, trained on other data than the command's
    main(["validate", f"--config={trained / 'config.yaml'}", f"--data.path={bigger}", "--ckpt_path=last"])
    assert any(key.startswith("path=bigger@") for key in read_run(trained)["summary"]["settings_evaluations"])
    capsys.readouterr()
    with pytest.raises(SystemExit):  # unused, it would have been recorded as the setting of the evaluation
        main(
            [
                "test",
                f"--config={trained / 'config.yaml'}",
                f"--data.path={other}",
                f"--ckpt_path={checkpoint}",
                "--data.vocab_size=500",
            ]
        )
    assert capsys.readouterr().err.endswith(
        "zoo: error: data.vocab_size=500 is not used by `test` of a checkpoint, which reads the data with the "
        "checkpoint's own tokenizer (the run has data.vocab_size=200); leave it out, or give the run's own config "
        f"(--config {trained / 'config.yaml'}) where a config file sets it\n"
    )
    with pytest.raises(SystemExit):
        main(["validate", f"--config={trained / 'config.yaml'}", f"--data.path={other}", f"--ckpt_path={checkpoint}"])
    assert (
        capsys.readouterr().err
        == f"zoo: error: data.path={str(other)!r} has no validation split; `validate` needs one\n"
    )


def test_bits_per_character_of_the_test_split_use_its_own_characters_per_token(data_dir, cli_env, zoo_cache):
    """test_bpc was test_loss / ln 2 / the *validation* split's characters per token."""
    folder = cli_env / "wiki"
    folder.mkdir()
    lines = (data_dir / "wikitext2" / "train.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    for split, part in (("train", lines[:3000]), ("validation", lines[3000:3400]), ("test", lines[3400:3800])):
        (folder / f"{split}.txt").write_text("".join(part), encoding="utf-8")
    config = str(CONFIGS / "decoder_only" / "wikitext2.yaml")
    args = ["--config", config, f"--data.path={folder}", *TINY_MODEL, "--model.num_layers=1", "--data.vocab_size=300"]
    args += ["--data.block_size=32", "--data.batch_size=8"]
    main(["fit", *args, "--trainer.max_steps=2"])
    (run_dir,) = (cli_env / "runs").iterdir()
    main(["test", *args, f"--ckpt_path={run_dir / 'checkpoints' / 'last.ckpt'}"])
    (line,) = [line for line in read_run(run_dir)["metrics"] if "test_bpc" in line]
    data = LanguageModelDataModule(path=str(folder), tokenizer="bpe", vocab_size=300, cache_dir=str(zoo_cache))
    data.prepare()
    per_token = {split: data.characters_per_token(split) for split in ("validation", "test")}
    assert per_token["test"] != pytest.approx(per_token["validation"], rel=1e-3)
    assert line["test_bpc"] == pytest.approx(line["test_loss"] / math.log(2) / per_token["test"], rel=1e-6)
