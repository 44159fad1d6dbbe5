"""Train short, test long: chapter 8's experiment, and its command line.

The same ``TinyTransformer`` is trained once per position scheme and seed on
the same data, at one length, then tested on longer inputs::

    python -m book.experiments                      # the default experiment
    python -m book.experiments --output results.json
    python -m book.experiments --task copy --seeds 0 1 --steps 600
    python -m book.experiments --benchmark          # wall time, per scheme
    python -m book.experiments --suite              # the three-task benchmark (book.benchmark)
    python -m book.experiments --help

Tasks (``book.tasks``; ``local_sum`` the default): ``fibonacci`` and
``local_sum`` train at ``--train-len`` tokens and score every position of
``--test-len`` tokens; ``copy`` (``BOS x SEP x``) and ``recall`` (key-value
pairs, then queries) train with ``n`` up to ``--train-len`` and score every
``n`` up to ``--test-len``.

Each model trains until its mean loss over the last 30 steps
(``--stop-window``) is below 0.05 (``--stop-loss``), or to the 1000-step cap
(``--steps``), so the schemes are compared at one training-loss criterion
(``--stop-loss none`` trains for all ``--steps``). ``--steps`` also sets the
learning-rate schedule (``models.lr_schedule``: linear warm-up over 10%, then
a cosine to 0), so a model that stops early stops at a high learning rate,
and changing ``--steps`` changes every run, not only the cap.

Every (scheme, seed) is a job of its own: one ``TinyTransformer``, trained
alone (``train_model``) and tested (``evaluate``). Jobs run in
``--workers`` processes with one CPU thread each, so a result depends only
on its scheme, seed and settings. Results are written as JSON (no pickle).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from typing import Any, Iterable, Sequence, TypeVar

import torch

from . import __version__
from ._validate import check_choice, check_nonneg_int, check_positive_int, check_positive_real
from .models import SCHEMES, STOP_WINDOW, TinyTransformer, accuracy_by_position, stop_rule_met, train, window_mean
from .tasks import Batch, copy_task, draw_split, fibonacci_mod, local_sum, recall, vocab_size

T = TypeVar("T")

__all__ = [
    "TASKS",
    "DEFAULT_SCHEMES",
    "Config",
    "train_model",
    "held_out_batch",
    "held_out_batches",
    "score",
    "untrained_positions",
    "training_batches",
    "evaluate",
    "run",
    "summary_table",
    "conclusions",
    "within_and_past",
    "by_range",
    "benchmark_report",
    "main",
]

#: The tasks the experiment can train on (``Config.task``, ``--task``).
TASKS = ("fibonacci", "local_sum", "copy", "recall")
#: The schemes of chapter 8's default experiment (``Config().schemes``): every
#: scheme but the hybrid ``"rope_nope"``, which the benchmark adds.
DEFAULT_SCHEMES: tuple[str, ...] = ("none", "sinusoidal", "learned", "rope", "alibi", "t5")
EVAL_SEED = 10_000  # test data come from seeds the training never uses


@dataclass(frozen=True)
class Config:
    """Settings of one experiment; the defaults are chapter 8's.

    ``train_len`` / ``test_len`` are tokens for ``fibonacci`` and
    ``local_sum``, the number ``n`` of copied symbols for ``copy`` and the
    number of key-value pairs for ``recall``. ``offsets`` are ``local_sum``'s,
    ``n_keys``, ``n_values``, ``n_queries`` and ``filler_per_pair``
    ``recall``'s (``book.tasks.recall``, with ``filler_per_pair * n`` filler
    tokens for ``n`` pairs; ignored by the other tasks). For ``copy`` and
    ``recall`` each training batch draws its ``n`` uniformly from
    ``min_len .. train_len`` (``None``: from 1 for ``copy``, from
    ``n_queries`` for ``recall``), and the test lengths below ``min_len``
    are not scored. ``t5_buckets`` and ``t5_max_distance`` are the T5
    scheme's bucketing (``TinyTransformer``; T5's 32 and 128 by default).
    ``copy_score`` is what a copy scores: ``"whole"`` copies right, or the
    fraction of copied ``"symbols"`` right (``score``). With
    ``split_inputs`` the training, validation and test inputs come from
    disjoint hash classes (``tasks.SPLIT_CLASSES``), so no input is in two splits.

    ``steps`` is a cap when ``stop_loss`` is set: each model stops after the
    first step at which its mean training loss over the last ``stop_window``
    steps is below ``stop_loss`` (``book.models.stop_rule_met``), so that the
    schemes are compared at one training-loss criterion, not after one number
    of steps (a model that reaches the cap first has not met it). ``steps``
    still sets the learning-rate schedule (``models.lr_schedule``), so a model
    that stops early stops at a high learning rate. ``stop_loss=None`` trains
    every model for all ``steps``.
    """

    task: str = "local_sum"
    schemes: tuple[str, ...] = DEFAULT_SCHEMES
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    steps: int = 1000
    train_len: int = 32
    test_len: int = 128
    batch: int = 32
    d_model: int = 32
    n_heads: int = 2
    n_layers: int = 2
    lr: float = 1e-2
    eval_seqs: int = 256
    offsets: tuple[int, ...] = (0, 1)
    stop_loss: float | None = 0.05
    stop_window: int = STOP_WINDOW
    t5_buckets: int = 32
    t5_max_distance: int = 128
    min_len: int | None = None
    n_keys: int = 32
    n_values: int = 4
    n_queries: int = 4
    filler_per_pair: int = 0
    copy_score: str = "whole"
    split_inputs: bool = False

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {', '.join(TASKS)}, got {self.task!r}")
        unknown = [s for s in self.schemes if s not in SCHEMES]
        if unknown or not self.schemes:
            raise ValueError(f"schemes must be a non-empty subset of {', '.join(SCHEMES)}, got {list(self.schemes)}")
        if not self.seeds:
            raise ValueError("seeds must hold at least one seed")
        # NumPy integers and floats are accepted and stored as Python ones (the config goes to JSON)
        object.__setattr__(self, "seeds", tuple(check_nonneg_int(f"seeds[{i}]", s) for i, s in enumerate(self.seeds)))
        for name in (
            "steps",
            "train_len",
            "test_len",
            "batch",
            "d_model",
            "n_heads",
            "n_layers",
            "eval_seqs",
            "stop_window",
            "t5_buckets",
            "t5_max_distance",
            "n_keys",
            "n_values",
            "n_queries",
        ):
            object.__setattr__(self, name, check_positive_int(name, getattr(self, name)))
        object.__setattr__(self, "filler_per_pair", check_nonneg_int("filler_per_pair", self.filler_per_pair))
        if self.test_len < self.train_len:
            raise ValueError(f"test_len must be at least train_len ({self.train_len}), got {self.test_len}")
        if self.task == "fibonacci" and self.train_len < 2:
            raise ValueError("train_len must be at least 2 for the fibonacci task")
        object.__setattr__(self, "lr", check_positive_real("lr", self.lr))
        if self.stop_loss is not None:
            object.__setattr__(self, "stop_loss", check_positive_real("stop_loss", self.stop_loss))
        if self.task == "local_sum":  # the task checks its offsets; fail here, not in a worker
            local_sum(1, self.train_len, offsets=self.offsets)
        check_choice("copy_score", self.copy_score, ("whole", "symbols"))
        if not isinstance(self.split_inputs, bool):
            raise TypeError(f"split_inputs must be True or False, got {self.split_inputs!r}")
        if self.min_len is not None:
            object.__setattr__(self, "min_len", check_positive_int("min_len", self.min_len))
            if self.task not in ("copy", "recall") or self.min_len > self.train_len:
                raise ValueError(
                    f"min_len must be None or, for copy and recall, at most train_len ({self.train_len}), "
                    f"got {self.min_len} for {self.task}"
                )
        if self.task == "recall":  # the task checks its sizes
            recall(1, self.min_train_len, n_keys=self.n_keys, n_values=self.n_values, n_queries=self.n_queries)
            recall(1, self.test_len, n_keys=self.n_keys, n_values=self.n_values, n_queries=self.n_queries)
        b, m = self.t5_buckets, self.t5_max_distance
        TinyTransformer(2, position="t5", d_model=2, n_heads=1, max_len=1, t5_buckets=b, t5_max_distance=m)  # checks

    @classmethod
    def from_results(cls, results: dict[str, Any]) -> "Config":
        """The config a results dict (``run``'s, or its JSON) was made with.

        Lists become tuples. Files written before early stopping existed have
        no ``stop_loss``: their models trained for all ``steps``, so it reads
        as ``None``.
        """
        if not isinstance(results, dict) or not isinstance(results.get("config"), dict):
            raise TypeError("results must be the dict that experiments.run returns, with a 'config' dict")
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in results["config"].items()}
        unknown = sorted(set(fields) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise TypeError(f"results['config'] has keys that are not Config fields: {unknown}")
        fields.setdefault("stop_loss", None)
        return cls(**fields)  # type: ignore[arg-type]  # the field names were checked above

    @property
    def vocab_size(self) -> int:
        """The number of token ids the model embeds, from the task (``book.tasks.vocab_size``):
        digits 0..9, plus BOS and SEP for ``copy``; pair, query and answer tokens for ``recall``."""
        return vocab_size(self.task, n_keys=self.n_keys, n_values=self.n_values)

    @property
    def max_len(self) -> int:
        """Positions the model must cover at test time (the learned table's
        size: rows past the training length keep their initial values)."""
        return self.input_len(self.test_len)

    def input_len(self, n: int) -> int:
        """Tokens of an input of length ``n`` in the config's unit: ``2n + 1``
        for ``copy``, ``n (1 + filler_per_pair) + 2 n_queries - 1`` for
        ``recall``, ``n`` otherwise."""
        if self.task == "copy":
            return 2 * n + 1
        return n * (1 + self.filler_per_pair) + 2 * self.n_queries - 1 if self.task == "recall" else n

    @property
    def min_train_len(self) -> int:
        """The shortest training length, which is ``train_len`` for ``fibonacci``
        and ``local_sum``, and ``min_len`` (default 1 for ``copy``, ``n_queries``
        for ``recall``) for the tasks whose length varies from batch to batch."""
        if self.task not in ("copy", "recall"):
            return self.train_len
        if self.min_len is not None:
            return self.min_len
        return 1 if self.task == "copy" else self.n_queries


def _batch(config: Config, n_seqs: int, length: int, generator: torch.Generator, split: str = "train") -> Batch:
    draw = lambda k: _draw(config, k, length, generator)  # noqa: E731
    if not config.split_inputs:
        return draw(n_seqs)
    return draw_split(draw, n_seqs, split, prefix=config.input_len(config.train_len))


def _draw(config: Config, n_seqs: int, length: int, generator: torch.Generator) -> Batch:
    if config.task == "fibonacci":
        return fibonacci_mod(n_seqs, length, generator=generator)
    if config.task == "local_sum":
        return local_sum(n_seqs, length, offsets=config.offsets, generator=generator)
    if config.task == "recall":
        return recall(
            n_seqs,
            length,
            n_keys=config.n_keys,
            n_values=config.n_values,
            n_queries=config.n_queries,
            n_filler=config.filler_per_pair * length,
            generator=generator,
        )
    return copy_task(n_seqs, length, generator=generator)


def train_model(config: Config, scheme: str, seed: int) -> tuple[TinyTransformer, list[float]]:
    """Build and train the model of one (scheme, seed) job of ``config``.

    The model is ``TinyTransformer(position=scheme, seed=seed)`` with the
    config's sizes and ``max_len = config.max_len``; it is trained with
    ``book.models.train`` on batches of ``config.train_len`` drawn from a
    generator seeded with ``seed``, stopping early by the config's
    ``stop_loss`` rule. Returns the model and its losses (one per step taken).
    """
    if scheme not in config.schemes:
        raise ValueError(f"scheme must be one of the config's schemes {list(config.schemes)}, got {scheme!r}")
    model = _new_model(config, scheme, seed)
    losses = train(
        model,
        lambda g: _training_batch(config, g),
        steps=config.steps,
        lr=config.lr,
        seed=seed,
        stop_loss=config.stop_loss,
        stop_window=config.stop_window,
    )
    return model, losses


def _new_model(config: Config, scheme: str, seed: int) -> TinyTransformer:
    """The untrained model of one (scheme, seed) job, with the config's sizes."""
    return TinyTransformer(
        config.vocab_size,
        position=check_choice("scheme", scheme, SCHEMES),
        d_model=config.d_model,
        n_heads=config.n_heads,
        n_layers=config.n_layers,
        max_len=config.max_len,
        seed=seed,
        t5_buckets=config.t5_buckets,
        t5_max_distance=config.t5_max_distance,
    )


def _training_batch(config: Config, generator: torch.Generator) -> Batch:
    """fibonacci, local_sum: ``train_len`` tokens; copy, recall: ``n`` drawn from
    ``min_train_len .. train_len`` for each batch, so the model sees every length it will
    be credited for."""
    if config.task not in ("copy", "recall"):
        return _batch(config, config.batch, config.train_len, generator)
    n = int(torch.randint(config.min_train_len, config.train_len + 1, (1,), generator=generator))
    return _batch(config, config.batch, n, generator)


def held_out_batch(config: Config, seed: int, length: int | None = None) -> Batch:
    """The held-out test data of ``seed``: ``config.eval_seqs`` sequences of
    ``length`` (default ``config.test_len``), from a generator the training
    never uses (and, with ``config.split_inputs``, from the test split)."""
    g = torch.Generator().manual_seed(EVAL_SEED + seed)
    return _batch(config, config.eval_seqs, config.test_len if length is None else length, g, "test")


def untrained_positions(config: Config, seed: int, steps: int) -> range:
    """The positions of ``seed``'s test inputs that no training input reaches.

    ``range(longest of the first steps training inputs, test input length)``
    (``training_batches``), empty if training reaches every test position:
    ``range(train_len, test_len)`` for ``local_sum`` and ``fibonacci``
    (for copy, positions count tokens, not the length ``n``).

    Raises:
        TypeError: if ``config`` is not a :class:`Config`.
        TypeError / ValueError: if ``steps`` is not an integer >= 1 or
            ``seed`` not an integer >= 0.
    """
    longest = max(batch.inputs.shape[1] for batch in training_batches(config, seed, steps))
    return range(longest, held_out_batch(config, seed).inputs.shape[1])


def training_batches(config: Config, seed: int, steps: int) -> list[Batch]:
    """The first ``steps`` training batches of ``seed``, as ``train_model``
    draws them: one per step from a ``torch.Generator`` seeded with ``seed``
    (``book.models.train``), without a model.

    Raises:
        TypeError: if ``config`` is not a :class:`Config`.
        TypeError / ValueError: if ``steps`` is not an integer >= 1 or
            ``seed`` not an integer >= 0.
    """
    if not isinstance(config, Config):
        raise TypeError(f"config must be a book.experiments.Config, got {type(config).__name__}")
    steps = check_positive_int("steps", steps)
    seed = check_nonneg_int("seed", seed)
    generator = torch.Generator().manual_seed(seed)
    return [_training_batch(config, generator) for _ in range(steps)]


def evaluate(model: TinyTransformer, config: Config, seed: int) -> list[float | None]:
    """The result curve of one model: accuracy at each position of the test
    inputs (``fibonacci``, ``local_sum``; ``None`` where nothing is scored),
    the fraction of whole copies right for each ``n = 1 .. test_len``
    (``copy``), or the fraction of queries answered right for each number of
    pairs ``n = 1 .. test_len`` (``recall``); ``None`` for the ``n`` below
    ``config.min_train_len``, which are not scored."""
    return _evaluate(model, config, seed, (config.copy_score,))[0]


def _evaluate(
    model: TinyTransformer, config: Config, seed: int, copy_scores: Sequence[str]
) -> list[list[float | None]]:
    """``evaluate``'s curve once for each of ``copy_scores`` (``Config.copy_score``
    values, which only ``copy`` reads), from one draw of the test data and one
    forward pass per test batch."""
    if config.task not in ("copy", "recall"):
        acc = accuracy_by_position(model, held_out_batch(config, seed))
        curve = [None if math.isnan(a) else round(float(a), 4) for a in acc]
        return [list(curve) for _ in copy_scores]
    curves: list[list[float | None]] = [[None] * (config.min_train_len - 1) for _ in copy_scores]
    for _, batch in held_out_batches(config, seed):  # n = min_train_len .. test_len
        hit = _hits(model, batch)
        for curve, how in zip(curves, copy_scores):
            curve.append(round(_score_hits(hit, batch, config.task, how), 4))
    return curves


def score(model: TinyTransformer, config: Config, batch: Batch) -> float:
    """One batch's score: the fraction of whole copies right (``copy`` with
    ``copy_score="whole"``: every scored target of a row), else the fraction
    of scored targets right."""
    return _score_hits(_hits(model, batch), batch, config.task, config.copy_score)


def _hits(model: TinyTransformer, batch: Batch) -> torch.Tensor:
    """Where the model's greedy next token is the target, ``(n_seqs, length)``."""
    with torch.no_grad():
        return model(batch.inputs).argmax(-1) == batch.targets


def _score_hits(hit: torch.Tensor, batch: Batch, task: str, copy_score: str) -> float:
    """``score`` from the hits: whole copies right for ``copy`` scored ``"whole"``,
    else scored targets right."""
    if task == "copy" and copy_score == "whole":
        return float((hit | ~batch.loss_mask).all(1).double().mean())
    return float(hit[batch.loss_mask].double().mean())


def held_out_batches(config: Config, seed: int) -> list[tuple[int, Batch]]:
    """``seed``'s scored test data, as ``(n, batch)`` pairs: one batch of
    ``test_len`` for ``fibonacci`` and ``local_sum``; for ``copy`` and
    ``recall`` one batch per ``n = min_train_len .. test_len``, each from its
    own generator, seeded ``EVAL_SEED + seed + 1000 n``, which the training
    never uses (``held_out_batch``)."""
    if config.task not in ("copy", "recall"):
        return [(config.test_len, held_out_batch(config, seed))]
    return [(n, held_out_batch(config, seed + 1000 * n, n)) for n in range(config.min_train_len, config.test_len + 1)]


#: Steps per point of a stored loss curve (each point is the mean over its steps).
LOSS_EVERY = 10


def _loss_curve(losses: Sequence[float]) -> list[float]:
    """The training loss averaged over each block of ``LOSS_EVERY`` steps."""
    return [round(sum(b) / len(b), 4) for b in (losses[i : i + LOSS_EVERY] for i in range(0, len(losses), LOSS_EVERY))]


def _train_in_worker(config: Config, scheme: str, seed: int) -> tuple[TinyTransformer, list[float], float]:
    """``train_model`` as a worker runs it, on one CPU thread: the model, its
    losses and the seconds training took."""
    torch.set_num_threads(1)
    start = time.perf_counter()
    model, losses = train_model(config, scheme, seed)
    return model, losses, time.perf_counter() - start


def _job(config: Config, scheme: str, seed: int) -> dict[str, Any]:
    """Train and evaluate one (scheme, seed); runs in a worker process."""
    model, losses, seconds = _train_in_worker(config, scheme, seed)
    trained = time.perf_counter()
    return {
        "scheme": scheme,
        "seed": seed,
        "curve": evaluate(model, config, seed),
        "steps": len(losses),
        "final_loss": round(window_mean(losses, 20), 4),
        # unrounded: the stopping rule compares it with stop_loss, and rounding could cross it
        "window_loss": window_mean(losses, config.stop_window),
        "met_stop_rule": None
        if config.stop_loss is None
        else stop_rule_met(losses, config.stop_loss, config.stop_window),
        "loss_curve": _loss_curve(losses),
        "train_seconds": round(seconds, 2),
        "eval_seconds": round(time.perf_counter() - trained, 2),
    }


def run(
    config: Config = Config(),
    *,
    workers: int = 2,
    progress: bool = True,
    start_method: str = "spawn",
) -> dict[str, Any]:
    """Run every (scheme, seed) job and return the results as a JSON-ready dict.

    Each job trains one model alone (``train_model``) and tests it
    (``evaluate``): ``curve`` is accuracy by position (``fibonacci``,
    ``local_sum``; ``None`` where nothing is scored), the fraction of whole
    copies right by ``n`` (``copy``) or of queries answered by ``n``
    (``recall``). With ``workers > 1`` the jobs run in worker processes
    started with ``start_method``: ``"spawn"`` (safe anywhere, e.g. in a
    notebook) or ``"fork"`` (Linux; the command line uses it, since forked
    workers start without importing torch again).
    """
    workers = check_positive_int("workers", workers)
    if start_method not in ("spawn", "fork", "forkserver"):
        raise ValueError(f"start_method must be 'spawn', 'fork' or 'forkserver', got {start_method!r}")
    # the slowest schemes first, so that the workers finish together
    order = sorted(config.schemes, key=lambda s: s not in ("none", "rope_nope", "alibi"))
    jobs = [(scheme, seed) for scheme in order for seed in config.seeds]
    start = time.perf_counter()
    if workers == 1:
        done = _iterate((_job(config, *job) for job in jobs), len(jobs), progress)
    else:
        if start_method == "fork":
            import torch._dynamo  # noqa: F401  (the optimizer imports it; do it once, before forking)
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context(start_method)) as pool:
            futures = [pool.submit(_job, config, *job) for job in jobs]
            done = _iterate((f.result() for f in futures), len(jobs), progress)
    wall = time.perf_counter() - start
    runs: dict[str, dict[str, Any]] = {s: {} for s in config.schemes}
    for r in sorted(done, key=lambda r: config.seeds.index(r["seed"])):
        runs[r["scheme"]][str(r["seed"])] = {k: v for k, v in r.items() if k not in ("scheme", "seed")}
    return {
        "book_version": __version__,
        "config": asdict(config),
        "runs": runs,
        "timing": {"wall_seconds": round(wall, 2), "workers": workers, "machine": _machine()},
    }


