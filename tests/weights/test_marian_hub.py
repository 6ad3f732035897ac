"""A Marian folder in the hub's layout (``source.spm``, ``target.spm``, ``vocab.json`` written by
``MarianTokenizer.save_pretrained``, SentencePiece models trained on Multi30k) imports with ``MarianTokenizer``'s
ids on real text, translates as ``transformers`` does, and exports its own files back; bad folders are one
line each, with nothing written."""

import io
import json
import shutil

import pytest
import torch
import transformers

from tests.weights.helpers import DATA, lines, perturbed
from zoo.cli.main import main
from zoo.data.framing import SOURCE, bare_ids, framed
from zoo.inference.checkpoint import load_trained, read_checkpoint
from zoo.inference.translate import main as translate_main
from zoo.weights.export import main as export_main
from zoo.weights.importer import main as import_main

spm = pytest.importorskip("sentencepiece")


def hub_folder(folder, drop: tuple[str, ...] = ()):
    """SentencePiece models of 300 pieces for German (source) and English (target), ``vocab.json`` as
    Marian builds it (``</s>``, ``<unk>``, both sides' pieces, ``<pad>``; less ``drop``), a small
    ``MarianMTModel`` of its size, and ``MarianTokenizer``'s files, saved into ``folder``; the model and the
    tokenizer back."""
    folder.mkdir()
    vocab = {"</s>": 0, "<unk>": 1}
    for side, name in (("de", "source"), ("en", "target")):
        model = io.BytesIO()
        texts = iter(lines("multi30k", 3000, side))
        spm.SentencePieceTrainer.train(
            sentence_iterator=texts, model_writer=model, vocab_size=300, character_coverage=1.0,
            bos_id=-1, eos_id=0, unk_id=1, minloglevel=2,
        )  # fmt: skip
        (folder / f"{name}.spm").write_bytes(model.getvalue())
        pieces = spm.SentencePieceProcessor(model_proto=model.getvalue())
        for i in range(pieces.get_piece_size()):
            if pieces.id_to_piece(i) not in drop:
                vocab.setdefault(pieces.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False))
    tokenizer = transformers.MarianTokenizer(*(str(folder / f) for f in ("source.spm", "target.spm", "vocab.json")))
    tokenizer.save_pretrained(folder)
    return hub_model(folder), tokenizer


