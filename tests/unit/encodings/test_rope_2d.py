"""book.encodings.rope_2d: axial and mixed 2-D RoPE, against rope-vit's formulas
(transcribed below from naver-ai/rope-vit, self-attn/rope_self_attn.py, commit
ce85c2e) and against transformers' own Pixtral and Llama 4 vision rotary code
(built from tiny configs, nothing downloaded), with deliberate breaks that the
comparisons must catch."""

from __future__ import annotations

import math

import pytest
import torch

from book import encodings as enc
from book.encodings import rope_2d

transformers = pytest.importorskip("transformers")
from transformers import PixtralVisionConfig  # noqa: E402
from transformers.models.llama4 import modeling_llama4  # noqa: E402
from transformers.models.llama4.configuration_llama4 import Llama4VisionConfig  # noqa: E402
from transformers.models.pixtral.modeling_pixtral import PixtralVisionRotaryEmbedding  # noqa: E402

RTOL = 1e-5  # float32 (rope-vit, transformers) against float64 (book)


def close(ours: torch.Tensor, theirs: torch.Tensor, atol: float = 1e-5) -> bool:
    return ours.shape == theirs.shape and bool(((ours - theirs).abs() <= atol + RTOL * theirs.abs()).all())


# ------------------------------------------------- rope-vit, as read (float32)
def ropevit_init_t_xy(end_x: int, end_y: int):
    t = torch.arange(end_x * end_y, dtype=torch.float32)
    t_x = (t % end_x).float()
    t_y = torch.div(t, end_x, rounding_mode="floor").float()
    return t_x, t_y


def ropevit_compute_axial_cis(dim: int, end_x: int, end_y: int, theta: float = 100.0):
    freqs_x = 1.0 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    freqs_y = 1.0 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    t_x, t_y = ropevit_init_t_xy(end_x, end_y)
    freqs_x = torch.outer(t_x, freqs_x)
    freqs_y = torch.outer(t_y, freqs_y)
    freqs_cis_x = torch.polar(torch.ones_like(freqs_x), freqs_x)
    freqs_cis_y = torch.polar(torch.ones_like(freqs_y), freqs_y)
    return torch.cat([freqs_cis_x, freqs_cis_y], dim=-1)


def ropevit_init_2d_freqs(dim: int, angles_per_head: list[float], theta: float = 10.0):
    """rope-vit's init_2d_freqs with its random angle of each head given."""
    freqs_x, freqs_y = [], []
    mag = 1 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    for a in angles_per_head:
        angles = torch.tensor([a])
        fx = torch.cat([mag * torch.cos(angles), mag * torch.cos(torch.pi / 2 + angles)], dim=-1)
        fy = torch.cat([mag * torch.sin(angles), mag * torch.sin(torch.pi / 2 + angles)], dim=-1)
        freqs_x.append(fx)
        freqs_y.append(fy)
    return torch.stack([torch.stack(freqs_x, dim=0), torch.stack(freqs_y, dim=0)], dim=0)


def ropevit_compute_mixed_cis(freqs: torch.Tensor, t_x: torch.Tensor, t_y: torch.Tensor, num_heads: int):
    n = t_x.shape[0]
    freqs_x = (t_x.unsqueeze(-1) @ freqs[0].unsqueeze(-2)).view(n, num_heads, -1).permute(1, 0, 2)
    freqs_y = (t_y.unsqueeze(-1) @ freqs[1].unsqueeze(-2)).view(n, num_heads, -1).permute(1, 0, 2)
    return torch.polar(torch.ones_like(freqs_x), freqs_x + freqs_y)


def phase(cis: torch.Tensor) -> torch.Tensor:
    """cos and sin of a complex table, to compare with angles without 2 pi wrapping."""
    return torch.stack([cis.real, cis.imag])


def as_cis(angles: torch.Tensor) -> torch.Tensor:
    return torch.stack([angles.cos(), angles.sin()])


