"""The figures of chapter 7, "ALiBi, T5's buckets, and no position encoding at all".

Figures: ``alibi_panel``, ``relative_bias_rows``; the explorers' drawings:
``draw_alibi_explorer`` and ``draw_t5_bucket_explorer``, pure functions of
the explorer's state: the explorers of ``book.widgets`` only wire controls
to them, and on the website the chapter's computed explorers
(``book.plots.computed``, views ``"alibi"`` and ``"t5"``) compute the same
figures in the page.
"""

from __future__ import annotations

import itertools
import math
from typing import Mapping, Sequence

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import torch

from .._validate import check_nonneg_int, check_positive_int
from ._common import _new_figure, heatmap
from .style import OKABE_ITO

__all__ = [
    "alibi_panel",
    "relative_bias_rows",
    "draw_alibi_explorer",
    "draw_t5_bucket_explorer",
]


def alibi_panel(
    ax: plt.Axes, n_heads: int, head: int, *, seq_len: int, causal: bool = True, colorbar: bool = True
) -> mpl.image.AxesImage:
    """Chapter 7's picture: head ``head``'s ALiBi bias ``-m_h |i - j|``
    (Press et al., 2022) for ``seq_len`` positions; with ``causal=True`` the
    masked keys ``j > i`` are left blank. Diverging colormap centred at zero,
    on a range shared by all heads (the steepest head's most negative bias)."""
    from ..encodings import alibi_bias, alibi_slopes

    n_heads = check_positive_int("n_heads", n_heads)
    head = check_nonneg_int("head", head)
    if not head < n_heads:
        raise ValueError(f"head must be an integer in 0 .. {n_heads - 1}, got {head!r}")
    bias = alibi_bias(n_heads, seq_len)[head].to(torch.float64)
    if causal:
        bias = bias.masked_fill(torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1), float("nan"))
    top = float(alibi_slopes(n_heads).max()) * (seq_len - 1)
    slope = float(alibi_slopes(n_heads)[head])
    return heatmap(
        ax,
        bias,
        vmax=top,
        xlabel="key j",
        ylabel="query i",
        title=f"head {head + 1}: m = 1/{1 / slope:.3g}",
        colorbar=colorbar,
        colorbar_label="bias added to the score",
        aspect="equal",
        extent=(-0.5, seq_len - 0.5, seq_len - 0.5, -0.5),
    )


def relative_bias_rows(ax: plt.Axes, rows: Mapping[str, tuple[Sequence[int] | torch.Tensor, torch.Tensor]]) -> None:
    """Chapter 7: relative biases as functions of the relative position ``j - i``.

    ``rows`` maps a label to ``(offsets, values)``: one head's bias at each
    offset ``j - i`` (key minus query), e.g. a row of
    ``book.encodings.alibi.alibi_bias_values`` or
    ``book.encodings.t5.t5_bias_values``. Each is drawn as a step curve on
    ``ax``, in the book's colourblind-safe colours.
    """
    for (label, (off, values)), color in zip(rows.items(), itertools.cycle(OKABE_ITO)):
        x = np.asarray(torch.as_tensor(off).detach().cpu(), dtype=float)
        y = np.asarray(torch.as_tensor(values).detach().cpu(), dtype=float)
        ax.step(x, y, where="mid", color=color, label=label)
    ax.axvline(0, color="0.8", lw=0.8)
    ax.set(
        xlabel="relative position j - i (key minus query)",
        ylabel="bias added to the logit",
        title="one family: a bias read off j - i",
    )
    ax.legend(fontsize=7)


def draw_alibi_explorer(*, n_heads: int = 8, head: int = 1, seq_len: int = 32) -> plt.Figure:
    """Chapter 7's explorer: head ``head`` (counted from 1) of ``n_heads``:
    its ALiBi bias (``alibi_panel``) and, with all content scores equal, the
    causal attention weights of the last query, proportional to
    ``exp(-m_h k)`` for a key ``k`` positions back. The title gives the slope
    and the distance over which the weight halves, ``ln 2 / m_h``.

    Raises:
        ValueError: if ``head`` is not in ``1 .. n_heads``.
    """
    from ..attention import causal_mask
    from ..encodings import alibi_bias, alibi_slopes

    n_heads = check_positive_int("n_heads", n_heads)
    head = check_positive_int("head", head)
    if not head <= n_heads:
        raise ValueError(f"head must be an integer in 1 .. {n_heads}, got {head!r}")
    h = head - 1
    fig, (left, right) = _new_figure(2, (8.0, 3.4))
    alibi_panel(left, n_heads, h, seq_len=seq_len)
    last = torch.softmax(alibi_bias(n_heads, seq_len)[h] + causal_mask(seq_len), dim=-1)[-1]
    right.plot(range(seq_len), last.numpy(), "o-", ms=3)
    right.set(xlabel="key j", ylabel="attention weight", title=f"last query, head {head}, neutral content")
    slope = float(alibi_slopes(n_heads)[h])
    fig.suptitle(
        f"{n_heads} heads, slope m = {slope:.4g}: the weight halves every ln 2 / m = "
        f"{math.log(2) / slope:.3g} positions",
        fontsize=10,
    )
    return fig


