"""The computing modules of book import no plotting or notebook package.

``book.encodings`` and friends stay light: no matplotlib, IPython, ipywidgets
or nbformat (only ``book.plots``, ``book.widgets`` and ``book.classroom`` need
them). The imports run in one fresh interpreter, one module at a time, and
after each one we look which of those packages are loaded: the first module
that loads one is named, and modules imported by other tests in this process
cannot hide it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LIGHT = [
    "book",
    "book.encodings",
    "book.tasks",
    "book.models",
    "book.numerics",
    "book.attention",
    "book.scaling",
    "book.experiments",
    "book.mechanism",
    "book.exercises",
]
HEAVY = ["matplotlib", "IPython", "ipywidgets", "nbformat"]

PROBE = """
import importlib, json, sys
heavy = json.loads(sys.argv[1])
loaded = {}
for name in sys.argv[2:]:
    importlib.import_module(name)
    loaded[name] = [m for m in heavy if m in sys.modules]
import torch, book.numerics
book.numerics.memory_traffic(lambda: torch.ones(3).clone())
loaded["dynamo after memory_traffic"] = "torch._dynamo" in sys.modules
print(json.dumps(loaded))
"""


def test_computing_modules_import_no_plotting_or_notebook_package():
    # book.plots goes last: it must load matplotlib, which shows that the probe would notice
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), *LIGHT, "book.plots"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    loaded = json.loads(done.stdout)
    assert {m: loaded[m] for m in LIGHT if loaded[m]} == {}
    # counting bytes does not import torch._dynamo (about 5 s, which chapter 11 would pay)
    assert loaded["dynamo after memory_traffic"] is False
    assert "matplotlib" in loaded["book.plots"]
