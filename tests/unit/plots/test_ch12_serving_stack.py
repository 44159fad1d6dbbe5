"""book.plots.ch12_serving_stack: a batch's position ids, the packing masks, the StreamingLLM cache and
the explorer's drawing, each drawn and returning what it drew."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from book import encodings, plots


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def test_batch_ids_panel_labels_real_tokens_and_pads(ax):
    mask = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1]])
    plots.batch_ids_panel(ax, encodings.position_ids_from_mask(mask), mask, title="left padding")
    labels = [t.get_text() for t in ax.texts]
    assert labels == ["pad", "pad", "0", "1", "0", "1", "2", "3"]
    assert ax.get_title() == "left padding"


def test_batch_ids_panel_rejects_shapes_that_differ(ax):
    with pytest.raises(ValueError, match="position_ids and attention_mask must be 2-D of one shape"):
        plots.batch_ids_panel(ax, torch.zeros(2, 3, dtype=torch.long), torch.ones(2, 4, dtype=torch.long))


def test_packing_masks_count_the_pairs_that_cross_documents():
    fig = plots.packing_masks([2, 1, 3])
    left, right = fig.axes
    # causal pairs 21, document pairs 3 + 1 + 6 = 10: 11 cross
    assert "11 pairs cross documents" in left.get_title() and "none cross" in right.get_title()
    plt.close(fig)


def test_sink_cache_panel_with_and_without_reassigned_positions(ax):
    info = plots.sink_cache_panel(ax, 100, sinks=4, window=8, reassign=True)
    assert info == {"cached": 12, "query": 12, "largest_offset": 12}
    assert ax.collections[-1].get_offsets()[:, 1].tolist() == list(range(13))  # keys, then the query
    ax.clear()
    info = plots.sink_cache_panel(ax, 100, sinks=4, window=8, reassign=False)
    assert info == {"cached": 12, "query": 100, "largest_offset": 100}
    assert ax.collections[-1].get_offsets()[:, 1].tolist() == [0, 1, 2, 3, *range(92, 100), 100]


def test_draw_sink_cache_explorer_says_within_or_beyond():
    fig = plots.draw_sink_cache_explorer(length=100, sinks=4, window=8, reassign=True, trained_len=32)
    assert "largest offset 12, within the trained length 32" in fig.axes[0].get_title()
    plt.close(fig)
    fig = plots.draw_sink_cache_explorer(length=100, sinks=4, window=8, reassign=False, trained_len=32)
    assert "largest offset 100, beyond the trained length 32" in fig.axes[0].get_title()
    plt.close(fig)


def test_draw_sink_cache_explorer_draws_the_trained_length_back_from_the_query():
    # the dashed line is at query - trained_len: the window keys (92..99) lie above it
    for reassign, query in ((False, 100), (True, 12)):
        fig = plots.draw_sink_cache_explorer(length=100, sinks=4, window=8, reassign=reassign, trained_len=32)
        (line,) = fig.axes[0].get_lines()
        assert list(line.get_ydata()) == [query - 32, query - 32]
        assert "farther than the trained length 32 from the query" in line.get_label()
        plt.close(fig)
    with pytest.raises(ValueError, match="trained_len"):
        plots.draw_sink_cache_explorer(trained_len=0)
    with pytest.raises(ValueError, match="window"):
        plots.draw_sink_cache_explorer(window=0)
