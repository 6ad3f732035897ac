"""``fit --ckpt_path last`` continues the same run: folder, step count, schedule, W&B run id."""

from tests.cli.helpers import read_run, shakespeare_args
from zoo.cli import main


def test_resume_continues_the_same_run(data_dir, cli_env):
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
