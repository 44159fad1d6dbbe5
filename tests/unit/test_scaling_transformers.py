"""book.scaling against the code checkpoints run: transformers' ROPE_INIT_FUNCTIONS.

Each test builds a small ``LlamaConfig`` (no download: a config object only)
with ``rope_parameters`` as transformers 5 reads them
(``modeling_rope_utils.py``: ``_compute_linear_scaling_rope_parameters``,
``_compute_dynamic_ntk_parameters``, ``_compute_yarn_parameters``,
``_compute_llama3_parameters``) and compares the inverse frequencies and the
attention factor with ``book.scaling``. transformers computes in float32, so
frequencies agree to a relative 1e-5; the paper's YaRN ramp differs by far
more and must fail the same comparison.
"""

from __future__ import annotations

import itertools
import math

import pytest
import torch

transformers = pytest.importorskip("transformers")
from transformers import LlamaConfig  # noqa: E402
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
