// Array methods with callbacks (src/frontend/callbacks.ts): the lowered loops compute exactly what
// JavaScript computes — thrown errors, truthiness, iteration order, the length read once, closures
// reading the current values of what they capture — and a chain of methods becomes one loop.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { printFunc } from '../src/backend/print.js';
import { lowered } from './support/lowered.js';

type Fn = (...args: unknown[]) => unknown;
const printed = (src: string) => printFunc(lowered(src), { js: true }).replace(/^export /m, '');
const asFunction = (js: string): Fn => new Function(`${js}\nreturn f;`)() as Fn;
const original = (src: string): Fn => asFunction(ts.transpileModule(src, { compilerOptions: { target: ts.ScriptTarget.ES2020 } }).outputText.replace(/^export /gm, ''));

/** the outcome of a call: its value (and the arguments after it), or the error it throws */
function outcome(f: Fn, args: unknown[]): unknown {
  const a = structuredClone(args);
  try {
    return { value: f(...a), args: a };
  } catch (e) {
    return { threw: (e as Error).constructor.name, message: (e as Error).message };
  }
}

const CASES: { name: string; src: string; args: unknown[][] }[] = [
  {
    name: 'reduce without an initial value: the first element starts, an empty array throws TypeError',
    src: `export function f(xs: number[]): number { return xs.reduce((a, v) => a * 0.5 + v); }`,
    args: [[[1, 2, 3]], [[4]], [[]]],
  },
  {
    name: 'reduce with an initial value on an empty array',
    src: `export function f(xs: number[]): number { return xs.reduce((a, v, i) => a + v * i, 7); }`,
    args: [[[]], [[1, -2, 3]]],
  },
  {
    name: 'reduceRight runs from the end, with and without an initial value',
    src: `export function f(xs: number[]): number { return xs.reduceRight((s, v, i) => s * 0.5 + v * (i + 1), 0) + xs.reduceRight((s, v) => s - v); }`,
    args: [[[1, 2, 3, 4]], [[2]], [[]]],
  },
  {
    name: 'predicates test truthiness: 0, -0 and NaN are false',
    src: `export function f(xs: number[]): number[] {
  const kept = xs.filter((v) => v - 1);
  return [kept.length, xs.some((v) => v - v) ? 1 : 0, xs.every((v) => v) ? 1 : 0, xs.findIndex((v) => v * 0)];
}`,
    args: [[[1, NaN, 0, 2, -0]], [[3, 4]], [[]]],
  },
  {
    name: 'some, every, find and findIndex on an empty array and with no match',
    src: `export function f(xs: number[]): number[] {
  return [xs.some((v) => v > 10) ? 1 : 0, xs.every((v) => v > 10) ? 1 : 0, xs.find((v) => v > 10) ?? -1, xs.findIndex((v) => v > 10)];
}`,
    args: [[[]], [[1, 2]], [[1, 20, 30]]],
  },
  {
    name: 'the length is read once: a callback pushing onto the array it iterates',
    src: `export function f(xs: number[]): number[] {
  const out = xs.slice();
  out.forEach((v) => { out.push(v * 2); });
  return out;
}`,
    args: [[[1, 2, 3]]],
  },
  {
    name: 'map with the index and the array',
    src: `export function f(xs: number[]): number[] { return xs.map((v, i, a) => v + a[(i + 1) % a.length] * i); }`,
    args: [[[1, 2, 3, 4]]],
  },
  {
    name: 'a callback writing an enclosing variable, read after',
    src: `export function f(xs: number[]): number[] {
  let s = 0;
  const ys = xs.map((v) => { s += v; return s; });
  return ys.map((y) => y * s);
}`,
    args: [[[1, 2, 3]]],
  },
  {
    name: 'a local arrow function reads the current value of what it captures',
    src: `export function f(xs: number[]): number[] {
  let w = 1;
  const scaled = (v: number) => v * w;
  const a = xs.map(scaled);
  w = 3;
  const b = xs.map(scaled);
  return a.concat(b);
}`,
    args: [[[1, -2]]],
  },
  {
    name: 'an assignment before the method in the same expression runs first',
    src: `export function f(xs: number[]): number {
  let k = 1;
  const t = (k = 2) + xs.reduce((s, v) => s + v * k, 0);
  return t * k;
}`,
    args: [[[1, 2, 3]]],
  },
  {
    name: 'callbacks with several returns, and a predicate falling off its end (undefined)',
    src: `export function f(xs: number[]): number[] {
  const clipped = xs.reduce((s, v) => {
    if (v > 2) return s + 2;
    if (v < -2) return s - 2;
    return s + v;
  }, 0);
  const n = xs.filter((v) => {
    for (let k = 0; k < 3; k++) if (v === k) return true;
  }).length;
  return [clipped, n];
}`,
    args: [[[1, 5, -7, 0, 2]]],
  },
  {
    name: 'flatMap flattens arrays one level and pushes numbers',
    src: `export function f(xs: number[]): number[] {
  const a = xs.flatMap((v) => (v > 0 ? [v, v] : [-v]));
  const b = xs.flatMap((v) => v * 2);
  return a.concat(b);
}`,
    args: [[[1, -2, 3]]],
  },
  {
    name: 'typed arrays: map and filter give Float64Arrays',
    src: `export function f(xs: Float64Array): Float64Array {
  const ys = xs.map((v) => v * 2);
  return ys.filter((v) => v > 1);
}`,
    args: [[new Float64Array([0.25, 1, 3])]],
  },
  {
    name: 'Array.from over an array with a mapping function, nested callbacks over rows',
    src: `export function f(m: number[][]): number[] {
  const sums = m.map((row) => row.reduce((s, x) => s + x, 0));
  return Array.from(sums, (s, i) => s * (i + 1));
}`,
    args: [[[[1, 2], [3, 4], [5, 6]]]],
  },
  {
    name: 'a fused chain: filter, map, reduce',
    src: `export function f(xs: number[]): number { return xs.filter((v) => v > 0).map((v) => v * v).reduce((s, v) => s + v, 0.5); }`,
    args: [[[1, -2, 3]], [[]]],
  },
];

