"""Self-checks of chapter 4, *Heatmaps and fingerprints* (``notebooks/04_fingerprints``).

Checks, in the chapter's order: ``check_closest_position``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch

from .._validate import check_positive_int
from ..encodings import frequencies, sinusoidal_at
from ._feedback import _verdict, _whole_number, diagnose

__all__ = [
    "check_closest_position",
]


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
    dist = (
        sinusoidal_at(pos, d_model, base=base, dtype=torch.float64)
        - sinusoidal_at(torch.tensor([0]), d_model, base=base, dtype=torch.float64)
    ).norm(dim=-1)
    best, worst = int(torch.argmin(dist[1:])) + 1, int(torch.argmax(dist[1:])) + 1
    if p == best:
        w = frequencies(d_model, base=base)
        turns = ", ".join(f"pair {i} {t:.3f}" for i, t in enumerate((p * w / (2 * math.pi)).tolist()[:4]))
        return _verdict(
            True,
            f"PE({p}) is {float(dist[p]):.4f} away from PE(0), closer than any other "
            f"position up to {max_position}. Turns made at p = {p}: {turns}. Each pair adds "
            "2 - 2 cos(p w_i) to the squared distance, small when its turns are near a whole "
            "number or near 0.",
        )
    if p == 0:
        return _verdict(False, "Position 0 is PE(0) itself; search p = 1 .. max_position.")
    if not 1 <= p <= max_position:
        return _verdict(False, f"Search positions 1 .. {max_position} only.")
    hint = diagnose(
        p,
        [
            (worst, "That is the farthest position. Take the argmin of the distances, not the argmax."),
            (
                best - 1,
                "One too small: an argmin over the distances of p = 1, 2, ... returns an index "
                "counted from 0. Add 1 back.",
            ),
            (
                1,
                "Position 1 is next to 0 in the sentence, but the fast pairs have turned by "
                "a whole radian. Compute the distances to PE(0) for every p.",
            ),
        ],
        same=operator.eq,
    )
    if hint is not None:
        return _verdict(False, hint)
    return _verdict(
        False,
        f"PE({p}) is {float(dist[p]):.4f} away from PE(0); some position is closer. "
        f"Compute all distances at once and take the argmin over p >= 1.",
    )
