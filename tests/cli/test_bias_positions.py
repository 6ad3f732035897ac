"""Every attention-bias encoding (``--model.pe=alibi``, ``--model.pe=t5``, and any registered with
``scope = "stack"``) trains each variant from the command line on real data, and, with no position table,
accepts sequences longer than ``model.max_len``; ``benchmarks/extrapolation.py`` evaluates a
language model on blocks longer than its training ones."""

import importlib.util
import math
import re

import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, VARIANTS, read_run
from tests.conftest import REPO
from tests.nn.test_attention_bias import BIASES
from zoo.cli.main import main
from zoo.registry import POSITIONAL_ENCODINGS

STEPS = [
    "--trainer.max_steps=3",
    "--trainer.val_check_interval=3",
    "--trainer.limit_val_batches=2",  # not 1, which Lightning also reads as 1.0 (100%)
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    "--trainer.enable_checkpointing=false",
]


@pytest.mark.slow
@pytest.mark.parametrize("pe", BIASES)
@pytest.mark.parametrize("variant", ["encoder_decoder", "encoder_only", "decoder_only"])
def test_bias_encodings_train_every_variant(variant, pe, data_dir, cli_env):
    config, data_name, extra, task_metric = VARIANTS[variant]
    # its blocks have 64 tokens: past max_len, for an encoding without a length limit
    limited = POSITIONAL_ENCODINGS.get(pe).length_limited
    shorter = ["--model.max_len=16"] if variant == "decoder_only" and not limited else []
    data = f"--data.path={data_dir / data_name}"
    main(["fit", "--config", str(CONFIGS / config), data, *TINY_MODEL, *extra, *STEPS, f"--model.pe={pe}", *shorter])
    (run_dir,) = (cli_env / "runs").iterdir()
    assert f"-{pe}-layernorm-pre-h2-" in run_dir.name
    summary = read_run(run_dir)["summary"]
    assert summary["status"] == "finished" and math.isfinite(summary["final"]["val_loss"])
    assert task_metric in summary["final"]


def test_extrapolation_benchmark_reports_each_factor(data_dir, cli_env, capsys):
    spec = importlib.util.spec_from_file_location("extrapolation", REPO / "benchmarks" / "extrapolation.py")
    extrapolation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extrapolation)
    config, data_name, extra, _ = VARIANTS["decoder_only"]
    data = f"--data.path={data_dir / data_name}"
    for pe in ("alibi", "learned"):
        main(["fit", "--config", str(CONFIGS / config), data, *TINY_MODEL, *extra, *STEPS[:5], f"--model.pe={pe}"])
    alibi, learned = (
        next((cli_env / "runs").glob(f"*-{pe}-*")) / "checkpoints" / "last.ckpt" for pe in ("alibi", "learned")
    )
    assert extrapolation.main([str(alibi), str(learned), "--factors", "1", "2", "--batch_size", "64"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "| model | trained on | 1x | 2x |"
    alibi_row, learned_row = (
        next(line for line in lines if line.startswith(f"| {pe} ")) for pe in ("alibi", "learned")
    )
    assert re.fullmatch(r"\| alibi \(.*\) \| 64 \| \d+\.\d{4} \| \d+\.\d{4} \|", alibi_row)
    assert re.fullmatch(r"\| learned \(.*\) \| 64 \| \d+\.\d{4} \| n/a \|", learned_row)  # max_len 64: no 2x
