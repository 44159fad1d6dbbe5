"""Tests of book.tasks: each task's rule, the held-out splits (proven held out by
tests that fail on a leaking generator), the training batches, and bad input."""

from __future__ import annotations

import pytest
import torch

from book import models, tasks


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_fibonacci_mod_follows_its_rule():
    b = tasks.fibonacci_mod(5, 12, modulus=7, generator=gen())
    seq = torch.cat((b.inputs, b.targets[:, -1:]), dim=1)
    assert b.inputs.shape == b.targets.shape == b.loss_mask.shape == (5, 12)
    assert torch.equal(b.targets[:, :-1], b.inputs[:, 1:])
    assert torch.equal(seq[:, 2:], (seq[:, 1:-1] + seq[:, :-2]) % 7)
    assert not b.loss_mask[:, 0].any() and b.loss_mask[:, 1:].all()
    assert torch.equal(tasks.fibonacci_mod(5, 12, modulus=7, generator=gen()).inputs, b.inputs)


def test_fibonacci_mod_without_starts_draws_as_before():
    """``starts=None`` keeps the original draws, so existing seeds give the same data."""
    g = gen(4)
    first = torch.randint(10, (6, 2), generator=g)
    assert torch.equal(tasks.fibonacci_mod(6, 9, generator=gen(4)).inputs[:, :2], first)
    assert torch.equal(
        tasks.fibonacci_mod(6, 9, starts=None, generator=gen(4)).inputs,
        tasks.fibonacci_mod(6, 9, generator=gen(4)).inputs,
    )


def test_fibonacci_split_is_a_partition_and_starts_are_respected():
    train, held = tasks.fibonacci_split(20, generator=gen(5))
    assert train.shape == (80, 2) and held.shape == (20, 2)
    pairs = {tuple(p) for p in train.tolist()} | {tuple(p) for p in held.tolist()}
    assert len(pairs) == 100 and pairs == {(a, b) for a in range(10) for b in range(10)}
    b = tasks.fibonacci_mod(500, 12, starts=held, generator=gen(1))
    assert {tuple(p) for p in b.inputs[:, :2].tolist()} <= {tuple(p) for p in held.tolist()}
    seq = torch.cat((b.inputs, b.targets[:, -1:]), dim=1)
    assert torch.equal(seq[:, 2:], (seq[:, 1:-1] + seq[:, :-2]) % 10)  # still the rule


def _held_out_leaks(make_train_batch, test, steps=400, seed=0):
    """How many test inputs are among the inputs ``models.train`` would train on."""
    seen = tasks.training_inputs(make_train_batch, steps, seed=seed)
    return sum(tuple(row) in seen for row in test.inputs.tolist())


def test_fibonacci_held_out_data_are_never_trained_on_and_the_check_catches_leaks():
    """The chapter 5 set-up: training batches from the training starts, test data from the
    held-out starts. The same check flags a generator that ignores the split, and a split
    that leaks a single pair into both sets."""
    train, held = tasks.fibonacci_split(20, generator=gen(5))
    test = tasks.fibonacci_mod(1000, 32, starts=held, generator=gen(123))

    def honest(g):
        return tasks.fibonacci_mod(32, 32, starts=train, generator=g)

    assert len(tasks.training_inputs(honest, 400, seed=0)) == 80
    assert _held_out_leaks(honest, test) == 0

    def ignores_split(g):  # sabotaged: draws every first pair
        return tasks.fibonacci_mod(32, 32, generator=g)

    assert _held_out_leaks(ignores_split, test) == len(test.inputs)

    leaky = torch.cat([train, held[:1]])  # sabotaged: one held-out pair trained on

    def leaks_one(g):
        return tasks.fibonacci_mod(32, 32, starts=leaky, generator=g)

    assert 0 < _held_out_leaks(leaks_one, test) < len(test.inputs)


def test_fibonacci_held_out_pairs_never_stand_at_the_same_position_in_training():
    """The docstring's claim: the pair at position t is the first pair moved t steps, one to one."""
    train, held = tasks.fibonacci_split(20, generator=gen(5))

    def placed(starts):  # every start once: (t, x_t, x_{t+1})
        rows = [tasks.fibonacci_mod(1, 40, starts=[p], generator=gen()).inputs[0].tolist() for p in starts.tolist()]
        return {(t, a, b) for row in rows for t, (a, b) in enumerate(zip(row, row[1:]))}

    assert not placed(train) & placed(held)
    assert {c[1:] for c in placed(held)} & {c[1:] for c in placed(train)}  # other positions: shared