def _iterate(results: Iterable[T], total: int, progress: bool) -> list[T]:
    """The jobs' records, in order, behind a progress bar if ``progress``."""
    if progress:
        from tqdm.auto import tqdm

        results = tqdm(results, total=total, desc="jobs", unit="job", file=sys.stderr)
    return list(results)


def _machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}"


def within_and_past(results: dict[str, Any]) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each seed's mean accuracy up to and past the training length, per scheme.

    Args:
        results: what ``run`` returns (or its JSON, loaded).

    Returns:
        ``(within, past)``: two dicts from scheme name to a list with one
        mean per seed, in the order of ``results["runs"][scheme]``. Entries
        of a curve that are ``None`` (nothing scored there) are skipped, and
        so are runs marked ``excluded`` (``book.benchmark``); a scheme whose
        every run is excluded is left out.
    """
    if not isinstance(results, dict) or "config" not in results or "runs" not in results:
        raise TypeError("results must be the dict that experiments.run returns, with 'config' and 'runs'")
    cut = results["config"]["train_len"]
    within: dict[str, list[float]] = {}
    past: dict[str, list[float]] = {}
    for scheme, per_seed in _counted(results).items():
        within[scheme] = [_mean(r["curve"][:cut]) for r in per_seed]
        past[scheme] = [_mean(r["curve"][cut:]) for r in per_seed]
    return within, past


def _counted(results: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Each scheme's runs that count in a ranking: all but those marked
    ``excluded``; schemes with none left are dropped."""
    out = {s: [r for r in per_seed.values() if not r.get("excluded")] for s, per_seed in results["runs"].items()}
    return {s: rs for s, rs in out.items() if rs}


