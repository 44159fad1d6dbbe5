"""T5's bucketed relative positions (Raffel et al., 2020, section 2.1)."""

from __future__ import annotations

import math
from typing import Sequence

import torch

from .._validate import check_even, check_positive_int
from ._positions import _check_positions

__all__ = ["t5_relative_bucket", "t5_bias_values"]


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
    ``models/t5/modeling_t5.py``; a test compares the two).

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
        raise ValueError(
            f"table must be a floating tensor (num_buckets={num_buckets}, n_heads), "
            f"got {getattr(table, 'shape', type(table).__name__)}"
        )
    r = torch.arange(-max_distance, max_distance + 1)
    buckets = t5_relative_bucket(
        r, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=bucket_max_distance
    )
    return table[buckets].T
