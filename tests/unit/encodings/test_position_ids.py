"""book.encodings.position_ids: the position ids of left-padded and packed batches,
against transformers' own code and on tiny transformers models built from configs.

Nothing is downloaded: each model is a ``LlamaForCausalLM`` or ``GPT2LMHeadModel``
with random weights from a small config (``initializer_range=0.2``, so that the
logits depend on the positions by order 1). Comparisons are relative to the
largest reference logit; float32 rounding between the padded, packed and
separate forms measures about 1e-6 of it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from book import encodings as enc

transformers = pytest.importorskip("transformers")
from transformers import (  # noqa: E402
    DataCollatorWithFlattening,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    Phi3Config,
    Phi3ForCausalLM,
)
from transformers.masking_utils import find_packed_sequence_indices  # noqa: E402

VOCAB = 64
SAME = 1e-5  # relative: the same logits up to float32 rounding
DIFFERENT = 0.1  # relative: logits that differ by order 1


@pytest.fixture(scope="module")
def llama() -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        initializer_range=0.2,
    )
    return LlamaForCausalLM(config).eval()


def phi3_longrope(long_factor: list[float]) -> Phi3ForCausalLM:
    """A tiny Phi-3 with transformers' length-dependent ``longrope``: trained length 16 (short
    factors all 1), extended to 64 with ``long_factor`` (head width 8, so four factors)."""
    torch.manual_seed(0)
    config = Phi3Config(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        original_max_position_embeddings=16,
        initializer_range=0.2,
        pad_token_id=0,
        bos_token_id=None,
        eos_token_id=None,
        rope_parameters={
            "rope_type": "longrope",
            "rope_theta": 10000.0,
            "short_factor": [1.0] * 4,
            "long_factor": long_factor,
        },
    )
    return Phi3ForCausalLM(config).eval()


@pytest.fixture(scope="module")
def gpt2() -> GPT2LMHeadModel:
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=VOCAB,
        n_positions=64,
        n_embd=32,
        n_layer=2,
        n_head=4,
        initializer_range=0.2,
        bos_token_id=None,
        eos_token_id=None,
    )
    return GPT2LMHeadModel(config).eval()


def left_padded(seqs: list[torch.Tensor], pad: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids (pad id 0) and attention mask of a left-padded batch, ``pad`` more than the longest."""
    width = max(len(s) for s in seqs) + pad
    ids = torch.zeros(len(seqs), width, dtype=torch.long)
    mask = torch.zeros(len(seqs), width, dtype=torch.long)
    for row, s in enumerate(seqs):
        ids[row, width - len(s) :] = s
        mask[row, width - len(s) :] = 1
    return ids, mask


def padded_error(model, seqs, ids, mask, position_ids) -> float:
    """Largest logit difference at the real tokens between the padded batch and each sequence
    run alone, relative to the largest logit of the sequences alone."""
    with torch.no_grad():
        alone = [model(s[None]).logits[0] for s in seqs]
        batch = model(ids, attention_mask=mask, position_ids=position_ids).logits
    scale = max(float(a.abs().max()) for a in alone)
    return max(float((batch[row, -len(s) :] - a).abs().max()) for row, (s, a) in enumerate(zip(seqs, alone))) / scale


def sequences(lengths, seed=1) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return [torch.randint(1, VOCAB, (n,), generator=gen) for n in lengths]


# ---------------------------------------------------------------- position_ids_from_mask
def test_position_ids_from_mask_by_hand():
    mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [0, 0, 0, 0, 0]])
    expected = torch.tensor([[0, 0, 0, 1, 2], [0, 1, 2, 3, 4], [0, 1, 2, 0, 0], [0, 0, 0, 0, 0]])
    out = enc.position_ids_from_mask(mask)
    assert out.dtype == torch.int64 and torch.equal(out, expected)
    assert torch.equal(enc.position_ids_from_mask(mask.bool()), expected)
    assert torch.equal(enc.position_ids_from_mask(mask.tolist()), expected)
    assert torch.equal(enc.position_ids_from_mask(mask[0]), expected[0])  # one row
    assert torch.equal(enc.position_ids_from_mask(mask[None]), expected[None])  # any leading dims


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda width: st.lists(st.lists(st.integers(0, 1), min_size=width, max_size=width), min_size=1, max_size=4)
    )
)
def test_position_ids_count_the_real_tokens_of_each_row(rows):
    """A pure-Python reference: the k-th real token of a row gets k; a pad gets 0."""
    expected = []
    for row in rows:
        count, ids = 0, []
        for token in row:
            ids.append(count if token else 0)
            count += token
        expected.append(ids)
    assert enc.position_ids_from_mask(torch.tensor(rows)).tolist() == expected


