// SSA with branch, loop-entry and loop-exit φ's (issue 19): structure on small functions lowered by the
// front end, and semantics — an interpreter of the SSA form (φ's by the recorded branch decision, the
// iteration, the exit taken) agrees with running the function itself.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { buildSsa, buildSsaOf, phis, prune, SsaUnsupported, type SsaFunc, type SsaNode } from '../src/analysis/ssa.js';
import { frontEnd } from '../src/api/compile.js';
import type { Expr } from '../src/ir/types.js';
import { fromIR } from '../src/transform/coarsen/convert.js';
import { differentiate } from '../src/transform/coarsen/differentiate.js';
import { elevate, ElevateUnsupported } from '../src/transform/coarsen/elevate.js';
import { simplify } from '../src/transform/coarsen/simplify.js';
import * as T from '../src/transform/coarsen/terms.js';

type Arg = number | number[];

function ssaOf(src: string, name = 'f'): SsaFunc {
  return buildSsa(frontEnd(src).funcs.get(name)!);
}

function native(src: string, name = 'f'): (...a: Arg[]) => number {
  const js = ts.transpile(src.replace(/export /g, ''), { target: ts.ScriptTarget.ES2020 });
  return new Function(`${js}; return ${name};`)() as (...a: Arg[]) => number;
}

interface Run {
  value: number;
  /** branch decisions (last taken), trip counts (iterations started) and exits of loops */
  decisions: Record<string, number>;
  trips: Record<string, number>;
  exits: Record<string, string>;
}

/** run the SSA form: every read sees its one definition, φ's pick by control flow */
function interpret(ssa: SsaFunc, args: Arg[]): Run {
  const vals = new Map<string, number>();
  const arrays: Record<string, number[]> = {};
  ssa.params.forEach((p, i) => {
    const a = args[i];
    if (Array.isArray(a)) {
      arrays[p] = [...a];
      vals.set(`${p}.length`, a.length);
    } else vals.set(p, a);
  });
  const run: Run = { value: NaN, decisions: {}, trips: {}, exits: {} };
  const ev = (e: Expr) => T.evaluate(fromIR(e), { syms: Object.fromEntries(vals), arrays });
  const get = (n: string) => {
    if (!vals.has(n)) throw new Error(`read of ${n} before its definition`);
    return vals.get(n)!;
  };
  type Signal = { brk: number } | { ret: number } | null;
  const exec = (list: SsaNode[]): Signal => {
    for (const n of list) {
      switch (n.k) {
        case 'def':
          vals.set(n.name, n.value ? ev(n.value) : NaN);
          break;
        case 'phi':
          if (n.kind !== 'branch') throw new Error('loop φ outside its loop');
          vals.set(n.name, get(n.args[run.decisions[n.site]]));
          break;
        case 'if': {
          const c = ev(n.cond);
          run.decisions[n.site] = c ? 0 : 1;
          const sig = exec(c ? n.then : n.else);
          if (sig) return sig;
          break;
        }
        case 'loop': {
          let iter = 0;
          let exit = '';
          for (;;) {
            for (const p of n.entry) vals.set(p.name, get(p.args[iter === 0 ? 0 : 1]));
            if (n.form !== 'do' && n.cond && !ev(n.cond)) {
              exit = iter === 0 ? 'skip' : 'normal';
              break;
            }
            const sig = exec(n.body);
            if (sig && 'ret' in sig) return sig;
            if (sig) {
              exit = `break${sig.brk}`;
              iter++;
              break;
            }
            exec(n.update);
            iter++;
            if (n.form === 'do' && n.cond && !ev(n.cond)) {
              exit = 'normal';
              break;
            }
            if (iter > 1e5) throw new Error('runaway loop');
          }
          run.trips[n.site] = iter;
          run.exits[n.site] = exit;
          const j = n.exits.indexOf(exit);
          expect(j).toBeGreaterThanOrEqual(0);
          for (const p of n.exit) vals.set(p.name, get(p.args[j]));
          break;
        }
        case 'break':
          return { brk: n.index };
        case 'store': {
          if (n.target.k !== 'idx' || n.target.obj.k !== 'var') throw new Error('store');
          arrays[n.target.obj.name][ev(n.target.index)] = ev(n.value);
          break;
        }
        case 'effect':
          break;
        case 'return':
          return { ret: n.value ? ev(n.value) : NaN };
      }
    }
    return null;
  };
  const sig = exec(ssa.body);
  if (sig && 'ret' in sig) run.value = sig.ret;
  return run;
}