describe('array methods with callbacks compute what JavaScript computes', () => {
  for (const c of CASES)
    it(c.name, () => {
      const f0 = original(c.src);
      const f1 = asFunction(printed(c.src));
      for (const args of c.args) expect(outcome(f1, args), JSON.stringify(args)).toEqual(outcome(f0, args));
    });
});

describe('a chain of methods is one loop, with no intermediate array', () => {
  const loops = (js: string) => (js.match(/\bfor \(/g) ?? []).length;
  const allocations = (js: string) => (js.match(/new (Float64)?Array|= \[\]/g) ?? []).length;
  it('map then reduce', () => {
    const js = printed(`export function f(xs: number[], w: number): number { return xs.map((v) => v * w).reduce((s, y) => s + y * y, 0); }`);
    expect(loops(js)).toBe(1);
    expect(allocations(js)).toBe(0);
  });
  it('map after map after filter, into a new array', () => {
    const js = printed(`export function f(xs: number[]): number[] { return xs.filter((v) => v > 0).map((v) => v + 1).map((u) => Math.log(u)); }`);
    expect(loops(js)).toBe(1);
    expect(allocations(js)).toBe(1); // the result itself
  });
  it('a chain whose callback writes a variable keeps its stages apart (JavaScript runs them stage by stage)', () => {
    const src = `export function f(xs: number[]): number {
  let calls = 0;
  const r = xs.map((v) => { calls++; return v * calls; }).reduce((s, y) => s + y * calls, 0);
  return r;
}`;
    expect(loops(printed(src))).toBe(2);
    expect(outcome(asFunction(printed(src)), [[1, 2, 3]])).toEqual(outcome(original(src), [[1, 2, 3]]));
  });
});
