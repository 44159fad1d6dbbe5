"""Chapter 8's benchmark at every learning rate, not only the chosen one.

For each task and scheme the benchmark (``book.benchmark``) trains every seed
at three learning rates and ``choose_lr`` keeps one, on the validation loss.
``python -m book.experiments --suite --every-rate`` tests the models of every
rate as well and writes ``book/results/benchmark_<task>_every_rate.json``,
whose ``sweep[scheme][str(lr)]`` holds each seed's test ``curve`` (and, on
``copy``, ``whole_curve``) beside its validation loss and stopping-rule
verdict. This module reads that file:

* ``admitted_rates``: each scheme's admitted rates, those at which every
  seed met the stopping rule (``ADMISSION_RULE``), at which chapter 8
  checks every accuracy statement again;
* ``validation_losses``: each seed's validation loss at one rate, which
  ``book.benchmark.choose_lr`` compares;
* ``past_at_rate``, ``within_at_rate`` and ``whole_past_at_rate``: each
  seed's accuracy past and within the training length, and its whole-copy
  rate past it, at one rate: the summaries of
  ``book.experiments.within_and_past`` and of chapter 8's whole copies.
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping

from ._validate import check_choice

__all__ = [
    "ADMISSION_RULE",
    "admitted_rates",
    "past_at_rate",
    "validation_losses",
    "whole_past_at_rate",
    "within_at_rate",
]

#: Which rates ``admitted_rates`` keeps, in words.
ADMISSION_RULE = "the learning rates at which every seed met the stopping rule (the chosen rate always counts)"


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


def _rate_key(per_rate: Mapping[str, Any], lr: Any, scheme: str, name: str = "lr") -> str:
    """The key of ``per_rate`` whose rate equals ``lr`` (``name``: the parameter, in errors)."""
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(lr).__name__} {lr!r}")
    for key in per_rate:
        if float(key) == float(lr):
            return key
    raise ValueError(
        f"{name} must be one of the rates swept for {scheme}, {sorted(float(k) for k in per_rate)}; got {lr}"
    )


def _record(results: Mapping[str, Any], scheme: str, lr: float) -> Mapping[str, Any]:
    """``results["sweep"][scheme][lr]``, after checking both."""
    sweep = _sweep(results)
    scheme = check_choice("scheme", scheme, tuple(sweep))
    return sweep[scheme][_rate_key(sweep[scheme], lr, scheme)]


def admitted_rates(results: Mapping[str, Any]) -> dict[str, list[float]]:
    """Each scheme's admitted learning rates: those at which every seed met the stopping rule.

    ``ADMISSION_RULE`` says it in words. A rate is admitted when every seed
    trained at it met the benchmark's stopping rule (its ``met_stop_rule``,
    ``book.benchmark``). The rule stops a model when it meets it, so an
    admitted rate's models met the rule; they need not have settled. The
    chosen rate
    (``results["chosen_lr"]``, picked by ``book.benchmark.choose_lr`` on the
    validation loss) always counts. No rate is left out for its validation
    loss: the rerun of the suite under other CPU kernels moved a
    rate's mean validation loss by more than 10% (chapter 8), so a 10%
    threshold on it would not pick the same rates on another CPU.

    Args:
        results: an every-rate results file, as ``book.results.load`` returns it
            (``benchmark_<task>_every_rate``).

    Returns:
        For each scheme of the sweep, its admitted rates, smallest first.

    Raises:
        TypeError: if ``results`` is not a benchmark results dict, or a
            chosen rate not a real number.
        ValueError: if ``results`` is not an every-rate file, or
            ``results['chosen_lr']`` lacks a scheme of the sweep or names a
            rate not in that scheme's sweep.
    """
    sweep = _sweep(results)
    chosen_lr = results["chosen_lr"]
    out: dict[str, list[float]] = {}
    for scheme, per_rate in sweep.items():
        if scheme not in chosen_lr:
            raise ValueError(f"results['chosen_lr'] must name a rate for every scheme; {scheme} has none")
        chosen = _rate_key(per_rate, chosen_lr[scheme], scheme, name=f"results['chosen_lr'][{scheme!r}]")
        out[scheme] = sorted(
            float(key) for key, record in per_rate.items() if key == chosen or all(record["met_stop_rule"].values())
        )
    return out


def validation_losses(results: Mapping[str, Any], scheme: str, lr: float) -> list[float]:
    """Each seed's validation loss at rate ``lr``, in the order of the file's seeds.

    The loss ``book.benchmark.choose_lr`` compares between rates (``book.benchmark.validation_loss``,
    on validation inputs within the training length), from ``results["sweep"][scheme][lr]``.

    Args:
        results: an every-rate results file (``benchmark_<task>_every_rate``).
        scheme: one of the sweep's schemes.
        lr: one of that scheme's swept learning rates.

    Returns:
        One loss per seed.

    Raises:
        TypeError: if ``results`` is not a benchmark results dict or ``lr``
            not a real number.
        ValueError: if ``results`` is not an every-rate file, or ``scheme``
            or ``lr`` is not in its sweep.
    """
    return [float(v) for v in _record(results, scheme, lr)["validation_loss"].values()]


def _per_seed(results: Mapping[str, Any], scheme: str, lr: float, key: str, part: str) -> list[float]:
    """The mean of each counted seed's ``key`` curve within (``part="within"``) or past the training length."""
    record = _record(results, scheme, lr)
    if key not in record:
        raise ValueError(f"results must hold each seed's {key} at every rate (a copy task's every-rate file)")
    cut = results["config"]["train_len"]
    out = []
    for seed, curve in record[key].items():
        if record["excluded"].get(seed):
            continue
        if not isinstance(curve, list):  # recall and local_sum store no whole copies: None
            raise ValueError(f"results must hold each seed's {key} at every rate (a copy task's every-rate file)")
        part_ = [x for x in (curve[:cut] if part == "within" else curve[cut:]) if x is not None]
        if not part_:
            where = "within" if part == "within" else "past"
            raise ValueError(f"the {key} of {scheme}, seed {seed}, at lr {lr} has no score {where} train_len {cut}")
        out.append(sum(part_) / len(part_))
    return out


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
    return _per_seed(results, scheme, lr, "curve", "past")


