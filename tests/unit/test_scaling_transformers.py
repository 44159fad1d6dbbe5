"""book.scaling against the code checkpoints run: transformers' ROPE_INIT_FUNCTIONS.

Each test builds a small ``LlamaConfig`` or, for LongRoPE, ``Phi3Config`` (no
download: a config object only) with ``rope_parameters`` as transformers 5
reads them (``modeling_rope_utils.py``: ``_compute_linear_scaling_rope_parameters``,
``_compute_dynamic_ntk_parameters``, ``_compute_yarn_parameters``,
``_compute_llama3_parameters``, ``_compute_longrope_parameters``) and compares
the inverse frequencies and the attention factor with ``book.scaling``. transformers computes in float32, so
frequencies agree to a relative 1e-5; the paper's YaRN ramp differs by far
more and must fail the same comparison.
"""

from __future__ import annotations

import itertools
import math

import pytest
import torch

transformers = pytest.importorskip("transformers")
from transformers import LlamaConfig, Phi3Config  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402

from book import encodings, scaling  # noqa: E402

RTOL = 1e-5  # float32 (transformers) against float64 (book)
HEADS = [16, 64, 128]
BASES = [10000.0, 500000.0]


def hf_config(rope_type: str, d: int, base: float, factor: float, L: int, **extra) -> LlamaConfig:
    """A LlamaConfig with head width ``d`` whose RoPE is ``rope_type``.

    For ``yarn`` and ``llama3`` the trained length is
    ``original_max_position_embeddings`` and ``max_position_embeddings`` the
    stretched one (``factor * L``, as transformers' validation expects); for
    ``linear`` and ``dynamic`` the trained length is ``max_position_embeddings``.
    """
    params = {"rope_type": rope_type, "rope_theta": base, **extra}
    if rope_type != "default":
        params["factor"] = factor
    max_pos = L
    if rope_type in ("yarn", "llama3"):
        params["original_max_position_embeddings"] = L
        max_pos = int(L * factor)
    return LlamaConfig(
        hidden_size=2 * d, num_attention_heads=2, head_dim=d, max_position_embeddings=max_pos, rope_parameters=params
    )


