"""Synthetic sequence tasks small enough to train on a laptop CPU in seconds.

Every task returns a ``Batch``: ``inputs`` and ``targets`` of shape
``(n_seqs, length)`` (next-token prediction, ``targets[:, t]`` is the token
that should follow ``inputs[:, :t+1]``) and a boolean ``loss_mask`` marking
the targets that the task's rule determines. Tokens are drawn from a
``torch.Generator`` so a seed fixes the data.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import torch

from ._validate import check_nonneg_int, check_positive_int

__all__ = ["Batch", "local_sum", "fibonacci_mod", "copy_task", "MODULUS", "N_SYMBOLS", "vocab_size"]

#: The default modulus of ``local_sum`` and ``fibonacci_mod``: tokens ``0 .. 9``.
MODULUS = 10
#: The default symbol alphabet of ``copy_task``: symbols ``0 .. 9`` (plus BOS and SEP).
N_SYMBOLS = 10


class Batch(NamedTuple):
    """Inputs, next-token targets and the mask of targets that count."""

    inputs: torch.Tensor
    targets: torch.Tensor
    loss_mask: torch.Tensor


def _check_generator(generator: torch.Generator | None) -> torch.Generator | None:
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    return generator


def local_sum(
    n_seqs: int,
    length: int,
    *,
    offsets: Sequence[int] = (0, 1),
    modulus: int = MODULUS,
    generator: torch.Generator | None = None,
) -> Batch:
    """A local rule on i.i.d. tokens: the sum of the tokens at fixed offsets back.

    ``inputs`` are i.i.d. uniform in ``0 .. modulus-1`` and::

        targets[:, t] = sum(inputs[:, t - o] for o in offsets) % modulus

    With the default ``offsets=(0, 1)`` the target after token ``t`` is the sum
    of that token and the one before it. Unlike ``fibonacci_mod``, whose
    sequences are fixed by their first two tokens (only ``modulus ** 2`` of
    them exist, so a test set cannot be held out), every sequence here is new:
    the test data of another seed were never seen in training, and a model can
    only score by applying the rule, at offsets it must find by position.

    Args:
        n_seqs: number of sequences (>= 1).
        length: tokens per sequence (> ``max(offsets)``).
        offsets: how far back each summed token lies (distinct integers >= 0,
            at least one).
        modulus: vocabulary size (>= 2).
        generator: source of randomness (seed it for reproducible data).

    Returns:
        ``Batch`` whose ``loss_mask`` is False before index ``max(offsets)``
        (where some summed token would lie before the sequence) and True from
        there on.

    Raises:
        TypeError: for a non-integer size or offset, ``offsets`` that are not
            a sequence, or a bad ``generator``.
        ValueError: for sizes or offsets that break the rules above.
    """
    n_seqs = check_positive_int("n_seqs", n_seqs)
    length = check_positive_int("length", length)
    modulus = check_positive_int("modulus", modulus)
    if modulus < 2:
        raise ValueError(f"modulus must be at least 2, got {modulus}")
    if isinstance(offsets, (str, bytes)) or not isinstance(offsets, Sequence):
        raise TypeError(f"offsets must be a sequence of integers >= 0, got {offsets!r}")
    if not offsets:
        raise ValueError(f"offsets must be a non-empty sequence of integers >= 0, got {offsets!r}")
    offsets = tuple(check_nonneg_int(f"offsets[{i}]", o) for i, o in enumerate(offsets))
    if len(set(offsets)) != len(offsets):
        raise ValueError(f"offsets must be distinct integers >= 0, got {list(offsets)}")
    if length <= max(offsets):
        raise ValueError(f"length must exceed the largest offset ({max(offsets)}), got {length}")
    generator = _check_generator(generator)
    inputs = torch.randint(modulus, (n_seqs, length), generator=generator)
    targets = torch.zeros_like(inputs)
    for o in offsets:  # shift right by o; the first o targets are masked anyway
        targets[:, o:] += inputs[:, : length - o]
    mask = torch.zeros(n_seqs, length, dtype=torch.bool)
    mask[:, max(offsets):] = True
    return Batch(inputs, targets % modulus, mask)


def fibonacci_mod(
    n_seqs: int,
    length: int,
    *,
    modulus: int = MODULUS,
    generator: torch.Generator | None = None,
) -> Batch:
    """A local rule: each token is the sum of the two before it, modulo ``modulus``.

    Sequence: ``x_0, x_1`` uniform in ``0 .. modulus-1``, then
    ``x_t = (x_{t-1} + x_{t-2}) mod modulus``. A model that has learned to look
    one and two tokens back can continue the rule at any length, which makes
    the task a test of relative position (issue: chapter 8, task 1).

    Args:
        n_seqs: number of sequences (>= 1).
        length: tokens fed to the model (>= 2); the sequence drawn has
            ``length + 1`` tokens and is split into inputs and shifted targets.
        modulus: vocabulary size (>= 2).
        generator: source of randomness (seed it for reproducible data).

    Returns:
        ``Batch`` whose ``loss_mask`` is True from target index 1 on (the target
        ``x_{t+1}`` is determined once ``x_{t-1}`` and ``x_t`` are both seen).
    """
    n_seqs = check_positive_int("n_seqs", n_seqs)
    length = check_positive_int("length", length)
    modulus = check_positive_int("modulus", modulus)
    if length < 2:
        raise ValueError(f"length must be at least 2 (the rule needs two tokens), got {length}")
    if modulus < 2:
        raise ValueError(f"modulus must be at least 2, got {modulus}")
    generator = _check_generator(generator)
    seq = torch.empty(n_seqs, length + 1, dtype=torch.long)
    seq[:, :2] = torch.randint(modulus, (n_seqs, 2), generator=generator)
    for t in range(2, length + 1):  # a recurrence; length is small
        seq[:, t] = (seq[:, t - 1] + seq[:, t - 2]) % modulus
    mask = torch.ones(n_seqs, length, dtype=torch.bool)
    mask[:, 0] = False
    return Batch(seq[:, :-1], seq[:, 1:], mask)


def copy_task(
    n_seqs: int,
    n_tokens: int,
    *,
    n_symbols: int = N_SYMBOLS,
    generator: torch.Generator | None = None,
) -> Batch:
    """Copying: ``BOS x_1 .. x_n SEP x_1 .. x_n``, scored on the second copy.

    Symbols are ``0 .. n_symbols-1``; ``BOS = n_symbols`` and
    ``SEP = n_symbols + 1``, so the vocabulary has ``n_symbols + 2`` tokens.
    To copy, the model must find, for the ``j``-th output, the ``j``-th input:
    the query (input position ``n + j``, the previous copied symbol or SEP)
    must attend to the key at position ``j``, exactly ``n`` positions back,
    a distance that depends on ``n``.

    Args:
        n_seqs: number of sequences (>= 1).
        n_tokens: ``n``, the number of symbols to copy (>= 1).
        n_symbols: size of the symbol alphabet (>= 2).
        generator: source of randomness.

    Returns:
        ``Batch`` with inputs of length ``2 n + 1``; ``loss_mask`` is True on
        the ``n`` targets of the second copy.
    """
    n_seqs = check_positive_int("n_seqs", n_seqs)
    n = check_positive_int("n_tokens", n_tokens)
    n_symbols = check_positive_int("n_symbols", n_symbols)
    if n_symbols < 2:
        raise ValueError(f"n_symbols must be at least 2, got {n_symbols}")
    generator = _check_generator(generator)
    x = torch.randint(n_symbols, (n_seqs, n), generator=generator)
    bos = torch.full((n_seqs, 1), n_symbols)
    sep = torch.full((n_seqs, 1), n_symbols + 1)
    seq = torch.cat((bos, x, sep, x), dim=1)  # length 2n + 2
    mask = torch.zeros(n_seqs, 2 * n + 1, dtype=torch.bool)
    mask[:, n + 1 :] = True  # targets n+1 .. 2n are seq[n+2 ..], the copy
    return Batch(seq[:, :-1], seq[:, 1:], mask)


def vocab_size(task: str, *, modulus: int = MODULUS, n_symbols: int = N_SYMBOLS) -> int:
    """The number of token ids a task's batches use: what a model on it must embed.

    ``"local_sum"`` and ``"fibonacci"``: the tokens are ``0 .. modulus-1``;
    ``"copy"``: the symbols ``0 .. n_symbols-1`` plus ``BOS = n_symbols`` and
    ``SEP = n_symbols + 1``. With the defaults these are the sizes of the
    batches that ``local_sum``, ``fibonacci_mod`` and ``copy_task`` draw with
    their own defaults (``book.experiments.Config.vocab_size`` reads it).

    Raises:
        ValueError: for an unknown task, or a modulus or alphabet below 2.
        TypeError: if ``modulus`` or ``n_symbols`` is not an integer.
    """
    if task not in ("local_sum", "fibonacci", "copy"):
        raise ValueError(f"task must be one of 'local_sum', 'fibonacci', 'copy', got {task!r}")
    modulus = check_positive_int("modulus", modulus)
    n_symbols = check_positive_int("n_symbols", n_symbols)
    if min(modulus, n_symbols) < 2:
        raise ValueError(f"modulus and n_symbols must be at least 2, got {modulus} and {n_symbols}")
    return n_symbols + 2 if task == "copy" else modulus
