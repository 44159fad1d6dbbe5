"""The package ``book.exercises``: every public name resolves, each chapter's checks live in its
module, and no module grows past the size the book keeps to."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

from book import exercises

MODULES = sorted(m.name for m in pkgutil.iter_modules(exercises.__path__))


def test_every_name_in_all_resolves_to_a_check():
    assert len(exercises.__all__) == len(set(exercises.__all__)) == 31
    for name in exercises.__all__:
        check = getattr(exercises, name)
        assert inspect.isfunction(check) and name.startswith("check_"), name


def test_the_package_exports_each_chapter_module_s_checks_as_the_same_objects():
    chapters = [m for m in MODULES if m.startswith("ch")]
    notebooks = sorted(p.stem for p in (Path(__file__).resolve().parents[3] / "notebooks").glob("*.ipynb"))
    assert chapters == [f"ch{n}" for n in notebooks], "a chapter module is named after its notebook"
    exported = []
    for name in chapters:
        module = importlib.import_module(f"book.exercises.{name}")
        number = int(name[2:4])
        assert (module.__doc__ or "").startswith(f"Self-checks of chapter {number},"), name
        for check in module.__all__:
            assert getattr(exercises, check) is getattr(module, check)
            assert getattr(module, check).__doc__.startswith(f"Chapter {number}:"), check
        exported += module.__all__
    assert sorted(exported) == sorted(exercises.__all__)


@pytest.mark.parametrize("name", MODULES + ["__init__"])
def test_no_module_exceeds_600_lines(name):
    path = Path(exercises.__file__).with_name(f"{name}.py")
    assert len(path.read_text().splitlines()) <= 600, path.name
