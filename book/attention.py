"""Scaled dot-product attention, written out, and permutations of sequences.

``attention`` spells out ``softmax(Q K^T / sqrt(d) + B) V`` so that a reader
can see every step; the tests check it against
``torch.nn.functional.scaled_dot_product_attention``. The permutation helpers
(``random_permutation``, ``permute``, ``permutation_matrix``,
``inverse_permutation``) are what chapter 1 uses to show that attention is
permutation-equivariant: ``Attention(P X) = P Attention(X)``.
"""

from __future__ import annotations

import math

import torch

from ._validate import check_float_tensor, check_positive_int

__all__ = [
    "attention",
    "causal_mask",
    "random_permutation",
    "inverse_permutation",
    "permutation_matrix",
    "permute",
]


def causal_mask(seq_q: int, seq_k: int | None = None) -> torch.Tensor:
    """Additive causal mask: 0 where key ``j <= i`` (query ``i``), ``-inf`` elsewhere.

    Aligned at the top left like ``scaled_dot_product_attention(is_causal=True)``:
    query ``i`` may attend to keys ``0 .. i``.

    Returns:
        float32 tensor of shape ``(seq_q, seq_k)`` (``seq_k`` defaults to ``seq_q``).
    """
    seq_q = check_positive_int("seq_q", seq_q)
    seq_k = seq_q if seq_k is None else check_positive_int("seq_k", seq_k)
    allowed = torch.ones(seq_q, seq_k, dtype=torch.bool).tril()
    return torch.zeros(seq_q, seq_k).masked_fill(~allowed, float("-inf"))


def attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    bias: torch.Tensor | None = None,
    causal: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention, step by step (Vaswani et al., 2017, eq. 1).

    Equation::

        S = Q K^T / sqrt(d) + B        (+ causal mask: -inf where j > i)
        A = softmax(S, over keys)
        output = A V

    Args:
        q: queries, floating tensor ``(..., seq_q, d)``.
        k: keys, ``(..., seq_k, d)``, same dtype as ``q``.
        v: values, ``(..., seq_k, d_v)``, same dtype as ``q``.
        bias: optional additive bias (ALiBi, relative biases, masks with
            ``-inf``), floating, broadcastable to ``(..., seq_q, seq_k)``.
        causal: if True, query ``i`` sees only keys ``0 .. i`` (top-left aligned,
            as ``scaled_dot_product_attention(is_causal=True)``).

    Returns:
        ``(output, weights)``: output ``(..., seq_q, d_v)`` and the attention
        weights ``A`` of shape ``(..., seq_q, seq_k)``, whose rows sum to 1.

    Raises:
        TypeError: for non-tensors, non-floating or mismatched dtypes, a
            boolean ``bias`` (use 0 / -inf instead).
        ValueError: for mismatched feature sizes or key/value lengths, batch
            shapes that do not broadcast, or a ``bias`` of the wrong shape.
    """
    q = check_float_tensor("q", q, min_dim=2)
    k = check_float_tensor("k", k, min_dim=2)
    v = check_float_tensor("v", v, min_dim=2)
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k and v must share one dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same feature size (last dim), got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same length (dim -2), got {k.shape[-2]} and {v.shape[-2]}")
    try:
        batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError as err:
        raise ValueError(
            f"the leading (batch/head) dims of q, k, v must broadcast, got "
            f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}"
        ) from err
    seq_q, seq_k = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if bias is not None:
        scores = scores + _checked_bias(bias, (*batch, seq_q, seq_k), q.dtype)
    if causal:
        scores = scores + causal_mask(seq_q, seq_k).to(device=q.device, dtype=q.dtype)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def _checked_bias(bias: torch.Tensor, target: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    if not isinstance(bias, torch.Tensor):
        raise TypeError(f"bias must be a torch.Tensor, got {type(bias).__name__}")
    if not bias.is_floating_point():
        raise TypeError(
            f"bias must be a floating (additive) tensor, got {bias.dtype}; "
            f"for a boolean mask use 0 where allowed and float('-inf') where masked"
        )
    try:
        ok = torch.broadcast_shapes(bias.shape, target) == torch.Size(target)
    except RuntimeError:
        ok = False
    if not ok:
        raise ValueError(f"bias of shape {tuple(bias.shape)} must broadcast to (..., seq_q, seq_k) = {target}")
    return bias.to(dtype)


def random_permutation(n: int, *, generator: torch.Generator | None = None) -> torch.Tensor:
    """A uniformly random permutation of ``0 .. n-1`` (int64, shape ``(n,)``)."""
    n = check_positive_int("n", n)
    return torch.randperm(n, generator=generator)


def _check_permutation(perm: torch.Tensor, name: str = "perm") -> torch.Tensor:
    if not isinstance(perm, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of indices, got {type(perm).__name__}")
    if perm.dtype in (torch.bool,) or perm.is_floating_point() or perm.is_complex():
        raise TypeError(f"{name} must have an integer dtype, got {perm.dtype}")
    if perm.dim() != 1 or perm.numel() == 0:
        raise ValueError(f"{name} must be a non-empty 1-D tensor, got shape {tuple(perm.shape)}")
    n = perm.numel()
    if not torch.equal(torch.sort(perm.cpu()).values, torch.arange(n)):
        raise ValueError(f"{name} must contain each of 0 .. {n - 1} exactly once, got {perm.tolist()}")
    return perm.long()


def inverse_permutation(perm: torch.Tensor) -> torch.Tensor:
    """The permutation ``inv`` with ``inv[perm[i]] = i``, so that permuting by
    ``perm`` and then by ``inv`` gives back the original order."""
    perm = _check_permutation(perm)
    inv = torch.empty_like(perm)
    inv[perm] = torch.arange(perm.numel(), device=perm.device)
    return inv


def permutation_matrix(perm: torch.Tensor, *, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The ``n x n`` matrix ``P`` with ``P[i, perm[i]] = 1``.

    ``P @ X`` reorders the rows of ``X`` so that row ``i`` of the result is row
    ``perm[i]`` of ``X``: the same as ``permute(X, perm)``. ``P`` is orthogonal,
    ``P^T = P^{-1}``.
    """
    perm = _check_permutation(perm)
    n = perm.numel()
    eye = torch.eye(n, dtype=dtype, device=perm.device)
    return eye[perm]


def permute(x: torch.Tensor, perm: torch.Tensor, *, dim: int = -2) -> torch.Tensor:
    """Reorder ``x`` along ``dim`` (default -2, the sequence axis of ``(..., seq, d)``)
    so that position ``i`` of the result holds position ``perm[i]`` of ``x``.

    Raises:
        ValueError: if ``perm`` is not a permutation of the length of ``x`` along ``dim``.
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    perm = _check_permutation(perm)
    if not -x.dim() <= dim < x.dim():
        raise ValueError(f"dim must be in [-{x.dim()}, {x.dim() - 1}] for x of shape {tuple(x.shape)}, got {dim}")
    if perm.numel() != x.shape[dim]:
        raise ValueError(f"perm must have one entry per position along dim {dim} ({x.shape[dim]}), got {perm.numel()}")
    return x.index_select(dim, perm.to(x.device))
