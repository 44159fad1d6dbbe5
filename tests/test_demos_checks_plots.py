"""Tests of the chapter helpers: demo model, self-checks, plots and widgets."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from book import checks, plots  # noqa: E402
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
    assert checks.check_permutation_matrix(answer, [2, 0, 3, 1]) is ok
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
