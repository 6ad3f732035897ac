"""The checks a task makes of the data module it is given, before training: that it is its task's own, and
that its settings fit the model (a ``data.block_size`` beyond a learned position table)."""

from __future__ import annotations

from zoo.nn.positional import unlimited_encodings
from zoo.tasks.recurrence import position_limit


class DataChecks:
    """A mixin of :class:`zoo.tasks.base.TaskModule`: its checks of the data module."""

    data_module: type | None = None  # the data module whose batches the task reads (subclasses too)

    def check_data(self, datamodule) -> None:
        """Raise ``ValueError`` if this model cannot train on ``datamodule`` (called before training, once the
        data is loaded): :meth:`check_settings`, and what only the data says (a classifier's classes)."""
        self.check_settings(datamodule)

    def _check_data_module(self, datamodule) -> None:
        """Refuse the data module of another task (a classifier on translation data), whose batches lack the
        fields this task reads: a ``ValueError`` that names each task with its data module."""
        expected = self.data_module
        if expected is None or isinstance(datamodule, expected):
            return
        pairs = ", ".join(f"{task.__name__} with {task.data_module.__name__}"
                          for task in zoo_tasks() if task.data_module)
        raise ValueError(
            f"model.class_path={type(self).__name__} does not go with data.class_path={type(datamodule).__name__}: "
            f"it trains on {expected.__name__} (or a subclass); the tasks and their data: {pairs}"
        )

    def check_settings(self, datamodule) -> None:
        """Raise ``ValueError`` if this model cannot train with ``datamodule``'s settings, whatever the data (a
        ``data.block_size`` beyond a learned table's ``model.max_len``); needs no data loaded, so that a sweep
        checks every trial before the first starts."""
        self._check_data_module(datamodule)
        longest, field = getattr(datamodule, "longest_sequence", (None, None))
        if position_limit(self.hparams) and longest is not None and longest > self.hparams.max_len:
            raise ValueError(
                f"model.max_len={self.hparams.max_len} is shorter than the {longest}-token sequences that "
                f"{field} allows, and model.pe={self.hparams.pe!r} has no position beyond max_len; raise model.max_len "
                f"to {longest}, lower {field}, or use model.pe={unlimited_encodings()}"
            )


def zoo_tasks() -> list[type]:
    """The zoo's own tasks (the subclasses of ``TaskModule`` in ``zoo.tasks`` that read a data module), by name."""
    found, pending = set(), [DataChecks]
    while pending:
        for subclass in pending.pop().__subclasses__():
            pending.append(subclass)
            if subclass.__module__.startswith("zoo.tasks.") and subclass.data_module is not None:
                found.add(subclass)
    return sorted(found, key=lambda task: task.__name__)
