"""Self-checks of chapter 4, *Heatmaps and fingerprints* (``notebooks/04_fingerprints``).

Checks, in the chapter's order: ``check_closest_position``, ``check_distinct_similarities``,
``check_float_position_limit``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch

from .._validate import check_float_dtype, check_positive_int
from ..encodings import frequencies, sinusoidal_at
from ._feedback import _verdict, _whole_number, diagnose

__all__ = [
    "check_closest_position",
    "check_distinct_similarities",
    "check_float_position_limit",
]


def check_closest_position(answer: Any, d_model: int, max_position: int, *, base: float = 10000.0) -> bool:
    """Chapter 4: which position ``p`` in ``1 .. max_position`` has the PE vector
    closest (Euclidean distance) to ``PE(0)``?

    Accepts the position as an int, a whole float or a one-element torch
    tensor or numpy array.
    Recognises ``0`` itself, the farthest position instead of the closest,
    the neighbour ``1`` (close in the sequence, not in PE space), and the
    answer one too small (an argmin over ``p >= 1`` without adding the 1
    back). The confirmation says how many turns each pair has made at the
    answer. Never raises on the answer (NaN, infinity, a string, ``None``).

    Raises:
        TypeError / ValueError: if ``max_position`` is not an integer >= 1.
    """
    max_position = check_positive_int("max_position", max_position)
    p = _whole_number(answer)
    if p is None:
        return _verdict(False, "Give a whole position number, such as 17 (not NaN, a string or a list).")
    pos = torch.arange(max_position + 1)
    dist = (
        sinusoidal_at(pos, d_model, base=base, dtype=torch.float64)
        - sinusoidal_at(torch.tensor([0]), d_model, base=base, dtype=torch.float64)
    ).norm(dim=-1)
    best, worst = int(torch.argmin(dist[1:])) + 1, int(torch.argmax(dist[1:])) + 1
    if p == best:
        w = frequencies(d_model, base=base)
        turns = ", ".join(f"pair {i} {t:.3f}" for i, t in enumerate((p * w / (2 * math.pi)).tolist()[:4]))
        return _verdict(
            True,
            f"PE({p}) is {float(dist[p]):.4f} away from PE(0), closer than any other "
            f"position up to {max_position}. Turns made at p = {p}: {turns}. Each pair adds "
            "2 - 2 cos(p w_i) to the squared distance, small when its turns are near a whole "
            "number or near 0.",
        )
    if p == 0:
        return _verdict(False, "Position 0 is PE(0) itself; search p = 1 .. max_position.")
    if not 1 <= p <= max_position:
        return _verdict(False, f"Search positions 1 .. {max_position} only.")
    hint = diagnose(
        p,
        [
            (worst, "That is the farthest position. Take the argmin of the distances, not the argmax."),
            (
                best - 1,
                "One too small: an argmin over the distances of p = 1, 2, ... returns an index "
                "counted from 0. Add 1 back.",
            ),
            (
                1,
                "Position 1 is next to 0 in the sentence, but the fast pairs have turned by "
                "a whole radian. Compute the distances to PE(0) for every p.",
            ),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False,
        f"PE({p}) is {float(dist[p]):.4f} away from PE(0); some position is closer. "
        f"Compute all distances at once and take the argmin over p >= 1.",
    )


def check_distinct_similarities(
    answer: Any, n_positions: int = 100, d_model: int = 32, *, base: float = 10000.0
) -> bool:
    """Chapter 4: how many different values the ``N x N`` similarity matrix
    ``S = PE PE^T`` of ``N = n_positions`` positions holds.

    ``S_pq`` depends only on ``|p - q|`` (a Toeplitz matrix, and the cosine is
    even), so at most ``N``; the right answer is counted from the matrix, in
    float64, with values equal to 9 decimals counted once (``N`` for the
    chapter's settings). Accepts a whole number in any numeric form.
    Recognises ``N^2`` (the entries, not the values), ``N(N+1)/2`` (symmetry
    alone), ``2N - 1`` (the signed offset ``p - q``, forgetting that the
    cosine is even), ``N - 1`` (the diagonal left out) and ``d_model``.
    Never raises on the answer.

    Raises:
        TypeError / ValueError: if ``n_positions`` is not an integer >= 1.
    """
    n = check_positive_int("n_positions", n_positions)
    count = _whole_number(answer)
    if count is None:
        return _verdict(False, "Give the count as one whole number.")
    t = sinusoidal_at(torch.arange(n), d_model, base=base, dtype=torch.float64)
    right = len({round(v, 9) for v in (t @ t.T).flatten().tolist()})
    if count == right:
        return _verdict(
            True,
            f"{n * n} entries, {right} different values: S_pq = sum_i cos((p - q) w_i) depends only on "
            f"|p - q|, which takes {n} values.",
        )
    hint = diagnose(
        count,
        [
            (n * n, "That counts the entries. Many of them are equal: S_pq depends only on p - q."),
            (
                n * (n + 1) // 2,
                "That uses the symmetry S_pq = S_qp only. S_pq depends on p - q alone, which "
                "makes every diagonal of the matrix constant.",
            ),
            (
                2 * n - 1,
                "That counts the signed offsets p - q. The cosine is even: offsets k and -k give the same value.",
            ),
            (n - 1, "Close: the diagonal p = q (offset 0) holds a value too."),
            (d_model, "That is the width of the encoding. Count the offsets |p - q| instead."),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(False, "Write S_pq = PE(p) . PE(q) with the product-to-sum formula: what does it depend on?")


def check_float_position_limit(answer: Any, dtype: torch.dtype = torch.float32) -> bool:
    """Chapter 4: the smallest whole number ``p`` that ``dtype`` cannot tell from ``p + 1``.

    A float with ``m`` significant bits (the implicit one counted: float32
    24, float16 11, bfloat16 8, float64 53, from ``torch.finfo(dtype).eps =
    2^-(m-1)``) holds every whole number up to ``2^m``; ``2^m + 1`` rounds to
    ``2^m``, so the answer is ``2^m`` (``2^24 = 16,777,216`` for float32).
    Accepts a whole number in any numeric form (``2**24``, ``16777216.0``,
    ``torch.tensor(2.0**24)``). Recognises ``2^(m-1)`` (the stored bits
    without the implicit one, where the gap only reaches 1), ``2^m + 1`` (the
    first number lost), ``2^m - 1``, the limits of float16, bfloat16, float32
    and float64, int32's and uint32's ranges and the largest finite value.
    Never raises on the answer.

    Raises:
        TypeError: if ``dtype`` is not a floating-point torch dtype.
    """
    dtype = check_float_dtype("dtype", dtype)
    p = _whole_number(answer)
    if p is None:
        return _verdict(False, "Give one whole number p, such as 2**10 (not NaN, a string or a list).")

    def bits(of: torch.dtype) -> int:
        return 1 - int(round(math.log2(torch.finfo(of).eps)))

    m = bits(dtype)
    right = 2**m
    name = str(dtype).removeprefix("torch.")
    if p == right:
        return _verdict(
            True,
            f"{name} keeps {m} significant bits, so every whole number up to 2^{m} = {right:,} is exact; "
            f"2^{m} + 1 rounds back to 2^{m}.",
        )
    others = [
        (2 ** bits(t), f"That is the limit of {str(t)[6:]}, not of {name}.")
        for t in (torch.float16, torch.bfloat16, torch.float32, torch.float64)
        if t != dtype
    ]
    hint = diagnose(
        p,
        [
            (
                2 ** (m - 1),
                f"That is 2^{m - 1}: {name} stores {m - 1} bits after the point, plus an implicit leading 1, so it "
                f"has {m} significant bits. At 2^{m - 1} the gap between neighbours reaches 1, but every whole "
                "number still has its own float.",
            ),
            (
                right + 1,
                f"2^{m} + 1 is the first whole number lost (it rounds to 2^{m}): the p that merges with "
                "p + 1 is the one before it.",
            ),
            (right - 1, f"2^{m} - 1 and 2^{m} are still apart; the first p that merges with p + 1 is the next one."),
            *others,
            (2**31 - 1, f"That is int32's largest value; {name} is a floating-point type with fewer digits."),
            (2**31, f"That is int32's range; {name} is a floating-point type with fewer digits."),
            (2**32, f"That is uint32's range; {name} is a floating-point type with fewer digits."),
            (int(torch.finfo(dtype).max), "That is the largest finite value; whole numbers merge long before."),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False,
        f"Count the significant bits of {name} (the implicit leading one included): up to 2 to that power "
        "every whole number is exact.",
    )
