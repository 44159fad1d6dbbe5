"""book.plots.ch07_relative: chapter 7's ALiBi panel and its explorer's drawing."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from book import (
    encodings,
    plots,
)


def test_alibi_panel_blanks_the_future_and_rejects_bad_heads():
    fig, ax = plt.subplots()
    image = plots.alibi_panel(ax, 8, 0, seq_len=6)
    data = image.get_array()
    assert data.mask[0, 1] and not data.mask[1, 0]
    assert float(data[5, 0]) == pytest.approx(-2.5)
    assert ax.get_title() == "head 1: m = 1/2"
    with pytest.raises(ValueError, match="head must be an integer in 0 .. 7"):
        plots.alibi_panel(ax, 8, 8, seq_len=6)
    plt.close("all")


def test_draw_alibi_explorer_weights_follow_the_slope():
    fig = plots.draw_alibi_explorer(n_heads=4, head=2, seq_len=10)
    bias_ax, weights_ax = fig.axes[0], fig.axes[1]
    slope = float(encodings.alibi_slopes(4)[1])
    assert slope == pytest.approx(1 / 16)
    assert bias_ax.get_title() == "head 2: m = 1/16"
    weights = weights_ax.get_lines()[0].get_ydata()
    assert weights.sum() == pytest.approx(1.0)
    assert weights[:-1] / weights[1:] == pytest.approx(math.exp(-slope))  # exp(-m) per step back
    assert fig._suptitle.get_text() == (
        f"4 heads, slope m = {slope:.4g}: the weight halves every ln 2 / m = {math.log(2) / slope:.3g} positions"
    )
    plt.close(fig)
    fig = plots.draw_alibi_explorer(n_heads=4, head=1, seq_len=10)
    assert fig.axes[1].get_lines()[0].get_ydata()[-1] > weights[-1]  # the steeper head looks closer
    plt.close(fig)
    with pytest.raises(ValueError, match="head must be an integer in 1 .. 4"):
        plots.draw_alibi_explorer(n_heads=4, head=5)
