"""One look for every figure in the book.

* Signed values (PE entries, scores, differences): diverging ``RdBu_r``,
  centred at zero with a symmetric range.
* Non-negative values (attention weights, distances): ``viridis``.
* Lines: the Okabe-Ito palette, which stays distinguishable with the common
  forms of colour blindness.
* Every axis gets a label with its unit; every panel a title.
"""

from __future__ import annotations

import base64
import html
import importlib.util
import io
import itertools
import json
import math
import os
import re
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib import font_manager

from ._validate import check_nonneg_int, check_pair_index, check_positive_int
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
    "cosine_similarity",
    "table_similarity_panel",
    "pca_path",
    "rope_plane",
    "rope_score_curve",
    "alibi_panel",
    "experiment_curves",
    "range_bars",
    "loss_curves",
    "scaling_ratios",
    "rope_angle_errors",
    "LIVE_MAX_STATES",
    "figure_data_uri",
    "live_state_grid",
    "live_html",
    "live_twin",
    "draw_order_explorer",
    "draw_pe_explorer",
    "draw_rotation_explorer",
    "draw_fingerprint_explorer",
    "draw_learned_table_explorer",
    "draw_rope_explorer",
    "draw_alibi_explorer",
    "draw_precision_explorer",
    "wavelength_panel",
    "draw_scaling_explorer",
    "draw_results_explorer",
]

#: Okabe & Ito (2008) colour-blind-safe palette, black omitted.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
#: Diverging colormap for signed values (``heatmap(signed=True)``: ``[-vmax, vmax]``, white at 0).
SIGNED_CMAP = "RdBu_r"
#: Perceptually uniform colormap for non-negative values (``heatmap(signed=False)``;
#: the default ``image.cmap`` of ``use_style``).
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


def _draw_pair_paths(axes: Sequence[plt.Axes], d_model: int, *, pos: int, k: float, pairs: Sequence[int],
                     base: float, spiral: bool) -> list[float]:
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
            style = {"lw": 1.5, "alpha": 0.7}
            title = f"pair {i}: {abs(a1 - a0):.3g} rad\n= {n_turns:.2g} turns"
        else:
            arc, radius = np.linspace(a0, a1, 60), np.ones(60)
            style = {"lw": 2, "alpha": 0.6}
            title = f"pair {i}: turns {k * float(w[i]):.3g} rad"
        ax.plot(np.sin(circle), np.cos(circle), color="0.8", lw=1)
        ax.plot(radius * np.sin(arc), radius * np.cos(arc), color=OKABE_ITO[1], **style)
        ax.plot([np.sin(a0)], [np.cos(a0)], "o", color=OKABE_ITO[0], label="PE(p)")
        ax.plot([radius[-1] * np.sin(a1)], [radius[-1] * np.cos(a1)], "s", color=OKABE_ITO[1], label="PE(p + k)")
        ax.set(xlim=(-1.25, 1.25), ylim=(-1.25, 1.25), aspect="equal",
               xlabel=f"sin (dim {2 * i})", ylabel=f"cos (dim {2 * i + 1})", title=title)
        ax.set_xticks([-1, 0, 1])
        ax.set_yticks([-1, 0, 1])
    return turns


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


