"""Self-checks of chapter 8, *Train short, test long: six schemes head to head* (``notebooks/08_extrapolation``).

Checks, in the chapter's order: ``check_alibi_neutral_weight``, ``check_first_untrained_row``,
``check_rope_stretch``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch

from .._validate import check_positive_int, check_real
from ..encodings import alibi_slopes
from ._feedback import _numbers, _per_head, _per_head_same, _verdict, _whole_number, diagnose

__all__ = [
    "check_alibi_neutral_weight",
    "check_first_untrained_row",
    "check_rope_stretch",
]


def check_alibi_neutral_weight(answer: Any, n_heads: int) -> bool:
    """Chapter 8: with neutral content (every score equal before the penalty),
    the weight a late query of each ALiBi head puts on the keys at offsets 0
    and 1 together, in head order.

    With slope ``m`` the weights fall as ``e^(-m k)`` with the offset ``k``, a
    geometric distribution. The answer asked for is its limit for a long past
    (``n >> 1/m`` keys): offsets 0 and 1 get
    ``(1 + e^(-m))(1 - e^(-m)) = 1 - e^(-2m)``. With ``n`` keys the exact
    weight is ``(1 - e^(-2m)) / (1 - e^(-n m))``, larger for a gentle head at
    short lengths (``m = 2^-8``: 0.066 at ``n = 32``, limit 0.0078).

    Accepts each head's weight within a relative ``1e-3``, or rounded to the
    nearest at 2 or more significant digits or at 3 or more decimal places
    (for two heads ``[0.12, 0.0078]``, ``[0.118, 0.008]`` and
    ``[0.1175, 0.007782]`` all pass). An answer equal to the exact weight for
    one ``n`` from 2 to 100000 is recognised with its own hint, unless it is
    within 1% of the limit in every head (then the hint asks for rounding to
    the nearest, or more digits). Also recognises the weight on offset 0
    alone (``1 - e^(-m)``), the slopes given instead of weights, and the
    heads in reverse order.

    Raises:
        TypeError / ValueError: if ``n_heads`` is not an integer >= 1.
    """
    n_heads = check_positive_int("n_heads", n_heads)
    got = _per_head(answer, n_heads, "weights")
    if got is None:
        return False
    slopes = alibi_slopes(n_heads).to(torch.float64)
    right = 1 - torch.exp(-2 * slopes)
    same = _per_head_same(rtol=1e-3, atol=1e-6)

    if same(got, right) or all(_rounded_from(a, r) for a, r in zip(got.tolist(), right.tolist())):
        rounded = "" if same(got, right) else " (your digits are these, rounded)"
        return _verdict(
            True,
            "Offsets 0 and 1 get 1 - e^(-2m) of a head's weight: "
            + ", ".join(f"{v:.4g}" for v in right.tolist())
            + rounded
            + ". The penalty alone focuses little.",
        )
    hint = diagnose(
        got,
        [
            (
                1 - torch.exp(-slopes),
                "That is the weight on offset 0 alone. The rule needs offsets 0 and 1: "
                "add the weight e^(-m)(1 - e^(-m)) of offset 1.",
            ),
            (slopes, "Those are the slopes m themselves. The weight on offsets 0 and 1 is 1 - e^(-2m)."),
            (right.flip(0), "The right numbers in reverse order: head 1 has the steepest slope."),
        ],
        same=same,
    )
    if hint is not None:
        return _verdict(False, hint)
    if bool(torch.allclose(got, right, rtol=1e-2, atol=1e-6)):  # before the finite-n search: rounding
        return _verdict(
            False,
            "Close: within 1% of 1 - e^(-2m) in every head, but not within 0.1%. "
            "Round to the nearest, or give more digits (the gentle head's weight is below 0.01).",
        )
    n_keys = torch.arange(2, 100_001, dtype=torch.float64)[:, None]
    finite = right / (1 - torch.exp(-n_keys * slopes))  # (n, heads)
    hit = torch.isclose(finite, got, rtol=1e-3, atol=1e-6).all(dim=1)
    if bool(hit.any()):
        n = int(n_keys[hit.nonzero()[0, 0], 0])
        return _verdict(
            False,
            f"That is the exact weight with {n} keys, (1 - e^(-2m)) / (1 - e^(-n m)). The "
            "exercise asks for the limit of a long past (n much larger than 1/m): 1 - e^(-2m).",
        )
    return _verdict(False, "Compute the slopes with alibi_slopes, then 1 - e^(-2m) for each.")


def _rounded_from(answer: float, right: float) -> bool:
    """Whether ``answer`` is ``right`` rounded to the nearest, at 2 or more
    significant digits or at 3 or more decimal places (``round(w, 3)``)."""
    forms = [float(f"{right:.{k}g}") for k in range(2, 18)] + [round(right, d) for d in range(3, 18)]
    return any(math.isclose(answer, form, rel_tol=1e-9) for form in forms)


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
        return _verdict(
            True,
            f"Inputs of {train_len} tokens use positions 0 .. {train_len - 1}, so rows "
            f"{train_len} .. {max_len - 1} never receive a gradient (weight decay aside) and "
            "keep their random start.",
        )
    hint = diagnose(
        row,
        [
            (train_len - 1, f"Row {row} is the last one training reads: positions run from 0 to {train_len - 1}."),
            (train_len + 1, "Positions are counted from 0: the first untrained row comes one earlier."),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False, f"Which positions does an input of {train_len} tokens use? Then which row comes after the last of them?"
    )


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
    from ..models import accuracy_by_position

    train_len = check_positive_int("train_len", train_len)
    if train_len < 2:
        raise ValueError(f"train_len must be at least 2, got {train_len}")
    scale = check_real("scale", scale)
    if scale < 1:
        raise ValueError(f"scale must be >= 1, got {scale}")
    if isinstance(answer, dict) and all(isinstance(k, str) for k in answer):  # "pi", "yarn" will do
        answer = {{"pi": "PI", "yarn": "YaRN"}.get(k.lower(), k): v for k, v in answer.items()}
    if not isinstance(answer, dict) or set(answer) != {"PI", "YaRN"}:
        return _verdict(False, 'Give a dict {"PI": (within, past), "YaRN": (within, past)}.')
    pairs = {rule: _numbers(answer[rule], 2) for rule in ("PI", "YaRN")}
    if any(pair is None for pair in pairs.values()):
        return _verdict(False, "Each rule needs two numbers: (within, past).")
    got = {rule: pair for rule, pair in pairs.items() if pair is not None}
    truth = {}
    try:
        for rule in ("PI", "YaRN"):
            model.set_rope_scaling(rule=rule, scale=scale, original_max_len=train_len)
            acc = accuracy_by_position(model, batch)
            truth[rule] = (float(acc[1:train_len].mean()), float(acc[train_len:].mean()))
    finally:
        model.set_rope_scaling()

    def near(a: float, b: float) -> bool:
        return abs(a - b) < 0.01

    if all(near(got[r][0], truth[r][0]) and near(got[r][1], truth[r][1]) for r in truth):
        return _verdict(
            True,
            "Your accuracies match the model's, within 0.01. Compare PI's and YaRN's "
            f"within {train_len} tokens with unchanged RoPE's before judging which rule helps.",
        )
    if all(near(got[r][0], truth[r][1]) and near(got[r][1], truth[r][0]) for r in truth):
        return _verdict(False, "The two numbers are swapped: first within the training length, then past it.")
    if any(math.isnan(v) for pair in got.values() for v in pair):
        return _verdict(
            False,
            "Position 0 has no target (accuracy_by_position gives NaN there); average "
            f"positions 1 .. {train_len - 1} only.",
        )
    if any(math.isinf(v) for pair in got.values() for v in pair):
        return _verdict(False, "An accuracy is a fraction between 0 and 1, not infinite.")
    if all(near(got[r][i] / 100, truth[r][i]) for r in truth for i in (0, 1)):
        return _verdict(False, "These look like percentages: give each accuracy as a fraction between 0 and 1.")
    if all(abs(got[r][i] - truth[r][i]) < 0.05 for r in truth for i in (0, 1)):
        return _verdict(
            False,
            "Close, but not within 0.01. Check which positions you average: 1 .. "
            f"{train_len - 1} within, {train_len} to the end past (the model on the same batch).",
        )
    return _verdict(
        False,
        "Set the rule with model.set_rope_scaling(rule=..., scale=..., "
        "original_max_len=...), measure models.accuracy_by_position, and reset with "
        "model.set_rope_scaling().",
    )
