"""Chapter 2's self-check (``book.exercises.ch02_sinusoidal``): the wavelength of a pair."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from book import exercises

from .answers import BAD_ANSWERS, hints_without_raising, raises_clearly

W3 = 10000 ** (-2 * 3 / 64)


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (2 * math.pi / W3, True, "Correct!"),
        (torch.tensor(2 * math.pi / W3), True, "Correct!"),
        (np.array(2 * math.pi / W3), True, "Correct!"),
        (np.array([2 * math.pi / W3]), True, "Correct!"),
        (np.float64(2 * math.pi / W3), True, "Correct!"),
        (np.array([1.0, 2.0]), False, "one number"),
        (np.array(True), False, "one number"),
        (1 / W3, False, "length of one radian"),
        (W3, False, "is a frequency"),
        (2 * math.pi * 10000 ** (3 / 64), False, "exponent is 2i/d"),
        (123.0, False, "Start from w_i"),
        ("14.9", False, "one number"),
    ],
)
def test_wavelength_check_hints(capsys, answer, ok, hint):
    assert exercises.check_wavelength(answer, 3, 64) is ok
    assert hint in capsys.readouterr().out


def test_wavelength_close_slips_get_their_own_hint(capsys):
    assert not exercises.check_wavelength(2 * 3 / W3, 3, 64)  # pi rounded to 3
    assert "math.pi" in capsys.readouterr().out
    assert not exercises.check_wavelength(2 * math.pi * 10000 ** (4 / 64), 3, 64)
    assert "pair 2" in capsys.readouterr().out


def test_wavelength_neutral_starter_is_wrong():
    """The chapter's starter holds no part of the answer, and the check says so."""
    assert exercises.check_wavelength(None, i=3, d_model=64) is False


CHECKS = {
    "wavelength": lambda a: exercises.check_wavelength(a, i=3, d_model=64),
}


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_checks_never_raise_on_an_answer(capsys, name, answer):
    hints_without_raising(capsys, CHECKS[name], answer)


BAD_CALLS = [
    (lambda: exercises.check_wavelength(1.0, 40, 64), ValueError, "i must be a pair index in 0 .. 31"),
    (lambda: exercises.check_wavelength(1.0, 1.5, 64), TypeError, "i must be an integer pair index"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_a_wrong_call_of_a_check_raises_clearly(call, exc, message):
    raises_clearly(call, exc, message)
