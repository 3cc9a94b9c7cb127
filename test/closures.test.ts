// Closures and functions as values (src/frontend/closures.ts): the primal tsad generates computes
// exactly what JavaScript computes — captured variables shared by reference and read at call time,
// parameters copied when the body reassigns what they were given, hoisted declarations, early returns
// from loops, writes into captured arrays, arguments evaluated in order, helpers specialised per
// function passed — and every mode agrees with divided differences on them.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { checkCompiled, compile, loadGenerated } from '../src/index.js';

type Fn = (...args: unknown[]) => unknown;
const original = (src: string): Fn =>
  new Function(`${ts.transpileModule(src, { compilerOptions: { target: ts.ScriptTarget.ES2020 } }).outputText.replace(/^export /gm, '')}\nreturn f;`)() as Fn;

function generated(src: string): { f: Fn; code: string } {
  const r = compile(src, { head: 'f', js: true, runtimeImport: null });
  if (r.diagnostics.length) throw new Error(r.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`).join('\n'));
  return { f: loadGenerated(r.code, r.runtimeNames).f as Fn, code: r.code };
}

const CASES: { name: string; src: string; args: unknown[][] }[] = [
  {
    name: 'a closure sees the current value of what it captures, not the value at its creation',
    src: `export function f(x: number): number {
  let k = 1;
  const g = (v: number) => v * k;
  const a = g(x);
  k = 3;
  return a + g(x);
}`,
    args: [[2], [-0.5]],
  },
  {
    name: 'a parameter keeps its argument when the body reassigns the variable passed',
    src: `export function f(x: number): number {
  let t = x;
  const bump = (a: number) => { t = t * 2; return a + t; };
  const r = bump(t);
  return r * 10 + t;
}`,
    args: [[1], [0.25]],
  },
  {
    name: 'writes of enclosing variables and of captured arrays happen where the calls are',
    src: `export function f(xs: number[]): number[] {
  let total = 0;
  const acc = [0, 0];
  const add = (v: number, i: number) => { total += v * v; acc[i % 2] += total; };
  for (let i = 0; i < xs.length; i++) add(xs[i], i);
  add(total, 1);
  return [total, acc[0], acc[1]];
}`,
    args: [[[1, 2, 3]], [[]], [[0.5]]],
  },
  {
    name: 'a hoisted nested function with early returns from a loop',
    src: `export function f(xs: number[], lim: number): number {
  const a = first(xs) + first([lim, 1, 2]);
  function first(v: number[]): number {
    let s = 0;
    for (let j = 0; j < v.length; j++) {
      if (s > lim) return s * 10;
      if (v[j] < 0) continue;
      s += v[j];
    }
    return -s;
  }
  return a;
}`,
    args: [[[1, 2, 3], 2.5], [[-1, -2], 0], [[5], 1]],
  },
  {
    name: 'arguments are evaluated in order before the body, increments included',
    src: `export function f(x: number): number {
  let i = 1;
  const g = (a: number, b: number) => a * 10 + b + i;
  const r = g(i++, i++);
  return r + g(x, i);
}`,
    args: [[0.5]],
  },
  {
    name: 'closures calling closures, in a branch as pure expressions',
    src: `export function f(x: number, c: boolean): number {
  const sq = (v: number) => v * v;
  const quad = (v: number) => sq(sq(v));
  return c ? quad(x - 1) : sq(Math.sqrt(Math.abs(x)));
}`,
    args: [[2, true], [-3, false]],
  },
  {
    name: 'helpers specialised for a top-level function, a local closure and an arrow',
    src: `function twice(g: (v: number) => number, v: number): number { return g(g(v)); }
function inc(v: number): number { return v + 1; }
export function f(x: number, k: number): number {
  const scale = (v: number) => v * k;
  return twice(inc, x) + twice(scale, x) + twice((v) => v - k * x, 1);
}`,
    args: [[2, 3], [-1, 0.5]],
  },
  {
    name: 'a function passed on from one specialised helper to another',
    src: `function step(rhs: (y: number[]) => number[], y: number[], h: number): number[] {
  const d = rhs(y);
  return y.map((v, i) => v + h * d[i]);
}
function run(rhs: (y: number[]) => number[], y0: number[], n: number): number[] {
  let y = y0.slice();
  for (let s = 0; s < n; s++) y = step(rhs, y, 0.1);
  return y;
}
export function f(y0: number[], k: number): number[] {
  const rhs = (y: number[]): number[] => [y[1], -k * y[0]];
  return run(rhs, y0, 5);
}`,
    args: [[[1, 0], 2]],
  },
];

describe('closures: the generated primal computes what JavaScript computes', () => {
  for (const c of CASES)
    it(c.name, () => {
      const js = original(c.src);
      const { f } = generated(c.src);
      for (const a of c.args) expect(f(...structuredClone(a))).toEqual(js(...structuredClone(a)));
    });

  it('names specialised copies after the function passed (rk4__rhs, twice__lambda), deterministically', () => {
    const src = CASES[6].src;
    const a = generated(src).code;
    expect(a).toMatch(/function twice__inc\(/);
    expect(a).toMatch(/function twice__scale\(v, k\)/);
    expect(a).toMatch(/function twice__lambda\(v, k, x\)/);
    expect(generated(src).code).toBe(a);
  });

  it('an argument read after a call in the body that may change it is not substituted (refused in a branch, not wrong)', () => {
    const src = `function bump(a: number[]): number { a[0] += 1; return 0; }
export function f(xs: number[], c: boolean): number {
  const g = (v: number) => bump(xs) + v;
  return c ? g(xs[0]) : 0;
}`;
    const r = compile(src, { head: 'f', js: true, runtimeImport: null });
    expect(r.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/the local function 'g' is called in a branch/)]);
    // outside a branch, the argument is read once, before the body, as JavaScript does
    const ok = src.replace('return c ? g(xs[0]) : 0;', 'const r = g(xs[0]);\n  return c ? r : 0;');
    expect(generated(ok).f([1, 2], true)).toBe(original(ok)([1, 2], true));
  });

  it('every mode agrees with divided differences', () => {
    const cases: [string, unknown[]][] = [
      [CASES[2].src.replace('number[] {', 'number {').replace('return [total, acc[0], acc[1]];', 'return total + acc[0] * acc[1];'), [[0.5, -1, 2]]],
      [CASES[3].src, [[1, 2, 3], 7]],
      [CASES[6].src, [0.7, 1.3]],
      [CASES[7].src.replace('number[] {\n  const rhs', 'number {\n  const rhs').replace('return run(rhs, y0, 5);', 'return run(rhs, y0, 5)[0];'), [[1, 0.5], 2]],
    ];
    for (const [src, args] of cases) {
      const r = compile(src, { head: 'f', js: true, runtimeImport: null });
      expect(r.diagnostics).toEqual([]);
      const rep = checkCompiled(r, r.code, 'f', args);
      expect(rep.ok, JSON.stringify(rep)).toBe(true);
    }
  });
});
