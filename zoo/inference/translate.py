"""``python -m zoo translate``: translate sentences from stdin or a file with a trained encoder-decoder."""

from __future__ import annotations

import sys
from pathlib import Path

from tqdm import tqdm

from zoo.decoding.beam import check_decoder_settings
from zoo.inference.checkpoint import InferenceError, load_trained
from zoo.inference.command import main_of, parser, positive
from zoo.inference.text import translate_texts
from zoo.tasks import TranslationTask


def arguments():
    p = parser("translate", "Translate one sentence per line (stdin or --input) with a trained encoder-decoder.")
    p.add_argument("--input", help="a file with one source sentence per line (default: stdin)")
    p.add_argument("--beam_size", type=int, help="hypotheses kept per sentence (default: the model's beam_size)")
    p.add_argument("--n_best", type=int, default=1, help="translations printed per sentence, with scores")
    p.add_argument("--length_penalty", type=float, help="GNMT alpha (default: the model's length_penalty)")
    p.add_argument("--max_len_a", type=float, help="at most max_len_a * source length + max_len_b tokens")
    p.add_argument("--max_len_b", type=int, help="see --max_len_a (both default to the model's)")
    p.add_argument("--batch_size", type=int, default=64, help="sentences decoded at once (default: 64)")
    return p


def run(argv: list[str]) -> None:
    """Translate and print: one line per sentence, or with ``--n_best N`` N lines ``index<TAB>score<TAB>text``
    per sentence, best first (scores: log-probability / GNMT length penalty)."""
    args = arguments().parse_args(argv)
    positive("batch_size", args.batch_size)
    positive("beam_size", args.beam_size, optional=True)
    positive("n_best", args.n_best)
    check_decoder_settings(args.beam_size, args.length_penalty, args.max_len_a, args.max_len_b, prefix="--")
    model = load_trained(args.ckpt_path, args.device)
    model.require(TranslationTask, "translate")
    beam_size = model.task.hparams.beam_size if args.beam_size is None else args.beam_size
    if args.n_best > beam_size:
        raise InferenceError(f"--n_best={args.n_best} is not valid; it must be at most --beam_size={beam_size}")
    if args.input is not None and not Path(args.input).is_file():
        raise InferenceError(f"--input={args.input!r} is not a file")
    try:
        lines = (Path(args.input).read_text(encoding="utf-8") if args.input else sys.stdin.read()).splitlines()
    except UnicodeDecodeError as error:
        where = f"--input={args.input!r}" if args.input else "stdin"
        byte = f"byte {error.start}: {error.object[error.start]:#04x}"
        raise InferenceError(f"{where} is not UTF-8 text ({byte}); zoo reads sentences as UTF-8") from None
    with tqdm(total=len(lines), unit="sentence", disable=args.input is None, file=sys.stderr) as bar:
        found = translate_texts(
            model, lines, beam_size, args.length_penalty, args.n_best, args.max_len_a, args.max_len_b,
            args.batch_size, bar.update,
        )  # fmt: skip
    for index, translations in enumerate(found):
        for text, score in translations:
            print(text if args.n_best == 1 else f"{index}\t{score:.4f}\t{text}")


main = main_of("translate", run)