function defsAreUnique(ssa: SsaFunc): void {
  const seen = new Set<string>();
  const walk = (list: SsaNode[]) => {
    for (const n of list) {
      const named = n.k === 'def' || n.k === 'phi' ? [n] : n.k === 'loop' ? [...n.entry, ...n.exit] : [];
      for (const d of named) {
        expect(seen.has(d.name)).toBe(false);
        seen.add(d.name);
      }
      if (n.k === 'if') {
        walk(n.then);
        walk(n.else);
      }
      if (n.k === 'loop') {
        walk(n.body);
        walk(n.update);
      }
    }
  };
  walk(ssa.body);
}

const FIG4 = `export function f(a: number, x: number, k: number): number {
  let s = a;
  for (let i = 0; i < k; i++) s = s + x;
  return s;
}`;

const BGD = `export function f(r: number, x: number[], y: number[], T: number): number {
  const M = x.length;
  let w = 0;
  let k = 0;
  while (k < T) {
    k = k + 1;
    let d = 0;
    for (let i = 0; i < M; i++) d = d + 2 * x[i] * (y[i] - x[i] * w);
    d = d / M;
    if (d < 0.001) break;
    w = w - r * d;
  }
  let e = 0;
  for (let j = 0; j < M; j++) e = e + (y[j] - x[j] * w) ** 2;
  return e ** 0.5 / M;
}`;

const IFELSE = `export function f(p: number, q: number, x: number, c1: number, c2: number): number {
  const t = p + q * x;
  let z = 0;
  if (c1 > 0) {
    if (c2 > 0) z = t * t ** 0.5;
    else z = Math.log(1 + Math.exp(t));
  } else z = t * t;
  return z * (1 + Math.exp(t));
}`;

