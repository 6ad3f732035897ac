"""Under ``wandb agent`` a run joins its sweep: the run id the agent assigns, and the sweep's id, group and job
type, land in the W&B run and in the local run record."""

import json
import shutil
import signal

import pytest
import yaml

from tests.cli.helpers import CONFIGS, read_run, shakespeare_args
from zoo.cli.main import main


def test_fit_takes_run_id_sweep_id_group_and_job_type_from_the_agent(data_dir, cli_env, monkeypatch):
    monkeypatch.setenv("WANDB_RUN_ID", "agent7id")
    monkeypatch.setenv("WANDB_SWEEP_ID", "sweep42")
    monkeypatch.setenv("WANDB_RUN_GROUP", "do-pe")
    monkeypatch.setenv("WANDB_JOB_TYPE", "pe=rope")
    main([*shakespeare_args(data_dir), "--model.pe=rope", "--run_name=do-pe-rope-s1"])
    run_dir = cli_env / "runs" / "do-pe-rope-s1"
    assert (run_dir / "wandb_id").read_text() == "agent7id"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["status"], summary["group"], summary["job_type"], summary["sweep_id"]) == (
        "finished",
        "do-pe",
        "pe=rope",
        "sweep42",
    )
    (offline_run,) = (run_dir / "wandb").glob("offline-run-*-agent7id")  # the W&B run has the agent's id
    assert offline_run.is_dir()


# the arguments `wandb agent` gives a trial, made by wandb's own code (wandb/sdk/launch/sweeps/utils.py); a
# restarted trial (W&B's `resume` command) gets the run's whole W&B config back: W&B's `_wandb` and the zoo's
# `run.*` record of where it ran among it
PARAMETERS = {"model.pe": "rope", "seed_everything": 1}
RESTART_EXTRAS = {
    "_wandb": {"cli_version": "0.31.0", "python_version": "3.11.9", "start_time": 1764859200.5, "t": {"1": [1, 55]}},
    "run.world_size": 1,
    "run.effective_batch.per_step": 96,
}


def agent_arguments(form: str, restart: bool = False) -> list[str]:
    from wandb.sdk.launch.sweeps.utils import create_sweep_command_args

    values = {**PARAMETERS, **(RESTART_EXTRAS if restart else {})}
    return create_sweep_command_args({"args": {key: {"value": value} for key, value in values.items()}})[form]


def under_agent(monkeypatch, run_id: str) -> None:
    monkeypatch.setenv("WANDB_RUN_ID", run_id)
    monkeypatch.setenv("WANDB_SWEEP_ID", "sweep42")


@pytest.fixture(autouse=True)
def wandb_settings_of_this_test():
    """W&B keeps the environment it read at its first ``wandb.init`` in the process (an agent's run and sweep id,
    which it takes over ``init``'s ``id``); each test, as each trial of an agent, starts from its own."""
    import wandb

    wandb.teardown()
    yield
    wandb.teardown()


@pytest.mark.parametrize("form", ["args", "args_no_equals", "args_no_boolean_flags"])
def test_a_restarted_trials_arguments_are_read_in_each_form_the_agent_writes(form, cli_env, capsys):
    with pytest.raises(SystemExit) as done:
        main(
            [
                "fit",
                "--config",
                str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml"),
                *agent_arguments(form, True),
                "--print_config",
            ]
        )
    assert done.value.code == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert (printed["model"]["init_args"]["pe"], printed["seed_everything"]) == ("rope", 1)
    assert "_wandb" not in printed and "run" not in printed


