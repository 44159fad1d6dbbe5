"""book.encodings.rope_variants: p-RoPE's frequencies and M-RoPE's angles, against
pair-by-pair references and against transformers' own code (configs only, nothing
downloaded), with deliberate breaks that the comparisons must catch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from book import encodings as enc
from book.encodings import rope_variants

transformers = pytest.importorskip("transformers")
from transformers import LlamaConfig, Qwen2VLTextConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.qwen2_vl import modeling_qwen2_vl  # noqa: E402
from transformers.models.qwen3_vl import modeling_qwen3_vl  # noqa: E402
from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig  # noqa: E402

RTOL = 1e-5  # float32 (transformers) against float64 (book)


def close(ours: torch.Tensor, theirs: torch.Tensor) -> bool:
    """Equal to float32 rounding, relative to each entry (zeros must be exactly zero)."""
    return ours.shape == theirs.shape and bool(((ours - theirs).abs() <= RTOL * theirs.abs()).all())


# ---------------------------------------------------------------- p-RoPE
def reference_proportional(d: int, fraction: float, base: float) -> list[float]:
    """Barbero et al.'s apply_p_rope, pair by pair: rope_angles = int(p * d // 2) turning pairs."""
    kept = int(fraction * d // 2)
    return [base ** (-2 * i / d) if i < kept else 0.0 for i in range(d // 2)]


@pytest.mark.parametrize("d", [2, 8, 16, 64, 100, 256])
@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.25, 0.5, 0.58, 0.75, 1.0])
def test_proportional_keeps_the_fastest_pairs_of_the_full_width_spectrum(d, fraction):
    got = enc.proportional_frequencies(d, fraction=fraction)
    assert got.dtype == torch.float64 and got.shape == (d // 2,)
    assert got.tolist() == pytest.approx(reference_proportional(d, fraction, 10000.0), rel=1e-12, abs=0)
    kept = int((got > 0).sum())
    assert torch.equal(got[:kept], enc.frequencies(d)[:kept])  # exactly RoPE's own frequencies
    assert (got[kept:] == 0).all()


def test_proportional_ends_are_rope_and_no_position():
    assert torch.equal(enc.proportional_frequencies(64, fraction=1.0, base=500.0), enc.frequencies(64, base=500.0))
    assert (enc.proportional_frequencies(64, fraction=0.0) == 0).all()
    # Gemma 4's default global layers: head 512, fraction 0.25 -> 64 of 256 pairs turn
    assert int((enc.proportional_frequencies(512, fraction=0.25, base=1e6) > 0).sum()) == 64


def test_proportional_count_is_computed_in_floating_point_as_transformers_does():
    """0.58 * 100 = 57.99999999999999 in floating point, so 28 pairs turn, not 29."""
    assert 0.58 * 100 < 58
    assert int((enc.proportional_frequencies(100, fraction=0.58) > 0).sum()) == 28


def test_proportional_is_not_gpt_neox_partial_rotary():
    """Same fraction, same number of turning pairs, different spectra: NeoX spreads
    base^(-2i/r) over r = fraction * d features, p-RoPE keeps base^(-2i/d)."""
    d, fraction = 64, 0.25
    p_rope = enc.proportional_frequencies(d, fraction=fraction)
    neox = enc.frequencies(int(d * fraction))  # GPTNeoXRotaryEmbedding over the rotated 16 features
    assert int((p_rope > 0).sum()) == neox.numel() == 8
    assert p_rope[7] == pytest.approx(10000.0 ** (-14 / 64), rel=1e-12)  # slowest turning pair: ~ base^-0.22
    assert neox[7] == pytest.approx(10000.0 ** (-14 / 16), rel=1e-12)  # ~ base^-0.88
    assert float(p_rope[7] / neox[7]) > 100


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_pairs_with_frequency_zero_pass_through_and_scores_stay_relative(layout):
    d, fraction = 16, 0.25
    freqs = enc.proportional_frequencies(d, fraction=fraction)
    x = torch.randn(6, d, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    out = enc.apply_rope(x, torch.arange(6) * 7, freqs=freqs, layout=layout)
    turning = torch.zeros(d, dtype=torch.bool)  # the features of pairs 0 and 1
    turning[[0, 1, 2, 3] if layout == "interleaved" else [0, 1, 8, 9]] = True
    torch.testing.assert_close(out[:, ~turning], x[:, ~turning], rtol=0, atol=0)
    assert not torch.allclose(out[1:, turning], x[1:, turning])
    q, k = x[:1], x[1:2]
    scores = [
        float(enc.apply_rope(q, [m], freqs=freqs, layout=layout) @ enc.apply_rope(k, [n], freqs=freqs, layout=layout).T)
        for m, n in [(5, 2), (105, 102), (1005, 1002)]
    ]
    assert scores == pytest.approx([scores[0]] * 3, rel=1e-9)


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"fraction": -0.1}, ValueError, r"fraction must lie in \[0, 1\]"),
        ({"fraction": 1.5}, ValueError, r"fraction must lie in \[0, 1\]"),
        ({"fraction": float("nan")}, ValueError, "fraction must be finite"),
        ({"fraction": "0.5"}, TypeError, "fraction must be a real number"),
        ({"fraction": True}, TypeError, "fraction must be a real number"),
        ({"fraction": 0.5, "base": 1.0}, ValueError, "base must be a finite number > 1"),
    ],
)
def test_proportional_rejects_bad_input(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        enc.proportional_frequencies(16, **kwargs)


@pytest.mark.parametrize("d, exc", [(7, ValueError), (0, ValueError), (16.0, TypeError)])
def test_proportional_rejects_bad_width(d, exc):
    with pytest.raises(exc, match="d_model"):
        enc.proportional_frequencies(d, fraction=0.5)


def hf_proportional(d: int, fraction: float, base: float) -> torch.Tensor:
    """transformers' ROPE_INIT_FUNCTIONS["proportional"] for a config with head width d."""
    config = LlamaConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        head_dim=d,
        rope_parameters={"rope_type": "proportional", "rope_theta": base, "partial_rotary_factor": fraction},
    )
    inv_freq, attention_factor = ROPE_INIT_FUNCTIONS["proportional"](config, "cpu")
    assert attention_factor == 1.0
    return inv_freq.double()


