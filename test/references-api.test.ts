// The reference model through the runtime API and the CLI (the corpus covers compile() in every mode):
// plain JavaScript functions that rebind arrays and objects to literals built from their old values,
// swap rows by reference (pivoting), store rows, alias, and write into an argument they return. Each
// gradient is compared with central divided differences computed here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { grad } from '../src/index.js';

type Mat = number[][];

/** ∂f/∂(first argument), flattened, by central differences on copies */
function dd(f: (...a: any[]) => number, args: unknown[], h = 1e-6): number[] {
  const copy = (): unknown[] => JSON.parse(JSON.stringify(args));
  const count = (v: unknown): number => (Array.isArray(v) ? v.reduce((n: number, x) => n + count(x), 0) : 1);
  const out: number[] = [];
  for (let k = 0; k < count(args[0]); k++) {
    const at = (d: number) => {
      const a = copy();
      if (!Array.isArray(a[0])) a[0] = (a[0] as number) + d;
      else {
        let i = 0;
        const walk = (v: unknown[]): void => {
          for (let j = 0; j < v.length; j++) {
            if (Array.isArray(v[j])) walk(v[j] as unknown[]);
            else if (i++ === k) v[j] = (v[j] as number) + d;
          }
        };
        walk(a[0] as unknown[]);
      }
      return f(...a);
    };
    out.push((at(h) - at(-h)) / (2 * h));
  }
  return out;
}

function expectClose(got: unknown, want: number[]): void {
  const g = [got].flat(3) as number[];
  expect(g.length).toBe(want.length);
  g.forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThan(1e-6 * Math.max(1, Math.abs(want[i]))));
}

function integrator(a: number[]) {
  let s = [a[0], a[1]];
  for (let i = 0; i < 3; i++) s = [s[0] + 0.1 * s[1], s[1] - 0.1 * Math.sin(s[0])];
  return s[0] * s[1];
}

function oscillator(p: number) {
  let st = { pos: p, vel: 0.3 };
  for (let k = 0; k < 4; k++) st = { pos: st.pos + 0.1 * st.vel, vel: st.vel - 0.1 * st.pos };
  return st.pos * st.vel;
}

function determinant(A0: Mat) {
  const n = A0.length;
  const A = [A0[0].slice(), A0[1].slice(), A0[2].slice(), A0[3].slice()];
  let det = 1;
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let r = k + 1; r < n; r++) if (Math.abs(A[r][k]) > Math.abs(A[p][k])) p = r;
    if (p !== k) {
      const t = A[k];
      A[k] = A[p];
      A[p] = t;
      det = -det;
    }
    det *= A[k][k];
    for (let r = k + 1; r < n; r++) {
      const f = A[r][k] / A[k][k];
      for (let j = k; j < n; j++) A[r][j] -= f * A[k][j];
    }
  }
  return det;
}

function rowStore(M: Mat) {
  const B = [M[0].slice(), M[1].slice(), M[2].slice()];
  B[0] = B[1];
  B[0][0] = B[0][0] * 3;
  return B[0][0] + B[1][0] + B[1][1] * B[2][1];
}

const A4: Mat = [
  [0.2, -0.7, 0.4, 0.1],
  [0.9, 0.3, -0.2, 0.5],
  [-0.4, 0.8, 0.6, -0.3],
  [0.1, -0.5, 0.7, 0.9],
];

describe('reference semantics through the runtime API', () => {
  it('an array rebound to a literal of its old value in a loop', () => {
    expectClose(grad(integrator)([0.3, 0.7]), dd(integrator, [[0.3, 0.7]]));
  });
  it('an object rebound to a literal of its old value', () => {
    expectClose(grad(oscillator)(0.4), dd(oscillator, [0.4]));
  });
  it('a determinant by LU with partial pivoting (rows swapped by reference)', () => {
    expectClose(grad(determinant)(A4), dd(determinant, [A4]));
  });
  it('a row stored into another row slot', () => {
    const M = [[0.5, -0.2], [0.3, 0.8], [-0.6, 0.4]];
    expectClose(grad(rowStore)(M), dd(rowStore, [M]));
  });
});

describe('reference semantics through the CLI', () => {
  it('a pivoting determinant passes --check in every mode', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsad-ref-'));
    const file = join(dir, 'lu.ts');
    writeFileSync(file, `${LU_SOURCE}\n`);
    const out = execFileSync(process.execPath, [join(import.meta.dirname, '..', 'dist', 'src', 'cli', 'main.js'), file, '--head', 'determinant', '--check', '--input', writeInput(dir)], { encoding: 'utf8' });
    expect(out).toContain('check passed');
  }, 120_000);
});

function writeInput(dir: string): string {
  const p = join(dir, 'point.json');
  writeFileSync(p, JSON.stringify([A4]));
  return p;
}

const LU_SOURCE = `
function copyRows(A: number[][]): number[][] {
  const B: number[][] = [];
  for (let i = 0; i < A.length; i++) B.push(A[i].slice());
  return B;
}
export function determinant(A0: number[][]): number {
  const n = A0.length;
  const A = copyRows(A0);
  let det = 1;
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let r = k + 1; r < n; r++) if (Math.abs(A[r][k]) > Math.abs(A[p][k])) p = r;
    const t = A[k];
    A[k] = A[p];
    A[p] = t;
    if (p !== k) det = -det;
    det *= A[k][k];
    for (let r = k + 1; r < n; r++) {
      const f = A[r][k] / A[k][k];
      for (let j = k; j < n; j++) A[r][j] -= f * A[k][j];
    }
  }
  return det;
}`;
