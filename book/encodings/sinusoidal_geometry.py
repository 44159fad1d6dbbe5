"""The geometry of the sinusoidal encoding: step sizes, shifts from sines alone, and dot products by offset.

Chapters 2 and 3 derive these properties of the encoding of Vaswani et al.
(2017, section 3.5): the distance between encodings ``k`` apart
(``step_norm_squared``), how well a matrix maps sines alone to the next
position's (``shift_fit_residual``), and the dot product of two encodings as a
function of their offset (``dot_by_offset``), with its closed form through the
cosine integral (``cosine_integral``).
"""

from __future__ import annotations

import math
from typing import Literal, Sequence

import torch

from .._validate import (
    check_choice,
    check_positive_int,
    check_real,
)
from .sinusoidal import frequencies, sinusoidal_at

DotForm = Literal["exact", "ci", "log"]
_DOT_FORMS: tuple[DotForm, ...] = ("exact", "ci", "log")

__all__ = ["cosine_integral", "dot_by_offset", "shift_fit_residual", "step_norm_squared"]

_EULER_GAMMA = 0.5772156649015329  # Euler's constant, gamma


def step_norm_squared(d_model: int, *, k: float = 1.0, base: float = 10000.0) -> float:
    """The squared distance ``||PE(p + k) - PE(p)||^2``, the same at every position ``p``.

    Equation (derived here from the encoding of Vaswani et al., 2017, section
    3.5, interleaved layout; the paper itself does not state it)::

        ||PE(p + k) - PE(p)||^2 = sum_i [(sin((p+k) w_i) - sin(p w_i))^2
                                         + (cos((p+k) w_i) - cos(p w_i))^2]
                                = sum_i (2 - 2 cos(k w_i))
                                = d - 2 * sum_i cos(k w_i),

    with ``w_i = base^(-2i/d)``, ``i = 0 .. d/2 - 1``: each (sin, cos) pair is a
    point on the unit circle turned by ``k w_i``, a chord of squared length
    ``2 - 2 cos(k w_i)``. ``k = 1`` gives the step from one position to the
    next. The value does not depend on ``p`` (nor on the layout, a column
    permutation).

    Args:
        d_model: model width ``d``; positive and even.
        k: the offset (any finite real number); 1 by default.
        base: frequency base (> 1), 10000 in the paper.

    Returns:
        the squared distance, a Python float (computed in float64).

    Raises:
        TypeError: if ``d_model`` is not an integer or ``k``, ``base`` not real.
        ValueError: for an odd or non-positive ``d_model``, a non-finite ``k``
            or ``base <= 1``.
    """
    k = check_real("k", k)
    w = frequencies(d_model, base=base)
    return float(d_model - 2 * torch.cos(k * w).sum())


