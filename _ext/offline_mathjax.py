"""Serve MathJax from the built site itself, so that pages typeset math offline.

Classroom networks fail, and a copied site must read without one. This
extension copies MathJax 3 (from the ``django-static-mathjax`` package on
PyPI, pinned in requirements.txt; no download at build time) into
``_static/mathjax`` and points Sphinx's ``mathjax_path`` at it. Only what the
pages use is copied: the TeX-to-CommonHTML bundle, its web fonts, the TeX
extensions it may load on demand, and the menu and accessibility components.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

BUNDLE = "tex-chtml.js"
PARTS = ("output/chtml/fonts/woff-v2", "input/tex/extensions", "ui", "a11y")


def _mathjax_dir() -> Path:
    spec = importlib.util.find_spec("mathjax")
    root = Path(spec.origin).parent / "static" / "mathjax" / "es5" if spec and spec.origin else None
    if root is None or not (root / BUNDLE).is_file():
        raise ExtensionError(
            "offline_mathjax needs MathJax 3 from the 'django-static-mathjax' package: pip install -r requirements.txt"
        )
    return root


def _configure(app: Sphinx, config) -> None:
    _mathjax_dir()  # fail early, with a clear message
    config.mathjax_path = f"mathjax/{BUNDLE}"


def _copy(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    src, dst = _mathjax_dir(), Path(app.outdir) / "_static" / "mathjax"
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src / BUNDLE, dst / BUNDLE)
    for part in PARTS:
        shutil.copytree(src / part, dst / part, dirs_exist_ok=True)


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _configure)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
