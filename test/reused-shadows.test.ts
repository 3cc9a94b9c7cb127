// One shadow buffer for an array a loop allocates afresh each pass (src/transform/adjoint/reused-shadows.ts).
// Each program is checked in every mode at a point (divided differences, the dot-product test); the
// ones the rule covers must show the reused buffer in their adjoint, the ones it must leave alone must not.
import { describe, expect, it } from 'vitest';
import { checkedCode } from './support/checked.js';

const adjointOf = checkedCode;

const X = [0.3, -0.7, 1.1, 0.45];
const M = [
  [0.2, -0.4, 0.9, 0.1],
  [-0.3, 0.8, 0.05, 0.6],
  [0.7, 0.15, -0.5, 0.35],
];

const REUSED = /zerosAgain|float64Again/;

describe('reused shadows', () => {
  it('a map per pass, read by a reduce: one buffer', () => {
    const src = `export function f(x: number[], m: number[][]): number {
  let s = 0;
  for (let k = 0; k < m.length; k++) {
    const diff = x.map((v, j) => v - m[k][j]);
    s += diff.reduce((acc, d, j) => acc + Math.sin(d) * d * (j + 1), 0);
  }
  return s;
}`;
    expect(adjointOf(src, 'f', [X, M])).toMatch(REUSED);
  });

  it('lengths that change from pass to pass', () => {
    const src = `export function f(x: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    // (longer and shorter than the pass before)
    const n = i % 2 === 0 ? i + 1 : x.length - i + 2;
    const row = new Array<number>(n).fill(0);
    for (let j = 0; j < n; j++) row[j] = x[j % x.length] * x[i] + j;
    for (let j = 0; j < n; j++) s += row[j] * row[j] * (i - j + 1);
  }
  return s;
}`;
    expect(adjointOf(src, 'f', [X])).toMatch(REUSED);
  });

  it("the previous pass's array read before the next one is made", () => {
    const src = `export function f(x: number[], m: number[][]): number {
  let cur = new Float64Array(x.length);
  for (let j = 0; j < x.length; j++) cur[j] = x[j];
  let s = 0;
  for (let k = 0; k < m.length; k++) {
    s += cur[0] * cur[k + 1];
    const n = cur.length;
    const old = cur[n - 1];
    cur = new Float64Array(n);
    for (let j = 0; j < n; j++) cur[j] = Math.tanh(m[k][j] * x[j] + old);
  }
  return s + cur[2];
}`;
    expect(adjointOf(src, 'f', [X, M])).toMatch(REUSED);
  });

  it('made in a branch, partly written (the zeros are read)', () => {
    const src = `export function f(x: number[], m: number[][]): number {
  let s = 0;
  let t: number[] = new Array(x.length).fill(0);
  for (let k = 0; k < m.length; k++) {
    if (m[k][0] > 0) {
      t = new Array(x.length).fill(0);
      t[k] = x[k] * m[k][1];
    }
    for (let j = 0; j < t.length; j++) s += (t[j] + x[j]) * (t[j] - 0.5 * x[j]);
  }
  return s;
}`;
    expect(adjointOf(src, 'f', [X, M])).toMatch(REUSED);
  });

  it('an array that is passed, stored or kept keeps a shadow of its own', () => {
    const passed = `function norm2(v: number[]): number {
  let s = 0;
  for (const e of v) s += e * e;
  return s;
}
export function f(x: number[], m: number[][]): number {
  let s = 0;
  for (let k = 0; k < m.length; k++) {
    const d = x.map((v, j) => v * m[k][j]);
    s += Math.sqrt(norm2(d) + 1);
  }
  return s;
}`;
    expect(adjointOf(passed, 'f', [X, M])).not.toMatch(REUSED);
    const kept = `export function f(x: number[], m: number[][]): number {
  const rows: number[][] = [];
  for (let k = 0; k < m.length; k++) {
    const d = new Array<number>(x.length).fill(0);
    for (let j = 0; j < x.length; j++) d[j] = x[j] * m[k][j];
    rows.push(d);
  }
  let s = 0;
  for (const r of rows) s += Math.sin(r[0]) * r[1];
  return s;
}`;
    expect(adjointOf(kept, 'f', [X, M])).not.toMatch(REUSED);
  });
});
