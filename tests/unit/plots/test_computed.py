"""book.plots.computed: the computed explorers' HTML, controls and book's values.

The page's JavaScript is compared with ``explorer_values`` in Chromium by
tests/site/test_computed_explorers.py; here ``explorer_values`` is checked
against the numbers the chapters' draw functions and the library give."""

from __future__ import annotations

import html
import json
import math
import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from book import scaling
from book.encodings import alibi_slopes, frequencies, sinusoidal_at
from book.plots import computed

ALT = "A test explorer's figure, computed in the page."
Q, K = torch.randn(2, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(10))
DATA = {"rope": {"q": Q, "k": K}}


def _spec(text: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" class="cx-spec">(.*?)</script>', text, re.S).group(1))


@pytest.mark.parametrize("view", list(computed.COMPUTED_VIEWS))
def test_html_is_self_contained_with_labelled_controls(view):
    text = computed.computed_html(view, name="t-1", alt=ALT, **DATA.get(view, {}))
    assert text.count('id="cx-t-1"') == 1
    assert "http:" not in text and "https:" not in text and " src=" not in text  # nothing to fetch
    controls = computed.COMPUTED_VIEWS[view]["controls"]
    for c in controls:
        assert f'<label for="cx-t-1-{c["name"]}">{c["label"]}</label>' in text
        assert f'id="cx-t-1-{c["name"]}" data-param="{c["name"]}"' in text
    assert text.count("<script>") == 1 and text.count("</script>") == 2  # the spec and the modules
    spec = _spec(text)
    assert spec["view"] == view and [c["name"] for c in spec["controls"]] == [c["name"] for c in controls]
    assert spec["palette"]["lines"][0] == "#0072B2" and len(spec["palette"]["signed"]) == 256 * 6
    assert f'aria-label="{html.escape(ALT)}"' in text and 'aria-live="polite"' in text
    assert text == computed.computed_html(view, name="t-1", alt=ALT, **DATA.get(view, {}))  # the same on every run


def test_only_the_modules_a_view_needs_are_inlined():
    text = computed.computed_html("alibi", name="t-2", alt=ALT)
    assert "B.alibi = " in text and "B.views.alibi = " in text
    assert "B.rope = " not in text and "B.scaling = " not in text and "B.views.pe = " not in text


def test_signed_colour_table_is_the_books_diverging_colormap():
    lut = computed._signed_lut()
    rgb = [int(lut[i : i + 2], 16) for i in range(0, len(lut), 2)]
    assert rgb[:3][2] > rgb[:3][0]  # RdBu_r: blue at -vmax
    assert rgb[-3] > rgb[-1]  # red at +vmax
    assert min(rgb[127 * 3 : 128 * 3 + 3]) > 240  # nearly white at 0


def test_initial_values_set_the_sliders():
    controls = {c["name"]: c for c in computed.computed_controls("pe", {"base": 100.0, "d_model": 16})}
    assert controls["base"]["value"] == pytest.approx(2.0) and controls["d_model"]["value"] == 16
    assert computed.COMPUTED_VIEWS["pe"]["controls"][1]["value"] == 4  # the table itself is unchanged
    lengths = {c["name"]: c for c in computed.computed_controls("scaling", {"original_max_len": 2048})}
    assert lengths["original_max_len"]["value"] == 11
    checks = {c["name"]: c for c in computed.computed_controls("fingerprint", {"cosine": False})}
    assert checks["cosine"]["value"] is False


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: computed.computed_controls("spiral"), "view must be one of"),
        (lambda: computed.computed_controls("pe", {"width": 4}), "not controls of 'pe'"),
        (lambda: computed.computed_controls("pe", {"d_model": 1024}), "outside the control's range"),
        (lambda: computed.computed_controls("pe", {"base": 0.0}), "must be positive"),
        (lambda: computed.computed_controls("pe", {"d_model": math.nan}), "finite number"),
        (lambda: computed.computed_controls("pe", {"d_model": True}), "finite number"),
        (lambda: computed.computed_controls("fingerprint", {"cosine": 1}), "True or False"),
        (lambda: computed.computed_controls("precision", {"dtype": "float64"}), "must be one of"),
        (lambda: computed.computed_controls("precision", {"longest": 2**25}), "outside the control's range"),
        (
            lambda: computed.explorer_values(
                "precision", {"dtype": "int8", "d_model": 8, "base": 100.0, "longest": 16}
            ),
            "dtype must be",
        ),
        (lambda: computed.computed_html("pe", name="a b", alt=ALT), "name must be"),
        (lambda: computed.computed_html("pe", name="a", alt="short"), "alt must describe"),
        (lambda: computed.computed_html("rope", name="a", alt=ALT), "needs q and k"),
        (lambda: computed.computed_html("rope", name="a", alt=ALT, q=Q[:4], k=K[:4]), "16 numbers"),
        (lambda: computed.computed_html("pe", name="a", alt=ALT, width=3), "unknown data"),
        (lambda: computed.explorer_values("spiral", {}), "view must be one of"),
    ],
)
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_pe_values_are_the_sinusoidal_table_and_wavelength():
    v = computed.explorer_values("pe", {"d_model": 16, "base": 100.0, "start": 5, "dim": 7})
    table = sinusoidal_at(torch.arange(5, 205), 16, base=100.0, dtype=torch.float64).numpy()
    np.testing.assert_array_equal(v["table"], table.ravel())
    assert v["wavelength"] == pytest.approx(2 * math.pi * 100.0 ** (6 / 16))


