"""book.plots.ch05_learned: chapter 5's table similarity, PCA path and its explorer's drawing."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from book import plots


def test_table_similarity_is_on_minus_one_to_one_and_pca_path_gives_the_variance_share():
    table = torch.cumsum(torch.randn(20, 8, generator=torch.Generator().manual_seed(0)), 0)
    sim = plots.cosine_similarity(table)
    torch.testing.assert_close(sim.diagonal(), torch.ones(20, dtype=torch.float64))
    fig, (a, b) = plt.subplots(1, 2)
    image = plots.table_similarity_panel(a, table, title="t")
    assert image.get_clim() == (-1.0, 1.0)
    share = plots.pca_path(b, table)
    assert 0 < share <= 1 and b.get_xlabel() == "principal component 1"
    line = torch.zeros(10, 4)
    line[:, 0] = torch.arange(10.0)  # a straight line: one component
    assert plots.pca_path(b, line, colorbar=False) == pytest.approx(1.0)
    plt.close("all")


def test_pca_path_needs_three_rows():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="at least 3 rows"):
        plots.pca_path(ax, torch.ones(2, 4))
    plt.close("all")


def test_draw_learned_table_explorer_shows_the_chosen_step():
    snaps = {
        0: torch.randn(12, 8, generator=torch.Generator().manual_seed(0)),
        10: torch.cumsum(torch.randn(12, 8, generator=torch.Generator().manual_seed(1)), 0),
    }
    fig = plots.draw_learned_table_explorer(snaps, step=10)
    left = fig.axes[0]
    assert left.get_title() == "similarity after 10 steps"
    torch.testing.assert_close(torch.as_tensor(left.images[0].get_array().data), plots.cosine_similarity(snaps[10]))
    _, ax = plt.subplots()
    share = plots.pca_path(ax, snaps[10])
    assert fig._suptitle.get_text() == f"step 10: the two components explain {share:.0%} of the variance"
    plt.close("all")
    fig = plots.draw_learned_table_explorer(snaps, step=0)
    torch.testing.assert_close(
        torch.as_tensor(fig.axes[0].images[0].get_array().data), plots.cosine_similarity(snaps[0])
    )
    plt.close(fig)
    with pytest.raises(ValueError, match="step must be one of"):
        plots.draw_learned_table_explorer(snaps, step=5)
