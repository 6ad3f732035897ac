"""What a run prints: no messages a user cannot act on, steps out of max_steps; W&B metric directions."""

import shlex
from types import SimpleNamespace

from lightning.pytorch.utilities.model_summary import get_human_readable_count

from tests.cli.helpers import read_run, shakespeare_args
from zoo.cli.main import main
from zoo.runs.wandb_logger import define_summaries, make_wandb_logger

NOISE = ("💡 Tip", "anonymous setting", "LeafSpec", "`weights_only` was not set", "v_num", "Epoch 0/-")


def test_a_run_prints_no_noise_and_counts_steps(data_dir, cli_env, capfd, caplog):
    args = [a for a in shakespeare_args(data_dir) if a != "--trainer.enable_progress_bar=false"]
    main([*args, "--trainer.max_steps=4"])
    out, err = capfd.readouterr()
    printed = out + err + caplog.text
    assert not [noise for noise in NOISE if noise in printed], printed
    assert "4/4" in printed  # the bar counts optimiser steps out of max_steps
    assert "upload it (needs a W&B account) with: wandb sync runs/" in printed
    assert "(config, metrics.jsonl, summary.json, checkpoints/)\n" in printed


def test_the_model_summary_is_one_line_with_the_parameter_count(data_dir, cli_env, capfd, caplog):
    args = [a for a in shakespeare_args(data_dir) if a != "--trainer.enable_model_summary=false"]
    main([*args, "--trainer.max_steps=2", "--trainer.precision=bf16-mixed"])
    out, err = capfd.readouterr()
    printed = out + err + caplog.text
    (line,) = [line for line in caplog.text.splitlines() if "zoo: model " in line]
    record = read_run(next((cli_env / "runs").iterdir()))
    count = int(record["summary"]["final"]["parameters"])  # what the task logs and compare shows
    assert line.endswith(f"zoo: model LanguageModelTask (DecoderOnly): {get_human_readable_count(count)} parameters")
    # Lightning's table: a FLOPs column of zeros, a size warning under mixed precision, a note on the callback
    lightning = ("FLOPs", "Total params", "not supported by the model summary", "already configured")
    assert not [noise for noise in lightning if noise in printed], printed


def test_validating_a_checkpoint_prints_no_note_on_its_callbacks(data_dir, cli_env, recwarn, caplog):
    main(shakespeare_args(data_dir))
    (checkpoint,) = (cli_env / "runs").glob("*/checkpoints/last.ckpt")
    main(["validate", *shakespeare_args(data_dir)[1:], f"--ckpt_path={checkpoint}"])
    warned = [str(w.message) for w in recwarn]
    assert "zoo: run folder" in caplog.text and not [w for w in warned if "callbacks used to create" in w], warned


def test_evaluation_metrics_have_their_direction_in_wandb():
    calls = []
    logger = SimpleNamespace(
        experiment=SimpleNamespace(define_metric=lambda name, **kw: calls.append((name, kw["summary"]))),
        safely=lambda what, call: call(),  # the GuardedWandbLogger's guard, passing the call through
    )
    define_summaries(logger)
    directions = dict(calls)
    assert directions["val_loss"] == "min" and directions["val_ppl"] == "min" and directions["val_bpc"] == "min"
    assert directions["val_bleu"] == "max" and directions["val_acc"] == "max" and directions["val_f1"] == "max"
    assert {directions[f"test_{name}"] for name in ("loss", "bleu", "acc")} == {"last"}  # not the best test
    calls.clear()
    define_summaries(logger, fit=False)  # validate/test: a re-measured checkpoint leaves fit's best alone
    directions = dict(calls)
    assert directions["val_loss"] == directions["val_bleu"] == "none" and directions["test_bleu"] == "last"


def test_the_wandb_logger_passes_no_anonymous_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "offline")
    logger = make_wandb_logger(tmp_path, "run", "zoo")
    assert "anonymous" not in logger._wandb_init


def test_the_wandb_sync_command_is_one_the_shell_runs_in_a_folder_with_a_space(data_dir, cli_env, capfd, caplog):
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2", "--runs_dir=my runs"])
    capfd.readouterr()
    (line,) = [line for line in caplog.text.splitlines() if "wandb sync " in line]
    folder, pattern = shlex.split(line.split("wandb sync ", 1)[1])[0].split("/wandb/")
    assert len(list((cli_env / folder / "wandb").glob(pattern))) == 1


def test_the_step_bar_is_one_clock_over_every_epoch(tmp_path):
    """Lightning reset the bar at each epoch: after 600 steps over many epochs it read ``600/600 0:00:10`` (the
    last epoch's time and rate) for an 89 s run."""
    from lightning.pytorch import Trainer
    from lightning.pytorch.demos.boring_classes import BoringModel

    from zoo.training.progress import StepProgressBar

    class Watch(StepProgressBar):
        starts: list = []

        def on_train_epoch_end(self, trainer, pl_module):
            super().on_train_epoch_end(trainer, pl_module)
            task = self.progress.tasks[self.train_progress_bar_id]
            self.starts.append((task.start_time, task.completed, task.total))

    bar = Watch()
    trainer = Trainer(max_steps=6, limit_train_batches=2, limit_val_batches=0, callbacks=[bar], logger=False,
                      enable_checkpointing=False, enable_model_summary=False, default_root_dir=tmp_path)  # fmt: skip
    trainer.fit(BoringModel())
    assert trainer.current_epoch == 3 and len(bar.starts) == 3
    assert len({start for start, _, _ in bar.starts}) == 1  # one task, started once
    assert [(done, total) for _, done, total in bar.starts] == [(2, 6), (4, 6), (6, 6)]


def test_python_m_zoo_outside_its_environment_says_to_activate_it():
    """It was a traceback ending in ModuleNotFoundError: No module named 'jsonargparse'."""
    import subprocess
    import sys

    from tests.conftest import REPO

    # -S: this Python without its site-packages, as the system Python of a shell without the venv activated
    result = subprocess.run([sys.executable, "-S", "-m", "zoo", "fit"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    missing = result.stderr.removeprefix("zoo: error: ").split(" ", 1)[0]  # the first dependency imported
    assert missing in ("yaml", "jsonargparse", "lightning", "torch") and result.stderr == (
        f"zoo: error: {missing} is not installed for {sys.executable}, the Python that ran this; zoo's "
        f"dependencies are in its virtual environment: run `source .venv/bin/activate` (or `make install`, which "
        f"makes it), then the same command\n"
    )
