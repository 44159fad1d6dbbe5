"""Every explorer in a real JupyterLab front end, driven in Chromium.

The README's local path is ``jupyter lab`` on the notebooks. This test starts
JupyterLab from the project's environment on 127.0.0.1 (all outside requests
blocked), opens a notebook that shows every explorer in ``book.widgets``,
runs it from the Run menu, and checks what a reader would see: every cell
ran without an error, every explorer rendered as live controls (not a
``VBox(...)`` text stand-in or "Error displaying widget") with its figure,
and moving each explorer's first slider (or ticking a check box) makes the
kernel redraw the figure. Skipped without Chromium, unless REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "book" / "results" / "fibonacci.json"

#: (explorer, the code that shows it); one notebook cell each.
EXPLORERS = [
    ("order_explorer", "widgets.order_explorer(TinySelfAttention(list('abcd'), d_model=8, seed=0), list('abcd'))"),
    ("pe_explorer", "widgets.pe_explorer()"),
    ("rotation_explorer", "widgets.rotation_explorer()"),
    ("fingerprint_explorer", "widgets.fingerprint_explorer()"),
    ("learned_table_explorer", "widgets.learned_table_explorer({0: torch.randn(24, 8), 50: torch.randn(24, 8)})"),
    ("rope_explorer", "widgets.rope_explorer(torch.randn(16), torch.randn(16))"),
    ("alibi_explorer", "widgets.alibi_explorer()"),
    ("t5_bucket_explorer", "widgets.t5_bucket_explorer()"),
    ("results_explorer", f"widgets.results_explorer({{'fibonacci': json.loads(Path({str(RESULTS)!r}).read_text())}})"),
    ("scaling_explorer", "widgets.scaling_explorer()"),
    ("two_bases_explorer", "widgets.two_bases_explorer()"),
    (
        "layer_pattern_explorer",
        "from transformers import Cohere2Config, GptOssConfig\n"
        "from book.models import layer_positions\n"
        "widgets.layer_pattern_explorer({n: layer_positions(c) for n, c in "
        "(('Cohere 2', Cohere2Config()), ('GPT-OSS', GptOssConfig()))})",
    ),
    ("precision_explorer", "widgets.precision_explorer()"),
    ("sink_cache_explorer", "widgets.sink_cache_explorer()"),
]
SETUP = (
    "import json\nfrom pathlib import Path\n\nimport torch\n\nfrom book import widgets\n"
    "from book.demos import TinySelfAttention\n\n_ = torch.manual_seed(0)"
)


def test_every_explorer_is_listed():
    from book import widgets

    assert sorted(name for name, _ in EXPLORERS) == sorted(widgets.__all__)


def _notebook(folder: Path) -> Path:
    cells = [SETUP] + [code for _, code in EXPLORERS]
    nb = {
        "cells": [
            {"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
            for i, src in enumerate(cells)
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = folder / "explorers.ipynb"
    path.write_text(json.dumps(nb))
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab from this environment, serving a folder with the explorers' notebook."""
    folder = tmp_path_factory.mktemp("lab")
    _notebook(folder)
    from book import editions

    editions.write_reader_notebooks(ROOT, folder / "reader")
    settings = folder / ".settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(folder / ".workspaces"),
        JUPYTER_RUNTIME_DIR=str(folder / ".runtime"),
    )
    port = _free_port()
    log = (folder / "lab.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--allow-root",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port_retries=0",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={folder}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status", timeout=2)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail("JupyterLab did not start:\n" + (folder / "lab.log").read_text()[-3000:])
            time.sleep(0.5)
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def notebook(lab, browser):
    """The explorers' notebook open in JupyterLab, every cell run from the Run menu."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    blocked: list[str] = []

    def route(r):
        if r.request.url.startswith((lab, "data:", "blob:")):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{lab}/lab/tree/explorers.ipynb")
    page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=90_000)
    page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=90_000)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    page.wait_for_function(
        """n => { const STDERR = "[data-mime-type='application/vnd.jupyter.stderr']";
                 const p = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
                 const failed = [...document.querySelectorAll(STDERR)].some(e => e.textContent.includes('Traceback'));
                 return failed || (p.length === n && p.every(e => /\\[\\d+\\]/.test(e.textContent))); }""",
        arg=len(EXPLORERS) + 1,
        timeout=180_000,
    )
    page.wait_for_timeout(1000)  # let the widget views finish rendering
    # (Run All stops at a cell that raises: the tests below then report it.)
    yield page, errors, blocked
    context.close()


def _cell_output(page, index: int):
    return page.locator(".jp-Notebook .jp-CodeCell").nth(index).locator(".jp-Cell-outputArea")


def test_every_cell_runs_without_an_error(notebook):
    page, errors, blocked = notebook
    # JupyterLab shows a traceback (and any warning) as stderr text; a reader should see neither
    stderr = page.locator(".jp-Cell-outputArea > * > [data-mime-type='application/vnd.jupyter.stderr']")
    assert stderr.count() == 0, stderr.first.inner_text()
    assert errors == [], errors
    assert blocked == [], f"JupyterLab asked for outside resources: {blocked[:5]}"


@pytest.mark.parametrize(
    "index,name", [(i + 1, name) for i, (name, _) in enumerate(EXPLORERS)], ids=[name for name, _ in EXPLORERS]
)
def test_explorer_renders_and_redraws(notebook, index, name):
    page, _, _ = notebook
    output = _cell_output(page, index)
    text = output.inner_text()
    assert "Error displaying widget" not in text and "VBox(" not in text, f"{name} did not render: {text[:300]}"
    assert output.locator(".widget-vbox").count() >= 1, f"{name}: no widget view"
    assert output.locator(".widget-output img").count() >= 1, f"{name}: no figure"

    def snapshot() -> str:
        srcs = output.locator(".widget-output img").evaluate_all("imgs => imgs.map(i => i.src).join()")
        return output.locator(".widget-output").inner_text() + srcs

    def changed(seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while snapshot() == before:
            if time.monotonic() > deadline:
                return False
            page.wait_for_timeout(250)
        return True

    before = snapshot()
    handles = output.locator(".noUi-handle")
    if handles.count():
        handles.first.focus()
        page.keyboard.press("ArrowLeft")
        if not changed(10):  # the slider may start at its minimum
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowRight")
    elif output.locator("input[type=checkbox]").count():
        output.locator("input[type=checkbox]").first.click()
    else:  # a drop-down list only (chapter 10's model explorer)
        select = output.locator("select").first
        chosen, n = select.evaluate("e => [e.selectedIndex, e.options.length]")
        select.select_option(index=(chosen + 1) % n)
    assert changed(60), f"{name}: the figure did not change after moving a control"


def test_reader_edition_shows_the_numbers_in_its_prose(lab, browser, tmp_path):
    """Chapter 8's reader edition, opened (not run) in JupyterLab, shows its first
    results paragraph with the numbers the website glues, and no MyST markup."""
    from book import results

    config = results.load("fibonacci")["config"]
    expected = (
        f"committed results (book/results/fibonacci.json: {len(config['schemes'])} schemes, seeds "
        f"{', '.join(map(str, config['seeds']))}, {config['steps']} steps at learning rate {config['lr']}"
    )
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith((lab, "data:", "blob:")) else r.abort())
    page = context.new_page()
    page.goto(f"{lab}/lab/tree/reader/08_extrapolation.ipynb")
    page.wait_for_selector(".jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown", timeout=90_000)
    paragraph = page.locator(".jp-RenderedMarkdown p", has_text="committed results (").first
    paragraph.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=str(tmp_path / "reader_ch8.png"))
    text = " ".join(paragraph.inner_text().split())
    assert expected in text, text
    rendered = page.locator(".jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown").all_inner_texts()
    assert rendered and not any("{glue" in t or "{cite" in t or "{py:" in t for t in rendered)
    context.close()
