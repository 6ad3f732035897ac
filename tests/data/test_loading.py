"""Loading: local folders and hub ids through one function; clear errors for what cannot be loaded."""

import json

import pytest

from zoo.data import LanguageModelDataModule
from zoo.data.file_checks import check_columns
from zoo.data.loading import DataFolderError, load_splits


def test_local_folder_loads_with_the_hub_layout(data_dir):
    data = load_splits(str(data_dir / "multi30k"), ["train", "validation", "test"])
    assert (len(data["train"]), len(data["validation"]), len(data["test"])) == (29000, 1014, 1000)
    assert set(data["train"].column_names) == {"de", "en"}


def test_unreachable_hub_fails_in_one_line_with_a_hint(monkeypatch, tmp_path):
    """A hub id and a mistyped local folder look alike (owner/name): the message says both."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConnectionError) as error:
        load_splits("bentrevett/multi30k", ["train"])
    assert str(error.value) == (
        f"data.path='bentrevett/multi30k' is not a local folder (there is none at {tmp_path}/bentrevett/multi30k), "
        "and as a hub id it cannot be loaded: the Hugging Face hub cannot be reached; pass --data.path with a "
        "local copy (a folder that datasets.load_dataset reads)"
    )


def test_the_current_folder_loads_and_an_empty_path_is_refused(data_dir, monkeypatch):
    monkeypatch.chdir(data_dir / "sst2")  # datasets said "dataset_name should be specified but got None"
    assert len(load_splits(".", ["train"])["train"]) == len(load_splits(str(data_dir / "sst2"), ["train"])["train"])
    with pytest.raises(ValueError, match=r"^data.path='' is empty; it must be a local folder or a hub id$"):
        load_splits("", ["train"])  # it read the current folder


def test_missing_local_folder():
    with pytest.raises(FileNotFoundError, match=r"data.path='\./missing/folder' is not a folder"):
        load_splits("./missing/folder", ["train"])


def test_an_empty_folder_names_the_field_and_the_files_it_reads(tmp_path):
    """It was datasets' "The directory at ... doesn't contain any data files", naming no field."""
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError) as error:
        load_splits(str(tmp_path / "empty"), ["train"])
    assert str(error.value).startswith(f"data.path='{tmp_path}/empty' holds no data files (looked in ")
    assert "train.txt and validation.txt (text), or train.jsonl (JSON lines)" in str(error.value)


@pytest.mark.parametrize(
    ("files", "shown", "reader"),
    [
        (["notes.md"], "notes.md", "harbor"),  # datasets 5 reads a folder of .md files as task folders
        (["a.png", "b.png", "c.png", "d.png", "e.png"], "a.png, b.png, c.png and 2 more", "imagefolder"),
    ],
)
def test_a_folder_of_other_files_names_them_and_their_reader(tmp_path, files, shown, reader):
    for name in files:
        (tmp_path / name).write_bytes(b"\x89PNG" if name.endswith(".png") else b"# notes\n")
    with pytest.raises(ValueError) as error:
        load_splits(str(tmp_path), ["train"])
    assert str(error.value).startswith(
        f"data.path='{tmp_path}' holds no text or table files (datasets reads {shown} with its {reader!r} reader); "
        "a data set is one file or more per split"
    )


def test_missing_column_names_the_field_and_lists_columns(data_dir):
    data = load_splits(str(data_dir / "sst2"), ["train"])
    with pytest.raises(ValueError, match=r"data.text_column='text' is not a column of .*; its columns are: "):
        check_columns(data["train"], {"data.text_column": "text"}, "sst2")


def test_a_language_model_reads_json_lines_as_well_as_text(data_dir, tmp_path):
    """keep_linebreaks is an option of the text reader alone: a JSON lines folder failed with the reader's
    whole configuration in the message."""
    text = (data_dir / "tinyshakespeare" / "validation.txt").read_text()[:4000]
    documents = [paragraph + "\n\n" for paragraph in text.split("\n\n")]
    for split in ("train", "validation"):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps({"content": d}) + "\n" for d in documents))
    data = LanguageModelDataModule(path=str(tmp_path), text_column="content", block_size=16, cache_dir=tmp_path / "c")
    data.prepare()
    assert data.encoded["validation"]["characters"] == sum(len(d) for d in documents)
    assert data.tokenizer.decode(data.encoded["validation"]["ids"].tolist()) == "".join(documents)


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("a.jsonl", '{"x": 1}\n\n{"x": \n{"x": 3}\n', 3),
        ("a.json", '{"x": 1}\n{"x": 2}\n{"x"\n', 3),  # a first line that is a whole value: JSON lines
        ("a.json", '[\n {"x": 1},\n {"x": 2},,\n]\n', 3),  # one JSON document
        ("a.json", '[\n {"x": 1}\n]\n', None),
        ("a.jsonl", '{"x": 1}\n{"x": 2}\n', None),
        ("a.jsonl", '\ufeff{"x": 1}\n{"x": 2}\n', None),  # a byte-order mark, which datasets reads
        ("a.json", '\ufeff{"x": 1}\n{"x"\n', 2),
    ],
)
def test_a_bad_json_file_is_named_at_its_first_bad_line(tmp_path, name, text, line):
    """A JSON file that ``datasets`` cannot read is named with its line; its message names a row of a block."""
    from zoo.data.file_checks import _first_bad_json_line

    (tmp_path / name).write_text(text)
    where = _first_bad_json_line({"train": [str(tmp_path / name)]})
    assert where == (f" (file {tmp_path / name}, line {line})" if line else "")


def test_a_folder_of_data_sets_names_them(data_dir):
    """``--data.path ../shared/data`` said only "could not be read: Couldn't cast" (datasets read the JSON
    lines of multi30k and sst2 as one split)."""
    with pytest.raises(DataFolderError) as error:
        load_splits(str(data_dir), ["train"])
    assert str(error.value) == (
        f"data.path={str(data_dir)!r} holds no data files of its own but folders that look like data sets: "
        f"multi30k, sst2, tinyshakespeare, wikitext2; pass one of them (e.g. --data.path={data_dir}/multi30k)"
    )


def write_text_splits(folder, text: str) -> None:
    folder.mkdir(parents=True)
    for split in ("train", "validation"):
        (folder / f"{split}.txt").write_text(f"{text} {split}\n")


def test_two_text_data_sets_in_one_folder_are_not_read_as_one(tmp_path):
    write_text_splits(tmp_path / "a", "first")  # datasets read both as one data set, silently
    write_text_splits(tmp_path / "b", "second")
    with pytest.raises(DataFolderError, match=r"folders that look like data sets: a, b; pass one of them"):
        load_splits(str(tmp_path), ["train"])


def test_a_data_set_in_a_sub_folder_or_in_split_folders_loads(tmp_path):
    write_text_splits(tmp_path / "one" / "data", "x")  # the hub's layout: data/train.txt
    assert load_splits(str(tmp_path / "one"), ["train", "validation"])["train"]["text"] == ["x train"]
    for split in ("train", "validation"):  # a folder a split
        (tmp_path / "two" / split).mkdir(parents=True)
        (tmp_path / "two" / split / "part-0.txt").write_text(f"y {split}\n")
    assert load_splits(str(tmp_path / "two"), ["train", "validation"])["validation"]["text"] == ["y validation"]
