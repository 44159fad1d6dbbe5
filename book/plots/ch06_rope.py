"""The figures of chapter 6, "RoPE: position as a rotation of queries and keys".

Figures: ``rope_plane``, ``rope_score_curve``, ``rope_expected_scores``; the explorer's drawing:
``draw_rope_explorer``, a pure function of the explorer's state: the explorer of
``book.widgets`` only wires controls to it, and the chapter's live twin
(``book.plots.live.live_twin``) shows it at a grid of states.
"""

from __future__ import annotations

import math
from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch

from .._validate import check_pair_index
from ..encodings import frequencies
from ._common import _new_figure
from .style import OKABE_ITO

__all__ = [
    "rope_plane",
    "rope_score_curve",
    "rope_expected_scores",
    "draw_rope_explorer",
]


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
    reach = 1.25 * max(float(np.linalg.norm(q)), float(np.linalg.norm(k)), 1e-9)
    for v, color, alpha, label in (
        (q, OKABE_ITO[0], 0.25, ""),
        (k, OKABE_ITO[3], 0.25, ""),
        (qm, OKABE_ITO[0], 1.0, "q"),
        (kn, OKABE_ITO[3], 1.0, "k"),
    ):
        ax.annotate(
            "",
            xy=(float(v[0]), float(v[1])),
            xytext=(0, 0),
            arrowprops=dict(arrowstyle="-|>", color=color, alpha=alpha, lw=2),
        )
        if label:
            ax.annotate(
                label,
                xy=(1.12 * float(v[0]), 1.12 * float(v[1])),
                color=color,
                ha="center",
                va="center",
                fontsize=10,
                fontweight="bold",
            )
    ax.set(
        xlim=(-reach, reach),
        ylim=(-reach, reach),
        aspect="equal",
        xlabel="first feature of the pair",
        ylabel="second feature",
        title=f"m = {m:g}, n = {n:g}\nangle q to k: {between:+.2f} rad",
    )
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
    from ..encodings import apply_rope

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
    ax.set(xlabel="offset m - n (positions)", ylabel="score q . k after RoPE", title="the score depends only on m - n")
    return scores


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

    def curve(v: torch.Tensor | np.ndarray | Sequence[float]) -> np.ndarray:
        return np.asarray(torch.as_tensor(v).detach().cpu(), dtype=float)

    off = curve(offsets)
    ax.axhline(0, color=OKABE_ITO[0], lw=1.5, label="independent q, k: closed form 0")
    ax.plot(off, curve(independent), "o", ms=3.5, color=OKABE_ITO[0], label="independent q, k: mean of samples")
    ax.plot(
        curve(closed_offsets),
        curve(closed_same),
        "-",
        lw=1,
        color=OKABE_ITO[1],
        label="q = k: closed form 2 sum cos((m-n) theta_i)",
    )
    ax.plot(off, curve(same), "s", ms=3.5, color=OKABE_ITO[1], label="q = k: mean of samples")
    ax.set(
        xlabel="offset m - n (positions)",
        ylabel="expected score",
        title="RoPE's decay is a property of correlated q and k",
    )
    ax.legend(fontsize=7)


def draw_rope_explorer(
    q: torch.Tensor,
    k: torch.Tensor,
    *,
    m: int = 5,
    n: int = 2,
    pair: int = 0,
    base: float = 10000.0,
    max_position: int = 64,
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
    part = rope_plane(left, q[2 * pair : 2 * pair + 2], k[2 * pair : 2 * pair + 2], m=m, n=n, theta=float(theta[pair]))
    rope_score_curve(right, q, k, offsets=range(-max_position, max_position + 1), base=base, mark=m - n)
    fig.suptitle(f"pair {pair} adds {part:+.3f} to the score; m - n = {m - n}", fontsize=10)
    return fig
