"""Tests of book.models: the model under every position scheme, agreement of
the fast and the written-out attention paths, and the learned table's policy
past max_len."""

from __future__ import annotations

import pytest
import torch

from book import encodings as enc
from book import models, tasks


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("scheme", models.SCHEMES)
@pytest.mark.parametrize("causal", [True, False])
def test_fast_path_equals_written_out_attention(scheme, causal):
    m = models.TinyTransformer(11, position=scheme, d_model=32, n_heads=4, max_len=40, causal=causal, seed=3)
    x = torch.randint(11, (3, 17), generator=gen())
    fast = m(x)
    slow, maps = m(x, return_attention=True)
    torch.testing.assert_close(fast, slow, atol=1e-5, rtol=1e-5)
    assert fast.shape == (3, 17, 11) and len(maps) == 2
    assert maps[0].shape == (3, 4, 17, 17)
    torch.testing.assert_close(maps[1].sum(-1), torch.ones(3, 4, 17))
    if causal:
        assert float(maps[0].triu(1).abs().max()) == 0.0


@pytest.mark.parametrize("scheme", ["none", "sinusoidal", "rope", "alibi", "t5"])
def test_schemes_run_past_the_training_length(scheme):
    m = models.TinyTransformer(10, position=scheme, d_model=16, n_heads=2, max_len=8)
    out = m(torch.randint(10, (2, 50), generator=gen()))
    assert out.shape == (2, 50, 10) and torch.isfinite(out).all()


def test_learned_positions_past_max_len_raise_a_clear_error():
    m = models.TinyTransformer(10, position="learned", d_model=16, n_heads=2, max_len=8)
    m(torch.zeros(1, 8, dtype=torch.long))
    with pytest.raises(ValueError, match=r"positions must lie in \[0, max_len\) = \[0, 8\), got 8"):
        m(torch.zeros(1, 9, dtype=torch.long))


def test_causal_model_is_causal_for_every_scheme():
    x = torch.randint(10, (1, 12), generator=gen(2))
    y = x.clone()
    y[0, 7:] = (y[0, 7:] + 1) % 10  # change the future only
    for scheme in models.SCHEMES:
        m = models.TinyTransformer(10, position=scheme, d_model=16, n_heads=2, max_len=12)
        torch.testing.assert_close(m(x)[:, :7], m(y)[:, :7])


def test_nope_encoder_is_permutation_equivariant_and_others_are_not():
    x = torch.randint(10, (1, 9), generator=gen(4))
    perm = torch.randperm(9, generator=gen(5))
    for scheme in models.SCHEMES:
        m = models.TinyTransformer(10, position=scheme, d_model=16, n_heads=2, max_len=9, causal=False)
        same = torch.allclose(m(x[:, perm]), m(x)[:, perm], atol=1e-5)
        assert same == (scheme == "none"), scheme


def test_model_uses_the_library_encodings():
    m = models.TinyTransformer(10, position="alibi", d_model=16, n_heads=4, causal=False)
    torch.testing.assert_close(m.position_bias(6), enc.alibi_bias(4, 6))
    causal = models.TinyTransformer(10, position="alibi", d_model=16, n_heads=4)
    assert models.TinyTransformer(10, position="rope").position_bias(6) is None
    torch.testing.assert_close(causal.position_bias(6).tril(), enc.alibi_bias(4, 6).tril())


def test_t5_bias_is_one_learned_table_of_buckets_shared_by_layers():
    """T5 (transformers' T5Attention.compute_bias): bias[h, i, j] = table[bucket(j - i), h],
    unidirectional in a decoder, bidirectional in an encoder; one table for all layers."""
    for causal in (True, False):
        m = models.TinyTransformer(10, position="t5", d_model=16, n_heads=2, causal=causal, seed=1)
        assert m.rel_bias.shape == (2, models.T5_BUCKETS)
        torch.testing.assert_close(m.rel_bias.std(), torch.tensor(16**-0.5), atol=0.1, rtol=0)
        pos = torch.arange(40)
        buckets = enc.t5_relative_bucket(pos[None, :] - pos[:, None], bidirectional=not causal)
        bias = m.position_bias(40)
        for i, j in [(0, 0), (5, 4), (39, 0), (3, 20), (20, 3)]:
            assert torch.equal(bias[:, i, j], m.rel_bias[:, buckets[i, j]])
    # One table for the whole model, not one per layer: T5 adds n_heads x buckets parameters.
    for layers in (1, 3):
        sizes = [
            sum(
                p.numel()
                for p in models.TinyTransformer(10, position=s, d_model=16, n_heads=2, n_layers=layers).parameters()
            )
            for s in ("t5", "none")
        ]
        assert sizes[0] - sizes[1] == 2 * models.T5_BUCKETS
    x = torch.randint(10, (2, 9), generator=gen())
    torch.nn.functional.cross_entropy(m(x).flatten(0, 1), x.flatten()).backward()
    assert m.rel_bias.grad is not None and m.rel_bias.grad[:, :9].abs().sum() > 0  # it learns


