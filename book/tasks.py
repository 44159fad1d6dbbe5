"""Synthetic sequence tasks small enough to train on a laptop CPU in seconds.

Every task returns a ``Batch``: ``inputs`` and ``targets`` of shape
``(n_seqs, length)`` (next-token prediction, ``targets[:, t]`` is the token
that should follow ``inputs[:, :t+1]``) and a boolean ``loss_mask`` marking
the targets that the task's rule determines. Tokens are drawn from a
``torch.Generator`` so a seed fixes the data.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Callable, NamedTuple, Sequence

import torch

from ._validate import check_nonneg_int, check_positive_int

__all__ = [
    "Batch",
    "local_sum",
    "fibonacci_mod",
    "fibonacci_split",
    "training_inputs",
    "copy_task",
    "copy_order_free_accuracy",
    "recall",
    "MODULUS",
    "N_SYMBOLS",
    "N_KEYS",
    "N_VALUES",
    "N_QUERIES",
    "TASK_NAMES",
    "vocab_size",
    "split_class",
    "draw_split",
    "SPLIT_CLASSES",
    "N_SPLIT_CLASSES",
]

#: The default modulus of ``local_sum`` and ``fibonacci_mod``: tokens ``0 .. 9``.
MODULUS = 10
#: The default symbol alphabet of ``copy_task``: symbols ``0 .. 9`` (plus BOS and SEP).
N_SYMBOLS = 10
#: The defaults of ``recall``: 32 keys, 4 values, 4 queries per sequence.
N_KEYS, N_VALUES, N_QUERIES = 32, 4, 4
#: The tasks ``vocab_size`` knows.
TASK_NAMES = ("local_sum", "fibonacci", "copy", "recall")


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
    them exist, so a test set can be held out only by holding out first
    pairs, with ``fibonacci_split``), every sequence here is new:
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
    mask[:, max(offsets) :] = True
    return Batch(inputs, targets % modulus, mask)


def fibonacci_mod(
    n_seqs: int,
    length: int,
    *,
    modulus: int = MODULUS,
    generator: torch.Generator | None = None,
    starts: torch.Tensor | Sequence[Sequence[int]] | None = None,
) -> Batch:
    """A local rule: each token is the sum of the two before it, modulo ``modulus``.

    Sequence: ``x_0, x_1`` uniform in ``0 .. modulus-1``, then
    ``x_t = (x_{t-1} + x_{t-2}) mod modulus``. A model that has learned to look
    one and two tokens back can continue the rule at any length, which makes
    the task a test of relative position.

    Args:
        n_seqs: number of sequences (>= 1).
        length: tokens fed to the model (>= 2); the sequence drawn has
            ``length + 1`` tokens and is split into inputs and shifted targets.
        modulus: vocabulary size (>= 2).
        generator: source of randomness (seed it for reproducible data).
        starts: the allowed first pairs ``(x_0, x_1)``, an ``(n, 2)`` integer
            tensor or list of pairs in ``0 .. modulus-1``; each sequence takes
            one of them, drawn uniformly with replacement. ``None`` (the
            default) draws ``x_0`` and ``x_1`` uniformly, so every one of the
            ``modulus ** 2`` sequences can occur. ``fibonacci_split`` makes
            disjoint training and held-out sets of starts.

    Returns:
        ``Batch`` whose ``loss_mask`` is True from target index 1 on (the target
        ``x_{t+1}`` is determined once ``x_{t-1}`` and ``x_t`` are both seen).

    Raises:
        TypeError: for non-integer sizes or starts, or a bad ``generator``.
        ValueError: for sizes below the rules above, or ``starts`` that is not
            a non-empty ``(n, 2)`` set of pairs in ``0 .. modulus-1``.
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
    if starts is None:
        seq[:, :2] = torch.randint(modulus, (n_seqs, 2), generator=generator)
    else:
        pairs = _check_starts(starts, modulus)
        seq[:, :2] = pairs[torch.randint(len(pairs), (n_seqs,), generator=generator)]
    for t in range(2, length + 1):  # a recurrence; length is small
        seq[:, t] = (seq[:, t - 1] + seq[:, t - 2]) % modulus
    mask = torch.ones(n_seqs, length, dtype=torch.bool)
    mask[:, 0] = False
    return Batch(seq[:, :-1], seq[:, 1:], mask)


