"""Write the small Sphinx inventories (``*.inv``) that the book's intersphinx reads offline.

The build has no network, so ``objects.inv`` cannot be downloaded from the
projects' sites. Each ``<project>.txt`` here lists, one per line, the objects
the library reference links to, in the format of Sphinx's inventory version 2
(``name domain:role priority uri dispname``, where ``$`` in ``uri`` stands for
``name`` and ``-`` for a display name equal to ``name``). Its header comments
give the project's name, version and documentation root. This script
compresses each list into the binary inventory that ``sphinx.ext.intersphinx``
loads (the same format ``sphobjinv`` or a Sphinx build writes)::

    python _ext/inventories/make_inventories.py

Add an entry to a ``.txt`` file when ``jupyter-book build -n`` reports a
``reference target not found`` for a name that project documents, then rerun
this script and commit both files. ``tests/site/test_reference.py`` checks that the
``.inv`` files are up to date with the ``.txt`` files.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENTRY = re.compile(r"^(?P<name>\S+)\s+(?P<domain>py):(?P<role>\w+)\s+(?P<prio>-?\d+)\s+(?P<uri>\S+)\s+(?P<disp>.+)$")


def read_source(path: Path) -> tuple[dict[str, str], list[str]]:
    """Return the header fields (``project``, ``version``, ``url``) and the entry lines of one ``.txt``."""
    header, entries = {}, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep and key.strip().lower() in ("project", "version", "url"):
                header[key.strip().lower()] = value.strip()
            continue
        if line.strip():
            if not ENTRY.match(line):
                raise ValueError(f"{path.name}: not an inventory entry: {line!r}")
            entries.append(line.strip())
    missing = {"project", "version", "url"} - header.keys()
    if missing:
        raise ValueError(f"{path.name}: header lacks {sorted(missing)}")
    return header, entries


def inventory_bytes(header: dict[str, str], entries: list[str]) -> bytes:
    """The binary inventory (version 2): four plain header lines, then the zlib-compressed entries."""
    head = (
        "# Sphinx inventory version 2\n"
        f"# Project: {header['project']}\n"
        f"# Version: {header['version']}\n"
        "# The remainder of this file is compressed using zlib.\n"
    ).encode("utf-8")
    body = "".join(f"{e}\n" for e in sorted(entries)).encode("utf-8")
    return head + zlib.compress(body, 9)


def main() -> None:
    for source in sorted(HERE.glob("*.txt")):
        header, entries = read_source(source)
        target = source.with_suffix(".inv")
        target.write_bytes(inventory_bytes(header, entries))
        print(f"wrote {target.name}: {len(entries)} entries ({header['project']} {header['version']})")


if __name__ == "__main__":
    main()
