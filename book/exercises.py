"""Self-checks for the exercises: a specific hint on a wrong answer, a
confirmation on a right one.

Each check prints its verdict for the student and returns ``True`` or
``False``, so that a teacher's grading script can use it too.
"""

from __future__ import annotations

import math
import numbers
import textwrap
from typing import Any, Sequence

import numpy as np
import torch

from ._validate import check_choice, check_even, check_float_dtype, check_pair_index, check_positive_int, check_real
from .encodings import alibi_slopes, frequencies, sinusoidal_at

__all__ = [
    "check_permutation_matrix",
    "check_wavelength",
    "check_rotation_block",
    "check_closest_position",
    "check_position_table_size",
    "check_rope_angle",
    "check_alibi_slopes",
    "check_cache_rounding_error",
    "check_rope_traffic",
    "check_alibi_neutral_weight",
    "check_first_untrained_row",
    "check_rope_stretch",
    "check_yarn_pairs",
    "check_dynamic_ntk",
    "check_turned_pairs",
]


def _verdict(ok: bool, message: str) -> bool:
    print(textwrap.fill(("Correct! " if ok else "Not yet. ") + message, width=76))
    return ok


def _is_complex(answer: Any) -> bool:
    """Whether ``answer`` is a complex torch tensor or numpy array (which
    ``torch.as_tensor(..., dtype=torch.float64)`` would silently make real)."""
    if isinstance(answer, torch.Tensor):
        return answer.is_complex()
    return isinstance(answer, np.ndarray) and np.iscomplexobj(answer)


