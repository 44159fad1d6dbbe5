"""Reader editions: the chapters as notebooks that read well without MyST.

The chapters are written in MyST Markdown for the website: numbers are
glued (``{glue:text}`key```), papers cited (``{cite:t}`key```), figures and
exercises referenced by label, library names linked (``{py:obj}``), and
exercises, solutions, theorems and admonitions written as directives. Opened
in JupyterLab, Colab or VS Code, all of that is raw markup. A reader edition
is the same notebook with every Markdown cell turned into plain Markdown:

- glue roles and ``{glue:}`` directives become the stored value, formatted as
  myst-nb formats it on the website (``myst_nb.core.variables.format_plain_text``);
- citations become author-year text, ``Vaswani et al. (2017)`` or
  ``(Vaswani et al., 2017)``, linked to the website's bibliography;
- ``{ref}``, ``{numref}`` and ``{prf:ref}`` become the target's number as
  the website shows it (``Fig. 8.3``, ``Exercise 3.4``, ``Theorem 3.1``),
  or a section's title, linked to an anchor in the chapter's reader edition;
- ``{py:obj}`` names become code linked to their entry in the website's
  library reference;
- cells tagged ``website-only`` (the explorers' live twins and computed
  explorers, whose scripts a notebook front end does not run, and the
  sentences about them) are
  dropped; cells tagged ``remove-cell``, which the website leaves out, stay,
  so a chapter can say in its reader edition what only a notebook does;
- exercises become headed sections, every Markdown cell of a solution a
  collapsible ``<details>`` block (and its code cells are collapsed),
  theorems, proofs and admonitions headed blocks between rules, and each
  figure's caption a Markdown cell after it.

Math stays as it is; code cells and their stored outputs are unchanged
(cells the website hides are collapsed), except inside theorems and
admonitions, which become headed blocks between rules. The conversion is a small pass of
its own over the Markdown source, not a Sphinx builder: the book uses a
fixed, small set of roles and directives, the notebooks' code cells and
outputs must pass through untouched (a builder would rebuild them from the
rendered document), and it runs in seconds without building the site.
Roles, directives and the other MyST syntax it does not know (``+++``,
``{{ substitutions }}``, directives inside quotes) raise ``ValueError``;
``%`` comments are dropped, as on the website. ``MYST_PATTERNS`` lists what
the tests make sure never reaches a reader edition.
A test checks every converted value against the website's own rendering.
"""

from __future__ import annotations

import copy
import importlib
import os
import pkgutil
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import yaml

__all__ = ["BookIndex", "reader_edition", "write_reader_notebooks", "MYST_PATTERNS", "WEBSITE_ONLY"]

#: Markup that must not survive in a reader edition (what the tests look for).
MYST_PATTERNS = (
    r"\{glue",
    r"\{cite",
    r"\{ref\}",
    r"\{numref\}",
    r"\{py:",
    r"\{prf:",
    r"^\s*(`{3,}|~{3,})\{",
    r"^\s*:::",
    r"^\([\w-]+\)=\s*$",
    r"^%",
    r"^\+\+\+",
    r"\{\{\s*\w+\s*\}\}",
    r"^\s*>\s*(`{3,}|~{3,})\{",
    r"^:[\w-]+:",
)

_ROLE = re.compile(r"\{([a-z][\w:-]*)\}(`+)(.+?)\2", re.S)
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_LABEL = re.compile(r"^\(([\w-]+)\)=\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_PRF_KINDS = {
    "prf:theorem": "Theorem",
    "prf:proposition": "Proposition",
    "prf:lemma": "Lemma",
    "prf:definition": "Definition",
    "prf:corollary": "Corollary",
}
_HIDDEN_INPUT = {"remove-input", "remove-cell", "hide-input"}
WEBSITE_ONLY = "website-only"  #: the tag of cells a reader edition leaves out


@dataclass
class _Target:
    doc: str  # the notebook's file name, e.g. "08_extrapolation.ipynb"
    text: str  # what a reference shows, e.g. "Fig. 8.3"
    title: str = ""  # for exercises: their title


