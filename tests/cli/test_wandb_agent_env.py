"""Under ``wandb agent`` a run joins its sweep: the run id the agent assigns, and the sweep's id, group and job
type, land in the W&B run and in the local run record."""

import json

from tests.cli.helpers import shakespeare_args
from zoo.cli import main


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
