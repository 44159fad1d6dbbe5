"""Chapter 9's models: the benchmark's RoPE models of ``local_sum`` trained to
the step cap, their learning rate annealed to 0 (the benchmark's own models
stop early, by its rule). Written by::

    python -m book.experiments --suite --task local_sum --anneal rope

into ``book/results/annealed_local_sum_rope.json``, weights included
(``book.results.state_to_json``), which ``annealed_models`` turns back into
models. The same training again under the kernels without AVX::

    ATEN_CPU_CAPABILITY=default python -m book.experiments --suite --task local_sum --anneal rope --rerun

writes ``annealed_local_sum_rope_rerun.json``, whose models set chapter 9's
margins.

``stretch_scores`` scores such models under chapter 9's scaling rules at the
benchmark's test lengths; ``run_stretch`` does it for both runs of a task::

    python -m book.experiments --suite --task recall --stretch rope

and writes ``book/results/stretch_recall_rope.json``.

``fine_tune_scores`` fine-tunes chapter 9's ``local_sum`` models briefly at a
longer length under each rule and scores them; ``run_fine_tune`` does it for
both runs::

    python -m book.experiments --suite --task local_sum --fine-tune rope

and writes ``book/results/finetune_local_sum_rope.json``.
"""

from __future__ import annotations

import dataclasses
import time
from statistics import mean
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import torch

from . import __version__
from ._validate import check_choice, check_positive_int
from .benchmark import TASKS, _pool, benchmark_config, validation_score
from .experiments import Config, _iterate, _loss_curve, _machine, _new_model, _train_in_worker, evaluate, held_out_batch
from .models import SCHEMES, TinyTransformer, accuracy_by_position, stop_rule_met, train, window_mean
from .results import state_from_json, state_to_json

__all__ = [
    "annealed_config",
    "run_annealed",
    "annealed_models",
    "STRETCH_RULES",
    "stretch_setting",
    "stretch_scores",
    "run_stretch",
    "FINE_TUNE",
    "fine_tune_scores",
    "run_fine_tune",
]

#: The rules chapter 9 compares (names of ``book.scaling.RULES``), in its order.
STRETCH_RULES: tuple[str, ...] = ("unchanged", "PI", "NTK-aware", "YaRN", "Llama 3.1")


def annealed_config(task: str, scheme: str, lr: float) -> Config:
    """``benchmark_config(task)`` for ``scheme`` alone at learning rate ``lr``,
    with no early stopping: every model takes all ``steps``, so the cosine of
    ``book.models.lr_schedule`` ends at 0 (the benchmark's models stop early).

    Raises:
        ValueError: for a task that is not one of ``TASKS``, a scheme that
            is not one of ``book.models.SCHEMES``, or ``lr`` not positive.
    """
    scheme = check_choice("scheme", scheme, SCHEMES)
    return benchmark_config(task, schemes=(scheme,), lr=lr, stop_loss=None)


def _anneal_job(config: Config, scheme: str, seed: int, rule: float) -> dict[str, Any]:
    """Train one seed of ``annealed_config``'s scheme to the cap; runs in a
    worker. ``rule`` is the benchmark's ``stop_loss``, to record when it first held."""
    model, losses, seconds = _train_in_worker(config, scheme, seed)
    trained = time.perf_counter()
    return {
        "seed": seed,
        "steps": len(losses),
        "final_loss": window_mean(losses, config.stop_window),
        "first_stop_step": next(
            (n for n in range(1, len(losses) + 1) if stop_rule_met(losses[:n], rule, config.stop_window)), None
        ),
        "validation": round(validation_score(model, config, seed), 4),
        "loss_curve": _loss_curve(losses),
        "train_seconds": round(seconds, 2),
        "eval_seconds": round(time.perf_counter() - trained, 2),
        "state": state_to_json(model.state_dict()),
    }


