"""Chapter 8's benchmark at every learning rate, not only the chosen one.

For each task and scheme the benchmark (``book.benchmark``) trains every seed
at three learning rates and ``choose_lr`` keeps one, on the validation loss.
``python -m book.experiments --suite --every-rate`` tests the models of every
rate as well and writes ``book/results/benchmark_<task>_every_rate.json``,
whose ``sweep[scheme][str(lr)]`` holds each seed's test ``curve`` beside its
validation loss and stopping-rule verdict. This module reads that file:

* ``near_best_rates``: the rates of each scheme that train within the
  training length almost as well as the chosen one (``NEAR_BEST_RULE``), at
  which chapter 8 checks every statement again;
* ``past_at_rate``: each seed's accuracy past the training length at one of
  those rates, the same summary as ``book.experiments.within_and_past``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Mapping

from ._validate import check_choice

__all__ = ["NEAR_BEST_FACTOR", "NEAR_BEST_RULE", "near_best_rates", "past_at_rate"]

#: How much higher than the chosen rate's a near-best rate's mean validation loss may be (a factor).
NEAR_BEST_FACTOR = 1.10
#: Which rates ``near_best_rates`` keeps, in words.
NEAR_BEST_RULE = (
    "the learning rates whose seeds all met the stopping rule and whose mean validation loss "
    "is at most 1.10 times the chosen rate's (the chosen rate always counts)"
)


def _sweep(results: Any) -> Mapping[str, Any]:
    """``results["sweep"]``, after checking that ``results`` is an every-rate file."""
    if not isinstance(results, Mapping) or not {"sweep", "chosen_lr", "config"} <= set(results):
        raise TypeError("results must be a benchmark results dict with 'config', 'sweep' and 'chosen_lr'")
    if results.get("every_rate") is not True:
        raise ValueError(
            "results must come from the sweep with every rate's models tested "
            "(every_rate is true; python -m book.experiments --suite --every-rate)"
        )
    sweep = results["sweep"]
    if not isinstance(sweep, Mapping):
        raise TypeError("results['sweep'] must map each scheme to its rates")
    return sweep


def _rate_key(per_rate: Mapping[str, Any], lr: Any, scheme: str) -> str:
    """The key of ``per_rate`` whose rate equals ``lr``."""
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
        raise TypeError(f"lr must be a real number, got {type(lr).__name__} {lr!r}")
    for key in per_rate:
        if float(key) == float(lr):
            return key
    raise ValueError(f"lr must be one of the rates swept for {scheme}, {sorted(float(k) for k in per_rate)}; got {lr}")


def near_best_rates(results: Mapping[str, Any], factor: float = NEAR_BEST_FACTOR) -> dict[str, list[float]]:
    """Each scheme's near-best learning rates (``NEAR_BEST_RULE``).

    A rate is near-best when every seed trained at it met the stopping rule
    and its mean validation loss over the seeds (``book.benchmark.validation_loss``,
    within the training length) is at most ``factor`` times the chosen
    rate's (``results["chosen_lr"]``, picked by ``book.benchmark.choose_lr``).
    The chosen rate always counts. With ``factor=math.inf`` every rate whose
    seeds all met the stopping rule counts.

    Args:
        results: an every-rate results file, as ``book.results.load`` returns it
            (``benchmark_<task>_every_rate``).
        factor: a real number >= 1, or ``math.inf``.

    Returns:
        For each scheme of the sweep, its near-best rates, smallest first.

    Raises:
        TypeError: if ``results`` is not a benchmark results dict, or
            ``factor`` not a real number.
        ValueError: if ``results`` is not an every-rate file, ``factor`` is
            below 1 or NaN, or a scheme's chosen rate is not in its sweep.
    """
    sweep = _sweep(results)
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real):
        raise TypeError(f"factor must be a real number, got {type(factor).__name__} {factor!r}")
    if not float(factor) >= 1:
        raise ValueError(f"factor must be at least 1 (the chosen rate's own loss), got {factor}")
    near: dict[str, list[float]] = {}
    for scheme, per_rate in sweep.items():
        chosen = _rate_key(per_rate, results["chosen_lr"][scheme], scheme)

        def mean_loss(key: str, per_rate: Mapping[str, Any] = per_rate) -> float:
            losses = list(per_rate[key]["validation_loss"].values())
            return sum(losses) / len(losses)

        bound = float(factor) * mean_loss(chosen)
        near[scheme] = sorted(
            float(key)
            for key, record in per_rate.items()
            if key == chosen
            or (
                all(record["met_stop_rule"].values())
                and math.isfinite(loss := mean_loss(key))
                and (math.isinf(factor) or loss <= bound)
            )
        )
    return near


def past_at_rate(results: Mapping[str, Any], scheme: str, lr: float) -> list[float]:
    """Each seed's mean test accuracy past the training length, at rate ``lr``.

    The summary of ``book.experiments.within_and_past`` (the mean of
    ``curve[train_len:]``, ``None`` entries skipped, seeds marked
    ``excluded`` left out), taken from ``results["sweep"][scheme][lr]``
    instead of the chosen rate's ``runs``. At the chosen rate it equals
    ``within_and_past(results)[1][scheme]``.

    Args:
        results: an every-rate results file (``benchmark_<task>_every_rate``).
        scheme: one of the sweep's schemes.
        lr: one of that scheme's swept learning rates.

    Returns:
        One accuracy per seed that counts, in the order of the file's seeds.

    Raises:
        TypeError: if ``results`` is not a benchmark results dict or ``lr``
            not a real number.
        ValueError: if ``results`` is not an every-rate file, ``scheme`` or
            ``lr`` is not in its sweep, or a seed's curve has no score past
            the training length.
    """
    sweep = _sweep(results)
    scheme = check_choice("scheme", scheme, tuple(sweep))
    record = sweep[scheme][_rate_key(sweep[scheme], lr, scheme)]
    cut = results["config"]["train_len"]
    out = []
    for seed, curve in record["curve"].items():
        if record["excluded"].get(seed):
            continue
        past = [x for x in curve[cut:] if x is not None]
        if not past:
            raise ValueError(f"the curve of {scheme}, seed {seed}, at lr {lr} has no score past train_len {cut}")
        out.append(sum(past) / len(past))
    return out
