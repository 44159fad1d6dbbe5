"""Execute chapters top to bottom in a fresh kernel and store their outputs.

Usage (from the repository root, inside the book's environment):
    python scripts/execute_notebooks.py notebooks/01_order_blind.ipynb [...]
    python scripts/execute_notebooks.py --all

Each notebook runs in a new kernel started in its own folder (as nbval and
Jupyter do), with a per-cell time limit, and no per-cell timestamps are
stored (so re-running a chapter changes only what really changed). Afterwards
the saved widget state is
dropped from the notebook's metadata: it is front-end state (figures drawn
inside the explorer, random model ids), large and different on every run,
and the website shows each explorer's static twin instead.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError


def execute(path: pathlib.Path, timeout: int, attempts: int = 2) -> None:
    """Run ``path`` in a fresh kernel and store its outputs. A cell that produces
    nothing for ``timeout`` seconds stops the run; since a kernel that sits idle
    without answering (seen when several kernels share two cores) looks the same,
    the notebook is run once more in a new kernel before giving up."""
    for attempt in range(1, attempts + 1):
        nb = nbformat.read(path, as_version=4)
        try:
            NotebookClient(
                nb,
                timeout=timeout,
                kernel_name="python3",
                record_timing=False,
                resources={"metadata": {"path": str(path.parent)}},
            ).execute()
            break
        except (CellTimeoutError, DeadKernelError) as err:
            if attempt == attempts:
                raise SystemExit(
                    f"{path}: a cell gave no result for {timeout} s in {attempts} fresh kernels "
                    f"({type(err).__name__}); nothing was written"
                ) from err
            print(
                f"{path}: a cell gave no result for {timeout} s ({type(err).__name__}); "
                "running the notebook again in a new kernel",
                file=sys.stderr,
            )
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timestamps of an earlier run
    nbformat.write(nb, path)
    print(f"executed {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path)
    parser.add_argument("--all", action="store_true", help="every notebook in notebooks/ and guide/")
    parser.add_argument(
        "--timeout",
        type=int,
        default=300,
        help="seconds a cell may run (default 300; the slowest cell takes about 100)",
    )
    args = parser.parse_args(argv)
    paths = (
        sorted(pathlib.Path("notebooks").glob("*.ipynb")) + sorted(pathlib.Path("guide").glob("*.ipynb"))
        if args.all
        else args.notebooks
    )
    if not paths:
        parser.error("name notebooks, or pass --all")
    for path in paths:
        execute(path, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
