"""Tests of book.encodings against independent references and invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from book import encodings as enc
from book import numerics

EVEN_D = st.integers(1, 48).map(lambda h: 2 * h)
BASES = st.sampled_from([10.0, 100.0, 10000.0, 500000.0])


# ---------------------------------------------------------------- references
def reference_sinusoidal(seq_len: int, d: int, base: float = 10000.0) -> torch.Tensor:
    """The paper's formula, entry by entry, in pure Python floats."""
    rows = []
    for pos in range(seq_len):
        row = []
        for i in range(d // 2):
            angle = pos / base ** (2 * i / d)
            row += [math.sin(angle), math.cos(angle)]
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float64)


def reference_rope_matrix(pos: float, d: int, base: float = 10000.0) -> torch.Tensor:
    """RoFormer eq. 15: the block-diagonal matrix of 2x2 rotations R(pos * theta_i)."""
    r = torch.zeros(d, d, dtype=torch.float64)
    for i in range(d // 2):
        a = pos * base ** (-2 * i / d)
        r[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.tensor(
            [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], dtype=torch.float64
        )
    return r


def reference_press_slopes(n: int) -> list[float]:
    """Press et al.'s recursive rule, written from the paper's description."""
    def pow2(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start * start**i for i in range(m)]

    if math.log2(n).is_integer():
        return pow2(n)
    c = 2 ** math.floor(math.log2(n))
    return pow2(c) + reference_press_slopes(2 * c)[0::2][: n - c]


# ---------------------------------------------------------------- frequencies
def test_frequencies_formula_and_range():
    w = enc.frequencies(8)
    assert w.dtype == torch.float64 and w.shape == (4,)
    torch.testing.assert_close(w, torch.tensor([1.0, 10000 ** -0.25, 10000 ** -0.5, 10000 ** -0.75], dtype=torch.float64))
    # Wavelengths 2*pi/w grow geometrically from 2*pi towards base*2*pi.
    wl = 2 * math.pi / enc.frequencies(512)
    assert wl[0] == pytest.approx(2 * math.pi)
    assert float(wl[-1]) < 10000 * 2 * math.pi
    ratios = wl[1:] / wl[:-1]
    torch.testing.assert_close(ratios, torch.full_like(ratios, 10000 ** (2 / 512)))


def reference_timing_signal_1d(length: int, channels: int, min_timescale: float = 1.0,
                               max_timescale: float = 1.0e4) -> np.ndarray:
    """tensor2tensor's ``get_timing_signal_1d`` (tensor2tensor/layers/common_attention.py),
    its published formula written out in NumPy float64, without the leading batch axis:

        log_timescale_increment = log(max_timescale / min_timescale) / max(channels // 2 - 1, 1)
        inv_timescales = min_timescale * exp(arange(channels // 2) * -log_timescale_increment)
        signal = concat([sin(position * inv_timescales), cos(position * inv_timescales)])
    """
    position = np.arange(length, dtype=np.float64)
    num_timescales = channels // 2
    increment = math.log(max_timescale / min_timescale) / max(num_timescales - 1, 1)
    inv_timescales = min_timescale * np.exp(np.arange(num_timescales, dtype=np.float64) * -increment)
    scaled_time = position[:, None] * inv_timescales[None, :]
    return np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)


@pytest.mark.parametrize("spacing", ["vaswani", "tensor2tensor"])
def test_frequencies_spacing_rejects_unknown_and_keeps_default(spacing):
    assert torch.equal(enc.frequencies(16), enc.frequencies(16, spacing="vaswani"))
    assert enc.frequencies(16, spacing=spacing)[0] == 1.0
    with pytest.raises(ValueError, match="spacing must be one of 'vaswani', 'tensor2tensor'"):
        enc.frequencies(16, spacing="fairseq")


def test_tensor2tensor_spacing_formula_and_slowest_wavelength():
    # w_i = base^(-i/(d/2 - 1)): for d = 8, exponents 0, 1/3, 2/3, 1.
    torch.testing.assert_close(enc.frequencies(8, spacing="tensor2tensor"),
                               torch.tensor([1.0, 1e4 ** (-1 / 3), 1e4 ** (-2 / 3), 1e-4], dtype=torch.float64))
    for d, base in [(4, 10000.0), (64, 10000.0), (512, 500000.0)]:
        slowest = 2 * math.pi / float(enc.frequencies(d, base=base, spacing="tensor2tensor")[-1])
        assert slowest == pytest.approx(2 * math.pi * base, rel=1e-12)            # exactly 2*pi*base
        assert 2 * math.pi / float(enc.frequencies(d, base=base)[-1]) < 0.99 * slowest  # the paper's: below
    # d = 2: tensor2tensor divides by max(d/2 - 1, 1) = 1, and exp(0) = 1.
    assert enc.frequencies(2, spacing="tensor2tensor").tolist() == [1.0]


@pytest.mark.parametrize("length,channels", [(1, 2), (10, 4), (50, 16), (128, 64), (300, 512)])
def test_tensor2tensor_table_matches_get_timing_signal_1d(length, channels):
    ref = torch.from_numpy(reference_timing_signal_1d(length, channels))
    ours = enc.sinusoidal(length, channels, layout="concat", spacing="tensor2tensor")
    assert ours.shape == (length, channels) and ours.dtype == torch.float32
    torch.testing.assert_close(ours, ref.float(), atol=1e-6, rtol=0)
    at = enc.sinusoidal_at(torch.arange(length), channels, layout="concat", spacing="tensor2tensor",
                           dtype=torch.float64)
    torch.testing.assert_close(at, ref, atol=1e-12, rtol=0)


@pytest.mark.parametrize("d", [8, 64])
def test_tensor2tensor_table_is_not_a_permutation_of_the_papers(d):
    """Same layout, other frequencies: no column order turns one table into the other."""
    paper_w = enc.frequencies(d)
    t2t_w = enc.frequencies(d, spacing="tensor2tensor")
    # Only pair 0 (w_0 = 1) has a frequency the paper's encoding also uses.
    shared = [i for i in range(d // 2) if torch.isclose(paper_w, t2t_w[i], rtol=1e-9, atol=0).any()]
    assert shared == [0]
    # So no column order maps one table onto the other: every row, sorted, differs.
    paper = enc.sinusoidal(200, d, layout="concat")
    t2t = enc.sinusoidal(200, d, layout="concat", spacing="tensor2tensor")
    gap = (paper.sort(dim=1).values - t2t.sort(dim=1).values).abs().amax(dim=1)
    assert (gap[1:] > 1e-3).all() and gap[0] == 0      # position 0 is [0 .. 0 | 1 .. 1] in both
    # The layout permutation still links the two layouts within one spacing.
    perm = enc.layout_permutation(d)
    inter = enc.sinusoidal(200, d, spacing="tensor2tensor")
    assert torch.equal(t2t, inter[:, perm])


# ---------------------------------------------------------------- sinusoidal
@pytest.mark.parametrize("seq_len,d,base", [(1, 2, 10000.0), (7, 6, 10000.0), (50, 16, 10000.0), (20, 10, 100.0)])
def test_sinusoidal_matches_paper_formula(seq_len, d, base):
    pe = enc.sinusoidal(seq_len, d, base=base)
    assert pe.shape == (seq_len, d) and pe.dtype == torch.float32
    torch.testing.assert_close(pe, reference_sinusoidal(seq_len, d, base).float())


def test_sinusoidal_position_zero_is_sin0_cos0():
    pe = enc.sinusoidal(3, 8)
    torch.testing.assert_close(pe[0], torch.tensor([0.0, 1.0] * 4))


def test_sinusoidal_large_positions_accurate():
    """Angles in float64: the float32 table at position 10^6 is within float32 rounding."""
    pos = 1_000_000
    pe = enc.sinusoidal_at(torch.tensor([pos]), 64)[0]
    ref = torch.tensor([f(pos * 10000 ** (-2 * i / 64)) for i in range(32) for f in (math.sin, math.cos)])
    torch.testing.assert_close(pe.double(), ref.double(), atol=1e-7, rtol=0)


def test_sinusoidal_at_matches_table_and_accepts_shapes():
    pos = torch.tensor([[0, 3], [5, 9]])
    out = enc.sinusoidal_at(pos, 12)
    assert out.shape == (2, 2, 12)
    torch.testing.assert_close(out[1, 1], enc.sinusoidal(10, 12)[9])
    assert enc.sinusoidal_at([0.5], 4, dtype=torch.float64).dtype == torch.float64


def test_concat_layout_definition():
    pe = enc.sinusoidal(9, 10, layout="concat")
    ref = reference_sinusoidal(9, 10).float()
    torch.testing.assert_close(pe[:, :5], ref[:, 0::2])
    torch.testing.assert_close(pe[:, 5:], ref[:, 1::2])


@settings(max_examples=40, deadline=None)
@given(seq_len=st.integers(1, 200), d=EVEN_D, base=BASES)
def test_pe_is_bounded(seq_len, d, base):
    pe = enc.sinusoidal(seq_len, d, base=base)
    assert pe.abs().max() <= 1.0
    # Each (sin, cos) pair lies on the unit circle.
    torch.testing.assert_close(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, torch.ones(seq_len, d // 2))


@settings(max_examples=40, deadline=None)
@given(seq_len=st.integers(1, 100), d=EVEN_D, base=BASES)
def test_layouts_are_a_fixed_permutation(seq_len, d, base):
    perm = enc.layout_permutation(d)
    inter = enc.sinusoidal(seq_len, d, base=base)
    concat = enc.sinusoidal(seq_len, d, base=base, layout="concat")
    assert torch.equal(concat, inter[:, perm])
    assert torch.equal(inter, concat[:, torch.argsort(perm)])
    assert sorted(perm.tolist()) == list(range(d))


# ---------------------------------------------------------------- rotation matrix
@settings(max_examples=40, deadline=None)
@given(d=EVEN_D, k=st.integers(-3000, 3000), base=BASES)
def test_rotation_matrix_shifts_every_position(d, k, base):
    """PE(p + k) = M_k PE(p), the same M_k for every p (Vaswani et al., section 3.5)."""
    pos = torch.arange(0, 5000, 37)
    pe = enc.sinusoidal_at(pos, d, base=base, dtype=torch.float64)
    shifted = enc.sinusoidal_at(pos + k, d, base=base, dtype=torch.float64)
    torch.testing.assert_close(pe @ enc.rotation_matrix(k, d, base=base).T, shifted, atol=1e-9, rtol=0)


def test_rotation_matrix_blocks_and_group_laws():
    m = enc.rotation_matrix(3, 6)
    w = enc.frequencies(6)
    assert m.shape == (6, 6) and m.dtype == torch.float64
    c, s = math.cos(3 * float(w[1])), math.sin(3 * float(w[1]))
    torch.testing.assert_close(m[2:4, 2:4], torch.tensor([[c, s], [-s, c]], dtype=torch.float64))
    assert torch.all(m[:2, 2:] == 0) and torch.all(m[2:, :2] == 0)
    torch.testing.assert_close(m @ m.T, torch.eye(6, dtype=torch.float64))                   # orthogonal
    torch.testing.assert_close(enc.rotation_matrix(-3, 6), m.T)                             # inverse
    torch.testing.assert_close(enc.rotation_matrix(2, 6) @ enc.rotation_matrix(5, 6), enc.rotation_matrix(7, 6))
    torch.testing.assert_close(enc.rotation_matrix(0, 6), torch.eye(6, dtype=torch.float64))
    assert enc.rotation_matrix(1.5, 4, dtype=torch.float32).dtype == torch.float32
    assert enc.rotation_matrix(torch.tensor(2), 4).shape == (4, 4)
    import numpy as np  # offsets from NumPy are real numbers too
    torch.testing.assert_close(enc.rotation_matrix(np.int64(3), 6), m)


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
@given(seq_len=st.integers(1, 40), d=EVEN_D, seed=st.integers(0, 2**16), layout=st.sampled_from(["interleaved", "half"]))
def test_rope_preserves_norms(seq_len, d, seed, layout):
    x = torch.randn(2, seq_len, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    y = enc.apply_rope(x, layout=layout)
    torch.testing.assert_close(y.norm(dim=-1), x.norm(dim=-1))


@settings(max_examples=40, deadline=None)
@given(
    d=EVEN_D, m=st.integers(0, 5000), n=st.integers(0, 5000), shift=st.integers(-5000, 5000),
    seed=st.integers(0, 2**16), layout=st.sampled_from(["interleaved", "half"]), base=BASES,
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


# ---------------------------------------------------------------- ALiBi
def test_alibi_slopes_eight_heads_are_halves():
    assert alibi_list(8) == [1 / 2**h for h in range(1, 9)]


def alibi_list(n):
    return enc.alibi_slopes(n).tolist()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 40, 64, 96])
def test_alibi_slopes_follow_press_rule(n):
    s = enc.alibi_slopes(n)
    assert s.shape == (n,) and s.dtype == torch.float32
    torch.testing.assert_close(s, torch.tensor(reference_press_slopes(n), dtype=torch.float32))
    assert torch.all((s > 0) & (s < 1))


def test_alibi_twelve_heads():
    expected = [2.0**-h for h in range(1, 9)] + [2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5]
    torch.testing.assert_close(enc.alibi_slopes(12), torch.tensor(expected))


def test_alibi_bias_entries():
    b = enc.alibi_bias(4, 6)
    assert b.shape == (4, 6, 6) and b.dtype == torch.float32
    m = enc.alibi_slopes(4)
    for h in range(4):
        for i in range(6):
            for j in range(6):
                assert float(b[h, i, j]) == pytest.approx(-float(m[h]) * abs(i - j))
    assert torch.equal(b, b.transpose(-1, -2))


# ---------------------------------------------------------------- learned
def test_learned_embedding_lookup_shape_and_grad():
    torch.manual_seed(0)
    emb = enc.LearnedPositionalEmbedding(16, 8)
    pos = torch.tensor([[0, 1, 15], [3, 3, 4]])
    out = emb(pos)
    assert out.shape == (2, 3, 8)
    torch.testing.assert_close(out[0, 2], emb.weight[15])
    out.sum().backward()
    assert emb.weight.grad is not None and float(emb.weight.grad[15].abs().sum()) > 0
    assert 0.01 < float(emb.weight.detach().std()) < 0.03
    assert "max_len=16" in repr(emb)


@pytest.mark.parametrize("bad", [16, 100, -1])
def test_learned_embedding_out_of_range_names_max_len(bad):
    emb = enc.LearnedPositionalEmbedding(16, 8)
    with pytest.raises(ValueError, match=r"max_len\) = \[0, 16\).*got " + str(bad)):
        emb(torch.tensor([0, bad]))


# ---------------------------------------------------------------- T5 buckets
def reference_t5_bucket(rel: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """Raffel et al. (2020)'s bucketing, one integer at a time, in float32 like the T5 code."""
    offset = 0
    if bidirectional:
        num_buckets //= 2
        offset = num_buckets if rel > 0 else 0
        r = abs(rel)
    else:
        r = max(-rel, 0)
    exact = num_buckets // 2
    if r < exact:
        return offset + r
    f32 = np.float32
    frac = f32(np.log(f32(r) / f32(exact))) / f32(math.log(max_distance / exact))
    return offset + min(num_buckets - 1, exact + int(frac * f32(num_buckets - exact)))


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", [(32, 128), (8, 20), (64, 256), (16, 1000)])
def test_t5_buckets_match_reference(bidirectional, num_buckets, max_distance):
    rel = torch.arange(-1500, 1501)
    got = enc.t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    want = [reference_t5_bucket(int(r), bidirectional, num_buckets, max_distance) for r in rel]
    assert got.tolist() == want
    assert got.dtype == torch.int64 and int(got.min()) == 0 and int(got.max()) == num_buckets - 1


def test_t5_bucket_values_by_hand():
    # 32 buckets, 16 per direction, exact below 8, then log-spaced up to 128:
    # 8 + floor(log(r / 8) / log(16) * 8) gives 10 at r = 16, 12 at 32, 14 at 64.
    rel = torch.tensor([0, -1, -7, -8, -16, -32, -64, -127, -128, -5000, 1, 7, 8, 16, 128])
    assert enc.t5_relative_bucket(rel).tolist() == [0, 1, 7, 8, 10, 12, 14, 15, 15, 15, 17, 23, 24, 26, 31]
    # a decoder: keys after the query (rel > 0) all share bucket 0; 32 buckets for the past
    dec = enc.t5_relative_bucket(torch.tensor([5, 0, -1, -15, -16, -32, -128]), bidirectional=False)
    assert dec.tolist() == [0, 0, 1, 15, 16, 21, 31]  # 16 + floor(log(2) / log(8) * 16) = 21


@pytest.mark.parametrize("bidirectional,last,first_distance", [(True, 15, 91), (False, 31, 113)])
def test_t5_last_bucket_starts_before_max_distance(bidirectional, last, first_distance):
    """The floor makes T5's last bucket start at 91 (encoder) / 113 (decoder), not at 128."""
    back = torch.arange(0, 400)
    buckets = enc.t5_relative_bucket(-back, bidirectional=bidirectional)
    assert int(back[buckets == last].min()) == first_distance
    assert (buckets[first_distance:] == last).all() and int(buckets[first_distance - 1]) == last - 1


def test_t5_bucket_is_monotone_in_distance_and_keeps_shape():
    rel = torch.arange(0, 400).reshape(20, 20)
    back = enc.t5_relative_bucket(-rel)
    assert back.shape == (20, 20)
    assert torch.all(back.flatten().diff() >= 0)


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


# ---------------------------------------------------------------- bad input
BAD_INPUTS = [
    (lambda: enc.sinusoidal(10, 7), ValueError, "d_model must be even"),
    (lambda: enc.sinusoidal(0, 8), ValueError, "seq_len must be a positive integer"),
    (lambda: enc.sinusoidal(-3, 8), ValueError, "seq_len must be a positive integer"),
    (lambda: enc.sinusoidal(4.0, 8), TypeError, "seq_len must be an integer"),
    (lambda: enc.sinusoidal(4, 8, base=1.0), ValueError, "base must be a finite number > 1"),
    (lambda: enc.sinusoidal(4, 8, base=float("nan")), ValueError, "base must be a finite number > 1"),
    (lambda: enc.sinusoidal(4, 8, layout="half"), ValueError, "layout must be one of 'interleaved', 'concat'"),
    (lambda: enc.sinusoidal_at(torch.tensor([True]), 8), TypeError, "positions must hold integer positions"),
    (lambda: enc.sinusoidal_at([1], 8, dtype=torch.int64), TypeError, "dtype must be a floating-point"),
    (lambda: enc.frequencies(0), ValueError, "d_model must be a positive integer"),
    (lambda: enc.frequencies(True), TypeError, "d_model must be an integer"),
    (lambda: enc.layout_permutation(5), ValueError, "d_model must be even"),
    (lambda: enc.rotation_matrix("1", 8), TypeError, "k must be a real number"),
    (lambda: enc.rotation_matrix(True, 8), TypeError, "k must be a real number"),
    (lambda: enc.rotation_matrix(float("nan"), 8), ValueError, "k must be finite"),
    (lambda: enc.rotation_matrix(1, 9), ValueError, "d_model must be even"),
    (lambda: enc.rotation_matrix(1, 8, base=0.5), ValueError, "base must be a finite number > 1"),
    (lambda: enc.rotation_matrix(1, 8, dtype=torch.int32), TypeError, "dtype must be a floating-point"),
    (lambda: enc.apply_rope(torch.randn(4, 7)), ValueError, "last dimension of x must be even"),
    (lambda: enc.apply_rope(torch.randn(8)), ValueError, "x must have at least 2 dimensions"),
    (lambda: enc.apply_rope(torch.ones(4, 8, dtype=torch.long)), TypeError, "x must have a floating-point dtype"),
    (lambda: enc.apply_rope([[1.0, 2.0]]), TypeError, "x must be a torch.Tensor"),
    (lambda: enc.apply_rope(torch.randn(4, 8), torch.arange(5)), ValueError, "positions must end in the sequence length 4"),
    (lambda: enc.apply_rope(torch.randn(2, 4, 8), torch.zeros(3, 4)), ValueError, "must broadcast to x.shape"),
    (lambda: enc.apply_rope(torch.randn(4, 8), layout="concat"), ValueError, "layout must be one of 'interleaved', 'half'"),
    (lambda: enc.alibi_slopes(0), ValueError, "n_heads must be a positive integer"),
    (lambda: enc.alibi_slopes(2.5), TypeError, "n_heads must be an integer"),
    (lambda: enc.alibi_bias(8, 0), ValueError, "seq_len must be a positive integer"),
    (lambda: enc.t5_relative_bucket(torch.tensor([1.5])), TypeError, "relative_position must have an integer dtype"),
    (lambda: enc.t5_relative_bucket([1], num_buckets=7), ValueError, "num_buckets must be even"),
    (lambda: enc.t5_relative_bucket([1], num_buckets=2), ValueError, "num_buckets must leave at least 2"),
    (lambda: enc.t5_relative_bucket([1], max_distance=8), ValueError, "max_distance must exceed the exact range 8"),
    (lambda: enc.t5_relative_bucket([1], bidirectional=1), TypeError, "bidirectional must be True or False"),
    (lambda: enc.rope_layout_permutation(12, 4), ValueError, "whole even head width"),
    (lambda: enc.rope_layout_permutation(12, 5), ValueError, "whole even head width"),
    (lambda: enc.rope_layout_permutation(12, 0), ValueError, "n_heads must be a positive integer"),
    (lambda: enc.LearnedPositionalEmbedding(0, 8), ValueError, "max_len must be a positive integer"),
    (lambda: enc.LearnedPositionalEmbedding(8, 8)(torch.tensor([0.0, 1.0])), TypeError, "positions must have an integer dtype"),
    (lambda: enc.LearnedPositionalEmbedding(8, 8)([0, 1]), TypeError, "positions must be a torch.Tensor"),
]

NAN, INF = float("nan"), float("inf")
NON_FINITE_POSITIONS = [
    ("sinusoidal_at", lambda p: enc.sinusoidal_at(p, 4)),
    ("sinusoidal_at t2t", lambda p: enc.sinusoidal_at(p, 4, layout="concat", spacing="tensor2tensor")),
    ("apply_rope", lambda p: enc.apply_rope(torch.randn(3, 4), p)),
    ("apply_rope half", lambda p: enc.apply_rope(torch.randn(3, 4), p, layout="half")),
    ("apply_rope freqs", lambda p: enc.apply_rope(torch.randn(3, 4), p, freqs=torch.ones(2, dtype=torch.float64))),
    ("rope_cos_sin", lambda p: enc.rope_cos_sin(p, 4)),
    ("rope_cis", lambda p: enc.rope_cis(p, 4)),
    ("rope_cos_error", lambda p: numerics.rope_cos_error(p, 4, angle_dtype=torch.bfloat16)),
    ("t5_relative_bucket", lambda p: enc.t5_relative_bucket(p)),
    ("LearnedPositionalEmbedding", lambda p: enc.LearnedPositionalEmbedding(8, 4)(p)),
]


@pytest.mark.parametrize("bad", [NAN, INF, -INF], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("name,call", NON_FINITE_POSITIONS, ids=[n for n, _ in NON_FINITE_POSITIONS])
def test_non_finite_positions_raise_naming_positions(name, call, bad):
    """A NaN or infinite position used to flow silently into NaN outputs."""
    with pytest.raises(ValueError, match=r"position.* must be finite \(no NaN or infinity\), got"):
        call(torch.tensor([0.0, bad, 2.0]))
    if name.startswith("sinusoidal_at"):   # a plain sequence too, as in the issue
        with pytest.raises(ValueError, match="positions must be finite"):
            call([0.0, bad, 2.0])


def test_issue_examples_non_finite_positions():
    with pytest.raises(ValueError, match="positions must be finite"):
        enc.apply_rope(torch.randn(3, 4), torch.tensor([0.0, NAN, 2.0]))
    with pytest.raises(ValueError, match="positions must be finite"):
        enc.sinusoidal_at([0.0, INF], 4)
    # Finite float positions still work where floats are allowed, and still
    # raise TypeError where integers are required.
    assert torch.isfinite(enc.apply_rope(torch.randn(3, 4), torch.tensor([0.0, 0.5, 2.0]))).all()
    with pytest.raises(TypeError, match="relative_position must have an integer dtype"):
        enc.t5_relative_bucket(torch.tensor([1.5]))


@pytest.mark.parametrize("call,exc,message", BAD_INPUTS, ids=[m for _, _, m in BAD_INPUTS])
def test_bad_input_names_parameter_and_rule(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


# ---------------------------------------------------------------- fast RoPE forms
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_cached_rope_equals_reference(layout):
    x = torch.randn(2, 3, 17, 32, dtype=torch.float64)
    cos, sin = enc.rope_cos_sin(torch.arange(17), 32, dtype=torch.float64)
    torch.testing.assert_close(enc.apply_rope_cached(x, cos, sin, layout=layout), enc.apply_rope(x, layout=layout))
    cos32, sin32 = enc.rope_cos_sin(torch.arange(100), 32)        # a cache longer than needed
    torch.testing.assert_close(enc.apply_rope_cached(x.float(), cos32[:17], sin32[:17], layout=layout),
                               enc.apply_rope(x.float(), layout=layout))


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
    x = {"heads transposed": base[..., :16].transpose(1, 2),   # (B, H, n, d) view of (B, n, H, d)
         "odd offset": base[..., 1:17].transpose(1, 2),
         "stride 2": base[..., ::2][..., :16].transpose(1, 2),
         "contiguous": base[..., :16].transpose(1, 2).contiguous()}[layout]
    cis = enc.rope_cis(torch.arange(9), 16)
    got = enc.apply_rope_complex(x, cis)
    assert got.shape == x.shape and got.dtype == x.dtype
    torch.testing.assert_close(got, enc.apply_rope(x))
    torch.testing.assert_close(got, enc.apply_rope(x.contiguous()))


FAST_BAD_INPUTS = [
    (lambda: enc.apply_rope_complex(torch.randn(4, 8, dtype=torch.bfloat16), enc.rope_cis(range(4), 8)),
     TypeError, "x must be float32 or float64"),
    (lambda: enc.apply_rope_complex(torch.randn(4, 8), torch.randn(4, 4)), TypeError, "cis must be a complex"),
    (lambda: enc.apply_rope_complex(torch.randn(4, 8), enc.rope_cis(range(5), 8)), ValueError, "cis of shape"),
    (lambda: enc.apply_rope_complex(torch.randn(4, 7), enc.rope_cis(range(4), 8)), ValueError, "must be even"),
    (lambda: enc.rope_cis(range(4), 8, dtype=torch.float32), TypeError, "dtype must be torch.complex64"),
    (lambda: enc.rope_cis(range(4), 8, freqs=torch.ones(3)), ValueError, r"freqs must have shape \(d/2,\) = \(4,\)"),
    (lambda: enc.apply_rope_cached(torch.randn(4, 8), torch.ones(4, 3), torch.ones(4, 3)), ValueError,
     "cos must be a tensor ending in d/2 = 4"),
    (lambda: enc.rope_cos_sin(range(4), 8, dtype=torch.int32), TypeError, "dtype must be a floating-point"),
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
    enc.apply_rope_complex(z, cis, out=z)                 # in place
    torch.testing.assert_close(z, want)
    with pytest.raises(ValueError, match="out must be a contiguous tensor"):
        enc.apply_rope_complex(x, cis, out=torch.empty(3, 10, 8))


def test_the_package_re_exports_every_public_name_of_its_modules():
    """``from book import encodings`` gives every scheme module's public API."""
    import importlib

    for name in ("sinusoidal", "rope", "alibi", "t5", "learned"):
        module = importlib.import_module(f"book.encodings.{name}")
        missing = set(module.__all__) - set(enc.__all__)
        assert not missing, f"book.encodings does not re-export {sorted(missing)} from {name}"
        for public in module.__all__:
            assert getattr(enc, public) is getattr(module, public)
