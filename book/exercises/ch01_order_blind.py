"""Self-checks of chapter 1, *Attention is order-blind* (``notebooks/01_order_blind``).

Checks, in the chapter's order: ``check_permutation_matrix``.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch

from ._feedback import _is_complex, _real_tensor, _verdict

__all__ = [
    "check_permutation_matrix",
]


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
    p = _real_tensor(answer)
    if p is None:
        return _verdict(False, "Give P as a torch tensor or a list of lists of 0s and 1s.")
    if p.shape != (n, n):
        return _verdict(
            False, f"P must be {n} x {n} (one row and one column per position), got shape {tuple(p.shape)}."
        )
    if not torch.isfinite(p).all():
        return _verdict(False, "P holds NaN or infinite entries; every entry of a permutation matrix is 0 or 1.")
    rounded = p.round()
    if torch.all((rounded == 0) | (rounded == 1)) and (p - rounded).abs().max() < 1e-6:
        p = rounded  # 0.9999999 is a 1
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
