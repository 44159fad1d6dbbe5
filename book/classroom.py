"""Student copies of the chapters: solutions removed, outputs cleared.

Usage::

    python -m book.classroom student OUT_DIR [--notebooks DIR]

Every cell tagged ``solution`` (the hidden solution blocks after each
exercise) is dropped; every code cell loses its outputs and execution count,
so students run the chapter themselves. Exercise cells (tagged ``exercise``)
and everything else are kept as they are. The chapters in ``notebooks/`` are
not modified.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

__all__ = ["student_copy", "write_student_notebooks", "main"]

SOLUTION_TAG = "solution"


def student_copy(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return a copy of ``nb`` without solution cells and with code outputs cleared."""
    out = nbformat.from_dict(nb)  # a deep copy
    out.cells = [c for c in out.cells if SOLUTION_TAG not in c.get("metadata", {}).get("tags", [])]
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    out.metadata.pop("widgets", None)
    return out


def write_student_notebooks(source_dir: Path, out_dir: Path) -> list[Path]:
    """Write a student copy of every ``*.ipynb`` in ``source_dir`` into ``out_dir``.

    Raises:
        FileNotFoundError: if ``source_dir`` holds no notebooks.
        ValueError: if ``out_dir`` is ``source_dir`` (the chapters would be overwritten).
    """
    source_dir, out_dir = Path(source_dir), Path(out_dir)
    paths = sorted(source_dir.glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no notebooks (*.ipynb) in {source_dir}")
    if out_dir.resolve() == source_dir.resolve():
        raise ValueError("out_dir must differ from the notebooks folder, or the chapters would be overwritten")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        target = out_dir / path.name
        nbformat.write(student_copy(nb), target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m book.classroom", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    student = sub.add_parser("student", help="write student notebooks (solutions removed, outputs cleared)")
    student.add_argument("out_dir", type=Path, help="folder to write the student notebooks into")
    student.add_argument("--notebooks", type=Path, default=Path("notebooks"),
                         help="folder with the chapters (default: notebooks)")
    args = parser.parse_args(argv)
    try:
        written = write_student_notebooks(args.notebooks, args.out_dir)
    except (FileNotFoundError, ValueError) as err:
        parser.error(str(err))
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
