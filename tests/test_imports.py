"""The computing modules of book import without matplotlib (plots and widgets are the only ones that need it).

The imports run in one fresh interpreter, one module at a time, and after each
one we look whether matplotlib has been loaded: the first module that loads it
is named, and modules imported by other tests in this process cannot hide it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WITHOUT_MATPLOTLIB = ["book", "book.encodings", "book.tasks", "book.models", "book.numerics", "book.attention",
                      "book.scaling", "book.experiments", "book.ensemble", "book.mechanism", "book.exercises"]

PROBE = """
import importlib, json, sys
loaded = {}
for name in sys.argv[1:]:
    importlib.import_module(name)
    loaded[name] = "matplotlib" in sys.modules
print(json.dumps(loaded))
"""


def test_computing_modules_do_not_import_matplotlib():
    # book.plots goes last: it must load matplotlib, which shows that the probe would notice
    done = subprocess.run([sys.executable, "-c", PROBE, *WITHOUT_MATPLOTLIB, "book.plots"],
                          capture_output=True, text=True, check=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    loaded = json.loads(done.stdout)
    assert [m for m in WITHOUT_MATPLOTLIB if loaded[m]] == []
    assert loaded["book.plots"]