# ---------------------------------------------------------------- rope-vit
@pytest.mark.parametrize(("d", "rows", "cols", "base"), [(8, 3, 5, 100.0), (16, 4, 4, 100.0), (64, 7, 3, 10000.0)])
def test_axial_angles_equal_rope_vits_compute_axial_cis(d, rows, cols, base):
    theirs = ropevit_compute_axial_cis(d, end_x=cols, end_y=rows, theta=base)
    ours = enc.axial_rope_angles(rows, cols, d, base=base)
    assert ours.shape == (rows * cols, d // 2) and ours.dtype == torch.float64
    assert close(as_cis(ours), phase(theirs).double())


@pytest.mark.parametrize("d", [8, 32])
def test_mixed_angles_equal_rope_vits_compute_mixed_cis(d):
    heads = [0.3, 2.0, 5.5]
    theirs_f = ropevit_init_2d_freqs(d, heads, theta=10.0)  # (x/y, heads, d/2)
    ours_f = enc.mixed_rope_frequencies(d, heads, base=10.0)  # (row/col, heads, d/2)
    assert close(ours_f, torch.stack([theirs_f[1], theirs_f[0]]).double())
    t_x, t_y = ropevit_init_t_xy(5, 3)  # 3 rows, 5 columns
    theirs = ropevit_compute_mixed_cis(theirs_f.view(2, -1), t_x, t_y, num_heads=len(heads))
    ours = enc.mixed_rope_angles(3, 5, ours_f)
    assert ours.shape == (len(heads), 15, d // 2)
    assert close(as_cis(ours), phase(theirs).double())


def test_mixed_at_direction_zero_is_axial():
    """rope-vit's init with angle 0: the first d/4 pairs see the columns, the rest the rows."""
    mixed = enc.mixed_rope_frequencies(16, [0.0], base=100.0)[:, 0]
    torch.testing.assert_close(mixed, enc.axial_rope_frequencies(16, base=100.0), atol=1e-15, rtol=0)


# ------------------------------------------------------------ transformers
def pixtral_cos_sin(rows: int, cols: int, d: int, base: float):
    cfg = PixtralVisionConfig(
        hidden_size=2 * d, num_attention_heads=2, rope_parameters={"rope_type": "axial", "rope_theta": base}
    )
    assert cfg.head_dim == d
    h, w = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")  # as PixtralVisionModel
    ids = torch.stack([h.flatten(), w.flatten()], dim=-1)
    return PixtralVisionRotaryEmbedding(cfg)(torch.ones(1), ids)


@pytest.mark.parametrize(("d", "rows", "cols", "base"), [(8, 2, 3, 10000.0), (64, 5, 4, 10000.0), (16, 3, 6, 100.0)])
def test_pixtral_convention_equals_transformers_pixtral_rotary_embedding(d, rows, cols, base):
    cos, sin = pixtral_cos_sin(rows, cols, d, base)
    angles = enc.axial_rope_angles(rows, cols, d, base=base, convention="pixtral")
    assert close(torch.cat([angles.cos()] * 2, -1), cos.double())
    assert close(torch.cat([angles.sin()] * 2, -1), sin.double())


def test_pixtral_comparison_fails_when_the_axes_are_swapped(monkeypatch):
    """The equality is not vacuous: rows and columns swapped (non-square grid) breaks it."""
    cos, _ = pixtral_cos_sin(2, 3, 16, 10000.0)
    real_grid = rope_2d._grid
    monkeypatch.setattr(rope_2d, "_grid", lambda r, c: tuple(reversed(real_grid(r, c))))
    swapped = enc.axial_rope_angles(2, 3, 16, convention="pixtral")
    assert not close(torch.cat([swapped.cos()] * 2, -1), cos.double())


def test_pixtral_comparison_fails_for_one_wrong_frequency():
    cos, _ = pixtral_cos_sin(3, 3, 16, 10000.0)
    freqs = enc.axial_rope_frequencies(16, convention="pixtral")
    freqs[1, 5] *= 1.01  # one column frequency 1 % off
    broken = enc.mixed_rope_angles(3, 3, freqs)
    assert not close(torch.cat([broken.cos()] * 2, -1), cos.double())
    # and the rope-vit convention is a different table
    other = enc.axial_rope_angles(3, 3, 16, convention="rope-vit")
    assert not close(torch.cat([other.cos()] * 2, -1), cos.double())


def llama4_vision_angles(d: int, side: int, base: float) -> torch.Tensor:
    cfg = Llama4VisionConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        image_size=side * 2,
        patch_size=2,
        rope_parameters={"rope_type": "default", "rope_theta": base},
    )
    cis = modeling_llama4.Llama4VisionRotaryEmbedding._compute_freqs_ci(cfg)  # (side^2 + 1, 1, d/2)
    return cis[:, 0]


@pytest.mark.parametrize(("d", "side"), [(8, 3), (16, 4), (88, 2)])
def test_rope_vit_convention_equals_llama4_vision_rotary_with_ids_from_one(d, side):
    cis = llama4_vision_angles(d, side, 10000.0)
    freqs = enc.axial_rope_frequencies(d)
    angles = enc.axial_rope_angles(side, side, d) + freqs[0] + freqs[1]  # row + 1, column + 1
    assert close(as_cis(angles), phase(cis[:-1]).double())
    assert torch.equal(cis[-1], torch.ones(d // 2, dtype=cis.dtype))  # the class token: angle 0
    broken = angles.clone()
    broken[:, 0] += 0.01  # one pair off by 0.01 rad
    assert not close(as_cis(broken), phase(cis[:-1]).double())


# ------------------------------------------------------------ properties
def score_by_offset(freqs: torch.Tensor, rows: int, cols: int, seed: int = 0) -> dict[tuple[int, int], float]:
    """Score of one query and one key rotated to every pair of patches, keyed by (dr, dc); asserts
    that each offset gives one score."""
    g = torch.Generator().manual_seed(seed)
    d = 2 * freqs.shape[-1]
    q, k = torch.randn(2, d, dtype=torch.float64, generator=g)
    angles = enc.mixed_rope_angles(rows, cols, freqs)
    rq = enc.apply_rope_cached(q.expand(rows * cols, d), angles.cos(), angles.sin())
    rk = enc.apply_rope_cached(k.expand(rows * cols, d), angles.cos(), angles.sin())
    scores = rq @ rk.T
    out: dict[tuple[int, int], float] = {}
    for p1 in range(rows * cols):
        for p2 in range(rows * cols):
            key = (p1 // cols - p2 // cols, p1 % cols - p2 % cols)
            value = float(scores[p1, p2])
            if key in out:
                assert math.isclose(out[key], value, abs_tol=1e-12)
            out[key] = value
    return out


def separability_gap(s: dict[tuple[int, int], float]) -> float:
    """max |S(dr, dc) - S(dr, 0) - S(0, dc) + S(0, 0)|: 0 iff the score is a row term plus a column term."""
    return max(abs(v - s[(dr, 0)] - s[(0, dc)] + s[(0, 0)]) for (dr, dc), v in s.items())


def test_axial_score_depends_on_the_offsets_and_splits_into_row_and_column_terms():
    for convention in ("rope-vit", "pixtral"):
        s = score_by_offset(enc.axial_rope_frequencies(16, convention=convention), 4, 5)
        assert separability_gap(s) < 1e-12


def test_mixed_score_depends_on_the_offsets_but_does_not_split():
    s = score_by_offset(enc.mixed_rope_frequencies(16, [0.7], base=10.0)[:, 0], 4, 5)
    assert separability_gap(s) > 0.1


def test_axial_pairs_see_one_axis_each():
    for convention in ("rope-vit", "pixtral"):
        f = enc.axial_rope_frequencies(32, convention=convention)
        assert ((f[0] == 0) ^ (f[1] == 0)).all()  # exactly one axis per pair
        assert int((f[0] > 0).sum()) == int((f[1] > 0).sum()) == 8


def test_pixtral_convention_deals_ropes_frequencies_alternately():
    f = enc.axial_rope_frequencies(16, base=500.0, convention="pixtral")
    full = enc.frequencies(16, base=500.0)
    torch.testing.assert_close(f[0, :4], full[0::2], rtol=1e-14, atol=0)
    torch.testing.assert_close(f[1, 4:], full[1::2], rtol=1e-14, atol=0)


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: enc.axial_rope_frequencies(6), ValueError, "d_model must be a multiple of 4"),
        (lambda: enc.axial_rope_frequencies(0), ValueError, "d_model must be a positive integer"),
        (lambda: enc.axial_rope_frequencies(8.0), TypeError, "d_model must be an integer"),
        (lambda: enc.axial_rope_frequencies(8, base=1.0), ValueError, "base must be a finite number > 1"),
        (lambda: enc.axial_rope_frequencies(8, convention="xy"), ValueError, "convention must be one of"),
        (lambda: enc.axial_rope_angles(0, 3, 8), ValueError, "rows must be a positive integer"),
        (lambda: enc.axial_rope_angles(2, 2.5, 8), TypeError, "cols must be an integer"),
        (lambda: enc.mixed_rope_frequencies(8, []), ValueError, "directions must be a non-empty 1-D"),
        (lambda: enc.mixed_rope_frequencies(8, [0.1, math.nan]), ValueError, "directions must be finite"),
        (lambda: enc.mixed_rope_frequencies(8, [True]), TypeError, r"directions\[0\] must be a real number"),
        (lambda: enc.mixed_rope_frequencies(8, "ab"), TypeError, "directions must be a 1-D tensor"),
        (lambda: enc.mixed_rope_frequencies(8, torch.zeros(2, 2)), ValueError, "directions must be a non-empty 1-D"),
        (lambda: enc.mixed_rope_angles(2, 2, [[0.1], [0.2]]), TypeError, "frequencies must be a torch.Tensor"),
        (lambda: enc.mixed_rope_angles(2, 2, torch.zeros(3, 4)), ValueError, r"frequencies must have shape \(2"),
        (lambda: enc.mixed_rope_angles(2, 2, torch.zeros(4)), ValueError, r"frequencies must have shape \(2"),
        (lambda: enc.mixed_rope_angles(2, 2, torch.zeros(2, 4, dtype=torch.long)), TypeError, "floating-point"),
        (lambda: enc.mixed_rope_angles(2, 2, torch.full((2, 4), math.inf)), ValueError, "must be finite"),
    ],
)
def test_bad_input_names_the_parameter(call, error, match):
    with pytest.raises(error, match=match):
        call()