def run_annealed(
    task: str = "local_sum",
    scheme: str = "rope",
    *,
    lr: float | None = None,
    workers: int = 2,
    progress: bool = True,
    start_method: str = "spawn",
    rerun: bool = False,
    **changes: Any,
) -> dict[str, Any]:
    """Train ``scheme``'s seeds of ``task`` to the cap (``annealed_config``)
    and return them as a JSON-ready dict, weights included.

    ``lr`` defaults to the committed sweep's ``chosen_lr`` for the scheme;
    ``changes`` go to the config (for tests). Each seed is a job in
    ``workers`` processes. ``runs`` holds per seed the steps, final loss,
    ``first_stop_step`` (when the benchmark's rule first held), validation
    score, loss curve and weights (``book.results.state_to_json``).
    With ``rerun`` the dict also records ``"rerun": True`` and
    ``cpu_capability`` (``torch.backends.cpu.get_cpu_capability()``): the
    same training again under other CPU kernels (``ATEN_CPU_CAPABILITY``),
    which chapter 9's margins measure, as ``benchmark.run_suite(rerun=True)``
    does for chapter 8.
    """
    from .results import load

    workers = check_positive_int("workers", workers)
    if not isinstance(rerun, bool):
        raise TypeError(f"rerun must be True or False, got {type(rerun).__name__} {rerun!r}")
    check_choice("start_method", start_method, ("spawn", "fork", "forkserver"))
    task, scheme = check_choice("task", task, TASKS), check_choice("scheme", scheme, SCHEMES)
    if lr is None:
        lr = float(load(f"benchmark_{task}")["chosen_lr"][scheme])
    config = annealed_config(task, scheme, lr)
    if changes:
        config = dataclasses.replace(config, **changes)
    rule = benchmark_config(task).stop_loss
    assert rule is not None  # the benchmark always stops by its rule
    start = time.perf_counter()
    pool = _pool(workers, start_method)
    if pool is None:
        done = _iterate((_anneal_job(config, scheme, seed, rule) for seed in config.seeds), len(config.seeds), progress)
    else:
        with pool:
            futures = [pool.submit(_anneal_job, config, scheme, seed, rule) for seed in config.seeds]
            done = _iterate((f.result() for f in futures), len(futures), progress)
    out = {
        "book_version": __version__,
        "annealed": True,
        "scheme": scheme,
        "config": dataclasses.asdict(config),
        "runs": {str(r["seed"]): {k: v for k, v in r.items() if k != "seed"} for r in done},
        "timing": {"wall_seconds": round(time.perf_counter() - start, 2), "workers": workers, "machine": _machine()},
    }
    if rerun:
        out |= {"rerun": True, "cpu_capability": torch.backends.cpu.get_cpu_capability()}
    return out


def annealed_models(results: Mapping[str, Any]) -> dict[int, TinyTransformer]:
    """The trained models of a ``run_annealed`` results dict, by seed, in eval mode.

    Raises:
        TypeError: if ``results`` is not ``run_annealed``'s dict.
    """
    if not isinstance(results, Mapping) or not results.get("annealed") or "runs" not in results:
        raise TypeError("results must be the dict that benchmark.run_annealed returns")
    config = Config.from_results(dict(results))
    out = {}
    for seed, record in results["runs"].items():
        model = _new_model(config, results["scheme"], int(seed))
        model.load_state_dict(state_from_json(record["state"]))
        out[int(seed)] = model.eval()
    return out


def _annealed_results(results: Any) -> Mapping[str, Any]:
    if not isinstance(results, Mapping) or not results.get("annealed") or "runs" not in results:
        raise TypeError("results must be the dict that book.annealed.run_annealed returns")
    return results


def stretch_setting(results: Mapping[str, Any]) -> tuple[float, int]:
    """The scale ``s`` and ``original_max_len`` L at which chapter 9 stretches
    the models of a ``run_annealed`` results dict: L is the longest training
    input in tokens, ``config.input_len(config.train_len)``, and ``s = L' / L``
    with L' the longest test input, ``config.input_len(config.test_len)``
    (``recall``: 37 and 167 tokens, s = 4.51; ``copy``: 21 and 43, s = 2.05).

    Raises:
        TypeError: if ``results`` is not ``run_annealed``'s dict.
    """
    config = Config.from_results(dict(_annealed_results(results)))
    longest = config.input_len(config.train_len)
    return config.input_len(config.test_len) / longest, longest


