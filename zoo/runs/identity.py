"""A run's identity: its config made canonical (Lightning's defaults, added fields, spellings of one value), the
fields that make a run another, its hash and its name."""

from __future__ import annotations

import hashlib
import json
import os

from zoo.knobs import RNN, TRANSFORMER, name_forms
from zoo.messages import said

# the section of W&B's config that holds run_devices (run.world_size, run.effective_batch.per_step): not the
# run's configuration, which `zoo compare` reads from the other keys
RUN_PREFIX = "run"

# Fields that say how long to train, not what is trained: a resumed run may change them.
BUDGET_FIELDS = ("trainer.max_steps", "trainer.max_time", "trainer.max_epochs")


# the fields that name what one command did, not what the model is (why each is not read from a config file)
PER_INVOCATION = {
    "ckpt_path": "the checkpoint one command started from or evaluated",
    "weights_only": "how one command loaded its checkpoint",
    "run_name": "the run folder one command wrote",
}

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
# trained with biases before model.bias existed, and unpadded vocabularies before model.vocab_multiple): at that
# value a field leaves a run's identity and name as they were, so a run recorded before it still resumes, and
# ``zoo compare`` reads it into the older records (tests/runs/test_earlier_folders.py).
# data.generation_seed: a record without it drew its synthetic pairs with data.seed, 0 in every shipped config.
ADDED_FIELDS = {
    "model.bias": True,
    "model.vocab_multiple": 1,
    "data.generation_seed": 0,
    # model.architecture and the recurrent knobs: a record without them is of a Transformer
    "model.architecture": "transformer",
    "model.rnn_cell": "lstm",
    "model.bidirectional": True,
    "model.rnn_attention": "additive",
    "model.input_feeding": False,
    "model.teacher_forcing": 1.0,
    "model.reverse_source": False,  # a record without it read its source in order
    # the knobs of published checkpoints: a record without them had these values
    "model.norm_eps": 1e-5,
    "model.token_types": 0,
    "model.embedding_norm": False,
    "model.output_bias": False,
    "model.rope_theta": 10000.0,
    "model.pooler": "none",  # BERT's pooler, imported with its weights: a record without it had none
}


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
FOLLOWING_FIELDS = {"model.activation_dropout": "model.dropout", "model.attention_dropout": "model.dropout"}


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
        return said(config[key])
    return said(DEFAULTS[key]) if key in DEFAULTS else "unset"


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


def run_family(short_name: str, data_name: str, flat_config: dict) -> str:
    """``<task>-<data>-<pe>-<norm>-<norm position>-h<heads>-s<seed>``: the knobs of a run name as
    :func:`zoo.knobs.name_forms` writes them; ``<task>-<data>-rnn-<cell>[-<attention>]-s<seed>`` for a recurrent
    network (whose knobs the Transformer's do not apply to)."""
    if flat_config.get("model.architecture") == RNN:
        values = [(form, flat_config.get(f"model.{name}")) for name, form in name_forms(RNN).items()]
        knobs = [form.format(value) for form, value in values if value is not None]
    else:
        knobs = [form.format(flat_config.get(f"model.{name}")) for name, form in name_forms(TRANSFORMER).items()]
    return "-".join(str(part) for part in [short_name, data_name, *knobs, f"s{flat_config.get('seed_everything')}"])


def run_name(short_name: str, data_name: str, flat_config: dict) -> str:
    """:func:`run_family` and the :func:`config_hash`, e.g. ``ed-multi30k-learned-batchnorm-pre-h4-s1-3f9a2c``."""
    return f"{run_family(short_name, data_name, flat_config)}-{config_hash(flat_config)}"
