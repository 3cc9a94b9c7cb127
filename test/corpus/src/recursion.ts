/**
 * Recursive functions; recursion depth is controlled by passive integers.
 */

export function powRec(x: number, n: number): number {
  if (n === 0) return 1;
  if (n % 2 === 0) {
    const h = powRec(x, n / 2);
    return h * h;
  }
  return x * powRec(x, n - 1);
}

export function sumRec(xs: number[], i: number): number {
  if (i >= xs.length) return 0;
  return xs[i] * xs[i] + sumRec(xs, i + 1);
}

export function hornerRec(cs: number[], x: number, i: number = 0): number {
  if (i === cs.length - 1) return cs[i];
  return cs[i] + x * hornerRec(cs, x, i + 1);
}

export function continuedFraction(x: number, depth: number): number {
  if (depth === 0) return 1;
  return 1 + x / continuedFraction(x, depth - 1);
}

export function treeSum(xs: number[], lo: number, hi: number): number {
  if (hi - lo === 1) return Math.sin(xs[lo]);
  const mid = ((lo + hi) / 2) | 0;
  return treeSum(xs, lo, mid) + treeSum(xs, mid, hi) * 0.5;
}

export function evenTerm(x: number, n: number): number {
  return n === 0 ? 1 : 1 + x * oddTerm(x, n - 1);
}

export function oddTerm(x: number, n: number): number {
  return n === 0 ? x : x - 0.5 * x * evenTerm(x, n - 1);
}

export const legendre = (n: number, x: number): number => {
  if (n === 0) return 1;
  if (n === 1) return x;
  return ((2 * n - 1) * x * legendre(n - 1, x) - (n - 1) * legendre(n - 2, x)) / n;
};

export function recursiveEuler(y: number, k: number, steps: number): number {
  if (steps === 0) return y;
  return recursiveEuler(y + 0.1 * (-k * y + Math.cos(y)), k, steps - 1);
}
