"""The parser of ``python -m zoo`` built as LightningCLI builds it, without parsing anything: what ``zoo sweep``
checks its trials with, and what the index of fields is written from (:mod:`zoo.cli.field_index`)."""

from __future__ import annotations

import functools


class _ParserReady(Exception):
    def __init__(self, parser) -> None:
        self.parser = parser


@functools.cache
def cli_parser():
    """The parser of ``python -m zoo`` (subcommands, links, zoo's own options), with nothing parsed or built."""
    from zoo.cli.lightning_cli import ZooCLI

    class ParserOnly(ZooCLI):
        def parse_arguments(self, parser, args) -> None:
            raise _ParserReady(parser)

    try:
        ParserOnly(args=[])
    except _ParserReady as ready:
        return ready.parser
    raise RuntimeError("ZooCLI did not reach parse_arguments")