#: Ranges of test positions reported by ``by_range``, as multiples of the
#: training length ``L``: within ``[0, L)``, then ``(1, 1.25]``, ... ``(2, 4]``.
RANGES = ((0.0, 1.0), (1.0, 1.25), (1.25, 1.5), (1.5, 2.0), (2.0, 4.0))


def by_range(
    results: dict[str, Any], ranges: Sequence[tuple[float, float]] = RANGES
) -> dict[str, dict[str, list[float]]]:
    """Each seed's mean accuracy over ranges of test positions, per scheme.

    A range ``(a, b)`` covers the target indices ``p`` with
    ``a * L <= p < b * L`` (``L`` the training length), so for ``L = 32`` the
    default ranges are positions 0-31, 32-39, 40-47, 48-63 and 64-127; the
    first holds the positions seen in training. A range past the end of the
    curves is left out, and so are runs marked ``excluded``.

    Returns:
        ``{scheme: {"0-1x": [one mean per seed], "1-1.25x": [...], ...}}``.

    Raises:
        TypeError: if ``results`` is not what ``run`` returns.
        ValueError: for a range that is empty or does not increase.
    """
    if not isinstance(results, dict) or "config" not in results or "runs" not in results:
        raise TypeError("results must be the dict that experiments.run returns, with 'config' and 'runs'")
    if results["config"]["task"] in ("copy", "recall"):
        raise ValueError(f"by_range reads accuracy by position; the {results['config']['task']} task's curves are by n")
    L = results["config"]["train_len"]
    out: dict[str, dict[str, list[float]]] = {}
    for a, b in ranges:
        if not (0 <= a < b) or math.isclose(a * L, b * L) or int(math.ceil(a * L)) >= int(math.ceil(b * L)):
            raise ValueError(f"each range must be (a, b) with 0 <= a < b covering a position, got {(a, b)}")
    for scheme, per_seed in _counted(results).items():
        out[scheme] = {}
        for a, b in ranges:
            lo, hi = int(math.ceil(a * L)), int(math.ceil(b * L))
            curves = [r["curve"][lo:hi] for r in per_seed]
            if any(not [c for c in curve if c is not None] for curve in curves):
                continue
            out[scheme][f"{a:g}-{b:g}x"] = [_mean(curve) for curve in curves]
    return out


