"""Position ids for batches as the training and serving code forms them: left padding and packing.

A model reads a position id per token; which ids a batch gets is decided
outside the encoding, by the code that pads or packs the batch. Two rules are
here. ``position_ids_from_mask`` numbers the real tokens of each row of a
padded batch ``0, 1, 2, ..`` from its first real token, as transformers'
``generate`` does. ``packed_position_ids`` restarts the count at every
document of a packed sequence, as transformers' ``DataCollatorWithFlattening``
does, and ``document_mask`` is the block-diagonal attention mask that keeps
the documents of a packed sequence apart. ``sink_cache_positions`` gives the
tokens a StreamingLLM cache keeps and the positions it gives them. Conventions: :mod:`book.encodings`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from .._validate import check_nonneg_int, check_position_tensor, check_positive_int

__all__ = ["position_ids_from_mask", "packed_position_ids", "document_mask", "sink_cache_positions"]


def position_ids_from_mask(attention_mask: torch.Tensor | Sequence[Sequence[int]] | Sequence[int]) -> torch.Tensor:
    """Position ids of a padded batch from its attention mask: ``cumsum(mask) - 1``, pads set to 0.

    This is the rule of transformers 5.24.0's generation,
    ``GenerationMixin._prepare_position_ids_for_generation`` in
    ``generation/utils.py``::

        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids = position_ids.masked_fill(attention_mask == 0, 0)

    so each row's real tokens get ``0, 1, 2, ..`` counted from its first real
    token, however many pad tokens come before it (left padding), and every
    pad token gets 0 (the fill value there; other code in the same
    transformers, Qwen2-Audio's ``modeling_qwen2_audio.py``, fills with 1; the
    value does not matter when the pads are masked out). A left-padded row
    then gives its real tokens the ids they would have had without padding.

    In a left-padded batch the naive ids ``arange(seq_len)`` differ from these
    by one constant per row (its number of pads) at the real tokens. With
    fixed-frequency RoPE (transformers' ``default``, ``linear``, ``yarn``,
    ``llama3``), which sees only differences of positions, that changes the
    outputs only by rounding. With length-dependent RoPE (``longrope``,
    ``dynamic``) it does not: transformers 5.24.0 picks the frequencies from
    ``seq_len = max(position_ids) + 1`` (``longrope_frequency_update`` and
    ``dynamic_frequency_update`` in ``modeling_rope_utils.py``), so the pads
    can push ``max(position_ids) + 1`` past the original length and change
    the outputs by order 1 (a Phi-3 ``longrope`` model switches to its long
    factors). With a learned table of absolute positions (GPT-2) the naive
    ids change the outputs by order 1 too. These ids are what make a
    left-padded row give the unpadded row's outputs in every case.
    ``tests/unit/encodings/test_position_ids.py`` shows all three on tiny
    transformers models (Llama, Phi-3, GPT-2).

    Args:
        attention_mask: 1 for a real token, 0 for a pad; an integer or boolean
            tensor (or nested sequence) of shape ``(..., seq_len)``, usually
            ``(batch, seq_len)`` as a tokenizer returns it.

    Returns:
        int64 tensor of the shape of ``attention_mask``.

    Raises:
        TypeError: if ``attention_mask`` is not a tensor or sequence of
            integers or booleans (floating masks included).
        ValueError: if it is an empty sequence (or NumPy array), has no
            dimension, or holds a value other than 0 and 1.
    """
    if _is_empty(attention_mask):  # torch.as_tensor([]) would be float32 and fail the dtype rule
        raise ValueError(
            f"attention_mask must hold at least one 0 or 1 (shape (..., seq_len)), got an empty "
            f"{type(attention_mask).__name__}"
        )
    mask = check_position_tensor("attention_mask", attention_mask, allow_float=False, allow_bool=True)
    if mask.dim() == 0:
        raise ValueError("attention_mask must have a sequence dimension (shape (..., seq_len)), got a scalar")
    if mask.dtype != torch.bool:
        bad = (mask != 0) & (mask != 1)
        if bool(bad.any()):
            raise ValueError(f"attention_mask must hold only 0 (pad) and 1 (token), got {int(mask[bad].flatten()[0])}")
    position_ids = mask.long().cumsum(-1) - 1
    return position_ids.masked_fill(mask == 0, 0)


def packed_position_ids(lengths: torch.Tensor | Sequence[int]) -> torch.Tensor:
    """Per-document position ids of a packed sequence: ``0 .. n-1`` for each document, concatenated.

    Packing puts several documents of lengths ``n_1, n_2, ..`` one after the
    other in one row. Counting the positions again from 0 in each document
    gives::

        [0, 1, .., n_1 - 1, 0, 1, .., n_2 - 1, ..]

    the ``position_ids`` that transformers 5.24.0's
    ``DataCollatorWithFlattening`` (``data/data_collator.py``, with its default
    ``position_ids_start=0``) returns for examples of these lengths, in one
    row of shape ``(1, sum(lengths))``; this function returns the row alone.
    transformers' ``find_packed_sequence_indices`` (``masking_utils.py``) reads
    the document boundaries back from such ids (wherever an id is not the
    previous one plus 1), and ``_preprocess_mask_arguments`` there masks
    attention between the documents it finds only when three conditions hold:
    ``position_ids`` is given, ``attention_mask`` is ``None`` and the cache is
    ``None`` (for transformers' Llama: no attention mask, no cache passed, and
    ``use_cache=False``, since with ``use_cache`` it creates a
    ``DynamicCache``). Otherwise restarting the ids alone does not keep the
    documents apart: under a plain causal mask a token still attends to the
    earlier documents, and only a block-diagonal document mask makes a packed
    row give the separate documents' outputs (what huggingface/nanoVLM pull
    request 204, "Fix packed sequence position IDs and cross-sample
    attention", an open contributor pull request, measured;
    ``tests/unit/encodings/test_position_ids.py`` shows it on a tiny Llama).

    Args:
        lengths: the documents' lengths, in order: a non-empty sequence of
            Python or NumPy integers, or a 1-D integer tensor; each >= 1.

    Returns:
        int64 tensor of shape ``(sum(lengths),)``.

    Raises:
        TypeError: if ``lengths`` is not a sequence or tensor of integers
            (floats and booleans included).
        ValueError: if ``lengths`` is empty, not one-dimensional, or holds a
            length below 1.
    """
    if _is_empty(lengths):  # torch.as_tensor([]) would be float32
        raise ValueError("lengths must hold at least one document length, got none")
    lengths = _check_lengths(lengths)
    starts = torch.cumsum(lengths, 0) - lengths
    return torch.arange(int(lengths.sum()), device=lengths.device) - torch.repeat_interleave(starts, lengths)


def document_mask(lengths: torch.Tensor | Sequence[int], *, causal: bool = True) -> torch.Tensor:
    """The block-diagonal attention mask of a packed sequence: a token sees only its own document.

    For documents of lengths ``n_1, n_2, ..`` packed one after the other,
    ``mask[i, j]`` is True (``i`` may attend to ``j``) when tokens ``i`` and
    ``j`` belong to the same document and, if ``causal``, ``j <= i``::

        mask[i, j] = (doc(i) == doc(j)) and (j <= i or not causal)

    This is the mask that transformers 5.24.0 builds itself for a packed row
    from reset position ids (``find_packed_sequence_indices`` and
    ``packed_sequence_mask_function`` in ``masking_utils.py``, combined with
    its causal mask), when it infers one at all (see
    ``packed_position_ids``); variable-length attention kernels express the
    same mask by the documents' cumulative lengths (``cu_seqlens`` of
    FlashAttention-2's ``flash_attn_varlen_func``). With it, a packed row
    gives each document the outputs it has alone, whatever position ids it
    gets under RoPE (``tests/unit/encodings/test_position_ids.py`` shows it
    on a tiny Llama); without it, reset position ids alone let every
    document see the ones before it.

    Args:
        lengths: the documents' lengths, in order, as for
            ``packed_position_ids``: a non-empty sequence of integers or a 1-D
            integer tensor, each >= 1.
        causal: if True (the default) also mask the later tokens of each
            document, as a decoder does; if False, every token sees its whole
            document (an encoder).

    Returns:
        bool tensor of shape ``(n, n)``, ``n = sum(lengths)``; True where
        attention is allowed. For transformers' additive masks use
        ``torch.zeros(n, n).masked_fill(~mask, float("-inf"))``.

    Raises:
        TypeError: if ``lengths`` is not a sequence or tensor of integers, or
            ``causal`` is not a bool.
        ValueError: if ``lengths`` is empty, not one-dimensional, or holds a
            length below 1.
    """
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be True or False, got {causal!r}")
    if _is_empty(lengths):
        raise ValueError("lengths must hold at least one document length, got none")
    lengths = _check_lengths(lengths)
    documents = torch.repeat_interleave(torch.arange(len(lengths), device=lengths.device), lengths)
    same = documents[:, None] == documents[None, :]
    if causal:
        n = len(documents)
        same &= torch.ones(n, n, dtype=torch.bool, device=lengths.device).tril()
    return same


def sink_cache_positions(length: int, *, sinks: int, window: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The tokens a StreamingLLM cache keeps after ``length`` tokens, and the positions it rotates them at.

    StreamingLLM (Xiao et al., 2024) keeps the keys and values of the first
    ``sinks`` tokens (the attention sinks) and of the last ``window`` tokens,
    and drops the ones between: ``StartRecentKVCache`` in
    ``streaming_llm/kv_cache.py`` of mit-han-lab/streaming-llm, with
    ``start_size = sinks`` and ``recent_size = window``, keeps everything
    while ``length <= sinks + window``. Its RoPE attention
    (``llama_pos_shift_attention_forward`` in
    ``streaming_llm/pos_shift/modify_llama.py``) caches the keys before
    RoPE and rotates the cached keys at their places in the cache,
    ``arange(kv_seq_len)``, not at the positions the tokens had in the text.
    This function returns both::

        kept      = [0, .., sinks - 1, length - window, .., length - 1]
        positions = [0, 1, .., len(kept) - 1]

    (when ``length <= sinks + window``, ``kept = positions = arange(length)``).

    Args:
        length: how many tokens have been seen (>= 1), positions ``0 .. length - 1``.
        sinks: how many first tokens stay in the cache (>= 0).
        window: how many recent tokens stay in the cache (>= 1).

    Returns:
        ``(kept, positions)``: two int64 tensors of the same length, the
        original positions of the cached tokens in cache order, and the
        positions StreamingLLM rotates their keys at.

    Raises:
        TypeError / ValueError: if ``length`` or ``window`` is not an integer
            >= 1, or ``sinks`` is not an integer >= 0.
    """
    length = check_positive_int("length", length)
    sinks = check_nonneg_int("sinks", sinks)
    window = check_positive_int("window", window)
    if length <= sinks + window:
        kept = torch.arange(length)
    else:
        kept = torch.cat([torch.arange(sinks), torch.arange(length - window, length)])
    return kept, torch.arange(len(kept))


def _check_lengths(lengths: torch.Tensor | Sequence[int]) -> torch.Tensor:
    """``lengths`` as a 1-D int64 tensor of document lengths >= 1, or a ValueError/TypeError naming it."""
    lengths = check_position_tensor("lengths", lengths, allow_float=False)
    if lengths.dim() != 1:
        raise ValueError(f"lengths must be one-dimensional (one length per document), got shape {tuple(lengths.shape)}")
    if lengths.numel() == 0:
        raise ValueError("lengths must hold at least one document length, got none")
    if bool((lengths < 1).any()):
        index = int(torch.nonzero(lengths < 1)[0, 0])
        raise ValueError(
            f"lengths must all be >= 1 (a document has at least one token), got lengths[{index}] = "
            f"{int(lengths[index])}"
        )
    return lengths.long()


def _is_empty(value: object) -> bool:
    """Whether ``value`` is a sequence or NumPy array without a single number in it
    (``[]``, ``[[]]``, ``np.array([])``), which ``torch.as_tensor`` turns into a float tensor."""
    if isinstance(value, (list, tuple)):
        return all(_is_empty(v) for v in value)
    if isinstance(value, np.ndarray):
        return value.size == 0
    return False
