"""Self-checks of chapter 12, *Positions in the serving stack* (``notebooks/12_serving_stack``).

Checks, in the chapter's order: ``check_left_pad_ids``, ``check_shift_angles``, ``check_sink_offsets``.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import torch

from .._validate import check_base, check_even
from ._feedback import _angles, _is_complex, _real_tensor, _same_angles, _verdict, _whole_number, diagnose

__all__ = [
    "check_left_pad_ids",
    "check_shift_angles",
    "check_sink_offsets",
]


def check_left_pad_ids(answer: Any, attention_mask: torch.Tensor | Sequence[Sequence[int]]) -> bool:
    """Chapter 12: the position ids of a padded batch whose mask is
    ``attention_mask`` (1 for a token, 0 for a pad), as transformers'
    generation forms them (``book.encodings.position_ids_from_mask``:
    ``cumsum(mask) - 1``, pads 0). ``answer`` is a tensor, array or nested
    list of the mask's shape; the ids at the pads are not graded (any value
    passes there). Recognises ``arange`` ids (counting the pads), the count
    without the ``- 1``, and ids counted from the right.

    Raises:
        TypeError / ValueError: as ``position_ids_from_mask`` for a bad mask.
    """
    from ..encodings import position_ids_from_mask

    right = position_ids_from_mask(attention_mask)
    real = torch.as_tensor(attention_mask).bool()
    if _is_complex(answer):
        return _verdict(False, "Position ids are whole numbers; this answer has complex entries.")
    got = None if isinstance(answer, (str, bytes, dict, set, frozenset)) else _real_tensor(answer)
    if got is None or tuple(got.shape) != tuple(right.shape):
        return _verdict(False, f"Give one id per slot, in the mask's shape {tuple(right.shape)}.")
    if not bool(torch.isfinite(got).all()) or bool((got != got.round()).any()):
        return _verdict(False, "Every position id is a whole number.")

    def same(a: torch.Tensor, b: torch.Tensor) -> bool:
        return bool((a.double()[real] == b.double()[real]).all())

    if same(got, right):
        return _verdict(
            True,
            "Each row's real tokens count 0, 1, 2, .. from its first real token, however many pads come "
            "before it: the ids the row has without padding.",
        )
    width = right.shape[-1]
    arange = torch.arange(width).expand_as(right)
    from_right = (real.flip(-1).long().cumsum(-1) - 1).flip(-1)
    hint = diagnose(
        got,
        [
            (arange, "Those ids count the pads too: start each row's count at its first real token."),
            (right + 1, "Those count from 1: the first real token has position 0 (cumsum minus one)."),
            (from_right, "Those count from the right; positions grow from the first real token on."),
        ],
        same=same,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(False, "Count the real tokens of each row from 0, skipping the pads.")


def check_shift_angles(answer: Any, delta: int, *, d_model: int, base: float = 10000.0) -> bool:
    """Chapter 12: the angle by which ``book.encodings.shift_rope`` turns each
    of the ``d_model / 2`` pairs of a cached key to move it ``delta``
    positions on: ``delta * w_i``, ``w_i = base^(-2i/d)``. Each angle may
    differ from the right one by whole turns and by up to ``1e-3`` (three
    decimals pass). Recognises the shift the wrong way, degrees instead of
    radians, the frequencies ``base^(-i/d)``, and the angle of the new
    position instead of the shift.

    Raises:
        TypeError / ValueError: if ``delta`` is not an integer, ``d_model``
            not an even integer >= 2, or ``base`` not a number > 1.
    """
    from ..encodings import frequencies

    if isinstance(delta, bool) or not isinstance(delta, int):
        raise TypeError(f"delta must be an integer (a whole number of positions), got {delta!r}")
    d_model = check_even("d_model", d_model)
    base = check_base(base)
    w = frequencies(d_model, base=base)
    right = delta * w
    half = d_model // 2
    got, problem = _angles(answer, half, "pair")
    if got is None:
        return _verdict(False, problem or "")
    same = _same_angles

    if same(got, right):
        return _verdict(
            True,
            f"Pair i turns by {delta} * base^(-2i/{d_model}); rotations add, so this moves a key rotated at "
            f"p to the key at p + {delta} without knowing p.",
        )
    slow = delta * torch.tensor([base ** (-i / d_model) for i in range(half)], dtype=torch.float64)
    hint = diagnose(
        got,
        [
            (-right, f"That turns the key back, to p - {delta}: a shift by +{delta} adds the angles."),
            (torch.rad2deg(right), "Those are degrees; RoPE's angles are in radians."),
            (slow, f"The frequencies are base^(-2i/d): pair i has exponent 2i/{d_model}, not i/{d_model}."),
        ],
        same=same,
    )
    if hint is not None:
        return _verdict(False, hint)
    n_right = sum(same(got[i : i + 1], right[i : i + 1]) for i in range(half))
    return _verdict(False, f"{n_right} of the {half} angles are right; each is delta * base^(-2i/d).")


def check_sink_offsets(answer: Any, length: int, *, sinks: int, window: int) -> bool:
    """Chapter 12: after ``length`` tokens, a StreamingLLM cache holds the first
    ``sinks`` and the last ``window`` (``book.encodings.sink_cache_positions``).
    ``answer = (in the text, in the cache)``: the largest offset between the
    next token's query and a cached key when the keys keep the positions they
    had in the text (the query at ``length``), and when positions are
    re-assigned inside the cache (the query at the next place in the cache).
    Recognises the pair swapped, the window alone (no sinks), and the offset
    to the most recent key instead of the largest.

    Raises:
        TypeError / ValueError: as ``sink_cache_positions``.
    """
    from ..encodings import sink_cache_positions

    kept, places = sink_cache_positions(length, sinks=sinks, window=window)  # validates the settings
    right = (length - int(kept.min()), len(kept) - int(places.min()))
    got = None if isinstance(answer, (str, bytes, dict, set, frozenset)) else _real_tensor(answer)
    if got is None or got.numel() != 2:
        return _verdict(False, "Give two whole numbers: (largest offset in the text, largest offset in the cache).")
    values = [_whole_number(v) for v in got.flatten().tolist()]
    if any(v is None for v in values):
        return _verdict(False, "Each offset is a whole number of positions.")
    pair = (values[0], values[1])
    if pair == right:
        return _verdict(
            True,
            f"In the text the query at {length} meets the first sink at 0: offset {right[0]}, growing without "
            f"end. In the cache the {len(kept)} keys sit at 0 .. {len(kept) - 1} and the query at {len(kept)}: "
            f"offset {right[1]}, whatever the length.",
        )
    in_window = min(window, length)
    hint = diagnose(
        pair,
        [
            ((right[1], right[0]), "The order is (in the text, in the cache)."),
            ((in_window, in_window), "The sinks stay in the cache too: the first tokens are the farthest keys."),
            ((1, 1), "That is the nearest key; the question asks for the farthest, the first sink."),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    if pair[0] == right[0]:
        return _verdict(False, "The offset in the text is right; in the cache, count the cached keys.")
    if pair[1] == right[1]:
        return _verdict(False, "The offset in the cache is right; in the text, the first sink is at position 0.")
    return _verdict(False, "Find the positions of the first cached key and of the next query, both ways.")
