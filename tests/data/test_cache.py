"""The caches of encoded data and of checkpoints follow the files' contents, not their modification times."""

import os

import datasets
import torch

from zoo.data import LanguageModelDataModule
from zoo.runs.checkpoint_file import load_checkpoint


def _rewrite_keeping_time(file, text: str) -> None:
    """``file`` rewritten with ``text`` of the same size, its modification time set back (``cp -p``, a checkout)."""
    before = file.stat()
    assert len(text.encode()) == before.st_size
    file.write_text(text)
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (file.stat().st_size, file.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_an_edit_that_keeps_size_and_modification_time_is_encoded_anew(tmp_path, monkeypatch):
    """datasets' Arrow cache and zoo's key were both the files' modification times: the old split was served."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf"))
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "train.txt").write_text("that is the question, that is the answer\n")
    (folder / "validation.txt").write_text("that is the question\n")

    def validation_text() -> str:
        module = LanguageModelDataModule(path=str(folder), block_size=4, cache_dir=str(tmp_path / "zoo"))
        module.prepare()
        return module.tokenizer.decode(module.encoded["validation"]["ids"].tolist())

    assert validation_text() == "that is the question\n"
    _rewrite_keeping_time(folder / "validation.txt", "that is the answer,,\n")
    assert validation_text() == "that is the answer,,\n"


def test_a_checkpoint_replaced_with_its_modification_time_kept_is_read_anew(tmp_path):
    """The checks before training read a checkpoint once, keyed by its modification time alone: a checkpoint
    copied over it with its time kept (``cp -p``, ``rsync -t``) was checked as the old one."""
    checkpoint = {"pytorch-lightning_version": "2", "hyper_parameters": {"_class_path": "zoo.tasks.Task"}}
    path, copy = tmp_path / "last.ckpt", tmp_path / "copy.ckpt"
    torch.save({**checkpoint, "global_step": 10, "state_dict": {"w": torch.zeros(2)}}, path)
    assert load_checkpoint(str(path))["global_step"] == 10
    torch.save({**checkpoint, "global_step": 20, "state_dict": {"w": torch.zeros(2)}}, copy)
    assert copy.stat().st_size == path.stat().st_size
    os.utime(copy, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    os.replace(copy, path)
    assert load_checkpoint(str(path))["global_step"] == 20
