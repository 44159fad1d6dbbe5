"""Self-checks of chapter 6, *RoPE: position as a rotation of queries and keys* (``notebooks/06_rope``).

Checks, in the chapter's order: ``check_rope_angle``.
"""

from __future__ import annotations

import math
from typing import Any

from .._validate import check_pair_index, check_real
from ..encodings import frequencies
from ._feedback import _close, _number, _verdict, diagnose

__all__ = [
    "check_rope_angle",
]


def check_rope_angle(answer: Any, m: float, i: int, d_model: int, *, base: float = 10000.0) -> bool:
    """Chapter 6: the angle, in radians, by which RoPE turns pair ``i`` of a
    vector at position ``m``: ``m * theta_i`` with ``theta_i = base^(-2i/d)``
    (Su et al., 2021, eq. 15).

    Accepts any angle equal to ``m * theta_i`` modulo ``2 pi`` (the same
    rotation), to ``1e-6 * max(1, |m * theta_i|)`` rad (capped at ``1e-3``
    rad), compared after reducing the difference with ``math.remainder``.
    An answer so large that neighbouring float64 numbers are farther apart
    than that tolerance names no angle and gets a hint to reduce it first.
    Recognises degrees, the exponent ``i/d`` instead of ``2i/d``, the frequency
    alone (position forgotten), ``m / theta_i``, the opposite sign, and an
    answer right to about three digits. Never raises on the answer: a string,
    None, NaN, inf or a tensor of several numbers gets a hint.

    Raises:
        TypeError / ValueError: if ``i`` is not a pair index of ``d_model`` or
            ``m`` is not a finite real number.
    """
    i = check_pair_index("i", i, d_model)
    m = check_real("m", m)
    value = _number(answer)
    if value is None:
        return _verdict(False, "Give the angle as one number, in radians.")
    if not math.isfinite(value):
        return _verdict(False, f"{value} is not a finite angle: give m * theta_i in radians.")
    theta = float(frequencies(d_model, base=base)[i])
    right = m * theta

    def same_angle(a: float, b: float, rel: float, period: float = 2 * math.pi, cap: float = 1e-3) -> bool:
        """a, b the same angle up to whole turns, to rel * max(1, |b|) but at most cap (b: the reference)."""
        return abs(math.remainder(a - b, period)) <= min(rel * max(1.0, abs(b)), cap)

    too_big = math.ulp(value) > min(1e-6 * max(1.0, abs(right)), 1e-3)
    if not too_big and same_angle(value, right, 1e-6):
        reduced = (
            ""
            if _close(value, right, 1e-6) or right == value
            else (f" ({value:.6g} rad is the same rotation, up to whole turns of 2 pi)")
        )
        return _verdict(
            True,
            f"Pair {i} turns by theta_{i} = {base:g}^(-2*{i}/{d_model}) per position, "
            f"so by {right:.6g} rad at position {m:g}{reduced}.",
        )
    if not too_big and same_angle(value, math.degrees(right), 1e-6, 360.0):
        return _verdict(False, "That is the angle in degrees; RoPE's cos and sin take radians.")
    if right and not too_big and same_angle(value, -right, 1e-6):
        return _verdict(False, "Right size, wrong sign: RoPE turns the pair by +m * theta_i.")
    mistakes = [
        (m * base ** (-i / d_model), "The exponent is -2i/d, not -i/d: pair i holds features 2i and 2i+1."),
        (theta, "That is theta_i, the turn per position. Multiply by the position m."),
    ]
    if theta:
        mistakes.append((m / theta, "theta_i = base^(-2i/d) is below 1 for i > 0: multiply m by it, don't divide."))
    hint = diagnose(value, mistakes, same=lambda a, b: _close(a, b, 1e-6))
    if hint is not None:
        return _verdict(False, hint)
    if too_big:
        return _verdict(
            False,
            f"{value:.6g} is too large to name an angle: float64 numbers that big are "
            f"{math.ulp(value):.2g} apart. Reduce it modulo 2 pi, or compute m * theta_i directly.",
        )
    if same_angle(value, right, 1e-2, cap=0.1):
        return _verdict(
            False, "Close, but not to 1e-6: compute m * theta_i with more digits instead of rounding theta_i."
        )
    return _verdict(False, "Start from theta_i = base^(-2i/d); the rotation at position m is m * theta_i.")
