"""book.plots.ch07_relative: chapter 7's ALiBi panel and its explorers' drawings (ALiBi, T5's buckets)."""

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


def _first_back(buckets, offsets, bucket):
    """The smallest distance r >= 0 whose offset -r has ``bucket``."""
    return min(-int(o) for o, b in zip(offsets, buckets) if o <= 0 and b == bucket)


@pytest.mark.parametrize(
    ("num_buckets", "max_distance", "bidirectional", "exact", "last"),
    [(32, 128, True, 7, 91), (32, 128, False, 15, 113), (8, 20, True, 1, 7), (64, 1000, False, 31, 899)],
)
def test_t5_bucket_explorer_draws_the_library_buckets_and_states_its_landmarks(
    num_buckets, max_distance, bidirectional, exact, last
):
    fig = plots.draw_t5_bucket_explorer(
        num_buckets=num_buckets, max_distance=max_distance, bidirectional=bidirectional, max_offset=1200
    )
    ax = fig.axes[0]
    line = ax.get_lines()[0]
    offsets, buckets = line.get_xdata(), line.get_ydata()
    want = encodings.t5_relative_bucket(
        torch.arange(-1200, 1201), bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    assert list(offsets) == list(range(-1200, 1201)) and list(buckets) == want.tolist()
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    assert exact == per_direction // 2 - 1 and all(buckets[1200 - r] == r for r in range(exact + 1))
    assert last == _first_back(buckets, offsets, per_direction - 1) and last <= max_distance
    half, wide = per_direction // 2, per_direction - per_direction // 2  # B/2 exact, the rest logarithmic
    assert last == math.ceil(half * (max_distance / half) ** ((wide - 1) / wide))  # where the floor reaches B - 1
    kind = "encoder (bidirectional)" if bidirectional else "decoder (one direction)"
    assert ax.get_title() == (
        f"{num_buckets} buckets, max distance {max_distance:,}, {kind}:\n"
        f"exact up to distance {exact}, last bucket from distance {last:,}"
    )
    marks = sorted(x for mark in ax.get_lines()[1:] if (x := mark.get_xdata()[0]) != 0)
    sides = [-1, 1] if bidirectional else [-1]
    assert marks == sorted(s * d for s in sides for d in (exact + 0.5, last - 0.5))
    assert ax.get_xlabel() == "relative position j - i (key minus query)" and ax.get_ylabel() == "bucket"
    plt.close(fig)


def test_t5_bucket_explorer_leaves_out_marks_beyond_its_offsets():
    fig = plots.draw_t5_bucket_explorer(max_offset=20)  # the last bucket starts at 91
    marks = [mark.get_xdata()[0] for mark in fig.axes[0].get_lines()[1:]]
    assert sorted(marks) == [-7.5, 0, 7.5]
    assert fig.axes[0].get_xlim() == (-20.5, 20.5)
    plt.close(fig)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_offset": 0}, ValueError, "max_offset"),
        ({"max_offset": 2.5}, TypeError, "max_offset"),
        ({"num_buckets": 31}, ValueError, "num_buckets must be even"),
        ({"num_buckets": 2}, ValueError, "num_buckets must leave at least 2 buckets"),
        ({"max_distance": 8}, ValueError, "max_distance must exceed the exact range 8"),
        ({"bidirectional": 1}, TypeError, "bidirectional must be True or False"),
    ],
)
def test_t5_bucket_explorer_names_a_bad_setting(kwargs, error, message):
    with pytest.raises(error, match=message):
        plots.draw_t5_bucket_explorer(**kwargs)
    plt.close("all")
