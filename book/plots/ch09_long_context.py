"""The figures of chapter 9, "Stretching RoPE to longer contexts".

Figures: ``scaling_ratios``, ``wavelength_panel``; the explorer's drawing:
``draw_scaling_explorer``, a pure function of the explorer's state: the explorer of
``book.widgets`` only wires controls to it, and the chapter's live twin
(``book.plots.live.live_twin``) shows it at a grid of states.
"""

from __future__ import annotations

import math
from typing import Sequence

import matplotlib.pyplot as plt
import torch

from ..encodings import frequencies
from ._common import _is_number, _new_figure
from .style import OKABE_ITO

__all__ = [
    "scaling_ratios",
    "wavelength_panel",
    "draw_scaling_explorer",
]


def scaling_ratios(
    ax: plt.Axes,
    d_model: int,
    *,
    scale: float,
    original_max_len: int,
    base: float = 10000.0,
    rules: Sequence[str] = ("PI", "NTK-aware", "YaRN"),
) -> dict[str, torch.Tensor]:
    """Chapter 9's picture: new / old frequency per pair for each of ``rules``
    (names in ``book.scaling.RULES``), all at one setting (``scale``,
    ``original_max_len``, ``base``), on a log axis. If ``"YaRN"`` is among
    them, the pairs it keeps exactly as trained are shaded and counted in the
    title. Returns the ratios by rule.

    Raises:
        ValueError: for a rule not in ``book.scaling.RULES`` (and as the rules do).
    """
    from .. import scaling

    unknown = [name for name in rules if name not in scaling.RULES]
    if unknown or not rules:
        raise ValueError(f"rules must be names in book.scaling.RULES {tuple(scaling.RULES)}, got {tuple(rules)}")
    old = frequencies(d_model, base=base)
    ratios = {
        name: scaling.RULES[name](d_model, scale=scale, original_max_len=original_max_len, base=base)[0] / old
        for name in rules
    }
    title = f"s = {scale:g}, L = {original_max_len:,}"
    if "YaRN" in ratios:
        kept = int((ratios["YaRN"] == 1).sum())  # YaRN leaves these pairs exactly as trained
        if kept:
            ax.axvspan(-0.5, kept - 0.5, color="0.92", lw=0)
        title += f", {kept} pair{'' if kept == 1 else 's'} kept by YaRN"
    for n, (name, ratio) in enumerate(ratios.items()):
        ax.semilogy(ratio.numpy(), ["-", "--", "-.", ":"][n % 4], lw=2, label=name)
    ax.set(xlabel="pair i (fast to slow)", ylabel="new / old frequency", title=title)
    return ratios


def wavelength_panel(
    ax: plt.Axes, d_model: int, *, original_max_len: int, scale: float | None = None, base: float = 10000.0
) -> int:
    """Chapter 9's central picture: each RoPE pair's wavelength ``2 pi / theta_i``
    (positions per full turn) against the pair index, on a log axis, with the
    training length ``L`` as a dashed line (and the stretched length ``s L``
    dotted, if ``scale`` is given). Pairs below the line make at least one
    full turn within ``L``; the pairs above it, from
    ``book.scaling.turned_pairs`` on, never do and are shaded. Returns that
    first unturned pair.

    Raises:
        ValueError: as ``book.scaling.turned_pairs``, or for ``scale < 1``.
    """
    from ..scaling import turned_pairs

    if scale is not None and (not _is_number(scale) or scale < 1):
        raise ValueError(f"scale must be a number >= 1, got {scale!r}")
    first = turned_pairs(d_model, original_max_len=original_max_len, base=base)
    waves = 2 * math.pi / frequencies(d_model, base=base)
    if first < d_model // 2:
        ax.axvspan(first - 0.5, d_model // 2 - 0.5, color="0.92", lw=0)
    ax.semilogy(waves.numpy(), "o", ms=2.5, color=OKABE_ITO[0], label=r"wavelength $2\pi/\theta_i$")
    ax.axhline(original_max_len, color="k", ls="--", lw=1, label=f"training length L = {original_max_len:,}")
    if scale is not None:
        ax.axhline(
            scale * original_max_len,
            color="0.4",
            ls=":",
            lw=1.2,
            label=f"stretched length sL = {scale * original_max_len:,.0f}",
        )
    unturned = d_model // 2 - first
    ax.set(
        xlabel="pair i (fast to slow)",
        ylabel="positions per turn",
        title=f"{first} pairs turn within L, {unturned} never do",
    )
    return first


def draw_scaling_explorer(
    *, scale: float = 4.0, original_max_len: int = 2048, d_model: int = 128, base: float = 10000.0
) -> plt.Figure:
    """Chapter 9's explorer: left, ``wavelength_panel`` (which pairs make a
    full turn within the training length ``L = original_max_len``); right,
    ``scaling_ratios`` of PI, NTK-aware and YaRN at ``scale``, with the
    first pair that never turns within ``L`` marked by a dashed line. The
    title counts, for each rule, the pairs that never turn within ``L``
    whose angle at position ``s L`` stays within the angles they reached in
    training (``s L theta'_i <= L theta_i``, i.e. ``s theta'_i / theta_i <= 1``).

    Raises:
        ValueError: as ``wavelength_panel`` and ``scaling_ratios`` (bad
            ``d_model``, ``scale`` < 1, ``original_max_len`` not positive).
    """
    fig, (left, right) = _new_figure(2, (8.6, 3.3))
    first = wavelength_panel(left, d_model, original_max_len=original_max_len, scale=scale, base=base)
    left.legend(fontsize=7, loc="upper left")
    ratios = scaling_ratios(right, d_model, scale=scale, original_max_len=original_max_len, base=base)
    right.axvline(first - 0.5, color="k", ls="--", lw=1)
    right.legend(fontsize=7, loc="lower left")
    kept = {name: int((scale * ratio[first:] <= 1 + 1e-12).sum()) for name, ratio in ratios.items()}
    fig.suptitle(
        f"d = {d_model}, L = {original_max_len:,}, s = {scale:g}: of the {d_model // 2 - first} pairs that "
        "never turn within L, at position sL\n"
        + ", ".join(f"{name} keeps {n}" for name, n in kept.items())
        + " inside the angles trained",
        fontsize=9,
    )
    return fig
