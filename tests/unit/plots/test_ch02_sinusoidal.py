"""book.plots.ch02_sinusoidal: chapter 2's PE overview, wavelengths by base, binary counter, and its explorer's drawing."""

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


def test_pe_overview_titles_the_pair_and_rejects_a_bad_dim_or_one_position():
    plots.use_style()
    fig, (a, b) = plt.subplots(1, 2)
    plots.pe_overview(a, b, 16, positions=range(50), dim=5)
    assert "pair i = 2" in b.get_title() and a.get_xlabel() == "dimension j"
    with pytest.raises(ValueError, match="dim must be in 0 .. 15"):
        plots.pe_overview(a, b, 16, dim=16)
    with pytest.raises(ValueError, match="at least two positions"):
        plots.pe_overview(a, b, 16, positions=[3])
    plt.close("all")


def test_pe_overview_rejects_an_odd_width():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="dim must be in|d_model must be even"):
        plots.pe_overview(ax, ax, 15)
    plt.close("all")


def test_wavelengths_by_base_returns_each_bases_longest_on_a_log_axis():
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
    assert image.cmap.N == 2  # discrete
    assert [t.get_text().split("\n")[0] for t in a.get_xticklabels()] == ["0", "1", "2"]
    with pytest.raises(ValueError, match="only 0 and 1"):
        plots.counter_and_sines(a, b, bits * 2, sines, bit_periods=[2, 4, 8], wavelengths=[1, 2, 3])
    with pytest.raises(ValueError, match="one label per column"):
        plots.counter_and_sines(a, b, bits, sines, bit_periods=[2, 4], wavelengths=[1, 2, 3])
    with pytest.raises(ValueError, match="same number of positions"):
        plots.counter_and_sines(a, b, bits[:4], sines, bit_periods=[2, 4, 8], wavelengths=[1, 2, 3])
    plt.close(fig)


def test_draw_pe_explorer_follows_its_state():
    fig = plots.draw_pe_explorer(d_model=32, base=100.0, positions=(10, 60), dim=5)
    heat, lines = fig.axes[0], fig.axes[1]
    assert heat.get_title() == "PE, d = 32, base = 100"
    table = heat.images[0].get_array()
    assert table.shape == (50, 32)
    torch.testing.assert_close(
        torch.as_tensor(table.data), encodings.sinusoidal_at(torch.arange(10, 60), 32, base=100.0), check_dtype=False
    )
    sin, cos = lines.get_lines()[:2]
    assert list(sin.get_xdata()) == list(range(10, 60))
    assert sin.get_label() == "dim 4 (sin)" and cos.get_label() == "dim 5 (cos)"
    assert lines.get_title().startswith("pair i = 2: wavelength")
    assert list(heat.get_lines()[0].get_xdata()) == [5, 5]  # the chosen dimension, dotted
    plt.close(fig)
    other = plots.draw_pe_explorer(d_model=32, base=100.0, positions=(10, 60), dim=20)
    assert other.axes[1].get_title().startswith("pair i = 10:")
    plt.close(other)
    with pytest.raises(ValueError, match="dim must be in 0 .. 31"):
        plots.draw_pe_explorer(d_model=32, dim=32)
    plt.close("all")
