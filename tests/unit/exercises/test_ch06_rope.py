"""Chapter 6's self-check (``book.exercises.ch06_rope``): the angle by which RoPE turns a pair."""

from __future__ import annotations

import math

import pytest
import torch

from book import exercises

from .answers import BAD_ANSWERS, hints_without_raising, raises_clearly

THETA8 = 10000 ** (-16 / 64)


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (100 * THETA8, True, "Correct!"),
        (math.degrees(100 * THETA8), False, "degrees"),
        (100 * 10000 ** (-8 / 64), False, "-2i/d, not -i/d"),
        (THETA8, False, "Multiply by the position"),
        (100 / THETA8, False, "don't divide"),
        (3.0, False, "Start from theta_i"),
        (None, False, "one number"),
        (math.fmod(100 * THETA8, 2 * math.pi), True, "same rotation"),  # 10 mod 2 pi
        (100 * THETA8 - 4 * math.pi, True, "same rotation"),
        (100 * THETA8 + 2 * math.pi * 1000, True, "Correct!"),
        (torch.tensor(100 * THETA8), True, "Correct!"),
        (-100 * THETA8, False, "wrong sign"),
        (math.degrees(100 * THETA8) - 360, False, "degrees"),
        (10.003, False, "more digits"),
        (float("nan"), False, "not a finite angle"),
        (float("inf"), False, "not a finite angle"),
    ],
)
def test_rope_angle_hints(capsys, answer, ok, hint):
    assert exercises.check_rope_angle(answer, 100, 8, 64) is ok
    assert hint in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer,m,i,ok,hint",
    [
        (3.3e6, 10, 0, False, "Start from theta_i"),  # large answers are not every angle
        (12345678.9, 10, 0, False, "Start from theta_i"),
        (1e7 + 0.5, 10, 0, False, "Start from theta_i"),
        (1e300, 10, 0, False, "too large to name an angle"),
        (1e12, 10, 0, False, "too large to name an angle"),
        (10 + 2 * math.pi * 10**5, 10, 0, True, "same rotation"),  # 10 rad plus 100,000 turns
        (1000 / 10000 ** (-62 / 64), 1000, 31, False, "don't divide"),  # m / theta_i = 7.50e6
        (1000 * 10000 ** (-62 / 64), 1000, 31, True, "Correct!"),
    ],
)
def test_rope_angle_large_answers(capsys, answer, m, i, ok, hint):
    assert exercises.check_rope_angle(answer, m, i, 64) is ok
    assert hint in capsys.readouterr().out.replace("\n", " ")


CHECKS = {
    "rope_angle": lambda a: exercises.check_rope_angle(a, 100, 8, 64),
}


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_checks_never_raise_on_an_answer(capsys, name, answer):
    hints_without_raising(capsys, CHECKS[name], answer)


BAD_CALLS = [
    (lambda: exercises.check_rope_angle(1.0, 1, 40, 64), ValueError, "i must be a pair index in 0 .. 31"),
    (lambda: exercises.check_rope_angle(1.0, float("nan"), 1, 64), ValueError, "m must be finite"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_a_wrong_call_of_a_check_raises_clearly(call, exc, message):
    raises_clearly(call, exc, message)
