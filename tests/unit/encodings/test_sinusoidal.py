"""book.encodings.sinusoidal: the frequencies, the sinusoidal table in both layouts and
both spacings, and the shift matrix, against the paper's formula, tensor2tensor's
``get_timing_signal_1d`` and invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from book import encodings as enc

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


# ---------------------------------------------------------------- frequencies
def test_frequencies_formula_and_range():
    w = enc.frequencies(8)
    assert w.dtype == torch.float64 and w.shape == (4,)
    torch.testing.assert_close(w, torch.tensor([1.0, 10000**-0.25, 10000**-0.5, 10000**-0.75], dtype=torch.float64))
    # Wavelengths 2*pi/w grow geometrically from 2*pi towards base*2*pi.
    wl = 2 * math.pi / enc.frequencies(512)
    assert wl[0] == pytest.approx(2 * math.pi)
    assert float(wl[-1]) < 10000 * 2 * math.pi
    ratios = wl[1:] / wl[:-1]
    torch.testing.assert_close(ratios, torch.full_like(ratios, 10000 ** (2 / 512)))


def reference_timing_signal_1d(
    length: int, channels: int, min_timescale: float = 1.0, max_timescale: float = 1.0e4
) -> np.ndarray:
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
    torch.testing.assert_close(
        enc.frequencies(8, spacing="tensor2tensor"),
        torch.tensor([1.0, 1e4 ** (-1 / 3), 1e4 ** (-2 / 3), 1e-4], dtype=torch.float64),
    )
    for d, base in [(4, 10000.0), (64, 10000.0), (512, 500000.0)]:
        slowest = 2 * math.pi / float(enc.frequencies(d, base=base, spacing="tensor2tensor")[-1])
        assert slowest == pytest.approx(2 * math.pi * base, rel=1e-12)  # exactly 2*pi*base
        assert 2 * math.pi / float(enc.frequencies(d, base=base)[-1]) < 0.99 * slowest  # the paper's: below
    # d = 2: tensor2tensor divides by max(d/2 - 1, 1) = 1, and exp(0) = 1.
    assert enc.frequencies(2, spacing="tensor2tensor").tolist() == [1.0]


@pytest.mark.parametrize("length,channels", [(1, 2), (10, 4), (50, 16), (128, 64), (300, 512)])
def test_tensor2tensor_table_matches_get_timing_signal_1d(length, channels):
    ref = torch.from_numpy(reference_timing_signal_1d(length, channels))
    ours = enc.sinusoidal(length, channels, layout="concat", spacing="tensor2tensor")
    assert ours.shape == (length, channels) and ours.dtype == torch.float32
    torch.testing.assert_close(ours, ref.float(), atol=1e-6, rtol=0)
    at = enc.sinusoidal_at(
        torch.arange(length), channels, layout="concat", spacing="tensor2tensor", dtype=torch.float64
    )
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
    assert (gap[1:] > 1e-3).all() and gap[0] == 0  # position 0 is [0 .. 0 | 1 .. 1] in both
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
    torch.testing.assert_close(m @ m.T, torch.eye(6, dtype=torch.float64))  # orthogonal
    torch.testing.assert_close(enc.rotation_matrix(-3, 6), m.T)  # inverse
    torch.testing.assert_close(enc.rotation_matrix(2, 6) @ enc.rotation_matrix(5, 6), enc.rotation_matrix(7, 6))
    torch.testing.assert_close(enc.rotation_matrix(0, 6), torch.eye(6, dtype=torch.float64))
    assert enc.rotation_matrix(1.5, 4, dtype=torch.float32).dtype == torch.float32
    assert enc.rotation_matrix(torch.tensor(2), 4).shape == (4, 4)
    import numpy as np  # offsets from NumPy are real numbers too

    torch.testing.assert_close(enc.rotation_matrix(np.int64(3), 6), m)


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
]


@pytest.mark.parametrize("call,exc,message", BAD_INPUTS, ids=[m for _, _, m in BAD_INPUTS])
def test_bad_input_names_parameter_and_rule(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