def test_weights_depend_only_on_seed_and_leave_global_rng_alone():
    torch.manual_seed(123)
    before = torch.random.get_rng_state()
    a = models.TinyTransformer(10, position="learned", seed=7)
    assert torch.equal(torch.random.get_rng_state(), before)
    b = models.TinyTransformer(10, position="learned", seed=7)
    c = models.TinyTransformer(10, position="learned", seed=8)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a.pos.weight, c.pos.weight)


def test_training_learns_the_local_rule_and_is_deterministic():
    torch.set_num_threads(1)

    def run():
        m = models.TinyTransformer(10, position="rope", d_model=32, n_heads=2, max_len=16, seed=0)
        losses = models.train(m, lambda g: tasks.fibonacci_mod(32, 16, generator=g), steps=150, seed=0)
        return m, losses

    m, losses = run()
    _, again = run()
    assert losses == again
    assert sum(losses[-10:]) / 10 < 0.5 * losses[0]
    acc = models.accuracy_by_position(m, tasks.fibonacci_mod(200, 16, generator=gen(9)))
    assert torch.isnan(acc[0]) and float(acc[1:].mean()) > 0.5


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda: models.TinyTransformer(10, position="t6"), ValueError, "position must be one of"),
        (lambda: models.TinyTransformer(10, d_model=30, n_heads=4), ValueError, "divisible by n_heads"),
        (
            lambda: models.TinyTransformer(10, d_model=12, n_heads=4),
            ValueError,
            "head width d_model / n_heads must be even",
        ),
        (lambda: models.TinyTransformer(0), ValueError, "vocab_size must be a positive integer"),
        (lambda: models.TinyTransformer(10)(torch.zeros(2, 3)), TypeError, "tokens must be an integer"),
        (lambda: models.TinyTransformer(10)(torch.zeros(3, dtype=torch.long)), ValueError, r"shape \(batch, seq_len\)"),
        (
            lambda: models.TinyTransformer(10)(torch.full((1, 3), 10)),
            ValueError,
            r"tokens must lie in \[0, vocab_size\)",
        ),
        (lambda: models.train(models.TinyTransformer(10), None, steps=0), ValueError, "steps must be a positive"),
        (lambda: models.train(models.TinyTransformer(10), None, steps=1, lr=-1), ValueError, "lr must be a positive"),
    ],
)
def test_model_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_training_inputs_refuses_a_make_batch_that_is_no_function():
    with pytest.raises(TypeError, match="make_batch must be a function"):
        tasks.training_inputs("fibonacci", 3, seed=0)


def test_transformers_draws_token_and_position_tables_at_one_scale():
    """Chapter 5 cites ``initializer_range`` and ``PreTrainedModel._init_weights``; build tiny
    models (no download) and measure both tables."""
    from transformers import BertConfig, BertModel, GPT2Config, GPT2Model

    torch.manual_seed(0)
    bert = BertModel(
        BertConfig(
            vocab_size=2000,
            hidden_size=64,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=512,
        )
    ).embeddings
    gpt2 = GPT2Model(
        GPT2Config(vocab_size=2000, n_embd=64, n_layer=1, n_head=2, n_positions=512, bos_token_id=0, eos_token_id=0)
    )
    for table in (bert.word_embeddings, bert.position_embeddings, gpt2.wte, gpt2.wpe):
        assert abs(float(table.weight.detach().std()) - 0.02) < 0.001


