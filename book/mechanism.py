"""Measure how a trained ``TinyTransformer`` applies a local rule.

Two measurements, for chapter 8's question "which heads carry the rule, and
why do they fail past the training length?":

* ``attention_on_offsets``: for every layer, head and query position, the
  attention weight on the keys the rule needs (query ``i`` reads keys
  ``i - o`` for each offset ``o``). A head that carries a rule at offsets
  ``(0, 1)`` puts most of its weight there; if that mass falls past the
  training length, the head no longer finds the tokens it needs.
* ``needed_keys`` and ``attention_on_needed``: for any of the benchmark's
  tasks, the attention weight on the keys the task's rule needs, reported
  apart from the weight on the query's own token (offset 0), which the
  residual stream already carries: ``local_sum``'s key at offset 1,
  ``recall``'s pair token of the queried key, ``copy``'s symbol being copied.
* ``head_ablation``: the accuracy lost when one head's output is set to zero
  (``TinyTransformer.head_mask``; transformers 4's ``head_mask`` did the
  same), per head, within and past the training length.
"""

from __future__ import annotations

from typing import Sequence

import torch

from ._validate import check_nonneg_int, check_positive_int
from .models import TinyTransformer, accuracy_by_position
from .tasks import Batch, vocab_size

__all__ = ["attention_on_offsets", "needed_keys", "weight_on_needed", "attention_on_needed", "head_ablation"]

#: The tasks ``needed_keys`` knows.
NEEDED_TASKS = ("local_sum", "recall", "copy")


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


