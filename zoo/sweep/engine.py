"""W&B's sweep engine (the ``sweeps`` package) and the error of a bad sweep, apart from the modules that use them."""

from __future__ import annotations

import warnings


class SweepError(Exception):
    """A bad sweep file or sweep command line, reported in one line before any trial starts."""


def sweeps_engine():
    """The ``sweeps`` package (W&B's sweep engine), imported quietly: version 0.2.0 was written for pydantic 1
    and warns about a renamed config key under pydantic 2, which changes nothing here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import sweeps.config.schema  # the JSON schema of sweep files, and the package itself
    return sweeps
