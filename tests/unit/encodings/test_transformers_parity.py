"""book.encodings against Hugging Face transformers' own code (the code checkpoints run).

Only functions (and a config) from the installed ``transformers`` are used; no
model is downloaded or built. Each test compares numbers that would differ by
order 1 if ``book`` used another pairing, sign, frequency or bucket rule.

Conventions compared:

* RoPE: transformers' Llama (``models/llama/modeling_llama.py``,
  ``apply_rotary_pos_emb`` with ``rotate_half``) rotates the half-split pairs
  ``(i, i + d/2)``: ``book``'s ``layout="half"``. ``book``'s default pairs
  ``(2i, 2i+1)`` equal it after permuting features by
  ``rope_layout_permutation`` (the W_q/W_k row permutation).
* T5 (``models/t5/modeling_t5.py``, ``T5Attention._relative_position_bucket``):
  ``relative_position = key - query`` in both.
* ALiBi: BLOOM (``models/bloom/modeling_bloom.py``, ``build_alibi_tensor``)
  returns ``+m_h * j`` for key ``j`` (one row for all queries); ``book``'s
  ``alibi_bias`` is ``-m_h * |i - j|``. Under a causal mask (``j <= i``) they
  differ by ``-m_h * i``, constant along each query's row, so the softmax
  weights are the same.
"""

from __future__ import annotations

import pytest
import torch

from book import encodings as enc

transformers = pytest.importorskip("transformers")
from transformers import LlamaConfig  # noqa: E402
from transformers.models.bloom import modeling_bloom  # noqa: E402
from transformers.models.llama import modeling_llama  # noqa: E402
from transformers.models.t5 import modeling_t5  # noqa: E402


# ---------------------------------------------------------------- RoPE (Llama)
def hf_inv_freq(head_dim: int, base: float) -> torch.Tensor:
    """transformers' default RoPE frequencies, from its own function and a config."""
    config = LlamaConfig(
        hidden_size=head_dim, num_attention_heads=1, rope_parameters={"rope_type": "default", "rope_theta": base}
    )
    inv_freq, attention_factor = modeling_llama.LlamaRotaryEmbedding.compute_default_rope_parameters(config)
    assert attention_factor == 1.0
    return inv_freq


def hf_cos_sin(position_ids: torch.Tensor, head_dim: int, base: float) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin from transformers' own ``LlamaRotaryEmbedding`` (float32, halves duplicated)."""
    config = LlamaConfig(
        hidden_size=head_dim, num_attention_heads=1, rope_parameters={"rope_type": "default", "rope_theta": base}
    )
    rotary = modeling_llama.LlamaRotaryEmbedding(config)
    return rotary(torch.ones(1, dtype=torch.float32), position_ids)


@pytest.mark.parametrize("head_dim,base", [(16, 10000.0), (64, 10000.0), (128, 500000.0)])
def test_frequencies_equal_llama_inv_freq(head_dim, base):
    torch.testing.assert_close(enc.frequencies(head_dim, base=base).float(), hf_inv_freq(head_dim, base))


@pytest.mark.parametrize("head_dim,base", [(16, 10000.0), (64, 500000.0)])
def test_rope_half_layout_equals_llama_apply_rotary_pos_emb_with_offsets(head_dim, base):
    gen = torch.Generator().manual_seed(0)
    batch, heads, seq = 3, 2, 7
    q, k = torch.randn(2, batch, heads, seq, head_dim, generator=gen)
    # One row of positions per sequence: no offset, an offset of 37 (a cache),
    # and gaps (packed or left-padded inputs).
    position_ids = torch.stack([torch.arange(seq), torch.arange(seq) + 37, torch.tensor([0, 2, 3, 9, 10, 50, 90])])
    cos, sin = hf_cos_sin(position_ids, head_dim, base)
    hf_q, hf_k = modeling_llama.apply_rotary_pos_emb(q, k, cos, sin)  # unsqueeze_dim=1: heads
    pos = position_ids[:, None, :]  # (batch, 1, seq)
    ours_q = enc.apply_rope(q, pos, base=base, layout="half")
    ours_k = enc.apply_rope(k, pos, base=base, layout="half")
    # float32 angles in transformers, float64 in book: agree to float32 rounding of p * w.
    torch.testing.assert_close(ours_q, hf_q, atol=2e-5, rtol=0)
    torch.testing.assert_close(ours_k, hf_k, atol=2e-5, rtol=0)
    # The other pairing is not transformers': the comparison can fail.
    assert (enc.apply_rope(q, pos, base=base) - hf_q).abs().max() > 0.1


