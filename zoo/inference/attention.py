"""``python -m zoo attention``: draw the attention weights of a trained model on a text, for every layer and
head: encoder self-attention, decoder self-attention and encoder-decoder attention of a translation model
(on its own translation, or ``--target``), the encoder of a classifier, the decoder of a language model. The
arguments are checked here, before the maps' modules (:mod:`.maps`: torch, Lightning) load."""

from __future__ import annotations

from pathlib import Path

from zoo.inference.command import check_checkpoint, check_out_file, checked_text, main_of, parser
from zoo.inference.errors import InferenceError
from zoo.runs.output_files import replaceable_problem, replaced


def arguments():
    p = parser("attention", "Draw the attention maps of every layer and head of a trained model on a text.")
    p.stray_hint = "the text goes in --text TEXT"
    p.add_argument("--text", required=True, help="the input: a source sentence, a sentence to classify, or text")
    p.add_argument("--target", help="translation models: the target side (default: the model's own translation)")
    p.add_argument("--out", help="the PNG to write (default: attention.png in the checkpoint's run folder, "
                   "runs/<name>/attention.png)")
    return p


def default_out(ckpt_path: Path) -> Path:
    """Where ``--out`` writes when not given: ``attention.png`` in the checkpoint's run folder
    (``runs/<name>/checkpoints/last.ckpt`` -> ``runs/<name>/attention.png``, under the ``runs/`` that git
    ignores), else beside the checkpoint; never in the folder the command runs in."""
    folder = ckpt_path.parent
    return (folder.parent if folder.name == "checkpoints" else folder) / "attention.png"


def checked_arguments(argv: list[str]):
    """The arguments of ``attention`` (``argv``: those after it), checked as far as no model is needed;
    ``out`` resolved (:func:`default_out`), ``text`` and ``target`` without a byte-order mark.

    Raises:
        InferenceError: a bad argument, in one line.
    """
    args = arguments().parse_args(argv)
    args.out = args.out or str(default_out(Path(args.ckpt_path)))
    check_out_file(args.out)
    if Path(args.out).suffix.lower() != ".png" or Path(args.out).is_dir():
        raise InferenceError(f"--out={args.out!r} is not valid; name a .png file, e.g. --out maps.png")
    if problem := replaceable_problem(Path(args.out), "attention"):  # maps of its own it may replace
        raise InferenceError(f"--out={args.out!r}: {problem}")
    check_checkpoint(args.ckpt_path)
    args.target = None if args.target is None else checked_text(args.target, "--target")
    args.text = checked_text(args.text, "--text")
    return args


def run(argv: list[str]) -> None:
    """Draw the maps to ``--out`` and print its path and size."""
    args = checked_arguments(argv)
    from zoo.inference.checkpoint import load_trained  # the model's modules (torch, Lightning): seconds
    from zoo.inference.figure import draw_attention, figure_size
    from zoo.inference.maps import map_title, maps_of, own_translation
    from zoo.tasks import TranslationTask

    model = load_trained(args.ckpt_path, args.device)
    if args.target is not None and not isinstance(model.task, TranslationTask):
        raise InferenceError("--target is for translation models only")
    own = args.target is None and isinstance(model.task, TranslationTask)
    target = own_translation(model, args.text) if own else args.target
    maps = maps_of(model, args.text, target)
    earlier = replaced(Path(args.out))
    draw_attention(maps, Path(args.out), map_title(args.text, target, own))
    width, height = figure_size(maps)
    heads = max(m.weights.shape[0] for m in maps)
    modules = f"{len(maps)} attention module{'s' * (len(maps) != 1)} x {heads} head{'s' * (heads != 1)}"
    print(f"{args.out}: {modules}, {width}x{height} pixels{earlier}")


main = main_of("attention", run)
