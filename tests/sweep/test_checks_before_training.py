"""The checks a sweep makes of each trial before it starts (:func:`zoo.sweep.validate.check_before_training`)
build the task on the meta device: every shipped config with every registered component must build there, so
that the checks refuse only what ``fit`` refuses and never fail themselves."""

import pytest

from tests.conftest import REPO
from zoo.registry import ACTIVATIONS, NORMS, POSITIONAL_ENCODINGS
from zoo.sweep.spec import SweepError
from zoo.sweep.validate import check_before_training, cli_parser, parse

CONFIGS = sorted(str(p.relative_to(REPO)) for p in (REPO / "configs").glob("*/*.yaml"))
KNOBS = {"pe": POSITIONAL_ENCODINGS, "norm": NORMS, "activation": ACTIVATIONS}


@pytest.mark.parametrize("config", CONFIGS)
def test_every_component_builds_on_the_meta_device(config, monkeypatch):
    monkeypatch.chdir(REPO)
    parser = cli_parser()
    for knob, registry in KNOBS.items():
        for name in registry.names():
            for position in ("pre", "post"):
                arguments = ["fit", "--config", config, "--data.path=.", f"--model.{knob}={name}"]
                check_before_training(parse(parser, [*arguments, f"--model.norm_position={position}"]))


def test_what_fit_refuses_is_refused(monkeypatch):
    monkeypatch.chdir(REPO)
    arguments = ["fit", "--config", "configs/decoder_only/tinyshakespeare.yaml", "--data.path=."]
    with pytest.raises(SweepError, match=r"^model.d_model=30 is not divisible by model.n_heads=4"):
        check_before_training(parse(cli_parser(), [*arguments, "--model.d_model=30"]))
    with pytest.raises(SweepError, match=r"^trainer.log_every_n_steps=0 is not valid"):
        check_before_training(parse(cli_parser(), [*arguments, "--trainer.log_every_n_steps=0"]))


def test_a_data_path_no_trial_could_read_is_refused(monkeypatch, tmp_path):
    """A missing folder, or a hub id offline, was listed 'to run' by --dry-run and failed in every trial."""
    monkeypatch.chdir(REPO)
    arguments = ["fit", "--config", "configs/decoder_only/tinyshakespeare.yaml"]
    missing = tmp_path / "nonexist"
    with pytest.raises(SweepError, match=rf"^data.path='{missing}' is not a folder"):
        check_before_training(parse(cli_parser(), [*arguments, f"--data.path={missing}"]))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(SweepError, match=r"^data.path='karpathy/tiny_shakespeare' is not a local folder .* cannot"):
        check_before_training(parse(cli_parser(), [*arguments, "--data.path=karpathy/tiny_shakespeare"]))
