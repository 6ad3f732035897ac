"""``python -m tests.training.ddp_reads FOLDER STEPS ARGS...``: ``python -m zoo ARGS`` (a ``fit``) with a
:class:`tests.training.host_reads.CountingWithBoundaries` in the trainer of each rank, counting reads and
``torch.distributed`` collectives; rank ``R`` writes its counts to ``FOLDER/rank<R>.json``. Lightning starts the
other DDP ranks with this same command line, so each rank counts its own."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import lightning.pytorch as pl

from tests.training.host_reads import CountingWithBoundaries, with_callback


def main(argv: list[str]) -> None:
    folder, steps, args = Path(argv[0]), int(argv[1]), argv[2:]
    counting = CountingWithBoundaries(steps)
    pl.Trainer.__init__ = with_callback(pl.Trainer.__init__, counting)
    restore = counting.counter.count_collectives()
    from zoo.cli.main import main as zoo

    try:
        zoo(args)
    finally:
        restore()
        folder.mkdir(parents=True, exist_ok=True)
        counts = {
            "calls": {step: dict(count) for step, count in counting.counter.calls.items()},
            "quiet": counting.quiet(counting.counter.calls),
            "logging_steps": sorted(counting.logging_steps),
            "boundaries": sorted(counting.boundaries),
        }
        (folder / f"rank{os.environ.get('LOCAL_RANK', '0')}.json").write_text(json.dumps(counts))


if __name__ == "__main__":
    main(sys.argv[1:])
