"""Tests of book.tasks and book.models: data rules, the model under every
position scheme, agreement of the fast and the written-out attention paths,
and the learned table's policy past max_len."""

from __future__ import annotations

import pytest
import torch

from book import encodings as enc
from book import models, tasks


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# ---------------------------------------------------------------- tasks
def test_fibonacci_mod_follows_its_rule():
    b = tasks.fibonacci_mod(5, 12, modulus=7, generator=gen())
    seq = torch.cat((b.inputs, b.targets[:, -1:]), dim=1)
    assert b.inputs.shape == b.targets.shape == b.loss_mask.shape == (5, 12)
    assert torch.equal(b.targets[:, :-1], b.inputs[:, 1:])
    assert torch.equal(seq[:, 2:], (seq[:, 1:-1] + seq[:, :-2]) % 7)
    assert not b.loss_mask[:, 0].any() and b.loss_mask[:, 1:].all()
    assert torch.equal(tasks.fibonacci_mod(5, 12, modulus=7, generator=gen()).inputs, b.inputs)


def test_fibonacci_mod_without_starts_draws_as_before():
    """``starts=None`` keeps the original draws, so existing seeds give the same data."""
    g = gen(4)
    first = torch.randint(10, (6, 2), generator=g)
    assert torch.equal(tasks.fibonacci_mod(6, 9, generator=gen(4)).inputs[:, :2], first)
    assert torch.equal(tasks.fibonacci_mod(6, 9, starts=None, generator=gen(4)).inputs,
                       tasks.fibonacci_mod(6, 9, generator=gen(4)).inputs)


def test_fibonacci_split_is_a_partition_and_starts_are_respected():
    train, held = tasks.fibonacci_split(20, generator=gen(5))
    assert train.shape == (80, 2) and held.shape == (20, 2)
    pairs = {tuple(p) for p in train.tolist()} | {tuple(p) for p in held.tolist()}
    assert len(pairs) == 100 and pairs == {(a, b) for a in range(10) for b in range(10)}
    b = tasks.fibonacci_mod(500, 12, starts=held, generator=gen(1))
    assert {tuple(p) for p in b.inputs[:, :2].tolist()} <= {tuple(p) for p in held.tolist()}
    seq = torch.cat((b.inputs, b.targets[:, -1:]), dim=1)
    assert torch.equal(seq[:, 2:], (seq[:, 1:-1] + seq[:, :-2]) % 10)   # still the rule


def _held_out_leaks(make_train_batch, test, steps=400, seed=0):
    """How many test inputs are among the inputs ``models.train`` would train on."""
    seen = tasks.training_inputs(make_train_batch, steps, seed=seed)
    return sum(tuple(row) in seen for row in test.inputs.tolist())


def test_fibonacci_held_out_data_are_never_trained_on_and_the_check_catches_leaks():
    """The chapter 5 set-up: training batches from the training starts, test data from the
    held-out starts. The same check flags a generator that ignores the split, and a split
    that leaks a single pair into both sets."""
    train, held = tasks.fibonacci_split(20, generator=gen(5))
    test = tasks.fibonacci_mod(1000, 32, starts=held, generator=gen(123))

    def honest(g):
        return tasks.fibonacci_mod(32, 32, starts=train, generator=g)

    assert len(tasks.training_inputs(honest, 400, seed=0)) == 80
    assert _held_out_leaks(honest, test) == 0

    def ignores_split(g):                        # sabotaged: draws every first pair
        return tasks.fibonacci_mod(32, 32, generator=g)

    assert _held_out_leaks(ignores_split, test) == len(test.inputs)

    leaky = torch.cat([train, held[:1]])         # sabotaged: one held-out pair trained on
    def leaks_one(g):
        return tasks.fibonacci_mod(32, 32, starts=leaky, generator=g)

    assert 0 < _held_out_leaks(leaks_one, test) < len(test.inputs)


