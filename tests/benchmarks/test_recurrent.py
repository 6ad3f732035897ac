"""The recurrent benchmark's parts that its numbers rest on: each plain reference has the zoo network's parameters
and, with the zoo's weights copied in, computes the zoo's logits (so the two rows time the same computation); and
one quick run of the script end to end (its timings are never asserted)."""

import torch

from benchmarks.recurrent import QUICK_ATTENTION, attention_cases, language_model_cases, main, translation_batch
from benchmarks.recurrent_reference import PlainAttentionModel, PlainLanguageModel


def copy_attention_weights(zoo, plain: PlainAttentionModel) -> None:
    decoder = zoo.decoder
    pairs = {
        "embedding.weight": zoo.encoder.embedding.weight,
        "bridge.weight": decoder.bridge_h.weight, "bridge.bias": decoder.bridge_h.bias,
        "w_a.weight": decoder.attention.query_proj.weight, "u_a.weight": decoder.attention.key_proj.weight,
        "v_a.weight": decoder.attention.v.weight,
        "output.weight": decoder.output.weight, "output.bias": decoder.output.bias,
    }  # fmt: skip
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        pairs[f"decoder.{name}"] = getattr(decoder.rnn, f"{name}_l0")
        for suffix in ("l0", "l0_reverse"):
            pairs[f"encoder.{name}_{suffix}"] = getattr(zoo.encoder.rnn, f"{name}_{suffix}")
    plain.load_state_dict({name: tensor.detach() for name, tensor in pairs.items()}, strict=True)


def test_the_plain_attention_model_is_the_zoos_computation():
    zoo, plain = (case.model.double().eval() for case in attention_cases(QUICK_ATTENTION))
    assert sum(p.numel() for p in zoo.parameters()) == sum(p.numel() for p in plain.parameters())
    copy_attention_weights(zoo, plain)
    src, tgt_in, _, src_mask = translation_batch(QUICK_ATTENTION)
    assert src_mask.any()
    with torch.no_grad():
        torch.testing.assert_close(plain(src, tgt_in, src_mask), zoo(src, tgt_in, src_mask), atol=1e-10, rtol=0)


def test_the_plain_language_model_is_the_zoos_computation():
    zoo, plain = (case.model.double().eval() for case in language_model_cases(QUICK_ATTENTION))
    assert isinstance(plain, PlainLanguageModel)
    assert sum(p.numel() for p in zoo.parameters()) == sum(p.numel() for p in plain.parameters())
    state = {"embedding.weight": zoo.embedding.weight, "output.bias": zoo.output.bias}
    state |= {f"rnn.{name}": tensor for name, tensor in zoo.rnn.named_parameters()}
    plain.load_state_dict({name: tensor.detach() for name, tensor in state.items()}, strict=False)
    ids = torch.randint(1, 65, (3, 9))
    with torch.no_grad():
        torch.testing.assert_close(plain(ids), zoo(ids), atol=1e-10, rtol=0)


def test_a_quick_run_prints_every_table(capsys):
    threads = torch.get_num_threads()
    try:
        report = main(["--quick", "--threads", "1", "--compile", "aot_eager", "--format", "markdown"])
    finally:
        torch.set_num_threads(threads)  # the rest of this worker's tests run as before
    out = capsys.readouterr().out
    for title in ("attention model", "language model", "torch.compile (backend aot_eager)"):
        assert f"**{title}" in out
    assert "plain loop (GRUCell)" in out and "zoo RecurrentLanguageModel" in out and report.lines
