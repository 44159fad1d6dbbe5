"""Every self-check in ``book.exercises.__all__``, fuzzed: no answer a student can type makes one raise
(NaN, infinities, integers too large for a float, complex numbers and tensors, strings, None, dicts,
wrong shapes, one-element lists, Decimals), and equivalent forms of a right answer get the same verdict."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from functools import partial

import numpy as np
import pytest
import torch

from book import exercises, models, numerics, scaling, tasks
from book.encodings import alibi_slopes, apply_rope_cached, rope_cos_sin
from book.encodings.sinusoidal_geometry import shift_fit_residual

from .answers import verdict

NAN, INF = float("nan"), float("inf")


def _holds_itself() -> list:
    loop: list = []
    loop.append(loop)
    return loop


#: Answers no check may raise on; none of them is right for the settings of ``CALLS``.
ODD = [
    NAN,
    INF,
    -INF,
    10**400,
    -(10**400),
    [10**400],
    [10**400, 1],
    [[10**400] * 2] * 2,
    Fraction(10**400),
    1 + 1j,
    np.complex128(1 + 1j),
    torch.tensor(1 + 1j),
    torch.tensor([1 + 1j, 2j]),
    np.array([4097, 7 + 3j]),
    [1 + 1j, 2j],
    (7 + 3j, 1),
    [[1j, 0], [0, 1]],
    torch.eye(4, dtype=torch.complex64),
    "abc",
    "",
    "63",
    b"63",
    None,
    {},
    {"a": 1},
    {1, 2},
    [],
    [[]],
    [[1], [2, 3]],
    torch.zeros(3, 3, 3),
    torch.tensor([]),
    np.zeros((1, 2)),
    [NAN],
    [INF],
    [2.5],
    (INF,),
    [None],
    ["a", "b"],
    torch.full((4, 4), NAN),
    Decimal("NaN"),
    Decimal("sNaN"),
    Decimal("1e400"),
    [Decimal("1e400")] * 2,
    [Decimal("sNaN")] * 6,
    np.array(None),
    np.array("63"),
    np.array([Decimal("1"), None], dtype=object),
    True,
    object(),
    _holds_itself(),
]
IDS = [repr(a)[:24] for a in ODD]


@pytest.fixture(scope="module")
def rope():
    """An untrained RoPE model and a small batch: the checks' verdicts on odd answers need no training."""
    model = models.TinyTransformer(10, position="rope", d_model=16, n_heads=2, n_layers=1, max_len=32, seed=0)
    return model, tasks.local_sum(4, 16, generator=torch.Generator().manual_seed(0))


@pytest.fixture(scope="module")
def pair():
    """Two untrained models, learned and sinusoidal, for ``check_learned_vs_sinusoidal``."""
    return {
        p: models.TinyTransformer(10, position=p, d_model=16, n_heads=2, n_layers=1, max_len=12, seed=0)
        for p in ("learned", "sinusoidal")
    }


YARN = dict(d_model=16, original_max_len=32, alpha=0.05, beta=0.5)
NTK = dict(d_model=128, original_max_len=4096, seq_len=16384, form="transformers", factor=2.0)
TRAFFIC_SHAPE = (1, 2, 64, 16)


