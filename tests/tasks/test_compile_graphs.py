"""``model.compile=true`` compiles at most one training graph and one evaluation graph for a whole run, on real
data, whatever its batch shapes (token-bucketed batches of every size and length, short last batches):
validation, BLEU's greedy decoding, ``test`` with beam search, ``predict`` (sampling), ``validate`` and a resume
add none. ``summary.json`` records the graphs and the compile seconds of each command (:mod:`zoo.tasks.compiling`).

Traced with the ``aot_eager`` backend (Dynamo and AOTAutograd: the guards that decide a recompilation; Inductor
takes minutes on a 2-core CPU). Dynamo may keep two graphs of the network's ``forward`` (one per mode) and fails
on a third: any recompilation, or a graph break, fails the test. The commands after ``fit`` run in the same
process, so that they would add graphs to the ones ``fit`` left, as a resume or a ``test`` after ``fit`` does.
"""

import pytest
import torch

from tests.cli.helpers import CONFIGS, FEW_STEPS, TINY_MODEL, read_run
from zoo.cli.main import main
from zoo.tasks.compiling import BACKEND_ENV

pytestmark = pytest.mark.slow

STEPS = ["--trainer.max_steps=100", "--trainer.val_check_interval=50", "--model.compile=true"]
ONE_PER_MODE = {"training": 1, "evaluation": 1}
NONE = {"training": 0, "evaluation": 0}


@pytest.fixture
def one_graph_per_mode(monkeypatch):
    monkeypatch.setenv(BACKEND_ENV, "aot_eager")
    torch._dynamo.reset()
    with torch._dynamo.config.patch(recompile_limit=2, fail_on_recompile_limit_hit=True):
        yield
    torch._dynamo.reset()


def compiled(run_dir, command: str) -> dict:
    """The graphs ``command`` compiled, from the run's ``summary.json``; its compile seconds checked."""
    record = read_run(run_dir)["summary"]["compile"][command]
    assert record["backend"] == "aot_eager"
    assert (record["seconds"] > 0) == (sum(record["graphs"].values()) > 0), record
    return record["graphs"]


def fit(arguments: list[str], cli_env) -> object:
    main(["fit", *arguments])
    (run_dir,) = (cli_env / "runs").iterdir()
    assert read_run(run_dir)["summary"]["status"] == "finished"
    return run_dir


def test_translation_compiles_once_per_mode(data_dir, cli_env, one_graph_per_mode):
    arguments = [
        "--config",
        str(CONFIGS / "encoder_decoder" / "multi30k.yaml"),
        f"--data.path={data_dir / 'multi30k'}",
        *TINY_MODEL,
        "--model.num_encoder_layers=1",
        "--model.num_decoder_layers=1",
        "--model.bleu_batches=1",
        "--data.vocab_size=500",
        "--data.max_tokens=600",
        *FEW_STEPS,
        *STEPS,
    ]
    run_dir = fit(arguments, cli_env)
    assert compiled(run_dir, "fit") == ONE_PER_MODE
    main(["test", *arguments, "--ckpt_path=last", "--model.beam_size=2"])  # every test batch decoded
    assert compiled(run_dir, "test") == NONE
    main(["predict", *arguments, "--ckpt_path=last", "--trainer.limit_predict_batches=2"])
    assert compiled(run_dir, "predict") == NONE
    main(["fit", *arguments, "--ckpt_path=last", "--trainer.max_steps=104"])
    assert compiled(run_dir, "fit") == NONE
    assert read_run(run_dir)["summary"]["final_step"]["train_loss"] == 103


def test_classification_compiles_once_per_mode(data_dir, cli_env, one_graph_per_mode):
    arguments = [
        "--config",
        str(CONFIGS / "encoder_only" / "sst2.yaml"),
        f"--data.path={data_dir / 'sst2'}",
        *TINY_MODEL,
        "--model.num_layers=1",
        "--data.vocab_size=500",
        "--data.max_tokens=512",
        *FEW_STEPS,
        *STEPS,
        "--trainer.limit_val_batches=4",
    ]
    run_dir = fit(arguments, cli_env)
    assert compiled(run_dir, "fit") == ONE_PER_MODE
    main(["validate", *arguments, "--ckpt_path=last"])
    assert compiled(run_dir, "validate") == NONE
    main(["predict", *arguments, "--ckpt_path=last", "--trainer.limit_predict_batches=3"])
    assert compiled(run_dir, "predict") == NONE


@pytest.fixture
def short_shakespeare(data_dir, tmp_path):
    """Tiny Shakespeare cut so that, in blocks of 32 characters and batches of 8, a training epoch is 12 full
    batches and one of 3 blocks (100 steps cross 7 epoch ends), and the validation split one full batch and
    one of 5 blocks."""
    folder = tmp_path / "shakespeare"
    folder.mkdir()
    for split, blocks in (("train", 8 * 12 + 3), ("validation", 8 + 5)):
        text = (data_dir / "tinyshakespeare" / f"{split}.txt").read_text()
        (folder / f"{split}.txt").write_text(text[: 32 * blocks + 1])
    return folder


def test_language_model_compiles_once_per_mode(short_shakespeare, cli_env, one_graph_per_mode):
    arguments = [
        "--config",
        str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml"),
        f"--data.path={short_shakespeare}",
        *TINY_MODEL,
        "--model.num_layers=1",
        "--model.pe=rope",  # its rotary angles computed inside the graph
        "--model.max_new_tokens=3",
        "--model.temperature=1.0",
        "--data.batch_size=8",
        "--data.block_size=32",
        *FEW_STEPS,
        *STEPS,
        "--trainer.limit_val_batches=1.0",
    ]
    run_dir = fit(arguments, cli_env)
    assert compiled(run_dir, "fit") == ONE_PER_MODE
    main(["predict", *arguments, "--ckpt_path=last"])  # sampling from every validation block
    assert compiled(run_dir, "predict") == NONE
