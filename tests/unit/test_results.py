"""The committed results ship with the package and name the command that makes them."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from book import _experiments_cli as experiments_cli
from book import experiments, results

ROOT = Path(__file__).resolve().parents[2]


def test_every_committed_file_is_known_and_loads():
    on_disk = sorted(p.stem for p in (ROOT / "book" / "results").glob("*.json"))
    assert results.names() == on_disk == sorted(results.COMMANDS)
    for name in on_disk:
        assert isinstance(results.load(name), dict)


@pytest.mark.parametrize("name", ["local_sum", "local_sum_full", "fibonacci", "copy"])
def test_each_experiments_command_makes_the_config_its_file_records(name):
    words = shlex.split(results.COMMANDS[name])
    assert words[:3] == ["python", "-m", "book.experiments"]
    args = experiments_cli.parser().parse_args(words[3:])
    assert str(args.output) == f"book/results/{name}.json"
    assert experiments_cli.config_from_args(args) == experiments.Config.from_results(results.load(name))


def test_the_timing_command_writes_its_file():
    words = shlex.split(results.COMMANDS["rope_compile"])
    assert words[:2] == ["python", "benchmarks/rope_speed.py"] and (ROOT / words[1]).is_file()
    assert words[words.index("--compile") + 1] == "book/results/rope_compile.json"
    assert results.load("rope_compile")["shape"][2] == int(words[words.index("--lengths") + 1])


def test_bad_names_are_refused_clearly():
    with pytest.raises(TypeError, match="name must be a str"):
        results.load(3)
    with pytest.raises(ValueError, match="name must be one of"):
        results.load("local_sum.json")


def test_a_missing_file_says_how_to_make_it(monkeypatch, tmp_path):
    (tmp_path / "local_sum.json").write_text("{}")
    monkeypatch.setattr(results.resources, "files", lambda _: tmp_path)
    assert results.load("local_sum") == {}
    with pytest.raises(FileNotFoundError) as err:
        results.load("copy")
    assert results.COMMANDS["copy"] in str(err.value) and "book/results/copy.json" in str(err.value)


@pytest.mark.parametrize("task", ["local_sum", "recall", "copy"])
def test_each_benchmark_file_comes_from_its_suite_command_and_config(task):
    """The command runs one task of --suite, whose config (book.benchmark.benchmark_config)
    the committed file records; every scheme and seed is there, with its lr from the sweep."""
    from book import benchmark

    words = shlex.split(results.COMMANDS[f"benchmark_{task}"])
    args = experiments_cli.parser().parse_args(words[3:])
    assert args.suite and args.task == task and args.output is None
    assert benchmark.results_path(task) == ROOT / "book" / "results" / f"benchmark_{task}.json"
    stored = results.load(f"benchmark_{task}")
    config = benchmark.benchmark_config(task)
    assert experiments.Config.from_results(stored) == config
    assert set(stored["runs"]) == set(config.schemes) == set(stored["chosen_lr"])
    for scheme, per_seed in stored["runs"].items():
        assert sorted(per_seed) == [str(s) for s in config.seeds]
        assert all(r["lr"] == stored["chosen_lr"][scheme] for r in per_seed.values())
        assert all((r["excluded"] is None) == r["met_stop_rule"] for r in per_seed.values())
