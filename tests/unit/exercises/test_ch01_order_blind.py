"""Chapter 1's self-check (``book.exercises.ch01_order_blind``): the permutation matrix."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from book import exercises

from .answers import BAD_ANSWERS, hints_without_raising


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        ([[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]], True, "Correct!"),
        (torch.eye(4)[[2, 0, 3, 1]].T, False, "transpose"),
        (torch.eye(4), False, "of another order"),
        ([[1, 0], [0, 1]], False, "must be 4 x 4"),
        ([[0.5, 0.5, 0, 0]] * 4, False, "0 or 1"),
        ([[1, 0, 0, 0]] * 4, False, "exactly one 1"),
        ("not a matrix", False, "Give P as"),
    ],
)
def test_permutation_matrix_check_hints(capsys, answer, ok, hint):
    assert exercises.check_permutation_matrix(answer, [2, 0, 3, 1]) is ok
    assert hint in capsys.readouterr().out


@pytest.mark.parametrize("make", [np.asarray, torch.as_tensor], ids=["numpy", "torch"])
def test_permutation_matrix_check_refuses_complex_entries(capsys, make):
    p = make(torch.eye(4, dtype=torch.float64)[[2, 0, 3, 1]].numpy() + 0.5j)
    assert not exercises.check_permutation_matrix(p, [2, 0, 3, 1])
    assert capsys.readouterr().out.count("complex entries") == 1


def test_permutation_matrix_check_accepts_equivalent_answers(capsys):
    perm = torch.eye(4, dtype=torch.float32)[[2, 0, 3, 1]] * (1 - 1e-8)  # float rounding of 1
    assert exercises.check_permutation_matrix(perm, [2, 0, 3, 1])
    assert exercises.check_permutation_matrix(torch.eye(4, dtype=torch.bool)[[2, 0, 3, 1]], [2, 0, 3, 1])
    capsys.readouterr()


CHECKS = {
    "permutation": lambda a: exercises.check_permutation_matrix(a, [2, 0, 3, 1]),
}


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_checks_never_raise_on_an_answer(capsys, name, answer):
    hints_without_raising(capsys, CHECKS[name], answer)
