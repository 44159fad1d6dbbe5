"""Self-checks of chapter 3, *Why sin/cos: shifts are rotations* (``notebooks/03_rotation``).

Checks, in the chapter's order: ``check_rotation_block``, ``check_closest_shift``,
``check_sine_only_residual``, ``check_attend_back_matrix``, ``check_log_decay_drop``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch

from .._validate import check_choice, check_even, check_pair_index, check_positive_int, check_real
from ..encodings import frequencies, sinusoidal_at
from ..encodings.sinusoidal import SinusoidalLayout
from ._feedback import _close, _is_complex, _number, _real_tensor, _verdict, _whole_number, diagnose

__all__ = [
    "check_rotation_block",
    "check_closest_shift",
    "check_sine_only_residual",
    "check_attend_back_matrix",
    "check_log_decay_drop",
]


def check_rotation_block(answer: Any, k: float, i: int, d_model: int, *, base: float = 10000.0) -> bool:
    """Chapter 3: the 2x2 block of ``M_k`` that maps ``(sin(p w_i), cos(p w_i))`` to
    ``(sin((p+k) w_i), cos((p+k) w_i))``.

    Accepts the block within ``1e-6`` (so any angle equal to ``k w_i`` mod
    ``2 pi``, in float32 or float64). Recognises the transpose (which shifts
    by ``-k``), angles in degrees, the wrong frequency, and rounded digits
    (within ``1e-2``). Never raises on the answer (NaN, a string, a wrong
    shape).

    Raises:
        TypeError / ValueError: if ``i`` is not a pair index of ``d_model`` or
            ``k`` is not a finite real number.
    """
    i = check_pair_index("i", i, d_model)
    k = check_real("k", k)
    if _is_complex(answer):
        return _verdict(False, "The block has complex entries; a rotation of one (sin, cos) pair is real.")
    m = _real_tensor(answer)
    if m is None:
        return _verdict(False, "Give the block as a 2 x 2 tensor or a list of two lists.")
    if m.shape != (2, 2):
        return _verdict(False, f"The block is 2 x 2 (it acts on one (sin, cos) pair), got shape {tuple(m.shape)}.")
    if not torch.isfinite(m).all():
        return _verdict(
            False,
            "The block holds NaN or infinite entries; a rotation's entries are cosines and sines, between -1 and 1.",
        )
    w = float(frequencies(d_model, base=base)[i])

    def block(angle: float) -> torch.Tensor:
        c, s = math.cos(angle), math.sin(angle)
        return torch.tensor([[c, s], [-s, c]], dtype=torch.float64)

    if torch.allclose(m, block(k * w), atol=1e-6):
        return _verdict(
            True,
            "sin((p+k)w) = sin(pw)cos(kw) + cos(pw)sin(kw) and "
            "cos((p+k)w) = cos(pw)cos(kw) - sin(pw)sin(kw): exactly this block.",
        )
    mistakes = [
        (
            block(-k * w),
            "This is the transpose: it maps PE(p) to PE(p - k). "
            "Check the signs against sin(a+b) = sin a cos b + cos a sin b.",
        ),
        (block(math.radians(k * w)), "The angles look like degrees; torch.sin and torch.cos take radians."),
    ]
    mistakes += [
        (block(k * wrong), f"Right shape, wrong frequency: pair {i} turns by k * w_i with w_i = base^(-2i/d).")
        for wrong in (1.0, float(frequencies(d_model, base=base)[min(i + 1, d_model // 2 - 1)]), base ** (-i / d_model))
    ]
    hint = diagnose(m, mistakes, same=lambda a, b: torch.allclose(a, b, atol=1e-6))
    if hint is not None:
        return _verdict(False, hint)
    if torch.allclose(m, block(k * w), atol=1e-2):
        return _verdict(
            False,
            "Close, but not within 1e-6: use math.cos and math.sin of k * w_i rather than "
            "rounded digits, and w_i = base ** (-2 * i / d) exactly.",
        )
    return _verdict(
        False,
        "Write sin((p+k)w) and cos((p+k)w) with the addition formulas and read off "
        "the coefficients of sin(pw) and cos(pw).",
    )


def check_sine_only_residual(
    answer: Any, k: int, d_model: int, *, n_positions: int | None = None, base: float = 10000.0
) -> bool:
    """Chapter 3: the relative residual ``||X B - Y|| / ||Y||`` of the best
    (least-squares) matrix ``B`` from the sine columns ``X[p] = sin(p w_i)`` of
    positions ``0 .. n_positions - 1`` to the sine columns ``Y`` of the
    positions ``k`` later (``book.encodings.sinusoidal.shift_fit_residual``
    with ``sines_only=True``; ``n_positions=None`` is its default, one turn of
    the slowest pair).

    The window must make the sine table well conditioned (the library
    refuses a condition number above ``1e6``), so that the residual is well
    posed: every float64 least-squares method (any ``lstsq`` driver, QR,
    the normal equations, a pseudo-inverse) gives it to about ``1e-10`` or
    better, and a fit with an extra intercept column (one more free
    parameter) gives a residual a little smaller (relative ``2e-8`` for
    ``k=3``, ``d_model=32`` over 40,000 positions). Accepts a relative error of ``5e-6``, which also
    lets through one position more or less. Recognises the fit in the wrong
    direction (from ``Y`` to ``X``), the residual divided by ``||X||``, a
    float32 computation (each within 1e-4 of the right value), 0 (what the
    full (sin, cos) table gives), the residual of the identity (no fit), the
    cosine columns fitted instead, the squared residual, a percentage, and
    another offset. Never raises on the answer.

    Raises:
        TypeError / ValueError: as ``shift_fit_residual`` for a bad ``k``,
            ``d_model``, ``n_positions`` or ``base``, or a window too short
            for a well-posed fit (the teacher's call).
    """
    from ..encodings.sinusoidal_geometry import shift_fit_residual

    right = shift_fit_residual(k, d_model, n_positions=n_positions, sines_only=True, base=base)
    value = _number(answer)
    if value is None:
        return _verdict(False, "Give the relative residual as one number (a float).")
    if not math.isfinite(value):
        return _verdict(
            False, f"{value} is not a finite number: check that the tables have no NaN and that ||Y|| is not 0."
        )
    if _close(value, right, 5e-6):
        return _verdict(
            True,
            f"The best matrix still misses {100 * right:.1f}% of the shifted sines: "
            "sin((p+k)w) needs cos(pw), and no matrix of the sines gives it.",
        )
    if abs(value) < 1e-6:
        return _verdict(
            False,
            "0 is what the full (sin, cos) encoding gives. Fit the sine columns only "
            "(the even dimensions 0, 2, 4, ...).",
        )
    n = math.ceil(2 * math.pi / float(frequencies(d_model, base=base)[-1])) if n_positions is None else n_positions
    p = torch.arange(n)
    full_x = sinusoidal_at(p, d_model, base=base, dtype=torch.float64)
    full_y = sinusoidal_at(p + k, d_model, base=base, dtype=torch.float64)
    x, y = full_x[:, 0::2], full_y[:, 0::2]

    def fit(a: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return a @ torch.linalg.lstsq(a, c, driver="gelsd").solution - c

    hints = [
        (
            float(fit(y, x).norm() / x.norm()),
            "That fits from PE(p + k) back to PE(p). Fit X B = Y, with X the positions p and Y the positions p + k.",
        ),
        (
            float(fit(x, y).norm() / x.norm()),
            "That divides by ||X||; the residual is relative to what is fitted, ||X B - Y|| / ||Y||.",
        ),
        (
            float(fit(x.float(), y.float()).norm() / y.float().norm()),
            "That is the float32 answer: build the tables with dtype=torch.float64.",
        ),
    ]
    hint = diagnose(value, hints, same=lambda a, b: _close(a, b, 5e-6))
    if hint is not None:
        return _verdict(False, hint)
    cos_x, cos_y = full_x[:, 1::2], full_y[:, 1::2]
    others = [
        (
            float((x - y).norm() / y.norm()),
            "That is the residual of B = I (no fit at all). Solve for the best B with torch.linalg.lstsq(X, Y).",
        ),
        (
            float(fit(cos_x, cos_y).norm() / cos_y.norm()),
            "Those are the cosine columns (odd dimensions); the sines are the even dimensions 0, 2, 4, ...",
        ),
        (right**2, "That is the squared residual, a ratio of squared norms. Take the square root."),
        (100 * right, "That looks like a percentage. Give the fraction ||X B - Y|| / ||Y||."),
    ]
    for other_k in (k - 1, k + 1, -k):
        y_other = sinusoidal_at(p + other_k, d_model, base=base, dtype=torch.float64)[:, 0::2]
        if other_k != k:
            others.append(
                (
                    float(fit(x, y_other).norm() / y_other.norm()),
                    f"That is the residual for the offset {other_k}; Y holds the positions p + {k}.",
                )
            )
    hint = diagnose(value, others, same=lambda a, b: _close(a, b, 1e-4))
    if hint is not None:
        return _verdict(False, hint)
    if _close(value, right, 1e-3):
        return _verdict(
            False,
            f"Close (within 0.1%), but not the float64 least-squares value: check the window "
            f"(positions 0 .. {n - 1}), float64 tables, and that you divide by ||Y||.",
        )
    return _verdict(
        False, "Build X (sines of p) and Y (sines of p + k), solve B = lstsq(X, Y) and return ||X B - Y|| / ||Y||."
    )


def check_attend_back_matrix(
    answer: Any,
    j: int,
    d_model: int,
    *,
    n_positions: int = 64,
    layout: SinusoidalLayout = "interleaved",
    base: float = 10000.0,
) -> bool:
    """Chapter 3: does ``A`` (``d_model x d_model``) make the position-position
    score ``PE(m)^T A PE(n)`` peak at ``n = m - j`` for every query position
    ``m = j .. n_positions - 1`` (keys ``n = 0 .. n_positions - 1``)?

    ``PE`` is ``book.encodings.sinusoidal_at`` in the given ``layout``
    (``"interleaved"``, the paper's, or ``"concat"``). The check is on
    behaviour, so any matrix that does the job passes; ``A = M_j``
    (``rotation_matrix(j, d)``) is one for the interleaved layout, and
    ``M_j[perm][:, perm]`` (``perm = layout_permutation(d)``) for the
    concatenated one. Recognises a head that attends ``j`` ahead, one that
    attends to itself (e.g. ``A = I``), a matrix that works only in the other
    layout, the wrong shape, and NaN or infinite entries. Never raises on the
    answer.

    Raises:
        TypeError / ValueError: if ``j`` is not an integer with
            ``0 <= j < n_positions``, or ``layout`` is unknown.
    """
    d_model = check_even("d_model", d_model)
    n_positions = check_positive_int("n_positions", n_positions)
    layout = check_choice("layout", layout, ("interleaved", "concat"))
    if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < n_positions:
        raise ValueError(f"j must be an integer in 0 .. n_positions - 1 = {n_positions - 1}, got {j!r}")
    if _is_complex(answer):
        return _verdict(False, "A has complex entries; a matrix that scores real encodings is real.")
    a = _real_tensor(answer)
    if a is None:
        return _verdict(False, "Give A as a d x d tensor (or a list of lists).")
    if a.shape != (d_model, d_model):
        return _verdict(False, f"A must be {d_model} x {d_model}, got shape {tuple(a.shape)}.")
    if not torch.isfinite(a).all():
        return _verdict(False, "A holds NaN or infinite entries, so its scores have no largest key.")
    m = torch.arange(n_positions)

    def best_keys(which: SinusoidalLayout) -> torch.Tensor:
        pe = sinusoidal_at(m, d_model, base=base, layout=which, dtype=torch.float64)
        return (pe @ a @ pe.T).argmax(-1)  # (query m,) best key n

    best = best_keys(layout)
    if torch.equal(best[j:], m[j:] - j):
        return _verdict(
            True,
            f"Every query m >= {j} scores highest on the key n = m - {j}: "
            f"PE(m)^T A PE(n) peaks {j} tokens back ({layout} layout).",
        )
    other: SinusoidalLayout = "concat" if layout == "interleaved" else "interleaved"
    if j and torch.equal(best_keys(other)[j:], m[j:] - j):
        return _verdict(
            False,
            f"This A peaks {j} back for the {other} layout, not the {layout} one. "
            "Reorder its rows and columns the way the layout reorders the dimensions.",
        )
    if j and torch.equal(best[: n_positions - j], m[: n_positions - j] + j):
        return _verdict(False, f"This head attends {j} tokens ahead, n = m + {j}: check the sign of the shift.")
    if torch.equal(best, m):
        return _verdict(
            False,
            "Every query attends to itself (n = m), as with A = I. The score must "
            "peak at an offset, not at the query's own position.",
        )
    pe = sinusoidal_at(m, d_model, base=base, layout=layout, dtype=torch.float64)
    scores = pe @ a @ pe.T
    if torch.allclose(scores, scores[:1, :1].expand_as(scores)):
        return _verdict(False, "Every key gets the same score, so the head has no preference at all.")
    return _verdict(
        False,
        f"Some queries m >= {j} peak elsewhere than at n = m - {j}. Which matrix "
        "turns PE(n) into the encoding of another position, the same way at every n?",
    )


def check_log_decay_drop(answer: Any, d_model: int, *, base: float = 10000.0) -> bool:
    """Chapter 3: by how much does ``PE(p) . PE(p + k)`` fall each time the
    offset ``k`` is multiplied by 10, in the log approximation
    ``(d/2)(1 - (ln k + gamma) / ln b)`` (``1 << k << b``; ``gamma`` shifts
    the line, not its slope)?

    The answer is ``(d/2) ln 10 / ln b`` (a positive drop), within a relative
    ``1e-3``. Recognises the sign flipped, ``d`` in place of ``d/2``, the drop
    per factor ``e`` instead of 10, the ratio inverted, and a value within 10%
    (a drop measured on the exact, wiggling sum). Never raises on the answer.

    Raises:
        TypeError / ValueError: for an odd or non-positive ``d_model`` or
            ``base <= 1``.
    """
    from .._validate import check_base, check_even

    half = check_even("d_model", d_model) / 2
    base = check_base(base)
    value = _number(answer)
    if value is None or not math.isfinite(value):
        return _verdict(False, "Give the drop as one number (finite, positive).")
    ln_b = math.log(base)
    right = half * math.log(10) / ln_b
    if _close(value, right):
        return _verdict(
            True,
            f"(d/2)(1 - (ln k + gamma) / ln b) loses (d/2) ln 10 / ln b = {right:.4g} "
            "per factor 10 in k: a straight line on a log k axis.",
        )
    hint = diagnose(
        value,
        [
            (-right, "That is the change, a negative number; give the drop as a positive number."),
            (2 * right, "The sum has d/2 cosines (one per pair), not d."),
            (half / ln_b, "That is the drop per factor e in k. Multiplying k by 10 adds ln 10 to ln k."),
            (half * ln_b / math.log(10), "The ratio is upside down: ln k / ln b grows by ln 10 / ln b."),
        ],
    )
    if hint is not None:
        return _verdict(False, hint)
    if _close(value, right, 0.1):
        return _verdict(
            False,
            f"Within 10% of the approximation's drop, {right:.4g}, but not equal to it: this "
            "looks like a measured drop of the exact sum, which wiggles. The question asks for the "
            "straight line's slope, (d/2) ln 10 / ln b.",
        )
    return _verdict(False, "Write the approximation at k and at 10 k and subtract: ln(10 k) = ln k + ln 10.")


def check_closest_shift(answer: Any, *, d_model: int = 16, max_offset: int = 100_000, base: float = 10000.0) -> bool:
    """Chapter 3: the offset ``k`` in ``1 .. max_offset`` whose ``M_k`` is closest to the identity.

    ``||M_k - I||_F^2 = 4 sum_i (1 - cos k w_i)`` (each 2x2 block ``R(k w_i)``
    adds ``4 - 4 cos(k w_i)``), computed for every offset in float64; the
    right answer is its argmin (``k = 1`` for the chapter's ``d = 16`` and
    100000 offsets). Accepts the offset as an int, a whole float or a
    one-element tensor or array. Recognises ``0`` (``M_0 = I`` is no shift,
    or an argmin counted from 0), the farthest offset (argmax), the offset
    where pair 0 alone comes closest to a whole turn, the slowest pair's
    wavelength, the argmin with the angles read as degrees, and an offset
    beyond ``max_offset``. Never raises on the answer.

    Raises:
        TypeError / ValueError: for a ``d_model`` that is not even and
            positive or a ``max_offset`` that is not an integer >= 1.
    """
    d_model = check_even("d_model", d_model)
    max_offset = check_positive_int("max_offset", max_offset)
    k = _whole_number(answer)
    if k is None:
        return _verdict(False, "Give one whole offset k, such as 12 (not NaN, a string or a list).")
    w = frequencies(d_model, base=base).to(torch.float64)
    ks = torch.arange(1, max_offset + 1, dtype=torch.float64)
    pair_gap = 1 - torch.cos(ks[:, None] * w)
    gap = 4 * pair_gap.sum(-1)
    best = int(torch.argmin(gap)) + 1
    if k == best:
        return _verdict(
            True,
            f"k = {best}: ||M_k - I|| = {math.sqrt(float(gap[best - 1])):.4f}, and no offset up to "
            f"{max_offset:,} comes closer. Every pair would have to come round at the same offset, "
            "and for a whole k > 0 pair 0 (k w_0 = k radians) never does: pi is irrational.",
        )
    if k == 0:
        return _verdict(
            False,
            "M_0 = I, but k = 0 is no shift; search k = 1 .. max_offset (and if this came from an "
            "argmin over k = 1, 2, ..., add 1 back).",
        )
    if not 1 <= k <= max_offset:
        return _verdict(False, f"Search the offsets 1 .. {max_offset:,} only.")
    degrees = 4 * (1 - torch.cos(torch.deg2rad(ks[:, None] * w))).sum(-1)
    hint = diagnose(
        k,
        [
            (
                int(torch.argmax(gap)) + 1,
                "That is the farthest offset. Take the argmin of ||M_k - I||, not the argmax.",
            ),
            (
                int(torch.argmin(pair_gap[:, 0])) + 1,
                "There pair 0 alone comes closest to a whole turn, but the other pairs are far from theirs. "
                "Add the gaps of all pairs: 4 sum_i (1 - cos k w_i).",
            ),
            (
                round(2 * math.pi / float(w[-1])),
                "That is the slowest pair's wavelength: it comes round there, while the fast pairs are "
                "anywhere. Add the gaps of all pairs.",
            ),
            (
                int(torch.argmin(degrees)) + 1,
                "That is the answer with the angles k w_i read as degrees; torch.cos takes radians.",
            ),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False,
        f"||M_{k} - I|| = {math.sqrt(float(gap[k - 1])):.4f}; some offset comes closer. Compute "
        "4 sum_i (1 - cos k w_i) for every k at once and take the argmin.",
    )