def cosine_similarity(table: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of every pair of rows of a ``(positions, d)`` table
    (float64, shape ``(positions, positions)``)."""
    if not isinstance(table, torch.Tensor) or table.dim() != 2 or not table.is_floating_point():
        raise ValueError(
            f"table must be a 2-D floating tensor (positions, d), got {getattr(table, 'shape', type(table))}"
        )
    unit = torch.nn.functional.normalize(table.detach().to(torch.float64), dim=-1)
    return unit @ unit.T


def table_similarity_panel(
    ax: plt.Axes, table: torch.Tensor, *, title: str = "", colorbar: bool = True
) -> mpl.image.AxesImage:
    """Chapter 5's picture: cosine similarity of a position table's rows
    (learned or sinusoidal), on the fixed range [-1, 1] so panels compare."""
    sim = cosine_similarity(table)
    n = sim.shape[0]
    return heatmap(ax, sim, vmax=1.0, xlabel="position q", ylabel="position p", title=title,
                   colorbar=colorbar, colorbar_label="cosine similarity", aspect="equal",
                   extent=(-0.5, n - 0.5, n - 0.5, -0.5))


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


def _pair_values(name: str, v: Sequence[float] | torch.Tensor) -> np.ndarray:
    arr = np.asarray(torch.as_tensor(v, dtype=torch.float64))
    if arr.shape != (2,):
        raise ValueError(f"{name} must hold the 2 features of one pair, got shape {arr.shape}")
    return arr


def rope_plane(
    ax: plt.Axes,
    q_pair: Sequence[float] | torch.Tensor,
    k_pair: Sequence[float] | torch.Tensor,
    *,
    m: float,
    n: float,
    theta: float,
) -> float:
    """Chapter 6's picture: one RoPE pair of a query at position ``m`` and a
    key at position ``n``, rotated by ``m * theta`` and ``n * theta`` on their
    plane (Su et al., 2021, eq. 13). Faint arrows are the unrotated vectors;
    the title gives the angle from the rotated query to the rotated key, which
    depends on ``n - m`` only.

    Returns:
        the pair's contribution to the score, ``<R(m theta) q, R(n theta) k>``,
        which equals ``q^T R((n - m) theta) k``.
    """
    q, k = _pair_values("q_pair", q_pair), _pair_values("k_pair", k_pair)

    def rot(v: np.ndarray, angle: float) -> np.ndarray:
        c, s = np.cos(angle), np.sin(angle)
        return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])

    qm, kn = rot(q, m * theta), rot(k, n * theta)
    between = math.atan2(qm[0] * kn[1] - qm[1] * kn[0], qm @ kn)  # from query to key
    reach = 1.25 * max(np.linalg.norm(q), np.linalg.norm(k), 1e-9)
    for v, color, alpha, label in ((q, OKABE_ITO[0], 0.25, ""), (k, OKABE_ITO[3], 0.25, ""),
                                   (qm, OKABE_ITO[0], 1.0, "q"), (kn, OKABE_ITO[3], 1.0, "k")):
        ax.annotate("", xy=v, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=color, alpha=alpha, lw=2))
        if label:
            ax.annotate(label, xy=v * 1.12, color=color, ha="center", va="center", fontsize=10,
                        fontweight="bold")
    ax.set(xlim=(-reach, reach), ylim=(-reach, reach), aspect="equal",
           xlabel="first feature of the pair", ylabel="second feature",
           title=f"m = {m:g}, n = {n:g}\nangle q to k: {between:+.2f} rad")
    ax.axhline(0, color="0.85", lw=0.8)
    ax.axvline(0, color="0.85", lw=0.8)
    return float(qm @ kn)


def rope_score_curve(
    ax: plt.Axes,
    q: torch.Tensor,
    k: torch.Tensor,
    *,
    offsets: Sequence[int] | torch.Tensor,
    base: float = 10000.0,
    mark: float | None = None,
    label: str = "score",
) -> torch.Tensor:
    """Plot the RoPE score ``<rope(q, m), rope(k, n)>`` against the offset
    ``m - n`` (it depends on nothing else), computed with
    ``book.encodings.apply_rope`` at ``n = 0``; optionally mark one offset.

    Returns the scores (float64, one per offset).
    """
    from .encodings import apply_rope

    q64 = torch.as_tensor(q, dtype=torch.float64).reshape(1, -1)
    k64 = torch.as_tensor(k, dtype=torch.float64).reshape(1, -1)
    if q64.shape != k64.shape:
        raise ValueError(f"q and k must have the same size, got {q64.shape[1]} and {k64.shape[1]}")
    off = torch.as_tensor(offsets)
    qs = apply_rope(q64.expand(len(off), -1), off, base=base)
    scores = (qs * apply_rope(k64, base=base)).sum(-1)
    ax.plot(off.numpy(), scores.numpy(), label=label)
    if mark is not None:
        i = int(torch.argmin((off.to(torch.float64) - mark).abs()))
        ax.plot([float(off[i])], [float(scores[i])], "o", color=OKABE_ITO[3], ms=7, label=f"m - n = {mark:g}")
    ax.set(xlabel="offset m - n (positions)", ylabel="score q . k after RoPE",
           title="the score depends only on m - n")
    return scores


def alibi_panel(
    ax: plt.Axes, n_heads: int, head: int, *, seq_len: int, causal: bool = True, colorbar: bool = True
) -> mpl.image.AxesImage:
    """Chapter 7's picture: head ``head``'s ALiBi bias ``-m_h |i - j|``
    (Press et al., 2022) for ``seq_len`` positions; with ``causal=True`` the
    masked keys ``j > i`` are left blank. Diverging colormap centred at zero,
    on a range shared by all heads (the steepest head's most negative bias)."""
    from .encodings import alibi_bias, alibi_slopes

    n_heads = check_positive_int("n_heads", n_heads)
    head = check_nonneg_int("head", head)
    if not head < n_heads:
        raise ValueError(f"head must be an integer in 0 .. {n_heads - 1}, got {head!r}")
    bias = alibi_bias(n_heads, seq_len)[head].to(torch.float64)
    if causal:
        bias = bias.masked_fill(torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1), float("nan"))
    top = float(alibi_slopes(n_heads).max()) * (seq_len - 1)
    slope = float(alibi_slopes(n_heads)[head])
    return heatmap(ax, bias, vmax=top, xlabel="key j", ylabel="query i",
                   title=f"head {head + 1}: m = 1/{1 / slope:.3g}", colorbar=colorbar,
                   colorbar_label="bias added to the score", aspect="equal",
                   extent=(-0.5, seq_len - 0.5, seq_len - 0.5, -0.5))


def experiment_curves(
    ax: plt.Axes,
    results: dict,
    *,
    schemes: Sequence[str] | None = None,
    seeds: str = "band",
    title: str | None = None,
    chance: bool = False,
) -> None:
    """Chapter 8's picture: accuracy past the training length, from the JSON
    results of ``book.experiments``.

    For ``fibonacci`` and ``local_sum`` the x axis is the position in the test
    input; for ``copy`` it is the number ``n`` of symbols copied.
    ``seeds="band"`` draws each scheme's mean over seeds with a band from the
    worst to the best seed; ``seeds="lines"`` draws every seed. A dotted line
    marks the training length; ``chance=True`` adds a dashed line at chance
    (1/10, a uniform guess among the ten digits; position tasks only).

    Raises:
        ValueError: for ``seeds`` other than ``"band"``/``"lines"``, or a
            scheme not in the results.
    """
    if seeds not in ("band", "lines"):
        raise ValueError(f"seeds must be 'band' or 'lines', got {seeds!r}")
    config, runs = results["config"], results["runs"]
    schemes = list(runs) if schemes is None else list(schemes)
    unknown = [s for s in schemes if s not in runs]
    if unknown:
        raise ValueError(f"schemes must be among the results' {list(runs)}, got {unknown}")
    by_position = config["task"] != "copy"
    for n, scheme in enumerate(schemes):
        color = OKABE_ITO[n % len(OKABE_ITO)]
        curves = np.array([[np.nan if c is None else c for c in r["curve"]] for r in runs[scheme].values()])
        x = np.arange(curves.shape[1]) if by_position else np.arange(1, curves.shape[1] + 1)
        scored = ~np.all(np.isnan(curves), axis=0)  # by position: the first targets are never scored
        x, curves = x[scored], curves[:, scored]
        if seeds == "band":
            ax.fill_between(x, np.nanmin(curves, 0), np.nanmax(curves, 0), color=color, alpha=0.2, lw=0)
            ax.plot(x, np.nanmean(curves, 0), color=color, label=scheme)
        else:
            for k, curve in enumerate(curves):
                ax.plot(x, curve, color=color, lw=1, alpha=0.8, label=scheme if k == 0 else None)
    edge = config["train_len"] - 0.5 if by_position else config["train_len"] + 0.5
    ax.axvline(edge, color="0.4", ls=":", label="training length")
    if chance and by_position:
        ax.axhline(0.1, color="k", ls="--", lw=1, label="chance (1/10)")
    ax.set(xlabel="position in the test input" if by_position else "symbols to copy, n",
           ylabel="accuracy" if by_position else "whole copies right", ylim=(-0.02, 1.02),
           title=title if title is not None else f"{config['task']}: trained at {config['train_len']}")


def range_bars(ax: plt.Axes, results: dict, *, title: str | None = None) -> dict[str, dict[str, list[float]]]:
    """Chapter 8's summary: accuracy per range of test positions, per scheme,
    from ``book.experiments.by_range(results)``.

    One group of bars per range (within the training length, then 1-1.25x,
    1.25-1.5x, 1.5-2x and 2-4x it); in each group one bar per scheme, its
    height the worst seed and a black tick at the best seed, so the bar shows
    what holds on every seed. A dashed line marks chance (1/10).
    Returns the ``by_range`` numbers drawn.

    Raises:
        ValueError: for copy results (``by_range`` reads curves by position).
    """
    from .experiments import by_range

    table = by_range(results)
    schemes = list(table)
    ranges = list(next(iter(table.values())))
    width = 0.8 / len(schemes)
    for n, scheme in enumerate(schemes):
        x = np.arange(len(ranges)) + (n - (len(schemes) - 1) / 2) * width
        lo = [min(table[scheme][r]) for r in ranges]
        hi = [max(table[scheme][r]) for r in ranges]
        ax.bar(x, lo, width, color=OKABE_ITO[n % len(OKABE_ITO)], label=scheme)
        ax.hlines(hi, x - width / 2, x + width / 2, color="k", lw=1.5)
    ax.axhline(0.1, color="k", ls="--", lw=1, label="chance (1/10)")
    ax.set_xticks(np.arange(len(ranges)), ["within" if r == "0-1x" else r for r in ranges])
    ax.set(xlabel="test positions, as multiples of the training length",
           ylabel="accuracy (bar: worst seed, tick: best)", ylim=(0, 1.05),
           title=title if title is not None else f"{results['config']['task']}: accuracy by range")
    return table


def loss_curves(ax: plt.Axes, results: dict, *, schemes: Sequence[str] | None = None,
                title: str | None = None, threshold: bool = True) -> None:
    """Chapter 8's training curves: each seed's ``loss_curve`` (the mean
    training loss per ``book.experiments.LOSS_EVERY`` steps), one colour per
    scheme, on a log axis.

    Each point is drawn at the last step of its block, so a curve ends at the
    step its model stopped (a run's ``steps``; the last block may be shorter).
    Where a run records ``met_stop_rule``, its end is marked: a dot if it met
    the stopping rule, a cross if it reached the step cap first (one legend
    entry each, "met the rule" and "reached the cap", drawn in grey; the
    markers themselves carry that text as their ``gid``). With ``threshold`` and
    an early-stopping config (``stop_loss`` set), a dashed grey line marks
    ``stop_loss``, labelled with the rule (the mean of the last
    ``stop_window`` losses below it). The rule applies to that window's mean,
    not to the plotted block means, so a curve that met it can end above the
    line.

    Raises:
        ValueError: for a scheme not in the results, or results without loss curves.
    """
    from .experiments import LOSS_EVERY

    runs = results["runs"]
    schemes = list(runs) if schemes is None else list(schemes)
    unknown = [s for s in schemes if s not in runs]
    if unknown:
        raise ValueError(f"schemes must be among the results' {list(runs)}, got {unknown}")
    ends: dict[bool, list[tuple[float, float, str]]] = {True: [], False: []}
    for n, scheme in enumerate(schemes):
        colour = OKABE_ITO[n % len(OKABE_ITO)]
        for k, r in enumerate(runs[scheme].values()):
            if "loss_curve" not in r:
                raise ValueError("results must hold a loss_curve per run (book.experiments since local_sum)")
            y = np.asarray(r["loss_curve"])
            steps = r.get("steps", LOSS_EVERY * len(y))
            x = np.minimum(LOSS_EVERY * np.arange(1, len(y) + 1), steps)
            ax.plot(x, y, color=colour, lw=1, alpha=0.8, label=scheme if k == 0 else None)
            if r.get("met_stop_rule") is not None:
                ends[bool(r["met_stop_rule"])].append((x[-1], y[-1], colour))
    for met, marker, label in [(True, "o", "met the rule"), (False, "x", "reached the cap")]:
        if ends[met]:
            x, y, colours = zip(*ends[met])
            style = dict(marker=marker, s=18, linewidths=0.5 if met else 1.2)
            if met:
                style["edgecolors"] = "0.2"
            ax.scatter(x, y, c=list(colours), zorder=3, gid=label, **style)
            ax.scatter([], [], c="0.4", label=label, **style)   # grey legend entry
    config = results.get("config", {})
    if threshold and config.get("stop_loss") is not None:
        window = config.get("stop_window")
        rule = f"{window}-step mean" if window else "mean"
        ax.axhline(config["stop_loss"], color="0.4", ls="--", lw=1,
                   label=f"stop: {rule} < {config['stop_loss']:g}")
    ax.set_yscale("log")
    ax.set(xlabel="training step", ylabel=f"training loss, {LOSS_EVERY}-step means",
           title=title if title is not None else "training loss, every seed")


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
    from . import scaling

    unknown = [name for name in rules if name not in scaling.RULES]
    if unknown or not rules:
        raise ValueError(f"rules must be names in book.scaling.RULES {tuple(scaling.RULES)}, got {tuple(rules)}")
    old = frequencies(d_model, base=base)
    ratios = {name: scaling.RULES[name](d_model, scale=scale, original_max_len=original_max_len, base=base)[0] / old
              for name in rules}
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


def rope_angle_errors(
    ax: plt.Axes,
    positions: torch.Tensor,
    d_model: int,
    *,
    dtypes: Sequence[str] = ("bfloat16", "float32"),
    base: float = 10000.0,
) -> dict[str, torch.Tensor]:
    """Chapter 10's picture: the largest error of RoPE's cosines against
    position (log-log) when the angles are formed in each of ``dtypes``
    (names such as ``"bfloat16"``), with ``book``'s float64 angles for
    comparison (``numerics.rope_cos_error``). Returns the errors by label."""
    from .numerics import rope_cos_error

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
    ax.set(xlabel="position m", ylabel="largest |cos error|", ylim=(1e-10, 10),
           title=f"RoPE angles in low precision, d = {d_model}")
    return errors


# ---------------------------------------------------------------------------
# Live twins and the explorers' drawings
#
# Live twins: an explorer that runs in a web page with no Python kernel.
#
# A live twin draws an explorer's figure (a ``book.plots.draw_<explorer>``
# function) at every state of a small grid, and returns one self-contained HTML
# block: labelled controls (a slider for each numeric parameter, a drop-down
# list for each choice), the values shown, and one image that the controls
# switch between the precomputed figures. It is plain HTML and inline
# JavaScript with the images as ``data:`` URIs: no external file, no network,
# so it works from a folder of files (``file://``) as well as from a server.
#
# Usage in a chapter (the notebook's output is the HTML)::
#
#     from book import plots
#     plots.live_twin(plots.draw_pe_explorer,
#                    {"d_model": [16, 64], "base": [100.0, 10000.0]},
#                    name="ch2-pe", alt="The sinusoidal table as a heatmap ...")
#
# The grid is the Cartesian product of the controls' values, so keep it small:
# every state is one image in the page (the book keeps pages under 3 MB).
# Images are PNG at ``dpi`` (default 72) with no metadata, so the same state
# gives the same bytes on the same machine (``figure_data_uri``).
# ---------------------------------------------------------------------------

#: Most states one live twin may hold (each is an image in the page).
LIVE_MAX_STATES = 64


def figure_data_uri(fig: plt.Figure, *, dpi: int = 72, colors: int = 128, close: bool = True) -> str:
    """The figure as a ``data:image/png;base64,...`` URI: PNG at ``dpi``,
    tight bounding box, white background, no metadata (no date or software
    version, so the bytes depend only on the drawing), reduced to a palette
    of ``colors`` colours (Pillow's median cut; ``colors=0`` keeps full
    colour), which makes heatmaps several times lighter. Closes the figure
    unless ``close=False``."""
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", facecolor="white",
                metadata={"Software": None})
    if close:
        plt.close(fig)
    if colors:
        image = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(colors=colors)
        buf = io.BytesIO()
        image.save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


