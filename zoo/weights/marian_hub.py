"""Marian's tokenizer in the hub's layout (Helsinki-NLP's opus-mt folders: ``source.spm``, ``target.spm`` and
``vocab.json``, no ``tokenizer.json``) as two ``tokenizer.json`` in zoo's ids, read as ``MarianTokenizer`` reads
it: a source text is cut into pieces by ``source.spm``, a target by ``target.spm``, and each piece takes its id
in the one ``vocab.json`` both sides share (the model's shared embedding rows), ``</s>`` ending the text.

Each SentencePiece model is converted by ``transformers``' own converter (``SpmConverter``: the model's
normalisation, dummy prefix and Unigram scores), its pieces numbered by ``vocab.json``. A piece of
``vocab.json`` that one side's model lacks (the other side's, a special token) gets a score no path of that
side's pieces can fall below, so that it is never cut from text. A piece of a SentencePiece model that
``vocab.json`` lacks, which ``MarianTokenizer`` reads as ``<unk>``, gets an extra row, a copy of ``<unk>``'s: a
source reads it as the model does; a target is cut around it, so that a label is one of the model's own rows;
the import line counts such pieces."""

from __future__ import annotations

from pathlib import Path

from zoo.weights.errors import WeightsError
from zoo.weights.folder import read_json
from zoo.weights.vocabulary import EXTRA_NAMES, Vocabulary

SIDES = {"src": "source.spm", "tgt": "target.spm"}  # zoo's tokenizer names (zoo.data.TranslationDataModule)
HUB_FILES = ("source.spm", "target.spm", "vocab.json", "tokenizer_config.json", "special_tokens_map.json")
NORMAL, USER_DEFINED = 1, 4  # SentencePiece's piece types (sentencepiece_model.proto)


def is_hub_layout(folder: Path) -> bool:
    return not (folder / "tokenizer.json").is_file() and all((folder / name).is_file() for name in SIDES.values())


def hub_files(folder: Path) -> dict[str, bytes]:
    """The tokenizer's own files, as they are, for ``zoo export`` to write back."""
    return {name: (folder / name).read_bytes() for name in HUB_FILES if (folder / name).is_file()}


def hub_vocab(folder: Path, size: int) -> dict[str, int]:
    """``vocab.json``: piece -> the model's row.

    Raises:
        WeightsError: where it is missing, is no piece -> id table of ``size`` ids (config.json's vocab_size)
            with an ``<unk>``, or the folder's ``tokenizer_config.json`` asks for a target vocabulary of its own.
    """
    config = folder / "tokenizer_config.json"
    if config.exists() and read_json(config).get("separate_vocabs"):
        raise WeightsError(
            f"{str(config)!r} has separate_vocabs=true (a target_vocab.json of its own); zoo imports Marian "
            f"folders whose source and target share vocab.json"
        )
    path = folder / "vocab.json"
    vocab = read_json(path) if path.exists() else None
    ids = list(vocab.values()) if isinstance(vocab, dict) else []
    if not ids or any(type(i) is not int for i in ids) or sorted(ids) != list(range(size)) or "<unk>" not in vocab:
        raise WeightsError(
            f"{str(path)!r} is not a piece -> id table of config.json's vocab_size={size} ids with an <unk>"
        )
    return vocab


def hub_roles(vocab: dict[str, int], knobs: dict) -> dict:
    """The roles' ids (zoo.weights.vocabulary.ROLES): config.json's padding, start and end, vocab.json's unknown."""
    return {"pad_id": knobs.get("pad_id"), "bos_id": knobs.get("bos_id"), "eos_id": knobs.get("eos_id"),
            "unk_id": vocab["<unk>"]}


def hub_tokenizers(folder: Path, vocab: dict[str, int], vocabulary: Vocabulary) -> tuple[dict[str, str], int]:
    """``{"src": ..., "tgt": ...}``: each side's ``tokenizer.json`` in zoo's ids, and how many pieces of the
    SentencePiece models ``vocab.json`` lacks. Each such piece becomes an extra row of ``vocabulary`` (extended
    in place): a copy of ``<unk>``'s, which the source reads it as (as ``MarianTokenizer`` does), and which no
    target is cut into or decodes to."""
    try:
        import google.protobuf  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        raise WeightsError(
            f"{str(folder)!r} is in Marian's hub layout (source.spm, target.spm, vocab.json), which zoo reads with "
            f"transformers' SentencePiece converter: pip install 'zoo[hub]' (transformers, protobuf)"
        ) from None
    protos = {name: read_proto(folder / file) for name, file in SIDES.items()}
    lacking = sorted({piece.piece for proto in protos.values() for piece in proto.pieces if piece.type == NORMAL}
                     - set(vocab))  # fmt: skip
    first = vocabulary.size
    vocabulary.rows += [vocab["<unk>"]] * len(lacking)
    vocabulary.extra += list(range(first, vocabulary.size))
    names = role_names(vocabulary, set(vocab)) | dict(enumerate(lacking, first))
    by_id = {i: piece for piece, i in vocab.items()}
    pieces = [names.get(z) or by_id[hf] for z, hf in enumerate(vocabulary.rows)]
    unk = vocabulary.rows.index(vocab["<unk>"])
    sources = side_tokenizer(protos["src"], pieces, set(names) & set(range(first)), unk)
    return {"src": sources, "tgt": side_tokenizer(protos["tgt"], pieces, set(names), unk)}, len(lacking)


