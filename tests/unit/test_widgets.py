"""book.widgets: every explorer redraws when a control moves, and passes its state to its drawing."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
import torch

pytest.importorskip("ipywidgets")

from book import plots, widgets
from book.demos import TinySelfAttention

TOKENS = ["나", "는", "너", "를", "사랑해"]


@pytest.fixture
def model():
    return TinySelfAttention(sorted(TOKENS), d_model=8, seed=0)


def test_order_explorer_redraws(model):
    from book.widgets import order_explorer

    box = order_explorer(model, TOKENS)
    order_text = box.children[0].children[0]
    order_text.value = "4 3 2 1 0"  # a new order redraws without error
    order_text.value = "0 0 1 2 3"  # a bad order is reported, not raised
    box.children[0].children[1].click()  # Shuffle proposes a permutation
    assert sorted(map(int, order_text.value.split())) == list(range(5))
    plt.close("all")


@pytest.mark.parametrize("name", ["pe_explorer", "rotation_explorer", "fingerprint_explorer"])
def test_chapter_2_to_4_explorers_redraw(name):
    box = getattr(widgets, name)()
    for row in box.children[:-1]:
        for control in row.children:
            if hasattr(control, "max") and isinstance(control.value, int):
                control.value = control.max  # every slider at its end redraws
    plt.close("all")


@pytest.mark.parametrize(
    "explorer, moves, draw, expected",
    [
        (
            "pe_explorer",
            [(0, 0, 32), (0, 1, 100.0), (1, 1, 20)],
            "draw_pe_explorer",
            {"d_model": 32, "base": 100.0, "dim": 20},
        ),
        ("rotation_explorer", [(0, 0, 7), (0, 1, -3)], "draw_rotation_explorer", {"pos": 7, "k": -3}),
        (
            "fingerprint_explorer",
            [(0, 0, 16), (1, 0, 32), (1, 1, False)],
            "draw_fingerprint_explorer",
            {"d_model": 16, "seq_len": 32, "cosine": False},
        ),
    ],
)
def test_explorers_2_4_call_their_drawing(monkeypatch, explorer, moves, draw, expected):
    """Each control passes its value to the explorer's draw function."""
    calls = []
    real = getattr(plots, draw)
    monkeypatch.setattr(widgets, draw, lambda *a, **kw: calls.append(kw) or real(*a, **kw))
    box = getattr(widgets, explorer)()
    assert len(calls) == 1
    for row, col, value in moves:
        box.children[row].children[col].value = value
    assert {k: calls[-1][k] for k in expected} == expected
    plt.close("all")


def test_explorers_5_7_redraw():
    snaps = {0: torch.randn(12, 8), 10: torch.cumsum(torch.randn(12, 8), 0)}
    box = widgets.learned_table_explorer(snaps)
    box.children[0].children[0].value = 0
    q, k = torch.randn(2, 16)
    box = widgets.rope_explorer(q, k)
    for control in box.children[0].children:
        control.value = control.max
    box = widgets.alibi_explorer()
    heads, head, length = box.children[0].children
    heads.value = 12
    head.value = 12
    length.value = 8
    with pytest.raises(ValueError, match="snapshots must hold"):
        widgets.learned_table_explorer({})
    plt.close("all")


FAKE = {
    "config": {"task": "fibonacci", "train_len": 3},
    "runs": {
        "rope": {"0": {"curve": [None, 1.0, 1.0, 0.5, 0.25]}, "1": {"curve": [None, 1.0, 0.5, 0.5, 0.5]}},
        "alibi": {"0": {"curve": [None, 1.0, 1.0, 1.0, 0.75]}},
    },
}


def test_results_explorer_redraws():
    box = widgets.results_explorer({"fibonacci": FAKE})
    (_, style), picks = box.children[0].children, box.children[1].children
    style.value = "lines"
    for pick in picks:
        pick.value = False  # nothing picked: a message, no error
    with pytest.raises(ValueError, match="at least one task"):
        widgets.results_explorer({})
    plt.close("all")


def test_scaling_explorer_redraws():
    box = widgets.scaling_explorer()
    scale, length = box.children[0].children
    scale.value = 16.0
    length.value = 32
    plt.close("all")


def test_two_bases_explorer_redraws():
    box = widgets.two_bases_explorer()
    (local, glob), (window,) = (row.children for row in box.children[:2])
    glob.value = 1e4
    local.value = 1e5
    window.value = 512
    plt.close("all")
    with pytest.raises(ValueError, match="d_model"):
        widgets.two_bases_explorer(d_model=7)


def test_precision_explorer_redraws():
    box = widgets.precision_explorer()
    (dtype,), (width, base, longest) = (row.children for row in box.children[:2])
    dtype.value = "float16"  # every control redraws (the drawing is tested in tests/unit/plots/)
    dtype.value = "float32"
    longest.value = 2**10
    width.value, base.value = 32, 500000.0
    plt.close("all")


def test_sink_cache_explorer_redraws():
    box = widgets.sink_cache_explorer()
    (length, reassign), (sinks, window) = (row.children for row in box.children[:2])
    reassign.value = False
    length.value, sinks.value, window.value = 200, 0, 3
    plt.close("all")
    with pytest.raises(ValueError, match="trained_len"):
        widgets.sink_cache_explorer(trained_len=0)


