"""Self-checks of chapter 7, *ALiBi, T5's buckets, and no position encoding at all* (``notebooks/07_relative``).

Checks, in the chapter's order: ``check_alibi_slopes``, ``check_t5_buckets``, ``check_read_positions``.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable

import torch

from .._validate import check_positive_int
from ..encodings import alibi_slopes, t5_relative_bucket
from ._feedback import _is_complex, _numbers, _per_head, _per_head_same, _real_tensor, _verdict, diagnose

__all__ = [
    "check_alibi_slopes",
    "check_t5_buckets",
    "check_read_positions",
]


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
    half = (
        answer.dtype if isinstance(answer, torch.Tensor) and answer.dtype in (torch.float16, torch.bfloat16) else None
    )
    same = _per_head_same(rtol=1e-5, atol=0)
    if same(got, right):
        return _verdict(True, f"Slopes for {n_heads} heads: {listed}.")
    if half is not None and same(got, right.to(half).to(torch.float64)):
        return _verdict(True, f"Slopes for {n_heads} heads, right to {str(half)[6:]} precision: {listed}.")
    if bool(torch.allclose(got, right, rtol=1e-2, atol=0)):
        return _verdict(
            False,
            "Close, but only to about three digits: keep the slopes in float32 or float64, without rounding them.",
        )
    power = 1 << (n_heads.bit_length() - 1)  # nearest power of two <= n_heads
    if same(got.sort().values, right.sort().values):
        if power == n_heads:
            return _verdict(
                False, f"The right numbers in the wrong order: head h takes 2^(-8h/{n_heads}), steepest first."
            )
        return _verdict(
            False,
            "The right numbers in the wrong order: the heads of the nearest smaller power of "
            "two come first, steepest first, then the extra heads.",
        )
    h = torch.arange(1, n_heads + 1, dtype=torch.float64)
    if n_heads == 1:
        return _verdict(False, "With one head the rule 2^(-8h/n) gives a single slope, 2^-8 = 1/256.")
    if power == n_heads:
        if same(got, 2.0**-h):
            return _verdict(
                False,
                f"2^-h is the rule for 8 heads only. For {n_heads} heads the slopes are "
                f"2^(-8h/{n_heads}), from 2^-(8/{n_heads}) down to 2^-8.",
            )
        return _verdict(False, f"{n_heads} is a power of two: the slopes are 2^(-8h/{n_heads}), h = 1 .. {n_heads}.")
    bigger = alibi_slopes(2 * power).to(torch.float64)
    base_part = alibi_slopes(power).to(torch.float64)
    hint = diagnose(
        got,
        [
            (
                2.0 ** (-8.0 * h / n_heads),
                f"2^(-8h/n) is the rule when n is a power of two; {n_heads} is not. Take "
                f"the {power} slopes of {power} heads, then every other slope of the sequence for {2 * power} heads.",
            ),
            (
                bigger[:n_heads],
                f"These are the first {n_heads} slopes for {2 * power} heads. Press et al. start "
                f"from the nearest smaller power of two, {power}, and add every other slope of the "
                f"{2 * power}-head sequence.",
            ),
            (
                torch.cat([base_part, bigger[: n_heads - power]]),
                f"The first {power} are right. The extra heads take "
                f"every other slope of the {2 * power}-head sequence (its 1st, 3rd, 5th, ..), not its first ones.",
            ),
        ],
        same=same,
    )
    if hint is not None:
        return _verdict(False, hint)
    if same(got[:power], base_part):
        return _verdict(
            False,
            f"The first {power} are right. The extra {n_heads - power} heads take every "
            f"other slope of the {2 * power}-head sequence, starting with its first.",
        )
    return _verdict(
        False, f"Start from the {power}-head slopes 2^(-8h/{power}) and Press et al.'s rule for other head counts."
    )


def check_t5_buckets(answer: Any, distance: int = 20, *, num_buckets: int = 32, max_distance: int = 128) -> bool:
    """Chapter 7: T5's encoder buckets of a key ``distance`` positions before the
    query and of one ``distance`` positions after it, as ``(before, after)``.

    The right pair is :func:`book.encodings.t5_relative_bucket` of
    ``(-distance, distance)`` (bidirectional, Raffel et al., 2020, section
    2.1): ``(10, 26)`` for the chapter's 20, 32 buckets and 128. Accepts any
    list, tuple, tensor or array of the two whole numbers, in that order.
    Recognises the two swapped (the key after taken for the one before: the
    relative position is key minus query), the bucket before given twice
    (the ``num_buckets / 2`` a key after adds forgotten), the decoder's
    buckets (``bidirectional=False``), a rounded or ceiled logarithm instead of
    T5's floor, and the log part without the exact buckets added. Never
    raises on the answer.

    Raises:
        TypeError / ValueError: for sizes that :func:`book.encodings.t5_relative_bucket` refuses or a
            ``distance`` that is not an integer >= 1.
    """
    distance = check_positive_int("distance", distance)
    rel = torch.tensor([-distance, distance])
    right = t5_relative_bucket(rel, num_buckets=num_buckets, max_distance=max_distance).tolist()
    got = _numbers(answer, 2)
    if got is None or not all(math.isfinite(v) and v == round(v) for v in got):
        return _verdict(False, "Give the two buckets as whole numbers, (before, after), such as (3, 19).")
    pair = [int(v) for v in got]
    if pair == right:
        return _verdict(
            True,
            f"Buckets {right[0]} and {right[1]}: the key {distance} positions before falls in the first "
            f"{num_buckets // 2} buckets, the one after in the second half ({num_buckets // 2} more).",
        )
    half = num_buckets // 2
    exact = half // 2

    def log_bucket(rounding: Callable[[float], float]) -> int:
        if distance < exact:
            return distance
        return min(
            half - 1,
            exact + int(rounding(math.log(distance / exact) / math.log(max_distance / exact) * (half - exact))),
        )

    decoder = t5_relative_bucket(rel, bidirectional=False, num_buckets=num_buckets, max_distance=max_distance).tolist()
    other_rounding = "T5 takes the floor of the log part (an int cast), not a rounding."
    mistakes = [
        (
            right[::-1],
            "The two are swapped. T5's relative position is key minus query: a key before the query "
            f"is negative and stays in buckets 0 .. {half - 1}; a key after adds {half}.",
        ),
        ([right[0], right[0]], f"The key after the query goes to the second half: add {half}."),
        ([right[1], right[1]], f"The key before the query stays in the first half: no {half} added."),
        (
            decoder,
            "Those are the decoder's buckets (bidirectional=False). T5's encoder splits the "
            f"{num_buckets} buckets into {half} per direction.",
        ),
        ([log_bucket(round), log_bucket(round) + half], other_rounding),
        ([log_bucket(math.ceil), log_bucket(math.ceil) + half], other_rounding),
        (
            [log_bucket(math.floor) - exact, log_bucket(math.floor) - exact + half],
            f"The log part counts from the {exact} exact buckets: add {exact}.",
        ),
    ]
    hint = diagnose(pair, [(w, h) for w, h in mistakes if w != right], same=operator.eq)
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False,
        f"Per direction {half} buckets, exact below {exact}; from there "
        f"{exact} + floor(log(r/{exact}) / log({max_distance}/{exact}) * {half - exact}).",
    )


def check_read_positions(answer: Any, n_positions: int = 24) -> bool:
    """Chapter 7: a function that reads every position back from the first feature of a causal average.

    With neutral queries and keys and a first value whose feature 0 is 1 (the
    others 0), causal attention averages the first ``i + 1`` values, so
    position ``i`` gets ``1 / (i + 1)`` (``causal_out[:, 0]`` of the chapter,
    rebuilt here with :func:`book.attention.attention`). ``answer`` must map
    that float32 column to the positions ``0, 1, ..``; it is called on
    ``n_positions`` positions and on 512 (a function that assumes the
    chapter's length fails). Accepts any 1-D tensor, array or list of the
    whole numbers (floats that are whole too). Recognises ``1 / value``
    (``i + 1``), positions not rounded, and the column itself. Never raises
    on the answer, nor on what the function raises or returns.

    Raises:
        TypeError / ValueError: if ``n_positions`` is not an integer >= 1.
    """
    from ..attention import attention

    n_positions = check_positive_int("n_positions", n_positions)
    if not callable(answer):
        return _verdict(
            False, "Give a function: it takes causal_out[:, 0] and returns the positions, e.g. lambda first: ..."
        )
    for n in dict.fromkeys((n_positions, 512)):
        values = torch.zeros(n, 4)
        values[0, 0] = 1.0
        zeros = torch.zeros(n, 4)
        first = attention(zeros, zeros, values, causal=True)[0][:, 0]
        try:
            returned = answer(first.clone())
        except Exception as error:  # any error of the student's function is a hint
            return _verdict(False, f"Your function raised {type(error).__name__}: {error}"[:300])
        got = None if isinstance(returned, (str, bytes, dict)) or _is_complex(returned) else _real_tensor(returned)
        if got is not None and n != n_positions and got.numel() == n_positions:
            return _verdict(False, "Right for the chapter's length only: read the values, do not assume the length.")
        if got is None or got.numel() != n:
            return _verdict(
                False, f"For {n} positions your function must return {n} numbers (a tensor or a list), one a position."
            )
        got = got.flatten()
        positions = torch.arange(n, dtype=torch.float64)
        if torch.equal(got, positions):
            continue
        hint = diagnose(
            got,
            [
                (positions + 1, "These are i + 1: the first feature is 1/(i + 1), so subtract 1."),
                (first.double(), "That is the column itself; invert it: i = 1/value - 1."),
                (
                    positions,
                    "Close, but not whole numbers: 1/value is rounded in float32, so round the result.",
                ),
            ],
            same=lambda a, b: bool(torch.allclose(a, b, rtol=0, atol=1e-2)) and bool(torch.isfinite(a).all()),
        )
        if hint is not None:
            return _verdict(False, hint)
        return _verdict(
            False, f"For {n} positions that does not give 0, 1, .., {n - 1}: the first feature is 1/(i + 1)."
        )
    return _verdict(
        True,
        f"Every position comes back exactly, for {n_positions} and for 512 positions: the causal "
        "average gives position i the weight 1/(i + 1) on the first token.",
    )
