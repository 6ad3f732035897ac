"""``scripts/gpu-check``: its dry run lists the commands of every part at the issue's sizes, and its CPU smoke
runs every part at toy sizes to one table, exit 0, and exits 1 on a failed check."""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "scripts" / "gpu-check"


def gpu_check(*args: str, timeout: float = 60, cache=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
    env |= {"ZOO_CACHE": str(cache)} if cache else {}
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


def test_dry_run_lists_each_part_at_the_issues_sizes():
    result = gpu_check("--dry-run")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith(
        "gpu-check on no GPU: configs, overhead, sweep, tests, throughput, parallel, planned 640 s of 720"
    )
    fits = [line for line in lines if " -m zoo fit " in line]
    issue = ("--trainer.max_steps=200", "--trainer.precision=bf16-mixed", "--model.compile=true")
    assert len(fits) == 3 and all(flag in line for line in fits for flag in issue)
    assert any(" -m zoo sweep " in line and "--parallel 4" in line for line in lines)
    assert any(" -m pytest " in line and "-m cuda" in line and "tests/training/test_cuda.py" in line for line in lines)
    assert result.stdout == ""  # no table: nothing ran


def test_without_a_gpu_it_says_so_and_points_at_the_smoke():
    result = gpu_check("--only", "sweep")
    assert result.returncode == 2 and "no CUDA GPU here" in result.stderr and "--smoke" in result.stderr


@pytest.mark.slow
def test_smoke_runs_on_the_cpu_to_one_table_and_a_failed_check_exits_1(data_dir, zoo_cache, tmp_path):
    """The parts that need no data and no trainings (the configs and the sweep run as ``zoo fit`` and ``zoo sweep``
    do in their own tests; ``scripts/gpu-check --smoke`` runs them too, in about 5 minutes on 2 cores)."""
    result = gpu_check("--smoke", "--only", "tests", "throughput", "--out", str(tmp_path / "out"), timeout=300,
                       cache=zoo_cache)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    table = result.stdout.splitlines()
    assert table[0] == "| check (cpu smoke) | setting | result | s | status |"
    rows = {line.split(" | ")[0].removeprefix("| "): line.rsplit(" | ", 1)[-1].rstrip(" |") for line in table[2:]}
    assert rows["pytest -m cuda tests/training/test_cuda.py"] == "skip"  # no GPU result from a CPU
    assert rows["throughput zoo decoder-only"] == "info" and rows["fp32 matmul peak"] == "info"
    assert "FAIL" not in rows.values()

    empty = tmp_path / "empty"
    for name in ("multi30k", "sst2", "tinyshakespeare"):
        (empty / name).mkdir(parents=True)
    failed = gpu_check("--smoke", "--only", "configs", "--data_dir", str(empty), timeout=300)
    assert failed.returncode == 1 and failed.stdout.count("| FAIL |") == 3, failed.stdout
    assert "holds no data files" in failed.stdout  # the fit's own line, in the table


def smoke_rows(result: subprocess.CompletedProcess) -> list[tuple[str, str]]:
    """Each row of a smoke's table: its check and its status, in the table's order."""
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    table = result.stdout.splitlines()
    assert table[0] == "| check (cpu smoke) | setting | result | s | status |"
    return [(line.split(" | ")[0].removeprefix("| "), line.rsplit(" | ", 1)[-1].rstrip(" |")) for line in table[2:]]


TRAINING_CHECKS = {
    "configs": ["fit encoder_decoder/multi30k", "fit encoder_only/sst2", "fit decoder_only/tinyshakespeare"],
    "sweep": ["zoo sweep --parallel 2"],  # its sweep is named by its budget: gpu-check-2steps
    "parallel": ["zoo sweep --parallel 2"],  # a row of the sweep's own file and folder: gpu-check-parallel2
}
OVERHEAD_ROWS = [check.replace("fit ", "overhead ", 1) for check in TRAINING_CHECKS["configs"]]  # a row per config


@pytest.mark.slow
@pytest.mark.parametrize("parts", [("configs", "overhead"), ("sweep", "parallel")], ids="+".join)
def test_each_training_part_and_the_overhead_of_the_smoke_pass_on_the_cpu(parts, data_dir, zoo_cache, tmp_path):
    """The parts that train, two to a smoke (one table each, as a user runs them together; two smokes, so that
    the suite's two workers run them side by side), with the session's cache."""
    result = gpu_check("--smoke", "--only", *parts, "--data_dir", str(data_dir), "--out", str(tmp_path),
                       timeout=900, cache=zoo_cache)  # fmt: skip
    rows = smoke_rows(result)
    checks = [check for part in parts for check in TRAINING_CHECKS.get(part, [])]  # a check may be two rows
    assert sorted(row for row in rows if row[0] in checks) == sorted((check, "pass") for check in checks), result.stdout
    if "overhead" in parts:
        overhead = [row for row in rows if row[0] in OVERHEAD_ROWS]
        assert overhead == [(row, "info") for row in OVERHEAD_ROWS], result.stdout
        assert " ms a step against " in result.stdout and "x (loader " in result.stdout
