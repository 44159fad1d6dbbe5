"""Measure how a trained ``TinyTransformer`` applies a local rule.

Two measurements, for chapter 8's question "which heads carry the rule, and
why do they fail past the training length?":

* ``attention_on_offsets``: for every layer, head and query position, the
  attention weight on the keys the rule needs (query ``i`` reads keys
  ``i - o`` for each offset ``o``). A head that carries a rule at offsets
  ``(0, 1)`` puts most of its weight there; if that mass falls past the
  training length, the head no longer finds the tokens it needs.
* ``head_ablation``: the accuracy lost when one head's output is set to zero
  (``TinyTransformer.head_mask``; transformers 4's ``head_mask`` did the
  same), per head, within and past the training length.
"""

from __future__ import annotations

from typing import Sequence

import torch

from ._validate import check_nonneg_int, check_positive_int
from .models import TinyTransformer, accuracy_by_position
from .tasks import Batch

__all__ = ["attention_on_offsets", "head_ablation"]


def _check_model_batch(model: TinyTransformer, batch: Batch) -> None:
    if not isinstance(model, TinyTransformer):
        raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
    if not isinstance(batch, Batch):
        raise TypeError(f"batch must be a book.tasks.Batch, got {type(batch).__name__}")


@torch.no_grad()
def attention_on_offsets(model: TinyTransformer, batch: Batch, offsets: Sequence[int]) -> torch.Tensor:
    """Mean attention weight that query ``i`` puts on keys ``i - o``, ``o`` in ``offsets``.

    Returns a float64 tensor ``(n_layers, n_heads, seq_len)``: for each layer,
    head and query position ``i``, the weight on those keys summed over the
    offsets (offsets that reach before the sequence count as 0) and averaged
    over the batch. A weight of 1 means the head looks only at the tokens at
    those offsets.

    Raises:
        TypeError: for a model that is not a ``TinyTransformer``, a batch
            that is not a ``Batch``, or an offset that is not an integer.
        ValueError: for offsets that are not distinct integers >= 0.
    """
    _check_model_batch(model, batch)
    offsets = [check_nonneg_int(f"offsets[{i}]", o) for i, o in enumerate(offsets)]
    if not offsets or len(set(offsets)) != len(offsets):
        raise ValueError(f"offsets must be distinct integers >= 0, at least one, got {offsets}")
    model.eval()
    _, maps = model(batch.inputs, return_attention=True)
    weights = torch.stack(maps).double().mean(1)  # (L, H, n, n), mean over the batch
    n = weights.shape[-1]
    i = torch.arange(n)
    total = torch.zeros(weights.shape[:-1], dtype=torch.float64)
    for o in offsets:
        ok = i >= o
        total[..., ok] += weights[..., i[ok], i[ok] - o]
    return total


@torch.no_grad()
def head_ablation(model: TinyTransformer, batch: Batch, split: int) -> dict[str, torch.Tensor]:
    """Accuracy lost when each head alone is silenced, within and past ``split``.

    For every (layer, head) the head's output is multiplied by 0
    (``model.head_mask``) and the greedy accuracy on ``batch`` is measured
    again. Accuracy is averaged over the scored targets before index
    ``split`` ("within", e.g. the training length) and from ``split`` on
    ("past").

    Returns:
        ``{name: float64 tensor}``: ``"within"`` and ``"past"``, each
        ``(n_layers, n_heads)``, the drop in accuracy when that head is
        silenced (unablated minus ablated; positive means the head was
        needed), and ``"base_within"`` and ``"base_past"``, the unablated
        accuracies (scalars). The model's ``head_mask`` is restored.

    Raises:
        TypeError: as ``attention_on_offsets``.
        ValueError: if ``split`` is not between 1 and the batch length - 1.
    """
    _check_model_batch(model, batch)
    split = check_positive_int("split", split)
    n = batch.inputs.shape[1]
    if split >= n:
        raise ValueError(f"split must be less than the batch length {n}, got {split}")

    def parts() -> tuple[torch.Tensor, torch.Tensor]:
        acc = accuracy_by_position(model, batch)
        return acc[:split].nanmean(), acc[split:].nanmean()

    saved = model.head_mask
    try:
        model.head_mask = None
        base_within, base_past = parts()
        within = torch.zeros(model.n_layers, model.n_heads, dtype=torch.float64)
        past = torch.zeros_like(within)
        for layer in range(model.n_layers):
            for head in range(model.n_heads):
                mask = torch.ones(model.n_layers, model.n_heads)
                mask[layer, head] = 0
                model.head_mask = mask
                w, p = parts()
                within[layer, head], past[layer, head] = base_within - w, base_past - p
    finally:
        model.head_mask = saved
    return {"within": within, "past": past, "base_within": base_within, "base_past": base_past}
