"""The benchmark scripts run and print their tables (timings are not tested)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_rope_speed_script_checks_and_prints_every_form(rope_speed_run):
    """The script at a tiny size, run beside the session (conftest.JOBS)."""
    assert rope_speed_run.returncode == 0, rope_speed_run.stdout[-3000:]
    for name in ("copy (x.clone())", "apply_rope_cached, rotate_half", "apply_rope_complex in place (book's fastest)",
                 "ALiBi, scaled_dot_product_attention"):
        assert name in rope_speed_run.stdout
    assert "x copy" in rope_speed_run.stdout


def test_experiment_speed_script_prints_both_times_and_their_ratio(experiment_speed_run):
    """The script at a tiny size, run beside the session (conftest.JOBS)."""
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
    assert got["generated_kernels"] == 0          # torch.compile replaced: inductor generated nothing
    stored = json.loads((ROOT / "notebooks" / "results" / "rope_compile.json").read_text())
    assert set(stored) == set(got) and set(stored["ratio_to_copy"]) == set(got["ratio_to_copy"])


def test_experiment_speed_baseline_is_the_stored_earlier_default():
    """The benchmark's baseline options make exactly the config of the stored
    earlier default (fibonacci.json): every step taken, no early stopping."""
    import importlib.util
    import json

    from book import experiments

    spec = importlib.util.spec_from_file_location("experiment_speed", ROOT / "benchmarks" / "experiment_speed.py")
    speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(speed)
    args = experiments._parser().parse_args([a for a in speed.BASELINE if a != "--separate"])
    config = experiments._config_from_args(args)
    stored = json.loads((ROOT / "notebooks" / "results" / "fibonacci.json").read_text())
    assert config.stop_loss is None and config == experiments.Config.from_results(stored)


def _test_time_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("test_time_script", ROOT / "benchmarks" / "test_time.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_test_time_script_times_a_baseline_and_this_tree_side_by_side(test_time_run):
    """The script on one small test file against HEAD, run beside the session
    (conftest.JOBS): both suites ran, passed, and are in the table with the ratio."""
    out = test_time_run.stdout
    assert test_time_run.returncode == 0, out[-3000:]
    rows = {line.split(" | ")[0].lstrip("| "): line for line in out.splitlines() if line.startswith("| ")}
    assert {"HEAD", "this tree"} <= set(rows), out
    for suite in ("HEAD", "this tree"):
        assert " passed |" in rows[suite] and "failed" not in rows[suite] and "exit" not in rows[suite]
    assert rows["this tree"].endswith("| 100% |")
    assert "this tree against HEAD: median" in out


def test_test_time_script_reads_counts_and_checks_where_book_comes_from(tmp_path):
    """pytest's closing line becomes counts (a failing suite's too), and a tree
    whose own ``book`` is not the one imported is refused."""
    import pytest

    script = _test_time_module()
    line = "==== 1 failed, 743 passed, 10 skipped, 2 warnings in 499.12s (0:08:19) ===="
    assert script.counts_of("collected 754 items\n...\n" + line) == {
        "failed": 1, "passed": 743, "skipped": 10, "warnings": 2}
    assert script.counts_of("no tests ran in 1.51s") == {}
    script.check_imports_from(ROOT)                   # this tree's book: accepted
    with pytest.raises(SystemExit, match="not from"):
        script.check_imports_from(tmp_path)           # no book here: the installed one is found