def stretch_scores(
    results: Mapping[str, Any],
    rules: Sequence[str] = STRETCH_RULES,
    *,
    seeds: Sequence[int] | None = None,
) -> dict[str, dict[str, dict[str, float]]]:
    """Score the models of a ``run_annealed`` results dict under each scaling rule.

    Each model gets ``rule``'s frequencies for ``scale`` and
    ``original_max_len`` of ``stretch_setting``
    (``TinyTransformer.set_rope_scaling``) and is scored by
    ``book.experiments.evaluate`` on the benchmark's test data of its seed.
    ``within`` is the mean of the result curve over the scored lengths
    ``n <= train_len`` (copy lengths, numbers of pairs, or positions), ``past``
    over ``n > train_len``, both rounded to 6 decimals.

    Args:
        results: ``run_annealed``'s dict (``book.results.load("annealed_recall_rope")``).
        rules: names of ``book.scaling.RULES`` (default ``STRETCH_RULES``).
        seeds: the seeds to score (default: all of ``results``); the
            result lists them in increasing order.

    Returns:
        ``{rule: {str(seed): {"within": w, "past": p}}}``.

    Raises:
        TypeError: if ``results`` is not ``run_annealed``'s dict, or ``rules``
            or ``seeds`` is a string or not a sequence.
        ValueError: for an unknown or repeated rule, no rules, a seed that
            ``results`` does not hold, or a model that is not a RoPE model.
    """
    from .scaling import RULES

    results = _annealed_results(results)
    if isinstance(rules, str) or not isinstance(rules, Sequence):
        raise TypeError(f"rules must be a sequence of rule names, got {type(rules).__name__} {rules!r}")
    rules = tuple(check_choice("rules", rule, tuple(RULES)) for rule in rules)
    if not rules or len(set(rules)) != len(rules):
        raise ValueError(f"rules must name at least one rule, each once, got {list(rules)}")
    if results.get("scheme") != "rope":
        raise ValueError(f"results must hold RoPE models to stretch, got scheme {results.get('scheme')!r}")
    held = tuple(sorted(int(seed) for seed in results["runs"]))
    if seeds is None:
        seeds = held
    if isinstance(seeds, str) or not isinstance(seeds, Sequence):
        raise TypeError(f"seeds must be a sequence of ints, got {type(seeds).__name__} {seeds!r}")
    seeds = tuple(sorted({check_choice("seeds", seed, held) for seed in seeds}))
    config = Config.from_results(dict(results))
    scale, longest = stretch_setting(results)
    models = annealed_models({**results, "runs": {str(seed): results["runs"][str(seed)] for seed in seeds}})
    out: dict[str, dict[str, dict[str, float]]] = {rule: {} for rule in rules}
    for seed, model in models.items():
        for rule in rules:
            model.set_rope_scaling(rule=rule, scale=scale, original_max_len=longest)
            curve = evaluate(model, config, seed)
            model.set_rope_scaling()
            within = [c for n, c in enumerate(curve, 1) if c is not None and n <= config.train_len]
            past = [c for n, c in enumerate(curve, 1) if c is not None and n > config.train_len]
            out[rule][str(seed)] = {"within": round(mean(within), 6), "past": round(mean(past), 6)}
    return out


def _one_thread(score: Any, name: str, seed: int, rules: tuple[str, ...]) -> dict[str, dict[str, dict[str, float]]]:
    """``score(load(name), rules, seeds=[seed])`` on one torch thread; the
    caller's thread count is restored after (with one worker the job runs in
    the calling process)."""
    from .results import load

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return score(load(name), rules, seeds=[seed])
    finally:
        torch.set_num_threads(before)


def _stretch_job(name: str, seed: int, rules: tuple[str, ...]) -> dict[str, dict[str, dict[str, float]]]:
    """``stretch_scores`` of one seed of the committed result ``name``, on one thread; runs in a worker."""
    return _one_thread(stretch_scores, name, seed, rules)


def _score_both_runs(
    job: Any,
    names: Mapping[str, str],
    stored: Mapping[str, Mapping[str, Any]],
    rules: tuple[str, ...],
    workers: int,
    progress: bool,
    start_method: str,
) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """``job(name, seed, rules)`` for every (run, seed) of ``stored``, in
    ``workers`` processes (in this one with a single worker), merged into
    ``{run: {rule: {str(seed): cell}}}``: the work ``run_stretch`` and
    ``run_fine_tune`` share."""
    jobs = [(run, int(seed)) for run in names for seed in stored[run]["runs"]]
    pool = _pool(workers, start_method)
    if pool is None:
        done = _iterate((job(names[run], seed, rules) for run, seed in jobs), len(jobs), progress)
    else:
        with pool:
            futures = [pool.submit(job, names[run], seed, rules) for run, seed in jobs]
            done = _iterate((f.result() for f in futures), len(futures), progress)
    scores: dict[str, dict[str, dict[str, dict[str, float]]]] = {run: {rule: {} for rule in rules} for run in names}
    for (run, _), part in zip(jobs, done):
        for rule in rules:
            scores[run][rule] |= part[rule]
    return scores


