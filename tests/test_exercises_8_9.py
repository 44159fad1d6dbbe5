"""Self-checks of chapters 8 and 9's exercises (``book.exercises``): each
returns True on the right answer and False, with a specific hint, on the
usual wrong ones."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from book import encodings, exercises, experiments, models, scaling


def _verdict(capsys, call):
    ok = call()
    return ok, capsys.readouterr().out


# ----------------------------------------------------------------- chapter 8
SLOPES = encodings.alibi_slopes(2).double()


@pytest.mark.parametrize("answer, ok, hint", [
    ((1 - torch.exp(-2 * SLOPES)).tolist(), True, "Correct!"),
    ((1 - torch.exp(-SLOPES)).tolist(), False, "offset 0 alone"),
    (SLOPES.tolist(), False, "slopes m themselves"),
    ((1 - torch.exp(-2 * SLOPES)).flip(0).tolist(), False, "reverse order"),
    ([0.5, 0.5], False, "alibi_slopes"),
    (((1 - torch.exp(-2 * SLOPES)) / (1 - torch.exp(-32 * SLOPES))).tolist(), False, "exact weight with 32 keys"),
    (((1 - torch.exp(-2 * SLOPES)) / (1 - torch.exp(-128 * SLOPES))).tolist(), False, "limit of a long past"),
    ([0.1], False, "one weight per head"),
    ("0.1", False, "one per head"),
    ([0.1175, 0.0078], False, "more digits"),        # rounded, not a finite n
    ([0.118, 0.0078], False, "more digits"),
])
def test_alibi_neutral_weight_check(capsys, answer, ok, hint):
    got, out = _verdict(capsys, lambda: exercises.check_alibi_neutral_weight(answer, n_heads=2))
    assert got is ok and hint in out


@pytest.mark.parametrize("answer, ok, hint", [
    (32, True, "Correct!"), (31, False, "last one training reads"), (33, False, "counted from 0"),
    (0, False, "after the last"), (32.5, False, "whole row"),
])
def test_first_untrained_row_check(capsys, answer, ok, hint):
    got, out = _verdict(capsys, lambda: exercises.check_first_untrained_row(answer, train_len=32, max_len=128))
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
        out[rule] = (float(acc[0 if zero else 1:L].mean()), float(acc[L:].mean()))
    return out


def test_rope_stretch_check(capsys, rope_model):
    model, batch = rope_model
    right = _truth(model, batch, 8)
    before = models.accuracy_by_position(model, batch)
    ok, out = _verdict(capsys, lambda: exercises.check_rope_stretch(right, model, batch, 8))
    assert ok and "Correct!" in out
    torch.testing.assert_close(models.accuracy_by_position(model, batch), before, equal_nan=True)  # unscaled
    swapped = {r: (b, a) for r, (a, b) in right.items()}
    assert any(abs(a - b) > 0.02 for a, b in right.values())     # so swapping them is wrong
    ok, out = _verdict(capsys, lambda: exercises.check_rope_stretch(swapped, model, batch, 8))
    assert not ok and "swapped" in out
    zero = _truth(model, batch, 8, zero=True)                    # position 0 has no target: NaN
    ok, out = _verdict(capsys, lambda: exercises.check_rope_stretch(zero, model, batch, 8))
    assert not ok and "Position 0" in out
    off = {r: (a + 0.2, b) for r, (a, b) in right.items()}
    ok, out = _verdict(capsys, lambda: exercises.check_rope_stretch(off, model, batch, 8))
    assert not ok and "set_rope_scaling" in out
    ok, out = _verdict(capsys, lambda: exercises.check_rope_stretch({"PI": (0, 0)}, model, batch, 8))
    assert not ok and "Give a dict" in out
    ok, out = _verdict(capsys, lambda: exercises.check_rope_stretch({"PI": (0,), "YaRN": (0,)}, model, batch, 8))
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


# ----------------------------------------------------------------- chapter 9
def _groups(gamma):
    return {"kept": (gamma == 1).nonzero().flatten().tolist(),
            "blended": ((gamma > 0) & (gamma < 1)).nonzero().flatten().tolist(),
            "interpolated": (gamma == 0).nonzero().flatten().tolist()}


def test_yarn_pairs_check(capsys):
    kw = dict(original_max_len=32, alpha=1.0, beta=32.0)     # code keeps pair 0, the paper blends it
    code = _groups(scaling.yarn_ramp(64, **kw))
    paper = _groups(scaling.yarn_ramp(64, ramp="paper", **kw))
    assert code["kept"] == [0] and paper["kept"] == []
    ok, out = _verdict(capsys, lambda: exercises.check_yarn_pairs(code, 64, **kw))
    assert ok and "Correct!" in out
    ok, out = _verdict(capsys, lambda: exercises.check_yarn_pairs(paper, 64, **kw))
    assert not ok and "paper's ramp" in out
    assert exercises.check_yarn_pairs(paper, 64, ramp="paper", **kw)
    shifted = {k: [i + 1 for i in v] for k, v in code.items()}
    ok, out = _verdict(capsys, lambda: exercises.check_yarn_pairs(shifted, 64, **kw))
    assert not ok and "counted from 0" in out
    wrong = dict(code, blended=code["blended"][:-1], interpolated=code["blended"][-1:] + code["interpolated"])
    ok, out = _verdict(capsys, lambda: exercises.check_yarn_pairs(wrong, 64, **kw))
    assert not ok and "yarn_ramp" in out
    ok, out = _verdict(capsys, lambda: exercises.check_yarn_pairs([0, 1], 64, **kw))
    assert not ok and "Give a dict" in out


@pytest.mark.parametrize("answer, ok, hint", [
    ((4097, 4.0), True, "Correct!"),
    ((4096, 4.0), False, "still exactly 1"),
    ((4097, 4.0 ** (128 / 126)), False, "factor on the base"),
    ((5000, 4.0), False, "smallest n"),
    ((4097, 0.25), False, "multiplied by, 1 / s"),
    ((4097, 3.0), False, "Compare the slowest pair"),
    ("4097", False, "two numbers"),
])
def test_dynamic_ntk_check(capsys, answer, ok, hint):
    got, out = _verdict(capsys, lambda: exercises.check_dynamic_ntk(answer, 128, original_max_len=4096,
                                                                    seq_len=16384))
    assert got is ok and hint in out
    with pytest.raises(ValueError, match="seq_len must be larger"):
        exercises.check_dynamic_ntk((1, 1.0), 128, original_max_len=4096, seq_len=4096)


@pytest.mark.parametrize("answer, ok, hint", [
    ((4097, 7.0), True, "Correct!"),                # s = 1 + 2 (16384 / 4096 - 1)
    ((4097, 4.0), False, "scales harder"),
    ((4097, 7.0 ** (128 / 126)), False, "factor on the base"),
    ((4096, 7.0), False, "still exactly 1"),
])
def test_dynamic_ntk_check_transformers_form(capsys, answer, ok, hint):
    got, out = _verdict(capsys, lambda: exercises.check_dynamic_ntk(
        answer, 128, original_max_len=4096, seq_len=16384, form="transformers", factor=2.0))
    assert got is ok and hint in out
    with pytest.raises(ValueError, match="factor is required"):
        exercises.check_dynamic_ntk((4097, 7.0), 128, original_max_len=4096, seq_len=16384, form="transformers")


@pytest.mark.parametrize("answer, ok, hint", [
    (35, True, "Correct!"), (29, False, "never turn"), (34, False, "one more than the last"),
    (19, False, "more than 32 turns"), (40, False, "Compare each wavelength"), (3.5, False, "whole number"),
])
def test_turned_pairs_check(capsys, answer, ok, hint):
    turns = 8192 * encodings.frequencies(128, base=500000.0) / (2 * math.pi)
    assert int((turns > 32).sum()) == 19 and scaling.turned_pairs(128, original_max_len=8192, base=500000.0) == 35
    got, out = _verdict(capsys, lambda: exercises.check_turned_pairs(answer, 128, original_max_len=8192,
                                                                     base=500000.0))
    assert got is ok and hint in out


# ------------------------------------------- any answer: a hint, never an error
ODD_ANSWERS = [float("nan"), float("inf"), -float("inf"), "abc", None, [1, 2, 3], torch.zeros(3, 3), {"a": 1},
               (float("nan"), float("inf")), [[1], [2, 3]], 2.5, torch.tensor(float("nan")), object()]


@pytest.mark.parametrize("answer", ODD_ANSWERS + [
    {"kept": [float("inf")], "blended": [], "interpolated": []},
    {"kept": [2.5], "blended": [], "interpolated": []},
    {"kept": None, "blended": [], "interpolated": []},
    {"kept": "01", "blended": [], "interpolated": []},
])
def test_chapter_8_9_checks_hint_on_any_answer(capsys, answer):
    calls = [lambda: exercises.check_alibi_neutral_weight(answer, n_heads=2),
             lambda: exercises.check_first_untrained_row(answer, train_len=32, max_len=128),
             lambda: exercises.check_yarn_pairs(answer, 64, original_max_len=32),
             lambda: exercises.check_dynamic_ntk(answer, 128, original_max_len=4096, seq_len=16384),
             lambda: exercises.check_turned_pairs(answer, 128, original_max_len=8192, base=500000.0)]
    for call in calls:
        ok, out = _verdict(capsys, call)
        assert ok is False and out.startswith("Not yet.")


@pytest.mark.parametrize("answer", ODD_ANSWERS + [
    {"PI": None, "YaRN": (0.5, 0.5)}, {"PI": (float("inf"), 0.5), "YaRN": (0.5, 0.5)},
    {"PI": "ab", "YaRN": (0.5, 0.5)}, {"PI": 0.5, "YaRN": (0.5, 0.5)},
])
def test_rope_stretch_check_hints_on_any_answer(capsys, rope_model, answer):
    model, batch = rope_model
    ok, out = _verdict(capsys, lambda: exercises.check_rope_stretch(answer, model, batch, 8))
    assert ok is False and out.startswith("Not yet.")


def test_rope_stretch_check_names_close_slips(capsys, rope_model):
    model, batch = rope_model
    right = _truth(model, batch, 8)
    percent = {r: (100 * a, 100 * b) for r, (a, b) in right.items()}
    ok, out = _verdict(capsys, lambda: exercises.check_rope_stretch(percent, model, batch, 8))
    assert not ok and "percentages" in out
    close = {r: (a + 0.03, b) for r, (a, b) in right.items()}
    ok, out = _verdict(capsys, lambda: exercises.check_rope_stretch(close, model, batch, 8))
    assert not ok and "Close, but" in out
    tensors = {r: torch.tensor(v) for r, v in right.items()}       # any pair of numbers will do
    assert exercises.check_rope_stretch(tensors, model, batch, 8)
    lower = {r.lower(): v for r, v in right.items()}                # and any case of the rule names
    assert exercises.check_rope_stretch(lower, model, batch, 8)


@pytest.mark.parametrize("form", [int, float, torch.tensor, lambda n: torch.tensor([float(n)])])
def test_whole_number_checks_accept_every_form_of_the_number(form):
    assert exercises.check_first_untrained_row(form(32), train_len=32, max_len=128)
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
    for listed in (list(range(35)), range(35), torch.arange(35), tuple(range(34, -1, -1)), np.arange(35),
                   set(range(35)), frozenset(range(35))):
        assert exercises.check_turned_pairs(listed, 128, **kw)
    ok, out = _verdict(capsys, lambda: exercises.check_turned_pairs(list(range(34)), 128, **kw))
    assert not ok and "whole number" in out
    ok, out = _verdict(capsys, lambda: exercises.check_turned_pairs(np.arange(35).reshape(5, 7), 128, **kw))
    assert not ok and "whole number" in out
