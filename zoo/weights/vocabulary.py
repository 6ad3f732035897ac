"""A Hugging Face vocabulary in zoo's id order: zoo's data, tasks and decoders read ``<pad>`` 0, ``<bos>`` 1,
``<eos>`` 2 and ``<unk>`` 3 (:mod:`zoo.data.tokenizer`), so an imported model's ids are permuted to put its own
padding, start, end and unknown tokens there; the embedding's (and the output's) rows and ``tokenizer.json``'s
ids move alike, so that every logit is the one the checkpoint computes, under its new id. A role the checkpoint
has no token of its own for (GPT-2's padding and start, whose end token also starts a text; Marian's start,
which is its padding token) gets an extra row: a copy of the row that plays it there (a zero row where none
does), whose logit is held at ``EXTRA_LOGIT`` by ``model.output_bias`` so that it takes no probability."""

from __future__ import annotations

import json
from dataclasses import dataclass

import torch
from torch import Tensor

from zoo.weights.errors import WeightsError

ROLES = ("pad_id", "bos_id", "eos_id", "unk_id")  # zoo's ids 0, 1, 2, 3
EXTRA_LOGIT = -1e4  # exp(-1e4) is 0 in float32 and bfloat16: an extra row takes no probability
EXTRA_NAMES = ("<pad>", "<bos>", "<eos>", "<unk>")
# the backbone's parameters with a row per id
VOCABULARY_ROWS = ("embed.tokens.weight", "src_embed.tokens.weight", "tgt_embed.tokens.weight", "output.linear.weight")


@dataclass
class Vocabulary:
    """``rows[z]``: the checkpoint's id whose row zoo's id ``z`` takes, or -1 for a zero row; ``extra``: the
    zoo ids that are rows of their own (not one of the checkpoint's ids)."""

    rows: list[int]
    extra: list[int]

    @classmethod
    def of(cls, roles: dict, size: int) -> Vocabulary:
        """zoo's order of a vocabulary of ``size`` ids whose roles (``ROLES``: an id, or ``None``) are given.
        Where two roles share a token, the one the model predicts keeps it (``<eos>``, then ``<pad>`` and
        ``<unk>``), and ``<bos>``, which zoo never predicts, gets the copy."""
        rows = [-1 if roles.get(role) is None else roles[role] for role in ROLES]
        real: dict[int, int] = {}  # the checkpoint's id -> the zoo id that keeps it
        for z in (2, 0, 3, 1):
            if rows[z] >= 0 and rows[z] not in real:
                real[rows[z]] = z
        extra = [z for z in range(len(ROLES)) if real.get(rows[z]) != z]
        return cls(rows + [hf for hf in range(size) if hf not in real], extra)

    @property
    def size(self) -> int:
        return len(self.rows)

    def zoo_id(self) -> dict[int, int]:
        """The checkpoint's id -> zoo's (for the ids that are not extra)."""
        return {hf: z for z, hf in enumerate(self.rows) if z not in self.extra}

    def rows_of(self, table: Tensor) -> Tensor:
        """``(V, ...)`` rows in the checkpoint's order -> ``(V', ...)`` in zoo's (extra rows copied or zero)."""
        index = torch.tensor([max(hf, 0) for hf in self.rows])
        out = table.index_select(0, index).clone()
        missing = [z for z, hf in enumerate(self.rows) if hf < 0]
        out[missing] = 0
        return out

    def checkpoint_rows(self, table: Tensor) -> Tensor:
        """``(V', ...)`` rows in zoo's order -> ``(V, ...)`` in the checkpoint's, the extra rows dropped: the
        inverse of :meth:`rows_of`."""
        order = [z for _, z in sorted(self.zoo_id().items())]
        return table.index_select(0, torch.tensor(order, device=table.device))

    def checkpoint_id(self, z: int) -> int | None:
        """The checkpoint's id that zoo's id ``z`` stands for (an extra row: the one it copies; ``None``: a zero
        row, no token of the checkpoint's)."""
        return None if self.rows[z] < 0 else self.rows[z]

    def logits_bias(self, bias: Tensor | None) -> Tensor:
        """The output bias in zoo's order (zero where the checkpoint has none), ``EXTRA_LOGIT`` at extra rows."""
        out = torch.zeros(self.size) if bias is None else self.rows_of(bias.reshape(-1))
        out[self.extra] = EXTRA_LOGIT
        return out