describe('SSA', () => {
  it('Fig. 4: entry φ’s for s and i, one exit φ for s with a skip and a normal argument', () => {
    const ssa = ssaOf(FIG4);
    defsAreUnique(ssa);
    const loop = ssa.body.find((n) => n.k === 'loop') as Extract<SsaNode, { k: 'loop' }>;
    expect(loop.entry.map((p) => [p.of, p.kind, p.site, p.args.length])).toEqual([['s', 'entry', loop.site, 2], ['i', 'entry', loop.site, 2]]);
    expect(loop.exit.map((p) => [p.of, p.kind, p.args.length])).toEqual([['s', 'exit', 2]]);
    expect(loop.exits).toEqual(['skip', 'normal']);
    expect(loop.trip).toBe(`#${loop.site}`);
    // s4 = ϕ_L'(s1, s3): skip → the value before the loop, normal → the value at the back edge
    const [s4] = loop.exit;
    expect(s4.args[0]).toBe(loop.entry[0].args[0]);
    expect(s4.args[1]).toBe(loop.entry[0].args[1]);
    const g = native(FIG4);
    for (const k of [0, 1, 3, 2.5]) {
      const run = interpret(ssa, [1.5, 0.25, k]);
      expect(run.value).toBe(g(1.5, 0.25, k));
      expect(run.exits[loop.site]).toBe(k > 0 ? 'normal' : 'skip');
    }
  });

  it('BGDHyperOpt (Fig. 6): nine φ’s once pruned, the while loop’s exit φ of w is 3-ary (skip, break, normal)', () => {
    const full = ssaOf(BGD);
    defsAreUnique(full);
    const ssa = prune(full);
    const all = phis(ssa);
    expect(all.length).toBe(9);
    expect(all.filter((p) => p.kind === 'entry').map((p) => p.of).sort()).toEqual(['d', 'e', 'i', 'j', 'k', 'w']);
    expect(all.filter((p) => p.kind === 'exit').map((p) => p.of).sort()).toEqual(['d', 'e', 'w']);
    const w4 = all.find((p) => p.kind === 'exit' && p.of === 'w')!;
    expect(w4.args.length).toBe(3);
    expect(w4.exits).toEqual(['skip', 'break0', 'normal']);
    // the break argument is w's entry φ (the break comes before w is updated), the normal one its update
    const wEntry = all.find((p) => p.kind === 'entry' && p.of === 'w')!;
    expect(w4.args[1]).toBe(wEntry.name);
    expect(w4.args[2]).toBe(wEntry.args[1]);
    const g = native(BGD);
    const rows: [number, number[], number[], number, string, number][] = [
      [0.01, [1, 2, 3], [2, 4, 5], 5, 'normal', 3.485204389559163],
      [0.01, [1, 2, 3], [-2, -4, -5], 5, 'break0', 2.23606797749979],
      [0.01, [1, 2, 3], [2, 4, 5], 0, 'skip', 2.23606797749979],
      [0.001, [0.5, -1, 2, 1.5], [1, -2.5, 3.5, 2], 10, 'normal', 1.25627382419529],
      [-0.05, [1, 2, 3], [2, 4, 5], 100, 'break0', 0.1992047910857043],
      [-0.02, [0.5, -1, 2, 1.5], [1, -2.5, 3.5, 2], 50, 'normal', 0.2469735483660054],
    ];
    for (const [r, x, y, Tv, exit, err] of rows) {
      const run = interpret(ssa, [r, x, y, Tv]);
      expect(run.value).toBe(g(r, x, y, Tv));
      expect(run.value).toBeCloseTo(err, 12);
      expect(run.exits[w4.site]).toBe(exit);
    }
    expect(interpret(ssa, [-0.05, [1, 2, 3], [2, 4, 5], 100]).trips[w4.site]).toBe(17); // K of the report
  });

  it('nested if-else: a branch φ per merge, tagged with its condition site', () => {
    const ssa = ssaOf(IFELSE);
    defsAreUnique(ssa);
    const ps = phis(ssa);
    expect(ps.map((p) => [p.of, p.kind, p.args.length])).toEqual([['z', 'branch', 2], ['z', 'branch', 2]]);
    const outer = ssa.body.find((n) => n.k === 'if') as Extract<SsaNode, { k: 'if' }>;
    expect(ps[1].site).toBe(outer.site);
    expect(ps[0].site).not.toBe(outer.site);
    const g = native(IFELSE);
    for (const [c1, c2] of [[1, 1], [1, -1], [-1, 1]]) expect(interpret(ssa, [1, 2, 0.5, c1, c2]).value).toBe(g(1, 2, 0.5, c1, c2));
    expect(interpret(ssa, [1, 2, 0.5, 1, 1]).value).toBeCloseTo(23.72783382123291, 12);
  });

  it('a branch that breaks adds no argument; do-while has no skip; while (true) neither skip nor normal exit', () => {
    const src = `export function f(x: number, n: number): number {
  let s = 0;
  let i = 0;
  do { s = s + x * i; i = i + 1; } while (i < n);
  let t = 1;
  while (true) {
    if (t > n) { t = t - 0.5; break; } else { t = t * 2; }
    if (t > 100) break;
  }
  let u = 0;
  for (let j = 0; j < n; j++) { if (j > 2) { u = u + 1; break; } u = u + x; }
  return s + t + u;
}`;
    const ssa = ssaOf(src);
    defsAreUnique(ssa);
    const loops = ssa.body.filter((n): n is Extract<SsaNode, { k: 'loop' }> => n.k === 'loop');
    expect(loops.map((l) => l.exits)).toEqual([['normal'], ['break0', 'break1'], ['skip', 'break0', 'normal']]);
    expect(loops.map((l) => l.exit.map((p) => p.args.length))).toEqual([[1, 1], [2], [3]]);
    const g = native(src);
    for (const [x, n] of [[0.5, 0], [0.5, 3], [-1, 7], [2, 1.5]]) expect(interpret(ssa, [x, n]).value).toBe(g(x, n));
  });

  it('element writes stay stores (arrays are not versioned); scalar reads inside them are renamed', () => {
    const src = `export function f(a: number[], x: number): number {
  let s = x;
  for (let i = 0; i < a.length; i++) { a[i] = a[i] * s; s = s + 1; }
  return a[0] + s;
}`;
    const ssa = ssaOf(src);
    const g = native(src);
    expect(interpret(ssa, [[1, 2, 3], 0.5]).value).toBe(g([1, 2, 3], 0.5));
  });

  it('a region (a loop of a function, its live-in variables given) reports what each variable is after it', () => {
    const f = frontEnd(FIG4).funcs.get('f')!;
    const region = f.body.filter((st) => st.k === 'for');
    const ssa = buildSsaOf('loop', region, ['s', 'x', 'k']);
    const loop = ssa.body.find((n) => n.k === 'loop') as Extract<SsaNode, { k: 'loop' }>;
    expect(ssa.liveOut!.get('s')).toBe(loop.exit[0].name);
    expect(ssa.liveOut!.get('x')).toBe('x');
    expect([...ssa.liveOut!.keys()].sort()).toEqual(['k', 's', 'x']);
  });

  it('refuses what it does not model yet', () => {
    expect(() => ssaOf(`export function f(x: number): number { let s = 0; for (let i = 0; i < 3; i++) { if (i === 1) continue; s = s + x; } return s; }`)).toThrow(SsaUnsupported);
    expect(() => ssaOf(`export function f(x: number): number { if (x > 0) return x; return -x; }`)).toThrow(SsaUnsupported);
  });
});

