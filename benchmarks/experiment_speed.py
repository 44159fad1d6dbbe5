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

``--budgets`` prints the two speed goals instead, each beside its budget:
the default single-task run (``python -m book.experiments``) beside the
35 s that the issue's machine measured, and the three-task benchmark
(``python -m book.experiments --suite``, 3 tasks x 7 schemes x 5 seeds x 3
learning rates, into a temporary folder) beside its 600 s::

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
DEFAULT_BUDGET, SUITE_BUDGET = 35.0, 600.0

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


def budgets(suite_args: list[str]) -> str:
    """The table of ``--budgets``: each measured time beside its budget."""
    single, what = wall_time([])
    suite = suite_time(suite_args)
    rows = [
        "| run | measured | budget | measured / budget |",
        "|---|---:|---:|---:|",
        f"| default single-task run ({what}) | {single:.1f} s | {DEFAULT_BUDGET:.0f} s | {single / DEFAULT_BUDGET:.2f}x |",
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
        help="time the default run and --suite (options after -- go to --suite) beside their budgets",
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
