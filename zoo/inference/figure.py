"""Attention weights drawn as labelled heat maps, one row per attention module and one column per head, with
the tokens on the axes (the alignment figures of Bahdanau et al. 2015 and Vaswani et al. 2017, Figures 3-5)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from matplotlib.figure import Figure
from torch import Tensor

from zoo.runs.output_files import mark

PANEL_INCHES = 3.0  # each head's map
DPI = 100


@dataclass
class AttentionMap:
    """The weights of one attention module: ``weights`` ``(H, T, S)``, queries ``rows`` (T labels) and keys
    ``columns`` (S labels)."""

    title: str
    weights: Tensor
    rows: list[str]
    columns: list[str]


def figure_size(maps: list[AttentionMap]) -> tuple[int, int]:
    """The ``(width, height)`` in pixels of :func:`draw_attention`'s image."""
    heads = max(m.weights.shape[0] for m in maps)
    return round(heads * PANEL_INCHES * DPI), round(len(maps) * PANEL_INCHES * DPI)


def draw_attention(maps: list[AttentionMap], out: Path, title: str = "") -> None:
    """Write a PNG of every map in ``maps`` (a row each) and every head (a column each) to ``out``, with one
    colour bar of the weights (0 to 1) and ``title`` above (the text the maps were drawn on); its size is
    :func:`figure_size`."""
    heads = max(m.weights.shape[0] for m in maps)
    figure = Figure(figsize=(heads * PANEL_INCHES, len(maps) * PANEL_INCHES), dpi=DPI, layout="constrained")
    axes = figure.subplots(len(maps), heads, squeeze=False)
    font = {"fontsize": 6}
    image = None
    for row, attention in enumerate(maps):
        for head in range(heads):
            ax = axes[row][head]
            if head >= attention.weights.shape[0]:
                ax.axis("off")
                continue
            weights = attention.weights[head].float().cpu().numpy()
            image = ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
            ax.set_title(f"{attention.title}, head {head + 1}", fontsize=7)
            ax.set_xticks(range(len(attention.columns)), attention.columns, rotation=90, **font)
            ax.set_yticks(range(len(attention.rows)), attention.rows, **font)
    colour_bar = figure.colorbar(image, ax=axes.ravel().tolist(), shrink=0.6, aspect=30)
    colour_bar.set_label("attention weight", fontsize=7)
    colour_bar.ax.tick_params(labelsize=6)
    if title:
        figure.suptitle(title, fontsize=8, wrap=True)
    figure.savefig(out, dpi=DPI, metadata={"Software": mark("attention")})