def hub_model(folder):
    """A small ``MarianMTModel`` of ``folder``'s vocab.json, saved there."""
    vocab = json.loads((folder / "vocab.json").read_text())
    config = transformers.MarianConfig(
        vocab_size=len(vocab), d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
        decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=256,
        pad_token_id=vocab["<pad>"], eos_token_id=0, decoder_start_token_id=vocab["<pad>"], init_std=0.3,
    )  # fmt: skip
    torch.manual_seed(0)
    model = perturbed(transformers.MarianMTModel(config), 0).eval()
    model.save_pretrained(folder)
    return model


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The hub folder, its model and tokenizer, and the run folder ``zoo import`` made of it."""
    root = tmp_path_factory.mktemp("marian_hub")
    hf, tokenizer = hub_folder(root / "hf")
    assert import_main([str(root / "hf"), "--out", str(root / "run")]) == 0
    return root, hf, tokenizer


def test_ids_equal_marian_tokenizers_on_multi30k(imported):
    root, _, tokenizer = imported
    ckpt = str(root / "run" / "checkpoints" / "imported.ckpt")
    trained, record = load_trained(ckpt), read_checkpoint(ckpt)["zoo_imported"]
    assert sorted(trained.tokenizers) == ["src", "tgt"] and record["framing"] == "text </s>"
    rows = record["vocabulary"]["rows"]  # zoo's id -> the checkpoint's
    de, en = lines("multi30k", 1000, "de"), lines("multi30k", 1000, "en")
    sources = [[rows[z] for z in ids] for ids in framed(trained.source_tokenizer, de, SOURCE)]
    assert sources == tokenizer(de)["input_ids"]
    targets = [[rows[z] for z in ids] + [0] for ids in bare_ids(trained.target_tokenizer, en)]
    assert targets == tokenizer(text_target=en)["input_ids"]
    assert trained.target_tokenizer.decode(bare_ids(trained.target_tokenizer, en[:50])[0]) == en[0]


def test_translates_as_transformers_and_exports_its_own_files(imported, tmp_path, capsys):
    root, hf, tokenizer = imported
    ckpt = str(root / "run" / "checkpoints" / "imported.ckpt")
    de = lines("multi30k", 8, "de")
    (tmp_path / "in.txt").write_text("\n".join(de) + "\n")
    capsys.readouterr()
    limit = ["--beam_size", "1", "--max_len_a", "0", "--max_len_b", "20"]
    assert translate_main(["--ckpt_path", ckpt, "--input", str(tmp_path / "in.txt"), *limit]) == 0
    ours = capsys.readouterr().out.splitlines()
    batch = tokenizer(de, return_tensors="pt", padding=True)
    # zoo never continues with padding, which is Marian's start (zoo.decoding.steps.NEVER_NEXT), nor cuts at <eos>
    settings = {"do_sample": False, "num_beams": 1, "bad_words_ids": [[len(tokenizer) - 1]]}
    settings["forced_eos_token_id"] = None
    generated = hf.generate(**batch, max_new_tokens=20, **settings)
    assert ours == tokenizer.batch_decode(generated, skip_special_tokens=True) and len(set(ours)) > 1
    assert export_main(["--ckpt_path", ckpt, "--out", str(tmp_path / "out")]) == 0
    for name in ("source.spm", "target.spm", "vocab.json"):
        assert (tmp_path / "out" / name).read_bytes() == (root / "hf" / name).read_bytes()
    again = transformers.AutoTokenizer.from_pretrained(tmp_path / "out")
    back = transformers.AutoModelForSeq2SeqLM.from_pretrained(tmp_path / "out").eval()
    batch = again(de, return_tensors="pt", padding=True)
    assert again.batch_decode(back.generate(**batch, max_new_tokens=20), skip_special_tokens=True) == ours


def test_pieces_vocab_json_lacks_read_as_unk_in_a_source_and_are_no_target_label(tmp_path, capsys):
    """A piece of a SentencePiece model with no row in vocab.json: ``MarianTokenizer`` reads it as ``<unk>``."""
    lacking = ("▁Mann", "▁Frau", "▁man", "▁woman")
    _, tokenizer = hub_folder(tmp_path / "hf", drop=lacking)
    hub_model(tmp_path / "hf")
    capsys.readouterr()
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    assert "; 4 SentencePiece pieces have no row in vocab.json: a source reads them as <unk>" in capsys.readouterr().out
    ckpt = str(tmp_path / "run" / "checkpoints" / "imported.ckpt")
    trained, rows = load_trained(ckpt), read_checkpoint(ckpt)["zoo_imported"]["vocabulary"]["rows"]
    de = lines("multi30k", 300, "de")
    sources = [[rows[z] for z in ids] for ids in framed(trained.source_tokenizer, de, SOURCE)]
    assert sources == tokenizer(de)["input_ids"] and any(1 in ids for ids in sources)  # <unk> is vocab.json's 1
    with torch.no_grad():  # the rows a source reads them by are <unk>'s
        table = trained.task.network.src_embed.tokens.weight
        assert all(table[z].equal(table[3]) for z in range(len(rows)) if rows[z] == 1)
    en = lines("multi30k", 300, "en")
    targets = bare_ids(trained.target_tokenizer, en)
    assert all(rows[z] != 1 for ids in targets for z in ids)  # cut into the model's own pieces
    assert [trained.target_tokenizer.decode(ids) for ids in targets[:20]] == en[:20]


def test_bad_hub_folders_are_one_line_and_write_nothing(imported, tmp_path, capsys):
    root, _, _ = imported
    cases = []
    vocab = json.loads((root / "hf" / "vocab.json").read_text())
    table = "vocab.json' is not a piece -> id table of config.json's vocab_size"
    for name, change, message in [
        ("separate", {"tokenizer_config.json": {"separate_vocabs": True}}, "has separate_vocabs=true"),
        ("broken_config", {"tokenizer_config.json": b'{"separate'}, "tokenizer_config.json' is not valid JSON"),
        ("short", {"vocab.json": {"</s>": 0, "<unk>": 1}}, table),
        ("strings", {"vocab.json": {**vocab, "<unk>": "1"}}, table),
        ("floats", {"vocab.json": {piece: float(i) for piece, i in vocab.items()}}, table),
        ("booleans", {"vocab.json": {**vocab, "</s>": False, "<unk>": True}}, table),
        ("truncated", {"vocab.json": b'{"</s>": 0, "<unk>": 1, '}, "vocab.json' is not valid JSON"),
        ("latin1", {"vocab.json": '{"ä": 0}'.encode("latin-1")}, "vocab.json' is not valid JSON"),
        ("garbage", {"source.spm": b"\xff\xfe not a model"}, "is not a SentencePiece model"),
    ]:
        shutil.copytree(root / "hf", tmp_path / name)
        for file, content in change.items():
            data = content if isinstance(content, bytes) else json.dumps(content).encode()
            (tmp_path / name / file).write_bytes(data)
        cases.append((tmp_path / name, message))
    bpe = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines("multi30k", 500, "de")), model_writer=bpe, vocab_size=200, model_type="bpe",
        minloglevel=2,
    )  # fmt: skip
    shutil.copytree(root / "hf", tmp_path / "bpe")
    (tmp_path / "bpe" / "source.spm").write_bytes(bpe.getvalue())
    cases.append((tmp_path / "bpe", "has model_type=BPE; zoo reads SentencePiece Unigram models of plain pieces"))
    capsys.readouterr()
    (tmp_path / "a_file").write_text("")
    refusals = [([str(source), "--out", str(tmp_path / "run")], message) for source, message in cases]
    refusals += [
        ([str(root / "hf"), "--out", str(tmp_path / "run"), "--num_classes=2"], "--num_classes=2 is for an encoder's"),
        ([str(root / "hf"), "--out", str(tmp_path / "a_file" / "run")], "a_file', a file; name a new folder"),
    ]
    for args, message in refusals:
        assert import_main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("zoo import: error: ") and message in err, err
        assert not (tmp_path / "run").exists()


def test_fine_tuned_on_multi30k_it_exports_what_zoo_translates(imported, cli_env, capsys):
    """fit's data reads the hub tokenizers (source and target pieces apart, one vocabulary, so the model's shared
    embedding stays shared); the fine-tuned model, exported, translates in transformers as in zoo."""
    root, hf, _ = imported
    ckpt = root / "run" / "checkpoints" / "imported.ckpt"
    options = ["--trainer.max_steps=3", "--model.lr=3e-2", "--model.warmup_steps=1", "--trainer.limit_val_batches=1"]
    options += [f"--data.path={DATA / 'multi30k'}", "--trainer.enable_progress_bar=false"]
    main(["fit", f"--config={root / 'run' / 'config.yaml'}", f"--init_weights={ckpt}", *options])
    (last,) = (cli_env / "runs").glob("*/checkpoints/last.ckpt")
    de = lines("multi30k", 8, "de")
    (cli_env / "in.txt").write_text("\n".join(de) + "\n")
    capsys.readouterr()
    limit = ["--beam_size", "1", "--max_len_a", "0", "--max_len_b", "20"]
    assert translate_main(["--ckpt_path", str(last), "--input", str(cli_env / "in.txt"), *limit]) == 0
    ours = capsys.readouterr().out.splitlines()
    assert export_main(["--ckpt_path", str(last), "--out", str(cli_env / "out")]) == 0
    tokenizer = transformers.AutoTokenizer.from_pretrained(cli_env / "out")
    back = transformers.AutoModelForSeq2SeqLM.from_pretrained(cli_env / "out").eval()
    with torch.no_grad():
        moved = (back.model.shared.weight - hf.model.shared.weight).abs().max()
    batch = tokenizer(de, return_tensors="pt", padding=True)
    assert tokenizer.batch_decode(back.generate(**batch, max_new_tokens=20), skip_special_tokens=True) == ours
    assert moved > 1e-3  # and trained
