/**
 * Arrays: element reads/writes, aliasing, array construction idioms,
 * destructuring, returning new arrays and writing into output parameters.
 */

export function softmax(xs: number[]): number[] {
  const m = Math.max(...xs);
  const out: number[] = new Array(xs.length).fill(0);
  let z = 0;
  for (let i = 0; i < xs.length; i++) {
    out[i] = Math.exp(xs[i] - m);
    z += out[i];
  }
  for (let i = 0; i < xs.length; i++) {
    out[i] /= z;
  }
  return out;
}

export function logSumExp(xs: number[]): number {
  const m = Math.max(...xs);
  let s = 0;
  for (const x of xs) {
    s += Math.exp(x - m);
  }
  return m + Math.log(s);
}

export const l2Norm = (xs: number[]): number => Math.hypot(...xs);

export function matVec(m: number[][], v: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < m.length; i++) {
    const row = m[i];
    let s = 0;
    for (let j = 0; j < v.length; j++) {
      s += row[j] * v[j];
    }
    out.push(s);
  }
  return out;
}

export function matVecInto(m: number[][], v: number[], out: number[]): void {
  for (let i = 0; i < m.length; i++) {
    out[i] = 0;
    for (let j = 0; j < v.length; j++) {
      out[i] += m[i][j] * v[j];
    }
  }
}

export function quadForm(m: number[][], x: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const row = m[i];
    for (let j = 0; j < x.length; j++) {
      s += x[i] * row[j] * x[j];
    }
  }
  return s;
}

/** In-place aliasing: a[i] = 2 * a[j] reads an element that may already be overwritten. */
export function shiftDouble(a: number[]): number {
  for (let i = 1; i < a.length; i++) {
    a[i] = 2 * a[i - 1] - a[i];
  }
  a[0] = a[a.length - 1] * a[0];
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i];
  return s;
}

export function prefixSums(xs: number[]): number[] {
  const out: number[] = new Array(xs.length).fill(0);
  let acc = 0;
  for (let i = 0; i < xs.length; i++) {
    acc += xs[i];
    out[i] = acc;
  }
  return out;
}

export function positionWeighted(xs: number[]): number {
  const w = Array.from({ length: xs.length }, (_, i) => 1 / (i + 1));
  const acc = Array.from({ length: xs.length }, () => 0);
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    acc[i] = w[i] * xs[i] * xs[i];
    s += acc[i];
  }
  return s;
}

export function convolve3(xs: number[], k0: number): number[] {
  const kernel = [k0, 1 - 2 * k0, k0];
  const out: number[] = new Array(xs.length - 2).fill(0);
  for (let i = 0; i + 2 < xs.length; i++) {
    for (let k = 0; k < 3; k++) {
      out[i] += kernel[k] * xs[i + k];
    }
  }
  return out;
}

export function triangleArea(pts: number[]): number {
  const [x0, y0, x1, y1, x2, y2] = pts;
  const cross = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
  return 0.5 * Math.sqrt(cross * cross + 1e-3);
}

export function gramMatrix(m: number[][]): number[][] {
  const n = m[0].length;
  const g: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row: number[] = new Array(n).fill(0);
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < m.length; k++) {
        row[j] += m[k][i] * m[k][j];
      }
    }
    g.push(row);
  }
  return g;
}

export function reverseInPlace(xs: number[]): void {
  let i = 0;
  let j = xs.length - 1;
  while (i < j) {
    const t = xs[i];
    xs[i] = xs[j] * 1.5;
    xs[j] = t * t;
    i++;
    j--;
  }
}

export function rangeSpread(xs: number[]): number {
  return Math.max(...xs) - Math.min(...xs) + 0.1 * xs.length;
}

export function polyFromLiteral(x: number): number {
  const c = [1, -0.5, x, 0.25 * x * x];
  let s = 0;
  let p = 1;
  for (let i = 0; i < c.length; i++) {
    s += c[i] * p;
    p *= x;
  }
  return s;
}

export function selfScatter(a: number[], b: number[]): number[] {
  const out = [0, 0, 0, 0];
  for (let i = 0; i < a.length; i++) {
    const j = i % 4;
    out[j] += a[i] * b[i];
    out[(j + 1) % 4] -= 0.5 * a[i];
  }
  return out;
}

export function matMulTrace(a: number[][], b: number[][]): number {
  let t = 0;
  for (let i = 0; i < a.length; i++) {
    for (let k = 0; k < b.length; k++) {
      t += a[i][k] * b[k][i];
    }
  }
  return t;
}

/** a[i] = 2 * a[j] with a permuted source index: some reads see values already overwritten. */
export function permuteDouble(a: number[]): number {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const j = (3 * i + 1) % n;
    a[i] = 2 * a[j] - 0.5 * a[i];
  }
  a[n - 1] = a[n - 1] * a[0];
  return a[0] + a[n - 1] * a[1];
}
