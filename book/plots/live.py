"""Live twins: an explorer that runs in a web page with no Python kernel.

A live twin draws an explorer's figure (a ``book.plots.draw_<explorer>``
function) at every state of a small grid, and returns one self-contained HTML
block: labelled controls (a slider for each numeric parameter, a drop-down
list for each choice), the values shown, and one image that the controls
switch between the precomputed figures. It is plain HTML and inline
JavaScript (``live_twin.js``, next to this module) with the images as
``data:`` URIs: no external file, no network, so it works from a folder of
files (``file://``) as well as from a server.

Usage in a chapter (the notebook's output is the HTML)::

    from book import plots
    plots.live_twin(plots.draw_pe_explorer,
                   {"d_model": [16, 64], "base": [100.0, 10000.0]},
                   name="ch2-pe", alt="The sinusoidal table as a heatmap ...")

The grid is the Cartesian product of the controls' values, so keep it small:
every state is one image in the page (the book keeps pages under 3 MB).
Images are PNG at ``dpi`` (default 72) with no metadata, so the same state
gives the same bytes on the same machine (``figure_data_uri``).
"""

from __future__ import annotations

import base64
import html
import importlib.resources
import io
import itertools
import json
import re
from functools import cache
from typing import Any, Callable, Mapping, Sequence

import matplotlib.pyplot as plt

from ._common import _is_number

__all__ = [
    "LIVE_MAX_STATES",
    "figure_data_uri",
    "live_state_grid",
    "live_html",
    "live_twin",
]


#: Most states one live twin may hold (each is an image in the page).
LIVE_MAX_STATES = 64


def figure_data_uri(fig: plt.Figure, *, dpi: int = 72, colors: int = 128, close: bool = True) -> str:
    """The figure as a ``data:image/png;base64,...`` URI: PNG at ``dpi``,
    tight bounding box, white background, no metadata (no date or software
    version, so the bytes depend only on the drawing), reduced to a palette
    of ``colors`` colours (Pillow's median cut; ``colors=0`` keeps full
    colour), which makes heatmaps several times lighter. Closes the figure
    unless ``close=False``."""
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", facecolor="white", metadata={"Software": None})
    if close:
        plt.close(fig)
    if colors:
        image = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(colors=colors)
        buf = io.BytesIO()
        image.save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


#: A 1 x 1 white PNG: every frame of a live twin drawn with ``render_images=False``.
_PLACEHOLDER_PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC"
)


def _json(obj: Any, **kwargs: Any) -> str:
    """JSON that is safe inside a <script> element (no "<" to end it early)."""
    return json.dumps(obj, **kwargs).replace("<", "\\u003c")


