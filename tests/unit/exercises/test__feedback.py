"""What the self-checks share (``book.exercises._feedback``): the verdict, reading an answer as
numbers, and naming the first known mistake an answer matches."""

from __future__ import annotations

import math
import operator
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import torch

from book.exercises._feedback import (
    _close,
    _is_complex,
    _number,
    _numbers,
    _per_head,
    _per_head_same,
    _real_tensor,
    _verdict,
    _whole_list,
    _whole_number,
    diagnose,
)


def test_verdict_prints_a_wrapped_line_and_returns_the_result(capsys):
    assert _verdict(True, "Right.") is True
    assert capsys.readouterr().out == "Correct! Right.\n"
    assert _verdict(False, "word " * 30) is False
    out = capsys.readouterr().out
    assert out.startswith("Not yet. word") and all(len(line) <= 76 for line in out.splitlines())


@pytest.mark.parametrize(
    "answer,value",
    [
        (2.5, 2.5),
        (3, 3.0),
        (np.float64(2.5), 2.5),
        (torch.tensor(2.5), 2.5),
        (torch.tensor([2.5]), 2.5),
        (np.array(2.5), 2.5),
        (np.array([[2.5]]), 2.5),
        ([2.5], 2.5),
        ((2.5,), 2.5),
        ([[2.5]], 2.5),
        ([torch.tensor(2.5)], 2.5),
        (Decimal("2.5"), 2.5),
        (Fraction(5, 2), 2.5),
        ([Decimal("2.5")], 2.5),
        (np.array([Decimal("2.5")], dtype=object), 2.5),
        (True, None),
        (np.array(True), None),
        (torch.tensor(True), None),
        ("2.5", None),
        (None, None),
        (torch.zeros(2), None),
        ([2.5, 1], None),
        ([], None),
        ({}, None),
        (Decimal("sNaN"), None),
        (1 + 2j, None),
        (np.complex128(2.5), None),
        (torch.tensor([2.5 + 0j]), None),
        ([1 + 2j], None),
        (np.array(None), None),
        (np.array("2.5"), None),
    ],
)
def test_number_reads_one_real_number_or_gives_none(answer, value):
    assert _number(answer) == value


def test_number_keeps_nan_and_infinity_and_reads_huge_integers_as_infinity():
    assert math.isnan(_number(float("nan"))) and _number(float("inf")) == math.inf
    assert math.isnan(_number(Decimal("NaN"))) and _number(Decimal("1e400")) == math.inf
    assert _number(10**400) == _number([10**400]) == _number(Fraction(10**400)) == math.inf
    assert _number(-(10**400)) == -math.inf


def test_number_gives_none_for_a_list_that_holds_itself():
    loop: list = []
    loop.append(loop)
    assert _number(loop) is None and _real_tensor(loop) is None and not _is_complex(loop)


@pytest.mark.parametrize(
    "answer,shape",
    [
        ([[1, 0], [0, 1]], (2, 2)),
        ([[True, False]], (1, 2)),
        (np.eye(2), (2, 2)),
        (torch.eye(2).half(), (2, 2)),
        ([Decimal("0.5"), 1], (2,)),
        ([10**400, 1], (2,)),
        (np.array([Decimal("1"), 2], dtype=object), (2,)),
        (2.5, ()),
        ([torch.tensor(1.0), torch.tensor(2.0)], (2,)),
    ],
)
def test_real_tensor_reads_real_tensors_arrays_and_nested_lists(answer, shape):
    got = _real_tensor(answer)
    assert got is not None and got.dtype == torch.float64 and tuple(got.shape) == shape


def test_real_tensor_keeps_huge_integers_as_infinity():
    assert _real_tensor([10**400, -(10**400)]).tolist() == [math.inf, -math.inf]


@pytest.mark.parametrize(
    "answer",
    [
        "ab",
        None,
        [[1], [2, 3]],
        [1 + 1j, 2],
        torch.tensor([1 + 1j]),
        np.zeros(2) + 1j,
        [None],
        object(),
        np.array(["a"]),
        {1: 2},
    ],
)
def test_real_tensor_gives_none_for_anything_else(answer):
    assert _real_tensor(answer) is None


@pytest.mark.parametrize(
    "answer,count,value",
    [
        ((4097, 4.0), 2, (4097.0, 4.0)),
        ([[4097], [4.0]], 2, (4097.0, 4.0)),
        (torch.tensor([1.0, 2.0]), 2, (1.0, 2.0)),
        ((Decimal("1"), 10**400), 2, (1.0, math.inf)),
        ((1, 2, 3), 2, None),
        (5, 1, None),
        ("12", 2, None),
        ({1: 2, 3: 4}, 2, None),
        (torch.tensor([1 + 1j, 2j]), 2, None),
        ((7 + 3j, 1), 2, None),
        (np.array([4097, 7 + 3j]), 2, None),
    ],
)
def test_numbers_reads_exactly_count_real_numbers(answer, count, value):
    assert _numbers(answer, count) == value


