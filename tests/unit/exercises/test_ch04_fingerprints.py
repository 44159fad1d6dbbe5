"""Chapter 4's self-check (``book.exercises.ch04_fingerprints``): the position closest to PE(0)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from book import encodings, exercises

from .answers import BAD_ANSWERS, hints_without_raising, raises_clearly


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (63, True, "Correct!"),
        (0, False, "PE(0) itself"),
        (1, False, "next to 0"),
        (5000, False, "1 .. 1000"),
        (10, False, "some position is closer"),
        (2.5, False, "whole position"),
    ],
)
def test_closest_position_check_hints(capsys, answer, ok, hint):
    assert exercises.check_closest_position(answer, 8, 1000) is ok
    assert hint in capsys.readouterr().out


def test_closest_position_check_knows_the_farthest(capsys):
    pe = encodings.sinusoidal_at(torch.arange(1001), 8, dtype=torch.float64)
    worst = int(torch.argmax((pe[1:] - pe[0]).norm(dim=-1))) + 1
    assert not exercises.check_closest_position(worst, 8, 1000)
    assert "farthest" in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer",
    [63, 63.0, torch.tensor(63), torch.tensor([63.0]), 63 + 1e-12, np.array(63), np.array([63.0]), np.int64(63)],
)
def test_closest_position_accepts_every_form_of_the_number(capsys, answer):
    assert exercises.check_closest_position(answer, 8, 1000)
    out = capsys.readouterr().out
    assert "pair 0 10.027" in out and "pair 1 1.003" in out  # 63 is close to 20 pi: two pairs come round


def test_closest_position_names_the_off_by_one(capsys):
    assert not exercises.check_closest_position(62, 8, 1000)
    assert "Add 1 back" in capsys.readouterr().out


CHECKS = {
    "closest": lambda a: exercises.check_closest_position(a, d_model=8, max_position=1000),
}


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_checks_never_raise_on_an_answer(capsys, name, answer):
    hints_without_raising(capsys, CHECKS[name], answer)


BAD_CALLS = [
    (lambda: exercises.check_closest_position(1, 8, 0), ValueError, "max_position must be a positive integer"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_a_wrong_call_of_a_check_raises_clearly(call, exc, message):
    raises_clearly(call, exc, message)