def calls(rope, pair):
    """Each check of ``__all__`` as a function of the student's answer (for the dict and model checks:
    the whole answer, one entry of an otherwise valid dict, one of the two models)."""
    model, batch = rope
    return {
        "check_permutation_matrix": [lambda a: exercises.check_permutation_matrix(a, [2, 0, 3, 1])],
        "check_wavelength": [lambda a: exercises.check_wavelength(a, i=3, d_model=64)],
        "check_counter_jumps": [lambda a: exercises.check_counter_jumps(a)],
        "check_base_choice": [lambda a: exercises.check_base_choice(a)],
        "check_closest_shift": [lambda a: exercises.check_closest_shift(a, d_model=16, max_offset=1000)],
        "check_rotation_block": [lambda a: exercises.check_rotation_block(a, k=7, i=2, d_model=16)],
        "check_sine_only_residual": [lambda a: exercises.check_sine_only_residual(a, k=3, d_model=8)],
        "check_attend_back_matrix": [lambda a: exercises.check_attend_back_matrix(a, j=2, d_model=4, n_positions=8)],
        "check_log_decay_drop": [lambda a: exercises.check_log_decay_drop(a, d_model=64)],
        "check_closest_position": [lambda a: exercises.check_closest_position(a, d_model=8, max_position=100)],
        "check_distinct_similarities": [lambda a: exercises.check_distinct_similarities(a, 100, 32)],
        "check_float_position_limit": [lambda a: exercises.check_float_position_limit(a, torch.float32)],
        "check_position_table_size": [lambda a: exercises.check_position_table_size(a, 1024, 1600, n_layers=48)],
        "check_learned_vs_sinusoidal": [
            lambda a: exercises.check_learned_vs_sinusoidal(a, pair["sinusoidal"]),
            lambda a: exercises.check_learned_vs_sinusoidal(pair["learned"], a),
        ],
        "check_rope_angle": [lambda a: exercises.check_rope_angle(a, m=100, i=8, d_model=64)],
        "check_alibi_slopes": [lambda a: exercises.check_alibi_slopes(a, n_heads=6)],
        "check_t5_buckets": [lambda a: exercises.check_t5_buckets(a, 20)],
        "check_read_positions": [
            lambda a: exercises.check_read_positions(a),
            lambda a: exercises.check_read_positions(lambda first: a),  # a function that returns the odd answer
        ],
        "check_alibi_neutral_weight": [lambda a: exercises.check_alibi_neutral_weight(a, n_heads=2)],
        "check_first_untrained_row": [lambda a: exercises.check_first_untrained_row(a, train_len=32, max_len=128)],
        "check_rope_stretch": [
            lambda a: exercises.check_rope_stretch(a, model, batch, 8),
            lambda a: exercises.check_rope_stretch({"PI": a, "YaRN": (0.5, 0.5)}, model, batch, 8),
        ],
        "check_yarn_pairs": [
            lambda a: exercises.check_yarn_pairs(a, **YARN),
            lambda a: exercises.check_yarn_pairs({"kept": a, "blended": [3, 4], "interpolated": [5, 6, 7]}, **YARN),
        ],
        "check_dynamic_ntk": [
            lambda a: exercises.check_dynamic_ntk(a, **NTK),
            lambda a: exercises.check_dynamic_ntk((4097, a), **NTK),
            lambda a: exercises.check_dynamic_ntk((a, 4.0), **NTK),
        ],
        "check_turned_pairs": [lambda a: exercises.check_turned_pairs(a, 128, original_max_len=8192, base=500000.0)],
        "check_two_bases": [
            lambda a: exercises.check_two_bases(a, 256, window=4096, context=131072, local_base=1e4, global_base=1e6)
        ],
        "check_prope_pairs": [lambda a: exercises.check_prope_pairs(a, 128, fraction=0.25)],
        "check_mrope_patch": [lambda a: exercises.check_mrope_patch(a, 16, (2, 3, 3), position=(5, 2, 3))],
        "check_axial_patch": [lambda a: exercises.check_axial_patch(a, 8, row=3, col=2, base=100.0)],
        "check_float_gaps": [
            lambda a: exercises.check_float_gaps(a),
            lambda a: exercises.check_float_gaps([a, 2**23, 2**24]),
            lambda a: exercises.check_float_gaps([1 / 16, 2**23, a]),
        ],
        "check_cache_rounding_error": [lambda a: exercises.check_cache_rounding_error(a, torch.float16)],
        "check_rope_traffic": [lambda a: exercises.check_rope_traffic(a, TRAFFIC_SHAPE, layout="half")],
    }


def test_the_fuzz_covers_every_check_in_all(rope, pair):
    assert sorted(calls(rope, pair)) == sorted(exercises.__all__)


@pytest.mark.parametrize("answer", ODD, ids=IDS)
def test_no_check_raises_on_an_odd_answer(capsys, rope, pair, answer):
    for name, ways in calls(rope, pair).items():
        for call in ways:
            ok, out = verdict(capsys, partial(call, answer))
            assert ok is False, (name, answer)
            assert out.startswith("Not yet."), (name, out)


