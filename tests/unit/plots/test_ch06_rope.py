"""book.plots.ch06_rope: chapter 6's RoPE plane, score curve and its explorer's drawing."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from book import (
    encodings,
    plots,
)


def test_rope_plane_returns_the_pair_score():
    fig, ax = plt.subplots()
    q, k = torch.tensor([1.0, 0.5]), torch.tensor([-0.3, 2.0])
    part = plots.rope_plane(ax, q, k, m=7, n=3, theta=0.4)
    # <R(m theta) q, R(n theta) k> = q^T R((n - m) theta) k
    c, s = math.cos((3 - 7) * 0.4), math.sin((3 - 7) * 0.4)
    expected = float(q.double() @ torch.tensor([[c, -s], [s, c]], dtype=torch.float64) @ k.double())
    assert part == pytest.approx(expected)
    with pytest.raises(ValueError, match="q_pair must hold the 2 features"):
        plots.rope_plane(ax, [1.0, 2.0, 3.0], k, m=0, n=0, theta=1.0)
    plt.close("all")


def test_rope_score_curve_depends_only_on_offset():
    fig, ax = plt.subplots()
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(16, generator=g), torch.randn(16, generator=g)
    scores = plots.rope_score_curve(ax, q, k, offsets=range(-5, 6), mark=2)
    direct = (encodings.apply_rope(q.double()[None], [12]) * encodings.apply_rope(k.double()[None], [10])).sum()
    assert float(scores[7]) == pytest.approx(float(direct))
    with pytest.raises(ValueError, match="same size"):
        plots.rope_score_curve(ax, q, k[:8], offsets=[0])
    plt.close("all")


def test_draw_rope_explorer_depends_on_the_offset_only():
    q, k = torch.randn(2, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    fig = plots.draw_rope_explorer(q, k, m=6, n=3, pair=2, max_position=10)
    plane, curve = fig.axes
    theta = float(encodings.frequencies(16)[2])

    def rotate(v, angle):  # one pair turned by angle (Su et al., eq. 13)
        return torch.tensor(
            [math.cos(angle) * v[0] - math.sin(angle) * v[1], math.sin(angle) * v[0] + math.cos(angle) * v[1]],
            dtype=torch.float64,
        )

    expected = float(rotate(q[4:6], 6 * theta) @ rotate(k[4:6], 3 * theta))
    assert fig._suptitle.get_text() == f"pair 2 adds {expected:+.3f} to the score; m - n = 3"
    assert plane.get_title().startswith("m = 6, n = 3")
    line, mark = curve.get_lines()
    assert list(line.get_xdata()) == list(range(-10, 11)) and list(mark.get_xdata()) == [3]
    shifted = plots.draw_rope_explorer(q, k, m=9, n=6, pair=2, max_position=10)
    assert shifted._suptitle.get_text() == fig._suptitle.get_text()  # same m - n, same score
    assert shifted.axes[1].get_lines()[1].get_ydata() == pytest.approx(mark.get_ydata())
    assert shifted.axes[0].get_title() != plane.get_title()
    plt.close("all")
    with pytest.raises(ValueError, match="pair must be a pair index in 0 .. 7"):
        plots.draw_rope_explorer(q, k, pair=8)
    with pytest.raises(ValueError, match="same even number"):
        plots.draw_rope_explorer(torch.ones(7), torch.ones(7))
