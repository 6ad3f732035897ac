"""The warning for 16-bit floats on a CPU whose matrix products in them are slower than in float32 (issue 8):
decided by the CPU's flags on x86 Linux, by a measurement with a margin elsewhere, never for float32 or a GPU."""

import math

import pytest
import torch

from tests.cli.helpers import shakespeare_args
from zoo.cli.main import main
from zoo.training import precision

XEON = {"avx2", "avx512f", "avx512bw", "avx512_vnni"}  # plain AVX-512: no bfloat16 or float16 matrix units


def fake_cpu(monkeypatch, flags: set[str] | None, half: float = 0.0, fp32: float = 0.0) -> list:
    """This CPU's x86 flags (``None``: not x86 Linux, so measured) and the GFLOP/s a measurement reports for
    16-bit floats and float32; returns the dtypes measured."""
    measured = []

    def gflops(dtype, *args, **kwargs):
        measured.append(dtype)
        return fp32 if dtype == torch.float32 else half

    monkeypatch.setattr(precision, "x86_cpu_flags", lambda: flags)
    monkeypatch.setattr(precision, "matmul_gflops", gflops)
    return measured


CPU = torch.device("cpu")


@pytest.mark.parametrize(
    "mode, name, instructions",
    [
        ("bf16-mixed", "bfloat16", "AVX-512 BF16 or AMX"),
        ("bf16-true", "bfloat16", "AVX-512 BF16 or AMX"),
        ("16-true", "float16", "AVX-512 FP16 or AMX-FP16"),
    ],  # fmt: skip
)
def test_an_x86_cpu_without_the_instructions_is_warned_without_a_measurement(monkeypatch, mode, name, instructions):
    measured = fake_cpu(monkeypatch, XEON)
    warning = precision.slow_cpu_precision(mode, CPU)
    assert warning.startswith(f"trainer.precision={mode}: this CPU has no {name} matrix instructions ({instructions};")
    assert "so this run will be slower than in float32; use 32-true here, or a GPU" in warning
    assert "\n" not in warning and measured == []  # the flags decide: no timing noise


@pytest.mark.parametrize(
    "mode, flag", [("bf16-mixed", "avx512_bf16"), ("bf16-true", "amx_bf16"), ("16-true", "amx_fp16")]
)
def test_an_x86_cpu_with_the_instructions_is_not_warned(monkeypatch, mode, flag):
    fake_cpu(monkeypatch, XEON | {flag})
    assert precision.slow_cpu_precision(mode, CPU) is None


def test_bfloat16_instructions_say_nothing_of_float16(monkeypatch):
    fake_cpu(monkeypatch, XEON | {"avx512_bf16", "amx_bf16"})
    assert "no float16 matrix instructions" in precision.slow_cpu_precision("16-true", CPU)


def test_the_value_as_typed_is_named_beside_what_lightning_runs(monkeypatch):
    fake_cpu(monkeypatch, XEON)  # Lightning runs 16-mixed as bf16-mixed on a CPU
    warning = precision.slow_cpu_precision("bf16-mixed", CPU, typed="16-mixed")
    assert warning.startswith("trainer.precision=16-mixed (run as bf16-mixed): this CPU has no bfloat16")
    assert precision.slow_cpu_precision("bf16-mixed", CPU, typed="bf16-mixed").startswith(
        "trainer.precision=bf16-mixed:"
    )


def test_elsewhere_a_clearly_slower_measurement_warns_with_both_figures(monkeypatch):
    measured = fake_cpu(monkeypatch, None, half=61.0, fp32=298.0)
    warning = precision.slow_cpu_precision("bf16-mixed", CPU)
    assert "this CPU ran bfloat16 matrix products at 61 GFLOP/s against 298 GFLOP/s in float32, so" in warning
    assert sorted(measured, key=str) == sorted([torch.bfloat16, torch.float32], key=str)


@pytest.mark.parametrize("half", [298.0, 250.0, 880.0])  # equal, within the 0.8 margin (timing noise), faster
def test_elsewhere_no_warning_unless_clearly_slower(monkeypatch, half):
    fake_cpu(monkeypatch, None, half=half, fp32=298.0)
    assert precision.slow_cpu_precision("bf16-mixed", CPU) is None


@pytest.mark.parametrize(
    "mode, device", [("32-true", "cpu"), ("64-true", "cpu"), ("bf16-mixed", "cuda"), ("16-mixed", "cuda")]
)
def test_nothing_is_looked_at_for_other_precisions_or_devices(monkeypatch, mode, device):
    measured = fake_cpu(monkeypatch, None, half=1.0, fp32=298.0)
    assert precision.slow_cpu_precision(mode, torch.device(device)) is None
    assert measured == []


def test_this_machines_flags_are_read_where_it_is_x86_linux():
    flags = precision.x86_cpu_flags()
    assert flags is None or ("sse2" in flags or "avx" in flags)  # every x86-64 CPU has SSE2


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_matmul_throughput_is_a_positive_rate(dtype):
    gflops = precision.matmul_gflops(dtype, size=32, repeats=2)
    assert math.isfinite(gflops) and gflops > 0


@pytest.mark.parametrize("typed", ["bf16-mixed", "16-mixed"])
def test_a_16_bit_run_on_a_slow_cpu_is_warned_once_before_training(data_dir, cli_env, caplog, monkeypatch, typed):
    fake_cpu(monkeypatch, XEON)
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2", f"--trainer.precision={typed}"])
    assert caplog.text.count(f"zoo: warning: trainer.precision={typed}") == 1
    assert "zoo: run folder" in caplog.text  # a warning, not an error: the run went on
    assert caplog.text.index("zoo: warning") < caplog.text.index("zoo: best checkpoint")


def test_a_bad_configuration_is_refused_without_the_warning(data_dir, cli_env, capsys, caplog, monkeypatch):
    main(shakespeare_args(data_dir))
    (checkpoint,) = (cli_env / "runs").glob("*/checkpoints/last.ckpt")
    fake_cpu(monkeypatch, XEON)
    caplog.clear()
    with pytest.raises(SystemExit):  # Tiny Shakespeare has no test split
        main(["test", *shakespeare_args(data_dir)[1:], "--trainer.precision=bf16-mixed", f"--ckpt_path={checkpoint}"])
    assert "has no test split" in capsys.readouterr().err and "zoo: warning" not in caplog.text


def test_a_float32_run_looks_at_nothing(data_dir, cli_env, caplog, monkeypatch):
    measured = fake_cpu(monkeypatch, XEON)
    monkeypatch.setattr(precision, "x86_cpu_flags", lambda: pytest.fail("flags read for a float32 run"))
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2"])
    assert measured == [] and "zoo: warning" not in caplog.text
