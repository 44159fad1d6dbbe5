"""Self-checks for the exercises: a specific hint on a wrong answer, a
confirmation on a right one.

Each check prints its verdict for the student and returns ``True`` or
``False``, so that a teacher's grading script can use it too.
"""

from __future__ import annotations

import textwrap
from typing import Any, Sequence

import torch

__all__ = ["check_permutation_matrix"]


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
