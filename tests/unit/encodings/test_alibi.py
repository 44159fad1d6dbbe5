"""book.encodings.alibi: the slopes against Press et al.'s rule and the bias entries."""

from __future__ import annotations

import math

import pytest
import torch

from book import encodings as enc


# ---------------------------------------------------------------- references
def reference_press_slopes(n: int) -> list[float]:
    """Press et al.'s recursive rule, written from the paper's description."""

    def pow2(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start * start**i for i in range(m)]

    if math.log2(n).is_integer():
        return pow2(n)
    c = 2 ** math.floor(math.log2(n))
    return pow2(c) + reference_press_slopes(2 * c)[0::2][: n - c]


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


# ---------------------------------------------------------------- bad input
BAD_INPUTS = [
    (lambda: enc.alibi_slopes(0), ValueError, "n_heads must be a positive integer"),
    (lambda: enc.alibi_slopes(2.5), TypeError, "n_heads must be an integer"),
    (lambda: enc.alibi_bias(8, 0), ValueError, "seq_len must be a positive integer"),
]


@pytest.mark.parametrize("call,exc,message", BAD_INPUTS, ids=[m for _, _, m in BAD_INPUTS])
def test_bad_input_names_parameter_and_rule(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