@dataclass
class BookIndex:
    """What a reader edition needs to know about the whole book.

    Built by :meth:`from_repository` from ``_toc.yml`` (chapter numbers),
    every chapter's labels (sections, figures, exercises, theorems),
    ``references.bib`` (author-year labels) and ``_config.yml`` (the
    website's address).
    """

    site: str
    targets: dict[str, _Target] = field(default_factory=dict)
    citations: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (authors, year)
    chapters: dict[str, int] = field(default_factory=dict)  # file name -> number
    folders: dict[str, str] = field(default_factory=dict)  # file name -> folder in the repo

    @classmethod
    def from_repository(cls, root: Path) -> "BookIndex":
        """The index of the book whose repository is ``root``."""
        root = Path(root)
        config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
        site = config.get("html", {}).get("baseurl", "").rstrip("/") + "/"
        index = cls(site=site)
        toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
        number = 0
        for part in toc["parts"]:
            for chapter in part["chapters"]:
                path = root / f"{chapter['file']}.ipynb"
                if not path.is_file():
                    continue
                index.folders[path.name] = str(Path(chapter["file"]).parent)
                if part.get("numbered"):
                    number += 1
                    index.chapters[path.name] = number
                index._add_labels(nbformat.read(path, as_version=4), path.name, index.chapters.get(path.name))
        index.citations = _bibliography(root / "references.bib")
        return index

    def _add_labels(self, nb: nbformat.NotebookNode, doc: str, number: int | None) -> None:
        counts: dict[str, int] = {}

        def numbered(kind: str) -> str:
            counts[kind] = counts.get(kind, 0) + 1
            return f"{number}.{counts[kind]}" if number else str(counts[kind])

        for cell in nb.cells:
            figure = cell.metadata.get("mystnb", {}).get("figure", {})
            if cell.cell_type == "code" and figure.get("name"):
                self.targets[figure["name"]] = _Target(doc, f"Fig. {numbered('figure')}")
            if cell.cell_type != "markdown":
                continue
            lines = cell.source.splitlines()
            for i, line in enumerate(lines):
                label = _LABEL.match(line)
                if label:
                    heading = next((_HEADING.match(t) for t in lines[i + 1 :] if t.strip()), None)
                    self.targets[label.group(1)] = _Target(doc, heading.group(2).strip() if heading else "")
                fence = _FENCE.match(line)
                if not fence or not fence.group(3).startswith("{"):
                    continue
                name, _, title = fence.group(3)[1:].partition("}")
                options = _options(lines[i + 1 :])
                if name == "exercise":
                    self.targets[options.get("label", "")] = _Target(
                        doc, f"Exercise {numbered('exercise')}", title.strip()
                    )
                elif name in _PRF_KINDS and "label" in options:
                    self.targets[options["label"]] = _Target(doc, f"{_PRF_KINDS[name]} {numbered(name)}", title.strip())

    def reference_url(self, target: str) -> str:
        """The website's library-reference address of ``book.X...``."""
        parts = target.split(".")
        if parts[0] != "book":
            raise ValueError(f"py role target must be a name in book, not {target!r}")
        modules = {m.name for m in pkgutil.iter_modules(importlib.import_module("book").__path__)}
        page = parts[1] if len(parts) > 1 and parts[1] in modules else "index"
        is_module = target == "book" or (len(parts) == 2 and page != "index")
        return f"{self.site}reference/{page}.html#{'module-' if is_module else ''}{target}"


def _options(lines: list[str]) -> dict[str, str]:
    """The ``:key: value`` lines that open a directive's body."""
    out = {}
    for line in lines:
        m = re.match(r"^:([\w-]+):\s*(.*)$", line)
        if not m:
            break
        out[m.group(1)] = m.group(2).strip()
    return out