def _mean(curve: Sequence[float | None]) -> float:
    values = [a for a in curve if a is not None]
    return sum(values) / len(values)


def summary_table(results: dict[str, Any]) -> str:
    """A plain-text table: per scheme, accuracy up to and past the training
    length (mean and range over seeds), the training steps taken (range over
    seeds) and the training time."""
    config = results["config"]
    unit = "copy lengths n" if config["task"] == "copy" else "positions"
    lines = [
        f"{config['task']}: trained at {config['train_len']}, tested up to {config['test_len']} ({unit})",
        f"{'scheme':<11} {'up to train length':>20} {'past train length':>20} {'steps':>11} {'train s':>8}",
    ]
    within, past = within_and_past(results)
    for scheme, per_seed in _counted(results).items():
        secs = sum(r["train_seconds"] for r in per_seed)
        taken = [_steps_taken(r, config) for r in per_seed]
        steps = f"{min(taken)}" if min(taken) == max(taken) else f"{min(taken)}-{max(taken)}"
        lines.append(f"{scheme:<11} {_fmt(within[scheme]):>20} {_fmt(past[scheme]):>20} {steps:>11} {secs:>8.1f}")
    return "\n".join(lines)


def _fmt(values: Sequence[float]) -> str:
    mean = sum(values) / len(values)
    return f"{mean:.0%} [{min(values):.0%}-{max(values):.0%}]"


