"""book.plots.ch01_order_blind: chapter 1's order panels and its explorer's drawing."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from book import plots
from book.demos import TinySelfAttention

TOKENS = ["나", "는", "너", "를", "사랑해"]


@pytest.fixture
def model():
    return TinySelfAttention(sorted(TOKENS), d_model=8, seed=0)


def test_order_panels_draw_three_panels_and_a_colorbar_per_row(model):
    rows = [("no PE", *model.aligned_outputs(TOKENS, [2, 1, 0, 3, 4]))]
    fig = plots.order_panels(rows, TOKENS)
    assert len(fig.axes) == 4  # three panels and a colorbar
    with pytest.raises(ValueError, match="rows must hold"):
        plots.order_panels([], TOKENS)
    plt.close("all")


def test_draw_order_explorer_is_blind_without_pe_and_sees_the_order_with_it(model):
    fig = plots.draw_order_explorer(model, TOKENS, order=[4, 3, 2, 1, 0])
    title = fig._suptitle.get_text()
    assert title.startswith("order B: 사랑해 를 너 는 나")
    change = float(title.rsplit("= ", 1)[1])
    assert change < 1e-6  # no PE, no mask: blind to the order (up to rounding)
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["no PE: order A", "no PE: order B", "no PE: B - A"]
    assert abs(panels[2].images[0].get_array()).max() == pytest.approx(change, rel=0.05)
    plt.close(fig)
    fig = plots.draw_order_explorer(model, TOKENS, order=[4, 3, 2, 1, 0], positional=True, causal=True)
    panels = [ax for ax in fig.axes if ax.images]
    a, b = model.aligned_outputs(TOKENS, [4, 3, 2, 1, 0], positional=True, causal=True)
    assert panels[0].get_title() == "PE, causal: order A"
    assert (panels[2].images[0].get_array() == (b - a).numpy()).all()
    assert f"largest |B - A| = {float((b - a).abs().max()):.1e}" in fig._suptitle.get_text()
    assert float((b - a).abs().max()) > 0.01
    plt.close(fig)
    with pytest.raises(ValueError, match="order must be a permutation"):
        plots.draw_order_explorer(model, TOKENS, order=[0, 0, 1, 2, 3])
