"""Self-checks of chapter 7, *ALiBi, T5's buckets, and no position encoding at all* (``notebooks/07_relative``).

Checks, in the chapter's order: ``check_alibi_slopes``.
"""

from __future__ import annotations

from typing import Any

import torch

from .._validate import check_positive_int
from ..encodings import alibi_slopes
from ._feedback import _per_head, _per_head_same, _verdict, diagnose

__all__ = [
    "check_alibi_slopes",
]


def check_alibi_slopes(answer: Any, n_heads: int) -> bool:
    """Chapter 7: ALiBi's slopes for ``n_heads`` heads, in head order
    (Press et al., 2022, section 3 and their reference code, ``get_slopes``).

    Accepts any list, tuple or tensor of ``n_heads`` numbers (nested or flat)
    equal to the slopes to a relative ``1e-5``; a float16 or bfloat16 tensor
    is accepted when it equals the slopes rounded to its own dtype, and a
    float answer right only to about three digits gets a hint to keep more.
    Recognises the slopes in the
    wrong order, the power-of-two rule ``2^(-8h/n)`` used for a head count
    that is not a power of two, the first ``n`` slopes of the next power of
    two's sequence (``2^-h`` for 5 to 8 heads), extra heads taken as the first
    rather than every other slope, and ``2^-h`` for a power of two other than
    8. Never raises on the answer: strings, None, NaN, inf or the wrong count
    get a hint.

    Raises:
        TypeError / ValueError: if ``n_heads`` is not an integer >= 1.
    """
    n_heads = check_positive_int("n_heads", n_heads)
    got = _per_head(answer, n_heads, "slopes")
    if got is None:
        return False
    if not bool(torch.isfinite(got).all()):
        return _verdict(False, "Every slope is a finite positive number; some of yours are NaN or infinite.")
    right = alibi_slopes(n_heads).to(torch.float64)
    listed = ", ".join(f"{v:.4g}" for v in right.tolist())
    half = (
        answer.dtype if isinstance(answer, torch.Tensor) and answer.dtype in (torch.float16, torch.bfloat16) else None
    )
    same = _per_head_same(rtol=1e-5, atol=0)
    if same(got, right):
        return _verdict(True, f"Slopes for {n_heads} heads: {listed}.")
    if half is not None and same(got, right.to(half).to(torch.float64)):
        return _verdict(True, f"Slopes for {n_heads} heads, right to {str(half)[6:]} precision: {listed}.")
    if bool(torch.allclose(got, right, rtol=1e-2, atol=0)):
        return _verdict(
            False,
            "Close, but only to about three digits: keep the slopes in float32 or float64, without rounding them.",
        )
    power = 1 << (n_heads.bit_length() - 1)  # nearest power of two <= n_heads
    if same(got.sort().values, right.sort().values):
        if power == n_heads:
            return _verdict(
                False, f"The right numbers in the wrong order: head h takes 2^(-8h/{n_heads}), steepest first."
            )
        return _verdict(
            False,
            "The right numbers in the wrong order: the heads of the nearest smaller power of "
            "two come first, steepest first, then the extra heads.",
        )
    h = torch.arange(1, n_heads + 1, dtype=torch.float64)
    if n_heads == 1:
        return _verdict(False, "With one head the rule 2^(-8h/n) gives a single slope, 2^-8 = 1/256.")
    if power == n_heads:
        if same(got, 2.0**-h):
            return _verdict(
                False,
                f"2^-h is the rule for 8 heads only. For {n_heads} heads the slopes are "
                f"2^(-8h/{n_heads}), from 2^-(8/{n_heads}) down to 2^-8.",
            )
        return _verdict(False, f"{n_heads} is a power of two: the slopes are 2^(-8h/{n_heads}), h = 1 .. {n_heads}.")
    bigger = alibi_slopes(2 * power).to(torch.float64)
    base_part = alibi_slopes(power).to(torch.float64)
    hint = diagnose(
        got,
        [
            (
                2.0 ** (-8.0 * h / n_heads),
                f"2^(-8h/n) is the rule when n is a power of two; {n_heads} is not. Take "
                f"the {power} slopes of {power} heads, then every other slope of the sequence for {2 * power} heads.",
            ),
            (
                bigger[:n_heads],
                f"These are the first {n_heads} slopes for {2 * power} heads. Press et al. start "
                f"from the nearest smaller power of two, {power}, and add every other slope of the "
                f"{2 * power}-head sequence.",
            ),
            (
                torch.cat([base_part, bigger[: n_heads - power]]),
                f"The first {power} are right. The extra heads take "
                f"every other slope of the {2 * power}-head sequence (its 1st, 3rd, 5th, ..), not its first ones.",
            ),
        ],
        same=same,
    )
    if hint is not None:
        return _verdict(False, hint)
    if same(got[:power], base_part):
        return _verdict(
            False,
            f"The first {power} are right. The extra {n_heads - power} heads take every "
            f"other slope of the {2 * power}-head sequence, starting with its first.",
        )
    return _verdict(
        False, f"Start from the {power}-head slopes 2^(-8h/{power}) and Press et al.'s rule for other head counts."
    )
