"""book.plots.ch04_fingerprints: chapter 4's similarity panel and its explorer's drawing."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from book import plots


def test_similarity_panel_cosine_is_seq_len_square_and_peaks_at_one():
    plots.use_style()
    fig, ax = plt.subplots()
    image = plots.similarity_panel(ax, 16, seq_len=20, cosine=True)
    assert image.get_array().shape == (20, 20) and image.get_clim()[1] == pytest.approx(1.0)
    plt.close("all")


def test_similarity_panel_rejects_no_positions():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="seq_len must be a positive integer"):
        plots.similarity_panel(ax, 16, seq_len=0)
    plt.close("all")


def test_draw_fingerprint_explorer_cosine_and_dot_product():
    fig = plots.draw_fingerprint_explorer(d_model=16, base=100.0, seq_len=24, cosine=True)
    (ax,) = [a for a in fig.axes if a.images]
    sim = ax.images[0].get_array()
    assert sim.shape == (24, 24) and ax.get_title() == "d = 16, base = 100"
    assert list(sim.diagonal()) == pytest.approx([1.0] * 24)
    plt.close(fig)
    fig = plots.draw_fingerprint_explorer(d_model=16, base=100.0, seq_len=40, cosine=False)
    sim = [a for a in fig.axes if a.images][0].images[0].get_array()
    assert sim.shape == (40, 40) and list(sim.diagonal()) == pytest.approx([8.0] * 40)  # |PE(p)|^2 = d/2
    plt.close(fig)
