"""The figures of chapter 1, "Attention is order-blind".

Figures: ``order_panels``; the explorer's drawing: ``draw_order_explorer``, a pure function of
the explorer's state: the explorer of ``book.widgets`` only wires controls to it, and the
chapter's live twin (``book.plots.live.live_twin``) shows it at a grid of states.
"""

from __future__ import annotations

from typing import Any, Sequence

import matplotlib.pyplot as plt
import torch

from ._common import heatmap

__all__ = [
    "order_panels",
    "draw_order_explorer",
]


def order_panels(
    rows: Sequence[tuple[str, torch.Tensor, torch.Tensor]],
    tokens: Sequence[str],
    *,
    xlabel: str = "output feature",
) -> plt.Figure:
    """Small multiples comparing each token's output under two token orders.

    ``rows`` holds ``(label, out_a, out_b)`` triples, where ``out_a`` and
    ``out_b`` are ``(n_tokens, d)`` outputs already aligned token by token
    (row ``t`` of both belongs to token ``tokens[t]``). Each row of panels shows
    order A, order B and their difference B - A on one shared colour scale, so
    an all-white difference panel means the model could not tell the orders apart.
    """
    if not rows:
        raise ValueError("rows must hold at least one (label, out_a, out_b) triple")
    top = max(float(torch.max(torch.abs(torch.stack((a, b))))) for _, a, b in rows)
    fig, axes = plt.subplots(len(rows), 3, figsize=(7.0, 1.6 * len(rows) + 0.6), squeeze=False)
    for r, (label, out_a, out_b) in enumerate(rows):
        panels = (("order A", out_a), ("order B", out_b), ("B - A", out_b - out_a))
        for c, (name, values) in enumerate(panels):
            ax = axes[r, c]
            image = heatmap(
                ax,
                values,
                vmax=top,
                colorbar=False,
                title=f"{label}: {name}",
                yticklabels=tokens if c == 0 else None,
                xlabel=xlabel if r == len(rows) - 1 else "",
            )
            if c:
                ax.set_yticks([])
            ax.set_xticks([])
    fig.colorbar(image, ax=axes, label="output value", shrink=0.8)
    return fig


def draw_order_explorer(
    model: Any, tokens: Sequence[str], *, order: Sequence[int], positional: bool = False, causal: bool = False
) -> plt.Figure:
    """Chapter 1's explorer: ``order_panels`` for ``tokens`` in their order (A)
    and in ``order`` (B, indices into ``tokens``), through ``model`` (a
    ``book.demos.TinySelfAttention``) with or without the sinusoidal PE and the
    causal mask. The title names order B and the largest ``|B - A|``.

    Raises:
        ValueError: if ``order`` is not a permutation of ``0 .. len(tokens) - 1``.
    """
    tokens = list(tokens)
    idx = [int(i) for i in order]
    a, b = model.aligned_outputs(tokens, idx, positional=positional, causal=causal)
    label = ("PE" if positional else "no PE") + (", causal" if causal else "")
    fig = order_panels([(label, a, b)], tokens)
    fig.suptitle(
        f"order B: {' '.join(tokens[i] for i in idx)}   largest |B - A| = {float((b - a).abs().max()):.1e}", fontsize=9
    )
    return fig
