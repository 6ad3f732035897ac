"""An imported model reads text framed as its checkpoint's tokenizer frames it (BERT ``[CLS] $A [SEP]``, Llama
``<s> $A``, GPT-2 nothing): the ids of zoo's data modules and commands equal ``AutoTokenizer``'s for the same
text, under the import's permutation; zoo's own tokenizers frame as they always did."""

import json

import pytest
import torch
import transformers
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

from tests.weights import helpers
from tests.weights.helpers import DATA, VOCAB, lines, tokenizer_json
from zoo.data import ClassificationDataModule, LanguageModelDataModule
from zoo.data.framing import Framing, framed
from zoo.data.padding import unpack
from zoo.data.tokenizer import BOS_ID, EOS_ID
from zoo.weights.importer import main as import_main


def bert_tokenizer(folder) -> None:
    """A WordPiece vocabulary of SST-2 saved by transformers' ``BertTokenizer`` (its own template)."""
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"]  # config.json's pad 0, bos 1, eos 2
    trainer = trainers.WordPieceTrainer(vocab_size=VOCAB, special_tokens=specials)
    tokenizer.train_from_iterator(lines("sst2", 500, "sentence"), trainer)
    transformers.BertTokenizer(vocab=tokenizer.get_vocab()).save_pretrained(folder)


def byte_level(folder) -> tuple[dict, list]:
    bpe = json.loads(tokenizer_json(folder).to_str())["model"]
    (folder / "tokenizer.json").unlink()
    return bpe["vocab"], [tuple(pair) if isinstance(pair, list) else tuple(pair.split()) for pair in bpe["merges"]]


def gpt2_tokenizer(folder) -> None:
    vocab, merges = byte_level(folder)
    transformers.GPT2Tokenizer(vocab=vocab, merges=merges).save_pretrained(folder)


def llama_tokenizer(folder) -> None:
    vocab, merges = byte_level(folder)  # zoo's <pad> <bos> <eos> <unk> at config.json's 0 ... 3
    specials = {"bos_token": "<bos>", "eos_token": "<eos>", "unk_token": "<unk>"}
    transformers.LlamaTokenizer(vocab=vocab, merges=merges, add_bos_token=True, **specials).save_pretrained(folder)


FAMILIES = {  # the tokenizer, the framing the import line says, the task's own framing
    "bert": (bert_tokenizer, "[CLS] text [SEP]", Framing((BOS_ID,))),
    "llama": (llama_tokenizer, "<bos> text", Framing()),
    "gpt2": (gpt2_tokenizer, "text (the tokenizer adds no token)", Framing()),
}


def imported(tmp_path, capsys, family: str):
    getattr(helpers, family)(tmp_path / "hf")
    FAMILIES[family][0](tmp_path / "hf")
    capsys.readouterr()
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    line = capsys.readouterr().out
    checkpoint = torch.load(tmp_path / "run" / "checkpoints" / "imported.ckpt", weights_only=True)
    (module,) = (key for key in checkpoint if key.endswith("DataModule"))
    tokenizers = checkpoint[module]["tokenizers"]
    hf = transformers.AutoTokenizer.from_pretrained(tmp_path / "hf")
    ours = Tokenizer.from_str(next(iter(tokenizers.values())))
    to_hf = {z: hf.convert_tokens_to_ids(ours.id_to_token(z)) for z in range(ours.get_vocab_size())}
    return line, tokenizers, ours, hf, to_hf


@pytest.mark.parametrize("family", FAMILIES)
def test_the_ids_zoo_feeds_an_imported_model_are_its_tokenizers(tmp_path, capsys, family):
    line, _, ours, hf, to_hf = imported(tmp_path, capsys, family)
    assert f"; framing {FAMILIES[family][1]}" in line, line
    texts = lines("sst2", 30, "sentence")
    rows = framed(ours, texts, FAMILIES[family][2])
    assert [[to_hf[z] for z in row] for row in rows] == hf(texts)["input_ids"]


def test_a_classifier_s_data_frames_with_bert_s_template(tmp_path, capsys):
    _, tokenizers, _, hf, to_hf = imported(tmp_path, capsys, "bert")
    data = ClassificationDataModule(path=str(DATA / "sst2"))
    data.use_tokenizers(tokenizers)
    texts = lines("sst2", 30, "sentence")
    encoded = data.encode({"sentence": texts, "label": [0] * len(texts)})["tokens"]
    rows = [unpack(encoded, i).tolist() for i in range(len(texts))]
    assert [[to_hf[z] for z in row] for row in rows] == hf(texts)["input_ids"]
    assert all(row[0] == BOS_ID and row[-1] == EOS_ID for row in rows)  # [CLS] ... [SEP]


def test_a_language_model_s_stream_starts_once_with_llama_s_start(tmp_path, capsys):
    _, tokenizers, ours, _, _ = imported(tmp_path, capsys, "llama")
    data = LanguageModelDataModule(path=str(DATA / "tinyshakespeare"))
    data.use_tokenizers(tokenizers)
    texts = lines("tinyshakespeare", 20)
    ids = data.encode({"text": texts})["ids"].tolist()
    assert ids[0] == BOS_ID and BOS_ID not in ids[1:]
    assert ids[1:] == [i for text in texts for i in ours.encode(text, add_special_tokens=False).ids]


def test_zoo_s_own_tokenizer_frames_as_before(tmp_path):
    tokenizer = tokenizer_json(tmp_path)
    texts = lines("sst2", 5, "sentence")
    assert framed(tokenizer, texts, Framing((BOS_ID,)), 6) == [[BOS_ID, *tokenizer.encode(t).ids[:5]] for t in texts]


def test_a_tokenizer_that_pads_every_text_to_a_length_frames_alike(tmp_path):
    """A published ``tokenizer.json`` may pad and truncate (all-MiniLM-L6-v2's: to 128): its template is read
    from the text's own tokens."""
    from zoo.data.framing import template_of

    bert_tokenizer(tmp_path)
    tokenizer = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    plain = template_of(tokenizer)
    tokenizer.enable_padding(length=128)
    tokenizer.enable_truncation(max_length=128)
    assert template_of(tokenizer) == plain == Framing((BOS_ID,), (EOS_ID,))  # [CLS] at 1, [SEP] at 2
    assert tokenizer.padding is not None  # the tokenizer given is left as it was
