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


def _bucket_head_model(vocab, bucket, n_layers=1):
    """A T5 model whose heads see no content (q = k = 0) and whose bias is +50 on one
    bucket, -50 on the others: every head looks at the key of that bucket's distance."""
    m = models.TinyTransformer(vocab, position="t5", d_model=16, n_heads=2, n_layers=n_layers, max_len=64)
    with torch.no_grad():
        for block in m.blocks:
            block.qkv.weight[:32] = 0
            block.qkv.bias[:32] = 0
        m.rel_bias.fill_(-50.0)
        m.rel_bias[:, bucket] = 50.0
    return m


def _task_batches():
    g = torch.Generator().manual_seed(3)
    return {
        "local_sum": tasks.local_sum(8, 12, generator=g),
        "recall": tasks.recall(8, 6, n_filler=9, generator=g),  # with filler, as the benchmark's
        "copy": tasks.copy_task(8, 5, generator=g),
    }


def test_needed_keys_point_at_what_each_rule_reads():
    """Each scored query needs exactly one key (never itself): for local_sum the
    token one back, for copy the symbol that is the target, for recall the pair
    token whose value is the target's; unscored queries need none."""
    for task, b in _task_batches().items():
        needed = mechanism.needed_keys(task, b)
        assert needed.shape == (8, b.inputs.shape[1], b.inputs.shape[1])
        assert torch.equal(needed.sum(-1), b.loss_mask.long())  # one key per scored query, none otherwise
        assert not needed.diagonal(dim1=-2, dim2=-1).any()
        s, i, j = needed.nonzero(as_tuple=True)
        if task == "local_sum":
            assert torch.equal(j, i - 1)
        elif task == "copy":
            assert torch.equal(b.inputs[s, j], b.targets[s, i])
        else:
            assert torch.equal(b.inputs[s, j] % 4 + 32 * 4 + 32, b.targets[s, i])  # the answer's value
            assert torch.equal(b.inputs[s, j] // 4, b.inputs[s, i] - 32 * 4)  # at the queried key
    for bad, message in (("sorting", "task must be one of"),):
        with pytest.raises(ValueError, match=message):
            mechanism.needed_keys(bad, batch())
    with pytest.raises(ValueError, match="offsets must hold an offset above 0"):
        mechanism.needed_keys("local_sum", batch(), offsets=(0,))


def test_needed_keys_refuses_a_batch_of_another_layout():
    """A batch that is not the task's is refused, not read as if it were:
    a copy batch read as recall, recall read with the wrong alphabets, a copy
    batch with its mask cut."""
    batches = _task_batches()
    copy, rec = batches["copy"], batches["recall"]
    with pytest.raises(ValueError, match="not a recall batch with n_keys=32, n_values=4"):
        mechanism.needed_keys("recall", copy)
    with pytest.raises(ValueError, match="not a recall batch with n_keys=8, n_values=4"):
        mechanism.needed_keys("recall", rec, n_keys=8)
    with pytest.raises(ValueError, match="not a recall batch"):
        mechanism.needed_keys("recall", rec, n_values=8)  # answers read as pairs
    cut = copy._replace(loss_mask=copy.loss_mask & (torch.arange(copy.inputs.shape[1]) < 9))
    with pytest.raises(ValueError, match="not a copy batch"):
        mechanism.needed_keys("copy", cut)
    with pytest.raises(ValueError, match="not a copy batch"):
        mechanism.needed_keys("copy", rec._replace(inputs=rec.inputs[:, :11], loss_mask=rec.loss_mask[:, :11]))


def test_a_head_that_looks_at_itself_scores_0_on_the_needed_key():
    """Attention on the query's own token is reported apart: a head that looks only
    at itself scores 0 on every task's needed key and 1 on itself; a head that
    looks one back scores 1 on local_sum's needed key."""
    for task, b in _task_batches().items():
        vocab = tasks.vocab_size(task)
        got = mechanism.attention_on_needed(_bucket_head_model(vocab, 0), b, mechanism.needed_keys(task, b))
        assert got["needed"].shape == (1, 2) == got["self"].shape
        assert float(got["needed"].max()) < 1e-6 and float(got["self"].min()) > 1 - 1e-6
    b = _task_batches()["local_sum"]
    got = mechanism.attention_on_needed(_bucket_head_model(10, 1), b, mechanism.needed_keys("local_sum", b))
    assert float(got["needed"].min()) > 1 - 1e-6 and float(got["self"].max()) < 1e-6


def test_weight_on_needed_by_hand_and_its_checks():
    """Two queries of one sequence, one head: query 1 puts 0.25 on key 0 (needed)
    and 0.75 on itself; query 2 puts 0.5 on key 0 (needed), 0.2 on itself."""
    w = torch.zeros(1, 1, 3, 3)
    w[0, 0, 0, 0] = 1
    w[0, 0, 1, :2] = torch.tensor([0.25, 0.75])
    w[0, 0, 2] = torch.tensor([0.5, 0.3, 0.2])
    needed = torch.zeros(1, 3, 3, dtype=torch.bool)
    needed[0, 1, 0] = needed[0, 2, 0] = True
    scored = torch.tensor([[False, True, True]])
    got = mechanism.weight_on_needed([w], needed, scored)
    assert float(got["needed"][0, 0]) == pytest.approx(0.375) and float(got["self"][0, 0]) == pytest.approx(0.475)
    with pytest.raises(ValueError, match="scored must mark at least one query"):
        mechanism.weight_on_needed([w], needed, torch.zeros(1, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="maps must be"):
        mechanism.weight_on_needed([w], needed[:, :2], scored)
