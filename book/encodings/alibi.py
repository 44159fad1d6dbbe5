"""ALiBi: attention with linear biases (Press et al., 2022, section 3)."""

from __future__ import annotations

import math

import torch

from .._validate import check_positive_int

__all__ = ["alibi_slopes", "alibi_bias", "alibi_bias_values"]


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
    softmax; no vector is added to the token embeddings. Press et al. define
    ALiBi for causal attention only, as ``-m_h * (i - j)`` for the keys
    ``j <= i`` (section 3); with a causal mask this function equals that. For
    the other keys it uses the symmetric form ``-m_h * |i - j|`` that Ofir
    Press suggested later for unmasked attention (the thread "Modifying ALiBi
    for Encoder-Attention or Cross-Attention" of
    ofirpress/attention_with_linear_biases), which is not part of the paper.

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


def alibi_bias_values(n_heads: int, max_distance: int) -> torch.Tensor:
    """ALiBi as a table of biases indexed by the relative position ``r = j - i``.

    ``values[h, r + K] = -m_h * |r|`` for ``r = -K .. K`` (``K = max_distance``),
    with ``m_h`` from ``alibi_slopes``: a fixed, linear, unbucketed bias, one
    number per head and offset. ``relative_bias(values, seq_len)`` (in
    ``book.encodings.relative``) turns it into ``alibi_bias(n_heads, seq_len)``
    whenever ``K >= seq_len - 1`` (chapter 7 asserts it); a smaller ``K`` clips
    the distance as Shaw et al. (2018) do.

    Returns:
        float32 tensor ``(n_heads, 2 K + 1)``.

    Raises:
        TypeError / ValueError: if ``n_heads`` or ``max_distance`` is not an integer >= 1.
    """
    slopes = alibi_slopes(n_heads)
    max_distance = check_positive_int("max_distance", max_distance)
    r = torch.arange(-max_distance, max_distance + 1)
    return -slopes[:, None] * r.abs().to(torch.float32)
