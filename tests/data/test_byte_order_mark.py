"""A UTF-8 byte-order mark at the start of a data file (Windows editors write one) is no character of the data:
it became a trained character of a ``.txt`` file's first line; every format the loader reads drops it."""

import csv
import json

import pytest

from zoo.data import LanguageModelDataModule
from zoo.data.loading import load_splits

BOM = "\ufeff"


def _rows(data_dir, split: str, count: int) -> list[dict]:
    with open(data_dir / "sst2" / f"{split}.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line, _ in zip(lines, range(count), strict=False)]


def _write(folder, suffix: str, rows: list[dict], split: str) -> None:
    """``rows`` as one file of the format ``suffix``, a byte-order mark first."""
    file = folder / f"{split}{suffix}"
    with open(file, "w", encoding="utf-8-sig", newline="") as out:
        if suffix == ".jsonl":
            out.write("".join(json.dumps(row) + "\n" for row in rows))
        elif suffix == ".json":
            json.dump(rows, out)
        else:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]), delimiter="\t" if suffix == ".tsv" else ",")
            writer.writeheader()
            writer.writerows(rows)
    assert file.read_bytes().startswith(b"\xef\xbb\xbf")


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv", ".tsv"])
def test_table_files_read_the_same_with_and_without_a_byte_order_mark(suffix, data_dir, tmp_path):
    rows = {split: _rows(data_dir, split, 50) for split in ("train", "validation")}
    for split, split_rows in rows.items():
        _write(tmp_path, suffix, split_rows, split)
    data = load_splits(str(tmp_path), ["train", "validation"])
    assert data["train"].column_names == list(rows["train"][0])  # idx, sentence, label: the first one whole
    assert data["train"]["sentence"] == [row["sentence"] for row in rows["train"]]


def test_a_text_file_with_a_byte_order_mark_trains_the_same_tokenizer_and_ids(data_dir, tmp_path, zoo_cache):
    """Tiny Shakespeare's first 2,000 lines, once as they are and once with a byte-order mark before each file."""
    modules = {}
    for name, prefix in (("plain", ""), ("marked", BOM)):
        folder = tmp_path / name
        folder.mkdir()
        for split, count in (("train", 2000), ("validation", 300)):
            lines = (data_dir / "tinyshakespeare" / f"{split}.txt").read_text(encoding="utf-8").splitlines(True)
            (folder / f"{split}.txt").write_text(prefix + "".join(lines[:count]), encoding="utf-8")
        modules[name] = LanguageModelDataModule(path=str(folder), tokenizer="char", cache_dir=str(zoo_cache))
        modules[name].prepare()
    marked, plain = modules["marked"], modules["plain"]
    assert BOM not in marked.tokenizer.get_vocab() and marked.tokenizer.get_vocab() == plain.tokenizer.get_vocab()
    for split in ("train", "validation"):
        assert marked.encoded[split]["ids"].tolist() == plain.encoded[split]["ids"].tolist()
        assert marked.encoded[split]["characters"] == plain.encoded[split]["characters"]


def test_a_byte_order_mark_inside_a_text_file_is_kept(tmp_path):
    """Only the mark that starts a file is dropped: U+FEFF elsewhere is text (a zero-width no-break space)."""
    for split in ("train", "validation"):
        (tmp_path / f"{split}.txt").write_text(f"{BOM}a{BOM}b\n", encoding="utf-8")
    assert load_splits(str(tmp_path), ["train"])["train"]["text"] == [f"a{BOM}b"]
