// Computed explorers (book.plots.computed): controls, mounting and a small
// plotting helper (SVG for axes and lines, a canvas for heatmaps). No
// library, no network: it runs from file://. Every module adds itself to
// window.BookExplorers, so that a page may inline the same module twice.
(function (B) {
  "use strict";
  if (B.core) { return; }
  var views = B.views = B.views || {};
  var mounted = B.mounted = B.mounted || {};

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/[<]/g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  // Python's format(v, ".Ng") for finite v, without the exponent's padding.
  function g(v, digits) {
    if (!isFinite(v)) { return String(v); }
    if (v === 0) { return "0"; }
    var p = digits || 3;
    var e = Math.floor(Math.log10(Math.abs(v)));
    var s = v.toPrecision(p);
    if (e < -4 || e >= p) {
      s = v.toExponential(p - 1).replace(/\.?0+e/, "e").replace(/e([+-])(\d)$/, "e$10$2");
    } else if (s.indexOf(".") >= 0) {
      s = s.replace(/\.?0+$/, "");
    }
    return s;
  }

  // Thousands separators, as Python's format(n, ",").
  function comma(n) {
    return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // ------------------------------------------------------------ controls
  // A control's slider position <-> the value it stands for.
  function toValue(c, x) {
    if (c.kind === "log10") { return Math.pow(10, x); }
    if (c.kind === "log2int") { return Math.round(Math.pow(2, x)); }
    if (c.kind === "check") { return !!x; }
    return x;
  }

  function readState(root, spec) {
    var state = {};
    spec.controls.forEach(function (c) {
      var el = root.querySelector('[data-param="' + c.name + '"]');
      var x = c.kind === "check" ? el.checked : Number(el.value);
      state[c.name] = toValue(c, x);
    });
    return state;
  }

  function shown(c, v) {
    if (c.kind === "check") { return v ? "on" : "off"; }
    if (c.kind === "log10") { return g(v, 5); }
    if (Number.isInteger(v)) { return comma(v); }
    return g(v, 4);
  }

  // ------------------------------------------------------------ plotting
  function niceTicks(lo, hi, n) {
    if (!(hi > lo)) { return [lo]; }
    var raw = (hi - lo) / n;
    var step = Math.pow(10, Math.floor(Math.log10(raw)));
    var r = raw / step;
    step *= r >= 7.5 ? 10 : r >= 3.5 ? 5 : r >= 1.5 ? 2 : 1;
    var out = [];
    for (var v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
      out.push(Math.abs(v) < step * 1e-9 ? 0 : +v.toPrecision(12));
    }
    return out;
  }

  function scale(lo, hi, a, b, log) {
    var f;
    if (log) {
      var l0 = Math.log10(lo), l1 = Math.log10(hi);
      if (l1 === l0) { l1 = l0 + 1; }
      f = function (v) { return a + (Math.log10(v) - l0) * (b - a) / (l1 - l0); };
      f.ticks = function () {
        var t = [], k0 = Math.ceil(l0 - 1e-9), k1 = Math.floor(l1 + 1e-9);
        var every = Math.max(1, Math.ceil((k1 - k0 + 1) / 6));
        for (var k = k0; k <= k1; k += every) { t.push(Math.pow(10, k)); }
        if (t.length < 2) {
          t = [];
          for (k = Math.floor(l0) ; k <= Math.ceil(l1); k++) {
            [1, 2, 5].forEach(function (m) { var v = m * Math.pow(10, k); if (v >= lo && v <= hi) { t.push(v); } });
          }
        }
        return t;
      };
      f.label = function (v) {
        var k = Math.floor(Math.log10(v) + 1e-9), m = Math.round(v / Math.pow(10, k));
        return k >= -2 && k <= 3 ? String(+v.toPrecision(3)) : (m === 1 ? "" : m + "x") + "1e" + k;
      };
    } else {
      if (hi === lo) { hi = lo + 1; }
      f = function (v) { return a + (v - lo) * (b - a) / (hi - lo); };
      f.ticks = function (n) { return niceTicks(lo, hi, n || 5); };
      f.label = function (v) { return Math.abs(v) >= 1e5 ? g(v, 2) : String(+v.toPrecision(6)); };
    }
    f.lo = lo; f.hi = hi;
    return f;
  }

  // A figure: one SVG (axes, lines, text) over canvases (heatmaps).
  function Figure(holder, width, height) {
    this.holder = holder; this.width = width; this.height = height; this.parts = [];
    holder.style.position = "relative";
    holder.style.width = width + "px";
    this.canvases = holder.querySelectorAll("canvas");
  }

  Figure.prototype.panel = function (x, y, w, h, opts) {
    var xs = scale(opts.x[0], opts.x[1], x, x + w, opts.xlog);
    var ys = scale(opts.y[0], opts.y[1], y + h, y, opts.ylog);
    if (opts.yflip) { ys = scale(opts.y[0], opts.y[1], y, y + h, false); }
    return { fig: this, x: x, y: y, w: w, h: h, xs: xs, ys: ys, opts: opts };
  };

  Figure.prototype.add = function (s) { this.parts.push(s); };

  Figure.prototype.axes = function (p) {
    var o = p.opts, s = [], xs = p.xs, ys = p.ys;
    var font = 'font-family="DejaVu Sans, Verdana, sans-serif"';
    s.push('<g stroke="#000" stroke-width="0.8" fill="none"><path d="M' + p.x + "," + p.y + "V" + (p.y + p.h) + "H" + (p.x + p.w) + '"/><\/g>');
    var t = '<g ' + font + ' font-size="10" fill="#000">';
    xs.ticks(5).forEach(function (v) {
      var X = xs(v);
      if (X < p.x - 0.5 || X > p.x + p.w + 0.5) { return; }
      t += '<path d="M' + X + "," + (p.y + p.h) + "v4" + '" stroke="#000" stroke-width="0.8"/>';
      t += '<text x="' + X + '" y="' + (p.y + p.h + 14) + '" text-anchor="middle">' + esc(xs.label(v)) + "<\/text>";
    });
    ys.ticks(4).forEach(function (v) {
      var Y = ys(v);
      if (Y < p.y - 0.5 || Y > p.y + p.h + 0.5) { return; }
      t += '<path d="M' + p.x + "," + Y + "h-4" + '" stroke="#000" stroke-width="0.8"/>';
      t += '<text x="' + (p.x - 6) + '" y="' + (Y + 3.5) + '" text-anchor="end">' + esc(ys.label(v)) + "<\/text>";
    });
    t += '<text x="' + (p.x + p.w / 2) + '" y="' + (p.y + p.h + 30) + '" text-anchor="middle">' + esc(o.xlabel || "") + "<\/text>";
    t += '<text transform="translate(' + (p.x - 42) + "," + (p.y + p.h / 2) + ') rotate(-90)" text-anchor="middle">' + esc(o.ylabel || "") + "<\/text>";
    t += '<text x="' + (p.x + p.w / 2) + '" y="' + (p.y - 6) + '" text-anchor="middle">' + esc(o.title || "") + "<\/text>";
    s.push(t + "<\/g>");
    this.add(s.join(""));
  };

  Figure.prototype.text = function (x, y, str, size, anchor) {
    this.add('<text x="' + x + '" y="' + y + '" font-family="DejaVu Sans, Verdana, sans-serif" font-size="' + (size || 10) +
      '" text-anchor="' + (anchor || "middle") + '">' + esc(str) + "<\/text>");
  };

  // A line through (xv[i], yv[i]); non-finite points break it.
  Figure.prototype.line = function (p, xv, yv, style) {
    var d = "", pen = false, xs = p.xs, ys = p.ys;
    for (var i = 0; i < xv.length; i++) {
      var X = xs(xv[i]), Y = ys(yv[i]);
      if (!isFinite(X) || !isFinite(Y)) { pen = false; continue; }
      Y = Math.max(p.y - 2, Math.min(p.y + p.h + 2, Y));
      d += (pen ? "L" : "M") + X.toFixed(1) + "," + Y.toFixed(1);
      pen = true;
    }
    this.add('<path d="' + d + '" fill="none" stroke="' + style.color + '" stroke-width="' + (style.width || 1.5) + '"' +
      (style.dash ? ' stroke-dasharray="' + style.dash + '"' : "") + (style.opacity ? ' stroke-opacity="' + style.opacity + '"' : "") + "/>");
  };

  Figure.prototype.marker = function (p, x, y, style) {
    var X = p.xs(x), Y = p.ys(y), r = style.size || 3.5;
    if (!isFinite(X) || !isFinite(Y)) { return; }
    if (style.square) {
      this.add('<rect x="' + (X - r) + '" y="' + (Y - r) + '" width="' + 2 * r + '" height="' + 2 * r + '" fill="' + style.color + '"/>');
    } else {
      this.add('<circle cx="' + X + '" cy="' + Y + '" r="' + r + '" fill="' + style.color + '"' + (style.opacity ? ' fill-opacity="' + style.opacity + '"' : "") + "/>");
    }
  };

  Figure.prototype.hline = function (p, y, style) {
    var Y = p.ys(y);
    if (Y < p.y || Y > p.y + p.h) { return; }
    this.add('<path d="M' + p.x + "," + Y + "h" + p.w + '" stroke="' + style.color + '" stroke-width="' + (style.width || 1) + '"' + (style.dash ? ' stroke-dasharray="' + style.dash + '"' : "") + "/>");
  };

  Figure.prototype.vline = function (p, x, style) {
    var X = p.xs(x);
    if (X < p.x || X > p.x + p.w) { return; }
    this.add('<path d="M' + X + "," + p.y + "v" + p.h + '" stroke="' + style.color + '" stroke-width="' + (style.width || 1) + '"' + (style.dash ? ' stroke-dasharray="' + style.dash + '"' : "") + "/>");
  };

  Figure.prototype.band = function (p, x0, x1, color) {
    var a = Math.max(p.x, p.xs(x0)), b = Math.min(p.x + p.w, p.xs(x1));
    if (b > a) { this.add('<rect x="' + a + '" y="' + p.y + '" width="' + (b - a) + '" height="' + p.h + '" fill="' + color + '"/>'); }
  };

  Figure.prototype.legend = function (x, y, items) {
    var self = this, wide = 0;
    items.forEach(function (it) { wide = Math.max(wide, it.label.length); });
    this.add('<rect x="' + (x - 4) + '" y="' + (y - 8) + '" width="' + (30 + 5.4 * wide) + '" height="' + (13 * items.length + 3) +
      '" fill="#fff" fill-opacity="0.85" stroke="#ccc" stroke-width="0.5"/>');
    items.forEach(function (it, i) {
      var Y = y + 13 * i;
      self.add('<path d="M' + x + "," + Y + "h18" + '" stroke="' + it.color + '" stroke-width="2"' + (it.dash ? ' stroke-dasharray="' + it.dash + '"' : "") + "/>");
      self.add('<text x="' + (x + 22) + '" y="' + (Y + 3.5) + '" font-family="DejaVu Sans, Verdana, sans-serif" font-size="9">' + esc(it.label) + "<\/text>");
    });
  };

  // A heatmap of rows x cols values on the panel, through a colour table
  // (lut: a string of 6-digit hex colours) on [-vmax, vmax]; NaN is blank.
  // valueAt(r, c) gives an entry; or, for a matrix that depends on c - r
  // only, byOffset(t) gives the entries with c - r = t, each colour then
  // found once per offset. A matrix larger than the panel's pixels is
  // drawn at the panel's resolution, each pixel showing the entry at its
  // centre.
  Figure.prototype.heatmap = function (p, index, rows, cols, valueAt, vmax, lut, byOffset) {
    var canvas = this.canvases[index], dpr = window.devicePixelRatio || 1;
    var R = Math.min(rows, Math.ceil(p.h * dpr)), W = Math.min(cols, Math.ceil(p.w * dpr));
    if (canvas.width !== W || canvas.height !== R) { canvas.width = W; canvas.height = R; }
    canvas.style.cssText = "position:absolute;left:" + p.x + "px;top:" + p.y + "px;width:" + p.w + "px;height:" + p.h +
      "px;image-rendering:pixelated";
    var ctx = canvas.getContext("2d");
    if (!canvas._img || canvas._img.width !== W || canvas._img.height !== R) { canvas._img = ctx.createImageData(W, R); }
    var img = canvas._img, px = new Uint32Array(img.data.buffer), n = lut.rgb.length / 3 - 1, k = 0, r, c;
    var rowOf = new Int32Array(R), colOf = new Int32Array(W);
    for (r = 0; r < R; r++) { rowOf[r] = Math.floor((r + 0.5) * rows / R); }
    for (c = 0; c < W; c++) { colOf[c] = Math.floor((c + 0.5) * cols / W); }
    function colour(v) {
      if (v !== v) { return 0; }
      var j = Math.round((v / vmax + 1) / 2 * n);
      j = 3 * (j < 0 ? 0 : j > n ? n : j);
      return ((255 << 24) | (lut.rgb[j + 2] << 16) | (lut.rgb[j + 1] << 8) | lut.rgb[j]) >>> 0;
    }
    if (byOffset) {
      var table = new Uint32Array(rows + cols - 1);
      for (var t = 0; t < table.length; t++) { table[t] = colour(byOffset(t - rows + 1)); }
      for (r = 0; r < R; r++) {
        var shift = rows - 1 - rowOf[r];
        for (c = 0; c < W; c++, k++) { px[k] = table[colOf[c] + shift]; }
      }
    } else {
      for (r = 0; r < R; r++) {
        for (c = 0; c < W; c++, k++) { px[k] = colour(valueAt(rowOf[r], colOf[c])); }
      }
    }
    ctx.putImageData(img, 0, 0);
  };

  Figure.prototype.colorbar = function (x, y, w, h, vmax, lut, label) {
    var id = "cb" + Math.random().toString(36).slice(2, 8), stops = "";
    for (var i = 0; i <= 10; i++) {
      var j = 3 * Math.round((1 - i / 10) * (lut.rgb.length / 3 - 1));
      stops += '<stop offset="' + i / 10 + '" stop-color="rgb(' + lut.rgb[j] + "," + lut.rgb[j + 1] + "," + lut.rgb[j + 2] + ')"/>';
    }
    this.add('<defs><linearGradient id="' + id + '" x1="0" y1="0" x2="0" y2="1">' + stops + "<\/linearGradient><\/defs>");
    this.add('<rect x="' + x + '" y="' + y + '" width="' + w + '" height="' + h + '" fill="url(#' + id + ')" stroke="#000" stroke-width="0.5"/>');
    var font = ' font-family="DejaVu Sans, Verdana, sans-serif" font-size="9"';
    this.add('<text x="' + (x + w + 3) + '" y="' + (y + 8) + '"' + font + ">" + esc(g(vmax, 3)) + "<\/text>");
    this.add('<text x="' + (x + w + 3) + '" y="' + (y + h / 2 + 3) + '"' + font + ">0<\/text>");
    this.add('<text x="' + (x + w + 3) + '" y="' + (y + h) + '"' + font + ">" + esc(g(-vmax, 3)) + "<\/text>");
    this.add('<text transform="translate(' + (x + w + 38) + "," + (y + h / 2) + ') rotate(-90)" text-anchor="middle"' + font + ">" + esc(label) + "<\/text>");
  };

  Figure.prototype.flush = function () {
    var svg = this.holder.querySelector("svg");
    svg.setAttribute("viewBox", "0 0 " + this.width + " " + this.height);
    svg.setAttribute("width", this.width);
    svg.setAttribute("height", this.height);
    this.holder.style.height = this.height + "px";
    svg.innerHTML = this.parts.join("");
    svg.style.position = "absolute";
    svg.style.left = "0";
    svg.style.top = "0";
    // A column narrower than the figure scales it down to fit.
    var box = this.holder.parentNode, k = Math.min(1, box.clientWidth / this.width) || 1;
    this.holder.style.transformOrigin = "0 0";
    this.holder.style.transform = k < 1 ? "scale(" + k + ")" : "";
    box.style.height = Math.ceil(this.height * k) + "px";
    this.parts = [];
  };

  // Colour tables arrive as hex strings; parse each once.
  var luts = {};
  function lut(hex) {
    if (!luts[hex]) {
      var rgb = new Uint8Array(hex.length / 2);
      for (var i = 0; i < rgb.length; i++) { rgb[i] = parseInt(hex.substr(2 * i, 2), 16); }
      luts[hex] = { rgb: rgb };
    }
    return luts[hex];
  }

  // ------------------------------------------------------------ mounting
  function mount(id) {
    var root = document.getElementById(id);
    var spec = JSON.parse(root.querySelector("script.cx-spec").textContent);
    var view = views[spec.view];
    var holder = root.querySelector(".cx-figure");
    var alt = root.querySelector(".cx-alt");
    var api = { spec: spec, state: null, values: null };
    function update() {
      var state = readState(root, spec);
      if (view.constrain) {
        view.constrain(state, function (name, max) {
          var el = root.querySelector('[data-param="' + name + '"]');
          el.max = String(max);
          if (Number(el.value) > max) { el.value = String(max); }
          state[name] = Math.min(state[name], max);
        });
      }
      spec.controls.forEach(function (c) {
        root.querySelector('output[data-for="' + c.name + '"]').textContent = shown(c, state[c.name]);
        var el = root.querySelector('[data-param="' + c.name + '"]');
        if (c.kind !== "check") { el.setAttribute("aria-valuetext", shown(c, state[c.name])); }
      });
      var values = view.compute(state, spec.data);
      var fig = new Figure(holder, view.width, view.height);
      view.render(fig, values, state, spec);
      fig.flush();
      alt.textContent = view.describe(values, state);
      api.state = state;
      api.values = values;
    }
    root.querySelectorAll("[data-param]").forEach(function (el) {
      el.addEventListener("input", update);
      el.addEventListener("change", update);
    });
    api.update = update;
    window.addEventListener("resize", update);
    mounted[id] = api;
    update();
    return api;
  }

  B.core = { esc: esc, g: g, comma: comma, lut: lut, mount: mount, scale: scale, niceTicks: niceTicks };
})(window.BookExplorers = window.BookExplorers || {});
