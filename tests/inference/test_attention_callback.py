"""``--trainer.callbacks+=zoo.inference.attention_callback.AttentionMaps`` draws the first validation example's
attention maps at each validation, into the run folder and to W&B; ``zoo.callbacks.AttentionMaps``, the class
path of configs written before the package restructure (issue 42), names the same class."""

import pytest
from PIL import Image

from tests.cli.helpers import CONFIGS, FEW_STEPS, TINY_MODEL, VARIANTS
from zoo.cli.main import main
from zoo.inference.attention_callback import AttentionMaps


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["encoder_decoder", "encoder_only", "decoder_only"])
def test_attention_maps_at_every_validation(variant, data_dir, cli_env):
    config, name, extra, _ = VARIANTS[variant]
    main(
        [
            "fit", "--config", str(CONFIGS / config), f"--data.path={data_dir / name}", *TINY_MODEL, *extra,
            *FEW_STEPS, "--trainer.callbacks+=zoo.callbacks.AttentionMaps",
        ]
    )  # fmt: skip
    (run_dir,) = (cli_env / "runs").iterdir()
    maps = sorted(path.name for path in (run_dir / "attention").iterdir())
    assert maps == ["step3.png", "step6.png"]  # validations at steps 3 and 6; the sanity check draws none
    rows = 3 if variant == "encoder_decoder" else 1  # one layer: encoder, decoder and cross-attention, or one stack
    assert Image.open(run_dir / "attention" / "step6.png").size == (600, 300 * rows)  # 2 heads of 300 x 300
    images = list((run_dir / "wandb").glob("offline-run-*/files/media/images/attention_*.png"))
    assert len(images) == 2, images


def test_the_class_path_of_earlier_configs_names_the_callback():
    from jsonargparse import ArgumentParser
    from lightning.pytorch.callbacks import Callback

    parser = ArgumentParser()
    parser.add_argument("--callback", type=Callback)
    parsed = parser.instantiate_classes(parser.parse_args(["--callback=zoo.callbacks.AttentionMaps"]))
    assert type(parsed.callback) is AttentionMaps
