"""book.encodings.t5: T5's relative-position buckets against a one-integer-at-a-time
reference of Raffel et al. (2020)'s rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from book import encodings as enc


# ---------------------------------------------------------------- T5 buckets
def reference_t5_bucket(rel: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """Raffel et al. (2020)'s bucketing, one integer at a time, in float32 like the T5 code."""
    offset = 0
    if bidirectional:
        num_buckets //= 2
        offset = num_buckets if rel > 0 else 0
        r = abs(rel)
    else:
        r = max(-rel, 0)
    exact = num_buckets // 2
    if r < exact:
        return offset + r
    f32 = np.float32
    frac = f32(np.log(f32(r) / f32(exact))) / f32(math.log(max_distance / exact))
    return offset + min(num_buckets - 1, exact + int(frac * f32(num_buckets - exact)))


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", [(32, 128), (8, 20), (64, 256), (16, 1000)])
def test_t5_buckets_match_reference(bidirectional, num_buckets, max_distance):
    rel = torch.arange(-1500, 1501)
    got = enc.t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    want = [reference_t5_bucket(int(r), bidirectional, num_buckets, max_distance) for r in rel]
    assert got.tolist() == want
    assert got.dtype == torch.int64 and int(got.min()) == 0 and int(got.max()) == num_buckets - 1


def test_t5_bucket_values_by_hand():
    # 32 buckets, 16 per direction, exact below 8, then log-spaced up to 128:
    # 8 + floor(log(r / 8) / log(16) * 8) gives 10 at r = 16, 12 at 32, 14 at 64.
    rel = torch.tensor([0, -1, -7, -8, -16, -32, -64, -127, -128, -5000, 1, 7, 8, 16, 128])
    assert enc.t5_relative_bucket(rel).tolist() == [0, 1, 7, 8, 10, 12, 14, 15, 15, 15, 17, 23, 24, 26, 31]
    # a decoder: keys after the query (rel > 0) all share bucket 0; 32 buckets for the past
    dec = enc.t5_relative_bucket(torch.tensor([5, 0, -1, -15, -16, -32, -128]), bidirectional=False)
    assert dec.tolist() == [0, 0, 1, 15, 16, 21, 31]  # 16 + floor(log(2) / log(8) * 16) = 21


@pytest.mark.parametrize("bidirectional,last,first_distance", [(True, 15, 91), (False, 31, 113)])
def test_t5_last_bucket_starts_before_max_distance(bidirectional, last, first_distance):
    """The floor makes T5's last bucket start at 91 (encoder) / 113 (decoder), not at 128."""
    back = torch.arange(0, 400)
    buckets = enc.t5_relative_bucket(-back, bidirectional=bidirectional)
    assert int(back[buckets == last].min()) == first_distance
    assert (buckets[first_distance:] == last).all() and int(buckets[first_distance - 1]) == last - 1


def test_t5_bucket_is_monotone_in_distance_and_keeps_shape():
    rel = torch.arange(0, 400).reshape(20, 20)
    back = enc.t5_relative_bucket(-rel)
    assert back.shape == (20, 20)
    assert torch.all(back.flatten().diff() >= 0)


# ---------------------------------------------------------------- bad input
BAD_INPUTS = [
    (lambda: enc.t5_relative_bucket(torch.tensor([1.5])), TypeError, "relative_position must have an integer dtype"),
    (lambda: enc.t5_relative_bucket([1], num_buckets=7), ValueError, "num_buckets must be even"),
    (lambda: enc.t5_relative_bucket([1], num_buckets=2), ValueError, "num_buckets must leave at least 2"),
    (lambda: enc.t5_relative_bucket([1], max_distance=8), ValueError, "max_distance must exceed the exact range 8"),
    (lambda: enc.t5_relative_bucket([1], bidirectional=1), TypeError, "bidirectional must be True or False"),
]


@pytest.mark.parametrize("call,exc,message", BAD_INPUTS, ids=[m for _, _, m in BAD_INPUTS])
def test_bad_input_names_parameter_and_rule(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
