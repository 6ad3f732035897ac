"""The warning for 16-bit floats on a CPU whose matrix products in them are slower than in float32 (issue 8):
measured once at the start, never for float32 or on a GPU."""

import math

import pytest
import torch

from tests.cli.helpers import shakespeare_args
from zoo import precision
from zoo.cli import main


def fake_throughput(monkeypatch, half: float, fp32: float) -> list:
    """Make :func:`zoo.precision.matmul_gflops` report ``half`` GFLOP/s for 16-bit floats and ``fp32`` for
    float32; returns the dtypes asked."""
    asked = []

    def gflops(dtype, *args, **kwargs):
        asked.append(dtype)
        return fp32 if dtype == torch.float32 else half

    monkeypatch.setattr(precision, "matmul_gflops", gflops)
    return asked


@pytest.mark.parametrize(
    "mode, dtype, name",
    [
        ("bf16-mixed", torch.bfloat16, "bfloat16"),
        ("bf16-true", torch.bfloat16, "bfloat16"),
        ("16-mixed", torch.float16, "float16"),
        ("16-true", torch.float16, "float16"),
    ],
)
def test_a_slower_16_bit_float_on_a_cpu_is_one_line_naming_both_figures(monkeypatch, mode, dtype, name):
    asked = fake_throughput(monkeypatch, half=61.0, fp32=298.0)
    warning = precision.slow_cpu_precision(mode, torch.device("cpu"))
    assert warning.startswith(f"trainer.precision={mode} on this CPU: its {name} matrix products")
    assert "\n" not in warning
    assert "61 GFLOP/s against 298 GFLOP/s in float32" in warning and "use 32-true here, or a GPU" in warning
    assert sorted(asked, key=str) == sorted([dtype, torch.float32], key=str)  # the run's own 16-bit type


def test_no_warning_where_the_16_bit_float_is_as_fast_or_faster(monkeypatch):
    fake_throughput(monkeypatch, half=298.0, fp32=298.0)
    assert precision.slow_cpu_precision("bf16-mixed", torch.device("cpu")) is None
    fake_throughput(monkeypatch, half=880.0, fp32=207.0)  # a CPU with AMX
    assert precision.slow_cpu_precision("16-mixed", torch.device("cpu")) is None


@pytest.mark.parametrize(
    "mode, device", [("32-true", "cpu"), ("64-true", "cpu"), ("bf16-mixed", "cuda"), ("16-mixed", "cuda")]
)
def test_nothing_is_measured_for_other_precisions_or_devices(monkeypatch, mode, device):
    asked = fake_throughput(monkeypatch, half=1.0, fp32=298.0)
    assert precision.slow_cpu_precision(mode, torch.device(device)) is None
    assert asked == []


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_matmul_throughput_is_a_positive_rate(dtype):
    gflops = precision.matmul_gflops(dtype, size=32, repeats=2)
    assert math.isfinite(gflops) and gflops > 0


def test_a_bfloat16_run_on_a_slow_cpu_prints_the_warning_once_and_trains(data_dir, cli_env, caplog, monkeypatch):
    fake_throughput(monkeypatch, half=61.0, fp32=298.0)
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2", "--trainer.precision=bf16-mixed"])
    assert caplog.text.count("zoo: warning: trainer.precision=bf16-mixed on this CPU") == 1
    assert "zoo: run folder" in caplog.text  # a warning, not an error: the run went on
    assert caplog.text.index("zoo: warning") < caplog.text.index("zoo: best checkpoint")  # said before training


def test_a_float32_run_measures_nothing(data_dir, cli_env, caplog, monkeypatch):
    asked = fake_throughput(monkeypatch, half=61.0, fp32=298.0)
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2"])
    assert asked == [] and "zoo: warning" not in caplog.text
