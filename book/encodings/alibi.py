"""ALiBi: attention with linear biases (Press et al., 2022, section 3)."""

from __future__ import annotations

import math

import torch

from .._validate import check_positive_int

__all__ = ["alibi_slopes", "alibi_bias"]

def alibi_slopes(n_heads: int) -> torch.Tensor:
    """The head-specific slopes ``m_h`` of ALiBi (Press et al., 2022, section 3).

    For ``n`` a power of two, the slopes are the geometric sequence
    ``m_h = 2^(-8h/n)`` for ``h = 1 .. n`` (8 heads: 1/2, 1/4, .., 1/256).
    For other ``n``, Press et al.'s reference code takes the ``2^floor(log2 n)``
    slopes of the nearest smaller power of two and fills the remaining heads
    with every other slope of the sequence for twice that power
    (12 heads: the 8-head slopes, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5).

    Args:
        n_heads: number of attention heads, >= 1.

    Returns:
        float32 tensor of shape ``(n_heads,)``, all in (0, 1).

    Raises:
        TypeError / ValueError: if ``n_heads`` is not an integer >= 1.
    """
    n_heads = check_positive_int("n_heads", n_heads)
    return torch.tensor(_alibi_slope_list(n_heads), dtype=torch.float64).to(torch.float32)


def _alibi_slope_list(n: int) -> list[float]:
    def power_of_two(m: int) -> list[float]:
        return [2.0 ** (-8.0 * h / m) for h in range(1, m + 1)]

    if n & (n - 1) == 0:
        return power_of_two(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_two(closest) + _alibi_slope_list(2 * closest)[0::2][: n - closest]


def alibi_bias(n_heads: int, seq_len: int) -> torch.Tensor:
    """The ALiBi attention bias ``B[h, i, j] = -m_h * |i - j|`` (Press et al., 2022).

    The bias is added to the attention scores ``q_i . k_j / sqrt(d)`` before the
    softmax; no vector is added to the token embeddings. This is the symmetric
    form; with a causal mask only ``j <= i`` is used, where it equals Press et
    al.'s ``-m_h * (i - j)``.

    Args:
        n_heads: number of heads (>= 1); slopes from ``alibi_slopes``.
        seq_len: sequence length (>= 1).

    Returns:
        float32 tensor of shape ``(n_heads, seq_len, seq_len)``, zero on the
        diagonal and negative elsewhere.
    """
    slopes = alibi_slopes(n_heads)
    seq_len = check_positive_int("seq_len", seq_len)
    pos = torch.arange(seq_len)
    distance = (pos[:, None] - pos[None, :]).abs().to(torch.float32)
    return -slopes[:, None, None] * distance
