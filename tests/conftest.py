"""Where the real data is, for tests that need it; and no test may leave a signal handler changed.

``ZOO_TEST_DATA`` (default: ``../shared/data`` resolved from the repository root, not the working directory).
Where it is absent, real-data tests skip with a one-line reason; with ``ZOO_REQUIRE_TEST_DATA=1`` (set by
``.ci/run``) they fail instead, so CI can never pass by skipping them.
"""

import os
import signal
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("ZOO_TEST_DATA", REPO.parent / "shared" / "data")).resolve()


def pytest_configure(config) -> None:
    """Under pytest-xdist (``make test`` runs one worker per core), each worker and the processes it starts take
    their share of the cores: with every core's threads each, the workers oversubscribe the machine. The share
    replaces an ``OMP_NUM_THREADS`` the shell exported, so that the threads of this process (``torch``) and of the
    processes it starts (the variable) are the same number whatever the shell exports."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        import torch

        share = max(1, (os.cpu_count() or 1) // workers)
        os.environ["OMP_NUM_THREADS"] = str(share)
        torch.set_num_threads(share)


def pytest_collection_modifyitems(config, items) -> None:
    """The long real-data tests (``@pytest.mark.slow``) first, so that no worker is left running one alone at the
    end; the others keep their order. ``-m "not slow"`` leaves them out for a quick loop. The tests marked
    ``@pytest.mark.cuda`` skip, saying why, on a machine without a CUDA GPU."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    cuda = [item for item in items if item.get_closest_marker("cuda") is not None]
    if cuda:
        import torch

        if not torch.cuda.is_available():
            skip = pytest.mark.skip(reason="needs a CUDA GPU (torch.cuda.is_available() is false here)")
            for item in cuda:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        reason = f"real data not found at {DATA} (set ZOO_TEST_DATA)"
        if os.environ.get("ZOO_REQUIRE_TEST_DATA") == "1":
            pytest.fail(reason + "; ZOO_REQUIRE_TEST_DATA=1 forbids skipping")
        pytest.skip(reason)
    return DATA


@pytest.fixture(scope="session")
def zoo_cache(tmp_path_factory) -> Path:
    """One tokenizer cache for the whole session, so each data set is tokenised once: under pytest-xdist one for
    all its workers (the session's folder above each worker's; the cache writes each file whole, by a rename,
    so workers never read a partial one)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "zoo-cache"
        shared.mkdir(exist_ok=True)
        return shared
    return tmp_path_factory.mktemp("zoo-cache")


@pytest.fixture
def cli_env(monkeypatch, zoo_cache, tmp_path):
    """An environment for running the CLI in-process: offline W&B, the session cache, a fresh runs folder."""
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("ZOO_CACHE", str(zoo_cache))
    monkeypatch.delenv("ZOO_RUN_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


SIGNALS = (signal.SIGINT, signal.SIGTERM)


@pytest.fixture(autouse=True)
def signal_handlers_kept():
    """Fail a test that leaves SIGINT's or SIGTERM's handler changed (and put it back): a later test in the same
    worker would see Ctrl-C ignored, as one did after Lightning's SIG_IGN, and fail only when scheduled after it."""
    before = {signum: signal.getsignal(signum) for signum in SIGNALS}
    yield
    changed = {signum: signal.getsignal(signum) for signum in SIGNALS if signal.getsignal(signum) is not before[signum]}
    for signum in changed:
        signal.signal(signum, before[signum])
    names = ", ".join(f"{signal.Signals(signum).name} (now {handler!r})" for signum, handler in changed.items())
    assert not changed, f"the test left the handler of {names} changed"


@pytest.fixture
def ctrl_c_reaches_this_process():
    """Python's Ctrl-C handler for one test, the one before it put back after. A process started in the
    background of a shell without job control (``cmd &`` in a script, nohup, some CI runners) inherits SIGINT
    ignored, and a test that sends itself SIGINT would then see nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def one_thread():
    """One torch thread for the test (runs whose losses are compared exactly), the count put back after."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
