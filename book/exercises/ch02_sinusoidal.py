"""Self-checks of chapter 2, *The sin/cos formula* (``notebooks/02_sinusoidal``).

Checks, in the chapter's order: ``check_wavelength``, ``check_counter_jumps``,
``check_base_choice``.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Sequence

import torch

from .._validate import check_base, check_even, check_pair_index, check_positive_int, check_positive_real
from ..encodings import frequencies
from ._feedback import _close, _number, _real_tensor, _verdict, diagnose

__all__ = [
    "check_wavelength",
    "check_counter_jumps",
    "check_base_choice",
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


def _flips(p: int) -> int:
    """How many bits change from ``p`` to ``p + 1``: the trailing 1s of ``p`` and the 0 above them."""
    return (p ^ (p + 1)).bit_count()


def _whole_numbers(answer: Any) -> list[int] | None:
    """``answer`` as a list of whole numbers if it holds only whole numbers (a list, tuple, set, range,
    tensor or array, nested or flat), else ``None``. Never raises."""
    if isinstance(answer, (set, frozenset, range)):
        answer = list(answer)
    if isinstance(answer, (str, bytes, dict)):
        return None
    got = _real_tensor(answer)
    if got is None or not bool(torch.isfinite(got).all()) or not torch.equal(got, got.round()):
        return None
    return [int(v) for v in got.flatten().tolist()]


def check_counter_jumps(answer: Any, *, n_positions: int = 63, threshold: float = 2.0) -> bool:
    """Chapter 2: every position ``p < n_positions`` where the binary counter's step
    ``|B(p+1) - B(p)|`` is larger than ``threshold``.

    The step is the square root of the number of bits that flip, and going
    from ``p`` to ``p + 1`` flips the trailing 1s of ``p`` and the 0 above
    them; the positions are computed from that count, for a counter wide
    enough to hold ``n_positions`` (the chapter's 8 bits hold 256).
    Accepts the positions in any order, as a list, tuple, set, range,
    tensor or array of whole numbers (nested or flat) (a repeated position counts once).
    Recognises ``p + 1`` given for ``p``, the steps of at least (not larger
    than) ``threshold``, the squared step compared with ``threshold``, and the
    last position ``n_positions`` itself included. Never raises on the answer.

    Raises:
        TypeError / ValueError: if ``n_positions`` is not an integer >= 1 or
            ``threshold`` is not a positive real number.
    """
    n_positions = check_positive_int("n_positions", n_positions)
    threshold = check_positive_real("threshold", threshold)
    got = _whole_numbers(answer)
    if got is None:
        return _verdict(False, "Give the positions as a list of whole numbers, such as [3, 7].")
    picked = set(got)

    def where(rule: Callable[[int], bool], stop: int = n_positions) -> set[int]:
        """The positions p < stop whose number of flipped bits passes ``rule``."""
        return {p for p in range(stop) if rule(_flips(p))}

    right = where(lambda f: math.sqrt(f) > threshold)
    if picked == right:
        return _verdict(
            True,
            f"The steps larger than {threshold:g} are at p = {sorted(right)}: there at least "
            f"{math.floor(threshold**2) + 1} bits flip, so p ends in at least {math.floor(threshold**2)} ones.",
        )
    hint = diagnose(
        picked,
        [
            (
                {p + 1 for p in right},
                "These are the positions p + 1 after each jump. The step |B(p+1) - B(p)| belongs to p.",
            ),
            (
                where(lambda f: math.sqrt(f) >= threshold),
                f"That includes the steps equal to {threshold:g}; the question asks for larger ones.",
            ),
            (
                where(lambda f: f > threshold),
                f"That compares the squared step (the number of flipped bits) with {threshold:g}. The step is "
                "its square root.",
            ),
            (
                where(lambda f: math.sqrt(f) > threshold, n_positions + 1),
                f"Only p < {n_positions}: the step from p needs p + 1.",
            ),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False,
        "Count the bits that flip from p to p + 1 (the step is the square root of that count) "
        f"for every p < {n_positions}, or compute the steps from the counter's rows.",
    )


def check_base_choice(
    answer: Any, *, n_tokens: int = 100_000, d_model: int = 64, bases: Sequence[float] = (100.0, 10000.0, 500000.0)
) -> bool:
    """Chapter 2: which of ``bases`` to pick for inputs of ``n_tokens`` tokens.

    Right are the bases whose longest wavelength ``2*pi * base^((d-2)/d)``
    (the slowest pair, ``frequencies(d_model, base)[-1]``) is at least
    ``n_tokens``: only there does the slowest pair turn less than once, so
    that its angle alone orders every position. Accepts the base as any
    real number equal to one of those (relative ``1e-3``). Recognises a base
    whose slowest pair wraps (the hint gives its turns), a wavelength given
    instead of a base, and a base not among ``bases``. Never raises on the
    answer.

    Raises:
        TypeError / ValueError: for a bad ``n_tokens``, ``d_model`` or base,
            or if no base of ``bases`` has a wavelength that long.
    """
    n_tokens = check_positive_int("n_tokens", n_tokens)
    d_model = check_even("d_model", d_model)
    if isinstance(bases, (str, bytes)) or not isinstance(bases, Sequence) or not bases:
        raise TypeError(f"bases must be a non-empty sequence of numbers, got {bases!r}")
    bases = [check_base(b, "bases") for b in bases]
    longest = {b: 2 * math.pi / float(frequencies(d_model, base=b)[-1]) for b in bases}
    right = [b for b in bases if longest[b] >= n_tokens]
    if not right:
        raise ValueError(f"bases must hold one whose longest wavelength reaches n_tokens={n_tokens}, got {bases}")
    value = _number(answer)
    if value is None or not math.isfinite(value):
        return _verdict(False, f"Give one base, a number: one of {', '.join(f'{b:g}' for b in bases)}.")
    listed = "; ".join(f"base {b:g}: {longest[b]:,.0f}" for b in bases)
    for b in right:
        if _close(value, b):
            return _verdict(
                True,
                f"Longest wavelengths 2*pi*b^({d_model - 2}/{d_model}): {listed}. Only from base {b:g} on does the "
                f"slowest pair turn less than once over {n_tokens:,} tokens.",
            )
    for b in bases:
        if _close(value, b):
            return _verdict(
                False,
                f"With base {b:g} the slowest pair repeats every {longest[b]:,.0f} positions, so it turns "
                f"{n_tokens / longest[b]:.2f} times over {n_tokens:,} tokens: its angle alone no longer orders them.",
            )
    hint = diagnose(
        value,
        [
            (w, "That is a wavelength, in positions. The question asks for the base you would pick.")
            for w in longest.values()
        ],
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False,
        f"Pick one of the bases {', '.join(f'{b:g}' for b in bases)}, by its longest wavelength 2*pi*b^((d-2)/d).",
    )
