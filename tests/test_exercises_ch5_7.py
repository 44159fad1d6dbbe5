"""Chapter 5's new self-check (#17): True for two trained models, False (with a hint) otherwise."""

from __future__ import annotations

import pytest
import torch

from book import models, tasks
from book.exercises import check_learned_vs_sinusoidal

LENGTH = 12


def _model(position, *, steps=0, max_len=LENGTH):
    m = models.TinyTransformer(10, position=position, d_model=32, n_heads=2, n_layers=1, max_len=max_len, seed=0)
    if steps:
        models.train(m, lambda g: tasks.local_sum(32, LENGTH, generator=g), steps=steps, lr=1e-2, seed=0)
    return m


@pytest.fixture(scope="module")
def trained():
    return _model("learned", steps=250), _model("sinusoidal", steps=250)


def test_right_answer(trained, capsys):
    assert check_learned_vs_sinusoidal(*trained, length=LENGTH) is True
    assert capsys.readouterr().out.startswith("Correct!")


def test_wrong_answers(trained, capsys):
    learned, sinusoidal = trained
    cases = [
        ((None, None), "Give two trained models"),
        ((sinusoidal, learned), "swapped"),
        ((learned, _model("rope")), "position='rope'"),
        ((_model("learned"), sinusoidal), "does not apply the rule"),           # untrained
        ((learned, _model("sinusoidal", steps=20)), "does not apply the rule"),  # under-trained
        ((_model("learned", max_len=8), sinusoidal), "too few"),
    ]
    for args, hint in cases:
        assert check_learned_vs_sinusoidal(*args, length=LENGTH) is False
        out = capsys.readouterr().out
        assert out.startswith("Not yet.") and hint in out.replace("\n", " "), out


@pytest.mark.parametrize("kwargs", [{"length": 1}, {"threshold": 1.5}, {"length": 2.5}])
def test_bad_teacher_calls_raise(trained, kwargs):
    with pytest.raises((TypeError, ValueError)):
        check_learned_vs_sinusoidal(*trained, **kwargs)
