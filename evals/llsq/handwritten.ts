// Hand-written llsq gradient (benchmark baseline): for each sample point, one pass to form
// the residual r_i and a second pass to accumulate -r_i t_i^j. O(n m), no allocation.

/** Writes d llsq(x, n)/dx into `grad` (length m) and returns llsq(x, n). */
export function llsqGradient(x: ArrayLike<number>, n: number, grad: Float64Array | number[]): number {
  const m = x.length;
  for (let j = 0; j < m; j++) grad[j] = 0;
  let y = 0;
  for (let i = 0; i < n; i++) {
    const t = -1 + (i * 2) / (n - 1);
    let r = Math.sign(t);
    let power = 1;
    for (let j = 0; j < m; j++) {
      r -= x[j] * power;
      power *= t;
    }
    y += r * r;
    power = 1;
    for (let j = 0; j < m; j++) {
      grad[j] -= r * power;
      power *= t;
    }
  }
  return y / 2;
}
