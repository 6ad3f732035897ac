"""A run killed mid-epoch (SIGKILL; then SIGTERM for one of them) and resumed with ``--ckpt_path last`` gives the
loss curve of the uninterrupted run exactly, in one run folder and one W&B run, for each of the two kinds of
batching: the language model's random blocks and the token-budget buckets of sentences (translation; the
classifier's data module is the same sentence module, and its loop the same ``TaskModule``'s).

The kills are real: ``python -m zoo fit`` in a subprocess sends itself the signal at a step fixed in advance
(:class:`tests.cli.interrupter.SignalFromEnv`). Every run, the uninterrupted ones too, is a fresh process on one
thread, so that the arithmetic is the same.
"""

import os
import subprocess
import sys

import pytest
import torch

from tests.cli.helpers import CONFIGS, TINY_MODEL, VARIANTS, read_run
from tests.conftest import REPO
from zoo.cli.main import main

KILL = 8  # SIGKILL at the start of step 8: the last checkpoint is at step 6 and steps 6, 7 are done again
TERM = 10  # SIGTERM during step 10: Lightning finishes the step and the checkpoint is at step 11
RUN = [
    "--trainer.max_steps=14",
    "--checkpoint_every_n_steps=3",
    "--trainer.val_check_interval=5",
    "--trainer.limit_val_batches=2",  # not 1, which Lightning also reads as 1.0 (100%)
    "--trainer.log_every_n_steps=1",
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    '--trainer.callbacks=[{"class_path": "tests.cli.interrupter.SignalFromEnv"}]',
]
TERMINATED = "decoder_only"  # the variant also stopped by SIGTERM
COMPARED = ("train_loss", "lr", "val_loss", "val_acc", "val_bleu", "val_bpc")


def fit_args(variant: str, data_dir, runs_dir) -> list[str]:
    config, data, extra, _ = VARIANTS[variant]
    return [
        "fit",
        f"--config={CONFIGS / config}",
        f"--data.path={data_dir / data}",
        *TINY_MODEL,
        *extra,
        "--model.dropout=0.1",  # the dropout masks after a resume must be those of the uninterrupted run
        *RUN,
        f"--runs_dir={runs_dir}",
    ]


def start(args: list[str], signal: str, zoo_cache) -> subprocess.Popen:
    env = {**os.environ, "WANDB_MODE": "offline", "ZOO_CACHE": str(zoo_cache), "OMP_NUM_THREADS": "1"}
    env["ZOO_TEST_SIGNAL"] = signal
    env.pop("ZOO_RUN_DIR", None)
    env.pop("WANDB_SERVICE", None)  # this process's W&B service would keep the killed run's W&B run open
    command = [sys.executable, "-m", "zoo", *args]
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def curve(run_dir) -> list[dict]:
    """Every logged line's compared metrics, by step (wall-clock metrics left out)."""
    lines = [{k: v for k, v in line.items() if k in ("step", *COMPARED)} for line in read_run(run_dir)["metrics"]]
    return [line for line in lines if len(line) > 1]


@pytest.mark.slow
def test_killed_runs_resume_exactly(data_dir, cli_env, zoo_cache, one_thread):
    variants = ("decoder_only", "encoder_decoder")
    killed = {v: fit_args(v, data_dir, cli_env / v) for v in variants}
    # every run in a fresh process, as users start them (in this process, earlier tests can change how
    # jsonargparse reads a number: --trainer.limit_val_batches=2 became 2.0, another config); the first
    # wave, one process per variant, tokenises each data set and the later ones read the cache
    runs = {v: start(fit_args(v, data_dir, cli_env / "uninterrupted" / v), ":", zoo_cache) for v in variants}
    for variant, process in runs.items():
        assert process.wait(timeout=600) == 0, f"{variant}: {process.stderr.read()[-2000:]}"
    runs = {v: start(killed[v], f"{KILL}:SIGKILL", zoo_cache) for v in variants}
    for variant, process in runs.items():
        assert process.wait(timeout=600) == -9, f"{variant}: {process.stderr.read()[-2000:]}"
        (run_dir,) = (cli_env / variant).iterdir()
        assert torch.load(run_dir / "checkpoints" / "last.ckpt", weights_only=False)["global_step"] == 6
    # SIGTERM's handling is the same for every task: one variant is stopped a second time, while the other resumes
    others = {v: start([*killed[v], "--ckpt_path=last"], ":", zoo_cache) for v in variants if v != TERMINATED}
    process = start([*killed[TERMINATED], "--ckpt_path=last"], f"{TERM}:SIGTERM", zoo_cache)
    _, err = process.communicate(timeout=600)
    assert f"zoo: run interrupted at step {TERM + 1};" in err, err[-2000:]
    runs = {**others, TERMINATED: start([*killed[TERMINATED], "--ckpt_path=last"], ":", zoo_cache)}
    for variant, process in runs.items():
        assert process.wait(timeout=600) == 0, f"{variant}: {process.stderr.read()[-2000:]}"

    for variant in variants:
        (run_dir,) = (cli_env / variant).iterdir()
        (uninterrupted,) = (cli_env / "uninterrupted" / variant).iterdir()
        assert curve(run_dir) == curve(uninterrupted), variant
        assert [line["step"] for line in curve(run_dir) if "train_loss" in line] == list(range(14)), variant
        assert read_run(run_dir)["summary"]["status"] == "finished", variant
        wandb_id = (run_dir / "wandb_id").read_text()
        attempts = sorted(path.name for path in (run_dir / "wandb").glob("offline-run-*"))
        starts = 3 if variant == TERMINATED else 2
        assert len(attempts) == starts and all(name.endswith(f"-{wandb_id}") for name in attempts), (variant, attempts)