@pytest.mark.parametrize(
    "answer,value",
    [
        (63, 63),
        (63.0, 63),
        (63 + 1e-12, 63),
        (torch.tensor(63), 63),
        (np.array([63.0]), 63),
        (np.int64(63), 63),
        (63.5, None),
        (float("nan"), None),
        (float("inf"), None),
        ("63", None),
        (None, None),
    ],
)
def test_whole_number_reads_a_finite_whole_number(answer, value):
    assert _whole_number(answer) == value


@pytest.mark.parametrize(
    "answer,value",
    [
        ([1, 2], [1, 2]),
        ((2.0, 1.0), [2, 1]),
        (range(3), [0, 1, 2]),
        ({4}, [4]),
        (torch.arange(2), [0, 1]),
        (np.arange(2), [0, 1]),
        ([], []),
        ([1, 2.5], None),
        ("12", None),
        (b"12", None),
        (torch.zeros(2, 2), None),
        (5, None),
        (None, None),
    ],
)
def test_whole_list_reads_a_flat_collection_of_whole_numbers(answer, value):
    assert _whole_list(answer) == value


def test_is_complex_sees_complex_numbers_wherever_they_are():
    assert _is_complex(torch.zeros(2, dtype=torch.complex64)) and _is_complex(np.zeros(2) + 1j)
    assert _is_complex(1 + 2j) and _is_complex(np.complex128(1)) and _is_complex([[1, 2j]])
    assert _is_complex((1, np.complex64(1))) and _is_complex(np.array([1, 2j], dtype=object))
    assert not _is_complex(torch.zeros(2)) and not _is_complex(np.zeros(2)) and not _is_complex([1, 2.5])
    assert not _is_complex("1+2j") and not _is_complex(None) and not _is_complex({1j: 1})


def test_close_is_relative():
    assert _close(1000.0, 1000.9) and not _close(1000.0, 1002.0)
    assert _close(1.0, 1.0 + 4e-6, 5e-6) and not _close(1.0, 1.0 + 6e-6, 5e-6)
    assert not _close(float("nan"), float("nan"))


def test_per_head_reads_one_number_per_head_or_says_why_not(capsys):
    torch.testing.assert_close(_per_head([[0.5, 0.25]], 2, "slopes"), torch.tensor([0.5, 0.25], dtype=torch.float64))
    assert capsys.readouterr().out == ""
    torch.testing.assert_close(
        _per_head([Decimal("0.5"), 10**400], 2, "slopes"), torch.tensor([0.5, math.inf], dtype=torch.float64)
    )
    for answer, hint in (
        (np.zeros(2) + 1j, "complex entries"),
        ([0.5, 1j], "complex entries"),
        ("x", "one per head"),
        ({0: 0.5, 1: 0.25}, "one per head"),
        ([[0.5], [0.2, 1]], "one per head"),
        ([0.5], "one slope per head: 2 numbers, got 1"),
    ):
        assert _per_head(answer, 2, "slopes") is None
        assert hint in capsys.readouterr().out


MISTAKES = [(1.0, "one"), (2.0, "two"), (2.0005, "two again"), (4.0, "four")]


@pytest.mark.parametrize(
    "got,hint",
    [
        (1.0, "one"),
        (2.001, "two"),
        (4.003, "four"),
        (3.0, None),
        (float("nan"), None),
        (float("inf"), None),
    ],
)
def test_diagnose_returns_the_hint_of_the_first_mistake_that_matches(got, hint):
    assert diagnose(got, MISTAKES) == hint


def test_diagnose_uses_the_comparison_it_is_given():
    assert diagnose(2.001, MISTAKES, same=operator.eq) is None
    assert diagnose(2.0005, MISTAKES, same=operator.eq) == "two again"
    assert diagnose(1.0, [], same=operator.eq) is None
    got = torch.tensor([0.5, 0.25])
    same = _per_head_same(rtol=1e-3, atol=1e-6)
    assert diagnose(got, [(got.flip(0), "reversed"), (got * (1 + 1e-4), "rounded")], same=same) == "rounded"
    assert diagnose({"a": [1]}, [({"a": [0]}, "zero"), ({"a": [1]}, "one")], same=operator.eq) == "one"


def test_per_head_same_compares_every_head_within_its_tolerances():
    same = _per_head_same(rtol=1e-5, atol=0)
    a = torch.tensor([1.0, 1e-3], dtype=torch.float64)
    assert same(a, a * (1 + 5e-6)) and not same(a, a * (1 + 2e-5))
    assert not same(a, a + torch.tensor([0.0, 1e-6], dtype=torch.float64))
