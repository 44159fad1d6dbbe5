"""Self-checks of chapter 9, *Stretching RoPE to longer contexts* (``notebooks/09_long_context``).

Checks, in the chapter's order: ``check_yarn_pairs``, ``check_dynamic_ntk``, ``check_turned_pairs``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch

from .._validate import check_positive_int
from ..encodings import frequencies
from ._feedback import _close, _numbers, _verdict, _whole_list, _whole_number, diagnose

__all__ = [
    "check_yarn_pairs",
    "check_dynamic_ntk",
    "check_turned_pairs",
]


def check_yarn_pairs(
    answer: Any,
    d_model: int,
    *,
    original_max_len: int,
    alpha: float = 1.0,
    beta: float = 32.0,
    ramp: str = "code",
    base: float = 10000.0,
) -> bool:
    """Chapter 9: which RoPE pairs YaRN keeps (``gamma = 1``), blends
    (``0 < gamma < 1``) and interpolates like PI (``gamma = 0``), for the
    given thresholds and ramp (``book.scaling.yarn_ramp``). ``answer`` is a
    dict with the keys ``"kept"``, ``"blended"`` and ``"interpolated"``, each
    a list of pair indices. Recognises the other ramp's answer and pairs
    counted from 1.

    Raises:
        ValueError: as ``book.scaling.yarn_ramp`` for bad settings.
    """
    from ..scaling import yarn_ramp

    gamma = yarn_ramp(d_model, original_max_len=original_max_len, alpha=alpha, beta=beta, ramp=ramp, base=base)
    keys = ("kept", "blended", "interpolated")

    def groups(g: torch.Tensor) -> dict[str, list[int]]:
        return {
            "kept": (g == 1).nonzero().flatten().tolist(),
            "blended": ((g > 0) & (g < 1)).nonzero().flatten().tolist(),
            "interpolated": (g == 0).nonzero().flatten().tolist(),
        }

    if not isinstance(answer, dict) or set(answer) != set(keys):
        return _verdict(
            False, 'Give a dict with the keys "kept", "blended" and "interpolated", each a list of pair indices.'
        )
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
        return _verdict(
            True,
            f"With the {ramp}'s ramp: kept {right['kept']}, blended {right['blended']}, "
            f"interpolated {right['interpolated']}.",
        )
    other = "paper" if ramp == "code" else "code"
    hint = diagnose(
        got,
        [
            (
                groups(
                    yarn_ramp(d_model, original_max_len=original_max_len, alpha=alpha, beta=beta, ramp=other, base=base)
                ),
                f"That is the {other}'s ramp; this check asks for ramp={ramp!r}.",
            ),
            ({k: [i + 1 for i in v] for k, v in right.items()}, "Pairs are counted from 0 (pair 0 is the fastest)."),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False, "Compute gamma with scaling.yarn_ramp and sort the pairs by gamma = 1, 0 < gamma < 1 and gamma = 0."
    )


def check_dynamic_ntk(
    answer: Any,
    d_model: int,
    *,
    original_max_len: int,
    seq_len: int,
    base: float = 10000.0,
    form: str = "paper",
    factor: float | None = None,
) -> bool:
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
    from ..scaling import dynamic_ntk_frequencies

    original_max_len = check_positive_int("original_max_len", original_max_len)
    seq_len = check_positive_int("seq_len", seq_len)
    if seq_len <= original_max_len:
        raise ValueError(f"seq_len must be larger than original_max_len, got {seq_len} <= {original_max_len}")
    old = frequencies(d_model, base=base)
    right_first = original_max_len + 1  # s > 1 from n = L + 1 on
    right_div = float(
        old[-1]
        / dynamic_ntk_frequencies(
            d_model, seq_len, original_max_len=original_max_len, base=base, form=form, factor=factor
        )[-1]
    )
    pair = _numbers(answer, 2)
    if pair is None:
        return _verdict(False, "Give two numbers: (first length that changes, divisor at seq_len).")
    first, divisor = pair
    if not (math.isfinite(first) and math.isfinite(divisor)):
        return _verdict(False, "Both numbers are finite: a length and the divisor at seq_len.")
    ok_first, ok_div = first == right_first, _close(divisor, right_div)
    if ok_first and ok_div:
        rule = "n / L" if form == "paper" else "1 + factor (n / L - 1)"
        return _verdict(
            True,
            f"Up to {original_max_len} tokens s = 1; from {right_first} on s = {rule} > 1. At "
            f"{seq_len} tokens the slowest pair is divided by s = {right_div:g}, like PI.",
        )
    if first == original_max_len:
        return _verdict(False, f"At n = L = {original_max_len}, s is still exactly 1.")
    s = right_div
    mistakes: list[tuple[float, str]] = []
    if form == "transformers":
        mistakes.append(
            (
                seq_len / original_max_len,
                "That is the book's (and the paper's) s = n / L. "
                "transformers' form scales harder: s = 1 + factor (n / L - 1).",
            )
        )
    mistakes.append(
        (1 / s, f"That is the factor the frequency is multiplied by, 1 / s; the divisor is its inverse, s = {s:g}.")
    )
    mistakes.append(
        (
            s ** (d_model / (d_model - 2)),
            "That is the factor on the base. The slowest pair, "
            "theta = base^(-(d-2)/d), is divided by (s^(d/(d-2)))^((d-2)/d) = s.",
        )
    )
    hint = None if ok_div else diagnose(divisor, mistakes)
    if hint is not None:
        return _verdict(False, hint)
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
    from ..scaling import turned_pairs

    right = turned_pairs(d_model, original_max_len=original_max_len, base=base)
    listed = _whole_list(answer)  # the list first: [0] is pair 0, when only pair 0 turns
    if listed is not None and sorted(listed) == list(range(right)):
        return _verdict(
            True,
            f"These are the turned pairs, 0 .. {right - 1}: {right} of them, with wavelengths up "
            f"to {original_max_len} positions.",
        )
    n = _whole_number(answer)  # a count, also given alone in a list: [5]
    if n is None:
        return _verdict(False, "Give a whole number of pairs.")
    if n == right:
        return _verdict(
            True,
            f"Pairs 0 .. {right - 1} have wavelengths up to {original_max_len} positions; "
            f"the other {d_model // 2 - right} never complete a turn within the training length.",
        )
    turns = original_max_len * frequencies(d_model, base=base) / (2 * math.pi)
    hint = diagnose(
        n,
        [
            (d_model // 2 - right, "That counts the pairs that never turn. Count those with 2 pi / theta_i <= L."),
            (right - 1, "Pairs are counted from 0: the count is one more than the last index."),
            (
                int((turns > 32).sum()),
                "That counts the pairs with more than 32 turns (YaRN's beta). One turn is enough.",
            ),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(False, "Compare each wavelength 2 pi / theta_i, theta_i = base^(-2i/d), with L.")
