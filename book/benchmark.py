"""Chapter 8's benchmark: three tasks, seven schemes, five seeds, fair training.

Three tasks meant to need different things of a position scheme
(``book.tasks``):

* ``local_sum``: a local rule (the sum of the token and the one before it),
  which favours schemes with a recency prior;
* ``recall``: multi-query associative recall (after Arora et al., 2023, with
  each pair fused into one token and four filler tokens per pair between
  the pairs and the queries), a content lookup whose query-to-key distance
  grows with the length, to 4.6 times the longest distance of training,
  where a recency prior penalises the key the query needs;
* ``copy``: ``BOS x SEP x``, from Kazemnejad et al.'s (2023) suite, which
  needs the offset ``n`` back, a distance that changes with the length.

Every (task, scheme, seed, learning rate) trains as its own job of the one
model, ``TinyTransformer`` (``book.experiments.train_model``), until the
stopping rule (mean training loss of the last 30 steps below 0.05) or the
task's step cap. For each task and scheme the learning rate is chosen from
three values by the validation loss within the training length
(``choose_lr``), never on the test lengths; a run that does not meet the stopping rule is
``excluded`` with its reason and counted in no ranking. Run it with::

    python -m book.experiments --suite                  # 3 tasks: book/results/benchmark_<task>.json
    python -m book.experiments --suite --task recall    # one task
    python -m book.experiments --suite --task local_sum --anneal rope   # chapter 9's models
    python -m book.experiments --suite --task recall --stretch rope     # recall's annealed models, scored under chapter 9's rules
    python -m book.experiments --suite --task local_sum --fine-tune rope  # local_sum's, fine-tuned at 128 tokens under each rule

Training, validation and test inputs come from disjoint hash classes of the
input space (``Config.split_inputs``), checked by ``leaked_inputs`` and
``shared_inputs``; ``untrained_buckets``, ``buckets_in_use`` and
``bucket_counts`` check T5's buckets.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import torch

from . import __version__
from ._validate import check_choice, check_nonneg_int, check_positive_int
from .encodings import t5_relative_bucket
from .experiments import (
    Config,
    _batch,
    _evaluate,
    _iterate,
    _loss_curve,
    _machine,
    _new_model,
    _score_hits,
    _train_in_worker,
    held_out_batches,
    training_batches,
)
from .mechanism import attention_on_needed, needed_keys
from .models import SCHEMES, TinyTransformer, stop_rule_met, window_mean
from .tasks import Batch

__all__ = [
    "TASKS",
    "LEARNING_RATES",
    "VAL_SEED",
    "TIE_RULE",
    "benchmark_config",
    "validation_batches",
    "validation_score",
    "validation_loss",
    "shared_inputs",
    "leaked_inputs",
    "untrained_buckets",
    "buckets_in_use",
    "bucket_counts",
    "choose_lr",
    "exclusion",
    "train_job",
    "evaluate_job",
    "run_task",
    "run_suite",
    "regeneration_change",
    "results_path",
    "suite_table",
]

#: The benchmark's tasks, in the order the suite runs them.
TASKS = ("local_sum", "recall", "copy")
#: The three peak learning rates of the sweep, per task.
LEARNING_RATES: dict[str, tuple[float, ...]] = {
    "local_sum": (0.003, 0.006, 0.012),
    "recall": (0.003, 0.006, 0.012),
    "copy": (0.003, 0.006, 0.012),
}
#: Validation data come from generators seeded ``VAL_SEED + 100_000 * seed + n``,
#: a range that neither training (``seed``) nor test data (``EVAL_SEED + seed + 1000 n``) use.
VAL_SEED = 10_000_000
#: How ``choose_lr`` picks a learning rate, in words (stored in each results file).
TIE_RULE = (
    "most seeds meeting the stopping rule, then the lowest mean validation loss over the seeds, "
    "then the smallest learning rate"
)
#: Sequences of the batches the mechanism numbers are measured on.
MECHANISM_SEQS = 64

_T5 = {"t5_buckets": 16}  # the exact range (8) below every task's longest training distance


def benchmark_config(task: str, **changes: Any) -> Config:
    """The benchmark's config of ``task``, optionally with ``changes`` (``dataclasses.replace``).

    All seven schemes, seeds 0-4, chapter 8's model (width 32, 2 heads, 2
    layers), the stopping rule of chapter 8 (mean loss of the last 30 steps
    below 0.05) and a step cap per task. T5 has 16 buckets and
    ``t5_max_distance`` equal to the longest distance in a training input,
    so every bucket used at test time is trained (``untrained_buckets``):

    * ``local_sum``: 32 tokens in training, 128 at test (4x), cap 3000 steps;
    * ``recall``: 32 keys, 4 values, 4 queries and 4 filler tokens per
      pair; 4-6 pairs in training (inputs of up to 37 tokens, query-to-key
      distances up to 36), up to 32 pairs at test (167 tokens, distances up
      to 166, 4.6x), cap 3000 steps;
    * ``copy``: ``n`` = 8-10 symbols in training (up to 21 tokens), up to
      21 at test (43 tokens, 2x), cap 6000 steps (at 3000, 13 of the 105
      runs of the sweep missed the stopping rule). Scored by the fraction of
      copied symbols right (``copy_score="symbols"``); ``evaluate_job`` also
      records the whole-copy curve (``whole_curve``).

    Training, validation and test inputs are split by a hash of their tokens
    (``split_inputs``: ``book.tasks.SPLIT_CLASSES``), so no test or
    validation input is a training input, on any seed, by construction;
    ``leaked_inputs`` and ``shared_inputs`` check it.

    Raises:
        ValueError: for a task that is not one of ``TASKS``.
    """
    task = check_choice("task", task, TASKS)
    common: dict[str, Any] = {"schemes": SCHEMES, "seeds": (0, 1, 2, 3, 4), "steps": 3000, "split_inputs": True, **_T5}
    if task == "local_sum":
        base = Config(task="local_sum", train_len=32, test_len=128, t5_max_distance=31, **common)
    elif task == "recall":
        base = Config(
            task="recall", train_len=6, test_len=32, min_len=4, filler_per_pair=4, t5_max_distance=36, **common
        )
    else:
        base = Config(
            **(common | {"steps": 6000}),
            task="copy",
            train_len=10,
            test_len=21,
            min_len=8,
            t5_max_distance=20,
            copy_score="symbols",
        )
    return dataclasses.replace(base, **changes) if changes else base


def validation_batches(config: Config, seed: int) -> list[tuple[int, Batch]]:
    """Validation data of ``seed``, within the training length, from a stream of their own.

    ``(n, batch)`` pairs of ``config.eval_seqs`` sequences: one of
    ``train_len`` tokens for ``local_sum`` and ``fibonacci``; one per ``n``
    of ``min_train_len .. train_len`` for ``copy`` and ``recall``. Each
    batch comes from a generator seeded ``VAL_SEED + 100_000 seed + n``,
    never the training's (``seed``) nor the test data's, and, with
    ``config.split_inputs``, from the validation split.
    """
    if not isinstance(config, Config):
        raise TypeError(f"config must be a book.experiments.Config, got {type(config).__name__}")
    seed = check_nonneg_int("seed", seed)
    lengths = range(config.min_train_len, config.train_len + 1)
    return [(n, _val_batch(config, seed, n)) for n in lengths]


def _val_batch(config: Config, seed: int, n: int) -> Batch:
    g = torch.Generator().manual_seed(VAL_SEED + 100_000 * seed + n)
    return _batch(config, config.eval_seqs, n, g, "validation")


def validation_score(model: TinyTransformer, config: Config, seed: int) -> float:
    """The validation score stored beside ``validation_loss``: the mean over ``validation_batches``
    of ``book.experiments.score`` (for ``copy`` as ``config.copy_score`` says:
    whole copies or copied symbols right; scored targets right otherwise)."""
    return _validation(model, config, seed)[0]


def validation_loss(model: TinyTransformer, config: Config, seed: int) -> float:
    """What ``choose_lr`` ranks by: the mean over ``validation_batches`` of the
    cross-entropy of the scored targets (the training loss, on validation
    data). Unlike the scores, which saturate near 100% at the stopping rule,
    it keeps separating the learning rates."""
    return _validation(model, config, seed)[1]


def _validation(model: TinyTransformer, config: Config, seed: int) -> tuple[float, float]:
    """``(validation_score, validation_loss)`` from one draw of the validation
    batches and one forward pass per batch."""
    batches = validation_batches(config, seed)
    scores, losses = 0.0, 0.0
    with torch.no_grad():
        for _, b in batches:
            logits = model(b.inputs)
            scores += _score_hits(logits.argmax(-1) == b.targets, b, config.task, config.copy_score)
            losses += float(torch.nn.functional.cross_entropy(logits[b.loss_mask], b.targets[b.loss_mask]))
    return scores / len(batches), losses / len(batches)


def shared_inputs(first: Iterable[Batch], second: Iterable[Batch]) -> set[tuple[int, ...]]:
    """The input rows of ``first`` that also occur in ``second``, as tuples.

    A row is compared whole with the rows of ``second`` of its own length;
    a row longer than every row of ``second`` is cut to the longest length of
    ``second`` first (so that a test input of 128 tokens counts as seen if
    its first 32 were a training input).

    Raises:
        ValueError: if ``second`` holds no row to compare with.
    """
    seen: dict[int, set[tuple[int, ...]]] = {}
    for batch in second:
        rows = batch.inputs.tolist()
        if rows:
            seen.setdefault(len(rows[0]), set()).update(map(tuple, rows))
    if not seen:
        raise ValueError("second must hold at least one batch with a row to compare with")
    longest = max(seen)
    shared: set[tuple[int, ...]] = set()
    for batch in first:
        for row in batch.inputs.tolist():
            key = tuple(row if len(row) in seen or len(row) < longest else row[:longest])
            if key in seen.get(len(key), ()):
                shared.add(key)
    return shared


def leaked_inputs(config: Config, seed: int, steps: int) -> set[tuple[int, ...]]:
    """Test inputs of ``seed`` that occur among its first ``steps`` training inputs.

    The test inputs are ``book.experiments.held_out_batches``, the training
    ones the batches ``train_model`` draws (``training_batches``); they are
    compared as ``shared_inputs`` does (whole where lengths agree, cut to
    the longest training input where the test input is longer). Empty when
    the test data are held out.

    Raises:
        TypeError: if ``config`` is not a ``Config``.
        TypeError / ValueError: for a bad ``seed`` or ``steps``.
    """
    train = training_batches(config, seed, steps)
    return shared_inputs((b for _, b in held_out_batches(config, seed)), train)


def untrained_buckets(config: Config, steps: int, seed: int = 0) -> set[int]:
    """T5 buckets that a test input uses and no training input reaches.

    In a decoder query ``i`` sees keys ``j <= i`` at distances ``i - j`` from
    0 to the input's length minus 1; a distance maps to
    ``t5_relative_bucket(-(i - j))`` with the config's ``t5_buckets`` and
    ``t5_max_distance``. The training inputs are the first ``steps`` batches
    of ``seed`` (``training_batches``), the test inputs
    ``held_out_batches``. With T5's 32 buckets and ``max_distance`` 128 at a
    training length of 32 (chapter 8's default), buckets 22-31 (distances 35
    and up) are used at test time and never trained.
    """
    longest_train = max(b.inputs.shape[1] for b in training_batches(config, seed, steps))
    longest_test = max(b.inputs.shape[1] for _, b in held_out_batches(config, check_nonneg_int("seed", seed)))
    return buckets_in_use(config, longest_test) - buckets_in_use(config, longest_train)


def buckets_in_use(config: Config, length: int) -> set[int]:
    """The T5 buckets of the causal distances ``d = 0 .. length - 1`` of one
    input (``t5_relative_bucket(-d)``, the config's buckets and max distance).
    Log-spaced buckets can hold no integer distance (with a small
    ``t5_max_distance``, a bucket may be used at no length), so a zero in
    ``bucket_counts`` is a gap in training only where this set holds it.

    Raises TypeError for a config that is not a ``Config``, TypeError or
    ValueError for a ``length`` that is not an integer >= 1.
    """
    if not isinstance(config, Config):
        raise TypeError(f"config must be a book.experiments.Config, got {type(config).__name__}")
    distance = -torch.arange(check_positive_int("length", length))
    kw = {"num_buckets": config.t5_buckets, "max_distance": config.t5_max_distance}
    return set(t5_relative_bucket(distance, bidirectional=False, **kw).tolist())


def bucket_counts(config: Config, steps: int, seed: int = 0) -> list[int]:
    """How many (query, key) pairs of training inputs fall in each T5 bucket.

    Over the first ``steps`` training batches of ``seed``
    (``training_batches``): a batch of ``b`` inputs of ``L`` tokens holds
    ``b * (L - d)`` causal pairs at distance ``d`` (``0 <= d < L``), each
    counted in bucket ``t5_relative_bucket(-d)`` of the config's
    ``t5_buckets`` and ``t5_max_distance``. A bucket that training reaches
    only rarely is barely trained even if ``untrained_buckets`` is empty;
    a bucket outside ``buckets_in_use`` at the test length counts 0 because
    no distance maps to it.
    """
    counts = torch.zeros(config.t5_buckets, dtype=torch.int64)
    for batch in training_batches(config, check_nonneg_int("seed", seed), steps):
        b, length = batch.inputs.shape
        distance = torch.arange(length)
        bucket = t5_relative_bucket(
            -distance, bidirectional=False, num_buckets=config.t5_buckets, max_distance=config.t5_max_distance
        )
        counts.index_add_(0, bucket, b * (length - distance))
    return counts.tolist()


def exclusion(record: dict[str, Any], config: Config) -> str | None:
    """Why a run is excluded from every ranking, or None if it counts: a run
    that did not meet the stopping rule within the cap."""
    if record["met_stop_rule"]:
        return None
    return (
        f"did not meet the stopping rule in {config.steps} steps: mean loss of the last "
        f"{config.stop_window} steps {record['window_loss']:.3f}, not below {config.stop_loss}"
    )


def choose_lr(sweep: Mapping[float, Sequence[dict[str, Any]]]) -> float:
    """The learning rate of the sweep that trains best within the training length.

    Args:
        sweep: for each learning rate, one record per seed with
            ``"met_stop_rule"`` and ``"validation_loss"`` (``validation_loss``).

    Returns:
        The learning rate ranked first by ``TIE_RULE``: most seeds meeting
        the stopping rule, then the lowest mean validation loss, then the
        smallest rate.

    Raises:
        ValueError: for an empty sweep or a learning rate without records.
    """
    if not sweep or any(len(records) == 0 for records in sweep.values()):
        raise ValueError("sweep must map each learning rate to at least one record")

    def rank(lr: float) -> tuple[int, float, float]:
        records = sweep[lr]
        met = sum(bool(r["met_stop_rule"]) for r in records)
        loss = sum(r["validation_loss"] for r in records) / len(records)
        return -met, loss if math.isfinite(loss) else math.inf, lr

    return min(sweep, key=rank)


def _mechanism(model: TinyTransformer, config: Config, seed: int) -> dict[str, Any]:
    """Attention on the needed keys and on the query itself, per layer and head,
    within the training length and at the longest test length."""
    g = torch.Generator().manual_seed(VAL_SEED - 1 - seed)  # its own stream
    out: dict[str, Any] = {}
    for name, n in (("within", config.train_len), ("past", config.test_len)):
        b = _batch(config, MECHANISM_SEQS, n, g, "test")
        needed = needed_keys(config.task, b, offsets=config.offsets, n_keys=config.n_keys, n_values=config.n_values)
        got = attention_on_needed(model, b, needed)
        out[name] = {k: [[round(float(x), 3) for x in row] for row in v] for k, v in got.items()}
    return out


def train_job(config: Config, scheme: str, seed: int, lr: float) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """Train one (scheme, seed, learning rate) of ``config`` and score it on
    validation data; runs in a worker.

    ``train_model`` with ``config.lr = lr``. Returns the record (steps, the
    stopping-rule verdict, ``validation_score``, ``validation_loss``, the loss curve, whether the
    run is ``excluded`` and why) and the trained weights, which
    ``evaluate_job`` tests if the sweep chooses this rate.
    """
    config = dataclasses.replace(config, lr=lr)
    model, losses, seconds = _train_in_worker(config, scheme, seed)
    trained = time.perf_counter()
    val_score, val_loss = _validation(model, config, seed)  # validation_score, validation_loss
    record: dict[str, Any] = {
        "scheme": scheme,
        "seed": seed,
        "lr": lr,
        "steps": len(losses),
        "window_loss": window_mean(losses, config.stop_window),
        "met_stop_rule": stop_rule_met(losses, config.stop_loss, config.stop_window),
        "validation": round(val_score, 4),
        "validation_loss": round(val_loss, 5),
        "loss_curve": _loss_curve(losses),
        "train_seconds": round(seconds, 2),
    }
    record["excluded"] = exclusion(record, config)
    record["validation_seconds"] = round(time.perf_counter() - trained, 2)
    return record, {k: v.detach().clone() for k, v in model.state_dict().items()}


def evaluate_job(config: Config, scheme: str, seed: int, state: dict[str, torch.Tensor]) -> dict[str, Any]:
    """Test one trained model (its weights ``state``, from ``train_job``); runs in a worker.

    Returns the test curve (``book.experiments.evaluate``; for ``copy``
    scored by symbols, also ``whole_curve``, whole copies right), the
    mechanism numbers (``book.mechanism.attention_on_needed``: ``needed``
    and ``self`` per layer and head, within and past the training length)
    and ``eval_seconds``.
    """
    torch.set_num_threads(1)
    start = time.perf_counter()
    model = _new_model(config, scheme, seed)
    model.load_state_dict(state)
    model.eval()
    whole = config.task == "copy" and config.copy_score != "whole"
    # both curves from one pass over the test data: evaluate(model, config, seed) and, for copy scored
    # by symbols, evaluate(model, dataclasses.replace(config, copy_score="whole"), seed)
    curves = _evaluate(model, config, seed, (config.copy_score, "whole") if whole else (config.copy_score,))
    return {
        "curve": curves[0],
        "whole_curve": curves[1] if whole else None,
        "mechanism": _mechanism(model, config, seed) if config.task in TASKS else None,
        "eval_seconds": round(time.perf_counter() - start, 2),
    }


def _pool(workers: int, start_method: str) -> ProcessPoolExecutor | None:
    """``workers`` processes started by ``start_method``, or None for one worker (run in this process)."""
    if workers == 1:
        return None
    if start_method == "fork":
        import torch._dynamo  # noqa: F401  (the optimizer imports it; do it once, before forking)
    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context(start_method))


def run_task(
    config: Config,
    *,
    learning_rates: Sequence[float] | Mapping[str, Sequence[float]],
    workers: int = 2,
    progress: bool = True,
    start_method: str = "spawn",
    every_rate: bool = False,
) -> dict[str, Any]:
    """Run the sweep of one task's config and return its results as a JSON-ready dict.

    ``learning_rates`` is one list for every scheme, or a list per scheme
    (for example each scheme's chosen rate alone). Every (scheme,
    seed, learning rate) is a job of its own (``train_job``),
    in ``workers`` processes with one thread each. For each scheme
    ``choose_lr`` picks the rate, and that rate's models are tested
    (``evaluate_job``); ``runs`` holds their records in the shape
    ``book.experiments.run`` returns (so ``within_and_past``, ``by_range``
    and ``summary_table`` read it, leaving out ``excluded`` runs), ``sweep``
    every rate's validation score and loss, steps, stopping-rule verdict and
    exclusion per seed, and ``t5_bucket_counts`` T5's ``bucket_counts`` for
    the first seed.

    With ``every_rate``, the models of every rate are tested, not only the
    chosen rate's: ``sweep[scheme][lr]`` then also holds each seed's test
    ``curve`` (and ``whole_curve`` for ``copy``), to measure how far the
    choice of rate moves a result.
    """
    workers = check_positive_int("workers", workers)
    check_choice("start_method", start_method, ("spawn", "fork", "forkserver"))
    per_scheme: Mapping[str, Sequence[float]] = (
        learning_rates if isinstance(learning_rates, Mapping) else dict.fromkeys(config.schemes, learning_rates)
    )
    if set(per_scheme) != set(config.schemes):
        raise ValueError(
            f"learning_rates must give rates for the schemes {list(config.schemes)}, got {list(per_scheme)}"
        )
    rates_of = {s: [float(lr) for lr in per_scheme[s]] for s in config.schemes}
    for scheme, rates in rates_of.items():
        if not rates or len(set(rates)) != len(rates) or min(rates) <= 0:
            raise ValueError(f"learning_rates of {scheme} must be distinct positive numbers, at least one, got {rates}")
    # slow schemes first, so that the workers finish together
    order = sorted(config.schemes, key=lambda s: s not in ("none", "rope_nope", "alibi"))
    jobs = [(s, seed, lr) for s in order for lr in rates_of[s] for seed in config.seeds]
    start = time.perf_counter()
    pool = _pool(workers, start_method)
    try:
        if pool is None:
            trained = _iterate((train_job(config, *job) for job in jobs), len(jobs), progress)
        else:
            futures = [pool.submit(train_job, config, *job) for job in jobs]
            trained = _iterate((f.result() for f in futures), len(jobs), progress)
        records = [r for r, _ in trained]
        states = {(r["scheme"], r["seed"], r["lr"]): state for r, state in trained}
        chosen = {}
        for scheme in config.schemes:
            mine = {lr: [r for r in records if r["scheme"] == scheme and r["lr"] == lr] for lr in rates_of[scheme]}
            chosen[scheme] = choose_lr(mine)
        tested_rates = {s: rates_of[s] if every_rate else [chosen[s]] for s in order}
        tests = [(s, seed, lr) for s in order for lr in tested_rates[s] for seed in config.seeds]
        if pool is None:
            tested = _iterate(
                (evaluate_job(config, s, seed, states[s, seed, lr]) for s, seed, lr in tests), len(tests), progress
            )
        else:
            pending = [pool.submit(evaluate_job, config, s, seed, states[s, seed, lr]) for s, seed, lr in tests]
            tested = _iterate((f.result() for f in pending), len(tests), progress)
    finally:
        if pool is not None:
            pool.shutdown()
    wall = time.perf_counter() - start
    test_at = dict(zip(tests, tested))
    test_of = {(s, seed): test_at[s, seed, chosen[s]] for s in config.schemes for seed in config.seeds}
    sweep: dict[str, dict[str, Any]] = {}
    runs: dict[str, dict[str, Any]] = {}
    for scheme in config.schemes:
        mine = {lr: [r for r in records if r["scheme"] == scheme and r["lr"] == lr] for lr in rates_of[scheme]}
        sweep[scheme] = {
            str(lr): {
                key: {str(r["seed"]): r[key] for r in rs}
                for key in ("validation", "validation_loss", "steps", "met_stop_rule", "excluded", "train_seconds")
            }
            | (
                {
                    key: {str(r["seed"]): test_at[scheme, r["seed"], lr][key] for r in rs}
                    for key in ("curve", "whole_curve")
                }
                if every_rate
                else {}
            )
            for lr, rs in mine.items()
        }
        runs[scheme] = {
            str(r["seed"]): {k: v for k, v in r.items() if k not in ("scheme", "seed")} | test_of[scheme, r["seed"]]
            for r in mine[chosen[scheme]]
        }
    return {
        "book_version": __version__,
        "benchmark": True,
        "config": dataclasses.asdict(config),
        "learning_rates": next(iter(rates_of.values())) if isinstance(learning_rates, Sequence) else rates_of,
        "tie_rule": TIE_RULE,
        "every_rate": every_rate,
        "chosen_lr": chosen,
        "sweep": sweep,
        "runs": runs,
        "excluded": {
            scheme: {seed: r["excluded"] for seed, r in per_seed.items() if r["excluded"]}
            for scheme, per_seed in runs.items()
        },
        "t5_bucket_counts": None
        if "t5" not in runs
        else {
            "seed": config.seeds[0],
            "steps": (n := runs["t5"][str(config.seeds[0])]["steps"]),
            "counts": bucket_counts(config, n, config.seeds[0]),
        },
        "timing": {
            "wall_seconds": round(wall, 2),
            "workers": workers,
            "jobs": len(jobs),
            "machine": _machine(),
            "train_seconds": round(sum(r["train_seconds"] for r in records), 1),
            "eval_seconds": round(sum(t["eval_seconds"] for t in test_of.values()), 1),
        },
    }


def results_path(task: str, folder: Path | None = None, *, rerun: bool = False, every_rate: bool = False) -> Path:
    """Where the suite writes a task's results: ``book/results/benchmark_<task>.json``
    (shipped in the wheel with the other results), or ``folder``; with
    ``rerun``, ``benchmark_<task>_rerun.json`` (``run_suite(rerun=True)``);
    with ``every_rate``, ``benchmark_<task>_every_rate.json``
    (``run_suite(every_rate=True)``).

    Raises:
        ValueError: for a task not in ``TASKS``, or both ``rerun`` and ``every_rate``.
    """
    task = check_choice("task", task, TASKS)
    if rerun and every_rate:
        raise ValueError("rerun and every_rate name different files; ask for one of them")
    suffix = "_rerun" if rerun else "_every_rate" if every_rate else ""
    return (folder or Path(__file__).parent / "results") / f"benchmark_{task}{suffix}.json"


def regeneration_change(first: Mapping[str, Any], again: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """How far a regeneration moved each scheme's results: per scheme, the
    largest change over the seeds of the mean accuracy within and past the
    training length (``book.experiments.within_and_past``).

    Args:
        first, again: two results dicts of the same config (``run_task``, or
            the committed file and its rerun, ``run_suite(rerun=True)``).

    Returns:
        ``{scheme: {"within": change, "past": change}}``, changes in
        accuracy (0.01 is one point), over the seeds counted in both.

    Raises:
        ValueError: if the two configs differ, or a scheme's counted seeds do.
    """
    from .experiments import within_and_past

    if Config.from_results(dict(first)) != Config.from_results(dict(again)):
        raise ValueError("first and again must be results of the same config")
    a, b = within_and_past(dict(first)), within_and_past(dict(again))
    out: dict[str, dict[str, float]] = {}
    for scheme in a[0]:
        if scheme not in b[0] or len(a[0][scheme]) != len(b[0][scheme]):
            raise ValueError(f"the runs of {scheme} that count differ between first and again")
        out[scheme] = {
            name: max(abs(x - y) for x, y in zip(mine[scheme], theirs[scheme]))
            for name, mine, theirs in (("within", a[0], b[0]), ("past", a[1], b[1]))
        }
    return out


def run_suite(
    tasks: Sequence[str] = TASKS,
    *,
    folder: Path | None = None,
    workers: int = 2,
    progress: bool = True,
    start_method: str = "spawn",
    rerun: bool = False,
    every_rate: bool = False,
    **changes: Any,
) -> dict[str, dict[str, Any]]:
    """``run_task`` for each task's ``benchmark_config`` (with ``changes``) and
    its ``LEARNING_RATES``; writes each task's results to ``results_path``
    and returns them by task. ``timing.suite_seconds`` in each file is the
    wall time of the whole suite.

    With ``rerun`` the files are ``benchmark_<task>_rerun.json`` and record
    ``cpu_capability`` (``torch.backends.cpu.get_cpu_capability()``): the
    whole suite again, sweep included, run under another
    ``ATEN_CPU_CAPABILITY`` to measure how far a regeneration on another
    CPU moves each result (``regeneration_change``), the variation chapter
    8's margins must clear.

    With ``every_rate`` (``run_task(every_rate=True)``) every rate's models
    are tested and the files are ``benchmark_<task>_every_rate.json``
    (``results_path(every_rate=True)``)."""
    if rerun and every_rate:
        raise ValueError("rerun and every_rate write different files; ask for one of them")
    tasks = [check_choice("task", t, TASKS) for t in tasks]
    start = time.perf_counter()
    out = {}
    for task in tasks:
        config = benchmark_config(task, **changes)
        out[task] = run_task(
            config,
            learning_rates=LEARNING_RATES[task],
            workers=workers,
            progress=progress,
            start_method=start_method,
            every_rate=every_rate,
        )
    total = round(time.perf_counter() - start, 1)
    for task, results in out.items():
        results["timing"]["suite_seconds"] = total
        results["timing"]["suite_tasks"] = list(tasks)
        if rerun:
            results |= {"rerun": True, "cpu_capability": torch.backends.cpu.get_cpu_capability()}
        path = results_path(task, folder, rerun=rerun, every_rate=every_rate)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return out


def suite_table(results: dict[str, Any]) -> str:
    """One task's benchmark results as plain text: per scheme the chosen
    learning rate, accuracy within and past the training length (mean and
    range over the counted seeds), steps, and the excluded runs."""
    from .experiments import within_and_past

    config = results["config"]
    unit = {"copy": "symbols n", "recall": "pairs"}.get(config["task"], "tokens")
    lines = [
        f"{config['task']}: trained at {config['train_len']}, tested up to {config['test_len']} ({unit})",
        f"{'scheme':<11} {'lr':>6} {'within':>16} {'past':>16} {'steps':>10} excluded",
    ]
    within, past = within_and_past(results)
    for scheme, per_seed in results["runs"].items():
        counted = [r for r in per_seed.values() if not r.get("excluded")]
        steps = [r["steps"] for r in counted]
        excluded = [seed for seed, r in per_seed.items() if r.get("excluded")]
        span = f"{min(steps)}-{max(steps)}" if steps else "-"
        lines.append(
            f"{scheme:<11} {results['chosen_lr'][scheme]:>6g} {_fmt(within.get(scheme, [])):>16} "
            f"{_fmt(past.get(scheme, [])):>16} {span:>10} {','.join(excluded) or '-'}"
        )
    return "\n".join(lines)


def _fmt(values: Sequence[float]) -> str:
    return f"{sum(values) / len(values):.1%} [{min(values):.0%}-{max(values):.0%}]" if values else "-"
