"""book.encodings.rope: RoPE in both pairings, its layout permutation and its fast
(cached, complex) forms, against RoFormer's block-diagonal rotation and invariants."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from book import encodings as enc
from book import scaling

EVEN_D = st.integers(1, 48).map(lambda h: 2 * h)
BASES = st.sampled_from([10.0, 100.0, 10000.0, 500000.0])


# ---------------------------------------------------------------- references
def reference_rope_matrix(pos: float, d: int, base: float = 10000.0) -> torch.Tensor:
    """RoFormer eq. 15: the block-diagonal matrix of 2x2 rotations R(pos * theta_i)."""
    r = torch.zeros(d, d, dtype=torch.float64)
    for i in range(d // 2):
        a = pos * base ** (-2 * i / d)
        r[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.tensor(
            [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], dtype=torch.float64
        )
    return r


# ---------------------------------------------------------------- RoPE
def test_rope_matches_block_diagonal_rotation():
    torch.manual_seed(0)
    x = torch.randn(6, 8, dtype=torch.float64)
    out = enc.apply_rope(x)
    for p in range(6):
        torch.testing.assert_close(out[p], reference_rope_matrix(p, 8) @ x[p])


def test_rope_interleaved_matches_complex_form():
    """Pair (x_2i, x_2i+1) as the complex number x_2i + i x_2i+1, times e^{i p w_i}."""
    torch.manual_seed(1)
    x = torch.randn(2, 5, 16)
    z = torch.view_as_complex(x.reshape(2, 5, 8, 2).contiguous())
    angles = torch.arange(5)[:, None].double() * enc.frequencies(16)
    rot = torch.polar(torch.ones_like(angles), angles).to(torch.complex64)
    ref = torch.view_as_real(z * rot).reshape(2, 5, 16)
    torch.testing.assert_close(enc.apply_rope(x), ref)


def test_rope_half_matches_rotate_half_form():
    """The GPT-NeoX / transformers form: x * cos + rotate_half(x) * sin, cos = [c | c]."""
    torch.manual_seed(2)
    x = torch.randn(3, 7, 12)
    angles = torch.arange(7)[:, None].double() * enc.frequencies(12)
    cos = torch.cat((angles.cos(), angles.cos()), -1).float()
    sin = torch.cat((angles.sin(), angles.sin()), -1).float()
    rotate_half = torch.cat((-x[..., 6:], x[..., :6]), -1)
    torch.testing.assert_close(enc.apply_rope(x, layout="half"), x * cos + rotate_half * sin)


def test_rope_layouts_related_by_feature_permutation():
    torch.manual_seed(3)
    x = torch.randn(4, 9, 10)
    perm = enc.layout_permutation(10)
    torch.testing.assert_close(enc.apply_rope(x[..., perm], layout="half"), enc.apply_rope(x)[..., perm])
    # ...and the two layouts genuinely differ on the same input.
    assert not torch.allclose(enc.apply_rope(x, layout="half"), enc.apply_rope(x))


def test_rope_position_zero_is_identity_and_dtype_kept():
    x = torch.randn(1, 4, dtype=torch.float64)
    assert torch.equal(enc.apply_rope(x), x)
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        y = enc.apply_rope(torch.randn(3, 5, 8).to(dtype))
        assert y.dtype == dtype and y.shape == (3, 5, 8)


def test_rope_explicit_positions_offsets_gaps_and_batches():
    torch.manual_seed(4)
    x = torch.randn(2, 5, 8)
    # An offset: positions 10..14 equal rotating the table of 0..14 and keeping the tail.
    long = torch.randn(2, 15, 8)
    long[:, 10:] = x
    torch.testing.assert_close(enc.apply_rope(x, torch.arange(10, 15)), enc.apply_rope(long)[:, 10:])
    # Gaps, and one row of positions per batch element.
    pos = torch.tensor([[0, 2, 4, 6, 8], [3, 4, 5, 100, 1000]])
    out = enc.apply_rope(x, pos)
    for b in range(2):
        for s in range(5):
            torch.testing.assert_close(
                out[b, s].double(), reference_rope_matrix(int(pos[b, s]), 8) @ x[b, s].double(), atol=1e-5, rtol=1e-5
            )


@settings(max_examples=40, deadline=None)
@given(
    seq_len=st.integers(1, 40), d=EVEN_D, seed=st.integers(0, 2**16), layout=st.sampled_from(["interleaved", "half"])
)
def test_rope_preserves_norms(seq_len, d, seed, layout):
    x = torch.randn(2, seq_len, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    y = enc.apply_rope(x, layout=layout)
    torch.testing.assert_close(y.norm(dim=-1), x.norm(dim=-1))


@settings(max_examples=40, deadline=None)
@given(
    d=EVEN_D,
    m=st.integers(0, 5000),
    n=st.integers(0, 5000),
    shift=st.integers(-5000, 5000),
    seed=st.integers(0, 2**16),
    layout=st.sampled_from(["interleaved", "half"]),
    base=BASES,
)
def test_rope_score_depends_only_on_offset(d, m, n, shift, seed, layout, base):
    """The same q and k, both shifted by the same amount, give the same score."""
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(1, d, generator=g, dtype=torch.float64), torch.randn(1, d, generator=g, dtype=torch.float64)

    def score(pq, pk):
        rq = enc.apply_rope(q, torch.tensor([pq]), base=base, layout=layout)
        rk = enc.apply_rope(k, torch.tensor([pk]), base=base, layout=layout)
        return (rq * rk).sum()

    torch.testing.assert_close(score(m + shift, n + shift), score(m, n), atol=1e-9 * d, rtol=1e-9)


# ---------------------------------------------------------------- RoPE pairings
@pytest.mark.parametrize("n_heads,head", [(1, 8), (2, 8), (4, 16), (3, 2)])
def test_rope_layout_permutation_gives_identical_scores(n_heads, head):
    d = n_heads * head
    g = torch.Generator().manual_seed(n_heads * 100 + head)
    x = torch.randn(2, 7, d, generator=g, dtype=torch.float64)
    w_q, w_k = torch.randn(d, d, generator=g, dtype=torch.float64), torch.randn(d, d, generator=g, dtype=torch.float64)
    perm = enc.rope_layout_permutation(d, n_heads)

    def scores(wq, wk, layout):
        q = (x @ wq.T).view(2, 7, n_heads, head).transpose(1, 2)
        k = (x @ wk.T).view(2, 7, n_heads, head).transpose(1, 2)
        return apply(q, layout) @ apply(k, layout).transpose(-1, -2)

    def apply(t, layout):
        return enc.apply_rope(t, layout=layout)

    inter = scores(w_q, w_k, "interleaved")
    torch.testing.assert_close(scores(w_q[perm], w_k[perm], "half"), inter)
    # without the permutation the two pairings disagree (unless a head holds one pair)
    assert torch.allclose(scores(w_q, w_k, "half"), inter) == (head == 2)
    # it is a permutation that keeps every row inside its head
    assert sorted(perm.tolist()) == list(range(d))
    assert torch.equal(perm // head, torch.arange(d) // head)


def test_rope_layout_permutation_one_head_is_layout_permutation():
    assert torch.equal(enc.rope_layout_permutation(8), enc.layout_permutation(8))
    assert enc.rope_layout_permutation(8, 2).tolist() == [0, 2, 1, 3, 4, 6, 5, 7]


# ---------------------------------------------------------------- fast RoPE forms
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_cached_rope_equals_reference(layout):
    x = torch.randn(2, 3, 17, 32, dtype=torch.float64)
    cos, sin = enc.rope_cos_sin(torch.arange(17), 32, dtype=torch.float64)
    torch.testing.assert_close(enc.apply_rope_cached(x, cos, sin, layout=layout), enc.apply_rope(x, layout=layout))
    cos32, sin32 = enc.rope_cos_sin(torch.arange(100), 32)  # a cache longer than needed
    torch.testing.assert_close(
        enc.apply_rope_cached(x.float(), cos32[:17], sin32[:17], layout=layout),
        enc.apply_rope(x.float(), layout=layout),
    )


def test_cached_rope_with_other_frequencies_equals_reference():
    # a scaling rule's frequencies (chapter 9's models cache them): the same bits as apply_rope
    x = torch.randn(2, 3, 17, 32)
    freqs = enc.frequencies(32) / torch.linspace(1.0, 4.0, 16, dtype=torch.float64)
    cos, sin = enc.rope_cos_sin(torch.arange(17), 32, freqs=freqs)
    assert torch.equal(enc.apply_rope_cached(x, cos, sin), enc.apply_rope(x, freqs=freqs))
    plain, _ = enc.rope_cos_sin(torch.arange(17), 32)
    assert not torch.equal(cos, plain)  # the frequencies were used


def test_rotate_half_form_by_hand():
    x = torch.randn(5, 8, dtype=torch.float64)
    cos, sin = enc.rope_cos_sin(torch.arange(5), 8, dtype=torch.float64)
    rotate_half = torch.cat((-x[:, 4:], x[:, :4]), dim=-1)
    by_hand = x * torch.cat((cos, cos), -1) + rotate_half * torch.cat((sin, sin), -1)
    torch.testing.assert_close(enc.apply_rope_cached(x, cos, sin, layout="half"), by_hand)


@pytest.mark.parametrize("dtype,cdtype", [(torch.float32, torch.complex64), (torch.float64, torch.complex128)])
def test_complex_rope_equals_reference(dtype, cdtype):
    x = torch.randn(2, 4, 33, 64, dtype=dtype)
    pos = torch.arange(10, 43)
    cis = enc.rope_cis(pos, 64, dtype=cdtype)
    torch.testing.assert_close(enc.apply_rope_complex(x, cis), enc.apply_rope(x, pos))
    cis_cache = enc.rope_cis(torch.arange(64), 64, dtype=cdtype)
    torch.testing.assert_close(enc.apply_rope_complex(x, cis_cache[10:43]), enc.apply_rope(x, pos))


@pytest.mark.parametrize("layout", ["heads transposed", "odd offset", "stride 2", "contiguous"])
def test_complex_rope_any_memory_layout(layout):
    """The no-copy complex view and the copying fallback give the same result."""
    base = torch.randn(2, 9, 3, 34, generator=torch.Generator().manual_seed(0))
    x = {
        "heads transposed": base[..., :16].transpose(1, 2),  # (B, H, n, d) view of (B, n, H, d)
        "odd offset": base[..., 1:17].transpose(1, 2),
        "stride 2": base[..., ::2][..., :16].transpose(1, 2),
        "contiguous": base[..., :16].transpose(1, 2).contiguous(),
    }[layout]
    cis = enc.rope_cis(torch.arange(9), 16)
    got = enc.apply_rope_complex(x, cis)
    assert got.shape == x.shape and got.dtype == x.dtype
    torch.testing.assert_close(got, enc.apply_rope(x))
    torch.testing.assert_close(got, enc.apply_rope(x.contiguous()))


FAST_BAD_INPUTS = [
    (
        lambda: enc.apply_rope_complex(torch.randn(4, 8, dtype=torch.bfloat16), enc.rope_cis(range(4), 8)),
        TypeError,
        "x must be float32 or float64",
    ),
    (lambda: enc.apply_rope_complex(torch.randn(4, 8), torch.randn(4, 4)), TypeError, "cis must be a complex"),
    (lambda: enc.apply_rope_complex(torch.randn(4, 8), enc.rope_cis(range(5), 8)), ValueError, "cis of shape"),
    (lambda: enc.apply_rope_complex(torch.randn(4, 7), enc.rope_cis(range(4), 8)), ValueError, "must be even"),
    (lambda: enc.rope_cis(range(4), 8, dtype=torch.float32), TypeError, "dtype must be torch.complex64"),
    (lambda: enc.rope_cis(range(4), 8, freqs=torch.ones(3)), ValueError, r"freqs must have shape \(d/2,\) = \(4,\)"),
    (
        lambda: enc.apply_rope_cached(torch.randn(4, 8), torch.ones(4, 3), torch.ones(4, 3)),
        ValueError,
        "cos must be a tensor ending in d/2 = 4",
    ),
    (lambda: enc.rope_cos_sin(range(4), 8, dtype=torch.int32), TypeError, "dtype must be a floating-point"),
    (lambda: enc.rope_cos_sin(range(4), 8, freqs=torch.ones(3)), ValueError, "freqs must have shape"),
    (
        lambda: enc.rope_cos_sin(range(4), 8, freqs=torch.ones(4, dtype=torch.int64)),
        TypeError,
        "freqs must be a floating",
    ),
]


@pytest.mark.parametrize("call,exc,message", FAST_BAD_INPUTS, ids=[m for _, _, m in FAST_BAD_INPUTS])
def test_fast_rope_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_complex_rope_into_a_buffer_and_in_place():
    x = torch.randn(3, 10, 16)
    cis = enc.rope_cis(torch.arange(10), 16)
    want = enc.apply_rope(x)
    y = torch.empty_like(x)
    assert enc.apply_rope_complex(x, cis, out=y) is y
    torch.testing.assert_close(y, want)
    z = x.clone()
    enc.apply_rope_complex(z, cis, out=z)  # in place
    torch.testing.assert_close(z, want)
    with pytest.raises(ValueError, match="out must be a contiguous tensor"):
        enc.apply_rope_complex(x, cis, out=torch.empty(3, 10, 8))


# ---------------------------------------------------------------- shifting rotated vectors
@settings(max_examples=40, deadline=None)
@given(
    d=EVEN_D,
    start=st.integers(0, 4000),
    delta=st.integers(-4000, 4000),
    seed=st.integers(0, 2**16),
    layout=st.sampled_from(["interleaved", "half"]),
    base=BASES,
)
def test_shift_rope_equals_rotating_at_the_shifted_positions(d, start, delta, seed, layout, base):
    """shift_rope(apply_rope(x, p), delta) == apply_rope(x, p + delta), for every pairing."""
    x = torch.randn(2, 5, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    p = start + torch.tensor([0, 1, 2, 7, 30])
    shifted = enc.shift_rope(enc.apply_rope(x, p, base=base, layout=layout), delta, base=base, layout=layout)
    torch.testing.assert_close(shifted, enc.apply_rope(x, p + delta, base=base, layout=layout), atol=1e-11, rtol=0)


@pytest.mark.parametrize("dtype, wider", [(torch.float32, torch.float64), (torch.bfloat16, torch.float32)])
def test_repeated_shifts_computed_wider_and_rounded_once_per_shift_err_less(dtype, wider):
    """The docstring's advice: shift_rope(x.to(wider), 1).to(dtype) keeps 100 shifts' error several times smaller."""
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(256, 64, dtype=torch.float64, generator=gen)
    p = torch.randint(0, 4096, (256,), generator=gen)
    exact = enc.apply_rope(x, p + 100)
    own = wide = enc.apply_rope(x, p).to(dtype)
    for _ in range(100):
        own = enc.shift_rope(own, 1)  # rounded cos/sin in dtype, applied again and again
        wide = enc.shift_rope(wide.to(wider), 1).to(dtype)

    def err(y):
        return float(((y.double() - exact).norm(dim=-1) / exact.norm(dim=-1)).median())

    assert err(wide) < err(own) / 2


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_shift_rope_per_position_and_per_sequence_deltas(layout):
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(3, 6, 16, generator=gen, dtype=torch.float64)
    p = torch.arange(6) + 10
    rotated = enc.apply_rope(x, p, layout=layout)
    per_position = torch.tensor([0, -3, 5, 100, -10, 7])  # one shift per cached position, as llama.cpp's cells
    torch.testing.assert_close(
        enc.shift_rope(rotated, per_position, layout=layout), enc.apply_rope(x, p + per_position, layout=layout)
    )
    torch.testing.assert_close(  # a list works as a tensor does
        enc.shift_rope(rotated, per_position.tolist(), layout=layout),
        enc.apply_rope(x, p + per_position, layout=layout),
    )
    per_sequence = torch.tensor([4, -9, 250]).view(3, 1)  # one shift per sequence of keys
    want = enc.apply_rope(x, p + per_sequence, layout=layout)
    torch.testing.assert_close(enc.shift_rope(rotated, per_sequence, layout=layout), want)
    torch.testing.assert_close(
        enc.shift_rope(rotated, torch.tensor(-4), layout=layout), enc.apply_rope(x, p - 4, layout=layout)
    )
    key = enc.apply_rope(x[0, :1], [42], layout=layout)[0]  # one cached key, shape (d,)
    torch.testing.assert_close(
        enc.shift_rope(key, 100, layout=layout), enc.apply_rope(x[0, :1], [142], layout=layout)[0]
    )


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_a_wrong_shift_fails_the_comparison(layout):
    """The equality is not vacuous: the opposite sign, the other pairing or another base
    give vectors far from the recomputed ones."""
    x = torch.randn(4, 32, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    p = torch.arange(4) + 50
    rotated = enc.apply_rope(x, p, layout=layout)
    want = enc.apply_rope(x, p + 37, layout=layout)
    other = "half" if layout == "interleaved" else "interleaved"
    assert torch.allclose(enc.shift_rope(rotated, 37, layout=layout), want)
    for wrong in (
        enc.shift_rope(rotated, -37, layout=layout),
        enc.shift_rope(rotated, 37, layout=other),
        enc.shift_rope(rotated, 37, layout=layout, base=500000.0),
    ):
        assert float((wrong - want).abs().max()) > 0.5


def test_shifts_compose_and_undo():
    x = torch.randn(5, 12, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    torch.testing.assert_close(enc.shift_rope(enc.shift_rope(x, 30), -12), enc.shift_rope(x, 18))
    torch.testing.assert_close(enc.shift_rope(enc.shift_rope(x, 1000), -1000), x)
    torch.testing.assert_close(enc.shift_rope(x, 0), x)
    torch.testing.assert_close(enc.shift_rope(x, 9).norm(dim=-1), x.norm(dim=-1))  # a rotation


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("delta", [1, 37, 1000, -500])
def test_shift_rope_keeps_dtype_and_adds_about_one_to_two_roundings(dtype, layout, delta):
    """A cache in ``dtype`` shifted in ``dtype``, against the float64 vectors rotated once at the
    new position, in units of the error of rounding that exact result once to ``dtype``. Measured
    over 200 seeds, these four deltas and both layouts: median about 2.1 to 2.3, largest 4.3 to
    5.1 (float32, bfloat16, float16), so the bound is 6 to leave room across seeds and kernels;
    a shift by the wrong delta is far outside it."""
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    p = torch.arange(8) * 50 + 600
    shifted = enc.shift_rope(enc.apply_rope(x, p, layout=layout).to(dtype), delta, layout=layout)
    assert shifted.dtype == dtype
    exact = enc.apply_rope(x, p + delta, layout=layout)
    once = float((exact.to(dtype).double() - exact).abs().max())
    assert float((shifted.double() - exact).abs().max()) <= 6 * once
    wrong = enc.shift_rope(enc.apply_rope(x, p, layout=layout).to(dtype), delta + 1, layout=layout)
    assert float((wrong.double() - exact).abs().max()) > 100 * once


def test_repeated_shifts_accumulate_rounding():
    """100 shifts by 1 of a float32 cache: the error grows with the number of shifts (measured
    about 100 to 130 roundings), far beyond one shift's, while one shift by 100 stays within 6."""
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    p = torch.arange(8) * 50
    keys = enc.apply_rope(x, p).float()
    stepped = keys
    for _ in range(100):
        stepped = enc.shift_rope(stepped, 1)
    exact = enc.apply_rope(x, p + 100)
    once = float((exact.float().double() - exact).abs().max())
    assert float((enc.shift_rope(keys, 100).double() - exact).abs().max()) <= 6 * once
    assert float((stepped.double() - exact).abs().max()) > 20 * once


