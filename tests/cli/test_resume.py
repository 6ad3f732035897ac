"""``fit --ckpt_path last`` continues the same run: folder, step count, schedule, W&B run id."""

from pathlib import Path

import pytest

from tests.cli.helpers import read_run, shakespeare_args
from zoo.cli.main import main


def test_resume_continues_the_same_run(data_dir, cli_env, caplog):
    args = [
        *shakespeare_args(data_dir),
    ]
    main([*args, "--trainer.max_steps=4"])
    (run_dir,) = (cli_env / "runs").iterdir()
    wandb_id = (run_dir / "wandb_id").read_text()
    main([*args, "--trainer.max_steps=8", "--ckpt_path=last"])
    assert list((cli_env / "runs").iterdir()) == [run_dir]
    assert (run_dir / "wandb_id").read_text() == wandb_id
    steps = [line["step"] for line in read_run(run_dir)["metrics"] if "train_loss" in line]
    assert steps == list(range(8)), steps  # the second fit started at step 4, not 0
    lrs = [line["lr"] for line in read_run(run_dir)["metrics"] if "lr" in line]
    assert lrs[4] != lrs[0]  # the schedule went on instead of restarting its warm-up at step 0
    # the cosine schedule is a function of the budget: the learning rate at step 4 is that of an 8-step run,
    # which a longer budget makes higher than the 4-step run's, and the resume says so
    assert (
        "zoo: resumed at step 4 with trainer.max_steps=8: the cosine schedule now ends at step 8 instead of 4: the "
        "learning rate at step 4 is "
    ) in caplog.text


def checkpoint_names(run_dir) -> set[str]:
    return {path.name for path in (run_dir / "checkpoints").glob("*.ckpt")}


def test_a_moved_run_folder_resumes_from_its_last_checkpoint_and_keeps_its_best(data_dir, cli_env, capsys):
    """Lightning forgot the best score and the last checkpoint of a moved folder: it wrote ``last-v1.ckpt``,
    which ``--ckpt_path last`` never reads (each resume redid the same steps), and took the first validation
    after the resume for the best."""
    args = [*shakespeare_args(data_dir), "--runs_dir=before"]
    main([*args, "--trainer.max_steps=6"])
    (cli_env / "before").rename(cli_env / "after")
    (run_dir,) = (cli_env / "after").iterdir()
    best = read_run(run_dir)["summary"]["best"]["val_loss"]
    with pytest.raises(SystemExit):  # its config.yaml records the folder it ran in: the error says so
        main(["fit", f"--config={run_dir / 'config.yaml'}", "--trainer.max_steps=9", "--ckpt_path=last"])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.endswith(
        f"(--config is the record of a run in {cli_env / 'after'}: pass --runs_dir {cli_env / 'after'})"
    )
    args[-1] = "--runs_dir=after"
    main([*args, "--trainer.max_steps=9", "--ckpt_path=last"])
    main([*args, "--trainer.max_steps=12", "--ckpt_path=last"])
    assert not [name for name in checkpoint_names(run_dir) if "-v" in name]
    steps = [line["step"] for line in read_run(run_dir)["metrics"] if "train_loss" in line]
    assert steps == list(range(12)), str(steps)  # each resume went on from the step before, none was redone
    summary = read_run(run_dir)["summary"]
    assert summary["best"]["val_loss"]["value"] <= best["value"]
    assert all(Path(path).is_file() and Path(path).parent == (run_dir / "checkpoints").resolve()
               for path in (summary["checkpoints"]["best"], summary["checkpoints"]["last"]))  # fmt: skip


def test_resuming_from_an_earlier_checkpoint_sets_the_later_ones_aside(data_dir, cli_env, caplog):
    args = [*shakespeare_args(data_dir), "--keep_last=3"]
    main([*args, "--trainer.max_steps=9"])
    (run_dir,) = (cli_env / "runs").iterdir()
    assert {"step3.ckpt", "step6.ckpt", "step9.ckpt", "last.ckpt"} <= checkpoint_names(run_dir)
    main([*args, "--trainer.max_steps=6", f"--ckpt_path={run_dir / 'checkpoints' / 'step3.ckpt'}"])
    (aside,) = (run_dir / "checkpoints").glob("abandoned-after-step3-*")
    assert {"step6.ckpt", "step9.ckpt", "last.ckpt"} <= {path.name for path in aside.iterdir()}
    assert f"the checkpoints of later steps are now in {aside}" in caplog.text
    assert not [name for name in checkpoint_names(run_dir) if "-v" in name or "step9" in name]
    summary = read_run(run_dir)["summary"]
    assert [Path(path).name for path in summary["checkpoints"]["kept"]] == ["step3.ckpt", "step6.ckpt"]


@pytest.mark.parametrize(
    ("budgets", "validation"),
    [((6, 9, 12), 2), ((4, 8, 10), 2), ((6, 9), 0)],
    ids=["ends-at-validation-steps", "ends-between-validations", "no-validation"],
)
def test_a_run_continued_with_larger_budgets_logs_each_step_once_at_its_step(data_dir, cli_env, budgets, validation):
    """From a checkpoint saved at the end of ``fit``, Lightning's logging step was one too far after a resume
    at a validation step (7, 8, 9 after step 6), and a further one at each resume."""
    args = [*shakespeare_args(data_dir), f"--trainer.limit_val_batches={validation}"]
    main([*args, f"--trainer.max_steps={budgets[0]}"])
    (run_dir,) = (cli_env / "runs").iterdir()
    for budget in budgets[1:]:
        main([*args, f"--trainer.max_steps={budget}", "--ckpt_path=last"])
    steps = [line["step"] for line in read_run(run_dir)["metrics"] if "train_loss" in line]
    assert steps == list(range(budgets[-1])), str(steps)