def test_rotation_values_turn_each_pair_by_k_w():
    v = computed.explorer_values("rotation", {"pos": 10, "k": -4.5})
    w = frequencies(16).numpy()[:4]
    np.testing.assert_allclose(v["rad"], -4.5 * w)
    np.testing.assert_allclose(np.arctan2(v["pe_pk"][0::2], v["pe_pk"][1::2])[:4], np.angle(np.exp(1j * 5.5 * w)))


def test_fingerprint_values_depend_only_on_the_offset():
    v = computed.explorer_values("fingerprint", {"d_model": 32, "base": 10000.0, "seq_len": 40, "cosine": True})
    sim = v["sim"]
    assert sim.shape == (40, 40)
    np.testing.assert_allclose(np.diag(sim), 1.0)
    np.testing.assert_allclose(sim[3, 10], sim[20, 27])
    raw = computed.explorer_values("fingerprint", {"d_model": 32, "base": 10000.0, "seq_len": 40, "cosine": False})
    np.testing.assert_allclose(np.diag(raw["sim"]), 16.0)


def test_rope_values_match_the_draw_functions_title_and_curve():
    from book.plots import draw_rope_explorer

    v = computed.explorer_values("rope", {"m": 9, "n": 2, "pair": 3, "max_position": 64}, q=Q, k=K)
    fig = draw_rope_explorer(Q, K, m=9, n=2, pair=3)
    try:
        assert f"pair 3 adds {v['part']:+.3f} to the score" in fig._suptitle.get_text()
        curve = fig.axes[1].get_lines()[0].get_ydata()
    finally:
        plt.close(fig)
    np.testing.assert_allclose(v["scores"], curve)
    assert v["score"] == pytest.approx(v["scores"][64 + 7])


def test_alibi_values_are_the_slopes_biases_and_causal_weights():
    v = computed.explorer_values("alibi", {"n_heads": 12, "head": 3, "seq_len": 16})
    np.testing.assert_array_equal(v["slopes"], alibi_slopes(12).double().numpy())
    assert v["bias"][15, 0] == pytest.approx(-15 * v["slope"]) and np.isnan(v["bias"][0, 15])
    assert v["weights"].sum() == pytest.approx(1.0)
    assert v["weights"][-1] / v["weights"][-2] == pytest.approx(math.exp(v["slope"]))
    assert v["halving"] == pytest.approx(math.log(2) / v["slope"])


