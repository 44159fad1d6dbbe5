// Chapter 7's T5 explorer (book.plots.draw_t5_bucket_explorer): the bucket
// of every relative position j - i, where the exact buckets end and where
// the last bucket starts.
(function (B) {
  "use strict";
  var C = B.core, T = B.t5;

  function kind(state) { return state.bidirectional ? "encoder (bidirectional)" : "decoder (one direction)"; }

  // The numbers of draw_t5_bucket_explorer's title.
  function title(v, state) {
    return state.num_buckets + " buckets, max distance " + C.comma(state.max_distance) + ", " + kind(state) +
      ": exact up to distance " + v.exact + ", last bucket from distance " + C.comma(v.last);
  }

  B.views.t5 = {
    width: 780, height: 330,
    // t5_relative_bucket's rule: max_distance above the exact range (a
    // quarter of the buckets if bidirectional, else half). The sliders'
    // ranges (4 buckets or more, max distance 3 or more) keep the rest.
    constrain: function (state, limit) {
      var d = state.max_distance;
      limit("num_buckets", Math.min(128, state.bidirectional ? 4 * d - 2 : 2 * d - 2));
    },
    compute: function (state) {
      var s = T.setting(state.num_buckets, state.max_distance, state.bidirectional), K = state.max_offset;
      var buckets = new Array(2 * K + 1);
      for (var o = -K; o <= K; o++) { buckets[o + K] = T.bucket(s, o); }
      var marks = T.landmarks(s, state.max_distance);
      return { buckets: buckets, exact: marks.exact, last: marks.last, n: s.n };
    },
    render: function (fig, v, state, spec) {
      var K = state.max_offset, pal = spec.palette, xs = [], ys = [], o, i;
      fig.text(fig.width / 2, 16, title(v, state), 11);
      var p = fig.panel(70, 40, 680, 236, {
        x: [-K - 0.5, K + 0.5], y: [-0.5, state.num_buckets - 0.5],
        xlabel: "relative position j - i (key minus query)", ylabel: "bucket"
      });
      fig.axes(p);
      fig.vline(p, 0, { color: "#ccc", width: 0.8 });
      // As draw_t5_bucket_explorer: a landmark's lines and legend entry
      // only where it lies within the offsets shown.
      var sides = state.bidirectional ? [-1, 1] : [-1];
      var showExact = v.exact + 0.5 <= K, showLast = v.last - 0.5 <= K;
      sides.forEach(function (side) {
        if (showExact) { fig.vline(p, side * (v.exact + 0.5), { color: pal.lines[1], dash: "5,3", width: 1.2 }); }
        if (showLast) { fig.vline(p, side * (v.last - 0.5), { color: pal.lines[2], dash: "1.5,2", width: 1.2 }); }
      });
      // A step line (each offset's bucket held from o - 1/2 to o + 1/2): one
      // horizontal piece per run of equal buckets.
      for (o = -K; o <= K; o = i) {
        for (i = o + 1; i <= K && v.buckets[i + K] === v.buckets[o + K]; i++) { /* the run */ }
        xs.push(o - 0.5, i - 0.5);
        ys.push(v.buckets[o + K], v.buckets[o + K]);
      }
      fig.line(p, xs, ys, { color: pal.lines[0], width: 1.5 });
      var items = [{ color: pal.lines[0], label: "bucket of j - i" }];
      if (showExact) { items.push({ color: pal.lines[1], dash: "5,3", label: "exact up to distance " + v.exact }); }
      if (showLast) {
        items.push({ color: pal.lines[2], dash: "1.5,2", label: "last bucket from distance " + C.comma(v.last) });
      }
      fig.legend(state.bidirectional ? 80 : 560, 52, items);
    },
    describe: function (v, state) {
      // Only facts true at every setting: past the exact range the bucket
      // grows with the logarithm of the distance, which at a small max
      // distance may still give some distances a bucket each and skip some
      // buckets (at 32 buckets, max distance 10, encoder: 9 to 11, 13, 14).
      var n = v.n, E = v.exact, L = C.comma(v.last);
      var farther = "; past that the bucket grows with the logarithm of the distance (at a small max " +
        "distance some buckets are skipped)";
      var rest = state.bidirectional ?
        ". Each distance from 0 to " + E + " has its own bucket" + farther + ", and every key " + L +
          " or more positions away shares the last one of its side: bucket " + (n - 1) + " before the query, " +
          (2 * n - 1) + " after it. Bucket " + n + " (after the query, distance 0) is never used." :
        ". Each distance from 1 to " + E + " back has its own bucket" + farther + ", and every key " + L +
          " or more positions back shares bucket " + (n - 1) + ". Bucket 0 holds distance 0: the query's own " +
          "position and every key after the query.";
      return title(v, state) + rest + " Offsets shown: " + C.comma(-state.max_offset) + " to " +
        C.comma(state.max_offset) + ".";
    }
  };
})(window.BookExplorers = window.BookExplorers || {});
