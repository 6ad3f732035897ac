"""Shared helpers of the CLI tests: tiny-model overrides and reading a run folder."""

import json
from pathlib import Path

from tests.conftest import REPO

CONFIGS = REPO / "configs"
# the folders of config files laid over a base config by a second --config (a sweep's `config` parameter), and
# that base: such a file names no data of its own
LAID_OVER = {CONFIGS / "encoder_decoder" / "recurrent": CONFIGS / "encoder_decoder" / "ablation.yaml"}


def config_args(path: Path) -> list[str]:
    """``--config PATH``, after its base's ``--config`` where ``path`` is laid over one (:data:`LAID_OVER`)."""
    base = LAID_OVER.get(path.parent)
    return [*(["--config", str(base)] if base else []), "--config", str(path)]


def whole_configs() -> list[Path]:
    """The shipped configs that name a model and its data (``fit``'s list of configs to start from)."""
    return [path for path in sorted(CONFIGS.glob("**/*.yaml")) if path.parent not in LAID_OVER]

TINY_MODEL = ["--model.d_model=32", "--model.n_heads=2", "--model.d_ff=64", "--model.warmup_steps=2"]
FEW_STEPS = [
    "--trainer.max_steps=6",
    "--trainer.val_check_interval=3",
    "--trainer.limit_val_batches=2",
    "--trainer.limit_test_batches=2",
    "--trainer.log_every_n_steps=1",
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
]

VARIANTS = {
    "encoder_decoder": (
        "encoder_decoder/multi30k.yaml",
        "multi30k",
        [
            "--model.num_encoder_layers=1",
            "--model.num_decoder_layers=1",
            "--model.bleu_batches=1",
            "--data.vocab_size=500",
            "--data.max_tokens=1024",
        ],
        "val_bleu",
    ),
    "encoder_decoder_separate_vocabularies": (
        "encoder_decoder/multi30k.yaml",
        "multi30k",
        [
            "--model.num_encoder_layers=1",
            "--model.num_decoder_layers=1",
            "--model.bleu_batches=1",
            "--data.vocab_size=300",
            "--data.max_tokens=1024",
            "--data.joint_vocabulary=false",
            "--model.share_embeddings=false",
        ],
        "val_bleu",
    ),
    "encoder_only": (
        "encoder_only/sst2.yaml",
        "sst2",
        ["--model.num_layers=1", "--data.vocab_size=500", "--data.max_tokens=1024"],
        "val_acc",
    ),
    "decoder_only": (
        "decoder_only/tinyshakespeare.yaml",
        "tinyshakespeare",
        ["--model.num_layers=1", "--data.batch_size=8"],
        "val_bpc",
    ),
    "decoder_only_wikitext2": (
        "decoder_only/wikitext2.yaml",
        "wikitext2",
        ["--model.num_layers=1", "--data.batch_size=8", "--data.block_size=32", "--data.vocab_size=300"],
        "val_ppl",
    ),
}


def shakespeare_args(data_dir: Path, tiny: bool = True) -> list[str]:
    """``fit`` on Tiny Shakespeare; with ``tiny``, a one-layer model for a few steps."""
    args = [
        "fit",
        "--config",
        str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml"),
        f"--data.path={data_dir / 'tinyshakespeare'}",
    ]
    return [*args, *TINY_MODEL, "--model.num_layers=1", *FEW_STEPS] if tiny else args


def small_copy(data_dir: Path, name: str, folder: Path, counts: dict[str, int]) -> Path:
    """``folder`` holding the first ``counts[split]`` rows of each split of the real data set ``name``."""
    folder.mkdir()
    for split, count in counts.items():
        lines = (data_dir / name / f"{split}.jsonl").read_text().splitlines(keepends=True)[:count]
        (folder / f"{split}.jsonl").write_text("".join(lines))
    return folder


def read_run(run_dir: Path) -> dict:
    """The local record of a run: config, metric lines and summary."""
    lines = (run_dir / "metrics.jsonl").read_text().splitlines()
    return {
        "config": json.loads((run_dir / "config.json").read_text()),
        "metrics": [json.loads(line) for line in lines],
        "summary": json.loads((run_dir / "summary.json").read_text()),
    }
