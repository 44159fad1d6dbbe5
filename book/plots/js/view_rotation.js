// Chapter 3's explorer (book.plots.draw_rotation_explorer): each of four
// (sin, cos) pairs of PE(p) on its unit circle, with the path to PE(p + k),
// an arc, or a shrinking spiral once some pair turns more than once.
(function (B) {
  "use strict";
  var C = B.core, S = B.sinusoidal;
  B.views.rotation = {
    width: 780, height: 270,
    compute: function (state, data) {
      var d = data.d_model, w = S.frequencies(d, data.base);
      var pe = S.table([state.pos, state.pos + state.k], d, data.base);
      var spiral = data.pairs.some(function (i) { return Math.abs(state.k * w[i]) > 2 * Math.PI; });
      return {
        pe_p: Array.from(pe.subarray(0, d)),
        pe_pk: Array.from(pe.subarray(d)),
        angles: data.pairs.map(function (i) { return [state.pos * w[i], (state.pos + state.k) * w[i]]; }),
        turns: data.pairs.map(function (i) { return Math.abs(state.k * w[i]) / (2 * Math.PI); }),
        rad: data.pairs.map(function (i) { return state.k * w[i]; }),
        spiral: spiral,
        pairs: data.pairs.slice()
      };
    },
    render: function (fig, v, state, spec) {
      var pal = spec.palette, size = 150, gap = 190;
      fig.text(fig.width / 2, 14, "PE(p) to PE(p + k): p = " + C.g(state.pos, 6) + ", k = " + C.g(state.k, 6), 11);
      spec.data.pairs.forEach(function (i, j) {
        var a0 = v.angles[j][0], a1 = v.angles[j][1];
        var title = v.spiral ? "pair " + i + ": " + C.g(Math.abs(a1 - a0), 3) + " rad = " + C.g(v.turns[j], 2) + " turns"
          : "pair " + i + ": turns " + C.g(v.rad[j], 3) + " rad";
        var p = fig.panel(40 + j * gap, 44, size, size, {
          x: [-1.25, 1.25], y: [-1.25, 1.25], xlabel: "sin (dim " + 2 * i + ")", ylabel: "cos (dim " + (2 * i + 1) + ")", title: title
        });
        fig.axes(p);
        var cx = [], cy = [], t;
        for (t = 0; t <= 100; t++) { cx.push(Math.sin(2 * Math.PI * t / 100)); cy.push(Math.cos(2 * Math.PI * t / 100)); }
        fig.line(p, cx, cy, { color: "#cccccc", width: 1 });
        var steps = v.spiral ? Math.min(1500, Math.max(60, Math.floor(40 * Math.abs(a1 - a0)))) : 60, ax = [], ay = [], r = 1;
        for (t = 0; t < steps; t++) {
          var a = a0 + (a1 - a0) * t / (steps - 1);
          r = v.spiral ? 1 - 0.12 * Math.abs(a - a0) / (2 * Math.PI) : 1;
          ax.push(r * Math.sin(a)); ay.push(r * Math.cos(a));
        }
        fig.line(p, ax, ay, { color: pal.lines[1], width: v.spiral ? 1.5 : 2, opacity: v.spiral ? 0.7 : 0.6 });
        fig.marker(p, v.pe_p[2 * i], v.pe_p[2 * i + 1], { color: pal.lines[0], size: 4 });
        fig.marker(p, r * v.pe_pk[2 * i], r * v.pe_pk[2 * i + 1], { color: pal.lines[1], size: 3.5, square: true });
      });
    },
    describe: function (v, state) {
      return "From PE(p) at p = " + C.g(state.pos, 6) + " to PE(p + k) at k = " + C.g(state.k, 6) + ", each pair turns by " +
        v.rad.map(function (r, j) { return "pair " + v.pairs[j] + " " + C.g(r, 3) + " rad (" + C.g(v.turns[j], 2) + " turns)"; }).join(", ") +
        "; the same for every p.";
    }
  };
})(window.BookExplorers = window.BookExplorers || {});