PROPORTIONAL = [
    (d, fraction, base)
    for d in (16, 64, 100, 256, 512)
    for fraction in (0.0, 0.1, 0.25, 0.5, 0.58, 0.75, 1.0)
    for base in (10000.0, 1e6)
]


@pytest.mark.parametrize("d, fraction, base", PROPORTIONAL)
def test_proportional_equals_transformers_proportional(d, fraction, base):
    assert close(enc.proportional_frequencies(d, fraction=fraction, base=base), hf_proportional(d, fraction, base))


def test_proportional_equals_gemma4_global_layers_and_their_rotation():
    """Gemma4TextConfig's defaults (proportional, 0.25, base 1e6 on full-attention
    layers), its own rotary module and apply_rotary_pos_emb (half-split layout)."""
    from transformers.models.gemma4 import modeling_gemma4
    from transformers.models.gemma4.configuration_gemma4 import Gemma4TextConfig

    config = Gemma4TextConfig(
        hidden_size=64,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        global_head_dim=32,
        num_hidden_layers=6,
        intermediate_size=32,
        vocab_size=32,
    )
    assert config.layer_types[-1] == "full_attention"
    params = config.rope_parameters["full_attention"]
    fraction, base = params["partial_rotary_factor"], params["rope_theta"]
    assert (params["rope_type"], fraction, base) == ("proportional", 0.25, 1e6)
    ours = enc.proportional_frequencies(32, fraction=fraction, base=base)
    theirs, _ = ROPE_INIT_FUNCTIONS["proportional"](config, "cpu", layer_type="full_attention")
    assert close(ours, theirs.double())
    rotary = modeling_gemma4.Gemma4TextRotaryEmbedding(config)
    positions = torch.tensor([[0, 3, 17, 400, 4095]])
    cos, sin = rotary(torch.ones(1, dtype=torch.float32), positions, "full_attention")
    x = torch.randn(1, 2, 5, 32, generator=torch.Generator().manual_seed(0))
    theirs_x = modeling_gemma4.apply_rotary_pos_emb(x, cos, sin)
    ours_x = enc.apply_rope(x, positions[:, None], freqs=ours, layout="half")
    torch.testing.assert_close(ours_x, theirs_x, atol=5e-4, rtol=0)  # float32 angles up to 4095 rad
    assert (ours_x[..., 4:16] == x[..., 4:16]).all() and (ours_x[..., 20:] == x[..., 20:]).all()


