"""What a newcomer reads: ``fit`` ends with its last validation (the quickstart's exact match, which the README
promises), Lightning's ``Seed set to 1`` only once the checks passed, and a wrong ``data.path`` as typed."""

import json
import logging
import os

import pytest

from tests.cli.helpers import CONFIGS
from zoo.cli.main import main
from zoo.data.loading import check_reachable
from zoo.training.session import final_validation

QUICKSTART = [
    "fit",
    f"--config={CONFIGS / 'quickstart.yaml'}",
    "--data.num_train=64",
    "--trainer.max_steps=2",
    "--trainer.val_check_interval=2",
    "--trainer.limit_val_batches=1",
    "--trainer.enable_progress_bar=false",
]


def test_final_validation_line_shows_fractions_as_percentages():
    summary = {
        "final": {"val_loss": 0.01234, "val_bleu": 100.0, "val_exact_match": 0.998, "train_loss": 2.0,
                  "partial/val_bleu": 3.0},
        "final_step": {"val_loss": 600, "val_bleu": 600, "val_exact_match": 600},
    }  # fmt: skip
    assert final_validation(summary) == "validation at step 600: val_loss 0.01234, val_bleu 100, val_exact_match 99.8%"
    assert final_validation({"final": {"train_loss": 1.0}}) is None


def test_quickstart_fit_ends_with_its_exact_match_and_seeds_once_checked(cli_env, caplog):
    """``make fit`` printed where its run went, but its exact match only in summary.json."""
    with caplog.at_level(logging.INFO):
        main(QUICKSTART)
    (run_dir,) = (cli_env / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    said = [record.getMessage() for record in caplog.records]
    assert f"zoo: {final_validation(summary)}" in said
    assert f"{summary['final']['val_exact_match'] * 100:.1f}%" in final_validation(summary)
    assert said.count("Seed set to 1") == 1


def test_an_error_of_fit_is_not_preceded_by_the_seed(cli_env, caplog, capsys):
    """``Seed set to 1`` (Lightning's seed_everything) came before every error of ``fit``."""
    with caplog.at_level(logging.INFO), pytest.raises(SystemExit) as exit_info:
        main([*QUICKSTART, "--model.warmup_steps=-1"])
    assert exit_info.value.code == 2 and "warmup_steps" in capsys.readouterr().err
    assert "Seed set" not in caplog.text


def test_a_wrong_data_path_is_shown_as_typed_not_as_a_link_resolved(tmp_path, monkeypatch):
    """Through a link (``data -> /elsewhere``) it showed ``/elsewhere/...``, a path the user never typed."""
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as error:
        check_reachable("./data/nope")
    typed = tmp_path / "data" / "nope"  # not tmp_path / "elsewhere" / "nope"
    assert str(error.value) == f"data.path='./data/nope' is not a folder (there is none at {typed})"
    (tmp_path / "elsewhere" / "tinyshakespeare").mkdir()
    with pytest.raises(FileNotFoundError) as error:  # a typo: the folders beside it that are near, as typed
        check_reachable("data/tinyshakespear/")
    assert str(error.value).endswith("; did you mean data/tinyshakespeare?")
    os.symlink(tmp_path / "gone", tmp_path / "link")
    with pytest.raises(FileNotFoundError) as error:
        check_reachable("./link")
    assert str(error.value) == (
        f"data.path='./link' is not a folder ({tmp_path / 'link'} is a link to {tmp_path / 'gone'}, which does not "
        f"exist)"
    )
