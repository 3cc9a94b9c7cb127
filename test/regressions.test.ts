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
