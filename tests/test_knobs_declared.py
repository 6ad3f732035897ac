"""docs/extending.md's "A new knob": what zoo keeps per knob is one entry of ``zoo.knobs.KNOBS``, and every
reader follows it (applicability, the run name, compare's tie-break) with no other edit."""

from zoo.compare.configurations import default_baseline
from zoo.compare.records import NOT_APPLYING, mark_not_applying
from zoo.knobs import KNOBS, RNN, TRANSFORMER, Knob, knobs_of, name_forms, not_applying, paper_values
from zoo.runs.identity import run_family

CONFIG = {"model.pe": "rope", "model.norm": "rmsnorm", "model.norm_position": "pre", "model.n_heads": 4}


def test_a_knob_added_once_is_named_applied_and_compared_by_every_reader(monkeypatch):
    monkeypatch.setitem(KNOBS, "qk_norm", Knob((TRANSFORMER,), paper=False, name_form={TRANSFORMER: "qk{}"}))
    flat = {**CONFIG, "model.qk_norm": True, "seed_everything": 1}
    assert run_family("do", "tinyshakespeare", flat) == "do-tinyshakespeare-rope-rmsnorm-pre-h4-qkTrue-s1"
    assert "qk_norm" in knobs_of(TRANSFORMER) and "qk_norm" not in knobs_of(RNN)
    assert not_applying("LanguageModelTask", {"architecture": "rnn", "qk_norm": True}) == {"qk_norm": "architecture"}
    assert not_applying("LanguageModelTask", {"qk_norm": True}) == {}
    recurrent = {"model.class_path": "zoo.tasks.LanguageModelTask", "model.architecture": "rnn", "model.qk_norm": 1}
    assert mark_not_applying(recurrent)["model.qk_norm"] == NOT_APPLYING
    assert paper_values()["model.qk_norm"] is False
    groups = {(True,): ["a"], (False,): ["b"]}  # one run each: the paper's value breaks the tie
    assert default_baseline(groups, ["model.qk_norm"]) == (False,)


def test_the_declared_knobs_give_the_names_and_baselines_of_before():
    """The tables the declarations replaced: run names, the Transformer's paper values."""
    assert name_forms(TRANSFORMER) == {"pe": "{}", "norm": "{}", "norm_position": "{}", "n_heads": "h{}"}
    assert name_forms(RNN) == {"architecture": "{}", "rnn_cell": "{}", "rnn_attention": "{}"}
    assert paper_values() == {"model.pe": "sinusoidal", "model.norm": "layernorm", "model.norm_position": "post",
                              "model.activation": "relu", "model.n_heads": 8, "model.bias": True}  # fmt: skip
    assert set(knobs_of(RNN)) == {"rnn_cell", "rnn_hidden", "bidirectional", "rnn_attention", "input_feeding",
                                  "reverse_source", "teacher_forcing"}  # fmt: skip
