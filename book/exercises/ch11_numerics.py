"""Self-checks of chapter 11, *Numerics and speed* (``notebooks/11_numerics``).

Checks, in the chapter's order: ``check_float_gaps``, ``check_cache_rounding_error``,
``check_rope_traffic``.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import torch

from .._validate import check_choice, check_even, check_float_dtype, check_positive_int, check_positive_real
from ..encodings.rope import RopeLayout
from ._feedback import _close, _number, _numbers, _verdict, diagnose

__all__ = [
    "check_float_gaps",
    "check_cache_rounding_error",
    "check_rope_traffic",
]


def check_cache_rounding_error(answer: Any, dtype: torch.dtype = torch.bfloat16) -> bool:
    """Chapter 11: the largest error of a cosine or sine (a number in [-1, 1]) stored in ``dtype``.

    A float with ``p`` significant bits (the implicit one counted: bfloat16 8,
    float16 11, float32 24) spaces the numbers in ``[1/2, 1)`` ``2^-p``
    apart, and rounding to the nearest errs by at most half that,
    ``2^-(p+1)``: ``2^-9`` for bfloat16 (what ``numerics.rope_cache_error``
    measures). Recognises the whole gap ``2^-p`` and the gap above 1,
    ``torch.finfo(dtype).eps = 2^-(p-1)``, or half of it.

    Raises:
        TypeError: if ``dtype`` is not a floating-point torch dtype.
    """
    dtype = check_float_dtype("dtype", dtype)
    value = _number(answer)
    if value is None:
        return _verdict(False, "Give the error as one number, e.g. 2.0**-20.")
    if not math.isfinite(value):
        return _verdict(False, f"{value} is not a finite error: rounding a number in [-1, 1] errs by less than 1.")
    eps = torch.finfo(dtype).eps  # the gap just above 1: 2^-(p-1)
    bits = 1 - int(round(math.log2(eps)))  # p, the significant bits
    right = 2.0 ** -(bits + 1)
    name = str(dtype).removeprefix("torch.")
    if _close(value, right):
        return _verdict(
            True,
            f"{name} keeps {bits} significant bits: below 1 its numbers are 2^-{bits} apart, "
            f"and rounding to the nearest errs by at most half of that, 2^-{bits + 1}.",
        )
    above_one = (
        "That is (half) the gap just above 1, torch.finfo(dtype).eps. A cosine is at "
        "most 1, and below 1 the numbers are twice as dense."
    )
    hint = diagnose(
        value,
        [
            (
                2 * right,
                "That is the whole gap between neighbours below 1 (and the largest error of "
                "rounding relative to a number's size, reached just above a power of two); a cosine's "
                "error is at most half of it, since rounding to the nearest neighbour errs by at most "
                "half a gap.",
            ),
            (eps, above_one),
            (eps / 2, above_one),
        ],
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False,
        f"Count the significant bits of {name} (the implicit leading one included) and "
        "find the gap between neighbours in [1/2, 1).",
    )


def check_rope_traffic(answer: Any, shape: Sequence[int] = (1, 8, 2048, 64), *, layout: RopeLayout = "half") -> bool:
    """Chapter 11: the bytes that eager ``apply_rope_cached`` reads and writes, as a multiple of ``x``'s bytes.

    The right answer is what ``numerics.memory_traffic`` counts for a
    float32 ``x`` of ``shape`` (batch, heads, n, d) with a cos/sin cache of
    shape ``(n, d/2)``: every operation reads its inputs and writes its
    result. Recognises the 2 of a copy (one pass in, one out, as a fused
    kernel would do), and counts that leave out the cache or the
    intermediates.

    Raises:
        TypeError / ValueError: for a shape that is not four positive
            integers with an even last one, or an unknown ``layout``.
    """
    from .. import numerics
    from ..encodings import apply_rope_cached, rope_cos_sin

    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence) or len(shape) != 4:
        raise ValueError(f"shape must be (batch, heads, n, d), got {shape!r}")
    batch, heads, n = (check_positive_int(k, v) for k, v in zip(("batch", "heads", "n"), shape[:3]))
    d = check_even("d", shape[3])
    layout = check_choice("layout", layout, ("interleaved", "half"))
    value = _number(answer)
    if value is None:
        return _verdict(False, "Give the traffic as one number: bytes read and written / bytes of x.")
    if not math.isfinite(value):
        return _verdict(False, f"{value} is not a finite count: each operation moves a few tensors the size of x.")
    x = torch.zeros(batch, heads, n, d)
    cos, sin = rope_cos_sin(torch.arange(n), d)
    counted = numerics.memory_traffic(lambda: apply_rope_cached(x, cos, sin, layout=layout))
    x_bytes = x.numel() * x.element_size()
    right = (counted["read"] + counted["written"]) / x_bytes
    cache = 2 * cos.numel() * cos.element_size() / x_bytes
    if _close(value, right):
        return _verdict(
            True,
            f"{len(counted['ops'])} eager operations move {right:g} times the bytes of x: "
            "every product, sum and copy reads its inputs and writes its result.",
        )
    fused = (
        "That is one pass in and one out, what a fused kernel does. Eager PyTorch runs "
        "each product and sum as its own operation, which writes its result to memory and "
        "reads it back in the next one."
    )
    no_table = "Close: each of the four products also reads a cos or sin table."
    hint = diagnose(
        value, [(2, fused), (2 + cache, fused), (right - 4 * cache / 2, no_table), (right - cache, no_table)]
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False,
        "List the operations (numerics.memory_traffic(...)['ops'] shows them) and add, for "
        "each, the sizes of what it reads and what it writes, in units of x.",
    )


def _whole_same(a: float, b: float) -> bool:
    """Whether two positions are the same whole number (for :func:`diagnose`)."""
    return abs(a - b) < 0.5


def check_float_gaps(answer: Any, near: float = 1_000_000.0, dtype: torch.dtype = torch.float32) -> bool:
    """Chapter 11: three facts about the whole numbers in ``dtype``, as
    ``(gap near `near`, where the gap reaches 1, where whole numbers start to merge)``.

    The gap is ``nextafter(near) - near`` in ``dtype`` (``2^(e - (m-1))`` for
    ``near`` in ``[2^e, 2^(e+1))``, with ``m`` significant bits): ``1/16``
    near a million in float32. It reaches 1 at ``2^(m-1)`` (``2^23``) and 2
    at ``2^m`` (``2^24``), where ``p`` and ``p + 1`` start to share a float.
    Accepts any list, tuple, tensor or array of the three numbers, in that
    order (relative ``1e-6``). Recognises 2^23 and 2^24 swapped, the gap of
    the next power of two (``near`` taken as above ``2^20``), the relative
    gap ``eps`` or ``near * eps`` for the gap, half the gap (the rounding
    error), and ``2^m + 1`` (the first whole number lost) for where the
    merging starts. Never raises on the answer.

    Raises:
        TypeError / ValueError: if ``dtype`` is not a floating-point torch dtype or
            ``near`` is not a positive real number within its range.
    """
    dtype = check_float_dtype("dtype", dtype)
    near = check_positive_real("near", near)
    if near >= torch.finfo(dtype).max:
        raise ValueError(f"near must be below the largest {dtype} value, got {near}")
    got = None if isinstance(answer, (str, bytes, dict)) else _numbers(answer, 3)
    if got is None:
        return _verdict(False, "Give three numbers, in order: (gap near the position, gap 1 from, merging from).")
    if not all(math.isfinite(v) for v in got):
        return _verdict(False, "Each of the three is a finite number; some of yours are NaN or infinite.")
    eps = torch.finfo(dtype).eps
    m = 1 - int(round(math.log2(eps)))  # significant bits
    x = torch.tensor(near, dtype=dtype)
    gap = float(torch.nextafter(x, torch.tensor(math.inf, dtype=dtype)) - x)
    right = (gap, 2.0 ** (m - 1), 2.0**m)
    same = [math.isclose(got[0], gap, rel_tol=1e-6)] + [abs(g - r) < 0.5 for g, r in zip(got[1:], right[1:])]
    if all(same):
        return _verdict(
            True,
            f"Near {near:,.0f} the gap is {gap:g}; it doubles at each power of two, reaches 1 at 2^{m - 1} = "
            f"{2 ** (m - 1):,} and 2 at 2^{m} = {2**m:,}, where p and p + 1 start to share a float.",
        )
    if abs(got[1] - right[2]) < 0.5 and abs(got[2] - right[1]) < 0.5:
        return _verdict(
            False,
            f"2^{m - 1} and 2^{m} are swapped: the gap reaches 1 at 2^{m - 1} (every whole number still has "
            f"its float) and whole numbers merge from 2^{m} on, where the gap is 2.",
        )
    if not same[0]:
        hint = diagnose(
            got[0],
            [
                (
                    2 * gap,
                    f"That is the gap one power of two higher. {near:,.0f} lies below "
                    f"2^{math.floor(math.log2(near)) + 1} = {2 ** (math.floor(math.log2(near)) + 1):,}.",
                ),
                (
                    eps,
                    "That is eps, the gap just above 1 (a relative gap). Multiply by the power of two at or "
                    "below the position.",
                ),
                (
                    near * eps,
                    "That scales eps by the position itself; the gap is eps times the power of two at "
                    "or below it, a power of two too.",
                ),
                (gap / 2, "That is half the gap, the largest rounding error. The question asks for the gap."),
            ],
        )
        return _verdict(False, hint or f"The gap near {near:,.0f}: torch.nextafter of the float32 number, minus it.")
    if not same[1]:
        hint = diagnose(
            got[1], [(right[2], f"At 2^{m} the gap is already 2; it is 1 from 2^{m - 1} on.")], same=_whole_same
        )
        return _verdict(False, hint or "The gap is right. It doubles at each power of two; when is it 1?")
    hint = diagnose(
        got[2],
        [
            (
                right[2] + 1,
                f"2^{m} + 1 is the first whole number lost; it merges with 2^{m}, so merging starts at 2^{m}.",
            ),
            (right[1], f"At 2^{m - 1} the gap is 1: every whole number still has its own float."),
        ],
        same=_whole_same,
    )
    return _verdict(False, hint or "The first two are right: where is the gap 2, so that p + 1 rounds to p?")
