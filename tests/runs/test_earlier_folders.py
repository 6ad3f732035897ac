"""A checkpoint, a run folder and a sweep folder written by an earlier zoo (``tests/fixtures/before_42``, made
before the package restructure of issue 42) still load, resume, validate and compare."""

import json
import shutil

import pytest

from tests.cli.helpers import read_run
from tests.conftest import REPO
from zoo.cli.main import main
from zoo.compare.command import main as compare_main
from zoo.inference.checkpoint import load_trained

EARLIER = REPO / "tests" / "fixtures" / "before_42"
RUN = "do-tinyshakespeare-learned-layernorm-pre-h2-s1-736e93"
RECORDED_DATA = "/work/shared/data/tinyshakespeare"  # where the machine that made the fixture kept the data


@pytest.fixture
def earlier_run(cli_env, data_dir):
    """A copy of the earlier run folder in this test's runs folder, and the arguments that run it there."""
    shutil.copytree(EARLIER / "run_folders", cli_env / "runs")
    run_dir = cli_env / "runs" / RUN
    for name in ("config.json", "config.yaml"):  # the data where this machine keeps it, as the run's own user had
        recorded = run_dir / name
        recorded.write_text(recorded.read_text().replace(RECORDED_DATA, str(data_dir / "tinyshakespeare")))
    args = [f"--config={run_dir / 'config.yaml'}", f"--runs_dir={cli_env / 'runs'}"]
    return run_dir, [*args, f"--data.path={data_dir / 'tinyshakespeare'}"]


def test_an_earlier_checkpoint_loads_with_its_task_and_weights():
    trained = load_trained(str(EARLIER / "run_folders" / RUN / "checkpoints" / "last.ckpt"))
    assert type(trained.task).__name__ == "LanguageModelTask"
    assert type(trained.task).__module__.startswith("zoo.tasks")
    assert sum(parameter.numel() for parameter in trained.task.parameters()) == 4384  # its summary's "parameters"
    assert trained.task.hparams.d_model == 16


def test_an_earlier_run_resumes_in_its_own_folder(earlier_run, cli_env):
    run_dir, args = earlier_run
    main(["fit", *args, "--trainer.max_steps=6", f"--ckpt_path={run_dir / 'checkpoints' / 'last.ckpt'}"])
    assert [path.name for path in (cli_env / "runs").iterdir()] == [RUN]
    steps = [line["step"] for line in read_run(run_dir)["metrics"] if "train_loss" in line]
    assert steps == list(range(6)), steps  # steps 0-3 from before, 4 and 5 from the resume
    assert read_run(run_dir)["summary"]["status"] == "finished"


def test_an_earlier_checkpoint_validates_to_its_recorded_loss(earlier_run, capsys):
    run_dir, args = earlier_run
    recorded = read_run(run_dir)["summary"]["best"]["val_loss"]["value"]
    main(["validate", *args, f"--ckpt_path={run_dir / 'checkpoints' / 'best-step4.ckpt'}"])
    output = capsys.readouterr().out
    assert f"│         val_loss          │     {recorded}     │" in output, output  # the same batches, the same loss


def test_an_earlier_sweep_folder_compares(tmp_path, capsys):
    shutil.copytree(EARLIER / "sweep_folders", tmp_path / "runs")
    compare_main(["tiny", f"--runs_dir={tmp_path / 'runs'}", "--format=json"])
    table = json.loads(capsys.readouterr().out)
    assert table["knobs"] == ["model.pe"]
    rows = {row["model.pe"]: row for row in table["rows"]}
    assert rows["learned"]["val_loss_best_mean"] == 4.723319053649902
    assert rows["rope"]["val_loss_best_mean"] == 4.712798595428467
    assert rows["rope"]["delta"] == pytest.approx(4.712798595428467 - 4.723319053649902)
    assert [rows[pe]["runs"] for pe in ("learned", "rope")] == [["tiny-learned"], ["tiny-rope"]]


@pytest.mark.parametrize("checkpoint", ["last", "file"])
def test_an_earlier_run_resumes_with_its_recorded_data_order(earlier_run, cli_env, checkpoint):
    """A command that leaves data.seed out shuffles with its seed_everything (1 here), but a run recorded before
    that (data.seed 0, the default then) continues with its own order: found by --ckpt_path last, or by the file."""
    run_dir, args = earlier_run
    config = run_dir.parent / "without-data-seed.yaml"  # the run's config as a command that leaves data.seed out
    config.write_text((run_dir / "config.yaml").read_text().replace("    seed: 0\n", ""))
    assert "seed: 0" not in config.read_text()
    ckpt_path = "last" if checkpoint == "last" else str(run_dir / "checkpoints" / "last.ckpt")
    main(["fit", f"--config={config}", *args[1:], "--trainer.max_steps=6", f"--ckpt_path={ckpt_path}"])
    assert sorted(path.name for path in (cli_env / "runs").iterdir()) == [RUN, config.name]
    record = read_run(run_dir)
    assert record["config"]["data.seed"] == 0 and record["config"]["seed_everything"] == 1
    assert [line["step"] for line in record["metrics"] if "train_loss" in line] == list(range(6))
    assert record["summary"]["status"] == "finished"
