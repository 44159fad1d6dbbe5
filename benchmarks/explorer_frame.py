"""Input to painted frame: each computed explorer beside a live twin's switch.

For every view of ``book.plots.computed``, the script writes the computed
explorer and a live twin of the same chapter's ``draw_<explorer>`` function
(a small grid of states, ``book.plots.live_html``) to HTML files, opens them
from file:// in headless Chromium (Debian's, through Playwright; nothing is
fetched) and times, in the page, from setting a control and dispatching its
``input`` event to the end of the next rendered frame (a
``requestAnimationFrame`` callback, then a message posted from it, which runs
once that frame's style, layout and paint are done). The twin's time also
waits for its new image to decode (``img.decode()``), since the frame that
shows the state is the one after. The computed explorer moves a random
control to a random position each time; the twin switches between its
states. Run from the repository root::

    python benchmarks/explorer_frame.py               # 40 inputs per explorer
    python benchmarks/explorer_frame.py --inputs 200 --views pe alibi

It prints, per view, the median and 90th percentile in milliseconds of both.
Each input lands at a random time within a frame (a random wait of 0 to 16
ms after a frame), as a reader's would, so the figure includes the wait for
the next frame that any page has. The script asks Chromium for no frame
rate limit (``--disable-frame-rate-limit``, ``--disable-gpu-vsync``;
``--vsync`` leaves them out), which headless Chromium may still hold to
about 60 Hz; the synchronous work of each input (the handler and a forced
layout) is printed in brackets beside it.
``benchmarks/README.md`` keeps the latest table, with the date and machine.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from pathlib import Path

import torch

from book import plots
from book.plots import computed

#: Each view's chapter draw function, its fixed arguments and a small twin grid.
TWINS = {
    "pe": ("draw_pe_explorer", {}, {"d_model": [16, 64], "dim": [0, 6]}),
    "rotation": ("draw_rotation_explorer", {}, {"pos": [0, 10], "k": [1, 4]}),
    "fingerprint": ("draw_fingerprint_explorer", {}, {"d_model": [16, 64], "seq_len": [64, 128]}),
    "rope": ("draw_rope_explorer", "qk", {"m": [0, 6], "n": [0, 3]}),
    "alibi": ("draw_alibi_explorer", {}, {"head": [1, 2], "seq_len": [16, 32]}),
    "t5": ("draw_t5_bucket_explorer", {}, {"num_buckets": [16, 32], "bidirectional": [True, False]}),
    "scaling": ("draw_scaling_explorer", {}, {"scale": [2.0, 4.0], "original_max_len": [32, 2048]}),
    "precision": ("draw_precision_explorer", {}, {"dtype": ["bfloat16", "float16"], "longest": [2**12, 2**17]}),
}

MEASURE = """async ([root, n, seed, twin]) => {
  const el = document.getElementById(root);
  const controls = [...el.querySelectorAll('[data-param]')];
  let s = seed;
  const rand = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const frame = () => new Promise(r => requestAnimationFrame(() => {
    const ch = new MessageChannel(); ch.port1.onmessage = r; ch.port2.postMessage(0); }));
  const times = [];
  for (let i = 0; i < n; i++) {
    await frame();
    await new Promise(r => setTimeout(r, rand() * 16));  // an input lands anywhere in a frame
    const c = controls[Math.floor(rand() * controls.length)];
    const t0 = performance.now();
    if (c.type === 'checkbox') { c.checked = !c.checked; }
    else if (c.tagName === 'SELECT') { c.selectedIndex = (c.selectedIndex + 1) % c.options.length; }
    else if (twin) { c.value = String((Number(c.value) + 1) % (Number(c.max) + 1)); }
    else {
      const lo = Number(c.min), hi = Number(c.max), st = Number(c.step);
      c.value = String(lo + st * Math.floor(rand() * ((hi - lo) / st + 1)));
    }
    c.dispatchEvent(new Event('input', {bubbles: true}));
    if (twin) { await el.querySelector('img.live-figure').decode(); }
    el.getBoundingClientRect();
    const t1 = performance.now();
    await frame();
    times.push([performance.now() - t0, t1 - t0]);
  }
  return times;
}"""


def _twin_html(view: str) -> str:
    draw, fixed, grid = TWINS[view]
    if fixed == "qk":
        q, k = torch.randn(2, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(10))
        fixed = {"q": q, "k": k}
    return plots.live_html(
        getattr(plots, draw), grid, name=f"twin-{view}", alt="The twin of the same explorer.", **fixed
    )


def _computed_html(view: str) -> str:
    data = {}
    if view == "rope":
        q, k = torch.randn(2, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(10))
        data = {"q": q, "k": k}
    return computed.computed_html(view, name=f"cx-{view}", alt="The computed explorer being timed.", **data)


def _stats(times: list[list[float]]) -> tuple[float, float, float]:
    """Median and 90th percentile of input to frame, and median of the
    synchronous work (the input handler and a forced layout)."""
    frames = sorted(t[0] for t in times)
    return (
        statistics.median(frames),
        frames[min(len(frames) - 1, int(0.9 * len(frames)))],
        statistics.median(t[1] for t in times),
    )


def run(views: list[str], inputs: int, vsync: bool) -> dict[str, dict[str, tuple[float, float, float]]]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no chromium on PATH (apt-get install chromium)")
    plots.use_style()
    args = ["--no-sandbox", "--disable-gpu"] + ([] if vsync else ["--disable-frame-rate-limit", "--disable-gpu-vsync"])
    results: dict[str, dict[str, tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=args)
        page = browser.new_page(viewport={"width": 1000, "height": 800})
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:")) else r.abort())
        for view in views:
            results[view] = {}
            for kind, text, root in (
                ("computed", _computed_html(view), f"cx-cx-{view}"),
                ("twin", _twin_html(view), f"live-twin-{view}"),
            ):
                path = Path(tmp) / f"{kind}-{view}.html"
                path.write_text(f"<!doctype html><html><body>{text}</body></html>", encoding="utf-8")
                page.goto(path.as_uri())
                page.evaluate(MEASURE, [root, 5, 7, kind == "twin"])  # warm up
                times = page.evaluate(MEASURE, [root, inputs, 12345, kind == "twin"])
                results[view][kind] = _stats(times)
        browser.close()
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=40, help="inputs timed per explorer (default 40)")
    parser.add_argument(
        "--views", nargs="+", default=list(computed.COMPUTED_VIEWS), choices=list(computed.COMPUTED_VIEWS)
    )
    parser.add_argument("--vsync", action="store_true", help="keep Chromium's 60 Hz frame clock")
    args = parser.parse_args(argv)
    results = run(args.views, args.inputs, args.vsync)
    clock = "60 Hz frame clock" if args.vsync else "frame rate limit off"
    print(f"input to next painted frame, ms: median / 90th percentile of {args.inputs} inputs ({clock});")
    print("in brackets the median of the input's synchronous work (handler and layout)")
    print("| explorer | computed in the page | live twin's switch |\n| --- | ---: | ---: |")
    for view, r in results.items():
        (cm, c90, cw), (tm, t90, tw) = r["computed"], r["twin"]
        print(f"| {view} | {cm:.1f} / {c90:.1f} ({cw:.1f}) | {tm:.1f} / {t90:.1f} ({tw:.1f}) |")


if __name__ == "__main__":
    main()
