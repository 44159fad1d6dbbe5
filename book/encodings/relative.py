"""Relative position biases: one family, of which T5's buckets and ALiBi are two tables.

Shaw et al. (2018) give every clipped offset ``j - i`` between a key and a query
its own learned vector. ``shaw_scores`` writes their attention logits out;
``relative_bias`` turns any table of one number per head and offset into the bias
that the attention adds. ``book.encodings.t5.t5_bias_values`` and
``book.encodings.alibi.alibi_bias_values`` fill such tables.
"""

from __future__ import annotations

import math

import torch

from .._validate import check_positive_int

__all__ = ["relative_bias", "shaw_scores"]


def relative_bias(values: torch.Tensor, seq_len: int) -> torch.Tensor:
    """A bias for every (query ``i``, key ``j``) read from a table indexed by ``j - i``.

    Shaw et al. (2018, section 3.2) give every clipped relative position its
    own learned vector, ``a_ij = w_{clip(j - i, K)}`` with
    ``clip(x, K) = max(-K, min(K, x))``. With one *number* per head instead of
    a vector, this is the bias::

        B[h, i, j] = values[h, clip(j - i, K) + K],   K = (values.shape[-1] - 1) / 2

    (relative position key minus query, ``j - i``, as in Shaw et al. and the
    T5 code). T5's learned buckets (``t5_bias_values``) and ALiBi's fixed
    ``-m_h |j - i|`` (``alibi_bias_values``) are two tables of this one family.

    Args:
        values: floating tensor ``(n_heads, 2 K + 1)``; column ``K`` is offset 0.
        seq_len: sequence length (>= 1).

    Returns:
        tensor ``(n_heads, seq_len, seq_len)`` of the dtype of ``values``.

    Raises:
        TypeError: if ``values`` is not a floating tensor.
        ValueError: if ``values`` is not 2-D with an odd last dimension, or
            ``seq_len`` is not an integer >= 1.
    """
    if not isinstance(values, torch.Tensor) or not values.is_floating_point():
        raise TypeError(f"values must be a floating tensor, got {getattr(values, 'dtype', type(values).__name__)}")
    if values.dim() != 2 or values.shape[-1] % 2 == 0:
        raise ValueError(
            f"values must have shape (n_heads, 2K + 1) with an odd last dimension, got {tuple(values.shape)}"
        )
    seq_len = check_positive_int("seq_len", seq_len)
    k = (values.shape[-1] - 1) // 2
    pos = torch.arange(seq_len, device=values.device)
    index = (pos[None, :] - pos[:, None]).clamp(-k, k) + k  # [i, j] -> clip(j - i) + K
    return values[:, index]


def shaw_scores(q: torch.Tensor, k: torch.Tensor, rel_keys: torch.Tensor) -> torch.Tensor:
    """Attention logits with Shaw et al.'s relative key vectors (2018, eq. 4).

    ``e_ij = q_i (k_j + a_ij)^T / sqrt(d)`` with ``a_ij = rel_keys[clip(j - i, K) + K]``
    (eq. 4 is in section 3.1, the clipping in section 3.2; the ``a^V`` term on
    the values is left out). Expanded,
    ``e_ij = q_i k_j^T / sqrt(d) + q_i a_ij^T / sqrt(d)``: the position term is a
    relative bias that also depends on the query's content. T5 drops that
    dependence (one scalar per bucket), ALiBi also drops the learning.

    Args:
        q, k: floating tensors ``(..., seq_len, d)``.
        rel_keys: floating tensor ``(2 K + 1, d)``, row ``K`` for offset 0.

    Returns:
        tensor ``(..., seq_len, seq_len)``.

    Raises:
        TypeError: for non-floating inputs.
        ValueError: for shapes that do not fit (different ``q``/``k`` shapes,
            an even number of ``rel_keys`` rows or another width).
    """
    for name, t in (("q", q), ("k", k), ("rel_keys", rel_keys)):
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            raise TypeError(f"{name} must be a floating tensor, got {getattr(t, 'dtype', type(t).__name__)}")
    if q.dim() < 2 or q.shape != k.shape:
        raise ValueError(
            f"q and k must have the same shape (..., seq_len, d), got {tuple(q.shape)} and {tuple(k.shape)}"
        )
    if rel_keys.dim() != 2 or rel_keys.shape[0] % 2 == 0 or rel_keys.shape[1] != q.shape[-1]:
        raise ValueError(f"rel_keys must have shape (2K + 1, d={q.shape[-1]}), got {tuple(rel_keys.shape)}")
    n, d = q.shape[-2], q.shape[-1]
    kk = (rel_keys.shape[0] - 1) // 2
    pos = torch.arange(n, device=q.device)
    a = rel_keys[(pos[None, :] - pos[:, None]).clamp(-kk, kk) + kk]  # (n, n, d): a_ij
    return (q @ k.mT + torch.einsum("...id,ijd->...ij", q, a)) / math.sqrt(d)
