// Hand-written lse gradient (benchmark baseline): softmax, two passes plus a scaling pass,
// no allocation. Returns the primal value as well.

/** Writes d logsumexp(x)/dx into `grad` (length n) and returns logsumexp(x). */
export function logsumexpGradient(x: ArrayLike<number>, grad: Float64Array | number[]): number {
  const n = x.length;
  let a = x[0];
  for (let i = 1; i < n; i++) if (x[i] > a) a = x[i];
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const e = Math.exp(x[i] - a);
    grad[i] = e;
    sum += e;
  }
  const inv = 1 / sum;
  for (let i = 0; i < n; i++) grad[i] *= inv;
  return a + Math.log(sum);
}
