"""What every self-check shares: the printed verdict, reading a student's
answer as numbers, and naming the first known mistake an answer matches.

None of these raises on a student's answer: an answer that cannot be read
gives ``None`` (or a printed hint), so that each check can turn it into a
hint of its own.
"""

from __future__ import annotations

import decimal
import math
import numbers
import textwrap
from typing import Any, Callable, Sequence

import numpy as np
import torch

__all__ = ["diagnose"]


def _verdict(ok: bool, message: str) -> bool:
    print(textwrap.fill(("Correct! " if ok else "Not yet. ") + message, width=76))
    return ok


#: How deep a nested answer is read before it counts as unreadable (a list that holds itself).
_MAX_DEPTH = 32


def _is_complex(answer: Any, depth: int = 0) -> bool:
    """Whether ``answer`` holds a complex number: a complex torch tensor or
    numpy array (which ``torch.as_tensor(..., dtype=torch.float64)`` would
    silently make real), a complex scalar (``1 + 2j``, ``np.complex128``), or
    a list or tuple with one anywhere inside. Never raises."""
    if isinstance(answer, torch.Tensor):
        return answer.is_complex()
    if isinstance(answer, np.ndarray):
        return bool(np.iscomplexobj(answer)) or (
            answer.dtype == object and depth < _MAX_DEPTH and _is_complex(answer.tolist(), depth + 1)
        )
    if isinstance(answer, numbers.Complex) and not isinstance(answer, numbers.Real):
        return True
    if isinstance(answer, (list, tuple)) and depth < _MAX_DEPTH:
        return any(_is_complex(a, depth + 1) for a in answer)
    return False


def _real(answer: Any) -> float | None:
    """A real scalar (``numbers.Real`` or ``decimal.Decimal``, booleans not
    counted) as a float, else ``None``. An integer too large for a float is
    +-inf, as the float it stands for would be. Never raises."""
    if isinstance(answer, bool) or not isinstance(answer, (numbers.Real, decimal.Decimal)):
        return None
    try:
        return float(answer)
    except OverflowError:  # 10**400, Fraction(10**400)
        return math.inf if answer > 0 else -math.inf  # type: ignore[operator]  # Real and Decimal both order
    except (TypeError, ValueError, ArithmeticError):  # Decimal("sNaN")
        return None


def _number(answer: Any) -> float | None:
    """``answer`` as a float if it is one real number (``2.5``, ``np.float64(2.5)``,
    ``Decimal("2.5")``, ``Fraction(5, 2)``, or one held alone in a list, tuple,
    torch tensor or numpy array, such as ``[2.5]``, ``torch.tensor(2.5)`` or
    ``np.array([[2.5]])``), else ``None``; booleans and complex numbers are not
    numbers here. An integer too large for a float is +-inf. Never raises."""
    for _ in range(_MAX_DEPTH):  # unwrap one-element containers
        if isinstance(answer, (list, tuple)) and len(answer) == 1:
            answer = answer[0]
        elif isinstance(answer, torch.Tensor) and answer.numel() == 1:
            answer = answer.item()  # a complex tensor gives a complex: None below
        elif isinstance(answer, np.ndarray) and answer.size == 1:
            answer = answer.reshape(-1)[0]  # a numpy scalar, or the object an object array holds
        else:
            break
    return _real(answer)


def _plain(answer: Any, depth: int = 0) -> Any:
    """``answer`` with every scalar that ``torch.as_tensor`` cannot take made
    into a float (``Decimal``, an integer too large for a float, numpy object
    arrays), for :func:`_real_tensor`. Never raises."""
    if isinstance(answer, np.ndarray) and (answer.dtype == object or depth):
        answer = answer.tolist()  # inside a list, torch reads arrays slowly
    if isinstance(answer, (list, tuple)) and depth < _MAX_DEPTH:
        return [_plain(a, depth + 1) for a in answer]
    if isinstance(answer, (decimal.Decimal, numbers.Integral)) and not isinstance(answer, (bool, np.integer)):
        value = _real(answer)
        return answer if value is None else value
    return answer


def _real_tensor(answer: Any) -> torch.Tensor | None:
    """``answer`` as a float64 tensor of its own shape if it is a real tensor,
    numpy array, number, or a (nested, rectangular) list or tuple of them, else
    ``None``. Booleans read as 0 and 1; complex entries give ``None`` (test
    :func:`_is_complex` first for a specific hint). Never raises."""
    if _is_complex(answer):
        return None
    try:
        return torch.as_tensor(_plain(answer), dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError, OverflowError, IndexError):
        return None


