"""The splits are encoded with the tokenizer a checkpoint was trained with, not with whatever tokenizer this
machine's cache holds: a tokenizer trained by another version (WordPiece training was not deterministic before
zoo declared its pieces up front) would otherwise give a resumed or evaluated run other ids than its model
learned."""

from zoo.data import LanguageModelDataModule
from zoo.data.tokenizer import train_tokenizer


def test_a_checkpoints_tokenizer_replaces_the_cached_one_and_the_splits_are_encoded_again(data_dir, tmp_path):
    module = LanguageModelDataModule(
        path=str(data_dir / "tinyshakespeare"), tokenizer="char", block_size=32, cache_dir=tmp_path
    )
    module.prepare()
    text = "".join(sorted(set("ROMEO: What, art thou mad? \n abcdefghijklmnopqrstuvwxyz")))[::-1]
    other = train_tokenizer("char", [text], 0)  # the same characters at other ids, as another training gives
    cached_ids = module.encoded["validation"]["ids"][:200].tolist()
    module.load_state_dict({"tokenizers": {"text": other.to_str()}})
    assert module.tokenizer.to_str() == other.to_str()
    ids = module.encoded["validation"]["ids"][:200].tolist()
    rows = list(module.load()["validation"][module.text_column])
    expected = [i for encoding in other.encode_batch(rows[:50]) for i in encoding.ids][:200]
    assert ids == expected != cached_ids
    again = LanguageModelDataModule(
        path=str(data_dir / "tinyshakespeare"), tokenizer="char", block_size=32, cache_dir=tmp_path
    )
    again.prepare()  # the cache still serves its own tokenizer's encoding, untouched
    assert again.encoded["validation"]["ids"][:200].tolist() == cached_ids
