"""The figures of chapter 3, "Why sin/cos: shifts are rotations".

Figures: ``rotation_circles``, ``rotation_spirals``, ``rotation_animation``, ``animation_html``,
``decay_with_closed_form``; the explorer's drawing: ``draw_rotation_explorer``, a pure function
of the explorer's state: the explorer of ``book.widgets`` only wires controls to it, and the
chapter's live twin (``book.plots.live.live_twin``) shows it at a grid of states.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import torch

from .._validate import check_pair_index, check_positive_int
from ..encodings import frequencies
from ._common import _new_figure
from .style import OKABE_ITO

__all__ = [
    "rotation_circles",
    "rotation_spirals",
    "rotation_animation",
    "animation_html",
    "decay_with_closed_form",
    "draw_rotation_explorer",
]


def rotation_circles(
    axes: Sequence[plt.Axes],
    d_model: int,
    *,
    pos: int,
    k: float,
    pairs: Sequence[int],
    base: float = 10000.0,
) -> None:
    """Chapter 3's picture: each (sin, cos) pair of PE(p) as a point on the unit circle.

    For each pair ``i`` (one axes each) it draws the circle, the point of
    ``PE(pos)`` (blue dot), the point of ``PE(pos + k)`` (orange square) and the
    arc between them: the rotation by ``k * w_i`` that ``M_k`` applies, the same
    for every ``pos``. If an arc is longer than one turn, a circle would draw
    it over itself, so the pairs are drawn by ``rotation_spirals`` instead.
    """
    w = frequencies(d_model, base=base)
    spiral = any(abs(k * float(w[i])) > 2 * np.pi for i in _pair_list(axes, pairs, d_model))
    _draw_pair_paths(axes, d_model, pos=pos, k=k, pairs=pairs, base=base, spiral=spiral)


def _pair_list(axes: Sequence[plt.Axes], pairs: Sequence[int], d_model: int) -> list[int]:
    if len(axes) != len(pairs):
        raise ValueError(f"axes and pairs must have the same length, got {len(axes)} and {len(pairs)}")
    return [check_pair_index("pairs[]", i, d_model) for i in pairs]


def _draw_pair_paths(
    axes: Sequence[plt.Axes], d_model: int, *, pos: int, k: float, pairs: Sequence[int], base: float, spiral: bool
) -> list[float]:
    """Chapter 3's circles: ``PE(pos)`` (dot), ``PE(pos + k)`` (square) and the
    path between them on each pair's unit circle, drawn as an arc or, with
    ``spiral``, as a spiral whose radius shrinks by 0.12 per turn. Returns
    the turns of each pair."""
    pairs = _pair_list(axes, pairs, d_model)
    w = frequencies(d_model, base=base)
    circle = np.linspace(0, 2 * np.pi, 200)
    turns = []
    for ax, i in zip(axes, pairs):
        a0, a1 = pos * float(w[i]), (pos + k) * float(w[i])
        n_turns = abs(a1 - a0) / (2 * np.pi)
        turns.append(n_turns)
        if spiral:
            arc = np.linspace(a0, a1, max(60, int(40 * abs(a1 - a0))))
            radius = 1 - 0.12 * np.abs(arc - a0) / (2 * np.pi)
            style: dict[str, Any] = {"lw": 1.5, "alpha": 0.7}
            title = f"pair {i}: {abs(a1 - a0):.3g} rad\n= {n_turns:.2g} turns"
        else:
            arc, radius = np.linspace(a0, a1, 60), np.ones(60)
            style = {"lw": 2.0, "alpha": 0.6}
            title = f"pair {i}: turns {k * float(w[i]):.3g} rad"
        ax.plot(np.sin(circle), np.cos(circle), color="0.8", lw=1)
        ax.plot(radius * np.sin(arc), radius * np.cos(arc), color=OKABE_ITO[1], **style)
        ax.plot([np.sin(a0)], [np.cos(a0)], "o", color=OKABE_ITO[0], label="PE(p)")
        ax.plot([radius[-1] * np.sin(a1)], [radius[-1] * np.cos(a1)], "s", color=OKABE_ITO[1], label="PE(p + k)")
        ax.set(
            xlim=(-1.25, 1.25),
            ylim=(-1.25, 1.25),
            aspect="equal",
            xlabel=f"sin (dim {2 * i})",
            ylabel=f"cos (dim {2 * i + 1})",
            title=title,
        )
        ax.set_xticks([-1, 0, 1])
        ax.set_yticks([-1, 0, 1])
    return turns


def rotation_spirals(
    axes: Sequence[plt.Axes],
    d_model: int,
    *,
    pos: int,
    k: float,
    pairs: Sequence[int],
    base: float = 10000.0,
) -> list[float]:
    """Chapter 3's circles, with every turn of the arc visible.

    As ``rotation_circles``: for each pair ``i`` the unit circle, ``PE(pos)``
    (blue dot), ``PE(pos + k)`` (orange square) and the path between them,
    a rotation by ``k * w_i``. Here the path is drawn as a spiral whose
    radius shrinks by 0.12 per full turn, so that an arc of 1.9 turns shows
    as almost two loops instead of one circle drawn over itself; the square
    is placed at the spiral's end, and the title gives the angle in radians
    and in turns. Returns the number of turns of each pair.

    Raises:
        ValueError: if ``axes`` and ``pairs`` differ in length or a pair index
            is out of range.
    """
    return _draw_pair_paths(axes, d_model, pos=pos, k=k, pairs=pairs, base=base, spiral=True)


def rotation_animation(
    d_model: int,
    *,
    offsets: Sequence[float],
    pairs: Sequence[int],
    pos: int = 0,
    base: float = 10000.0,
    interval_ms: int = 400,
) -> mpl.animation.FuncAnimation:
    """The static twin of chapter 3's explorer: ``rotation_circles`` animated over ``offsets``.

    Returns a ``FuncAnimation``; in a notebook, show it with
    ``IPython.display.HTML(anim.to_jshtml())``, which embeds every frame and a
    player that runs in the browser without a kernel.
    """
    from matplotlib import animation

    offsets = list(offsets)
    if not offsets:
        raise ValueError("offsets must hold at least one offset")
    fig, grid = plt.subplots(1, len(pairs), figsize=(1.75 * len(pairs), 2.2), squeeze=False)
    axes = list(grid[0])

    def frame(j: int) -> list:
        for ax in axes:
            ax.clear()
        rotation_circles(axes, d_model, pos=pos, k=offsets[j], pairs=pairs, base=base)
        fig.suptitle(f"PE(p) to PE(p + k), k = {offsets[j]:g}", fontsize=10)
        return []

    anim = animation.FuncAnimation(fig, frame, frames=len(offsets), interval=interval_ms)
    plt.close(fig)
    return anim


def animation_html(anim: mpl.animation.Animation, *, alt: str, default_mode: str = "loop") -> str:
    """The animation as a self-contained JavaScript player (``Animation.to_jshtml``),
    with alt text on its frame image and without matplotlib's link to a Font
    Awesome stylesheet on a CDN.

    The book's theme already ships Font Awesome, so the player's buttons keep
    their icons, and the page makes no request outside the site: it reads offline.

    Raises:
        ValueError: if ``alt`` is not a descriptive sentence (20 characters or more).
    """
    if not isinstance(alt, str) or len(alt.strip()) < 20:
        raise ValueError("alt must describe the animation in a sentence (20 characters or more)")
    html = anim.to_jshtml(default_mode=default_mode)
    html = re.sub(r'<link rel="stylesheet"[^>]*font-awesome[^>]*>\s*', "", html)
    safe = alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return re.sub(r'(<img id="_anim_img\w*")', rf'\1 alt="{safe}"', html, count=1)


def decay_with_closed_form(
    ax: plt.Axes,
    d_model: int,
    *,
    k_max: int = 1000,
    base: float = 10000.0,
) -> dict[str, torch.Tensor]:
    """Chapter 3's decay figure: ``sum_i cos(k w_i)`` for ``k = 1 .. k_max``
    (log-scaled ``k``) with its two closed forms overlaid,
    ``(d/2)(Ci(k) - Ci(k/b)) / ln b`` and ``(d/2)(1 - (ln k + gamma) / ln b)``
    (``book.encodings.sinusoidal.dot_by_offset``).

    Returns the offsets and the three curves, a dict with keys ``"k"``,
    ``"exact"``, ``"ci"`` and ``"log"``.

    Raises:
        ValueError: if ``k_max`` is not an integer >= 2 (and as
            ``dot_by_offset`` for a bad ``d_model`` or base).
    """
    from ..encodings.sinusoidal_geometry import dot_by_offset

    k_max = check_positive_int("k_max", k_max)
    if k_max < 2:
        raise ValueError(f"k_max must be at least 2, got {k_max}")
    k = torch.arange(1, k_max + 1, dtype=torch.float64)
    curves = {"k": k, **{f: dot_by_offset(k, d_model, base=base, form=f) for f in ("exact", "ci", "log")}}
    ax.semilogx(k, curves["exact"], color=OKABE_ITO[0], lw=1, label="exact: sum_i cos(k w_i)")
    ax.semilogx(k, curves["ci"], color=OKABE_ITO[3], lw=2, label="(d/2)(Ci(k) - Ci(k/b)) / ln b")
    ax.semilogx(k, curves["log"], "--", color="0.2", lw=1.2, label="(d/2)(1 - (ln k + gamma) / ln b)")
    ax.set(xlabel="offset k (log scale)", ylabel="PE(p) . PE(p + k)", title=f"decay and its closed form, d = {d_model}")
    ax.legend(fontsize=8)
    return curves


def draw_rotation_explorer(
    *, pos: int = 0, k: float = 1, d_model: int = 16, pairs: Sequence[int] = (0, 1, 2, 3), base: float = 10000.0
) -> plt.Figure:
    """Chapter 3's explorer: ``rotation_circles`` for position ``pos`` and
    offset ``k``, one panel per pair in ``pairs``."""
    fig, axes = _new_figure(len(pairs), (2.2 * len(pairs), 2.8))
    rotation_circles(axes, d_model, pos=pos, k=k, pairs=pairs, base=base)
    fig.suptitle(f"PE(p) to PE(p + k): p = {pos:g}, k = {k:g}", fontsize=10)
    return fig
