// The vector mode's direction loops fused (src/transform/direction-loops.ts): which runs are fused and
// which are left apart, on hand-built statement lists, and vector tangents of generated code against
// scalar tangents where the fusion applies and where it must not.
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile } from '../src/api/compile.js';
import { compileHvp } from '../src/api/hessian.js';
import { fuseDirectionLoops } from '../src/transform/direction-loops.js';
import type { Expr, Stmt } from '../src/ir/types.js';
import { INT, NUM } from '../src/ir/util.js';

const v = (name: string): Expr & { k: 'var' } => ({ k: 'var', name, ty: NUM });
const num = (x: number): Expr => ({ k: 'num', v: x });
const nd = { k: 'var', name: 'nd', ty: INT } as const;
const nb = { k: 'var', name: 'nbdirs', ty: INT } as const;
/** `arr[nd]`, or `arr[i * nbdirs + nd]` */
const slot = (arr: string, i?: Expr): Expr & { k: 'idx' } => ({ k: 'idx', obj: v(arr), index: i ? { k: 'bin', op: '+', a: { k: 'bin', op: '*', a: i, b: nb, ty: INT }, b: nd, ty: INT } : nd, ty: NUM });
const mul = (a: Expr, b: Expr): Expr => ({ k: 'bin', op: '*', a, b, ty: NUM });
const set = (target: Expr & { k: 'var' | 'idx' }, value: Expr): Stmt => ({ k: 'assign', target, value });
/** `for (let nd = 0; nd < nbdirs; nd++) { … }` */
const dirLoop = (...body: Stmt[]): Stmt => ({
  k: 'for',
  init: [{ k: 'decl', name: 'nd', ty: INT, init: num(0), konst: false }],
  cond: { k: 'bin', op: '<', a: nd, b: nb, ty: INT },
  update: [{ k: 'assign', target: nd, value: { k: 'bin', op: '+', a: nd, b: num(1), ty: INT }, op: '+', inc: true }],
  body,
});
const loops = (list: Stmt[]) => list.filter((s) => s.k === 'for').length;

describe('fuseDirectionLoops', () => {
  it('fuses a run, moving the primal statements between the loops above the first', () => {
    // ad = 2·a·xd; a = …; bd = ad·b; b = …
    const list = [dirLoop(set(slot('ad'), mul(v('a'), slot('xd', v('i'))))), set(v('b'), mul(v('a'), num(3))), dirLoop(set(slot('bd'), mul(slot('ad'), v('b'))))];
    const out = fuseDirectionLoops(list, 'nd', 'nbdirs');
    expect(loops(out)).toBe(1);
    expect(out[0]).toBe(list[1]);
    expect((out[1] as Extract<Stmt, { k: 'for' }>).body).toHaveLength(2);
  });

  it('leaves apart loops around a statement writing what the first reads, or reading what it writes', () => {
    const first = dirLoop(set(slot('ad'), mul(v('a'), slot('xd', v('i')))));
    const second = dirLoop(set(slot('bd'), slot('ad')));
    expect(loops(fuseDirectionLoops([first, set(v('a'), num(2)), second], 'nd', 'nbdirs'))).toBe(2);
    expect(loops(fuseDirectionLoops([first, { k: 'decl', name: 'c', ty: NUM, init: { k: 'idx', obj: v('ad'), index: num(0), ty: NUM }, konst: true }, second], 'nd', 'nbdirs'))).toBe(2);
  });

  it('leaves apart a store to memory when the first loop reads primal memory', () => {
    const first = dirLoop(set(slot('ad'), mul({ k: 'idx', obj: v('x'), index: v('i'), ty: NUM }, slot('xd', v('i')))));
    const store = set({ k: 'idx', obj: v('y'), index: v('i'), ty: NUM }, num(1));
    expect(loops(fuseDirectionLoops([first, store, dirLoop(set(slot('bd'), slot('ad')))], 'nd', 'nbdirs'))).toBe(2);
  });

  it('leaves apart loops whose order across directions matters: tape operations, reads of another direction', () => {
    const push: Stmt = dirLoop({ k: 'expr', e: { k: 'intr', fn: 'tape.pushF', args: [v('taped'), slot('ad')], ty: { k: 'void' } } });
    const other = dirLoop(set(slot('bd'), { k: 'idx', obj: v('ad'), index: { k: 'bin', op: '-', a: nb, b: nd, ty: INT }, ty: NUM }));
    const plain = dirLoop(set(slot('cd'), slot('ad')));
    expect(loops(fuseDirectionLoops([push, plain], 'nd', 'nbdirs'))).toBe(2);
    expect(loops(fuseDirectionLoops([plain, other], 'nd', 'nbdirs'))).toBe(2);
  });
});

describe('vector tangents with fused direction loops equal the scalar tangents', () => {
  const CASES: [string, string, unknown[]][] = [
    [
      'a chain of temporaries in a loop (fused)',
      `export function f(x: number[]): number {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) {
    const a = x[i + 1] - x[i] * x[i];
    const b = Math.sin(a) * x[i];
    s += a * b + b * b;
  }
  return s;
}`,
      [[0.3, -0.4, 1.1, 0.7, -0.9]],
    ],
    [
      'a value reassigned between its uses',
      `export function f(x: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    let t = x[i];
    s += t * s;
    t = t * Math.exp(t);
    s += Math.sin(t) * t;
    t = t * t;
    s += t;
  }
  return s;
}`,
      [[0.3, -0.4, 1.1, 0.7]],
    ],
    [
      'an array written and read again in the same iteration',
      `export function f(x: number[], y: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    y[i] = x[i] * x[i];
    s += y[i] * x[i];
    y[i] = Math.cos(y[i]) + s;
    s += y[i] * y[i];
  }
  return s;
}`,
      [[0.3, -0.4, 1.1, 0.7], [0, 0, 0, 0]],
    ],
  ];
  for (const [name, src, args] of CASES)
    it(name, () => {
      const r = compile(src, { head: 'f', js: true, runtimeImport: null });
      expect(r.diagnostics).toEqual([]);
      for (const seed of [1, 2]) {
        const rep = checkCompiled(r, r.code, 'f', args, { seed, directions: 5 });
        expect(rep.messages).toEqual([]);
        expect(rep.vectorError).toBeLessThan(1e-12);
      }
    });

  it('the chained Rosenbrock H·V: one direction loop in the reversed loop', () => {
    const src = `export function f(x: number[]): number {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) {
    const a = x[i + 1] - x[i] * x[i];
    const b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}`;
    const r = compileHvp(src, { head: 'f', js: true, runtimeImport: null });
    expect(r.diagnostics).toEqual([]);
    const bwd = r.code.slice(r.code.indexOf('function f_bwd_dv'), r.code.indexOf('function f_b_dv'));
    const reversed = bwd.slice(bwd.indexOf('for (i = '));
    expect(reversed.match(/for \(let nd = /g)).toHaveLength(1);
    expect(bwd).not.toMatch(/new Float64Array/);
  });
});
