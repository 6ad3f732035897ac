"""An exported folder reads and decodes text as zoo does: ``AutoTokenizer.from_pretrained(DIR)`` gives zoo's ids
and framing with its special tokens named, and ``generate()`` with no arguments zoo's greedy tokens."""

import json

import torch
import transformers

from tests.weights import helpers
from tests.weights.helpers import lines, tokenizer_json
from zoo.data.framing import SOURCE, TEXT, framed
from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID
from zoo.decoding.sequences import generate_ids
from zoo.inference.checkpoint import load_trained
from zoo.inference.generate import MAX_NEW_TOKENS
from zoo.weights.export import main as export_main
from zoo.weights.importer import main as import_main


def exported(tmp_path, capsys, family: str):
    """``family``'s small model imported, then exported to ``tmp_path/out``: the trained model, the export's
    line, its tokenizer read by ``AutoTokenizer``."""
    getattr(helpers, family)(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    ckpt = str(tmp_path / "run" / "checkpoints" / "imported.ckpt")
    capsys.readouterr()
    assert export_main(["--ckpt_path", ckpt, "--out", str(tmp_path / "out")]) == 0
    line = capsys.readouterr().out
    return load_trained(ckpt), line, transformers.AutoTokenizer.from_pretrained(tmp_path / "out")


def test_an_exported_language_model_tokenizes_and_generates_as_zoo(tmp_path, capsys):
    trained, line, tokenizer = exported(tmp_path, capsys, "llama")
    assert "tokenizer.json, tokenizer_config.json, generation_config.json; the checkpoint's own ids)" in line, line
    ours = trained.tokenizers["text"]
    assert len(tokenizer) == trained.task.hparams.vocab_size == ours.get_vocab_size()
    assert (tokenizer.pad_token_id, tokenizer.bos_token_id, tokenizer.eos_token_id) == (PAD_ID, BOS_ID, EOS_ID)
    texts = lines("tinyshakespeare", 8)
    assert tokenizer(texts)["input_ids"] == framed(ours, texts, TEXT)
    model = transformers.AutoModelForCausalLM.from_pretrained(tmp_path / "out").eval()
    prompt = tokenizer(texts[0], return_tensors="pt")["input_ids"]
    theirs = model.generate(prompt)[0, prompt.shape[1] :].tolist()  # no arguments: generation_config.json
    with torch.no_grad():
        zoo = generate_ids(trained.task.network, prompt[0], MAX_NEW_TOKENS, EOS_ID, PAD_ID, 1, 0)[0]
    assert len(theirs) == MAX_NEW_TOKENS and theirs == list(zoo)


def test_an_exported_translation_model_frames_its_source_and_translates_as_zoo(tmp_path, capsys):
    trained, _, tokenizer = exported(tmp_path, capsys, "marian")
    ours = trained.tokenizers["joint"]
    texts = lines("multi30k", 2, "de")
    sources = framed(ours, texts, SOURCE)
    assert tokenizer(texts)["input_ids"] == sources and all(row[-1] == EOS_ID for row in sources)
    decoding = json.loads((tmp_path / "out" / "generation_config.json").read_text())
    assert decoding["decoder_start_token_id"] == BOS_ID and decoding["forced_eos_token_id"] is None
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(tmp_path / "out").eval()
    for source in sources:
        theirs = model.generate(torch.tensor([source]))[0, 1:].tolist()  # after the start token
        with torch.no_grad():
            (zoo,) = trained.task.hypotheses(torch.tensor([source]), torch.zeros(1, len(source), dtype=torch.bool))
        ids = list(zoo[0].tokens)
        # zoo stops at its end token or at max_len_a * S + max_len_b tokens; the folder's limit is never shorter
        assert theirs[: len(ids)] == ids


def test_an_imported_model_exports_in_its_checkpoint_s_own_ids_for_its_own_tokenizer(tmp_path, capsys):
    from tests.weights.helpers import END, VOCAB, gpt2_with_its_own_specials

    hf, original = gpt2_with_its_own_specials(tmp_path / "hf")
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    ckpt = str(tmp_path / "run" / "checkpoints" / "imported.ckpt")
    capsys.readouterr()
    assert export_main(["--ckpt_path", ckpt, "--out", str(tmp_path / "out")]) == 0
    assert "; the checkpoint's own ids)" in capsys.readouterr().out
    config = json.loads((tmp_path / "out" / "config.json").read_text())
    assert (config["vocab_size"], config["bos_token_id"], config["eos_token_id"]) == (VOCAB, END, END)
    tokenizer = transformers.AutoTokenizer.from_pretrained(tmp_path / "out")
    texts = lines("tinyshakespeare", 6)
    assert tokenizer(texts)["input_ids"] == [original.encode(text).ids for text in texts]
    back = transformers.AutoModelForCausalLM.from_pretrained(tmp_path / "out").eval()
    ids, mask = helpers.encode(texts, start=[END])
    ids[mask] = END
    with torch.no_grad():
        before, after = hf(input_ids=ids).logits, back(input_ids=ids).logits
    assert (before - after).abs().max() <= 1e-5  # the original folder's logits on the original ids
    decoding = json.loads((tmp_path / "out" / "generation_config.json").read_text())
    assert decoding["bad_words_ids"] == [[END]] and decoding["bos_token_id"] == END
