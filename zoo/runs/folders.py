"""Run folders: a run's identity is its whole resolved configuration.

A run folder is ``runs_dir/<name>``; the name says the headline knobs and ends in a short hash of the whole
configuration (``do-tinyshakespeare-learned-layernorm-pre-h4-s1-3f9a2c``), so runs that differ in anything
but the training budget get different names, and ``-2``, ``-3`` only ever mean "the same configuration again".
``--ckpt_path last`` resumes only a run whose recorded configuration equals the command's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

# Fields that say how long to train, not what is trained: a resumed run may change them.
BUDGET_FIELDS = ("trainer.max_steps", "trainer.max_time", "trainer.max_epochs")
# Fields that are not part of what is trained or measured.
BOOKKEEPING_FIELDS = (
    "config",
    "ckpt_path",
    "run_name",
    "runs_dir",
    "wandb_project",
    "checkpoint_every_n_steps",  # how often to save, not what is trained
    "nonfinite_loss",  # so that a run stopped by a NaN can continue with nonfinite_loss=skip
    "model.vocab_size",  # derived from the data
    "trainer.enable_progress_bar",
    "trainer.enable_model_summary",
    "keep_last",
    # how float32 matmuls round (a speed setting, as the thread count): a run may continue on another machine
    # with another precision, and runs from before the option existed keep their names
    "matmul_precision",
    "model.compile",  # the same network, traced and compiled
)
# Data fields that say how data is loaded, not what is measured (a cache folder, loader processes).
# data.pad_to_multiple_of: masked padding after the batches are formed changes no loss or metric.
UNMEASURED_DATA_FIELDS = ("data.num_workers", "data.cache_dir", "data.pad_to_multiple_of")

# Model fields that only choose the decoder that evaluation translates with, or predict generates with: a run's
# checkpoint may be evaluated with other values (a beam of 5 after training with greedy validation).
DECODING_FIELDS = (
    "model.max_new_tokens",
    "model.temperature",
    "model.top_k",
    "model.top_p",
    "model.beam_size",
    "model.length_penalty",
    "model.max_len_a",
    "model.max_len_b",
    "model.bleu_batches",
)


# Fields added to the code after runs were recorded, each with the value that does what those runs did (they
# trained with biases before model.bias existed): at that value a field leaves a run's identity and name as they
# were, so a run recorded before it still resumes, and ``zoo compare`` reads it into the older records.
ADDED_FIELDS = {"model.bias": True}

# Trainer fields whose unset value (``None``) stands for a value Lightning's Trainer fills in: unset and that
# value are one setting (``--trainer.limit_train_batches=1.0`` is what leaving it out does). A count is not a
# fraction: ``limit_val_batches=1`` is one batch, ``1.0`` the whole split.
LIGHTNING_DEFAULTS = {
    "trainer.limit_train_batches": 1.0,
    "trainer.limit_val_batches": 1.0,
    "trainer.limit_test_batches": 1.0,
    "trainer.limit_predict_batches": 1.0,
    "trainer.val_check_interval": 1.0,
    "trainer.num_sanity_val_steps": 2,
    "trainer.enable_checkpointing": True,
    "trainer.gradient_clip_algorithm": "norm",
}

# Trainer fields that take a number of batches (an int) or a fraction of them (a float in [0, 1]), read as
# Lightning reads them (``_determine_batch_limits``): a whole float above 1 is that many batches.
BATCH_FIELDS = (
    "trainer.limit_train_batches",
    "trainer.limit_val_batches",
    "trainer.limit_test_batches",
    "trainer.limit_predict_batches",
    "trainer.val_check_interval",
)


def canonical_batches(value: object) -> object:
    """A :data:`BATCH_FIELDS` value as Lightning uses it: unset is ``1.0`` (all batches), ``2.0`` is ``2``
    batches, ``0`` and ``0.0`` are none; ``1`` stays one batch, unlike ``1.0``."""
    if value is None:
        return 1.0
    if isinstance(value, float) and (value == 0 or value > 1 and value.is_integer()):
        return int(value)
    return value


# Lightning's aliases of trainer.precision (an int or a short string, Trainer(precision=...)), each run as the
# value it stands for; unset is its default, float32
PRECISION_ALIASES = {"32": "32-true", "64": "64-true", "16": "16-mixed", "bf16": "bf16-mixed"}
DEFAULT_PRECISION = "32-true"

# The value each of these fields has when a config leaves it out (unset), as messages show it.
DEFAULTS = {**ADDED_FIELDS, **LIGHTNING_DEFAULTS, "trainer.precision": DEFAULT_PRECISION}

# Fields whose unset value is another field's: at that value they are unset (one setting, one identity).
FOLLOWING_FIELDS = {"model.activation_dropout": "model.dropout"}

# Fields that name a data set: a hub id, or a local folder that may be written in several ways.
PATH_FIELDS = ("data.path",)


def canonical_precision(value: object) -> str:
    """The one form of a ``trainer.precision`` value: unset, ``32`` and ``"32"`` are ``"32-true"``, ``16`` is
    ``"16-mixed"``, ``"bf16"`` ``"bf16-mixed"``; other values as they are."""
    return DEFAULT_PRECISION if value is None else PRECISION_ALIASES.get(str(value), str(value))


# trainer.devices values of one device where runs were recorded (every run before the shipped configs pinned
# trainer.devices: 1 recorded "auto" and ran on one CPU): one setting, written as those runs have it, so that
# their names stand. Where "auto" picks several devices, a run's world size and effective batch, which its
# summary.json records (zoo.runs.devices), tell it apart, and `zoo compare` notes the rows that differ in them.
ONE_DEVICE = ("auto", "1", "-1")


def canonical_value(key: str, value: object) -> object:
    """One form for the spellings of one setting: ``trainer.precision`` by :func:`canonical_precision`, a
    number of batches by :func:`canonical_batches`, ``trainer.devices`` 1 as ``auto`` (:data:`ONE_DEVICE`), a
    :data:`LIGHTNING_DEFAULTS` field unset as its value, and a :data:`PATH_FIELDS` folder without ``.``, ``..``
    or a trailing ``/`` (and if it exists here, as its absolute path, links resolved, so that a path written
    relative to another folder, or through a link, is the same folder); other values as they are."""
    if key == "trainer.precision":
        return canonical_precision(value)
    if key == "trainer.devices" and str(value).replace(" ", "") in ONE_DEVICE:
        return "auto"
    if key in BATCH_FIELDS:
        return canonical_batches(value)
    if value is None:
        return LIGHTNING_DEFAULTS.get(key)
    if key in PATH_FIELDS and isinstance(value, str) and value:
        return os.path.realpath(value) if os.path.exists(value) else os.path.normpath(value)
    return value


def same_value(a: object, b: object) -> bool:
    """Whether two config values are one setting, telling a count from a fraction (``1`` is not ``1.0``) and a
    bool from a number, which ``==`` does not."""
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def with_added_fields(flat_config: dict) -> dict:
    """``flat_config`` (a run's recorded config) with every :data:`ADDED_FIELDS` field it lacks at the value
    that says what the run did, and each value in its one form (:func:`canonical_value`: precision ``32-true``
    for unset, ``limit_val_batches`` ``1.0`` for unset, a data folder without its trailing ``/``); an empty
    config stays empty."""
    if not flat_config:
        return flat_config
    config = {**ADDED_FIELDS, "trainer.precision": None, **flat_config}
    return {key: canonical_value(key, value) for key, value in config.items()}


def is_seed(key: str) -> bool:
    """Seeds (``seed_everything``, ``data.seed``) are what repeats of one configuration differ in."""
    return key.rsplit(".", 1)[-1] in ("seed", "seed_everything")


class RunFolderError(Exception):
    """No run folder fits the command (``--ckpt_path last`` without a matching run); one line."""


def identity(flat_config: dict) -> dict:
    """The fields of a flat (dotted-key) config that make a run what it is: all but budget, bookkeeping and how
    data is loaded (:data:`UNMEASURED_DATA_FIELDS`; and ``data.name`` for a local folder, which does not use it),
    each in its one form (:func:`canonical_value`), and but those unset (``None``) or at the value they have
    unset (:data:`DEFAULTS`), so that a field added to the code later
    (``model.activation_dropout`` unset by default, ``model.bias`` true) leaves the identity and the name of
    the runs recorded before it alone, and so that the spellings of one setting are one identity
    (``trainer.precision``: unset, ``32`` and ``32-true``; ``trainer.limit_train_batches``: unset and ``1.0``;
    ``data.path``: ``data/x`` and ``data/x/``; ``model.activation_dropout``: unset and ``model.dropout``'s
    value, :data:`FOLLOWING_FIELDS`)."""
    ignored = set(BUDGET_FIELDS) | set(BOOKKEEPING_FIELDS) | set(UNMEASURED_DATA_FIELDS)
    if os.path.isdir(os.path.expanduser(str(flat_config.get("data.path")))):
        ignored.add("data.name")  # a hub configuration's name: a local folder holds one, and it is not used
    canonical = {key: canonical_value(key, value) for key, value in flat_config.items() if key not in ignored}
    followed = {key: canonical.get(other) for key, other in FOLLOWING_FIELDS.items()}
    return {
        key: value
        for key, value in canonical.items()
        if value is not None
        and not (key in DEFAULTS and same_value(value, DEFAULTS[key]))
        and not (key in followed and value == followed[key])
    }


def config_hash(flat_config: dict, length: int = 6) -> str:
    """A short hex hash of :func:`identity` (stable across key order and processes). A local data folder is
    hashed as its absolute path, so that a run's own ``config.yaml``, which records that path, gives the name
    of the command that made the run."""
    text = json.dumps(identity(flat_config), sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:length]


def shown(config: dict, key: str) -> str:
    """``repr`` of ``config[key]`` for a message; a field left out is shown at the value it has unset
    (:data:`DEFAULTS`: ``model.bias`` ``True``, ``trainer.precision`` ``'32-true'``), or as ``unset``."""
    if key in config:
        return repr(config[key])
    return repr(DEFAULTS[key]) if key in DEFAULTS else "unset"


def changed_fields(then: dict, now: dict) -> list[str]:
    """The sorted keys whose values differ between two flat configs in their one form (:func:`same_value`)."""
    missing = object()
    return sorted(
        key
        for key in set(then) | set(now)
        if then.get(key, missing) is missing or now.get(key, missing) is missing or not same_value(then[key], now[key])
    )


def differences(recorded: dict, current: dict, prefix: str = "") -> list[str]:
    """``key=<current> (the run has <recorded>)`` for every identity field (starting with ``prefix``) that
    differs; with a ``prefix`` (evaluation of a checkpoint) the :data:`DECODING_FIELDS` may differ."""
    a, b = identity(recorded), identity(current)
    free = DECODING_FIELDS if prefix else ()
    a = {k: v for k, v in a.items() if k.startswith(prefix) and k not in free}
    b = {k: v for k, v in b.items() if k.startswith(prefix) and k not in free}
    return [f"{key}={shown(b, key)} (the run has {shown(a, key)})" for key in changed_fields(a, b)]


# The headline knobs of a run name and how each is written: fields of zoo.nn.TransformerConfig (a test checks).
RUN_NAME_KNOBS = {"pe": "{}", "norm": "{}", "norm_position": "{}", "n_heads": "h{}"}


def run_family(short_name: str, data_name: str, flat_config: dict) -> str:
    """``<task>-<data>-<pe>-<norm>-<norm position>-h<heads>-s<seed>``: the :data:`RUN_NAME_KNOBS` of a run name."""
    knobs = [form.format(flat_config.get(f"model.{name}")) for name, form in RUN_NAME_KNOBS.items()]
    return "-".join(str(part) for part in [short_name, data_name, *knobs, f"s{flat_config.get('seed_everything')}"])


def run_name(short_name: str, data_name: str, flat_config: dict) -> str:
    """:func:`run_family` and the :func:`config_hash`, e.g. ``ed-multi30k-learned-batchnorm-pre-h4-s1-3f9a2c``."""
    return f"{run_family(short_name, data_name, flat_config)}-{config_hash(flat_config)}"


def folder_problem(folder: Path) -> str | None:
    """Why run folders cannot be made in ``folder`` (it, or the nearest part of its path that exists, is a
    file or is not writable), or ``None``; nothing is created."""
    for part in [folder, *folder.absolute().parents]:
        if part.exists():
            if not part.is_dir():
                return f"{part} is a file"
            return None if os.access(part, os.W_OK | os.X_OK) else f"{part} is not writable"
    return None


def new_run_dir(runs_dir: Path, name: str) -> Path:
    """Create and return ``runs_dir/name``, or ``name-2``, ``name-3``, ... if taken. The folder is created
    atomically, so two runs started at the same moment never share one, and nothing of an earlier run is
    overwritten."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    k = 1
    while True:
        candidate = runs_dir / (name if k == 1 else f"{name}-{k}")
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            k += 1


def remove_unused_run_dir(run_dir: Path | None) -> None:
    """Remove ``run_dir`` (and ``runs_dir`` if then empty) when a run failed before it started: only a folder
    that is empty, or holds no more than the W&B id its logger wrote and the files of the W&B run it began
    (``wandb/``: no record, no checkpoint), can be such a run's."""
    if run_dir is None:
        return
    id_file, wandb_files = run_dir / "wandb_id", run_dir / "wandb"
    if id_file.exists() and set(run_dir.iterdir()) <= {id_file, wandb_files}:  # and the W&B run it began
        id_file.unlink()
        shutil.rmtree(wandb_files, ignore_errors=True)
    for folder in (run_dir, run_dir.parent):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


RECORD_FILES = ("config.yaml", "config.json", "summary.json", "metrics.jsonl")  # what RunRecord writes


def remove_untrained_run_dir(run_dir: Path) -> bool:
    """Remove ``run_dir`` (and ``runs_dir`` if then empty) if it holds no more than a run's record
    (:data:`RECORD_FILES`), its W&B files and an empty ``checkpoints/``: the folder of a run stopped before its
    first step. Anything else in it (a checkpoint, a file of the user's) keeps it whole.

    Returns:
        Whether it was removed.
    """
    checkpoints = run_dir / "checkpoints"
    if {path.name for path in run_dir.iterdir()} - {*RECORD_FILES, "wandb_id", "wandb", "checkpoints"} or (
        checkpoints.is_dir() and any(checkpoints.iterdir())
    ):
        return False
    for name in (*RECORD_FILES, "wandb_id"):
        (run_dir / name).unlink(missing_ok=True)
    for folder in (checkpoints, run_dir / "wandb"):
        shutil.rmtree(folder, ignore_errors=True)
    remove_unused_run_dir(run_dir)
    return not run_dir.exists()


def _same_name(folder: Path, name: str) -> bool:
    return folder.name == name or (folder.name.startswith(name + "-") and folder.name[len(name) + 1 :].isdigit())


def checkpoint_files(run_dir: Path) -> dict:
    """The checkpoints in ``run_dir/checkpoints``, keyed as a finished run's record keys them: ``best`` (the
    newest ``best-step<S>.ckpt``: one is saved only when the metric improves), ``last`` and ``kept`` (the
    ``step<S>.ckpt`` of ``keep_last``, sorted), as absolute paths (as Lightning's ``ModelCheckpoint`` gives
    them); keys without a file are left out."""
    folder = Path(os.path.realpath(run_dir)) / "checkpoints"
    found: dict = {}
    bests = sorted(folder.glob("best-*.ckpt"), key=lambda path: path.stat().st_mtime)
    if bests:
        found["best"] = str(bests[-1])
    if (folder / "last.ckpt").is_file():
        found["last"] = str(folder / "last.ckpt")
    kept = sorted(str(path) for path in folder.glob("step*.ckpt"))
    return {**found, "kept": kept} if kept else found


def recorded_config(folder: Path) -> dict | None:
    """A run folder's ``config.json`` (flat fields), or ``None`` if it has none or it cannot be read."""
    try:
        return json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return None


def _with_checkpoint(runs_dir: Path, pattern: str, name: str | None) -> list[Path]:
    """Folders matching ``pattern`` (and named ``name[-k]`` when given) that have ``checkpoints/last.ckpt``,
    most recent first."""
    folders = [
        p
        for p in runs_dir.glob(pattern)
        if (name is None or _same_name(p, name)) and (p / "checkpoints" / "last.ckpt").exists()
    ]
    return _newest_first(folders)


def _newest_first(folders) -> list[Path]:
    return sorted(folders, key=lambda p: (p / "checkpoints" / "last.ckpt").stat().st_mtime, reverse=True)


def _nearest(fitting: list[Path], apart: dict[Path, list[str]]) -> Path:
    """Of the runs an evaluation may take (most recent first), the one of the fewest other fields (``apart``).

    Raises:
        RunFolderError: another run is as near in other ways (trained on two other data sets): no choice to
            make silently.
    """
    nearest = min(fitting, key=lambda folder: len(apart[folder]))
    rivals = [f for f in fitting if len(apart[f]) == len(apart[nearest]) and apart[f] != apart[nearest]]
    if rivals:
        shown = "; ".join(f"{f} ({', '.join(apart[f])})" for f in [nearest, *rivals][:3])
        raise RunFolderError(
            f"ckpt_path='last': {len(rivals) + 1} runs of this model differ from this command as much, each in "
            f"another way: {shown}; pass --ckpt_path with the checkpoint of one"
        )
    return nearest


def find_resumable(
    runs_dir: Path,
    name: str,
    flat_config: dict,
    family: str | None = None,
    prefix: str = "",
    preferred: tuple[Path, ...] = (),
) -> Path:
    """The run folder with ``checkpoints/last.ckpt`` whose recorded configuration fits ``flat_config``: equals it
    but for the budget (or, with ``prefix``, in the fields of ``prefix``). Of several, one of ``preferred``,
    else the one of the fewest other fields (:func:`_nearest`), the most recent first.

    Args:
        runs_dir: where run folders are.
        name: the run name of the command.
        flat_config: the command's resolved config, dotted keys.
        family: a name prefix (``name`` without its config hash); when no run of ``name`` exists, the latest
            run of ``family-*`` is named in the error with the fields in which it differs.
        prefix: compare only the fields starting with it (``"model."`` to evaluate a run's checkpoint with
            other evaluation settings).
        preferred: run folders to take first where they fit (those whose ``config.yaml`` the command was given).

    Raises:
        RunFolderError: if there is none, naming the fields in which the latest run of that name differs; or
            when two runs are as near in other ways.
    """
    folders = _with_checkpoint(runs_dir, f"{name}*", name)
    # evaluation settings may differ, and so may the name's hash; with no run of this name, a run of the family
    # whose name has another hash of the same identity (recorded with an alias: precision 32-true, not unset)
    if family and (prefix or not folders):
        folders = _newest_first({*folders, *_with_checkpoint(runs_dir, f"{family}-*", None)})
    records = {folder: recorded_config(folder) for folder in folders}  # each read once
    fitting = [f for f in folders if records[f] is not None and not differences(records[f], flat_config, prefix)]
    chosen = [folder for folder in fitting if folder.resolve() in {p.resolve() for p in preferred}]
    if chosen:
        return chosen[0]
    if fitting:
        return _nearest(fitting, {folder: differences(records[folder], flat_config) for folder in fitting})
    if not folders:  # a changed headline knob (model.n_heads) names another family: this task's runs on this data
        folders = _newest_first(_same_classes(runs_dir, flat_config))
        records = {folder: recorded_config(folder) for folder in folders}
    nearest = _nearest_record({f: r for f, r in records.items() if r is not None}, flat_config, prefix)
    if nearest is not None:
        raise RunFolderError(
            f"ckpt_path='last': no run of this configuration; the nearest, {nearest}, was trained with another "
            f"configuration: {', '.join(differences(records[nearest], flat_config, prefix))}; "
            + (
                f"evaluate it with its own config (--config {nearest / 'config.yaml'})"
                if prefix  # an evaluation's fields: it starts no run
                else f"resume it with its own config (--config {nearest / 'config.yaml'}), or start a new run "
                "without --ckpt_path"
            )
        )
    raise RunFolderError(
        f"ckpt_path='last': no {runs_dir}/{name}*/checkpoints/last.ckpt of this configuration to load; "
        f"train it first, or pass --ckpt_path with a checkpoint file"
    )


def _same_classes(runs_dir: Path, flat_config: dict) -> list[Path]:
    """The run folders in ``runs_dir`` with ``checkpoints/last.ckpt`` whose task and data module are the command's
    (``model.class_path``, ``data.class_path``, ``data.path``), whatever their names."""
    keys = ("model.class_path", "data.class_path", "data.path")
    return [
        folder
        for folder in _with_checkpoint(runs_dir, "*", None)
        if all(
            canonical_value(key, (recorded_config(folder) or {}).get(key)) == canonical_value(key, flat_config.get(key))
            for key in keys
        )
    ]


def _nearest_record(records: dict[Path, dict], flat_config: dict, prefix: str) -> Path | None:
    """Of run folders (most recent first) and their records, the one of the fewest fields apart from
    ``flat_config`` (those of ``prefix`` first), the most recent of equals; ``None`` for none."""
    if not records:
        return None
    return min(
        records,
        key=lambda f: (len(differences(records[f], flat_config, prefix)), len(differences(records[f], flat_config))),
    )
