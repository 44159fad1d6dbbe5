"""Time of the test suite against earlier commits' suites, side by side.

Issue #16's target is a test run (after the install) that takes at most 60%
of the time of the suite it replaced, on the same machine, run side by side.
This script makes that measurement. Each round runs the suite of every
baseline commit and then this tree's suite, one after another, with the same
Python (so the same ``.venv`` and packages). A baseline's files are exported
with ``git archive`` into a temporary folder, and its suite runs there with
that folder first on ``PYTHONPATH``, so that ``book``, the notebooks and the
tests all come from the commit; the script checks that ``book`` is imported
from there. Run from the repository root, on a machine with nothing else
heavy running::

    python benchmarks/test_time.py                      # against 0fe8116 and ff5882e
    python benchmarks/test_time.py --baseline 0fe8116 --rounds 2
    python benchmarks/test_time.py --baseline HEAD -- tests/test_validate.py

Arguments after ``--`` go to every suite's ``pytest`` (default: none, that is
each suite's whole default run, as ``make test``). Wall time is the clock
around ``python -m pytest``, start-up included; CPU time is user plus system
time of it and every process it waited for (nbval's kernels, background
passes, the site build), from ``getrusage``. A suite that fails is timed and
reported all the same, with its failures counted. The README quotes the
output with the machine it came from.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]

#: The suites #16 is measured against: the one before the speed work, with
#: the same kinds of checks (each notebook three times), and the one of the
#: day the issue was filed (nbval, then every student copy executed again).
BASELINES = ("0fe8116", "ff5882e")


class Timing(NamedTuple):
    """One suite's run."""

    wall: float
    cpu: float
    counts: dict[str, int]
    returncode: int


def export(rev: str, into: Path) -> Path:
    """The files of commit ``rev`` (``git archive``), unpacked into ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {rev} failed: {archive.stderr.decode().strip()}")
    tar_path = into.with_suffix(".tar")
    tar_path.write_bytes(archive.stdout)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into, filter="data")
    tar_path.unlink()
    return into


def environment(tree: Path) -> dict[str, str]:
    """This environment with ``tree`` first on ``PYTHONPATH``."""
    path = os.pathsep.join(p for p in (str(tree), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def check_imports_from(tree: Path) -> None:
    """Fail unless ``import book`` run in ``tree`` finds ``tree``'s own package."""
    found = subprocess.run([sys.executable, "-c", "import book; print(book.__file__)"], cwd=tree,
                           env=environment(tree), capture_output=True, text=True, check=True).stdout.strip()
    if not Path(found).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"book was imported from {found}, not from {tree}")


def counts_of(output: str) -> dict[str, int]:
    """pytest's closing counts (``passed``, ``failed``, ``skipped``, ...)."""
    lines = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed|error)", line)]
    if not lines:
        return {}
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", lines[-1]) if word != "s"}


def run_suite(tree: Path, pytest_args: list[str]) -> Timing:
    """Run ``python -m pytest`` in ``tree``; its wall and CPU time and its counts."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *pytest_args],
                          cwd=tree, env=environment(tree), capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    counts = counts_of(done.stdout)
    if not counts:
        raise SystemExit(f"pytest in {tree} printed no counts:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return Timing(wall, cpu, counts, done.returncode)


def describe(counts: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {word}" for word, n in counts.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", action="append", metavar="REV",
                        help=f"a commit whose suite to time (repeatable; default: {' and '.join(BASELINES)})")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of all suites (default 1)")
    parser.add_argument("pytest_args", nargs="*", help="arguments for every suite's pytest, after --")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    baselines = args.baseline or list(BASELINES)
    rows: dict[str, list[Timing]] = {rev: [] for rev in [*baselines, "this tree"]}
    with tempfile.TemporaryDirectory(prefix="book-test-time-") as tmp:
        trees = {rev: export(rev, Path(tmp) / f"suite-{i}") for i, rev in enumerate(baselines)}
        trees["this tree"] = ROOT
        for tree in trees.values():
            check_imports_from(tree)
        for _ in range(args.rounds):
            for rev, tree in trees.items():
                rows[rev].append(run_suite(tree, args.pytest_args))
                print(f"{rev}: {rows[rev][-1].wall:.0f} s", file=sys.stderr, flush=True)
    print(f"pytest {' '.join(args.pytest_args) or '(each suite default run)'}; "
          f"{args.rounds} round(s); {os.cpu_count()} CPUs; {sys.executable}")
    print("| suite | tests | wall | CPU | this tree's wall / this suite's |")
    print("| --- | --- | ---: | ---: | ---: |")
    ours = rows["this tree"]
    for rev, timings in rows.items():
        for r, t in enumerate(timings):
            ratio = ours[r].wall / t.wall
            status = "" if t.returncode == 0 else f" (exit {t.returncode})"
            print(f"| {rev} | {describe(t.counts)}{status} | {t.wall:.0f} s | {t.cpu:.0f} s | {ratio:.0%} |")
    for rev in baselines:
        ratios = [o.wall / t.wall for o, t in zip(ours, rows[rev])]
        print(f"this tree against {rev}: median {statistics.median(ratios):.0%} of its wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