def test_training_inputs_are_the_batches_models_train_draws():
    drawn = []

    def make(g):
        batch = tasks.local_sum(4, 6, generator=g)
        drawn.extend(tuple(r) for r in batch.inputs.tolist())
        return batch

    model = models.TinyTransformer(10, position="none", d_model=8, n_heads=2, n_layers=1, seed=0)
    models.train(model, make, steps=3, seed=7)
    assert tasks.training_inputs(lambda g: tasks.local_sum(4, 6, generator=g), 3, seed=7) == set(drawn)
    assert tasks.training_inputs(lambda g: tasks.local_sum(4, 6, generator=g), 3, seed=7, length=2) == {
        r[:2] for r in drawn
    }


def test_copy_task_layout_and_mask():
    b = tasks.copy_task(4, 5, n_symbols=6, generator=gen(1))
    seq = torch.cat((b.inputs[:, :1], b.targets), dim=1)  # the whole sequence
    assert seq.shape == (4, 12)
    assert (seq[:, 0] == 6).all() and (seq[:, 6] == 7).all()  # BOS, SEP
    assert torch.equal(seq[:, 1:6], seq[:, 7:])
    assert b.loss_mask.sum(1).tolist() == [5] * 4
    assert torch.equal(b.targets[b.loss_mask].view(4, 5), seq[:, 1:6])
    # the target at input position t = n + j is x_j, which sits at input position j: n = 5 back
    n = 5
    for j in range(1, n + 1):
        assert b.loss_mask[:, n + j].all() and torch.equal(b.targets[:, n + j], b.inputs[:, j])


def test_copy_order_free_floor_is_what_a_bag_of_symbols_guess_scores():
    # small cases by hand: one symbol is always right; two of two symbols
    assert tasks.copy_order_free_accuracy(1) == 1.0
    assert tasks.copy_order_free_accuracy(2, n_symbols=2) == pytest.approx((1 + 0.75) / 2)
    assert tasks.copy_order_free_accuracy(2) == pytest.approx((1 + 0.55) / 2)  # pair repeats 1 in 10
    # and against the guess itself on copy_task's data: at each output, the most
    # common symbol not yet copied (ties split), scored on the true next symbol
    n, k = 9, 10
    b = tasks.copy_task(4000, n, n_symbols=k, generator=gen(5))
    x = b.targets[b.loss_mask].view(-1, n)  # the symbols to copy, in order
    right = torch.zeros(())
    for j in range(n):
        left = torch.nn.functional.one_hot(x[:, j:], k).sum(1)  # counts still to copy
        best = left == left.max(1, keepdim=True).values
        right += (best.gather(1, x[:, j : j + 1]).squeeze(1) / best.sum(1)).mean()
    assert float(right / n) == pytest.approx(tasks.copy_order_free_accuracy(n, n_symbols=k), abs=0.01)
    floors = [tasks.copy_order_free_accuracy(m) for m in range(1, 22)]
    assert all(a > b_ > 0.1 for a, b_ in zip(floors, floors[1:]))  # falls with n, above 1 / 10


def test_copy_order_free_score_equals_enumerating_every_sequence():
    # exact, by brute force: every sequence of n symbols from k, and at each
    # output the guess's chance, the top count over the count still to copy
    from fractions import Fraction
    from itertools import product

    for n, k in ((3, 2), (4, 3), (5, 3), (4, 4)):
        total = Fraction(0)
        for seq in product(range(k), repeat=n):
            total += sum(Fraction(max(seq[j:].count(s) for s in range(k)), n - j) for j in range(n))
        exact = total / (n * k**n)
        assert tasks.copy_order_free_accuracy(n, n_symbols=k) == pytest.approx(float(exact), abs=1e-12)