def needed_keys(
    task: str, batch: Batch, *, offsets: Sequence[int] = (0, 1), n_keys: int = 32, n_values: int = 4
) -> torch.Tensor:
    """Which keys each scored query needs by the task's rule: ``(n_seqs, n, n)`` booleans.

    ``needed[s, i, j]`` is True when query ``i`` of sequence ``s`` (a
    position whose target ``batch.loss_mask`` scores) needs key ``j``; the
    query's own position ``j = i`` is never counted, since the residual
    stream already carries that token.

    * ``local_sum``: keys ``i - o`` for each offset ``o > 0`` of ``offsets``
      (``book.tasks.local_sum``; for the default ``(0, 1)`` the key at offset 1).
    * ``recall``: the pair token whose key is the query's
      (``book.tasks.recall``: pair ``k * n_values + v``, query
      ``n_keys * n_values + k``).
    * ``copy``: the symbol being copied, ``n`` positions back in
      ``BOS x_1 .. x_n SEP x_1 ..`` (``book.tasks.copy_task``).

    Raises:
        ValueError: for an unknown task, ``local_sum`` offsets with no
            offset above 0 (then the rule needs no other key), or a batch
            whose layout is not the task's (a copy batch must score exactly
            its second copy; a recall batch must fit ``n_keys`` and
            ``n_values``, each scored query finding its key in one pair).
        TypeError: if ``batch`` is not a ``Batch``.
    """
    if task not in NEEDED_TASKS:
        raise ValueError(f"task must be one of {', '.join(NEEDED_TASKS)}, got {task!r}")
    if not isinstance(batch, Batch):
        raise TypeError(f"batch must be a book.tasks.Batch, got {type(batch).__name__}")
    b, n = batch.inputs.shape
    scored = batch.loss_mask
    i = torch.arange(n)
    if task == "local_sum":
        back = [check_nonneg_int(f"offsets[{k}]", o) for k, o in enumerate(offsets) if o != 0]
        if not back:
            raise ValueError(f"offsets must hold an offset above 0 for local_sum to need another key, got {offsets}")
        pattern = torch.zeros(n, n, dtype=torch.bool)
        for o in back:
            pattern[i[o:], i[o:] - o] = True
        needed = pattern.expand(b, n, n).clone()
    elif task == "copy":
        if n % 2 == 0:
            raise ValueError(f"a copy batch has 2n + 1 inputs, got {n}")
        half = (n - 1) // 2
        if not bool((scored == (i > half)).all()):
            raise ValueError("batch is not a copy batch: its loss_mask must score exactly the second copy")
        needed = torch.zeros(n, n, dtype=torch.bool)
        needed[i[half + 1 :], i[half + 1 :] - half] = True
        needed = needed.expand(b, n, n).clone()
    else:
        pairs = n_keys * n_values
        tokens = batch.inputs
        is_pair = tokens < pairs
        key_of = torch.where(is_pair, tokens // n_values, -1)  # (b, n): the key of each pair token
        asked = torch.where(tokens >= pairs, tokens - pairs, -2)  # the key each query asks for
        needed = (key_of[:, None, :] == asked[:, :, None]) & is_pair[:, None, :]
        vocab = vocab_size("recall", n_keys=n_keys, n_values=n_values)  # pairs, queries, answers, filler
        queries_ok = ((tokens >= pairs) & (tokens < pairs + n_keys))[scored]
        if int(tokens.max()) >= vocab or not bool(queries_ok.all()) or not bool((needed.sum(2)[scored] == 1).all()):
            raise ValueError(
                f"batch is not a recall batch with n_keys={n_keys}, n_values={n_values}: every token must be "
                f"below {vocab}, and every scored position a query whose key is in exactly one pair"
            )
    return needed & scored[:, :, None] & ~torch.eye(n, dtype=torch.bool)


def weight_on_needed(
    maps: Sequence[torch.Tensor], needed: torch.Tensor, scored: torch.Tensor
) -> dict[str, torch.Tensor]:
    """Attention weight on the needed keys and on the query itself, per layer and head.

    Args:
        maps: one ``(n_seqs, n_heads, n, n)`` tensor of attention weights per
            layer (what ``TinyTransformer(..., return_attention=True)`` returns).
        needed: ``(n_seqs, n, n)`` booleans (``needed_keys``).
        scored: ``(n_seqs, n)`` booleans, the queries to average over.

    Returns:
        ``{"needed": (n_layers, n_heads), "self": (n_layers, n_heads)}``
        float64: the weight query ``i`` puts on its needed keys (summed over
        them), and the weight on key ``i`` itself (offset 0), each averaged
        over the scored queries. A head that looks only at the query's own
        token scores 0 and 1.

    Raises:
        ValueError: if nothing is scored or the shapes disagree.
    """
    weights = torch.stack(list(maps)).double()  # (L, b, H, n, n)
    if (
        weights.dim() != 5
        or needed.shape != (weights.shape[1], *weights.shape[-2:])
        or scored.shape != needed.shape[:2]
    ):
        raise ValueError(
            f"maps must be (n_seqs, n_heads, n, n) per layer, needed (n_seqs, n, n) and scored (n_seqs, n), "
            f"got {tuple(weights.shape)}, {tuple(needed.shape)} and {tuple(scored.shape)}"
        )
    count = int(scored.sum())
    if count == 0:
        raise ValueError("scored must mark at least one query")
    on_needed = (weights * needed[None, :, None].double()).sum(-1)  # (L, b, H, n)
    on_self = weights.diagonal(dim1=-2, dim2=-1)  # (L, b, H, n)
    keep = scored[None, :, None].double()
    return {
        "needed": (on_needed * keep).sum((1, 3)) / count,
        "self": (on_self * keep).sum((1, 3)) / count,
    }


@torch.no_grad()
def attention_on_needed(model: TinyTransformer, batch: Batch, needed: torch.Tensor) -> dict[str, torch.Tensor]:
    """``weight_on_needed`` for ``model``'s attention on ``batch`` (``needed``
    from ``needed_keys``), averaged over the batch's scored queries.

    Raises:
        TypeError: as ``attention_on_offsets``.
        ValueError: as ``weight_on_needed``.
    """
    _check_model_batch(model, batch)
    model.eval()
    _, maps = model(batch.inputs, return_attention=True)
    return weight_on_needed(maps, needed, batch.loss_mask)


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
