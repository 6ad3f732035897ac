"""Reading YAML files (configs, sweeps) with errors that name the file, line and column."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml


class YAMLFileError(ValueError):
    """A file that is not valid YAML; the message names the file, the problem, the line and the column."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key given twice in one mapping (PyYAML keeps the last silently), and
    reads ``1e-4`` as a float."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} is given twice in one mapping", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# YAML 1.2's floats without a dot (``1e-4``, ``3E5``), which PyYAML (YAML 1.1) reads as strings, read as floats,
# as the CLI's own YAML reader (jsonargparse) reads them: ``lr: [1e-4, 0.0001]`` is one value twice.
_UniqueKeyLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?([0-9][0-9_]*)?\.?[0-9]+[eE][-+]?[0-9]+$"), list("-+0123456789.")
)


def load_yaml(path: str | Path) -> Any:
    """The content of the YAML file ``path``.

    Raises:
        YAMLFileError: e.g. ``sweeps/x.yaml is not valid YAML: expected ',' or '}', but got '<stream end>' at
            line 5, column 1``, a key given twice in one mapping, or a file that is not UTF-8 text.
        OSError: the file cannot be read.
    """
    try:
        return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)  # a SafeLoader
    except UnicodeDecodeError as error:
        raise YAMLFileError(
            f"{path} is not a UTF-8 text file: byte {error.object[error.start]:#04x} at position {error.start} "
            f"cannot be read; YAML files are UTF-8 text"
        ) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise YAMLFileError(f"{path} is not valid YAML: {error.problem or error.context}{where}") from None
    except yaml.YAMLError as error:
        raise YAMLFileError(f"{path} is not valid YAML: {str(error).splitlines()[0]}") from None