def test_position_ids_from_mask_equals_transformers_generation(llama):
    """transformers 5.24.0's ``GenerationMixin._prepare_position_ids_for_generation``
    (``generation/utils.py``), called on a model, gives the same ids; the fill value 1 that
    older code used for pads, or a count without the ``- 1``, would not."""
    masks = [
        torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 1]]),
        torch.tensor([[1, 1, 1, 0, 0, 0], [0, 1, 1, 0, 1, 1], [0, 0, 0, 0, 0, 0]]),
    ]
    for mask in masks:
        inputs = torch.ones_like(mask)
        theirs = llama._prepare_position_ids_for_generation(inputs, {"attention_mask": mask})
        ours = enc.position_ids_from_mask(mask)
        assert torch.equal(ours, theirs)
        assert not torch.equal((mask.cumsum(-1) - 1).masked_fill(mask == 0, 1), theirs)  # other fill value
        assert not torch.equal(mask.cumsum(-1).masked_fill(mask == 0, 0), theirs)  # no "- 1"


def test_left_padding_with_mask_ids_reproduces_unpadded_llama_logits(llama):
    """The key check: a left-padded batch, with the ids from the mask, gives each sequence's own
    logits at its real tokens. Llama's default RoPE has fixed frequencies and is relative, so
    ``arange`` ids (each row's real tokens moved by one constant, its pad count) give them too, up
    to rounding; length-dependent RoPE does not (the Phi-3 test below). The comparison is not
    blind to positions: a gap of 5 in the ids changes the logits."""
    seqs = sequences([7, 4, 6])
    ids, mask = left_padded(seqs)
    from_mask = enc.position_ids_from_mask(mask)
    assert padded_error(llama, seqs, ids, mask, from_mask) < SAME
    arange = torch.arange(ids.shape[1]).expand(len(seqs), -1)
    assert padded_error(llama, seqs, ids, mask, arange) < SAME
    gap = from_mask.clone()
    gap[:, -2:] += 5  # the last two tokens of every row moved 5 positions on
    assert padded_error(llama, seqs, ids, mask, gap) > DIFFERENT


def test_left_padding_needs_mask_ids_for_length_dependent_rope():
    """transformers' ``longrope`` (Phi-3) picks its frequencies by ``max(position_ids) + 1``
    (``longrope_frequency_update``, ``modeling_rope_utils.py``): long factors past the trained
    length 16, short ones within it. Rows of 12 and 5 tokens left-padded to width 20: the ids from
    the mask reach 11, so the short factors are used, as for each row alone; ``arange`` ids reach
    19 and switch every row to the long factors, which changes the logits by order 1. With long
    factors equal to the short ones the same ``arange`` ids change them only by rounding, so the
    switch is the cause."""
    seqs = sequences([12, 5])
    ids, mask = left_padded(seqs, pad=8)
    assert ids.shape[1] == 20
    arange = torch.arange(ids.shape[1]).expand(len(seqs), -1)
    switching = phi3_longrope([1.0, 2.0, 3.0, 4.0])
    assert padded_error(switching, seqs, ids, mask, enc.position_ids_from_mask(mask)) < SAME
    assert padded_error(switching, seqs, ids, mask, arange) > DIFFERENT
    no_switch = phi3_longrope([1.0] * 4)
    assert padded_error(no_switch, seqs, ids, mask, arange) < SAME


def test_left_padding_needs_mask_ids_for_a_learned_table(gpt2):
    """GPT-2 adds learned absolute position embeddings: ``arange`` ids (transformers' default when
    none are passed) give a left-padded row other table rows and other logits; the ids from the
    mask give the unpadded logits."""
    seqs = sequences([7, 4, 6])
    ids, mask = left_padded(seqs)
    assert padded_error(gpt2, seqs, ids, mask, enc.position_ids_from_mask(mask)) < SAME
    arange = torch.arange(ids.shape[1]).expand(len(seqs), -1)
    assert padded_error(gpt2, seqs, ids, mask, arange) > DIFFERENT
    assert padded_error(gpt2, seqs, ids, mask, None) > DIFFERENT


