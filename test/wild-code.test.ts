// Numeric JavaScript as public packages write it (test/wild: statistics, ML, numerical methods,
// physics, finance, geometry), and what it needed: optional chaining, `weights || xs.map(…)`, type
// errors held to the function they are in, and --check holding still the whole numbers a function
// indexes with. Programs are checked by checkCompiled (divided differences, dot-product test, vector
// against scalar tangents) at the given point; refusals by line:col and message.
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile } from '../src/api/compile.js';
import { grad } from '../src/index.js';

function checks(src: string | Record<string, string>, head: string, args: unknown[], wrt?: string[]): ReturnType<typeof checkCompiled> {
  const r = compile(src, { head, js: true, runtimeImport: null, ...(wrt ? { wrt } : {}) });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([]);
  const rep = checkCompiled(r, r.code, head, args);
  expect(rep.messages).toEqual([]);
  expect(rep.ok).toBe(true);
  return rep;
}

function refused(src: string, head: string, line: number, col: number, message: RegExp): void {
  const r = compile(src, { head });
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  expect(errors.map((d) => `${d.line}:${d.col} ${d.message}`)).toContainEqual(expect.stringMatching(new RegExp(`^${line}:${col} .*${message.source}`)));
}

describe('optional chaining', () => {
  const src = `interface Cfg { reg?: { l2?: number; w: number[] }; scale?: number }
export function penalty(w: number[], config: Cfg): number {
  const l2 = config.reg?.l2 ?? 0;
  return w[0] * w[0] * (1 + l2) + (config.reg?.w.length ?? 1) * w[1] + (config.reg?.w?.[1] ?? 0.5) * w[1];
}
export function withOpts(w: number[], opts?: { tol?: number; k: number }): number {
  return w[0] * (opts?.k ?? 2) + (opts?.tol ?? 1e-3) * w[1];
}
export function previous(w: number[], prev?: number[]): number {
  const p = prev?.[0];
  const n = prev?.length ?? 0;
  return p === undefined ? w[0] * w[1] : p * w[0] + n * w[1];
}
`;
  it('`o?.f`, `o?.a.b`, `o?.a?.[i]`, `xs?.[0]`, `xs?.length` on values present and absent, in every mode', () => {
    for (const cfg of [{ reg: { l2: 0.3, w: [1, 2] } }, { reg: { w: [4] } }, {}]) checks(src, 'penalty', [[1.5, 2], cfg], ['w']);
    for (const o of [undefined, { k: 3 }, { k: 3, tol: 0.25 }]) checks(src, 'withOpts', o === undefined ? [[1.5, 2]] : [[1.5, 2], o]);
    for (const p of [undefined, [0.7, 2]]) checks(src, 'previous', p === undefined ? [[1.5, 2]] : [[1.5, 2], p]);
  });

  it('the generated code is the conditional, the object read once and narrowed', () => {
    const r = compile(src, { head: 'penalty', wrt: ['w'], modes: ['tangent'] });
    expect(r.code).toMatch(/config\.reg !== undefined \? config\.reg!\.l2 : undefined/);
  });

  it('plain JavaScript through the runtime API: `config.reg?.l2 ?? 0`', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const f = (w: number[], config: any) => w.reduce((s: number, v: number) => s + v * v, 0) * (1 + (config.reg?.l2 ?? 0));
    expect(grad(f)([1, 2], { reg: { l2: 0.5 } })).toEqual([3, 6]);
    expect(grad(f)([1, 2], {})).toEqual([2, 4]);
  });

  it('a call in a chain, `?.` after an element read, and a value that may be false: located refusals saying what to write', () => {
    refused(`export function g(x: number, o?: { f(v: number): number }): number {\n  return o?.f(x) ?? x;\n}\n`, 'g', 2, 10, /a call in an optional chain/);
    refused(`interface P { v: number }\nexport function h(xs: P[], t: number): number {\n  return (xs[0]?.v ?? 0) * t;\n}\n`, 'h', 3, 11, /`\?\.` after `xs\[0\]`, which TypeScript types as always present/);
  });
});

