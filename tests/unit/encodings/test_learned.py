"""book.encodings.learned: the learned position table."""

from __future__ import annotations

import pytest
import torch

from book import encodings as enc


# ---------------------------------------------------------------- learned
def test_learned_embedding_lookup_shape_and_grad():
    torch.manual_seed(0)
    emb = enc.LearnedPositionalEmbedding(16, 8)
    pos = torch.tensor([[0, 1, 15], [3, 3, 4]])
    out = emb(pos)
    assert out.shape == (2, 3, 8)
    torch.testing.assert_close(out[0, 2], emb.weight[15])
    out.sum().backward()
    assert emb.weight.grad is not None and float(emb.weight.grad[15].abs().sum()) > 0
    assert 0.01 < float(emb.weight.detach().std()) < 0.03
    assert "max_len=16" in repr(emb)


@pytest.mark.parametrize("bad", [16, 100, -1])
def test_learned_embedding_out_of_range_names_max_len(bad):
    emb = enc.LearnedPositionalEmbedding(16, 8)
    with pytest.raises(ValueError, match=r"max_len\) = \[0, 16\).*got " + str(bad)):
        emb(torch.tensor([0, bad]))


# ---------------------------------------------------------------- bad input
BAD_INPUTS = [
    (lambda: enc.LearnedPositionalEmbedding(0, 8), ValueError, "max_len must be a positive integer"),
    (
        lambda: enc.LearnedPositionalEmbedding(8, 8)(torch.tensor([0.0, 1.0])),
        TypeError,
        "positions must have an integer dtype",
    ),
    (lambda: enc.LearnedPositionalEmbedding(8, 8)([0, 1]), TypeError, "positions must be a torch.Tensor"),
]


@pytest.mark.parametrize("call,exc,message", BAD_INPUTS, ids=[m for _, _, m in BAD_INPUTS])
def test_bad_input_names_parameter_and_rule(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
