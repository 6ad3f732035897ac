"""Which splits a data module uses: train and validation are needed, a test split is used when it exists
(a user's own corpus often has none)."""

import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL
from zoo.cli.main import main
from zoo.data import ClassificationDataModule


def lines(path, count: int, start: int = 0) -> str:
    return "".join(path.read_text().splitlines(keepends=True)[start : start + count])


@pytest.fixture
def sst2_with_test(data_dir, tmp_path):
    folder = tmp_path / "sst2"
    folder.mkdir()
    train = data_dir / "sst2" / "train.jsonl"
    (folder / "train.jsonl").write_text(lines(train, 400))
    (folder / "validation.jsonl").write_text(lines(data_dir / "sst2" / "validation.jsonl", 100))
    (folder / "test.jsonl").write_text(lines(data_dir / "sst2" / "validation.jsonl", 30, start=100))
    return folder


def test_a_test_split_that_exists_is_used(sst2_with_test, zoo_cache):
    data = ClassificationDataModule(path=str(sst2_with_test), vocab_size=300, cache_dir=str(zoo_cache))
    data.prepare()
    assert data.splits == ("train", "validation", "test")
    assert (data.num_examples("validation"), data.num_examples("test")) == (100, 30)


def test_fit_needs_no_test_split_and_test_says_so(data_dir, cli_env, capsys):
    folder = cli_env / "corpus"
    folder.mkdir()
    for split, count in (("train", 300), ("validation", 40)):
        (folder / f"{split}.jsonl").write_text(lines(data_dir / "multi30k" / f"{split}.jsonl", count))
    args = [
        "--config", str(CONFIGS / "encoder_decoder" / "multi30k.yaml"), f"--data.path={folder}", *TINY_MODEL,
        "--model.num_encoder_layers=1", "--model.num_decoder_layers=1", "--data.vocab_size=300",
        "--trainer.max_steps=2", "--trainer.enable_progress_bar=false", "--model.bleu_batches=1",
    ]  # fmt: skip
    main(["fit", *args])
    (run_dir,) = (cli_env / "runs").iterdir()
    with pytest.raises(SystemExit) as exit_info:
        main(["test", *args, f"--ckpt_path={run_dir / 'checkpoints' / 'last.ckpt'}"])
    assert exit_info.value.code == 2
    assert "has no test split; `test` needs one" in capsys.readouterr().err


def test_a_missing_column_is_named_whatever_splits_exist(data_dir, cli_env, capsys):
    folder = cli_env / "corpus"
    folder.mkdir()
    (folder / "train.jsonl").write_text(lines(data_dir / "sst2" / "train.jsonl", 50))
    (folder / "validation.jsonl").write_text(lines(data_dir / "sst2" / "validation.jsonl", 20))
    config = str(CONFIGS / "encoder_only" / "sst2.yaml")
    with pytest.raises(SystemExit):
        main(["fit", "--config", config, f"--data.path={folder}", "--data.text_column=text"])
    assert "data.text_column='text' is not a column of data.path=" in capsys.readouterr().err
