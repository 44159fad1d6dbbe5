// Chapter 9's explorer (book.plots.draw_scaling_explorer): each RoPE pair's
// wavelength against the training length, and the new over old frequency
// of each pair under PI, NTK-aware scaling and YaRN.
(function (B) {
  "use strict";
  var C = B.core, S = B.sinusoidal, K = B.scaling, RULES = ["PI", "NTK-aware", "YaRN"];
  B.views.scaling = {
    width: 800, height: 330,
    compute: function (state, data) {
      var d = state.d_model, s = state.scale, L = state.original_max_len, base = data.base;
      var theta = S.frequencies(d, base), first = K.turnedPairs(d, L, base);
      var rules = { "PI": K.pi(d, s, base), "NTK-aware": K.ntk(d, s, base), "YaRN": K.yarn(d, s, L, base) };
      var ratios = {}, kept = {};
      RULES.forEach(function (name) {
        ratios[name] = Array.from(rules[name], function (t, i) { return t / theta[i]; });
        kept[name] = ratios[name].slice(first).filter(function (r) { return s * r <= 1 + 1e-12; }).length;
      });
      return {
        wavelengths: Array.from(theta, function (t) { return 2 * Math.PI / t; }), first: first, ratios: ratios, kept: kept,
        yarn_kept: ratios.YaRN.filter(function (r) { return r === 1; }).length
      };
    },
    render: function (fig, v, state, spec) {
      var d = state.d_model, L = state.original_max_len, s = state.scale, pal = spec.palette, half = d / 2;
      fig.text(fig.width / 2, 12, "d = " + d + ", L = " + C.comma(L) + ", s = " + C.g(s, 4) + ": of the " + (half - v.first) +
        " pairs that never turn within L, at position sL", 10);
      fig.text(fig.width / 2, 25, RULES.map(function (n) { return n + " keeps " + v.kept[n]; }).join(", ") + " inside the angles trained", 10);
      var wl = v.wavelengths, ymax = Math.max(wl[half - 1], s * L) * 2, ymin = Math.min(wl[0], L) / 2;
      var left = fig.panel(70, 50, 290, 230, {
        x: [-0.5, half - 0.5], y: [ymin, ymax], ylog: true, xlabel: "pair i (fast to slow)", ylabel: "positions per turn",
        title: v.first + " pairs turn within L, " + (half - v.first) + " never do"
      });
      fig.band(left, v.first - 0.5, half - 0.5, "#ebebeb");
      fig.axes(left);
      wl.forEach(function (w, i) { fig.marker(left, i, w, { color: pal.lines[0], size: 2 }); });
      fig.hline(left, L, { color: "#000", dash: "5,3" });
      fig.hline(left, s * L, { color: "#666", dash: "1.5,2", width: 1.2 });
      fig.legend(80, 62, [
        { color: pal.lines[0], label: "wavelength 2\u03c0/\u03b8\u1d62" },
        { color: "#000", dash: "5,3", label: "training length L = " + C.comma(L) },
        { color: "#666", dash: "1.5,2", label: "stretched length sL = " + C.comma(s * L) }
      ]);
      var rmin = 1;
      RULES.forEach(function (n) { v.ratios[n].forEach(function (r) { rmin = Math.min(rmin, r); }); });
      var right = fig.panel(480, 50, 300, 230, {
        x: [-0.5, half - 0.5], y: [rmin / 1.5, 1.5], ylog: true, xlabel: "pair i (fast to slow)", ylabel: "new / old frequency",
        title: "s = " + C.g(s, 4) + ", L = " + C.comma(L) + (v.yarn_kept ? ", " + v.yarn_kept + " pair" + (v.yarn_kept === 1 ? "" : "s") + " kept by YaRN" : "")
      });
      if (v.yarn_kept) { fig.band(right, -0.5, v.yarn_kept - 0.5, "#ebebeb"); }
      fig.axes(right);
      var idx = v.wavelengths.map(function (_, i) { return i; }), dashes = [null, "6,3", "6,2,1.5,2"];
      RULES.forEach(function (n, j) { fig.line(right, idx, v.ratios[n], { color: pal.lines[j], width: 2, dash: dashes[j] }); });
      fig.vline(right, v.first - 0.5, { color: "#000", dash: "5,3" });
      fig.legend(490, 235, RULES.map(function (n, j) { return { color: pal.lines[j], dash: dashes[j], label: n }; }));
    },
    describe: function (v, state) {
      var half = state.d_model / 2;
      return "Head width d = " + state.d_model + ", training length L = " + C.comma(state.original_max_len) + ", scale s = " +
        C.g(state.scale, 4) + ": " + v.first + " of " + half + " pairs turn within L and " + (half - v.first) + " never do; of those, " +
        RULES.map(function (n) { return n + " keeps " + v.kept[n]; }).join(", ") + " inside the angles trained at position sL; YaRN leaves " +
        v.yarn_kept + (v.yarn_kept === 1 ? " pair" : " pairs") + " exactly as trained.";
    }
  };
})(window.BookExplorers = window.BookExplorers || {});
