"""A data file with bad content (a row without a value, a line that is not JSON, an empty file, a label that is
no class index) stops `fit` in one line naming the row or file, before training, with no run folder left."""

import json

import pytest

from tests.cli.helpers import CONFIGS, small_copy
from zoo.cli.main import main

TRANSLATION = str(CONFIGS / "encoder_decoder" / "multi30k.yaml")
CLASSIFICATION = str(CONFIGS / "encoder_only" / "sst2.yaml")
LANGUAGE_MODEL = str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml")


def error_of(capsys, cli_env, config, folder) -> str:
    with pytest.raises(SystemExit) as exit_info:
        vocabulary = [] if config == LANGUAGE_MODEL else ["--data.vocab_size=300"]  # char: every character
        main(["fit", "--config", config, f"--data.path={folder}", *vocabulary])
    assert exit_info.value.code == 2
    assert not (cli_env / "runs").exists()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def append(file, line: str) -> None:
    file.write_text(file.read_text() + line + "\n")


@pytest.mark.parametrize("row", [{"de": "ein Hund"}, {"de": "ein Hund", "en": None}], ids=["missing", "null"])
def test_a_row_without_a_target(row, data_dir, cli_env, capsys):
    folder = small_copy(data_dir, "multi30k", cli_env / "pairs", {"train": 50, "validation": 20})
    append(folder / "train.jsonl", json.dumps(row))
    assert error_of(capsys, cli_env, TRANSLATION, folder) == (
        f"zoo: error: row 50 of the 'train' split of data.path='{folder}' has no 'en' (missing or null); every row "
        "needs a value in data.tgt_column='en'"
    )


def test_a_line_that_is_not_json(data_dir, cli_env, capsys):
    folder = small_copy(data_dir, "multi30k", cli_env / "pairs", {"train": 50, "validation": 20})
    append(folder / "train.jsonl", '{"de": "ein Hund", "en": ')
    assert error_of(capsys, cli_env, TRANSLATION, folder) == (
        f"zoo: error: data.path='{folder}' could not be read: JSON parse error: Invalid value. in row 50 (file "
        f"{folder / 'train.jsonl'}, line 51)"
    )


def test_an_empty_file(data_dir, cli_env, capsys):
    folder = cli_env / "text"
    folder.mkdir()
    (folder / "train.txt").write_text("")
    (folder / "validation.txt").write_text((data_dir / "tinyshakespeare" / "validation.txt").read_text()[:2000])
    assert error_of(capsys, cli_env, LANGUAGE_MODEL, folder) == (
        f"zoo: error: data.path='{folder}': train.txt is empty; every split file needs data"
    )


@pytest.mark.parametrize(("split", "row", "label"), [("train", 50, "positive"), ("validation", 20, -1)])
def test_a_label_that_is_no_class_index(split, row, label, data_dir, cli_env, capsys):
    folder = small_copy(data_dir, "sst2", cli_env / "sentences", {"train": 50, "validation": 20})
    append(folder / f"{split}.jsonl", json.dumps({"idx": 99, "sentence": "good", "label": label}))
    assert error_of(capsys, cli_env, CLASSIFICATION, folder) == (
        f"zoo: error: row {row} of the {split!r} split of data.path='{folder}' has the label {label!r}; "
        "data.label_column='label' must hold class indices 0, 1, ... (integers)"
    )


@pytest.mark.parametrize(
    ("split", "label", "shown"),
    [
        ("train", 1.0, "a label as 1.0"),
        ("train", 0.5, "the label 0.5 in row 50"),
        ("validation", 0.5, "the label 0.5 in row 20"),
        ("validation", 10**30, "the label 1e+30 in row 20, beyond 64-bit integers"),  # it said "a label as 1.0"
    ],
)
def test_one_float_label_is_named_not_the_first_row(split, label, shown, data_dir, cli_env, capsys):
    """One 1.0 in the file makes the reader read every label as a float: the message named row 0, whose label
    in the file is 1. A fraction in the validation split alone failed the cast to the train split's integers,
    in a message naming no split or field."""
    folder = small_copy(data_dir, "sst2", cli_env / "sentences", {"train": 50, "validation": 20})
    append(folder / f"{split}.jsonl", json.dumps({"idx": 99, "sentence": "good", "label": label}))
    assert error_of(capsys, cli_env, CLASSIFICATION, folder) == (
        f"zoo: error: the {split!r} split of data.path='{folder}' has {shown}, so every label was read as a number "
        "with a fraction; data.label_column='label' must hold class indices 0, 1, ... (integers)"
    )


def test_a_validation_label_beyond_the_classes(data_dir, cli_env, capsys):
    folder = small_copy(data_dir, "sst2", cli_env / "sentences", {"train": 50, "validation": 20})
    append(folder / "validation.jsonl", json.dumps({"idx": 99, "sentence": "good", "label": 7}))
    assert error_of(capsys, cli_env, CLASSIFICATION, folder) == (
        "zoo: error: model.num_classes=2 is smaller than the 8 classes in the data (labels 0 ... 7); set "
        "--model.num_classes=8"
    )


def test_more_classes_than_the_data_has(data_dir, cli_env, capsys):
    """Logits of classes no example has would change the softmax, unseen: a mistake, refused as one."""
    folder = small_copy(data_dir, "sst2", cli_env / "sentences", {"train": 50, "validation": 20})
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "fit",
                "--config",
                CLASSIFICATION,
                f"--data.path={folder}",
                "--data.vocab_size=300",
                "--model.num_classes=5",
            ]
        )
    assert exit_info.value.code == 2 and not (cli_env / "runs").exists()
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "zoo: error: model.num_classes=5 is not the 2 classes in the data (labels 0 ... 1); set --model.num_classes=2"
    )


DIGITS = (
    "a CSV or JSON reader reads a column of digits as numbers, and drops leading zeros); write them as JSON strings "
    '("012")'
)
PIECES = "each row needs one string); join the pieces into one text per row"


@pytest.mark.parametrize(
    ("value", "kind", "fix"),
    [(12345, "int64", DIGITS), (["ein", "Hund"], "list", PIECES)],
    ids=["digits read as a number", "a list"],
)
def test_a_text_column_of_other_values(value, kind, fix, data_dir, cli_env, capsys):
    """A column of digits (the quickstart's own task, from a CSV file) was a traceback ('int' object is not
    iterable) after the tokenizer was trained; a list was taken silently."""
    folder = cli_env / "pairs"
    folder.mkdir()
    for split in ("train", "validation"):
        (folder / f"{split}.jsonl").write_text(
            "".join(json.dumps({"de": value, "en": "54321"}) + "\n" for _ in range(20))
        )
    assert error_of(capsys, cli_env, TRANSLATION, folder) == (
        f"zoo: error: data.src_column='de' holds {kind} values in the 'train' split of data.path='{folder}', not "
        f"text ({fix}"
    )


def test_digits_in_one_split_and_words_in_another(cli_env, capsys):
    """The CSV reader reads the train split's column as numbers, and the cast of the other split's words to
    them failed in a message naming no split or field."""
    folder = cli_env / "pairs"
    folder.mkdir()
    (folder / "train.csv").write_text("de,en\n" + "12345,54321\n" * 20)
    (folder / "validation.csv").write_text("de,en\n" + "ein Hund,a dog\n" * 20)
    assert error_of(capsys, cli_env, TRANSLATION, folder) == (
        f"zoo: error: data.src_column='de' holds int64 values in the 'train' split of data.path='{folder}', not "
        f"text ({DIGITS}"
    )