# ---------------------------------------------------------------- packed_position_ids
def test_packed_position_ids_by_hand_and_input_types():
    expected = torch.tensor([0, 1, 2, 0, 0, 1, 2, 3])
    for lengths in ([3, 1, 4], (3, 1, 4), torch.tensor([3, 1, 4]), np.array([3, 1, 4]), [np.int64(3), 1, 4]):
        out = enc.packed_position_ids(lengths)
        assert out.dtype == torch.int64 and torch.equal(out, expected)
    assert torch.equal(enc.packed_position_ids([5]), torch.arange(5))
    assert torch.equal(enc.packed_position_ids(torch.tensor([1, 1], dtype=torch.int32)), torch.tensor([0, 0]))


def test_packed_position_ids_equal_transformers_flattening_collator():
    """``DataCollatorWithFlattening`` (transformers 5.24.0, ``data/data_collator.py``) returns these
    ids for examples of these lengths, and ``find_packed_sequence_indices`` (``masking_utils.py``)
    reads the documents back from them; from ``arange`` ids it finds one document."""
    lengths = [5, 1, 3, 7]
    features = [{"input_ids": list(range(10, 10 + n))} for n in lengths]
    batch = DataCollatorWithFlattening()(features, return_tensors="pt")
    ours = enc.packed_position_ids(lengths)
    assert torch.equal(batch["position_ids"], ours[None])
    documents = torch.repeat_interleave(torch.arange(len(lengths)), torch.tensor(lengths))
    assert torch.equal(find_packed_sequence_indices(ours[None])[0], documents)
    assert find_packed_sequence_indices(torch.arange(sum(lengths))[None]) is None  # the comparison can fail


def additive(mask: torch.Tensor) -> torch.Tensor:
    """A bool mask (True = may attend) as transformers' additive 4-D mask: 0 or -inf, shape (1, 1, n, n)."""
    return torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))[None, None]


# ---------------------------------------------------------------- document_mask
def test_document_mask_by_hand():
    allowed = enc.document_mask([2, 1, 3])
    expected = torch.tensor(
        [
            [1, 0, 0, 0, 0, 0],
            [1, 1, 0, 0, 0, 0],
            [0, 0, 1, 0, 0, 0],
            [0, 0, 0, 1, 0, 0],
            [0, 0, 0, 1, 1, 0],
            [0, 0, 0, 1, 1, 1],
        ],
        dtype=torch.bool,
    )
    assert allowed.dtype == torch.bool and torch.equal(allowed, expected)
    both_ways = enc.document_mask([2, 1, 3], causal=False)
    assert torch.equal(both_ways, expected | expected.T)
    for lengths in ((2, 1, 3), torch.tensor([2, 1, 3]), np.array([2, 1, 3])):
        assert torch.equal(enc.document_mask(lengths), expected)
    assert torch.equal(enc.document_mask([4]), torch.ones(4, 4, dtype=torch.bool).tril())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=5), st.booleans())
def test_document_mask_allows_exactly_the_same_document(lengths, causal):
    """A pure-Python reference: token i may see token j when both lie in the same document (and j <= i)."""
    doc = [d for d, n in enumerate(lengths) for _ in range(n)]
    n = len(doc)
    expected = [[doc[i] == doc[j] and (j <= i or not causal) for j in range(n)] for i in range(n)]
    assert enc.document_mask(lengths, causal=causal).tolist() == expected


