"""book.mechanism and TinyTransformer.head_mask: attention on the rule's
offsets, and the accuracy lost when one head is silenced."""

from __future__ import annotations

import pytest
import torch

from book import encodings, mechanism, models, tasks


def batch(n=12, seqs=6, seed=0):
    return tasks.local_sum(seqs, n, generator=torch.Generator().manual_seed(seed))


def test_attention_on_offsets_with_content_free_alibi_heads():
    """With q = k = 0 the scores are ALiBi's bias alone, so the weights are
    softmax(-m (i - j)) over j <= i, known in closed form."""
    m = models.TinyTransformer(10, position="alibi", d_model=16, n_heads=2, n_layers=1, max_len=12)
    with torch.no_grad():
        m.blocks[0].qkv.weight[:32] = 0
        m.blocks[0].qkv.bias[:32] = 0
    got = mechanism.attention_on_offsets(m, batch(), offsets=(0, 1))
    assert got.shape == (1, 2, 12) and got.dtype == torch.float64
    for h, slope in enumerate(encodings.alibi_slopes(2).double()):
        for i in range(12):
            w = torch.softmax(-slope * torch.arange(i, -1, -1, dtype=torch.float64), 0)  # keys 0..i
            expected = w[i] + (w[i - 1] if i >= 1 else 0)
            assert abs(float(got[0, h, i]) - float(expected)) < 1e-6
    assert float(got[0, 0, 0]) == pytest.approx(1.0)  # the first query sees itself only
    far = mechanism.attention_on_offsets(m, batch(), offsets=(11,))
    assert float(far[..., :11].abs().max()) == 0.0  # before the sequence: nothing


def test_head_mask_silences_exactly_one_head():
    m = models.TinyTransformer(10, position="rope", d_model=16, n_heads=2, n_layers=2, seed=2)
    x = batch().inputs
    base = m(x)
    m.head_mask = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
    masked = m(x)
    m.head_mask = None
    with torch.no_grad():
        m.blocks[0].proj.weight[:, 8:] = 0  # head 1 of layer 0 feeds these columns
    torch.testing.assert_close(masked, m(x))
    assert not torch.allclose(masked, base)


def test_head_ablation_measures_drops_and_restores_the_mask():
    torch.set_num_threads(1)
    m = models.TinyTransformer(10, position="alibi", d_model=32, n_heads=2, n_layers=2, max_len=24, seed=0)
    models.train(m, lambda g: tasks.local_sum(32, 12, generator=g), steps=150, lr=5e-3, seed=0)
    b = batch(24, 200, seed=7)
    out = mechanism.head_ablation(m, b, split=12)
    assert out["within"].shape == out["past"].shape == (2, 2) and m.head_mask is None
    acc = models.accuracy_by_position(m, b)
    assert float(out["base_within"]) == pytest.approx(float(acc[:12].nanmean()))
    # Written out for one head: silence it and measure again.
    m.head_mask = torch.tensor([[1.0, 1.0], [0.0, 1.0]])
    ablated = models.accuracy_by_position(m, b)
    m.head_mask = None
    assert float(out["past"][1, 0]) == pytest.approx(float(acc[12:].nanmean() - ablated[12:].nanmean()))
    assert float(out["within"].max()) > 0.05  # some head carries the rule


def test_bad_arguments():
    m = models.TinyTransformer(10, position="none", d_model=16, n_heads=2)
    with pytest.raises(TypeError, match="model must be a TinyTransformer"):
        mechanism.attention_on_offsets(torch.nn.Linear(2, 2), batch(), (0,))
    with pytest.raises(TypeError, match="batch must be a book.tasks.Batch"):
        mechanism.head_ablation(m, batch().inputs, 4)
    with pytest.raises(ValueError, match="offsets must be distinct integers >= 0"):
        mechanism.attention_on_offsets(m, batch(), (1, 1))
    with pytest.raises(ValueError, match="split must be less than the batch length 12"):
        mechanism.head_ablation(m, batch(), 12)
