"""Chapter 7: ALiBi and T5 biases as tables of one relative-bias family; Shaw et al.'s scores."""

from __future__ import annotations

import math

import pytest
import torch

from book import encodings
from book.encodings.alibi import alibi_bias_values
from book.encodings.relative import relative_bias, shaw_scores
from book.encodings.t5 import t5_bias_values


@pytest.mark.parametrize("n_heads, seq_len", [(8, 16), (12, 33), (1, 1)])
def test_alibi_through_the_generic_table(n_heads, seq_len):
    values = alibi_bias_values(n_heads, max(seq_len - 1, 1))
    torch.testing.assert_close(relative_bias(values, seq_len), encodings.alibi_bias(n_heads, seq_len))


def test_clipping_is_shaw_clip():
    values = alibi_bias_values(2, 3)  # offsets -3 .. 3 only
    bias = relative_bias(values, 10)
    torch.testing.assert_close(bias[:, 9, 0], values[:, 0])  # j - i = -9 -> clip -3
    torch.testing.assert_close(bias[:, 0, 9], values[:, -1])  # +9 -> +3
    assert not torch.allclose(bias, encodings.alibi_bias(2, 10))


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_through_the_generic_table_equals_transformers(bidirectional):
    from transformers.models.t5 import modeling_t5 as hf_t5

    cfg = hf_t5.T5Config(
        d_model=8,
        d_kv=4,
        num_heads=3,
        relative_attention_num_buckets=32,
        relative_attention_max_distance=128,
        is_decoder=not bidirectional,
    )
    attn = hf_t5.T5Attention(cfg, has_relative_attention_bias=True)
    torch.nn.init.normal_(attn.relative_attention_bias.weight)
    n = 150  # past the last bucket's start
    ours = relative_bias(
        t5_bias_values(attn.relative_attention_bias.weight.detach(), n - 1, bidirectional=bidirectional), n
    )
    with torch.no_grad():
        theirs = attn.compute_bias(n, n)[0]
    torch.testing.assert_close(ours, theirs)


def test_shaw_scores_by_hand():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 6, 4, generator=g)
    rel = torch.randn(5, 4, generator=g)  # K = 2
    e = shaw_scores(q, k, rel)
    for i in range(6):
        for j in range(6):
            a = rel[max(-2, min(2, j - i)) + 2]
            torch.testing.assert_close(e[i, j], q[i] @ (k[j] + a) / math.sqrt(4))
    torch.testing.assert_close(shaw_scores(q, k, torch.zeros(5, 4)), q @ k.T / 2)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="values"):
        relative_bias(torch.zeros(2, 4), 3)
    with pytest.raises(TypeError, match="values"):
        relative_bias(torch.zeros(2, 5, dtype=torch.long), 3)
    with pytest.raises(ValueError, match="table"):
        t5_bias_values(torch.zeros(16, 2), 4)
    with pytest.raises(TypeError, match="table"):
        t5_bias_values([[0.0, 0.0]] * 32, 4)
    with pytest.raises(TypeError, match="table"):
        t5_bias_values(torch.zeros(32, 2, dtype=torch.long), 4)
    with pytest.raises(ValueError, match="rel_keys"):
        shaw_scores(torch.zeros(3, 4), torch.zeros(3, 4), torch.zeros(4, 4))
    with pytest.raises(ValueError, match="max_distance"):
        alibi_bias_values(4, 0)
