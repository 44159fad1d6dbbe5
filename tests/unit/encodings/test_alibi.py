"""book.encodings.alibi: the slopes against Press et al.'s rule and the bias entries."""

from __future__ import annotations

import math
import warnings

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


def test_flex_attention_alibi_score_mod_equals_adding_alibi_bias():
    """PyTorch's FlexAttention (``torch.nn.attention.flex_attention``, torch 2.13) takes a
    ``score_mod(score, batch, head, q_idx, kv_idx)`` applied to the scaled score ``q.k / sqrt(d)``
    before the softmax. Called without ``torch.compile`` it runs on the CPU, unfused (it warns
    so); with the ALiBi ``score_mod`` built from ``alibi_slopes`` it gives the attention of
    ``softmax(q k^T / sqrt(d) + alibi_bias) v``, without and with a causal ``block_mask``, and not
    that of the bias with the slopes of the wrong heads (12 heads: not a power of two). Cost:
    2 to 3 s, mostly the first call's setup of ``torch._dynamo``."""
    flex = pytest.importorskip("torch.nn.attention.flex_attention")
    n_heads, seq, d = 12, 16, 8
    q, k, v = torch.randn(3, 2, n_heads, seq, d, generator=torch.Generator().manual_seed(0)).unbind(0)

    def alibi_mod(slopes):
        def score_mod(score, batch, head, q_idx, kv_idx):
            return score - slopes[head] * (q_idx - kv_idx).abs()

        return score_mod

    causal = torch.ones(seq, seq, dtype=torch.bool).tril()
    block_mask = flex.create_block_mask(lambda b, h, q_idx, kv_idx: q_idx >= kv_idx, None, None, seq, seq, device="cpu")

    def reference(bias):
        return torch.softmax(q @ k.transpose(-1, -2) / d**0.5 + bias, dim=-1) @ v

    bias = enc.alibi_bias(n_heads, seq)
    masked = bias.masked_fill(~causal, float("-inf"))
    slopes = enc.alibi_slopes(n_heads)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
        full = flex.flex_attention(q, k, v, score_mod=alibi_mod(slopes))
        torch.testing.assert_close(full, reference(bias), atol=1e-5, rtol=1e-5)
        only_causal = flex.flex_attention(q, k, v, score_mod=alibi_mod(slopes), block_mask=block_mask)
        torch.testing.assert_close(only_causal, reference(masked), atol=1e-5, rtol=1e-5)
    # the comparison can fail: the bias with the slopes of the wrong heads is far from it
    wrong_heads = (bias / slopes[:, None, None] * slopes.flip(0)[:, None, None]).masked_fill(~causal, float("-inf"))
    assert float((only_causal - reference(wrong_heads)).abs().max()) > 0.05


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
