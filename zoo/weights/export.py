"""``python -m zoo export --ckpt_path CKPT --out DIR``: a zoo model whose knobs match a Hugging Face architecture
(GPT-2, Llama, BERT, Marian) written as that architecture's folder: ``config.json``, ``model.safetensors`` and
the run's ``tokenizer.json``, which ``transformers``' ``AutoModel*.from_pretrained(DIR)`` loads with equal
logits. A model no architecture matches is refused in one line naming the knobs without a counterpart, and
nothing is written."""

from __future__ import annotations

from pathlib import Path

from zoo.inference.command import check_checkpoint, main_of, parser
from zoo.inference.errors import InferenceError
from zoo.weights.errors import WeightsError

BACKBONES = {"DecoderOnly": "decoder_only", "EncoderOnly": "encoder_only", "EncoderDecoder": "encoder_decoder"}


def arguments():
    p = parser("export", "Write a zoo model as the Hugging Face model folder of the architecture its knobs match.")
    p.add_argument("--out", required=True, help="a new folder for config.json, model.safetensors, tokenizer.json")
    return p


def check_out(out: str) -> Path:
    """``--out`` as a path, if it is new or an empty folder (nothing there is overwritten).

    Raises:
        InferenceError: naming ``--out`` if it is a file or a folder with files.
    """
    path = Path(out).expanduser()
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        what = "a file" if not path.is_dir() else "a folder with files"
        raise InferenceError(f"--out={out!r} is {what}; name a new folder (nothing there is overwritten)")
    return path


def export_knobs(task) -> dict:
    """The knobs of a trained task with the special ids of zoo's tokenizers (zoo.data.tokenizer)."""
    from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID

    return {**dict(task.hparams), "pad_id": PAD_ID, "bos_id": BOS_ID, "eos_id": EOS_ID}


def run(argv: list[str]) -> None:
    """Check the arguments, load the checkpoint, match an architecture, then write the folder."""
    args = arguments().parse_args(argv)
    check_checkpoint(args.ckpt_path)
    out = check_out(args.out)
    from zoo.inference.checkpoint import load_trained
    from zoo.weights.convert import export_state, matching_family
    from zoo.weights.folder import write_folder

    trained = load_trained(args.ckpt_path, "cpu" if args.device is None else args.device)
    network = trained.task.network.cpu()
    knobs = export_knobs(trained.task)
    try:
        family = matching_family(BACKBONES[type(network).__name__], knobs)
        state = export_state(network, knobs, family)
    except WeightsError as error:
        raise InferenceError(str(error)) from None
    tokenizer = trained.tokenizers.get("joint") or trained.tokenizers.get("text")
    write_folder(out, family.hf_config(knobs), state, None if tokenizer is None else tokenizer.to_str())
    print(f"wrote {family.architecture} to {out} (config.json, model.safetensors, tokenizer.json)")


main = main_of("export", run)
