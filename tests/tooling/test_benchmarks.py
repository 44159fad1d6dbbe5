"""The benchmark scripts run and print their tables (timings are not tested)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_rope_speed_script_checks_and_prints_every_form(rope_speed_run):
    """The script at a tiny size, run beside the session (``JOBS`` in tests/plugins/background_jobs.py)."""
    assert rope_speed_run.returncode == 0, rope_speed_run.stdout[-3000:]
    for name in (
        "copy (x.clone())",
        "apply_rope_cached, rotate_half",
        "apply_rope_complex in place (book's fastest)",
        "ALiBi, scaled_dot_product_attention",
    ):
        assert name in rope_speed_run.stdout
    assert "x copy" in rope_speed_run.stdout


def test_experiment_speed_script_prints_both_times_and_their_ratio(experiment_speed_run):
    """The script at a tiny size, run beside the session (``JOBS`` in tests/plugins/background_jobs.py)."""
    out = experiment_speed_run.stdout
    assert experiment_speed_run.returncode == 0, out[-3000:]
    assert "baseline: 4 models, 8 steps (book.experiments --schemes none rope" in out
    assert "candidate: 1 models, 3 steps" in out
    assert "| 1 |" in out and "median ratio:" in out


def test_rope_speed_compiled_measurement_has_what_chapter_10_reads(monkeypatch):
    """The --compile measurement, with torch.compile replaced by the eager function (compiling takes
    seconds): its fields, its byte counts, and the same fields in the committed file."""
    import importlib.util
    import json

    import torch

    spec = importlib.util.spec_from_file_location("rope_speed", ROOT / "benchmarks" / "rope_speed.py")
    rope_speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rope_speed)
    monkeypatch.setattr(torch, "compile", lambda fn: fn)
    got = rope_speed.compiled_measurement(16, heads=2, head_dim=8, min_run_time=0.001, rounds=1)
    x_bytes = 2 * 16 * 8 * 4
    assert got["shape"] == [1, 2, 16, 8]
    assert got["bytes_counted"] == {"copy": 2 * x_bytes, "eager, interleaved cache": 9 * x_bytes + 4 * 16 * 4 * 4}
    assert got["bytes_one_pass"] == {"compiled (fused), interleaved cache": 2 * x_bytes + 2 * 16 * 4 * 4}
    assert got["generated_kernels"] == 0  # torch.compile replaced: inductor generated nothing
    stored = json.loads((ROOT / "book" / "results" / "rope_compile.json").read_text())
    assert set(stored) == set(got) and set(stored["ratio_to_copy"]) == set(got["ratio_to_copy"])


def test_experiment_speed_baseline_is_the_config_stored_in_fibonacci_json():
    """The benchmark's baseline options make exactly the config stored in
    book/results/fibonacci.json: every step taken, no early stopping."""
    import importlib.util
    import json

    from book import _experiments_cli as experiments_cli
    from book import experiments

    spec = importlib.util.spec_from_file_location("experiment_speed", ROOT / "benchmarks" / "experiment_speed.py")
    speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(speed)
    args = experiments_cli.parser().parse_args(speed.BASELINE)
    config = experiments_cli.config_from_args(args)
    stored = json.loads((ROOT / "book" / "results" / "fibonacci.json").read_text())
    assert config.stop_loss is None and config == experiments.Config.from_results(stored)


def _suite_time_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("suite_time", ROOT / "benchmarks" / "suite_time.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(repo, *args):
    import shutil
    import subprocess

    import pytest

    if shutil.which("git") is None:
        pytest.skip("git is not on PATH")
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        check=True,
        capture_output=True,
    )


def _run_script(script, *args, cwd):
    """Run a copy of the script in its own session; kill the session on a timeout."""
    import os
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, str(script), *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    return proc.returncode, out, err


def _marked_repo(repo):
    """A git repository holding the script, a ``book`` package with MARK = 1,
    a test and a notebook (for nbval, in a kernel) that both need MARK == 1
    (the test also needs ``git ls-files`` to list it in the suite's copy);
    committed, then MARK changed to 2 in the work tree."""
    import shutil

    import nbformat

    (repo / "benchmarks").mkdir(parents=True)
    shutil.copy(ROOT / "benchmarks" / "suite_time.py", repo / "benchmarks")
    (repo / "book").mkdir()
    (repo / "book" / "__init__.py").write_text("MARK = 1\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_mark.py").write_text(
        "import subprocess\n\nimport book\n\n\ndef test_mark():\n    assert book.MARK == 1\n"
        "    # the copy is a repository whose git lists its files, as the wheel job needs\n"
        "    listed = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard'], capture_output=True, text=True)\n"
        "    assert 'tests/test_mark.py' in listed.stdout.split()\n"
    )
    (repo / "notebooks").mkdir()
    cell = nbformat.v4.new_code_cell("import book\nprint(book.MARK)", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), repo / "notebooks" / "mark.ipynb")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "MARK = 1")
    (repo / "book" / "__init__.py").write_text("MARK = 2\n")  # uncommitted


def test_suite_time_script_runs_each_suite_on_its_own_code(tmp_path):
    """Each suite imports its own commit's ``book``, in pytest and in nbval's
    kernels, not the installed one: against a throwaway repository whose work
    tree changed MARK, HEAD's suite passes and this tree's fails, and the
    printed ratio is that of the printed times."""
    import re
    import subprocess

    repo = tmp_path / "repo"
    _marked_repo(repo)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    code, out, err = _run_script(
        repo / "benchmarks" / "suite_time.py",
        "--baseline",
        "HEAD",
        "--log-dir",
        str(tmp_path / "logs"),
        "--",
        "--nbval",
        "--nbval-current-env",
        # the installed plugins these two tests never use (hypothesis: a second of import each run)
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:anyio",
        "tests",
        "notebooks",
        cwd=repo,
    )
    assert code == 0, out + err[-3000:]
    rows = {r[1]: r for r in (line.split(" | ") for line in out.splitlines() if line.startswith("| 1 |"))}
    assert set(rows) == {"HEAD", "this tree"}, out
    assert rows["HEAD"][2:4] == [head[:7], "2 passed"], out
    assert rows["this tree"][2:4] == [f"{head[:7]} + uncommitted changes", "2 failed (exit 1)"], out
    wall = {k: float(r[4].removesuffix(" s")) for k, r in rows.items()}
    printed = re.search(rf"this tree against HEAD \({head}\): (\d+)% of its wall time", out)
    assert printed, out
    assert abs(int(printed[1]) - 100 * wall["this tree"] / wall["HEAD"]) <= 1
    # --log-dir: each run's pytest output, named by its commit and round
    logs = {p.name: p.read_text() for p in (tmp_path / "logs").iterdir()}
    assert set(logs) == {f"{head[:7]}-round-1.log", "this-tree-round-1.log"}, logs.keys()
    assert "2 passed" in logs[f"{head[:7]}-round-1.log"] and "2 failed" in logs["this-tree-round-1.log"]


def test_suite_time_script_alternates_the_order_of_the_suites(monkeypatch, capsys):
    """Round 1 runs the baselines first, round 2 this tree first (so neither
    always meets a cold machine), or the other way with --tree-first; every
    run is printed in its round."""
    from types import SimpleNamespace

    script = _suite_time_module()
    order = []
    monkeypatch.setattr(script, "export", lambda commit, into: into)
    monkeypatch.setattr(script, "check_imports_from", lambda tree: None)
    monkeypatch.setattr(script, "_kill_all", lambda: None)
    monkeypatch.setattr(script, "_become_subreaper", lambda: False)  # not in pytest's own process
    monkeypatch.setattr(script, "check_checkout", lambda: None)  # git not needed (an exported suite)
    monkeypatch.setattr(script, "resolve", lambda rev: "0" * 40)
    monkeypatch.setattr(script, "this_tree", lambda: script.Suite(script.TREE, "1" * 40, "1111111"))
    monkeypatch.setattr(script, "signal", SimpleNamespace(signal=lambda *args: None, SIGTERM=15, SIGHUP=1))

    def fake_run(tree, args, log_to=None):
        assert log_to is None  # no --log-dir
        suite, _, round_ = tree.name.partition("-round-")
        order.append(suite)
        assert round_ == str(1 + (len(order) - 1) // 2)  # a copy of its own, named by its round
        return script.Timing(2.0 if suite == "suite-1" else 1.0, 1.0, {"passed": 3}, 0)

    monkeypatch.setattr(script, "run_suite", fake_run)
    assert script.main(["--baseline", "HEAD", "--rounds", "3"]) == 0
    assert order == ["suite-0", "suite-1", "suite-1", "suite-0", "suite-0", "suite-1"]
    out = capsys.readouterr().out
    assert out.count("| this tree |") == 3 and out.count("| HEAD |") == 3
    assert "this tree against HEAD" in out and "200% of its wall time (rounds: 200%, 200%, 200%)" in out
    order.clear()
    assert script.main(["--baseline", "HEAD", "--rounds", "2", "--tree-first"]) == 0
    assert order == ["suite-1", "suite-0", "suite-0", "suite-1"]


def test_suite_time_script_refuses_what_it_cannot_time(tmp_path, monkeypatch):
    """Clear exits for a tree whose ``book`` is not its own, a name that is no
    commit, a folder that is no git checkout, no rounds and a suite named twice;
    pytest's closing line read as counts."""
    import shutil
    import subprocess

    import pytest

    script = _suite_time_module()
    line = "==== 1 failed, 743 passed, 10 skipped, 2 warnings in 499.12s (0:08:19) ===="
    assert script.counts_of("collected 754 items\n3 passed tests below\n" + line) == {
        "failed": 1,
        "passed": 743,
        "skipped": 10,
        "warnings": 2,
    }
    assert script.counts_of("==== 5 skipped in 0.10s ====") == {"skipped": 5}
    assert script.counts_of("==== no tests ran in 1.51s ====") == {}
    script.check_imports_from(ROOT)  # this checkout's own book
    with pytest.raises(SystemExit, match="not from"):
        script.check_imports_from(tmp_path)  # no book there: the installed one is found
    with pytest.raises(SystemExit):
        script.main(["--rounds", "0"])
    with pytest.raises(SystemExit):
        script.main(["--baseline", "HEAD", "--baseline", "HEAD"])  # the same suite twice
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "f").write_text("1")
    _git(repo, "add", "f")
    _git(repo, "commit", "-qm", "one")
    monkeypatch.setattr(script, "ROOT", repo)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert script.resolve("HEAD") == head and len(head) == 40
    for bad in ("--output=x", "no-such-commit", f"{head}:f"):  # an option, no name, a file
        with pytest.raises(SystemExit, match="--baseline must name a commit"):
            script.resolve(bad)
    outside = tmp_path / "outside"
    (outside / "benchmarks").mkdir(parents=True)
    shutil.copy(ROOT / "benchmarks" / "suite_time.py", outside / "benchmarks")
    code, _, err = _run_script(outside / "benchmarks" / "suite_time.py", cwd=outside)
    assert code == 1 and "is not the top of one" in err, err