def test_rope_interleaved_equals_llama_after_the_weight_permutation():
    """book's default pairs (2i, 2i+1); permuting W_q/W_k rows per head gives Llama's numbers."""
    gen = torch.Generator().manual_seed(1)
    n_heads, head, seq = 4, 16, 9
    x = torch.randn(seq, 32, generator=gen)
    wq, wk = torch.randn(2, n_heads * head, 32, generator=gen) / 32**0.5
    rows = enc.rope_layout_permutation(n_heads * head, n_heads)

    def heads(t):  # (seq, n_heads * head) -> (1, n_heads, seq, head)
        return t.view(seq, n_heads, head).transpose(0, 1)[None]

    position_ids = torch.arange(seq)[None] + 100
    cos, sin = hf_cos_sin(position_ids, head, 10000.0)
    hf_q, hf_k = modeling_llama.apply_rotary_pos_emb(heads(x @ wq[rows].T), heads(x @ wk[rows].T), cos, sin)
    ours_q = enc.apply_rope(heads(x @ wq.T), position_ids)
    ours_k = enc.apply_rope(heads(x @ wk.T), position_ids)
    torch.testing.assert_close(ours_q @ ours_k.transpose(-1, -2), hf_q @ hf_k.transpose(-1, -2), atol=1e-4, rtol=1e-5)
    perm = enc.rope_layout_permutation(head)
    torch.testing.assert_close(ours_q[..., perm], hf_q, atol=2e-5, rtol=0)
    hf_unpermuted, _ = modeling_llama.apply_rotary_pos_emb(heads(x @ wq.T), heads(x @ wk.T), cos, sin)
    assert (ours_q - hf_unpermuted).abs().max() > 0.1


