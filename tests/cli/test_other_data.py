"""A checkpoint evaluated on other data reads it with its own tokenizers (the ids its model learned), so a folder
that holds only the split evaluated is enough; each such evaluation is recorded apart, under its folder."""

import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, read_run
from zoo.cli import main

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
    # a folder whose train split would train another tokenizer (it was "model.vocab_size=... is not valid")
    bigger = cli_env / "bigger"
    bigger.mkdir()
    (bigger / "train.jsonl").write_text(rows(data_dir, "train", 1000, 2000))
    (bigger / "validation.jsonl").write_text(rows(data_dir, "validation", 60, 60))
    main(["validate", f"--config={trained / 'config.yaml'}", f"--data.path={bigger}", f"--ckpt_path={checkpoint}"])
    assert any(key.startswith("path=bigger@") for key in read_run(trained)["summary"]["settings_evaluations"])
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["validate", f"--config={trained / 'config.yaml'}", f"--data.path={other}", f"--ckpt_path={checkpoint}"])
    assert (
        capsys.readouterr().err
        == f"zoo: error: data.path={str(other)!r} has no validation split; `validate` needs one\n"
    )
