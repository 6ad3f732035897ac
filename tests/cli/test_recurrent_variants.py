"""Recurrence in the other two variants through the CLI (an LSTM language model that generates from its state, a
BiLSTM classifier), and the exact resume of a recurrent translation model whose teacher forcing draws coins."""

import pytest

from tests.cli.helpers import CONFIGS, FEW_STEPS, read_run
from tests.cli.test_recurrent import outcome, rnn_args
from zoo.cli.main import main

TINY = ["--model.d_model=16", "--model.num_layers=1", "--model.warmup_steps=2"]


@pytest.mark.slow
def test_an_lstm_language_model_trains_and_generates_by_sampling_and_beam_search(data_dir, cli_env, capsys):
    config = CONFIGS / "decoder_only" / "tinyshakespeare-rnn.yaml"
    main(["fit", "--config", str(config), f"--data.path={data_dir / 'tinyshakespeare'}", *TINY, *FEW_STEPS,
          "--data.batch_size=8"])  # fmt: skip
    (run_dir,) = (cli_env / "runs").iterdir()
    summary = read_run(run_dir)["summary"]
    assert run_dir.name.startswith("do-tinyshakespeare-rnn-lstm-s1-") and "val_bpc" in summary["final"]
    assert {"model.pe", "model.bidirectional"} <= set(summary["not_applying"])
    last = str(run_dir / "checkpoints" / "last.ckpt")
    capsys.readouterr()
    args = ["generate", "--ckpt_path", last, "--prompt", "ROMEO:", "--max_new_tokens", "80"]
    code, out, _ = outcome([*args, "--top_k", "5", "--seed", "3", "--num_samples", "2"], capsys)
    samples = out.rstrip("\n").split("\n---\n")
    assert code == 0 and len(samples) == 2 and samples[0] != samples[1]
    assert all(s.startswith("ROMEO:") and len(s) == 6 + 80 for s in samples)  # no window: past 64 positions
    code, beams, _ = outcome([*args, "--beam_size", "3", "--num_samples", "2"], capsys)
    assert code == 0 and len(beams.rstrip("\n").split("\n---\n")) == 2


@pytest.mark.slow
def test_a_bilstm_classifier_trains_and_validates(data_dir, cli_env):
    config = CONFIGS / "encoder_only" / "sst2-rnn.yaml"
    common = ["--config", str(config), f"--data.path={data_dir / 'sst2'}", *TINY, "--data.vocab_size=500",
              "--data.max_tokens=1024", *FEW_STEPS]  # fmt: skip
    main(["fit", *common, "--model.pooling=final"])
    (run_dir,) = (cli_env / "runs").iterdir()
    summary = read_run(run_dir)["summary"]
    assert run_dir.name.startswith("eo-sst2-rnn-lstm-s1-") and 0 <= summary["final"]["val_acc"] <= 1
    # the network's (the head aside): embeddings V x E, and per direction an LSTM's 4 gates of W_ih (H x E),
    # W_hh (H x H) and two biases, E = 16 and the config's H = 128
    assert summary["final"]["parameters"] == 500 * 16 + 2 * 4 * (128 * 16 + 128 * 128 + 2 * 128)
    main(["validate", *common, "--model.pooling=final", f"--ckpt_path={run_dir / 'checkpoints' / 'last.ckpt'}"])
    assert read_run(run_dir)["metrics"][-1]["val_acc"] == summary["final"]["val_acc"]


@pytest.mark.slow
def test_a_recurrent_translation_resumes_exactly(data_dir, cli_env):
    """Dropout and teacher forcing 0.5 draw random numbers every step: a run stopped at step 4 and resumed
    gives the uninterrupted run's losses to the last digit."""
    common = rnn_args(data_dir, "--model.teacher_forcing=0.5", "--model.dropout=0.1", "--model.rnn_cell=lstm",
                      "--trainer.log_every_n_steps=1", "--trainer.enable_progress_bar=false",
                      "--trainer.val_check_interval=4", "--trainer.limit_val_batches=1")  # fmt: skip

    def losses(runs_dir) -> list[float]:
        (run_dir,) = runs_dir.iterdir()
        return [line["train_loss"] for line in read_run(run_dir)["metrics"] if "train_loss" in line]

    main(["fit", *common, "--trainer.max_steps=8", "--runs_dir=whole"])
    main(["fit", *common, "--trainer.max_steps=4", "--runs_dir=resumed"])
    main(["fit", *common, "--trainer.max_steps=8", "--runs_dir=resumed", "--ckpt_path=last"])
    whole = losses(cli_env / "whole")
    assert len(whole) == 8 and losses(cli_env / "resumed") == whole
