"""Tests of book.attention: equal to PyTorch's fused attention, and equivariant."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from book import attention as att
from book import encodings as enc


def rand(*shape, seed=0, dtype=torch.float64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


@settings(max_examples=30, deadline=None)
@given(
    batch=st.lists(st.integers(1, 3), max_size=2),
    seq_q=st.integers(1, 9),
    seq_k=st.integers(1, 9),
    d=st.integers(1, 12),
    d_v=st.integers(1, 7),
    causal=st.booleans(),
    with_bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_attention_equals_sdpa(batch, seq_q, seq_k, d, d_v, causal, with_bias, seed):
    q, k, v = (
        rand(*batch, seq_q, d, seed=seed),
        rand(*batch, seq_k, d, seed=seed + 1),
        rand(*batch, seq_k, d_v, seed=seed + 2),
    )
    bias = rand(seq_q, seq_k, seed=seed + 3) if with_bias else None
    out, weights = att.attention(q, k, v, bias=bias, causal=causal)
    mask = None if bias is None else bias
    if causal:
        mask = att.causal_mask(seq_q, seq_k).double() + (0 if bias is None else bias)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(out, ref)
    assert weights.shape == (*batch, seq_q, seq_k)
    torch.testing.assert_close(weights.sum(-1), torch.ones(*batch, seq_q, dtype=torch.float64))


def test_attention_causal_matches_sdpa_is_causal_flag():
    q, k, v = rand(2, 3, 6, 8, seed=1), rand(2, 3, 6, 8, seed=2), rand(2, 3, 6, 8, seed=3)
    out, w = att.attention(q, k, v, causal=True)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=True))
    assert torch.all(w.triu(diagonal=1) == 0)


def test_attention_with_alibi_bias_per_head():
    q, k, v = rand(1, 8, 5, 4, seed=4), rand(1, 8, 5, 4, seed=5), rand(1, 8, 5, 4, seed=6)
    bias = enc.alibi_bias(8, 5).double()
    out, _ = att.attention(q, k, v, bias=bias)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=bias))


def test_attention_float32_and_hand_formula():
    q, k, v = (
        rand(4, 3, seed=7, dtype=torch.float32),
        rand(5, 3, seed=8, dtype=torch.float32),
        rand(5, 2, seed=9, dtype=torch.float32),
    )
    out, w = att.attention(q, k, v)
    scores = q @ k.T / 3**0.5
    ref_w = scores.exp() / scores.exp().sum(-1, keepdim=True)
    torch.testing.assert_close(w, ref_w)
    torch.testing.assert_close(out, ref_w @ v)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 12), d=st.integers(1, 10), seed=st.integers(0, 2**16))
def test_self_attention_is_permutation_equivariant(n, d, seed):
    x = rand(n, d, seed=seed)
    wq, wk, wv = rand(d, d, seed=seed + 1), rand(d, d, seed=seed + 2), rand(d, d, seed=seed + 3)
    perm = att.random_permutation(n, generator=torch.Generator().manual_seed(seed))

    def self_attn(z):
        return att.attention(z @ wq, z @ wk, z @ wv)[0]

    torch.testing.assert_close(self_attn(att.permute(x, perm)), att.permute(self_attn(x), perm))
    p = att.permutation_matrix(perm, dtype=torch.float64)
    torch.testing.assert_close(self_attn(p @ x), p @ self_attn(x))


def test_permutation_helpers_agree():
    perm = torch.tensor([2, 0, 3, 1])
    x = rand(4, 3, seed=10)
    p = att.permutation_matrix(perm, dtype=torch.float64)
    torch.testing.assert_close(p @ x, att.permute(x, perm))
    torch.testing.assert_close(p @ x, x[perm])
    torch.testing.assert_close(p.T @ p, torch.eye(4, dtype=torch.float64))
    inv = att.inverse_permutation(perm)
    assert torch.equal(att.permute(att.permute(x, perm), inv), x)
    assert torch.equal(perm[inv], torch.arange(4))
    # permute along another axis
    y = rand(2, 4, 5, seed=11)
    assert torch.equal(att.permute(y, perm, dim=1), y[:, perm])


def test_random_permutation_is_reproducible():
    a = att.random_permutation(10, generator=torch.Generator().manual_seed(3))
    b = att.random_permutation(10, generator=torch.Generator().manual_seed(3))
    assert torch.equal(a, b) and sorted(a.tolist()) == list(range(10))


def test_causal_mask_values():
    m = att.causal_mask(3, 4)
    assert m.shape == (3, 4)
    assert torch.equal(torch.isinf(m), torch.tensor([[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1]], dtype=torch.bool))


BAD_INPUTS = [
    (lambda: att.attention(rand(3, 4), rand(3, 5), rand(3, 5)), ValueError, "q and k must have the same feature size"),
    (lambda: att.attention(rand(3, 4), rand(3, 4), rand(2, 4)), ValueError, "k and v must have the same length"),
    (lambda: att.attention(rand(3, 4), rand(3, 4, dtype=torch.float32), rand(3, 4)), TypeError, "share one dtype"),
    (
        lambda: att.attention(torch.ones(3, 4, dtype=torch.long), rand(3, 4), rand(3, 4)),
        TypeError,
        "q must have a floating-point dtype",
    ),
    (lambda: att.attention(rand(4), rand(3, 4), rand(3, 4)), ValueError, "q must have at least 2 dimensions"),
    (lambda: att.attention(rand(2, 3, 4), rand(3, 3, 4), rand(3, 3, 4)), ValueError, "leading \\(batch/head\\) dims"),
    (
        lambda: att.attention(rand(3, 4), rand(3, 4), rand(3, 4), bias=rand(2, 3)),
        ValueError,
        "bias of shape \\(2, 3\\) must broadcast",
    ),
    (
        lambda: att.attention(rand(3, 4), rand(3, 4), rand(3, 4), bias=torch.ones(3, 3, dtype=torch.bool)),
        TypeError,
        "bias must be a floating",
    ),
    (lambda: att.attention(rand(3, 4), rand(3, 4), rand(3, 4), bias=rand(2, 3, 3)), ValueError, "must broadcast"),
    (
        lambda: att.permute(rand(4, 3), torch.tensor([0, 1, 1, 3])),
        ValueError,
        "perm must contain each of 0 .. 3 exactly once",
    ),
    (lambda: att.permute(rand(4, 3), torch.tensor([0, 1, 2])), ValueError, "perm must have one entry per position"),
    (lambda: att.permute(rand(4, 3), torch.tensor([0.0, 1.0, 2.0, 3.0])), TypeError, "perm must have an integer dtype"),
    (lambda: att.permute(rand(4, 3), torch.tensor([0, 1, 2, 3]), dim=2), ValueError, "dim must be in"),
    (lambda: att.permutation_matrix([1, 0]), TypeError, "perm must be a torch.Tensor"),
    (lambda: att.random_permutation(0), ValueError, "n must be a positive integer"),
    (lambda: att.causal_mask(0), ValueError, "seq_q must be a positive integer"),
]


@pytest.mark.parametrize("call,exc,message", BAD_INPUTS, ids=[m for _, _, m in BAD_INPUTS])
def test_bad_input_names_parameter_and_rule(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