@pytest.mark.parametrize("n_layers", range(1, 7))
def test_rope_nope_layers_follow_llama4_no_rope_layers(n_layers):
    """The seventh scheme's per-layer choice is transformers' own rule
    (Llama4TextConfig.no_rope_layers, 1 = RoPE) at interval 2 (a config, no download)."""
    from transformers import Llama4TextConfig

    expected = Llama4TextConfig(num_hidden_layers=n_layers, no_rope_layer_interval=2).no_rope_layers
    assert models.rope_layers(n_layers) == expected
    m = models.TinyTransformer(10, position="rope_nope", d_model=8, n_heads=2, n_layers=n_layers, max_len=4)
    assert m.rope_layers == expected
    assert (
        models.TinyTransformer(10, position="rope", d_model=8, n_heads=2, n_layers=n_layers).rope_layers
        == [1] * n_layers
    )


def test_rope_nope_rotates_layer_0_and_leaves_layer_1_position_free():
    """On a sequence of one repeated token, layer 0's output is the same at every
    position (its values are all equal), so a layer without positions attends
    uniformly over the causal prefix: rope_nope's layer 1 does, rope's does not.
    With one layer rope_nope is rope (the same weights, the same logits)."""
    x = torch.full((1, 10), 3)
    uniform = torch.tril(torch.ones(10, 10)) / torch.arange(1, 11)[:, None]
    _, hybrid = models.TinyTransformer(10, position="rope_nope", d_model=16, n_heads=2, seed=1)(
        x, return_attention=True
    )
    _, rope = models.TinyTransformer(10, position="rope", d_model=16, n_heads=2, seed=1)(x, return_attention=True)
    torch.testing.assert_close(hybrid[1][0], uniform.expand(2, 10, 10), atol=1e-6, rtol=1e-6)
    assert (rope[1][0] - uniform).abs().max() > 1e-3
    y = torch.randint(10, (2, 12), generator=gen(6))
    one = {
        s: models.TinyTransformer(10, position=s, d_model=16, n_heads=2, n_layers=1, seed=2)
        for s in ("rope", "rope_nope")
    }
    torch.testing.assert_close(one["rope_nope"](y), one["rope"](y), atol=0, rtol=0)
    with pytest.raises(ValueError, match="head width d_model / n_heads must be even"):
        models.TinyTransformer(10, position="rope_nope", d_model=6, n_heads=2)
    with pytest.raises(ValueError, match="interval must be"):
        models.rope_layers(2, 0)


def test_t5_bucket_options_set_the_table_and_the_buckets():
    """t5_buckets / t5_max_distance reach the table's size and t5_relative_bucket;
    the defaults are T5's 32 and 128."""
    default = models.TinyTransformer(10, position="t5", d_model=16, n_heads=2)
    assert (default.t5_buckets, default.t5_max_distance) == (32, 128) and default.rel_bias.shape == (2, 32)
    m = models.TinyTransformer(10, position="t5", d_model=16, n_heads=2, t5_buckets=8, t5_max_distance=20)
    assert m.rel_bias.shape == (2, 8)
    pos = torch.arange(30)
    expected = enc.t5_relative_bucket(pos[None, :] - pos[:, None], bidirectional=False, num_buckets=8, max_distance=20)
    assert torch.equal(m.position_bias_buckets(30), expected)
    assert int(m.position_bias_buckets(30).max()) == 7  # distance 29 >= 20: the last bucket
    torch.testing.assert_close(m.position_bias(30), m.rel_bias[:, expected])
    for kwargs, message in (
        ({"t5_buckets": 1}, "t5_buckets must be at least 2"),
        ({"t5_buckets": 0}, "t5_buckets must be"),
        ({"t5_max_distance": 0}, "t5_max_distance must be"),
        ({"t5_buckets": 7, "causal": False}, "t5_buckets must be even in an encoder"),
        ({"t5_buckets": 16, "t5_max_distance": 8}, r"t5_max_distance must exceed the exact buckets' range 8"),
    ):
        with pytest.raises(ValueError, match=message):
            models.TinyTransformer(10, position="t5", d_model=16, n_heads=2, **kwargs)


# ------------------------------------------------------------ layer_positions
def test_layer_positions_reads_cohere2s_nope_full_layers_and_sliding_rope_layers():
    from transformers import Cohere2Config

    layers = models.layer_positions(Cohere2Config(num_hidden_layers=8))
    assert [lay.rope for lay in layers] == [True, True, True, False] * 2
    assert [lay.kind for lay in layers] == ["sliding_attention"] * 3 + ["full_attention"] + [
        "sliding_attention"
    ] * 3 + ["full_attention"]
    assert {lay.span for lay in layers if lay.rope} == {4096}
    assert {lay.span for lay in layers if not lay.rope} == {8192}


