"""book.plots._common: the heatmap and the cosine similarity that several chapters use."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from book import plots


def test_heatmap_signed_is_centred_and_rejects_vectors():
    plots.use_style()
    fig, ax = plt.subplots()
    image = plots.heatmap(ax, torch.tensor([[-1.0, 3.0], [0.0, 2.0]]), xlabel="x", ylabel="y", title="t")
    assert image.get_clim() == (-3.0, 3.0) and image.get_cmap().name == plots.SIGNED_CMAP
    image = plots.heatmap(ax, [[0.0, 0.5]], signed=False, colorbar=False)
    assert image.get_clim() == (0.0, 0.5) and image.get_cmap().name == plots.POSITIVE_CMAP
    with pytest.raises(ValueError, match="values must be a 2-D matrix"):
        plots.heatmap(ax, [1.0, 2.0])
    plt.close("all")


def test_cosine_similarity_rejects_a_vector():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="table must be a 2-D floating tensor"):
        plots.cosine_similarity(torch.ones(3))
    plt.close("all")
