"""The command line of ``python -m book.experiments``: its options, and the
``Config`` they ask for. ``book.experiments.main`` runs it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .experiments import TASKS, Config
from .models import SCHEMES


def parser() -> argparse.ArgumentParser:
    """The parser of ``python -m book.experiments``, its defaults those of ``Config``."""
    d = Config()
    p = argparse.ArgumentParser(
        prog="python -m book.experiments",
        description="Train a tiny Transformer once per position scheme and seed at one length, "
        "then test it on longer inputs (chapter 8 of Positional Encoding, Interactively). "
        "With no options: the local_sum task, six schemes, seeds 0 1 2 3 4. With --suite: the "
        "benchmark (book.benchmark), 3 tasks x 7 schemes x 5 seeds x 3 learning rates.",
    )
    p.add_argument(
        "--task",
        choices=TASKS,
        default=None,
        help="fibonacci: each token is the sum of the two before it mod 10, scored by position; "
        "local_sum: i.i.d. tokens, each target the sum mod 10 of the tokens --offsets back, "
        "scored by position; copy: BOS x1..xn SEP x1..xn, scored by n; recall: key-value pairs, "
        "then queries, scored by the number of pairs (default: local_sum; with --suite: "
        "the one benchmark task to run, default all three)",
    )
    p.add_argument(
        "--suite",
        action="store_true",
        help="run the benchmark's configs (book.benchmark.benchmark_config: every scheme, 5 seeds, a "
        "3-value learning-rate sweep) for local_sum, recall and copy, or for --task only, and write "
        "book/results/benchmark_<task>.json (or into the folder --output); only --task, --workers, "
        "--output and --quiet apply",
    )
    p.add_argument(
        "--anneal",
        choices=SCHEMES,
        metavar="SCHEME",
        help="with --suite and one --task: train SCHEME's 5 seeds to the step cap, with no early stopping, "
        "at the learning rate the committed sweep chose, and write book/results/annealed_<task>_<scheme>.json "
        "with the weights (chapter 9 reads local_sum's rope); with --rerun, annealed_<task>_<scheme>_rerun.json",
    )
    p.add_argument(
        "--stretch",
        choices=("rope",),
        metavar="SCHEME",
        help="with --suite and one --task: score the committed annealed models of SCHEME (rope) and their "
        "rerun under chapter 9's scaling rules at the benchmark's test lengths (book.annealed.run_stretch), "
        "and write book/results/stretch_<task>_<scheme>.json",
    )
    p.add_argument(
        "--fine-tune",
        choices=("rope",),
        metavar="SCHEME",
        help="with --suite and --task local_sum: fine-tune the committed annealed models of SCHEME (rope) and "
        "their rerun briefly at 128 tokens under each of chapter 9's scaling rules, score them "
        "(book.annealed.run_fine_tune), and write book/results/finetune_local_sum_<scheme>.json",
    )
    p.add_argument(
        "--rerun",
        action="store_true",
        help="with --suite: run the suite again, sweep included, and write "
        "book/results/benchmark_<task>_rerun.json with the CPU capability; run it under another "
        "ATEN_CPU_CAPABILITY to measure how far another CPU moves the results (chapter 8's margins); "
        "with --anneal, the annealed models again (chapter 9's margins)",
    )
    p.add_argument(
        "--every-rate",
        action="store_true",
        help="with --suite: test the models of every learning rate of the sweep, not only the chosen "
        "rate's, and write book/results/benchmark_<task>_every_rate.json (how far the choice of rate "
        "moves each result)",
    )
    p.add_argument(
        "--offsets",
        nargs="+",
        type=int,
        default=list(d.offsets),
        help="local_sum: how far back the summed tokens lie (default: 0 1, the token and the one before it)",
    )
    p.add_argument(
        "--schemes",
        nargs="+",
        choices=SCHEMES,
        default=list(d.schemes),
        metavar="SCHEME",
        help=f"position schemes to train, from {' '.join(SCHEMES)} (default: {' '.join(d.schemes)})",
    )
    p.add_argument("--seeds", nargs="+", type=int, default=list(d.seeds), help="seeds (default: 0 1 2 3 4)")
    p.add_argument("--steps", type=int, default=d.steps, help="training steps per model (default: %(default)s)")
    p.add_argument(
        "--train-len",
        type=int,
        default=d.train_len,
        help="training length: tokens (fibonacci) or n (copy) (default: %(default)s)",
    )
    p.add_argument(
        "--test-len",
        type=int,
        default=d.test_len,
        help="longest test length, same unit (default: %(default)s; use 16 with --task copy and --train-len 8)",
    )
    p.add_argument("--batch", type=int, default=d.batch, help="sequences per step (default: %(default)s)")
    p.add_argument("--lr", type=float, default=d.lr, help="peak learning rate of AdamW (default: %(default)s)")
    p.add_argument(
        "--stop-loss",
        type=loss_or_none,
        default=d.stop_loss,
        help="stop a model once its mean training loss over the last --stop-window steps is below "
        "this (--steps is then a cap); 'none' trains every model for all --steps "
        "(default: %(default)s)",
    )
    p.add_argument(
        "--stop-window",
        type=int,
        default=d.stop_window,
        help="steps averaged by the --stop-loss rule (default: %(default)s)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=2,
        help="processes, one CPU thread each; results do not depend on it (default: %(default)s)",
    )
    p.add_argument("--output", type=Path, help="write the results as JSON to this path (--suite: this folder)")
    p.add_argument(
        "--benchmark",
        action="store_true",
        help="print the wall time of the run, seconds per scheme and steps per second",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def loss_or_none(text: str) -> float | None:
    """``--stop-loss``'s value: a number, or ``none``."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number or 'none', got {text!r}") from None