def test_local_sum_follows_its_rule():
    b = tasks.local_sum(50, 20, offsets=(0, 2, 5), modulus=7, generator=gen(3))
    x = b.inputs
    assert x.shape == b.targets.shape == b.loss_mask.shape == (50, 20)
    for t in range(5, 20):  # written out, target by target
        assert torch.equal(b.targets[:, t], (x[:, t] + x[:, t - 2] + x[:, t - 5]) % 7)
    assert not b.loss_mask[:, :5].any() and b.loss_mask[:, 5:].all()
    assert int(x.min()) == 0 and int(x.max()) == 6  # i.i.d. over the whole alphabet
    counts = torch.bincount(x.flatten(), minlength=7).double() / x.numel()
    assert float((counts - 1 / 7).abs().max()) < 0.03
    default = tasks.local_sum(4, 6, generator=gen())
    assert torch.equal(default.targets[:, 1:], (default.inputs[:, 1:] + default.inputs[:, :-1]) % 10)
    assert torch.equal(tasks.local_sum(4, 6, generator=gen()).inputs, default.inputs)


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda: tasks.local_sum(2, 3, offsets=(0, 3)), ValueError, "length must exceed the largest offset"),
        (lambda: tasks.local_sum(2, 5, offsets=()), ValueError, "offsets must be a non-empty sequence"),
        (lambda: tasks.local_sum(2, 5, offsets=3), TypeError, "offsets must be a sequence"),
        (lambda: tasks.local_sum(2, 5, offsets=(1, 1)), ValueError, "offsets must be distinct integers >= 0"),
        (lambda: tasks.local_sum(2, 5, offsets=(-1, 0)), ValueError, r"offsets\[0\] must be a non-negative integer"),
        (lambda: tasks.local_sum(2, 5, offsets=(0, 1.5)), TypeError, r"offsets\[1\] must be an integer"),
        (lambda: tasks.local_sum(2, 5, modulus=1), ValueError, "modulus must be at least 2"),
        (lambda: tasks.local_sum(0, 5), ValueError, "n_seqs must be a positive integer"),
        (lambda: tasks.local_sum(2, 5, generator=1), TypeError, "generator must be a torch.Generator"),
        (lambda: tasks.fibonacci_mod(2, 1), ValueError, "length must be at least 2"),
        (lambda: tasks.fibonacci_mod(0, 5), ValueError, "n_seqs must be a positive integer"),
        (lambda: tasks.fibonacci_mod(2, 5, modulus=1), ValueError, "modulus must be at least 2"),
        (lambda: tasks.fibonacci_mod(2, 5, generator=0), TypeError, "generator must be a torch.Generator"),
        (lambda: tasks.fibonacci_mod(2, 5, starts=[[1, 2, 3]]), ValueError, r"starts must be a non-empty \(n, 2\)"),
        (lambda: tasks.fibonacci_mod(2, 5, starts=[]), ValueError, r"starts must be a non-empty \(n, 2\)"),
        (lambda: tasks.fibonacci_mod(2, 5, starts=[[1, 10]]), ValueError, r"starts must lie in 0 \.\. modulus-1"),
        (lambda: tasks.fibonacci_mod(2, 5, starts=[[0.5, 1.0]]), TypeError, "starts must hold integers"),
        (lambda: tasks.fibonacci_mod(2, 5, starts="ab"), TypeError, "starts must be an"),
        (lambda: tasks.fibonacci_split(100), ValueError, "n_held_out must leave some training pairs"),
        (lambda: tasks.fibonacci_split(0), ValueError, "n_held_out must be a positive integer"),
        (lambda: tasks.fibonacci_split(2, generator=3), TypeError, "generator must be a torch.Generator"),
        (lambda: tasks.training_inputs(lambda g: None, 0, seed=0), ValueError, "steps must be a positive integer"),
        (lambda: tasks.copy_task(2, 0), ValueError, "n_tokens must be a positive integer"),
        (lambda: tasks.copy_task(2, 3, n_symbols=1), ValueError, "n_symbols must be at least 2"),
        (lambda: tasks.copy_order_free_accuracy(0), ValueError, "n_tokens must be a positive integer"),
        (lambda: tasks.copy_order_free_accuracy(3, n_symbols=1), ValueError, "n_symbols must be at least 2"),
        (lambda: tasks.copy_order_free_accuracy(3.0), TypeError, "n_tokens must be an integer"),
        (lambda: tasks.recall(2, 3), ValueError, r"n_pairs must be between n_queries \(4\) and n_keys \(32\)"),
        (lambda: tasks.recall(2, 33), ValueError, "n_pairs must be between"),
        (lambda: tasks.recall(2, 4, n_values=1), ValueError, "n_keys and n_values must be at least 2"),
        (lambda: tasks.recall(2, 4, n_queries=0), ValueError, "n_queries must be a positive integer"),
        (lambda: tasks.recall(2, 4.0), TypeError, "n_pairs must be an integer"),
        (lambda: tasks.recall(2, 4, generator=5), TypeError, "generator must be a torch.Generator"),
        (lambda: tasks.vocab_size("recall", n_keys=1), ValueError, "n_keys must be at least 2"),
    ],
)
def test_task_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_recall_layout_rule_and_mask():
    """Fused pairs p = k * V + v, then (query, answer) pairs; keys distinct in a
    sequence, queries distinct keys of it; each scored target is the value of
    the queried key, and only those are scored."""
    K, V, Q, P = 12, 3, 3, 7
    b = tasks.recall(200, P, n_keys=K, n_values=V, n_queries=Q, generator=gen(2))
    assert b.inputs.shape == (200, P + 2 * Q - 1) == b.targets.shape == b.loss_mask.shape
    seq = torch.cat((b.inputs, b.targets[:, -1:]), 1)
    assert torch.equal(b.targets[:, :-1], b.inputs[:, 1:])  # next-token targets
    pairs, tail = seq[:, :P], seq[:, P:]
    keys, values = pairs // V, pairs % V
    assert int(pairs.max()) < K * V
    assert all(len(set(row)) == P for row in keys.tolist())  # distinct keys
    queries, answers = tail[:, 0::2] - K * V, tail[:, 1::2] - K * V - K
    assert int(queries.min()) >= 0 and int(queries.max()) < K and int(answers.min()) >= 0 and int(answers.max()) < V
    for k_row, v_row, q_row, a_row in zip(keys.tolist(), values.tolist(), queries.tolist(), answers.tolist()):
        assert len(set(q_row)) == Q and set(q_row) <= set(k_row)
        assert a_row == [v_row[k_row.index(q)] for q in q_row]
    expected = torch.zeros(P + 2 * Q - 1, dtype=torch.bool)
    expected[P::2] = True
    assert torch.equal(b.loss_mask, expected.expand(200, -1))
    assert torch.equal(b.targets[b.loss_mask].view(200, Q), tail[:, 1::2])
    again = tasks.recall(200, P, n_keys=K, n_values=V, n_queries=Q, generator=gen(2))
    assert torch.equal(again.inputs, b.inputs)