def hf(rope_type: str, d: int, base: float, factor: float, L: int, seq_len: int | None = None, **extra):
    config = hf_config(rope_type, d, base, factor, L, **extra)
    inv_freq, attention_factor = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len=seq_len)
    assert inv_freq.shape == (d // 2,)
    return inv_freq.double(), attention_factor


def close(ours: torch.Tensor, theirs: torch.Tensor) -> bool:
    return bool(((ours - theirs).abs() <= RTOL * theirs.abs()).all())


SETTINGS = list(itertools.product(HEADS, BASES, [2.0, 4.0, 8.0, 32.0], [32, 2048, 4096, 8192]))


@pytest.mark.parametrize("d,base,factor,L", SETTINGS)
def test_linear_is_position_interpolation(d, base, factor, L):
    theirs, attention = hf("linear", d, base, factor, L)
    ours, our_attention = scaling.RULES["PI"](d, scale=factor, original_max_len=L, base=base)
    assert close(ours, theirs) and attention == our_attention == 1.0
    assert not close(encodings.frequencies(d, base=base), theirs)  # the comparison can fail


@pytest.mark.parametrize("d,base,factor,L", SETTINGS)
def test_yarn_default_is_transformers_yarn(d, base, factor, L):
    theirs, attention = hf("yarn", d, base, factor, L)
    ours, our_attention = scaling.yarn_frequencies(d, scale=factor, original_max_len=L, base=base)
    assert close(ours, theirs)
    assert our_attention == pytest.approx(attention, rel=1e-12)
    assert attention == pytest.approx(0.1 * math.log(factor) + 1)
    by_rule = scaling.RULES["YaRN"](d, scale=factor, original_max_len=L, base=base)
    assert torch.equal(by_rule[0], ours) and by_rule[1] == our_attention


@pytest.mark.parametrize(
    "d,base,factor,L",
    [
        (64, 10000.0, 8.0, 4096),
        (128, 10000.0, 4.0, 2048),
        (128, 500000.0, 8.0, 8192),
        (16, 10000.0, 4.0, 32),
        (64, 10000.0, 16.0, 4096),
    ],
)
def test_yarn_paper_ramp_is_not_transformers_yarn(d, base, factor, L):
    """The paper's ramp (linear in turns) is a different function from the code's (linear in pair index)."""
    theirs, _ = hf("yarn", d, base, factor, L)
    paper, _ = scaling.yarn_frequencies(d, scale=factor, original_max_len=L, base=base, ramp="paper")
    assert not close(paper, theirs)
    assert float(((paper - theirs).abs() / theirs).max()) > 0.3  # not a rounding difference


def test_transformers_yarn_and_the_papers_ramp_give_046_and_020_at_pair_18():
    """d = 64, L = 4096, s = 8: new / old frequency at pair 18 is 0.46 in transformers, 0.20 in the paper."""
    theirs, _ = hf("yarn", 64, 10000.0, 8.0, 4096)
    old = encodings.frequencies(64)
    paper, _ = scaling.yarn_frequencies(64, scale=8.0, original_max_len=4096, ramp="paper")
    assert round(float(theirs[18] / old[18]), 2) == 0.46
    assert round(float(paper[18] / old[18]), 2) == 0.20


@pytest.mark.parametrize("beta_fast,beta_slow", [(32.0, 1.0), (16.0, 2.0), (4.0, 0.5)])
def test_yarn_thresholds_are_transformers_betas(beta_fast, beta_slow):
    for d, L in [(64, 4096), (16, 32), (128, 2048)]:
        theirs, _ = hf("yarn", d, 10000.0, 4.0, L, beta_fast=beta_fast, beta_slow=beta_slow)
        ours, _ = scaling.yarn_frequencies(d, scale=4.0, original_max_len=L, alpha=beta_slow, beta=beta_fast)
        assert close(ours, theirs), (d, L)


@pytest.mark.parametrize("d,base,factor,L", SETTINGS)
def test_llama3_is_transformers_llama3(d, base, factor, L):
    theirs, attention = hf("llama3", d, base, factor, L, low_freq_factor=1.0, high_freq_factor=4.0)
    ours, our_attention = scaling.RULES["Llama 3.1"](d, scale=factor, original_max_len=L, base=base)
    assert close(ours, theirs) and attention == our_attention == 1.0


@pytest.mark.parametrize("low,high", [(1.0, 4.0), (1.0, 32.0), (2.0, 8.0)])
def test_llama3_band_factors(low, high):
    for d, L in [(128, 8192), (64, 2048)]:
        theirs, _ = hf("llama3", d, 500000.0, 8.0, L, low_freq_factor=low, high_freq_factor=high)
        ours = scaling.llama3_frequencies(d, factor=8.0, low_freq_factor=low, high_freq_factor=high, original_max_len=L)
        assert close(ours, theirs)


DYNAMIC = list(itertools.product(HEADS, BASES, [1.0, 2.0, 4.0], [32, 2048]))


@pytest.mark.parametrize("d,base,factor,L", DYNAMIC)
def test_dynamic_transformers_form(d, base, factor, L):
    for n in (1, L // 2, L, L + 1, 3 * L, 8 * L):
        theirs, attention = hf("dynamic", d, base, factor, L, seq_len=n)
        ours = scaling.dynamic_ntk_frequencies(d, n, original_max_len=L, base=base, form="transformers", factor=factor)
        assert close(ours, theirs) and attention == 1.0, n
        paper = scaling.dynamic_ntk_frequencies(d, n, original_max_len=L, base=base)
        # the book's (paper's) form equals transformers' exactly when factor = 1 or n <= L
        assert close(paper, theirs) == (factor == 1.0 or n <= L), n


def test_dynamic_at_init_is_plain_rope():
    """Without a sequence length transformers uses max_position_embeddings: RoPE unchanged."""
    theirs, _ = hf("dynamic", 64, 10000.0, 4.0, 2048)
    assert close(encodings.frequencies(64), theirs)


def test_default_and_rotary_embedding_with_attention_factor():
    """LlamaRotaryEmbedding's cos/sin carry YaRN's factor: cos(m theta'_i) * attention_factor."""
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    plain = hf_config("default", 64, 10000.0, 1.0, 2048)
    theirs, _ = LlamaRotaryEmbedding.compute_default_rope_parameters(plain)
    assert close(scaling.RULES["unchanged"](64, scale=1.0, original_max_len=2048)[0], theirs.double())
    config = hf_config("yarn", 64, 10000.0, 4.0, 2048)
    rotary = LlamaRotaryEmbedding(config)
    positions = torch.arange(0, 8192, 97)[None]
    cos, sin = rotary(torch.ones(1, dtype=torch.float32), positions)
    freqs, factor = scaling.yarn_frequencies(64, scale=4.0, original_max_len=2048)
    angles = positions[0, :, None].double() * freqs  # half-split layout: (freqs, freqs)
    torch.testing.assert_close(cos[0].double(), torch.cat([angles.cos(), angles.cos()], -1) * factor, atol=2e-3, rtol=0)
    torch.testing.assert_close(sin[0].double(), torch.cat([angles.sin(), angles.sin()], -1) * factor, atol=2e-3, rtol=0)


def test_transformers_rope_types_cover_the_rules():
    assert set(scaling.TRANSFORMERS_ROPE_TYPES) <= set(scaling.RULES)
    for name, rope_type in scaling.TRANSFORMERS_ROPE_TYPES.items():
        assert rope_type == "default" or rope_type in ROPE_INIT_FUNCTIONS, name


# ---------------------------------------------------------------- LongRoPE (Phi-3)
def phi3_config(d: int, base: float, L: int, max_len: int, short, long) -> Phi3Config:
    """A Phi3Config as Phi-3's long-context checkpoints set it up: rope_type longrope,
    the trained length in original_max_position_embeddings, no factor."""
    return Phi3Config(
        hidden_size=2 * d,
        num_attention_heads=2,
        max_position_embeddings=max_len,
        original_max_position_embeddings=L,
        rope_parameters={"rope_type": "longrope", "rope_theta": base, "short_factor": short, "long_factor": long},
    )


def searched_like_factors(d: int, s: float, seed: int) -> tuple[list[float], list[float]]:
    """Short factors near 1 and rising long factors from 1 to about s, as a search might find."""
    g = torch.Generator().manual_seed(seed)
    short = (1 + 0.05 * torch.rand(d // 2, generator=g, dtype=torch.float64)).tolist()
    long = (1 + (s - 1) * torch.rand(d // 2, generator=g, dtype=torch.float64).sort().values).tolist()
    return short, long


def longrope_matches(d: int, base: float, L: int, max_len: int, seq_len: int | None, seed: int = 0) -> bool:
    short, long = searched_like_factors(d, max_len / L, seed)
    config = phi3_config(d, base, L, max_len, short, long)
    theirs, their_factor = ROPE_INIT_FUNCTIONS["longrope"](config, "cpu", seq_len=seq_len)
    ours, our_factor = scaling.longrope_frequencies(
        d, base=base, short_factor=short, long_factor=long, original_max_len=L, max_len=max_len, seq_len=seq_len
    )
    return close(ours, theirs.double()) and math.isclose(our_factor, their_factor, rel_tol=1e-12)


LONGROPE = [
    (d, base, L, max_len)
    for d in (16, 96, 128)
    for base in (10000.0, 500000.0)
    for L, max_len in ((32, 128), (2048, 8192), (4096, 131072))
]


@pytest.mark.parametrize("d,base,L,max_len", LONGROPE)
def test_longrope_equals_transformers_longrope(d, base, L, max_len):
    for seq_len in (None, 1, L, L + 1, max_len):
        assert longrope_matches(d, base, L, max_len, seq_len, seed=d + L), seq_len


def test_longrope_attention_factor_at_32_times_4096():
    """L = 4096 (Phi3Config's default original_max_position_embeddings) stretched 32 times
    to L' = 131072: sqrt(1 + ln 32 / ln 4096) = 1.19."""
    short, long = searched_like_factors(96, 32.0, 1)
    _, theirs = ROPE_INIT_FUNCTIONS["longrope"](phi3_config(96, 10000.0, 4096, 131072, short, long), "cpu")
    _, ours = scaling.longrope_frequencies(
        96, base=10000.0, short_factor=short, long_factor=long, original_max_len=4096, max_len=131072
    )
    assert ours == theirs == math.sqrt(1 + math.log(32) / math.log(4096))
    assert round(ours, 2) == 1.19


def test_longrope_switch_in_phi3s_rotary_forward():
    """Phi3RotaryEmbedding switches by max(position_ids) + 1 and scales cos and sin by the factor."""
    from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding

    d, L, max_len = 16, 32, 128
    short, long = searched_like_factors(d, 4.0, 2)
    rotary = Phi3RotaryEmbedding(phi3_config(d, 10000.0, L, max_len, short, long))
    for n in (20, 32, 33, 100):
        positions = torch.arange(n)[None]
        cos, sin = rotary(torch.ones(1, dtype=torch.float32), positions)
        freqs, factor = scaling.longrope_frequencies(
            d, base=10000.0, short_factor=short, long_factor=long, original_max_len=L, max_len=max_len, seq_len=n
        )
        assert close(freqs, rotary.inv_freq.double()), n
        angles = positions[0, :, None].double() * freqs
        torch.testing.assert_close(cos[0].double(), torch.cat([angles.cos()] * 2, -1) * factor, atol=1e-5, rtol=0)
        torch.testing.assert_close(sin[0].double(), torch.cat([angles.sin()] * 2, -1) * factor, atol=1e-5, rtol=0)


def rule_start_factors(d: int, s: float, L: int, base: float) -> list[float]:
    """microsoft/LongRoPE's first individual (evolution/search.py, no --init-factors),
    written out from its rope/yarn.py: s blended with 1 by YaRN's mask."""

    def dim(turns: float) -> float:
        return d * math.log(L / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(math.floor(dim(32)), 0), min(math.ceil(dim(1)), d - 1)
    high = high + 0.001 if low == high else high
    mask = [1 - min(max((i - low) / (high - low), 0.0), 1.0) for i in range(d // 2)]
    return [s * (1 - m) + m for m in mask]


@pytest.mark.parametrize("d,base,factor,L", SETTINGS)
def test_longrope_rule_is_transformers_longrope_with_its_factors(d, base, factor, L):
    max_len = int(factor * L)
    config = phi3_config(d, base, L, max_len, [1.0] * (d // 2), rule_start_factors(d, factor, L, base))
    theirs, attention = ROPE_INIT_FUNCTIONS["longrope"](config, "cpu", seq_len=max_len)
    ours, our_attention = scaling.RULES["LongRoPE"](d, scale=factor, original_max_len=L, base=base)
    assert close(ours, theirs.double()) and math.isclose(our_attention, attention, rel_tol=1e-12)
    # YaRN blends frequencies, LongRoPE's start blends factors: they differ wherever a pair is blended
    gamma = scaling.yarn_ramp(d, original_max_len=L, base=base)
    yarn, _ = scaling.RULES["YaRN"](d, scale=factor, original_max_len=L, base=base)
    assert close(yarn, theirs.double()) == (not bool(((gamma > 0) & (gamma < 1)).any()))


def test_the_longrope_comparison_fails_when_the_book_is_broken(monkeypatch):
    """Sabotage: one frequency 0.1% off, YaRN's attention factor, or the switch one token late."""
    setting = (64, 10000.0, 2048, 8192)
    assert all(longrope_matches(*setting, seq_len) for seq_len in (None, 2049))
    real = scaling.frequencies

    def one_off(d_model, *, base):
        w = real(d_model, base=base)
        w[5] *= 1.001
        return w

    monkeypatch.setattr(scaling, "frequencies", one_off)
    assert not longrope_matches(*setting, None) and not longrope_matches(*setting, 2049)
    monkeypatch.setattr(scaling, "frequencies", real)
    monkeypatch.setattr(scaling, "_longrope_attention_factor", lambda s, L: 0.1 * math.log(s) + 1)
    assert not longrope_matches(*setting, None)
    monkeypatch.undo()
    short, long = searched_like_factors(64, 4.0, 0)
    theirs, _ = ROPE_INIT_FUNCTIONS["longrope"](phi3_config(64, 10000.0, 2048, 8192, short, long), "cpu", seq_len=2049)
    late, _ = scaling.longrope_frequencies(
        64, base=10000.0, short_factor=short, long_factor=long, original_max_len=2048, max_len=8192, seq_len=2048
    )
    assert not close(late, theirs.double())  # 2048 tokens still use the short set; 2049 the long one
