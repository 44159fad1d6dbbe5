"""T5's bucketed relative positions (Raffel et al., 2020, section 2.1)."""

from __future__ import annotations

import math
from typing import Sequence

import torch

from .._validate import check_even, check_positive_int
from ._positions import _check_positions

__all__ = ["t5_relative_bucket"]

def t5_relative_bucket(
    relative_position: torch.Tensor | Sequence[int],
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> torch.Tensor:
    """T5's bucket of each relative position (Raffel et al., 2020, section 2.1).

    ``relative_position`` is the key position minus the query position
    (``j - i``), as in the T5 code; negative values look back. With
    ``bidirectional=True`` half of the buckets hold keys at or before the query
    and half hold keys after it (``j > i`` adds ``num_buckets / 2``); with
    ``bidirectional=False`` (a decoder) keys after the query share bucket 0.
    Within a half of ``B`` buckets and distance ``r = |j - i|``::

        bucket = r                                            if r < B/2
        bucket = min(B - 1, B/2 + floor(log(r / (B/2))
                          / log(max_distance / (B/2)) * (B - B/2)))  otherwise

    so small distances each get a bucket and larger ones share logarithmically
    wider buckets. Every distance from ``max_distance`` on lands in the last
    bucket, but because of the floor the last bucket *starts* earlier: with
    T5's 32 buckets and ``max_distance=128`` at distance 91 in the encoder
    (bidirectional) and 113 in the decoder. The logarithm is taken in
    float32, as in the reference code (Mesh TensorFlow's
    ``_relative_position_bucket``, ported as
    ``T5Attention._relative_position_bucket`` in transformers'
    ``models/t5/modeling_t5.py``; ``tests/test_transformers_encodings.py``
    compares the two).

    Args:
        relative_position: integer tensor (or sequence) ``j - i``, any shape.
        bidirectional: encoder (True) or decoder (False) bucketing.
        num_buckets: number of buckets (>= 2; even if bidirectional). T5 uses 32.
        max_distance: distance from which all positions are sure to share the
            last bucket (it may start earlier, see above); must exceed the
            exact range (``num_buckets / 2``, or a quarter of it if
            bidirectional). T5 uses 128.

    Returns:
        int64 tensor of the shape of ``relative_position``, in
        ``[0, num_buckets)``.

    Raises:
        TypeError: for non-integer (finite) positions or sizes.
        ValueError: for NaN or infinite positions, or sizes that break the
            rules above.
    """
    rel = _check_positions("relative_position", relative_position, allow_float=False)
    if not isinstance(bidirectional, bool):
        raise TypeError(f"bidirectional must be True or False, got {bidirectional!r}")
    num_buckets = check_positive_int("num_buckets", num_buckets)
    max_distance = check_positive_int("max_distance", max_distance)
    if bidirectional:
        num_buckets = check_even("num_buckets", num_buckets) // 2
    if num_buckets < 2:
        raise ValueError("num_buckets must leave at least 2 buckets per direction (>= 2, or >= 4 if bidirectional)")
    max_exact = num_buckets // 2
    if max_distance <= max_exact:
        raise ValueError(f"max_distance must exceed the exact range {max_exact}, got {max_distance}")
    rel = rel.long()
    if bidirectional:
        offset = (rel > 0).long() * num_buckets
        distance = rel.abs()
    else:
        offset = torch.zeros_like(rel)
        distance = (-rel).clamp(min=0)
    ratio = distance.to(torch.float32).clamp(min=1) / max_exact  # clamp: log(0) is unused
    wide = max_exact + (torch.log(ratio) / math.log(max_distance / max_exact) * (num_buckets - max_exact)).long()
    wide = wide.clamp(max=num_buckets - 1)
    return offset + torch.where(distance < max_exact, distance, wide)


# --- chapter 7 (#17): one family of relative biases (Shaw et al., 2018)


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
        raise ValueError(f"values must have shape (n_heads, 2K + 1) with an odd last dimension, got {tuple(values.shape)}")
    seq_len = check_positive_int("seq_len", seq_len)
    k = (values.shape[-1] - 1) // 2
    pos = torch.arange(seq_len, device=values.device)
    index = (pos[None, :] - pos[:, None]).clamp(-k, k) + k  # [i, j] -> clip(j - i) + K
    return values[:, index]


def t5_bias_values(
    table: torch.Tensor,
    max_distance: int,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    bucket_max_distance: int = 128,
) -> torch.Tensor:
    """T5's learned bias as a table indexed by ``r = j - i`` for ``r = -K .. K``.

    ``values[h, r + K] = table[t5_relative_bucket(r), h]``: every offset
    looks up its bucket's learned scalar (Raffel et al., 2020, section 2.1;
    ``T5Attention.compute_bias`` in transformers' ``models/t5/modeling_t5.py``
    does ``relative_attention_bias(bucket(j - i))``). ``relative_bias(values,
    seq_len)`` then gives T5's bias for ``seq_len <= K + 1``.

    Args:
        table: floating tensor ``(num_buckets, n_heads)``, the weight of T5's
            ``relative_attention_bias`` embedding.
        max_distance: ``K`` (>= 1), the offsets the returned table covers.
        bidirectional, num_buckets, bucket_max_distance: as ``t5_relative_bucket``
            (its ``max_distance`` is ``bucket_max_distance`` here).

    Returns:
        tensor ``(n_heads, 2 K + 1)``.

    Raises:
        TypeError: for a ``table`` that is not a floating tensor.
        ValueError: for a ``table`` not of shape ``(num_buckets, n_heads)``,
            and as ``t5_relative_bucket``.
    """
    max_distance = check_positive_int("max_distance", max_distance)
    num_buckets = check_positive_int("num_buckets", num_buckets)
    if not isinstance(table, torch.Tensor) or not table.is_floating_point():
        raise TypeError(f"table must be a floating tensor, got {getattr(table, 'dtype', type(table).__name__)}")
    if table.dim() != 2 or table.shape[0] != num_buckets:
        raise ValueError(f"table must be a floating tensor (num_buckets={num_buckets}, n_heads), "
                         f"got {getattr(table, 'shape', type(table).__name__)}")
    r = torch.arange(-max_distance, max_distance + 1)
    buckets = t5_relative_bucket(r, bidirectional=bidirectional, num_buckets=num_buckets,
                                 max_distance=bucket_max_distance)
    return table[buckets].T


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
        raise ValueError(f"q and k must have the same shape (..., seq_len, d), got {tuple(q.shape)} and {tuple(k.shape)}")
    if rel_keys.dim() != 2 or rel_keys.shape[0] % 2 == 0 or rel_keys.shape[1] != q.shape[-1]:
        raise ValueError(f"rel_keys must have shape (2K + 1, d={q.shape[-1]}), got {tuple(rel_keys.shape)}")
    n, d = q.shape[-2], q.shape[-1]
    kk = (rel_keys.shape[0] - 1) // 2
    pos = torch.arange(n, device=q.device)
    a = rel_keys[(pos[None, :] - pos[:, None]).clamp(-kk, kk) + kk]  # (n, n, d): a_ij
    return (q @ k.mT + torch.einsum("...id,ijd->...ij", q, a)) / math.sqrt(d)


__all__ += ["relative_bias", "t5_bias_values", "shaw_scores"]