def test_document_mask_equals_transformers_packed_sequence_mask():
    """transformers 5.24.0's mask functions (``masking_utils.py``): ``causal_mask_function`` and
    ``packed_sequence_mask_function`` of the documents that ``find_packed_sequence_indices`` reads
    from the reset ids, combined by ``and_masks``, allow exactly the pairs ``document_mask`` allows.
    A mask that forgot one document boundary (documents 1 and 2 merged) would not match."""
    from transformers.masking_utils import and_masks, causal_mask_function, packed_sequence_mask_function

    lengths = [3, 1, 4, 2]
    documents = find_packed_sequence_indices(enc.packed_position_ids(lengths)[None])
    theirs_fn = and_masks(causal_mask_function, packed_sequence_mask_function(documents))
    n = sum(lengths)
    q, k = torch.arange(n)[:, None], torch.arange(n)[None, :]  # broadcast, as transformers' sdpa_mask does
    theirs = theirs_fn(torch.tensor(0), torch.tensor(0), q, k)
    assert torch.equal(enc.document_mask(lengths), theirs)
    assert not torch.equal(enc.document_mask([3, 5, 2]), theirs)  # the comparison can fail


def test_packing_needs_a_document_mask_not_only_reset_ids(llama):
    """A packed row gives the separate documents' logits under a block-diagonal document mask,
    with reset ids or with ``arange`` ids alike (RoPE is relative). With reset ids under a plain
    causal mask (an all-ones 2-D mask), the later documents attend to the earlier ones and
    their logits change by order 1. transformers 5.24.0 builds the document mask itself from
    reset ids (``find_packed_sequence_indices`` in ``_preprocess_mask_arguments``) only when it
    gets no attention mask and no cache: with ``use_cache=False``. With the config's default
    ``use_cache=True`` the model makes a ``DynamicCache`` first, infers no document mask, and
    the documents leak into each other, reset ids or not."""
    lengths = [5, 4, 6]
    docs = sequences(lengths, seed=2)
    packed = torch.cat(docs)[None]
    n = packed.shape[1]
    reset = enc.packed_position_ids(lengths)[None]
    arange = torch.arange(n)[None]
    assert llama.config.use_cache
    with torch.no_grad():
        alone = torch.cat([llama(d[None]).logits[0] for d in docs])
        scale = float(alone.abs().max())

        def error(**kwargs) -> float:
            return float((llama(packed, **kwargs).logits[0] - alone).abs().max()) / scale

        blocks = additive(enc.document_mask(lengths))
        assert error(position_ids=reset, attention_mask=blocks, use_cache=False) < SAME
        assert error(position_ids=arange, attention_mask=blocks, use_cache=False) < SAME
        ones = torch.ones(1, n, dtype=torch.long)
        assert error(position_ids=reset, attention_mask=ones, use_cache=False) > DIFFERENT
        assert error(position_ids=reset, use_cache=False) < SAME  # the mask transformers infers from the ids
        assert error(position_ids=arange, use_cache=False) > DIFFERENT  # no reset: one document, nothing inferred
        assert error(position_ids=reset) > DIFFERENT  # a cache: nothing inferred


# ---------------------------------------------------------------- sink_cache_positions
def test_sink_cache_positions_by_hand():
    kept, positions = enc.sink_cache_positions(20, sinks=2, window=3)
    assert kept.tolist() == [0, 1, 17, 18, 19] and positions.tolist() == [0, 1, 2, 3, 4]
    kept, positions = enc.sink_cache_positions(5, sinks=2, window=3)  # everything fits
    assert kept.tolist() == positions.tolist() == [0, 1, 2, 3, 4]
    kept, positions = enc.sink_cache_positions(9, sinks=0, window=4)  # a plain sliding window
    assert kept.tolist() == [5, 6, 7, 8] and positions.tolist() == [0, 1, 2, 3]
    assert kept.dtype == positions.dtype == torch.int64


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 6), st.integers(1, 10))
def test_sink_cache_positions_keep_what_streaming_llm_keeps(length, sinks, window):
    """StreamingLLM's ``StartRecentKVCache.__call__`` (mit-han-lab/streaming-llm, ``kv_cache.py``),
    rewritten here on a list: keep all while ``length <= start + recent``, else the first
    ``start_size`` and the last ``recent_size``."""
    seen = list(range(length))
    expected = seen if length <= sinks + window else seen[:sinks] + seen[length - window :]
    kept, positions = enc.sink_cache_positions(length, sinks=sinks, window=window)
    assert kept.tolist() == expected and positions.tolist() == list(range(len(expected)))


