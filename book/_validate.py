"""Argument checks shared by the public functions of `book`.

Every public function validates its arguments once, at the boundary, with
these helpers, so that bad input fails with a message that names the
parameter and the rule (``ValueError: d_model must be even, got 7``) instead
of a shape error from deep inside torch.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, TypeVar

import numpy as np
import torch

__all__ = [
    "check_positive_int",
    "check_nonneg_int",
    "check_positive_real",
    "check_float_dtype",
    "check_even",
    "check_pair_index",
    "check_real",
    "check_base",
    "check_choice",
    "check_float_tensor",
    "check_position_tensor",
]


def check_positive_int(name: str, value: Any) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= 1, else raise."""
    return _int_at_least(name, value, 1, "a positive integer (>= 1)")


def _int_at_least(name: str, value: Any, minimum: int, rule: str) -> int:
    """``TypeError`` for a non-integer (``bool`` included), ``ValueError`` below ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be {rule}, got {value}")
    return int(value)


def check_nonneg_int(name: str, value: Any) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= 0 (Python or NumPy), else raise.

    Raises ``TypeError`` for a non-integer (``bool`` included) and
    ``ValueError`` for a negative integer.
    """
    return _int_at_least(name, value, 0, "a non-negative integer (>= 0)")


def check_positive_real(name: str, value: Any) -> float:
    """Return ``value`` as a ``float`` if it is a finite real number > 0, else raise.

    Python and NumPy numbers (and one-element real tensors) are accepted;
    ``TypeError`` for anything else (``bool`` included), ``ValueError`` for
    zero, a negative number, NaN or infinity.
    """
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.is_complex():
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number (> 0), got {value}")
    return value


def check_float_dtype(name: str, value: Any) -> torch.dtype:
    """Return ``value`` if it is a floating-point ``torch.dtype``, else raise ``TypeError``."""
    if not isinstance(value, torch.dtype) or not value.is_floating_point:
        raise TypeError(f"{name} must be a floating-point torch.dtype (e.g. torch.float32), got {value!r}")
    return value


def check_even(name: str, value: Any) -> int:
    """Return ``value`` as an ``int`` if it is a positive even integer, else raise."""
    value = check_positive_int(name, value)
    if value % 2:
        raise ValueError(f"{name} must be even (positions are encoded in (sin, cos) pairs), got {value}")
    return value


def check_pair_index(name: str, value: Any, d_model: int) -> int:
    """Return ``value`` as an ``int`` if it indexes a (sin, cos) pair of ``d_model``, else raise."""
    d_model = check_even("d_model", d_model)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer pair index, got {type(value).__name__} {value!r}")
    value = int(value)
    if not 0 <= value < d_model // 2:
        raise ValueError(
            f"{name} must be a pair index in 0 .. {d_model // 2 - 1} (d_model = {d_model} has "
            f"{d_model // 2} pairs), got {value}"
        )
    return int(value)


def check_real(name: str, value: Any) -> float:
    """Return ``value`` as a finite ``float`` (Python, NumPy or one-element tensor), else raise."""
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.is_complex():
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def check_base(value: Any, name: str = "base") -> float:
    """Return the frequency base as a ``float`` if it is a finite number > 1, else raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 1.0:
        raise ValueError(
            f"{name} must be a finite number > 1 (so that wavelengths grow with the dimension index), got {value}"
        )
    return value


_Choice = TypeVar("_Choice")


def check_choice(name: str, value: Any, choices: tuple[_Choice, ...]) -> _Choice:
    """Return ``value`` if it is one of ``choices``, else raise naming the options.

    The value returned is the matching element of ``choices``, so a caller that
    passes a tuple of ``Literal`` strings gets that ``Literal`` type back.
    """
    for choice in choices:
        if value == choice:
            return choice
    options = ", ".join(repr(c) for c in choices)
    raise ValueError(f"{name} must be one of {options}, got {value!r}")


def check_float_tensor(name: str, x: Any, *, min_dim: int = 1) -> torch.Tensor:
    """Check that ``x`` is a real floating-point tensor with at least ``min_dim`` dims."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{name} must have a floating-point dtype (float16/bfloat16/float32/float64), got {x.dtype}")
    if x.dim() < min_dim:
        raise ValueError(f"{name} must have at least {min_dim} dimensions, got shape {tuple(x.shape)}")
    return x


def check_position_tensor(name: str, positions: Any, *, allow_float: bool, allow_bool: bool = False) -> torch.Tensor:
    """Turn ``positions`` (tensor or sequence of numbers) into a tensor and check its dtype.

    Integer dtypes are always accepted; floating dtypes only if ``allow_float``,
    booleans only if ``allow_bool`` (an attention mask). Complex numbers are
    rejected. Without ``allow_bool``, a sequence that holds any Python or NumPy
    ``bool`` is rejected too, also mixed with numbers: ``torch.as_tensor([True,
    2])`` would silently read ``True`` as the integer 1.
    """
    if not isinstance(positions, torch.Tensor):
        if not allow_bool and _holds_bool(positions):
            raise TypeError(f"{name} must hold numbers, not booleans (True/False), got {_abbreviated(positions)}")
        try:
            positions = torch.as_tensor(positions)
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(
                f"{name} must be a tensor or a sequence of numbers, got {type(positions).__name__}"
            ) from err
    if (positions.dtype == torch.bool and not allow_bool) or positions.is_complex():
        raise TypeError(f"{name} must hold integer positions, got dtype {positions.dtype}")
    if positions.is_floating_point() and not allow_float:
        raise TypeError(f"{name} must have an integer dtype (e.g. torch.long), got {positions.dtype}")
    return positions


def _holds_bool(value: Any) -> bool:
    """Whether ``value`` is, or (nested in lists, tuples or arrays) holds, a Python or NumPy ``bool``."""
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, torch.Tensor):
        return value.dtype == torch.bool
    if isinstance(value, np.ndarray):
        return value.dtype == np.bool_ or (value.dtype == object and any(_holds_bool(v) for v in value.flat))
    if isinstance(value, (list, tuple)):
        return any(_holds_bool(v) for v in value)
    return False


def _abbreviated(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
