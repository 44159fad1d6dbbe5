"""Chapter 9's self-checks (``book.exercises.ch09_long_context``): each returns True on the right
answer and False, with a specific hint, on the usual wrong ones."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from book import encodings, exercises, scaling

from .answers import verdict


def _groups(gamma):
    return {
        "kept": (gamma == 1).nonzero().flatten().tolist(),
        "blended": ((gamma > 0) & (gamma < 1)).nonzero().flatten().tolist(),
        "interpolated": (gamma == 0).nonzero().flatten().tolist(),
    }


def test_yarn_pairs_check(capsys):
    kw = dict(original_max_len=32, alpha=1.0, beta=32.0)  # code keeps pair 0, the paper blends it
    code = _groups(scaling.yarn_ramp(64, **kw))
    paper = _groups(scaling.yarn_ramp(64, ramp="paper", **kw))
    assert code["kept"] == [0] and paper["kept"] == []
    ok, out = verdict(capsys, lambda: exercises.check_yarn_pairs(code, 64, **kw))
    assert ok and "Correct!" in out
    ok, out = verdict(capsys, lambda: exercises.check_yarn_pairs(paper, 64, **kw))
    assert not ok and "paper's ramp" in out
    assert exercises.check_yarn_pairs(paper, 64, ramp="paper", **kw)
    shifted = {k: [i + 1 for i in v] for k, v in code.items()}
    ok, out = verdict(capsys, lambda: exercises.check_yarn_pairs(shifted, 64, **kw))
    assert not ok and "counted from 0" in out
    wrong = dict(code, blended=code["blended"][:-1], interpolated=code["blended"][-1:] + code["interpolated"])
    ok, out = verdict(capsys, lambda: exercises.check_yarn_pairs(wrong, 64, **kw))
    assert not ok and "yarn_ramp" in out
    ok, out = verdict(capsys, lambda: exercises.check_yarn_pairs([0, 1], 64, **kw))
    assert not ok and "Give a dict" in out


@pytest.mark.parametrize(
    "answer, ok, hint",
    [
        ((4097, 4.0), True, "Correct!"),
        ((4096, 4.0), False, "still exactly 1"),
        ((4097, 4.0 ** (128 / 126)), False, "factor on the base"),
        ((5000, 4.0), False, "smallest n"),
        ((4097, 0.25), False, "multiplied by, 1 / s"),
        ((4097, 3.0), False, "Compare the slowest pair"),
        ("4097", False, "two numbers"),
    ],
)
def test_dynamic_ntk_check(capsys, answer, ok, hint):
    got, out = verdict(capsys, lambda: exercises.check_dynamic_ntk(answer, 128, original_max_len=4096, seq_len=16384))
    assert got is ok and hint in out
    with pytest.raises(ValueError, match="seq_len must be larger"):
        exercises.check_dynamic_ntk((1, 1.0), 128, original_max_len=4096, seq_len=4096)


@pytest.mark.parametrize(
    "answer, ok, hint",
    [
        ((4097, 7.0), True, "Correct!"),  # s = 1 + 2 (16384 / 4096 - 1)
        ((4097, 4.0), False, "scales harder"),
        ((4097, 7.0 ** (128 / 126)), False, "factor on the base"),
        ((4096, 7.0), False, "still exactly 1"),
    ],
)
def test_dynamic_ntk_check_transformers_form(capsys, answer, ok, hint):
    got, out = verdict(
        capsys,
        lambda: exercises.check_dynamic_ntk(
            answer, 128, original_max_len=4096, seq_len=16384, form="transformers", factor=2.0
        ),
    )
    assert got is ok and hint in out
    with pytest.raises(ValueError, match="factor is required"):
        exercises.check_dynamic_ntk((4097, 7.0), 128, original_max_len=4096, seq_len=16384, form="transformers")


@pytest.mark.parametrize(
    "answer, ok, hint",
    [
        (35, True, "Correct!"),
        (29, False, "never turn"),
        (34, False, "one more than the last"),
        (19, False, "more than 32 turns"),
        (40, False, "Compare each wavelength"),
        (3.5, False, "whole number"),
    ],
)
def test_turned_pairs_check(capsys, answer, ok, hint):
    turns = 8192 * encodings.frequencies(128, base=500000.0) / (2 * math.pi)
    assert int((turns > 32).sum()) == 19 and scaling.turned_pairs(128, original_max_len=8192, base=500000.0) == 35
    got, out = verdict(capsys, lambda: exercises.check_turned_pairs(answer, 128, original_max_len=8192, base=500000.0))
    assert got is ok and hint in out


@pytest.mark.parametrize("form", [int, float, torch.tensor, lambda n: torch.tensor([float(n)])])
def test_turned_pairs_accepts_every_form_of_the_number(form):
    assert exercises.check_turned_pairs(form(35), 128, original_max_len=8192, base=500000.0)


def test_yarn_pairs_check_accepts_tensors_and_any_order(capsys):
    kw = dict(original_max_len=32, alpha=1.0, beta=32.0)
    code = _groups(scaling.yarn_ramp(64, **kw))
    shuffled = {k: torch.tensor(v[::-1]) for k, v in code.items()}
    assert exercises.check_yarn_pairs(shuffled, 64, **kw)
    floats = {k: [float(i) for i in v] for k, v in code.items()}
    assert exercises.check_yarn_pairs(floats, 64, **kw)


def test_turned_pairs_check_accepts_the_list_of_turned_pairs(capsys):
    kw = dict(original_max_len=8192, base=500000.0)
    for listed in (
        list(range(35)),
        range(35),
        torch.arange(35),
        tuple(range(34, -1, -1)),
        np.arange(35),
        set(range(35)),
        frozenset(range(35)),
    ):
        assert exercises.check_turned_pairs(listed, 128, **kw)
    ok, out = verdict(capsys, lambda: exercises.check_turned_pairs(list(range(34)), 128, **kw))
    assert not ok and "whole number" in out
    ok, out = verdict(capsys, lambda: exercises.check_turned_pairs(np.arange(35).reshape(5, 7), 128, **kw))
    assert not ok and "whole number" in out
