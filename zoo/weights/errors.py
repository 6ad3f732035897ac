"""The one error type of weights in and out, in a module that imports nothing."""


class WeightsError(Exception):
    """Bad input to an import or export (a folder without weights, an unsupported family, a knob with no
    counterpart), reported in one line before anything is written."""
