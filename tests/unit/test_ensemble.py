"""book.ensemble: several seeds trained as one batched ensemble equal the same
seeds trained one by one (up to float rounding), for every position scheme."""

from __future__ import annotations

import pytest
import torch

from book import ensemble, models, tasks


def members(scheme, seeds=(0, 1, 2), **kw):
    kw = {"d_model": 16, "n_heads": 2, "n_layers": 2, "max_len": 24, **kw}
    return [models.TinyTransformer(10, position=scheme, seed=s, **kw) for s in seeds]


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("scheme", models.SCHEMES)
def test_forward_equals_each_member(scheme, causal):
    ms = members(scheme, causal=causal)
    x = torch.randint(10, (3, 4, 11), generator=torch.Generator().manual_seed(1))
    out = ensemble.Ensemble(ms)(x)
    assert out.shape == (3, 4, 11, 10)
    for e, m in enumerate(ms):
        torch.testing.assert_close(out[e], m(x[e]), atol=2e-6, rtol=1e-5)


@pytest.mark.parametrize("scheme", models.SCHEMES)
def test_training_together_equals_training_apart(scheme):
    torch.set_num_threads(1)
    make = lambda g: tasks.local_sum(8, 12, generator=g)  # noqa: E731
    apart, together = members(scheme), members(scheme)
    losses_apart = [models.train(m, make, steps=12, lr=5e-3, seed=s) for s, m in zip((0, 1, 2), apart)]
    losses_together = ensemble.train_together(together, make, steps=12, lr=5e-3, seeds=(0, 1, 2))
    # Same losses step by step (so the same data and the same updates), and the same weights after.
    torch.testing.assert_close(torch.tensor(losses_together), torch.tensor(losses_apart), atol=1e-5, rtol=1e-5)
    probe = tasks.local_sum(4, 20, generator=torch.Generator().manual_seed(99)).inputs
    d = apart[0].d_model
    for a, b in zip(apart, together):
        torch.testing.assert_close(b(probe), a(probe), atol=1e-4, rtol=1e-4)  # the same functions
        for (name, p), q in zip(a.named_parameters(), b.parameters()):
            if name.endswith("qkv.bias"):
                # The key bias adds the same amount to every score of a query, which
                # softmax ignores: its gradient is 0 up to rounding, and Adam turns
                # that rounding noise into steps of about lr. Compare the rest.
                p, q = torch.cat((p[:d], p[2 * d :])), torch.cat((q[:d], q[2 * d :]))
            torch.testing.assert_close(q, p, atol=1e-4, rtol=1e-4, msg=name)
        assert not b.training
    # And not trivially: the weights moved, and differently for each seed.
    assert not torch.equal(together[0].head.weight, members(scheme)[0].head.weight)
    assert not torch.allclose(together[0].head.weight, together[1].head.weight)


@pytest.mark.parametrize("scheme", models.SCHEMES)
def test_early_stopping_together_equals_apart(scheme):
    """Each member stops by its own losses and leaves the ensemble; the rest go
    on with their AdamW state, exactly as if each had trained alone."""
    torch.set_num_threads(1)
    make = lambda g: tasks.local_sum(8, 12, offsets=(0,), generator=g)  # noqa: E731  (quick to learn)
    kw = {"steps": 60, "lr": 1e-2, "stop_loss": 0.5, "stop_window": 5}
    apart, together = members(scheme), members(scheme)
    losses_apart = [models.train(m, make, seed=s, **kw) for s, m in zip((0, 1, 2), apart)]
    losses_together = ensemble.train_together(together, make, seeds=(0, 1, 2), **kw)
    lengths = [len(x) for x in losses_apart]
    assert [len(x) for x in losses_together] == lengths
    assert len(set(lengths)) > 1 and max(lengths) < kw["steps"]  # stopped early, at different steps
    for la, lt in zip(losses_apart, losses_together):
        torch.testing.assert_close(torch.tensor(lt), torch.tensor(la), atol=1e-5, rtol=1e-5)
        assert models.stop_rule_met(la, 0.5, 5) and not models.stop_rule_met(la[:-1], 0.5, 5)
    probe = tasks.local_sum(4, 20, generator=torch.Generator().manual_seed(99)).inputs
    for a, b in zip(apart, together):
        torch.testing.assert_close(b(probe), a(probe), atol=1e-4, rtol=1e-4)
        assert not b.training


def test_stop_rule_and_window_mean():
    assert not models.stop_rule_met([0.0] * 29, 0.1)  # fewer losses than the window
    assert models.stop_rule_met([1.0] + [0.0] * 30, 0.1)
    assert not models.stop_rule_met([3.1] + [0.0] * 29, 0.1)  # mean 0.103 over the last 30
    assert not models.stop_rule_met([0.0] * 50, None)
    assert models.window_mean([9.0, 1.0, 2.0, 3.0], 3) == 2.0 and models.window_mean([4.0], 3) == 4.0
    with pytest.raises(ValueError, match="losses must hold at least one"):
        models.window_mean([], 3)
    with pytest.raises(ValueError, match="window must be a positive integer"):
        models.window_mean([1.0], 0)
    with pytest.raises(ValueError, match="stop_loss"):
        models.train(members("none")[0], lambda g: tasks.local_sum(2, 4, generator=g), steps=1, stop_loss=0)
    with pytest.raises(ValueError, match="stop_window"):
        ensemble.train_together(
            members("none"),
            lambda g: tasks.local_sum(2, 4, generator=g),
            steps=1,
            seeds=(0, 1, 2),
            stop_loss=0.1,
            stop_window=0,
        )
    losses = models.train(
        members("none")[0], lambda g: tasks.local_sum(2, 4, generator=g), steps=10, stop_loss=100.0
    )  # any loss is below 100, but a window of 30 never fills in 10 steps
    assert len(losses) == 10
    with pytest.raises(TypeError, match="stop_loss"):
        models.train(members("none")[0], lambda g: tasks.local_sum(2, 4, generator=g), steps=1, stop_loss="low")


def test_bad_members_and_arguments():
    with pytest.raises(ValueError, match="at least one"):
        ensemble.Ensemble([])
    with pytest.raises(TypeError, match="TinyTransformer"):
        ensemble.Ensemble([torch.nn.Linear(2, 2)])
    with pytest.raises(ValueError, match="only their seeds may differ"):
        ensemble.Ensemble(members("rope", (0,)) + members("alibi", (1,)))
    scaled = members("rope", (0,))
    scaled[0].set_rope_scaling(torch.ones(4))
    with pytest.raises(ValueError, match="RoPE scaling"):
        ensemble.Ensemble(scaled)
    with pytest.raises(ValueError, match=r"shape \(E, batch, seq_len\) with E = 3"):
        ensemble.Ensemble(members("none"))(torch.zeros(2, 1, 5, dtype=torch.long))
    with pytest.raises(ValueError, match="one seed per member"):
        ensemble.train_together(members("none"), lambda g: tasks.local_sum(2, 4, generator=g), steps=1, seeds=(0,))
    with pytest.raises(ValueError, match="same shape"):
        ensemble.train_together(
            members("none", (0, 1)), lambda g: tasks.copy_task(2, int(g.initial_seed()) + 1), steps=1, seeds=(0, 1)
        )
    with pytest.raises(ValueError, match="lr must be a positive finite number"):
        ensemble.train_together(members("none"), None, steps=1, lr=float("inf"), seeds=(0, 1, 2))
