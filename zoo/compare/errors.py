"""The one error type of ``zoo compare``."""


class CompareError(ValueError):
    """Bad input to ``zoo compare``; its message is one line naming the value and what is valid."""