def _numbers(answer: Any, count: int) -> tuple[float, ...] | None:
    """``answer`` as ``count`` floats if it holds exactly that many real
    numbers (a list, tuple, tensor or array, nested or flat), else ``None``.
    Never raises."""
    if isinstance(answer, (str, bytes, dict)):
        return None
    got = _real_tensor(answer)
    if got is None or got.dim() == 0 or got.numel() != count:
        return None
    return tuple(got.flatten().tolist())


def _per_head(answer: Any, n_heads: int, what: str) -> torch.Tensor | None:
    """``answer`` as a float64 vector of one number per head, or ``None``
    after printing why it is not one (``what``: "slopes", "weights").
    Never raises."""
    if _is_complex(answer):
        _verdict(False, f"The {what} are real numbers; this answer has complex entries.")
        return None
    got = None if isinstance(answer, (str, bytes, dict)) else _real_tensor(answer)
    if got is None:
        _verdict(False, f"Give the {what} as a list or tensor of numbers, one per head.")
        return None
    got = got.flatten()
    if got.numel() != n_heads:
        _verdict(False, f"Give one {what[:-1]} per head: {n_heads} numbers, got {got.numel()}.")
        return None
    return got


def _close(a: float, b: float, rel: float = 1e-3) -> bool:
    return math.isclose(a, b, rel_tol=rel)


def _whole_list(answer: Any) -> list[int] | None:
    """``answer`` as a list of whole numbers (a list, tuple, range, set, or 1-D tensor or numpy array of them),
    else ``None``."""
    if isinstance(answer, (str, bytes)) or not isinstance(
        answer, (Sequence, range, set, frozenset, torch.Tensor, np.ndarray)
    ):
        return None
    if isinstance(answer, (torch.Tensor, np.ndarray)) and answer.ndim != 1:
        return None
    values = [_whole_number(v) for v in answer]
    return None if any(v is None for v in values) else [v for v in values if v is not None]


def _whole_number(answer: Any) -> int | None:
    """``answer`` as an int if it is a finite whole number (``63``, ``63.0``,
    ``torch.tensor(63)``, ``np.array(63)``, within ``1e-9``), else ``None``;
    never raises."""
    value = _number(answer)
    if value is None or not math.isfinite(value) or abs(value - round(value)) > 1e-9:
        return None
    return int(round(value))


def _angles(answer: Any, n: int, per: str) -> tuple[torch.Tensor | None, str | None]:
    """``answer`` as ``n`` finite real angles (a flat tensor), or ``None`` and
    the hint that says what is wrong with it; ``per`` names what each angle
    belongs to ("pair", "frequency")."""
    if _is_complex(answer):
        return None, "Angles are real numbers; this answer has complex entries."
    got = None if isinstance(answer, (str, bytes, dict, set, frozenset)) else _real_tensor(answer)
    if got is None or got.numel() != n:
        return None, f"Give {n} angles, one per {per}, in radians."
    got = got.flatten()
    if not bool(torch.isfinite(got).all()):
        return None, "Every angle is a finite number of radians."
    return got, None


def _same_angles(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal angles up to whole turns, to 3 decimals (a rounded answer passes)."""
    diff = torch.remainder(a - b + math.pi, 2 * math.pi) - math.pi
    return bool((diff.abs() <= 1e-3).all())


def _per_head_same(rtol: float, atol: float) -> Callable[[torch.Tensor, torch.Tensor], bool]:
    """A ``same`` for :func:`diagnose` on per-head vectors: every head within
    ``rtol`` (relative) and ``atol`` (absolute), as ``torch.allclose``."""

    def same(a: torch.Tensor, b: torch.Tensor) -> bool:
        return bool(torch.allclose(a, b, rtol=rtol, atol=atol))

    return same


def diagnose(got: Any, mistakes: Sequence[tuple[Any, str]], *, same: Callable[[Any, Any], bool] = _close) -> str | None:
    """The hint of the first named mistake that ``got`` matches, else ``None``.

    ``mistakes`` lists ``(wrong answer, hint)`` pairs, most telling first:
    each wrong answer is what a known mistake gives, and ``same(got, wrong)``
    decides whether the answer is that one (by default ``_close``, a
    relative ``1e-3``; ``operator.eq`` for whole numbers,
    ``torch.allclose`` for tensors). Several mistakes may share a hint.
    Never raises on ``got`` as long as ``same`` does not.
    """
    for wrong, hint in mistakes:
        if same(got, wrong):
            return hint
    return None