#: A 1 x 1 white PNG: a live twin's frame when ``BOOK_LIVE_TWIN_IMAGES=0``.
_PLACEHOLDER_PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+"
                    "Av4N70a4AAAAAElFTkSuQmCC")


def _json(obj: Any, **kwargs: Any) -> str:
    """JSON that is safe inside a <script> element (no "<" to end it early)."""
    return json.dumps(obj, **kwargs).replace("<", "\\u003c")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _label(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return " ".join(map(str, v))
    return str(v)


def live_state_grid(controls: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every state of the grid, in order (the last control varies fastest).

    Raises:
        ValueError: if ``controls`` is empty, a control has no values or a
            repeated value, or the grid holds more than ``LIVE_MAX_STATES`` states.
    """
    if not controls:
        raise ValueError("controls must name at least one parameter")
    size = 1
    for name, values in controls.items():
        values = list(values)
        if not values:
            raise ValueError(f"controls[{name!r}] must hold at least one value")
        if len({_label(v) for v in values}) != len(values):
            raise ValueError(f"controls[{name!r}] must not repeat a value, got {values}")
        size *= len(values)
    if size > LIVE_MAX_STATES:
        raise ValueError(f"controls make {size} states; at most {LIVE_MAX_STATES} fit in a page")
    names = list(controls)
    return [dict(zip(names, combo)) for combo in itertools.product(*(list(v) for v in controls.values()))]


def live_html(
    draw: Callable[..., plt.Figure],
    controls: Mapping[str, Sequence[Any]],
    *,
    name: str,
    alt: str,
    labels: Mapping[str, str] | None = None,
    initial: Mapping[str, Any] | None = None,
    dpi: int = 72,
    **fixed: Any,
) -> str:
    """The live twin as an HTML string (see the module docstring).

    ``draw(**fixed, **state)`` must return a matplotlib Figure for every state
    of ``live_state_grid(controls)``. A control whose values are all numbers is a
    slider (over the listed values, in order); any other control is a
    drop-down list (booleans show as on/off). ``labels`` gives the text shown
    for a parameter (default: its name); ``initial`` the state shown first
    (default: each control's first value). ``name`` makes the element's id
    (``live-<name>``), so that the output is the same on every run; ``alt``
    describes the figure in a sentence and is the image's alt text.

    With the environment variable ``BOOK_LIVE_TWIN_IMAGES=0`` every state is
    still drawn (so a state that fails still raises), but the figures are not
    rendered: each frame is one placeholder PNG. The test suite sets it in
    all but one of its nbval passes, since nbval compares a twin's HTML with
    its images masked (``tests/nbval_sanitize.cfg``) and rendering is most of
    a twin's time; one pass and every stored output render them.

    Raises:
        ValueError: for a bad ``name`` (letters, digits, ``-``), a short
            ``alt``, an ``initial`` value not among the control's values, or
            (as ``live_state_grid``) a bad grid; ``TypeError`` if ``draw`` does
            not return a Figure.
    """
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9-]+", name):
        raise ValueError(f"name must be letters, digits and '-', got {name!r}")
    if not isinstance(alt, str) or len(alt.strip()) < 20:
        raise ValueError("alt must describe the figure in a sentence (20 characters or more)")
    labels = dict(labels or {})
    initial = dict(initial or {})
    states = live_state_grid(controls)
    names = list(controls)
    values = {n: list(controls[n]) for n in names}
    start = []
    for n in names:
        if n in initial:
            if initial[n] not in values[n]:
                raise ValueError(f"initial[{n!r}] must be one of {values[n]}, got {initial[n]!r}")
            start.append(values[n].index(initial[n]))
        else:
            start.append(0)
    unknown = set(initial) - set(names)
    if unknown:
        raise ValueError(f"initial names parameters that are not controls: {sorted(unknown)}")
    render = os.environ.get("BOOK_LIVE_TWIN_IMAGES", "1") != "0"
    frames = {}
    for state in states:
        fig = draw(**fixed, **state)
        if not isinstance(fig, plt.Figure):
            raise TypeError(f"draw must return a matplotlib Figure, got {type(fig).__name__}")
        key = ",".join(str(values[n].index(state[n])) for n in names)
        if render:
            frames[key] = figure_data_uri(fig, dpi=dpi)
        else:
            plt.close(fig)
            frames[key] = _PLACEHOLDER_PNG

    esc = html.escape
    uid = f"live-{name}"
    rows = []
    for n, i in zip(names, start):
        text = esc(labels.get(n, n))
        shown = [esc(_label(v)) for v in values[n]]
        if all(_is_number(v) for v in values[n]):
            control = (f'<input type="range" min="0" max="{len(shown) - 1}" step="1" value="{i}" '
                       f'data-param="{esc(n)}" aria-label="{text}">')
        else:
            options = "".join(f'<option value="{j}"{" selected" if j == i else ""}>{s}</option>'
                              for j, s in enumerate(shown))
            control = f'<select data-param="{esc(n)}" aria-label="{text}">{options}</select>'
        rows.append(f'<label style="margin-right:1.2em;white-space:nowrap">{text} {control} '
                    f'<output data-for="{esc(n)}" style="font-weight:bold">{shown[i]}</output></label>')
    spec = {"names": names, "labels": {n: [_label(v) for v in values[n]] for n in names}}
    first = ",".join(map(str, start))
    script = (
        "(function(){"
        f"var root=document.getElementById({json.dumps(uid)});"
        "var spec=JSON.parse(root.querySelector('script.live-spec').textContent);"
        "var frames=JSON.parse(root.querySelector('script.live-frames').textContent);"
        "var img=root.querySelector('img.live-figure');"
        "var state=root.querySelector('.live-state');"
        "function update(){"
        "var idx=spec.names.map(function(n){return root.querySelector('[data-param=\"'+n+'\"]').value;});"
        "spec.names.forEach(function(n,j){root.querySelector('output[data-for=\"'+n+'\"]').textContent="
        "spec.labels[n][idx[j]];});"
        "img.src=frames[idx.join(',')];"
        "img.setAttribute('data-state',idx.join(','));"
        "state.textContent=spec.names.map(function(n,j){return n+' = '+spec.labels[n][idx[j]];}).join(', ');}"
        "root.querySelectorAll('[data-param]').forEach(function(c){c.addEventListener('input',update);"
        "c.addEventListener('change',update);});"
        "update();})();"
    )
    initial_state = ", ".join(f"{n} = {_label(values[n][i])}" for n, i in zip(names, start))
    return (
        f'<div class="live-twin" id="{uid}" style="border:1px solid #ccc;border-radius:4px;padding:0.5em">\n'
        f'<div class="live-controls" style="margin-bottom:0.4em">{"".join(rows)}</div>\n'
        f'<img class="live-figure" src="{frames[first]}" data-state="{first}" alt="{esc(alt)}" '
        f'style="max-width:100%">\n'
        f'<div class="live-state" aria-live="polite" style="font-size:85%;color:#555">{esc(initial_state)}</div>\n'
        f'<script type="application/json" class="live-spec">{_json(spec)}</script>\n'
        f'<script type="application/json" class="live-frames">{_json(frames, indent=0)}</script>\n'
        f"<script>{script}</script>\n</div>"
    )


def live_twin(draw: Callable[..., plt.Figure], controls: Mapping[str, Sequence[Any]], **kwargs: Any):
    """``live_html(draw, controls, **kwargs)`` as an ``IPython.display.HTML``
    object, to leave as a notebook cell's last value."""
    from IPython.display import HTML

    return HTML(live_html(draw, controls, **kwargs))


# The explorers' drawings: each explorer of ``book.widgets`` is a pure function
# of its state below; the widget only wires controls to it, and the chapter's
# live twin (``live_twin``) shows it at a grid of states.

def _new_figure(ncols: int, figsize: tuple[float, float]) -> tuple[plt.Figure, list[plt.Axes]]:
    fig, axes = plt.subplots(1, ncols, figsize=figsize, squeeze=False, layout="constrained")
    return fig, list(axes[0])


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
    fig.suptitle(f"order B: {' '.join(tokens[i] for i in idx)}   largest |B - A| = {float((b - a).abs().max()):.1e}",
                 fontsize=9)
    return fig


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


def draw_rotation_explorer(
    *, pos: int = 0, k: float = 1, d_model: int = 16, pairs: Sequence[int] = (0, 1, 2, 3), base: float = 10000.0
) -> plt.Figure:
    """Chapter 3's explorer: ``rotation_circles`` for position ``pos`` and
    offset ``k``, one panel per pair in ``pairs``."""
    fig, axes = _new_figure(len(pairs), (2.2 * len(pairs), 2.8))
    rotation_circles(axes, d_model, pos=pos, k=k, pairs=pairs, base=base)
    fig.suptitle(f"PE(p) to PE(p + k): p = {pos:g}, k = {k:g}", fontsize=10)
    return fig


def draw_fingerprint_explorer(
    *, d_model: int = 64, base: float = 10000.0, seq_len: int = 128, cosine: bool = True
) -> plt.Figure:
    """Chapter 4's explorer: ``similarity_panel`` of positions ``0 .. seq_len - 1``
    (cosine similarity, or the raw dot product ``PE PE^T``)."""
    fig, (ax,) = _new_figure(1, (4.6, 3.8))
    similarity_panel(ax, d_model, seq_len=seq_len, base=base, cosine=cosine)
    return fig


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


def draw_rope_explorer(
    q: torch.Tensor, k: torch.Tensor, *, m: int = 5, n: int = 2, pair: int = 0,
    base: float = 10000.0, max_position: int = 64,
) -> plt.Figure:
    """Chapter 6's explorer: pair ``pair`` of ``q`` at position ``m`` and ``k``
    at position ``n`` on its plane (``rope_plane``), and the whole score
    against ``m - n`` over ``-max_position .. max_position``
    (``rope_score_curve``) with the current offset marked. The title gives the
    pair's part of the score.

    Raises:
        ValueError: if ``q`` and ``k`` differ in size or are not of even size,
            or ``pair`` is outside ``0 .. d/2 - 1``.
    """
    q = torch.as_tensor(q, dtype=torch.float64).flatten()
    k = torch.as_tensor(k, dtype=torch.float64).flatten()
    d = q.numel()
    if d != k.numel() or d < 2 or d % 2:
        raise ValueError(f"q and k must have the same even number of features, got {d} and {k.numel()}")
    pair = check_pair_index("pair", pair, d)
    theta = frequencies(d, base=base)
    fig, (left, right) = _new_figure(2, (8.0, 3.4))
    part = rope_plane(left, q[2 * pair: 2 * pair + 2], k[2 * pair: 2 * pair + 2], m=m, n=n,
                      theta=float(theta[pair]))
    rope_score_curve(right, q, k, offsets=range(-max_position, max_position + 1), base=base, mark=m - n)
    fig.suptitle(f"pair {pair} adds {part:+.3f} to the score; m - n = {m - n}", fontsize=10)
    return fig


def draw_alibi_explorer(*, n_heads: int = 8, head: int = 1, seq_len: int = 32) -> plt.Figure:
    """Chapter 7's explorer: head ``head`` (counted from 1) of ``n_heads``:
    its ALiBi bias (``alibi_panel``) and, with all content scores equal, the
    causal attention weights of the last query, proportional to
    ``exp(-m_h k)`` for a key ``k`` positions back. The title gives the slope
    and the distance over which the weight halves, ``ln 2 / m_h``.

    Raises:
        ValueError: if ``head`` is not in ``1 .. n_heads``.
    """
    from .attention import causal_mask
    from .encodings import alibi_bias, alibi_slopes

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
    fig.suptitle(f"{n_heads} heads, slope m = {slope:.4g}: the weight halves every ln 2 / m = "
                 f"{math.log(2) / slope:.3g} positions", fontsize=10)
    return fig


def draw_precision_explorer(
    *, dtype: str = "bfloat16", d_model: int = 128, base: float = 10000.0, longest: int = 2**17
) -> plt.Figure:
    """Chapter 10's explorer: ``rope_angle_errors`` with the angles formed in
    ``dtype`` (and ``book``'s float64 angles), at 80 positions spaced
    logarithmically from 1 to ``longest``. The title says from which position
    the cosines are off by more than 0.01, and from which the angle overflows
    (float16), if anywhere.

    Raises:
        ValueError: if ``longest`` is below 2, or (as ``rope_angle_errors``)
            ``dtype`` is not a torch dtype's name.
    """
    longest = check_positive_int("longest", longest)
    if longest < 2:
        raise ValueError(f"longest must be at least 2, got {longest}")
    positions = torch.unique(torch.logspace(0, math.log2(longest), 80, base=2).long())
    fig, (ax,) = _new_figure(1, (7.0, 3.4))
    errors = rope_angle_errors(ax, positions, d_model, dtypes=[dtype], base=base)
    ax.legend(fontsize=8, loc="center right")  # clear of both lines
    err = errors[dtype]
    bad = positions[err > 0.01]
    where = f"from about position {int(bad[0]):,}" if len(bad) else f"nowhere up to {longest:,}"
    line = f"{dtype} angles: cosines off by more than 0.01 {where}"
    if err.isinf().any():
        line += f"\n{dtype} cannot hold positions from {int(positions[err.isinf()][0]):,} on (no line there)"
    fig.suptitle(line, fontsize=9)
    return fig


# --- chapters 2-3 (#17)

__all__ += [
    "wavelengths_by_base",
    "counter_and_sines",
    "rotation_spirals",
    "decay_with_closed_form",
]


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
    drawn as a dotted horizontal line: a pair above a line has not turned once
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
    heatmap(ax_sines, s, vmax=1.0, xlabel="pair i (wavelength)", ylabel="position p",
            title="sine columns sin(p w_i)", colorbar_label="PE value",
            xticklabels=[f"{j}\n({_short(lam)})" for j, lam in enumerate(wavelengths)])
    ax_sines.tick_params(axis="x", labelsize=7)


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
    from .encodings.sinusoidal import dot_by_offset

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


# --- chapters 5-7 (#17)


def rope_expected_scores(
    ax: plt.Axes,
    offsets: Sequence[int] | torch.Tensor,
    *,
    independent: torch.Tensor,
    same: torch.Tensor,
    closed_offsets: Sequence[int] | torch.Tensor,
    closed_same: torch.Tensor,
) -> None:
    """Chapter 6: the mean RoPE score of random queries and keys against the
    offset ``m - n``, measured (markers) and in closed form (lines).

    ``independent`` and ``same`` are Monte Carlo means for independent ``q, k``
    and for ``q = k`` at ``offsets``; ``closed_same`` is
    ``2 sum_i cos((m - n) theta_i)`` (``book.encodings.rope.rope_expected_score``)
    at ``closed_offsets`` (pass a finer grid: the fast pairs make it wiggle);
    the closed form for independent vectors is 0. All four are drawn on ``ax``.
    """
    def curve(v: torch.Tensor | np.ndarray) -> np.ndarray:
        return np.asarray(torch.as_tensor(v).detach().cpu(), dtype=float)

    off = curve(offsets)
    ax.axhline(0, color=OKABE_ITO[0], lw=1.5, label="independent q, k: closed form 0")
    ax.plot(off, curve(independent), "o", ms=3.5, color=OKABE_ITO[0], label="independent q, k: mean of samples")
    ax.plot(curve(closed_offsets), curve(closed_same), "-", lw=1, color=OKABE_ITO[1],
            label="q = k: closed form 2 sum cos((m-n) theta_i)")
    ax.plot(off, curve(same), "s", ms=3.5, color=OKABE_ITO[1], label="q = k: mean of samples")
    ax.set(xlabel="offset m - n (positions)", ylabel="expected score",
           title="RoPE's decay is a property of correlated q and k")
    ax.legend(fontsize=7)



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
    ax.set(xlabel="relative position j - i (key minus query)", ylabel="bias added to the logit",
           title="one family: a bias read off j - i")
    ax.legend(fontsize=7)


__all__ += ["rope_expected_scores", "relative_bias_rows"]


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
    from .scaling import turned_pairs

    if scale is not None and (not _is_number(scale) or scale < 1):
        raise ValueError(f"scale must be a number >= 1, got {scale!r}")
    first = turned_pairs(d_model, original_max_len=original_max_len, base=base)
    waves = 2 * math.pi / frequencies(d_model, base=base)
    if first < d_model // 2:
        ax.axvspan(first - 0.5, d_model // 2 - 0.5, color="0.92", lw=0)
    ax.semilogy(waves.numpy(), "o", ms=2.5, color=OKABE_ITO[0], label=r"wavelength $2\pi/\theta_i$")
    ax.axhline(original_max_len, color="k", ls="--", lw=1, label=f"training length L = {original_max_len:,}")
    if scale is not None:
        ax.axhline(scale * original_max_len, color="0.4", ls=":", lw=1.2,
                   label=f"stretched length sL = {scale * original_max_len:,.0f}")
    unturned = d_model // 2 - first
    ax.set(xlabel="pair i (fast to slow)", ylabel="positions per turn",
           title=f"{first} pairs turn within L, {unturned} never do")
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
    fig.suptitle(f"d = {d_model}, L = {original_max_len:,}, s = {scale:g}: of the {d_model // 2 - first} pairs that "
                 "never turn within L, at position sL\n"
                 + ", ".join(f"{name} keeps {n}" for name, n in kept.items()) + " inside the angles trained",
                 fontsize=9)
    return fig


def draw_results_explorer(
    results: Mapping[str, dict], *, task: str, schemes: Sequence[str] | None = None, seeds: str = "band"
) -> plt.Figure:
    """Chapter 8's explorer: ``experiment_curves`` of one task of ``results``
    (a task name mapped to the JSON dict of ``book.experiments``) for the
    chosen ``schemes`` (default: all of the task's), each seed as a band
    (``seeds="band"``) or as lines (``"lines"``), with the training length
    and chance. A scheme the task does not hold is skipped (the tasks may
    hold different schemes); the title names the schemes skipped.

    Raises:
        ValueError: if ``task`` is not in ``results``, or none of ``schemes``
            is in the task's results (and as ``experiment_curves`` for ``seeds``).
    """
    if task not in results:
        raise ValueError(f"task must be one of {list(results)}, got {task!r}")
    runs = results[task]["runs"]
    wanted = list(runs) if schemes is None else list(schemes)
    chosen = [s for s in wanted if s in runs]
    if not chosen:
        raise ValueError(f"schemes must include at least one of the task's schemes {list(runs)}, got {wanted}")
    fig, (ax,) = _new_figure(1, (7.0, 3.3))
    experiment_curves(ax, results[task], schemes=chosen, seeds=seeds, chance=True)
    ax.legend(fontsize=8, ncol=3)
    skipped = [s for s in wanted if s not in runs]
    if skipped:
        ax.set_title(f"{ax.get_title()} ({', '.join(skipped)}: not run on this task)")
    return fig