def config_from_args(args: argparse.Namespace) -> Config:
    """The ``Config`` that the command line's parsed options ask for.

    Raises:
        TypeError / ValueError: as ``Config``, for a bad option value.
    """
    return Config(
        task=args.task or Config().task,
        schemes=tuple(args.schemes),
        seeds=tuple(args.seeds),
        steps=args.steps,
        train_len=args.train_len,
        test_len=args.test_len,
        batch=args.batch,
        lr=args.lr,
        offsets=tuple(args.offsets),
        stop_loss=args.stop_loss,
        stop_window=args.stop_window,
    )


def _write_scores(result: dict, path: Path) -> None:
    """Write a ``run_stretch`` or ``run_fine_tune`` result to ``path`` and
    print each rule's scores by run, seed and part, and where it went."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for rule in result["rules"]:
        parts = [
            f"{run} {part} " + " ".join(f"{v[part]:.1%}" for v in result["scores"][run][rule].values())
            for run in ("committed", "rerun")
            for part in ("within", "past")
        ]
        print(f"{rule:<10} " + "; ".join(parts))
    print(f"results written to {path} ({result['timing']['wall_seconds']:.1f} s)")


def run_suite_from_args(args: argparse.Namespace) -> int:
    """``--suite``: run ``book.benchmark.run_suite`` for ``--task`` (or every
    benchmark task), print each task's table and the wall time, return 0."""
    import sys

    from . import benchmark

    if args.task is not None and args.task not in benchmark.TASKS:
        parser().error(f"--suite runs the tasks {', '.join(benchmark.TASKS)}, not --task {args.task}")
    tasks = benchmark.TASKS if args.task is None else (args.task,)
    if args.every_rate and (args.rerun or args.anneal is not None or args.stretch is not None or args.fine_tune):
        parser().error("--every-rate runs the sweep alone: not with --rerun, --anneal, --stretch or --fine-tune")
    start_method = "fork" if sys.platform == "linux" else "spawn"
    if args.fine_tune is not None:
        if args.task != "local_sum" or args.anneal is not None or args.stretch is not None or args.rerun:
            parser().error("--fine-tune needs --task local_sum, and none of --anneal, --stretch or --rerun")
        from .annealed import run_fine_tune

        tuned = run_fine_tune(
            args.task, args.fine_tune, workers=args.workers, progress=not args.quiet, start_method=start_method
        )
        path = (
            args.output or Path(benchmark.__file__).parent / "results"
        ) / f"finetune_{args.task}_{args.fine_tune}.json"
        _write_scores(tuned, path)
        return 0
    if args.stretch is not None:
        if args.task is None or args.anneal is not None or args.rerun:
            parser().error("--stretch needs one --task, and neither --anneal nor --rerun")
        from .annealed import run_stretch

        stretched = run_stretch(
            args.task, args.stretch, workers=args.workers, progress=not args.quiet, start_method=start_method
        )
        path = (args.output or Path(benchmark.__file__).parent / "results") / f"stretch_{args.task}_{args.stretch}.json"
        _write_scores(stretched, path)
        return 0
    if args.anneal is not None:
        if args.task is None:
            parser().error("--anneal needs one --task")
        from .annealed import run_annealed

        results = run_annealed(
            args.task,
            args.anneal,
            workers=args.workers,
            progress=not args.quiet,
            start_method=start_method,
            rerun=args.rerun,
        )
        name = f"annealed_{args.task}_{args.anneal}{'_rerun' if args.rerun else ''}.json"
        path = (args.output or Path(benchmark.__file__).parent / "results") / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        for seed, r in results["runs"].items():
            print(
                f"seed {seed}: {r['steps']} steps, final loss {r['final_loss']:.2g}, "
                f"validation {r['validation']:.2%}, rule first met at step {r['first_stop_step']}"
            )
        print(f"results written to {path} ({results['timing']['wall_seconds']:.1f} s)")
        return 0
    out = benchmark.run_suite(
        tasks,
        folder=args.output,
        workers=args.workers,
        progress=not args.quiet,
        start_method=start_method,
        rerun=args.rerun,
        every_rate=args.every_rate,
    )
    for task, results in out.items():
        print(benchmark.suite_table(results))
        path = benchmark.results_path(task, args.output, rerun=args.rerun, every_rate=args.every_rate)
        print(f"results written to {path}")
    if args.rerun:
        print(f"CPU capability {next(iter(out.values()))['cpu_capability']}")
    first = next(iter(out.values()))["timing"]
    print(f"suite wall time {first['suite_seconds']:.1f} s ({first['workers']} worker processes)")
    return 0