def short_epochs(data_dir, cli_env, runs: str) -> list[str]:
    """``fit`` of the language model on the first 1,100 characters of Tiny Shakespeare: 17 batches an epoch."""
    folder = cli_env / "shakespeare"
    folder.mkdir(exist_ok=True)
    for split, size in (("train", 1100), ("validation", 300)):
        text = (data_dir / "tinyshakespeare" / f"{split}.txt").read_text()[:size]
        (folder / f"{split}.txt").write_text(text)
    args = [*fit_args("decoder_only", data_dir, cli_env / runs), f"--data.path={folder}", "--data.block_size=16"]
    args += ["--data.batch_size=4", "--model.max_len=16", "--trainer.val_check_interval=40"]
    return [*args, "--model.schedule=constant"]  # the other schedules' length is max_steps


def test_a_run_continued_past_max_steps_finishes_its_epoch_then_reshuffles(data_dir, cli_env, one_thread):
    args = short_epochs(data_dir, cli_env, "continued")
    main([*args, "--trainer.max_steps=10"])  # stops at batch 10 of epoch 0
    main([*args, "--trainer.max_steps=40", "--ckpt_path=last"])  # the rest of epoch 0, all of epoch 1, ...
    main([*args, "--trainer.max_steps=40", f"--runs_dir={cli_env / 'uninterrupted'}"])
    (continued,) = (cli_env / "continued").iterdir()
    (uninterrupted,) = (cli_env / "uninterrupted").iterdir()
    losses = [[line["train_loss"] for line in curve(run) if "train_loss" in line] for run in (continued, uninterrupted)]
    assert losses[0] == losses[1]
    assert len(losses[1]) == 40 and losses[1][17:34] != losses[1][:17]  # epoch 1 is not epoch 0 again


def test_a_run_stopped_mid_epoch_continues_that_epoch(data_dir, cli_env, one_thread, monkeypatch):
    """Stopped at step 10 of a 17-batch epoch by ``max_steps``, or as ``max_time`` and ``EarlyStopping`` stop a
    run (``trainer.should_stop``), then continued under ``max_epochs=4``: Lightning counted the cut epoch as
    done, and the resumed run trained 51 of the 68 steps."""
    epochs = ["--trainer.max_epochs=4", "--trainer.max_steps=-1"]
    main([*short_epochs(data_dir, cli_env, "uninterrupted"), *epochs])
    (uninterrupted,) = (cli_env / "uninterrupted").iterdir()
    expected = [line["train_loss"] for line in curve(uninterrupted) if "train_loss" in line]
    assert len(expected) == 4 * 17
    for stop, budget in (("max_steps", ["--trainer.max_steps=10"]), ("should_stop", epochs)):
        args = [*short_epochs(data_dir, cli_env, stop), "--trainer.callbacks+=tests.cli.interrupter.StopFromEnv"]
        monkeypatch.setenv("ZOO_TEST_STOP", "10")
        main([*args, *budget])
        (continued,) = (cli_env / stop).iterdir()
        stopped = torch.load(continued / "checkpoints" / "last.ckpt", weights_only=False)
        assert (stopped["global_step"], stopped["epoch"]) == (10, 0), stop
        monkeypatch.delenv("ZOO_TEST_STOP")
        main([*args, *epochs, "--ckpt_path=last"])
        assert [line["train_loss"] for line in curve(continued) if "train_loss" in line] == expected, stop
        ended = torch.load(continued / "checkpoints" / "last.ckpt", weights_only=False)
        # the last epoch in progress with all its batches taken: a resume ends it and starts epoch 4
        assert (ended["global_step"], ended["epoch"]) == (68, 3), stop
        assert ended["LanguageModelDataModule"]["train_position"] == {"epoch": 4, "batches": 0, "ending": True}
