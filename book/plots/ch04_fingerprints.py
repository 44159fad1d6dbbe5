"""The figures of chapter 4, "Heatmaps and fingerprints".

Figures: ``similarity_panel``; the explorer's drawing: ``draw_fingerprint_explorer``, a pure
function of the explorer's state: the explorer of ``book.widgets`` only wires controls to it,
and the chapter's live twin (``book.plots.live.live_twin``) shows it at a grid of states.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import torch

from .._validate import check_positive_int
from ..encodings import sinusoidal_at
from ._common import _new_figure, heatmap

__all__ = [
    "similarity_panel",
    "draw_fingerprint_explorer",
]


def similarity_panel(
    ax: plt.Axes,
    d_model: int,
    *,
    seq_len: int,
    base: float = 10000.0,
    cosine: bool = False,
    colorbar: bool = True,
) -> mpl.image.AxesImage:
    """Chapter 4's picture: the similarity matrix ``PE PE^T`` of positions ``0 .. seq_len-1``.

    With ``cosine=True`` each entry is divided by the norms (which are all
    ``sqrt(d/2)``, so the picture is the same up to scale). Diverging colormap
    centred at zero.
    """
    seq_len = check_positive_int("seq_len", seq_len)
    pe = sinusoidal_at(torch.arange(seq_len), d_model, base=base, dtype=torch.float64)
    sim = pe @ pe.T
    if cosine:
        norms = pe.norm(dim=-1)
        sim = sim / (norms[:, None] * norms[None, :])
    label = "cosine similarity" if cosine else "PE(p) . PE(q)"
    return heatmap(
        ax,
        sim,
        xlabel="position q",
        ylabel="position p",
        title=f"d = {d_model}, base = {base:g}",
        colorbar=colorbar,
        colorbar_label=label,
        aspect="equal",
        extent=(-0.5, seq_len - 0.5, seq_len - 0.5, -0.5),
    )


def draw_fingerprint_explorer(
    *, d_model: int = 64, base: float = 10000.0, seq_len: int = 128, cosine: bool = True
) -> plt.Figure:
    """Chapter 4's explorer: ``similarity_panel`` of positions ``0 .. seq_len - 1``
    (cosine similarity, or the raw dot product ``PE PE^T``)."""
    fig, (ax,) = _new_figure(1, (4.6, 3.8))
    similarity_panel(ax, d_model, seq_len=seq_len, base=base, cosine=cosine)
    return fig
