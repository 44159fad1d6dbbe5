"""Chapter 12's self-checks (``book.exercises.ch12_serving_stack``): right answers pass in every
equivalent form, known mistakes get their hint, odd answers a hint and False, bad settings raise."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest
import torch

from book import encodings, exercises

from .answers import ODD_ANSWERS, hints_without_raising, verdict

MASK = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1], [0, 0, 0, 1, 1]])
IDS = encodings.position_ids_from_mask(MASK)


def test_left_pad_ids_right_answer_in_every_form(capsys):
    assert IDS.tolist() == [[0, 0, 0, 1, 2], [0, 1, 2, 3, 4], [0, 0, 0, 0, 1]]
    pads_marked = IDS.masked_fill(MASK == 0, -1)  # any value at a pad passes
    for form in (IDS, IDS.tolist(), IDS.double(), np.array(IDS.tolist()), pads_marked, IDS.masked_fill(MASK == 0, 1)):
        ok, out = verdict(capsys, partial(exercises.check_left_pad_ids, form, MASK))
        assert ok and out.startswith("Correct!"), form
    ok, _ = verdict(capsys, partial(exercises.check_left_pad_ids, IDS, MASK.tolist()))
    assert ok


@pytest.mark.parametrize(
    "answer, hint",
    [
        (torch.arange(5).expand(3, -1), "count the pads too"),
        (IDS + 1, "count from 1"),
        (torch.tensor([[0, 0, 2, 1, 0], [4, 3, 2, 1, 0], [0, 0, 0, 1, 0]]), "from the right"),
        (torch.zeros(3, 5), "Count the real tokens"),
        (IDS + 0.5, "whole number"),
        (IDS[:2], "mask's shape"),
    ],
)
def test_left_pad_ids_names_the_mistake(capsys, answer, hint):
    ok, out = verdict(capsys, lambda: exercises.check_left_pad_ids(answer, MASK))
    assert ok is False and hint in out.replace("\n", " ")


@pytest.mark.parametrize("answer", ODD_ANSWERS + [{1, 2}, "0 0 0 1 2", torch.full((3, 5), 1j)])
def test_left_pad_ids_never_raises_on_an_answer(capsys, answer):
    hints_without_raising(capsys, lambda a: exercises.check_left_pad_ids(a, MASK), answer)


def test_left_pad_ids_rejects_a_bad_mask():
    with pytest.raises(ValueError, match="attention_mask must hold only 0"):
        exercises.check_left_pad_ids(IDS, torch.tensor([[2, 1]]))


def test_shift_angles_right_answer_in_every_form(capsys):
    right = 100 * encodings.frequencies(8)
    turned = right + 2 * math.pi * torch.tensor([1.0, -3.0, 0.0, 2.0])  # whole turns are the same rotation
    for form in (right, right.tolist(), right.float(), right.numpy(), turned, [round(a, 3) for a in right.tolist()]):
        ok, out = verdict(capsys, partial(exercises.check_shift_angles, form, 100, d_model=8))
        assert ok and out.startswith("Correct!"), form


@pytest.mark.parametrize(
    "answer, hint",
    [
        (-100 * encodings.frequencies(8), "turns the key back"),
        (torch.rad2deg(100 * encodings.frequencies(8)), "degrees"),
        (100 * torch.tensor([1e4 ** (-i / 8) for i in range(4)]), "exponent 2i/8"),
        (torch.zeros(4), "angles are right"),
        ([1.0, 2.0], "Give 4 angles"),
    ],
)
def test_shift_angles_names_the_mistake(capsys, answer, hint):
    ok, out = verdict(capsys, lambda: exercises.check_shift_angles(answer, 100, d_model=8))
    assert ok is False and hint in out.replace("\n", " ")


@pytest.mark.parametrize("answer", ODD_ANSWERS + [{1, 2}, torch.full((4,), 1j)])
def test_shift_angles_never_raises_on_an_answer(capsys, answer):
    hints_without_raising(capsys, lambda a: exercises.check_shift_angles(a, 100, d_model=8), answer)


def test_shift_angles_rejects_bad_settings():
    with pytest.raises(TypeError, match="delta must be an integer"):
        exercises.check_shift_angles([0.0] * 4, 1.5, d_model=8)
    with pytest.raises(ValueError, match="d_model"):
        exercises.check_shift_angles([0.0] * 4, 100, d_model=7)
    with pytest.raises(ValueError, match="base"):
        exercises.check_shift_angles([0.0] * 4, 100, d_model=8, base=0.5)


def test_sink_offsets_right_answer_in_every_form(capsys):
    for form in ((100, 12), [100, 12], torch.tensor([100, 12]), np.array([100.0, 12.0])):
        ok, out = verdict(capsys, partial(exercises.check_sink_offsets, form, 100, sinks=4, window=8))
        assert ok and out.startswith("Correct!"), form
    ok, _ = verdict(capsys, partial(exercises.check_sink_offsets, (6, 6), 6, sinks=4, window=8))  # all fit
    assert ok


@pytest.mark.parametrize(
    "answer, hint",
    [
        ((12, 100), "The order is"),
        ((8, 8), "The sinks stay"),
        ((1, 1), "nearest key"),
        ((100, 50), "offset in the text is right"),
        ((50, 12), "offset in the cache is right"),
        ((3, 4), "Find the positions"),
        ((100.5, 12), "whole number"),
    ],
)
def test_sink_offsets_names_the_mistake(capsys, answer, hint):
    ok, out = verdict(capsys, lambda: exercises.check_sink_offsets(answer, 100, sinks=4, window=8))
    assert ok is False and hint in out.replace("\n", " ")


@pytest.mark.parametrize("answer", ODD_ANSWERS + [{1, 2}, "100, 12", [100, 12, 0]])
def test_sink_offsets_never_raises_on_an_answer(capsys, answer):
    hints_without_raising(capsys, lambda a: exercises.check_sink_offsets(a, 100, sinks=4, window=8), answer)


def test_sink_offsets_rejects_bad_settings():
    with pytest.raises(ValueError, match="window"):
        exercises.check_sink_offsets((1, 1), 100, sinks=4, window=0)
    with pytest.raises(ValueError, match="sinks"):
        exercises.check_sink_offsets((1, 1), 100, sinks=-1, window=8)
