// Chapter 7's explorer (book.plots.draw_alibi_explorer): one ALiBi head's
// bias, and the causal attention weights of the last query when all
// content scores are equal.
(function (B) {
  "use strict";
  var C = B.core, A = B.alibi;
  B.views.alibi = {
    width: 780, height: 320,
    constrain: function (state, limit) { limit("head", state.n_heads); },
    compute: function (state) {
      var slopes = A.slopes(state.n_heads), slope = slopes[state.head - 1], L = state.seq_len;
      return {
        slopes: slopes, slope: slope, halving: Math.log(2) / slope,
        top: Math.max.apply(null, slopes) * (L - 1),
        weights: Array.from(A.causalWeights(slope, L - 1)),
        at: function (i, j) { return j > i ? NaN : A.bias(slope, i, j); }
      };
    },
    render: function (fig, v, state, spec) {
      var L = state.seq_len, pal = spec.palette, lut = C.lut(pal.signed);
      fig.text(fig.width / 2, 14, state.n_heads + " heads, slope m = " + C.g(v.slope, 4) + ": the weight halves every ln 2 / m = " +
        C.g(v.halving, 3) + " positions", 11);
      var left = fig.panel(60, 44, 230, 230, {
        x: [-0.5, L - 0.5], y: [-0.5, L - 0.5], yflip: true, xlabel: "key j", ylabel: "query i",
        title: "head " + state.head + ": m = 1/" + C.g(1 / v.slope, 3)
      });
      fig.heatmap(left, 0, L, L, v.at, v.top > 0 ? v.top : 1, lut, function (t) { return v.at(0, t); });
      fig.axes(left);
      fig.colorbar(298, 44, 10, 230, v.top > 0 ? v.top : 1, lut, "bias added to the score");
      var keys = [], top = 0;
      for (var j = 0; j < L; j++) { keys.push(j); top = Math.max(top, v.weights[j]); }
      var right = fig.panel(440, 44, 320, 230, {
        x: [0, L - 1], y: [0, top * 1.05], xlabel: "key j", ylabel: "attention weight",
        title: "last query, head " + state.head + ", neutral content"
      });
      fig.axes(right);
      fig.line(right, keys, v.weights, { color: pal.lines[0], width: 1.5 });
      if (L <= 128) { keys.forEach(function (j) { fig.marker(right, j, v.weights[j], { color: pal.lines[0], size: 2 }); }); }
    },
    describe: function (v, state) {
      return "Head " + state.head + " of " + state.n_heads + ", " + C.comma(state.seq_len) + " positions: slope m = " + C.g(v.slope, 4) +
        ", so the bias falls by " + C.g(v.slope, 4) + " per position back and the last query's weight halves every " +
        C.g(v.halving, 3) + " positions; its own key gets " + C.g(v.weights[state.seq_len - 1], 3) + " of the attention.";
    }
  };
})(window.BookExplorers = window.BookExplorers || {});
