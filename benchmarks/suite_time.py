"""Time of the test suite against earlier commits' suites, side by side.

A change to the test suite must not make ``make test`` slower (after the
install), measured on one machine with the suites run side by side. This
script makes that measurement.

Every suite is a fresh copy of a commit, exported with ``git archive`` into a
temporary folder: each baseline commit, and this tree as ``git stash create``
records it (``HEAD`` plus the uncommitted changes to tracked files; untracked
files are left out, with a warning). Every run gets a copy of its own, so
every run starts the same way, without caches. Each copy is made a git
repository with nothing committed (``git init``), so that the suite's steps
that list the sources with git (the wheel job) run as they do in a clone. A suite runs in its folder as
``python -m pytest -p no:cacheprovider [ARGS]``, with the Python that runs
this script (so the same ``.venv`` and packages) and ``PYTHONPATH`` set to
the folder alone, so that ``book``, the notebooks and the tests come from
the commit. The script checks that ``book`` imports from there. Rounds
alternate the order: baselines first, then this tree first
(``--tree-first`` starts the other way). Run it from a git checkout of the
book, on a machine with nothing else heavy running::

    python benchmarks/suite_time.py                     # against 0fe8116 and ff5882e
    python benchmarks/suite_time.py --baseline 0fe8116 --rounds 2
    python benchmarks/suite_time.py --tree-first        # a second round, the other way
    python benchmarks/suite_time.py --baseline HEAD -- tests/unit/test_validate.py

Arguments after ``--`` go to every suite's pytest. Without them each suite
runs its default run, the one ``make test`` runs.

Wall time is the clock from starting ``python -m pytest`` to its exit. CPU
time is user plus system time of every process the suite started, directly
or not. On Linux the script is a child subreaper, so that processes orphaned
along the way are handed to it and reaped, and their time counts too
(processes still running 30 s after pytest ends are killed, with a warning,
and counted); elsewhere their time is missed. A suite that fails some of
its tests (exit 1) is timed and reported with its failures counted. Any
other exit (a collection or usage error, a timeout) stops the script. On a
timeout, Ctrl-C, kill or hang-up the suite's processes are killed (on
Linux all of them; elsewhere pytest's process group) and the temporary
folder is removed. ``benchmarks/README.md`` keeps the latest output, with
its date and machine.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]

#: The default baselines: the suite before the background jobs, with the same
#: kinds of checks (each notebook three times), and an older one (nbval, then
#: every student copy executed again).
BASELINES = ("0fe8116", "ff5882e")
#: The label of this tree's suite.
TREE = "this tree"
#: Seconds a suite may take.
TIMEOUT = 3600
#: pytest's closing counts.
_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)\b")


class Suite(NamedTuple):
    """One suite to time: its label, its commit and a note on what it holds."""

    label: str
    commit: str
    note: str


class Timing(NamedTuple):
    """One run of a suite."""

    wall: float
    cpu: float
    counts: dict[str, int]
    returncode: int


def git(*args: str) -> str:
    """``git -C ROOT ARGS``'s output; a clear exit if git fails."""
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed: {done.stderr.decode().strip()}")
    return done.stdout.decode().strip()


def check_checkout() -> None:
    """Exit unless ``ROOT`` is the top of a git checkout."""
    top = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != ROOT.resolve():
        raise SystemExit(f"run this script from a git checkout of the book: {ROOT} is not the top of one")


