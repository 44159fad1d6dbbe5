"""The figures of chapter 10, "Positions in today's models".

Figures: ``two_bases_panel`` (what each kind of layer's base lets it see),
``prope_vs_partial`` (p-RoPE's and partial rotary's frequencies),
``prope_scores`` (their score patterns) and
``mrope_axes_panel`` (which M-RoPE frequency sees which axis); the explorer's
drawing: ``draw_two_bases_explorer``, a pure function of its state.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.colors import to_rgb

from .._validate import check_even, check_positive_int
from ..encodings import frequencies, mixed_rope_angles, mrope_angles, proportional_frequencies
from .style import OKABE_ITO

__all__ = [
    "two_bases_panel",
    "prope_vs_partial",
    "prope_scores",
    "mrope_axes_panel",
    "draw_two_bases_explorer",
    "rope_2d_panel",
    "layer_pattern_counts",
    "draw_layer_pattern_explorer",
]


def two_bases_panel(ax: plt.Axes, d_model: int, *, layers: Mapping[str, tuple[float, int]]) -> dict[str, int]:
    """Chapter 10's picture of a model with two RoPE bases: for each kind of
    layer, ``label -> (base, length)``, the wavelength ``2 pi / theta_i`` of
    every pair (positions per full turn) on a log axis, and the length ``L``
    of the offsets that kind of layer sees (a sliding window: offsets below
    ``L``; or the context) as a line of the same colour. A pair below its
    layer's line turns at least once within ``L`` positions
    (``book.scaling.turned_pairs``, the convention of chapter 9). Returns that
    count for each label.

    Raises:
        ValueError: if ``layers`` is empty or holds more kinds than the palette
            has colours; as ``book.scaling.turned_pairs`` for a bad width, base
            or length.
    """
    from ..scaling import turned_pairs

    if not layers or len(layers) > len(OKABE_ITO):
        raise ValueError(f"layers must name 1 to {len(OKABE_ITO)} kinds of layer, got {len(layers)}")
    counts = {}
    for n, (label, (base, length)) in enumerate(layers.items()):
        counts[label] = turned_pairs(d_model, original_max_len=length, base=base)
        waves = 2 * math.pi / frequencies(d_model, base=base)
        colour = OKABE_ITO[n]
        ax.semilogy(waves.numpy(), ["o", "s", "^", "v"][n % 4], ms=2.5, color=colour, label=f"{label}: wavelength")
        ax.axhline(length, color=colour, ls="--", lw=1.2, label=f"{label}: L = {length:,}")
    ax.set(
        xlabel="pair i (fast to slow)",
        ylabel="positions per turn",
        title=", ".join(f"{label}: {c} pairs turn" for label, c in counts.items()),
    )
    return counts


def _spectra(d_model: int, fraction: float, base: float) -> dict[str, torch.Tensor]:
    """RoPE's, p-RoPE's and partial rotary's frequencies (``prope_vs_partial``)."""
    d_model = check_even("d_model", d_model)
    prope = proportional_frequencies(d_model, fraction=fraction, base=base)
    kept = int((prope > 0).sum())
    if kept == 0:
        raise ValueError(f"fraction must leave at least one pair turning, got fraction = {fraction} for d = {d_model}")
    partial = torch.zeros(d_model // 2, dtype=torch.float64)
    partial[:kept] = frequencies(2 * kept, base=base)
    return {"RoPE": frequencies(d_model, base=base), "p-RoPE": prope, "partial rotary (NeoX)": partial}


def prope_vs_partial(ax: plt.Axes, d_model: int, *, fraction: float, base: float = 10000.0) -> dict[str, torch.Tensor]:
    """Chapter 10's comparison of two ways to rotate only part of a head of
    width ``d``: RoPE's own frequencies ``base^(-2i/d)``; p-RoPE
    (``book.encodings.proportional_frequencies``), which keeps the fastest
    ``k = int(fraction * d // 2)`` of them and sets the rest to 0; and GPT-NeoX's
    partial rotary (``book.encodings.apply_partial_rope`` with
    ``rotary_dim = 2k``), whose ``k`` pairs take ``base^(-2i/(2k))``, the whole
    range squeezed into the rotated width. Frequencies per pair on a log axis;
    the pairs that do not turn in either (frequency 0) are shaded. Returns the
    three frequency lists, float64 ``(d/2,)``, zeros where a pair does not turn.

    Raises:
        ValueError: as ``proportional_frequencies``, or if no pair turns
            (``k = 0``).
    """
    lists = _spectra(d_model, fraction, base)
    kept = int((lists["p-RoPE"] > 0).sum())
    if kept < d_model // 2:
        ax.axvspan(kept - 0.5, d_model // 2 - 0.5, color="0.92", lw=0, label="frequency 0: no rotation")
    styles = [("-", "none"), ("none", "o"), ("none", "x")]
    for n, (name, w) in enumerate(lists.items()):
        shown = w.numpy().copy()
        shown[shown == 0] = np.nan  # a zero has no place on a log axis: shaded instead
        ls, marker = styles[n]
        ax.semilogy(shown, ls=ls, marker=marker, ms=4, color=OKABE_ITO[n], label=name)
    ax.set(
        xlabel="pair i (fast to slow)",
        ylabel="frequency (radians per position)",
        title=f"d = {d_model}, fraction {fraction:g}: {kept} of {d_model // 2} pairs turn",
    )
    return lists


def prope_scores(
    ax: plt.Axes, d_model: int, *, fraction: float, offsets: Sequence[int], base: float = 10000.0
) -> dict[str, torch.Tensor]:
    """Chapter 10's score patterns of ``prope_vs_partial``'s three spectra: the
    score of the query and key ``q = k = (1, .., 1)`` at each offset ``m - n``,
    ``2 sum_i cos((m - n) w_i)`` (``book.encodings.rope_expected_score`` with
    ``correlation = 1`` for RoPE: the mean score of a query and key with
    equal entries), for RoPE, p-RoPE and GPT-NeoX's partial rotary. A pair
    that does not turn (``w_i = 0``) adds 2 at every offset. Plotted against
    the offset; returns the three score curves, float64, one value per offset.

    Raises:
        ValueError: as ``prope_vs_partial``, or for no offsets.
    """
    if len(offsets) == 0:
        raise ValueError("offsets must hold at least one offset")
    lists = _spectra(d_model, fraction, base)
    k = torch.as_tensor(offsets, dtype=torch.float64)
    scores = {name: 2 * torch.cos(k[:, None] * w).sum(-1) for name, w in lists.items()}
    for n, (name, score) in enumerate(scores.items()):
        ax.plot(k.numpy(), score.numpy(), ["-", "--", "-."][n], lw=1.5, color=OKABE_ITO[n], label=name)
    ax.axhline(0, color="0.6", lw=0.8)
    ax.set(
        xlabel="offset m - n (positions)",
        ylabel="score of q = k = (1, .., 1)",
        title=f"d = {d_model}, fraction {fraction:g}, base {base:,.0f}",
    )
    return scores


def mrope_axes_panel(
    ax: plt.Axes,
    d_model: int = 128,
    *,
    contiguous: Sequence[int] = (16, 24, 24),
    interleaved: Sequence[int] = (24, 20, 20),
) -> dict[str, torch.Tensor]:
    """Chapter 10's picture of M-RoPE: which axis, time, height or width,
    turns each of the ``d/2`` frequencies (``book.encodings.mrope_angles``),
    one row per layout, one colour per axis: Qwen2-VL's contiguous sections
    (``contiguous``; transformers' default ``mrope_section`` is
    ``[16, 24, 24]``) and Qwen3-VL's interleaved ones (``interleaved``;
    ``[24, 20, 20]``), both for ``d = 128``. The axis of frequency ``i`` is
    read from the angle table itself: a token with id 1 on one axis and 0 on
    the others turns exactly the frequencies of that axis. Returns the axis
    (0 time, 1 height, 2 width) of each frequency, by layout.

    Raises:
        ValueError / TypeError: as ``mrope_angles`` (bad width, or sections
            that do not add up to ``d/2`` or do not fit the interleaved slots).
    """
    check_positive_int("d_model", d_model)
    probes = torch.eye(3, dtype=torch.float64)  # token j: id 1 on axis j, 0 on the others
    rows = {
        f"contiguous {tuple(contiguous)}": (contiguous, False),
        f"interleaved {tuple(interleaved)}": (interleaved, True),
    }
    axes = {}
    for name, (sections, inter) in rows.items():
        angles = mrope_angles(probes, d_model, sections, interleaved=inter)  # (3 tokens, d/2)
        axes[name] = angles.argmax(dim=0)
    colours = OKABE_ITO[:3]
    rgb = np.array([[to_rgb(colours[int(a)]) for a in row] for row in axes.values()])
    ax.imshow(rgb, aspect="auto", interpolation="nearest")
    ax.set_yticks(range(len(axes)), list(axes))
    ax.set(xlabel="frequency i (fast to slow)", title=f"M-RoPE, d = {d_model}: the axis that turns each frequency")
    for n, label in enumerate(("time", "height", "width")):
        ax.plot([], [], "s", color=colours[n], label=label)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    return axes


def draw_two_bases_explorer(
    *,
    d_model: int = 256,
    window: int = 4096,
    context: int = 131072,
    local_base: float = 10000.0,
    global_base: float = 1000000.0,
) -> plt.Figure:
    """Chapter 10's explorer: ``two_bases_panel`` for a model whose local
    layers see offsets below ``window`` at ``local_base`` and whose global
    layers see the whole ``context`` at ``global_base`` (Gemma 3's defaults in
    transformers: head width 256, window 4096, context 131072, bases 10,000
    and 1,000,000). The title counts the pairs that turn within each.

    Raises:
        ValueError: as ``two_bases_panel`` (bad width, base or length).
    """
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    counts = two_bases_panel(ax, d_model, layers={"local": (local_base, window), "global": (global_base, context)})
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(
        f"d = {d_model}: local (base {local_base:,.0f}, window {window:,}) {counts['local']} pairs turn; "
        f"global (base {global_base:,.0f}, context {context:,}) {counts['global']}",
        fontsize=8,
    )
    return fig


def rope_2d_panel(axes: Sequence[plt.Axes], panels: Mapping[str, tuple[torch.Tensor, int]], *, radius: int = 6) -> dict:
    """Chapter 10's picture of 2-D RoPE: for each panel ``label -> (frequencies,
    pair)``, the cosine of the angle by which pair ``pair`` turns between a
    query and a key at offset ``(dr, dc)``, ``cos(dr f_row + dc f_col)``, on a
    grid of offsets ``-radius .. radius`` in both directions (diverging
    colormap, white at 0). An axial pair gives stripes along one axis; a
    mixed pair, stripes across a diagonal. ``frequencies`` has shape
    ``(2, d/2)`` (``book.encodings.axial_rope_frequencies`` or one head of
    ``mixed_rope_frequencies``). Returns each panel's grid, rows ``dr``,
    columns ``dc``.

    Raises:
        ValueError: if ``axes`` and ``panels`` differ in length, or ``pair`` is
            out of range; as ``book.encodings.mixed_rope_angles`` for bad
            frequencies.
    """
    radius = check_positive_int("radius", radius)
    if len(axes) != len(panels):
        raise ValueError(f"axes must have one axis per panel ({len(panels)}), got {len(axes)}")
    side = 2 * radius + 1
    grids = {}
    for ax, (label, (freqs, pair)) in zip(axes, panels.items()):
        angles = mixed_rope_angles(side, side, freqs)  # rows 0..2r, columns 0..2r
        if not 0 <= pair < angles.shape[-1]:
            raise ValueError(f"pair must lie in 0 .. {angles.shape[-1] - 1}, got {pair} for {label!r}")
        # offsets relative to the centre patch: shift the angles by the centre's
        grid = torch.cos(angles[:, pair] - angles[radius * side + radius, pair]).reshape(side, side)
        grids[label] = grid
        ax.imshow(
            grid.numpy(),
            cmap="RdBu_r",
            vmin=-1,
            vmax=1,
            origin="lower",
            extent=(-radius - 0.5, radius + 0.5, -radius - 0.5, radius + 0.5),
        )
        ax.set(title=label, xlabel="column offset dc")
        ax.title.set_fontsize(8)
    axes[0].set_ylabel("row offset dr")
    return grids


_LAYER_COLOURS = {
    (True, False): OKABE_ITO[0],  # RoPE, whole context
    (True, True): OKABE_ITO[5],  # RoPE, window or chunk
    (False, False): OKABE_ITO[3],  # no position, whole context
    (False, True): OKABE_ITO[1],  # no position, window or chunk
}


def _kind_label(layer) -> str:
    pos = "RoPE" if layer.rope else "NoPE"
    return f"{pos} {layer.kind.replace('_attention', '')}"


def layer_pattern_counts(layers: Sequence) -> dict[str, tuple[int, int, int]]:
    """For each kind of layer in ``layers`` (``book.models.layer_positions``
    of a config), ``label -> (layers of that kind, pairs that turn, span)``:
    how many of its RoPE pairs turn at least once within the offsets it sees
    (wavelength ``2 pi / w_i <= span``, chapter 9's convention; p-RoPE's
    frequency-0 pairs never do), 0 for a layer without RoPE. Labels are
    ``"RoPE sliding"``, ``"NoPE full"``, ... in order of first appearance.

    Raises:
        ValueError: if ``layers`` is empty.
    """
    if len(layers) == 0:
        raise ValueError("layers must hold at least one layer")
    out: dict[str, tuple[int, int, int]] = {}
    for layer in layers:
        label = _kind_label(layer)
        if label in out:
            n, turned, span = out[label]
            out[label] = (n + 1, turned, span)
            continue
        turned = 0
        if layer.rope:
            w = proportional_frequencies(layer.head_dim, fraction=layer.fraction, base=layer.base)
            turned = int(((w > 0) & (2 * math.pi / w.clamp_min(1e-300) <= layer.span)).sum())
        out[label] = (1, turned, layer.span)
    return out


def draw_layer_pattern_explorer(*, model: str, plans: Mapping[str, Sequence]) -> plt.Figure:
    """Chapter 10's model explorer: for ``plans[model]`` (the
    ``book.models.layer_positions`` of a model's config), a strip of its
    layers coloured by kind (RoPE or no position; whole context, or a sliding
    window or chunk), and below it the wavelength of every RoPE pair of each
    kind of RoPE layer against the longest offset that kind sees (its window,
    chunk or training length, dashed); the legend counts the pairs that turn
    within it (``layer_pattern_counts``), in the colour of its layers in the
    strip. Scaling rules are named, not
    applied: the wavelengths are the unscaled base's, and a scaled model's
    length is its original one.

    Raises:
        ValueError: if ``model`` is not a key of ``plans``.
    """
    if model not in plans:
        raise ValueError(f"model must be one of {sorted(plans)}, got {model!r}")
    layers = list(plans[model])
    counts = layer_pattern_counts(layers)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.5, 4.4), height_ratios=(1, 3.2))
    longest = max(layer.span for layer in layers)
    rgb = np.array([[to_rgb(_LAYER_COLOURS[(lay.rope, lay.span < longest)]) for lay in layers]])
    top.imshow(rgb, aspect="auto", interpolation="nearest", extent=(-0.5, len(layers) - 0.5, 0, 1))
    top.set_yticks([])
    top.set_xlabel("layer", fontsize=8)
    top.tick_params(labelsize=7)
    for lay in {_kind_label(lay): lay for lay in layers}.values():
        top.plot(
            [],
            [],
            "s",
            color=_LAYER_COLOURS[(lay.rope, lay.span < longest)],
            label=f"{_kind_label(lay)} ({counts[_kind_label(lay)][0]})",
        )
    top.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, frameon=False)
    rules = sorted({lay.rope_type for lay in layers if lay.rope_type not in ("default", "proportional")})
    top.set_title(
        f"{model}: {len(layers)} layers" + (f"; scaling rule {', '.join(rules)} not drawn" if rules else ""), fontsize=9
    )
    seen = {}
    for lay in layers:
        if lay.rope and _kind_label(lay) not in seen:
            seen[_kind_label(lay)] = lay
    for n, (label, lay) in enumerate(seen.items()):
        w = proportional_frequencies(lay.head_dim, fraction=lay.fraction, base=lay.base)
        idx = torch.nonzero(w > 0).flatten()
        colour = _LAYER_COLOURS[(lay.rope, lay.span < longest)]  # the strip's colour
        bottom.semilogy(
            idx.numpy(),
            (2 * math.pi / w[idx]).numpy(),
            ["o", "s", "^", "v"][n % 4],
            ms=2.5,
            color=colour,
            label=f"{label}: {counts[label][1]} of {lay.head_dim // 2} pairs turn (base {lay.base:,.0f})",
        )
        bottom.axhline(lay.span, color=colour, ls="--", lw=1.2)
    if not seen:
        bottom.text(0.5, 0.5, "no layer uses RoPE", ha="center", va="center", transform=bottom.transAxes)
    bottom.set(xlabel="pair i (fast to slow)", ylabel="positions per turn")
    if seen:
        bottom.legend(fontsize=7, loc="upper left")
    return fig
