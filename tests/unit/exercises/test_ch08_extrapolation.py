"""Chapter 8's self-checks (``book.exercises.ch08_extrapolation``): each returns True on the right
answer and False, with a specific hint, on the usual wrong ones."""

from __future__ import annotations

import pytest
import torch

from book import encodings, exercises, experiments, models

from .answers import ODD_ANSWERS, verdict

SLOPES = encodings.alibi_slopes(2).double()


@pytest.mark.parametrize(
    "answer, ok, hint",
    [
        ((1 - torch.exp(-2 * SLOPES)).tolist(), True, "Correct!"),
        ((1 - torch.exp(-SLOPES)).tolist(), False, "offset 0 alone"),
        (SLOPES.tolist(), False, "slopes m themselves"),
        ((1 - torch.exp(-2 * SLOPES)).flip(0).tolist(), False, "reverse order"),
        ([0.5, 0.5], False, "alibi_slopes"),
        (((1 - torch.exp(-2 * SLOPES)) / (1 - torch.exp(-32 * SLOPES))).tolist(), False, "exact weight with 32 keys"),
        (((1 - torch.exp(-2 * SLOPES)) / (1 - torch.exp(-128 * SLOPES))).tolist(), False, "limit of a long past"),
        ([0.1], False, "one weight per head"),
        ("0.1", False, "one per head"),
        ([0.1175, 0.0078], True, "rounded"),  # rounded to the nearest: 4 and 2 significant digits
        ([0.12, 0.0078], True, "rounded"),
        ([0.118, 0.008], True, "rounded"),  # the glued and the old printed forms
        ((0.1175, 0.007782), True, "Correct!"),  # what the check prints: within 1e-3
        ([0.117, 0.00778], False, "more digits"),  # 0.117 is cut, not rounded; within 1%, not a finite n
        ([0.12, 0.01], False, "alibi_slopes"),  # 0.01 is 0.0078 at two decimals: too coarse
    ],
)
def test_alibi_neutral_weight_check(capsys, answer, ok, hint):
    got, out = verdict(capsys, lambda: exercises.check_alibi_neutral_weight(answer, n_heads=2))
    assert got is ok and hint in out


@pytest.mark.parametrize(
    "answer, ok, hint",
    [
        (32, True, "Correct!"),
        (31, False, "last one training reads"),
        (33, False, "counted from 0"),
        (0, False, "after the last"),
        (32.5, False, "whole row"),
    ],
)
def test_first_untrained_row_check(capsys, answer, ok, hint):
    got, out = verdict(capsys, lambda: exercises.check_first_untrained_row(answer, train_len=32, max_len=128))
    assert got is ok and hint in out
    with pytest.raises(ValueError, match="max_len must be larger than train_len"):
        exercises.check_first_untrained_row(32, train_len=32, max_len=32)


@pytest.fixture(scope="module")
def rope_model():
    config = experiments.Config(schemes=("rope",), seeds=(0,), steps=60, eval_seqs=16, train_len=8, test_len=32)
    model, _ = experiments.train_model(config, "rope", 0)
    batch = experiments.held_out_batch(config, 0)
    return model, batch


def _truth(model, batch, L, zero=False):
    out = {}
    for rule in ("PI", "YaRN"):
        model.set_rope_scaling(rule=rule, scale=4.0, original_max_len=L)
        acc = models.accuracy_by_position(model, batch)
        model.set_rope_scaling()
        out[rule] = (float(acc[0 if zero else 1 : L].mean()), float(acc[L:].mean()))
    return out


