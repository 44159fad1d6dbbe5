"""Chapter 6: partial rotary against transformers' GPT-NeoX, and the expected RoPE score."""

from __future__ import annotations

import math

import pytest
import torch

from book import encodings
from book.encodings.rope import apply_partial_rope, rope_expected_score


@pytest.mark.parametrize("head, factor, base", [(16, 0.25, 10000.0), (32, 0.5, 500.0), (8, 1.0, 10000.0)])
def test_partial_rope_equals_gpt_neox(head, factor, base):
    from transformers import GPTNeoXConfig
    from transformers.models.gpt_neox import modeling_gpt_neox as neox

    cfg = GPTNeoXConfig(
        hidden_size=2 * head,
        num_attention_heads=2,
        rope_parameters={"rope_type": "default", "rope_theta": base, "partial_rotary_factor": factor},
    )
    rotary = neox.GPTNeoXRotaryEmbedding(cfg)
    pos_ids = torch.arange(7)[None] + 40
    cos, sin = rotary(torch.ones(1, dtype=torch.float64), pos_ids)
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 1, 2, 7, head, dtype=torch.float64, generator=g)
    q_hf, k_hf = neox.apply_rotary_pos_emb(q, k, cos.double(), sin.double())
    r = int(head * factor)
    q_us = apply_partial_rope(q, pos_ids, rotary_dim=r, base=base, layout="half")
    k_us = apply_partial_rope(k, pos_ids, rotary_dim=r, base=base, layout="half")
    torch.testing.assert_close(q_us, q_hf, atol=1e-4, rtol=0)  # transformers: float32 angles
    torch.testing.assert_close(k_us, k_hf, atol=1e-4, rtol=0)
    assert not torch.allclose(q_us, q, atol=1e-3)
    torch.testing.assert_close(q_us[..., r:], q[..., r:], atol=0, rtol=0)  # passed through


def test_partial_rope_full_width_is_apply_rope_and_score_splits():
    x = torch.randn(5, 12, dtype=torch.float64)
    torch.testing.assert_close(apply_partial_rope(x, rotary_dim=12), encodings.apply_rope(x))
    q, k = torch.randn(2, 12, dtype=torch.float64)
    qs = apply_partial_rope(q.expand(3, 12), torch.tensor([9, 19, 29]), rotary_dim=4)
    ks = apply_partial_rope(k.expand(3, 12), torch.tensor([2, 12, 22]), rotary_dim=4)
    scores = (qs * ks).sum(-1)
    torch.testing.assert_close(scores, scores[:1].expand(3))  # relative
    assert not torch.allclose(apply_partial_rope(x, rotary_dim=4)[:, :4], x[:, :4])


@pytest.mark.parametrize("bad, err", [(3, ValueError), (0, ValueError), (14, ValueError), (2.0, TypeError)])
def test_partial_rope_rejects_bad_rotary_dim(bad, err):
    with pytest.raises(err, match="rotary_dim"):
        apply_partial_rope(torch.randn(3, 12), rotary_dim=bad)


def test_expected_score_closed_form_and_monte_carlo():
    d, offsets = 16, torch.arange(0, 60, 7)
    th = encodings.frequencies(d)
    torch.testing.assert_close(rope_expected_score(offsets, d), 2 * torch.cos(offsets[:, None].double() * th).sum(-1))
    assert rope_expected_score(torch.tensor([0]), d).item() == d  # 2 * d/2 pairs
    assert (rope_expected_score(offsets, d, correlation=0.0) == 0).all()
    g = torch.Generator().manual_seed(0)
    q = torch.randn(20000, d, dtype=torch.float64, generator=g)
    k = torch.randn(20000, d, dtype=torch.float64, generator=g)
    for corr, kk in ((1.0, q), (0.0, k)):
        for off in (0, 5, 40):
            qs = encodings.apply_rope(q[:, None], torch.tensor([off + 3]))
            ks = encodings.apply_rope(kk[:, None], torch.tensor([3]))
            mc = float((qs * ks).sum(-1).mean())
            exact = float(rope_expected_score(torch.tensor([off]), d, correlation=corr))
            assert abs(mc - exact) < 5 * math.sqrt(2 * d / 20000) + 0.05


def test_expected_score_rejects_bad_input():
    with pytest.raises(ValueError, match="correlation"):
        rope_expected_score([0, 1], 8, correlation=1.5)
    with pytest.raises(ValueError, match="offsets"):
        rope_expected_score(torch.tensor([float("nan")]), 8)
    with pytest.raises(ValueError, match="d_model"):
        rope_expected_score([0, 1], 7)
