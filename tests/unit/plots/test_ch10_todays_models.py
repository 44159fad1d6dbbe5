"""book.plots.ch10_todays_models: the two-bases picture, p-RoPE against partial rotary, the M-RoPE
axes and the explorer's drawing, each drawn and returning what it drew."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from book import encodings, plots, scaling


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def test_two_bases_panel_counts_each_layers_turned_pairs(ax):
    counts = plots.two_bases_panel(ax, 256, layers={"local": (1e4, 4096), "global": (1e6, 131072)})
    assert counts == {
        "local": scaling.turned_pairs(256, original_max_len=4096, base=1e4),
        "global": scaling.turned_pairs(256, original_max_len=131072, base=1e6),
    }
    assert len(ax.lines) == 4 and "91 pairs turn" in ax.get_title()
    waves = ax.lines[0].get_ydata()
    assert math.isclose(waves[1], 2 * math.pi * 1e4 ** (2 / 256))


@pytest.mark.parametrize("layers", [{}, {str(n): (1e4, 8) for n in range(8)}])
def test_two_bases_panel_rejects_no_layers_or_too_many(ax, layers):
    with pytest.raises(ValueError, match="layers"):
        plots.two_bases_panel(ax, 16, layers=layers)


def test_prope_vs_partial_lists_both_spectra(ax):
    lists = plots.prope_vs_partial(ax, 32, fraction=0.25)
    torch.testing.assert_close(lists["p-RoPE"], encodings.proportional_frequencies(32, fraction=0.25))
    torch.testing.assert_close(lists["partial rotary (NeoX)"][:4], encodings.frequencies(8))
    assert (lists["partial rotary (NeoX)"][4:] == 0).all()
    torch.testing.assert_close(lists["RoPE"][:4], lists["p-RoPE"][:4])  # p-RoPE keeps RoPE's fastest
    assert (lists["p-RoPE"][4:] == 0).all()
    assert "4 of 16 pairs turn" in ax.get_title()


def test_prope_vs_partial_rejects_no_turning_pair(ax):
    with pytest.raises(ValueError, match="fraction"):
        plots.prope_vs_partial(ax, 32, fraction=0.0)
    with pytest.raises(ValueError, match="d_model"):
        plots.prope_vs_partial(ax, 31, fraction=0.5)


def test_prope_scores_are_the_expected_scores_of_each_spectrum(ax):
    offsets = list(range(0, 2000, 7))
    scores = plots.prope_scores(ax, 64, fraction=0.25, offsets=offsets)
    torch.testing.assert_close(scores["RoPE"], encodings.rope_expected_score(offsets, 64))
    x = torch.ones(1, 64, dtype=torch.float64)
    w = encodings.proportional_frequencies(64, fraction=0.25)
    for k in (0, 7, 1995):  # by rotation: <rope(1, k), rope(1, 0)>
        rotated = encodings.apply_rope(x, torch.tensor([float(k)]), freqs=w)
        torch.testing.assert_close(scores["p-RoPE"][k // 7], (rotated @ x.T)[0, 0])
    assert (scores["p-RoPE"] >= 48 - 16 - 1e-9).all()  # 24 still pairs add 48; 8 turning pairs at least -16
    assert scores["partial rotary (NeoX)"][0] == scores["p-RoPE"][0] == 64
    assert len(ax.lines) == 4


def test_prope_scores_rejects_no_offsets(ax):
    with pytest.raises(ValueError, match="offsets"):
        plots.prope_scores(ax, 64, fraction=0.25, offsets=[])


def test_mrope_axes_panel_reads_each_frequencys_axis(ax):
    axes = plots.mrope_axes_panel(ax, 16, contiguous=(2, 3, 3), interleaved=(4, 2, 2))
    contiguous, interleaved = axes.values()
    assert contiguous.tolist() == [0, 0, 1, 1, 1, 2, 2, 2]
    assert interleaved.tolist() == [0, 1, 2, 0, 1, 2, 0, 0]
    for row, (sections, inter) in zip(axes.values(), [((2, 3, 3), False), ((4, 2, 2), True)]):
        ids = torch.tensor([[7.0], [0.0], [0.0]])  # only time moves: only time's frequencies turn
        turned = encodings.mrope_angles(ids, 16, sections, interleaved=inter)[0] != 0
        assert turned.tolist() == (row == 0).tolist()


def test_mrope_axes_panel_rejects_sections_that_do_not_fit(ax):
    with pytest.raises(ValueError, match="interleaved"):
        plots.mrope_axes_panel(ax, 128, interleaved=(16, 24, 24))


def test_two_bases_explorer_draws_gemma_3s_defaults():
    fig = plots.draw_two_bases_explorer()
    title = fig.axes[0].get_title()
    assert "91 pairs turn" in title and "93" in title
    plt.close(fig)
    with pytest.raises(ValueError, match="base"):
        plots.draw_two_bases_explorer(global_base=1.0)