def check_permutation_matrix(answer: Any, perm: Sequence[int]) -> bool:
    """Chapter 1: is ``answer`` the matrix ``P`` with ``P @ X == X[perm]``?

    Accepts a tensor (any dtype, bool included) or a nested list, with
    entries within ``1e-6`` of 0 and 1 read as 0 and 1. Recognises the usual
    mistakes: the wrong size, NaN or infinite entries, entries other than 0
    and 1, a matrix that is not a permutation, and the transpose (which
    applies the inverse permutation). Never raises on the answer.
    """
    perm = [int(i) for i in perm]
    n = len(perm)
    if _is_complex(answer):
        return _verdict(False, "P has complex entries; every entry of a permutation matrix is a real 0 or 1.")
    try:
        p = torch.as_tensor(answer, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return _verdict(False, "Give P as a torch tensor or a list of lists of 0s and 1s.")
    if p.shape != (n, n):
        return _verdict(False, f"P must be {n} x {n} (one row and one column per position), got shape {tuple(p.shape)}.")
    if not torch.isfinite(p).all():
        return _verdict(False, "P holds NaN or infinite entries; every entry of a permutation matrix is 0 or 1.")
    rounded = p.round()
    if torch.all((rounded == 0) | (rounded == 1)) and (p - rounded).abs().max() < 1e-6:
        p = rounded                                   # 0.9999999 is a 1
    if not torch.all((p == 0) | (p == 1)):
        return _verdict(False, "Every entry of a permutation matrix is 0 or 1.")
    if not (torch.all(p.sum(0) == 1) and torch.all(p.sum(1) == 1)):
        return _verdict(False, "Each row and each column must hold exactly one 1: every position goes somewhere, once.")
    expected = torch.eye(n, dtype=torch.float64)[perm]
    if torch.equal(p, expected):
        return _verdict(True, f"Row i of P has its 1 in column perm[i], so (P @ X)[i] = X[perm[i]] for perm = {perm}.")
    if torch.equal(p, expected.T):
        return _verdict(
            False,
            "This is the transpose of the answer: it sends row i of X to position perm[i], "
            "which applies the inverse permutation. Put the 1 of row i in column perm[i].",
        )
    return _verdict(False, "This is a permutation matrix, but of another order: row i needs its 1 in column perm[i].")


def _number(answer: Any) -> float | None:
    """``answer`` as a float if it is one real number (``2.5``, ``np.float64(2.5)``,
    or a one-element torch tensor or numpy array such as ``torch.tensor(2.5)`` or
    ``np.array(2.5)``), else ``None``; booleans are not numbers here. Never raises."""
    if isinstance(answer, torch.Tensor) and answer.numel() == 1:
        answer = answer.item()
    elif isinstance(answer, np.ndarray) and answer.size == 1:
        answer = answer.item()
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return None
    return float(answer)


def _per_head(answer: Any, n_heads: int, what: str) -> torch.Tensor | None:
    """``answer`` as a float64 vector of one number per head, or ``None``
    after printing why it is not one (``what``: "slopes", "weights")."""
    if _is_complex(answer):
        _verdict(False, f"The {what} are real numbers; this answer has complex entries.")
        return None
    try:
        got = torch.as_tensor(answer, dtype=torch.float64).flatten()
    except (TypeError, ValueError, RuntimeError):
        _verdict(False, f"Give the {what} as a list or tensor of numbers, one per head.")
        return None
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
            answer, (Sequence, range, set, frozenset, torch.Tensor, np.ndarray)):
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
    if _close(value, 1 / w):
        return _verdict(False, "That is 1/w_i, the length of one radian. A full cycle of sin is 2*pi radians.")
    if _close(value, w) or _close(value, w / (2 * math.pi)):
        return _verdict(False, "That is a frequency (how fast the angle turns). The wavelength is its inverse: 2*pi / w_i.")
    if _close(value, 2 * math.pi * base ** (i / d_model)):
        return _verdict(False, "The exponent is 2i/d, not i/d: pair i holds dimensions 2i and 2i+1.")
    for j in (i - 1, i + 1):
        if 0 <= j < d_model // 2 and _close(value, 2 * math.pi * base ** (2 * j / d_model)):
            return _verdict(False, f"That is the wavelength of pair {j}; pairs are counted from 0, and pair {i} "
                            f"holds dimensions {2 * i} and {2 * i + 1}.")
    if _close(value, right, 5e-2):
        return _verdict(False, "Close, but not within 0.1%: use math.pi rather than a rounded pi, and "
                        "10000 ** (2 * i / d) exactly.")
    return _verdict(False, "Start from w_i = base^(-2i/d): sin(p w_i) repeats when p w_i grows by 2*pi.")


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
    try:
        m = torch.as_tensor(answer, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return _verdict(False, "Give the block as a 2 x 2 tensor or a list of two lists.")
    if m.shape != (2, 2):
        return _verdict(False, f"The block is 2 x 2 (it acts on one (sin, cos) pair), got shape {tuple(m.shape)}.")
    if not torch.isfinite(m).all():
        return _verdict(False, "The block holds NaN or infinite entries; a rotation's entries are cosines and "
                        "sines, between -1 and 1.")
    w = float(frequencies(d_model, base=base)[i])

    def block(angle: float) -> torch.Tensor:
        c, s = math.cos(angle), math.sin(angle)
        return torch.tensor([[c, s], [-s, c]], dtype=torch.float64)

    if torch.allclose(m, block(k * w), atol=1e-6):
        return _verdict(True, "sin((p+k)w) = sin(pw)cos(kw) + cos(pw)sin(kw) and "
                        "cos((p+k)w) = cos(pw)cos(kw) - sin(pw)sin(kw): exactly this block.")
    if torch.allclose(m, block(-k * w), atol=1e-6):
        return _verdict(False, "This is the transpose: it maps PE(p) to PE(p - k). "
                        "Check the signs against sin(a+b) = sin a cos b + cos a sin b.")
    if torch.allclose(m, block(math.radians(k * w)), atol=1e-6):
        return _verdict(False, "The angles look like degrees; torch.sin and torch.cos take radians.")
    for wrong in (1.0, float(frequencies(d_model, base=base)[min(i + 1, d_model // 2 - 1)]), base ** (-i / d_model)):
        if torch.allclose(m, block(k * wrong), atol=1e-6):
            return _verdict(False, f"Right shape, wrong frequency: pair {i} turns by k * w_i with w_i = base^(-2i/d).")
    if torch.allclose(m, block(k * w), atol=1e-2):
        return _verdict(False, "Close, but not within 1e-6: use math.cos and math.sin of k * w_i rather than "
                        "rounded digits, and w_i = base ** (-2 * i / d) exactly.")
    return _verdict(False, "Write sin((p+k)w) and cos((p+k)w) with the addition formulas and read off "
                    "the coefficients of sin(pw) and cos(pw).")


def check_closest_position(answer: Any, d_model: int, max_position: int, *, base: float = 10000.0) -> bool:
    """Chapter 4: which position ``p`` in ``1 .. max_position`` has the PE vector
    closest (Euclidean distance) to ``PE(0)``?

    Accepts the position as an int, a whole float or a one-element torch
    tensor or numpy array.
    Recognises ``0`` itself, the farthest position instead of the closest,
    the neighbour ``1`` (close in the sequence, not in PE space), and the
    answer one too small (an argmin over ``p >= 1`` without adding the 1
    back). The confirmation says how many turns each pair has made at the
    answer. Never raises on the answer (NaN, infinity, a string, ``None``).

    Raises:
        TypeError / ValueError: if ``max_position`` is not an integer >= 1.
    """
    max_position = check_positive_int("max_position", max_position)
    p = _whole_number(answer)
    if p is None:
        return _verdict(False, "Give a whole position number, such as 17 (not NaN, a string or a list).")
    pos = torch.arange(max_position + 1)
    dist = (sinusoidal_at(pos, d_model, base=base, dtype=torch.float64)
            - sinusoidal_at(torch.tensor([0]), d_model, base=base, dtype=torch.float64)).norm(dim=-1)
    best, worst = int(torch.argmin(dist[1:])) + 1, int(torch.argmax(dist[1:])) + 1
    if p == best:
        w = frequencies(d_model, base=base)
        turns = ", ".join(f"pair {i} {t:.3f}" for i, t in enumerate((p * w / (2 * math.pi)).tolist()[:4]))
        return _verdict(True, f"PE({p}) is {float(dist[p]):.4f} away from PE(0), closer than any other "
                        f"position up to {max_position}. Turns made at p = {p}: {turns}. Each pair adds "
                        "2 - 2 cos(p w_i) to the squared distance, small when its turns are near a whole "
                        "number or near 0.")
    if p == 0:
        return _verdict(False, "Position 0 is PE(0) itself; search p = 1 .. max_position.")
    if not 1 <= p <= max_position:
        return _verdict(False, f"Search positions 1 .. {max_position} only.")
    if p == worst:
        return _verdict(False, "That is the farthest position. Take the argmin of the distances, not the argmax.")
    if p == best - 1:
        return _verdict(False, "One too small: an argmin over the distances of p = 1, 2, ... returns an index "
                        "counted from 0. Add 1 back.")
    if p == 1:
        return _verdict(False, "Position 1 is next to 0 in the sentence, but the fast pairs have turned by "
                        "a whole radian. Compute the distances to PE(0) for every p.")
    return _verdict(False, f"PE({p}) is {float(dist[p]):.4f} away from PE(0); some position is closer. "
                    f"Compute all distances at once and take the argmin over p >= 1.")


def check_position_table_size(answer: Any, max_len: int, d_model: int, *, n_layers: int = 1) -> bool:
    """Chapter 5: how many trainable numbers a learned position table holds.

    The table has one ``d_model``-vector per position: ``max_len * d_model``
    parameters, added once at the input (not per layer). Accepts the count as
    an int, a whole float (``1.6384e6``), a one-element tensor or array, or a
    one-element list or tuple (``[1638400]``). Recognises
    the positions or the width alone, their sum, a count per layer, a row too
    many or too few, the table's size in bytes (float32), and the sinusoidal
    answer (0, which has no parameters). Never raises on the answer: anything
    that is not a finite whole number gets a hint.

    Raises:
        TypeError / ValueError: if the sizes are not positive integers.
    """
    max_len = check_positive_int("max_len", max_len)
    d_model = check_positive_int("d_model", d_model)
    n_layers = check_positive_int("n_layers", n_layers)
    if isinstance(answer, (list, tuple)) and len(answer) == 1:
        answer = answer[0]                                   # [1638400] holds one count
    value = _number(answer)
    if value is None or not math.isfinite(value):
        return _verdict(False, "Give the count as one finite whole number of parameters (not a string, "
                        "NaN, or several numbers).")
    if value != int(value):
        return _verdict(False, "Give a whole number of parameters.")
    right = max_len * d_model
    if value == right:
        return _verdict(True, f"{max_len} positions x {d_model} numbers each = {right:,} parameters "
                        f"(a sinusoidal table would add none).")
    if value == max_len:
        return _verdict(False, "That counts the positions; each one has a whole vector of d_model numbers.")
    if value == d_model:
        return _verdict(False, "That is one position's vector; the table has one for every position.")
    if value == max_len + d_model:
        return _verdict(False, "The table is a matrix: multiply the number of rows by the row width.")
    if n_layers > 1 and value == right * n_layers:
        return _verdict(False, "The table is added once, to the input embeddings, not in every layer.")
    if value in ((max_len - 1) * d_model, (max_len + 1) * d_model):
        return _verdict(False, f"One row off: positions 0 .. {max_len - 1} are {max_len} rows.")
    if value == 4 * right:
        return _verdict(False, "That is the table's size in bytes (4 per float32 number); count the numbers.")
    if value == 0:
        return _verdict(False, "Zero is the sinusoidal table's count; a learned table is all parameters.")
    return _verdict(False, f"Count rows x columns of the nn.Embedding(max_len={max_len}, d_model={d_model}) weight.")


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
        reduced = "" if _close(value, right, 1e-6) or right == value else (
            f" ({value:.6g} rad is the same rotation, up to whole turns of 2 pi)")
        return _verdict(True, f"Pair {i} turns by theta_{i} = {base:g}^(-2*{i}/{d_model}) per position, "
                        f"so by {right:.6g} rad at position {m:g}{reduced}.")
    if not too_big and same_angle(value, math.degrees(right), 1e-6, 360.0):
        return _verdict(False, "That is the angle in degrees; RoPE's cos and sin take radians.")
    if right and not too_big and same_angle(value, -right, 1e-6):
        return _verdict(False, "Right size, wrong sign: RoPE turns the pair by +m * theta_i.")
    if _close(value, m * base ** (-i / d_model), 1e-6):
        return _verdict(False, "The exponent is -2i/d, not -i/d: pair i holds features 2i and 2i+1.")
    if _close(value, theta, 1e-6):
        return _verdict(False, "That is theta_i, the turn per position. Multiply by the position m.")
    if theta and _close(value, m / theta, 1e-6):
        return _verdict(False, "theta_i = base^(-2i/d) is below 1 for i > 0: multiply m by it, don't divide.")
    if too_big:
        return _verdict(False, f"{value:.6g} is too large to name an angle: float64 numbers that big are "
                        f"{math.ulp(value):.2g} apart. Reduce it modulo 2 pi, or compute m * theta_i directly.")
    if same_angle(value, right, 1e-2, cap=0.1):
        return _verdict(False, "Close, but not to 1e-6: compute m * theta_i with more digits instead of "
                        "rounding theta_i.")
    return _verdict(False, "Start from theta_i = base^(-2i/d); the rotation at position m is m * theta_i.")


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
    half = answer.dtype if isinstance(answer, torch.Tensor) and answer.dtype in (torch.float16, torch.bfloat16) else None

    def same(a: torch.Tensor, b: torch.Tensor) -> bool:
        return bool(torch.allclose(a, b, rtol=1e-5, atol=0))

    if same(got, right):
        return _verdict(True, f"Slopes for {n_heads} heads: {listed}.")
    if half is not None and same(got, right.to(half).to(torch.float64)):
        return _verdict(True, f"Slopes for {n_heads} heads, right to {str(half)[6:]} precision: {listed}.")
    if bool(torch.allclose(got, right, rtol=1e-2, atol=0)):
        return _verdict(False, "Close, but only to about three digits: keep the slopes in float32 or float64, "
                        "without rounding them.")
    power = 1 << (n_heads.bit_length() - 1)           # nearest power of two <= n_heads
    if same(got.sort().values, right.sort().values):
        if power == n_heads:
            return _verdict(False, f"The right numbers in the wrong order: head h takes 2^(-8h/{n_heads}), "
                            "steepest first.")
        return _verdict(False, "The right numbers in the wrong order: the heads of the nearest smaller power of "
                        "two come first, steepest first, then the extra heads.")
    h = torch.arange(1, n_heads + 1, dtype=torch.float64)
    if n_heads == 1:
        return _verdict(False, "With one head the rule 2^(-8h/n) gives a single slope, 2^-8 = 1/256.")
    if power == n_heads:
        if same(got, 2.0 ** -h):
            return _verdict(False, f"2^-h is the rule for 8 heads only. For {n_heads} heads the slopes are "
                            f"2^(-8h/{n_heads}), from 2^-(8/{n_heads}) down to 2^-8.")
        return _verdict(False, f"{n_heads} is a power of two: the slopes are 2^(-8h/{n_heads}), h = 1 .. {n_heads}.")
    if same(got, 2.0 ** (-8.0 * h / n_heads)):
        return _verdict(False, f"2^(-8h/n) is the rule when n is a power of two; {n_heads} is not. Take the "
                        f"{power} slopes of {power} heads, then every other slope of the sequence for "
                        f"{2 * power} heads.")
    bigger = alibi_slopes(2 * power).to(torch.float64)
    if same(got, bigger[:n_heads]):
        return _verdict(False, f"These are the first {n_heads} slopes for {2 * power} heads. Press et al. start "
                        f"from the nearest smaller power of two, {power}, and add every other slope of the "
                        f"{2 * power}-head sequence.")
    base_part = alibi_slopes(power).to(torch.float64)
    if same(got[:power], base_part) and same(got[power:], bigger[: n_heads - power]):
        return _verdict(False, f"The first {power} are right. The extra heads take every other slope of the "
                        f"{2 * power}-head sequence (its 1st, 3rd, 5th, ..), not its first ones.")
    if same(got[:power], base_part):
        return _verdict(False, f"The first {power} are right. The extra {n_heads - power} heads take every "
                        f"other slope of the {2 * power}-head sequence, starting with its first.")
    return _verdict(False, f"Start from the {power}-head slopes 2^(-8h/{power}) and Press et al.'s rule for "
                    "other head counts.")


# --- chapters 2-3

__all__ += [
    "check_sine_only_residual",
    "check_attend_back_matrix",
    "check_log_decay_drop",
]


def check_sine_only_residual(answer: Any, k: int, d_model: int, *, n_positions: int | None = None,
                             base: float = 10000.0) -> bool:
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
    from .encodings.sinusoidal import shift_fit_residual

    right = shift_fit_residual(k, d_model, n_positions=n_positions, sines_only=True, base=base)
    value = _number(answer)
    if value is None:
        return _verdict(False, "Give the relative residual as one number (a float).")
    if not math.isfinite(value):
        return _verdict(False, f"{value} is not a finite number: check that the tables have no NaN and that "
                        "||Y|| is not 0.")
    if _close(value, right, 5e-6):
        return _verdict(True, f"The best matrix still misses {100 * right:.1f}% of the shifted sines: "
                        "sin((p+k)w) needs cos(pw), and no matrix of the sines gives it.")
    if abs(value) < 1e-6:
        return _verdict(False, "0 is what the full (sin, cos) encoding gives. Fit the sine columns only "
                        "(the even dimensions 0, 2, 4, ...).")
    n = math.ceil(2 * math.pi / float(frequencies(d_model, base=base)[-1])) if n_positions is None else n_positions
    p = torch.arange(n)
    full_x = sinusoidal_at(p, d_model, base=base, dtype=torch.float64)
    full_y = sinusoidal_at(p + k, d_model, base=base, dtype=torch.float64)
    x, y = full_x[:, 0::2], full_y[:, 0::2]

    def fit(a: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return a @ torch.linalg.lstsq(a, c, driver="gelsd").solution - c

    hints = [
        (float(fit(y, x).norm() / x.norm()), "That fits from PE(p + k) back to PE(p). Fit X B = Y, with X the "
         "positions p and Y the positions p + k."),
        (float(fit(x, y).norm() / x.norm()), "That divides by ||X||; the residual is relative to what is fitted, "
         "||X B - Y|| / ||Y||."),
        (float(fit(x.float(), y.float()).norm() / y.float().norm()), "That is the float32 answer: build the "
         "tables with dtype=torch.float64."),
    ]
    for wrong, hint in hints:
        if _close(value, wrong, 5e-6):
            return _verdict(False, hint)
    cos_x, cos_y = full_x[:, 1::2], full_y[:, 1::2]
    others = [
        (float((x - y).norm() / y.norm()), "That is the residual of B = I (no fit at all). Solve for the best B "
         "with torch.linalg.lstsq(X, Y)."),
        (float(fit(cos_x, cos_y).norm() / cos_y.norm()), "Those are the cosine columns (odd dimensions); the "
         "sines are the even dimensions 0, 2, 4, ..."),
        (right**2, "That is the squared residual, a ratio of squared norms. Take the square root."),
        (100 * right, "That looks like a percentage. Give the fraction ||X B - Y|| / ||Y||."),
    ]
    for wrong, hint in others:
        if _close(value, wrong, 1e-4):
            return _verdict(False, hint)
    for other_k in (k - 1, k + 1, -k):
        y_other = sinusoidal_at(p + other_k, d_model, base=base, dtype=torch.float64)[:, 0::2]
        if other_k != k and _close(value, float(fit(x, y_other).norm() / y_other.norm()), 1e-4):
            return _verdict(False, f"That is the residual for the offset {other_k}; Y holds the positions "
                            f"p + {k}.")
    if _close(value, right, 1e-3):
        return _verdict(False, f"Close (within 0.1%), but not the float64 least-squares value: check the window "
                        f"(positions 0 .. {n - 1}), float64 tables, and that you divide by ||Y||.")
    return _verdict(False, "Build X (sines of p) and Y (sines of p + k), solve B = lstsq(X, Y) and "
                    "return ||X B - Y|| / ||Y||.")


def check_attend_back_matrix(answer: Any, j: int, d_model: int, *, n_positions: int = 64,
                             layout: str = "interleaved", base: float = 10000.0) -> bool:
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
    try:
        a = torch.as_tensor(answer, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return _verdict(False, "Give A as a d x d tensor (or a list of lists).")
    if a.shape != (d_model, d_model):
        return _verdict(False, f"A must be {d_model} x {d_model}, got shape {tuple(a.shape)}.")
    if not torch.isfinite(a).all():
        return _verdict(False, "A holds NaN or infinite entries, so its scores have no largest key.")
    m = torch.arange(n_positions)

    def best_keys(which: str) -> torch.Tensor:
        pe = sinusoidal_at(m, d_model, base=base, layout=which, dtype=torch.float64)
        return (pe @ a @ pe.T).argmax(-1)              # (query m,) best key n

    best = best_keys(layout)
    if torch.equal(best[j:], m[j:] - j):
        return _verdict(True, f"Every query m >= {j} scores highest on the key n = m - {j}: "
                        f"PE(m)^T A PE(n) peaks {j} tokens back ({layout} layout).")
    other = "concat" if layout == "interleaved" else "interleaved"
    if j and torch.equal(best_keys(other)[j:], m[j:] - j):
        return _verdict(False, f"This A peaks {j} back for the {other} layout, not the {layout} one. "
                        "Reorder its rows and columns the way the layout reorders the dimensions.")
    if j and torch.equal(best[: n_positions - j], m[: n_positions - j] + j):
        return _verdict(False, f"This head attends {j} tokens ahead, n = m + {j}: check the sign of the "
                        "shift.")
    if torch.equal(best, m):
        return _verdict(False, "Every query attends to itself (n = m), as with A = I. The score must "
                        "peak at an offset, not at the query's own position.")
    pe = sinusoidal_at(m, d_model, base=base, layout=layout, dtype=torch.float64)
    scores = pe @ a @ pe.T
    if torch.allclose(scores, scores[:1, :1].expand_as(scores)):
        return _verdict(False, "Every key gets the same score, so the head has no preference at all.")
    return _verdict(False, f"Some queries m >= {j} peak elsewhere than at n = m - {j}. Which matrix "
                    "turns PE(n) into the encoding of another position, the same way at every n?")


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
    from ._validate import check_base, check_even

    half = check_even("d_model", d_model) / 2
    base = check_base(base)
    value = _number(answer)
    if value is None or not math.isfinite(value):
        return _verdict(False, "Give the drop as one number (finite, positive).")
    ln_b = math.log(base)
    right = half * math.log(10) / ln_b
    if _close(value, right):
        return _verdict(True, f"(d/2)(1 - (ln k + gamma) / ln b) loses (d/2) ln 10 / ln b = {right:.4g} "
                        "per factor 10 in k: a straight line on a log k axis.")
    if _close(value, -right):
        return _verdict(False, "That is the change, a negative number; give the drop as a positive number.")
    if _close(value, 2 * right):
        return _verdict(False, "The sum has d/2 cosines (one per pair), not d.")
    if _close(value, half / ln_b):
        return _verdict(False, "That is the drop per factor e in k. Multiplying k by 10 adds ln 10 to ln k.")
    if _close(value, half * ln_b / math.log(10)):
        return _verdict(False, "The ratio is upside down: ln k / ln b grows by ln 10 / ln b.")
    if _close(value, right, 0.1):
        return _verdict(False, f"Within 10% of the approximation's drop, {right:.4g}, but not equal to it: this "
                        "looks like a measured drop of the exact sum, which wiggles. The question asks for the "
                        "straight line's slope, (d/2) ln 10 / ln b.")
    return _verdict(False, "Write the approximation at k and at 10 k and subtract: ln(10 k) = ln k + ln 10.")


# --- chapter 10
def check_cache_rounding_error(answer: Any, dtype: torch.dtype = torch.bfloat16) -> bool:
    """Chapter 10: the largest error of a cosine or sine (a number in [-1, 1]) stored in ``dtype``.

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
    eps = torch.finfo(dtype).eps                 # the gap just above 1: 2^-(p-1)
    bits = 1 - int(round(math.log2(eps)))        # p, the significant bits
    right = 2.0 ** -(bits + 1)
    name = str(dtype).removeprefix("torch.")
    if _close(value, right):
        return _verdict(True, f"{name} keeps {bits} significant bits: below 1 its numbers are 2^-{bits} apart, "
                        f"and rounding to the nearest errs by at most half of that, 2^-{bits + 1}.")
    if _close(value, 2 * right):
        return _verdict(False, "That is the whole gap between neighbours below 1 (and the largest error of "
                        "rounding relative to a number's size, reached just above a power of two); a cosine's "
                        "error is at most half of it, since rounding to the nearest neighbour errs by at most "
                        "half a gap.")
    if _close(value, eps) or _close(value, eps / 2):
        return _verdict(False, "That is (half) the gap just above 1, torch.finfo(dtype).eps. A cosine is at "
                        "most 1, and below 1 the numbers are twice as dense.")
    return _verdict(False, f"Count the significant bits of {name} (the implicit leading one included) and "
                    "find the gap between neighbours in [1/2, 1).")


def check_rope_traffic(answer: Any, shape: Sequence[int] = (1, 8, 2048, 64), *, layout: str = "half") -> bool:
    """Chapter 10: the bytes that eager ``apply_rope_cached`` reads and writes, as a multiple of ``x``'s bytes.

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
    from . import numerics
    from .encodings import apply_rope_cached, rope_cos_sin

    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence) or len(shape) != 4:
        raise ValueError(f"shape must be (batch, heads, n, d), got {shape!r}")
    batch, heads, n = (check_positive_int(k, v) for k, v in zip(("batch", "heads", "n"), shape[:3]))
    d = check_even("d", shape[3])
    layout = check_choice("layout", layout, ("interleaved", "half"))
    value = _number(answer)
    if value is None:
        return _verdict(False, "Give the traffic as one number: bytes read and written / bytes of x.")
    x = torch.zeros(batch, heads, n, d)
    cos, sin = rope_cos_sin(torch.arange(n), d)
    counted = numerics.memory_traffic(lambda: apply_rope_cached(x, cos, sin, layout=layout))
    x_bytes = x.numel() * x.element_size()
    right = (counted["read"] + counted["written"]) / x_bytes
    cache = 2 * cos.numel() * cos.element_size() / x_bytes
    if _close(value, right):
        return _verdict(True, f"{len(counted['ops'])} eager operations move {right:g} times the bytes of x: "
                        "every product, sum and copy reads its inputs and writes its result.")
    if _close(value, 2) or _close(value, 2 + cache):
        return _verdict(False, "That is one pass in and one out, what a fused kernel does. Eager PyTorch runs "
                        "each product and sum as its own operation, which writes its result to memory and "
                        "reads it back in the next one.")
    if _close(value, right - 4 * cache / 2) or _close(value, right - cache):
        return _verdict(False, "Close: each of the four products also reads a cos or sin table.")
    return _verdict(False, "List the operations (numerics.memory_traffic(...)['ops'] shows them) and add, for "
                    "each, the sizes of what it reads and what it writes, in units of x.")


# --- chapters 5-7


def check_learned_vs_sinusoidal(learned: Any, sinusoidal: Any, *, length: int = 12, threshold: float = 0.8) -> bool:
    """Chapter 5: a learned and a sinusoidal ``TinyTransformer``, each trained on
    ``book.tasks.local_sum`` (the sum of the token and the one before it, mod 10).

    Both models are scored on 500 fresh sequences of ``length`` tokens (a fixed
    seed, never used for training): each must get more than ``threshold`` of
    the rule's tokens right. Recognises a missing model, the two schemes
    swapped or another scheme, a learned table too short for ``length``, and
    an untrained or under-trained model (saying so when it is more than half
    right), and a model that cannot run on the test tokens (a wrong vocabulary
    size); it never raises on the students' models. The verdict prints no
    accuracy (it would depend on the CPU); the teacher's script gets ``True``
    or ``False``.

    Raises:
        TypeError / ValueError: if ``length`` is not an integer >= 2 or
            ``threshold`` is not in (0, 1) (the teacher's call is wrong).
    """
    from torch import nn

    from . import models, tasks

    length = check_positive_int("length", length)
    if length < 2:
        raise ValueError(f"length must be >= 2 (the rule reads one token back), got {length}")
    threshold = check_real("threshold", threshold)
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must lie in (0, 1), got {threshold}")
    pair = {"learned": learned, "sinusoidal": sinusoidal}
    for want, model in pair.items():
        if not isinstance(model, nn.Module) or not hasattr(model, "position"):
            return _verdict(False, f"Give two trained models: build the {want} one with "
                            f"models.TinyTransformer(10, position={want!r}, ...) and train it with models.train.")
    if learned.position == "sinusoidal" and sinusoidal.position == "learned":
        return _verdict(False, "The two models are swapped: pass the learned one first.")
    for want, model in pair.items():
        if model.position != want:
            return _verdict(False, f"The {want} model was built with position={model.position!r}.")
    rows = getattr(learned, "max_len", None)
    if isinstance(rows, int) and rows < length:
        return _verdict(False, f"The learned table has {rows} rows, too few for sequences of "
                        f"{length} tokens: build it with max_len >= {length}.")
    test = tasks.local_sum(500, length, generator=torch.Generator().manual_seed(20170612))
    acc = {}
    for name, model in pair.items():
        try:
            with torch.no_grad():
                acc[name] = float(models.accuracy_by_position(model, test).nanmean())
        except Exception:  # a student's model: any failure is a hint, never a crash
            return _verdict(False, f"The {name} model could not score tokens 0 .. 9: build it with "
                            f"models.TinyTransformer(10, position={name!r}, ...), vocabulary size 10.")
    weak = [name for name, a in acc.items() if not a > threshold]
    if weak:
        near = all(acc[name] > 0.5 for name in weak)
        return _verdict(False, f"The {' and the '.join(weak)} model does not apply the rule yet (at most "
                        f"{threshold:.0%} of held-out tokens right" + (", but more than half" if near else "")
                        + f"). Train on tasks.local_sum sequences of {length} tokens, for more steps or with "
                        "a larger learning rate.")
    return _verdict(True, f"Both models get more than {threshold:.0%} of held-out tokens right: inside the "
                    "trained length, a learned table and sin/cos both let the model find the token one back, "
                    "as Vaswani et al. found for translation (Table 3, row E). Only the sinusoidal model "
                    "runs past max_len.")


__all__ += ["check_learned_vs_sinusoidal"]


# --------------------------------------------------------------- chapters 8 and 9
def check_alibi_neutral_weight(answer: Any, n_heads: int) -> bool:
    """Chapter 8: with neutral content (every score equal before the penalty),
    the weight a late query of each ALiBi head puts on the keys at offsets 0
    and 1 together, in head order.

    With slope ``m`` the weights fall as ``e^(-m k)`` with the offset ``k``, a
    geometric distribution. The answer asked for is its limit for a long past
    (``n >> 1/m`` keys): offsets 0 and 1 get
    ``(1 + e^(-m))(1 - e^(-m)) = 1 - e^(-2m)``. With ``n`` keys the exact
    weight is ``(1 - e^(-2m)) / (1 - e^(-n m))``, larger for a gentle head at
    short lengths (``m = 2^-8``: 0.066 at ``n = 32``, limit 0.0078); an answer
    equal to it for one ``n`` from 2 to 100000 is recognised with its own
    hint, unless it is within 1% of the limit in every head (a rounded answer:
    more digits, says the hint). Also recognises the weight on offset 0 alone
    (``1 - e^(-m)``), the slopes given instead of weights, and the heads in
    reverse order.

    Raises:
        TypeError / ValueError: if ``n_heads`` is not an integer >= 1.
    """
    n_heads = check_positive_int("n_heads", n_heads)
    got = _per_head(answer, n_heads, "weights")
    if got is None:
        return False
    slopes = alibi_slopes(n_heads).to(torch.float64)
    right = 1 - torch.exp(-2 * slopes)

    def same(a: torch.Tensor) -> bool:
        return bool(torch.allclose(got, a, rtol=1e-3, atol=1e-6))

    if same(right):
        return _verdict(True, "Offsets 0 and 1 get 1 - e^(-2m) of a head's weight: "
                        + ", ".join(f"{v:.3f}" for v in right.tolist()) + ". The penalty alone focuses little.")
    if same(1 - torch.exp(-slopes)):
        return _verdict(False, "That is the weight on offset 0 alone. The rule needs offsets 0 and 1: "
                        "add the weight e^(-m)(1 - e^(-m)) of offset 1.")
    if same(slopes):
        return _verdict(False, "Those are the slopes m themselves. The weight on offsets 0 and 1 is 1 - e^(-2m).")
    if same(right.flip(0)):
        return _verdict(False, "The right numbers in reverse order: head 1 has the steepest slope.")
    if bool(torch.allclose(got, right, rtol=1e-2, atol=1e-6)):   # before the finite-n search: rounding
        return _verdict(False, "Close: within 1% of 1 - e^(-2m) in every head, but not within 0.1%. "
                        "Give more digits (the gentle head's weight is below 0.01).")
    n_keys = torch.arange(2, 100_001, dtype=torch.float64)[:, None]
    finite = right / (1 - torch.exp(-n_keys * slopes))         # (n, heads)
    hit = torch.isclose(finite, got, rtol=1e-3, atol=1e-6).all(dim=1)
    if bool(hit.any()):
        n = int(n_keys[hit.nonzero()[0, 0], 0])
        return _verdict(False, f"That is the exact weight with {n} keys, (1 - e^(-2m)) / (1 - e^(-n m)). The "
                        "exercise asks for the limit of a long past (n much larger than 1/m): 1 - e^(-2m).")
    return _verdict(False, "Compute the slopes with alibi_slopes, then 1 - e^(-2m) for each.")


def check_first_untrained_row(answer: Any, train_len: int, max_len: int) -> bool:
    """Chapter 8: the index of the first row of a learned position table
    (``max_len`` rows) that training on inputs of ``train_len`` tokens never
    updates. Positions are counted from 0, so training reads rows
    ``0 .. train_len - 1`` and the first row left at its random start is
    ``train_len``. Recognises the last trained row and counting from 1.

    Raises:
        TypeError / ValueError: if the lengths are not integers >= 1, or
            ``max_len <= train_len`` (then no row is left untrained).
    """
    train_len = check_positive_int("train_len", train_len)
    max_len = check_positive_int("max_len", max_len)
    if max_len <= train_len:
        raise ValueError(f"max_len must be larger than train_len, got {max_len} <= {train_len}")
    row = _whole_number(answer)
    if row is None:
        return _verdict(False, "Give a whole row index.")
    if row == train_len:
        return _verdict(True, f"Inputs of {train_len} tokens use positions 0 .. {train_len - 1}, so rows "
                        f"{train_len} .. {max_len - 1} never receive a gradient (weight decay aside) and "
                        "keep their random start.")
    if row == train_len - 1:
        return _verdict(False, f"Row {row} is the last one training reads: positions run from 0 to "
                        f"{train_len - 1}.")
    if row == train_len + 1:
        return _verdict(False, "Positions are counted from 0: the first untrained row comes one earlier.")
    return _verdict(False, f"Which positions does an input of {train_len} tokens use? Then which row comes after "
                    "the last of them?")


def check_rope_stretch(answer: Any, model: Any, batch: Any, train_len: int, *, scale: float = 4.0) -> bool:
    """Chapter 8: the accuracy of a RoPE ``model`` (a
    ``book.models.TinyTransformer``) on ``batch`` with Position Interpolation
    and with YaRN at ``scale`` and ``original_max_len = train_len``, without
    training: ``answer`` maps ``"PI"`` and ``"YaRN"`` to ``(within, past)``,
    the mean accuracy over positions ``1 .. train_len - 1`` (position 0 has
    no target) and over positions ``train_len`` on
    (``book.models.accuracy_by_position``). The check recomputes them and
    leaves the model's RoPE unscaled. Recognises the two numbers swapped and
    position 0 counted (``accuracy_by_position`` gives NaN there).

    Raises:
        TypeError / ValueError: if ``train_len`` is not an integer >= 2 or
            ``scale`` is below 1.
    """
    from .models import accuracy_by_position

    train_len = check_positive_int("train_len", train_len)
    if train_len < 2:
        raise ValueError(f"train_len must be at least 2, got {train_len}")
    scale = check_real("scale", scale)
    if scale < 1:
        raise ValueError(f"scale must be >= 1, got {scale}")
    if isinstance(answer, dict) and all(isinstance(k, str) for k in answer):   # "pi", "yarn" will do
        answer = {{"pi": "PI", "yarn": "YaRN"}.get(k.lower(), k): v for k, v in answer.items()}
    if not isinstance(answer, dict) or set(answer) != {"PI", "YaRN"}:
        return _verdict(False, 'Give a dict {"PI": (within, past), "YaRN": (within, past)}.')
    truth = {}
    try:
        for rule in ("PI", "YaRN"):
            model.set_rope_scaling(rule=rule, scale=scale, original_max_len=train_len)
            acc = accuracy_by_position(model, batch)
            truth[rule] = (float(acc[1:train_len].mean()), float(acc[train_len:].mean()))
    finally:
        model.set_rope_scaling()
    try:
        got = {rule: tuple(float(v) for v in answer[rule]) for rule in truth}
    except (TypeError, ValueError):
        return _verdict(False, "Each rule needs two numbers: (within, past).")
    if any(len(v) != 2 for v in got.values()):
        return _verdict(False, "Each rule needs two numbers: (within, past).")

    def near(a: float, b: float) -> bool:
        return abs(a - b) < 0.01

    if all(near(got[r][0], truth[r][0]) and near(got[r][1], truth[r][1]) for r in truth):
        return _verdict(True, "Your accuracies match the model's, within 0.01. Compare PI's and YaRN's "
                        f"within {train_len} tokens with unchanged RoPE's before judging which rule helps.")
    if all(near(got[r][0], truth[r][1]) and near(got[r][1], truth[r][0]) for r in truth):
        return _verdict(False, "The two numbers are swapped: first within the training length, then past it.")
    if any(math.isnan(v) for pair in got.values() for v in pair):
        return _verdict(False, "Position 0 has no target (accuracy_by_position gives NaN there); average "
                        f"positions 1 .. {train_len - 1} only.")
    if any(math.isinf(v) for pair in got.values() for v in pair):
        return _verdict(False, "An accuracy is a fraction between 0 and 1, not infinite.")
    if all(near(got[r][i] / 100, truth[r][i]) for r in truth for i in (0, 1)):
        return _verdict(False, "These look like percentages: give each accuracy as a fraction between 0 and 1.")
    if all(abs(got[r][i] - truth[r][i]) < 0.05 for r in truth for i in (0, 1)):
        return _verdict(False, "Close, but not within 0.01. Check which positions you average: 1 .. "
                        f"{train_len - 1} within, {train_len} to the end past (the model on the same batch).")
    return _verdict(False, "Set the rule with model.set_rope_scaling(rule=..., scale=..., "
                    "original_max_len=...), measure models.accuracy_by_position, and reset with "
                    "model.set_rope_scaling().")


def check_yarn_pairs(answer: Any, d_model: int, *, original_max_len: int, alpha: float = 1.0,
                     beta: float = 32.0, ramp: str = "code", base: float = 10000.0) -> bool:
    """Chapter 9: which RoPE pairs YaRN keeps (``gamma = 1``), blends
    (``0 < gamma < 1``) and interpolates like PI (``gamma = 0``), for the
    given thresholds and ramp (``book.scaling.yarn_ramp``). ``answer`` is a
    dict with the keys ``"kept"``, ``"blended"`` and ``"interpolated"``, each
    a list of pair indices. Recognises the other ramp's answer and pairs
    counted from 1.

    Raises:
        ValueError: as ``book.scaling.yarn_ramp`` for bad settings.
    """
    from .scaling import yarn_ramp

    gamma = yarn_ramp(d_model, original_max_len=original_max_len, alpha=alpha, beta=beta, ramp=ramp, base=base)
    keys = ("kept", "blended", "interpolated")

    def groups(g: torch.Tensor) -> dict[str, list[int]]:
        return {"kept": (g == 1).nonzero().flatten().tolist(),
                "blended": ((g > 0) & (g < 1)).nonzero().flatten().tolist(),
                "interpolated": (g == 0).nonzero().flatten().tolist()}

    if not isinstance(answer, dict) or set(answer) != set(keys):
        return _verdict(False, 'Give a dict with the keys "kept", "blended" and "interpolated", '
                        "each a list of pair indices.")
    got: dict[str, list[int]] = {}
    for k in keys:
        try:
            indices = [_whole_number(i) for i in answer[k]]
        except (TypeError, ValueError, RuntimeError):
            indices = [None]
        if any(i is None for i in indices):
            return _verdict(False, "Each group is a list of whole pair indices.")
        got[k] = sorted(i for i in indices if i is not None)
    right = groups(gamma)
    if got == right:
        return _verdict(True, f"With the {ramp}'s ramp: kept {right['kept']}, blended {right['blended']}, "
                        f"interpolated {right['interpolated']}.")
    other = "paper" if ramp == "code" else "code"
    if got == groups(yarn_ramp(d_model, original_max_len=original_max_len, alpha=alpha, beta=beta,
                               ramp=other, base=base)):
        return _verdict(False, f"That is the {other}'s ramp; this check asks for ramp={ramp!r}.")
    if got == {k: [i + 1 for i in v] for k, v in right.items()}:
        return _verdict(False, "Pairs are counted from 0 (pair 0 is the fastest).")
    return _verdict(False, "Compute gamma with scaling.yarn_ramp and sort the pairs by gamma = 1, "
                    "0 < gamma < 1 and gamma = 0.")


def check_dynamic_ntk(answer: Any, d_model: int, *, original_max_len: int, seq_len: int,
                      base: float = 10000.0, form: str = "paper", factor: float | None = None) -> bool:
    """Chapter 9: for dynamic NTK (``book.scaling.dynamic_ntk_frequencies``
    with the same ``form`` and ``factor``: the book's ``s = max(1, n / L)``,
    or transformers' ``s = 1 + factor (n / L - 1)`` for ``n > L``),
    ``answer = (first, divisor)``: the first input length ``n`` at which the
    slowest pair's frequency changes, and the factor by which it is divided
    at ``seq_len``. Recognises ``L`` itself as the first length, the factor by
    which the base is multiplied (``s^(d/(d-2))``) given as the divisor, and,
    for transformers' form, the book's divisor ``n / L`` instead.

    Raises:
        TypeError / ValueError: for lengths that are not integers >= 1,
            ``seq_len <= original_max_len`` (then nothing is divided), or a
            ``form``/``factor`` that ``dynamic_ntk_frequencies`` rejects.
    """
    from .scaling import dynamic_ntk_frequencies

    original_max_len = check_positive_int("original_max_len", original_max_len)
    seq_len = check_positive_int("seq_len", seq_len)
    if seq_len <= original_max_len:
        raise ValueError(f"seq_len must be larger than original_max_len, got {seq_len} <= {original_max_len}")
    old = frequencies(d_model, base=base)
    right_first = original_max_len + 1       # s > 1 from n = L + 1 on
    right_div = float(old[-1] / dynamic_ntk_frequencies(d_model, seq_len, original_max_len=original_max_len,
                                                        base=base, form=form, factor=factor)[-1])
    try:
        first, divisor = (float(v) for v in answer)
    except (TypeError, ValueError):
        return _verdict(False, "Give two numbers: (first length that changes, divisor at seq_len).")
    ok_first, ok_div = first == right_first, _close(divisor, right_div)
    if ok_first and ok_div:
        rule = "n / L" if form == "paper" else "1 + factor (n / L - 1)"
        return _verdict(True, f"Up to {original_max_len} tokens s = 1; from {right_first} on s = {rule} > 1. At "
                        f"{seq_len} tokens the slowest pair is divided by s = {right_div:g}, like PI.")
    if first == original_max_len:
        return _verdict(False, f"At n = L = {original_max_len}, s is still exactly 1.")
    s = right_div
    if form == "transformers" and not ok_div and _close(divisor, seq_len / original_max_len):
        return _verdict(False, "That is the book's (and the paper's) s = n / L. transformers' form scales "
                        "harder: s = 1 + factor (n / L - 1).")
    if not ok_div and _close(divisor, 1 / s):
        return _verdict(False, f"That is the factor the frequency is multiplied by, 1 / s; the divisor is "
                        f"its inverse, s = {s:g}.")
    if not ok_div and _close(divisor, s ** (d_model / (d_model - 2))):
        return _verdict(False, "That is the factor on the base. The slowest pair, theta = base^(-(d-2)/d), "
                        "is divided by (s^(d/(d-2)))^((d-2)/d) = s.")
    if not ok_first:
        return _verdict(False, "Find the smallest n at which s becomes larger than 1.")
    return _verdict(False, f"Compare the slowest pair's frequency at {seq_len} tokens with RoPE's.")


def check_turned_pairs(answer: Any, d_model: int, *, original_max_len: int, base: float = 10000.0) -> bool:
    """Chapter 9: how many RoPE pairs make at least one full turn within the
    training length (wavelength ``2 pi / theta_i <= L``,
    ``book.scaling.turned_pairs``). Recognises the count of pairs that never
    turn, the index of the last turned pair, and the pairs with more than
    YaRN's 32 turns. The list of the turned pairs' indices is accepted too.

    Raises:
        ValueError: as ``book.scaling.turned_pairs``.
    """
    from .scaling import turned_pairs

    right = turned_pairs(d_model, original_max_len=original_max_len, base=base)
    n = _whole_number(answer)
    listed = _whole_list(answer) if n is None else None
    if listed is not None and sorted(listed) == list(range(right)):
        return _verdict(True, f"These are the turned pairs, 0 .. {right - 1}: {right} of them, with wavelengths up "
                        f"to {original_max_len} positions.")
    if n is None:
        return _verdict(False, "Give a whole number of pairs.")
    if n == right:
        return _verdict(True, f"Pairs 0 .. {right - 1} have wavelengths up to {original_max_len} positions; "
                        f"the other {d_model // 2 - right} never complete a turn within the training length.")
    if n == d_model // 2 - right:
        return _verdict(False, "That counts the pairs that never turn. Count those with 2 pi / theta_i <= L.")
    if n == right - 1:
        return _verdict(False, "Pairs are counted from 0: the count is one more than the last index.")
    turns = original_max_len * frequencies(d_model, base=base) / (2 * math.pi)
    if n == int((turns > 32).sum()):
        return _verdict(False, "That counts the pairs with more than 32 turns (YaRN's beta). One turn is enough.")
    return _verdict(False, "Compare each wavelength 2 pi / theta_i, theta_i = base^(-2i/d), with L.")