def test_experiment_speed_budgets_print_each_time_beside_its_budget(monkeypatch, capsys):
    """--budgets runs the baseline, the default experiment, chapter 8's live rerun
    and --suite (here: their printed output, without training) and prints each
    time beside 35 s, 30 s and 600 s."""
    import importlib.util
    import subprocess
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("experiment_speed", ROOT / "benchmarks" / "experiment_speed.py")
    speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(speed)
    calls = []

    def fake_run(cmd, **kw):
        calls.append(cmd)
        if "--suite" in cmd:
            return SimpleNamespace(stdout="...\nsuite wall time 450.0 s (2 worker processes)\n")
        if cmd[1] == "-c":
            return SimpleNamespace(stdout="live rerun 21.00 s for 6 models (1,780 training steps)\n")
        if "fibonacci" in cmd:
            return SimpleNamespace(stdout="wall time 17.5 s for 15 models (4,500 training steps, 257 steps/s)\n")
        return SimpleNamespace(stdout="wall time 28.0 s for 30 models (9,000 training steps, 321 steps/s)\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    assert speed.main(["--budgets", "--", "--task", "recall"]) == 0
    out = capsys.readouterr().out
    assert "| baseline, the machine's load this round (15 models, 4,500 steps) | 17.5 s | - | - |" in out
    assert "| 28.0 s | 35 s | 0.80x |" in out and "| --suite --task recall | 450.0 s | 600 s | 0.75x |" in out
    assert "| chapter 8's live rerun (6 models, 1,780 steps, one thread) | 21.0 s | 30 s | 0.70x |" in out
    assert calls[0][3:] == [*speed.BASELINE, "--benchmark", "--quiet"] and calls[1][3:] == ["--benchmark", "--quiet"]
    assert calls[2][2] == speed.LIVE_RERUN
    # LIVE_RERUN makes the calls of chapter 8's live-rerun cell, one for one
    chapter = json.loads((ROOT / "notebooks" / "08_extrapolation.ipynb").read_text())
    (cell,) = ["".join(c["source"]) for c in chapter["cells"] if "".join(c["source"]).startswith("# LIVE RERUN")]
    for call in ("experiments.train_model(config, s, 0) for s in config.schemes", "experiments.evaluate("):
        assert call in cell and call in speed.LIVE_RERUN, call
    assert re.search(r"experiments\.evaluate\(\w+, config, 0\)", cell)
    assert re.search(r"experiments\.evaluate\(\w+, config, 0\)", speed.LIVE_RERUN)
    assert calls[3][2:5] == ["book.experiments", "--suite", "--task"] and "--output" in calls[3]


def test_experiment_speed_live_rerun_runs_the_chapter_s_calls_at_a_tiny_size(monkeypatch):
    """LIVE_RERUN, its config cut to two schemes, one seed and 3 steps, runs and prints what
    live_rerun_time reads; the full one trains the default Config, as chapter 8's cell does."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("experiment_speed", ROOT / "benchmarks" / "experiment_speed.py")
    speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(speed)
    tiny = 'experiments.Config(schemes=("none", "t5"), steps=3, test_len=40)'
    assert speed.LIVE_RERUN.count("experiments.Config()") == 1
    monkeypatch.setattr(speed, "LIVE_RERUN", speed.LIVE_RERUN.replace("experiments.Config()", tiny))
    monkeypatch.chdir(ROOT)
    seconds, what = speed.live_rerun_time()
    assert seconds > 0 and what == "2 models, 6 steps"


def test_explorer_frame_script_times_a_computed_explorer_beside_its_twin():
    """The browser benchmark at a tiny size (two inputs, one explorer); skipped without Chromium.

    Run as its own process: Playwright's sync API refuses to start inside the
    event loop that the session's browser fixture keeps running."""
    from tests.conftest import _browser_or_skip

    _browser_or_skip()
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "explorer_frame.py"), "--inputs", "2", "--views", "alibi"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "| explorer | computed in the page | live twin's switch |" in out
    assert re.search(r"^\| alibi \| [\d.]+ / [\d.]+ \([\d.]+\) \| [\d.]+ / [\d.]+ \([\d.]+\) \|$", out, re.M), out
