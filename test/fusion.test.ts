// Loop fusion (src/transform/fuse.ts) on lowered functions: which adjacent loops fuse, and that the
// fused function computes the same bits as the original on random inputs.
import { describe, expect, it } from 'vitest';
import { printFunc } from '../src/backend/print.js';
import { lowered } from './support/lowered.js';
import type { Func } from '../src/ir/types.js';
import { fuseLoops, type KnownStorage } from '../src/transform/fuse.js';

function load(f: Func): (...args: unknown[]) => unknown {
  const js = printFunc(f, { js: true }).replace(/^export /m, '');
  return new Function(`${js}\nreturn f;`)() as (...args: unknown[]) => unknown;
}

const loops = (code: string) => (code.match(/\bfor \(/g) ?? []).length;

/** fuses `src`'s f, checks it against the original on random arrays, returns both printed */
function fused(src: string, storage: KnownStorage = () => null) {
  const f = lowered(src);
  const g = { ...f, body: fuseLoops(f.body, storage) };
  const [run0, run1] = [load(f), load(g)];
  let seed = 7;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
  for (let trial = 0; trial < 5; trial++) {
    const n = 1 + trial * 2;
    const args = () => [Array.from({ length: n }, rnd), Array.from({ length: n }, rnd)];
    const a = args();
    const b = a.map((x) => [...x]);
    const r0 = run0(...a);
    const r1 = run1(...b);
    expect(r1).toEqual(r0);
    expect(b).toEqual(a);
  }
  return { before: printFunc(f), after: printFunc(g) };
}

describe('loop fusion', () => {
  it('fuses loops whose iterations touch the same element, and not a later one', () => {
    const same = fused(`export function f(x: number[], y: number[]): number {
  const n = x.length;
  const a = new Float64Array(n);
  const b = new Float64Array(n);
  let s = 0;
  for (let j = 0; j < n; j++) a[j] = x[j] * 2;
  for (let k = 0; k < n; k++) b[k] = a[k] + y[k];
  for (let j = 0; j < n; j++) s += b[j] * a[j];
  return s;
}`);
    // the sum reads what the loops before wrote at the same index: all three fuse
    expect(loops(same.before)).toBe(3);
    expect(loops(same.after)).toBe(1);
    const ahead = fused(`export function f(x: number[], y: number[]): number {
  const n = x.length;
  const a = new Float64Array(n + 1);
  let s = 0;
  for (let j = 0; j < n; j++) a[j] = x[j] * 2;
  for (let j = 0; j < n; j++) s += a[j + 1] * y[j];
  return s;
}`);
    expect(loops(ahead.after)).toBe(2);
  });

  it('going down, an element above the counter was made by an earlier iteration; going up it was not', () => {
    const triangle = (dir: 'up' | 'down') => `export function f(x: number[], l: number[]): number {
  const d = x.length;
  const q = new Float64Array(d);
  const p = new Float64Array(d);
  let t = 0;
  let j = 0;
  let c = 0;
  let r = 0;
  ${dir === 'down' ? 'for (j = d - 1; j >= 0; j--)' : 'for (j = 0; j < d; j++)'} q[j] = x[j] * x[j];
  ${dir === 'down' ? 'for (c = d - 1; c >= 0; c--)' : 'for (c = 0; c < d; c++)'} {
    let acc = 0;
    for (r = d - 1; r >= c + 1; r--) {
      acc += l[t % l.length] * q[r];
      t++;
    }
    p[c] = acc;
  }
  let s = 0;
  for (j = 0; j < d; j++) s += p[j];
  return s + t + c + r;
}`;
    expect(loops(fused(triangle('up')).after)).toBe(4);
    expect(loops(fused(triangle('down')).after)).toBe(4);
    // (the counter c is read after its loop: renaming it away would change the result)
    const dead = (dir: 'up' | 'down') => triangle(dir).replace('return s + t + c + r;', 'return s + t;');
    expect(loops(fused(dead('up')).after)).toBe(4);
    expect(loops(fused(dead('down')).after)).toBe(3);
  });

  it('keeps loops apart that share a scalar, differ in range, or write arrays that may alias', () => {
    const scalar = fused(`export function f(x: number[], y: number[]): number {
  const n = x.length;
  const b = new Float64Array(n);
  let s = 0;
  for (let j = 0; j < n; j++) s += x[j];
  for (let j = 0; j < n; j++) b[j] = x[j] / (1 + s * s);
  return b[0] + s;
}`);
    expect(loops(scalar.after)).toBe(2);
    const range = fused(`export function f(x: number[], y: number[]): number {
  const n = x.length;
  const a = new Float64Array(n);
  for (let j = 0; j < n; j++) a[j] = x[j];
  for (let j = 0; j < n - 1; j++) a[j] += y[j];
  return a[n - 1] + a[0];
}`);
    expect(loops(range.after)).toBe(2);
    const params = `export function f(x: number[], y: number[]): number {
  const n = x.length;
  let s = 0;
  for (let j = 0; j < n; j++) x[j] = x[j] * 2;
  for (let j = 0; j < n; j++) s += y[(j + 1) % n];
  return s;
}`;
    // x and y may be one array unless the compiler knows their storage apart (the adjoint's does)
    expect(loops(fused(params).after)).toBe(2);
    expect(loops(fused(params, (n) => n).after)).toBe(1);
  });

  it('never lets a name one body declares capture a read of the same name in the other', () => {
    const r = fused(`export function f(x: number[], y: number[]): number {
  const n = x.length;
  const a = new Float64Array(n);
  let e = 2;
  for (let j = 0; j < n; j++) {
    const e = x[j] * 3;
    a[j] = e;
  }
  for (let j = 0; j < n; j++) a[j] += e * y[j];
  return a[0] + a[n - 1] + e;
}`);
    expect(r.after).toMatch(/\+= e\d* \* y\[j\]/);
  });

  it('keeps loops apart when one changes an array through a method (push) the index analysis cannot see', () => {
    // (fuzz seed 8080 found the adjoint's forward sweep reading M0[1] before the push that makes it)
    const r = fused(`export function f(x: number[], y: number[]): number {
  const M0: number[][] = [];
  let s = 0;
  for (let j = 0; j < 2; j++) M0.push([x[j], y[j]]);
  for (let i = 0; i < 2; i++) s += M0[1][0] * y[i];
  return s;
}`);
    expect(loops(r.after)).toBe(2);
  });

  it('treats a field as an element of unknown place', () => {
    const r = fused(`interface P { v: number }
export function f(x: number[], y: number[]): number {
  const p: P = { v: 0 };
  const n = x.length;
  let s = 0;
  for (let j = 0; j < n; j++) p.v = p.v + x[j];
  for (let j = 0; j < n; j++) s += p.v * y[j];
  return s;
}`);
    expect(loops(r.after)).toBe(2);
  });
});
