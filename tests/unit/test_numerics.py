"""Tests of book.numerics: RoPE's precision probes, the timing loop, the traffic count."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from book import encodings, numerics


def test_rope_cos_error_against_a_written_out_reference():
    pos = torch.tensor([1, 7, 300, 1024, 65536])
    theta = encodings.frequencies(64)
    exact = torch.cos(pos[:, None].double() * theta)
    # bfloat16: the position and theta rounded to bfloat16, multiplied in it
    by_hand = torch.cos((pos[:, None].to(torch.bfloat16) * theta.to(torch.bfloat16)).float())
    want = (by_hand.double() - exact).abs().amax(1)
    torch.testing.assert_close(numerics.rope_cos_error(pos, 64, angle_dtype=torch.bfloat16), want)
    # float64 means book's own path: float64 angles, the result in float32
    cos, _ = encodings.rope_cos_sin(pos, 64)
    book = numerics.rope_cos_error(pos, 64, angle_dtype=torch.float64)
    torch.testing.assert_close(book, (cos.double() - exact).abs().amax(1))
    assert float(book.max()) < 1e-7
    bf16 = numerics.rope_cos_error(pos, 64, angle_dtype=torch.bfloat16)
    fp32 = numerics.rope_cos_error(pos, 64, angle_dtype=torch.float32)
    assert float(bf16[4]) > 0.5 > 1e-3 > float(fp32[4]) > float(fp32[0])
    # float16 overflows past 65504: reported as infinitely wrong, not as nan
    fp16 = numerics.rope_cos_error(torch.tensor([65504, 65536]), 64, angle_dtype=torch.float16)
    assert math.isfinite(float(fp16[0])) and math.isinf(float(fp16[1]))


def test_rope_cos_error_float32_grows_with_the_position_as_the_angle_ulp():
    # at p ~ 1.3e5 the fastest pair's angle p*1 lies in [2^16, 2^17): float32's gap there is 2^-7,
    # so the angle (and the cosine) can be off by up to half of it
    far = numerics.rope_cos_error(torch.tensor([131071]), 128, angle_dtype=torch.float32)
    assert 2.0**-10 < float(far[0]) <= 2.0**-8 * 1.01


def test_rope_cache_error_is_the_half_gap_of_the_cache_dtype_at_every_position():
    pos = torch.arange(0, 131072, 997)
    bf16 = numerics.rope_cache_error(pos, 128, cache_dtype=torch.bfloat16)
    fp16 = numerics.rope_cache_error(pos, 128, cache_dtype=torch.float16)
    # bfloat16 keeps 8 significant bits: numbers in [1/2, 1) are 2^-8 apart, so rounding errs by <= 2^-9
    # (plus float32's rounding of the cosine, <= 2^-25)
    assert float(bf16.max()) <= 2.0**-9 + 2.0**-25 and float(bf16[1:].min()) > 2.0**-11
    assert float(fp16.max()) <= 2.0**-12 + 2.0**-25
    # by hand, the transformers way: cos in float32, cast to the model's dtype
    angles = pos[:, None].double() * encodings.frequencies(128)
    cos, sin = torch.cos(angles), torch.sin(angles)
    by_hand = torch.maximum(
        (cos.float().bfloat16().double() - cos).abs(), (sin.float().bfloat16().double() - sin).abs()
    ).amax(1)
    torch.testing.assert_close(bf16, by_hand)
    assert float(numerics.rope_cache_error(pos, 128, cache_dtype=torch.float32).max()) <= 2.0**-25


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda: numerics.rope_cos_error([1, 2], 8, angle_dtype=torch.int32), TypeError, "angle_dtype must be"),
        (lambda: numerics.rope_cos_error([1.5], 8, angle_dtype=torch.float32), TypeError, "integer dtype"),
        (lambda: numerics.rope_cos_error([[1, 2]], 8, angle_dtype=torch.float32), ValueError, "one-dimensional"),
        (lambda: numerics.rope_cos_error([1], 7, angle_dtype=torch.float32), ValueError, "d_model"),
        (lambda: numerics.rope_cache_error([1], 8, cache_dtype="bfloat16"), TypeError, "cache_dtype must be"),
        (lambda: numerics.rope_cache_error([[1]], 8, cache_dtype=torch.bfloat16), ValueError, "one-dimensional"),
        (lambda: numerics.time_calls({}), ValueError, "calls must be a non-empty"),
        (lambda: numerics.time_calls({"a": 1}), TypeError, "must be callable"),
        (lambda: numerics.time_calls({"a": lambda: 0}, rounds=0), ValueError, "rounds"),
        (lambda: numerics.time_calls({"a": lambda: 0}, min_run_time=0), ValueError, "min_run_time"),
        (lambda: numerics.median_ratio({"a": [1.0]}, "a", "b"), ValueError, "'b' must be one of"),
        (lambda: numerics.median_ratio({"a": [1.0], "b": [1.0, 2.0]}, "a", "b"), ValueError, "same non-zero"),
        (lambda: numerics.memory_traffic(3), TypeError, "fn must be callable"),
    ],
)
def test_numerics_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_time_calls_times_each_call_once_per_round_in_order():
    seen = []
    times = numerics.time_calls(
        {"a": lambda: seen.append("a"), "b": lambda: seen.append("b")},
        rounds=np.int64(2),
        min_run_time=np.float32(0.001),
    )
    assert list(times) == ["a", "b"] and all(len(t) == 2 for t in times.values())
    assert all(t > 0 for ts in times.values() for t in ts)
    # round-robin: every a of round 1 runs before any b of round 1, which runs before round 2's a
    first_b, last_a = seen.index("b"), len(seen) - 1 - seen[::-1].index("a")
    assert "a" in seen[first_b:] and "b" in seen[:last_a]


def test_median_ratio_takes_same_round_ratios():
    times = {"copy": [1.0, 2.0, 4.0], "rope": [3.0, 4.0, 20.0]}
    assert numerics.median_ratio(times, "rope", "copy") == 3.0  # ratios 3, 2, 5
    assert numerics.median_ratio(times, "copy", "copy") == 1.0


def test_memory_traffic_counts_bytes_read_and_written_per_operation():
    x = torch.randn(4, 16, 8)
    nbytes = x.numel() * 4
    assert numerics.memory_traffic(lambda: x.clone()) == {"read": nbytes, "written": nbytes, "ops": ["clone"]}
    y = torch.empty_like(x)
    copy_into = numerics.memory_traffic(lambda: y.copy_(x))
    assert (copy_into["read"], copy_into["written"]) == (nbytes, nbytes)  # the destination is not read
    # views move nothing; an elementwise product reads two tensors and writes one
    xc = x.view(torch.complex64)
    prod = numerics.memory_traffic(lambda: xc * x.view(torch.complex64))
    assert (prod["read"], prod["written"], prod["ops"]) == (nbytes, nbytes, ["mul"])  # x read once
    other = torch.randn(4, 16, 8)
    prod = numerics.memory_traffic(lambda: x * other)
    assert (prod["read"], prod["written"]) == (2 * nbytes, nbytes)
    inplace = numerics.memory_traffic(lambda: x.mul_(2.0))
    assert (inplace["read"], inplace["written"]) == (nbytes, nbytes)
    out = torch.empty_like(x)
    into = numerics.memory_traffic(lambda: torch.mul(x, other, out=out))
    assert (into["read"], into["written"]) == (2 * nbytes, nbytes)


def test_memory_traffic_of_the_rope_forms():
    x = torch.randn(1, 2, 64, 16)
    cos, sin = encodings.rope_cos_sin(torch.arange(64), 16)
    cis = encodings.rope_cis(torch.arange(64), 16)
    xb, cb = x.numel() * 4, cos.numel() * 4
    complex_form = numerics.memory_traffic(lambda: encodings.apply_rope_complex(x, cis))
    assert complex_form["ops"] == ["mul"]
    assert complex_form["read"] + complex_form["written"] == 2 * xb + 2 * cb  # x and cis read, result written
    cached = numerics.memory_traffic(lambda: encodings.apply_rope_cached(x, cos, sin))
    # four products (each reads half of x and a cache, writes a half), two sums (read two halves,
    # write one), two strided copies into the output (read a half, write a half)
    assert cached["ops"] == ["mul", "mul", "sub", "copy_", "mul", "mul", "add", "copy_"]
    assert cached["read"] + cached["written"] == 4 * (xb + cb) + 2 * (3 * xb // 2) + 2 * xb


def test_the_two_precision_problems_are_those_of_transformers_llama_rotary_embedding():
    """transformers' LlamaRotaryEmbedding.forward (models/llama/modeling_llama.py) forms the angles
    in float32 and returns cos/sin cast to x's dtype: its errors are rope_cos_error's (float32
    angles) and, for a bfloat16 model, rope_cache_error's on top."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = transformers.LlamaConfig(
        hidden_size=128, num_attention_heads=1, num_key_value_heads=1, head_dim=128, max_position_embeddings=131072
    )
    rotary = LlamaRotaryEmbedding(config)
    positions = torch.unique(torch.logspace(0, 17, 60, base=2).long())
    exact = torch.cos(positions[:, None].double() * encodings.frequencies(128))

    def hf_error(dtype):
        cos, _ = rotary(torch.zeros(1, 1, dtype=dtype), positions[None])
        assert cos.dtype == dtype
        return (cos[0, :, :64].double() - exact).abs().amax(1)  # half-split: the first half has every pair

    # transformers rounds theta_i = 1 / base^(2i/d) computed in float32, book rounds float64 theta_i to
    # float32: a last-bit difference in theta_i, so the two errors agree in size, not bit for bit
    hf_fp32 = hf_error(torch.float32)
    ours = numerics.rope_cos_error(positions, 128, angle_dtype=torch.float32)
    assert float((hf_fp32 - ours).abs().max()) < 2.0**-12
    assert min(float(hf_fp32[-1]), float(ours[-1])) > 2.0**-9  # both grow past bfloat16's 2^-9 by 128k
    assert max(float(hf_fp32.max()), float(ours.max())) <= 3 * 2.0**-8  # half a gap, plus theta's rounding
    near = positions <= 1024  # where float32 angles are still almost exact
    hf_bf16 = hf_error(torch.bfloat16)
    # flat at bfloat16's half gap, like rope_cache_error (a last-bit change of an angle can move a
    # cosine across a bfloat16 rounding boundary, so not bit for bit)
    cache = numerics.rope_cache_error(positions[near], 128, cache_dtype=torch.bfloat16)
    for err in (hf_bf16[near][2:], cache[2:]):
        assert 2.0**-11 < float(err.min()) and float(err.max()) <= 2.0**-9 + 2.0**-13
    assert float(hf_bf16[-1]) > 2.0**-9 + 2.0**-25  # at 128k the angles' error adds to the cache's