def test_shift_rope_moves_llamas_cached_keys_to_the_keys_it_computes_there():
    """transformers caches keys after RoPE (``LlamaAttention.forward`` applies
    ``apply_rotary_pos_emb`` before ``cache.update``): a tiny ``LlamaModel`` built from a config,
    run at positions ``p`` and at ``p + 40``, caches keys that ``shift_rope`` (half-split, Llama's
    base) turns into one another. The first layer's keys depend on nothing else, so they agree to
    float32 rounding; the second layer's agree because RoPE is relative, to rounding too."""
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        initializer_range=0.2,
    )
    model = modeling_llama.LlamaModel(config).eval()
    ids = torch.randint(0, 64, (1, 6), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        here = model(ids, position_ids=torch.arange(6)[None] + 2, use_cache=True).cache
        there = model(ids, position_ids=torch.arange(6)[None] + 42, use_cache=True).cache
    base = config.rope_parameters["rope_theta"]
    for layer in range(2):
        keys, want = here.layers[layer].keys, there.layers[layer].keys  # (batch, kv heads, seq, head)
        assert keys.shape == (1, 2, 6, 8)
        torch.testing.assert_close(enc.shift_rope(keys, 40, base=base, layout="half"), want, atol=1e-5, rtol=0)
        # Keys cached before RoPE would not need it; these do: unshifted, or shifted the wrong way
        # or with the other pairing, they are far from the keys at p + 40.
        for wrong in (keys, enc.shift_rope(keys, -40, layout="half"), enc.shift_rope(keys, 40, layout="interleaved")):
            assert float((wrong - want).abs().max()) > 0.5
    torch.testing.assert_close(here.layers[0].values, there.layers[0].values, atol=0, rtol=0)  # values: no position


# ---------------------------------------------------------------- T5 buckets
@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", [(32, 128), (32, 64), (64, 256), (16, 32), (8, 20), (128, 1000)])
def test_t5_buckets_equal_transformers(bidirectional, num_buckets, max_distance):
    rel = torch.arange(-3000, 3001)
    hf = modeling_t5.T5Attention._relative_position_bucket(
        rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    ours = enc.t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    assert torch.equal(ours, hf.long())
    # A query-key matrix (key minus query), as T5Attention.compute_bias forms it.
    pos = torch.arange(40)
    matrix = pos[None, :] - pos[:, None]
    assert torch.equal(
        enc.t5_relative_bucket(matrix, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance),
        modeling_t5.T5Attention._relative_position_bucket(
            matrix, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
        ).long(),
    )


@pytest.mark.parametrize("bidirectional,last,start", [(True, 15, 91), (False, 31, 113)])
def test_t5_last_bucket_starts_at_91_and_113_in_transformers(bidirectional, last, start):
    back = torch.arange(0, 200)
    hf = modeling_t5.T5Attention._relative_position_bucket(-back, bidirectional=bidirectional)
    assert int(back[hf == last].min()) == start


def test_t5_has_one_relative_bias_table_per_stack():
    """A T5 model built from a config (no download) holds two tables of buckets x heads:
    one in the encoder's first block, one in the decoder's: 768 numbers for T5's 32 x 12."""
    config = modeling_t5.T5Config(
        vocab_size=10, d_model=8, d_kv=4, d_ff=16, num_layers=3, num_heads=12, relative_attention_num_buckets=32
    )
    tables = {
        name: p
        for name, p in modeling_t5.T5Model(config).named_parameters()
        if name.endswith("relative_attention_bias.weight")
    }
    assert sorted(tables) == [
        "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
        "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
    ]
    assert all(p.shape == (32, 12) for p in tables.values())
    assert sum(p.numel() for p in tables.values()) == 768


# ---------------------------------------------------------------- ALiBi (BLOOM)
@pytest.mark.parametrize("n_heads", range(1, 65))
def test_alibi_equals_bloom_build_alibi_tensor(n_heads):
    seq = 12
    bloom = modeling_bloom.build_alibi_tensor(torch.ones(1, seq, dtype=torch.long), n_heads, torch.float32)
    bloom = bloom.reshape(n_heads, seq)  # (heads, key j): +m_h * j
    slopes = enc.alibi_slopes(n_heads)
    torch.testing.assert_close(slopes, bloom[:, 1])
    torch.testing.assert_close(bloom, slopes[:, None] * torch.arange(seq))
    # book: -m_h |i - j|. Causal part: equal to BLOOM's row minus m_h * i.
    ours = enc.alibi_bias(n_heads, seq)
    shifted = bloom[:, None, :] - bloom[:, :, None]  # m_h * j - m_h * i
    causal = torch.ones(seq, seq).tril().bool()
    torch.testing.assert_close(ours[:, causal], shifted[:, causal])
    # Hence the same attention weights under a causal mask, for any scores.
    scores = torch.randn(n_heads, seq, seq, generator=torch.Generator().manual_seed(n_heads))
    mask = torch.zeros(seq, seq).masked_fill(~causal, float("-inf"))
    torch.testing.assert_close(
        torch.softmax(scores + ours + mask, -1), torch.softmax(scores + bloom[:, None, :] + mask, -1)
    )
    # The conventions differ entrywise (only the softmax sees them as equal).
    assert not torch.allclose(ours[:, causal], bloom[:, None, :].expand(-1, seq, -1)[:, causal])