describe('`weights || xs.map(…)`: an array or object defaulted by `||` to one a callback makes', () => {
  const src = `export function weightedMean(xs: number[], weights?: number[]): number {
  const w = weights || xs.map(() => 1);
  let num = 0, den = 0;
  for (let i = 0; i < xs.length; i++) { num += xs[i] * w[i]; den += w[i]; }
  return num / den;
}
export function always(xs: number[], weights: number[]): number {
  const w = weights || xs.map(() => 1);
  return xs[0] * w[0] + xs[1] * w[1];
}
`;
  it('absent, given, and an array that is always there (the right operand never runs)', () => {
    checks(src, 'weightedMean', [[1, 2, 3]]);
    checks(src, 'weightedMean', [[1, 2, 3], [0.5, 1, 2]]);
    checks(src, 'always', [[1, 2], [0.5, 3]]);
  });
});

describe('a type error in a function the head does not reach', () => {
  const src = `/**
 * @param {number[]} series
 * @returns {number}
 */
export function ema(series) {
  let prev;
  for (const v of series) prev = prev === undefined ? v : 0.3 * v + 0.7 * prev;
  return prev;
}
/** @param {number} x */
export function sq(x) { return x * x; }
`;
  it('does not refuse the head (a JSDoc-typed .js file of several functions)', () => {
    checks({ 'stats.js': src }, 'sq', [1.5]);
  });
  it('is reported where the head reaches it', () => {
    const r = compile({ 'stats.js': src + '/** @param {number[]} x */\nexport function both(x) { return ema(x) + sq(x[0]); }\n' }, { head: 'both' });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.col}`)).toContain('7:75');
  });
});

describe('--check with whole numbers the function indexes with among the independents', () => {
  it('holds them still (a field naming an index, a layer size) and checks the rest', () => {
    const src = `interface Mass { x: number; m: number }
interface Spring { a: number; b: number; k: number; rest: number }
export function stretchEnergy(ps: Mass[], springs: Spring[]): number {
  let e = 0;
  for (const { a, b, k, rest } of springs) e += 0.5 * k * (ps[b].x - ps[a].x - rest) ** 2 / ps[b].m;
  return e;
}
`;
    // (ps[1.000001].x throws a TypeError: the four indices are held still, the rest is checked)
    const rep = checks(src, 'stretchEnergy', [[{ x: 0.1, m: 1.5 }, { x: 1.2, m: 2.5 }, { x: 2.5, m: 0.5 }], [{ a: 0, b: 1, k: 3.5, rest: 0.9 }, { a: 1, b: 2, k: 2.5, rest: 1.1 }]]);
    expect(rep.heldStill).toBe(4);
    expect(rep.ok).toBe(true);
  });
});

describe('an array method on a value of no type (a local arrow\'s parameter in plain JavaScript)', () => {
  it('says which name has no type and how to give it one', () => {
    const src = `/** @param {number[][]} ps @param {number[]} c */
export function inertia(ps, c) {
  const d2 = (a, b) => a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0);
  let s = 0;
  for (const p of ps) s += d2(p, c);
  return s;
}
`;
    const r = compile({ 'k.js': src }, { head: 'inertia' });
    const e = r.diagnostics.filter((d) => d.severity === 'error');
    expect(e.map((d) => `${d.line}:${d.col} ${d.message}`)).toContainEqual(expect.stringMatching(/^3:24 'a' has no type here \(type 'any'\)/));
    expect(e[0].hint).toMatch(/@param \{number\[\]\} a/);
  });
});

describe('a JSDoc optional parameter (`@param {number} [h]`)', () => {
  it('is optional as `h?: number` is: in the generated signature, and left out of a check', () => {
    const src = `/**
 * @param {number[]} xs
 * @param {number} x
 * @param {number} [h]
 */
export function density(xs, x, h) {
  const bw = h ?? 0.5;
  return xs.reduce((s, v) => s + Math.exp(-0.5 * ((x - v) / bw) ** 2), 0) / (xs.length * bw);
}
`;
    const r = compile({ 'kde.js': src }, { head: 'density', modes: ['tangent'] });
    expect(r.code).toMatch(/export function density\(xs: number\[\], x: number, h\?: number\): number/);
    checks({ 'kde.js': src }, 'density', [[0.5, 1.5, 2], 1.2]);
    checks({ 'kde.js': src }, 'density', [[0.5, 1.5, 2], 1.2, 0.8]);
  });
});