def test_rope_stretch_check(capsys, rope_model):
    model, batch = rope_model
    right = _truth(model, batch, 8)
    before = models.accuracy_by_position(model, batch)
    ok, out = verdict(capsys, lambda: exercises.check_rope_stretch(right, model, batch, 8))
    assert ok and "Correct!" in out
    torch.testing.assert_close(models.accuracy_by_position(model, batch), before, equal_nan=True)  # unscaled
    swapped = {r: (b, a) for r, (a, b) in right.items()}
    assert any(abs(a - b) > 0.02 for a, b in right.values())  # so swapping them is wrong
    ok, out = verdict(capsys, lambda: exercises.check_rope_stretch(swapped, model, batch, 8))
    assert not ok and "swapped" in out
    zero = _truth(model, batch, 8, zero=True)  # position 0 has no target: NaN
    ok, out = verdict(capsys, lambda: exercises.check_rope_stretch(zero, model, batch, 8))
    assert not ok and "Position 0" in out
    off = {r: (a + 0.2, b) for r, (a, b) in right.items()}
    ok, out = verdict(capsys, lambda: exercises.check_rope_stretch(off, model, batch, 8))
    assert not ok and "set_rope_scaling" in out
    ok, out = verdict(capsys, lambda: exercises.check_rope_stretch({"PI": (0, 0)}, model, batch, 8))
    assert not ok and "Give a dict" in out
    ok, out = verdict(capsys, lambda: exercises.check_rope_stretch({"PI": (0,), "YaRN": (0,)}, model, batch, 8))
    assert not ok and "two numbers" in out
    with pytest.raises(ValueError, match="scale must be >= 1"):
        exercises.check_rope_stretch(right, model, batch, 8, scale=0.5)


def test_rope_stretch_check_needs_a_real_difference(rope_model):
    """The chosen rules give different accuracies on this model, so a wrong
    rule (no scaling at all) is not accepted by accident."""
    model, batch = rope_model
    acc = models.accuracy_by_position(model, batch)
    unscaled = {r: (float(acc[1:8].mean()), float(acc[8:].mean())) for r in ("PI", "YaRN")}
    right = _truth(model, batch, 8)
    assert any(abs(a - b) > 0.01 for r in right for a, b in zip(right[r], unscaled[r]))
    assert not exercises.check_rope_stretch(unscaled, model, batch, 8)


@pytest.mark.parametrize(
    "answer",
    ODD_ANSWERS
    + [
        {"PI": None, "YaRN": (0.5, 0.5)},
        {"PI": (float("inf"), 0.5), "YaRN": (0.5, 0.5)},
        {"PI": "ab", "YaRN": (0.5, 0.5)},
        {"PI": 0.5, "YaRN": (0.5, 0.5)},
    ],
)
def test_rope_stretch_check_hints_on_any_answer(capsys, rope_model, answer):
    model, batch = rope_model
    ok, out = verdict(capsys, lambda: exercises.check_rope_stretch(answer, model, batch, 8))
    assert ok is False and out.startswith("Not yet.")


def test_rope_stretch_check_names_close_slips(capsys, rope_model):
    model, batch = rope_model
    right = _truth(model, batch, 8)
    percent = {r: (100 * a, 100 * b) for r, (a, b) in right.items()}
    ok, out = verdict(capsys, lambda: exercises.check_rope_stretch(percent, model, batch, 8))
    assert not ok and "percentages" in out
    close = {r: (a + 0.03, b) for r, (a, b) in right.items()}
    ok, out = verdict(capsys, lambda: exercises.check_rope_stretch(close, model, batch, 8))
    assert not ok and "Close, but" in out
    tensors = {r: torch.tensor(v) for r, v in right.items()}  # any pair of numbers will do
    assert exercises.check_rope_stretch(tensors, model, batch, 8)
    lower = {r.lower(): v for r, v in right.items()}  # and any case of the rule names
    assert exercises.check_rope_stretch(lower, model, batch, 8)


@pytest.mark.parametrize("form", [int, float, torch.tensor, lambda n: torch.tensor([float(n)])])
def test_first_untrained_row_accepts_every_form_of_the_number(form):
    assert exercises.check_first_untrained_row(form(32), train_len=32, max_len=128)
