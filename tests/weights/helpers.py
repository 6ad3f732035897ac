"""Small randomly initialised Hugging Face models saved with ``save_pretrained``, and batches of real text
(Tiny Shakespeare, Multi30k) with padding, for the parity tests of zoo/weights."""

from __future__ import annotations

import json

import torch
import transformers

from tests.conftest import REPO

DATA = REPO.parent / "shared" / "data"
VOCAB = 300  # zoo's four special ids, then the 256 bytes of UTF-8 text at 4 ...; the rest unused by text
END = VOCAB - 1  # GPT-2's <|endoftext|>, its start and end of text (gpt2_with_its_own_specials)
PAD, BOS, EOS = 0, 1, 2  # zoo's ids (zoo.data.tokenizer), which the configs below give the Hugging Face models


def lines(name: str, count: int, field: str | None = None) -> list[str]:
    """The first ``count`` non-empty lines of a split of ``../shared/data`` (a JSONL field when ``field``)."""
    if field is None:
        text = (DATA / name / "validation.txt").read_text()
        return [line for line in text.splitlines() if line.strip()][:count]
    rows = (DATA / name / "validation.jsonl").read_text().splitlines()[:count]
    return [json.loads(row)[field] for row in rows]


def encode(texts: list[str], start: list[int] = (), end: list[int] = ()) -> tuple[torch.Tensor, torch.Tensor]:
    """``(B, T)`` ids of the UTF-8 bytes of ``texts`` (byte ``b`` is id ``b + 4``), right-padded with ``PAD``,
    and the ``(B, T)`` padding mask (``True`` at padding); the texts have different lengths."""
    rows = [[*start, *(byte + 4 for byte in text.encode()), *end] for text in texts]
    width = max(map(len, rows))
    ids = torch.tensor([row + [PAD] * (width - len(row)) for row in rows])
    mask = torch.tensor([[False] * len(row) + [True] * (width - len(row)) for row in rows])
    return ids, mask


def perturbed(model: torch.nn.Module, seed: int) -> torch.nn.Module:
    """``model`` in eval mode with noise of std 0.05 added to every parameter (norm gains and biases too, and
    Marian's logits bias), so that a parameter mapped to the wrong place shows in the logits; fixed sinusoids
    (Marian's ``embed_positions``, a frozen parameter not saved) stay as they are."""
    generator = torch.Generator().manual_seed(seed)
    named = [*model.named_parameters(), *(pair for pair in model.named_buffers() if "logits_bias" in pair[0])]
    with torch.no_grad():
        for tensor in [tensor for name, tensor in named if "embed_positions" not in name]:
            tensor.add_(torch.randn(tensor.shape, generator=generator) * 0.05)
    return model.eval()


def saved(model: torch.nn.Module, folder) -> torch.nn.Module:
    model.save_pretrained(folder)
    return model


def gpt2(folder, seed: int = 0):
    config = transformers.GPT2Config(
        vocab_size=VOCAB,
        n_embd=64,
        n_layer=2,
        n_head=4,
        n_positions=256,
        bos_token_id=BOS,
        eos_token_id=EOS,
        pad_token_id=PAD,
    )
    torch.manual_seed(seed)
    return saved(perturbed(transformers.GPT2LMHeadModel(config), seed), folder)


def gpt2_with_its_own_specials(folder):
    config = transformers.GPT2Config(
        vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=256, bos_token_id=END, eos_token_id=END
    )
    torch.manual_seed(4)
    model = saved(perturbed(transformers.GPT2LMHeadModel(config), 4), folder)
    return model, tokenizer_json(folder, end_of_text=True)


def llama(folder, seed: int = 0, tie: bool = False, **settings):
    config = transformers.LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=96,
        num_hidden_layers=2,
        num_attention_heads=8,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=BOS,
        eos_token_id=EOS,
        pad_token_id=PAD,
        tie_word_embeddings=tie,
        **settings,
    )
    torch.manual_seed(seed)
    return saved(perturbed(transformers.LlamaForCausalLM(config), seed), folder)


BERT_HEADS = {  # what a BERT folder holds besides the encoder: the class saved and its arguments
    None: lambda config: transformers.BertModel(config, add_pooling_layer=False),
    "pooler": transformers.BertModel,
    "classifier": transformers.BertForSequenceClassification,
    "mlm": transformers.BertForMaskedLM,
}


def bert(folder, seed: int = 0, head: str | None = None, **settings):
    config = transformers.BertConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=256,
        pad_token_id=PAD,
        bos_token_id=BOS,
        eos_token_id=EOS,
        **settings,
    )
    torch.manual_seed(seed)
    return saved(perturbed(BERT_HEADS[head](config), seed), folder)


def marian(folder, seed: int = 0):
    config = transformers.MarianConfig(
        vocab_size=VOCAB,
        d_model=64,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        max_position_embeddings=256,
        pad_token_id=PAD,
        eos_token_id=EOS,
        decoder_start_token_id=BOS,
        forced_eos_token_id=None,
        scale_embedding=True,
        activation_function="swish",
    )
    torch.manual_seed(seed)
    return saved(perturbed(transformers.MarianMTModel(config), seed), folder)


def tokenizer_json(folder, size: int = VOCAB, end_of_text: bool = False) -> Tokenizer:  # noqa: F821
    """A byte-level BPE trained on Tiny Shakespeare with zoo's special tokens at 0 ... 3, of ``size`` ids (the
    last one GPT-2's ``<|endoftext|>`` with ``end_of_text``), saved as ``folder/tokenizer.json``."""
    from zoo.data.tokenizer import train_tokenizer

    tokenizer = train_tokenizer("bpe", lines("tinyshakespeare", 2000), size - int(end_of_text))
    if end_of_text:
        tokenizer.add_special_tokens(["<|endoftext|>"])
    assert tokenizer.get_vocab_size() == size
    tokenizer.save(str(folder / "tokenizer.json"))
    return tokenizer
