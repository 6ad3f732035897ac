"""``--wandb ENTITY/PROJECT[/GROUP]`` through a fake ``wandb.Api``: the same table as from the local records, and
one line when W&B cannot be read. No network."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from zoo.compare import wandb_runs


def fake_api_run(folder: Path, state: str = "finished") -> SimpleNamespace:
    """What ``wandb.Api().runs`` yields for the run recorded in ``folder``, with history rows as Lightning's
    WandbLogger logs them (``trainer/global_step`` beside W&B's own ``_step``, ``_runtime``)."""
    summary = json.loads((folder / "summary.json").read_text())
    rows = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    history = [
        {"trainer/global_step": row.pop("step"), "_step": i, "_runtime": 1.0, **row} for i, row in enumerate(rows)
    ]
    return SimpleNamespace(
        name=folder.name, id=folder.name[-8:], entity="ent", project="proj", state=state, group=summary["group"],
        job_type=summary["job_type"], config={**json.loads((folder / "config.json").read_text()), "_wandb": {}},
        summary={"_runtime": summary["wall_time_s"], "_wandb": {"runtime": 1}}, scan_history=lambda: iter(history),
    )  # fmt: skip


class FakeApi:
    def __init__(self, runs):
        self._runs, self.calls = runs, []

    def runs(self, path, filters=None, order=None):
        self.calls.append((path, filters))
        return self._runs


def test_wandb_runs_give_the_table_of_the_local_records(runs_dir, compare_json, monkeypatch):
    api = FakeApi([fake_api_run(folder) for folder in sorted(runs_dir.iterdir())])
    monkeypatch.setattr(wandb_runs, "wandb_api", lambda: api)
    online = compare_json("--wandb", "ent/proj/pe-sweep")
    assert api.calls == [("ent/proj", {"group": "pe-sweep"})]
    local = compare_json(runs_dir)
    made = {key: (online.pop(key), local.pop(key)) for key in ("shows", "command")}  # by two commands
    assert online == local
    assert made["shows"][0].split("; made by")[0] == made["shows"][1].split("; made by")[0]


def test_crashed_wandb_runs_are_left_out(runs_dir, compare_json, monkeypatch):
    folders = sorted(runs_dir.iterdir())
    api = FakeApi([fake_api_run(folders[0], state="crashed"), *map(fake_api_run, folders[1:])])
    monkeypatch.setattr(wandb_runs, "wandb_api", lambda: api)
    result = compare_json("--wandb", "ent/proj")
    assert api.calls == [("ent/proj", None)]
    assert result["excluded"] == [{"run": folders[0].name, "reason": "crashed"}]


BROKEN = SimpleNamespace(runs=lambda *args, **kwargs: 1 / 0)  # any exception of the W&B client


@pytest.mark.parametrize(
    ("path", "api", "message"),
    [
        ("ent", None, "--wandb 'ent' is not ENTITY/PROJECT or ENTITY/PROJECT/GROUP"),
        ("ent/proj", FakeApi([]), "W&B has no runs in 'ent/proj'"),
        ("ent/proj", BROKEN, "cannot read W&B runs of 'ent/proj': division by zero"),
    ],
)
def test_wandb_errors_are_one_line(path, api, message, compare, monkeypatch):
    monkeypatch.setattr(wandb_runs, "wandb_api", lambda: api)
    assert compare("--wandb", path) == (2, "", f"zoo compare: error: {message}\n")


def test_offline_wandb_fails_at_once_in_one_line(compare, monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "offline")
    assert compare("--wandb", "ent/proj") == (
        2,
        "",
        "zoo compare: error: W&B is offline (no API key, or WANDB_MODE=offline): run `wandb login`, or compare the "
        "local run folders instead (zoo compare runs/...)\n",
    )