def tokenizer_roles(tokenizer: dict, knobs: dict) -> dict:
    """The roles' ids: the padding, start and end ids of ``config.json`` (``knobs``), else those of BERT's
    ``[PAD]``, ``[CLS]`` and ``[SEP]`` in the tokenizer (BERT's config names none), and the tokenizer model's
    ``unk_token``."""
    model = tokenizer.get("model", {})
    vocab = model.get("vocab") if isinstance(model.get("vocab"), dict) else {}
    ids = {**vocab, **{token["content"]: token["id"] for token in tokenizer.get("added_tokens", [])}}
    roles = {"unk_id": ids.get(model.get("unk_token"))}
    for role, token in (("pad_id", "[PAD]"), ("bos_id", "[CLS]"), ("eos_id", "[SEP]")):
        roles[role] = knobs.get(role) if knobs.get(role) is not None else ids.get(token)
    return roles


def permuted_tokenizer(text: str, vocabulary: Vocabulary) -> str:
    """``tokenizer.json`` with zoo's ids: the model's vocabulary and the added tokens renumbered, an added
    special token for each extra row, the post-processor's template kept (:mod:`zoo.data.framing` frames each
    text with it) and no padding or truncation (zoo's collate pads, its data modules cut).

    Raises:
        WeightsError: for a tokenizer model whose vocabulary is not a token -> id table (Unigram's list).
    """
    tokenizer = json.loads(text)
    new = vocabulary.zoo_id()
    vocab = tokenizer.get("model", {}).get("vocab")
    if not isinstance(vocab, dict):
        kind = tokenizer.get("model", {}).get("type")
        raise WeightsError(
            f"tokenizer.json's model type={kind!r} has no token -> id table zoo can renumber (BPE, WordPiece, "
            f"WordLevel)"
        )
    tokenizer["model"]["vocab"] = {token: new[i] for token, i in vocab.items() if i in new}
    added = [{**token, "id": new[token["id"]]} for token in tokenizer.get("added_tokens", []) if token["id"] in new]
    taken = {token["content"] for token in added} | set(vocab)
    for z in vocabulary.extra:
        name = EXTRA_NAMES[z] if EXTRA_NAMES[z] not in taken else f"<zoo_{EXTRA_NAMES[z][1:-1]}>"
        added.append(
            {
                "id": z,
                "content": name,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        )
    tokenizer["added_tokens"] = sorted(added, key=lambda token: token["id"])
    # the library gives an added token the id of its model's vocabulary, and the next free one if it has none
    tokenizer["model"]["vocab"] |= {token["content"]: token["id"] for token in added}
    tokenizer["post_processor"] = renumbered(tokenizer.get("post_processor"), new)
    tokenizer["padding"], tokenizer["truncation"] = None, None
    return json.dumps(tokenizer, ensure_ascii=False)


def renumbered(processor: dict | None, new: dict[int, int]) -> dict | None:
    """A ``tokenizer.json`` post-processor with the ids of its special tokens in zoo's order (``new``: the
    checkpoint's id -> zoo's): ``TemplateProcessing``'s ``special_tokens``, ``BertProcessing``'s and
    ``RobertaProcessing``'s ``cls`` and ``sep``, each of a ``Sequence``'s ``processors``."""
    if processor is None:
        return None
    out = dict(processor)
    for key in ("cls", "sep"):
        if isinstance(out.get(key), list):
            out[key] = [out[key][0], new[out[key][1]]]
    if isinstance(out.get("special_tokens"), dict):
        out["special_tokens"] = {
            name: {**token, "ids": [new[i] for i in token["ids"]]} for name, token in out["special_tokens"].items()
        }
    if isinstance(out.get("processors"), list):
        out["processors"] = [renumbered(part, new) for part in out["processors"]]
    return out
