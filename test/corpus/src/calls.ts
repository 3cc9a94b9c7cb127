/**
 * Calls between functions: helpers in the same module, the same helper from
 * several call sites, imports from another corpus module, default parameters
 * and module-level constant data.
 */
import { sumSquares, horner } from './loops.js';
import { matVec } from './arrays.js';

const WEIGHTS = [0.5, 1.5, -0.25, 2, 0.75];
const SCALE = 3;
const DT = 0.05;

export function sq(x: number): number {
  return x * x;
}

export function smoothAbs(x: number): number {
  return Math.sqrt(x * x + 1e-2);
}

export function twoSites(x: number, y: number): number {
  return sq(x + y) + 3 * sq(x * y);
}

export function threeSitesNested(x: number, y: number): number {
  return smoothAbs(sq(x) - y) + smoothAbs(x - sq(y)) + sq(smoothAbs(x * y));
}

export function importedSumSquares(xs: number[], s: number): number {
  return s * sumSquares(xs) + sq(s);
}

export function importedHorner(x: number, y: number): number {
  const c = [1, x, y, x * y];
  return horner(c, x) + horner(c, y);
}

export function scaledPower(x: number, k: number = 3, offset: number = 0.5): number {
  return SCALE * Math.pow(x + offset, k);
}

export function defaultCaller(x: number): number {
  return scaledPower(x) + scaledPower(x, 2) + scaledPower(x, 1, x);
}

export function weightedSum(xs: number[]): number {
  let s = 0;
  for (let i = 0; i < WEIGHTS.length && i < xs.length; i++) {
    s += WEIGHTS[i] * xs[i];
  }
  return s * s;
}

export function residualNorm(m: number[][], v: number[], b: number[]): number {
  const r = matVec(m, v);
  let s = 0;
  for (let i = 0; i < r.length; i++) {
    s += sq(r[i] - b[i]);
  }
  return s;
}

export function normalize(v: number[]): number[] {
  const n = Math.sqrt(sumSquares(v));
  const out: number[] = [];
  for (const x of v) out.push(x / n);
  return out;
}

export function cosineSimilarity(a: number[], b: number[]): number {
  const na = normalize(a);
  const nb = normalize(b);
  let s = 0;
  for (let i = 0; i < na.length; i++) s += na[i] * nb[i];
  return s;
}

export const accel = (x: number, v: number): number => -4 * x - 0.3 * v;

export function eulerWithHelper(x0: number, v0: number): number {
  let x = x0;
  let v = v0;
  for (let i = 0; i < 20; i++) {
    const a = accel(x, v);
    x += DT * v;
    v += DT * a;
  }
  return x + accel(x, v);
}

export function helperWritesOut(m: number[][], v: number[]): number {
  const tmp: number[] = new Array(m.length).fill(0);
  fillRowSums(m, v, tmp);
  return sumSquares(tmp);
}

export function fillRowSums(m: number[][], v: number[], out: number[]): void {
  for (let i = 0; i < m.length; i++) {
    let s = 0;
    for (let j = 0; j < v.length; j++) s += m[i][j] * v[j];
    out[i] = s;
  }
}

/** a helper reading two entries of its array argument: its backward sweep reads xy[0] again */
function bilinearAt(xy: number[], u: number): number {
  const x0 = xy[0];
  const x1 = xy[1];
  const w = 0.5 * x1;
  return u * x0 + w * x0;
}

/**
 * Reads `out` through a helper, then overwrites it: the caller must restore `out` before the
 * helper's backward sweep reads it (fuzz-found; TBR missed reads made when the helper's final
 * values are evaluated again).
 */
export function readThenOverwrite(a: number[], out: number[]): void {
  const ex = bilinearAt(out, a[0]);
  for (let j = 0; j < out.length; j++) out[j] = a[j] * ex;
}