describe('symbolic elevation from SSA (forward substitution, φ-calculus on loops)', () => {
  /** evaluate a closed form with the run-time records of a run: trip counts, exits taken, branch decisions */
  const withRecords = (t: T.Term, ssa: SsaFunc, args: Arg[], syms: Record<string, number>, arrays: Record<string, number[]> = {}): number => {
    const run = interpret(ssa, args);
    const phis: Record<string, number> = { ...run.decisions };
    const trips: Record<string, number> = {};
    const loops: Extract<SsaNode, { k: 'loop' }>[] = [];
    const find = (list: SsaNode[]) => {
      for (const n of list) {
        if (n.k === 'loop') {
          loops.push(n);
          find(n.body);
        }
        if (n.k === 'if') {
          find(n.then);
          find(n.else);
        }
      }
    };
    find(ssa.body);
    for (const l of loops)
      if (l.site in run.exits) {
        phis[l.site] = l.exits.indexOf(run.exits[l.site]);
        trips[l.trip] = run.trips[l.site];
      }
    return T.evaluate(t, { syms: { ...syms, ...trips }, arrays, phis });
  };

  it('P1 (Fig. 4): s4 = a + n·x with n the counted trip max(0, ceil(k)); C6 then F5; ds/dx = n, ds/da = 1', () => {
    const ssa = ssaOf(FIG4);
    const el = elevate(ssa);
    const [site] = [...el.loops.keys()];
    expect(el.loops.get(site)!.rules).toEqual({ s: 'C6', i: 'C6' });
    const n = T.fn('Math.max', T.num(0), T.fn('Math.ceil', T.sym('k')));
    expect(el.result).toBe(T.add(T.sym('a'), T.mul(n, T.sym('x'))));
    expect(simplify(differentiate(el.result!, T.sym('x')))).toBe(n);
    expect(simplify(differentiate(el.result!, T.sym('a')))).toBe(T.num(1));
    const g = native(FIG4);
    for (const k of [0, 1, 3, 2.5, -1]) expect(T.evaluate(el.result!, { syms: { a: 1.5, x: 0.25, k } })).toBeCloseTo(g(1.5, 0.25, k), 14);
  });

  it('the if-else example: the closed form keeps both branch φ’s; with the run’s decisions it is the function', () => {
    const ssa = ssaOf(IFELSE);
    const el = elevate(ssa);
    const g = native(IFELSE);
    const want: [number, number, number, number][] = [[1, 1, 23.72783382123291, 77.3905641248228], [1, -1, 17.842918403026484, 46.210092981828325], [-1, 1, 33.5562243957226, 126.2248975828904]];
    const dL = simplify(differentiate(el.result!, T.sym('x')));
    for (const [c1, c2, L, dLdx] of want) {
      const syms = { p: 1, q: 2, x: 0.5, c1, c2 };
      expect(withRecords(el.result!, ssa, [1, 2, 0.5, c1, c2], syms)).toBeCloseTo(g(1, 2, 0.5, c1, c2), 13);
      expect(withRecords(el.result!, ssa, [1, 2, 0.5, c1, c2], syms)).toBeCloseTo(L, 12);
      expect(withRecords(dL, ssa, [1, 2, 0.5, c1, c2], syms)).toBeCloseTo(dLdx, 11);
    }
  });

  it('P2 BGDHyperOpt from TypeScript: nested loops closed (C6, C7), inner exit φ’s removed (F5), the while loop’s kept; err and derr/dr as the oracle', () => {
    const ssa = prune(ssaOf(BGD));
    const el = elevate(ssa, { assume: { positive: new Set(['x.length']) } });
    const rules = [...el.loops.values()].map((l) => l.rules);
    expect(rules).toContainEqual({ d: 'C7', i: 'C6' });
    expect(rules).toContainEqual({ w: 'C6', k: 'C6' });
    const err = el.result!;
    const exitPhis: T.Term[] = [];
    T.mapTerm(err, (t) => {
      if (t.k === 'phi') exitPhis.push(t);
      return t;
    });
    expect(new Set(exitPhis.map((p) => (p as { site: string }).site)).size).toBe(1); // only ϕ_k' stays
    expect(exitPhis.every((p) => p.k === 'phi' && p.kind === 'exit' && p.args.length === 3)).toBe(true);
    const derr = simplify(differentiate(err, T.sym('r')), { positive: new Set(['x.length']) });
    const rows: [number, number[], number[], number, number, number][] = [
      [0.01, [1, 2, 3], [2, 4, 5], 5, 3.485204389559163, 148.27273610906613],
      [0.01, [1, 2, 3], [-2, -4, -5], 5, 2.23606797749979, 0.0],
      [0.01, [1, 2, 3], [2, 4, 5], 0, 2.23606797749979, 0.0],
      [0.001, [0.5, -1, 2, 1.5], [1, -2.5, 3.5, 2], 10, 1.25627382419529, 45.13755419359016],
      [-0.05, [1, 2, 3], [2, 4, 5], 100, 0.1992047910857043, 1.2803450082139863e-5],
      [-0.02, [0.5, -1, 2, 1.5], [1, -2.5, 3.5, 2], 50, 0.2469735483660054, 0.4754313659444518],
    ];
    for (const [r, x, y, Tv, errv, derrv] of rows) {
      const syms = { r, T: Tv, 'x.length': x.length };
      expect(withRecords(err, ssa, [r, x, y, Tv], syms, { x, y })).toBeCloseTo(errv, 10);
      const dv = withRecords(derr, ssa, [r, x, y, Tv], syms, { x, y });
      expect(Math.abs(dv - derrv)).toBeLessThanOrEqual(1e-7 * (1 + Math.abs(derrv)));
    }
  });

  it('P6 (Fig. 8): cut at w and v, z = w³ − v³ has dz/dw = 3w², dz/dv = −3v²; whole, dz/dx = −597 and dz/dy = −1506 at x = 5, y = 3', () => {
    const ssa = ssaOf(`export function f(x: number, y: number): number {
  const w = x - 2 * y;
  const v = y * x - x;
  const z1 = w * w * w;
  const z2 = v * v * v;
  return z1 - z2;
}`);
    const cut = elevate(ssa, { cut: (n) => n === 'w.1' || n === 'v.1' });
    const w = T.sym('w.1'), v = T.sym('v.1');
    expect(cut.result).toBe(T.add(T.pow(w, T.num(3)), T.mul(T.num(-1), T.pow(v, T.num(3)))));
    const dzdw = simplify(differentiate(cut.result!, w)), dzdv = simplify(differentiate(cut.result!, v));
    const at = { 'w.1': -1, 'v.1': 10 };
    expect([T.evaluate(cut.result!, { syms: at }), T.evaluate(dzdw, { syms: at }), T.evaluate(dzdv, { syms: at })]).toEqual([-1001, 3, -300]);
    const el = elevate(ssa);
    const whole = el.result!;
    const xy = { x: 5, y: 3 };
    expect(T.evaluate(simplify(differentiate(whole, T.sym('x'))), { syms: xy })).toBe(-597);
    expect(T.evaluate(simplify(differentiate(whole, T.sym('y'))), { syms: xy })).toBe(-1506);
    // the shortcut partials chained by AD through the rest give the same: dz/dx = dz/dw·dw/dx + dz/dv·dv/dx
    const wT = el.terms.get('w.1')!, vT = el.terms.get('v.1')!;
    for (const s of [T.sym('x'), T.sym('y')]) {
      const chain = T.add(T.mul(T.subst(T.subst(dzdw, w, wT), v, vT), differentiate(wT, s)), T.mul(T.subst(T.subst(dzdv, w, wT), v, vT), differentiate(vT, s)));
      expect(T.evaluate(chain, { syms: xy })).toBe(s.name === 'x' ? -597 : -1506);
    }
  });

  it('refuses loops it cannot close, and branch φ’s whose decision changes per iteration', () => {
    expect(() => elevate(ssaOf(`export function f(x: number, n: number): number { let s = x; for (let i = 0; i < n; i++) s = Math.sin(s); return s; }`))).toThrow(ElevateUnsupported);
    expect(() => elevate(ssaOf(`export function f(x: number, n: number): number { let s = 0; for (let i = 0; i < n; i++) { if (i > 2) s = s + x; else s = s * x; } return s; }`))).toThrow(/varies with the iteration/);
    expect(() => elevate(ssaOf(`export function f(x: number, n: number): number { let a = 1; let b = 0; for (let i = 0; i < n; i++) { const t = a; a = b; b = t + x; } return a; }`))).toThrow(/coupled/);
  });
});