def _right_answers():
    """The right answer of every check that takes one number, with its call."""
    x = torch.zeros(TRAFFIC_SHAPE)
    cos, sin = rope_cos_sin(torch.arange(TRAFFIC_SHAPE[2]), TRAFFIC_SHAPE[3])
    counted = numerics.memory_traffic(lambda: apply_rope_cached(x, cos, sin, layout="half"))
    return {
        "wavelength": (2 * math.pi * 10000 ** (6 / 64), lambda a: exercises.check_wavelength(a, i=3, d_model=64)),
        "sine_residual": (
            shift_fit_residual(3, 8, sines_only=True),
            lambda a: exercises.check_sine_only_residual(a, k=3, d_model=8),
        ),
        "log_decay": (32 * math.log(10) / math.log(10000), lambda a: exercises.check_log_decay_drop(a, d_model=64)),
        "closest": (63, lambda a: exercises.check_closest_position(a, d_model=8, max_position=1000)),
        "base": (500000, lambda a: exercises.check_base_choice(a)),
        "shift": (1, lambda a: exercises.check_closest_shift(a, d_model=16, max_offset=1000)),
        "distinct": (100, lambda a: exercises.check_distinct_similarities(a, 100, 32)),
        "float_limit": (2**24, lambda a: exercises.check_float_position_limit(a, torch.float32)),
        "table_size": (1024 * 1600, lambda a: exercises.check_position_table_size(a, 1024, 1600, n_layers=48)),
        "rope_angle": (10.0, lambda a: exercises.check_rope_angle(a, m=100, i=8, d_model=64)),
        "first_row": (32, lambda a: exercises.check_first_untrained_row(a, train_len=32, max_len=128)),
        "turned": (
            scaling.turned_pairs(128, original_max_len=8192, base=500000.0),
            lambda a: exercises.check_turned_pairs(a, 128, original_max_len=8192, base=500000.0),
        ),
        "cache": (2.0**-12, lambda a: exercises.check_cache_rounding_error(a, torch.float16)),
        "traffic": (
            (counted["read"] + counted["written"]) / (x.numel() * x.element_size()),
            lambda a: exercises.check_rope_traffic(a, TRAFFIC_SHAPE, layout="half"),
        ),
    }


RIGHT = _right_answers()


def _forms(x: float) -> list:
    """Equivalent forms of the one number ``x``."""
    return [
        x,
        float(x),
        [x],
        (x,),
        [[x]],
        np.float64(x),
        np.array(x),
        np.array([x]),
        torch.tensor(x, dtype=torch.float64),
        torch.tensor([x], dtype=torch.float64),
        Decimal(repr(float(x))),
        [Decimal(repr(float(x)))],
        np.array([Decimal(repr(float(x)))], dtype=object),
    ]


@pytest.mark.parametrize("name", list(RIGHT))
def test_every_form_of_one_right_number_is_accepted(capsys, name):
    x, call = RIGHT[name]
    for form in _forms(x):
        ok, out = verdict(capsys, partial(call, form))
        assert ok is True and out.startswith("Correct!"), (name, repr(form), out)


def _vector_forms(values: list[float]) -> list:
    return [
        values,
        tuple(values),
        [values],
        torch.tensor(values),
        torch.tensor(values, dtype=torch.float64),
        np.array(values),
        [Decimal(repr(v)) for v in values],
        [np.float64(v) for v in values],
        [torch.tensor(v) for v in values],
    ]


@pytest.mark.parametrize(
    "name, values, call",
    [
        ("slopes", alibi_slopes(6).double().tolist(), lambda a: exercises.check_alibi_slopes(a, n_heads=6)),
        (
            "neutral",
            (1 - torch.exp(-2 * alibi_slopes(2).double())).tolist(),
            lambda a: exercises.check_alibi_neutral_weight(a, n_heads=2),
        ),
        ("dynamic_ntk", [4097, 1 + 2.0 * (16384 / 4096 - 1)], lambda a: exercises.check_dynamic_ntk(a, **NTK)),
        ("t5_buckets", [10, 26], lambda a: exercises.check_t5_buckets(a, 20)),
        ("float_gaps", [1 / 16, 2.0**23, 2.0**24], lambda a: exercises.check_float_gaps(a)),
        ("counter_jumps", [15, 31, 47], lambda a: exercises.check_counter_jumps(a)),
    ],
)
def test_every_form_of_a_right_vector_is_accepted(capsys, name, values, call):
    for form in _vector_forms(values):
        ok, out = verdict(capsys, partial(call, form))
        assert ok is True and out.startswith("Correct!"), (name, repr(form), out)


def test_the_neutral_weights_the_check_prints_are_accepted_back(capsys):
    """What the confirmation prints (4 significant digits) is itself a right answer."""
    for n_heads in (1, 2, 4, 6, 8, 12):
        right = (1 - torch.exp(-2 * alibi_slopes(n_heads).double())).tolist()
        ok, out = verdict(capsys, partial(exercises.check_alibi_neutral_weight, right, n_heads=n_heads))
        assert ok
        printed = out.replace("\n", " ").split("weight: ")[1].split(". The")[0]
        back = [float(v) for v in printed.split(", ")]
        assert back == [float(f"{v:.4g}") for v in right]
        ok, _ = verdict(capsys, partial(exercises.check_alibi_neutral_weight, back, n_heads=n_heads))
        assert ok, (n_heads, back)
