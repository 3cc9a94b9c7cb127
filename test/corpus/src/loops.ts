/**
 * Loops: counted for-loops, while/do-while with data-dependent trip counts,
 * break/continue (also labelled), for-of, nested loops and early returns.
 */

export function sumSquares(xs: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    s += xs[i] * xs[i];
  }
  return s;
}

export function horner(coeffs: number[], x: number): number {
  let acc = 0;
  for (let i = coeffs.length - 1; i >= 0; i--) {
    acc = acc * x + coeffs[i];
  }
  return acc;
}

export function dotProduct(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; ++i) {
    s += a[i] * b[i];
  }
  return s;
}

export function runningMaxSum(xs: number[]): number {
  let m = xs[0];
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] > m) {
      m = xs[i];
    }
    s += m;
  }
  return s;
}

/** Trip count depends on the active value x. */
export function halvingLog(x: number): number {
  let n = 0;
  while (x > 1) {
    x = x / 2;
    n++;
  }
  return n + x * x;
}

export function newtonSqrt(a: number): number {
  let x = a;
  let i = 0;
  do {
    x = 0.5 * (x + a / x);
    i++;
  } while (i < 8);
  return x;
}

export function prefixUntil(xs: number[], limit: number): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    if (s + xs[i] > limit) break;
    s += xs[i];
  }
  return s * limit;
}

export function sumPositive(xs: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] <= 0) continue;
    s += xs[i] * xs[i];
  }
  return s;
}

export function productForOf(xs: readonly number[]): number {
  let p = 1;
  for (const x of xs) {
    p *= 1 + 0.5 * x;
  }
  return p;
}

export function pairwiseEnergy(pts: number[][]): number {
  let e = 0;
  for (let i = 0; i < pts.length; i++) {
    for (let j = i + 1; j < pts.length; j++) {
      let d2 = 0;
      for (let k = 0; k < pts[i].length; k++) {
        const d = pts[i][k] - pts[j][k];
        d2 += d * d;
      }
      e += 1 / Math.sqrt(d2 + 0.1);
    }
  }
  return e;
}

/** Sum of each row up to (excluding) its first negative entry; labelled continue. */
export function rowPrefixSums(m: number[][]): number {
  let s = 0;
  rows: for (let i = 0; i < m.length; i++) {
    for (let j = 0; j < m[i].length; j++) {
      if (m[i][j] < 0) continue rows;
      s += m[i][j] * (i + 1);
    }
  }
  return s;
}

/** Labelled break out of a nested search. */
export function firstLargeProduct(a: number[], b: number[], t: number): number {
  let found = 0;
  search: for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      if (a[i] * b[j] > t) {
        found = a[i] * b[j] - t;
        break search;
      }
    }
  }
  return found + t * t;
}

export function firstCrossing(xs: number[], level: number): number {
  let acc = 0;
  for (let i = 0; i < xs.length; i++) {
    acc += xs[i];
    if (acc > level) {
      return acc * xs[i];
    }
  }
  return -acc;
}

export function geometricSeries(x: number, n: number): number {
  let term = 1;
  let s = 0;
  for (let k = 0; k < n; k++) {
    s += term;
    term *= x;
  }
  return s;
}

export function countdownWhile(x: number, n: number): number {
  let y = x;
  let i = n;
  while (i > 0) {
    y = y - 0.1 * Math.sin(y);
    i--;
  }
  return y;
}

export const expTaylor = (x: number): number => {
  let term = 1;
  let s = 1;
  let k = 1;
  while (Math.abs(term) > 1e-16 * Math.abs(s)) {
    term = (term * x) / k;
    s += term;
    k += 1;
  }
  return s;
};

interface Centre {
  pos: number[];
  weight: number;
}

/** k-means style cost: each point's weighted squared distance to its nearest centre, rows and objects bound by `for…of`. */
export function nearestCentreCost(points: number[][], centres: Centre[], anchors: number[][]): number {
  let total = 0;
  for (const p of points) {
    let best = Infinity;
    for (const c of centres) {
      const d = c.weight * ((p[0] - c.pos[0]) ** 2 + (p[1] - c.pos[1]) ** 2);
      if (d < best) best = d;
    }
    let near = Infinity;
    for (const a of anchors) {
      const d = (p[0] - a[0]) ** 2 + (p[1] - a[1]) ** 2;
      if (d < near) near = d;
    }
    total += best + 0.5 * near;
  }
  return total;
}
