// Loop fusion (src/transform/fuse.ts) on lowered functions: which adjacent loops fuse, and that the
// fused function computes the same bits as the original on random inputs.
import { describe, expect, it } from 'vitest';
import { printFunc } from '../src/backend/print.js';
import { lowered } from './support/lowered.js';
import type { Func } from '../src/ir/types.js';
import { fuseLoops, type KnownStorage } from '../src/transform/fuse.js';
import { forwardElements } from '../src/transform/forward-elements.js';

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

  it('moves what it can of a loop into the one before when a reset must stay behind (distribution)', () => {
    // the triangle reads z above the counter: the reset z[j] = 0 may not join it, the rest may
    const src = (last: string, sum: string) => `export function f(x: number[], y: number[]): number {
  const n = x.length;
  const z = new Float64Array(n);
  const w = new Float64Array(n);
  let s = 0;
  for (let j = n - 1; j >= 0; j--) {
    z[j] = x[j] * 2;
    for (let r = j + 1; r < n; r++) s += z[r] * y[j];
  }
  for (let j = n - 1; j >= 0; j--) {
    w[j] += z[j] * y[j];
    z[j] = 0;
    ${last}
  }
  let u = 0;
  for (let j = 0; j < n; j++) u += ${sum};
  return s + u;
}`;
    const r = fused(src('w[j] -= x[j];', 'w[j] + z[j]'));
    expect(r.after).toMatch(/s \+= z\[r\] \* y\[j\];\n {4}\}\n {4}w\[j\] \+= z\[j\] \* y\[j\];\n {4}w\[j\] -= x\[j\];/);
    expect(r.after).toMatch(/for \(let (j\d*) = n - 1; \1 >= 0; \1--\) \{\n\s*z\[\1\] = 0;\n\s*\}/);
    // a statement after the reset that reads what the reset writes stays behind with it
    const chained = fused(src('w[j] -= z[j] + x[j];', 'w[j]'));
    expect(chained.after).toMatch(/z\[(j\d*)\] = 0;\n {4}w\[\1\] -= z\[\1\] \+ x\[\1\];/);
  });

  it('fuses increments of arrays that may be one (they commute), never a read beside a write', () => {
    const src = (second: string) => `interface Acc { a: number[]; b: number[] }
export function f(o: Acc, x: number[]): number {
  const n = x.length;
  let s = 0;
  for (let j = 0; j < n; j++) o.a[j] += j * 0.5;
  for (let j = 0; j < n; j++) ${second};
  return s;
}`;
    // runs `h` on copies of o's arrays, one array when o.a is o.b
    const run = (h: Func, o: { a: number[]; b: number[] }) => {
      const a = [...o.a];
      const oo = { a, b: o.b === o.a ? a : [...o.b] };
      return { v: load(h)(oo, x) as number, a: oo.a, b: oo.b };
    };
    const x = [0.5, -1.25, 2, 3.5];
    for (const [second, fusedExpected] of [
      // (x[j] in the addend would keep them apart: x may be o.a)
      ['o.b[j] -= 3 * j', true],
      ['s += o.b[(j + 1) % n] * 2', false],
      ['o.b[j] = o.b[j] * 2', false],
    ] as const) {
      const f = lowered(src(second));
      const g = { ...f, body: fuseLoops(f.body, () => null) };
      expect(loops(printFunc(g)), second).toBe(fusedExpected ? 1 : 2);
      // the same values when o.a and o.b are one array, and when they are two
      for (const shared of [true, false]) {
        const o = { a: [1, 2, 3, 4], b: [1, 2, 3, 4] };
        if (shared) o.b = o.a;
        const before = run(f, o);
        const after = run(g, o);
        expect(after.v).toBeCloseTo(before.v, 12);
        after.a.forEach((v, i) => expect(v).toBeCloseTo(before.a[i], 12));
        after.b.forEach((v, i) => expect(v).toBeCloseTo(before.b[i], 12));
      }
    }
  });

  it('holds an element read and written several times in one iteration in a local', () => {
    const f = lowered(`export function f(x: number[], y: number[]): number {
  const n = x.length;
  const a = new Float64Array(n);
  const b = new Float64Array(n);
  let s = 0;
  for (let j = 0; j < n; j++) {
    a[j] = x[j] * 2;
    a[j] += y[j];
    b[j] = a[j] * a[j];
    s += b[j] - y[j] * x[j];
    a[j] = 0;
  }
  return s + a[0] + b[n - 1];
}`);
    const g = { ...f, body: forwardElements(f.body, () => null, (base) => `${base}0`) };
    const after = printFunc(g);
    // a: set once, then only the local; its last store stays; b: stored once, read from the local
    expect(after).toMatch(/let a_elem0 = x\[j\] \* 2;\n\s*a_elem0 \+= y\[j\];\n\s*const b_elem0 = a_elem0 \* a_elem0;\n\s*s \+= b_elem0 - y\[j\] \* x\[j\];\n\s*b\[j\] = b_elem0;/);
    expect(after).toMatch(/a\[j\] = 0;/);
    for (const n of [1, 3, 6]) {
      const x = Array.from({ length: n }, (_, i) => Math.sin(i + 1));
      const y = Array.from({ length: n }, (_, i) => Math.cos(i + 2));
      expect(load(g)(x, y)).toBe(load(f)(x, y));
    }
    // an array that may be another one written in between is left in memory
    const shared = lowered(`export function f(x: number[], y: number[]): number {
  const n = x.length;
  let s = 0;
  for (let j = 0; j < n; j++) {
    x[j] += 1;
    y[j] = 0;
    s += x[j];
  }
  return s;
}`);
    expect(printFunc({ ...shared, body: forwardElements(shared.body, () => null, (b) => `${b}0`) })).not.toMatch(/_elem/);
  });
});