def conclusions(results: dict[str, Any]) -> dict[str, Any]:
    """What the results say, in numbers that hold for every seed.

    Returns, for each scheme, the worst and best seed's accuracy past the
    training length, and the schemes ordered by their worst seed.
    """
    _, past = within_and_past(results)
    worst = {s: min(v) for s, v in past.items()}
    best = {s: max(v) for s, v in past.items()}
    return {
        "worst_seed_past_train": worst,
        "best_seed_past_train": best,
        "ranking_by_worst_seed": sorted(worst, key=lambda s: worst[s], reverse=True),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m book.experiments`` with ``argv`` (default: ``sys.argv[1:]``).

    Prints the summary table (and, with ``--benchmark``, the timing report),
    writes JSON with ``--output``, and returns 0. Invalid options exit through
    ``argparse`` with status 2 and a message naming the option.
    """
    from ._experiments_cli import config_from_args, parser, run_suite_from_args

    args = parser().parse_args(argv)
    if args.suite:
        return run_suite_from_args(args)
    if args.every_rate:
        parser().error("--every-rate needs --suite")
    if args.fine_tune is not None:
        parser().error("--fine-tune needs --suite")
    try:
        config = config_from_args(args)
    except (TypeError, ValueError) as err:
        parser().error(str(err))
    start_method = "fork" if sys.platform == "linux" else "spawn"
    results = run(config, workers=args.workers, progress=not args.quiet, start_method=start_method)
    print(summary_table(results))
    if args.benchmark:
        print(benchmark_report(results))
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        print(f"results written to {args.output}")
    return 0


def benchmark_report(results: dict[str, Any]) -> str:
    """Wall time, seconds per scheme (summed over seeds) and steps per second."""
    config, timing = results["config"], results["timing"]
    n_models = sum(len(v) for v in results["runs"].values())
    steps = sum(_steps_taken(r, config) for per_seed in results["runs"].values() for r in per_seed.values())
    lines = [
        f"benchmark on {timing['machine']}, {timing['workers']} worker process(es):",
        f"  wall time {timing['wall_seconds']:.1f} s for {n_models} models "
        f"({steps:,} training steps, {steps / timing['wall_seconds']:.0f} steps/s overall)",
    ]
    for scheme, per_seed in results["runs"].items():
        secs = sum(r["train_seconds"] + r["eval_seconds"] for r in per_seed.values())
        per = sum(_steps_taken(r, config) for r in per_seed.values()) / sum(
            r["train_seconds"] for r in per_seed.values()
        )
        lines.append(f"  {scheme:<11} {secs:6.1f} s (train + test, all seeds), {per:5.0f} steps/s per process")
    return "\n".join(lines)


def _steps_taken(run_record: dict[str, Any], config: dict[str, Any]) -> int:
    """Training steps of one model (all ``steps`` in files from before early stopping)."""
    return run_record.get("steps", config["steps"])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
