"""The student site: no solution in any form, when ``hide_solutions`` is on.

sphinx-exercise's ``hide_solutions`` (its ``SolutionDirective.run`` returns
nothing) removes a ``{solution}`` directive, but not a gated solution: its
``solution-start`` returns nothing too, so its content (the cells up to
``solution-end``) stays on the page as ordinary text and code. Every
chapter writes its solutions gated (``solution-start`` in a Markdown cell,
then Markdown and code cells tagged ``solution``, then ``solution-end``), so
with ``hide_solutions`` on this extension:

- makes ``solution-start`` leave a marker, and removes everything from the
  marker to its ``solution-end`` (the same siblings sphinx-exercise would
  merge into the solution);
- removes every code cell tagged ``solution`` (myst-nb gives its container
  the class ``tag_solution``), in case one stands outside a gated block;
- keeps only the first paragraph (the question) of each ``book.exercises``
  docstring in the library reference: the rest says which answers the check
  accepts, for the chapter's settings too;
- fails the build if a solution node or a ``solution``/``tag_solution``
  element is left in a page.

``_ext/reader_editions.py`` does the rest (no launch buttons, and the
``.ipynb`` downloads without solution cells). ``_config_student.yml`` turns
it on (``make book-student``); with ``hide_solutions`` off (the normal site)
this extension changes nothing.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.transforms import SphinxTransform
from sphinx_exercise.directive import SolutionStartDirective
from sphinx_exercise.nodes import solution_end_node, solution_node, solution_start_node


class removed_solution(nodes.Element):
    """Where a gated solution starts, on the student site (removed with what follows it)."""


class StudentSolutionStart(SolutionStartDirective):
    """``solution-start`` that leaves a marker when solutions are hidden."""

    def run(self) -> list[nodes.Node]:
        made = super().run()  # registers the gated pair (sphinx-exercise checks their structure)
        if not self.env.app.config.hide_solutions:
            return made
        marker = removed_solution()
        marker["label"] = self.arguments[0]
        self.set_source_info(marker)
        return [marker]


class RemoveGatedSolutions(SphinxTransform):
    """Remove each marked solution: the marker, the siblings after it, and its ``solution-end``
    (before sphinx-exercise's ``MergeGatedSolutions``, priority 10)."""

    default_priority = 5

    def apply(self, **kwargs) -> None:
        if not self.config.hide_solutions:
            return
        for marker in list(self.document.findall(removed_solution)):
            parent = marker.parent
            start = parent.index(marker)
            ends = [i for i, child in enumerate(parent.children) if i > start and isinstance(child, solution_end_node)]
            if not ends:
                raise ExtensionError(
                    f"{self.env.docname}: the solution to {marker['label']} has no solution-end at its level; "
                    "the student site cannot remove it"
                )
            for child in parent.children[start : ends[0] + 1]:
                parent.remove(child)
        for cell in list(self.document.findall(nodes.container)):
            if "tag_solution" in cell.get("classes", []):
                cell.parent.remove(cell)


def _question_only(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    """A ``book.exercises`` check's docstring cut to its first paragraph, when solutions are hidden."""
    if app.config.hide_solutions and name.startswith("book.exercises.") and what == "function":
        end = lines.index("") if "" in lines else len(lines)
        lines[end:] = []


def _no_solution_left(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if not app.config.hide_solutions:
        return
    for node in doctree.findall(nodes.Element):
        classes = node.get("classes", [])
        if isinstance(node, (solution_node, solution_start_node)) or {"solution", "tag_solution"} & set(classes):
            raise ExtensionError(f"{docname}: a solution is left on the student site (line {node.line})")


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx_exercise")
    app.setup_extension("sphinx.ext.autodoc")
    app.add_node(removed_solution)
    app.add_directive("solution-start", StudentSolutionStart, override=True)
    app.add_transform(RemoveGatedSolutions)
    app.connect("autodoc-process-docstring", _question_only)
    app.connect("doctree-resolved", _no_solution_left)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