@pytest.mark.parametrize("form", ["args_no_hyphens", "args_json"])
def test_a_parameter_form_fit_does_not_read_is_one_line(form, cli_env, capsys):
    with pytest.raises(SystemExit) as done:
        main(["fit", "--config", str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml"), *agent_arguments(form)])
    assert done.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    shown = repr(agent_arguments(form)[0][:60])
    assert line == (
        f"zoo: error: {shown} is not an option: zoo fit reads --key=value; a sweep's command passes its parameters "
        "so with ${args} (or ${args_no_equals}), not ${args_no_hyphens}, ${args_json} or ${args_json_file}"
    )


def test_an_agent_restart_continues_its_trial_in_its_folder_and_w_and_b_run(data_dir, cli_env, monkeypatch, capsys):
    """Preempted at step 5 (SIGTERM), the trial restarted by the agent with the whole config continues from its
    last.ckpt in its own folder under the agent's id: each step is logged once, in one W&B run."""
    under_agent(monkeypatch, "agent7id")
    callback = '--trainer.callbacks=[{"class_path": "tests.cli.interrupter.TerminateAt", "init_args": {"step": 4}}]'
    base = [*shakespeare_args(data_dir), "--trainer.max_steps=6", callback]
    with pytest.raises(SystemExit) as stopped:
        main([*base, *agent_arguments("args")])
    assert stopped.value.code == 128 + signal.SIGTERM
    main([*base, *agent_arguments("args_no_equals", restart=True)])
    (run_dir,) = (cli_env / "runs").iterdir()
    record = read_run(run_dir)
    assert [line["step"] for line in record["metrics"] if "train_loss" in line] == list(range(6))
    assert record["summary"]["status"] == "finished" and (run_dir / "wandb_id").read_text() == "agent7id"
    assert {path.name.rsplit("-", 1)[1] for path in (run_dir / "wandb").glob("offline-run-*")} == {"agent7id"}
    assert f"zoo: wandb agent restarted W&B run agent7id: continuing its run folder runs/{run_dir.name} from " in (
        capsys.readouterr().out
    )


def test_an_agent_restart_with_no_checkpoint_starts_clean_never_in_the_agents_used_run(
    data_dir, cli_env, monkeypatch, capsys
):
    """An attempt that logged steps but left no checkpoint: the restart trains from step 0 under a new W&B id
    (said in one line); an attempt that logged nothing gives its name and the agent's id to the restart."""
    under_agent(monkeypatch, "agent8id")
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2", "--trainer.enable_checkpointing=false"]
    main([*args, *agent_arguments("args")])
    (first,) = (cli_env / "runs").iterdir()
    before = (first / "metrics.jsonl").read_text()
    main([*args, *agent_arguments("args", restart=True)])
    second = first.with_name(first.name + "-2")
    new_id = (second / "wandb_id").read_text()
    assert new_id != "agent8id" and (first / "wandb_id").read_text() == "agent8id"
    assert [path.name.rsplit("-", 1)[1] for path in (second / "wandb").glob("offline-run-*")] == [new_id]
    assert (first / "metrics.jsonl").read_text() == before  # the earlier attempt is left as it was
    assert [line["step"] for line in read_run(second)["metrics"] if "train_loss" in line] == [0, 1]
    assert (
        f"zoo: W&B run agent8id (WANDB_RUN_ID, wandb agent) holds the steps of its earlier attempt runs/{first.name}, "
        f"which left no checkpoint to continue; this run starts from step 0 in runs/{second.name} under the new W&B "
        f"id {new_id}, so that no W&B run holds two curves"
    ) in capsys.readouterr().out

    shutil.rmtree(second)
    (first / "metrics.jsonl").unlink()  # an attempt stopped before its first logged step
    under_agent(monkeypatch, "agent8id")  # a new process of the agent (this one set WANDB_RUN_ID for W&B)
    main([*args, *agent_arguments("args", restart=True)])
    assert sorted(p.name for p in (cli_env / "runs").iterdir()) == [first.name]
    assert (first / "wandb_id").read_text() == "agent8id"
    assert [line["step"] for line in read_run(first)["metrics"] if "train_loss" in line] == [0, 1]


def test_a_run_continued_under_the_agent_logs_to_the_agents_run(data_dir, cli_env, monkeypatch, capsys):
    """The folder's stored W&B id no longer wins over the agent's, whose run would stay empty; a folder of the
    agent's id with another configuration is refused in one line."""
    args = shakespeare_args(data_dir)
    main([*args, "--trainer.max_steps=3"])
    (run_dir,) = (cli_env / "runs").iterdir()
    stored = (run_dir / "wandb_id").read_text()
    under_agent(monkeypatch, "agent9id")
    main([*args, "--trainer.max_steps=6", "--ckpt_path=last"])
    assert (run_dir / "wandb_id").read_text() == "agent9id"
    assert json.loads((run_dir / "earlier_wandb_ids").read_text()) == [stored]
    assert len(list((run_dir / "wandb").glob("offline-run-*-agent9id"))) == 1
    assert [line["step"] for line in read_run(run_dir)["metrics"] if "train_loss" in line] == list(range(6))
    assert (
        f"zoo: runs/{run_dir.name} logged to W&B run {stored}; under wandb agent it continues in the agent's run "
        f"agent9id (WANDB_RUN_ID), from its checkpoint's step on"
    ) in capsys.readouterr().out

    with pytest.raises(SystemExit) as refused:
        main([*args, "--model.pe=rope"])
    assert refused.value.code == 2
    assert (
        f"zoo: error: WANDB_RUN_ID=agent9id (wandb agent) is the W&B run of runs/{run_dir.name}, trained with "
        "another configuration: model.pe='rope' (the run has 'learned')"
    ) in capsys.readouterr().err
    assert list((cli_env / "runs").iterdir()) == [run_dir]


def test_an_agent_restart_of_a_finished_trial_trains_nothing_and_exits_0(data_dir, cli_env, monkeypatch, capsys):
    """The agent may send a restart after the trial ended: it was refused for a --ckpt_path the user never typed
    (`ckpt_path='runs/.../last.ckpt' is already at step 2`), exit 2, a failed W&B run."""
    under_agent(monkeypatch, "agent6id")
    base = [*shakespeare_args(data_dir), "--trainer.max_steps=2"]
    main([*base, *agent_arguments("args")])
    (run_dir,) = (cli_env / "runs").iterdir()
    before = {name: (run_dir / name).read_text() for name in ("metrics.jsonl", "summary.json", "wandb_id")}
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main([*base, *agent_arguments("args", restart=True)])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == (
        f"zoo: wandb agent restarted W&B run agent6id, whose run folder runs/{run_dir.name} had finished (step 2, "
        f"trainer.max_steps=2): nothing is left to train; its record stands"
    )
    assert {name: (run_dir / name).read_text() for name in before} == before
    assert [path.name for path in (cli_env / "runs").iterdir()] == [run_dir.name]
