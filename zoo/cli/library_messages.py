"""The wordings of jsonargparse's and argparse's messages that zoo reads, each one compiled pattern, all here:
``tests/cli/test_library_messages.py`` makes each message with the installed libraries and fails where a
release rewords one (which would otherwise drop zoo's one-line error to its generic branch silently).

Imports nothing but the standard library.
"""

from __future__ import annotations

import re

# argparse (zoo's own commands, and the subcommand layer of LightningCLI's parser)
UNRECOGNIZED = re.compile(r"^unrecognized arguments: (.*)$")
INVALID_CHOICE = re.compile(r"^argument (\S+): invalid choice: '?(.*?)'? \(choose from")
MISSING_REQUIRED = re.compile(r"the following arguments are required: (\w+)\.(?:data|model)\b")
MISSING_VALUE = re.compile(r"^argument --(\w+): expected one argument")
REQUIRED = re.compile(r"^the following arguments are required: (.*)$")

# jsonargparse: an unknown key
UNKNOWN_OPTION = re.compile(r"^Option '(\w+)' is not accepted")
UNEXPECTED_CONFIG = re.compile(r"^Unexpected config:")  # a config file that is no mapping of options
PARSER_KEY = re.compile(r'^Parser key "([\w.]+)":\s*(.*)$', re.S)  # a key and jsonargparse's reason
SUBCOMMAND_OPTION = re.compile(r"(?:Subcommand '\w+' does not accept option '|^unrecognized arguments: --)([\w.]+)")

# jsonargparse: a bad value (the key, what was expected, the value given)
LITERAL_ERROR = re.compile(r'Parser key "(\w+)":\s+Expected a typing\.Literal\[(.*)\]\. Got value: (.*)$', re.S)
TYPE_ERROR = re.compile(r'^Parser key "([\w.]+)":.*(?:Expected a <class \'|Not of type \w+: )', re.S)
LENGTH_ERROR = re.compile(r'^Parser key "([\w.]+)":\s+Expected a tuple with (\d+) elements\. Got value: (.*)$', re.S)
GIVEN_VALUE = re.compile(r"(?:Got|Given) value: (.*)$", re.M)
RESTRICTED_VALUE = re.compile(r"Not of type \w+: (.*) does not conform to restriction")  # no Given value alone
RESTRICTION = re.compile(r"Not of type (\w+): (\S+) does not conform to restriction (.*)$", re.M)  # its bounds
BOUND = re.compile(r"v(>=|<=|>|<)(-?[\d.]+)")  # each bound of a restriction: v>0, v<=2147483647
SUBTYPES = re.compile(r"Subtypes: \[(.*)\]$", re.M)  # the alternatives of a union, each with its own reason
LITERAL_IN = re.compile(r"typing\.Literal\[(.*?)\]")
CLASS_IN = re.compile(r"<class '(\w+)'>")
EXPECTED_CLASS = re.compile(r"(?:Expected a <class '|Not of type )(\w+)")  # a class, or a restricted type (PositiveInt)

# jsonargparse: classes (a class_path that does not import, or is no zoo task; --model.help of no class)
CLASS_PATH_PROBLEM = re.compile(r"Problem with given class_path '([^']*)':\s*\n\s*(.+)$", re.M)
FOREIGN_CLASS = re.compile(r"Import path (\S+) does not correspond to a subclass of (TaskModule|ZooDataModule)")
CLASS_HELP = re.compile(r"^--(model|data)\.help: (.*)$")