def hand_rotation(x: torch.Tensor, delta: int, base: float = 10000.0, sign: float = 1.0) -> torch.Tensor:
    """RoFormer's 2x2 rotation of each pair (2i, 2i+1) by ``delta * base^(-2i/d)``, written out with
    Python's math module pair by pair: ``(a, b) -> (a cos t - b sin t, a sin t + b cos t)``.
    ``sign = -1`` turns the other way."""
    d = x.shape[-1]
    out = x.clone()
    for i in range(d // 2):
        t = sign * delta * base ** (-2 * i / d)
        c, s = math.cos(t), math.sin(t)
        a, b = x[..., 2 * i], x[..., 2 * i + 1]
        out[..., 2 * i] = a * c - b * s
        out[..., 2 * i + 1] = a * s + b * c
    return out


@pytest.mark.parametrize("delta", [1, -3, 250])
def test_shift_rope_is_the_papers_rotation_written_out_by_hand(delta):
    """An independent check of the interleaved shift: neither side uses the library's angle or
    rotation code (the other shift tests compare shift_rope with apply_rope, which share it, so a
    sign error in both would pass them). The complex form agrees too: multiplying pair
    ``a + ib`` by ``e^{i delta w}``. A rotation the other way fails the check."""
    x = torch.randn(3, 5, 16, generator=torch.Generator().manual_seed(8), dtype=torch.float64)
    shifted = enc.shift_rope(x, delta)
    torch.testing.assert_close(shifted, hand_rotation(x, delta), rtol=0, atol=1e-12)
    w = torch.tensor([10000.0 ** (-2 * i / 16) for i in range(8)], dtype=torch.float64)
    pairs = torch.view_as_complex(x.reshape(3, 5, 8, 2).contiguous())
    by_complex = torch.view_as_real(pairs * torch.polar(torch.ones(8, dtype=torch.float64), delta * w))
    torch.testing.assert_close(shifted, by_complex.reshape(3, 5, 16), rtol=0, atol=1e-12)
    flipped = hand_rotation(x, delta, sign=-1.0)
    assert float((shifted - flipped).abs().max()) > 0.1


def test_the_hand_check_catches_a_flipped_sign_in_the_library(monkeypatch):
    """Sabotage the shared rotation (turn the other way): shift_rope(apply_rope(x, p), d) still
    equals apply_rope(x, p + d), but the hand-written rotation no longer matches."""
    from book.encodings import rope

    real = rope._rotate
    monkeypatch.setattr(rope, "_rotate", lambda x, cos, sin, layout: real(x, cos, -sin, layout))
    x = torch.randn(4, 16, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    p = torch.arange(4) + 20
    torch.testing.assert_close(enc.shift_rope(enc.apply_rope(x, p), 7), enc.apply_rope(x, p + 7))  # still equal
    assert float((enc.shift_rope(x, 7) - hand_rotation(x, 7)).abs().max()) > 0.1


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_shift_rope_with_the_frequencies_the_keys_were_rotated_with(layout):
    """Keys rotated with other frequencies (YaRN, PI, p-RoPE) are shifted with the same ``freqs``,
    as llama.cpp's build_rope_shift passes the model's RoPE settings; shifting them with plain
    RoPE's frequencies is wrong. Partial rotary: shift the rotated features only."""
    d = 32
    x = torch.randn(2, 6, d, generator=torch.Generator().manual_seed(10), dtype=torch.float64)
    p = torch.arange(6) * 7 + 3
    delta = torch.tensor([5, -2, 40, 0, 11, 300])
    for w in (
        scaling.yarn_frequencies(d, scale=8.0, original_max_len=64)[0],
        scaling.pi_frequencies(d, scale=4.0),
        enc.proportional_frequencies(d, fraction=0.25),
    ):
        rotated = enc.apply_rope(x, p, layout=layout, freqs=w)
        want = enc.apply_rope(x, p + delta, layout=layout, freqs=w)
        torch.testing.assert_close(enc.shift_rope(rotated, delta, layout=layout, freqs=w), want, rtol=0, atol=1e-11)
        assert float((enc.shift_rope(rotated, delta, layout=layout) - want).abs().max()) > 0.5
    r = 8
    rotated = enc.apply_partial_rope(x, p, rotary_dim=r, layout=layout)
    moved = torch.cat((enc.shift_rope(rotated[..., :r], delta, layout=layout), rotated[..., r:]), dim=-1)
    torch.testing.assert_close(moved, enc.apply_partial_rope(x, p + delta, rotary_dim=r, layout=layout))


def test_shift_rope_passes_non_finite_values_of_x_through():
    x = torch.randn(3, 8, dtype=torch.float64)
    x[1, 2] = float("nan")
    x[2, 5] = float("inf")
    out = enc.shift_rope(x, 4)
    assert torch.isfinite(out[0]).all()
    assert out[1, 2:4].isnan().all() and torch.isfinite(out[1, [0, 1, 4, 5, 6, 7]]).all()  # only its own pair
    assert not torch.isfinite(out[2, 4:6]).all()


# ---------------------------------------------------------------- bad input
BAD_INPUTS = [
    (lambda: enc.apply_rope(torch.randn(4, 7)), ValueError, "last dimension of x must be even"),
    (lambda: enc.apply_rope(torch.randn(8)), ValueError, "x must have at least 2 dimensions"),
    (lambda: enc.apply_rope(torch.ones(4, 8, dtype=torch.long)), TypeError, "x must have a floating-point dtype"),
    (lambda: enc.apply_rope([[1.0, 2.0]]), TypeError, "x must be a torch.Tensor"),
    (
        lambda: enc.apply_rope(torch.randn(4, 8), torch.arange(5)),
        ValueError,
        "positions must end in the sequence length 4",
    ),
    (lambda: enc.apply_rope(torch.randn(2, 4, 8), torch.zeros(3, 4)), ValueError, "must broadcast to x.shape"),
    (
        lambda: enc.apply_rope(torch.randn(4, 8), layout="concat"),
        ValueError,
        "layout must be one of 'interleaved', 'half'",
    ),
    (lambda: enc.rope_layout_permutation(12, 4), ValueError, "whole even head width"),
    (lambda: enc.rope_layout_permutation(12, 5), ValueError, "whole even head width"),
    (lambda: enc.rope_layout_permutation(12, 0), ValueError, "n_heads must be a positive integer"),
    (lambda: enc.shift_rope(torch.randn(4, 8), 2.5), TypeError, "delta must be an integer number of positions"),
    (lambda: enc.shift_rope(torch.randn(4, 8), 3.0), TypeError, "delta must be an integer number of positions"),
    (
        lambda: enc.shift_rope(torch.randn(4, 8), True),
        TypeError,
        "delta must be an integer number of positions, got bool",
    ),
    (lambda: enc.shift_rope(torch.randn(4, 8), torch.tensor([1.0] * 4)), TypeError, "delta must have an integer dtype"),
    (lambda: enc.shift_rope(torch.randn(4, 8), torch.ones(4, dtype=torch.bool)), TypeError, "delta must hold integer"),
    (lambda: enc.shift_rope(torch.randn(4, 8), "3"), TypeError, "delta must be a tensor or a sequence"),
    (lambda: enc.shift_rope(torch.randn(4, 8), [1, True, 0, 2]), TypeError, "delta must hold numbers, not booleans"),
    (lambda: enc.shift_rope(torch.randn(4, 8), torch.arange(5)), ValueError, r"delta of shape \(5,\) must broadcast"),
    (lambda: enc.shift_rope(torch.randn(2, 4, 8), torch.zeros(3, 1, dtype=torch.long)), ValueError, "must broadcast"),
    (lambda: enc.shift_rope(torch.randn(8), torch.arange(8)), ValueError, r"must broadcast to x.shape\[:-1\] = \(\)"),
    (lambda: enc.shift_rope(torch.randn(4, 7), 1), ValueError, "last dimension of x must be even"),
    (lambda: enc.shift_rope(torch.randn(3, 0), 1), ValueError, "last dimension of x must be even and positive"),
    (lambda: enc.apply_rope(torch.randn(3, 0)), ValueError, "last dimension of x must be even and positive"),
    (lambda: enc.shift_rope(torch.randn(4, 8), 1, freqs=torch.ones(3)), ValueError, r"freqs must have shape \(d/2,\)"),
    (lambda: enc.shift_rope(torch.randn(4, 8), 1, freqs=torch.ones(4, dtype=torch.long)), TypeError, "freqs must be a"),
    (
        lambda: enc.shift_rope(torch.randn(4, 8), 1, freqs=torch.full((4,), math.inf)),
        ValueError,
        "freqs must be finite",
    ),
    (lambda: enc.shift_rope(torch.tensor(1.0), 1), ValueError, "x must have at least 1 dimensions"),
    (lambda: enc.shift_rope(torch.ones(4, 8, dtype=torch.long), 1), TypeError, "x must have a floating-point dtype"),
    (lambda: enc.shift_rope([[1.0, 2.0]], 1), TypeError, "x must be a torch.Tensor"),
    (lambda: enc.shift_rope(torch.randn(4, 8), 1, base=1.0), ValueError, "base must be a finite number > 1"),
    (lambda: enc.shift_rope(torch.randn(4, 8), 1, base="10000"), TypeError, "base must be a real number"),
    (lambda: enc.shift_rope(torch.randn(4, 8), 1, layout="neox"), ValueError, "layout must be one of"),
]


@pytest.mark.parametrize("call,exc,message", BAD_INPUTS, ids=[m for _, _, m in BAD_INPUTS])
def test_bad_input_names_parameter_and_rule(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


@pytest.mark.parametrize("base", [-1.0, float("nan"), 1.0])
def test_a_bad_base_is_refused_even_with_freqs(base):
    """``base`` keeps its documented rule when ``freqs`` replaces the frequencies."""
    freqs = enc.frequencies(8)
    with pytest.raises(ValueError, match="base"):
        enc.rope_cos_sin(torch.arange(4), 8, base=base, freqs=freqs)
    with pytest.raises(ValueError, match="base"):
        enc.apply_rope(torch.zeros(4, 8), base=base, freqs=freqs)