def test_scaling_values_match_the_draw_functions_ratios():
    from book.plots import scaling_ratios

    v = computed.explorer_values("scaling", {"scale": 4.0, "original_max_len": 2048, "d_model": 128})
    fig, ax = plt.subplots()
    try:
        ratios = scaling_ratios(ax, 128, scale=4.0, original_max_len=2048)
    finally:
        plt.close(fig)
    for rule, r in ratios.items():
        np.testing.assert_array_equal(v["ratios"][rule], r.numpy())
    assert v["first"] == scaling.turned_pairs(128, original_max_len=2048)
    assert v["kept"]["PI"] == 64 - v["first"]  # PI divides every frequency by s
    assert v["yarn_kept"] == int((ratios["YaRN"] == 1).sum())


def test_a_choice_is_a_labelled_drop_down_list_starting_at_its_value():
    text = computed.computed_html("precision", name="t-3", alt=ALT, initial={"dtype": "float16", "longest": 2**20})
    assert (
        '<select id="cx-t-3-dtype" data-param="dtype"><option value="bfloat16">bfloat16</option>'
        '<option value="float16" selected>float16</option><option value="float32">float32</option></select>'
    ) in text
    controls = {c["name"]: c for c in _spec(text)["controls"]}
    assert controls["dtype"]["value"] == "float16" and controls["longest"]["value"] == 20


def test_precision_values_match_the_draw_functions_title_and_errors():
    from book.numerics import rope_cos_error
    from book.plots import draw_precision_explorer

    state = {"dtype": "float16", "d_model": 64, "base": 500000.0, "longest": 2**20}
    v = computed.explorer_values("precision", state)
    positions = torch.unique(torch.logspace(0, 20, 80, base=2).long())
    assert v["positions"] == positions.tolist() and v["positions"][-1] == 2**20
    np.testing.assert_array_equal(v["errors"], rope_cos_error(positions, 64, angle_dtype=torch.float16, base=5e5))
    np.testing.assert_array_equal(v["book"], rope_cos_error(positions, 64, angle_dtype=torch.float64, base=5e5))
    fig = draw_precision_explorer(**state)
    try:
        title = fig._suptitle.get_text()
    finally:
        plt.close(fig)
    assert f"from about position {v['off']:,}" in title
    # float16's largest is 65504: 65,520 is the first whole number it rounds to inf
    assert torch.tensor(65520).to(torch.float16).isinf() and torch.tensor(65519).to(torch.float16).isfinite()
    assert v["unheld"] == 65520 and f"rounds positions from {v['unheld']:,} on to inf" in title
    assert v["overflow"] == min(p for p in v["positions"] if p >= 65520) > 65520
    calm = computed.explorer_values("precision", {"dtype": "float32", "d_model": 8, "base": 100.0, "longest": 16})
    assert calm["off"] == calm["overflow"] == calm["unheld"] == -1 and max(calm["errors"]) < 1e-6


def test_t5_values_are_the_library_buckets_and_the_draw_functions_landmarks():
    from book.encodings import t5_relative_bucket
    from book.plots import draw_t5_bucket_explorer

    state = {"num_buckets": 32, "max_distance": 128, "bidirectional": False, "max_offset": 160}
    v = computed.explorer_values("t5", state)
    want = t5_relative_bucket(torch.arange(-160, 161), bidirectional=False, num_buckets=32, max_distance=128)
    assert v["buckets"].dtype == np.int64
    np.testing.assert_array_equal(v["buckets"], want.numpy())
    assert (v["exact"], v["last"]) == (15, 113)  # chapter 7's decoder numbers
    fig = draw_t5_bucket_explorer(**state)
    try:
        title = fig.axes[0].get_title()
    finally:
        plt.close(fig)
    assert f"exact up to distance {v['exact']}, last bucket from distance {v['last']}" in title
    with pytest.raises(ValueError, match="num_buckets must leave at least 2 buckets"):
        computed.explorer_values("t5", {**state, "num_buckets": 2, "bidirectional": True})
