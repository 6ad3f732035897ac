"""The shared part of every data module: load, check, tokenise (with an on-disk cache), shard and batch."""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path

import lightning.pytorch as pl
import torch
from tokenizers import Tokenizer
from torch.utils.data import DataLoader

from zoo.data.batching import ShardedBatchSampler
from zoo.data.cache import atomic_save, atomic_write_text, cache_key, default_cache_dir
from zoo.data.cache_entries import mark_used
from zoo.data.file_checks import check_columns
from zoo.data.loader_options import loader_options
from zoo.data.loading import load_splits, no_data_module
from zoo.data.tokenizer import DEFAULT_VOCAB_SIZE, check_vocab_size, load_tokenizer, train_tokenizer
from zoo.messages import check_at_least
from zoo.registry import TOKENIZERS


class ZooDataModule(pl.LightningDataModule):
    """Base of the zoo's data modules.

    Subclasses say which splits and columns they need (:meth:`load`), which text trains the tokenizer
    (:meth:`tokenizer_texts`), how a split is encoded (:meth:`encode`), and how batches are formed
    (:meth:`batch_sampler`, :meth:`collate`). The tokenizer and the encoded splits are cached under
    ``cache_dir`` keyed by the data fingerprint and every setting that affects them.

    Args:
        path: a Hugging Face hub id or a local folder read by ``datasets.load_dataset``.
        tokenizer: ``bpe``, ``wordpiece`` or ``char``.
        vocab_size: the tokenizer's target vocabulary size, special tokens included (not for ``char``).
        num_workers: DataLoader worker processes (``None``: 0 on a CPU, a few on a GPU; :mod:`.loader_options`).
        cache_dir: where tokenizers and tokenised splits are cached (default ``$ZOO_CACHE`` or ``~/.cache/zoo``).
        seed: the shuffling seed; ``None``: the run's ``seed_everything`` (:mod:`zoo.runs.data_seed`), or 0 alone.
    """

    eval_splits: tuple[str, ...] = ("validation",)  # needed besides "train"
    optional_splits: tuple[str, ...] = ("test",)  # used when the data has them

    def __init__(
        self,
        path: str,
        tokenizer: str = "bpe",
        vocab_size: int = DEFAULT_VOCAB_SIZE,
        num_workers: int | None = None,
        cache_dir: str | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        TOKENIZERS.check(tokenizer)
        check_vocab_size(tokenizer, vocab_size)
        check_at_least("data.num_workers", num_workers, 0, optional=True)
        self.path, self.tokenizer_kind, self.vocab_size = path, tokenizer, vocab_size
        self.num_workers, self.seed = num_workers, 0 if seed is None else seed
        self.cache_dir, self.cache_dir_given = (Path(cache_dir) if cache_dir else default_cache_dir()), bool(cache_dir)
        self.tokenizers: dict[str, Tokenizer] = {}
        self.tokenizers_given = False  # a checkpoint's (use_tokenizers): no train split needed
        self.encoded: dict[str, dict] = {}
        self.present_optional: tuple[str, ...] = ()
        self.present: tuple[str, ...] = ()  # the splits the data has, of train, eval_splits and optional_splits
        self.train_sampler: ShardedBatchSampler | None = None
        self.train_position: dict[str, int] | None = None  # from a checkpoint, until the train sampler exists

    # -- to be provided by subclasses ------------------------------------------------------------
    def load(self):
        """Load and check the splits (raise before training on a bad path, column or split)."""
        raise ValueError(no_data_module(ZooDataModule))  # a subclass's does; this one is no data module's

    def tokenizer_texts(self, train) -> dict[str, list[str]]:
        """Tokenizer name -> its training text (one tokenizer, ``{"text": ...}``, in most modules)."""
        raise NotImplementedError

    def encode(self, split) -> dict:
        """Encode one split with ``self.tokenizers``."""
        raise NotImplementedError

    def batch_sampler(self, split: str, train: bool) -> ShardedBatchSampler:
        raise NotImplementedError

    def collate(self, split: str, indices: list[int]) -> dict:
        raise NotImplementedError

    # what a batch is counted in for its effective size (zoo.runs.devices): what the loss averages over
    batch_unit = "examples"

    def batch_amount(self, split: str, indices: list[int]) -> int:
        """The size of the batch ``indices`` of ``split`` in :attr:`batch_unit` (its examples by default)."""
        return len(indices)

    def num_examples(self, split: str) -> int:
        """The number of examples in an encoded split (packed sequences by default)."""
        return len(self.encoded[split]["offsets"]) - 1

    def settings(self) -> dict:
        """Everything besides the data that changes the tokenizer or the encoding (the cache key)."""
        return {"tokenizer": self.tokenizer_kind, "vocab_size": self.vocab_size}

    # -- shared --------------------------------------------------------------------------------
    @property
    def splits(self) -> tuple[str, ...]:
        """The splits used: train, eval and optional ones the data has (with a checkpoint's tokenizers, those)."""
        return self.present if self.tokenizers_given else ("train", *self.eval_splits, *self.present_optional)

    def use_tokenizers(self, tokenizers: dict[str, str]) -> None:
        """Encode with ``tokenizers`` (name -> JSON, a checkpoint's :meth:`state_dict`) instead of training
        them on the train split: a checkpoint is evaluated with the ids its model learned, on any data, and
        a folder that holds only the split evaluated is enough. Call it before anything is prepared."""
        self.tokenizers = {name: load_tokenizer(text) for name, text in tokenizers.items()}
        self.tokenizers_given = True

    def load_checked(self, columns: dict[str, str], name: str | None = None, **kwargs):
        """Load the splits and check that each has ``columns`` (field -> column name).

        Raises:
            ValueError: a needed split is missing or empty, or a column is missing (naming the column).
        """
        needed = [] if self.tokenizers_given else ["train", *self.eval_splits]
        data = load_splits(self.path, needed, name, **kwargs)
        known = ("train", *self.eval_splits, *self.optional_splits)
        present = [s for s in known if s in data and len(data[s]) > 0]
        if not present:
            raise ValueError(
                f"data.path={self.path!r} has none of the splits {', '.join(known)}; it has: {', '.join(data)}"
            )
        self.present_optional = tuple(s for s in self.optional_splits if s in present)
        self.present = tuple(present)
        for split in self.splits:
            check_columns(data[split], columns, self.path)
        return data

    def prepare(self) -> None:
        """Load, train or reload the tokenizers, and encode every split; idempotent and cached on disk."""
        if self.encoded:
            return
        data = self.load()
        fingerprint = {split: data[split]._fingerprint for split in self.splits}
        key = cache_key(module=type(self).__name__, path=self.path, data=fingerprint, **self.settings())
        folder = self._cache_folder(key)
        for name, texts in ({} if self.tokenizers_given else self.tokenizer_texts(data["train"])).items():
            file = folder / f"tokenizer-{name}.json"
            if name in self.tokenizers:  # restored from a checkpoint: the ids its model was trained on
                continue
            if file.exists():
                self.tokenizers[name] = load_tokenizer(file.read_text(encoding="utf-8"))
            else:
                self.tokenizers[name] = train_tokenizer(self.tokenizer_kind, texts, self.vocab_size)
                atomic_write_text(self.tokenizers[name].to_str(), file)
        # The encoded splits are cached per tokenizer: a checkpoint's tokenizer may not be the one this cache
        # holds (trained by another version of zoo or of the tokenizers library, which may give other pieces).
        tokenizers = {name: self.tokenizers[name].to_str() for name in sorted(self.tokenizers)}
        encoding = cache_key(tokenizers=tokenizers)
        for split in self.splits:
            file = folder / f"{split}-{encoding}.pt"
            if file.exists():
                self.encoded[split] = torch.load(file, weights_only=False)
            else:
                self.encoded[split] = self.encode(data[split])
                atomic_save(self.encoded[split], file)

    def _cache_folder(self, key: str) -> Path:
        """``cache_dir/key``, created.

        Raises:
            ValueError: naming ``data.cache_dir`` (or ``$ZOO_CACHE``) when the folder cannot be made there.
        """
        try:
            (self.cache_dir / key).mkdir(parents=True, exist_ok=True)
            mark_used(self.cache_dir / key)  # python -m zoo cache prunes the least recently used
        except OSError as error:
            where = f"={str(self.cache_dir)!r}"
            field = f"data.cache_dir{where}" if self.cache_dir_given else f"ZOO_CACHE{where} (data.cache_dir's default)"
            raise ValueError(
                f"{field}: the tokenizer cache cannot be made there ({error.strerror}); name a writable folder"
            ) from None
        return self.cache_dir / key

    def check_batches(self, world_size: int) -> None:
        """Every rank needs at least one example of every split (a rank without a validation batch would skip
        the metric synchronisation that the others wait in); subclasses check their batch limits too.

        Raises:
            ValueError: naming the split, its size and the number of ranks.
        """
        self.prepare()
        for split in self.splits:
            if self.num_examples(split) < world_size:
                raise ValueError(
                    f"the {split!r} split of data.path={self.path!r} has {self.num_examples(split)} examples, "
                    f"fewer than the {world_size} ranks (trainer.devices x trainer.num_nodes); every rank needs at "
                    f"least one: use fewer devices or more data"
                )

    def get_tokenizer(self, name: str | None = None) -> Tokenizer:
        """The tokenizer ``name`` (the first one by default); prepares the data if needed."""
        if not self.tokenizers:
            self.prepare()
        return self.tokenizers[name] if name else next(iter(self.tokenizers.values()))

    @property
    def tokenizer(self) -> Tokenizer:
        """The (first) tokenizer."""
        return self.get_tokenizer()

    @property
    def num_tokens(self) -> int:
        """The model's ``vocab_size``: the largest trained vocabulary; prepares the data if needed."""
        self.prepare()
        return max(t.get_vocab_size() for t in self.tokenizers.values())

    def setup(self, stage: str) -> None:
        self.prepare()

    def _rank(self) -> tuple[int, int]:
        trainer = self.trainer
        return (trainer.world_size, trainer.global_rank) if trainer is not None else (1, 0)

    def _loader(self, split: str, sampler: ShardedBatchSampler) -> DataLoader:
        return DataLoader(
            range(self.num_examples(split)),
            batch_sampler=sampler,
            collate_fn=partial(self.collate, split),
            **loader_options(self.num_workers, self.trainer),
        )

    def train_dataloader(self) -> DataLoader:
        """The train batches, from where training stands: a run resumed from a checkpoint continues the epoch
        it was in, and a new loader (``reload_dataloaders_every_n_epochs``) continues the previous one's."""
        if self.train_sampler is not None:
            self.train_position = self.train_sampler.state_dict()
        self.train_sampler = self.batch_sampler("train", train=True).follow_training()  # see advance below
        if self.train_position is not None:
            self.train_sampler.load_state_dict(self.train_position)
        return self._loader("train", self.train_sampler)

    def on_before_batch_transfer(self, batch, dataloader_idx: int):
        """Count each train batch as training takes it (a loader fetches ahead of training)."""
        if self.train_sampler is not None and self.trainer is not None and self.trainer.training:
            self.train_sampler.advance(self._epoch_batches())
        return batch

    def val_dataloader(self) -> DataLoader:
        return self._loader("validation", self.batch_sampler("validation", train=False))

    def test_dataloader(self) -> DataLoader:
        if "test" in self.splits:
            return self._loader("test", self.batch_sampler("test", train=False))
        raise ValueError(f"data.path={self.path!r} has no test split; `test` needs one (`validate` evaluates)")

    @property
    def predict_split(self) -> str:
        """The split ``predict`` runs on: the test split, or the validation split where there is no test split."""
        return "test" if "test" in self.splits else "validation"

    def predict_dataloader(self) -> DataLoader:
        return self._loader(self.predict_split, self.batch_sampler(self.predict_split, train=False))

    def state_dict(self) -> dict:
        """What travels with every checkpoint: the tokenizers (``tokenizers``: name -> JSON) and where training
        stands in the train batches (``train_position``, see :meth:`ShardedBatchSampler.state_dict`)."""
        state = {"tokenizers": {name: t.to_str() for name, t in self.tokenizers.items()}}
        if self.train_sampler is not None:
            ending = {"ending": True} if self._ending() else {}
            state["train_position"] = {**self.train_sampler.state_dict(), **ending}
        return state

    def _ending(self) -> bool:
        """Whether ``fit`` has taken every batch of its epoch and has not started the next: Lightning resumes a
        checkpoint saved then in that epoch, which it ends (:class:`zoo.training.resume.EpochInProgress`,
        :meth:`ShardedBatchSampler.load_state_dict`)."""
        trainer = self.trainer
        if trainer is None:
            return False
        batches = self._epoch_batches()
        return batches is not None and 0 < batches <= trainer.fit_loop.epoch_loop.batch_progress.current.ready

    def _epoch_batches(self) -> int | None:
        """The train batches an epoch of ``fit`` takes (fewer than the sampler's under ``limit_train_batches``
        and ``overfit_batches``), or ``None`` where Lightning has not counted them."""
        counted = getattr(self.trainer, "num_training_batches", None) if self.trainer is not None else None
        return int(counted) if isinstance(counted, (int, float)) and math.isfinite(counted) else None

    def load_state_dict(self, state: dict) -> None:
        """Restore a :meth:`state_dict`. Lightning calls it before it asks for the train loader (but for
        strategies that restore after their setup, such as FSDP and DeepSpeed, whose first epoch after a
        mid-epoch resume then starts over)."""
        restored = state.get("tokenizers", {})
        if any(name not in self.tokenizers or self.tokenizers[name].to_str() != t for name, t in restored.items()):
            # the splits were encoded with other tokenizers than the checkpoint's (a cache trained elsewhere):
            # encode them again with the checkpoint's, or the model would read other ids than it was trained on
            self.tokenizers.update({name: load_tokenizer(t) for name, t in restored.items()})
            if self.encoded:
                self.encoded = {}
                self.prepare()
        self.train_position = state.get("train_position")
