"""Self-checks of chapter 10, *Positions in today's models* (``notebooks/10_todays_models``).

Checks, in the chapter's order: ``check_two_bases``, ``check_prope_pairs``, ``check_mrope_patch``,
``check_axial_patch``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator
from typing import Any, Sequence

import torch

from .._validate import check_positive_int, check_real
from ..encodings.rope_2d import AxialConvention
from ._feedback import _angles, _real_tensor, _same_angles, _verdict, _whole_list, _whole_number, diagnose

__all__ = [
    "check_two_bases",
    "check_prope_pairs",
    "check_mrope_patch",
    "check_axial_patch",
]

_AXES = ("time", "height", "width")


def check_two_bases(
    answer: Any,
    d_model: int,
    *,
    window: int,
    context: int,
    local_base: float,
    global_base: float,
) -> bool:
    """Chapter 10: in a model with local (sliding-window) and global layers,
    ``answer = (local, global)``: how many RoPE pairs make a full turn within
    the offsets each kind of layer sees, the local layers within ``window`` at
    ``local_base``, the global layers within ``context`` at ``global_base``
    (``book.scaling.turned_pairs``: wavelength ``2 pi / theta_i`` at most the
    length). Recognises the bases swapped, the counts of pairs that never turn,
    both counted within the window or both within the context, and the last
    turned pair's index given instead of the count.

    Raises:
        TypeError / ValueError: as ``book.scaling.turned_pairs`` for a bad
            ``d_model``, length or base.
    """
    from ..scaling import turned_pairs

    window = check_positive_int("window", window)
    context = check_positive_int("context", context)

    def count(length: int, base: float) -> int:
        return turned_pairs(d_model, original_max_len=length, base=base)

    right = (count(window, local_base), count(context, global_base))
    got = None if isinstance(answer, (str, bytes, dict, set, frozenset)) else _real_tensor(answer)
    if got is None or got.numel() != 2 or not bool(torch.isfinite(got).all()):
        return _verdict(False, "Give two whole numbers: (pairs turned in a local layer, pairs turned in a global one).")
    values = got.flatten().tolist()
    if any(abs(v - round(v)) > 1e-9 for v in values):
        return _verdict(False, "Each count is a whole number of pairs.")
    pair = (int(round(values[0])), int(round(values[1])))
    if pair == right:
        half = d_model // 2
        return _verdict(
            True,
            f"A local layer sees offsets below {window}: at base {local_base:g}, {right[0]} of the {half} pairs "
            f"turn within them. A global layer sees up to {context}: at base {global_base:g}, {right[1]} do.",
        )
    half = d_model // 2
    hint = diagnose(
        pair,
        [
            (
                (right[1], right[0]),
                "The order is (local, global): first the pairs a sliding layer turns, then a global layer's.",
            ),
            (
                (count(window, global_base), count(context, local_base)),
                "The bases are swapped: local layers keep the small base, global layers the large one.",
            ),
            ((half - right[0], half - right[1]), "Those count the pairs that never turn. Count the turned ones."),
            (
                (right[0], count(window, global_base)),
                "A global layer is not limited to the window: it sees every earlier token of the context.",
            ),
            (
                (count(context, local_base), right[1]),
                "A local layer sees only the window: no offset reaches the context length.",
            ),
            ((right[0] - 1, right[1] - 1), "Pairs are counted from 0: the count is one more than the last index."),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    if pair[0] == right[0]:
        return _verdict(False, f"The local count is right; count the global layers' pairs within {context}.")
    if pair[1] == right[1]:
        return _verdict(False, f"The global count is right; count the local layers' pairs within {window}.")
    return _verdict(False, "Count the pairs i with 2 pi base^(2i/d) <= length, for each kind of layer.")


def check_prope_pairs(answer: Any, d_model: int, *, fraction: float) -> bool:
    """Chapter 10: the pairs that p-RoPE (``book.encodings.proportional_frequencies``)
    switches off, frequency 0, for head width ``d_model`` and ``fraction``. ``answer``
    is the list of their indices, in any order (a list, tuple, range, set or 1-D
    tensor; a generator or other iterator gets the hint to give a list). Recognises the pairs that keep turning, the fastest pairs instead
    of the slowest, pairs counted from 1, the count alone, and the indices of
    the features that do not turn (interleaved layout, pair ``i`` is features
    ``2i, 2i+1``; half-split layout, features ``i, i + d/2``) instead of the
    pairs'.

    Raises:
        TypeError / ValueError: as ``proportional_frequencies``.
    """
    from ..encodings import proportional_frequencies

    w = proportional_frequencies(d_model, fraction=fraction)
    half = d_model // 2
    kept = int((w > 0).sum())
    right = list(range(kept, half))
    listed = _whole_list(answer)
    if listed is not None and sorted(listed) == right:
        return _verdict(
            True,
            f"Pairs {kept} .. {half - 1} ({half - kept} of {half}) get frequency 0 and do not turn; "
            f"pairs 0 .. {kept - 1} keep RoPE's own frequencies base^(-2i/{d_model}).",
        )
    if listed is None:
        n = _whole_number(answer)
        if n is not None and n == half - kept:
            return _verdict(False, f"Yes, {n} pairs; now list their indices.")
        if isinstance(answer, Iterator):
            return _verdict(
                False, "A generator is read once and has no length: give a list of the indices, e.g. list(...)."
            )
        return _verdict(False, "Give the indices of the pairs that do not turn, as a list of whole numbers.")
    hint = diagnose(
        sorted(listed),
        [
            (list(range(kept)), "Those pairs keep turning. p-RoPE switches off the others."),
            (list(range(half - kept)), "p-RoPE keeps the fastest pairs (small i) and drops the slowest."),
            ([i + 1 for i in right], "Pairs are counted from 0 (pair 0 is the fastest)."),
            (
                list(range(2 * kept, d_model)),
                "Those are feature indices: pair i is features 2i, 2i+1. Give the pairs' indices.",
            ),
            (
                right + [half + i for i in right],
                "Those are feature indices in the half-split layout (pair i is features i, i + d/2). "
                "Give the pairs' indices.",
            ),
            (
                list(range(math.floor(fraction * half + 1e-9), half)),  # the count in exact arithmetic
                f"Count the turning pairs as transformers does, int(fraction * d // 2) = {kept}.",
            ),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(False, "The first int(fraction * d // 2) pairs keep turning; list the rest.")


def check_mrope_patch(
    answer: Any,
    d_model: int,
    sections: Sequence[int],
    *,
    position: Sequence[float],
    base: float = 10000.0,
    interleaved: bool = False,
) -> bool:
    """Chapter 10: the M-RoPE angle of each of the ``d_model / 2`` frequencies
    for a token with the position ids ``position = (time, height, width)``
    (``book.encodings.mrope_angles``). ``answer`` holds the ``d/2`` angles in
    radians; each may differ from the right one by whole turns and by up to
    ``1e-3`` (an answer rounded to 3 decimals passes). Recognises
    1-D RoPE at the time id, height and width swapped, and the other layout
    (contiguous or interleaved sections).

    Raises:
        TypeError / ValueError: as ``mrope_angles`` for bad settings, or if
            ``position`` does not hold three finite numbers.
    """
    from ..encodings import mrope_angles

    if isinstance(position, (str, bytes)) or not isinstance(position, Sequence) or len(position) != 3:
        raise TypeError(f"position must be a sequence of three numbers (time, height, width), got {position!r}")
    t, h, w = (check_real(f"position[{k}] ({axis})", p) for k, (axis, p) in enumerate(zip(_AXES, position)))

    def table(ids: tuple[float, float, float], inter: bool) -> torch.Tensor:
        ids_tensor = torch.tensor(ids, dtype=torch.float64)[:, None]
        return mrope_angles(ids_tensor, d_model, sections, base=base, interleaved=inter)[0]

    right = table((t, h, w), interleaved)
    half = d_model // 2
    got, problem = _angles(answer, half, "frequency")
    if got is None:
        return _verdict(False, problem or "")
    same = _same_angles

    if same(got, right):
        return _verdict(
            True,
            "Each frequency turns by the id of its own axis: angle_i = position[axis(i)] * base^(-2i/d).",
        )
    mistakes = [
        (table((t, t, t), interleaved), "That is 1-D RoPE at the time id: each frequency takes its own axis's id."),
        (table((t, w, h), interleaved), "Height and width are swapped: the second section is height."),
    ]
    try:  # the other layout, where these sections fit it
        other = table((t, h, w), not interleaved)
        layout = "interleaved (Qwen3-VL)." if not interleaved else "contiguous sections (Qwen2-VL)."
        mistakes.append((other, "That is the other layout: " + layout))
    except ValueError:
        pass
    hint = diagnose(got, mistakes, same=same)
    if hint is not None:
        return _verdict(False, hint)
    n_right = sum(same(got[i : i + 1], right[i : i + 1]) for i in range(half))
    return _verdict(False, f"{n_right} of the {half} angles are right; check which axis each frequency takes.")


def check_axial_patch(
    answer: Any, d_model: int, *, row: int, col: int, base: float = 10000.0, convention: AxialConvention = "rope-vit"
) -> bool:
    """Chapter 10: the RoPE-Axial angle of each of the ``d_model / 2`` pairs
    for the patch in row ``row``, column ``col``
    (``book.encodings.axial_rope_angles``, convention ``"rope-vit"``:
    the first ``d/4`` pairs turn by the column, the rest by the row, each
    with ``base^(-4j/d)``). ``answer`` holds the ``d/2`` angles in radians;
    each may differ from the right one by whole turns and by up to ``1e-3``
    (an answer rounded to 3 decimals passes). Recognises the row and column
    swapped, 1-D RoPE's angles at the row or at the column, and the other
    convention.

    Raises:
        TypeError / ValueError: as ``axial_rope_frequencies`` for bad settings,
            or if ``row`` or ``col`` is not a non-negative integer.
    """
    from .._validate import check_nonneg_int
    from ..encodings import axial_rope_frequencies, frequencies

    r = check_nonneg_int("row", row)
    c = check_nonneg_int("col", col)
    freqs = axial_rope_frequencies(d_model, base=base, convention=convention)
    right = r * freqs[0] + c * freqs[1]
    half = d_model // 2
    got, problem = _angles(answer, half, "pair")
    if got is None:
        return _verdict(False, problem or "")
    same = _same_angles

    if same(got, right):
        return _verdict(True, "Each pair turns by one coordinate: its axis's id times base^(-4j/d).")
    other: AxialConvention = "pixtral" if convention == "rope-vit" else "rope-vit"
    other_freqs = axial_rope_frequencies(d_model, base=base, convention=other)
    one_d = frequencies(d_model, base=base)
    mistakes = [
        (c * freqs[0] + r * freqs[1], "Row and column are swapped: see which pairs the convention gives each axis."),
        (r * one_d, "That is 1-D RoPE at the row: in 2-D, each pair turns by one axis only, with base^(-4j/d)."),
        (c * one_d, "That is 1-D RoPE at the column: in 2-D, each pair turns by one axis only, with base^(-4j/d)."),
        (r * other_freqs[0] + c * other_freqs[1], f"That is the {other!r} convention, not {convention!r}."),
    ]
    hint = diagnose(got, mistakes, same=same)
    if hint is not None:
        return _verdict(False, hint)
    n_right = sum(same(got[i : i + 1], right[i : i + 1]) for i in range(half))
    return _verdict(False, f"{n_right} of the {half} angles are right; check which axis each pair takes.")
