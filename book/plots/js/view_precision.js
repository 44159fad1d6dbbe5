// Chapter 11's explorer (book.plots.draw_precision_explorer): the largest
// error of RoPE's cosines against position, log-log, with the angles formed
// in the chosen dtype and, dotted, with book's float64 angles.
(function (B) {
  "use strict";
  var C = B.core, P = B.precision;
  function first(pos, err, test) {
    for (var i = 0; i < pos.length; i++) { if (test(err[i])) { return pos[i]; } }
    return -1;
  }
  B.views.precision = {
    width: 700, height: 340,
    compute: function (state, data) {
      var pos = P.positions(state.longest), d = state.d_model, base = state.base;
      var errors = P.cosError(pos, d, base, state.dtype);
      var overflow = first(pos, errors, function (e) { return e === Infinity; });
      return {
        positions: pos, errors: errors, book: P.cosError(pos, d, base, "float64"),
        off: first(pos, errors, function (e) { return e > 0.01; }),
        overflow: overflow, unheld: overflow >= 0 ? P.firstUnheld(state.dtype) : -1
      };
    },
    render: function (fig, v, state, spec) {
      var pal = spec.palette, t = state.dtype;
      var last = v.positions[v.positions.length - 1];
      var where = v.off >= 0 ? "from about position " + C.comma(v.off) : "nowhere up to " + C.comma(last);
      fig.text(fig.width / 2, 14, t + " angles: cosines off by more than 0.01 " + where, 11);
      if (v.overflow >= 0) {
        fig.text(fig.width / 2, 28, t + " rounds positions from " + C.comma(v.unheld) +
          " on (no line from the first plotted position past it)", 11);
      }
      var p = fig.panel(80, 56, 590, 230, {
        x: [1, state.longest], y: [1e-10, 10], xlog: true, ylog: true, xlabel: "position m",
        ylabel: "largest |cos error|", title: "RoPE angles in low precision, d = " + state.d_model
      });
      fig.axes(p);
      function shown(e) { return e === Infinity ? NaN : Math.max(e, 1e-10); }
      fig.line(p, v.positions, Array.from(v.errors, shown), { color: pal.lines[0], width: 1.5 });
      fig.line(p, v.positions, Array.from(v.book, shown), { color: pal.lines[1], width: 1.5, dash: "1.5,2.5" });
      fig.legend(510, 160, [
        { color: pal.lines[0], label: t },
        { color: pal.lines[1], dash: "1.5,2.5", label: "book (float64 angles)" }
      ]);
    },
    describe: function (v, state) {
      var worst = 0, at = 0, bookWorst = 0, t = state.dtype;
      for (var i = 0; i < v.positions.length; i++) {
        if (isFinite(v.errors[i]) && v.errors[i] >= worst) { worst = v.errors[i]; at = v.positions[i]; }
        bookWorst = Math.max(bookWorst, v.book[i]);
      }
      var last = v.positions[v.positions.length - 1];
      var s = "Angles in " + t + ", head width d = " + state.d_model + ", base " + C.g(state.base, 5) + ", " +
        v.positions.length + " positions from 1 to " + C.comma(last) + ": the cosines are off by more than 0.01 " +
        (v.off >= 0 ? "from about position " + C.comma(v.off) + " on" : "nowhere up to " + C.comma(last)) + ". ";
      if (v.overflow >= 0) {
        s += t + " rounds positions from " + C.comma(v.unheld) + " on to inf (the angle overflows): no error from " +
          C.comma(v.overflow) + ", the first plotted position past it. ";
      }
      return s + "The largest error " + (v.overflow >= 0 ? "below that " : "") + "is " + C.g(worst, 3) + ", at position " +
        C.comma(at) + "; with book's float64 angles, at most " + C.g(bookWorst, 3) + ".";
    }
  };
})(window.BookExplorers = window.BookExplorers || {});
