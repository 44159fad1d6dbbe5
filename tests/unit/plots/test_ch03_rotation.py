"""book.plots.ch03_rotation: chapter 3's circles, spirals, animation, decay and its explorer's drawing."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from book import encodings, plots
from book.encodings.sinusoidal_geometry import dot_by_offset


def test_rotation_circles_title_the_turn_and_need_one_axes_per_pair():
    plots.use_style()
    fig, axes = plt.subplots(1, 2)
    plots.rotation_circles(list(axes), 16, pos=3, k=2, pairs=[0, 1])
    assert axes[0].get_title() == "pair 0: turns 2 rad"
    with pytest.raises(ValueError, match="same length"):
        plots.rotation_circles(list(axes), 16, pos=3, k=2, pairs=[0])
    plt.close("all")


def test_rotation_circles_reject_a_pair_index_out_of_range():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="pairs\\[\\] must be a pair index"):
        plots.rotation_circles([ax], 16, pos=0, k=1, pairs=[9])
    plt.close("all")


def test_rotation_circles_draws_an_arc_over_one_turn_as_a_spiral():
    """The explorer's offsets reach +-20, 3.2 turns of pair 0: no circle drawn over itself."""
    fig, axes = plt.subplots(1, 2)
    plots.rotation_circles(list(axes), 16, pos=0, k=20, pairs=[0, 3])
    arc = axes[0].lines[1].get_xydata()
    radii = np.hypot(arc[:, 0], arc[:, 1])
    assert radii.min() < 0.7 and "turns" in axes[0].get_title()  # shrinking spiral, 3.2 turns
    fig2, axes2 = plt.subplots(1, 1)
    plots.rotation_circles([axes2], 16, pos=0, k=2, pairs=[0])  # 2 rad: the plain circle
    assert np.allclose(np.hypot(*axes2.lines[1].get_xydata().T), 1.0)
    plt.close(fig)
    plt.close(fig2)


def test_rotation_spirals_draw_every_turn():
    fig, axes = plt.subplots(1, 2)
    turns = plots.rotation_spirals(list(axes), 16, pos=0, k=12, pairs=[0, 3])
    assert math.isclose(turns[0], 12 / (2 * math.pi))  # 1.9 turns
    x, y = axes[0].lines[1].get_data()
    angle = np.unwrap(np.arctan2(x, y))
    assert math.isclose(angle[-1] - angle[0], 12, rel_tol=1e-6)  # the whole arc, not mod 2 pi
    radius = np.hypot(x, y)
    assert radius[-1] < radius[0] - 0.2  # a spiral: the loops do not overlap
    with pytest.raises(ValueError, match="same length"):
        plots.rotation_spirals(list(axes), 16, pos=0, k=1, pairs=[0])
    plt.close(fig)


def test_rotation_animation_has_one_frame_per_offset():
    plots.use_style()
    anim = plots.rotation_animation(16, offsets=[0, 1, 2], pairs=[0, 1])
    html = anim.to_jshtml()
    assert html.count("data:image/png;base64") == 3
    with pytest.raises(ValueError, match="offsets must hold"):
        plots.rotation_animation(16, offsets=[], pairs=[0])


def test_animation_html_is_offline():
    anim = plots.rotation_animation(16, offsets=[0, 1], pairs=[0])
    assert "font-awesome" in anim.to_jshtml()  # matplotlib links a CDN ...
    html = plots.animation_html(anim, alt="Two unit circles with a point turning")
    assert "http" not in html.split("<script")[0]  # ... which we drop
    assert "font-awesome" not in html and html.count("data:image/png;base64") == 2
    assert 'alt="Two unit circles with a point turning"' in html
    with pytest.raises(ValueError, match="alt must describe"):
        plots.animation_html(anim, alt="anim")


def test_decay_with_closed_form_draws_the_exact_sum_and_both_closed_forms():
    fig, ax = plt.subplots()
    curves = plots.decay_with_closed_form(ax, 64, k_max=100)
    torch.testing.assert_close(curves["exact"], dot_by_offset(torch.arange(1, 101, dtype=torch.float64), 64))
    assert len(ax.lines) == 3
    with pytest.raises(ValueError, match="k_max"):
        plots.decay_with_closed_form(ax, 64, k_max=1)
    plt.close(fig)


def test_draw_rotation_explorer_moves_each_pair_by_k_omega():
    fig = plots.draw_rotation_explorer(pos=3, k=5, d_model=16, pairs=(0, 2))
    assert len(fig.axes) == 2 and fig._suptitle.get_text() == "PE(p) to PE(p + k): p = 3, k = 5"
    w = encodings.frequencies(16)
    for ax, i in zip(fig.axes, (0, 2)):
        dot, square = ax.get_lines()[2], ax.get_lines()[3]
        assert dot.get_xydata()[0] == pytest.approx([math.sin(3 * w[i]), math.cos(3 * w[i])])
        assert square.get_xydata()[0] == pytest.approx([math.sin(8 * w[i]), math.cos(8 * w[i])])
        assert ax.get_title() == f"pair {i}: turns {5 * float(w[i]):.3g} rad"
    plt.close(fig)
    fig = plots.draw_rotation_explorer(pos=3, k=-1, d_model=16, pairs=(0, 2))
    assert fig.axes[0].get_lines()[3].get_xydata()[0] == pytest.approx([math.sin(2.0), math.cos(2.0)])
    plt.close(fig)