def test_recall_filler_sits_between_the_pairs_and_the_queries():
    """n_filler copies of the last id between the pairs and the queries; the
    rest of the sequence, the rule and the scored targets are unchanged."""
    K, V, Q, P, F = 12, 3, 3, 7, 11
    plain = tasks.recall(50, P, n_keys=K, n_values=V, n_queries=Q, generator=gen(4))
    b = tasks.recall(50, P, n_keys=K, n_values=V, n_queries=Q, n_filler=F, generator=gen(4))
    assert b.inputs.shape == (50, P + F + 2 * Q - 1)
    seq, plain_seq = (torch.cat((x.inputs, x.targets[:, -1:]), 1) for x in (b, plain))
    filler = tasks.vocab_size("recall", n_keys=K, n_values=V) - 1
    assert filler == K * V + K + V
    assert bool((seq[:, P : P + F] == filler).all()) and int((seq == filler).sum()) == 50 * F
    assert torch.equal(torch.cat((seq[:, :P], seq[:, P + F :]), 1), plain_seq)
    assert torch.equal(b.targets[b.loss_mask], plain.targets[plain.loss_mask])
    assert b.loss_mask.nonzero()[:, 1].unique().tolist() == list(range(P + F, P + F + 2 * Q - 1, 2))
    with pytest.raises(ValueError, match="n_filler"):
        tasks.recall(2, 4, n_filler=-1)
    with pytest.raises(TypeError, match="n_filler"):
        tasks.recall(2, 4, n_filler=1.5)


