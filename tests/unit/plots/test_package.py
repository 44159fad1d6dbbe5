"""book.plots as a package: one module per chapter, everything public re-exported."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import book.plots as plots
from book import widgets

MODULES = sorted(m.name for m in pkgutil.iter_modules(plots.__path__))
CHAPTERS = [m for m in MODULES if m.startswith("ch")]


def test_every_name_in_all_resolves_to_the_object_its_module_defines():
    assert len(plots.__all__) == len(set(plots.__all__)), "a name is exported twice"
    defined = {}
    for name in MODULES:
        module = importlib.import_module(f"book.plots.{name}")
        for public in getattr(module, "__all__", []):
            assert public not in defined, f"{public} is in both {defined.get(public)} and {name}"
            defined[public] = name
            assert getattr(plots, public) is getattr(module, public)
    assert sorted(plots.__all__) == sorted(defined)
    for name in plots.__all__:
        assert getattr(plots, name) is not None


def test_one_module_per_chapter_none_over_600_lines():
    notebooks = sorted(p.stem for p in (Path(__file__).resolve().parents[3] / "notebooks").glob("*.ipynb"))
    assert [f"ch{n}" for n in notebooks] == CHAPTERS, "a chapter module is named after its notebook"
    for name in MODULES:
        lines = len(Path(plots.__path__[0], f"{name}.py").read_text(encoding="utf-8").splitlines())
        assert lines <= 600, f"book/plots/{name}.py has {lines} lines"


def test_each_chapter_module_draws_its_explorer():
    for name in CHAPTERS:
        module = importlib.import_module(f"book.plots.{name}")
        explorers = [n for n in module.__all__ if n.startswith("draw_") and n.endswith("_explorer")]
        assert len(explorers) >= 1, (name, explorers)  # chapter 10 has two
        for draw in explorers:  # each drawing has its ipywidgets explorer
            assert draw.removeprefix("draw_") in widgets.__all__, (name, draw)
        assert f'chapter {int(name[2:4])}, "' in module.__doc__