def test_the_proportional_comparison_fails_when_the_book_is_broken(monkeypatch):
    """Sabotage: one frequency off by 0.1%, or GPT-NeoX's spectrum in its place."""
    d, fraction, base = 64, 0.5, 10000.0
    theirs = hf_proportional(d, fraction, base)
    assert close(enc.proportional_frequencies(d, fraction=fraction, base=base), theirs)
    real = rope_variants.frequencies

    def one_off(d_model, *, base):
        w = real(d_model, base=base)
        w[3] *= 1.001
        return w

    monkeypatch.setattr(rope_variants, "frequencies", one_off)
    assert not close(enc.proportional_frequencies(d, fraction=fraction, base=base), theirs)

    def neox(d_model, *, base):  # frequencies over the rotated part only, padded with zeros
        r = int(d_model * fraction)
        return torch.cat([real(r, base=base), torch.zeros((d_model - r) // 2, dtype=torch.float64)])

    monkeypatch.setattr(rope_variants, "frequencies", neox)
    assert not close(enc.proportional_frequencies(d, fraction=fraction, base=base), theirs)


# ---------------------------------------------------------------- M-RoPE
def reference_mrope(position_ids: torch.Tensor, d: int, sections, base: float, interleaved: bool) -> torch.Tensor:
    """Each frequency from its own axis, written out for a (3, seq) table."""
    t, h, w = sections
    out = torch.zeros(position_ids.shape[1], d // 2, dtype=torch.float64)
    for i in range(d // 2):
        if interleaved:
            axis = 1 if (i % 3 == 1 and i < 3 * h) else 2 if (i % 3 == 2 and i < 3 * w) else 0
        else:
            axis = 0 if i < t else 1 if i < t + h else 2
        for s in range(position_ids.shape[1]):
            out[s, i] = float(position_ids[axis, s]) * base ** (-2 * i / d)
    return out


def image_ids(batch: int = 1) -> torch.Tensor:
    """Two text tokens, a 3 x 4 image grid at time 2, and two text tokens after it
    (the layout of transformers' get_rope_index: text continues after the largest id)."""
    text_before = torch.arange(2).expand(3, 2)
    grid_h, grid_w = torch.meshgrid(torch.arange(3), torch.arange(4), indexing="ij")
    grid = torch.stack([torch.full((12,), 2), 2 + grid_h.flatten(), 2 + grid_w.flatten()])
    text_after = (6 + torch.arange(2)).expand(3, 2)
    ids = torch.cat([text_before, grid, text_after], dim=1)  # (3, 16)
    return torch.stack([ids + 5 * b for b in range(batch)], dim=1)  # (3, batch, 16)


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("d, sections", [(16, (3, 3, 2)), (32, (6, 5, 5)), (128, (24, 20, 20))])
def test_mrope_takes_each_frequency_from_its_axis(d, sections, interleaved):
    ids = image_ids()[:, 0]
    got = enc.mrope_angles(ids, d, sections, interleaved=interleaved)
    assert got.dtype == torch.float64 and got.shape == (16, d // 2)
    torch.testing.assert_close(got, reference_mrope(ids, d, sections, 10000.0, interleaved), rtol=1e-12, atol=0)


@pytest.mark.parametrize("interleaved", [False, True])
def test_each_axis_gets_exactly_its_section(interleaved):
    d, sections = 32, (6, 5, 5)
    for axis, size in enumerate(sections):
        ids = torch.zeros(3, 1)
        ids[axis] = 1.0  # one unit along this axis only
        turned = enc.mrope_angles(ids, d, sections, interleaved=interleaved)[0] != 0
        assert int(turned.sum()) == size
    contiguous = enc.mrope_angles(torch.tensor([[0.0], [0.0], [1.0]]), d, sections)[0] != 0
    assert contiguous[-5:].all()  # Qwen2-VL: the slowest frequencies all see width


@pytest.mark.parametrize("interleaved", [False, True])
def test_a_text_token_is_plain_rope_and_shapes_follow_the_ids(interleaved):
    positions = torch.tensor([[0, 1, 2, 7], [3, 4, 5, 9]])  # (batch 2, seq 4)
    sections = (2, 3, 3) if not interleaved else (3, 3, 2)
    got = enc.mrope_angles(positions.expand(3, 2, 4), 16, sections, interleaved=interleaved)
    assert got.shape == (2, 4, 8)
    torch.testing.assert_close(got, positions[..., None].double() * enc.frequencies(16), rtol=1e-12, atol=0)


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize(
    "convert",
    [np.array, lambda s: np.array(s, dtype=np.int32), torch.tensor, lambda s: [np.int64(k) for k in s]],
    ids=["ndarray int64", "ndarray int32", "tensor", "list of numpy integers"],
)
def test_mrope_takes_sections_as_numpy_arrays_and_tensors(convert, interleaved):
    positions = torch.arange(3 * 5).view(3, 5)
    want = enc.mrope_angles(positions, 32, (6, 5, 5), interleaved=interleaved)
    torch.testing.assert_close(enc.mrope_angles(positions, 32, convert((6, 5, 5)), interleaved=interleaved), want)


@pytest.mark.parametrize(
    "args, kwargs, exc, message",
    [
        ((torch.zeros(2, 5), 16, (2, 3, 3)), {}, ValueError, r"position_ids must have shape \(3, \.\.\., seq\)"),
        ((torch.zeros(3), 16, (2, 3, 3)), {}, ValueError, r"position_ids must have shape \(3, \.\.\., seq\)"),
        ((torch.full((3, 2), float("nan")), 16, (2, 3, 3)), {}, ValueError, "position_ids must be finite"),
        ((torch.zeros(3, 2, dtype=torch.bool), 16, (2, 3, 3)), {}, TypeError, "position_ids must hold integer"),
        (([[0, 1], [0, True], [0, 1]], 16, (2, 3, 3)), {}, TypeError, "position_ids must hold numbers, not booleans"),
        ((torch.zeros(3, 2), 15, (2, 3, 3)), {}, ValueError, "d_model must be even"),
        ((torch.zeros(3, 2), 16, (2, 3)), {}, ValueError, "sections must have three entries"),
        ((torch.zeros(3, 2), 16, "233"), {}, TypeError, "sections must be a sequence"),
        ((torch.zeros(3, 2), 16, 8), {}, TypeError, "sections must be a sequence"),
        (
            (torch.zeros(3, 2), 16, np.array([2.0, 3.0, 3.0])),
            {},
            TypeError,
            "sections must be a sequence or 1-D integer",
        ),
        ((torch.zeros(3, 2), 16, np.array([[2, 3, 3]])), {}, TypeError, "sections must be a sequence or 1-D integer"),
        ((torch.zeros(3, 2), 16, torch.tensor([2.0, 3.0, 3.0])), {}, TypeError, "sections must be a sequence or 1-D"),
        ((torch.zeros(3, 2), 16, torch.tensor([True] * 3)), {}, TypeError, "sections must be a sequence or 1-D"),
        ((torch.zeros(3, 2), 16, np.array([2, 3, 4])), {}, ValueError, r"sections must add up to d_model // 2 = 8"),
        ((torch.zeros(3, 2), 16, (2, 3, 4)), {}, ValueError, r"sections must add up to d_model // 2 = 8"),
        ((torch.zeros(3, 2), 16, (2, -1, 7)), {}, ValueError, r"sections\[1\] \(height\) must be a non-negative"),
        ((torch.zeros(3, 2), 16, (2, 3.0, 3)), {}, TypeError, r"sections\[1\] \(height\) must be an integer"),
        ((torch.zeros(3, 2), 16, (2, 3, 3)), {"interleaved": True}, ValueError, "do not fit the interleaved layout"),
        ((torch.zeros(3, 2), 16, (0, 4, 4)), {"interleaved": True}, ValueError, "do not fit the interleaved layout"),
        ((torch.zeros(3, 2), 16, (3, 3, 2)), {"interleaved": 1}, TypeError, "interleaved must be True or False"),
        ((torch.zeros(3, 2), 16, (3, 3, 2)), {"base": 0.5}, ValueError, "base must be a finite number > 1"),
    ],
)
def test_mrope_rejects_bad_input(args, kwargs, exc, message):
    with pytest.raises(exc, match=message):
        enc.mrope_angles(*args, **kwargs)


def hf_rotary(d: int, sections, base: float, interleaved: bool):
    """transformers' own rotary module from a tiny text config (nothing downloaded)."""
    params = {"rope_type": "default", "rope_theta": base, "mrope_section": list(sections)}
    if interleaved:
        config = Qwen3VLTextConfig(hidden_size=2 * d, num_attention_heads=2, head_dim=d, rope_parameters=params)
        return modeling_qwen3_vl.Qwen3VLTextRotaryEmbedding(config)
    config = Qwen2VLTextConfig(hidden_size=2 * d, num_attention_heads=2, rope_parameters=params)
    return modeling_qwen2_vl.Qwen2VLRotaryEmbedding(config)


def hf_mrope_table(position_ids: torch.Tensor, d: int, sections, base: float, interleaved: bool) -> torch.Tensor:
    """The angle table behind transformers' cos and sin: the three axes' angles
    recomposed by the module's own ``recomposition_frequencies``; first half of
    its half-split (table, table) output."""
    rotary = hf_rotary(d, sections, base, interleaved)
    angles = position_ids[..., None].float() * rotary.inv_freq.float()  # as its forward, (3, batch, seq, d/2)
    table = rotary.recomposition_frequencies(angles.clone())  # Qwen3-VL's writes into its input
    assert torch.equal(table[..., : d // 2], table[..., d // 2 :])
    return table[..., : d // 2].double()


def mrope_matches_transformers(d: int, sections, base: float, interleaved: bool) -> bool:
    ids = image_ids(batch=2)
    return close(
        enc.mrope_angles(ids, d, sections, base=base, interleaved=interleaved),
        hf_mrope_table(ids, d, sections, base, interleaved),
    )


MROPE = [
    (16, (2, 3, 3), False),
    (32, (4, 6, 6), False),
    (128, (16, 24, 24), False),  # transformers' Qwen2-VL default
    (16, (3, 3, 2), True),
    (32, (6, 5, 5), True),
    (128, (24, 20, 20), True),  # transformers' Qwen3-VL default
]


@pytest.mark.parametrize("d, sections, interleaved", MROPE)
@pytest.mark.parametrize("base", [10000.0, 1e6])
def test_mrope_equals_transformers_qwen_vl_tables(d, sections, interleaved, base):
    assert mrope_matches_transformers(d, sections, base, interleaved)


@pytest.mark.parametrize("d, sections, interleaved", [MROPE[1], MROPE[4]])
def test_mrope_rotation_equals_transformers_apply_rotary_pos_emb(d, sections, interleaved):
    """cos and sin from the module's forward, applied by the model's own function,
    against apply_rope_cached with the book's table in the half-split layout."""
    module = modeling_qwen3_vl if interleaved else modeling_qwen2_vl
    rotary = hf_rotary(d, sections, 10000.0, interleaved)
    ids = image_ids(batch=2)
    cos, sin = rotary(torch.ones(1, dtype=torch.float32), ids)
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 2, 3, 16, d, generator=g)  # (batch, heads, seq, d)
    hf_q, hf_k = module.apply_rotary_pos_emb(q, k, cos, sin)
    angles = enc.mrope_angles(ids, d, sections, interleaved=interleaved)[:, None]  # (batch, 1, seq, d/2)
    torch.testing.assert_close(
        enc.apply_rope_cached(q, angles.cos(), angles.sin(), layout="half"), hf_q, atol=1e-5, rtol=0
    )
    torch.testing.assert_close(
        enc.apply_rope_cached(k, angles.cos(), angles.sin(), layout="half"), hf_k, atol=1e-5, rtol=0
    )
    plain = enc.apply_rope(q, ids[0][:, None], layout="half")  # RoPE on the time ids alone is not M-RoPE
    assert (plain - hf_q).abs().max() > 0.1


def test_transformers_qwen3_vl_drops_slots_that_the_book_refuses():
    """With sections (2, 3, 3) and d/2 = 8, width's third slot would be frequency 8:
    transformers silently gives width 2 frequencies and time 3; the book raises."""
    ids = torch.zeros(3, 1, 1)
    ids[2] = 1.0
    theirs = hf_mrope_table(ids, 16, (2, 3, 3), 10000.0, interleaved=True)
    assert int((theirs != 0).sum()) == 2
    with pytest.raises(ValueError, match="do not fit the interleaved layout"):
        enc.mrope_angles(ids, 16, (2, 3, 3), interleaved=True)


@pytest.mark.parametrize("interleaved", [False, True])
def test_the_mrope_comparison_fails_when_the_book_is_broken(monkeypatch, interleaved):
    """Sabotage: height and width swapped, or the other layout, or one frequency off."""
    d, sections = 32, (6, 5, 5)
    assert mrope_matches_transformers(d, sections, 10000.0, interleaved)
    real_axes = rope_variants._mrope_axes

    def swapped(pairs, sections, interleaved):
        axes = real_axes(pairs, sections, interleaved)
        return torch.where(axes == 1, 2, torch.where(axes == 2, 1, axes))

    monkeypatch.setattr(rope_variants, "_mrope_axes", swapped)
    assert not mrope_matches_transformers(d, sections, 10000.0, interleaved)
    monkeypatch.setattr(rope_variants, "_mrope_axes", lambda p, s, i: real_axes(p, s, not i))
    assert not mrope_matches_transformers(d, sections, 10000.0, interleaved)
    monkeypatch.setattr(rope_variants, "_mrope_axes", real_axes)
    real_frequencies = rope_variants.frequencies

    def one_off(d_model, *, base):
        w = real_frequencies(d_model, base=base)
        w[9] *= 1.001
        return w

    monkeypatch.setattr(rope_variants, "frequencies", one_off)
    assert not mrope_matches_transformers(d, sections, 10000.0, interleaved)


def test_mrope_angles_work_with_apply_rope_cached_in_both_layouts():
    """The table is per frequency: the layout only decides which features a pair is."""
    d, sections = 16, (2, 3, 3)
    ids = image_ids()[:, 0]
    angles = enc.mrope_angles(ids, d, sections)
    x = torch.randn(16, d, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    half = enc.apply_rope_cached(x, angles.cos(), angles.sin(), layout="half")
    perm = enc.rope_layout_permutation(d)
    interleaved = enc.apply_rope_cached(x[:, torch.argsort(perm)], angles.cos(), angles.sin())
    torch.testing.assert_close(interleaved[:, perm], half, rtol=1e-12, atol=1e-12)
    assert math.isclose(float(angles[5, 3]), float(ids[1, 5]) * 10000.0 ** (-6 / 16), rel_tol=1e-12)


@pytest.mark.parametrize("interleaved", [False, True])
def test_mrope_scores_depend_only_on_the_three_offsets(interleaved):
    """Shifting a query's and a key's (time, height, width) ids by the same vector keeps
    their score; changing only the height offset changes it."""
    d, sections = 32, (6, 5, 5)
    g = torch.Generator().manual_seed(4)
    q, k = torch.randn(2, 1, d, dtype=torch.float64, generator=g)

    def score(q_ids, k_ids):
        angles = enc.mrope_angles(torch.tensor([q_ids, k_ids]).T, d, sections, interleaved=interleaved)
        q_rot = enc.apply_rope_cached(q, angles[:1].cos(), angles[:1].sin())
        k_rot = enc.apply_rope_cached(k, angles[1:].cos(), angles[1:].sin())
        return float((q_rot * k_rot).sum())

    base_score = score([7, 3, 5], [4, 1, 1])
    assert score([107, 23, 9], [104, 21, 5]) == pytest.approx(base_score, rel=1e-9)
    assert abs(score([7, 4, 5], [4, 1, 1]) - base_score) > 1e-3
