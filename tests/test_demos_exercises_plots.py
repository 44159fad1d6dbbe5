"""Tests of the chapter helpers: demo model, self-checks, plots and widgets."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from book import encodings, exercises, plots# noqa: E402
from book.demos import TinySelfAttention  # noqa: E402

TOKENS = ["나", "는", "너", "를", "사랑해"]


@pytest.fixture
def model():
    return TinySelfAttention(sorted(TOKENS), d_model=8, seed=0)


def test_tiny_attention_is_order_blind_without_position(model):
    a, b = model.aligned_outputs(TOKENS, [2, 1, 0, 3, 4])
    torch.testing.assert_close(a, b)
    for kw in ({"positional": True}, {"causal": True}):
        a, b = model.aligned_outputs(TOKENS, [2, 1, 0, 3, 4], **kw)
        assert (a - b).abs().max() > 1e-2


def test_tiny_attention_is_seeded(model):
    again = TinySelfAttention(sorted(TOKENS), d_model=8, seed=0)
    assert torch.equal(model(TOKENS)[0], again(TOKENS)[0])
    assert not torch.equal(model(TOKENS)[0], TinySelfAttention(sorted(TOKENS), d_model=8, seed=1)(TOKENS)[0])


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda m: TinySelfAttention([], 8), "vocab must be a non-empty list of distinct"),
        (lambda m: TinySelfAttention(["a", "a"], 8), "vocab must be a non-empty list of distinct"),
        (lambda m: TinySelfAttention(["a"], 7), "d_model must be even"),
        (lambda m: m(["나", "cat"]), "unknown: \\['cat'\\]"),
        (lambda m: m.aligned_outputs(TOKENS, [0, 1, 2, 3, 3]), "order must be a permutation of 0 .. 4"),
    ],
)
def test_tiny_attention_bad_input(model, call, message):
    with pytest.raises(ValueError, match=message):
        call(model)


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        ([[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]], True, "Correct!"),
        (torch.eye(4)[[2, 0, 3, 1]].T, False, "transpose"),
        (torch.eye(4), False, "of another order"),
        ([[1, 0], [0, 1]], False, "must be 4 x 4"),
        ([[0.5, 0.5, 0, 0]] * 4, False, "0 or 1"),
        ([[1, 0, 0, 0]] * 4, False, "exactly one 1"),
        ("not a matrix", False, "Give P as"),
    ],
)
def test_permutation_matrix_check_hints(capsys, answer, ok, hint):
    assert exercises.check_permutation_matrix(answer, [2, 0, 3, 1]) is ok
    assert hint in capsys.readouterr().out


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


def test_hangul_font_is_registered():
    plots.use_style()
    families = matplotlib.rcParams["font.family"]
    assert families[0] == "DejaVu Sans" and len(families) == 2, families


def test_order_panels_and_explorer(model):
    rows = [("no PE", *model.aligned_outputs(TOKENS, [2, 1, 0, 3, 4]))]
    fig = plots.order_panels(rows, TOKENS)
    assert len(fig.axes) == 4  # three panels and a colorbar
    with pytest.raises(ValueError, match="rows must hold"):
        plots.order_panels([], TOKENS)
    plt.close("all")

    pytest.importorskip("ipywidgets")
    from book.widgets import order_explorer

    box = order_explorer(model, TOKENS)
    order_text = box.children[0].children[0]
    order_text.value = "4 3 2 1 0"          # a new order redraws without error
    order_text.value = "0 0 1 2 3"          # a bad order is reported, not raised
    box.children[0].children[1].click()     # Shuffle proposes a permutation
    assert sorted(map(int, order_text.value.split())) == list(range(5))
    plt.close("all")


W3 = 10000 ** (-2 * 3 / 64)


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (2 * math.pi / W3, True, "Correct!"),
        (torch.tensor(2 * math.pi / W3), True, "Correct!"),
        (1 / W3, False, "length of one radian"),
        (W3, False, "is a frequency"),
        (2 * math.pi * 10000 ** (3 / 64), False, "exponent is 2i/d"),
        (123.0, False, "Start from w_i"),
        ("14.9", False, "one number"),
    ],
)
def test_wavelength_check_hints(capsys, answer, ok, hint):
    assert exercises.check_wavelength(answer, 3, 64) is ok
    assert hint in capsys.readouterr().out


def _block(angle):
    return [[math.cos(angle), math.sin(angle)], [-math.sin(angle), math.cos(angle)]]


W2 = 10000 ** (-2 * 2 / 16)


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (_block(7 * W2), True, "Correct!"),
        (_block(-7 * W2), False, "transpose"),
        (_block(math.radians(7 * W2)), False, "degrees"),
        (_block(7.0), False, "wrong frequency"),
        ([[1, 0], [0, 1]], False, "addition formulas"),
        ([[1, 0, 0]], False, "2 x 2"),
        (None, False, "2 x 2 tensor"),
    ],
)
def test_rotation_block_check_hints(capsys, answer, ok, hint):
    assert exercises.check_rotation_block(answer, 7, 2, 16) is ok
    assert hint in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer,ok,hint",
    [(63, True, "Correct!"), (0, False, "PE(0) itself"), (1, False, "next to 0"),
     (5000, False, "1 .. 1000"), (10, False, "some position is closer"), (2.5, False, "whole position")],
)
def test_closest_position_check_hints(capsys, answer, ok, hint):
    assert exercises.check_closest_position(answer, 8, 1000) is ok
    assert hint in capsys.readouterr().out


def test_closest_position_check_knows_the_farthest(capsys):
    pe = encodings.sinusoidal_at(torch.arange(1001), 8, dtype=torch.float64)
    worst = int(torch.argmax((pe[1:] - pe[0]).norm(dim=-1))) + 1
    assert not exercises.check_closest_position(worst, 8, 1000)
    assert "farthest" in capsys.readouterr().out


def test_chapter_2_to_4_pictures():
    plots.use_style()
    fig, (a, b) = plt.subplots(1, 2)
    plots.pe_overview(a, b, 16, positions=range(50), dim=5)
    assert "pair i = 2" in b.get_title() and a.get_xlabel() == "dimension j"
    with pytest.raises(ValueError, match="dim must be in 0 .. 15"):
        plots.pe_overview(a, b, 16, dim=16)
    with pytest.raises(ValueError, match="at least two positions"):
        plots.pe_overview(a, b, 16, positions=[3])
    fig, axes = plt.subplots(1, 2)
    plots.rotation_circles(list(axes), 16, pos=3, k=2, pairs=[0, 1])
    assert axes[0].get_title() == "pair 0: turns 2 rad"
    with pytest.raises(ValueError, match="same length"):
        plots.rotation_circles(list(axes), 16, pos=3, k=2, pairs=[0])
    fig, ax = plt.subplots()
    image = plots.similarity_panel(ax, 16, seq_len=20, cosine=True)
    assert image.get_array().shape == (20, 20) and image.get_clim()[1] == pytest.approx(1.0)
    plt.close("all")


@pytest.mark.parametrize("name", ["pe_explorer", "rotation_explorer", "fingerprint_explorer"])
def test_chapter_2_to_4_explorers_redraw(name):
    pytest.importorskip("ipywidgets")
    from book import widgets

    box = getattr(widgets, name)()
    for row in box.children[:-1]:
        for control in row.children:
            if hasattr(control, "max") and isinstance(control.value, int):
                control.value = control.max          # every slider at its end redraws
    plt.close("all")


def test_rotation_animation_has_one_frame_per_offset():
    plots.use_style()
    anim = plots.rotation_animation(16, offsets=[0, 1, 2], pairs=[0, 1])
    html = anim.to_jshtml()
    assert html.count("data:image/png;base64") == 3
    with pytest.raises(ValueError, match="offsets must hold"):
        plots.rotation_animation(16, offsets=[], pairs=[0])


def test_animation_html_is_offline():
    anim = plots.rotation_animation(16, offsets=[0, 1], pairs=[0])
    assert "font-awesome" in anim.to_jshtml()       # matplotlib links a CDN ...
    html = plots.animation_html(anim, alt="Two unit circles with a point turning")
    assert "http" not in html.split("<script")[0]   # ... which we drop
    assert "font-awesome" not in html and html.count("data:image/png;base64") == 2
    assert 'alt="Two unit circles with a point turning"' in html
    with pytest.raises(ValueError, match="alt must describe"):
        plots.animation_html(anim, alt="anim")


BAD_HELPER_INPUTS = [
    (lambda ax: exercises.check_wavelength(1.0, 40, 64), ValueError, "i must be a pair index in 0 .. 31"),
    (lambda ax: exercises.check_wavelength(1.0, 1.5, 64), TypeError, "i must be an integer pair index"),
    (lambda ax: exercises.check_rotation_block([[1, 0], [0, 1]], 1, 99, 16), ValueError, "i must be a pair index in 0 .. 7"),
    (lambda ax: exercises.check_rotation_block([[1, 0], [0, 1]], float("inf"), 1, 16), ValueError, "k must be finite"),
    (lambda ax: exercises.check_closest_position(1, 8, 0), ValueError, "max_position must be a positive integer"),
    (lambda ax: plots.rotation_circles([ax], 16, pos=0, k=1, pairs=[9]), ValueError, r"pairs\[\] must be a pair index"),
    (lambda ax: plots.similarity_panel(ax, 16, seq_len=0), ValueError, "seq_len must be a positive integer"),
    (lambda ax: plots.pe_overview(ax, ax, 15), ValueError, "dim must be in|d_model must be even"),
]


@pytest.mark.parametrize("call,exc,message", BAD_HELPER_INPUTS, ids=[m for _, _, m in BAD_HELPER_INPUTS])
def test_helpers_reject_bad_input_clearly(call, exc, message):
    fig, ax = plt.subplots()
    with pytest.raises(exc, match=message):
        call(ax)
    plt.close("all")


# ------------------------------------------------- the explorers' drawings (chapters 1-4)
def test_draw_order_explorer(model):
    fig = plots.draw_order_explorer(model, TOKENS, order=[4, 3, 2, 1, 0])
    title = fig._suptitle.get_text()
    assert title.startswith("order B: 사랑해 를 너 는 나")
    change = float(title.rsplit("= ", 1)[1])
    assert change < 1e-6                       # no PE, no mask: blind to the order (up to rounding)
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


def test_draw_pe_explorer_follows_its_state():
    fig = plots.draw_pe_explorer(d_model=32, base=100.0, positions=(10, 60), dim=5)
    heat, lines = fig.axes[0], fig.axes[1]
    assert heat.get_title() == "PE, d = 32, base = 100"
    table = heat.images[0].get_array()
    assert table.shape == (50, 32)
    torch.testing.assert_close(torch.as_tensor(table.data),
                               encodings.sinusoidal_at(torch.arange(10, 60), 32, base=100.0), check_dtype=False)
    sin, cos = lines.get_lines()[:2]
    assert list(sin.get_xdata()) == list(range(10, 60))
    assert sin.get_label() == "dim 4 (sin)" and cos.get_label() == "dim 5 (cos)"
    assert lines.get_title().startswith("pair i = 2: wavelength")
    assert list(heat.get_lines()[0].get_xdata()) == [5, 5]        # the chosen dimension, dotted
    plt.close(fig)
    other = plots.draw_pe_explorer(d_model=32, base=100.0, positions=(10, 60), dim=20)
    assert other.axes[1].get_title().startswith("pair i = 10:")
    plt.close(other)
    with pytest.raises(ValueError, match="dim must be in 0 .. 31"):
        plots.draw_pe_explorer(d_model=32, dim=32)
    plt.close("all")


def test_draw_rotation_explorer_moves_each_pair_by_k_omega():
    fig = plots.draw_rotation_explorer(pos=3, k=5, d_model=16, pairs=(0, 2))
    assert len(fig.axes) == 2 and fig._suptitle.get_text() == "PE(p) to PE(p + k): p = 3, k = 5"
    w = encodings.frequencies(16)
    for ax, i in zip(fig.axes, (0, 2)):
        dot, square = ax.get_lines()[2], ax.get_lines()[3]
        assert dot.get_xydata()[0] == pytest.approx([math.sin(3 * w[i]), math.cos(3 * w[i])])
        assert square.get_xydata()[0] == pytest.approx([math.sin(8 * w[i]), math.cos(8 * w[i])])
        assert ax.get_title() == f"pair {i}: turns {5 * float(w[i]):.3g} rad"
    plt.close(fig)
    fig = plots.draw_rotation_explorer(pos=3, k=-1, d_model=16, pairs=(0, 2))
    assert fig.axes[0].get_lines()[3].get_xydata()[0] == pytest.approx([math.sin(2.0), math.cos(2.0)])
    plt.close(fig)


def test_draw_fingerprint_explorer_cosine_and_dot_product():
    fig = plots.draw_fingerprint_explorer(d_model=16, base=100.0, seq_len=24, cosine=True)
    (ax,) = [a for a in fig.axes if a.images]
    sim = ax.images[0].get_array()
    assert sim.shape == (24, 24) and ax.get_title() == "d = 16, base = 100"
    assert list(sim.diagonal()) == pytest.approx([1.0] * 24)
    plt.close(fig)
    fig = plots.draw_fingerprint_explorer(d_model=16, base=100.0, seq_len=40, cosine=False)
    sim = [a for a in fig.axes if a.images][0].images[0].get_array()
    assert sim.shape == (40, 40) and list(sim.diagonal()) == pytest.approx([8.0] * 40)   # |PE(p)|^2 = d/2
    plt.close(fig)


@pytest.mark.parametrize("explorer, moves, draw, expected", [
    ("pe_explorer", [(0, 0, 32), (0, 1, 100.0), (1, 1, 20)], "draw_pe_explorer",
     {"d_model": 32, "base": 100.0, "dim": 20}),
    ("rotation_explorer", [(0, 0, 7), (0, 1, -3)], "draw_rotation_explorer", {"pos": 7, "k": -3}),
    ("fingerprint_explorer", [(0, 0, 16), (1, 0, 32), (1, 1, False)], "draw_fingerprint_explorer",
     {"d_model": 16, "seq_len": 32, "cosine": False}),
])
def test_explorers_2_4_call_their_drawing(monkeypatch, explorer, moves, draw, expected):
    """Each control passes its value to the explorer's draw function."""
    pytest.importorskip("ipywidgets")
    from book import widgets

    calls = []
    real = getattr(plots, draw)
    monkeypatch.setattr(widgets, draw, lambda *a, **kw: calls.append(kw) or real(*a, **kw))
    box = getattr(widgets, explorer)()
    assert len(calls) == 1
    for row, col, value in moves:
        box.children[row].children[col].value = value
    assert {k: calls[-1][k] for k in expected} == expected
    plt.close("all")