def shift_fit_residual(
    k: int,
    d_model: int,
    *,
    n_positions: int | None = None,
    sines_only: bool = False,
    base: float = 10000.0,
) -> float:
    """How well the best single matrix maps encodings of ``p`` to those of ``p + k``.

    Least squares over positions ``p = 0 .. n_positions - 1``: with ``X`` the
    table of ``PE(p)`` (rows) and ``Y`` that of ``PE(p + k)``, find the matrix
    ``B`` minimising ``||X B - Y||_F`` and return the relative residual
    ``||X B - Y||_F / ||Y||_F``. With the full interleaved (sin, cos)
    encoding (``sines_only=False``) the residual is 0 up to rounding, since
    ``B = M_k^T`` (``rotation_matrix``) is exact (the addition formulas
    behind Vaswani et al., 2017, section 3.5). With the ``d/2`` sine columns
    ``sin(p w_i)`` alone (``sines_only=True``) no matrix does it:
    ``sin((p+k) w) = sin(p w) cos(k w) + cos(p w) sin(k w)`` needs the cosine,
    and a matrix maps the all-zero row of ``p = 0`` to 0, while the sines one
    step later, ``sin(k w_i)``, are not 0.

    The sine-only residual is well posed only if the sine table is well
    conditioned. Over a window much shorter than the slowest wavelength the
    slow sines are nearly straight lines, nearly parallel columns (condition
    number about ``1e17`` for ``d = 32`` and 256 positions), and every
    least-squares solver returns a different "best" matrix. So the default
    window is one full turn of the slowest pair,
    ``ceil(2*pi / w_{d/2-1})`` positions, and a sine table with condition
    number above ``1e6`` is refused. Computed in float64 with
    ``torch.linalg.lstsq`` (driver ``"gelsd"``); on a well-conditioned table
    every solver agrees to rounding.

    Args:
        k: the offset, an integer (may be negative or 0).
        d_model: model width ``d``; positive and even.
        n_positions: number of positions fitted, an integer >= 1; ``None``
            (the default) for one turn of the slowest pair.
        sines_only: fit the sine columns only (``d/2`` columns) instead of the
            full ``d``-dimensional encoding.
        base: frequency base (> 1).

    Returns:
        the relative residual, a Python float >= 0.

    Raises:
        TypeError: if ``k`` or ``n_positions`` is not an integer, or
            ``sines_only`` not a bool.
        ValueError: for ``n_positions < 1``, an odd or non-positive
            ``d_model``, ``base <= 1``, or (with ``sines_only=True``) a window
            so short that the sine table's condition number exceeds ``1e6``.
    """
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an integer offset, got {k!r}")
    w = frequencies(d_model, base=base)
    slowest = math.ceil(2 * math.pi / float(w[-1]))
    n_positions = slowest if n_positions is None else check_positive_int("n_positions", n_positions)
    if not isinstance(sines_only, bool):
        raise TypeError(f"sines_only must be True or False, got {sines_only!r}")
    p = torch.arange(n_positions)
    x = sinusoidal_at(p, d_model, base=base, dtype=torch.float64)
    y = sinusoidal_at(p + k, d_model, base=base, dtype=torch.float64)
    if sines_only:
        x, y = x[:, 0::2], y[:, 0::2]
        sv = torch.linalg.svdvals(x)
        cond = float(sv[0] / sv[-1]) if sv[-1] > 0 else math.inf
        if cond > 1e6:
            raise ValueError(
                f"n_positions={n_positions} is too short a window for d_model={d_model}: the sine table has "
                f"condition number {cond:.1e} > 1e6, so its least-squares residual depends on the solver; "
                f"use n_positions >= {slowest} (one turn of the slowest pair)"
            )
    b = torch.linalg.lstsq(x, y, driver="gelsd").solution
    return float((x @ b - y).norm() / y.norm())


def _log(x: float) -> float:
    return float(torch.log(torch.tensor(x, dtype=torch.float64)))


def _as_float64(name: str, x: torch.Tensor | Sequence[float] | float) -> torch.Tensor:
    if isinstance(x, bool):
        raise TypeError(f"{name} must be a number or a tensor of numbers, got {x!r}")
    try:
        t = torch.as_tensor(x, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        raise TypeError(f"{name} must be a number or a tensor of numbers, got {x!r}") from None
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} must be finite")
    return t


def cosine_integral(x: torch.Tensor | Sequence[float] | float) -> torch.Tensor:
    """The cosine integral ``Ci(x) = -integral_x^inf cos(t)/t dt`` for ``x > 0``.

    Equations: the power series (Abramowitz and Stegun, 1964, 5.2.2 and
    5.2.16) for ``x < 20``, the auxiliary functions ``f``, ``g`` and
    their asymptotic expansions (NIST DLMF, 6.12.3 and 6.12.4) for
    ``x >= 20``::

        Ci(x) = gamma + ln x + sum_{n>=1} (-1)^n x^(2n) / (2n (2n)!)   (x < 20)
        Ci(x) = f(x) sin x - g(x) cos x,                               (x >= 20)
            f(x) ~ (1/x)   (1 - 2!/x^2 + 4!/x^4 - ...),
            g(x) ~ (1/x^2) (1 - 3!/x^2 + 5!/x^4 - ...)

    (``gamma`` is Euler's constant; the asymptotic series is cut after ten
    terms, where its terms are below ``2e-8`` for ``x >= 20``). The same
    function as ``scipy.special.sici(x)[1]``, written here so that ``book``
    does not need scipy; accurate to about ``1e-8`` absolute (tested against
    ``mpmath.ci``). For ``x`` near 0, ``Ci(x) ~ gamma + ln x``; for large
    ``x`` it oscillates towards 0 like ``sin(x)/x``.

    Args:
        x: a positive number or tensor of positive numbers, any shape.

    Returns:
        float64 tensor of the shape of ``x``.

    Raises:
        TypeError: if ``x`` is not numeric.
        ValueError: if some ``x`` is not finite or not > 0.
    """
    x = _as_float64("x", x)
    if not (x > 0).all():
        raise ValueError("x must be > 0 (Ci diverges at 0 and is complex for x < 0)")
    small = torch.clamp(x, max=20.0)
    total = torch.zeros_like(small)
    term = torch.ones_like(small)  # (-1)^n x^(2n) / (2n)!
    for n in range(1, 60):
        term = -term * small * small / ((2 * n - 1) * (2 * n))
        total = total + term / (2 * n)
    ci_small = _EULER_GAMMA + torch.log(small) + total
    big = torch.clamp(x, min=20.0)
    f = torch.zeros_like(big)
    g = torch.zeros_like(big)
    fact_even, fact_odd = 1.0, 1.0  # (2m)!, (2m+1)!
    for m in range(10):
        if m:
            fact_even *= (2 * m - 1) * (2 * m)
            fact_odd *= (2 * m) * (2 * m + 1)
        sign = (-1.0) ** m
        f = f + sign * fact_even / big ** (2 * m + 1)
        g = g + sign * fact_odd / big ** (2 * m + 2)
    ci_big = f * torch.sin(big) - g * torch.cos(big)
    return torch.where(x < 20.0, ci_small, ci_big)


