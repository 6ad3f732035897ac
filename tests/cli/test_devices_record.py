"""A run records where it ran and what one optimiser step trained on (world size, devices, precision, effective
batch); a fit that Lightning would spread over several devices, or a resume on another world size, says so
before training; trainer.devices 1 is the ``auto`` of the runs recorded before the shipped configs pinned it."""

import os
import random
from types import SimpleNamespace

import pytest
import torch
from lightning.pytorch import Trainer
from lightning.pytorch.accelerators import CPUAccelerator

from tests.cli.helpers import CONFIGS, read_run, shakespeare_args, small_copy
from zoo.cli.lightning_cli import ZooCLI
from zoo.cli.main import main
from zoo.data import ClassificationDataModule, LanguageModelDataModule, TranslationDataModule
from zoo.data.padding import IGNORE_INDEX
from zoo.runs.devices import crowded_cpu, device_names, library_versions, moved_devices, unpinned_devices
from zoo.runs.identity import config_hash, differences, with_added_fields
from zoo.runs.record import flatten
from zoo.runs.wandb_guard import GuardedWandbLogger
from zoo.sweep.validate import cli_parser, parse


def test_a_fit_records_its_devices_world_size_precision_and_effective_batch(data_dir, cli_env, caplog, monkeypatch):
    logged = []  # what W&B's config is given
    original = GuardedWandbLogger.log_hyperparams

    def log_hyperparams(self, params, *args, **kwargs):
        logged.append(params)
        original(self, params, *args, **kwargs)

    monkeypatch.setattr(GuardedWandbLogger, "log_hyperparams", log_hyperparams)
    main([*shakespeare_args(data_dir), "--trainer.max_steps=2", "--trainer.val_check_interval=2"])
    (run_dir,) = (cli_env / "runs").iterdir()
    summary = read_run(run_dir)["summary"]
    data = LanguageModelDataModule(str(data_dir / "tinyshakespeare"), tokenizer="char", block_size=64, batch_size=12)
    data.prepare()
    examples = data.num_examples("train")
    batches = -(-examples // 12)
    per_device = round(examples * 64 / batches, 1)  # the last batch is short
    cores, threads = len(os.sched_getaffinity(0)), torch.get_num_threads()  # one process: torch's own threads
    assert {key: summary[key] for key in ("world_size", "num_nodes", "devices", "precision", "effective_batch")} == {
        "world_size": 1,
        "num_nodes": 1,
        "devices": {"accelerator": "cpu", "count": 1, "names": ["cpu"], "cores": cores, "threads": threads},
        "precision": "32-true",
        "effective_batch": {
            "unit": "target tokens",
            "per_device": per_device,
            "world_size": 1,
            "accumulate_grad_batches": 1,
            "per_step": per_device,
        },
    }
    (in_wandb,) = [params for params in logged if "run.world_size" in params]
    assert in_wandb == {
        "run.world_size": 1,
        "run.num_nodes": 1,
        "run.devices.accelerator": "cpu",
        "run.devices.count": 1,
        "run.devices.names": "['cpu']",
        "run.devices.cores": cores,
        "run.devices.threads": threads,
        "run.precision": "32-true",
        **{f"run.effective_batch.{key}": value for key, value in summary["effective_batch"].items()},
        **{f"run.libraries.{key}": value for key, value in summary["libraries"].items()},
    }
    assert summary["libraries"] == library_versions()  # what zoo compare says where arms differ
    assert summary["libraries"]["torch"] == torch.__version__ and set(summary["libraries"]) >= {"lightning"}
    assert "world_size" not in read_run(run_dir)["config"]  # not the run's configuration, which a resume compares
    said = caplog.text
    assert "Seed set to" in said and "runs this fit on" not in said and "CPU processes" not in said  # one device


def test_a_resume_on_another_world_size_says_so():
    recorded = {"effective_batch": {"unit": "target tokens", "per_step": 768.0, "world_size": 1}}
    now = {"world_size": 4, "effective_batch": {"unit": "target tokens", "per_step": 3072.0, "world_size": 4}}
    assert moved_devices(recorded, now) == (
        "this run trained on world size 1 (768 target tokens per step) and continues on 4 (3072): its later steps "
        "average over another batch"
    )
    assert moved_devices(recorded, {"world_size": 1, "effective_batch": recorded["effective_batch"]}) is None
    assert moved_devices({}, now) is None  # recorded before runs recorded it


@pytest.fixture
def two_cpus(monkeypatch):
    """Lightning's ``devices="auto"`` finds two CPU devices, as it finds every GPU of a machine."""
    monkeypatch.setattr(CPUAccelerator, "auto_device_count", staticmethod(lambda: 2))


def trainer(devices) -> Trainer:
    return Trainer(accelerator="cpu", devices=devices, strategy="ddp", logger=False, enable_checkpointing=False,
                   enable_progress_bar=False, enable_model_summary=False)  # fmt: skip


@pytest.mark.parametrize("typed", ["auto", -1])  # -1: every GPU (Lightning refuses it for CPUs)
def test_devices_left_to_lightning_that_picks_several_is_said_before_training(two_cpus, typed):
    batch = {"unit": "target tokens", "per_step": 1536.0}
    assert unpinned_devices(typed, trainer("auto"), batch) == (
        f"trainer.devices={typed!r} runs this fit on 2 devices (2 cpu x 1 node, strategy DDPStrategy): 1536 target "
        f"tokens per optimiser step, 2x a one-device run's; --trainer.devices=1 pins one"
    )
    assert unpinned_devices(2, trainer(2), batch) is None  # named in the config: nothing silent
    assert unpinned_devices("auto", trainer(1), batch) is None


@pytest.fixture
def two_cores(monkeypatch):
    """A machine of two cores (``os.sched_getaffinity``), OMP_NUM_THREADS unset."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)


def test_more_cpu_processes_than_cores_is_said_with_the_threads_each_gets(two_cores, monkeypatch):
    """``--trainer.devices=3 --trainer.accelerator=cpu`` on 2 cores started 3 DDP processes without a word."""
    assert crowded_cpu(trainer(3)) == (
        "trainer.devices=3 starts 3 CPU processes on 2 cores, 1 thread each (Lightning's share: cores // processes, "
        "at least 1): they take turns on the cores, so this runs slower than one process (--trainer.devices=1), "
        "though it still tests DDP"
    )
    assert crowded_cpu(trainer(2)) is None and crowded_cpu(trainer(1)) is None  # a core each
    monkeypatch.setenv("OMP_NUM_THREADS", "2")  # Lightning leaves an exported count as it is
    assert "3 CPU processes on 2 cores, 2 threads each (OMP_NUM_THREADS=2):" in crowded_cpu(trainer(3))


def test_a_fit_of_more_cpu_processes_than_cores_says_so_before_training(two_cores, cli_env, caplog, monkeypatch):
    """In-process, with the training (and so the start of DDP's processes) left out: the line is said once the
    trainer is built, and the record to be written holds the cores and the threads of each process."""
    started = []
    monkeypatch.setattr(ZooCLI, "_run_subcommand", lambda cli, name: started.append((caplog.text, cli)))
    quickstart = ["fit", "--config", str(CONFIGS / "quickstart.yaml"), "--data.num_train=300"]
    main([*quickstart, "--trainer.devices=3", "--trainer.accelerator=cpu"])
    ((said, cli),) = started
    assert said.count("zoo: warning: trainer.devices=3 starts 3 CPU processes on 2 cores, 1 thread each") == 1
    assert cli.devices["devices"] == {"accelerator": "cpu", "count": 3, "names": ["cpu"] * 3, "cores": 2, "threads": 1}


def test_one_device_is_the_auto_of_runs_recorded_before_the_configs_pinned_it():
    def flat(*extra):
        return flatten(parse(cli_parser(), ["fit", "--config", str(CONFIGS / "quickstart.yaml"), *extra]).as_dict())

    pinned, recorded = flat(), flat("--trainer.devices=auto")
    assert pinned["trainer.devices"] == 1 and recorded["trainer.devices"] == "auto"
    typed = flat("--trainer.devices=1")  # a string from the command line
    assert (
        config_hash(pinned)
        == config_hash(recorded)
        == config_hash(typed)
        == config_hash({**pinned, "trainer.devices": -1})
    )
    assert differences(recorded, pinned) == []
    assert with_added_fields(pinned)["trainer.devices"] == "auto"  # compare: no trainer.devices knob between them
    assert config_hash(flat("--trainer.devices=2")) != config_hash(pinned)


def test_a_batch_is_counted_in_what_the_loss_averages_over(data_dir, zoo_cache, tmp_path, monkeypatch):
    """Each data module's count of a batch equals the targets its collated batch holds: target tokens (padding
    left out) for translation and language modelling, sentences for classification."""
    monkeypatch.setenv("ZOO_CACHE", str(zoo_cache))
    multi30k = small_copy(data_dir, "multi30k", tmp_path / "m", {"train": 300, "validation": 20})
    sst2 = small_copy(data_dir, "sst2", tmp_path / "s", {"train": 300, "validation": 20})
    modules = {
        "target tokens": [
            TranslationDataModule(str(multi30k), vocab_size=300, max_tokens=512),
            LanguageModelDataModule(str(data_dir / "tinyshakespeare"), tokenizer="char", block_size=32, batch_size=5),
        ],
        "sentences": [ClassificationDataModule(str(sst2), tokenizer="wordpiece", vocab_size=300, max_tokens=512)],
    }
    for unit, datamodules in modules.items():
        for datamodule in datamodules:
            datamodule.prepare()
            assert datamodule.batch_unit == unit
            for batch in datamodule.batch_sampler("train", train=True).all_batches(random.Random(0))[:30]:
                collated = datamodule.collate("train", batch)
                targets = collated.get("tgt_out", collated.get("targets", collated.get("labels")))
                assert datamodule.batch_amount("train", batch) == int((targets != IGNORE_INDEX).sum()), unit


def test_ranks_to_be_forked_are_named_without_starting_cuda(monkeypatch):
    """``ddp_fork`` forks its ranks from this process, in which CUDA must not have started."""
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index: pytest.fail("CUDA was asked"))
    strategy = SimpleNamespace(root_device=torch.device("cuda", 0), launcher=SimpleNamespace(_start_method="fork"))
    assert device_names(SimpleNamespace(strategy=strategy, num_devices=2, device_ids=[0, 1])) == ["cuda", "cuda"]
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index: f"GPU {index}")
    strategy.launcher._start_method = "spawn"
    assert device_names(SimpleNamespace(strategy=strategy, num_devices=2, device_ids=[0, 1])) == ["GPU 0", "GPU 1"]


HIDDEN = "CUDA_VISIBLE_DEVICES='' is set and leaves torch no GPU; unset it, or name a GPU, to use one"


def test_a_fit_on_the_cpu_because_cuda_visible_devices_hides_the_gpus_says_so(data_dir, cli_env, caplog, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    main([*shakespeare_args(data_dir), "--trainer.max_steps=1"])
    assert caplog.text.count(f"zoo: this fit runs on the CPU: {HIDDEN}") == 1
    assert caplog.text.index(HIDDEN) < caplog.text.index("zoo: best checkpoint")


@pytest.mark.parametrize(
    ("exported", "device", "accelerator", "gpus", "said"),
    [
        ("", "cpu", "auto", 0, True),
        ("-1", "cpu", None, 0, True),
        ("", "cpu", "cpu", 0, False),  # the CPU was asked for
        (None, "cpu", "auto", 0, False),  # a machine without GPUs: nothing hides them
        ("0", "cuda", "auto", 1, False),
    ],
)
def test_only_a_cuda_visible_devices_that_hides_every_gpu_is_said(
    exported, device, accelerator, gpus, said, monkeypatch
):
    from zoo.runs.devices import cpu_fit_reason

    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpus > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: gpus)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    if exported is not None:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", exported)
    trainer = SimpleNamespace(strategy=SimpleNamespace(root_device=torch.device(device)))
    expected = f"this fit runs on the CPU: CUDA_VISIBLE_DEVICES={exported!r} is set and leaves torch no GPU; unset it"
    reason = cpu_fit_reason(trainer, accelerator)
    assert (reason is not None and reason.startswith(expected)) if said else reason is None
