"""Computed explorers: an explorer whose figure the web page computes itself.

An explorer whose state maps to its figure by a closed-form formula needs no
precomputed images: the page can evaluate the formula at any value of its
controls. ``computed_html`` returns one self-contained HTML block for such an
explorer: labelled controls (sliders with fine steps over the parameters'
real ranges, check boxes), a figure drawn with plain SVG and a canvas, and a
text alternative, updated with the state, that gives the numbers the prose
uses. Its JavaScript (``js/`` next to this module, no library) is inlined:
one module per formula family (``sinusoidal.js``, ``rope.js``,
``alibi.js``, ``t5.js``, ``scaling.js``, ``precision.js``), one view per explorer (``view_<view>.js``)
and ``core.js`` (controls and drawing). No external file and no network, so
it works from a folder of files (``file://``) as from a server.

The JavaScript repeats only the formulas; ``book`` stays their source of
truth. ``explorer_values`` computes with ``book``'s own functions every
value a view computes, for any state, and the browser test
(``tests/site/test_computed_explorers.py``) drives each view in Chromium at
random states and compares the two to 1e-6 relative (T5's buckets, which
are integers, exactly, except where the last bit of a float32 logarithm
decides between two buckets: see ``t5.js``).

In a notebook (JupyterLab, VS Code, Colab) the block shows a sentence in
place of its figure: front ends do not run a notebook's stored scripts,
and there the chapter's ipywidgets explorer (``book.widgets``), drawn by
the Python ``draw_<explorer>`` function, is the explorer. The chapters tag
the cell ``website-only``.

Usage in a chapter (the notebook's output is the HTML)::

    from book.plots import computed_explorer
    computed_explorer("pe", name="ch2-pe", alt="The sinusoidal table ...",
                      initial={"d_model": 64})
"""

from __future__ import annotations

import html
import importlib.resources
import json
import math
import re
from functools import cache
from typing import Any, Mapping

import matplotlib as mpl
import numpy as np
import torch

from .style import OKABE_ITO, SIGNED_CMAP

__all__ = [
    "COMPUTED_VIEWS",
    "computed_controls",
    "computed_html",
    "computed_explorer",
    "explorer_values",
]

#: Positions in chapter 2's table window (``draw_pe_explorer``'s default 0 .. 199).
PE_WINDOW = 200


def _c(name: str, label: str, lo: float, hi: float, step: float, value: float, kind: str = "linear") -> dict[str, Any]:
    return {"name": name, "label": label, "kind": kind, "min": lo, "max": hi, "step": step, "value": value}


def _check(name: str, label: str, value: bool) -> dict[str, Any]:
    return {"name": name, "label": label, "kind": "check", "value": value}


def _choice(name: str, label: str, options: list[str], value: str) -> dict[str, Any]:
    return {"name": name, "label": label, "kind": "choice", "options": options, "value": value}


#: For each view, the formula modules it needs (in order) and its controls. A
#: control of kind ``"log10"`` stands for ``10 ** x`` and ``"log2int"`` for
#: ``round(2 ** x)`` of its slider position ``x``; ``"check"`` is a check box
#: and ``"choice"`` a drop-down list of ``options`` (its value is the text).
COMPUTED_VIEWS: dict[str, dict[str, Any]] = {
    "pe": {
        "modules": ["sinusoidal"],
        "controls": [
            _c("d_model", "width d", 2, 512, 2, 64),
            _c("base", "base", 0.5, 6, 0.01, 4, "log10"),
            _c("start", "first position", 0, 10000, 1, 0),
            _c("dim", "dimension", 0, 511, 1, 0),
        ],
    },
    "rotation": {
        "modules": ["sinusoidal"],
        "controls": [
            _c("pos", "position p", 0, 10000, 1, 0),
            _c("k", "offset k", -200, 200, 0.1, 1),
        ],
    },
    "fingerprint": {
        "modules": ["sinusoidal"],
        "controls": [
            _c("d_model", "width d", 2, 512, 2, 64),
            _c("base", "base", 0.5, 6, 0.01, 4, "log10"),
            _c("seq_len", "positions", 2, 1024, 1, 128),
            _check("cosine", "cosine similarity", True),
        ],
    },
    "rope": {
        "modules": ["sinusoidal", "rope"],
        "controls": [
            _c("m", "query m", 0, 4096, 1, 6),
            _c("n", "key n", 0, 4096, 1, 3),
            _c("pair", "pair i", 0, 7, 1, 0),
            _c("max_position", "offsets up to", 16, 4096, 1, 64),
        ],
    },
    "alibi": {
        "modules": ["alibi"],
        "controls": [
            _c("n_heads", "heads", 1, 64, 1, 8),
            _c("head", "head", 1, 64, 1, 1),
            _c("seq_len", "length", 2, 1024, 1, 32),
        ],
    },
    "t5": {
        "modules": ["t5"],
        "controls": [
            _c("num_buckets", "buckets", 4, 128, 2, 32),
            _c("max_distance", "max distance", 1.58, 12, 0.01, 7, "log2int"),  # 3 .. 4,096
            _check("bidirectional", "bidirectional (encoder)", True),
            _c("max_offset", "offsets up to", 3, 13, 0.01, 8, "log2int"),
        ],
    },
    "scaling": {
        "modules": ["sinusoidal", "scaling"],
        "controls": [
            _c("scale", "scale s", 1, 64, 0.01, 4),
            _c("original_max_len", "training length L", 4, 17, 0.01, 11, "log2int"),
            _c("d_model", "head width d", 8, 256, 2, 128),
        ],
    },
    "precision": {
        "modules": ["sinusoidal", "precision"],
        "controls": [
            _choice("dtype", "angles in", ["bfloat16", "float16", "float32"], "bfloat16"),
            _c("d_model", "head width d", 8, 256, 2, 128),
            _c("base", "base", 2, 7, 0.01, 4, "log10"),
            _c("longest", "up to position", 4, 24, 0.01, 17, "log2int"),
        ],
    },
}