def read_proto(path: Path):
    """The SentencePiece model of ``path``.

    Raises:
        WeightsError: for a file that is no SentencePiece model, or one zoo cannot read as a list of pieces
            (BPE, byte fallback, user-defined pieces).
    """
    from google.protobuf.message import DecodeError
    from transformers.convert_slow_tokenizer import import_protobuf

    proto = import_protobuf().ModelProto()
    try:
        proto.ParseFromString(path.read_bytes())
    except DecodeError:
        raise WeightsError(f"{str(path)!r} is not a SentencePiece model") from None
    spec = proto.trainer_spec
    unread = {
        f"model_type={spec.ModelType.Name(spec.model_type)}": spec.model_type != 1,  # Unigram: opus-mt's
        "byte_fallback": spec.byte_fallback,
        "user-defined pieces": any(piece.type == USER_DEFINED for piece in proto.pieces),
    }
    if not proto.pieces or any(unread.values()):
        named = [name for name, found in unread.items() if found] or ["no pieces"]
        raise WeightsError(
            f"{str(path)!r} has {', '.join(named)}; zoo reads SentencePiece Unigram models of plain pieces"
        )
    return proto


def side_tokenizer(proto, pieces: list[str], never: set[int], unk: int) -> str:
    """One side's ``tokenizer.json``: ``pieces[z]`` at zoo's id ``z``, each scored as ``proto`` scores it, those
    it lacks and the ids in ``never`` below any cut of their span into its own pieces."""
    from tokenizers import AddedToken, Regex, decoders, processors
    from tokenizers.models import Unigram
    from transformers.convert_slow_tokenizer import SpmConverter

    scores = {piece.piece: piece.score for piece in proto.pieces if piece.type == NORMAL}
    lowest = min(0.0, *scores.values())
    # a piece of L characters scored below L * lowest - 1 loses to every cut of its span into this side's pieces
    table = [(piece, len(piece) * lowest - 1.0 if z in never else scores.get(piece, len(piece) * lowest - 1.0))
             for z, piece in enumerate(pieces)]  # fmt: skip
    tokenizer = SpmConverter.build_tokenizer_from_spm_proto(proto, table, legacy=True)
    tokenizer.model = Unigram(table, unk_id=unk, byte_fallback=False)
    # MarianTokenizer.decode strips the text it joins of the spaces at its ends (decoders.Strip panics on all)
    ends = decoders.Replace(Regex(r"\A +| +\z"), "")
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.Fuse(), ends])
    roles = set(range(4))  # zoo's <pad>, <bos>, <eos>, <unk>
    specials = [piece for z, piece in enumerate(pieces) if z in roles or piece in SPECIALS or is_code(piece)]
    tokenizer.add_special_tokens([AddedToken(piece, normalized=False, special=True) for piece in specials])
    eos = pieces[2]  # zoo's EOS_ID: config.json's eos_token_id, Marian's </s>
    tokenizer.post_processor = processors.TemplateProcessing(single=f"$A {eos}", special_tokens=[(eos, 2)])
    return tokenizer.to_str()


SPECIALS = ("</s>", "<unk>", "<pad>", "<s>")


def is_code(piece: str) -> bool:
    """A target language's code (``>>fra<<``), which a multilingual model's source text starts with."""
    return piece.startswith(">>") and piece.endswith("<<")


def role_names(vocabulary: Vocabulary, taken: set[str]) -> dict[int, str]:
    """zoo's extra rows (a role with no token of the checkpoint's) -> the token that names it."""
    return {z: EXTRA_NAMES[z] if EXTRA_NAMES[z] not in taken else f"<zoo_{EXTRA_NAMES[z][1:-1]}>"
            for z in vocabulary.extra if z < len(EXTRA_NAMES)}
