"""Self-checks of chapter 5, *Learned positions: a table the model fills in* (``notebooks/05_learned``).

Checks, in the chapter's order: ``check_position_table_size``, ``check_learned_vs_sinusoidal``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch

from .._validate import check_positive_int, check_real
from ._feedback import _number, _verdict, diagnose

__all__ = [
    "check_position_table_size",
    "check_learned_vs_sinusoidal",
]


def check_position_table_size(answer: Any, max_len: int, d_model: int, *, n_layers: int = 1) -> bool:
    """Chapter 5: how many trainable numbers a learned position table holds.

    The table has one ``d_model``-vector per position: ``max_len * d_model``
    parameters, added once at the input (not per layer). Accepts the count as
    an int, a whole float (``1.6384e6``), a one-element tensor or array, or a
    one-element list or tuple (``[1638400]``). Recognises
    the positions or the width alone, their sum, a count per layer, a row too
    many or too few, the table's size in bytes (float32), and the sinusoidal
    answer (0, which has no parameters), and ``max_len ** d_model`` (``**``
    typed for ``*``). Never raises on the answer: anything that is not a
    finite whole number gets a hint.

    Raises:
        TypeError / ValueError: if the sizes are not positive integers.
    """
    max_len = check_positive_int("max_len", max_len)
    d_model = check_positive_int("d_model", d_model)
    n_layers = check_positive_int("n_layers", n_layers)
    value = _number(answer)
    if value == math.inf and _is_power(answer, max_len, d_model):  # an int too large for a float
        return _verdict(
            False, f"That is max_len ** d_model, {max_len} to the power {d_model}: multiply with *, not **."
        )
    if value is None or not math.isfinite(value):
        return _verdict(
            False, "Give the count as one finite whole number of parameters (not a string, NaN, or several numbers)."
        )
    if value != int(value):
        return _verdict(False, "Give a whole number of parameters.")
    right = max_len * d_model
    if value == right:
        return _verdict(
            True,
            f"{max_len} positions x {d_model} numbers each = {right:,} parameters (a sinusoidal table would add none).",
        )
    one_row_off = f"One row off: positions 0 .. {max_len - 1} are {max_len} rows."
    mistakes = [
        (max_len, "That counts the positions; each one has a whole vector of d_model numbers."),
        (d_model, "That is one position's vector; the table has one for every position."),
        (max_len + d_model, "The table is a matrix: multiply the number of rows by the row width."),
    ]
    if n_layers > 1:
        mistakes.append((right * n_layers, "The table is added once, to the input embeddings, not in every layer."))
    mistakes += [
        ((max_len - 1) * d_model, one_row_off),
        ((max_len + 1) * d_model, one_row_off),
        (4 * right, "That is the table's size in bytes (4 per float32 number); count the numbers."),
        (0, "Zero is the sinusoidal table's count; a learned table is all parameters."),
    ]
    hint = diagnose(value, mistakes, same=operator.eq)
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(False, f"Count rows x columns of the nn.Embedding(max_len={max_len}, d_model={d_model}) weight.")


def _is_power(answer: Any, base: int, exponent: int) -> bool:
    """Whether ``answer`` (or the one item of a list or tuple) is the integer ``base ** exponent``,
    compared only when that power has under a million bits."""
    for _ in range(8):
        if isinstance(answer, (list, tuple)) and len(answer) == 1:
            answer = answer[0]
    if isinstance(answer, bool) or not isinstance(answer, int) or exponent * math.log2(base + 1) > 1e6:
        return False
    return answer == base**exponent


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

    from .. import models, tasks

    length = check_positive_int("length", length)
    if length < 2:
        raise ValueError(f"length must be >= 2 (the rule reads one token back), got {length}")
    threshold = check_real("threshold", threshold)
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must lie in (0, 1), got {threshold}")
    pair = {"learned": learned, "sinusoidal": sinusoidal}
    for want, model in pair.items():
        if not isinstance(model, nn.Module) or not hasattr(model, "position"):
            return _verdict(
                False,
                f"Give two trained models: build the {want} one with "
                f"models.TinyTransformer(10, position={want!r}, ...) and train it with models.train.",
            )
    if learned.position == "sinusoidal" and sinusoidal.position == "learned":
        return _verdict(False, "The two models are swapped: pass the learned one first.")
    for want, model in pair.items():
        if model.position != want:
            return _verdict(False, f"The {want} model was built with position={model.position!r}.")
    rows = getattr(learned, "max_len", None)
    if isinstance(rows, int) and rows < length:
        return _verdict(
            False,
            f"The learned table has {rows} rows, too few for sequences of "
            f"{length} tokens: build it with max_len >= {length}.",
        )
    test = tasks.local_sum(500, length, generator=torch.Generator().manual_seed(20170612))
    acc = {}
    for name, model in pair.items():
        try:
            with torch.no_grad():
                acc[name] = float(models.accuracy_by_position(model, test).nanmean())
        except Exception:  # a student's model: any failure is a hint, never a crash
            return _verdict(
                False,
                f"The {name} model could not score tokens 0 .. 9: build it with "
                f"models.TinyTransformer(10, position={name!r}, ...), vocabulary size 10.",
            )
    weak = [name for name, a in acc.items() if not a > threshold]
    if weak:
        near = all(acc[name] > 0.5 for name in weak)
        return _verdict(
            False,
            f"The {' and the '.join(weak)} model does not apply the rule yet (at most "
            f"{threshold:.0%} of held-out tokens right"
            + (", but more than half" if near else "")
            + f"). Train on tasks.local_sum sequences of {length} tokens, for more steps or with "
            "a larger learning rate.",
        )
    return _verdict(
        True,
        f"Both models get more than {threshold:.0%} of held-out tokens right: inside the "
        "trained length, a learned table and sin/cos both let the model find the token one back, "
        "as Vaswani et al. found for translation (Table 3, row E). Only the sinusoidal model "
        "runs past max_len.",
    )
