"""A NaN or infinite loss stops training before the optimiser step, naming the step and the last good
checkpoint, which stays as it was; ``--nonfinite_loss=skip`` skips the batch instead and goes on."""

import pytest
import torch

import zoo.tasks.optimizer
from tests.cli.helpers import CONFIGS, read_run, shakespeare_args
from zoo.cli.main import main


def poison(steps: list[int], value: str = "nan") -> str:
    spec = f'{{"class_path": "tests.cli.poison.PoisonLoss", "init_args": {{"steps": {steps}, "value": {value!r}}}}}'
    return f"--trainer.callbacks=[{spec}]"


def only_run(cli_env):
    (run_dir,) = (cli_env / "runs").iterdir()
    return run_dir


def finite(checkpoint: dict) -> bool:
    return all(torch.isfinite(t).all() for t in checkpoint["state_dict"].values() if t.is_floating_point())


@pytest.fixture(params=["on the device", "on the host"])
def decided(request, monkeypatch) -> str:
    """Where the guard decides: on the device (a fused AdamW drops the step; read at the steps that log and
    before a checkpoint), or on the host every step (another optimiser, several ranks, a GradScaler)."""
    if request.param == "on the host":
        monkeypatch.setattr(zoo.tasks.optimizer, "fused_optimizer_supported", lambda *args: False)
    return request.param


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_nonfinite_loss_stops_and_keeps_the_last_good_checkpoint(data_dir, cli_env, capsys, value, decided):
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=8", "--checkpoint_every_n_steps=2", poison([5], value)]
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 1
    run_dir = only_run(cli_env)
    last = run_dir / "checkpoints" / "last.ckpt"
    expected = (
        f"zoo: error: train loss is {value} at step 5; stopped before the optimiser step, so no weight changed. "
        f"The last good checkpoint is {last} (step 4); continue with --ckpt_path last --nonfinite_loss=skip to "
        f"skip such batches, or start again with a lower model.lr.\n"
    )
    assert capsys.readouterr().err.endswith(expected)
    checkpoint = torch.load(last, weights_only=False)
    assert checkpoint["global_step"] == 4 and finite(checkpoint)
    summary = read_run(run_dir)["summary"]
    assert summary["status"] == "failed" and summary["error"] == expected.removeprefix("zoo: error: ").strip()


@pytest.mark.parametrize(("precision", "hinted"), [("16-true", True), ("bf16-mixed", False)])
def test_under_float16_without_loss_scaling_the_error_says_what_to_use(data_dir, cli_env, capsys, precision, hinted):
    args = [
        *shakespeare_args(data_dir),
        "--trainer.max_steps=4",
        f"--trainer.precision={precision}",
        poison([1], "inf"),
    ]
    with pytest.raises(SystemExit):
        main(args)
    hint = (
        " Under trainer.precision=16-true (float16 with no loss scaling) that is likely an overflow: use "
        "bf16-mixed, or 16-mixed on a GPU.\n"
    )
    assert capsys.readouterr().err.endswith(hint) is hinted


def test_skip_drops_the_batch_and_goes_on(data_dir, cli_env, capsys, decided):
    main([*shakespeare_args(data_dir), "--trainer.max_steps=8", "--nonfinite_loss=skip", poison([2, 5])])
    run_dir = only_run(cli_env)
    assert "zoo: train loss nan at step 5; batch skipped (nonfinite_loss=skip)" in capsys.readouterr().err
    record = read_run(run_dir)
    assert record["summary"]["status"] == "finished" and record["summary"]["skipped_steps"] == [2, 5]
    checkpoint = torch.load(run_dir / "checkpoints" / "last.ckpt", weights_only=False)
    assert checkpoint["global_step"] == 8 and finite(checkpoint)
    adam_steps = {float(state["step"]) for state in checkpoint["optimizer_states"][0]["state"].values()}
    assert adam_steps == {6.0}  # the two skipped steps changed no weight and no optimiser state


@pytest.mark.parametrize(
    "bad, message",
    [
        (["--nonfinite_loss=ignore"], "nonfinite_loss='ignore' is not valid; choose one of: 'stop', 'skip'"),
        (
            ["--checkpoint_every_n_steps=0"],
            "checkpoint_every_n_steps='0' is not valid; it must be a positive integer or null (unset)",
        ),
        (
            ["--checkpoint_every_n_steps=5", "--trainer.enable_checkpointing=false"],
            "checkpoint_every_n_steps=5 needs checkpoints, but trainer.enable_checkpointing=false",
        ),
        (["--keep_last=-1"], "keep_last='-1' is not valid; it must be an integer >= 0"),
        (
            ["--keep_last=3", "--trainer.enable_checkpointing=false"],
            "keep_last=3 needs checkpoints, but trainer.enable_checkpointing=false",
        ),
    ],
)
def test_bad_resilience_options_stop_in_one_line(data_dir, cli_env, capsys, bad, message):
    with pytest.raises(SystemExit) as exit_info:
        main([*shakespeare_args(data_dir), *bad])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.endswith(f"zoo: error: {message}\n")
    assert not (cli_env / "runs").exists()  # nothing was created


def test_a_bad_option_in_a_config_file_is_named_as_the_option(cli_env, capsys, tmp_path):
    """jsonargparse's restricted type says only the key; it is the command's own option, not a model field."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("keep_last: -1\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", "--config", str(CONFIGS / "quickstart.yaml"), "--config", str(bad), "--print_config"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == "zoo: error: keep_last='-1' is not valid; it must be an integer >= 0\n"
