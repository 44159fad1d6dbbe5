// Chapter 4's explorer (book.plots.draw_fingerprint_explorer): the
// similarity PE(p) . PE(q) (or its cosine) of every pair of positions.
(function (B) {
  "use strict";
  var C = B.core, S = B.sinusoidal;
  B.views.fingerprint = {
    width: 520, height: 345,
    compute: function (state) {
      var L = state.seq_len, row = S.dotByOffset(L, state.d_model, state.base);
      if (state.cosine) {
        var norm2 = row[0];  // |PE(p)|^2 = sum_i (sin^2 + cos^2), the same for every p
        row = row.map(function (x) { return x / norm2; });
      }
      var top = 0;
      for (var t = 0; t < L; t++) { top = Math.max(top, Math.abs(row[t])); }
      var low = 0;
      for (t = 1; t < L; t++) { if (row[t] < row[low]) { low = t; } }
      return {
        byOffset: row, vmax: top > 0 ? top : 1, lowest: low,
        at: function (p, q) { return row[Math.abs(p - q)]; }
      };
    },
    render: function (fig, v, state, spec) {
      var L = state.seq_len, lut = C.lut(spec.palette.signed);
      var p = fig.panel(70, 24, 280, 280, {
        x: [-0.5, L - 0.5], y: [-0.5, L - 0.5], yflip: true, xlabel: "position q", ylabel: "position p",
        title: "d = " + state.d_model + ", base = " + C.g(state.base, 6)
      });
      fig.heatmap(p, 0, L, L, v.at, v.vmax, lut, function (t) { return v.byOffset[Math.abs(t)]; });
      fig.axes(p);
      fig.colorbar(362, 24, 12, 280, v.vmax, lut, state.cosine ? "cosine similarity" : "PE(p) . PE(q)");
    },
    describe: function (v, state) {
      var what = state.cosine ? "cosine similarity" : "dot product PE(p) . PE(q)";
      return "The " + what + " of every pair of " + C.comma(state.seq_len) + " positions, for d = " + state.d_model +
        " and base " + C.g(state.base, 6) + ": " + C.g(v.byOffset[0], 4) + " on the diagonal" +
        (state.seq_len > 1 ? ", " + C.g(v.byOffset[1], 4) + " for neighbours, lowest " + C.g(v.byOffset[v.lowest], 4) +
          " at " + C.comma(v.lowest) + " positions apart" : "") + "; it depends only on p - q.";
    }
  };
})(window.BookExplorers = window.BookExplorers || {});
