// Constructs the rest of the corpus does not reach: labelled blocks, boolean literals, unary plus.

export function labelledBlockClamp(x: number, hi: number): number {
  let y = x * x;
  check: {
    if (y < hi) break check;
    y = hi + Math.log1p(y - hi);
  }
  return +y * 0.5;
}

export function flaggedSum(xs: number[], squareIt: boolean = true): number {
  let s = 0;
  let first = true;
  for (let i = 0; i < xs.length; i++) {
    const v = squareIt ? xs[i] * xs[i] : xs[i];
    if (first) {
      s = v;
      first = false;
    } else s += v * 0.5;
  }
  return s;
}

// Scratch arrays reused across iterations: the first inner loop overwrites `full` whole, so the adjoint
// needs none of its older values and the linear update after it records nothing; `part` is overwritten
// only up to n - 1, so its last element from the previous iteration must still be recorded.
export function scratchReuse(x: number[], w: number[]): number {
  const n = x.length;
  const full = new Float64Array(n);
  const part = new Float64Array(n);
  let total = 0;
  for (let it = 0; it < 3; it++) {
    for (let j = 0; j < n; j++) full[j] = Math.sin(x[j] - w[it % w.length]);
    for (let j = 0; j < n - 1; j++) part[j] = Math.cos(x[j] * w[j % w.length]);
    for (let j = 0; j < n; j++) {
      full[j] += 0.5 * x[j];
      part[j] += 0.25 * x[j] * w[it % w.length];
    }
    for (let j = 0; j < n; j++) total += full[j] * full[j] + part[j] * part[j];
  }
  return total;
}
