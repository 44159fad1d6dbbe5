// RoPE (Su et al., 2021, eq. 13 and 34), as book.encodings.apply_rope
// computes it (interleaved layout): pair i of x at position m is rotated by
// m theta_i, theta_i = base^(-2i/d).
(function (B) {
  "use strict";
  if (B.rope) { return; }

  // R(angle) (x0, x1) = (cos x0 - sin x1, sin x0 + cos x1).
  function rotatePair(x0, x1, angle) {
    var c = Math.cos(angle), s = Math.sin(angle);
    return [c * x0 - s * x1, s * x0 + c * x1];
  }

  // <rope(q, m), rope(k, n)> for vectors q, k of even length d.
  function score(q, k, m, n, theta) {
    var total = 0;
    for (var i = 0; i < theta.length; i++) {
      var a = rotatePair(q[2 * i], q[2 * i + 1], m * theta[i]);
      var b = rotatePair(k[2 * i], k[2 * i + 1], n * theta[i]);
      total += a[0] * b[0] + a[1] * b[1];
    }
    return total;
  }

  B.rope = { rotatePair: rotatePair, score: score };
})(window.BookExplorers = window.BookExplorers || {});
