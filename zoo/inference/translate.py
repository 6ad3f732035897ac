"""``python -m zoo translate``: translate sentences from stdin or a file with a trained encoder-decoder."""

from __future__ import annotations

import sys
from pathlib import Path

from tqdm import tqdm

from zoo.cli.tool_parser import Bounded, Count
from zoo.decoding.settings import check_decoder_settings
from zoo.inference.command import check_checkpoint, main_of, parser, read_text, warn_of_unseen_characters
from zoo.inference.errors import InferenceError
from zoo.runs.checkpoint_file import not_a_file


def arguments():
    p = parser("translate", "Translate one sentence per line (stdin or --input) with a trained encoder-decoder.")
    p.stray_hint = "the sentences come from stdin or --input FILE, one a line (echo 'Ein Hund.' | python -m zoo ...)"
    p.add_argument("--input", help="a file with one source sentence per line (default: stdin)")
    p.add_argument("--beam_size", type=Count, help="hypotheses kept per sentence (default: the model's beam_size)")
    p.add_argument("--n_best", type=Count, help="translations printed per sentence, as index<TAB>score<TAB>text")
    p.add_argument("--length_penalty", type=float, help="GNMT alpha (default: the model's length_penalty)")
    p.add_argument("--max_len_a", type=float, help="at most max_len_a * source length + max_len_b tokens")
    p.add_argument("--max_len_b", type=Bounded, help="see --max_len_a (both default to the model's)")
    p.add_argument("--batch_size", type=Count, default=64, help="sentences decoded at once (default: 64)")
    return p


def checked_arguments(argv: list[str]):
    """The arguments of ``translate`` (``argv``: those after it), checked as far as no model is needed.

    Raises:
        InferenceError, ValueError: a bad argument, in one line.
    """
    args = arguments().parse_args(argv)
    check_decoder_settings(args.beam_size, args.length_penalty, args.max_len_a, args.max_len_b, prefix="--")
    if args.beam_size is not None:  # else the model's: checked once it is loaded
        _check_n_best(args.n_best or 1, args.beam_size)
    check_checkpoint(args.ckpt_path)
    if args.input is not None and not Path(args.input).is_file():
        raise InferenceError(not_a_file(args.input, "--input"))
    return args


def _check_n_best(n_best: int, beam_size: int) -> None:
    if n_best > beam_size:
        raise InferenceError(f"--n_best={n_best} is not valid; it must be at most --beam_size={beam_size}")


def run(argv: list[str]) -> None:
    """Translate and print: one line per sentence, or with ``--n_best N`` N lines ``index<TAB>score<TAB>text``
    per sentence, best first (scores: log-probability / GNMT length penalty)."""
    args = checked_arguments(argv)
    from zoo.inference.checkpoint import load_trained  # the model's modules (torch, Lightning): seconds
    from zoo.inference.text import translate_texts
    from zoo.tasks import TranslationTask

    model = load_trained(args.ckpt_path, args.device)
    model.require(TranslationTask, "translate")
    beam_size = model.task.hparams.beam_size if args.beam_size is None else args.beam_size
    n_best = args.n_best or 1
    _check_n_best(n_best, beam_size)
    lines = read_text(args.input, f"--input={args.input!r}" if args.input else "stdin").splitlines()
    warn_of_unseen_characters("translate", model.source_tokenizer, "".join(lines), "the input")
    _warn_of_cut_sentences(model, lines)
    with tqdm(total=len(lines), unit="sentence", disable=args.input is None, file=sys.stderr) as bar:
        found = translate_texts(
            model, lines, beam_size, args.length_penalty, n_best, args.max_len_a, args.max_len_b,
            args.batch_size, bar.update,
        )  # fmt: skip
    for index, translations in enumerate(found):
        for text, score in translations:
            print(text if args.n_best is None else f"{index}\t{score:.4f}\t{text}")


def _warn_of_cut_sentences(model, lines: list[str]) -> None:
    """Say on stderr which lines are longer than a learned position table holds: only their first tokens are
    translated (:func:`zoo.inference.text.source_limit`)."""
    from zoo.data.framing import bare_ids
    from zoo.inference.text import source_limit

    limit = source_limit(model.task)
    if limit is None:
        return
    cut = [i + 1 for i, ids in enumerate(bare_ids(model.source_tokenizer, lines)) if len(ids) > limit]
    if cut:
        shown = ", ".join(map(str, cut[:10])) + (", ..." if len(cut) > 10 else "")
        many = len(cut) > 1
        print(
            f"zoo translate: warning: {len(cut)} sentence{'s' * many} (line{'s' * many} {shown}) "
            f"{'are' if many else 'is'} longer than the {limit} tokens the model's learned positions hold "
            f"(model.max_len={model.task.hparams.max_len}); only {'their' if many else 'its'} first {limit} tokens "
            "are translated",
            file=sys.stderr,
        )


main = main_of("translate", run)
