"""book._validate: the argument checks every public function uses.

TypeError for a wrong type, ValueError for a bad value; NumPy scalars (and
one-element tensors where a real number is expected) are accepted wherever
Python numbers are, and come back as Python numbers.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
import torch

from book import _validate as v
from book import encodings, experiments, models, tasks


# ------------------------------------------------------------------ each helper
@pytest.mark.parametrize("value", [0, 3, np.int64(3), np.int32(0), np.uint8(7)])
def test_check_nonneg_int_accepts_python_and_numpy_integers(value):
    got = v.check_nonneg_int("n", value)
    assert got == int(value) and type(got) is int


@pytest.mark.parametrize(
    "value,exc,message",
    [
        (-1, ValueError, r"n must be a non-negative integer \(>= 0\), got -1"),
        (np.int64(-2), ValueError, "got -2"),
        (1.0, TypeError, "n must be an integer, got float 1.0"),
        (np.float32(1), TypeError, "n must be an integer, got float32"),
        (True, TypeError, "n must be an integer, got bool"),
        ("1", TypeError, "n must be an integer, got str"),
        (None, TypeError, "got NoneType"),
    ],
)
def test_check_nonneg_int_rejects(value, exc, message):
    with pytest.raises(exc, match=message):
        v.check_nonneg_int("n", value)


@pytest.mark.parametrize("value", [1e-3, 2, np.float32(0.5), np.float64(3.0), np.int64(4), torch.tensor(0.25)])
def test_check_positive_real_accepts_python_numpy_and_one_element_tensors(value):
    got = v.check_positive_real("lr", value)
    assert type(got) is float and got == pytest.approx(float(value))


@pytest.mark.parametrize(
    "value,exc,message",
    [
        (0, ValueError, r"lr must be a positive finite number \(> 0\), got 0.0"),
        (-1.5, ValueError, "got -1.5"),
        (float("nan"), ValueError, "got nan"),
        (np.float64("inf"), ValueError, "got inf"),
        (True, TypeError, "lr must be a real number, got bool"),
        ("0.1", TypeError, "got str"),
        (1j, TypeError, "got complex"),
        (torch.tensor([0.1, 0.2]), TypeError, "got Tensor"),
    ],
)
def test_check_positive_real_rejects(value, exc, message):
    with pytest.raises(exc, match=message):
        v.check_positive_real("lr", value)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_check_float_dtype_accepts_floating_dtypes(dtype):
    assert v.check_float_dtype("dtype", dtype) is dtype


@pytest.mark.parametrize("value", [torch.int64, torch.bool, torch.complex64, "float32", np.float32, None])
def test_check_float_dtype_rejects_with_type_error(value):
    with pytest.raises(TypeError, match=r"dtype must be a floating-point torch.dtype \(e.g. torch.float32\), got"):
        v.check_float_dtype("dtype", value)


def test_the_older_helpers_accept_numpy_scalars_too():
    assert v.check_positive_int("n", np.int64(3)) == 3
    assert v.check_even("d", np.int16(8)) == 8
    assert v.check_real("x", np.float32(0.5)) == 0.5
    assert v.check_base(np.float64(500.0)) == 500.0
    assert v.check_pair_index("i", np.int64(1), 8) == 1


@pytest.mark.parametrize(
    "value",
    [
        [True, 2],
        [0, 1, False],
        [[0, 1], [2, True]],
        (3, np.bool_(True)),
        [np.int64(1), np.bool_(False)],
        np.array([1, True], dtype=object),
        [True, False],
        True,
    ],
)
def test_check_position_tensor_rejects_booleans_mixed_with_numbers(value):
    """``torch.as_tensor([True, 2])`` is ``tensor([1, 2])``: a bool among integers would be read as 0 or 1."""
    with pytest.raises(TypeError, match="p must hold numbers, not booleans"):
        v.check_position_tensor("p", value, allow_float=True)


def test_check_position_tensor_accepts_booleans_only_when_allowed():
    assert v.check_position_tensor("mask", [True, 0, 1], allow_float=False, allow_bool=True).tolist() == [1, 0, 1]
    assert v.check_position_tensor("p", [np.int64(1), 2], allow_float=False).tolist() == [1, 2]


# ---------------------------------------------- end to end, through public functions
def test_public_functions_accept_numpy_scalars():
    cfg = experiments.Config(
        seeds=(np.int64(0), 1), steps=np.int64(5), lr=np.float32(0.01), train_len=np.int32(4), test_len=6
    )
    assert cfg.seeds == (0, 1) and type(cfg.steps) is int and type(cfg.train_len) is int
    assert type(cfg.lr) is float and cfg.lr == pytest.approx(0.01)
    stored = json.loads(json.dumps(dataclasses.asdict(cfg)))  # NumPy scalars would not go to JSON
    assert experiments.Config.from_results({"config": stored}) == cfg
    batch = tasks.local_sum(np.int64(2), np.int64(5), offsets=(np.int64(0), np.int8(2)))
    assert batch.inputs.shape == (2, 5)
    schedule = models.lr_schedule(np.int64(10), np.float64(0.1))
    assert math.isclose(schedule(0), 1.0)


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda: experiments.Config(lr=0), ValueError, "lr must be a positive finite number"),
        (lambda: experiments.Config(lr="0.1"), TypeError, "lr must be a real number"),
        (lambda: experiments.Config(steps=2.0), TypeError, "steps must be an integer"),
        (lambda: experiments.Config(steps=0), ValueError, "steps must be a positive integer"),
        (lambda: experiments.Config(seeds=(0, -1)), ValueError, r"seeds\[1\] must be a non-negative integer"),
        (lambda: experiments.run(experiments.Config(), workers=1.5), TypeError, "workers must be an integer"),
        (lambda: models.lr_schedule(10, float("inf")), ValueError, "lr must be a positive finite number"),
        (lambda: models.lr_schedule(10, None), TypeError, "lr must be a real number"),
        (
            lambda: models.TinyTransformer(10, position="rope").set_rope_scaling(
                freqs=torch.ones(8, dtype=torch.float64), attention_factor=0
            ),
            ValueError,
            "attention_factor must be a positive finite number",
        ),
        (lambda: tasks.local_sum(2, 5, offsets=(0, "1")), TypeError, r"offsets\[1\] must be an integer"),
        (lambda: tasks.local_sum(2, 5, offsets=(0, -3)), ValueError, r"offsets\[1\] must be a non-negative integer"),
    ],
)
def test_public_functions_raise_type_error_for_a_type_and_value_error_for_a_value(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_added_helpers_name_the_bad_parameter():
    with pytest.raises(TypeError, match=r"seeds\[0\] must be an integer"):
        experiments.Config(seeds=("0",))
    with pytest.raises(TypeError, match="freqs must be a floating tensor"):
        encodings.rope_cis(range(4), 8, freqs=[1.0, 0.1, 0.01, 0.001])
