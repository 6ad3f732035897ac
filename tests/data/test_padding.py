"""Padding is where the collate put it, never where an id happens to equal ``<pad>``'s: the literal text
``<pad>`` in an input is a word the model sees."""

from types import SimpleNamespace

import pytest
import torch

from tests.cli.helpers import small_copy
from zoo.data import ClassificationDataModule, TranslationDataModule
from zoo.data.padding import IGNORE_INDEX, pad, unpack
from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID, SPECIAL_TOKENS
from zoo.tasks import ClassificationTask, TranslationTask

LAYERS = {"multi30k": {"num_encoder_layers": 1, "num_decoder_layers": 1}, "sst2": {"num_layers": 1}}


@pytest.fixture(scope="module")
def sst2(data_dir, tmp_path_factory):
    """SST-2's first 400 training and 50 validation rows, tokenised with the module's WordPiece."""
    folder = small_copy(data_dir, "sst2", tmp_path_factory.mktemp("data") / "sst2", {"train": 400, "validation": 50})
    data = ClassificationDataModule(path=str(folder), vocab_size=300, cache_dir=str(folder / "cache"))
    data.prepare()
    return data


def test_padding_mask_comes_from_lengths_not_ids():
    ids, mask = pad([torch.tensor([5, PAD_ID, 7]), torch.tensor([PAD_ID])])
    assert ids.tolist() == [[5, PAD_ID, 7], [PAD_ID, PAD_ID, PAD_ID]]
    assert mask.tolist() == [[False, False, False], [False, True, True]]


def test_raw_text_yields_no_special_id_but_the_added_bos(sst2):
    sentences = ["a <pad> film", " ".join(SPECIAL_TOKENS), "<pad>"]
    encoded = sst2.encode({"sentence": sentences, "label": [1, 0, 1]})
    for i in range(len(sentences)):
        ids = unpack(encoded["tokens"], i).tolist()
        assert ids[0] == BOS_ID and not {PAD_ID, BOS_ID, EOS_ID} & set(ids[1:]), ids  # <unk>: unseen characters


def test_the_literal_pad_word_changes_the_classifier(sst2):
    sst2.encoded["probe"] = sst2.encode({"sentence": ["a <pad> film", "a film"], "label": [1, 1]})
    batch = sst2.collate("probe", [0, 1])
    lengths = sst2.lengths("probe")  # <bos> a film: 3 tokens; the other has "<pad>"'s pieces too
    assert lengths[1] == 3 and lengths[0] > 3
    assert (~batch["padding_mask"]).sum(dim=1).tolist() == lengths
    torch.manual_seed(0)  # no positional encoding: a hidden word would leave the logits exactly as they were
    task = ClassificationTask(vocab_size=sst2.num_tokens, d_model=32, n_heads=2, d_ff=64, num_layers=1, pe="none")
    task.eval()
    logits = task(batch["tokens"], batch["padding_mask"])
    alone = task(batch["tokens"][1:, :3], None)  # "a film" without padding: padding changes nothing
    torch.testing.assert_close(logits[1:], alone)
    assert not torch.allclose(logits[0], logits[1], atol=1e-4)


def test_a_real_token_equal_to_the_pad_id_is_seen():
    torch.manual_seed(0)
    task = ClassificationTask(vocab_size=20, d_model=32, n_heads=2, d_ff=64, num_layers=1).eval()
    tokens = torch.tensor([[BOS_ID, 5, PAD_ID, 6]])
    real = task(tokens, torch.tensor([[False, False, False, False]]))
    padded = task(tokens, torch.tensor([[False, False, True, False]]))
    assert not torch.allclose(real, padded, atol=1e-4)


@pytest.fixture(scope="module")
def multi30k(data_dir, tmp_path_factory):
    """Multi30k's first 300 training and 40 validation pairs, with a 300-piece BPE vocabulary."""
    counts = {"train": 300, "validation": 40}
    folder = small_copy(data_dir, "multi30k", tmp_path_factory.mktemp("data") / "multi30k", counts)
    data = TranslationDataModule(path=str(folder), vocab_size=300, cache_dir=str(folder / "cache"))
    data.prepare()
    return data


@pytest.mark.parametrize("name", ["multi30k", "sst2"])
def test_padding_to_a_multiple_of_8_changes_no_loss_or_metric(name, request):
    """``data.pad_to_multiple_of=8`` (model.compile on a GPU: Inductor guards on the length modulo 8) pads each
    length up to a multiple of 8 with masked padding: the ids and masks of the real tokens, and the evaluation
    loss and metrics of a model, are those of the batch padded to its longest sequence."""
    data = request.getfixturevalue(name)
    torch.manual_seed(0)
    task_class = TranslationTask if name == "multi30k" else ClassificationTask
    task = task_class(vocab_size=data.num_tokens, d_model=32, n_heads=2, d_ff=64, dropout=0.0, **LAYERS[name])
    task.eval()
    trainer = SimpleNamespace(datamodule=data, world_size=1)
    task._trainer, task.log = trainer, lambda key, value, **kwargs: logged.setdefault(key, []).append(float(value))
    task.log_dict = lambda values, **kwargs: [task.log(key, value) for key, value in values.items()]
    results = []
    for multiple in (1, 8):
        data.pad_to_multiple_of, logged = multiple, {}
        batches = [data.collate("validation", list(range(start, start + 13))) for start in (0, 13, 26)]
        with torch.no_grad():
            for index, batch in enumerate(batches):
                task.evaluate("val", batch, index)
            task.log_stage("val")
        results.append((batches, logged))
    (plain, plain_logged), (padded, padded_logged) = results
    assert plain_logged.keys() == padded_logged.keys()
    for key in plain_logged:
        torch.testing.assert_close(padded_logged[key], plain_logged[key], rtol=1e-5, atol=1e-6, msg=key)
    for before, after in zip(plain, padded, strict=True):
        for key, value in after.items():
            if isinstance(value, torch.Tensor) and value.dim() == 2:
                length = before[key].shape[1]
                assert value.shape[1] % 8 == 0 and length <= value.shape[1] < length + 8, key
                assert torch.equal(value[:, :length], before[key]), key
                filler = True if key.endswith("padding_mask") else IGNORE_INDEX if key == "tgt_out" else PAD_ID
                assert (value[:, length:] == filler).all(), key


def test_pad_to_multiple_of_must_be_positive():
    with pytest.raises(ValueError, match=r"^data.pad_to_multiple_of=0 is not valid"):
        TranslationDataModule(path="x", pad_to_multiple_of=0)
