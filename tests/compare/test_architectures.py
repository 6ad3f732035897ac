"""Runs of two architectures (``model.architecture``): a knob one of them does not use is never a variation."""

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from tests.compare.fake_runs import write_run
from zoo.compare.configurations import differing_knobs
from zoo.compare.records import NOT_APPLYING, load_run_folder, mark_not_applying

RNN = {"model.architecture": "rnn", "model.rnn_cell": "gru", "model.rnn_attention": "additive"}


def test_a_sweep_over_the_architecture_varies_the_architecture_alone(tmp_path, compare_json):
    runs = tmp_path / "runs"  # the Transformer's pe and the RNN's attention differ: each unused by the other
    write_config(runs, "sinusoidal", SINUSOIDAL, **{"model.architecture": "transformer", "model.rnn_attention": "dot"})
    write_config(runs, "rope", ROPE, **RNN)
    result = compare_json(runs)
    assert result["knobs"] == ["model.architecture"]


def test_knobs_that_apply_to_one_architecture_are_no_joint_effect(tmp_path, compare_json):
    """A Transformer beside RNNs of two cells: its row differs from the baseline RNN in the architecture alone
    (its rnn_cell is n/a), so no note calls it the joint effect of the architecture and the cell."""
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL, **{"model.architecture": "transformer"})
    write_config(runs, "rope", ROPE, **RNN)
    write_config(runs, "learned", SINUSOIDAL, **{**RNN, "model.rnn_cell": "lstm"})
    result = compare_json(runs, "--baseline", "rnn_cell=gru")
    assert result["knobs"] == ["model.architecture", "model.rnn_cell"]
    assert not any("joint effect" in note for note in result["notes"]), result["notes"]


def test_a_knob_that_applies_to_some_runs_only_varies_among_them(tmp_path):
    runs = tmp_path / "runs"
    folders = write_config(runs, "sinusoidal", SINUSOIDAL[:1], **{"model.architecture": "transformer"})
    folders += write_config(runs, "learned", SINUSOIDAL[:1], **RNN)
    folders += write_config(runs, "rope", SINUSOIDAL[:1], **{**RNN, "model.rnn_attention": "dot"})
    loaded = [load_run_folder(folder) for folder in folders]
    assert loaded[1].config["model.pe"] == NOT_APPLYING and loaded[0].config["model.rnn_attention"] == NOT_APPLYING
    assert differing_knobs(loaded) == ["model.architecture", "model.rnn_attention"]
    assert differing_knobs(loaded[1:]) == ["model.rnn_attention"]  # model.pe learned vs rope: trained alike


def test_marking_reads_the_task_and_the_architecture():
    config = {"model.class_path": "zoo.tasks.TranslationTask", "model.architecture": "rnn", "model.pe": "rope",
              "model.tie_embeddings": True, "model.d_model": 64, "data.path": "x"}  # fmt: skip
    assert mark_not_applying(config) == {**config, "model.pe": NOT_APPLYING, "model.tie_embeddings": NOT_APPLYING}
    old = {"model.class_path": "zoo.tasks.LanguageModelTask", "model.pe": "rope", "model.rnn_cell": "lstm"}
    assert mark_not_applying(old) == {**old, "model.rnn_cell": NOT_APPLYING}  # before the knob: a Transformer


def test_rope_theta_varies_among_rope_runs_only():
    """A sweep over ``model.pe`` from a base with ``rope_theta`` 500000 against one with 10000: only the rope runs
    differ in it, so the sinusoidal runs of both are one configuration."""
    base = {"model.class_path": "zoo.tasks.LanguageModelTask", "model.rope_theta": 5e5}
    marked = [mark_not_applying({**base, "model.pe": pe, "model.rope_theta": theta}) for pe in ("rope", "sinusoidal")
              for theta in (1e4, 5e5)]  # fmt: skip
    assert [config["model.rope_theta"] for config in marked] == [1e4, 5e5, NOT_APPLYING, NOT_APPLYING]


def test_a_time_limit_that_stopped_no_run_is_no_knob(tmp_path):
    """Seeds of one configuration at 300 steps under two ``max_time`` caps that neither reached trained alike;
    a cap that stopped a run short of its steps is a knob (that run trained less)."""
    runs, curve = tmp_path / "runs", [(100, 20.0), (200, 25.0), (300, 26.0)]
    cells = [(1, "00:01:00:00", 4), (2, "00:01:10:00", 4), (3, "00:01:10:00", 4), (1, "00:01:10:00", 8)]
    folders = [
        write_run(runs, f"r-s{seed}-h{heads}", curve, seed=seed,
                  knobs={"trainer.max_steps": 300, "trainer.max_time": cap, "model.n_heads": heads})
        for seed, cap, heads in cells
    ]  # fmt: skip
    loaded = [load_run_folder(folder) for folder in folders]
    assert differing_knobs(loaded) == ["model.n_heads"]
    short = write_run(runs, "short", curve, knobs={"trainer.max_steps": 400, "trainer.max_time": "00:00:01:00"})
    assert "trainer.max_time" in differing_knobs([*loaded, load_run_folder(short)])  # stopped at 300 of 400
