"""book.plots.ch09_long_context: which RoPE pairs make a full turn within the
training length (``scaling.turned_pairs``, which the panel draws), drawn
against it (``wavelength_panel``), each rule's rescaling (``scaling_ratios``),
the explorer's drawing (``draw_scaling_explorer``) and the widget that calls it."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from book import encodings, plots, scaling


@pytest.mark.parametrize(
    "d, L, base",
    [
        (128, 2048, 10000.0),
        (128, 32, 10000.0),
        (16, 32, 10000.0),
        (64, 4096, 500000.0),
        (8, 2, 10000.0),
        (8, 10**9, 10.0),
    ],
)
def test_turned_pairs_counts_wavelengths_within_L(d, L, base):
    c = scaling.turned_pairs(d, original_max_len=L, base=base)
    waves = [2 * math.pi * base ** (2 * i / d) for i in range(d // 2)]  # by hand
    assert c == sum(w <= L for w in waves)
    assert all(w <= L for w in waves[:c]) and all(w > L for w in waves[c:])
    closed = math.floor(d * math.log(L / (2 * math.pi)) / (2 * math.log(base))) + 1
    assert c == min(max(closed, 0), d // 2)


def test_turned_pairs_is_yarns_one_turn_boundary_and_llamas_pi_band():
    # pairs from c on make less than one turn: the code's ramp is 0 there (as PI),
    # and Llama 3.1's rule (wavelength > L / low_freq_factor = L) divides them by s
    d, L, s = 128, 2048, 4.0
    c = scaling.turned_pairs(d, original_max_len=L)
    assert c == 41
    assert (scaling.yarn_ramp(d, original_max_len=L)[c:] == 0).all()
    assert scaling.yarn_ramp(d, original_max_len=L)[c - 1] > 0
    llama = scaling.llama3_frequencies(d, factor=s, original_max_len=L, base=10000.0)
    old = encodings.frequencies(d)
    torch.testing.assert_close(llama[c:], old[c:] / s)
    assert not torch.allclose(llama[c - 1], old[c - 1] / s)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: scaling.turned_pairs(7, original_max_len=32), "d_model"),
        (lambda: scaling.turned_pairs(16, original_max_len=0), "original_max_len"),
        (lambda: scaling.turned_pairs(16, original_max_len=32, base=1.0), "base"),
    ],
)
def test_turned_pairs_rejects_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_wavelength_panel_draws_the_wavelengths_and_L():
    fig, ax = plt.subplots()
    first = plots.wavelength_panel(ax, 16, original_max_len=32, scale=4.0)
    assert first == 2 and ax.get_yscale() == "log"
    dots = ax.get_lines()[0]
    torch.testing.assert_close(torch.as_tensor(dots.get_ydata()), 2 * math.pi / encodings.frequencies(16))
    levels = {line.get_label(): line.get_ydata()[0] for line in ax.get_lines()[1:]}
    assert levels == {"training length L = 32": 32, "stretched length sL = 128": 128}
    assert ax.get_title() == "2 pairs turn within L, 6 never do"
    (shade,) = ax.patches
    assert shade.get_x() == pytest.approx(1.5)  # from pair 2 to the last pair
    with pytest.raises(ValueError, match="scale must be a number >= 1"):
        plots.wavelength_panel(ax, 16, original_max_len=32, scale=0.5)
    _, empty = plt.subplots()
    with pytest.raises(ValueError, match="scale must be a number >= 1"):
        plots.wavelength_panel(empty, 16, original_max_len=32, scale=0.5)
    assert not empty.get_lines() and not empty.patches  # checked before drawing
    plt.close("all")


def test_scaling_ratios_per_rule_with_the_pairs_yarn_keeps_in_the_title():
    fig, ax = plt.subplots()
    ratios = plots.scaling_ratios(ax, 128, scale=4.0, original_max_len=2048)
    assert set(ratios) == {"PI", "NTK-aware", "YaRN"}
    assert float(ratios["PI"][0]) == pytest.approx(0.25) and float(ratios["YaRN"][0]) == 1.0
    turns = 2048 * encodings.frequencies(128) / (2 * math.pi)  # YaRN keeps r_i > beta = 32
    assert f"{int((turns > 32).sum())} pairs kept by YaRN" in ax.get_title()
    plt.close("all")


def test_draw_scaling_explorer_follows_its_state():
    fig = plots.draw_scaling_explorer(scale=4.0, original_max_len=2048, d_model=128)
    waves, rules = fig.axes
    assert waves.get_title() == "41 pairs turn within L, 23 never do"
    assert rules.get_title() == "s = 4, L = 2,048, 17 pairs kept by YaRN"
    pi = {line.get_label(): line for line in rules.get_lines()}["PI"]
    assert list(pi.get_ydata()) == pytest.approx([0.25] * 64)
    assert [
        line.get_xdata()[0]
        for line in rules.get_lines()
        if line.get_linestyle() == "--" and line.get_label().startswith("_")
    ] == [40.5]  # the first pair that never turns
    text = fig._suptitle.get_text()
    assert "of the 23 pairs that never turn within L" in text
    assert "PI keeps 23, NTK-aware keeps 1, YaRN keeps 23" in text  # NTK-aware: only the slowest
    plt.close(fig)
    other = plots.draw_scaling_explorer(scale=16.0, original_max_len=32, d_model=128)
    assert other.axes[0].get_title() == "12 pairs turn within L, 52 never do"
    pi = {line.get_label(): line for line in other.axes[1].get_lines()}["PI"]
    assert list(pi.get_ydata()) == pytest.approx([1 / 16] * 64)
    assert "stretched length sL = 512" in [line.get_label() for line in other.axes[0].get_lines()]
    plt.close(other)
    with pytest.raises(ValueError, match="scale"):
        plots.draw_scaling_explorer(scale=0.5)


def test_scaling_explorer_calls_its_drawing(monkeypatch):
    pytest.importorskip("ipywidgets")
    from book import widgets

    calls = []
    real = plots.draw_scaling_explorer
    monkeypatch.setattr(widgets, "draw_scaling_explorer", lambda **kw: calls.append(kw) or real(**kw))
    box = widgets.scaling_explorer(d_model=64)
    assert calls == [{"scale": 4.0, "original_max_len": 2048, "d_model": 64}]
    scale, length = box.children[0].children
    scale.value = 16.0
    length.value = 32
    assert calls[-1] == {"scale": 16.0, "original_max_len": 32, "d_model": 64}
    plt.close("all")