def resolve(rev: str) -> str:
    """The full hash of commit ``rev``; a clear exit if there is none."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"--baseline must name a commit of this repository, got {rev!r}")
    return done.stdout.strip()


def this_tree() -> Suite:
    """This tree as a commit: ``git stash create`` (uncommitted changes to
    tracked files), or ``HEAD`` when there are none."""
    head = resolve("HEAD")
    stash = git("stash", "create")
    if stash:
        return Suite(TREE, stash, f"{head[:7]} + uncommitted changes")
    return Suite(TREE, head, head[:7])


def export(commit: str, into: Path) -> Path:
    """The files of ``commit`` (``git archive``), unpacked into the new folder ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit], capture_output=True)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {commit} failed: {archive.stderr.decode().strip()}")
    tar_path = into.with_suffix(".tar")
    tar_path.write_bytes(archive.stdout)
    with tarfile.open(tar_path) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:  # Python before 3.10.12 / 3.11.4: git archive's own output
            tar.extractall(into)
    tar_path.unlink()
    # A repository of its own, with nothing committed: the suite's wheel job
    # lists the sources with ``git ls-files -co --exclude-standard``, which then
    # names every file of the commit (as untracked), so the job runs as in a clone.
    subprocess.run(["git", "init", "-q", str(into)], check=True, capture_output=True)
    return into


def environment(tree: Path) -> dict[str, str]:
    """This environment with ``PYTHONPATH`` set to ``tree`` alone."""
    return {**os.environ, "PYTHONPATH": str(tree)}


def check_imports_from(tree: Path) -> None:
    """Exit unless ``import book``, with ``tree``'s environment and run from
    an empty folder, finds ``tree``'s own package."""
    with tempfile.TemporaryDirectory() as empty:
        done = subprocess.run(
            [sys.executable, "-c", "import book; print(book.__file__)"],
            cwd=empty,
            env=environment(tree),
            capture_output=True,
            text=True,
        )
    if done.returncode != 0:
        raise SystemExit(f"import book failed for {tree}:\n{done.stderr[-2000:]}")
    found = Path(done.stdout.strip()).resolve()
    if not found.is_relative_to(tree.resolve()):
        raise SystemExit(f"book was imported from {found}, not from {tree}")


def counts_of(output: str) -> dict[str, int]:
    """pytest's closing counts (``passed``, ``failed``, ``skipped``, ...);
    empty when the output has none (no test ran)."""
    lines = [line for line in output.splitlines() if _COUNT.search(line) and " in " in line]
    return {word: int(n) for n, word in _COUNT.findall(lines[-1])} if lines else {}


def _become_subreaper() -> bool:
    """Have orphaned descendants handed to this process (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    pr_set_child_subreaper = 36
    return ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0) == 0


def _descendants() -> list[int]:
    """This process's descendants, from ``/proc`` (empty elsewhere)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:  # "pid (name) state ppid ...": the parent is the second field after the name
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _reap(wait: float) -> int:
    """Reap finished children for up to ``wait`` seconds; the number left running."""
    deadline = time.monotonic() + wait
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid == 0:
            if time.monotonic() > deadline:
                return len(_descendants())
            time.sleep(0.1)


def _kill_all(tries: int = 10) -> None:
    """Kill every descendant, again while new ones appear (a suite stopped
    early leaves its background jobs, and they may start more)."""
    for _ in range(tries):
        pids = _descendants()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _reap(5.0)


def _stop(proc: subprocess.Popen) -> None:
    """Kill a suite's pytest with its process group, then every other descendant."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    _kill_all()


def run_suite(tree: Path, pytest_args: list[str], timeout: float = TIMEOUT, log_to: Path | None = None) -> Timing:
    """Run ``python -m pytest`` in ``tree``; its wall and CPU time and its counts.
    Processes of the suite still running 30 s after pytest ends are killed
    (with a warning) and counted. With ``log_to``, pytest's output is also
    written to that file."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryFile("w+") as log:  # a file, not a pipe: a leftover process cannot hold it open
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *pytest_args],
            cwd=tree,
            env=environment(tree),
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise SystemExit(f"the suite in {tree} took over {timeout:.0f} s") from None
        finally:
            if proc.poll() is None:
                _stop(proc)
        wall = time.perf_counter() - start
        log.seek(0)
        output = log.read()
    if log_to is not None:
        log_to.write_text(output)
    left = _reap(30.0)
    if left:
        print(f"warning: {left} processes of the suite in {tree} still ran 30 s after pytest; killed", file=sys.stderr)
        _kill_all()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    counts = counts_of(output)
    if proc.returncode not in (0, 1) or not counts:
        raise SystemExit(f"pytest in {tree} exited with {proc.returncode} (0 or 1 expected):\n{output[-3000:]}")
    return Timing(wall, cpu, counts, proc.returncode)