def dot_by_offset(
    k: torch.Tensor | Sequence[float] | float,
    d_model: int,
    *,
    base: float = 10000.0,
    form: DotForm = "exact",
) -> torch.Tensor:
    """``PE(p) . PE(p + k) = sum_i cos(k w_i)`` and its closed-form approximations.

    Equations, with ``w_i = base^(-2i/d)`` and ``b = base``:

    * ``form="exact"``: ``sum_{i=0}^{d/2-1} cos(k w_i)``, the dot product of
      two encodings ``k`` apart (the addition formulas behind Vaswani et al.,
      2017, section 3.5); any real ``k``.
    * ``form="ci"``: ``(d/2) (Ci(|k|) - Ci(|k|/b)) / ln b``. Writing
      ``w = b^(-x)`` with ``x = 2i/d`` spaced ``2/d`` apart, the sum is
      ``d/2`` times the mean of ``cos(k b^(-x))`` over ``x`` in ``[0, 1)``,
      which for large ``d`` is ``integral_0^1 cos(k b^(-x)) dx``; the
      substitution ``u = k b^(-x)``, ``dx = -du / (u ln b)`` turns it into
      ``integral_{k/b}^{k} cos(u)/u du / ln b``. ``Ci`` is
      ``cosine_integral``. Needs ``k != 0`` (the value at 0 is ``d/2``).
    * ``form="log"``: ``(d/2) (1 - (ln|k| + gamma) / ln b)``, the ``"ci"``
      form for ``1 << |k| << b``, where ``Ci(|k|) ~ 0`` and
      ``Ci(|k|/b) ~ gamma + ln(|k|/b)`` (Euler's ``gamma = 0.5772...`` kept:
      dropping it would shift the curve up by ``(d/2) gamma / ln b``, about 2
      at ``d = 64``, ``b = 10000``). Needs ``k != 0``.

    The sum is even in ``k``; both approximations use ``|k|``.

    Args:
        k: an offset or tensor of offsets (finite reals), any shape.
        d_model: model width ``d``; positive and even.
        base: frequency base (> 1).
        form: ``"exact"``, ``"ci"`` or ``"log"``.

    Returns:
        float64 tensor of the shape of ``k``.

    Raises:
        TypeError: if ``k`` is not numeric.
        ValueError: for a non-finite ``k``, ``k = 0`` with ``form="ci"`` or
            ``"log"``, an odd or non-positive ``d_model``, ``base <= 1`` or an
            unknown ``form``.
    """
    form = check_choice("form", form, _DOT_FORMS)
    k = _as_float64("k", k)
    w = frequencies(d_model, base=base)
    if form == "exact":
        return torch.cos(k.unsqueeze(-1) * w).sum(-1)
    if (k == 0).any():
        raise ValueError(f"k must be nonzero for form={form!r} (the dot product at k = 0 is d/2)")
    base = float(base)
    a = k.abs()
    if form == "ci":
        return (d_model / 2) * (cosine_integral(a) - cosine_integral(a / base)) / _log(base)
    return (d_model / 2) * (1 - (torch.log(a) + _EULER_GAMMA) / _log(base))
