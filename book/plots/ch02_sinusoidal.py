"""The figures of chapter 2, "The sin/cos formula".

Figures: ``pe_overview``, ``wavelengths_by_base``, ``counter_and_sines``; the explorer's
drawing: ``draw_pe_explorer``, a pure function of the explorer's state: the explorer of
``book.widgets`` only wires controls to it, and the chapter's live twin
(``book.plots.live.live_twin``) shows it at a grid of states.
"""

from __future__ import annotations

import itertools
from typing import Mapping, Sequence

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import torch

from ..encodings import frequencies, sinusoidal_at
from ._common import _as_array, _new_figure, heatmap
from .style import OKABE_ITO

__all__ = [
    "pe_overview",
    "wavelengths_by_base",
    "counter_and_sines",
    "draw_pe_explorer",
]


def pe_overview(
    ax_heat: plt.Axes,
    ax_lines: plt.Axes,
    d_model: int,
    *,
    base: float = 10000.0,
    positions: Sequence[int] = range(100),
    dim: int = 0,
) -> None:
    """Chapter 2's picture: the PE table as a heatmap, and one sin/cos pair as curves.

    ``ax_heat`` shows ``PE[p, j]`` (``RdBu_r``, [-1, 1]) for the given
    positions; ``ax_lines`` plots dimension ``dim`` and its partner in the
    same (sin, cos) pair against position, titled with the pair's wavelength.
    """
    pos = torch.as_tensor(list(positions))
    if pos.numel() < 2:
        raise ValueError("positions must hold at least two positions")
    if not 0 <= dim < d_model:
        raise ValueError(f"dim must be in 0 .. {d_model - 1}, got {dim}")
    pe = sinusoidal_at(pos, d_model, base=base)
    heatmap(
        ax_heat,
        pe,
        vmax=1.0,
        xlabel="dimension j",
        ylabel="position p",
        title=f"PE, d = {d_model}, base = {base:g}",
        colorbar_label="PE value",
        extent=(-0.5, d_model - 0.5, float(pos[-1]) + 0.5, float(pos[0]) - 0.5),
    )
    ax_heat.axvline(dim, color="black", lw=0.8, ls=":")
    pair = dim // 2
    wavelength = 2 * np.pi / float(frequencies(d_model, base=base)[pair])
    ax_lines.plot(pos, pe[:, 2 * pair], label=f"dim {2 * pair} (sin)")
    ax_lines.plot(pos, pe[:, 2 * pair + 1], "--", label=f"dim {2 * pair + 1} (cos)")
    ax_lines.set(
        xlabel="position p",
        ylabel="PE value",
        ylim=(-1.1, 1.1),
        title=f"pair i = {pair}: wavelength {wavelength:.4g} positions",
    )
    ax_lines.legend(loc="lower right", fontsize=8)
    engine = ax_heat.figure.get_layout_engine()
    if isinstance(engine, mpl.layout_engine.ConstrainedLayoutEngine):
        engine.set(wspace=0.12)  # room between the colorbar's label and the curves' axis


def wavelengths_by_base(
    ax: plt.Axes,
    d_model: int,
    *,
    bases: Sequence[float],
    lengths: Mapping[str, int],
) -> dict[float, float]:
    """Chapter 2's "why 10000" picture: the wavelength ``2*pi * base^(2i/d)`` of
    every pair ``i`` (log scale), one line per base, against context lengths.

    ``lengths`` maps a label (e.g. ``"BERT, 512"``) to a length in positions,
    drawn as a grey horizontal line, the lengths in turn dotted, dash-dotted and
    dashed (the styles repeat after three): a pair above a line has not turned once
    over that many positions. Returns each base's longest wavelength.

    Raises:
        ValueError: if ``bases`` or ``lengths`` is empty (and as ``frequencies``
            for a bad ``d_model`` or base).
    """
    if not list(bases) or not dict(lengths):
        raise ValueError("bases and lengths must each hold at least one value")
    longest = {}
    for colour, b in zip(itertools.cycle(OKABE_ITO), bases):
        lam = (2 * np.pi / frequencies(d_model, base=b)).numpy()
        ax.semilogy(lam, "o-", ms=3, color=colour, label=f"base {b:,.0f}")
        longest[b] = float(lam[-1])
    for (name, n), ls in zip(lengths.items(), itertools.cycle([":", "-.", "--"])):
        ax.axhline(n, color="0.35", lw=1, ls=ls)
        ax.annotate(name, (0, n), xytext=(2, 2), textcoords="offset points", fontsize=7, color="0.25")
    ax.set(xlabel="pair i", ylabel="wavelength (positions)", title=f"wavelengths, d = {d_model}")
    ax.legend(fontsize=8, loc="lower right")
    return longest


