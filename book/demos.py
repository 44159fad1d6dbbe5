"""Small, seeded models that the chapters take apart.

``TinySelfAttention`` is chapter 1's single self-attention head over a toy
vocabulary. The chapter builds the same computation in the open and asserts
that it equals this class, which then drives the chapter's explorer widget and
its static twin.
"""

from __future__ import annotations

import math
from typing import Sequence

import torch

from ._validate import check_even
from .attention import attention
from .encodings import sinusoidal

__all__ = ["TinySelfAttention"]


class TinySelfAttention:
    """One self-attention head over a toy vocabulary, with optional position signals.

    Equation (Vaswani et al., 2017, eq. 1, one head)::

        X   = E[tokens] (+ PE[0 .. n-1] if positional)
        out = softmax((X W_q)(X W_k)^T / sqrt(d) (+ causal mask)) (X W_v)

    ``E`` holds one ``N(0, 1)`` vector per vocabulary entry and ``W_q, W_k, W_v``
    are ``N(0, 1/d)`` matrices, all drawn from a generator seeded with ``seed``;
    ``PE`` is ``book.encodings.sinusoidal``. The model is not trained: the point
    is what the architecture can and cannot tell apart, whatever its weights.

    Args:
        vocab: the distinct tokens the model knows (strings, no repeats).
        d_model: width ``d``; positive and even (for the sinusoidal PE).
        seed: seed of the weights.
    """

    def __init__(self, vocab: Sequence[str], d_model: int = 16, seed: int = 0) -> None:
        vocab = list(vocab)
        if not vocab or len(set(vocab)) != len(vocab):
            raise ValueError(f"vocab must be a non-empty list of distinct tokens, got {vocab!r}")
        self.vocab = vocab
        self.d_model = check_even("d_model", d_model)
        g = torch.Generator().manual_seed(seed)
        self.embedding = torch.randn(len(vocab), d_model, generator=g)
        scale = 1.0 / math.sqrt(d_model)
        self.w_q, self.w_k, self.w_v = (torch.randn(d_model, d_model, generator=g) * scale for _ in range(3))

    def embed(self, tokens: Sequence[str], *, positional: bool = False) -> torch.Tensor:
        """Token vectors ``(n, d)`` of ``tokens``, plus the sinusoidal PE if ``positional``."""
        unknown = [t for t in tokens if t not in self.vocab]
        if unknown or not tokens:
            raise ValueError(f"tokens must be a non-empty list drawn from vocab, unknown: {unknown!r}")
        x = self.embedding[[self.vocab.index(t) for t in tokens]]
        return x + sinusoidal(len(tokens), self.d_model) if positional else x

    def __call__(
        self, tokens: Sequence[str], *, positional: bool = False, causal: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return ``(outputs (n, d), attention weights (n, n))`` for ``tokens``."""
        x = self.embed(tokens, positional=positional)
        return attention(x @ self.w_q, x @ self.w_k, x @ self.w_v, causal=causal)

    def aligned_outputs(
        self, tokens: Sequence[str], order: Sequence[int], *, positional: bool = False, causal: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Outputs for ``tokens`` and for the reordering ``[tokens[i] for i in order]``,
        the second brought back to the first's token order, so that row ``t`` of
        both belongs to ``tokens[t]``: ``(out_original, out_reordered_aligned)``."""
        if sorted(order) != list(range(len(tokens))):
            raise ValueError(f"order must be a permutation of 0 .. {len(tokens) - 1}, got {list(order)}")
        out_a, _ = self(tokens, positional=positional, causal=causal)
        out_b, _ = self([tokens[i] for i in order], positional=positional, causal=causal)
        back = torch.empty(len(order), dtype=torch.long)
        back[torch.tensor(list(order))] = torch.arange(len(order))
        return out_a, out_b[back]
