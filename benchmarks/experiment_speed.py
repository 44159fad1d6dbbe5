"""Wall time of chapter 8's experiment against a baseline, side by side.

The baseline is the experiment as the book ran it before models stopped
early: the fibonacci task, 5 schemes x 3 seeds, all 300 steps
(``--stop-loss none``), the run stored in ``book/results/fibonacci.json``. The candidate is
whatever command line is given after ``--`` (default:
``python -m book.experiments``, today's default experiment). Each round runs the baseline and the candidate one after the
other, so that both see the same machine; the ratio printed is the median
over rounds of the same-round ratios. Run from the repository root::

    python benchmarks/experiment_speed.py               # 3 rounds
    python benchmarks/experiment_speed.py --rounds 1 -- --steps 500

The times are the experiments' own clocks (``--benchmark``: training and
testing, from the first job to the last), not including Python's start-up.

``--budgets`` prints the three speed goals instead, each beside its budget:
the default single-task run (``python -m book.experiments``) beside its
35 s, chapter 8's live rerun (the cell of ``notebooks/08_extrapolation.ipynb``
that starts ``# LIVE RERUN``: ``experiments.train_model(config, s, 0)`` for
every scheme of the default config, then ``experiments.evaluate``, in a
fresh process set up as the chapter's kernel, ``book.setup(seed=0,
num_threads=1)``) beside its 30 s, and the three-task benchmark
(``python -m book.experiments --suite``, 3 tasks x 7 schemes x 5 seeds x 3
learning rates, into a temporary folder) beside its 600 s; the baseline
above runs first, in the same round, to show the machine's load::

    python benchmarks/experiment_speed.py --budgets

``benchmarks/README.md`` keeps the latest output, with its date and machine.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile

#: The speed goals of ``--budgets``, in seconds.
DEFAULT_BUDGET, LIVE_BUDGET, SUITE_BUDGET = 35.0, 30.0, 600.0

#: Chapter 8's live rerun: the library calls of its ``# LIVE RERUN`` cell (the
#: chapter's ``config`` is the default ``Config()``, which the chapter asserts),
#: timed from the cell's first call to its last, in a process set up as the
#: chapter's kernel is (the chapter imports ``book`` and calls ``book.setup``
#: before it; the cell's asserts and prints cost no measurable time).
LIVE_RERUN = """
import time
import book
from book import experiments
book.setup(seed=0, num_threads=1)
config = experiments.Config()
start = time.perf_counter()
trained = {s: experiments.train_model(config, s, 0) for s in config.schemes}
curves = {s: experiments.evaluate(model, config, 0) for s, (model, _) in trained.items()}
seconds = time.perf_counter() - start
steps = sum(len(losses) for _, losses in trained.values())
print(f"live rerun {seconds:.2f} s for {len(trained)} models ({steps:,} training steps)")
"""

BASELINE = [
    "--task",
    "fibonacci",
    "--schemes",
    "none",
    "sinusoidal",
    "learned",
    "rope",
    "alibi",
    "--seeds",
    "0",
    "1",
    "2",
    "--steps",
    "300",
    "--lr",
    "0.005",
    "--stop-loss",
    "none",
]


def wall_time(args: list[str]) -> tuple[float, str]:
    """Run ``python -m book.experiments ARGS --benchmark --quiet``; return its wall time and headline."""
    out = subprocess.run(
        [sys.executable, "-m", "book.experiments", *args, "--benchmark", "--quiet"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    match = re.search(r"wall time ([0-9.]+) s for (\d+) models \(([0-9,]+) training steps", out)
    if match is None:
        raise RuntimeError(f"no wall time in the experiment's output:\n{out}")
    return float(match.group(1)), f"{match.group(2)} models, {match.group(3)} steps"


def suite_time(args: list[str]) -> float:
    """Run ``python -m book.experiments --suite ARGS --quiet`` into a temporary
    folder; return the suite's wall time as it prints it."""
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [sys.executable, "-m", "book.experiments", "--suite", *args, "--output", folder, "--quiet"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    match = re.search(r"suite wall time ([0-9.]+) s", out)
    if match is None:
        raise RuntimeError(f"no suite wall time in the output:\n{out}")
    return float(match.group(1))


def live_rerun_time() -> tuple[float, str]:
    """Run chapter 8's live rerun (``LIVE_RERUN``) in a fresh process; return
    its time and what it trained."""
    out = subprocess.run([sys.executable, "-c", LIVE_RERUN], capture_output=True, text=True, check=True).stdout
    match = re.search(r"live rerun ([0-9.]+) s for (\d+) models \(([0-9,]+) training steps", out)
    if match is None:
        raise RuntimeError(f"no time in the live rerun's output:\n{out}")
    return float(match.group(1)), f"{match.group(2)} models, {match.group(3)} steps"


def budgets(suite_args: list[str]) -> str:
    """The table of ``--budgets``: each measured time beside its budget."""
    base, base_what = wall_time(BASELINE)
    single, what = wall_time([])
    live, live_what = live_rerun_time()
    suite = suite_time(suite_args)
    rows = [
        "| run | measured | budget | measured / budget |",
        "|---|---:|---:|---:|",
        f"| baseline, the machine's load this round ({base_what}) | {base:.1f} s | - | - |",
        f"| default single-task run ({what}) | {single:.1f} s | {DEFAULT_BUDGET:.0f} s | {single / DEFAULT_BUDGET:.2f}x |",
        f"| chapter 8's live rerun ({live_what}, one thread) | {live:.1f} s | {LIVE_BUDGET:.0f} s "
        f"| {live / LIVE_BUDGET:.2f}x |",
        f"| --suite {' '.join(suite_args)}".rstrip()
        + f" | {suite:.1f} s | {SUITE_BUDGET:.0f} s | {suite / SUITE_BUDGET:.2f}x |",
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="baseline/candidate pairs (default 3)")
    parser.add_argument(
        "--baseline", default=" ".join(BASELINE), help="options of the baseline run (default: %(default)s)"
    )
    parser.add_argument(
        "--budgets",
        action="store_true",
        help="time the default run, chapter 8's live rerun and --suite (options after -- go to --suite) "
        "beside their budgets",
    )
    parser.add_argument("candidate", nargs="*", help="options for the candidate run, after --")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.budgets:
        print(budgets(args.candidate))
        return 0
    rows, ratios = [], []
    for r in range(1, args.rounds + 1):
        base, base_what = wall_time(args.baseline.split())
        cand, cand_what = wall_time(args.candidate)
        ratios.append(cand / base)
        rows.append(f"| {r} | {base:.1f} s | {cand:.1f} s | {cand / base:.2f}x |")
    print(f"baseline: {base_what} (book.experiments {args.baseline})")
    print(f"candidate: {cand_what} (book.experiments {' '.join(args.candidate) or '(default)'})")
    print("| round | baseline | candidate | candidate / baseline |")
    print("|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(f"median ratio: {statistics.median(ratios):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