def run_stretch(
    task: str,
    scheme: str = "rope",
    *,
    rules: Sequence[str] = STRETCH_RULES,
    workers: int = 2,
    progress: bool = True,
    start_method: str = "spawn",
) -> dict[str, Any]:
    """``stretch_scores`` of the committed annealed models of ``task``
    (``annealed_<task>_<scheme>``) and of their rerun under other CPU kernels
    (``annealed_<task>_<scheme>_rerun``), one job per (run, seed) in
    ``workers`` processes of one thread, as a JSON-ready dict: ``scores``
    holds ``{"committed": ..., "rerun": ...}``, each ``stretch_scores``'s
    dict, beside ``scale``, ``original_max_len``, ``rules``, the config and
    the timing.

    Raises:
        ValueError: for a task that is not one of ``TASKS``, a scheme other
            than ``"rope"``, or ``workers`` not positive.
        FileNotFoundError: if an annealed result is not installed.
    """
    from .results import load

    task = check_choice("task", task, TASKS)
    scheme = check_choice("scheme", scheme, ("rope",))
    workers = check_positive_int("workers", workers)
    check_choice("start_method", start_method, ("spawn", "fork", "forkserver"))
    names = {"committed": f"annealed_{task}_{scheme}", "rerun": f"annealed_{task}_{scheme}_rerun"}
    stored = {run: load(name) for run, name in names.items()}
    stretch_scores(stored["committed"], rules, seeds=[])  # validates rules before any work
    rules = tuple(rules)
    scale, longest = stretch_setting(stored["committed"])
    start = time.perf_counter()
    scores = _score_both_runs(_stretch_job, names, stored, rules, workers, progress, start_method)
    return {
        "book_version": __version__,
        "stretch": True,
        "task": task,
        "scheme": scheme,
        "sources": names,
        "scale": scale,
        "original_max_len": longest,
        "rules": list(rules),
        "config": stored["committed"]["config"],
        "scores": scores,
        "timing": {"wall_seconds": round(time.perf_counter() - start, 2), "workers": workers, "machine": _machine()},
    }


#: Chapter 9's fine-tune of its ``local_sum`` models: the input length (in
#: tokens), the number of training steps and the peak learning rate (read-only).
FINE_TUNE: Mapping[str, Any] = MappingProxyType({"length": 128, "steps": 30, "lr": 1e-3})


def fine_tune_scores(
    results: Mapping[str, Any],
    rules: Sequence[str] = STRETCH_RULES,
    *,
    seeds: Sequence[int] | None = None,
) -> dict[str, dict[str, dict[str, float]]]:
    """Fine-tune the ``local_sum`` models of a ``run_annealed`` results dict
    under each scaling rule, then score them, as chapter 9 does.

    For each seed and rule, a copy of the model gets ``rule``'s frequencies
    for ``scale = length / train_len`` and ``original_max_len = train_len``
    (``TinyTransformer.set_rope_scaling``; ``length``, ``steps`` and ``lr``
    from ``FINE_TUNE``). ``book.models.train`` trains it ``steps`` steps at
    peak rate ``lr`` (its warm-up and cosine schedule, no early stopping,
    its generator seeded with the model's seed) on ``local_sum`` batches of
    ``length`` tokens (``config.batch`` sequences, ``config.offsets``). With
    the rule's frequencies still on, ``book.models.accuracy_by_position``
    scores it on the held-out batch of ``length`` tokens
    (``book.experiments.held_out_batch(config, seed, length)``). ``within``
    is the mean accuracy at positions ``1 .. train_len - 1`` (position 0 has
    no target) and ``past`` at ``train_len .. length - 1``, unrounded.

    Args:
        results: ``run_annealed``'s dict of a ``local_sum`` RoPE run
            (``book.results.load("annealed_local_sum_rope")``).
        rules: names of ``book.scaling.RULES`` (default ``STRETCH_RULES``).
        seeds: the seeds to fine-tune (default: all of ``results``); the
            result lists them in increasing order.

    Returns:
        ``{rule: {str(seed): {"within": w, "past": p}}}``.

    Raises:
        TypeError: if ``results`` is not ``run_annealed``'s dict, or ``rules``
            or ``seeds`` is a string or not a sequence.
        ValueError: for an unknown or repeated rule, no rules, a seed that
            ``results`` does not hold, a task other than ``local_sum`` or a
            model that is not a RoPE model.
    """
    import copy

    from .tasks import local_sum

    results = _annealed_results(results)
    if not isinstance(results.get("config"), Mapping):
        raise TypeError("results must be the dict that book.annealed.run_annealed returns (it has no config)")
    if results["config"].get("task") != "local_sum":
        raise ValueError(f"results must be a local_sum run to fine-tune, got task {results['config'].get('task')!r}")
    if results.get("scheme") != "rope":
        raise ValueError(f"results must hold RoPE models to fine-tune, got scheme {results.get('scheme')!r}")
    stretch_scores(results, rules, seeds=[])  # validates the rules
    rules = tuple(rules)
    held = tuple(sorted(int(seed) for seed in results["runs"]))
    if seeds is None:
        seeds = held
    if isinstance(seeds, str) or not isinstance(seeds, Sequence):
        raise TypeError(f"seeds must be a sequence of ints, got {type(seeds).__name__} {seeds!r}")
    seeds = tuple(sorted({check_choice("seeds", seed, held) for seed in seeds}))
    config = Config.from_results(dict(results))
    length, steps, lr = FINE_TUNE["length"], FINE_TUNE["steps"], FINE_TUNE["lr"]
    L = config.train_len

    def long_batch(generator: torch.Generator) -> Any:
        return local_sum(config.batch, length, offsets=config.offsets, generator=generator)

    models = annealed_models({**results, "runs": {str(seed): results["runs"][str(seed)] for seed in seeds}})
    out: dict[str, dict[str, dict[str, float]]] = {rule: {} for rule in rules}
    for rule in rules:
        for seed, model in models.items():
            tuned = copy.deepcopy(model)
            tuned.set_rope_scaling(rule=rule, scale=length / L, original_max_len=L)
            train(tuned, long_batch, steps=steps, lr=lr, seed=seed)
            acc = accuracy_by_position(tuned, held_out_batch(config, seed, length))
            out[rule][str(seed)] = {"within": float(acc[1:L].mean()), "past": float(acc[L:].mean())}
    return out