def test_recall_uses_every_id_of_its_vocabulary_and_draws_uniformly():
    b = tasks.recall(4000, 8, n_filler=1, generator=gen(3))
    used = torch.cat((b.inputs.flatten(), b.targets.flatten())).unique()
    assert used.tolist() == list(range(tasks.vocab_size("recall")))
    assert tasks.vocab_size("recall") == 32 * 4 + 32 + 4 + 1
    assert tasks.vocab_size("recall", n_keys=5, n_values=3) == 24
    keys = (b.inputs[:, :8] // 4).flatten()
    counts = torch.bincount(keys, minlength=32).double() / len(keys)
    assert float((counts - 1 / 32).abs().max()) < 0.01  # every key equally likely


def test_split_class_is_the_polynomial_hash_its_docstring_gives():
    def by_the_docstring(rows, n_classes):
        h = torch.zeros(rows.shape[0], dtype=torch.int64)
        for token in rows.unbind(1):
            h = (h * 1_000_003 + token + 1) % (2**31 - 1)
        return h % n_classes

    g = torch.Generator().manual_seed(3)
    for length in (1, 3, 32, 128, 300):
        rows = torch.randint(1000, (64, length), generator=g)
        for n_classes in (8, 1_000_003):
            assert torch.equal(tasks.split_class(rows, n_classes), by_the_docstring(rows, n_classes))


def test_split_class_is_a_function_of_the_tokens_alone():
    g = torch.Generator().manual_seed(0)
    rows = torch.randint(10, (500, 12), generator=g)
    classes = tasks.split_class(rows, 8)
    assert classes.shape == (500,) and classes.dtype == torch.int64
    assert set(classes.tolist()) == set(range(8))  # every class is used
    assert torch.equal(tasks.split_class(rows.flip(0), 8), classes.flip(0))  # row by row
    assert torch.equal(tasks.split_class(rows.clone(), 8), classes)
    # about 1/8 of the rows in each class (500 rows: 62.5 expected; 4 standard deviations)
    counts = torch.bincount(classes, minlength=8)
    assert int(counts.min()) > 62.5 - 4 * 7.4 and int(counts.max()) < 62.5 + 4 * 7.4
    # a change to one token moves a row
    moved = rows.clone()
    moved[:, 5] = (moved[:, 5] + 1) % 10
    assert (tasks.split_class(moved, 8) != classes).float().mean() > 0.75


def test_draw_split_keeps_the_rows_of_its_classes_in_order():
    g = torch.Generator().manual_seed(1)
    got = tasks.draw_split(lambda k: tasks.local_sum(k, 16, generator=g), 40, "validation", prefix=8)
    assert got.inputs.shape == (40, 16) and got.targets.shape == got.loss_mask.shape == (40, 16)
    assert set(tasks.split_class(got.inputs[:, :8], tasks.N_SPLIT_CLASSES).tolist()) == {1}
    again = torch.Generator().manual_seed(1)
    drawn = [tasks.local_sum(400, 16, generator=again) for _ in range(3)]  # draws of 1.25 * 40 * 8 rows
    keep = tasks.split_class(torch.cat([b.inputs for b in drawn])[:, :8], tasks.N_SPLIT_CLASSES) == 1
    for field, got_field in zip(zip(*drawn), got):
        assert torch.equal(got_field, torch.cat(field)[keep][:40])  # the first 40 kept, as drawn

    def rows(split):
        return set(
            map(tuple, tasks.draw_split(lambda k: tasks.local_sum(k, 3, generator=g), 200, split, prefix=3)[0].tolist())
        )

    splits = {name: rows(name) for name in ("train", "validation", "test")}
    assert len(splits["test"]) > 50  # of the 1000 inputs of 3 digits, about 125 are test inputs
    assert not (splits["train"] & splits["validation"]) and not (splits["train"] & splits["test"])
    assert not (splits["validation"] & splits["test"])


@pytest.mark.parametrize(
    ("call", "exc", "message"),
    [
        (lambda: tasks.split_class(torch.zeros(3, 2), 8), TypeError, "inputs must be a 2-D integer tensor"),
        (lambda: tasks.split_class(torch.zeros(3, dtype=torch.long), 8), TypeError, "2-D integer"),
        (lambda: tasks.split_class(torch.zeros(3, 0, dtype=torch.long), 8), ValueError, "at least one token"),
        (lambda: tasks.split_class(-torch.ones(3, 2, dtype=torch.long), 8), ValueError, "token ids >= 0"),
        (lambda: tasks.split_class(torch.zeros(3, 2, dtype=torch.long), 0), ValueError, "n_classes"),
        (
            lambda: tasks.draw_split(lambda k: tasks.local_sum(k, 4), 4, "dev", prefix=2),
            ValueError,
            "split must be one of",
        ),
        (lambda: tasks.draw_split(lambda k: tasks.local_sum(k, 4), 4, "test", prefix=0), ValueError, "prefix"),
    ],
)
def test_split_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_draw_split_stops_clearly_when_no_input_is_in_the_split():
    zeros = torch.zeros(1, 3, dtype=torch.long)
    cls = int(tasks.split_class(zeros, tasks.N_SPLIT_CLASSES))
    split = next(name for name, classes in tasks.SPLIT_CLASSES.items() if cls not in classes)
    one_input = lambda k: tasks.Batch(zeros.expand(k, 3), zeros.expand(k, 3), zeros.expand(k, 3).bool())  # noqa: E731
    with pytest.raises(
        ValueError,
        match=f"only 0 of 4 rows of 3 tokens fell in the {split} split .classes of their first 3 tokens. after 1000 draws",
    ):
        tasks.draw_split(one_input, 4, split, prefix=3)
