"""The figures of chapter 12, "Positions in the serving stack".

Figures: ``batch_ids_panel`` (a batch's position ids, pads greyed),
``packing_masks`` (a packed row's plain causal mask against its document
mask) and ``sink_cache_panel`` (the positions a StreamingLLM cache gives its
keys); the explorer's drawing: ``draw_sink_cache_explorer``, a pure function
of its state.
"""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.colors import ListedColormap

from .._validate import check_positive_int
from ..encodings import document_mask, sink_cache_positions
from .style import OKABE_ITO

__all__ = [
    "batch_ids_panel",
    "packing_masks",
    "sink_cache_panel",
    "draw_sink_cache_explorer",
]

_PAD_GREY = "#d9d9d9"


def batch_ids_panel(
    ax: plt.Axes, position_ids: torch.Tensor, attention_mask: torch.Tensor, *, title: str = ""
) -> plt.Axes:
    """A batch as a grid: one row per sequence, one cell per token, each real
    token labelled with its position id on a ``viridis`` scale, pads grey
    and labelled "pad". Returns ``ax``.

    Raises:
        ValueError: if ``position_ids`` and ``attention_mask`` are not 2-D of
            the same shape.
    """
    ids = torch.as_tensor(position_ids)
    mask = torch.as_tensor(attention_mask)
    if ids.dim() != 2 or ids.shape != mask.shape:
        raise ValueError(
            f"position_ids and attention_mask must be 2-D of one shape, got {tuple(ids.shape)} and {tuple(mask.shape)}"
        )
    values = np.ma.masked_where(mask.numpy() == 0, ids.numpy().astype(float))
    cmap = plt.get_cmap("viridis").with_extremes(bad=_PAD_GREY)
    top = max(float(ids[mask.bool()].max()) if bool(mask.any()) else 1.0, 1.0)
    ax.imshow(values, cmap=cmap, vmin=0, vmax=top, aspect="auto")
    for (r, c), p in np.ndenumerate(ids.numpy()):
        real = bool(mask[r, c])
        shade = "white" if real and p < 0.6 * top else "black"
        ax.text(c, r, str(p) if real else "pad", ha="center", va="center", fontsize=7, color=shade)
    ax.set(xlabel="slot in the batch", ylabel="sequence", title=title)
    ax.set_xticks(range(ids.shape[1]))
    ax.set_yticks(range(ids.shape[0]))
    return ax


def packing_masks(lengths: Sequence[int]) -> plt.Figure:
    """Chapter 12's picture of packing: for documents of ``lengths`` packed in
    one row, the plain causal mask (left) with the pairs that cross a document
    boundary in orange, and the document mask of
    ``book.encodings.document_mask`` (right), which drops them.

    Raises:
        TypeError / ValueError: as ``document_mask`` for bad ``lengths``.
    """
    blocks = document_mask(lengths).numpy()
    n = blocks.shape[0]
    causal = np.tril(np.ones((n, n), dtype=bool))
    code_causal = np.where(blocks, 2, np.where(causal, 1, 0))  # 2 own document, 1 other document, 0 masked
    cmap = ListedColormap(["white", OKABE_ITO[1], OKABE_ITO[0]])
    fig, axes = plt.subplots(1, 2, figsize=(6.5, 3.2), layout="constrained")
    edges = np.cumsum(list(lengths))[:-1] - 0.5
    for ax, codes, title in (
        (axes[0], code_causal, f"causal mask: {int((code_causal == 1).sum())} pairs cross documents"),
        (axes[1], np.where(blocks, 2, 0), "document mask: none cross"),
    ):
        ax.imshow(codes, cmap=cmap, vmin=0, vmax=2)
        for e in edges:
            ax.axhline(e, color="black", lw=0.6)
            ax.axvline(e, color="black", lw=0.6)
        ax.set(xlabel="key position in the row", ylabel="query position in the row", title=title)
        ax.title.set_fontsize(8)
    fig.legend(
        handles=[
            plt.Rectangle((0, 0), 1, 1, color=OKABE_ITO[0], label="may attend, same document"),
            plt.Rectangle((0, 0), 1, 1, color=OKABE_ITO[1], label="may attend, other document"),
        ],
        loc="outside lower center",
        ncol=2,
        fontsize=7,
        frameon=False,
    )
    return fig


def sink_cache_panel(ax: plt.Axes, length: int, *, sinks: int, window: int, reassign: bool = True) -> dict[str, int]:
    """What a StreamingLLM cache holds after ``length`` tokens
    (``book.encodings.sink_cache_positions``): one bar per cached key, at the
    position its key is rotated at (a stem and a dot), the sinks in orange and
    the recent window in blue, and the next query in black. With ``reassign`` the keys get
    their places in the cache and the query the next place; without it, they
    keep the positions they had in the text, and the query is at ``length``.
    Returns ``{"cached": .., "query": .., "largest_offset": ..}``.

    Raises:
        TypeError / ValueError: as ``sink_cache_positions``.
    """
    kept, places = sink_cache_positions(length, sinks=sinks, window=window)
    positions = places if reassign else kept
    query = len(kept) if reassign else length
    is_sink = kept < min(sinks, length) if length > sinks + window else torch.zeros(len(kept), dtype=torch.bool)
    colours = [OKABE_ITO[1] if s else OKABE_ITO[0] for s in is_sink.tolist()]
    slots = np.arange(len(kept) + 1)
    heights = np.append(positions.numpy(), query)
    colours.append("black")
    ax.vlines(slots, 0, heights, colors=colours, lw=3)  # a stem per key, then the query
    ax.scatter(slots, heights, c=colours, s=18, zorder=3)  # a dot, so that position 0 shows
    ax.set_xticks(list(slots), [str(int(k)) for k in kept] + ["new"], fontsize=6)
    ax.set(xlabel="cached token (its position in the text)", ylabel="position used by RoPE")
    largest = int(query - positions.min())
    return {"cached": len(kept), "query": int(query), "largest_offset": largest}


def draw_sink_cache_explorer(
    *, length: int = 64, sinks: int = 4, window: int = 8, reassign: bool = True, trained_len: int = 32
) -> plt.Figure:
    """Chapter 12's explorer: ``sink_cache_panel`` after ``length`` tokens,
    with a dashed line at position ``query - trained_len``, where
    ``trained_len`` is the longest offset the model is assumed to have been
    trained on: a key whose stem ends below the line is farther than
    ``trained_len`` from the next query. The title gives the largest offset
    between the next query and a cached key, against ``trained_len``.

    Raises:
        TypeError / ValueError: as ``sink_cache_positions``, or if
            ``trained_len`` is not an integer >= 1.
    """
    trained_len = check_positive_int("trained_len", trained_len)
    fig, ax = plt.subplots(figsize=(6.5, 3.0), layout="constrained")
    info = sink_cache_panel(ax, length, sinks=sinks, window=window, reassign=reassign)
    ax.axhline(
        info["query"] - trained_len,
        color=OKABE_ITO[3],
        ls="--",
        lw=1.2,
        label=f"keys (dots) below: farther than the trained length {trained_len} from the query",
    )
    fig.legend(fontsize=7, loc="outside lower center", frameon=False)  # clear of the stems
    mode = "positions in the cache" if reassign else "positions in the text"
    verdict = "within" if info["largest_offset"] < trained_len else "beyond"
    ax.set_title(
        f"{length} tokens seen, {sinks} sinks + window {window}, {mode}: largest offset "
        f"{info['largest_offset']}, {verdict} the trained length {trained_len}",
        fontsize=8,
    )
    return fig