def _bibliography(path: Path) -> dict[str, tuple[str, str]]:
    """key -> (authors as author-year style shows them, year), from a BibTeX file."""
    import codecs

    import latexcodec  # noqa: F401  (registers the "ulatex" codec: LaTeX accents to Unicode)
    from pybtex.database import parse_file

    out = {}
    for key, entry in parse_file(str(path)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        last = [codecs.decode(" ".join(p.last_names), "ulatex").replace("{", "").replace("}", "") for p in people]  # type: ignore[call-overload]
        if len(last) >= 3:
            authors = f"{last[0]} et al."
        elif len(last) == 2:
            authors = f"{last[0]} and {last[1]}"
        elif last:
            authors = last[0]
        else:  # as sphinxcontrib-bibtex's author-year style: the title stands in, and "n.d." for no year
            title = codecs.decode(entry.fields.get("title", key), "ulatex")
            authors = title.replace("{", "").replace("}", "")
        out[key] = (authors, entry.fields.get("year", "n.d."))
    return out


# ---------------------------------------------------------------------------
# One notebook.
# ---------------------------------------------------------------------------


def _glue_outputs(nb: nbformat.NotebookNode) -> dict[str, dict[str, Any]]:
    """key -> the MIME bundle that ``myst_nb.glue`` stored for it."""
    glued = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                prefix = output["metadata"]["scrapbook"].get("mime_prefix", "")
                glued[name] = {k[len(prefix) :]: v for k, v in output.get("data", {}).items()}
    return glued


class _Converter:
    def __init__(self, nb: nbformat.NotebookNode, doc: str, index: BookIndex):
        self.glued, self.doc, self.index = _glue_outputs(nb), doc, index
        self.solution: str | None = None  # the exercise whose solution is open, across cells
        self.solution_cells = 0
        self.pasted: list[str] = []  # every glue:text value inlined, in order

    # -- inline ------------------------------------------------------------
    def inline(self, text: str) -> str:
        """Replace every role outside code spans."""
        out, i = [], 0
        while i < len(text):
            role = _ROLE.match(text, i) if text[i] == "{" else None
            if role:
                out.append(self.role(role.group(1), role.group(3)))
                i = role.end()
            elif text[i] == "`":
                ticks = re.match(r"`+", text[i:]).group(0)  # type: ignore[union-attr]  # text[i] is a backtick
                end = text.find(ticks, i + len(ticks))
                end = len(text) - len(ticks) if end < 0 else end
                out.append(text[i : end + len(ticks)])
                i = end + len(ticks)
            else:
                out.append(text[i])
                i += 1
        return "".join(out)

    def glue_text(self, content: str) -> str:
        from myst_nb.core.variables import format_plain_text

        key, _, fmt = content.rpartition(":") if ":" in content else (content, "", "s")
        if "text/plain" not in self.glued.get(key, {}):
            raise ValueError(f"{self.doc}: no glued value {key!r} with text")
        value = format_plain_text(self.glued[key]["text/plain"], fmt)
        self.pasted.append(value)
        return value

    def role(self, name: str, content: str) -> str:
        if name == "glue:text":
            return self.glue_text(content)
        if name == "glue:md":
            if "text/markdown" not in self.glued.get(content, {}):
                raise ValueError(f"{self.doc}: no glued Markdown {content!r}")
            return self.markdown(self.glued[content]["text/markdown"]).strip()
        if name in ("cite", "cite:p", "cite:t"):
            return self.cite(name, content)
        if name in ("ref", "numref", "prf:ref"):
            return self.ref(name, content)
        if name.startswith("py:"):
            shown, target = _split_target(content)
            if shown is None:
                shown = target.rsplit(".", 1)[-1] if target.startswith("~") else target
            target = target.lstrip("~")
            return f"[`{shown}`]({self.index.reference_url(target)})"
        if name == "math":
            return f"${content}$"
        raise ValueError(f"{self.doc}: the role {{{name}}} has no plain-Markdown form yet")

    def cite(self, name: str, content: str) -> str:
        keys = [k.strip() for k in content.split(",")]
        unknown = [k for k in keys if k not in self.index.citations]
        if unknown:
            raise ValueError(f"{self.doc}: unknown citation keys {unknown}")
        url = f"{self.index.site}references.html"
        if name == "cite:t":
            return "; ".join(f"[{a} ({y})]({url})" for a, y in (self.index.citations[k] for k in keys))
        return "(" + "; ".join(f"[{a}, {y}]({url})" for a, y in (self.index.citations[k] for k in keys)) + ")"

    def ref(self, name: str, content: str) -> str:
        shown, label = _split_target(content)
        target = self.target(label)
        if shown is None:
            shown = target.text
        elif "{number}" in shown or "%s" in shown:
            shown = shown.replace("{number}", target.text.split(" ")[-1]).replace("%s", target.text.split(" ")[-1])
        href = f"#{label}" if target.doc == self.doc else f"{target.doc}#{label}"
        return f"[{self.inline(shown)}]({href})"

    # -- blocks ------------------------------------------------------------
    def markdown(self, source: str) -> str:
        lines, out, i = source.splitlines(), [], 0
        while i < len(lines):
            line = lines[i]
            label = _LABEL.match(line)
            if label:
                out.append(f'<a id="{label.group(1)}"></a>')
                i += 1
                continue
            fence = _FENCE.match(line)
            if fence:
                indent, marks, info = fence.groups()
                end = i + 1
                while end < len(lines) and not re.fullmatch(
                    rf"\s*{re.escape(marks[0])}{{{len(marks)},}}\s*", lines[end]
                ):
                    end += 1
                body = lines[i + 1 : end]
                if info.startswith("{"):
                    out.append(self.directive(info, body))
                else:
                    out.extend(lines[i : end + 1])
                i = end + 1
                continue
            if re.match(r"^%", line):  # a MyST comment: not shown on the website either
                i += 1
                continue
            if re.match(r"^\s*(\+\+\+|>\s*(`{3,}|~{3,})\{)", line) or re.search(r"\{\{\s*\w+\s*\}\}", line):
                raise ValueError(f"{self.doc}: {line.strip()!r} has no plain-Markdown form yet")
            if re.match(r"^\s*:::", line):
                raise ValueError(f"{self.doc}: colon-fence directives have no plain-Markdown form yet")
            out.append(line)
            i += 1
        return "\n".join(out)

    def directive(self, info: str, body: list[str]) -> str:
        name, _, argument = info[1:].partition("}")
        argument = argument.strip()
        options = _options(body)
        body = body[len(options) :]
        if body and body[0].strip() == "---":  # a YAML options block
            raise ValueError(f"{self.doc}: YAML directive options have no plain-Markdown form yet")
        text = self.markdown("\n".join(body)).strip()
        if name == "glue:" or name == "glue":
            data = self.glued.get(argument)
            if data is None:
                raise ValueError(f"{self.doc}: no glued value {argument!r}")
            if "text/markdown" in data:
                return self.markdown(data["text/markdown"])
            return self.glue_text(argument)
        if name == "exercise":
            label = options.get("label", "")
            if not label:
                raise ValueError(f"{self.doc}: an exercise needs a :label:")
            target = self.target(label)
            return f'<a id="{label}"></a>\n\n### {target.text} ({self.inline(argument)})\n\n{text}'
        if name == "solution-start":
            self.solution, self.solution_cells = self.target(argument).text, 0
            return text
        if name == "solution-end":
            self.solution = None
            return text
        if name in _PRF_KINDS:
            label = options.get("label") or ""
            head = self.target(label).text if label else _PRF_KINDS[name]
            head += f" ({self.inline(argument)})" if argument else ""
            anchor = f'<a id="{label}"></a>\n\n' if label else ""
            return anchor + _block(f"**{head}.**", text)
        if name == "prf:proof":
            return _block("**Proof.**", text + "\n\n\u220e")
        if name == "admonition":
            return _block(f"**{self.inline(argument)}**", text)
        if name in ("note", "warning", "tip", "important", "caution"):
            return _block(f"**{name.capitalize()}**", text)
        raise ValueError(f"{self.doc}: the directive {{{name}}} has no plain-Markdown form yet")

    def target(self, label: str) -> _Target:
        if label not in self.index.targets:
            raise ValueError(f"{self.doc}: unknown reference target {label!r}")
        return self.index.targets[label]

    def cell(self, source: str) -> str:
        """One Markdown cell; a solution's cells (start to end) each become a collapsed block."""
        inside = self.solution
        text = self.markdown(source).strip()
        exercise = self.solution or inside
        if exercise and text:
            self.solution_cells += 1
            more = " (continued)" if self.solution_cells > 1 else ""
            text = f"<details>\n<summary>Solution to {exercise}{more}</summary>\n\n{text}\n\n</details>"
        return _LINK.sub(self.link, self.inline(text))

    def link(self, m: re.Match) -> str:
        """A plain Markdown link: a page of the site goes to the website, a chapter to its reader edition."""
        target = m.group(1)
        if re.match(r"^([a-z]+:|#)", target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        if path.endswith(".ipynb"):
            return f"]({Path(path).name}{'#' + anchor if anchor else ''})"
        if path.endswith(".md"):
            folder = Path(self.index.folders.get(self.doc, "."))
            page = Path(os.path.normpath(folder / path)).with_suffix(".html").as_posix()
            if page.startswith(".."):
                raise ValueError(f"{self.doc}: the link {target!r} leaves the book")
            return f"]({self.index.site}{page}{'#' + anchor if anchor else ''})"
        raise ValueError(f"{self.doc}: the relative link {target!r} has no reader-edition form")


def _split_target(content: str) -> tuple[str | None, str]:
    m = re.fullmatch(r"(.*?)\s*<([^<>]+)>\s*", content, re.S)
    return (m.group(1), m.group(2)) if m else (None, content.strip())


def _block(head: str, text: str) -> str:
    """A headed block between rules (not a block quote: JupyterLab would put ``> `` into display math)."""
    return f"---\n\n{head}\n\n{text}\n\n---"


def reader_edition(
    nb: nbformat.NotebookNode, doc: str, index: BookIndex, pasted: list[str] | None = None
) -> nbformat.NotebookNode:
    """The reader edition of one notebook (``doc`` is its file name, e.g. ``"08_extrapolation.ipynb"``).

    Markdown cells are converted (see the module's docstring); a cell left
    empty (the end of a solution) is dropped, and so is every cell tagged
    ``website-only``. Code cells keep their source and
    outputs; those the website hides are collapsed, solution cells too, and a
    figure's caption follows its cell as Markdown.

    If ``pasted`` is a list, every glued text value inlined is appended to
    it, in order (the tests compare them with the website's).

    Raises:
        ValueError: on MyST syntax the conversion does not know, an unknown
            label, citation key or glue key.
    """
    if not isinstance(nb, nbformat.NotebookNode):
        raise TypeError(f"nb must be a notebook (nbformat.NotebookNode), not {type(nb).__name__}")
    if not isinstance(doc, str) or not doc.endswith(".ipynb"):
        raise ValueError(f"doc must be the notebook's file name, ending in .ipynb, not {doc!r}")
    if not isinstance(index, BookIndex):
        raise TypeError(f"index must be a BookIndex, not {type(index).__name__}")
    if pasted is not None and not isinstance(pasted, list):
        raise TypeError(f"pasted must be a list or None, not {type(pasted).__name__}")
    conv = _Converter(nb, doc, index)
    out = copy.deepcopy(nb)
    cells = []
    for cell in out.cells:
        tags = set(cell.metadata.get("tags", []))
        if WEBSITE_ONLY in tags:
            continue
        if cell.cell_type == "markdown":
            cell.source = conv.cell(cell.source)
            if cell.source.strip():
                cells.append(cell)
            continue
        cells.append(cell)
        if cell.cell_type != "code":
            continue
        jupyter = cell.metadata.setdefault("jupyter", {})
        if tags & _HIDDEN_INPUT or "solution" in tags:
            jupyter["source_hidden"] = True
        if "remove-output" in tags or "solution" in tags:
            jupyter["outputs_hidden"] = True
        figure = cell.metadata.get("mystnb", {}).get("figure", {})
        if figure.get("name"):
            number = index.targets[figure["name"]].text
            caption = conv.inline(conv.markdown(figure.get("caption", "")))
            figure["caption"] = caption  # the metadata keeps no MyST either
            cells.append(
                nbformat.v4.new_markdown_cell(  # a stable id: editions stay reproducible
                    f'<a id="{figure["name"]}"></a>\n\n**{number}.** {caption}', id=f"caption-{figure['name']}"[:64]
                )
            )
    out.cells = cells
    if pasted is not None:
        pasted.extend(conv.pasted)
    return out


def write_reader_notebooks(root: Path, out_dir: Path) -> list[Path]:
    """Write the reader edition of every chapter and of the teachers' page into ``out_dir``.

    ``root`` is the repository (with ``_toc.yml``); the notebooks are written
    side by side, ``out_dir/01_order_blind.ipynb`` ... ``out_dir/teachers.ipynb``,
    so that links between them resolve.

    Raises:
        FileNotFoundError: if ``root`` has no ``_toc.yml``.
        ValueError: if ``out_dir`` is a folder of the repository's notebooks.
    """
    for name, value in (("root", root), ("out_dir", out_dir)):
        if not isinstance(value, (str, Path)):
            raise TypeError(f"{name} must be a path (str or pathlib.Path), not {type(value).__name__}")
    root, out_dir = Path(root), Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"out_dir must be a folder, and {out_dir} is a file")
    if not (root / "_toc.yml").is_file():
        raise FileNotFoundError(f"no _toc.yml in {root}: root must be the book's repository")
    index = BookIndex.from_repository(root)
    sources = [root / "notebooks" / name for name in index.chapters] + sorted((root / "guide").glob("*.ipynb"))
    if out_dir.resolve() in {p.parent.resolve() for p in sources} | {root.resolve()}:
        raise ValueError("out_dir must differ from the notebooks' folders, or the chapters would be overwritten")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sources:
        nb = nbformat.read(path, as_version=4)
        target = out_dir / path.name
        nbformat.write(reader_edition(nb, path.name, index), target)
        written.append(target)
    return written