def within_at_rate(results: Mapping[str, Any], scheme: str, lr: float) -> list[float]:
    """Each seed's mean test accuracy within the training length, at rate ``lr``.

    The first summary of ``book.experiments.within_and_past`` (the mean of
    ``curve[:train_len]``, ``None`` entries skipped, seeds marked ``excluded``
    left out), from ``results["sweep"][scheme][lr]``. At the chosen rate it
    equals ``within_and_past(results)[0][scheme]``.

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
            ``lr`` is not in its sweep, or a seed's curve has no score
            within the training length.
    """
    return _per_seed(results, scheme, lr, "curve", "within")


def whole_past_at_rate(results: Mapping[str, Any], scheme: str, lr: float) -> list[float]:
    """Each seed's fraction of whole copies right past the training length, at rate ``lr``.

    The exact-match score of Kazemnejad et al.'s copy task, as chapter 8
    summarises it: the mean of ``whole_curve[train_len:]`` (``None``
    entries skipped, seeds marked ``excluded`` left out), from
    ``results["sweep"][scheme][lr]``.

    Args:
        results: an every-rate results file of the copy task
            (``benchmark_copy_every_rate``).
        scheme: one of the sweep's schemes.
        lr: one of that scheme's swept learning rates.

    Returns:
        One fraction per seed that counts, in the order of the file's seeds.

    Raises:
        TypeError: if ``results`` is not a benchmark results dict or ``lr``
            not a real number.
        ValueError: if ``results`` is not an every-rate file, ``scheme`` or
            ``lr`` is not in its sweep, its records hold no ``whole_curve``,
            or a seed's has no score past the training length.
    """
    return _per_seed(results, scheme, lr, "whole_curve", "past")
