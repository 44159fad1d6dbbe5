"""The position checks every encoding shares (book.encodings._positions): a NaN or
infinite position raises, naming the positions, wherever positions are taken."""

from __future__ import annotations

import pytest
import torch

from book import encodings as enc
from book import numerics

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
    """A NaN or infinite position raises a ValueError naming the positions (no NaN outputs)."""
    with pytest.raises(ValueError, match=r"position.* must be finite \(no NaN or infinity\), got"):
        call(torch.tensor([0.0, bad, 2.0]))
    if name.startswith("sinusoidal_at"):  # a plain sequence of floats too
        with pytest.raises(ValueError, match="positions must be finite"):
            call([0.0, bad, 2.0])


def test_non_finite_positions_raise_and_finite_floats_keep_their_dtype_rules():
    with pytest.raises(ValueError, match="positions must be finite"):
        enc.apply_rope(torch.randn(3, 4), torch.tensor([0.0, NAN, 2.0]))
    with pytest.raises(ValueError, match="positions must be finite"):
        enc.sinusoidal_at([0.0, INF], 4)
    # Finite float positions still work where floats are allowed, and still
    # raise TypeError where integers are required.
    assert torch.isfinite(enc.apply_rope(torch.randn(3, 4), torch.tensor([0.0, 0.5, 2.0]))).all()
    with pytest.raises(TypeError, match="relative_position must have an integer dtype"):
        enc.t5_relative_bucket(torch.tensor([1.5]))
