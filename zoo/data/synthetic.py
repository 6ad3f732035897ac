"""A synthetic translation task that needs no download: reverse a sequence of digits.

The quickstart (``make fit``) trains on it; a small encoder-decoder reaches near 100% exact match in about a
minute on a CPU. The pairs are generated once, deterministically from ``generation_seed``, into the cache as
JSON lines with the columns ``src`` and ``tgt``, then read through the same code path as real data.
"""

from __future__ import annotations

import json
import random

from zoo.data.cache import atomic_write_text, cache_key
from zoo.data.cache_entries import mark_used
from zoo.data.translation import TranslationDataModule

SPLIT_SIZES = {"validation": 500, "test": 500}


def reversal_pairs(count: int, min_length: int, max_length: int, rng: random.Random) -> list[dict[str, str]]:
    """``count`` rows ``{"src": "3 1 4", "tgt": "4 1 3"}`` of ``min_length`` to ``max_length`` digits."""
    rows = []
    for _ in range(count):
        digits = [str(rng.randrange(10)) for _ in range(rng.randint(min_length, max_length))]
        rows.append({"src": " ".join(digits), "tgt": " ".join(reversed(digits))})
    return rows


class ReversalDataModule(TranslationDataModule):
    """Digit-sequence reversal as a translation data set (character tokenizer).

    Args:
        num_train: training pairs.
        min_length: the fewest digits in a sequence.
        max_length: the most digits in a sequence.
        max_tokens: the token budget of a training batch.
        pad_to_multiple_of: see :class:`zoo.data.sentences.SentenceDataModule`.
        seed: the shuffling seed (:class:`zoo.data.base.ZooDataModule`; by default the run's ``seed_everything``).
        generation_seed: the seed the pairs are drawn with: the data set itself, kept apart from the run's seeds so
            that every seed of a sweep is trained and validated on the same pairs (default 0).
        cache_dir: where the generated files and tokenised splits go.
    """

    run_label = "reverse"

    def __init__(
        self,
        num_train: int = 20000,
        min_length: int = 3,
        max_length: int = 10,
        max_tokens: int = 4096,
        pad_to_multiple_of: int = 1,
        seed: int | None = None,
        cache_dir: str | None = None,
        generation_seed: int = 0,
    ) -> None:
        if not 1 <= min_length <= max_length:
            raise ValueError(f"data.min_length={min_length} and data.max_length={max_length} need 1 <= min <= max")
        super().__init__(
            path="",
            src_column="src",
            tgt_column="tgt",
            max_tokens=max_tokens,
            pad_to_multiple_of=pad_to_multiple_of,
            tokenizer="char",
            cache_dir=cache_dir,
            seed=seed,
        )
        lengths = {"min_length": min_length, "max_length": max_length}
        self.generation = {"num_train": num_train, **lengths, "seed": generation_seed}
        self.path = str(self._generate())

    @property
    def longest_sequence(self) -> tuple[int, str]:
        """The most tokens a sequence has: ``max_length`` digits and the spaces between them, with ``<bos>`` or
        ``<eos>`` (``2 * max_length``), set by ``data.max_length`` (``data.max_len`` is not a field here)."""
        return min(self.max_len, 2 * self.generation["max_length"]), "data.max_length"

    def _generate(self):
        folder = self.cache_dir / "synthetic" / f"reverse-{cache_key(**self.generation)}"
        if (folder / "test.jsonl").exists():
            mark_used(folder)
            return folder
        rng = random.Random(self.generation["seed"])
        sizes = {"train": self.generation["num_train"], **SPLIT_SIZES}
        lengths = self.generation["min_length"], self.generation["max_length"]
        for split, count in sizes.items():
            rows = reversal_pairs(count, *lengths, rng)
            atomic_write_text("".join(json.dumps(row) + "\n" for row in rows), folder / f"{split}.jsonl")
        return folder
