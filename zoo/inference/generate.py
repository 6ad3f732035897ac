"""``python -m zoo generate``: continue a prompt with a trained language model."""

from __future__ import annotations

from zoo.cli.tool_parser import Count, Seed
from zoo.decoding.settings import check_decoder_settings, check_sampling
from zoo.inference.command import check_checkpoint, checked_text, main_of, parser, warn_of_unseen_characters
from zoo.inference.errors import InferenceError

MAX_NEW_TOKENS = 200  # --max_new_tokens's default, which an exported generation_config.json states


def arguments():
    p = parser("generate", "Continue a prompt with a trained decoder-only language model.")
    p.stray_hint = "the text to continue goes in --prompt TEXT"
    p.add_argument("--prompt", default="", help="the text to continue (default: empty, which starts from <bos>)")
    p.add_argument(
        "--max_new_tokens", type=Count, default=MAX_NEW_TOKENS, help=f"tokens added at most (default: {MAX_NEW_TOKENS})"
    )
    p.add_argument("--temperature", type=float, help="sampling temperature; 0 is greedy (default: 1)")
    p.add_argument("--top_k", type=Count, help="sample from the k most likely tokens only")
    p.add_argument("--top_p", type=float, help="sample from the smallest set of tokens with probability >= p")
    p.add_argument("--seed", type=Seed, help="fixes the samples (default: a fresh seed)")
    p.add_argument("--num_samples", type=Count, default=1, help="continuations printed (default: 1)")
    p.add_argument("--beam_size", type=Count, default=1, help="above 1: beam search instead of sampling")
    p.add_argument("--length_penalty", type=float, default=0.0, help="GNMT alpha of beam search (default: 0)")
    return p


def checked_arguments(argv: list[str]):
    """The arguments of ``generate`` (``argv``: those after it), checked as far as no model is needed;
    ``temperature`` resolved (1 when not given).

    Raises:
        InferenceError: a bad argument, in one line.
    """
    args = arguments().parse_args(argv)
    args.prompt = checked_text(args.prompt, "--prompt")
    sampling = [f"--{name}" for name in ("temperature", "top_k", "top_p") if getattr(args, name) is not None]
    if args.beam_size > 1 and sampling:
        raise InferenceError(
            f"{', '.join(sampling)} set with --beam_size={args.beam_size}: beam search does not sample; leave "
            f"{'it' if len(sampling) == 1 else 'them'} out, or sample with --beam_size 1"
        )
    args.temperature = 1.0 if args.temperature is None else args.temperature
    try:
        check_sampling(args.temperature, args.top_k, args.top_p, prefix="--")
        check_decoder_settings(args.beam_size, args.length_penalty, None, None, prefix="--")
    except ValueError as error:
        raise InferenceError(str(error)) from None
    if args.beam_size > 1 and args.num_samples > args.beam_size:
        raise InferenceError(f"--num_samples={args.num_samples} is not valid with beam search; at most --beam_size")
    check_checkpoint(args.ckpt_path)
    return args


def run(argv: list[str]) -> None:
    """Generate and print each continuation (prompt included), separated by a line ``---``. The context
    slides over the model's last ``max_len`` tokens, as in nanoGPT."""
    args = checked_arguments(argv)
    from zoo.inference.checkpoint import load_trained  # the model's modules (torch, Lightning): seconds
    from zoo.inference.text import generate_text
    from zoo.tasks import LanguageModelTask

    model = load_trained(args.ckpt_path, args.device)
    model.require(LanguageModelTask, "generate")
    warn_of_unseen_characters("generate", model.source_tokenizer, args.prompt, "the prompt")
    texts = generate_text(
        model, args.prompt, args.max_new_tokens, args.num_samples, args.temperature, args.top_k, args.top_p,
        args.seed, args.beam_size, args.length_penalty,
    )  # fmt: skip
    print("\n---\n".join(texts))


main = main_of("generate", run)
