"""Tests of book.scaling against the papers' formulas, written out pair by pair."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from book import encodings, scaling

D, BASE = 128, 10000.0


def theta(i: int, d: int = D, base: float = BASE) -> float:
    return base ** (-2 * i / d)


def as_list(t: torch.Tensor) -> list[float]:
    assert t.dtype == torch.float64 and t.shape == (D // 2,)
    return t.tolist()


@pytest.mark.parametrize("s", [1.0, 2.0, 4.0, 8.0])
def test_pi_divides_every_frequency_by_s(s):
    assert as_list(scaling.pi_frequencies(D, scale=s)) == pytest.approx([theta(i) / s for i in range(D // 2)])


@pytest.mark.parametrize("s", [2.0, 4.0, 16.0])
def test_ntk_is_a_new_base(s):
    new_base = BASE * s ** (D / (D - 2))
    got = as_list(scaling.ntk_frequencies(D, scale=s))
    assert got == pytest.approx([theta(i, base=new_base) for i in range(D // 2)], rel=1e-12)
    assert got[0] == 1.0  # the fastest pair is untouched
    assert got[-1] == pytest.approx(theta(D // 2 - 1) / s, rel=1e-12)  # the slowest is PI's


def test_dynamic_ntk_follows_the_current_length():
    plain = encodings.frequencies(D)
    for n in (1, 100, 2048):
        assert torch.equal(scaling.dynamic_ntk_frequencies(D, n, original_max_len=2048), plain)
        assert torch.equal(
            scaling.dynamic_ntk_frequencies(D, n, original_max_len=2048, form="transformers", factor=4.0), plain
        )
    torch.testing.assert_close(
        scaling.dynamic_ntk_frequencies(D, 6144, original_max_len=2048), scaling.ntk_frequencies(D, scale=3.0)
    )


@pytest.mark.parametrize("factor,n,L", [(1.0, 6144, 2048), (2.0, 6144, 2048), (4.0, 3000, 2048), (8.0, 40, 32)])
def test_dynamic_ntk_transformers_form(factor, n, L):
    """base * (factor * n / L - (factor - 1))^(d / (d - 2)), written out."""
    new_base = BASE * (factor * n / L - (factor - 1)) ** (D / (D - 2))
    got = as_list(scaling.dynamic_ntk_frequencies(D, n, original_max_len=L, form="transformers", factor=factor))
    assert got == pytest.approx([theta(i, base=new_base) for i in range(D // 2)], rel=1e-12)
    paper = scaling.dynamic_ntk_frequencies(D, n, original_max_len=L)
    if factor == 1.0:
        torch.testing.assert_close(torch.tensor(got, dtype=torch.float64), paper, rtol=1e-12, atol=0)
    else:  # a larger effective scale: every slow pair turns slower
        assert got[-1] < float(paper[-1]) * (1 - 1e-9)


def paper_yarn(s: float, L: int, alpha: float, beta: float) -> tuple[list[float], float]:
    """Peng et al. (2024), eqs. 17-18 and 20-22, pair by pair."""
    out = []
    for i in range(D // 2):
        r = L / (2 * math.pi / theta(i))
        gamma = 0.0 if r < alpha else 1.0 if r > beta else (r - alpha) / (beta - alpha)
        out.append((1 - gamma) * theta(i) / s + gamma * theta(i))
    return out, 0.1 * math.log(s) + 1


def code_yarn(s: float, L: int, alpha: float, beta: float, d: int = D) -> tuple[list[float], float]:
    """jquesnelle/yarn's LlamaYaRNScaledRotaryEmbedding.yarn, in plain Python."""

    def correction_dim(rotations):
        return (d * math.log(L / (rotations * 2 * math.pi))) / (2 * math.log(BASE))

    low = max(math.floor(correction_dim(beta)), 0)
    high = min(math.ceil(correction_dim(alpha)), d - 1)
    if low == high:
        high += 0.001
    out = []
    for i in range(d // 2):
        mask = 1 - min(max((i - low) / (high - low), 0.0), 1.0)  # 1: extrapolate (keep)
        out.append(theta(i, d) / s * (1 - mask) + theta(i, d) * mask)
    return out, (0.1 * math.log(s) + 1 if s > 1 else 1.0)


YARN_SETTINGS = [(4.0, 2048, 1.0, 32.0), (16.0, 4096, 1.0, 32.0), (2.0, 512, 0.5, 8.0), (8.0, 32, 1.0, 32.0)]


@pytest.mark.parametrize("s,L,alpha,beta", YARN_SETTINGS)
def test_yarn_paper_ramp_matches_the_paper(s, L, alpha, beta):
    freqs, factor = scaling.yarn_frequencies(D, scale=s, original_max_len=L, alpha=alpha, beta=beta, ramp="paper")
    want, want_factor = paper_yarn(s, L, alpha, beta)
    assert as_list(freqs) == pytest.approx(want, rel=1e-12)
    assert factor == pytest.approx(want_factor)
    ratio = freqs / encodings.frequencies(D)
    assert ratio[-1] == pytest.approx(1 / s)
    assert torch.all(ratio.diff() <= 1e-15)  # monotone: slower pairs, more interpolation


@pytest.mark.parametrize("s,L,alpha,beta", YARN_SETTINGS)
def test_yarn_default_is_the_reference_code(s, L, alpha, beta):
    freqs, factor = scaling.yarn_frequencies(D, scale=s, original_max_len=L, alpha=alpha, beta=beta)
    want, want_factor = code_yarn(s, L, alpha, beta)
    assert as_list(freqs) == pytest.approx(want, rel=1e-12)
    assert factor == pytest.approx(want_factor)
    ratio = freqs / encodings.frequencies(D)
    assert ratio[0] == 1.0 and ratio[-1] == pytest.approx(1 / s)  # the code's clamp keeps pair 0 at any L
    assert torch.all(ratio.diff() <= 1e-15)
    paper, _ = scaling.yarn_frequencies(D, scale=s, original_max_len=L, alpha=alpha, beta=beta, ramp="paper")
    assert (freqs - paper).abs().max() > 0.01 * float(freqs[-1])  # two different functions


def test_yarn_code_and_paper_ramps_give_046_and_020_at_pair_18():
    """d = 64, L = 4096, s = 8: new / old frequency at pair 18 is 0.46 (code) against 0.20 (paper)."""
    old = encodings.frequencies(64)
    code, _ = scaling.yarn_frequencies(64, scale=8.0, original_max_len=4096)
    paper, _ = scaling.yarn_frequencies(64, scale=8.0, original_max_len=4096, ramp="paper")
    assert round(float(code[18] / old[18]), 2) == 0.46
    assert round(float(paper[18] / old[18]), 2) == 0.20
    gamma = scaling.yarn_ramp(64, original_max_len=4096)
    kept, blended = int((gamma == 1).sum()), int(((gamma > 0) & (gamma < 1)).sum())
    # the code ramps linearly in the pair index: equal steps between floor(i(32)) and ceil(i(1))
    steps = gamma[(gamma > 0) & (gamma < 1)].diff()
    torch.testing.assert_close(steps, torch.full_like(steps, float(steps[0])))
    assert kept == 11 and blended == 12


def test_yarn_ramp_keeps_pair_zero_for_a_short_context():
    gamma = scaling.yarn_ramp(16, original_max_len=32)  # chapter 9's tiny model
    assert gamma.tolist() == [1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    paper = scaling.yarn_ramp(16, original_max_len=32, ramp="paper")
    assert 0 < float(paper[0]) < 0.2  # the paper's ramp barely keeps it


def reference_llama3(factor=8.0, low=1.0, high=4.0, L=8192, base=500000.0) -> list[float]:
    """Meta's apply_scaling, branch by branch."""
    out = []
    for i in range(D // 2):
        f = theta(i, base=base)
        wavelen = 2 * math.pi / f
        if wavelen < L / high:
            out.append(f)
        elif wavelen > L / low:
            out.append(f / factor)
        else:
            smooth = (L / wavelen - low) / (high - low)
            out.append((1 - smooth) * f / factor + smooth * f)
    return out


@pytest.mark.parametrize("kwargs", [{}, {"factor": 32.0, "high_freq_factor": 8.0}, {"original_max_len": 4096}])
def test_llama3_matches_the_reference_rule(kwargs):
    ref_kwargs = {
        "factor": kwargs.get("factor", 8.0),
        "high": kwargs.get("high_freq_factor", 4.0),
        "L": kwargs.get("original_max_len", 8192),
    }
    got = as_list(scaling.llama3_frequencies(D, **kwargs))
    assert got == pytest.approx(reference_llama3(**ref_kwargs), rel=1e-12)


def test_llama3_three_bands():
    ratio = scaling.llama3_frequencies(D) / encodings.frequencies(D, base=500000.0)
    kept, divided = int((ratio == 1).sum()), int((ratio - 1 / 8).abs().lt(1e-12).sum())
    assert kept > 0 and divided > 0 and kept + divided < D // 2  # some pairs are blended
    assert torch.all(ratio.diff() <= 1e-15)


def longrope_start_factors(s: float, L: int, base: float = BASE, d: int = D) -> list[float]:
    """microsoft/LongRoPE's evolution/search.py with no initial factors given:
    YaRN's mask (its rope/yarn.py, beta_fast 32, beta_slow 1) blending the
    factors s (interpolate) and 1 (keep), pair by pair."""

    def correction_dim(rotations):
        return (d * math.log(L / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low = max(math.floor(correction_dim(32)), 0)
    high = min(math.ceil(correction_dim(1)), d - 1)
    if low == high:
        high += 0.001
    mask = [1 - min(max((i - low) / (high - low), 0.0), 1.0) for i in range(d // 2)]
    return [s * (1 - m) + 1.0 * m for m in mask]


LONG = [1.0 + 0.25 * i for i in range(D // 2)]  # rising, as LongRoPE's searched factors are
SHORT = [1.0 + 0.01 * (i % 3) for i in range(D // 2)]


@pytest.mark.parametrize("seq_len, use_long", [(None, False), (1, False), (4096, False), (4097, True), (16384, True)])
def test_longrope_divides_each_frequency_by_its_factor_and_switches_at_L(seq_len, use_long):
    freqs, factor = scaling.longrope_frequencies(
        D, base=BASE, short_factor=SHORT, long_factor=LONG, original_max_len=4096, max_len=16384, seq_len=seq_len
    )
    chosen = LONG if use_long else SHORT
    assert as_list(freqs) == pytest.approx([theta(i) / chosen[i] for i in range(D // 2)], rel=1e-15)
    # the attention factor follows max_len only: short inputs get it too
    assert factor == pytest.approx(math.sqrt(1 + math.log(4) / math.log(4096)), rel=1e-15)


def test_longrope_takes_tensors_and_has_no_attention_factor_without_extension():
    freqs, factor = scaling.longrope_frequencies(
        16,
        base=500.0,
        short_factor=torch.ones(8),
        long_factor=torch.full((8,), 2.0, dtype=torch.float64),
        original_max_len=64,
        max_len=64,
        seq_len=65,
    )
    assert factor == 1.0  # s = 1
    torch.testing.assert_close(freqs, scaling.pi_frequencies(16, scale=2.0, base=500.0), rtol=1e-15, atol=0)


@pytest.mark.parametrize(
    "convert",
    [
        np.array,  # microsoft/LongRoPE keeps its searched factors as NumPy arrays
        lambda f: np.array(f, dtype=np.float32),
        torch.tensor,
        lambda f: [np.float64(x) for x in f],
    ],
    ids=["ndarray float64", "ndarray float32", "tensor", "list of numpy floats"],
)
def test_longrope_takes_numpy_arrays_and_tensors_of_factors(convert):
    want = scaling.longrope_frequencies(
        D, base=BASE, short_factor=SHORT, long_factor=LONG, original_max_len=4096, max_len=16384, seq_len=5000
    )
    got = scaling.longrope_frequencies(
        D,
        base=BASE,
        short_factor=convert(SHORT),
        long_factor=convert(LONG),
        original_max_len=4096,
        max_len=16384,
        seq_len=5000,
    )
    assert got[1] == want[1]
    torch.testing.assert_close(got[0], want[0], rtol=1e-7, atol=0)  # float32 arrays round the factors
    integers = scaling.longrope_frequencies(
        D,
        base=BASE,
        short_factor=np.ones(D // 2, dtype=np.int64),
        long_factor=np.full(D // 2, 2),
        original_max_len=4096,
        max_len=16384,
        seq_len=5000,
    )[0]
    torch.testing.assert_close(integers, scaling.pi_frequencies(D, scale=2.0, base=BASE), rtol=1e-15, atol=0)


@pytest.mark.parametrize("s, L", [(4.0, 2048), (8.0, 32), (16.0, 4096), (1.0, 2048)])
def test_longrope_rule_is_longrope_from_its_searchs_starting_factors(s, L):
    """The registry's LongRoPE: YaRN's weight blends the factors, not the frequencies."""
    freqs, factor = scaling.RULES["LongRoPE"](D, scale=s, original_max_len=L)
    want = (
        [theta(i) / f for i, f in enumerate(longrope_start_factors(s, L))]
        if s > 1
        else [theta(i) for i in range(D // 2)]
    )
    assert as_list(freqs) == pytest.approx(want, rel=1e-12)
    assert factor == (math.sqrt(1 + math.log(s) / math.log(L)) if s > 1 else 1.0)
    yarn, _ = scaling.RULES["YaRN"](D, scale=s, original_max_len=L)
    gamma = scaling.yarn_ramp(D, original_max_len=L)
    ends = (gamma == 0) | (gamma == 1)
    torch.testing.assert_close(freqs[ends], yarn[ends], rtol=1e-15, atol=0)  # kept and PI pairs agree
    if s > 1:
        assert (freqs[~ends] < yarn[~ends]).all()  # blended pairs: a harmonic blend turns slower


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"short_factor": [1.0] * 3}, ValueError, "short_factor must have one factor per pair, d_model // 2 = 8"),
        ({"long_factor": torch.ones(2, 4)}, TypeError, "long_factor must be a sequence, 1-D real array or 1-D"),
        ({"long_factor": np.ones((2, 4))}, TypeError, "long_factor must be a sequence, 1-D real array or 1-D"),
        ({"long_factor": np.ones(8, dtype=bool)}, TypeError, "long_factor must be a sequence, 1-D real array"),
        ({"long_factor": np.ones(8, dtype=complex)}, TypeError, "long_factor must be a sequence, 1-D real array"),
        ({"long_factor": np.array(["1"] * 8)}, TypeError, "long_factor must be a sequence, 1-D real array"),
        ({"long_factor": np.ones(7)}, ValueError, "long_factor must have one factor per pair"),
        ({"long_factor": np.array([1.0] * 7 + [np.nan])}, ValueError, "long_factor must hold finite numbers > 0"),
        # a factor > 0 so small that theta_i / factor overflows to inf: refused, naming the set
        ({"short_factor": [1e-320] + [1.0] * 7}, ValueError, r"short_factor must give finite frequencies .*\[0\]"),
        ({"long_factor": [2.0] * 7 + [1e-320]}, ValueError, r"long_factor must give finite frequencies .*\[7\]"),
        ({"long_factor": [1.0] * 7 + [0.0]}, ValueError, "long_factor must hold finite numbers > 0"),
        ({"long_factor": [1.0] * 7 + [float("inf")]}, ValueError, r"long_factor\[7\] must be finite"),
        ({"short_factor": [1.0] * 7 + ["2"]}, TypeError, r"short_factor\[7\] must be a real number"),
        ({"short_factor": "11111111"}, TypeError, "short_factor must be a sequence of numbers"),
        ({"short_factor": torch.ones(8, dtype=torch.bool)}, TypeError, "short_factor must be a sequence, 1-D"),
        ({"max_len": 1024}, ValueError, "max_len must be >= original_max_len = 2048"),
        ({"max_len": 4096.0}, TypeError, "max_len must be an integer"),
        ({"original_max_len": 0}, ValueError, "original_max_len must be a positive"),
        ({"original_max_len": 1, "max_len": 4}, ValueError, "original_max_len must be at least 2"),
        ({"seq_len": 0}, ValueError, "seq_len must be a positive"),
        ({"base": 1.0}, ValueError, "base must be a finite number > 1"),
        ({"d_model": 15}, ValueError, "d_model must be even"),
    ],
)
def test_longrope_rejects_bad_input(kwargs, exc, message):
    args = {
        "d_model": 16,
        "base": BASE,
        "short_factor": [1.0] * 8,
        "long_factor": [2.0] * 8,
        "original_max_len": 2048,
        "max_len": 8192,
        **kwargs,
    }
    d_model = args.pop("d_model")
    with pytest.raises(exc, match=message):
        scaling.longrope_frequencies(d_model, **args)


def test_longrope_rule_rejects_bad_input():
    with pytest.raises(ValueError, match="scale must be >= 1"):
        scaling.RULES["LongRoPE"](D, scale=0.5, original_max_len=2048)
    with pytest.raises(ValueError, match="original_max_len must be at least 2"):
        scaling.RULES["LongRoPE"](D, scale=2.0, original_max_len=1)
    with pytest.raises(ValueError, match="original_max_len must be a positive"):
        scaling.RULES["LongRoPE"](D, scale=2.0, original_max_len=0)


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda: scaling.pi_frequencies(D, scale=0.5), ValueError, "scale must be >= 1"),
        (lambda: scaling.pi_frequencies(D, scale="2"), TypeError, "scale must be a real number"),
        (lambda: scaling.ntk_frequencies(2, scale=2.0), ValueError, "d_model must be at least 4"),
        (lambda: scaling.ntk_frequencies(D, scale=float("inf")), ValueError, "scale must be finite"),
        (lambda: scaling.dynamic_ntk_frequencies(D, 0, original_max_len=8), ValueError, "seq_len must be a positive"),
        (
            lambda: scaling.yarn_frequencies(D, scale=2.0, original_max_len=64, alpha=5, beta=1),
            ValueError,
            "alpha and beta",
        ),
        (lambda: scaling.yarn_frequencies(D, scale=2.0, original_max_len=64, alpha=0, beta=1), ValueError, "0 < alpha"),
        (
            lambda: scaling.yarn_frequencies(D, scale=2.0, original_max_len=64, ramp="pair"),
            ValueError,
            "ramp must be one of",
        ),
        (lambda: scaling.yarn_ramp(D, original_max_len=0), ValueError, "original_max_len must be a positive"),
        (
            lambda: scaling.dynamic_ntk_frequencies(D, 9, original_max_len=8, form="hf"),
            ValueError,
            "form must be one of",
        ),
        (
            lambda: scaling.dynamic_ntk_frequencies(D, 9, original_max_len=8, factor=2.0),
            ValueError,
            "factor is only used",
        ),
        (
            lambda: scaling.dynamic_ntk_frequencies(D, 9, original_max_len=8, form="transformers"),
            ValueError,
            "factor is required",
        ),
        (
            lambda: scaling.dynamic_ntk_frequencies(D, 9, original_max_len=8, form="transformers", factor=0.5),
            ValueError,
            "factor must be >= 1",
        ),
        (lambda: scaling.llama3_frequencies(D, factor=0.5), ValueError, "factor must be >= 1"),
        (
            lambda: scaling.RULES["PI"](D, scale=2.0, original_max_len=-1),
            ValueError,
            "original_max_len must be a positive",
        ),
        (lambda: scaling.RULES["unchanged"](D, scale=0.5, original_max_len=8), ValueError, "scale must be >= 1"),
        (
            lambda: scaling.llama3_frequencies(D, low_freq_factor=4, high_freq_factor=1),
            ValueError,
            "low_freq_factor and high",
        ),
        (lambda: scaling.llama3_frequencies(7), ValueError, "d_model must be even"),
    ],
)
def test_scaling_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


@pytest.mark.parametrize(
    "s,L,base", [(1.0, 2048, 10000.0), (4.0, 2048, 10000.0), (8.0, 8192, 500000.0), (4.0, 32, 10000.0)]
)
def test_rules_registry(s, L, base):
    """Each rule of the registry is its function at one setting, with its attention factor."""
    calls = {
        "unchanged": (encodings.frequencies(D, base=base), 1.0),
        "PI": (scaling.pi_frequencies(D, scale=s, base=base), 1.0),
        "NTK-aware": (scaling.ntk_frequencies(D, scale=s, base=base), 1.0),
        "YaRN": scaling.yarn_frequencies(D, scale=s, original_max_len=L, base=base),
        "Llama 3.1": (scaling.llama3_frequencies(D, factor=s, original_max_len=L, base=base), 1.0),
        "LongRoPE": scaling.longrope_frequencies(
            D,
            base=base,
            short_factor=[1.0] * (D // 2),
            long_factor=longrope_start_factors(s, L, base),
            original_max_len=L,
            max_len=int(s * L),
            seq_len=int(s * L),
        ),
    }
    assert list(scaling.RULES) == list(calls)
    for name, rule in scaling.RULES.items():
        freqs, factor = rule(D, scale=s, original_max_len=L, base=base)
        assert freqs.dtype == torch.float64 and freqs.shape == (D // 2,)
        assert torch.equal(freqs, calls[name][0]) and factor == calls[name][1], name
    assert scaling.RULES["LongRoPE"](D, scale=s, original_max_len=L, base=base)[1] == pytest.approx(
        math.sqrt(1 + math.log(s) / math.log(L)) if s > 1 else 1.0, rel=1e-15
    )
    assert scaling.RULES["YaRN"](D, scale=s, original_max_len=L, base=base)[1] == pytest.approx(0.1 * math.log(s) + 1)
    # dynamic NTK at n = s L is NTK-aware at s
    torch.testing.assert_close(
        scaling.dynamic_ntk_frequencies(D, int(s * L), original_max_len=L, base=base), calls["NTK-aware"][0]
    )


def test_apply_rope_with_pi_frequencies_is_interpolated_positions():
    x = torch.randn(2, 9, 16, dtype=torch.float64)
    pos = torch.arange(9)
    torch.testing.assert_close(
        encodings.apply_rope(x, pos, freqs=scaling.pi_frequencies(16, scale=4.0)), encodings.apply_rope(x, pos / 4)
    )
    torch.testing.assert_close(
        encodings.apply_rope(x, freqs=encodings.frequencies(16, base=500.0)), encodings.apply_rope(x, base=500.0)
    )
    with pytest.raises(ValueError, match=r"freqs must have shape \(d/2,\) = \(8,\)"):
        encodings.apply_rope(x, freqs=torch.ones(4, dtype=torch.float64))
    with pytest.raises(ValueError, match="freqs must be finite"):
        encodings.apply_rope(x, freqs=torch.full((8,), float("nan")))
    with pytest.raises(TypeError, match="freqs must be a floating tensor"):
        encodings.apply_rope(x, freqs=[1.0] * 8)
    with pytest.raises(ValueError, match="freqs must be finite"):
        encodings.rope_cis(range(4), 16, freqs=torch.full((8,), float("inf")))


def test_model_rope_scaling_switch():
    from book import models

    m = models.TinyTransformer(10, position="rope", d_model=16, n_heads=2)
    x = torch.randint(10, (2, 12), generator=torch.Generator().manual_seed(0))
    plain = m(x)
    m.set_rope_scaling(encodings.frequencies(8))  # the same frequencies: no change
    torch.testing.assert_close(m(x), plain)
    m.set_rope_scaling(scaling.pi_frequencies(8, scale=2.0), attention_factor=1.2)
    assert not torch.allclose(m(x), plain)
    slow, _ = m(x, return_attention=True)
    torch.testing.assert_close(m(x), slow, atol=1e-5, rtol=1e-5)
    m.set_rope_scaling()
    torch.testing.assert_close(m(x), plain)
    with pytest.raises(ValueError, match=r"freqs must have shape \(head width / 2,\) = \(4,\)"):
        m.set_rope_scaling(torch.ones(8))
    with pytest.raises(ValueError, match="attention_factor must be a positive"):
        m.set_rope_scaling(attention_factor=0)
    with pytest.raises(ValueError, match="needs a model with position='rope'"):
        models.TinyTransformer(10, position="alibi").set_rope_scaling()


def test_model_rope_scaling_by_rule():
    from book import models

    m = models.TinyTransformer(10, position="rope", d_model=16, n_heads=2)
    x = torch.randint(10, (2, 12), generator=torch.Generator().manual_seed(0))
    for name, rule in scaling.RULES.items():
        m.set_rope_scaling(rule=name, scale=4.0, original_max_len=32)
        freqs, factor = rule(8, scale=4.0, original_max_len=32)
        assert torch.equal(m.rope_freqs, freqs) and m.rope_factor == factor
        by_rule = m(x)
        m.set_rope_scaling(freqs, factor)
        torch.testing.assert_close(m(x), by_rule, rtol=0, atol=0)
    m.set_rope_scaling(rule="YaRN", scale=4.0, original_max_len=32)
    assert m.rope_factor == pytest.approx(0.1 * math.log(4.0) + 1)
    with pytest.raises(ValueError, match="rule must be one of"):
        m.set_rope_scaling(rule="ntk", scale=2.0, original_max_len=32)
    with pytest.raises(ValueError, match="needs scale and original_max_len"):
        m.set_rope_scaling(rule="PI", scale=2.0)
    with pytest.raises(ValueError, match="either rule or freqs"):
        m.set_rope_scaling(encodings.frequencies(8), rule="PI", scale=2.0, original_max_len=32)
    with pytest.raises(ValueError, match="only used with rule="):
        m.set_rope_scaling(scale=2.0)


def test_scaling_ratios_reads_the_registry():
    import matplotlib.pyplot as plt

    from book import plots

    fig, ax = plt.subplots()
    ratios = plots.scaling_ratios(ax, 128, scale=4.0, original_max_len=2048, rules=("PI", "Llama 3.1", "YaRN"))
    assert list(ratios) == ["PI", "Llama 3.1", "YaRN"]
    for name, ratio in ratios.items():
        freqs, _ = scaling.RULES[name](128, scale=4.0, original_max_len=2048)
        assert torch.equal(ratio, freqs / encodings.frequencies(128))
    assert ax.get_title().endswith("17 pairs kept by YaRN")
    ax.clear()
    plots.scaling_ratios(ax, 128, scale=8.0, original_max_len=32)  # the code's ramp keeps pair 0 only
    assert ax.get_title().endswith("1 pair kept by YaRN")
    ax.clear()
    plots.scaling_ratios(ax, 128, scale=8.0, original_max_len=32, rules=("PI",))
    assert "kept" not in ax.get_title()
    with pytest.raises(ValueError, match="rules must be names in book.scaling.RULES"):
        plots.scaling_ratios(ax, 128, scale=2.0, original_max_len=64, rules=("ntk",))
    with pytest.raises(ValueError, match="rules must be names"):
        plots.scaling_ratios(ax, 128, scale=2.0, original_max_len=64, rules=())
    plt.close(fig)
