// Chapter 6's explorer (book.plots.draw_rope_explorer): one pair of the
// query at m and the key at n on its plane, and the whole score against
// the offset m - n.
(function (B) {
  "use strict";
  var C = B.core, S = B.sinusoidal, R = B.rope;
  B.views.rope = {
    width: 780, height: 310,
    compute: function (state, data) {
      var q = data.q, k = data.k, d = q.length, theta = S.frequencies(d, data.base), i = state.pair;
      var qm = R.rotatePair(q[2 * i], q[2 * i + 1], state.m * theta[i]);
      var kn = R.rotatePair(k[2 * i], k[2 * i + 1], state.n * theta[i]);
      var offsets = [], scores = [];
      for (var o = -state.max_position; o <= state.max_position; o++) {
        offsets.push(o);
        scores.push(R.score(q, k, o, 0, theta));
      }
      return {
        q_pair: [q[2 * i], q[2 * i + 1]], k_pair: [k[2 * i], k[2 * i + 1]], q_rot: qm, k_rot: kn,
        part: qm[0] * kn[0] + qm[1] * kn[1], offsets: offsets, scores: scores,
        score: R.score(q, k, state.m, state.n, theta)
      };
    },
    render: function (fig, v, state, spec) {
      var pal = spec.palette, reach = 1.25 * Math.max(Math.hypot(v.q_pair[0], v.q_pair[1]), Math.hypot(v.k_pair[0], v.k_pair[1]), 1e-9);
      var between = Math.atan2(v.q_rot[0] * v.k_rot[1] - v.q_rot[1] * v.k_rot[0], v.part);
      fig.text(fig.width / 2, 14, "pair " + state.pair + " adds " + (v.part >= 0 ? "+" : "") + v.part.toFixed(3) +
        " to the score; m - n = " + (state.m - state.n), 11);
      var left = fig.panel(80, 44, 220, 220, {
        x: [-reach, reach], y: [-reach, reach], xlabel: "component " + 2 * state.pair, ylabel: "component " + (2 * state.pair + 1),
        title: "angle from q to k: " + C.g(between, 3) + " rad"
      });
      fig.axes(left);
      [[v.q_pair, pal.lines[0], 0.25], [v.k_pair, pal.lines[3], 0.25], [v.q_rot, pal.lines[0], 1], [v.k_rot, pal.lines[3], 1]].forEach(function (a) {
        fig.line(left, [0, a[0][0]], [0, a[0][1]], { color: a[1], width: 2, opacity: a[2] });
        fig.marker(left, a[0][0], a[0][1], { color: a[1], size: 3, opacity: a[2] });
      });
      fig.legend(90, 56, [{ color: pal.lines[0], label: "q at m" }, { color: pal.lines[3], label: "k at n" }]);
      var lo = Infinity, hi = -Infinity;
      v.scores.forEach(function (s) { lo = Math.min(lo, s); hi = Math.max(hi, s); });
      var pad = 0.05 * (hi - lo || 1);
      var right = fig.panel(420, 44, 340, 220, {
        x: [-state.max_position, state.max_position], y: [lo - pad, hi + pad],
        xlabel: "offset m - n (positions)", ylabel: "score q . k after RoPE", title: "the score depends only on m - n"
      });
      fig.axes(right);
      fig.line(right, v.offsets, v.scores, { color: pal.lines[0], width: 1.5 });
      if (Math.abs(state.m - state.n) <= state.max_position) {
        fig.marker(right, state.m - state.n, v.score, { color: pal.lines[3], size: 4 });
      }
    },
    describe: function (v, state) {
      return "Query at m = " + C.comma(state.m) + ", key at n = " + C.comma(state.n) + " (offset " + C.comma(state.m - state.n) +
        "): pair " + state.pair + " adds " + v.part.toFixed(3) + " and the whole score is " + C.g(v.score, 4) +
        ", the same for every m and n with that offset.";
    }
  };
})(window.BookExplorers = window.BookExplorers || {});
