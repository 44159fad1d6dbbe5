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

import torch

from ._validate import check_pair_index, check_positive_int, check_real
from .encodings import alibi_slopes, frequencies, sinusoidal_at

__all__ = [
    "check_permutation_matrix",
    "check_wavelength",
    "check_rotation_block",
    "check_closest_position",
    "check_position_table_size",
    "check_rope_angle",
    "check_alibi_slopes",
]


def _verdict(ok: bool, message: str) -> bool:
    print(textwrap.fill(("Correct! " if ok else "Not yet. ") + message, width=76))
    return ok


def check_permutation_matrix(answer: Any, perm: Sequence[int]) -> bool:
    """Chapter 1: is ``answer`` the matrix ``P`` with ``P @ X == X[perm]``?

    Accepts a tensor or a nested list. Recognises the usual mistakes: the wrong
    size, entries other than 0 and 1, a matrix that is not a permutation, and the
    transpose (which applies the inverse permutation).
    """
    perm = [int(i) for i in perm]
    n = len(perm)
    try:
        p = torch.as_tensor(answer, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return _verdict(False, "Give P as a torch tensor or a list of lists of 0s and 1s.")
    if p.shape != (n, n):
        return _verdict(False, f"P must be {n} x {n} (one row and one column per position), got shape {tuple(p.shape)}.")
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
    if isinstance(answer, torch.Tensor) and answer.numel() == 1:
        answer = answer.item()
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return None
    return float(answer)


def _close(a: float, b: float, rel: float = 1e-3) -> bool:
    return math.isclose(a, b, rel_tol=rel)


def check_wavelength(answer: Any, i: int, d_model: int, *, base: float = 10000.0) -> bool:
    """Chapter 2: the wavelength, in positions, of the sin/cos pair ``i``.

    The pair ``(2i, 2i+1)`` oscillates as ``sin(p w_i)`` with
    ``w_i = base^(-2i/d)``, so it repeats every ``2*pi / w_i = 2*pi * base^(2i/d)``
    positions. Recognises a missing ``2*pi``, the frequency given instead of
    the wavelength, and ``i`` used where the exponent needs ``2i``.

    Raises:
        TypeError / ValueError: if ``i`` is not a pair index of ``d_model``
            (the teacher's call is wrong, not the student's answer).
    """
    i = check_pair_index("i", i, d_model)
    value = _number(answer)
    if value is None:
        return _verdict(False, "Give the wavelength as one number (a float).")
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
    return _verdict(False, "Start from w_i = base^(-2i/d): sin(p w_i) repeats when p w_i grows by 2*pi.")


def check_rotation_block(answer: Any, k: float, i: int, d_model: int, *, base: float = 10000.0) -> bool:
    """Chapter 3: the 2x2 block of ``M_k`` that maps ``(sin(p w_i), cos(p w_i))`` to
    ``(sin((p+k) w_i), cos((p+k) w_i))``.

    Recognises the transpose (which shifts by ``-k``), angles in degrees, and
    the wrong frequency.

    Raises:
        TypeError / ValueError: if ``i`` is not a pair index of ``d_model`` or
            ``k`` is not a finite real number.
    """
    i = check_pair_index("i", i, d_model)
    k = check_real("k", k)
    try:
        m = torch.as_tensor(answer, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return _verdict(False, "Give the block as a 2 x 2 tensor or a list of two lists.")
    if m.shape != (2, 2):
        return _verdict(False, f"The block is 2 x 2 (it acts on one (sin, cos) pair), got shape {tuple(m.shape)}.")
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
    return _verdict(False, "Write sin((p+k)w) and cos((p+k)w) with the addition formulas and read off "
                    "the coefficients of sin(pw) and cos(pw).")


def check_closest_position(answer: Any, d_model: int, max_position: int, *, base: float = 10000.0) -> bool:
    """Chapter 4: which position ``p`` in ``1 .. max_position`` has the PE vector
    closest (Euclidean distance) to ``PE(0)``?

    Recognises ``0`` itself, the farthest position instead of the closest, and
    the neighbour ``1`` (close in the sequence, not in PE space).

    Raises:
        TypeError / ValueError: if ``max_position`` is not an integer >= 1.
    """
    max_position = check_positive_int("max_position", max_position)
    value = _number(answer)
    if value is None or value != int(value):
        return _verdict(False, "Give a whole position number.")
    p = int(value)
    pos = torch.arange(max_position + 1)
    dist = (sinusoidal_at(pos, d_model, base=base, dtype=torch.float64)
            - sinusoidal_at(torch.tensor([0]), d_model, base=base, dtype=torch.float64)).norm(dim=-1)
    best, worst = int(torch.argmin(dist[1:])) + 1, int(torch.argmax(dist[1:])) + 1
    if p == best:
        return _verdict(True, f"PE({p}) is {float(dist[p]):.4f} away from PE(0), closer than any other "
                        f"position up to {max_position}: there the fast pairs have turned almost a "
                        f"whole number of times and the slowest have hardly moved.")
    if p == 0:
        return _verdict(False, "Position 0 is PE(0) itself; search p = 1 .. max_position.")
    if not 1 <= p <= max_position:
        return _verdict(False, f"Search positions 1 .. {max_position} only.")
    if p == worst:
        return _verdict(False, "That is the farthest position. Take the argmin of the distances, not the argmax.")
    if p == 1:
        return _verdict(False, "Position 1 is next to 0 in the sentence, but the fast pairs have turned by "
                        "a whole radian. Compute the distances to PE(0) for every p.")
    return _verdict(False, f"PE({p}) is {float(dist[p]):.4f} away from PE(0); some position is closer. "
                    f"Compute all distances at once and take the argmin over p >= 1.")


def check_position_table_size(answer: Any, max_len: int, d_model: int, *, n_layers: int = 1) -> bool:
    """Chapter 5: how many trainable numbers a learned position table holds.

    The table has one ``d_model``-vector per position: ``max_len * d_model``
    parameters, added once at the input (not per layer). Recognises the
    positions or the width alone, their sum, a count per layer, and the
    sinusoidal answer (0, which has no parameters).

    Raises:
        TypeError / ValueError: if the sizes are not positive integers.
    """
    max_len = check_positive_int("max_len", max_len)
    d_model = check_positive_int("d_model", d_model)
    n_layers = check_positive_int("n_layers", n_layers)
    value = _number(answer)
    if value is None or value != int(value):
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
    if value == 0:
        return _verdict(False, "Zero is the sinusoidal table's count; a learned table is all parameters.")
    return _verdict(False, f"Count rows x columns of the nn.Embedding(max_len={max_len}, d_model={d_model}) weight.")


def check_rope_angle(answer: Any, m: float, i: int, d_model: int, *, base: float = 10000.0) -> bool:
    """Chapter 6: the angle, in radians, by which RoPE turns pair ``i`` of a
    vector at position ``m``: ``m * theta_i`` with ``theta_i = base^(-2i/d)``
    (Su et al., 2021, eq. 15).

    Recognises degrees, the exponent ``i/d`` instead of ``2i/d``, the frequency
    alone (position forgotten), and ``m / theta_i``.

    Raises:
        TypeError / ValueError: if ``i`` is not a pair index of ``d_model`` or
            ``m`` is not a finite real number.
    """
    i = check_pair_index("i", i, d_model)
    m = check_real("m", m)
    value = _number(answer)
    if value is None:
        return _verdict(False, "Give the angle as one number, in radians.")
    theta = float(frequencies(d_model, base=base)[i])
    right = m * theta
    if _close(value, right, 1e-6) or (right == 0 and value == 0):
        return _verdict(True, f"Pair {i} turns by theta_{i} = {base:g}^(-2*{i}/{d_model}) per position, "
                        f"so by {right:.6g} rad at position {m:g}.")
    if _close(value, math.degrees(right), 1e-6):
        return _verdict(False, "That is the angle in degrees; RoPE's cos and sin take radians.")
    if _close(value, m * base ** (-i / d_model), 1e-6):
        return _verdict(False, "The exponent is -2i/d, not -i/d: pair i holds features 2i and 2i+1.")
    if _close(value, theta, 1e-6):
        return _verdict(False, "That is theta_i, the turn per position. Multiply by the position m.")
    if theta and _close(value, m / theta, 1e-6):
        return _verdict(False, "theta_i = base^(-2i/d) is below 1 for i > 0: multiply m by it, don't divide.")
    return _verdict(False, "Start from theta_i = base^(-2i/d); the rotation at position m is m * theta_i.")


def check_alibi_slopes(answer: Any, n_heads: int) -> bool:
    """Chapter 7: ALiBi's slopes for ``n_heads`` heads, in head order
    (Press et al., 2022, section 3 and their reference code).

    Recognises the slopes in the wrong order, the geometric rule
    ``2^(-8h/n)`` used for a head count that is not a power of two, and the
    slopes ``2^-h``.

    Raises:
        TypeError / ValueError: if ``n_heads`` is not an integer >= 1.
    """
    n_heads = check_positive_int("n_heads", n_heads)
    try:
        got = torch.as_tensor(answer, dtype=torch.float64).flatten()
    except (TypeError, ValueError, RuntimeError):
        return _verdict(False, "Give the slopes as a list or tensor of numbers, one per head.")
    right = alibi_slopes(n_heads).to(torch.float64)
    if got.shape != right.shape:
        return _verdict(False, f"Give one slope per head: {n_heads} numbers, got {got.numel()}.")

    def same(a: torch.Tensor, b: torch.Tensor) -> bool:
        return bool(torch.allclose(a, b, rtol=1e-5, atol=0))

    if same(got, right):
        return _verdict(True, f"Slopes for {n_heads} heads: " + ", ".join(f"{v:.4g}" for v in right.tolist()) + ".")
    if same(got.sort().values, right.sort().values):
        return _verdict(False, "The right numbers in the wrong order: head 1 gets the largest slopes of the "
                        "power-of-two sequence, then the extra heads follow.")
    h = torch.arange(1, n_heads + 1, dtype=torch.float64)
    if same(got, 2.0 ** (-8.0 * h / n_heads)):
        return _verdict(False, f"2^(-8h/n) is the rule when n is a power of two; {n_heads} is not. Take the "
                        "slopes of the nearest smaller power of two, then every other slope of the "
                        "sequence for twice that power.")
    if same(got, 2.0 ** -h):
        return _verdict(False, "The slopes are 2^(-8h/n), spread over [2^-8, 2^-(8/n)], not 2^-h.")
    return _verdict(False, "Start from the 8-head slopes 1/2, 1/4, .., 1/256 and Press et al.'s rule for "
                    "other head counts.")
