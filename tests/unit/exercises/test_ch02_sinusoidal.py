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


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        ([15, 31, 47], True, "p = [15, 31, 47]"),
        ({47, 15, 31}, True, "Correct!"),  # any order
        (torch.tensor([31, 15, 47]), True, "Correct!"),
        (np.array([15.0, 31.0, 47.0, 47.0]), True, "Correct!"),  # a repeat counts once
        (range(15, 48, 16), True, "Correct!"),
        ([16, 32, 48], False, "positions p + 1"),
        ([7, 15, 23, 31, 39, 47, 55], False, "equal to 2"),
        ([p for p in range(63) if (p + 1) % 4 == 0], False, "squared step"),
        ([15, 31, 47, 63], False, "Only p < 63"),
        ([15, 31], False, "Count the bits that flip"),
        ([15.5, 31], False, "whole numbers"),
    ],
)
def test_counter_jumps_check_hints(capsys, answer, ok, hint):
    assert exercises.check_counter_jumps(answer) is ok
    assert hint in capsys.readouterr().out


def test_counter_jumps_follows_the_chapter_s_counter(capsys):
    """The positions the check wants are the chapter's: where the step of the 8-bit counter exceeds 2."""
    p = torch.arange(64)[:, None]
    bits = ((p >> torch.arange(8)) & 1).float()
    steps = (bits[1:] - bits[:-1]).norm(dim=-1)
    for threshold in (1.5, 2.0, 2.5):
        big = (steps > threshold).nonzero().flatten().tolist()
        assert exercises.check_counter_jumps(big, threshold=threshold), threshold
    assert not exercises.check_counter_jumps((steps >= 2.0).nonzero().flatten().tolist())
    capsys.readouterr()


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (500000, True, "Only from base 500000 on"),
        (5e5, True, "2,084,765"),
        (torch.tensor(500000.0), True, "Correct!"),
        (10000, False, "turns 2.12 times"),
        (100, False, "With base 100 the slowest pair"),
        (2 * math.pi * 500000 ** (62 / 64), False, "That is a wavelength"),
        (2 * math.pi * 10000 ** (62 / 64), False, "That is a wavelength"),
        (1000, False, "Pick one of the bases"),
    ],
)
def test_base_choice_check_hints(capsys, answer, ok, hint):
    assert exercises.check_base_choice(answer) is ok
    assert hint in capsys.readouterr().out


def test_base_choice_follows_the_settings(capsys):
    """At 40,000 tokens base 10000's slowest pair no longer wraps: both it and 500000 are right."""
    assert exercises.check_base_choice(10000, n_tokens=40_000)
    assert exercises.check_base_choice(500000, n_tokens=40_000)
    assert not exercises.check_base_choice(100, n_tokens=40_000)
    capsys.readouterr()


CHECKS = {
    "counter_jumps": lambda a: exercises.check_counter_jumps(a),
    "base_choice": lambda a: exercises.check_base_choice(a),
    "wavelength": lambda a: exercises.check_wavelength(a, i=3, d_model=64),
}


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_checks_never_raise_on_an_answer(capsys, name, answer):
    hints_without_raising(capsys, CHECKS[name], answer)


BAD_CALLS = [
    (lambda: exercises.check_counter_jumps([15], n_positions=0), ValueError, "n_positions must be a positive"),
    (lambda: exercises.check_counter_jumps([15], threshold=-1), ValueError, "threshold must be"),
    (lambda: exercises.check_base_choice(1e4, bases=(100, 1000)), ValueError, "bases must hold one whose"),
    (lambda: exercises.check_base_choice(1e4, bases="100"), TypeError, "bases must be a non-empty sequence"),
    (lambda: exercises.check_base_choice(1e4, bases=(0.5, 1e6)), ValueError, "bases must be a finite number > 1"),
    (lambda: exercises.check_base_choice(1e4, d_model=63), ValueError, "d_model must be"),
    (lambda: exercises.check_wavelength(1.0, 40, 64), ValueError, "i must be a pair index in 0 .. 31"),
    (lambda: exercises.check_wavelength(1.0, 1.5, 64), TypeError, "i must be an integer pair index"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_a_wrong_call_of_a_check_raises_clearly(call, exc, message):
    raises_clearly(call, exc, message)