def describe(t: Timing) -> str:
    text = ", ".join(f"{n:,} {word}" for word, n in t.counts.items() if not word.startswith("warning"))
    return text if t.returncode == 0 else f"{text} (exit {t.returncode})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--baseline",
        action="append",
        metavar="REV",
        help=f"a commit whose suite to time (repeatable; default: {' and '.join(BASELINES)})",
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds of all suites, order alternating (default 1)")
    parser.add_argument(
        "--tree-first", action="store_true", help="round 1 runs this tree first (later rounds still alternate)"
    )
    parser.add_argument(
        "--log-dir",
        type=Path,
        metavar="DIR",
        help="write each run's pytest output to DIR/<commit>-round-<r>.log (this tree: this-tree-round-<r>.log); "
        "with -- --durations=0, to compare the suites test by test",
    )
    parser.add_argument("pytest_args", nargs="*", help="arguments for every suite's pytest, after --")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.baseline and len(set(args.baseline)) < len(args.baseline):
        parser.error("--baseline names the same commit twice")
    check_checkout()
    if args.log_dir is not None:
        args.log_dir.mkdir(parents=True, exist_ok=True)
    suites = [Suite(rev, resolve(rev), resolve(rev)[:7]) for rev in args.baseline or BASELINES]
    suites.append(this_tree())
    if suites[-1].note.endswith("changes"):
        untracked = git("ls-files", "--others", "--exclude-standard").splitlines()
        if untracked:
            print(
                f"warning: {len(untracked)} untracked files are not in this tree's suite "
                f"(git add them to include them): {', '.join(untracked[:5])}",
                file=sys.stderr,
            )
    subreaper = _become_subreaper()
    for sig in (signal.SIGTERM, signal.SIGHUP):  # clean up on kill or hang-up, as on Ctrl-C
        signal.signal(sig, lambda number, _: sys.exit(128 + number))
    runs: dict[str, list[Timing]] = {s.label: [] for s in suites}
    print(
        f"pytest {' '.join(args.pytest_args) or '(each suite default run)'}; {args.rounds} round(s); "
        f"{os.cpu_count()} CPUs; {sys.executable}; CPU time of orphans "
        f"{'counted' if subreaper else 'missed'}"
    )
    print("| round | suite | commit | tests | wall | CPU |")
    print("| ---: | --- | --- | --- | ---: | ---: |", flush=True)
    try:
        with tempfile.TemporaryDirectory(prefix="book-suite-time-") as tmp:
            for r in range(1, args.rounds + 1):
                order = suites if (r % 2 == 1) != args.tree_first else suites[::-1]
                for s in order:  # a fresh copy for every run: no caches from an earlier round
                    tree = export(s.commit, Path(tmp) / f"suite-{suites.index(s)}-round-{r}")
                    check_imports_from(tree)
                    name = "this-tree" if s.label == TREE else s.commit[:7]
                    log_to = args.log_dir / f"{name}-round-{r}.log" if args.log_dir else None
                    t = run_suite(tree, args.pytest_args, log_to=log_to)
                    shutil.rmtree(tree, ignore_errors=True)
                    runs[s.label].append(t)
                    print(
                        f"| {r} | {s.label} | {s.note} | {describe(t)} | {t.wall:.2f} s | {t.cpu:.1f} s |", flush=True
                    )
    finally:
        _kill_all()
    ours = runs[TREE]
    for s in suites[:-1]:
        wall = [o.wall / b.wall for o, b in zip(ours, runs[s.label])]
        cpu = [o.cpu / b.cpu for o, b in zip(ours, runs[s.label])]
        print(
            f"{TREE} against {s.label} ({s.commit}): {statistics.median(wall):.0%} of its wall time "
            f"(rounds: {', '.join(f'{x:.0%}' for x in wall)}), {statistics.median(cpu):.0%} of its CPU time"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
