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
