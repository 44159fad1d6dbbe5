"""The figures of chapter 5, "Learned positions: a table the model fills in".

Figures: ``table_similarity_panel``, ``pca_path``; the explorer's drawing:
``draw_learned_table_explorer``, a pure function of the explorer's state: the explorer of
``book.widgets`` only wires controls to it, and the chapter's live twin
(``book.plots.live.live_twin``) shows it at a grid of states.
"""

from __future__ import annotations

from typing import Mapping

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import torch

from ._common import _new_figure, cosine_similarity, heatmap
from .style import POSITIVE_CMAP

__all__ = [
    "table_similarity_panel",
    "pca_path",
    "draw_learned_table_explorer",
]


def table_similarity_panel(
    ax: plt.Axes, table: torch.Tensor, *, title: str = "", colorbar: bool = True
) -> mpl.image.AxesImage:
    """Chapter 5's picture: cosine similarity of a position table's rows
    (learned or sinusoidal), on the fixed range [-1, 1] so panels compare."""
    sim = cosine_similarity(table)
    n = sim.shape[0]
    return heatmap(
        ax,
        sim,
        vmax=1.0,
        xlabel="position q",
        ylabel="position p",
        title=title,
        colorbar=colorbar,
        colorbar_label="cosine similarity",
        aspect="equal",
        extent=(-0.5, n - 0.5, n - 0.5, -0.5),
    )


def pca_path(ax: plt.Axes, table: torch.Tensor, *, title: str = "", colorbar: bool = True) -> float:
    """Project a ``(positions, d)`` table on its first two principal components
    and draw the positions in order as a path, coloured by position.

    PCA: centre the rows, take the SVD ``U S V^T`` and plot ``U[:, :2] S[:2]``.

    Returns:
        the fraction of the table's variance that the two components explain.
    """
    if not isinstance(table, torch.Tensor) or table.dim() != 2 or table.shape[0] < 3:
        raise ValueError(f"table must be a 2-D tensor with at least 3 rows, got {getattr(table, 'shape', None)}")
    x = table.detach().to(torch.float64)
    x = x - x.mean(0)
    u, sv, _ = torch.linalg.svd(x, full_matrices=False)
    xy = (u[:, :2] * sv[:2]).numpy()
    n = xy.shape[0]
    ax.plot(xy[:, 0], xy[:, 1], color="0.75", lw=1, zorder=1)
    points = ax.scatter(xy[:, 0], xy[:, 1], c=np.arange(n), cmap=POSITIVE_CMAP, s=14, zorder=2)
    ax.annotate("0", xy[0], textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.annotate(str(n - 1), xy[-1], textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set(xlabel="principal component 1", ylabel="principal component 2", title=title)
    if colorbar:
        ax.figure.colorbar(points, ax=ax, label="position", shrink=0.9)
    return float((sv[:2] ** 2).sum() / (sv**2).sum())


def draw_learned_table_explorer(snapshots: Mapping[int, torch.Tensor], *, step: int) -> plt.Figure:
    """Chapter 5's explorer: the position table saved at training step
    ``step`` (a key of ``snapshots``): its cosine similarity
    (``table_similarity_panel``) and PCA path (``pca_path``); the title gives
    the share of variance the two components explain.

    Raises:
        ValueError: if ``step`` is not a key of ``snapshots``.
    """
    if step not in snapshots:
        raise ValueError(f"step must be one of the snapshots' steps {sorted(snapshots)}, got {step!r}")
    fig, (left, right) = _new_figure(2, (8.0, 3.4))
    table = snapshots[step]
    table_similarity_panel(left, table, title=f"similarity after {step} steps")
    share = pca_path(right, table, title="first two principal components")
    fig.suptitle(f"step {step}: the two components explain {share:.0%} of the variance", fontsize=10)
    return fig
