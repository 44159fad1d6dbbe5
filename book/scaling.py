"""Stretching RoPE past its training length: rescaled frequencies.

Each function returns the float64 frequencies ``theta'_i`` (shape ``(d/2,)``)
to use in place of RoPE's ``theta_i = base^(-2i/d)``; pass them to
``book.encodings.apply_rope(..., freqs=...)``. ``scale`` is ``s = L' / L``,
the new context length over the trained one. Chapter 9 derives and compares
them; ``tests/test_scaling.py`` checks each against its paper's formula.
"""

from __future__ import annotations

import math

import torch

from ._validate import check_base, check_even, check_positive_int, check_real
from .encodings import frequencies

__all__ = [
    "pi_frequencies",
    "ntk_frequencies",
    "dynamic_ntk_frequencies",
    "yarn_frequencies",
    "llama3_frequencies",
]


def _check_scale(scale: float) -> float:
    scale = check_real("scale", scale)
    if scale < 1:
        raise ValueError(f"scale must be >= 1 (a context L' >= L), got {scale}")
    return scale


def pi_frequencies(d_model: int, *, scale: float, base: float = 10000.0) -> torch.Tensor:
    """Position Interpolation (Chen et al., 2023, section 2.2): ``theta'_i = theta_i / s``.

    Rotating position ``m`` by ``m theta_i / s`` is the same as rotating the
    interpolated position ``m / s``: the ``L'`` positions of the long input are
    squeezed into the ``L`` the model was trained on.
    """
    return frequencies(d_model, base=base) / _check_scale(scale)


def ntk_frequencies(d_model: int, *, scale: float, base: float = 10000.0) -> torch.Tensor:
    """"NTK-aware" scaling (bloc97, 2023; Peng et al., 2024, section 3.1):
    change the base to ``base' = base * s^(d / (d - 2))``.

    The fastest pair (``i = 0``) is unchanged and the slowest is divided by
    exactly ``s``, as in Position Interpolation; the pairs in between are
    interpolated less the faster they turn.

    Raises:
        ValueError: if ``d_model < 4`` (the exponent needs ``d > 2``).
    """
    d_model = check_even("d_model", d_model)
    if d_model < 4:
        raise ValueError(f"d_model must be at least 4 for NTK-aware scaling, got {d_model}")
    scale = _check_scale(scale)
    base = check_base(base)
    return frequencies(d_model, base=base * scale ** (d_model / (d_model - 2)))


def dynamic_ntk_frequencies(
    d_model: int, seq_len: int, *, original_max_len: int, base: float = 10000.0
) -> torch.Tensor:
    """Dynamic NTK scaling (as described by Peng et al., 2024, section 3.3):
    NTK-aware scaling with ``s = max(1, seq_len / original_max_len)``, chosen
    afresh for the current length ``seq_len``. Inputs no longer than the
    training length keep RoPE's frequencies exactly.
    """
    seq_len = check_positive_int("seq_len", seq_len)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    scale = max(1.0, seq_len / original_max_len)
    if scale == 1.0:
        return frequencies(d_model, base=base)
    return ntk_frequencies(d_model, scale=scale, base=base)


def yarn_frequencies(
    d_model: int,
    *,
    scale: float,
    original_max_len: int,
    base: float = 10000.0,
    alpha: float = 1.0,
    beta: float = 32.0,
) -> tuple[torch.Tensor, float]:
    """YaRN (Peng et al., 2024, section 3.2-3.4): "NTK-by-parts" frequencies and
    an attention temperature.

    Pair ``i`` has wavelength ``lambda_i = 2 pi / theta_i`` and makes
    ``r_i = L / lambda_i`` turns over the training length ``L``. With the ramp
    ``gamma(r) = 0`` for ``r < alpha``, ``1`` for ``r > beta`` and
    ``(r - alpha) / (beta - alpha)`` between::

        theta'_i = (1 - gamma(r_i)) * theta_i / s + gamma(r_i) * theta_i

    so pairs that turn many times within ``L`` keep their frequency, pairs that
    turn less than once are interpolated like PI, and the ones between are
    blended. The temperature ``t`` with ``sqrt(1/t) = 0.1 ln(s) + 1``
    multiplies the scores by ``1/t``; returned is ``sqrt(1/t)``, the factor
    applied to both queries and keys (as implementations scale cos and sin).
    The reference code rounds the ramp's ends to whole pair indices; this is
    the paper's continuous form.

    Returns:
        ``(frequencies, attention_factor)``.
    """
    original_max_len = check_positive_int("original_max_len", original_max_len)
    scale = _check_scale(scale)
    alpha, beta = check_real("alpha", alpha), check_real("beta", beta)
    if not 0 <= alpha < beta:
        raise ValueError(f"alpha and beta must satisfy 0 <= alpha < beta, got {alpha} and {beta}")
    theta = frequencies(d_model, base=base)
    turns = original_max_len * theta / (2 * math.pi)  # r_i = L / lambda_i
    gamma = ((turns - alpha) / (beta - alpha)).clamp(0.0, 1.0)
    return (1 - gamma) * theta / scale + gamma * theta, 0.1 * math.log(scale) + 1.0


def llama3_frequencies(
    d_model: int,
    *,
    base: float = 500000.0,
    factor: float = 8.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_max_len: int = 8192,
) -> torch.Tensor:
    """Llama 3.1's frequency rule (Meta's reference code for Grattafiori et al., 2024).

    With wavelength ``lambda_i = 2 pi / theta_i``: pairs with
    ``lambda_i < L / high_freq_factor`` keep ``theta_i``; pairs with
    ``lambda_i > L / low_freq_factor`` get ``theta_i / factor``; between them::

        smooth = (L / lambda_i - low_freq_factor) / (high_freq_factor - low_freq_factor)
        theta'_i = (1 - smooth) * theta_i / factor + smooth * theta_i

    with ``L = original_max_len``. The defaults are Llama 3.1's (base 500000,
    factor 8, 1, 4, 8192).
    """
    factor = _check_scale(factor)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    low, high = check_real("low_freq_factor", low_freq_factor), check_real("high_freq_factor", high_freq_factor)
    if not 0 < low < high:
        raise ValueError(f"low_freq_factor and high_freq_factor must satisfy 0 < low < high, got {low} and {high}")
    theta = frequencies(d_model, base=base)
    wavelength = 2 * math.pi / theta
    smooth = ((original_max_len / wavelength - low) / (high - low)).clamp(0.0, 1.0)
    return (1 - smooth) * theta / factor + smooth * theta
