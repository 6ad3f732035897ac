"""``model.architecture=rnn`` through the CLI on real data: the recurrent encoder-decoders train, validate,
test, resume exactly, translate with beam search and draw their alignment; the knobs that do not apply are said
and recorded; bad recurrent knobs are one line before training."""

import re

import pytest
import torch

from tests.cli.helpers import CONFIGS, FEW_STEPS, read_run
from zoo.cli.main import main

TINY_RNN = [
    "--model.d_model=16",
    "--model.rnn_hidden=24",
    "--model.num_encoder_layers=1",
    "--model.num_decoder_layers=1",
    "--model.bleu_batches=1",
    "--model.warmup_steps=2",
    "--data.vocab_size=300",
    "--data.max_tokens=1024",
]


def rnn_args(data_dir, *extra) -> list[str]:
    config = CONFIGS / "encoder_decoder" / "multi30k-rnn.yaml"
    return ["--config", str(config), f"--data.path={data_dir / 'multi30k'}", *TINY_RNN, *extra]


def outcome(args, capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(args)
    out, err = capsys.readouterr()
    return done.value.code, out, err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cell", "attention", "extra"),
    [("gru", "additive", ["--model.pe=learned"]), ("lstm", "none", ["--model.teacher_forcing=0.5"])],
)
def test_a_recurrent_translation_model_fits_evaluates_translates_and_draws(
    cell, attention, extra, data_dir, cli_env, capsys, caplog
):
    common = rnn_args(data_dir, f"--model.rnn_cell={cell}", f"--model.rnn_attention={attention}", *extra, *FEW_STEPS)
    main(["fit", *common])
    said = caplog.text
    (run_dir,) = (cli_env / "runs").iterdir()
    assert re.fullmatch(rf"ed-multi30k-rnn-{cell}-{attention}-s1-[0-9a-f]{{6}}", run_dir.name)
    record = read_run(run_dir)
    summary = record["summary"]
    assert summary["status"] == "finished" and "val_bleu" in summary["final"]
    assert {"model.pe", "model.n_heads", "model.norm", "model.tie_embeddings"} <= set(summary["not_applying"])
    assert not {"model.rnn_cell", "model.d_model", "model.teacher_forcing"} & set(summary["not_applying"])
    told = [line for line in said.splitlines() if "does not use" in line]
    assert len(told) == 1 and "model.d_ff=512" in told[0] and "model.n_heads" not in told[0]  # n_heads: default
    assert ("model.pe='learned'" in told[0]) == (attention == "additive")
    last = run_dir / "checkpoints" / "last.ckpt"
    checkpoint = torch.load(last, weights_only=False, map_location="cpu")
    parameters = sum(t.numel() for name, t in checkpoint["state_dict"].items() if name.startswith("network."))
    parameters -= 300 * 16  # the shared embedding is in the state dict twice (encoder and decoder)
    assert summary["final"]["parameters"] == parameters

    main(["validate", *common, f"--ckpt_path={last}"])
    assert read_run(run_dir)["metrics"][-1]["val_loss"] == summary["final"]["val_loss"]
    main(["test", *common, f"--ckpt_path={last}", "--model.beam_size=2"])
    tested = read_run(run_dir)["metrics"][-1]
    assert tested["command"] == "test" and tested["partial/test_loss"] > 0
    assert any(key.endswith("test_bleu") for key in tested), tested  # decoded with beam search

    capsys.readouterr()
    source = cli_env / "source.de"
    source.write_text("Ein Hund rennt .\nZwei Männer sitzen .\n")
    args = ["translate", "--ckpt_path", str(last), "--input", str(source), "--beam_size", "3", "--n_best", "2"]
    code, out, _ = outcome(args, capsys)
    lines = out.splitlines()
    assert code == 0 and [line.split("\t")[0] for line in lines] == ["0", "0", "1", "1"], out
    scores = [float(line.split("\t")[1]) for line in lines]
    assert scores[0] >= scores[1] and scores[2] >= scores[3]
    out_file = cli_env / "maps.png"
    code, out, err = outcome(["attention", "--ckpt_path", str(last), "--text", "Ein Hund .", "--out", str(out_file)],
                             capsys)  # fmt: skip
    if attention == "additive":
        assert code == 0 and "1 attention module x 1 head" in out and out_file.is_file()
    else:
        assert code == 2 and err.strip().endswith(
            "this model (model.architecture='rnn', model.rnn_attention='none') has no attention to draw; an "
            "encoder-decoder with model.rnn_attention additive, dot, general or concat has an alignment"
        )


@pytest.mark.slow
def test_a_reversed_source_is_read_backwards_by_every_command(data_dir, cli_env, capsys, monkeypatch):
    """``model.reverse_source`` (Sutskever et al. 2014) lives in the network, so that fit, validate, test,
    translate and attention all read the source backwards; it is in the run's identity (another hash than the
    same run reading in order), and the alignment's source axis is the sentence as written."""
    from zoo.nn.recurrent import encoder

    calls = []
    original = encoder.reversal
    monkeypatch.setattr(encoder, "reversal", lambda *args: calls.append(1) or original(*args))
    common = rnn_args(data_dir, "--model.rnn_cell=lstm", "--model.bidirectional=false", *FEW_STEPS,
                      "--model.reverse_source=true")  # fmt: skip
    main(["fit", *common])
    (run_dir,) = (cli_env / "runs").iterdir()
    assert read_run(run_dir)["config"]["model.reverse_source"] is True
    assert "model.reverse_source" not in read_run(run_dir)["summary"]["not_applying"]
    last = run_dir / "checkpoints" / "last.ckpt"
    reads = {"fit": len(calls)}
    for command in ("validate", "test"):
        main([command, *common, f"--ckpt_path={last}"])
        reads[command] = len(calls) - sum(reads.values())
    source = cli_env / "source.de"
    source.write_text("Ein Hund rennt .\n")
    assert outcome(["translate", "--ckpt_path", str(last), "--input", str(source)], capsys)[0] == 0
    reads["translate"] = len(calls) - sum(reads.values())
    code, out, err = outcome(["attention", "--ckpt_path", str(last), "--text", "Ein Hund rennt .", "--out",
                              str(cli_env / "maps.png")], capsys)  # fmt: skip
    reads["attention"] = len(calls) - sum(reads.values())
    assert code == 0, err
    assert all(count > 0 for count in reads.values()), reads
    main(["fit", *common, "--model.reverse_source=false"])
    names = sorted(path.name for path in (cli_env / "runs").iterdir())
    assert len(names) == 2 and names[0][:-6] == names[1][:-6] and names[0] != names[1]  # the hash tells them apart
