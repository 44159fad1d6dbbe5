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
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Mapping

import torch

from . import __version__
from ._validate import check_choice, check_positive_int
from .benchmark import TASKS, _pool, benchmark_config, validation_score
from .experiments import Config, _iterate, _loss_curve, _machine, _new_model, _train_in_worker
from .models import SCHEMES, TinyTransformer, stop_rule_met, window_mean
from .results import state_from_json, state_to_json

__all__ = ["annealed_config", "run_annealed", "annealed_models"]


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
