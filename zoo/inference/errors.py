"""The one error type of the commands on a trained model, in a module that imports nothing, so that a command
raises it for a bad argument before torch loads."""


class InferenceError(Exception):
    """Bad input to a command that uses a trained model, reported in one line."""