def test_t5_bucket_explorer_keeps_to_the_settings_the_library_accepts(monkeypatch):
    """At a small max distance the buckets slider stops where the exact range
    stays below it, lower for the decoder than for the encoder."""
    calls = []
    real = plots.draw_t5_bucket_explorer
    monkeypatch.setattr(widgets, "draw_t5_bucket_explorer", lambda **kw: calls.append(kw) or real(**kw))
    box = widgets.t5_bucket_explorer(bidirectional=False)
    (buckets, distance), (both, reach) = (row.children for row in box.children[:2])
    buckets.value = 128
    distance.value = 4.0  # decoder: exact range B / 2 < 4, so B <= 6
    assert (buckets.max, calls[-1]["num_buckets"], calls[-1]["max_distance"]) == (6, 6, 4)
    both.value = True  # encoder: B / 4 < 4, so B <= 14
    buckets.value = 14
    assert (buckets.max, calls[-1]["num_buckets"], calls[-1]["bidirectional"]) == (14, 14, True)
    distance.value = 3.0  # the slider's end: B <= 10
    assert (buckets.max, calls[-1]["num_buckets"], calls[-1]["max_distance"]) == (10, 10, 3)
    distance.value = 4096.0
    reach.value = 8192.0
    assert buckets.max == 128 and calls[-1]["max_distance"] == 4096 and calls[-1]["max_offset"] == 8192
    plt.close("all")


def test_explorers_reject_bad_settings():
    with pytest.raises(ValueError, match="q and k must have the same even number of features"):
        widgets.rope_explorer(torch.ones(7), torch.ones(7))
    with pytest.raises(ValueError, match="d_model must be between 16 and 256"):
        widgets.precision_explorer(d_model=8)
    with pytest.raises(ValueError, match="d_model must be even"):
        widgets.precision_explorer(d_model=101)
    with pytest.raises(ValueError, match="d_model must be at least 4"):
        widgets.scaling_explorer(d_model=2)
    for kwargs, error, message in [
        ({"num_buckets": 31}, ValueError, "num_buckets must be even"),
        ({"num_buckets": 256}, ValueError, "num_buckets must be between 4 and 128"),
        ({"num_buckets": 2}, ValueError, "num_buckets must be between 4 and 128"),
        ({"max_distance": 8192}, ValueError, "max_distance must be between 3 and 4096"),
        ({"max_distance": 2}, ValueError, "max_distance must be between 3 and 4096"),
        ({"max_distance": 8}, ValueError, "max_distance must exceed the exact range 8"),
        ({"max_distance": 1.5}, TypeError, "max_distance must be an integer"),
        ({"max_offset": 4}, ValueError, "max_offset must be between 8 and 8192"),
        ({"bidirectional": "yes"}, TypeError, "bidirectional must be True or False"),
    ]:
        with pytest.raises(error, match=message):
            widgets.t5_bucket_explorer(**kwargs)


@pytest.mark.parametrize(
    "explorer, args, moves, draw, expected",
    [
        (
            "learned_table_explorer",
            lambda: ({0: torch.randn(12, 8), 10: torch.randn(12, 8)},),
            [(0, 0, 0)],
            "draw_learned_table_explorer",
            {"step": 0},
        ),
        (
            "rope_explorer",
            lambda: tuple(torch.randn(2, 16)),
            [(0, 0, 9), (0, 1, 4), (0, 2, 7)],
            "draw_rope_explorer",
            {"m": 9, "n": 4, "pair": 7},
        ),
        (
            "alibi_explorer",
            lambda: (),
            [(0, 0, 12), (0, 1, 12), (0, 2, 8)],
            "draw_alibi_explorer",
            {"n_heads": 12, "head": 12, "seq_len": 8},
        ),
        (
            "t5_bucket_explorer",
            lambda: (),
            [(0, 0, 64), (0, 1, 1000.0), (1, 0, False), (1, 1, 512.0)],
            "draw_t5_bucket_explorer",
            {"num_buckets": 64, "max_distance": 1000, "bidirectional": False, "max_offset": 512},
        ),
        (
            "precision_explorer",
            lambda: (),
            [(0, 0, "float16"), (1, 0, 32), (1, 2, 2**10)],
            "draw_precision_explorer",
            {"dtype": "float16", "d_model": 32, "longest": 2**10},
        ),
        (
            "sink_cache_explorer",
            lambda: (),
            [(0, 0, 100), (0, 1, False), (1, 0, 2), (1, 1, 5)],
            "draw_sink_cache_explorer",
            {"length": 100, "reassign": False, "sinks": 2, "window": 5},
        ),
    ],
)
def test_explorers_5_10_call_their_drawing(monkeypatch, explorer, args, moves, draw, expected):
    """Each control passes its value to the explorer's draw function (and nothing else draws)."""
    calls = []
    real = getattr(plots, draw)
    monkeypatch.setattr(widgets, draw, lambda *a, **kw: calls.append(kw) or real(*a, **kw))
    box = getattr(widgets, explorer)(*args())
    assert len(calls) == 1  # drawn once on display
    for row, col, value in moves:
        box.children[row].children[col].value = value
    assert {k: calls[-1][k] for k in expected} == expected
    plt.close("all")


def test_layer_pattern_explorer_redraws_for_each_model():
    from book.models import LayerPositions

    rope = LayerPositions("full_attention", True, 1e4, 1.0, 64, 2048, "default")
    nope = LayerPositions("full_attention", False, 1e4, 1.0, 64, 2048, "default")
    box = widgets.layer_pattern_explorer({"a": [rope, nope], "b": [rope]})
    (model,) = box.children[0].children
    model.value = "b"
    plt.close("all")
    with pytest.raises(ValueError, match="plans"):
        widgets.layer_pattern_explorer({})
