"""Answers no check should choke on, and the assertions the chapters' test files share."""

from __future__ import annotations

import numpy as np
import pytest
import torch

#: Odd answers for the checks of chapters 1 to 7: each gets a hint and ``False``.
BAD_ANSWERS = [
    float("nan"),
    float("inf"),
    -float("inf"),
    "abc",
    "63",
    None,
    [1, 2],
    [[1, [2]], [3]],
    torch.tensor(float("nan")),
    torch.full((4, 4), float("nan")),
    torch.full((2, 2), float("inf")),
    torch.full((32, 32), float("nan")),
    torch.zeros(3, 3, 3),
    1 + 2j,
    object(),
    np.array(float("nan")),
    np.array("63"),
    np.array(None),
    np.array(1 + 2j),
]

#: Odd answers for the checks of chapters 8 and 9.
ODD_ANSWERS = [
    float("nan"),
    float("inf"),
    -float("inf"),
    "abc",
    None,
    [1, 2, 3],
    torch.zeros(3, 3),
    {"a": 1},
    (float("nan"), float("inf")),
    [[1], [2, 3]],
    2.5,
    torch.tensor(float("nan")),
    object(),
]


def verdict(capsys, call):
    """``call()``'s result and what it printed."""
    ok = call()
    return ok, capsys.readouterr().out


def hints_without_raising(capsys, check, answer):
    """A student's answer never makes ``check`` raise: it gets a hint and False."""
    assert check(answer) is False
    assert "Not yet." in capsys.readouterr().out


def raises_clearly(call, exc, message):
    """A bad argument from the teacher's side (not the student's answer) raises ``exc``, naming it."""
    with pytest.raises(exc, match=message):
        call()
