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
