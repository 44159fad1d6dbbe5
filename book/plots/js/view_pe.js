// Chapter 2's explorer (book.plots.draw_pe_explorer): the sinusoidal table
// of 200 positions as a heatmap, and one dimension's sin/cos pair as curves.
(function (B) {
  "use strict";
  var C = B.core, S = B.sinusoidal, WINDOW = 200;
  B.views.pe = {
    width: 780, height: 300,
    constrain: function (state, limit) { limit("dim", state.d_model - 1); },
    compute: function (state) {
      var d = state.d_model, positions = [];
      for (var p = state.start; p < state.start + WINDOW; p++) { positions.push(p); }
      var pair = Math.floor(state.dim / 2);
      return {
        positions: positions,
        table: S.table(positions, d, state.base),
        pair: pair,
        wavelength: 2 * Math.PI / S.frequencies(d, state.base)[pair]
      };
    },
    render: function (fig, v, state, spec) {
      var d = state.d_model, lo = state.start, hi = state.start + WINDOW - 1, pal = spec.palette;
      var left = fig.panel(60, 24, 250, 230, {
        x: [-0.5, d - 0.5], y: [lo - 0.5, hi + 0.5], yflip: true,
        xlabel: "dimension j", ylabel: "position p", title: "PE, d = " + d + ", base = " + C.g(state.base, 6)
      });
      fig.heatmap(left, 0, WINDOW, d, function (r, c) { return v.table[r * d + c]; }, 1, C.lut(pal.signed));
      fig.axes(left);
      fig.vline(left, state.dim, { color: "#000", width: 0.8, dash: "1.5,2" });
      fig.colorbar(318, 24, 10, 230, 1, C.lut(pal.signed), "PE value");
      var right = fig.panel(460, 24, 300, 230, {
        x: [lo, hi], y: [-1.1, 1.1], xlabel: "position p", ylabel: "PE value",
        title: "pair i = " + v.pair + ": wavelength " + C.g(v.wavelength, 4) + " positions"
      });
      fig.axes(right);
      var sin = [], cos = [];
      for (var r = 0; r < WINDOW; r++) { sin.push(v.table[r * d + 2 * v.pair]); cos.push(v.table[r * d + 2 * v.pair + 1]); }
      fig.line(right, v.positions, sin, { color: pal.lines[0] });
      fig.line(right, v.positions, cos, { color: pal.lines[1], dash: "5,3" });
      fig.legend(650, 222, [
        { color: pal.lines[0], label: "dim " + 2 * v.pair + " (sin)" },
        { color: pal.lines[1], dash: "5,3", label: "dim " + (2 * v.pair + 1) + " (cos)" }
      ]);
    },
    describe: function (v, state) {
      return "The sinusoidal table for width d = " + state.d_model + " and base " + C.g(state.base, 6) +
        ", positions " + C.comma(state.start) + " to " + C.comma(state.start + WINDOW - 1) + ". Dimension " + state.dim +
        " belongs to pair " + v.pair + " (sine in dimension " + 2 * v.pair + ", cosine in " + (2 * v.pair + 1) +
        "), whose wavelength is " + C.g(v.wavelength, 4) + " positions.";
    }
  };
})(window.BookExplorers = window.BookExplorers || {});
