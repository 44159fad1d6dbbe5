"""One look for every figure in the book.

* Signed values (PE entries, scores, differences): diverging ``RdBu_r``,
  centred at zero with a symmetric range.
* Non-negative values (attention weights, distances): ``viridis``.
* Lines: the Okabe-Ito palette, which stays distinguishable with the common
  forms of colour blindness.
* Every axis gets a label with its unit; every panel a title.
"""

from __future__ import annotations

from typing import Sequence

import importlib.util
import re
from pathlib import Path

import matplotlib as mpl
import matplotlib.pyplot as plt
from matplotlib import font_manager
import numpy as np
import torch

from ._validate import check_pair_index, check_positive_int
from .encodings import frequencies, sinusoidal_at

__all__ = [
    "OKABE_ITO",
    "SIGNED_CMAP",
    "POSITIVE_CMAP",
    "use_style",
    "heatmap",
    "order_panels",
    "pe_overview",
    "rotation_circles",
    "rotation_animation",
    "animation_html",
    "similarity_panel",
]

#: Okabe & Ito (2008) colour-blind-safe palette, black omitted.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
SIGNED_CMAP = "RdBu_r"
POSITIVE_CMAP = "viridis"


def _hangul_font() -> str | None:
    """Register NanumGothic (shipped by the koreanize-matplotlib package) and
    return its family name, or None if that package is not installed.

    The font file is added directly; the package itself is not imported,
    because importing it replaces the whole font family.
    """
    spec = importlib.util.find_spec("koreanize_matplotlib")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "fonts" / "NanumGothic.ttf"
    if not path.is_file():
        return None
    font_manager.fontManager.addfont(str(path))
    return font_manager.FontProperties(fname=str(path)).get_name()


def use_style() -> None:
    """Set matplotlib's defaults for the book: sizes that read in the text column
    at 100 dpi, the Okabe-Ito colour cycle, no top/right spines, and a Hangul
    fallback font (the book's first example is Korean) after DejaVu Sans."""
    hangul = _hangul_font()
    mpl.rcParams["font.family"] = ["DejaVu Sans"] + ([hangul] if hangul else [])
    mpl.rcParams.update(
        {
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "figure.figsize": (7.0, 3.2),
            "figure.constrained_layout.use": True,
            "font.size": 10,
            "axes.titlesize": 10,
            "axes.labelsize": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.prop_cycle": mpl.cycler(color=list(OKABE_ITO)),
            "image.cmap": POSITIVE_CMAP,
            # Keep PNG bytes stable across runs (no timestamps in metadata).
            "savefig.bbox": "standard",
        }
    )


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
    aspect: str = "auto",
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
    image = ax.imshow(data, cmap=cmap, vmin=lo, vmax=top, aspect=aspect, interpolation="nearest",
                      extent=extent)
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
                ax, values, vmax=top, colorbar=False, title=f"{label}: {name}",
                yticklabels=tokens if c == 0 else None,
                xlabel=xlabel if r == len(rows) - 1 else "",
            )
            if c:
                ax.set_yticks([])
            ax.set_xticks([])
    fig.colorbar(image, ax=axes, label="output value", shrink=0.8)
    return fig


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
    heatmap(ax_heat, pe, vmax=1.0, xlabel="dimension j", ylabel="position p",
            title=f"PE, d = {d_model}, base = {base:g}", colorbar_label="PE value",
            extent=(-0.5, d_model - 0.5, float(pos[-1]) + 0.5, float(pos[0]) - 0.5))
    ax_heat.axvline(dim, color="black", lw=0.8, ls=":")
    pair = dim // 2
    wavelength = 2 * np.pi / float(frequencies(d_model, base=base)[pair])
    ax_lines.plot(pos, pe[:, 2 * pair], label=f"dim {2 * pair} (sin)")
    ax_lines.plot(pos, pe[:, 2 * pair + 1], "--", label=f"dim {2 * pair + 1} (cos)")
    ax_lines.set(xlabel="position p", ylabel="PE value", ylim=(-1.1, 1.1),
                 title=f"pair i = {pair}: wavelength {wavelength:.4g} positions")
    ax_lines.legend(loc="lower right", fontsize=8)
    engine = ax_heat.figure.get_layout_engine()
    if isinstance(engine, mpl.layout_engine.ConstrainedLayoutEngine):
        engine.set(wspace=0.12)  # room between the colorbar's label and the curves' axis


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
    for every ``pos``.
    """
    if len(axes) != len(pairs):
        raise ValueError(f"axes and pairs must have the same length, got {len(axes)} and {len(pairs)}")
    pairs = [check_pair_index("pairs[]", i, d_model) for i in pairs]
    w = frequencies(d_model, base=base)
    circle = np.linspace(0, 2 * np.pi, 200)
    for ax, i in zip(axes, pairs):
        a0, a1 = pos * float(w[i]), (pos + k) * float(w[i])
        arc = np.linspace(a0, a1, 60)
        ax.plot(np.sin(circle), np.cos(circle), color="0.8", lw=1)
        ax.plot(np.sin(arc), np.cos(arc), color=OKABE_ITO[1], lw=2, alpha=0.6)
        ax.plot([np.sin(a0)], [np.cos(a0)], "o", color=OKABE_ITO[0], label="PE(p)")
        ax.plot([np.sin(a1)], [np.cos(a1)], "s", color=OKABE_ITO[1], label="PE(p + k)")
        ax.set(xlim=(-1.25, 1.25), ylim=(-1.25, 1.25), aspect="equal",
               xlabel=f"sin (dim {2 * i})", ylabel=f"cos (dim {2 * i + 1})",
               title=f"pair {i}: turns {k * float(w[i]):.3g} rad")
        ax.set_xticks([-1, 0, 1])
        ax.set_yticks([-1, 0, 1])


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
    fig, axes = plt.subplots(1, len(pairs), figsize=(1.75 * len(pairs), 2.2), squeeze=False)
    axes = list(axes[0])

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
    return heatmap(ax, sim, xlabel="position q", ylabel="position p",
                   title=f"d = {d_model}, base = {base:g}", colorbar=colorbar,
                   colorbar_label=label, aspect="equal",
                   extent=(-0.5, seq_len - 0.5, seq_len - 0.5, -0.5))
