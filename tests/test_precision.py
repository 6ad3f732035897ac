"""The warning for bfloat16 on a CPU whose bfloat16 matrix products are slower than its float32 ones (issue 8):
measured once at the start, never for float32 or on a GPU."""

import math

import pytest
import torch

from tests.cli.helpers import shakespeare_args
from zoo import precision
from zoo.cli import main


def fake_throughput(monkeypatch, bf16: float, fp32: float) -> list:
    """Make :func:`zoo.precision.matmul_gflops` report ``bf16`` and ``fp32`` GFLOP/s; returns the dtypes asked."""
    asked = []

    def gflops(dtype, *args, **kwargs):
        asked.append(dtype)
        return bf16 if dtype == torch.bfloat16 else fp32

    monkeypatch.setattr(precision, "matmul_gflops", gflops)
    return asked


@pytest.mark.parametrize("mode", ["bf16-mixed", "bf16-true"])
def test_bfloat16_slower_than_float32_on_a_cpu_is_one_line_naming_both_figures(monkeypatch, mode):
    fake_throughput(monkeypatch, bf16=61.0, fp32=298.0)
    warning = precision.slow_cpu_bfloat16(mode, torch.device("cpu"))
    assert warning.startswith(f"trainer.precision={mode} on this CPU:") and "\n" not in warning
    assert "61 GFLOP/s against 298 GFLOP/s in float32" in warning and "use 32-true here, or a GPU" in warning


def test_no_warning_where_bfloat16_is_as_fast_or_faster(monkeypatch):
    fake_throughput(monkeypatch, bf16=298.0, fp32=298.0)
    assert precision.slow_cpu_bfloat16("bf16-mixed", torch.device("cpu")) is None
    fake_throughput(monkeypatch, bf16=880.0, fp32=207.0)  # a CPU with AMX
    assert precision.slow_cpu_bfloat16("bf16-mixed", torch.device("cpu")) is None


@pytest.mark.parametrize(
    "mode, device", [("32-true", "cpu"), ("16-mixed", "cpu"), ("64-true", "cpu"), ("bf16-mixed", "cuda")]
)
def test_nothing_is_measured_for_other_precisions_or_devices(monkeypatch, mode, device):
    asked = fake_throughput(monkeypatch, bf16=1.0, fp32=298.0)
    assert precision.slow_cpu_bfloat16(mode, torch.device(device)) is None
    assert asked == []


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_matmul_throughput_is_a_positive_rate(dtype):
    gflops = precision.matmul_gflops(dtype, size=64, repeats=2)
    assert math.isfinite(gflops) and gflops > 0


def test_a_bfloat16_run_on_a_slow_cpu_prints_the_warning_once_and_trains(data_dir, cli_env, caplog, monkeypatch):
    fake_throughput(monkeypatch, bf16=61.0, fp32=298.0)
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2", "--trainer.precision=bf16-mixed"])
    assert caplog.text.count("zoo: warning: trainer.precision=bf16-mixed on this CPU") == 1
    assert "zoo: run folder" in caplog.text  # a warning, not an error: the run went on
    assert caplog.text.index("zoo: warning") < caplog.text.index("zoo: best checkpoint")  # said before training


def test_a_float32_run_measures_nothing(data_dir, cli_env, caplog, monkeypatch):
    asked = fake_throughput(monkeypatch, bf16=61.0, fp32=298.0)
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2"])
    assert asked == [] and "zoo: warning" not in caplog.text
