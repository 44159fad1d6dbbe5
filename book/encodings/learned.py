"""A learned table of positions, as in BERT and GPT-2."""

from __future__ import annotations

import torch
from torch import nn

from .._validate import check_positive_int
from ._positions import _check_positions

__all__ = ["LearnedPositionalEmbedding"]


class LearnedPositionalEmbedding(nn.Module):
    """A learned table of position vectors, as in BERT (Devlin et al., 2019) and GPT-2.

    Equation: ``P[p] = W[p]`` for a trainable ``W`` of shape ``(max_len, d_model)``,
    added to the token embeddings. The table is initialised from a plain
    normal ``N(0, 0.02^2)``. The two models this follows initialise it
    differently:

    * BERT (google-research/bert, ``modeling.py``, ``embedding_postprocessor``
      with ``create_initializer(initializer_range)``) draws the
      ``position_embeddings`` table from
      ``tf.truncated_normal_initializer(stddev=0.02)``, a normal with
      parameter 0.02 cut at two standard deviations;
    * OpenAI's GPT-2 code (openai/gpt-2, ``src/model.py``, ``model``) draws
      ``wpe`` from ``tf.random_normal_initializer(stddev=0.01)`` and the
      token table ``wte`` from ``stddev=0.02``.

    The book keeps BERT's figure 0.02, untruncated. Positions outside ``[0, max_len)`` have no vector: the
    policy here is to raise a ``ValueError`` that says so, rather than index out
    of range (real models truncate the input or interpolate the table).

    Args:
        max_len: number of positions with a vector (>= 1).
        d_model: width of each vector (>= 1).

    Raises:
        TypeError / ValueError: for non-integer or non-positive sizes.
    """

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = check_positive_int("max_len", max_len)
        self.d_model = check_positive_int("d_model", d_model)
        self.weight = nn.Parameter(torch.empty(self.max_len, self.d_model))
        nn.init.normal_(self.weight, mean=0.0, std=0.02)

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        """Look up the vectors of ``positions`` (integer tensor, any shape).

        Returns a tensor of shape ``(*positions.shape, d_model)``.

        Raises:
            TypeError: if ``positions`` is not an integer tensor.
            ValueError: if a position is negative, ``>= max_len``, or NaN or
                infinite (reported before the dtype rule).
        """
        if not isinstance(positions, torch.Tensor):
            raise TypeError(f"positions must be a torch.Tensor of integers, got {type(positions).__name__}")
        positions = _check_positions("positions", positions, allow_float=False)
        if positions.numel():
            lo, hi = int(positions.min()), int(positions.max())
            if lo < 0 or hi >= self.max_len:
                bad = lo if lo < 0 else hi
                raise ValueError(
                    f"positions must lie in [0, max_len) = [0, {self.max_len}), got {bad}: "
                    f"a learned table has no vector for a position it was not built with "
                    f"(truncate the input, or interpolate the table to a larger max_len)"
                )
        return nn.functional.embedding(positions, self.weight)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}"