def _label(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return " ".join(map(str, v))
    return str(v)


def live_state_grid(controls: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every state of the grid, in order (the last control varies fastest).

    Raises:
        ValueError: if ``controls`` is empty, a control has no values or a
            repeated value, or the grid holds more than ``LIVE_MAX_STATES`` states.
    """
    if not controls:
        raise ValueError("controls must name at least one parameter")
    size = 1
    for name, values in controls.items():
        values = list(values)
        if not values:
            raise ValueError(f"controls[{name!r}] must hold at least one value")
        if len({_label(v) for v in values}) != len(values):
            raise ValueError(f"controls[{name!r}] must not repeat a value, got {values}")
        size *= len(values)
    if size > LIVE_MAX_STATES:
        raise ValueError(f"controls make {size} states; at most {LIVE_MAX_STATES} fit in a page")
    names = list(controls)
    return [dict(zip(names, combo)) for combo in itertools.product(*(list(v) for v in controls.values()))]


@cache
def _script() -> str:
    """``live_twin.js`` on one line: its ``//`` comment lines, indentation
    and line breaks removed."""
    text = importlib.resources.files(__package__).joinpath("live_twin.js").read_text(encoding="utf-8")
    return "".join(line.strip() for line in text.splitlines() if not line.lstrip().startswith("//"))


def live_html(
    draw: Callable[..., plt.Figure],
    controls: Mapping[str, Sequence[Any]],
    *,
    name: str,
    alt: str,
    labels: Mapping[str, str] | None = None,
    initial: Mapping[str, Any] | None = None,
    dpi: int = 72,
    render_images: bool = True,
    **fixed: Any,
) -> str:
    """The live twin as an HTML string (see the module docstring).

    ``draw(**fixed, **state)`` must return a matplotlib Figure for every state
    of ``live_state_grid(controls)``. A control whose values are all numbers is a
    slider (over the listed values, in order); any other control is a
    drop-down list (booleans show as on/off). ``labels`` gives the text shown
    for a parameter (default: its name); ``initial`` the state shown first
    (default: each control's first value). ``name`` makes the element's id
    (``live-<name>``), so that the output is the same on every run; ``alt``
    describes the figure in a sentence and is the image's alt text.

    With ``render_images=False`` every state is still drawn (so a state
    that fails still raises), but the figures are not rendered: each frame
    is one placeholder PNG and the rest of the HTML is unchanged. The test
    suite's nbval passes on other CPU kernels use it, since nbval compares a
    twin's HTML with its images masked (``tests/nbval_sanitize.cfg``) and
    rendering is most of a twin's time.

    Raises:
        ValueError: for a bad ``name`` (letters, digits, ``-``), a short
            ``alt``, an ``initial`` value not among the control's values, or
            (as ``live_state_grid``) a bad grid; ``TypeError`` if ``draw`` does
            not return a Figure.
    """
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9-]+", name):
        raise ValueError(f"name must be letters, digits and '-', got {name!r}")
    if not isinstance(alt, str) or len(alt.strip()) < 20:
        raise ValueError("alt must describe the figure in a sentence (20 characters or more)")
    labels = dict(labels or {})
    initial = dict(initial or {})
    states = live_state_grid(controls)
    names = list(controls)
    values = {n: list(controls[n]) for n in names}
    start = []
    for n in names:
        if n in initial:
            if initial[n] not in values[n]:
                raise ValueError(f"initial[{n!r}] must be one of {values[n]}, got {initial[n]!r}")
            start.append(values[n].index(initial[n]))
        else:
            start.append(0)
    unknown = set(initial) - set(names)
    if unknown:
        raise ValueError(f"initial names parameters that are not controls: {sorted(unknown)}")
    frames = {}
    for state in states:
        fig = draw(**fixed, **state)
        if not isinstance(fig, plt.Figure):
            raise TypeError(f"draw must return a matplotlib Figure, got {type(fig).__name__}")
        key = ",".join(str(values[n].index(state[n])) for n in names)
        if render_images:
            frames[key] = figure_data_uri(fig, dpi=dpi)
        else:
            plt.close(fig)
            frames[key] = _PLACEHOLDER_PNG

    esc = html.escape
    uid = f"live-{name}"
    rows = []
    for n, i in zip(names, start):
        text = esc(labels.get(n, n))
        shown = [esc(_label(v)) for v in values[n]]
        if all(_is_number(v) for v in values[n]):
            control = (
                f'<input type="range" min="0" max="{len(shown) - 1}" step="1" value="{i}" '
                f'data-param="{esc(n)}" aria-label="{text}">'
            )
        else:
            options = "".join(
                f'<option value="{j}"{" selected" if j == i else ""}>{s}</option>' for j, s in enumerate(shown)
            )
            control = f'<select data-param="{esc(n)}" aria-label="{text}">{options}</select>'
        rows.append(
            f'<label style="margin-right:1.2em;white-space:nowrap">{text} {control} '
            f'<output data-for="{esc(n)}" style="font-weight:bold">{shown[i]}</output></label>'
        )
    spec = {"names": names, "labels": {n: [_label(v) for v in values[n]] for n in names}}
    first = ",".join(map(str, start))
    script = _script().replace("LIVE_ID", json.dumps(uid), 1)
    initial_state = ", ".join(f"{n} = {_label(values[n][i])}" for n, i in zip(names, start))
    return (
        f'<div class="live-twin" id="{uid}" style="border:1px solid #ccc;border-radius:4px;padding:0.5em">\n'
        f'<div class="live-controls" style="margin-bottom:0.4em">{"".join(rows)}</div>\n'
        f'<img class="live-figure" src="{frames[first]}" data-state="{first}" alt="{esc(alt)}" '
        f'style="max-width:100%">\n'
        f'<div class="live-state" aria-live="polite" style="font-size:85%;color:#555">{esc(initial_state)}</div>\n'
        f'<script type="application/json" class="live-spec">{_json(spec)}</script>\n'
        f'<script type="application/json" class="live-frames">{_json(frames, indent=0)}</script>\n'
        f"<script>{script}</script>\n</div>"
    )


def live_twin(
    draw: Callable[..., plt.Figure], controls: Mapping[str, Sequence[Any]], *, render_images: bool = True, **kwargs: Any
):
    """``live_html(draw, controls, render_images=render_images, **kwargs)`` as
    an ``IPython.display.HTML`` object, to leave as a notebook cell's last value."""
    from IPython.display import HTML

    return HTML(live_html(draw, controls, render_images=render_images, **kwargs))
