"""``python -m zoo cache``: the data cache's entries are listed with their sizes, pruned by age (least recently
used by a run) or by size, and cleared; they were never removed before. Every test uses its own cache folders:
never the machine's."""

import os
import time

import datasets
import pytest

from zoo.cli.main import main as zoo_main
from zoo.data import LanguageModelDataModule
from zoo.data.cache_entries import entries, to_prune
from zoo.inference.cache_command import main, parse_age, parse_size

DAY = 86400


@pytest.fixture
def caches(tmp_path, monkeypatch):
    """(the zoo cache, the datasets cache's zoo folder), both empty and this test's own."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("ZOO_CACHE", str(tmp_path / "zoo"))
    return tmp_path / "zoo", tmp_path / "hf" / "zoo-by-content"


def _entry(parent, name: str, size: int, days_ago: float):
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "data.bin").write_bytes(b"x" * size)
    used = time.time() - days_ago * DAY
    os.utime(folder, (used, used))
    return folder


def _shakespeare(data_dir, folder, cache):
    folder.mkdir()
    for split, count in (("train", 500), ("validation", 100)):
        lines = (data_dir / "tinyshakespeare" / f"{split}.txt").read_text(encoding="utf-8").splitlines(True)
        (folder / f"{split}.txt").write_text("".join(lines[:count]), encoding="utf-8")
    module = LanguageModelDataModule(path=str(folder), tokenizer="char", cache_dir=str(cache))
    module.prepare()
    return module


def test_a_prepared_data_set_is_listed_with_its_size_and_marked_used_when_used_again(data_dir, caches, tmp_path):
    zoo_cache, arrow = caches
    _shakespeare(data_dir, tmp_path / "data", zoo_cache)
    found = entries(zoo_cache, arrow)
    assert sorted(entry.kind for entry in found) == ["datasets Arrow copy", "tokenizer and splits"]
    for entry in found:
        assert entry.size == sum(f.stat().st_size for f in entry.path.rglob("*") if f.is_file()) > 0
    long_ago = time.time() - 90 * DAY
    for entry in found:
        os.utime(entry.path, (long_ago, long_ago))
    module = LanguageModelDataModule(path=str(tmp_path / "data"), tokenizer="char", cache_dir=str(zoo_cache))
    module.prepare()  # from the cache: both entries are used again
    assert all(time.time() - entry.used < DAY for entry in entries(zoo_cache, arrow))


def test_prune_by_age_removes_the_entries_unused_for_longer(caches, capsys):
    zoo_cache, arrow = caches
    old = [
        _entry(zoo_cache, "a", 100, 40),
        _entry(zoo_cache / "synthetic", "reverse-b", 200, 31),
        _entry(arrow, "c", 300, 35),
    ]
    recent = [_entry(zoo_cache, "d", 400, 29), _entry(arrow, "e", 500, 1)]
    assert main(["prune", "--older_than", "30d"]) == 0
    assert capsys.readouterr().out == "removed 3 entries (600 B); 900 B kept\n"
    assert [p.exists() for p in old + recent] == [False, False, False, True, True]


def test_prune_by_size_removes_the_least_recently_used_until_the_rest_fit(caches, capsys):
    zoo_cache, arrow = caches
    folders = [_entry(zoo_cache, "a", 1000, 3), _entry(arrow, "b", 1000, 2), _entry(zoo_cache, "c", 1000, 1)]
    assert main(["prune", "--max_size", "1.5k"]) == 0
    assert capsys.readouterr().out == "removed 2 entries (2 kB); 1 kB kept\n"
    assert [p.exists() for p in folders] == [False, False, True]


def test_list_and_clear(caches, capsys):
    zoo_cache, arrow = caches
    _entry(zoo_cache, "a", 1500, 2)
    _entry(arrow, "b", 10, 0)
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:6] == ["1.5", "kB", "2.0", "days", "tokenizer", "and"] and lines[0].endswith("/zoo/a")
    assert lines[1].split()[:5] == ["10", "B", "0.0", "days", "datasets"] and lines[1].endswith("zoo-by-content/b")
    assert lines[2] == f"1.51 kB in 2 entries ({zoo_cache}, {arrow})"
    with pytest.raises(SystemExit) as done:  # as python -m zoo cache clear
        zoo_main(["cache", "clear"])
    assert done.value.code == 0 and entries(zoo_cache, arrow) == []
    assert capsys.readouterr().out == "removed 2 entries (1.51 kB); 0 B kept\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["prune"], "prune needs --older_than (e.g. 30d), --max_size (e.g. 2G) or both"),
        (["prune", "--max_size", "2X"], "--max_size='2X' is not valid; it must be a size such as 500M, 2G or 1000000"),
        (
            ["prune", "--older_than=-3d"],
            "--older_than='-3d' is not valid; it must be an age such as 30d, 12h or 7 (days)",
        ),
        (["clear", "--older_than", "3"], "--older_than and --max_size are options of `prune`, not of `clear`"),
        (["list", "--cache_dir", "nowhere"], "--cache_dir='nowhere' is not a folder; name the cache (e.g. $ZOO_CACHE)"),
    ],
)
def test_bad_options_are_one_line(args, message, caches, capsys):
    assert main(args) == 2
    assert capsys.readouterr().err == f"zoo cache: error: {message}\n"


def test_sizes_and_ages_parse_in_their_units():
    assert [parse_size(s) for s in ("1000", "500M", "2G", "1.5kB", "3t")] == [1000, 500e6, 2e9, 1500, 3e12]
    assert [parse_age(s) for s in ("7", "30d", "12h", "90m", "5s")] == [7 * DAY, 30 * DAY, 12 * 3600, 5400, 5]


def test_nothing_to_prune_within_both_bounds():
    assert to_prune([], 1.0, 0, time.time()) == []


def test_a_cache_dir_named_is_read_alone(tmp_path, capsys):
    """``cache prune --cache_dir X`` of an empty X removed every Arrow copy ``datasets`` kept of local data folders
    (``$HF_DATASETS_CACHE/zoo-by-content``, shared by every cache): a named cache is that folder alone."""
    (tmp_path / "tokenizers").mkdir()
    (tmp_path / "tokenizers" / "entry.json").write_text("{}")
    assert main(["list", "--cache_dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(f"in 1 entry ({tmp_path})")
