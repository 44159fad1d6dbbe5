"""Small fixes so that the library reference's types link, under ``-n``, to their docs.

Two things autodoc and napoleon produce do not match the names in the projects'
inventories (``_ext/inventories``):

* Autodoc names a type after the module that defines it, which for some
  classes is a private module: ``torch.Generator`` is defined in ``torch._C``,
  ``torch.nn.Module`` in ``torch.nn.modules.module``, and a few library
  annotations use the alias ``mpl`` for ``matplotlib``. Their documentation
  uses the public names, so a reference to a private name is retried under its
  public name (``PUBLIC_NAMES``) before intersphinx looks it up.
* The library's docstrings write two exceptions raised for one reason as
  ``TypeError / ValueError:`` in a ``Raises:`` section. Napoleon keeps that as
  one exception name; here it becomes ``TypeError or ValueError``, which the
  Python domain splits into two links.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

#: Name autodoc writes -> the name the project documents.
PUBLIC_NAMES = {
    "torch._C.Generator": "torch.Generator",
    "torch.nn.modules.module.Module": "torch.nn.Module",
    "matplotlib.axes._axes.Axes": "matplotlib.axes.Axes",
    "nbformat.notebooknode.NotebookNode": "nbformat.NotebookNode",
}
#: Module aliases used in the library's annotations.
ALIASES = {"mpl.": "matplotlib.", "np.": "numpy.", "nn.": "torch.nn."}
RAISES = re.compile(r"^(\s*:raises\s+)([\w.]+(?:\s*/\s*[\w.]+)+)(\s*:)")


def public_name(target: str) -> str:
    """The documented name for ``target`` (``target`` itself if it needs no change)."""
    for alias, module in ALIASES.items():
        if target.startswith(alias):
            target = module + target[len(alias) :]
    return PUBLIC_NAMES.get(target, target)


def _retarget(app: Sphinx, env, node, contnode):
    if node.get("refdomain") == "py":
        target = node.get("reftarget", "")
        public = public_name(target)
        if public != target:
            node["reftarget"] = public
    return None  # let the Python domain's fallbacks and intersphinx resolve it


def split_raises(lines: list[str]) -> None:
    """Rewrite ``:raises A / B:`` as ``:raises A or B:`` in place."""
    for i, line in enumerate(lines):
        match = RAISES.match(line)
        if match:
            names = re.split(r"\s*/\s*", match.group(2))
            lines[i] = match.group(1) + " or ".join(names) + line[match.end(2) :]


def _process_docstring(app: Sphinx, what, name, obj, options, lines: list[str]) -> None:
    split_raises(lines)


def setup(app: Sphinx) -> dict:
    # Before intersphinx (priority 500) looks the name up.
    app.connect("missing-reference", _retarget, priority=400)
    # After napoleon (priority 500) has turned "Raises:" into ":raises ...:" fields.
    app.connect("autodoc-process-docstring", _process_docstring, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
