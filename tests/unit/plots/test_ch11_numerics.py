"""book.plots.ch11_numerics: chapter 11's RoPE angle errors and its explorer's drawing."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from book import plots


def test_rope_angle_errors_one_line_per_dtype_and_none_past_overflow():
    fig, ax = plt.subplots()
    positions = torch.tensor([1, 10, 100, 1000, 70000])
    errors = plots.rope_angle_errors(ax, positions, 128, dtypes=["bfloat16", "float16"])
    assert list(errors) == ["bfloat16", "float16", "book (float64 angles)"]
    assert [line.get_label() for line in ax.get_lines()] == list(errors)
    assert math.isnan(ax.get_lines()[1].get_ydata()[-1])  # float16 overflow: no point drawn
    assert ax.get_xlabel() == "position m"
    plt.close(fig)


def test_rope_angle_errors_rejects_a_name_that_is_no_dtype():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="dtypes must name torch dtypes"):
        plots.rope_angle_errors(ax, torch.arange(1, 5), 8, dtypes=["float8"])
    plt.close("all")


def test_draw_precision_explorer_says_where_the_error_passes_001():
    fig = plots.draw_precision_explorer(dtype="float16", d_model=128, longest=2**17)
    (ax,) = fig.axes
    title = fig._suptitle.get_text()
    assert title.startswith("float16 angles: cosines off by more than 0.01 from about position ")
    # float16's largest is 65504; the plotted positions skip from below 65,520 to 72,176
    assert title.endswith(
        "\nfloat16 rounds positions from 65,520 on to inf (no line from the first plotted position past it)"
    )
    assert [line.get_label() for line in ax.get_lines()] == ["float16", "book (float64 angles)"]
    assert ax.get_lines()[0].get_xdata()[-1] == 2**17
    plt.close(fig)
    fig = plots.draw_precision_explorer(dtype="float32", d_model=32, base=500000.0, longest=2**10)
    assert fig._suptitle.get_text() == "float32 angles: cosines off by more than 0.01 nowhere up to 1,024"
    assert fig.axes[0].get_title() == "RoPE angles in low precision, d = 32"
    plt.close(fig)
    fig = plots.draw_precision_explorer(dtype="float32", d_model=32, base=500000.0, longest=20)
    last = fig.axes[0].get_lines()[0].get_xdata()[-1]  # float32's logspace falls short of 20
    assert last == 19 and fig._suptitle.get_text().endswith("nowhere up to 19")
    plt.close(fig)
    with pytest.raises(ValueError, match="dtypes must name torch dtypes"):
        plots.draw_precision_explorer(dtype="float8")
