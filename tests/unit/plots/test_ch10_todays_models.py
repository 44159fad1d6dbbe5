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


# ------------------------------------------------------------ 2-D RoPE and the model explorer
def test_rope_2d_panel_axial_pairs_give_stripes_along_one_axis():
    fig, axes = plt.subplots(1, 3)
    axial = encodings.axial_rope_frequencies(16, base=100.0)
    mixed = encodings.mixed_rope_frequencies(16, [0.7], base=10.0)[:, 0]
    grids = plots.rope_2d_panel(
        axes, {"column pair": (axial, 0), "row pair": (axial, 4), "mixed": (mixed, 0)}, radius=3
    )
    plt.close(fig)
    col, row, mix = grids.values()
    assert col.shape == (7, 7) and float(col[3, 3]) == 1.0  # offset (0, 0): angle 0
    assert torch.equal(col, col[:1].expand(7, 7))  # the same in every row: sees columns only
    assert torch.equal(row, row[:, :1].expand(7, 7))  # the same in every column: sees rows only
    assert not torch.allclose(mix, mix[:1].expand(7, 7)) and not torch.allclose(mix, mix[:, :1].expand(7, 7))


def test_rope_2d_panel_rejects_bad_pairs_and_axes():
    fig, axes = plt.subplots(1, 2)
    axial = encodings.axial_rope_frequencies(8)
    with pytest.raises(ValueError, match="pair must lie"):
        plots.rope_2d_panel(axes, {"a": (axial, 0), "b": (axial, 4)})
    with pytest.raises(ValueError, match="one axis per panel"):
        plots.rope_2d_panel(axes, {"a": (axial, 0)})
    plt.close(fig)


def plan(*layers):
    from book.models import LayerPositions

    return [LayerPositions(*lay) for lay in layers]


def test_layer_pattern_counts_counts_pairs_within_each_kinds_span():
    layers = plan(
        ("sliding_attention", True, 1e4, 1.0, 256, 4096, "default"),
        ("sliding_attention", True, 1e4, 1.0, 256, 4096, "default"),
        ("full_attention", False, 1e4, 1.0, 256, 131072, "default"),
        ("full_attention", True, 1e6, 0.25, 512, 131072, "proportional"),
    )
    counts = plots.layer_pattern_counts(layers)
    assert counts == {
        "RoPE sliding": (2, scaling.turned_pairs(256, original_max_len=4096, base=1e4), 4096),
        "NoPE full": (1, 0, 131072),
        "RoPE full": (1, 64, 131072),  # p-RoPE: the 64 kept pairs all turn, the rest never
    }
    with pytest.raises(ValueError, match="at least one layer"):
        plots.layer_pattern_counts([])


def test_layer_pattern_explorer_draws_every_model_and_rejects_unknown_ones():
    plans = {
        "hybrid": plan(
            ("sliding_attention", True, 1e4, 1.0, 64, 512, "default"),
            ("full_attention", False, 1e4, 1.0, 64, 8192, "default"),
        ),
        "nope only": plan(("full_attention", False, 1e4, 1.0, 64, 8192, "default")),
        "scaled": plan(("full_attention", True, 1.5e5, 1.0, 64, 4096, "yarn")),
    }
    for name in plans:
        fig = plots.draw_layer_pattern_explorer(model=name, plans=plans)
        title = fig.axes[0].get_title()
        assert title.startswith(name) and (("yarn" in title) == (name == "scaled"))
        plt.close(fig)
    with pytest.raises(ValueError, match="model must be one of"):
        plots.draw_layer_pattern_explorer(model="GPT-2", plans=plans)
