"""book.demos: the small seeded attention model chapter 1 takes apart."""

from __future__ import annotations

import pytest
import torch

from book.demos import TinySelfAttention

TOKENS = ["나", "는", "너", "를", "사랑해"]


@pytest.fixture
def model():
    return TinySelfAttention(sorted(TOKENS), d_model=8, seed=0)


def test_tiny_attention_is_order_blind_without_position(model):
    a, b = model.aligned_outputs(TOKENS, [2, 1, 0, 3, 4])
    torch.testing.assert_close(a, b)
    for kw in ({"positional": True}, {"causal": True}):
        a, b = model.aligned_outputs(TOKENS, [2, 1, 0, 3, 4], **kw)
        assert (a - b).abs().max() > 1e-2


def test_tiny_attention_is_seeded(model):
    again = TinySelfAttention(sorted(TOKENS), d_model=8, seed=0)
    assert torch.equal(model(TOKENS)[0], again(TOKENS)[0])
    assert not torch.equal(model(TOKENS)[0], TinySelfAttention(sorted(TOKENS), d_model=8, seed=1)(TOKENS)[0])


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda m: TinySelfAttention([], 8), "vocab must be a non-empty list of distinct"),
        (lambda m: TinySelfAttention(["a", "a"], 8), "vocab must be a non-empty list of distinct"),
        (lambda m: TinySelfAttention(["a"], 7), "d_model must be even"),
        (lambda m: m(["나", "cat"]), "unknown: \\['cat'\\]"),
        (lambda m: m.aligned_outputs(TOKENS, [0, 1, 2, 3, 3]), "order must be a permutation of 0 .. 4"),
    ],
)
def test_tiny_attention_bad_input(model, call, message):
    with pytest.raises(ValueError, match=message):
        call(model)
