"""The figures of chapter 8, "Train short, test long: six schemes head to head".

Figures: ``experiment_curves``, ``range_bars``, ``loss_curves``; the explorer's drawing:
``draw_results_explorer``, a pure function of the explorer's state: the explorer of
``book.widgets`` only wires controls to it, and the chapter's live twin
(``book.plots.live.live_twin``) shows it at a grid of states.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from ..tasks import copy_order_free_accuracy
from ._common import _new_figure
from .style import OKABE_ITO

__all__ = [
    "experiment_curves",
    "range_bars",
    "loss_curves",
    "draw_results_explorer",
]


def experiment_curves(
    ax: plt.Axes,
    results: dict,
    *,
    schemes: Sequence[str] | None = None,
    seeds: str = "band",
    title: str | None = None,
    chance: bool = False,
) -> None:
    """Chapter 8's picture: accuracy past the training length, from the JSON
    results of ``book.experiments``.

    For ``fibonacci`` and ``local_sum`` the x axis is the position in the test
    input; for ``copy`` it is the number ``n`` of symbols copied (the y axis
    whole copies right, or symbols right for ``copy_score="symbols"``), for
    ``recall`` the number ``n`` of key-value pairs.
    ``seeds="band"`` draws each scheme's mean over seeds with a band from the
    worst to the best seed; ``seeds="lines"`` draws every seed. A dotted line
    marks the training length; ``chance=True`` adds a dashed line at chance:
    a uniform guess among the ten digits or symbols (1/10), or among
    ``recall``'s values (1/4); none for whole copies. On ``copy`` scored by
    symbols it also adds a dash-dot line, "order-free guess", at every ``n``:
    the score of the best guess that ignores order,
    ``book.tasks.copy_order_free_accuracy(n)``.

    Raises:
        ValueError: for ``seeds`` other than ``"band"``/``"lines"``, or a
            scheme not in the results.
    """
    if seeds not in ("band", "lines"):
        raise ValueError(f"seeds must be 'band' or 'lines', got {seeds!r}")
    config, runs = results["config"], results["runs"]
    schemes = list(runs) if schemes is None else list(schemes)
    unknown = [s for s in schemes if s not in runs]
    if unknown:
        raise ValueError(f"schemes must be among the results' {list(runs)}, got {unknown}")
    by_position = config["task"] not in ("copy", "recall")
    for n, scheme in enumerate(schemes):
        color = OKABE_ITO[n % len(OKABE_ITO)]
        curves = np.array([[np.nan if c is None else c for c in r["curve"]] for r in runs[scheme].values()])
        x = np.arange(curves.shape[1]) if by_position else np.arange(1, curves.shape[1] + 1)
        scored = ~np.all(np.isnan(curves), axis=0)  # by position: the first targets are never scored
        x, curves = x[scored], curves[:, scored]
        if seeds == "band":
            ax.fill_between(x, np.nanmin(curves, 0), np.nanmax(curves, 0), color=color, alpha=0.2, lw=0)
            ax.plot(x, np.nanmean(curves, 0), color=color, label=scheme)
        else:
            for k, curve in enumerate(curves):
                ax.plot(x, curve, color=color, lw=1, alpha=0.8, label=scheme if k == 0 else None)
    edge = config["train_len"] - 0.5 if by_position else config["train_len"] + 0.5
    ax.axvline(edge, color="0.4", ls=":", label="training length")
    whole = config["task"] == "copy" and config.get("copy_score", "whole") == "whole"
    if chance and not whole:
        level = 1 / config.get("n_values", 4) if config["task"] == "recall" else 0.1
        ax.axhline(level, color="k", ls="--", lw=1, label=f"chance (1/{round(1 / level)})")
        if config["task"] == "copy":
            sizes = np.arange(1, len(next(iter(runs[schemes[0]].values()))["curve"]) + 1)
            guess = [copy_order_free_accuracy(int(k)) for k in sizes]
            ax.plot(sizes, guess, color="k", ls="-.", lw=1, label="order-free guess")
    xlabel = {"copy": "symbols to copy, n", "recall": "key-value pairs, n"}.get(
        config["task"], "position in the test input"
    )
    ylabel = {"copy": "whole copies right" if whole else "copied symbols right", "recall": "queries answered right"}
    ax.set(
        xlabel=xlabel,
        ylabel=ylabel.get(config["task"], "accuracy"),
        ylim=(-0.02, 1.02),
        title=title if title is not None else f"{config['task']}: trained at {config['train_len']}",
    )


def range_bars(ax: plt.Axes, results: dict, *, title: str | None = None) -> dict[str, dict[str, list[float]]]:
    """Chapter 8's summary: accuracy per range of test positions, per scheme,
    from ``book.experiments.by_range(results)``.

    One group of bars per range (within the training length, then 1-1.25x,
    1.25-1.5x, 1.5-2x and 2-4x it); in each group one bar per scheme, its
    height the worst seed and a black tick at the best seed, so the bar shows
    what holds on every seed. A dashed line marks chance (1/10).
    Returns the ``by_range`` numbers drawn.

    Raises:
        ValueError: for copy results (``by_range`` reads curves by position).
    """
    from ..experiments import by_range

    table = by_range(results)
    schemes = list(table)
    ranges = list(next(iter(table.values())))
    width = 0.8 / len(schemes)
    for n, scheme in enumerate(schemes):
        x = np.arange(len(ranges)) + (n - (len(schemes) - 1) / 2) * width
        lo = [min(table[scheme][r]) for r in ranges]
        hi = [max(table[scheme][r]) for r in ranges]
        ax.bar(x, lo, width, color=OKABE_ITO[n % len(OKABE_ITO)], label=scheme)
        ax.hlines(hi, x - width / 2, x + width / 2, color="k", lw=1.5)
    ax.axhline(0.1, color="k", ls="--", lw=1, label="chance (1/10)")
    ax.set_xticks(np.arange(len(ranges)), ["within" if r == "0-1x" else r for r in ranges])
    ax.set(
        xlabel="test positions, as multiples of the training length",
        ylabel="accuracy (bar: worst seed, tick: best)",
        ylim=(0, 1.05),
        title=title if title is not None else f"{results['config']['task']}: accuracy by range",
    )
    return table


def loss_curves(
    ax: plt.Axes,
    results: dict,
    *,
    schemes: Sequence[str] | None = None,
    title: str | None = None,
    threshold: bool = True,
) -> None:
    """Chapter 8's training curves: each seed's ``loss_curve`` (the mean
    training loss per ``book.experiments.LOSS_EVERY`` steps), one colour per
    scheme, on a log axis.

    Each point is drawn at the last step of its block, so a curve ends at the
    step its model stopped (a run's ``steps``; the last block may be shorter).
    Where a run records ``met_stop_rule``, its end is marked: a dot if it met
    the stopping rule, a cross if it reached the step cap first (one legend
    entry each, "met the rule" and "reached the cap", drawn in grey; the
    markers themselves carry that text as their ``gid``). With ``threshold`` and
    an early-stopping config (``stop_loss`` set), a dashed grey line marks
    ``stop_loss``, labelled with the rule (the mean of the last
    ``stop_window`` losses below it). The rule applies to that window's mean,
    not to the plotted block means, so a curve that met it can end above the
    line.

    Raises:
        ValueError: for a scheme not in the results, or results without loss curves.
    """
    from ..experiments import LOSS_EVERY

    runs = results["runs"]
    schemes = list(runs) if schemes is None else list(schemes)
    unknown = [s for s in schemes if s not in runs]
    if unknown:
        raise ValueError(f"schemes must be among the results' {list(runs)}, got {unknown}")
    ends: dict[bool, list[tuple[float, float, str]]] = {True: [], False: []}
    for n, scheme in enumerate(schemes):
        colour = OKABE_ITO[n % len(OKABE_ITO)]
        for k, r in enumerate(runs[scheme].values()):
            if "loss_curve" not in r:
                raise ValueError("results must hold a loss_curve per run, as book.experiments.run writes")
            y = np.asarray(r["loss_curve"])
            steps = r.get("steps", LOSS_EVERY * len(y))
            x = np.minimum(LOSS_EVERY * np.arange(1, len(y) + 1), steps)
            ax.plot(x, y, color=colour, lw=1, alpha=0.8, label=scheme if k == 0 else None)
            if r.get("met_stop_rule") is not None:
                ends[bool(r["met_stop_rule"])].append((x[-1], y[-1], colour))
    for met, marker, label in [(True, "o", "met the rule"), (False, "x", "reached the cap")]:
        if ends[met]:
            xs, ys, colours = zip(*ends[met])
            style: dict[str, Any] = dict(marker=marker, s=18, linewidths=0.5 if met else 1.2)
            if met:
                style["edgecolors"] = "0.2"
            ax.scatter(xs, ys, c=list(colours), zorder=3, gid=label, **style)
            ax.scatter([], [], c="0.4", label=label, **style)  # grey legend entry
    config = results.get("config", {})
    if threshold and config.get("stop_loss") is not None:
        window = config.get("stop_window")
        rule = f"{window}-step mean" if window else "mean"
        ax.axhline(config["stop_loss"], color="0.4", ls="--", lw=1, label=f"stop: {rule} < {config['stop_loss']:g}")
    ax.set_yscale("log")
    ax.set(
        xlabel="training step",
        ylabel=f"training loss, {LOSS_EVERY}-step means",
        title=title if title is not None else "training loss, every seed",
    )


def draw_results_explorer(
    results: Mapping[str, dict], *, task: str, schemes: Sequence[str] | None = None, seeds: str = "band"
) -> plt.Figure:
    """Chapter 8's explorer: ``experiment_curves`` of one task of ``results``
    (a task name mapped to the JSON dict of ``book.experiments``) for the
    chosen ``schemes`` (default: all of the task's), each seed as a band
    (``seeds="band"``) or as lines (``"lines"``), with the training length
    and chance. A scheme the task does not hold is skipped (the tasks may
    hold different schemes); the title names the schemes skipped.

    Raises:
        ValueError: if ``task`` is not in ``results``, or none of ``schemes``
            is in the task's results (and as ``experiment_curves`` for ``seeds``).
    """
    if task not in results:
        raise ValueError(f"task must be one of {list(results)}, got {task!r}")
    runs = results[task]["runs"]
    wanted = list(runs) if schemes is None else list(schemes)
    chosen = [s for s in wanted if s in runs]
    if not chosen:
        raise ValueError(f"schemes must include at least one of the task's schemes {list(runs)}, got {wanted}")
    fig, (ax,) = _new_figure(1, (7.0, 3.3))
    experiment_curves(ax, results[task], schemes=chosen, seeds=seeds, chance=True)
    ax.legend(fontsize=8, ncol=3)
    skipped = [s for s in wanted if s not in runs]
    if skipped:
        ax.set_title(f"{ax.get_title()} ({', '.join(skipped)}: not run on this task)")
    return fig