def test_fibonacci_held_out_pairs_never_stand_at_the_same_position_in_training():
    """The docstring's claim: the pair at position t is the first pair moved t steps, one to one."""
    train, held = tasks.fibonacci_split(20, generator=gen(5))

    def placed(starts):                       # every start once: (t, x_t, x_{t+1})
        rows = [tasks.fibonacci_mod(1, 40, starts=[p], generator=gen()).inputs[0].tolist() for p in starts.tolist()]
        return {(t, a, b) for row in rows for t, (a, b) in enumerate(zip(row, row[1:]))}

    assert not placed(train) & placed(held)
    assert {c[1:] for c in placed(held)} & {c[1:] for c in placed(train)}   # other positions: shared


def test_training_inputs_are_the_batches_models_train_draws():
    drawn = []

    def make(g):
        batch = tasks.local_sum(4, 6, generator=g)
        drawn.extend(tuple(r) for r in batch.inputs.tolist())
        return batch

    model = models.TinyTransformer(10, position="none", d_model=8, n_heads=2, n_layers=1, seed=0)
    models.train(model, make, steps=3, seed=7)
    assert tasks.training_inputs(lambda g: tasks.local_sum(4, 6, generator=g), 3, seed=7) == set(drawn)
    assert tasks.training_inputs(lambda g: tasks.local_sum(4, 6, generator=g), 3, seed=7, length=2) == {
        r[:2] for r in drawn}


def test_copy_task_layout_and_mask():
    b = tasks.copy_task(4, 5, n_symbols=6, generator=gen(1))
    seq = torch.cat((b.inputs[:, :1], b.targets), dim=1)  # the whole sequence
    assert seq.shape == (4, 12)
    assert (seq[:, 0] == 6).all() and (seq[:, 6] == 7).all()  # BOS, SEP
    assert torch.equal(seq[:, 1:6], seq[:, 7:])
    assert b.loss_mask.sum(1).tolist() == [5] * 4
    assert torch.equal(b.targets[b.loss_mask].view(4, 5), seq[:, 1:6])
    # the target at input position t = n + j is x_j, which sits at input position j: n = 5 back
    n = 5
    for j in range(1, n + 1):
        assert b.loss_mask[:, n + j].all() and torch.equal(b.targets[:, n + j], b.inputs[:, j])


