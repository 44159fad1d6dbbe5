"""Chapters 2 and 3 (#17): the new figures draw what they say and reject bad input."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from book import plots  # noqa: E402
from book.encodings.sinusoidal import dot_by_offset  # noqa: E402


def test_wavelengths_by_base():
    fig, ax = plt.subplots()
    longest = plots.wavelengths_by_base(ax, 64, bases=[100.0, 10000.0], lengths={"BERT, 512": 512})
    assert math.isclose(longest[10000.0], 2 * math.pi * 10000 ** (62 / 64))
    assert len(ax.lines) == 3 and ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="at least one"):
        plots.wavelengths_by_base(ax, 64, bases=[], lengths={"x": 1})
    plt.close(fig)


def test_counter_and_sines_uses_two_discrete_colours():
    fig, (a, b) = plt.subplots(1, 2)
    bits = ((torch.arange(8)[:, None] >> torch.arange(3)) & 1).float()
    sines = torch.sin(torch.arange(8.0)[:, None] * torch.tensor([1.0, 0.3, 0.1]))
    plots.counter_and_sines(a, b, bits, sines, bit_periods=[2, 4, 8], wavelengths=[6.28, 20.9, 62.8])
    image = a.images[0]
    assert image.cmap.N == 2                                        # discrete
    assert [t.get_text().split("\n")[0] for t in a.get_xticklabels()] == ["0", "1", "2"]
    with pytest.raises(ValueError, match="only 0 and 1"):
        plots.counter_and_sines(a, b, bits * 2, sines, bit_periods=[2, 4, 8], wavelengths=[1, 2, 3])
    with pytest.raises(ValueError, match="one label per column"):
        plots.counter_and_sines(a, b, bits, sines, bit_periods=[2, 4], wavelengths=[1, 2, 3])
    with pytest.raises(ValueError, match="same number of positions"):
        plots.counter_and_sines(a, b, bits[:4], sines, bit_periods=[2, 4, 8], wavelengths=[1, 2, 3])
    plt.close(fig)


def test_rotation_spirals_draw_every_turn():
    fig, axes = plt.subplots(1, 2)
    turns = plots.rotation_spirals(list(axes), 16, pos=0, k=12, pairs=[0, 3])
    assert math.isclose(turns[0], 12 / (2 * math.pi))                # 1.9 turns
    x, y = axes[0].lines[1].get_data()
    angle = np.unwrap(np.arctan2(x, y))
    assert math.isclose(angle[-1] - angle[0], 12, rel_tol=1e-6)      # the whole arc, not mod 2 pi
    radius = np.hypot(x, y)
    assert radius[-1] < radius[0] - 0.2                               # a spiral: the loops do not overlap
    with pytest.raises(ValueError, match="same length"):
        plots.rotation_spirals(list(axes), 16, pos=0, k=1, pairs=[0])
    plt.close(fig)


def test_decay_with_closed_form():
    fig, ax = plt.subplots()
    curves = plots.decay_with_closed_form(ax, 64, k_max=100)
    torch.testing.assert_close(curves["exact"], dot_by_offset(torch.arange(1, 101, dtype=torch.float64), 64))
    assert len(ax.lines) == 3
    with pytest.raises(ValueError, match="k_max"):
        plots.decay_with_closed_form(ax, 64, k_max=1)
    plt.close(fig)


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
