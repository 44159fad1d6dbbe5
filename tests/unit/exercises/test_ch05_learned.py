"""Chapter 5's self-checks (``book.exercises.ch05_learned``): the size of a learned position table, and
the learned-or-sinusoidal check (True for two trained models, False with a hint otherwise)."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
import torch

from book import exercises, models, tasks
from book.exercises import check_learned_vs_sinusoidal

from .answers import BAD_ANSWERS, hints_without_raising, raises_clearly


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (1024 * 1600, True, "1,638,400 parameters"),
        (1024, False, "counts the positions"),
        (1600, False, "one position's vector"),
        (1024 + 1600, False, "multiply the number of rows"),
        (1024 * 1600 * 48, False, "added once"),
        (0, False, "sinusoidal table's count"),
        (12345, False, "rows x columns"),
        ("lots", False, "whole number"),
        (1023 * 1600, False, "One row off"),
        (1025 * 1600, False, "One row off"),
        (4 * 1024 * 1600, False, "bytes"),
        (1024 * 1600 + 0.5, False, "whole number"),
        (1.6384e6, True, "Correct!"),
        (torch.tensor(1024 * 1600), True, "Correct!"),
        (np.array([1024 * 1600]), True, "Correct!"),
        (torch.tensor([1024 * 1600]), True, "Correct!"),
        ([1024 * 1600], True, "Correct!"),
        ((1024 * 1600,), True, "Correct!"),
        ([1024 * 1600, 1], False, "several numbers"),
        (Decimal("1638400"), True, "Correct!"),
    ],
)
def test_position_table_size_hints(capsys, answer, ok, hint):
    assert exercises.check_position_table_size(answer, 1024, 1600, n_layers=48) is ok
    assert hint in capsys.readouterr().out


def test_position_table_size_names_a_power_typed_for_a_product(capsys):
    """``1024**1600`` (``**`` for ``*``) is an integer too large for a float: a hint, not an error."""
    for answer, hint in ((1024**1600, "not **"), ([1024**1600], "not **"), (10**400, "finite whole number")):
        assert exercises.check_position_table_size(answer, 1024, 1600, n_layers=48) is False
        assert hint in capsys.readouterr().out


CHECKS = {
    "table_size": lambda a: exercises.check_position_table_size(a, 1024, 1600, n_layers=48),
}


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_checks_never_raise_on_an_answer(capsys, name, answer):
    hints_without_raising(capsys, CHECKS[name], answer)


BAD_CALLS = [
    (lambda: exercises.check_position_table_size(1, 0, 8), ValueError, "max_len must be a positive integer"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_a_wrong_call_of_a_check_raises_clearly(call, exc, message):
    raises_clearly(call, exc, message)


LENGTH = 12


def _model(position, *, steps=0, max_len=LENGTH):
    m = models.TinyTransformer(10, position=position, d_model=32, n_heads=2, n_layers=1, max_len=max_len, seed=0)
    if steps:
        models.train(m, lambda g: tasks.local_sum(32, LENGTH, generator=g), steps=steps, lr=1e-2, seed=0)
    return m


def _wrong_vocab():
    """A learned model whose vocabulary is too small for the task's tokens 0 .. 9."""
    return models.TinyTransformer(5, position="learned", d_model=32, n_heads=2, n_layers=1, max_len=LENGTH, seed=0)


class _Impostor(torch.nn.Module):
    """A module that claims to be a learned model but cannot run."""

    position = "learned"

    def forward(self, tokens):
        raise RuntimeError("not a model")


@pytest.fixture(scope="module")
def trained():
    return _model("learned", steps=250), _model("sinusoidal", steps=250)


def test_learned_vs_sinusoidal_accepts_two_trained_models(trained, capsys):
    assert check_learned_vs_sinusoidal(*trained, length=LENGTH) is True
    assert capsys.readouterr().out.startswith("Correct!")


def test_learned_vs_sinusoidal_hints_on_wrong_models(trained, capsys):
    learned, sinusoidal = trained
    cases = [
        ((None, None), "Give two trained models"),
        ((sinusoidal, learned), "swapped"),
        ((learned, _model("rope")), "position='rope'"),
        ((_model("learned"), sinusoidal), "does not apply the rule"),  # untrained
        ((learned, _model("sinusoidal", steps=20)), "does not apply the rule"),  # under-trained
        ((_model("learned", max_len=8), sinusoidal), "too few"),
        (("learned", "sinusoidal"), "Give two trained models"),
        ((float("nan"), sinusoidal), "Give two trained models"),
        ((_wrong_vocab(), sinusoidal), "could not score tokens"),
        ((_Impostor(), sinusoidal), "could not score tokens"),
    ]
    for args, hint in cases:
        assert check_learned_vs_sinusoidal(*args, length=LENGTH) is False
        out = capsys.readouterr().out
        assert out.startswith("Not yet.") and hint in out.replace("\n", " "), out


@pytest.mark.parametrize("kwargs", [{"length": 1}, {"threshold": 1.5}, {"length": 2.5}])
def test_learned_vs_sinusoidal_refuses_a_bad_teacher_call(trained, kwargs):
    with pytest.raises((TypeError, ValueError)):
        check_learned_vs_sinusoidal(*trained, **kwargs)