def computed_controls(view: str, initial: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The controls of ``view`` (copies of ``COMPUTED_VIEWS[view]["controls"]``),
    each starting at its value in ``initial`` (for ``"log10"`` and
    ``"log2int"`` controls, the value itself, e.g. ``base=10000.0``).

    Raises:
        ValueError: for an unknown view, a name in ``initial`` that is not a
            control, or an initial value outside the control's range.
    """
    if view not in COMPUTED_VIEWS:
        raise ValueError(f"view must be one of {sorted(COMPUTED_VIEWS)}, got {view!r}")
    initial = dict(initial or {})
    controls = [dict(c) for c in COMPUTED_VIEWS[view]["controls"]]
    unknown = set(initial) - {c["name"] for c in controls}
    if unknown:
        raise ValueError(f"initial names parameters that are not controls of {view!r}: {sorted(unknown)}")
    for c in controls:
        if c["name"] not in initial:
            continue
        value = initial[c["name"]]
        if c["kind"] == "check":
            if not isinstance(value, bool):
                raise ValueError(f"initial[{c['name']!r}] must be True or False, got {value!r}")
            c["value"] = value
            continue
        if c["kind"] == "choice":
            if value not in c["options"]:
                raise ValueError(f"initial[{c['name']!r}] must be one of {c['options']}, got {value!r}")
            c["value"] = value
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"initial[{c['name']!r}] must be a finite number, got {value!r}")
        if c["kind"] in ("log10", "log2int") and value <= 0:
            raise ValueError(f"initial[{c['name']!r}] must be positive, got {value!r}")
        x = {"log10": math.log10, "log2int": math.log2}.get(c["kind"], float)(value)
        if not c["min"] <= x <= c["max"]:
            raise ValueError(f"initial[{c['name']!r}] = {value!r} is outside the control's range")
        c["value"] = x
    return controls


@cache
def _module(name: str) -> str:
    """A module of ``js/`` without its whole-line ``//`` comments."""
    text = importlib.resources.files(__package__).joinpath("js", f"{name}.js").read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


@cache
def _signed_lut() -> str:
    """``SIGNED_CMAP`` as 256 colours, one hex string (the page's colour table)."""
    cmap = mpl.colormaps[SIGNED_CMAP]
    rgb = (np.asarray(cmap(np.linspace(0, 1, 256)))[:, :3] * 255).round().astype(int)
    return "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in rgb)


def _json(obj: Any) -> str:
    """JSON that is safe inside a <script> element (no "<" to end it early)."""
    return json.dumps(obj, separators=(",", ":")).replace("<", "\\u003c")


def _data(view: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The fixed inputs of a view, as JSON-ready numbers (with defaults)."""
    out: dict[str, Any] = {"base": float(data.get("base", 10000.0))}
    if view == "rotation":
        out["d_model"] = int(data.get("d_model", 16))
        out["pairs"] = [int(i) for i in data.get("pairs", (0, 1, 2, 3))]
    if view == "rope":
        if "q" not in data or "k" not in data:
            raise ValueError("the rope view needs q and k (the chapter's query and key)")
        q = torch.as_tensor(data["q"], dtype=torch.float64).flatten()
        k = torch.as_tensor(data["k"], dtype=torch.float64).flatten()
        if q.numel() != k.numel() or q.numel() != 16:
            raise ValueError(f"q and k must hold 16 numbers each (8 pairs), got {q.numel()} and {k.numel()}")
        out["q"], out["k"] = q.tolist(), k.tolist()
    unknown = set(data) - {"base", "d_model", "pairs", "q", "k"}
    if unknown:
        raise ValueError(f"unknown data for view {view!r}: {sorted(unknown)}")
    return out


def computed_html(view: str, *, name: str, alt: str, initial: Mapping[str, Any] | None = None, **data: Any) -> str:
    """The computed explorer ``view`` (a key of ``COMPUTED_VIEWS``) as an HTML string.

    ``name`` makes the element's id (``cx-<name>``); ``alt`` describes the
    figure in a sentence (its ``aria-label``; the text under it gives the
    current state's numbers); ``initial`` the state shown first
    (``computed_controls``); ``data`` the view's fixed inputs: ``base``
    (default 10000), and for ``"rope"`` the query ``q`` and key ``k`` (16
    numbers each), for ``"rotation"`` ``d_model`` (16) and ``pairs``
    ((0, 1, 2, 3)).

    Raises:
        ValueError: for a bad ``name`` (letters, digits, ``-``), a short
            ``alt``, and as ``computed_controls``; for missing or unknown ``data``.
    """
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9-]+", name):
        raise ValueError(f"name must be letters, digits and '-', got {name!r}")
    if not isinstance(alt, str) or len(alt.strip()) < 20:
        raise ValueError("alt must describe the figure in a sentence (20 characters or more)")
    controls = computed_controls(view, initial)
    spec = {
        "view": view,
        "controls": controls,
        "data": _data(view, data),
        "palette": {"lines": list(OKABE_ITO), "signed": _signed_lut()},
    }
    esc = html.escape
    uid = f"cx-{name}"
    rows = []
    for c in controls:
        cid, text = f"{uid}-{c['name']}", esc(c["label"])
        if c["kind"] == "check":
            control = f'<input type="checkbox" id="{cid}" data-param="{c["name"]}"{" checked" if c["value"] else ""}>'
        elif c["kind"] == "choice":
            options = "".join(
                f'<option value="{esc(o)}"{" selected" if o == c["value"] else ""}>{esc(o)}</option>'
                for o in c["options"]
            )
            control = f'<select id="{cid}" data-param="{c["name"]}">{options}</select>'
        else:
            control = (
                f'<input type="range" id="{cid}" data-param="{c["name"]}" min="{c["min"]:g}" max="{c["max"]:g}" '
                f'step="{c["step"]:g}" value="{c["value"]:g}">'
            )
        rows.append(
            f'<span style="display:inline-block;margin-right:1.2em;white-space:nowrap"><label for="{cid}">{text}</label> {control} '
            f'<output for="{cid}" data-for="{c["name"]}" style="font-weight:bold"></output></span>'
        )
    modules = ["core", *COMPUTED_VIEWS[view]["modules"], f"view_{view}"]
    script = "\n".join(_module(m) for m in modules) + f'\nwindow.BookExplorers.core.mount("{uid}");'
    if "</" in script:
        raise ValueError("a module of book/plots/js holds '</', which would end the <script> element")
    return (
        f'<div class="computed-explorer" id="{uid}" style="border:1px solid #ccc;border-radius:4px;padding:0.5em">\n'
        f'<div class="cx-controls" style="margin-bottom:0.4em">{"".join(rows)}</div>\n'
        f'<div style="overflow:hidden"><div class="cx-figure" role="img" aria-label="{esc(alt)}" '
        f'aria-describedby="{uid}-alt"><canvas style="display:none"></canvas><svg aria-hidden="true"></svg></div></div>\n'
        f'<p class="cx-alt" id="{uid}-alt" aria-live="polite" style="font-size:85%;color:#555">'
        "This explorer computes its figure in the book's web page; in Jupyter, use the explorer above.</p>\n"
        f'<script type="application/json" class="cx-spec">{_json(spec)}</script>\n'
        f"<script>\n{script}\n</script>\n</div>"
    )


def computed_explorer(view: str, **kwargs: Any):
    """``computed_html(view, **kwargs)`` as an ``IPython.display.HTML`` object,
    to leave as a notebook cell's last value."""
    from IPython.display import HTML

    return HTML(computed_html(view, **kwargs))


def _f64(t: torch.Tensor | np.ndarray | list) -> np.ndarray:
    return np.asarray(torch.as_tensor(t).detach().cpu(), dtype=np.float64)


def explorer_values(view: str, state: Mapping[str, Any], **data: Any) -> dict[str, Any]:
    """What the page's ``view`` computes at ``state``, computed by ``book``.

    Each entry is computed by the library functions the chapter's
    ``draw_<explorer>`` function calls, in float64 (where the library returns
    float32, e.g. ALiBi's slopes and biases, those values are kept and only
    the later arithmetic is float64): the browser test compares the page's
    numbers with these. ``data`` as ``computed_html``.

    * ``"pe"``: ``table`` (``sinusoidal_at`` of the 200 positions from
      ``start``, flattened) and the ``wavelength`` ``2 pi / w_i`` of the pair
      of ``dim``.
    * ``"rotation"``: ``pe_p``, ``pe_pk`` (``PE(pos)``, ``PE(pos + k)``),
      ``rad`` (``k w_i`` per pair) and ``turns`` (``|k w_i| / 2 pi``).
    * ``"fingerprint"``: ``sim``, the matrix ``PE PE^T`` (or its cosine) of
      positions ``0 .. seq_len - 1``.
    * ``"rope"``: ``q_rot``, ``k_rot`` (pair ``pair`` of ``apply_rope(q, m)``
      and ``apply_rope(k, n)``), their dot product ``part``, ``scores`` over
      offsets ``-max_position .. max_position`` and ``score`` at ``m, n``.
    * ``"alibi"``: ``slopes``, ``slope``, ``halving`` (``ln 2 / m_h``),
      ``top`` (the colour range), ``bias`` (head ``head``'s bias, ``NaN``
      above the diagonal) and ``weights`` (the last query's causal softmax).
    * ``"t5"``: ``buckets`` (``t5_relative_bucket`` of the offsets
      ``-max_offset .. max_offset``, int64), ``exact`` (the end of the
      exact range: distances below ``B // 2``, ``B`` the buckets of one
      direction, each have a bucket of their own) and ``last`` (the distance from which the
      last bucket of a direction starts), the numbers of
      ``draw_t5_bucket_explorer``'s title.
    * ``"scaling"``: ``wavelengths``, ``first`` (``turned_pairs``),
      ``ratios`` (new / old frequency by rule), ``kept`` (the pairs from
      ``first`` on with ``s theta'_i / theta_i <= 1``) and ``yarn_kept``.
    * ``"precision"``: ``positions`` (``draw_precision_explorer``'s 80
      logarithmically spaced positions up to ``longest``), ``errors``
      (``numerics.rope_cos_error`` with the angles in ``dtype``, ``inf``
      where they overflow), ``book`` (the same with float64 angles), ``off``
      (the first position whose error passes 0.01, or -1), ``overflow``
      (the first of these positions whose angle overflows, or -1) and
      ``unheld`` (where one does: the smallest whole number ``dtype`` rounds
      to inf, 65,520 for float16; else -1). The page takes the float32
      cosine of a low-precision angle as the float64 cosine rounded to
      float32, torch with its CPU kernel (within one float32 step, ``2^-24``
      for a cosine): the page's ``errors`` may differ from these by that.

    Raises:
        ValueError: for an unknown view, and as the library functions.
    """
    from .. import scaling
    from ..attention import causal_mask
    from ..encodings import alibi_bias, alibi_slopes, apply_rope, frequencies, sinusoidal_at, t5_relative_bucket
    from ..numerics import rope_cos_error
    from .ch07_relative import _t5_landmarks
    from .ch11_numerics import _explorer_positions, _first_unheld_position

    fixed = _data(view, data) if view in COMPUTED_VIEWS else None
    if fixed is None:
        raise ValueError(f"view must be one of {sorted(COMPUTED_VIEWS)}, got {view!r}")
    base = fixed["base"]
    s = dict(state)
    if view == "pe":
        d, start = int(s["d_model"]), int(s["start"])
        table = sinusoidal_at(torch.arange(start, start + PE_WINDOW), d, base=s["base"], dtype=torch.float64)
        pair = int(s["dim"]) // 2
        return {"table": _f64(table).ravel(), "wavelength": 2 * math.pi / float(frequencies(d, base=s["base"])[pair])}
    if view == "rotation":
        d, pos, k = fixed["d_model"], s["pos"], s["k"]
        w = frequencies(d, base=base)
        rows = sinusoidal_at(torch.tensor([pos, pos + k], dtype=torch.float64), d, base=base, dtype=torch.float64)
        rad = np.array([k * float(w[i]) for i in fixed["pairs"]])
        return {"pe_p": _f64(rows[0]), "pe_pk": _f64(rows[1]), "rad": rad, "turns": np.abs(rad) / (2 * math.pi)}
    if view == "fingerprint":
        pe = sinusoidal_at(torch.arange(int(s["seq_len"])), int(s["d_model"]), base=s["base"], dtype=torch.float64)
        sim = pe @ pe.T
        if s["cosine"]:
            norms = pe.norm(dim=-1)
            sim = sim / (norms[:, None] * norms[None, :])
        return {"sim": _f64(sim)}
    if view == "rope":
        q = torch.tensor(fixed["q"], dtype=torch.float64)
        k = torch.tensor(fixed["k"], dtype=torch.float64)
        i, m, n, top = int(s["pair"]), int(s["m"]), int(s["n"]), int(s["max_position"])
        qm, kn = (
            apply_rope(q[None], torch.tensor([m]), base=base)[0],
            apply_rope(k[None], torch.tensor([n]), base=base)[0],
        )
        off = torch.arange(-top, top + 1)
        scores = (apply_rope(q[None].expand(len(off), -1), off, base=base) * apply_rope(k[None], base=base)).sum(-1)
        cut = slice(2 * i, 2 * i + 2)
        return {
            "q_rot": _f64(qm[cut]),
            "k_rot": _f64(kn[cut]),
            "part": float(qm[cut] @ kn[cut]),
            "scores": _f64(scores),
            "score": float(qm @ kn),
        }
    if view == "alibi":
        n_heads, h, length = int(s["n_heads"]), int(s["head"]) - 1, int(s["seq_len"])
        slopes = _f64(alibi_slopes(n_heads))
        bias = alibi_bias(n_heads, length)[h].to(torch.float64)
        weights = torch.softmax(bias + causal_mask(length).to(torch.float64), dim=-1)[-1]
        upper = torch.ones(length, length, dtype=torch.bool).triu(1)
        return {
            "slopes": slopes,
            "slope": float(slopes[h]),
            "halving": math.log(2) / float(slopes[h]),
            "top": float(slopes.max()) * (length - 1),
            "bias": _f64(bias.masked_fill(upper, float("nan"))),
            "weights": _f64(weights),
        }
    if view == "precision":
        positions = _explorer_positions(int(s["longest"]))
        d, b = int(s["d_model"]), float(s["base"])
        dtype = getattr(torch, str(s["dtype"]), None)
        if s["dtype"] not in ("bfloat16", "float16", "float32") or not isinstance(dtype, torch.dtype):
            raise ValueError(f"dtype must be 'bfloat16', 'float16' or 'float32', got {s['dtype']!r}")
        err = rope_cos_error(positions, d, angle_dtype=dtype, base=b)
        off, over = positions[err > 0.01], positions[err.isinf()]
        return {
            "positions": [int(p) for p in positions],
            "errors": _f64(err),
            "book": _f64(rope_cos_error(positions, d, angle_dtype=torch.float64, base=b)),
            "off": int(off[0]) if len(off) else -1,
            "overflow": int(over[0]) if len(over) else -1,
            "unheld": _first_unheld_position(dtype) if len(over) else -1,
        }
    if view == "t5":
        num_buckets, max_distance, top = int(s["num_buckets"]), int(s["max_distance"]), int(s["max_offset"])
        bidirectional = bool(s["bidirectional"])
        buckets = t5_relative_bucket(
            torch.arange(-top, top + 1), bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
        )
        exact, last = _t5_landmarks(num_buckets, max_distance, bidirectional)
        return {"buckets": buckets.numpy(), "exact": exact, "last": last}
    # scaling
    d, scale, length = int(s["d_model"]), float(s["scale"]), int(s["original_max_len"])
    theta = frequencies(d, base=base)
    first = scaling.turned_pairs(d, original_max_len=length, base=base)
    ratios = {
        rule: _f64(scaling.RULES[rule](d, scale=scale, original_max_len=length, base=base)[0] / theta)
        for rule in ("PI", "NTK-aware", "YaRN")
    }
    return {
        "wavelengths": _f64(2 * math.pi / theta),
        "first": first,
        "ratios": ratios,
        "kept": {rule: int((scale * r[first:] <= 1 + 1e-12).sum()) for rule, r in ratios.items()},
        "yarn_kept": int((ratios["YaRN"] == 1).sum()),
    }
