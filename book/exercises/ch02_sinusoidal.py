"""Self-checks of chapter 2, *The sin/cos formula* (``notebooks/02_sinusoidal``).

Checks, in the chapter's order: ``check_wavelength``.
"""

from __future__ import annotations

import math
from typing import Any

from .._validate import check_pair_index
from ..encodings import frequencies
from ._feedback import _close, _number, _verdict, diagnose

__all__ = [
    "check_wavelength",
]


def check_wavelength(answer: Any, i: int, d_model: int, *, base: float = 10000.0) -> bool:
    """Chapter 2: the wavelength, in positions, of the sin/cos pair ``i``.

    The pair ``(2i, 2i+1)`` oscillates as ``sin(p w_i)`` with
    ``w_i = base^(-2i/d)``, so it repeats every ``2*pi / w_i = 2*pi * base^(2i/d)``
    positions. Accepts a relative error of ``1e-3``. Recognises a missing
    ``2*pi``, the frequency given instead of the wavelength, ``i`` used where
    the exponent needs ``2i``, the wavelength of the pair before or after, and
    an answer within 5% (a rounded pi). Never raises on the answer (NaN,
    infinity, a string, ``None``).

    Raises:
        TypeError / ValueError: if ``i`` is not a pair index of ``d_model``
            (the teacher's call is wrong, not the student's answer).
    """
    i = check_pair_index("i", i, d_model)
    value = _number(answer)
    if value is None or not math.isfinite(value):
        return _verdict(False, "Give the wavelength as one number (a finite float).")
    w = float(frequencies(d_model, base=base)[i])
    right = 2 * math.pi / w
    if _close(value, right):
        return _verdict(True, f"Pair {i} repeats every 2*pi * {base:g}^(2*{i}/{d_model}) = {right:.4g} positions.")
    frequency = "That is a frequency (how fast the angle turns). The wavelength is its inverse: 2*pi / w_i."
    mistakes = [
        (1 / w, "That is 1/w_i, the length of one radian. A full cycle of sin is 2*pi radians."),
        (w, frequency),
        (w / (2 * math.pi), frequency),
        (2 * math.pi * base ** (i / d_model), "The exponent is 2i/d, not i/d: pair i holds dimensions 2i and 2i+1."),
    ]
    mistakes += [
        (
            2 * math.pi * base ** (2 * j / d_model),
            f"That is the wavelength of pair {j}; pairs are counted from 0, and pair {i} "
            f"holds dimensions {2 * i} and {2 * i + 1}.",
        )
        for j in (i - 1, i + 1)
        if 0 <= j < d_model // 2
    ]
    hint = diagnose(value, mistakes)
    if hint is not None:
        return _verdict(False, hint)
    if _close(value, right, 5e-2):
        return _verdict(
            False, "Close, but not within 0.1%: use math.pi rather than a rounded pi, and 10000 ** (2 * i / d) exactly."
        )
    return _verdict(False, "Start from w_i = base^(-2i/d): sin(p w_i) repeats when p w_i grows by 2*pi.")
