// T5's relative position buckets (Raffel et al., 2020, section 2.1), as
// book.encodings.t5_relative_bucket computes them (transformers'
// T5Attention._relative_position_bucket): the integer steps exactly, the
// logarithmic buckets in float32 as torch computes them, with Math.fround
// after each float32 step. Where the exact value of the logarithmic bucket
// is an integer, the last bit of the float32 logarithm decides; torch takes
// it from its own log (MKL's on x86), the page from the correctly rounded
// one, and the two can differ there by one bucket (tests/site/
// test_computed_explorers.py allows exactly that, only there).
(function (B) {
  "use strict";
  if (B.t5) { return; }
  var f = Math.fround;

  // One setting: n buckets a direction, the first `exact` of them one
  // distance each, and the divisor log(max_distance / exact), which Python
  // computes in float64 and torch rounds to float32.
  function setting(numBuckets, maxDistance, bidirectional) {
    var n = bidirectional ? numBuckets / 2 : numBuckets, exact = Math.floor(n / 2);
    return { n: n, exact: exact, bidirectional: bidirectional, divisor: f(Math.log(maxDistance / exact)) };
  }

  // t5_relative_bucket(rel): rel = j - i, key minus query.
  function bucket(s, rel) {
    var offset = 0, distance;
    if (s.bidirectional) {
      offset = rel > 0 ? s.n : 0;
      distance = Math.abs(rel);
    } else {
      distance = Math.max(-rel, 0);
    }
    if (distance < s.exact) { return offset + distance; }
    var ratio = f(distance / s.exact);
    var wide = s.exact + Math.trunc(f(f(f(Math.log(ratio)) / s.divisor) * (s.n - s.exact)));
    return offset + Math.min(wide, s.n - 1);
  }

  // Distances 0 .. exact - 1 have a bucket each; every distance from `last`
  // on (at most max_distance) shares the last bucket of its direction.
  function landmarks(s, maxDistance) {
    var r = 0;
    while (r < maxDistance && bucket(s, -r) !== s.n - 1) { r++; }
    return { exact: s.exact - 1, last: r };
  }

  B.t5 = { setting: setting, bucket: bucket, landmarks: landmarks };
})(window.BookExplorers = window.BookExplorers || {});
