"""A sentence-transformers folder (``modules.json``: the Transformer, then ``1_Pooling``, often ``2_Normalize``; as
sentence-transformers/all-MiniLM-L6-v2) pools its sentence embedding as its ``Pooling`` module's
``config.json`` says, not through BERT's pooler: an encoder imported from one pools as it does (``mean`` for
``pooling_mode_mean_tokens``, ``cls`` for ``pooling_mode_cls_token``) with no pooler, and the modules it has
after the pooling (an L2 ``Normalize``, a ``Dense``) are named in the import line, not imported."""

from __future__ import annotations

from pathlib import Path

from zoo.weights.errors import WeightsError
from zoo.weights.folder import read_json

POOLINGS = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}  # sentence-transformers' -> zoo's
POOLING_MODES = (*POOLINGS, "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
                 "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken")  # fmt: skip


def sentence_pooling(folder: Path, asked: str | None = None) -> tuple[dict, list[str]] | None:
    """The pooling knobs of a sentence-transformers ``folder`` (``{"pooling": "mean", "pooler": "none"}``) and
    its modules after the pooling (``2_Normalize (Normalize)``), or ``None`` for a folder without
    ``modules.json``. ``asked`` (``cls`` or ``mean``, the import's ``--pooling``) overrides the folder's mode:
    ``cls`` gives no knobs (the family's, through BERT's pooler), and the folder's pooling module is named
    among the modules not used where its mode is another.

    Raises:
        WeightsError: where ``modules.json`` or the pooling's ``config.json`` cannot be read, or the pooling is
            not one mode zoo has and none was asked.
    """
    path = folder / "modules.json"
    if not path.exists():
        return None
    modules = read_json_list(path)
    kinds = [str(module.get("type", "")).rpartition(".")[2] for module in modules]
    if "Pooling" not in kinds:
        return None
    at = kinds.index("Pooling")
    config_path = folder / str(modules[at].get("path", "")) / "config.json"
    config = read_json(config_path)
    modes = [mode for mode in POOLING_MODES if config.get(mode)]
    own = POOLINGS.get(modes[0]) if len(modes) == 1 else None
    if own is None and asked is None:
        raise WeightsError(
            f"{str(config_path)!r} pools by {', '.join(modes) or 'no mode'}; zoo pools by one of "
            f"{', '.join(POOLINGS)} (model.pooling={' or '.join(POOLINGS.values())}), or import with --pooling "
            "cls or mean"
        )
    named = [f"{module.get('path') or module.get('name')} ({kinds[i]})" for i, module in enumerate(modules)]
    after = named[at + 1 :] if asked in (None, own) else named[at:]
    return pooling_knobs(asked or own), after


def pooling_knobs(mode: str) -> dict:
    """The task knobs of an imported encoder's pooling ``mode``: none for ``cls`` (the family's, through BERT's
    pooler where the folder has one); ``model.pooling`` and no pooler for another (``mean``)."""
    return {} if mode == "cls" else {"pooling": mode, "pooler": "none"}


def read_json_list(path: Path) -> list[dict]:
    """``modules.json``: a list of objects.

    Raises:
        WeightsError: naming the file where it holds another thing.
    """
    import json

    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WeightsError(f"{str(path)!r} is not valid JSON: {error}") from None
    if not isinstance(content, list) or not all(isinstance(module, dict) for module in content):
        raise WeightsError(f"{str(path)!r} holds no list of modules")
    return content