def _short(x: float) -> str:
    """A wavelength in a narrow tick label: 6.28, 29, 135, 2.9k, 14k."""
    if x < 10:
        return f"{x:.3g}"
    if x < 1000:
        return f"{x:.0f}"
    return f"{x / 1000:.2g}k"


def counter_and_sines(
    ax_bits: plt.Axes,
    ax_sines: plt.Axes,
    bits: torch.Tensor,
    sines: torch.Tensor,
    *,
    bit_periods: Sequence[float],
    wavelengths: Sequence[float],
) -> None:
    """Chapter 2's binary-counter analogy, column for column.

    Left, ``bits`` (positions x bits, values 0 and 1) in two discrete
    colour-blind-safe colours (Okabe-Ito blue and orange) with a two-entry
    colorbar; right, ``sines`` (positions x pairs, the sine column
    ``sin(p w_i)`` of each pair) with the diverging map on [-1, 1]. Each
    column is labelled with its period (bits) or wavelength (pairs), so the
    reader sees the periods double from bit to bit and the wavelengths grow
    by a constant factor from pair to pair.

    Raises:
        ValueError: if the tables are not 2-D, hold different numbers of
            positions, the labels do not match the columns, or ``bits`` holds
            values other than 0 and 1.
    """
    b, s = _as_array(bits), _as_array(sines)
    if b.shape[0] != s.shape[0]:
        raise ValueError(f"bits and sines must have the same number of positions, got {b.shape[0]} and {s.shape[0]}")
    if len(bit_periods) != b.shape[1] or len(wavelengths) != s.shape[1]:
        raise ValueError("bit_periods and wavelengths need one label per column of bits and sines")
    if not np.isin(b, (0.0, 1.0)).all():
        raise ValueError("bits must hold only 0 and 1")
    cmap = mpl.colors.ListedColormap([OKABE_ITO[0], OKABE_ITO[1]])
    image = ax_bits.imshow(b, cmap=cmap, vmin=-0.5, vmax=1.5, aspect="auto", interpolation="nearest")
    bar = ax_bits.figure.colorbar(image, ax=ax_bits, ticks=[0, 1], shrink=0.9)
    bar.set_label("bit value")
    ax_bits.set(xlabel="bit b (period)", ylabel="position p", title="binary counter")
    ax_bits.set_xticks(range(b.shape[1]), [f"{j}\n({p:g})" for j, p in enumerate(bit_periods)], fontsize=7)
    heatmap(
        ax_sines,
        s,
        vmax=1.0,
        xlabel="pair i (wavelength)",
        ylabel="position p",
        title="sine columns sin(p w_i)",
        colorbar_label="PE value",
        xticklabels=[f"{j}\n({_short(lam)})" for j, lam in enumerate(wavelengths)],
    )
    ax_sines.tick_params(axis="x", labelsize=7)


def draw_pe_explorer(
    *, d_model: int = 64, base: float = 10000.0, positions: tuple[int, int] = (0, 200), dim: int = 0
) -> plt.Figure:
    """Chapter 2's explorer: ``pe_overview`` of the sinusoidal table for
    ``d_model``, ``base``, positions ``positions[0] .. positions[1] - 1`` (at
    least two) and the sin/cos pair of dimension ``dim``.

    Raises:
        ValueError: as ``pe_overview`` (``dim`` outside ``0 .. d_model - 1``).
    """
    lo, hi = (int(v) for v in positions)
    fig, (ax_heat, ax_lines) = _new_figure(2, (8.0, 3.2))
    pe_overview(ax_heat, ax_lines, d_model, base=base, positions=range(lo, max(hi, lo + 2)), dim=dim)
    return fig