# ---------------------------------------------------------------- bad input
BAD_INPUTS = [
    (lambda: enc.position_ids_from_mask(torch.tensor([[1.0, 0.0]])), TypeError, "attention_mask must have an integer"),
    (lambda: enc.position_ids_from_mask("11"), TypeError, "attention_mask must be a tensor"),
    (lambda: enc.position_ids_from_mask(torch.tensor([[1, 2, 0]])), ValueError, "only 0 \\(pad\\) and 1"),
    (lambda: enc.position_ids_from_mask(torch.tensor([[1, -1]])), ValueError, "only 0 \\(pad\\) and 1"),
    (lambda: enc.position_ids_from_mask(torch.tensor(1)), ValueError, "attention_mask must have a sequence"),
    (lambda: enc.position_ids_from_mask([]), ValueError, "attention_mask must hold at least one 0 or 1"),
    (lambda: enc.position_ids_from_mask([[]]), ValueError, "attention_mask must hold at least one 0 or 1"),
    (lambda: enc.position_ids_from_mask([[], []]), ValueError, "attention_mask must hold at least one 0 or 1"),
    (lambda: enc.position_ids_from_mask(np.array([])), ValueError, "attention_mask must hold at least one 0 or 1"),
    (lambda: enc.position_ids_from_mask(torch.tensor([[1j]])), TypeError, "attention_mask must hold integer"),
    (lambda: enc.packed_position_ids([3, 0, 2]), ValueError, r"lengths must all be >= 1 .* lengths\[1\] = 0"),
    (lambda: enc.packed_position_ids(torch.tensor([4, -2])), ValueError, r"lengths\[1\] = -2"),
    (lambda: enc.packed_position_ids([]), ValueError, "at least one document"),
    (lambda: enc.packed_position_ids([[]]), ValueError, "at least one document"),
    (lambda: enc.packed_position_ids(torch.tensor([], dtype=torch.long)), ValueError, "lengths must hold at least"),
    (lambda: enc.packed_position_ids([[2, 3]]), ValueError, "lengths must be one-dimensional"),
    (lambda: enc.packed_position_ids(4), ValueError, "lengths must be one-dimensional"),
    (lambda: enc.packed_position_ids([2.0, 3.0]), TypeError, "lengths must have an integer dtype"),
    (lambda: enc.packed_position_ids([True, True]), TypeError, "lengths must hold numbers, not booleans"),
    (lambda: enc.packed_position_ids([True, 2]), TypeError, "lengths must hold numbers, not booleans"),
    (lambda: enc.packed_position_ids(torch.tensor([True])), TypeError, "lengths must hold integer positions"),
    (lambda: enc.packed_position_ids("23"), TypeError, "lengths must be a tensor or a sequence"),
    (lambda: enc.packed_position_ids(None), TypeError, "lengths must be a tensor or a sequence"),
    (lambda: enc.document_mask([2, 0]), ValueError, r"lengths must all be >= 1 .* lengths\[1\] = 0"),
    (lambda: enc.document_mask([]), ValueError, "lengths must hold at least one document"),
    (lambda: enc.document_mask([[2, 3]]), ValueError, "lengths must be one-dimensional"),
    (lambda: enc.document_mask([2.5]), TypeError, "lengths must have an integer dtype"),
    (lambda: enc.document_mask([True]), TypeError, "lengths must hold numbers, not booleans"),
    (lambda: enc.document_mask("3"), TypeError, "lengths must be a tensor or a sequence"),
    (lambda: enc.document_mask([3], causal=1), TypeError, "causal must be True or False"),
    (lambda: enc.document_mask([3], causal=None), TypeError, "causal must be True or False"),
    (lambda: enc.sink_cache_positions(0, sinks=1, window=2), ValueError, "length must be a positive integer"),
    (lambda: enc.sink_cache_positions(5, sinks=-1, window=2), ValueError, "sinks must be"),
    (lambda: enc.sink_cache_positions(5, sinks=1, window=0), ValueError, "window must be a positive integer"),
    (lambda: enc.sink_cache_positions(5.0, sinks=1, window=2), TypeError, "length must be an integer"),
    (lambda: enc.sink_cache_positions(5, sinks=True, window=2), TypeError, "sinks must be an integer"),
]


@pytest.mark.parametrize("call,exc,message", BAD_INPUTS, ids=[m for _, _, m in BAD_INPUTS])
def test_bad_input_names_parameter_and_rule(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