def _fine_tune_job(name: str, seed: int, rules: tuple[str, ...]) -> dict[str, dict[str, dict[str, float]]]:
    """``fine_tune_scores`` of one seed of the committed result ``name``, on one thread; runs in a worker."""
    return _one_thread(fine_tune_scores, name, seed, rules)


def run_fine_tune(
    task: str = "local_sum",
    scheme: str = "rope",
    *,
    rules: Sequence[str] = STRETCH_RULES,
    workers: int = 2,
    progress: bool = True,
    start_method: str = "spawn",
) -> dict[str, Any]:
    """``fine_tune_scores`` of the committed annealed models of ``task``
    (``annealed_<task>_<scheme>``) and of their rerun under other CPU kernels
    (``annealed_<task>_<scheme>_rerun``), one job per (run, seed) in
    ``workers`` processes of one thread, as a JSON-ready dict: ``scores``
    holds ``{"committed": ..., "rerun": ...}``, each ``fine_tune_scores``'s
    dict, beside ``fine_tune`` (``FINE_TUNE``), ``rules``, the config and the
    timing.

    Args:
        task: ``"local_sum"``, the one task chapter 9 fine-tunes.
        scheme: ``"rope"``.
        rules: names of ``book.scaling.RULES`` (default ``STRETCH_RULES``).
        workers: processes; with 1 the jobs run in this process.
        progress: show a ``tqdm`` progress bar.
        start_method: how worker processes start (``"spawn"``, ``"fork"`` or
            ``"forkserver"``).

    Raises:
        ValueError: for a task other than ``local_sum``, a scheme other than
            ``"rope"``, ``workers`` not positive, an unknown or repeated rule
            or an unknown ``start_method``.
        TypeError: if ``rules`` is a string or not a sequence, or ``progress``
            is not True or False.
        FileNotFoundError: if an annealed result is not installed.
    """
    from .results import load

    task = check_choice("task", task, ("local_sum",))
    scheme = check_choice("scheme", scheme, ("rope",))
    workers = check_positive_int("workers", workers)
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    check_choice("start_method", start_method, ("spawn", "fork", "forkserver"))
    names = {"committed": f"annealed_{task}_{scheme}", "rerun": f"annealed_{task}_{scheme}_rerun"}
    stored = {run: load(name) for run, name in names.items()}
    fine_tune_scores(stored["committed"], rules, seeds=[])  # validates rules before any work
    rules = tuple(rules)
    start = time.perf_counter()
    scores = _score_both_runs(_fine_tune_job, names, stored, rules, workers, progress, start_method)
    return {
        "book_version": __version__,
        "fine_tune": dict(FINE_TUNE),
        "task": task,
        "scheme": scheme,
        "sources": names,
        "rules": list(rules),
        "config": stored["committed"]["config"],
        "scores": scores,
        "timing": {"wall_seconds": round(time.perf_counter() - start, 2), "workers": workers, "machine": _machine()},
    }
