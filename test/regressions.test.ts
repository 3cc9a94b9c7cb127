// Regressions: each test is a bug found and fixed, with its smallest reproduction.
import { it, expect } from 'vitest';
import { compile } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
it('lit arg', () => {
  const r = compile(`export function g(p: number[]): number { return p[0] * p[1]; }
export function f(x: number): number { return g([x, 3]); }`, { head: 'f', js: true, runtimeImport: null });
  const m = loadGenerated(r.code);
  expect(m.f_d(2, 1)).toEqual([6, 3]);
  expect(m.f_b(2, 1)).toEqual(3);
});
it('name clash', () => {
  const r = compile(`export function f(x: number): number { return x * x; }
export function f_d(x: number): number { return 3 * x; }
export function g(x: number): number { return f(x) + f_d(x); }`, { head: 'g', js: true, runtimeImport: null });
  const m = loadGenerated(r.code);
  expect(m.g(2)).toBe(10);
  expect(m.g_d(2, 1)).toEqual([10, 7]);
  expect(m.g_b(2, 1)).toBe(7);
});

it('distinct array arguments that alias are rejected with a clear error', async () => {
  const { grad } = await import('../src/api/runtime.js');
  const { assertNoAliasing } = await import('../src/api/values.js');
  const f = (a: number[], b: number[]) => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * b[i]; return s; };
  const x = [1, 2, 3];
  expect(() => grad(f, { wrt: [0, 1] })(x, x)).toThrow(/share memory/);
  const buf = new Float64Array(10);
  expect(() => assertNoAliasing([buf.subarray(0, 5), buf.subarray(4, 9)], ['u', 'v'])).toThrow(/'u' and 'v' share memory/);
  expect(() => assertNoAliasing([buf.subarray(0, 5), buf.subarray(5, 10)], ['u', 'v'])).not.toThrow();
});

it('a primal that throws leaves no state behind: the next adjoint run is clean', async () => {
  const { Tape } = await import('../src/runtime/tape.js');
  const r = compile(`export function f(x: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += x[i] * x[i];
    if (s > 100) throw new Error('too big');
  }
  return s;
}`, { head: 'f', js: true, runtimeImport: null });
  const m = loadGenerated(r.code);
  expect(() => m.f_b([20, 1], [0, 0], 1)).toThrow(/too big/);
  const xb = [0, 0];
  m.f_b([1, 2], xb, 1);
  expect(xb).toEqual([2, 4]);
  const t = Tape.acquire();
  expect(t.empty).toBe(true);
  Tape.release(t);
});

// Recomputation (issue "Lean adjoints"): `const row = m[i]` at the top of a counted loop is evaluated
// again in each reversed iteration instead of being pushed; the naive model records it.
it('loop-local constants from the index are recomputed, not recorded', () => {
  const src = `export function f(m: number[][], w: number[]): number {
  let s = 0;
  for (let i = 0; i < m.length; i++) {
    const row = m[i];
    const wi = w[i];
    s += Math.sin(row[0] * wi) * row[1];
  }
  return s;
}`;
  const lean = compile(src, { head: 'f', wrt: ['m', 'w'], js: true, runtimeImport: null, modes: ['reverse'] });
  const naive = compile(src, { head: 'f', wrt: ['m', 'w'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, recompute: false } });
  expect(lean.code).not.toMatch(/pushR\(row\)/);
  expect(lean.code).toMatch(/row = m\[i\];[\s\S]*rowb = mb\[i\];/);
  expect(naive.code).toMatch(/pushR\(row\)/);
  const m = [[0.5, 2], [1.5, -1], [0.25, 3]];
  const w = [0.3, -0.7, 1.1];
  const run = (code: string) => {
    const mb = m.map((r) => r.map(() => 0));
    const wb = w.map(() => 0);
    loadGenerated(code).f_b(m, mb, w, wb, 1);
    return [mb, wb];
  };
  expect(run(lean.code)).toEqual(run(naive.code));
});

// Loop-invariant loads are hoisted only from arrays certainly assigned before the loop: the loop may
// run zero times, and a load from an unassigned array would throw where the loop does not.
it('no invariant load is hoisted from an array that may be unassigned', () => {
  const src = `export function f(m: number[][], x: number, n: number): number {
  let row!: number[];
  if (n > 0) row = m[0];
  let s = 0;
  for (let i = 0; i < n; i++) s += row[0] * x * i;
  return s;
}
export function g(m: number[][], x: number[], out: number[]): void {
  const row = m[0];
  for (let i = 0; i < x.length; i++) {
    const tmp = new Float64Array(1);
    tmp[0] = row[1] * x[i];
    out[i] = tmp[0];
  }
}`;
  const r = compile(src, { head: 'f', wrt: ['x'], js: true, runtimeImport: null, modes: ['tangent'] });
  expect(loadGenerated(r.code).f_d([[2]], 3, 1, 0)).toEqual([0, 0]);
  expect(loadGenerated(r.code).f_d([[2]], 3, 1, 3)).toEqual([18, 6]);
});

it("a copy's adjoint flows back into its source (slice, Float64Array.from)", () => {
  const src = `export function f(a0: number[], b0: Float64Array): number {
  const a = a0.slice();
  const b = Float64Array.from(b0);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i] * b[i];
  return s;
}`;
  const m = loadGenerated(compile(src, { head: 'f', js: true, runtimeImport: null }).code);
  const a0b = [0, 0];
  const b0b = new Float64Array(2);
  m.f_b([1, 2], a0b, new Float64Array([3, 4]), b0b, 1);
  expect(a0b).toEqual([6, 16]);
  expect([...b0b]).toEqual([1, 4]);
});
