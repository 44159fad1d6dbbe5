"""Helpers the chapters' figures share: the book's heatmap, a row of axes
for an explorer's figure, cosine similarity of a table's rows, and argument checks."""

from __future__ import annotations

from typing import Any, Literal, Sequence

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import torch

from .style import POSITIVE_CMAP, SIGNED_CMAP

__all__ = [
    "heatmap",
    "cosine_similarity",
]


def _as_array(values: torch.Tensor | np.ndarray) -> np.ndarray:
    if isinstance(values, torch.Tensor):
        values = values.detach().cpu().to(torch.float64).numpy()
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"values must be a 2-D matrix, got shape {values.shape}")
    return values


def heatmap(
    ax: plt.Axes,
    values: torch.Tensor | np.ndarray,
    *,
    signed: bool = True,
    vmax: float | None = None,
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    xticklabels: Sequence[str] | None = None,
    yticklabels: Sequence[str] | None = None,
    colorbar: bool = True,
    colorbar_label: str = "",
    extent: tuple[float, float, float, float] | None = None,
    aspect: Literal["equal", "auto"] | float = "auto",
) -> mpl.image.AxesImage:
    """Draw a matrix as a heatmap in the book's style.

    Signed data use ``RdBu_r`` on ``[-vmax, vmax]`` (``vmax`` defaults to the
    largest absolute value), so white is exactly zero; non-negative data use
    ``viridis`` from 0 to ``vmax``. ``extent`` and ``aspect`` are passed to
    ``imshow`` (e.g. to label rows with the positions they stand for).

    Returns the image, e.g. to share one colorbar between panels.
    """
    data = _as_array(values)
    top = float(np.nanmax(np.abs(data))) if vmax is None else float(vmax)
    top = top if top > 0 else 1.0
    cmap, lo = (SIGNED_CMAP, -top) if signed else (POSITIVE_CMAP, 0.0)
    image = ax.imshow(data, cmap=cmap, vmin=lo, vmax=top, aspect=aspect, interpolation="nearest", extent=extent)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    for labels, axis, set_ticks in (
        (xticklabels, ax.xaxis, ax.set_xticks),
        (yticklabels, ax.yaxis, ax.set_yticks),
    ):
        if labels is not None:
            set_ticks(range(len(labels)))
            axis.set_ticklabels(list(labels))
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label=colorbar_label, shrink=0.9)
    return image


def cosine_similarity(table: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of every pair of rows of a ``(positions, d)`` table
    (float64, shape ``(positions, positions)``)."""
    if not isinstance(table, torch.Tensor) or table.dim() != 2 or not table.is_floating_point():
        raise ValueError(
            f"table must be a 2-D floating tensor (positions, d), got {getattr(table, 'shape', type(table))}"
        )
    unit = torch.nn.functional.normalize(table.detach().to(torch.float64), dim=-1)
    return unit @ unit.T


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _new_figure(ncols: int, figsize: tuple[float, float]) -> tuple[plt.Figure, list[plt.Axes]]:
    fig, axes = plt.subplots(1, ncols, figsize=figsize, squeeze=False, layout="constrained")
    return fig, list(axes[0])
