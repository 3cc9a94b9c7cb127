// Arrays kept by pass (src/transform/adjoint/reused-shadows.ts): inside a fused reduction's iteration, a
// counted loop that allocates an array afresh on every pass keeps one array per pass in a list hoisted
// before the fused loop, and the next fused iteration's same pass takes it again (`tape.keptAt` when the
// pass overwrites every element before reading, `tape.zerosAt` otherwise). Each program is checked in
// every mode at a point (divided differences, the dot-product test), with several points so that later
// fused iterations take the arrays earlier ones used; lengths change between points and passes.
import { describe, expect, it } from 'vitest';
import { checkedCode } from './support/checked.js';

const X = [
  [0.3, -0.7, 1.1, 0.45],
  [-0.2, 0.5, 0.8, -1.3],
  [0.9, 0.1, -0.4, 0.25],
];
const M = [
  [0.2, -0.4, 0.9, 0.1],
  [-0.3, 0.8, 0.05, 0.6],
  [0.7, 0.15, -0.5, 0.35],
];

describe('arrays kept by pass in a fused iteration', () => {
  it('a map per component per point, overwritten before read: kept without zeros', () => {
    const src = `export function f(x: number[][], m: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    let s = 0;
    for (let k = 0; k < m.length; k++) {
      const diff = xi.map((v, j) => v - m[k][j]);
      s += diff.reduce((acc, d, j) => acc + Math.sin(d) * d * (j + 1), 0);
    }
    total += Math.log(1 + s * s);
  }
  return total;
}`;
    const code = checkedCode(src, 'f', [X, M]);
    expect(code).toMatch(/\.keptAt\(/);
    expect(code).not.toMatch(/\.giveBack\(/);
  });

  it('partly written (the zeros are read), lengths changing by point and pass: zeroed', () => {
    const src = `export function f(x: number[][], m: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    let s = 0;
    for (let k = 0; k < m.length; k++) {
      const n = 2 + ((i + k) % 3);
      const row = new Array<number>(n).fill(0);
      for (let j = 0; j + 1 < n; j++) row[j] = xi[j] * m[k][j];
      for (let j = 0; j < n; j++) s += (row[j] + 0.5) * (row[j] - xi[j % xi.length]) * (j + 1);
    }
    total += s * s;
  }
  return total;
}`;
    const code = checkedCode(src, 'f', [X, M]);
    expect(code).toMatch(/\.zerosAt\(/);
    expect(code).not.toMatch(/\.keptAt\(/);
  });

  it("a pass reading the previous pass's array before making its own, and its new array's zeros (typed, from pass 1)", () => {
    const src = `export function f(x: number[][], m: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    let cur = new Float64Array(xi.length);
    for (let j = 0; j < xi.length; j++) cur[j] = xi[j];
    let s = 0;
    for (let k = 1; k < m.length; k++) {
      s += cur[0] * cur[k];
      const n = cur.length;
      const old = cur[n - 1];
      cur = new Float64Array(n);
      for (let j = 0; j < n; j++) cur[j] = Math.tanh(m[k][j] * cur[j] + xi[j] + old);
    }
    total += s + cur[2];
  }
  return total;
}`;
    const code = checkedCode(src, 'f', [X, M]);
    // (\`cur[j]\` on the right of the write reads the new array's zero)
    expect(code).toMatch(/\.zerosF64At\(curKept\d*, k - 1, n\)/);
  });

  it('two allocations of one variable in a pass (typed, overwritten): a list each', () => {
    const src = `export function f(x: number[][], m: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    let s = 0;
    for (let k = 0; k < m.length; k++) {
      let d = new Float64Array(xi.length);
      for (let j = 0; j < xi.length; j++) d[j] = xi[j] * m[k][0];
      const a = d[0] * d[1];
      s += a;
      d = new Float64Array(xi.length);
      for (let j = 0; j < xi.length; j++) d[j] = xi[j] + m[k][j] * a;
      s += Math.sin(d[k]) * d[0];
    }
    total += Math.exp(0.1 * s);
  }
  return total;
}`;
    const code = checkedCode(src, 'f', [X, M]);
    expect(code.match(/\.keptF64At\(/g)?.length).toBe(2);
  });

  it('no fused iteration around the loop: arrays go back to the tape as before', () => {
    const src = `export function f(x: number[], m: number[][]): number {
  let s = 0;
  for (let k = 0; k < m.length; k++) {
    const diff = x.map((v, j) => v - m[k][j]);
    s += diff.reduce((acc, d, j) => acc + Math.sin(d) * d * (j + 1), 0);
  }
  return s;
}`;
    const code = checkedCode(src, 'f', [X[0], M]);
    expect(code).not.toMatch(/Kept|keptAt|zerosAt/);
  });
});

describe('static tape of a loop in a fused iteration, sized by the iteration', () => {
  it('log-sum-exp over an array each point makes, of a length that changes by point: a buffer per iteration', () => {
    const src = `export function f(x: number[][], m: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    const n = 1 + (i % m.length);
    const beta = new Array<number>(n).fill(0);
    for (let k = 0; k < n; k++) {
      let s = 0;
      for (let j = 0; j < xi.length; j++) s += Math.sin(xi[j] * m[k][j]);
      beta[k] = s;
    }
    let sum = 0;
    for (let k = 0; k < beta.length; k++) sum += Math.exp(beta[k]);
    total += Math.log(sum);
  }
  return total;
}`;
    const code = checkedCode(src, 'f', [X, M]);
    // (taken inside the fused loop, given back after its reversal there)
    expect(code).toMatch(/fused reduction[^]*const tapeBuf = tape\.bufF\(Math\.max\(0, beta\.length\)\);[^]*tape\.freeF\(tapeBuf\);[^]*for \(let z = 0/);
  });
});

describe('arrays kept by fused iteration', () => {
  it('an array each point makes, partly written, its adjoint left non-zero by the backward half: both zeroed again', () => {
    // (beta[n - 1] is read as zero before it is written: the reads after the write's reversal leave
    // its adjoint non-zero at the end of the iteration)
    const src = `export function f(x: number[][], m: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    const n = m.length;
    const beta = new Array<number>(n).fill(0);
    for (let k = 0; k + 1 < n; k++) {
      let s = 0;
      for (let j = 0; j < xi.length; j++) s += Math.sin(xi[j] * m[k][j]);
      beta[k] = s;
    }
    let q = 1 + beta[n - 1];
    for (let k = 0; k < n; k++) q += beta[k] * beta[k] * (k + 1);
    beta[n - 1] = Math.sin(xi[0] * q);
    total += Math.sqrt(1 + q) + beta[n - 1] * beta[0];
  }
  return total;
}`;
    const code = checkedCode(src, 'f', [X, M]);
    expect(code).toMatch(/beta = tape\.zerosAt\(betaKept, 0, n\);/);
    expect(code).toMatch(/betab = tape\.zerosAt\(betabKept, 0, n\);/);
  });

  it('an array each point makes and fills before reading: kept without zeros, its adjoint zeroed', () => {
    const src = `export function f(x: number[][], m: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    const beta = m.map((mk) => {
      let s = 0;
      for (let j = 0; j < xi.length; j++) s += Math.sin(xi[j] * mk[j]);
      return s;
    });
    const mx = Math.max(...beta);
    total += mx + Math.log(beta.reduce((a, b) => a + Math.exp(b - mx), 0));
  }
  return total;
}`;
    const code = checkedCode(src, 'f', [X, M]);
    expect(code).toMatch(/beta = tape\.keptAt\(betaKept, 0, m\.length\);/);
    expect(code).toMatch(/betab = tape\.zerosAt\(betabKept, 0, m\.length\);/);
  });
});