def test_layer_positions_follows_no_rope_layers_and_the_kinds_rope_parameters():
    from transformers import Gemma4TextConfig, GptOssConfig, Llama4TextConfig, SmolLM3Config

    l4 = models.layer_positions(Llama4TextConfig(num_hidden_layers=8))
    assert [lay.rope for lay in l4] == [bool(r) for r in models.rope_layers(8, 4)]
    assert {(lay.kind, lay.span) for lay in l4 if lay.rope} == {("chunked_attention", 8192)}
    smol = models.layer_positions(SmolLM3Config(num_hidden_layers=4, use_sliding_window=True, sliding_window=64))
    assert [(lay.rope, lay.kind, lay.span) for lay in smol][-1] == (False, "sliding_attention", 64)
    g4 = {lay.kind: lay for lay in models.layer_positions(Gemma4TextConfig())}
    assert (g4["full_attention"].fraction, g4["full_attention"].head_dim) == (0.25, 512)
    assert (g4["sliding_attention"].fraction, g4["sliding_attention"].head_dim) == (1.0, 256)
    oss = models.layer_positions(GptOssConfig())
    assert {(lay.rope_type, lay.base) for lay in oss} == {("yarn", 150000.0)}
    assert {lay.span for lay in oss if lay.kind == "full_attention"} == {4096}  # the length before YaRN


def test_layer_positions_rejects_what_is_not_a_config():
    with pytest.raises(TypeError, match="rope_parameters"):
        models.layer_positions(object())

    class Bad:
        rope_parameters = {"rope_type": "default", "rope_theta": 1e4}
        num_hidden_layers = 3
        layer_types = ["full_attention"] * 2

    with pytest.raises(ValueError, match="layer_types must have one entry per layer"):
        models.layer_positions(Bad())


def _forward_recomputing_every_constant(m: models.TinyTransformer, tokens: torch.Tensor) -> torch.Tensor:
    """The model's forward as it was before it kept its position constants:
    every table, bias and mask recomputed from the library encodings, in
    every layer."""
    from book.attention import causal_mask

    n = tokens.shape[1]
    positions = torch.arange(n)
    x = m.embed(tokens)
    if m.position == "sinusoidal":
        x = x + enc.sinusoidal_at(positions, m.d_model, dtype=x.dtype)
    elif m.position == "learned":
        x = x + m.pos(positions)
    bias = m.position_bias(n)
    for i, block in enumerate(m.blocks):
        b, _, d = x.shape
        q, k, v = block.qkv(block.ln1(x)).view(b, n, 3, m.n_heads, d // m.n_heads).permute(2, 0, 3, 1, 4)
        if m.rope_layers[i]:
            q, k = enc.apply_rope(torch.stack((q, k)), positions, freqs=m.rope_freqs) * m.rope_factor
        if bias is None:
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=m.causal)
        else:
            mask = bias + causal_mask(n).to(bias.dtype) if m.causal else bias
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + block.proj(out.transpose(1, 2).reshape(b, n, d))
        x = x + block.mlp(block.ln2(x))
    return m.head(m.ln_f(x))


def _logits_and_grads(m, forward, tokens):
    m.zero_grad(set_to_none=True)
    logits = forward(tokens)
    (logits.square().mean()).backward()
    return logits.detach(), [p.grad.clone() for p in m.parameters() if p.grad is not None]


@pytest.mark.parametrize("scheme", models.SCHEMES)
@pytest.mark.parametrize("causal", [True, False])
def test_kept_position_constants_change_no_bit_of_the_output_or_the_gradients(scheme, causal):
    """The forward pass keeps what depends on the length alone (RoPE's cos/sin,
    the sinusoidal table, ALiBi's bias and mask, T5's buckets): logits and
    every gradient equal, bit for bit, those of the forward that recomputes
    them in every layer, at the first call, from the kept copies, and at a
    second length."""
    m = models.TinyTransformer(11, position=scheme, d_model=16, n_heads=2, n_layers=3, max_len=40, causal=causal)
    for length in (17, 17, 9):
        x = torch.randint(11, (3, length), generator=gen(length))
        kept = _logits_and_grads(m, m, x)
        fresh = _logits_and_grads(m, lambda t: _forward_recomputing_every_constant(m, t), x)
        assert torch.equal(kept[0], fresh[0])
        assert len(kept[1]) == len(fresh[1]) and all(torch.equal(a, b) for a, b in zip(kept[1], fresh[1]))
    assert not any(k.startswith("_") for k in m.state_dict())


