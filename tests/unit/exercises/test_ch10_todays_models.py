"""Chapter 10's self-checks (``book.exercises.ch10_todays_models``): right answers pass in every
equivalent form, known mistakes get their hint, odd answers a hint and False, bad settings raise."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest
import torch

from book import encodings, exercises, scaling

from .answers import ODD_ANSWERS, hints_without_raising, verdict

GEMMA3 = dict(window=4096, context=131072, local_base=1e4, global_base=1e6)


def turned(length: int, base: float, d: int = 256) -> int:
    return scaling.turned_pairs(d, original_max_len=length, base=base)


def test_two_bases_right_answer_in_every_form(capsys):
    right = (turned(4096, 1e4), turned(131072, 1e6))
    assert right == (91, 93)  # about the same count: the large base keeps the picture
    for form in (right, list(right), torch.tensor(right), np.array(right, dtype=float), [[91], [93]]):
        ok, out = verdict(capsys, partial(exercises.check_two_bases, form, 256, **GEMMA3))
        assert ok and out.startswith("Correct!"), form


@pytest.mark.parametrize(
    "answer, hint",
    [
        ((93, 91), "The order is (local, global)"),
        ((turned(4096, 1e6), turned(131072, 1e4)), "swapped"),
        ((128 - 91, 128 - 93), "never turn"),
        ((91, turned(4096, 1e6)), "not limited to the window"),
        ((turned(131072, 1e4), 93), "sees only the window"),
        ((90, 92), "counted from 0"),
        ((91, 50), "local count is right"),
        ((50, 93), "global count is right"),
        ((1, 2), "Count the pairs"),
        ((91.5, 93), "whole number"),
    ],
)
def test_two_bases_names_the_mistake(capsys, answer, hint):
    ok, out = verdict(capsys, lambda: exercises.check_two_bases(answer, 256, **GEMMA3))
    assert ok is False and hint in out.replace("\n", " ")


@pytest.mark.parametrize("answer", ODD_ANSWERS + [{1, 2}, "91, 93", [91, 93, 0]])
def test_two_bases_never_raises_on_an_answer(capsys, answer):
    hints_without_raising(capsys, lambda a: exercises.check_two_bases(a, 256, **GEMMA3), answer)


def test_two_bases_rejects_bad_settings():
    with pytest.raises(ValueError, match="window"):
        exercises.check_two_bases((1, 1), 256, **{**GEMMA3, "window": 0})
    with pytest.raises(ValueError, match="d_model"):
        exercises.check_two_bases((1, 1), 255, **GEMMA3)


def test_prope_pairs_right_answer_in_every_form(capsys):
    zero = (encodings.proportional_frequencies(128, fraction=0.25) == 0).nonzero().flatten()
    assert zero.tolist() == list(range(16, 64))
    for form in (zero, zero.tolist(), range(16, 64), set(range(16, 64)), np.arange(63, 15, -1), tuple(zero.tolist())):
        ok, out = verdict(capsys, partial(exercises.check_prope_pairs, form, 128, fraction=0.25))
        assert ok and out.startswith("Correct!"), form


@pytest.mark.parametrize(
    "answer, hint",
    [
        (list(range(16)), "keep turning"),
        (list(range(48)), "fastest"),
        (list(range(17, 65)), "counted from 0"),
        (48, "now list"),
        (list(range(20, 64)), "The first int"),
        (list(range(32, 128)), "pair i is features 2i, 2i+1"),
        (list(range(16, 64)) + list(range(80, 128)), "half-split layout"),
    ],
)
def test_prope_pairs_names_the_mistake(capsys, answer, hint):
    ok, out = verdict(capsys, lambda: exercises.check_prope_pairs(answer, 128, fraction=0.25))
    assert ok is False and hint in out.replace("\n", " ")


def test_prope_pairs_asks_for_a_list_when_given_a_generator(capsys):
    ok, out = verdict(capsys, lambda: exercises.check_prope_pairs((i for i in range(16, 64)), 128, fraction=0.25))
    assert ok is False and "give a list" in out.replace("\n", " ")
    ok, out = verdict(capsys, lambda: exercises.check_prope_pairs(iter([1, 2]), 128, fraction=0.25))
    assert ok is False and "give a list" in out.replace("\n", " ")


def test_prope_pairs_uses_transformers_floating_point_count(capsys):
    """d = 100, fraction 0.58: int(0.58 * 100 // 2) = 28 pairs turn, not 29."""
    ok, _ = verdict(capsys, lambda: exercises.check_prope_pairs(range(28, 50), 100, fraction=0.58))
    assert ok
    ok, out = verdict(capsys, lambda: exercises.check_prope_pairs(range(29, 50), 100, fraction=0.58))
    assert not ok and "int(fraction * d // 2) = 28" in out.replace("\n", " ")


@pytest.mark.parametrize("answer", ODD_ANSWERS + [{"a": 1}, [[]], "16..63"])
def test_prope_pairs_never_raises_on_an_answer(capsys, answer):
    hints_without_raising(capsys, lambda a: exercises.check_prope_pairs(a, 128, fraction=0.25), answer)


def test_prope_pairs_rejects_bad_settings():
    with pytest.raises(ValueError, match="fraction"):
        exercises.check_prope_pairs([], 128, fraction=1.5)


SECTIONS = (2, 3, 3)  # d = 16: time 2, height 3, width 3 frequencies


def patch(position, interleaved=False, sections=SECTIONS):
    ids = torch.tensor(position, dtype=torch.float64)[:, None]
    return encodings.mrope_angles(ids, 16, sections, interleaved=interleaved)[0]


def test_mrope_patch_right_answer_up_to_whole_turns(capsys):
    right = patch((5, 2, 3))
    turns = torch.tensor([0, 1, -2, 0, 3, 0, 0, 1], dtype=torch.float64) * 2 * math.pi
    for form in (right, right.tolist(), right.numpy(), right + turns, right.float(), [right.tolist()]):
        ok, out = verdict(capsys, partial(exercises.check_mrope_patch, form, 16, SECTIONS, position=(5, 2, 3)))
        assert ok and out.startswith("Correct!"), form


@pytest.mark.parametrize(
    "answer, sections, interleaved, hint",
    [
        (5 * encodings.frequencies(16), SECTIONS, False, "1-D RoPE"),
        (patch((5, 3, 2)), SECTIONS, False, "swapped"),
        (patch((5, 2, 3), sections=(4, 2, 2)), (4, 2, 2), True, "contiguous sections"),
        (patch((5, 2, 3), True, sections=(4, 2, 2)), (4, 2, 2), False, "interleaved (Qwen3-VL)"),
        (patch((5, 2, 3)) + 0.1, SECTIONS, False, "0 of the 8"),
        (patch((5, 2, 3)) + torch.tensor([0.1] + [0.0] * 7, dtype=torch.float64), SECTIONS, False, "7 of the 8"),
    ],
)
def test_mrope_patch_names_the_mistake(capsys, answer, sections, interleaved, hint):
    ok, out = verdict(
        capsys,
        lambda: exercises.check_mrope_patch(answer, 16, sections, position=(5, 2, 3), interleaved=interleaved),
    )
    assert ok is False and hint in out.replace("\n", " ")


@pytest.mark.parametrize("answer", ODD_ANSWERS + [[float("nan")] * 8, [1j] * 8, list(range(7))])
def test_mrope_patch_never_raises_on_an_answer(capsys, answer):
    hints_without_raising(capsys, lambda a: exercises.check_mrope_patch(a, 16, SECTIONS, position=(5, 2, 3)), answer)


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (dict(position=(5, 2)), TypeError, "position"),
        (dict(position="523"), TypeError, "position"),
        (dict(position=(5, 2, float("nan"))), ValueError, "width"),
        (dict(position=(5, 2, 3), interleaved=True), ValueError, "interleaved"),
    ],
)
def test_mrope_patch_rejects_bad_settings(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        exercises.check_mrope_patch([0.0] * 8, 16, SECTIONS, **kwargs)


def test_mrope_patch_accepts_answers_rounded_to_four_and_three_decimals(capsys):
    right = patch((4, 5, 6))
    for decimals in (4, 3):
        rounded = [round(float(a), decimals) for a in right]
        ok, out = verdict(capsys, partial(exercises.check_mrope_patch, rounded, 16, SECTIONS, position=(4, 5, 6)))
        assert ok and out.startswith("Correct!"), decimals
    ok, out = verdict(capsys, partial(exercises.check_mrope_patch, right + 3e-3, 16, SECTIONS, position=(4, 5, 6)))
    assert not ok and "0 of the 8" in out


# ------------------------------------------------------------ check_axial_patch
def axial(row, col, convention="rope-vit"):
    f = encodings.axial_rope_frequencies(8, base=100.0, convention=convention)
    return row * f[0] + col * f[1]


def test_axial_patch_right_answer_up_to_whole_turns_and_rounding(capsys):
    right = axial(3, 2)
    turns = torch.tensor([0, 1, -2, 0], dtype=torch.float64) * 2 * math.pi
    for form in (right, right.tolist(), right + turns, [round(float(a), 3) for a in right]):
        ok, out = verdict(capsys, partial(exercises.check_axial_patch, form, 8, row=3, col=2, base=100.0))
        assert ok and out.startswith("Correct!"), form


@pytest.mark.parametrize(
    "answer, hint",
    [
        (axial(2, 3), "swapped"),
        (3 * encodings.frequencies(8, base=100.0), "1-D RoPE at the row"),
        (2 * encodings.frequencies(8, base=100.0), "1-D RoPE at the column"),
        (axial(3, 2, "pixtral"), "'pixtral' convention"),
        (axial(3, 2) + torch.tensor([0.1, 0, 0, 0], dtype=torch.float64), "3 of the 4"),
    ],
)
def test_axial_patch_names_the_mistake(capsys, answer, hint):
    ok, out = verdict(capsys, lambda: exercises.check_axial_patch(answer, 8, row=3, col=2, base=100.0))
    assert ok is False and hint in out.replace("\n", " ")


@pytest.mark.parametrize("answer", ODD_ANSWERS + [[float("nan")] * 4, [1j] * 4, list(range(3))])
def test_axial_patch_never_raises_on_an_answer(capsys, answer):
    hints_without_raising(capsys, lambda a: exercises.check_axial_patch(a, 8, row=3, col=2, base=100.0), answer)


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (dict(row=-1, col=2), ValueError, "row"),
        (dict(row=1, col=2.5), TypeError, "col"),
        (dict(row=1, col=2, convention="xy"), ValueError, "convention"),
    ],
)
def test_axial_patch_rejects_bad_settings(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        exercises.check_axial_patch([0.0] * 4, 8, **kwargs)
