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