def test_kept_rope_constants_follow_set_rope_scaling_and_are_really_used():
    """After ``set_rope_scaling`` (frequencies and a factor) the output still equals
    the recomputing forward; and the kept copies are what the forward reads:
    spoiling one changes the output (so the equality above is not vacuous)."""
    m = models.TinyTransformer(11, position="rope", d_model=16, n_heads=2, max_len=64)
    x = torch.randint(11, (2, 20), generator=gen())
    before = m(x)
    m.set_rope_scaling(rule="YaRN", scale=4.0, original_max_len=8)
    assert m.rope_factor != 1.0
    assert torch.equal(m(x), _forward_recomputing_every_constant(m, x))
    assert not torch.equal(m(x), before)
    m.set_rope_scaling()
    assert torch.equal(m(x), before)
    cos, _ = next(v for k, v in m._constants.items() if k[0] == "rope")
    cos.add_(0.5)  # spoil the kept cos
    assert not torch.equal(m(x), before)


def test_kept_constants_follow_settings_assigned_directly():
    """Assigning ``rope_freqs``, ``causal`` or T5's bucketing directly (not through
    ``set_rope_scaling``), or changing ``rope_freqs`` in place, is never answered
    from a copy kept for the old settings."""
    x = torch.randint(11, (2, 20), generator=gen())
    m = models.TinyTransformer(11, position="rope", d_model=16, n_heads=2, max_len=64)
    before = m(x)
    m.rope_freqs = enc.frequencies(8).to(torch.float64) / 4
    assert torch.equal(m(x), _forward_recomputing_every_constant(m, x))
    assert not torch.equal(m(x), before)
    m.rope_freqs.mul_(0.5)  # in place: same tensor, new values
    assert torch.equal(m(x), _forward_recomputing_every_constant(m, x))
    m.rope_freqs = None
    assert torch.equal(m(x), before)
    m.causal = False
    assert torch.equal(m(x), _forward_recomputing_every_constant(m, x))
    assert not torch.equal(m(x), before)
    t5 = models.TinyTransformer(11, position="t5", d_model=16, n_heads=2, max_len=64)
    t5_before = t5(x)
    t5.t5_max_distance = 17  # distances 16 to 19 fall in other buckets than with 128
    assert torch.equal(t5(x), _forward_recomputing_every_constant(t5, x))
    assert not torch.equal(t5(x), t5_before)


@pytest.mark.parametrize("scheme", models.SCHEMES)
def test_a_model_first_run_under_inference_mode_still_trains(scheme):
    """Constants first made under ``torch.inference_mode`` are ordinary tensors,
    so a later training step can save them for its backward pass."""
    m = models.TinyTransformer(11, position=scheme, d_model=16, n_heads=2, max_len=40)
    x = torch.randint(11, (2, 12), generator=gen())
    with torch.inference_mode():
        m(x)
    m(x).square().mean().backward()
    assert all(p.grad is not None for p in m.parameters() if p.requires_grad and p.grad is not None)
    assert any(p.grad is not None for p in m.parameters())


def test_kept_constants_stay_under_their_byte_limit(monkeypatch):
    """ALiBi's bias and the masks grow with n^2: the kept constants are emptied
    before they pass ``_MAX_CONSTANT_BYTES``, and the output is unchanged."""
    monkeypatch.setattr(models, "_MAX_CONSTANT_BYTES", 200_000)
    m = models.TinyTransformer(11, position="alibi", d_model=16, n_heads=2, max_len=400)
    with torch.no_grad():
        for n in (50, 100, 150, 200, 250, 300):
            x = torch.randint(11, (1, n), generator=gen(n))
            assert torch.equal(m(x), _forward_recomputing_every_constant(m, x))
            assert sum(models._nbytes(v) for v in m._constants.values()) <= 200_000
        big = torch.randint(11, (1, 400), generator=gen(400))
        m(big)  # its bias alone is over the limit: computed, not kept
        assert sum(models._nbytes(v) for v in m._constants.values()) <= 200_000