def _check_starts(starts: torch.Tensor | Sequence[Sequence[int]], modulus: int) -> torch.Tensor:
    """``starts`` as a ``(n, 2)`` long tensor of pairs in ``0 .. modulus-1``."""
    if isinstance(starts, (str, bytes)):
        raise TypeError(f"starts must be an (n, 2) tensor or list of integer pairs, got {starts!r}")
    try:
        pairs = torch.as_tensor(starts)
    except (TypeError, ValueError, RuntimeError) as err:
        raise TypeError(f"starts must be an (n, 2) tensor or list of integer pairs, got {starts!r}") from err
    if pairs.dim() != 2 or pairs.shape[1] != 2 or len(pairs) == 0:
        raise ValueError(f"starts must be a non-empty (n, 2) set of pairs, got shape {tuple(pairs.shape)}")
    if pairs.dtype.is_floating_point or pairs.dtype.is_complex or pairs.dtype == torch.bool:
        raise TypeError(f"starts must hold integers, got dtype {pairs.dtype}")
    if bool(((pairs < 0) | (pairs >= modulus)).any()):
        raise ValueError(f"starts must lie in 0 .. modulus-1 = 0 .. {modulus - 1}")
    return pairs.long()


def fibonacci_split(
    n_held_out: int,
    *,
    modulus: int = MODULUS,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Split the ``modulus ** 2`` first pairs of ``fibonacci_mod`` into training
    starts and ``n_held_out`` held-out starts.

    A sequence of the rule is fixed by its first pair ``(x_0, x_1)``, so only
    ``modulus ** 2`` sequences of a given length exist, and uniform draws
    soon cover them all. Drawing training batches with
    ``starts=train`` and test batches with ``starts=held_out`` keeps every
    test sequence out of training: no test sequence starts as a training
    sequence does. More: the pair at position ``t`` is the first pair moved
    ``t`` steps along the rule, a one-to-one map, so at every position the
    two tokens of a test sequence never stand there in any training
    sequence. What is held out is each pair of tokens *at its position*; the
    same pairs can still occur in training at other positions, since the
    rule repeats (with period 60 for ``modulus = 10``).

    Args:
        n_held_out: pairs to hold out (1 .. ``modulus ** 2 - 1``).
        modulus: vocabulary size (>= 2).
        generator: source of randomness for the shuffle of all pairs.

    Returns:
        ``(train, held_out)``: ``(modulus ** 2 - n_held_out, 2)`` and
        ``(n_held_out, 2)`` long tensors of pairs, disjoint, together every
        pair once, each in lexicographic order.

    Raises:
        TypeError: for a non-integer size or a bad ``generator``.
        ValueError: for ``n_held_out`` outside 1 .. ``modulus ** 2 - 1`` or a
            modulus below 2.
    """
    n_held_out = check_positive_int("n_held_out", n_held_out)
    modulus = check_positive_int("modulus", modulus)
    if modulus < 2:
        raise ValueError(f"modulus must be at least 2, got {modulus}")
    if n_held_out >= modulus**2:
        raise ValueError(f"n_held_out must leave some training pairs: at most {modulus**2 - 1}, got {n_held_out}")
    generator = _check_generator(generator)
    order = torch.randperm(modulus**2, generator=generator)
    held, train = order[:n_held_out].sort().values, order[n_held_out:].sort().values
    return torch.stack([train // modulus, train % modulus], 1), torch.stack([held // modulus, held % modulus], 1)


def training_inputs(
    make_batch: Callable[[torch.Generator], Batch],
    steps: int,
    *,
    seed: int,
    length: int | None = None,
) -> set[tuple[int, ...]]:
    """The input rows that ``book.models.train(model, make_batch, steps=steps,
    seed=seed)`` trains on, as a set of tuples (the first ``length`` tokens of
    each, or all of them).

    ``train`` draws one batch per step from a ``torch.Generator`` seeded with
    ``seed``; this draws the same batches without a model. Test data are held
    out when no test row (cut to the same ``length``) is in this set.

    Raises:
        TypeError: if ``make_batch`` is not callable.
        TypeError / ValueError: if ``steps`` or ``length`` is not a positive
            integer, or ``seed`` not a non-negative one.
    """
    if not callable(make_batch):
        raise TypeError(f"make_batch must be a function of a torch.Generator, got {type(make_batch).__name__}")
    steps = check_positive_int("steps", steps)
    seed = check_nonneg_int("seed", seed)
    if length is not None:
        length = check_positive_int("length", length)
    generator = torch.Generator().manual_seed(seed)
    seen: set[tuple[int, ...]] = set()
    for _ in range(steps):
        rows = make_batch(generator).inputs
        seen.update(tuple(row) for row in rows[:, :length].tolist())
    return seen


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


def copy_order_free_accuracy(n_tokens: int, *, n_symbols: int = N_SYMBOLS) -> float:
    """The copy score of the best guess that ignores order: the bar a copy must clear.

    Scored teacher-forced, the ``j``-th output of a copy comes after the
    input and the first ``j - 1`` symbols of the copy. A predictor that knows
    which symbols the input holds and which the copy holds so far, but not
    their order, knows the multiset of the ``r = n - j + 1`` symbols still to
    copy; the next one is any of them with equal probability (the symbols are
    i.i.d.), so its best guess is the most common one and is right with
    probability ``M_r / r``, where ``M_r`` is the largest count among ``r``
    uniform draws from ``n_symbols`` symbols. Averaged over the ``n``
    outputs, the expected fraction of symbols right is

        score(n) = (1 / n) * sum_{r=1}^{n} E[M_r] / r,

    computed exactly, with ``E[M_r] = sum_{m<r} P(M_r > m)`` and
    ``P(M_r <= m) = W_m(r) / K^r``, where ``W_m(r)`` counts the sequences of
    ``r`` symbols from ``K = n_symbols`` in which no symbol occurs more than
    ``m`` times (built symbol by symbol: ``sum_c C(r, c) W'(r - c)``, the
    multinomial count). Uniform guessing scores ``1 / K``; this score is
    higher (1 at ``n = 1``). A copy score below it does not show copying by
    position; one above it needs order, and does not by itself show copying
    by position either.

    Args:
        n_tokens: ``n``, the number of symbols to copy (>= 1).
        n_symbols: ``K``, the size of the symbol alphabet (>= 2).

    Returns:
        The score, a fraction in ``(1 / K, 1]``.
    """
    n = check_positive_int("n_tokens", n_tokens)
    k = check_positive_int("n_symbols", n_symbols)
    if k < 2:
        raise ValueError(f"n_symbols must be at least 2, got {k}")
    expected_max = [Fraction(0)] * (n + 1)  # E[M_r], r = 0..n
    for m in range(n):
        ways = [1] + [0] * n  # W_m(r) over no symbols: only the empty sequence
        for _ in range(k):
            ways = [sum(comb(r, c) * ways[r - c] for c in range(min(m, r) + 1)) for r in range(n + 1)]
        for r in range(m + 1, n + 1):
            expected_max[r] += 1 - Fraction(ways[r], k**r)  # P(M_r > m)
    return float(sum(expected_max[r] / r for r in range(1, n + 1)) / n)


def recall(
    n_seqs: int,
    n_pairs: int,
    *,
    n_keys: int = N_KEYS,
    n_values: int = N_VALUES,
    n_queries: int = N_QUERIES,
    n_filler: int = 0,
    generator: torch.Generator | None = None,
) -> Batch:
    """Multi-query associative recall: key-value pairs first, then queries.

    After Zoology's multi-query associative recall (MQAR; Arora et al., 2023,
    "Zoology: Measuring and Improving Recall in Efficient Language Models",
    section 3.1), with two changes. MQAR writes each pair as two tokens,
    ``k_1 v_1 k_2 v_2 ...``; here each pair is one token, ``p = k * n_values
    + v``, so the sequence is::

        p_1 p_2 .. p_P   f .. f   q_1 a_1   q_2 a_2  ..  q_Q a_Q

    with ``P = n_pairs`` distinct keys drawn without replacement from
    ``0 .. n_keys-1``, i.i.d. uniform values, and ``Q = n_queries`` queries
    that ask for ``Q`` distinct keys of the sequence, in random order.
    Query ``q_j`` is the token ``n_keys * n_values + k``, its answer ``a_j``
    the token ``n_keys * n_values + n_keys + v`` of that key's value; the
    target after ``q_j`` is ``a_j``, and only these ``Q`` targets are scored.
    Between the pairs and the queries come ``n_filler`` copies of one filler
    token ``f``, the id ``n_keys * n_values + n_keys + n_values``, which
    carry no information about keys or values (their count can tell the
    model how many pairs came before) and move every query ``n_filler`` tokens further
    from every key. The vocabulary has
    ``n_keys * n_values + n_keys + n_values + 1`` ids (``vocab_size("recall")``).

    Why fused pairs: with two tokens per pair the model must first bind each
    value to the key before it (an induction-style two-layer circuit); at
    chapter 8's size (width 32, 2 heads, 2 layers) that was not learned in
    3000 steps in a probe with 32 keys and 8 values (loss about 1.4, against
    the chance level ``ln 8 = 2.08``; the probe is not part of the book),
    whereas fused pairs leave one retrieval step: the query attends to the
    pair token of its key and reads the value there. Fusing removes MQAR's
    binding of a value to the key before it, and with it any need for
    position inside the context: the lookup is by content alone. The
    query-to-key distance runs from ``n_filler + 1`` to
    ``P + n_filler + 2Q - 2`` tokens, so a recency prior does not help; whether it
    hurts depends on how far the tested lengths reach.

    Args:
        n_seqs: number of sequences (>= 1).
        n_pairs: ``P``, pairs per sequence (``n_queries <= P <= n_keys``:
            keys are distinct, so ``n_keys`` bounds the length).
        n_keys, n_values: sizes of the key and value alphabets (>= 2 each).
        n_queries: queries per sequence (>= 1).
        n_filler: ``F``, filler tokens between the pairs and the queries (>= 0).
        generator: source of randomness.

    Returns:
        ``Batch`` with inputs of length ``P + F + 2Q - 1``; ``loss_mask`` is
        True at the ``Q`` query positions ``P + F, P + F + 2, .., P + F + 2Q - 2``.

    Raises:
        TypeError: for a non-integer size or a bad ``generator``.
        ValueError: for sizes that break the rules above.
    """
    n_seqs = check_positive_int("n_seqs", n_seqs)
    n_pairs = check_positive_int("n_pairs", n_pairs)
    n_keys = check_positive_int("n_keys", n_keys)
    n_values = check_positive_int("n_values", n_values)
    n_queries = check_positive_int("n_queries", n_queries)
    n_filler = check_nonneg_int("n_filler", n_filler)
    if min(n_keys, n_values) < 2:
        raise ValueError(f"n_keys and n_values must be at least 2, got {n_keys} and {n_values}")
    if not n_queries <= n_pairs <= n_keys:
        raise ValueError(
            f"n_pairs must be between n_queries ({n_queries}) and n_keys ({n_keys}) (distinct keys, "
            f"distinct queries), got {n_pairs}"
        )
    generator = _check_generator(generator)
    keys = torch.rand(n_seqs, n_keys, generator=generator).argsort(1)[:, :n_pairs]  # distinct, per row
    values = torch.randint(n_values, (n_seqs, n_pairs), generator=generator)
    asked = torch.rand(n_seqs, n_pairs, generator=generator).argsort(1)[:, :n_queries]
    pair_ids = n_keys * n_values
    queries = keys.gather(1, asked) + pair_ids
    answers = values.gather(1, asked) + pair_ids + n_keys
    filler = torch.full((n_seqs, n_filler), pair_ids + n_keys + n_values)
    seq = torch.cat((keys * n_values + values, filler, torch.stack((queries, answers), 2).flatten(1)), 1)
    mask = torch.zeros(n_seqs, seq.shape[1] - 1, dtype=torch.bool)
    mask[:, n_pairs + n_filler :: 2] = True
    return Batch(seq[:, :-1], seq[:, 1:], mask)


def vocab_size(
    task: str,
    *,
    modulus: int = MODULUS,
    n_symbols: int = N_SYMBOLS,
    n_keys: int = N_KEYS,
    n_values: int = N_VALUES,
) -> int:
    """The number of token ids a task's batches use: what a model on it must embed.

    ``"local_sum"`` and ``"fibonacci"``: the tokens are ``0 .. modulus-1``;
    ``"copy"``: the symbols ``0 .. n_symbols-1`` plus ``BOS = n_symbols`` and
    ``SEP = n_symbols + 1``; ``"recall"``: ``n_keys * n_values`` pair tokens,
    ``n_keys`` query tokens, ``n_values`` answer tokens and one filler token. With the defaults
    these are the sizes of the batches that ``local_sum``, ``fibonacci_mod``,
    ``copy_task`` and ``recall`` draw with their own defaults
    (``book.experiments.Config.vocab_size`` reads it).

    Raises:
        ValueError: for an unknown task, or a modulus or alphabet below 2.
        TypeError: if a size is not an integer.
    """
    if task not in TASK_NAMES:
        raise ValueError(f"task must be one of {', '.join(map(repr, TASK_NAMES))}, got {task!r}")
    sizes = {"modulus": modulus, "n_symbols": n_symbols, "n_keys": n_keys, "n_values": n_values}
    for name, value in sizes.items():
        if check_positive_int(name, value) < 2:
            raise ValueError(f"{name} must be at least 2, got {value}")
    if task == "recall":
        return n_keys * n_values + n_keys + n_values + 1
    return n_symbols + 2 if task == "copy" else modulus


#: ``split_class``'s hash: ``h <- (h * base + token + 1) mod modulus``, token by token.
_HASH_BASE, _HASH_MODULUS = 1_000_003, 2_147_483_647
#: The hash classes (``split_class`` of ``N_SPLIT_CLASSES``) that each split of a
#: task's inputs draws from when they are split (``book.experiments.Config.split_inputs``):
#: 1/8 of the input space for test inputs, 1/8 for validation, 3/4 for training.
SPLIT_CLASSES = {"test": (0,), "validation": (1,), "train": (2, 3, 4, 5, 6, 7)}
#: How many hash classes ``split_class`` sorts an input into for the splits.
N_SPLIT_CLASSES = 8
#: How many times ``draw_split`` draws before it gives up.
MAX_DRAWS = 1000


def split_class(inputs: torch.Tensor, n_classes: int) -> torch.Tensor:
    """Each row's class, ``0 .. n_classes - 1``: a hash of its tokens modulo ``n_classes``.

    The hash is polynomial, ``h <- (h * 1000003 + token + 1) mod (2^31 - 1)``
    over the row's tokens in order from ``h = 0``, so two rows with the same
    tokens always share a class. The hash is linear in the tokens: changing
    one token by a fixed amount shifts the class by a nearly fixed step, so
    the classes are not independent of the rows' structure, only spread
    over them. Splitting the inputs of a task by class makes training,
    validation and test inputs disjoint by construction (``draw_split``;
    ``book.experiments.Config.split_inputs``); each split is the task's
    distribution restricted to its classes.

    Args:
        inputs: ``(n_seqs, length)`` integer tokens, ``length >= 1``.
        n_classes: number of classes (>= 1).

    Returns:
        ``(n_seqs,)`` int64 classes.

    Raises:
        TypeError: if ``inputs`` is not an integer tensor of 2 dimensions.
        ValueError: for an empty row or negative tokens.
    """
    n_classes = check_positive_int("n_classes", n_classes)
    if not isinstance(inputs, torch.Tensor) or inputs.dim() != 2 or inputs.is_floating_point() or inputs.is_complex():
        raise TypeError("inputs must be a 2-D integer tensor (n_seqs, length)")
    if inputs.shape[1] == 0:
        raise ValueError("inputs must hold at least one token per row")
    if inputs.numel() and int(inputs.min()) < 0:
        raise ValueError("inputs must be token ids >= 0")
    # The docstring's loop in one pass: h = sum over t of (token_t + 1) *
    # base^(length - 1 - t), mod the modulus (each product is below 2^62, the
    # sum of reduced terms below 2^31 * length).
    length = inputs.shape[1]
    weights = torch.tensor([pow(_HASH_BASE, length - 1 - t, _HASH_MODULUS) for t in range(length)])
    terms = (inputs.to(torch.int64) + 1) % _HASH_MODULUS * weights % _HASH_MODULUS
    return terms.sum(1) % _HASH_MODULUS % n_classes


def draw_split(draw: Callable[[int], Batch], n_seqs: int, split: str, *, prefix: int) -> Batch:
    """``n_seqs`` rows drawn by ``draw`` whose first ``prefix`` inputs are in ``split``.

    ``split`` is ``"train"``, ``"validation"`` or ``"test"``. Calls
    ``draw(k)`` again and again (``k`` about 1.25 times the rows the split
    is expected to need for ``n_seqs``), keeps the rows whose
    ``split_class(inputs[:, :prefix], N_SPLIT_CLASSES)`` is one of
    ``SPLIT_CLASSES[split]``, and returns the first ``n_seqs`` kept, in the
    order drawn. A row shorter than ``prefix`` is hashed whole. The class of
    a row depends on its tokens alone, so rows of two splits are never
    equal, and neither are their first ``prefix`` tokens: held out by
    construction, whatever the generators.

    Raises:
        ValueError: for an unknown ``split``, a ``prefix`` below 1, or fewer
            than ``n_seqs`` rows after ``MAX_DRAWS`` draws (an input space
            too small for the split).
    """
    n_seqs = check_positive_int("n_seqs", n_seqs)
    prefix = check_positive_int("prefix", prefix)
    if split not in SPLIT_CLASSES:
        raise ValueError(f"split must be one of {', '.join(map(repr, SPLIT_CLASSES))}, got {split!r}")
    wanted = torch.zeros(N_SPLIT_CLASSES, dtype=torch.bool)
    wanted[list(SPLIT_CLASSES[split])] = True
    # draws of about 1.25 times the rows expected to be needed, so that one is usually enough
    size = -(-n_seqs * N_SPLIT_CLASSES * 5 // (4 * len(SPLIT_CLASSES[split])))
    kept: list[Batch] = []
    have, length = 0, None
    for _ in range(MAX_DRAWS):
        batch = draw(size)
        length = batch.inputs.shape[1]
        keep = wanted[split_class(batch.inputs[:, :prefix], N_SPLIT_CLASSES)]
        kept.append(Batch(*(t[keep] for t in batch)))
        have += int(keep.sum())
        if have >= n_seqs:
            return Batch(*(torch.cat(parts)[:n_seqs] for parts in zip(*kept)))
    raise ValueError(
        f"only {have} of {n_seqs} rows of {length} tokens fell in the {split} split (classes of their first "
        f"{prefix} tokens) after {MAX_DRAWS} draws: the input space is too small for it"
    )