def _t5_landmarks(num_buckets: int, max_distance: int, bidirectional: bool) -> tuple[int, int]:
    """``(exact, last)`` of T5's bucketing: ``exact`` ends the exact range
    (distances below ``B // 2``, ``B`` the buckets of one direction, each have
    their own bucket; farther ones are bucketed by their logarithm, where
    some may still have a bucket each and some buckets are skipped at small
    ``max_distance``), and every distance from ``last`` on shares the last
    bucket of its direction (read off ``t5_relative_bucket`` looking back,
    offsets ``-max_distance .. 0``; distance ``max_distance`` is always in it).

    Raises:
        TypeError, ValueError: as ``book.encodings.t5_relative_bucket``.
    """
    from ..encodings import t5_relative_bucket

    back = t5_relative_bucket(
        -torch.arange(max_distance + 1), bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    exact = per_direction // 2 - 1
    last = int(torch.nonzero(back == per_direction - 1)[0])
    return exact, last


def draw_t5_bucket_explorer(
    *, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True, max_offset: int = 256
) -> plt.Figure:
    """Chapter 7's T5 explorer: the bucket of every relative position
    ``j - i`` (key minus query) in ``-max_offset .. max_offset``, from
    ``book.encodings.t5_relative_bucket`` (Raffel et al., 2020, section 2.1;
    transformers' ``T5Attention._relative_position_bucket``), as a step plot.
    Dashed lines mark where the exact buckets end (a bucket per distance up
    to ``B // 2 - 1``, ``B`` the buckets of one direction: ``num_buckets // 2``
    if ``bidirectional``, else ``num_buckets``); dotted lines where the last
    bucket of a direction starts, which the floor in T5's formula puts at
    or before ``max_distance``. The title gives both distances.

    Raises:
        TypeError, ValueError: for a ``max_offset`` that is not a positive
            integer, and as ``t5_relative_bucket`` (bad ``num_buckets``,
            ``max_distance``, ``bidirectional``).
    """
    from ..encodings import t5_relative_bucket

    max_offset = check_positive_int("max_offset", max_offset)
    exact, last = _t5_landmarks(num_buckets, max_distance, bidirectional)
    offsets = torch.arange(-max_offset, max_offset + 1)
    buckets = t5_relative_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    fig, (ax,) = _new_figure(1, (7.0, 3.2))
    ax.step(offsets.numpy(), buckets.numpy(), where="mid", color=OKABE_ITO[0], lw=1.5, label="bucket of j - i")
    sides = (-1, 1) if bidirectional else (-1,)
    for k, (distance, style, label) in enumerate(
        (
            (exact + 0.5, "--", f"exact up to distance {exact}"),
            (last - 0.5, ":", f"last bucket from distance {last}"),
        )
    ):
        shown = [s * distance for s in sides if distance <= max_offset]
        for n, x in enumerate(shown):
            ax.axvline(x, color=OKABE_ITO[k + 1], ls=style, lw=1.2, label=label if n == 0 else None)
    ax.axvline(0, color="0.8", lw=0.8)
    ax.set_xlim(-max_offset - 0.5, max_offset + 0.5)
    ax.set_ylim(-0.5, num_buckets - 0.5)
    kind = "encoder (bidirectional)" if bidirectional else "decoder (one direction)"
    ax.set(xlabel="relative position j - i (key minus query)", ylabel="bucket")
    ax.set_title(
        f"{num_buckets} buckets, max distance {max_distance:,}, {kind}:\n"
        f"exact up to distance {exact}, last bucket from distance {last:,}",
        fontsize=10,
    )
    ax.legend(fontsize=7, loc="upper left" if bidirectional else "upper right")
    return fig