def test_local_sum_follows_its_rule():
    b = tasks.local_sum(50, 20, offsets=(0, 2, 5), modulus=7, generator=gen(3))
    x = b.inputs
    assert x.shape == b.targets.shape == b.loss_mask.shape == (50, 20)
    for t in range(5, 20):  # written out, target by target
        assert torch.equal(b.targets[:, t], (x[:, t] + x[:, t - 2] + x[:, t - 5]) % 7)
    assert not b.loss_mask[:, :5].any() and b.loss_mask[:, 5:].all()
    assert int(x.min()) == 0 and int(x.max()) == 6          # i.i.d. over the whole alphabet
    counts = torch.bincount(x.flatten(), minlength=7).double() / x.numel()
    assert float((counts - 1 / 7).abs().max()) < 0.03
    default = tasks.local_sum(4, 6, generator=gen())
    assert torch.equal(default.targets[:, 1:], (default.inputs[:, 1:] + default.inputs[:, :-1]) % 10)
    assert torch.equal(tasks.local_sum(4, 6, generator=gen()).inputs, default.inputs)


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda: tasks.local_sum(2, 3, offsets=(0, 3)), ValueError, "length must exceed the largest offset"),
        (lambda: tasks.local_sum(2, 5, offsets=()), ValueError, "offsets must be a non-empty sequence"),
        (lambda: tasks.local_sum(2, 5, offsets=3), TypeError, "offsets must be a sequence"),
        (lambda: tasks.local_sum(2, 5, offsets=(1, 1)), ValueError, "offsets must be distinct integers >= 0"),
        (lambda: tasks.local_sum(2, 5, offsets=(-1, 0)), ValueError, r"offsets\[0\] must be a non-negative integer"),
        (lambda: tasks.local_sum(2, 5, offsets=(0, 1.5)), TypeError, r"offsets\[1\] must be an integer"),
        (lambda: tasks.local_sum(2, 5, modulus=1), ValueError, "modulus must be at least 2"),
        (lambda: tasks.local_sum(0, 5), ValueError, "n_seqs must be a positive integer"),
        (lambda: tasks.local_sum(2, 5, generator=1), TypeError, "generator must be a torch.Generator"),
        (lambda: tasks.fibonacci_mod(2, 1), ValueError, "length must be at least 2"),
        (lambda: tasks.fibonacci_mod(0, 5), ValueError, "n_seqs must be a positive integer"),
        (lambda: tasks.fibonacci_mod(2, 5, modulus=1), ValueError, "modulus must be at least 2"),
        (lambda: tasks.fibonacci_mod(2, 5, generator=0), TypeError, "generator must be a torch.Generator"),
        (lambda: tasks.fibonacci_mod(2, 5, starts=[[1, 2, 3]]), ValueError, r"starts must be a non-empty \(n, 2\)"),
        (lambda: tasks.fibonacci_mod(2, 5, starts=[]), ValueError, r"starts must be a non-empty \(n, 2\)"),
        (lambda: tasks.fibonacci_mod(2, 5, starts=[[1, 10]]), ValueError, r"starts must lie in 0 \.\. modulus-1"),
        (lambda: tasks.fibonacci_mod(2, 5, starts=[[0.5, 1.0]]), TypeError, "starts must hold integers"),
        (lambda: tasks.fibonacci_mod(2, 5, starts="ab"), TypeError, "starts must be an"),
        (lambda: tasks.fibonacci_split(100), ValueError, "n_held_out must leave some training pairs"),
        (lambda: tasks.fibonacci_split(0), ValueError, "n_held_out must be a positive integer"),
        (lambda: tasks.fibonacci_split(2, generator=3), TypeError, "generator must be a torch.Generator"),
        (lambda: tasks.training_inputs(lambda g: None, 0, seed=0), ValueError, "steps must be a positive integer"),
        (lambda: tasks.copy_task(2, 0), ValueError, "n_tokens must be a positive integer"),
        (lambda: tasks.copy_task(2, 3, n_symbols=1), ValueError, "n_symbols must be at least 2"),
    ],
)
def test_task_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


# ---------------------------------------------------------------- model
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
        torch.testing.assert_close(m.rel_bias.std(), torch.tensor(16 ** -0.5), atol=0.1, rtol=0)
        pos = torch.arange(40)
        buckets = enc.t5_relative_bucket(pos[None, :] - pos[:, None], bidirectional=not causal)
        bias = m.position_bias(40)
        for i, j in [(0, 0), (5, 4), (39, 0), (3, 20), (20, 3)]:
            assert torch.equal(bias[:, i, j], m.rel_bias[:, buckets[i, j]])
    # One table for the whole model, not one per layer: T5 adds n_heads x buckets parameters.
    for layers in (1, 3):
        sizes = [sum(p.numel() for p in models.TinyTransformer(10, position=s, d_model=16, n_heads=2,
                                                               n_layers=layers).parameters())
                 for s in ("t5", "none")]
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
        (lambda: models.TinyTransformer(10, d_model=12, n_heads=4), ValueError, "head width d_model / n_heads must be even"),
        (lambda: models.TinyTransformer(0), ValueError, "vocab_size must be a positive integer"),
        (lambda: models.TinyTransformer(10)(torch.zeros(2, 3)), TypeError, "tokens must be an integer"),
        (lambda: models.TinyTransformer(10)(torch.zeros(3, dtype=torch.long)), ValueError, r"shape \(batch, seq_len\)"),
        (lambda: models.TinyTransformer(10)(torch.full((1, 3), 10)), ValueError, r"tokens must lie in \[0, vocab_size\)"),
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
