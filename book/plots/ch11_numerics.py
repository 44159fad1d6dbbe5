"""The figures of chapter 11, "Numerics and speed: positions in low precision, RoPE close to the
speed of a copy".

Figures: ``rope_angle_errors``; the explorer's drawing: ``draw_precision_explorer``, a pure
function of the explorer's state: the explorer of ``book.widgets`` only wires controls to it,
and the computed explorer ``"precision"`` of ``book.plots.computed`` draws the same figure
in a web page.
"""

from __future__ import annotations

import math
from typing import Sequence

import matplotlib.pyplot as plt
import torch

from .._validate import check_positive_int
from ._common import _new_figure

__all__ = [
    "rope_angle_errors",
    "draw_precision_explorer",
]


def rope_angle_errors(
    ax: plt.Axes,
    positions: torch.Tensor,
    d_model: int,
    *,
    dtypes: Sequence[str] = ("bfloat16", "float32"),
    base: float = 10000.0,
) -> dict[str, torch.Tensor]:
    """Chapter 11's picture: the largest error of RoPE's cosines against
    position (log-log) when the angles are formed in each of ``dtypes``
    (names such as ``"bfloat16"``), with ``book``'s float64 angles for
    comparison (``numerics.rope_cos_error``). Returns the errors by label."""
    from ..numerics import rope_cos_error

    errors = {}
    for name in dtypes:
        dtype = getattr(torch, name, None)
        if not isinstance(dtype, torch.dtype):
            raise ValueError(f"dtypes must name torch dtypes such as 'bfloat16', got {name!r}")
        errors[name] = rope_cos_error(positions, d_model, angle_dtype=dtype, base=base)
    errors["book (float64 angles)"] = rope_cos_error(positions, d_model, angle_dtype=torch.float64, base=base)
    styles = ["-", "--", "-."][: len(errors) - 1] + [":"]  # book's line dotted
    for (name, err), style in zip(errors.items(), styles):
        shown = err.clamp(min=1e-10).masked_fill(err.isinf(), math.nan)  # overflow: no line
        ax.loglog(torch.as_tensor(positions).numpy(), shown.numpy(), style, label=name)
    ax.set(
        xlabel="position m",
        ylabel="largest |cos error|",
        ylim=(1e-10, 10),
        title=f"RoPE angles in low precision, d = {d_model}",
    )
    return errors


def _explorer_positions(longest: int) -> torch.Tensor:
    """The explorer's positions: 80 spaced logarithmically from 1 to
    ``longest`` (float32, as ``torch.logspace`` makes them), truncated to
    integers, without repeats. The computed explorer (``js/precision.js``)
    repeats this."""
    longest = check_positive_int("longest", longest)
    if longest < 2:
        raise ValueError(f"longest must be at least 2, got {longest}")
    return torch.unique(torch.logspace(0, math.log2(longest), 80, base=2).long())


def _first_unheld_position(dtype: torch.dtype) -> int:
    """The smallest whole number that float16 rounds to ``inf``, 65,520: past
    its largest finite value, 65,504, by half a step (a tie there rounds to
    inf, since that value's last bit is odd; 65,505 to 65,519 round down to
    65,504). float16 is the one format whose positions overflow in the
    explorer; torch rounds a number to bfloat16 through float32, so there the
    same rule would not give the first number it rounds to inf. The computed
    explorer (``js/precision.js``) repeats this.

    Raises:
        ValueError: for a dtype other than ``torch.float16``.
    """
    if dtype != torch.float16:
        raise ValueError(f"dtype must be torch.float16, the one format whose positions overflow, got {dtype}")
    info = torch.finfo(dtype)
    half_step = 2.0 ** math.floor(math.log2(info.max)) * info.eps / 2
    return math.ceil(info.max + half_step)


def draw_precision_explorer(
    *, dtype: str = "bfloat16", d_model: int = 128, base: float = 10000.0, longest: int = 2**17
) -> plt.Figure:
    """Chapter 11's explorer: ``rope_angle_errors`` with the angles formed in
    ``dtype`` (and ``book``'s float64 angles), at 80 positions spaced
    logarithmically from 1 to ``longest`` (the last may fall below it). The
    title says from which plotted position the cosines are off by more than
    0.01 (or that none is, up to the last plotted position), and, where a
    plotted position overflows (float16), the first whole number ``dtype``
    cannot hold.

    Raises:
        ValueError: if ``longest`` is below 2, or (as ``rope_angle_errors``)
            ``dtype`` is not a torch dtype's name.
    """
    positions = _explorer_positions(longest)
    fig, (ax,) = _new_figure(1, (7.0, 3.4))
    errors = rope_angle_errors(ax, positions, d_model, dtypes=[dtype], base=base)
    ax.legend(fontsize=8, loc="center right")  # clear of both lines
    err = errors[dtype]
    bad = positions[err > 0.01]
    where = f"from about position {int(bad[0]):,}" if len(bad) else f"nowhere up to {int(positions[-1]):,}"
    line = f"{dtype} angles: cosines off by more than 0.01 {where}"
    if err.isinf().any():
        unheld = _first_unheld_position(getattr(torch, dtype))
        line += (
            f"\n{dtype} rounds positions from {unheld:,} on to inf (no line from the first plotted position past it)"
        )
    fig.suptitle(line, fontsize=9)
    return fig
